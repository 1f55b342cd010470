//! An open document: a rope edited incrementally, with its version.

use crate::position::Encoding;
use ropey::Rope;
use tower_lsp_server::ls_types::{Position, TextDocumentContentChangeEvent};

pub struct Document {
    rope: Rope,
    pub version: i32,
    pub language_id: String,
    /// What change positions count (UTF-16 unless the client chose otherwise).
    pub encoding: Encoding,
    /// Why the text is not the editor's any more (a change that could not be decoded was
    /// dropped); incremental changes are refused until the whole text is sent again.
    pub out_of_sync: Option<String>,
}

/// Changes refused because the document is out of sync and none of them sends the whole text.
#[derive(Debug, PartialEq)]
pub struct Refused;

impl Document {
    pub fn new(text: &str, version: i32, language_id: String) -> Document {
        Document {
            rope: Rope::from_str(text),
            version,
            language_id,
            encoding: Encoding::Utf16,
            out_of_sync: None,
        }
    }

    pub fn text(&self) -> String {
        self.rope.to_string()
    }

    /// Applies the changes of one `didChange` notification. Out of sync, an edit would land on
    /// text the editor does not have: only the changes from the last whole text on are
    /// applied (and the document is in sync again), or none.
    pub fn apply_changes(
        &mut self,
        changes: &[TextDocumentContentChangeEvent],
    ) -> Result<(), Refused> {
        let from = if self.out_of_sync.is_some() {
            changes
                .iter()
                .rposition(|c| c.range.is_none())
                .ok_or(Refused)?
        } else {
            0
        };
        self.out_of_sync = None;
        for c in &changes[from..] {
            self.apply(c);
        }
        Ok(())
    }

    /// Applies one change of a `didChange` notification. Positions are UTF-16; ones past the
    /// end of a line or of the text are clamped (clients disagree about the last line).
    fn apply(&mut self, change: &TextDocumentContentChangeEvent) {
        match change.range {
            None => self.rope = Rope::from_str(&change.text),
            Some(r) => {
                let a = self.char_index(r.start);
                let b = self.char_index(r.end);
                let (a, b) = (a.min(b), a.max(b));
                self.rope.remove(a..b);
                self.rope.insert(a, &change.text);
            }
        }
    }

    fn char_index(&self, p: Position) -> usize {
        let line = p.line as usize;
        if line >= self.rope.len_lines() {
            return self.rope.len_chars();
        }
        let start = self.rope.line_to_char(line);
        let line_slice = self.rope.line(line);
        // The line's length without its line break (`\n`, `\r\n` or a lone `\r`: LSP's three).
        let mut len = line_slice.len_chars();
        if len > 0 && line_slice.char(len - 1) == '\n' {
            len -= 1;
        }
        if len > 0 && line_slice.char(len - 1) == '\r' {
            len -= 1;
        }
        // A column inside a character (a surrogate pair, a UTF-8 sequence) means that character.
        let in_line = match self.encoding {
            Encoding::Utf16 => line_slice
                .utf16_cu_to_char((p.character as usize).min(line_slice.char_to_utf16_cu(len))),
            Encoding::Utf8 => {
                line_slice.byte_to_char((p.character as usize).min(line_slice.char_to_byte(len)))
            }
            Encoding::Utf32 => (p.character as usize).min(len),
        };
        start + in_line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use tower_lsp_server::ls_types::Range;

    /// The same edit on a plain string, with UTF-16 positions computed independently: lines end
    /// at `\n`, `\r\n` or a lone `\r`; a column past the line's end means before its line
    /// break; one inside a surrogate pair means before that character.
    fn apply_plain(text: &str, r: Range, new: &str) -> String {
        let off = |p: Position| {
            let mut line = 0u32;
            let mut units = 0u32;
            let mut it = text.char_indices().peekable();
            while let Some((i, c)) = it.next() {
                if line == p.line {
                    if c == '\n' || c == '\r' || units + c.len_utf16() as u32 > p.character {
                        return i;
                    }
                    units += c.len_utf16() as u32;
                }
                if c == '\n' || (c == '\r' && it.peek().map(|x| x.1) != Some('\n')) {
                    line += 1;
                }
            }
            text.len()
        };
        let (a, b) = (off(r.start), off(r.end));
        let (a, b) = (a.min(b), a.max(b));
        format!("{}{}{}", &text[..a], new, &text[b..])
    }

    fn piece() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "a", "x := 1", "\n", "é", "😀", "日本", "\r\n", "\r", "  ", "# c\n", "",
        ])
        .prop_map(String::from)
    }

    proptest! {
        #[test]
        fn incremental_edits_equal_full_text(
            init in prop::collection::vec(piece(), 0..12),
            edits in prop::collection::vec((0u32..6, 0u32..12, 0u32..6, 0u32..12, prop::collection::vec(piece(), 0..3)), 1..40),
        ) {
            let mut text: String = init.concat();
            let mut doc = Document::new(&text, 1, "opal".into());
            for (l1, c1, l2, c2, ins) in edits {
                let ins = ins.concat();
                let r = Range { start: Position { line: l1, character: c1 }, end: Position { line: l2, character: c2 } };
                text = apply_plain(&text, r, &ins);
                doc.apply(&TextDocumentContentChangeEvent { range: Some(r), range_length: None, text: ins });
                prop_assert_eq!(doc.text(), text.clone());
            }
        }
    }
}
