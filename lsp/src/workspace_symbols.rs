//! Workspace symbols: a file's outline flattened into entries that need no text (positions
//! in the client's encoding), and the entries a query matches. The index of files on disk,
//! which follows the client's file events, is the server's (`server/index.rs`).

use crate::analysis::Analysis;
use crate::navigation::{self, SymbolKind};
use crate::position::LineCol;

/// One symbol: its name, kind, where its name is (in the client's position encoding, so the
/// index needs no text) and the name of the symbol it is in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub kind: SymbolKind,
    pub start: LineCol,
    pub end: LineCol,
    pub container: Option<String>,
}

/// The symbols of one analysed file (its outline, flattened).
pub fn entries(a: &Analysis) -> Vec<Entry> {
    let p = a.pos();
    navigation::flat_symbols(a)
        .into_iter()
        .map(|s| Entry {
            name: s.name,
            kind: s.kind,
            start: p.line_col(s.selection.start),
            end: p.line_col(s.selection.end),
            container: s.container,
        })
        .collect()
}

/// The symbols whose names match a query (its characters in order, ignoring case).
pub fn matching(entries: Vec<Entry>, q: &str) -> Vec<Entry> {
    entries
        .into_iter()
        .filter(|e| navigation::fuzzy_match(q, &e.name))
        .collect()
}
