//! LSP positions (0-based line, column in the negotiated encoding: UTF-16 by default, UTF-8
//! or UTF-32 when the client offers them) and byte offsets into one text.

use opal_core::span::{LineIndex, Span};
use tower_lsp_server::ls_types::{Position, PositionEncodingKind, Range};

/// What a position's `character` counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encoding {
    /// Bytes.
    Utf8,
    /// UTF-16 code units (LSP's default).
    #[default]
    Utf16,
    /// Characters.
    Utf32,
}

impl Encoding {
    pub fn units(self, c: char) -> u32 {
        match self {
            Encoding::Utf8 => c.len_utf8() as u32,
            Encoding::Utf16 => c.len_utf16() as u32,
            Encoding::Utf32 => 1,
        }
    }

    /// The client's offer, in its order of preference, as rust-analyzer picks: UTF-8 if
    /// offered, else UTF-32, else UTF-16.
    pub fn choose(offered: &[PositionEncodingKind]) -> Encoding {
        if offered.contains(&PositionEncodingKind::UTF8) {
            Encoding::Utf8
        } else if offered.contains(&PositionEncodingKind::UTF32) {
            Encoding::Utf32
        } else {
            Encoding::Utf16
        }
    }

    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
            Encoding::Utf32 => PositionEncodingKind::UTF32,
        }
    }
}

/// Positions of increasing offsets, each counted on from the one before: a walk over sorted spans
/// (whole-file semantic tokens) costs the text it crosses, not a search and a count from the
/// line's start per offset. An offset behind the last one starts over.
pub struct Cursor<'p, 'a> {
    p: &'p Positions<'a>,
    offset: usize,
    pos: Position,
    /// Where the line after `pos.line` starts.
    next_line: u32,
}

impl Cursor<'_, '_> {
    pub fn position(&mut self, offset: u32) -> Position {
        let offset = self.p.boundary(offset);
        if offset < self.offset || offset as u32 >= self.next_line {
            self.pos = self.p.position(offset as u32);
            self.next_line = self.p.lines.line_start(self.pos.line as usize + 1);
        } else {
            self.pos.character += self.p.units(self.offset, offset);
        }
        self.offset = offset;
        self.pos
    }
}

/// A line and a column (0-based; the column in the [`Encoding`] of the [`Positions`] that made
/// it): a position in the crate's own terms, for results kept without their text (the
/// workspace symbol index).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// Converts between byte offsets and LSP positions for one snapshot of a text.
pub struct Positions<'a> {
    text: &'a str,
    lines: &'a LineIndex,
    enc: Encoding,
}

impl<'a> Positions<'a> {
    pub fn new(text: &'a str, lines: &'a LineIndex) -> Positions<'a> {
        Positions {
            text,
            lines,
            enc: Encoding::Utf16,
        }
    }

    pub fn with_encoding(text: &'a str, lines: &'a LineIndex, enc: Encoding) -> Positions<'a> {
        Positions { text, lines, enc }
    }

    pub fn position(&self, offset: u32) -> Position {
        let offset = self.boundary(offset);
        let line = self.lines.line_of(offset as u32);
        let start = (self.lines.line_start(line) as usize).min(offset);
        Position {
            line: line as u32,
            character: self.units(start, offset),
        }
    }

    pub fn line_col(&self, offset: u32) -> LineCol {
        let p = self.position(offset);
        LineCol {
            line: p.line,
            col: p.character,
        }
    }

    /// The offset, inside the text and moved back to a character boundary.
    fn boundary(&self, offset: u32) -> usize {
        let mut offset = (offset as usize).min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }

    /// Positions of offsets visited in increasing order (see [`Cursor`]).
    pub fn cursor(&self) -> Cursor<'_, 'a> {
        Cursor {
            p: self,
            offset: 0,
            pos: Position {
                line: 0,
                character: 0,
            },
            next_line: self.lines.line_start(1),
        }
    }

    fn units(&self, from: usize, to: usize) -> u32 {
        let s = &self.text[from..to];
        match self.enc {
            Encoding::Utf8 => s.len() as u32,
            Encoding::Utf16 => s.encode_utf16().count() as u32,
            Encoding::Utf32 => s.chars().count() as u32,
        }
    }

    pub fn range(&self, span: Span) -> Range {
        Range {
            start: self.position(span.start),
            end: self.position(span.end),
        }
    }

    /// The byte offset of a position; a column past the end of its line means the line's end
    /// (before its `\n`, `\r\n` or lone `\r`), a line past the end of the text means the end of
    /// the text.
    /// A column inside a character means that character.
    pub fn offset(&self, pos: Position) -> u32 {
        let line = pos.line as usize;
        if line >= self.lines.line_count() {
            return self.text.len() as u32;
        }
        let start = self.lines.line_start(line) as usize;
        let mut units = 0u32;
        let rest = &self.text[start..];
        for (i, c) in rest.char_indices() {
            if c == '\n' || c == '\r' || units >= pos.character {
                return (start + i) as u32;
            }
            units += self.enc.units(c);
            if units > pos.character {
                return (start + i) as u32;
            }
        }
        self.text.len() as u32
    }

    pub fn span(&self, range: Range) -> Span {
        let (a, b) = (self.offset(range.start), self.offset(range.end));
        Span {
            start: a.min(b),
            end: a.max(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_in_each_encoding_and_line_ends() {
        let text = "a😀é = 1\r\nb\r\n";
        let lines = LineIndex::new(text);
        let at = |line, character| Position { line, character };
        for (enc, cols) in [
            (Encoding::Utf8, [0, 1, 5, 7]),
            (Encoding::Utf16, [0, 1, 3, 4]),
            (Encoding::Utf32, [0, 1, 2, 3]),
        ] {
            let p = Positions::with_encoding(text, &lines, enc);
            for (byte, col) in [0u32, 1, 5, 7].into_iter().zip(cols) {
                assert_eq!(p.position(byte), at(0, col), "{enc:?} byte {byte}");
                assert_eq!(p.offset(at(0, col)), byte, "{enc:?} col {col}");
            }
            // Past the end of a CRLF line: before the `\r`.
            assert_eq!(
                p.offset(at(0, 99)),
                text.find('\r').unwrap_or(0) as u32,
                "{enc:?}"
            );
            assert_eq!(
                p.offset(at(1, 99)),
                text.rfind('\r').unwrap_or(0) as u32,
                "{enc:?}"
            );
        }
    }

    proptest::proptest! {
        /// The cursor gives what `position` gives, for offsets in any order (it counts on from
        /// the last one when they increase), in every encoding and with every line ending.
        #[test]
        fn the_cursor_agrees_with_position(
            text in "([a😀é\\r\\n ]|\r\n|\r|\n){0,40}",
            offsets in proptest::collection::vec(0u32..50, 0..30),
            sorted in proptest::bool::ANY,
        ) {
            let mut offsets = offsets;
            if sorted {
                offsets.sort_unstable();
            }
            let lines = LineIndex::new(&text);
            for enc in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
                let p = Positions::with_encoding(&text, &lines, enc);
                let mut c = p.cursor();
                for &o in &offsets {
                    proptest::prop_assert_eq!(c.position(o), p.position(o), "{:?} offset {}", enc, o);
                }
            }
        }
    }
}
