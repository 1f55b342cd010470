//! `opal lsp`: the OPAL language server, on the same front end as the CLI (`opal-core`).
//!
//! `analysis` answers questions about one snapshot of a document, `navigation` and `editing`
//! turn the answers into LSP results, `server` keeps documents and talks the protocol.

pub mod analysis;
pub mod call_hierarchy;
pub mod cancel;
pub mod client;
pub mod document;
pub mod document_link;
pub mod editing;
pub mod linked_editing;
pub mod navigation;
pub mod on_type;
pub mod position;
pub mod refactor;
pub mod server;
pub mod splice;
pub mod transport;
pub mod workspace;

pub use server::run_stdio;
