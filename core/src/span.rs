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
        Span { start: start as u32, end: end as u32 }
    }
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
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
    pub fn new(text: &str) -> LineIndex {
        let mut line_starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
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
        let col = text.get(start..end).map(|s| s.chars().count()).unwrap_or(end - start);
        LineCol { line: line as u32 + 1, col: col as u32 + 1 }
    }
    /// The text of 0-based line `line` without its newline.
    pub fn line_text<'a>(&self, text: &'a str, line: usize) -> &'a str {
        let start = self.line_start(line) as usize;
        let end = self.line_starts.get(line + 1).map(|&e| e as usize).unwrap_or(text.len());
        text.get(start.min(text.len())..end.min(text.len())).unwrap_or("").trim_end_matches(['\n', '\r'])
    }
}
