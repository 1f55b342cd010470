//! Semantic tokens: the words, numbers, strings, comments and names of a range, classified
//! by what the names refer to.

use crate::analysis::Analysis;
use opal_core::desugar::{DefKind, Known, RefTarget};
use opal_core::span::Span;
use opal_core::syntax::ast::*;
use opal_core::syntax::lexer::{lex, Kw, Tok};

/// The legend: standard types first, then OPAL's own (clients map unknown types by name).
pub const TOKEN_TYPES: &[&str] = &[
    "keyword",
    "number",
    "string",
    "comment",
    "operator",
    "function",
    "parameter",
    "variable",
    "external",
    "prelude",
    "primitive",
    "label",
];
pub const TOKEN_MODIFIERS: &[&str] = &["declaration", "defaultLibrary", "readonly"];

/// A classified token: its span, its type (an index in [`TOKEN_TYPES`]) and its modifiers (bit
/// `i` set: [`TOKEN_MODIFIERS`]`[i]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub span: Span,
    pub ty: u32,
    pub mods: u32,
}

/// A token type's index in [`TOKEN_TYPES`], found when the server is compiled (a name that is
/// not there does not compile).
macro_rules! ty {
    ($name:literal) => {
        const { token_type($name) }
    };
}

const fn token_type(name: &str) -> u32 {
    let mut i = 0;
    while i < TOKEN_TYPES.len() {
        let (t, n) = (TOKEN_TYPES[i].as_bytes(), name.as_bytes());
        let mut j = 0;
        while j < t.len() && j < n.len() && t[j] == n[j] {
            j += 1;
        }
        if j == t.len() && j == n.len() {
            return i as u32;
        }
        i += 1;
    }
    panic!("not a token type")
}

pub fn semantic_tokens(a: &Analysis) -> Vec<Token> {
    semantic_tokens_in(a, Span::new(0, a.text.len()))
}

/// The tokens that overlap a range, in the order of the text.
///
/// The work is what the range touches: in text the lexer accepts, every token ends on its
/// line, so lexing the range's lines alone gives the same words, numbers and strings as
/// lexing the file (only the layout tokens, which are not highlighted, differ), and
/// references are found by binary search. A token crosses a line break only in text the
/// lexer rejects (E0003: a `\` before the break inside a string; E0004: a task `<<…>>`):
/// then the whole file is lexed.
pub fn semantic_tokens_in(a: &Analysis, range: Span) -> Vec<Token> {
    let (base, end) = lexed_bytes(a, range);
    let lexed = lex(a.text.get(base as usize..end as usize).unwrap_or(""));
    let mut spans: Vec<(Span, u32, u32)> = Vec::new();
    let defs = a.defs();
    for (k, t) in lexed.tokens.iter().enumerate() {
        let span = Span::new((t.span.start + base) as usize, (t.span.end + base) as usize);
        if k % 1024 == 0 {
            crate::cancel::check();
        }
        let class = match &t.tok {
            Tok::Kw(_) => Some((ty!("keyword"), 0)),
            Tok::Int(_) | Tok::Float(_) => Some((ty!("number"), 0)),
            Tok::Str(_) | Tok::FStr(_) => Some((ty!("string"), 0)),
            Tok::Prim(_) | Tok::PrimName(_) => Some((ty!("primitive"), 0)),
            // `extern sequential f`: the class is a keyword there.
            Tok::Ident(w)
                if Order::parse(w).is_some()
                    && k > 0
                    && matches!(lexed.tokens[k - 1].tok, Tok::Kw(Kw::Extern))
                    && matches!(lexed.tokens.get(k + 1).map(|t| &t.tok), Some(Tok::Ident(_))) =>
            {
                Some((ty!("keyword"), 0))
            }
            Tok::Punct(p) if OPERATORS.contains(p) => Some((ty!("operator"), 0)),
            Tok::Ident(_) => {
                if let Some(r) = a.ref_starting_at(span.start) {
                    Some(match r {
                        RefTarget::Def(i) => def_class(defs.get(*i), false),
                        RefTarget::Prelude(_) => (ty!("prelude"), 2),
                        RefTarget::External(e) if a.extern_def(e).is_some() => (ty!("external"), 0),
                        RefTarget::External(_) => (ty!("external"), 2),
                        RefTarget::Handle(_) => (ty!("variable"), 2),
                    })
                } else {
                    a.def_at(span).map(|i| def_class(defs.get(i), true))
                }
            }
            _ => None,
        };
        if let Some((k, m)) = class {
            spans.push((span, k, m));
        }
    }
    let comments = &a.compiled.parsed.comments;
    let from = comments.partition_point(|c| c.span.end < range.start);
    for c in comments[from..]
        .iter()
        .take_while(|c| c.span.start <= range.end)
    {
        spans.push((c.span, ty!("comment"), 0));
    }
    spans.retain(|(s, _, _)| s.end >= range.start && s.start <= range.end);
    spans.sort_unstable_by_key(|s| s.0.start);
    spans
        .into_iter()
        .map(|(span, ty, mods)| Token { span, ty, mods })
        .collect()
}

