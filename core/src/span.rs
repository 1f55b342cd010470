//! Byte spans and line/column conversion.

use serde::Serialize;

/// A half-open byte range into one source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// The text with every lone `\r` (not followed by `\n`) made a `\n`: a line break, as Python's
/// universal newlines and the LSP read it. Both are one byte, so every offset stays the same.
/// Borrowed when there is none (most texts).
pub fn lone_cr_to_lf(text: &str) -> std::borrow::Cow<'_, str> {
    let b = text.as_bytes();
    let lone = |i: usize| b[i] == b'\r' && b.get(i + 1) != Some(&b'\n');
    if !(0..b.len()).any(lone) {
        return std::borrow::Cow::Borrowed(text);
    }
    let out: Vec<u8> = (0..b.len())
        .map(|i| if lone(i) { b'\n' } else { b[i] })
        .collect();
    // Only ASCII bytes were replaced by ASCII bytes: still UTF-8.
    std::borrow::Cow::Owned(String::from_utf8(out).unwrap_or_else(|_| text.to_string()))
}

/// The text's lines as `str::lines` gives them (no line breaks, no empty line after the last
/// break), with a lone `\r` ending a line too.
pub fn lines(text: &str) -> Vec<&str> {
    let index = LineIndex::new(text);
    let mut out: Vec<&str> = (0..index.line_count())
        .map(|l| index.line_text(text, l))
        .collect();
    if out.last() == Some(&"") {
        out.pop();
    }
    out
}

/// Maps byte offsets to 1-based lines and columns (columns count characters).
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<u32>,
}

/// A 1-based line and column (column in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

impl LineIndex {
    /// Lines end at `\n`, `\r\n` or a lone `\r` (as in Python and LSP; see [`lone_cr_to_lf`]).
    pub fn new(text: &str) -> LineIndex {
        let mut line_starts = vec![0];
        let b = text.as_bytes();
        for (i, &c) in b.iter().enumerate() {
            if c == b'\n' || (c == b'\r' && b.get(i + 1) != Some(&b'\n')) {
                line_starts.push(i as u32 + 1);
            }
        }
        LineIndex { line_starts }
    }
    pub fn line_of(&self, offset: u32) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l - 1,
        }
    }
    pub fn line_start(&self, line: usize) -> u32 {
        self.line_starts.get(line).copied().unwrap_or(u32::MAX)
    }
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }
    pub fn line_col(&self, text: &str, offset: u32) -> LineCol {
        let offset = offset.min(text.len() as u32);
        let line = self.line_of(offset);
        let start = self.line_starts[line] as usize;
        let end = (offset as usize).max(start);
        let col = text
            .get(start..end)
            .map(|s| s.chars().count())
            .unwrap_or(end - start);
        LineCol {
            line: line as u32 + 1,
            col: col as u32 + 1,
        }
    }
    /// The text of 0-based line `line` without its newline.
    pub fn line_text<'a>(&self, text: &'a str, line: usize) -> &'a str {
        let start = self.line_start(line) as usize;
        let end = self
            .line_starts
            .get(line + 1)
            .map(|&e| e as usize)
            .unwrap_or(text.len());
        text.get(start.min(text.len())..end.min(text.len()))
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A program with lone `\r` line breaks (old Mac files, Neovim's `fileformat=mac`) is the
    /// same program as with `\n`, at the same offsets and lines; `\r\n` is one line break.
    #[test]
    fn lone_cr_ends_a_line_like_lf() {
        let lf = "x := 1\nif x > 0:\n    print (&stdout, x)  # shown\n";
        let cr = lf.replace('\n', "\r");
        let mixed = "x := 1\r\nif x > 0:\r    print (&stdout, x)  # shown\n";
        let starts = |t: &str| LineIndex::new(t).line_starts;
        assert_eq!(starts(&cr), starts(lf));
        assert_eq!(starts(mixed).len(), starts(lf).len());
        let toks = |t: &str| {
            crate::syntax::lexer::lex(t)
                .tokens
                .iter()
                .map(|t| (format!("{:?}", t.tok), t.span))
                .collect::<Vec<_>>()
        };
        assert_eq!(toks(&cr), toks(lf));
        for text in [cr.as_str(), mixed] {
            assert!(crate::syntax::lexer::lex(text).diags.is_empty(), "{text:?}");
            assert!(!crate::compile(text).has_errors(), "{text:?}");
            let at = text.find("print").unwrap_or(0) as u32;
            assert_eq!(
                LineIndex::new(text).line_col(text, at),
                LineCol { line: 3, col: 5 }
            );
        }
        assert_eq!(lone_cr_to_lf(lf), std::borrow::Cow::Borrowed(lf));
        for text in ["", "a", "a\n", "a\n\nb", "a\r\nb\r\n", "\n"] {
            assert_eq!(lines(text), text.lines().collect::<Vec<_>>(), "{text:?}");
        }
        assert_eq!(lines(&cr), lf.lines().collect::<Vec<_>>());
    }
}
