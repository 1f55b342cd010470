//! On-type formatting: after Enter, the new line is indented like the block it is in: one level
//! deeper after a line ending in `:` (a `fun`, `if`, `else`, `for` or `while` header), else as
//! deep as the line above. The edit sets the whole indentation, so it agrees with editors
//! that indent by themselves.

use crate::analysis::Analysis;
use opal_core::span::Span;
use opal_core::syntax::lexer::{lex, Tok};
use tower_lsp_server::ls_types::{FormattingOptions, Position, TextEdit};

pub fn after_newline(a: &Analysis, at: Position, options: &FormattingOptions) -> Option<Vec<TextEdit>> {
    let line = at.line as usize;
    if line == 0 {
        return None;
    }
    let text: Vec<&str> = (0..a.lines.line_count()).map(|l| a.lines.line_text(&a.text, l)).collect();
    let current = text.get(line)?;
    let above = text[..line.min(text.len())].iter().rev().find(|l| !l.trim().is_empty())?;
    let indent = &above[..above.len() - above.trim_start().len()];
    let unit = if options.insert_spaces { " ".repeat(options.tab_size.clamp(1, 16) as usize) } else { "\t".into() };
    let want = if opens_block(above) { format!("{indent}{unit}") } else { indent.to_string() };
    let have = &current[..current.len() - current.trim_start().len()];
    if have == want {
        return Some(vec![]);
    }
    let p = a.pos();
    let start = p.offset(Position { line: at.line, character: 0 });
    let range = p.range(Span::new(start as usize, start as usize + have.len()));
    Some(vec![TextEdit { range, new_text: want }])
}

/// Whether a line's last token is `:` (strings and comments do not count).
fn opens_block(line: &str) -> bool {
    lex(line).tokens.iter().rev().find(|t| !matches!(t.tok, Tok::Newline | Tok::Indent | Tok::Dedent | Tok::Eof)).is_some_and(|t| t.tok == Tok::Punct(":"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::WorldInfo;

    fn enter(src: &str, line: u32) -> Vec<(String, u32, u32)> {
        let a = Analysis::new(src.into(), WorldInfo::default());
        let o = FormattingOptions { tab_size: 4, insert_spaces: true, ..Default::default() };
        after_newline(&a, Position { line, character: 0 }, &o)
            .unwrap_or_default()
            .into_iter()
            .map(|e| (e.new_text, e.range.start.character, e.range.end.character))
            .collect()
    }

    #[test]
    fn a_block_header_indents_the_next_line() {
        assert_eq!(enter("f := fun x:\n\n", 1), [("    ".to_string(), 0, 0)]);
        assert_eq!(enter("f := fun x:  # doc\r\n  \r\n", 1), [("    ".to_string(), 0, 2)]);
        assert_eq!(enter("f := fun x:  # doc\r  \r", 1), [("    ".to_string(), 0, 2)]);
        assert_eq!(enter("if a:\n    if b:\n\n", 2), [("        ".to_string(), 0, 0)]);
    }

    #[test]
    fn other_lines_keep_the_indentation_above() {
        assert_eq!(enter("f := fun x:\n    y := x\n\n", 2), [("    ".to_string(), 0, 0)]);
        assert_eq!(enter("f := fun x:\n    y := x\n    ", 2), []);
        assert_eq!(enter("x := \"a:\"\n        \n", 1), [(String::new(), 0, 8)]);
        assert_eq!(enter("x := 1 # why:\n\n", 1), []);
        assert_eq!(enter("\n", 0), []);
    }
}
