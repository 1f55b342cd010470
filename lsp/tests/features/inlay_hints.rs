//! Inlay hints, drawn into the text as `⟨label⟩` where the client shows them.

use crate::fixture::{check_text, fixture};
use opal_core::span::Span;
use opal_lsp::inlay_hints::{self, HintKind};

/// The fixture with its hints drawn in (`«…»`, if any, is the range asked for).
#[track_caller]
fn check(src: &str, expect: &str) {
    let f = fixture(src);
    let range = f
        .ranges
        .first()
        .copied()
        .unwrap_or(Span::new(0, f.text.len()));
    let mut hints = inlay_hints::inlay_hints(&f.analysis, range);
    hints.sort_by_key(|h| h.offset);
    let mut out = f.text.clone();
    for h in hints.iter().rev() {
        let tag = if h.kind == HintKind::Threads {
            "threads"
        } else {
            "labels"
        };
        assert!(
            h.label
                .starts_with(if tag == "threads" { "threads " } else { "@" }),
            "{tag}: {}",
            h.label
        );
        out.insert_str(h.offset as usize, &format!("⟨{}⟩", h.label));
    }
    check_text(&out, expect);
}

#[test]
fn labels_after_each_top_level_statement() {
    check(
        "x := 1\ny := x + 2\nprint (&stdout, y)\n",
        "x := 1⟨@1⟩\ny := x + 2⟨@2–4⟩\nprint (&stdout, y)⟨@5–6⟩\n",
    );
}

#[test]
fn a_loop_threads_what_it_rebinds() {
    check(
        "total := 0\nfor y in [1, 2]:\n    total += y\nprint (&stdout, total)\n",
        "total := 0⟨@1⟩\nfor y in [1, 2]:⟨@2–5⟩⟨threads total⟩\n    total += y\nprint (&stdout, total)⟨@6–7⟩\n",
    );
}

#[test]
fn a_range_gets_the_hints_of_the_items_it_touches() {
    check(
        "total := 0\n«for y in [1, 2]:\n    total += y»\nprint (&stdout, total)\n",
        "total := 0\nfor y in [1, 2]:⟨@2–5⟩⟨threads total⟩\n    total += y\nprint (&stdout, total)\n",
    );
}
