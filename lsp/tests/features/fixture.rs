//! Fixtures: `$0` marks the cursor, `«` and `»` mark ranges. The markers are taken out of the
//! text before it is analysed; results are written back as the same markers (or as lines of
//! text), so a test reads as the program with its answer drawn on it.

use opal_core::span::Span;
use opal_lsp::analysis::{Analysis, WorldInfo};

pub const CURSOR: &str = "$0";
pub const OPEN: char = '«';
pub const CLOSE: char = '»';

pub struct Fixture {
    /// The text without its markers.
    pub text: String,
    pub analysis: Analysis,
    /// The offset of `$0`, if any.
    pub cursor: Option<u32>,
    /// The `«…»` ranges, in the order they open.
    pub ranges: Vec<Span>,
}

impl Fixture {
    pub fn cursor(&self) -> u32 {
        self.cursor
            .unwrap_or_else(|| panic!("the fixture has no `$0`"))
    }

    /// The text with the cursor and these spans marked, to compare with the fixture.
    pub fn marked(&self, spans: &[Span]) -> String {
        mark(&self.text, self.cursor, spans)
    }
}

/// Takes the markers out of a fixture and analyses the text.
pub fn fixture(src: &str) -> Fixture {
    let mut text = String::with_capacity(src.len());
    let mut cursor = None;
    let (mut open, mut ranges) = (Vec::new(), Vec::new());
    let mut rest = src;
    while let Some(c) = rest.chars().next() {
        if let Some(r) = rest.strip_prefix(CURSOR) {
            assert!(cursor.is_none(), "two cursors in the fixture");
            cursor = Some(text.len() as u32);
            rest = r;
            continue;
        }
        match c {
            OPEN => {
                open.push(ranges.len());
                ranges.push(Span::new(text.len(), text.len()));
            }
            CLOSE => {
                let i = open
                    .pop()
                    .unwrap_or_else(|| panic!("a `»` without its `«`"));
                ranges[i].end = text.len() as u32;
            }
            c => text.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    assert!(open.is_empty(), "a `«` without its `»`");
    let analysis = Analysis::new(text.clone(), WorldInfo::default());
    Fixture {
        text,
        analysis,
        cursor,
        ranges,
    }
}

/// The text with `$0` at the cursor and `«…»` around each span (spans nest or are disjoint).
pub fn mark(text: &str, cursor: Option<u32>, spans: &[Span]) -> String {
    // (offset, order at that offset, marker): closes before opens, the cursor between.
    let mut marks: Vec<(u32, u8, &str)> = Vec::new();
    for s in spans {
        marks.push((s.start, 2, "«"));
        marks.push((s.end, 0, "»"));
    }
    if let Some(c) = cursor {
        marks.push((c, 1, CURSOR));
    }
    marks.sort_by_key(|m| (m.0, m.1));
    let mut out = String::new();
    let mut copied = 0;
    for (at, _, m) in marks {
        out.push_str(&text[copied..at as usize]);
        out.push_str(m);
        copied = at as usize;
    }
    out.push_str(&text[copied..]);
    out
}

/// The text after replacing each span with its text (spans disjoint).
pub fn apply(text: &str, mut edits: Vec<(Span, String)>) -> String {
    edits.sort_by_key(|e| std::cmp::Reverse(e.0.start));
    let mut out = text.to_string();
    for (s, t) in edits {
        out.replace_range(s.start as usize..s.end as usize, &t);
    }
    out
}

/// `line:col` (0-based, bytes) of an offset.
pub fn line_col(text: &str, offset: u32) -> String {
    let before = &text[..offset as usize];
    let line = before.matches('\n').count();
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1);
    format!("{line}:{col}")
}

/// Compares a result with its expectation, both as text; the message shows both whole.
#[track_caller]
pub fn check_text(actual: &str, expect: &str) {
    assert!(
        actual == expect,
        "\n--- expected\n{expect}\n--- actual\n{actual}\n---"
    );
}
