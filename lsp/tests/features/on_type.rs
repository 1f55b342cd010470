//! On-type formatting after Enter: the text before (with `$0` on the new line) and after.

use crate::fixture::{apply, check_text, fixture, line_col};
use opal_lsp::on_type;

#[track_caller]
fn check(before: &str, after: &str) {
    let f = fixture(before);
    let line: u32 = line_col(&f.text, f.cursor())
        .split(':')
        .next()
        .and_then(|l| l.parse().ok())
        .unwrap_or_default();
    let edits = on_type::after_newline(&f.analysis, line, &on_type::indent_unit(4, true))
        .unwrap_or_default();
    check_text(&apply(&f.text, edits), after);
}

#[test]
fn a_block_header_indents_the_next_line() {
    check("f := fun x:\n$0\n", "f := fun x:\n    \n");
    check("if a:\n    if b:\n$0\n", "if a:\n    if b:\n        \n");
}

#[test]
fn other_lines_keep_the_indentation_above() {
    check(
        "f := fun x:\n    y := x\n$0\n",
        "f := fun x:\n    y := x\n    \n",
    );
    check("x := \"a:\"\n      $0\n", "x := \"a:\"\n\n");
}

#[test]
fn a_colon_in_a_comment_does_not_open_a_block() {
    check("x := 1 # why:\n$0\n", "x := 1 # why:\n\n");
}
