//! Completion: the items offered at `$0`, one per line (`kind label · detail`).

use crate::fixture::{check_text, fixture};
use opal_lsp::completion::{self, Completion, CompletionKind, Doc};

fn line(c: &Completion) -> String {
    let kind = match c.kind {
        CompletionKind::Variable => "var",
        CompletionKind::Function => "fn",
        CompletionKind::Interface => "extern",
        CompletionKind::Keyword => "kw",
        CompletionKind::Snippet => "snippet",
    };
    match &c.detail {
        Some(d) => format!("{kind} {} · {d}", c.label),
        None => format!("{kind} {}", c.label),
    }
}

/// The first `n` completions at `$0`.
#[track_caller]
fn check(src: &str, n: usize, expect: &str) {
    let f = fixture(src);
    let (items, _) = completion::completion_list(&f.analysis, f.cursor());
    let got: Vec<String> = items.iter().take(n).map(line).collect();
    check_text(&got.join("\n"), expect);
}

#[test]
fn bindings_in_scope_come_first_innermost_first() {
    check("printer := 1\nprogress := fun x: x\ny := pr$0\n", 3, "fn progress · function\nvar printer · primitive\nfn print · print (handle, value) -> handle");
}

#[test]
fn parameters_and_externs() {
    check(
        "extern ask\nf := fun (amount, h):\n    ret a$0\n",
        2,
        "var amount · parameter · value\nextern ask · extern",
    );
}

#[test]
fn nothing_inside_a_comment_or_a_string() {
    check("x := 1\n# x$0\n", 5, "");
    check("x := \"x$0\"\n", 5, "");
}

#[test]
fn the_doc_comment_of_a_binding_is_its_documentation() {
    let f = fixture("x := 0\n# How many there are.\ncount := 3\ny := cou$0\n");
    let (items, _) = completion::completion_list(&f.analysis, f.cursor());
    let c = items
        .iter()
        .find(|c| c.label == "count")
        .unwrap_or_else(|| panic!("no `count`"));
    let doc = c
        .doc
        .as_ref()
        .and_then(|d| completion::completion_documentation(&f.analysis, d));
    assert_eq!(doc, Some(Doc::Markdown("How many there are.".into())));
}
