//! `opal lsp`: the OPAL language server, on the same front end as the CLI (`opal-core`).
//!
//! `analysis` answers questions about one snapshot of a document; one module per feature
//! (`completion`, `navigation`, `semantic_tokens`, `inlay_hints`, …) turns the answers into
//! results in its own plain types (byte spans, its own structs and enums); only the server layer
//! knows the protocol: `to_proto` converts to LSP types, `server` keeps documents (and the
//! workspace symbol index) and talks the protocol. The features are tested by text fixtures in
//! `tests/features/`.

pub mod analysis;
pub mod call_hierarchy;
pub mod cancel;
pub mod client;
pub mod code_actions;
pub mod completion;
pub mod document_link;
pub mod folding_ranges;
pub mod formatting;
pub mod inlay_hints;
pub mod linked_editing;
pub mod navigation;
pub mod on_type;
pub mod position;
pub mod refactor;
pub mod selection_ranges;
pub mod semantic_tokens;
pub mod server;
pub mod signature_help;
pub mod splice;
pub mod to_proto;
pub mod transport;
pub mod workspace_symbols;

pub use server::run_stdio;
