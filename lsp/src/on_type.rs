//! On-type formatting: after Enter, the new line is indented like the block it is in: one level
//! deeper after a line ending in `:` (a `fun`, `if`, `else`, `for` or `while` header), else as
//! deep as the line above. The edit sets the whole indentation, so it agrees with editors
//! that indent by themselves.

use crate::analysis::Analysis;
use opal_core::span::Span;
use opal_core::syntax::lexer::{lex, Tok};

/// One level of indentation: `tab_size` spaces (1 to 16), or a tab.
pub fn indent_unit(tab_size: u32, insert_spaces: bool) -> String {
    if insert_spaces {
        " ".repeat(tab_size.clamp(1, 16) as usize)
    } else {
        "\t".into()
    }
}

/// The edit that indents `line` (the line Enter made), as `(span, new text)`; no edit when
/// it is indented right; `None` on the first line.
pub fn after_newline(a: &Analysis, line: u32, unit: &str) -> Option<Vec<(Span, String)>> {
    let line = line as usize;
    if line == 0 {
        return None;
    }
    let text: Vec<&str> = (0..a.lines.line_count())
        .map(|l| a.lines.line_text(&a.text, l))
        .collect();
    let current = text.get(line)?;
    let above = text[..line.min(text.len())]
        .iter()
        .rev()
        .find(|l| !l.trim().is_empty())?;
    let indent = &above[..above.len() - above.trim_start().len()];
    let want = if opens_block(above) {
        format!("{indent}{unit}")
    } else {
        indent.to_string()
    };
    let have = &current[..current.len() - current.trim_start().len()];
    if have == want {
        return Some(vec![]);
    }
    let start = a.lines.line_start(line) as usize;
    Some(vec![(Span::new(start, start + have.len()), want)])
}

/// Whether a line's last token is `:` (strings and comments do not count).
fn opens_block(line: &str) -> bool {
    lex(line)
        .tokens
        .iter()
        .rev()
        .find(|t| !matches!(t.tok, Tok::Newline | Tok::Indent | Tok::Dedent | Tok::Eof))
        .is_some_and(|t| t.tok == Tok::Punct(":"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::WorldInfo;

    fn enter(src: &str, line: u32) -> Vec<(String, u32, u32)> {
        let a = Analysis::new(src.into(), WorldInfo::default());
        let p = a.pos();
        after_newline(&a, line, &indent_unit(4, true))
            .unwrap_or_default()
            .into_iter()
            .map(|(s, t)| (t, p.line_col(s.start).col, p.line_col(s.end).col))
            .collect()
    }

    #[test]
    fn a_block_header_indents_the_next_line() {
        assert_eq!(enter("f := fun x:\n\n", 1), [("    ".to_string(), 0, 0)]);
        assert_eq!(
            enter("f := fun x:  # doc\r\n  \r\n", 1),
            [("    ".to_string(), 0, 2)]
        );
        assert_eq!(
            enter("f := fun x:  # doc\r  \r", 1),
            [("    ".to_string(), 0, 2)]
        );
        assert_eq!(
            enter("if a:\n    if b:\n\n", 2),
            [("        ".to_string(), 0, 0)]
        );
    }

    #[test]
    fn other_lines_keep_the_indentation_above() {
        assert_eq!(
            enter("f := fun x:\n    y := x\n\n", 2),
            [("    ".to_string(), 0, 0)]
        );
        assert_eq!(enter("f := fun x:\n    y := x\n    ", 2), []);
        assert_eq!(enter("x := \"a:\"\n        \n", 1), [(String::new(), 0, 8)]);
        assert_eq!(enter("x := 1 # why:\n\n", 1), []);
        assert_eq!(enter("\n", 0), []);
    }
}
