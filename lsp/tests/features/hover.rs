//! Hover: the Markdown shown, and the span it is about.

use crate::fixture::{check_text, fixture};
use opal_lsp::navigation;

/// The hover at `$0`: its span marked on the fixture, its Markdown compared whole.
#[track_caller]
fn check(src: &str, markdown: &str) {
    let f = fixture(src);
    let h = navigation::hover(&f.analysis, f.cursor()).unwrap_or_else(|| panic!("no hover"));
    check_text(&f.marked(&[h.span]), src);
    check_text(&h.markdown, markdown);
}

#[test]
fn hover_on_a_keyword() {
    check(
        "x := 1\n«wh$0ile» x < 3:\n    x += 1\n",
        "**while** — keyword\n\n`while c: body` / `do: body while c` — a local recursive function through `fix`.\n",
    );
}

#[test]
fn hover_on_a_handle() {
    check(
        "print (&«std$0out», 1)\n",
        "**stdout** — handle\n\nThe program's standard output handle. Thread it with `&stdout` so effects keep their order.\n\n---\nLine 1 desugars to (initial labels at the top level):\n```opal-core\n1  t'1 := <1>\n2  t'2 := (stdout, t'1)\n3  stdout'1 := print t'2\n```\n",
    );
}

#[test]
fn hover_on_a_binding_shows_its_line_and_doc() {
    check(
        "x := 0\n# The answer.\n«ans$0wer» := 42\n",
        "```opal\nanswer := 42\n```\n**answer** — binding · primitive, line 3\n\nThe answer.\n\n---\nLine 3 desugars to (initial labels at the top level):\n```opal-core\n2  answer := <42>\n```\n",
    );
}

#[test]
fn hover_on_a_loop_variable_shows_its_binding_not_the_whole_loop() {
    check(
        "extern get\nfor city in [\"a\", \"b\"]:\n    x := get «ci$0ty»\n    print x\n",
        "```opal\nfor city in [\"a\", \"b\"]:\n```\n**city** — parameter · value, line 2\n\n---\nLine 2 desugars to (initial labels at the top level):\n```opal-core\n    city := prj 2 p'2\n```\n",
    );
}

#[test]
fn no_hover_on_a_number() {
    let f = fixture("x := 4$02\n");
    assert!(navigation::hover(&f.analysis, f.cursor()).is_none());
}
