//! Linked editing: the ranges typed into together, marked on the fixture.

use crate::fixture::{check_text, fixture};
use opal_lsp::linked_editing;

#[track_caller]
fn check(src: &str) {
    let f = fixture(src);
    let ranges = linked_editing::ranges(&f.analysis, f.cursor()).unwrap_or_default();
    check_text(&f.marked(&ranges), src);
}

#[test]
fn a_binding_and_its_uses() {
    check("«co$0unt» := 1\nprint (&stdout, «count» + «count»)\n");
}

#[test]
fn a_parameter_and_its_uses() {
    check("f := fun «n»:\n    ret «n»$0 * «n»\nn := 2\n");
}

#[test]
fn externs_and_unused_names_are_not_linked() {
    check("extern a$0sk\nprint (&stdout, ask 1)\n");
    check("lo$0ne := 1\n");
}
