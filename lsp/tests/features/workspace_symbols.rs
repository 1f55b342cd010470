//! Workspace symbols of one file: the matches of a query, one per line (`kind name in
//! container at line:col`).

use crate::fixture::{check_text, fixture};
use opal_lsp::workspace_symbols;

#[track_caller]
fn check(src: &str, query: &str, expect: &str) {
    let f = fixture(src);
    let lines: Vec<String> =
        workspace_symbols::matching(workspace_symbols::entries(&f.analysis), query)
            .iter()
            .map(|e| {
                let container = e
                    .container
                    .as_ref()
                    .map(|c| format!(" in {c}"))
                    .unwrap_or_default();
                format!(
                    "{:?} {}{container} at {}:{}-{}",
                    e.kind, e.name, e.start.line, e.start.col, e.end.col
                )
            })
            .collect();
    check_text(&lines.join("\n"), expect);
}

const SRC: &str =
    "extern ask\ndouble := fun x:\n    twice := x * 2\n    ret twice\n(a, b) := (1, 2)\n";

#[test]
fn every_symbol_for_an_empty_query() {
    check(SRC, "", "Interface ask at 0:7-10\nFunction double at 1:0-6\nVariable twice in double at 2:4-9\nVariable a at 4:1-2\nVariable b at 4:4-5");
}

#[test]
fn a_fuzzy_query_ignores_case() {
    check(SRC, "TW", "Variable twice in double at 2:4-9");
    check(SRC, "dbl", "Function double at 1:0-6");
    check(SRC, "zzz", "");
}
