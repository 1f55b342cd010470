//! Diagnostics: stable codes, severities, and rustc-style rendering.

use crate::span::{LineIndex, Span};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One finding about a source file. `code` is stable (`E0xxx` errors, `W0xxx` warnings) and
/// documented in `docs/diagnostics.md`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    pub span: Span,
    /// What the user can do about it.
    pub help: Option<String>,
    /// Other places that explain this one (e.g. the first use of a handle).
    pub related: Vec<(Span, String)>,
    /// A suggested replacement for `span`, used by quick fixes.
    pub fix: Option<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            help: None,
            related: vec![],
            fix: None,
        }
    }
    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }
    pub fn with_related(mut self, span: Span, msg: impl Into<String>) -> Diagnostic {
        self.related.push((span, msg.into()));
        self
    }
    pub fn with_fix(mut self, fix: impl Into<String>) -> Diagnostic {
        self.fix = Some(fix.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Every diagnostic code with a one-line summary; the LSP links each code to its docs.
pub const CODES: &[(&str, &str)] = &[
    ("E0001", "syntax error"),
    ("E0002", "tab in indentation"),
    ("E0003", "invalid token"),
    ("E0004", "task written in source"),
    ("E0005", "`=` used as binding"),
    ("E0006", "`break`/`continue` do not exist"),
    ("E0007", "nesting too deep"),
    ("E0008", "inconsistent indentation"),
    ("E0009", "`ret` not last in its block"),
    ("E0010", "misplaced `&`"),
    ("E0100", "unbound name"),
    ("E0101", "rebinding in core notation"),
    ("E0103", "arity or tuple-shape mismatch"),
    ("E0104", "projection out of range"),
    ("E0105", "calling a non-function"),
    ("E0106", "invalid primitive"),
    ("E0107", "`++` on something that is not a list"),
    ("E0200", "world file error"),
    ("E0300", "file cannot be read (missing, not UTF-8)"),
    ("E0900", "internal error: desugared term is not well-formed"),
    ("W0001", "unused binding"),
    ("W0002", "handle used twice without threading"),
    ("W0003", "extern without a world entry"),
    ("W0004", "world file table replaces a standard external"),
    (
        "W0005",
        "world file and program disagree on an external's ordering class",
    ),
    (
        "W0006",
        "world file has two responses for the same argument",
    ),
    ("W0007", "world file table that no call reads"),
];

/// Source lines longer than this are shown as a window of this many characters.
const SHOWN: usize = 160;

/// The window `[from, to)` of a long line that shows column `col`.
fn window(col: usize, len: usize) -> (usize, usize) {
    let from = col.saturating_sub(SHOWN / 3).min(len.saturating_sub(SHOWN));
    (from, (from + SHOWN).min(len))
}

/// Renders a diagnostic like rustc: `file:line:col: error[CODE]: message`, the line, a caret.
pub fn render(d: &Diagnostic, file: &str, text: &str, index: &LineIndex) -> String {
    let sev = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let lc = index.line_col(text, d.span.start);
    let mut out = format!(
        "{file}:{}:{}: {sev}[{}]: {}\n",
        lc.line, lc.col, d.code, d.message
    );
    let line_no = lc.line.to_string();
    let pad = " ".repeat(line_no.len());
    let src_line = index.line_text(text, lc.line as usize - 1);
    let end_lc = index.line_col(text, d.span.end);
    let width = if end_lc.line == lc.line {
        (end_lc.col.saturating_sub(lc.col)).max(1)
    } else {
        1
    };
    // A long line is shown as a window around the column (a 160 000-character line repeated
    // for every warning on it made gigabytes of output); control characters as `?`.
    let chars: Vec<char> = src_line.chars().collect();
    let col = lc.col as usize - 1;
    let (from, to) = if chars.len() <= SHOWN {
        (0, chars.len())
    } else {
        window(col, chars.len())
    };
    let mut shown: String = chars[from..to]
        .iter()
        .map(|&c| if c.is_control() && c != '\t' { '?' } else { c })
        .collect();
    if from > 0 {
        shown.insert(0, '…');
    }
    if to < chars.len() {
        shown.push('…');
    }
    let caret_at = col - from + usize::from(from > 0);
    let width = (width as usize).min(to.saturating_sub(col).max(1)).min(200);
    out.push_str(&format!("{pad} |\n{line_no} | {shown}\n"));
    out.push_str(&format!(
        "{pad} | {}{}\n",
        " ".repeat(caret_at),
        "^".repeat(width)
    ));
    for (span, msg) in &d.related {
        let r = index.line_col(text, span.start);
        out.push_str(&format!(
            "{pad} = note: {file}:{}:{}: {msg}\n",
            r.line, r.col
        ));
    }
    if let Some(h) = &d.help {
        out.push_str(&format!("{pad} = help: {h}\n"));
    }
    out
}

/// How many characters of a value an error message quotes (`clip`).
pub const CLIP_CHARS: usize = 200;

/// `text` as an error message quotes it: whole when it has at most `CLIP_CHARS` characters,
/// else its first `CLIP_CHARS` characters and `… (N bytes in all)`. A message is for a human
/// to read: a 100 MB string quoted whole made hundreds of megabytes of stderr.
pub fn clip(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(CLIP_CHARS) {
        None => std::borrow::Cow::Borrowed(text),
        Some((end, _)) => {
            std::borrow::Cow::Owned(format!("{}… ({} bytes in all)", &text[..end], text.len()))
        }
    }
}

/// `clip` of `v`'s text, without building the whole text: only the first `CLIP_CHARS`
/// characters are kept, the rest only counted (a value's text can be far bigger than the value).
pub fn clip_display(v: &(impl std::fmt::Display + ?Sized)) -> String {
    struct Head {
        kept: String,
        chars: usize,
        bytes: usize,
    }
    impl std::fmt::Write for Head {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.bytes += s.len();
            for c in s.chars() {
                if self.chars > CLIP_CHARS {
                    break;
                }
                self.chars += 1;
                if self.chars <= CLIP_CHARS {
                    self.kept.push(c);
                }
            }
            Ok(())
        }
    }
    let mut h = Head {
        kept: String::new(),
        chars: 0,
        bytes: 0,
    };
    let _ = std::fmt::write(&mut h, format_args!("{v}"));
    if h.chars <= CLIP_CHARS {
        h.kept
    } else {
        format!("{}… ({} bytes in all)", h.kept, h.bytes)
    }
}

/// A value as an error message quotes it (`clip_display`): `format!("got {x}", x = Clip(x))`.
pub struct Clip<T>(pub T);

impl<T: std::fmt::Display> std::fmt::Display for Clip<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&clip_display(&self.0))
    }
}

