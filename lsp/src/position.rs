//! LSP positions (0-based line, UTF-16 column) and byte offsets into one text.

use opal_core::span::{LineIndex, Span};
use tower_lsp_server::ls_types::{Position, Range};

/// Converts between byte offsets and LSP positions for one snapshot of a text.
pub struct Positions<'a> {
    text: &'a str,
    lines: &'a LineIndex,
}

impl<'a> Positions<'a> {
    pub fn new(text: &'a str, lines: &'a LineIndex) -> Positions<'a> {
        Positions { text, lines }
    }

    pub fn position(&self, offset: u32) -> Position {
        let mut offset = (offset as usize).min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.lines.line_of(offset as u32);
        let start = (self.lines.line_start(line) as usize).min(offset);
        let character = self.text[start..offset].encode_utf16().count() as u32;
        Position { line: line as u32, character }
    }

    pub fn range(&self, span: Span) -> Range {
        Range { start: self.position(span.start), end: self.position(span.end) }
    }

    /// The byte offset of a position; a column past the end of its line means the line's end
    /// (before the newline), a line past the end of the text means the end of the text.
    pub fn offset(&self, pos: Position) -> u32 {
        let line = pos.line as usize;
        if line >= self.lines.line_count() {
            return self.text.len() as u32;
        }
        let start = self.lines.line_start(line) as usize;
        let mut units = 0u32;
        for (i, c) in self.text[start..].char_indices() {
            if c == '\n' || units >= pos.character {
                return (start + i) as u32;
            }
            units += c.len_utf16() as u32;
        }
        self.text.len() as u32
    }

    pub fn span(&self, range: Range) -> Span {
        let (a, b) = (self.offset(range.start), self.offset(range.end));
        Span { start: a.min(b), end: a.max(b) }
    }
}
