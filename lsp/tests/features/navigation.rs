//! Definition, references and highlights: the answer drawn as `«…»` on the fixture itself.

use crate::fixture::{check_text, fixture};
use opal_lsp::navigation::{self, HighlightKind};

/// Marks the definition of the name at `$0`.
#[track_caller]
fn check_definition(src: &str) {
    let f = fixture(src);
    let def = navigation::definition(&f.analysis, f.cursor());
    check_text(&f.marked(&def.into_iter().collect::<Vec<_>>()), src);
}

/// Marks every occurrence of the name at `$0` (with its definition when `decl`).
#[track_caller]
fn check_references(src: &str, decl: bool) {
    let f = fixture(src);
    check_text(
        &f.marked(&navigation::references(&f.analysis, f.cursor(), decl)),
        src,
    );
}

/// Marks the highlights; `kinds` lists them in order, `w` for a definition, `r` for a use.
#[track_caller]
fn check_highlights(src: &str, kinds: &str) {
    let f = fixture(src);
    let hs = navigation::highlights(&f.analysis, f.cursor());
    let spans: Vec<_> = hs.iter().map(|h| h.0).collect();
    check_text(&f.marked(&spans), src);
    let got: String = hs
        .iter()
        .map(|h| {
            if h.1 == HighlightKind::Write {
                'w'
            } else {
                'r'
            }
        })
        .collect();
    check_text(&got, kinds);
}

#[test]
fn definition_of_a_use() {
    check_definition("«count» := 1\nprint (&stdout, cou$0nt + 1)\n");
}

#[test]
fn definition_of_a_parameter_inside_its_function() {
    check_definition("f := fun «x»:\n    ret x$0 * 2\nx := 5\n");
}

#[test]
fn no_definition_for_a_standard_external() {
    check_definition("x := 1\npri$0nt (&stdout, x)\n");
}

#[test]
fn references_with_and_without_the_definition() {
    check_references("«count» := 1\nprint (&stdout, «cou$0nt» + «count»)\n", true);
    check_references("count := 1\nprint (&stdout, «cou$0nt» + «count»)\n", false);
}

#[test]
fn references_stop_at_shadowing_parameters() {
    check_references(
        "«x» := 1\nf := fun x: x + 1\nprint (&stdout, «x»$0)\n",
        true,
    );
}

#[test]
fn highlights_tell_definitions_from_uses() {
    check_highlights("«t$0otal» := 0\nprint (&stdout, «total»)\n", "wr");
}
