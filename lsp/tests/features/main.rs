//! Text-fixture tests of the features, called directly (no server, no JSON): a program with
//! a cursor `$0` and ranges `«…»`, and the expected result as text or as the same markers.

mod fixture;

mod call_hierarchy;
mod completion;
mod document_link;
mod hover;
mod inlay_hints;
mod linked_editing;
mod navigation;
mod on_type;
mod semantic_tokens;
mod workspace_symbols;