/// The operators highlighted as such (other punctuation is not).
const OPERATORS: &[&str] = &[
    ":=", "+=", "-=", "++=", "+", "-", "*", "/", "%", "++", "==", "!=", "<", "<=", ">", ">=", "&",
];

/// The bytes to lex for `range`: its whole lines, or the whole file when a token may cross a
/// line break (see [`semantic_tokens_in`]).
fn lexed_bytes(a: &Analysis, range: Span) -> (u32, u32) {
    let len = a.text.len() as u32;
    let crossing = a
        .compiled
        .parsed
        .diags
        .iter()
        .any(|d| matches!(d.code, "E0003" | "E0004"));
    let (first, last) = if crossing {
        (0, a.lines.line_count())
    } else {
        (
            a.lines.line_of(range.start.min(len)),
            a.lines.line_of(range.end.min(len)),
        )
    };
    let base = a.lines.line_start(first).min(len);
    let end = if last + 1 < a.lines.line_count() {
        a.lines.line_start(last + 1)
    } else {
        len
    };
    (base, end)
}

fn def_class(d: Option<&opal_core::desugar::Def>, decl: bool) -> (u32, u32) {
    let m = u32::from(decl);
    match d {
        Some(d) if d.kind == DefKind::Param => (ty!("parameter"), m),
        Some(d) if d.kind == DefKind::Extern => (ty!("external"), m),
        Some(d) if matches!(d.known, Known::Fun(_)) => (ty!("function"), m),
        _ => (ty!("variable"), m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::WorldInfo;
    use crate::inlay_hints::line_len;

    fn analysis(src: &str) -> Analysis {
        Analysis::new(src.to_string(), WorldInfo::default())
    }

    /// Tokens as the client gets them, absolute: `(line, col, len, type, mods)`.
    fn absolute(a: &Analysis, tokens: &[Token]) -> Vec<(u32, u32, u32, u32, u32)> {
        let (mut line, mut col) = (0, 0);
        crate::to_proto::semantic_tokens(a, tokens)
            .iter()
            .map(|t| {
                line += t.delta_line;
                col = if t.delta_line > 0 {
                    t.delta_start
                } else {
                    col + t.delta_start
                };
                (line, col, t.length, t.token_type, t.token_modifiers_bitset)
            })
            .collect()
    }

    #[test]
    fn range_tokens_are_the_full_tokens_on_the_range_lines() {
        // Lexing only the range's lines must classify as lexing the whole file: strings,
        // f-strings and comments that look like code, brackets across lines, `extern` classes,
        // a line of non-ASCII text, CRLF, and a line that does not lex.
        let src = "extern sequential ask\r\n# x := \"not code\"\ns := \"# not a comment\" ++ f\"{ask (1)}\"\n\
                   f := fun (a,\n        b):\n    ret a + b  # sum\né := [f (1,\n  2), \"ü\"]\nbad := \"open\nprint (&stdout, é)\n";
        same_tokens_on_every_line_range(src);
        // Tokens that cross a line break, in text the lexer rejects: a `\` before the break
        // inside a string or an f-string hole, a task.
        same_tokens_on_every_line_range("s := \"a\\\nb\" + 1 # hi\nt := 2\n");
        same_tokens_on_every_line_range("s := f\"{ \"a\\\nb\" }\" + 1\nt := 2\n");
        same_tokens_on_every_line_range("x := <<a\ny := 1 >>\nz := 3\n");
    }

    fn same_tokens_on_every_line_range(src: &str) {
        let a = analysis(src);
        let full = absolute(&a, &semantic_tokens(&a));
        let lines = src.lines().count();
        for first in 0..lines {
            for last in first..lines {
                let start = a.lines.line_start(first);
                let end = a.lines.line_start(last) + line_len(&a, last);
                let range = Span::new(start as usize, end as usize);
                let p = a.pos();
                let (from, to) = (p.position(range.start), p.position(range.end));
                let expect: Vec<_> = full
                    .iter()
                    .copied()
                    .filter(|t| {
                        (t.0, t.1 + t.2) >= (from.line, from.character)
                            && (t.0, t.1) <= (to.line, to.character)
                    })
                    .collect();
                assert_eq!(
                    absolute(&a, &semantic_tokens_in(&a, range)),
                    expect,
                    "lines {first}..={last}"
                );
            }
        }
    }
}