#[cfg(test)]
mod clip_tests {
    use super::{clip, clip_display, CLIP_CHARS};

    #[test]
    fn short_text_is_whole() {
        assert_eq!(clip("abc"), "abc");
        assert_eq!(clip(""), "");
        assert_eq!(clip_display(&"abc"), "abc");
    }

    #[test]
    fn exactly_the_limit_is_whole() {
        let s = "x".repeat(CLIP_CHARS);
        assert_eq!(clip(&s), s);
        assert_eq!(clip_display(&s), s);
        let one_more = "x".repeat(CLIP_CHARS + 1);
        assert_eq!(clip(&one_more), format!("{s}… (201 bytes in all)"));
        assert_eq!(clip_display(&one_more), format!("{s}… (201 bytes in all)"));
    }

    #[test]
    fn cuts_on_a_char_boundary() {
        // 'é' is two bytes: byte 200 is inside a character.
        let s = "é".repeat(1000);
        let c = clip(&s);
        assert_eq!(
            c,
            format!("{}… (2000 bytes in all)", "é".repeat(CLIP_CHARS))
        );
        assert_eq!(clip_display(&s), c);
        let mixed = format!("a{}", "€".repeat(300));
        assert!(clip(&mixed).starts_with(&format!("a{}…", "€".repeat(CLIP_CHARS - 1))));
    }

    #[test]
    fn a_huge_text_stays_short() {
        let s = "y".repeat(10_000_000);
        assert!(clip(&s).len() < 300);
        assert!(clip_display(&s).ends_with("(10000000 bytes in all)"));
    }
}
