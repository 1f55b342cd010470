//! Signature help: the callee and the active argument of the call around the cursor, read
//! from the tokens (an unclosed call does not parse).

use crate::analysis::{external_doc, params_text, prelude_signature, sig_params, Analysis};
use opal_core::span::Span;
use opal_core::syntax::ast::Pattern;
use opal_core::syntax::ast::*;
use opal_core::syntax::lexer::{lex, Tok};
use opal_core::{externals, prelude};

/// The callee and the active argument of the innermost unclosed `(` before the cursor (none
/// when it is a `[`). The tokens are read from the last line before the cursor that starts an
/// item unindented, where the lexer closes any open bracket: strings and comments are skipped
/// as the lexer skips them, and the work is the statement's, not the file's.
fn enclosing_call(text: &str, offset: u32) -> Option<(Span, usize)> {
    let before = text.get(..(offset as usize).min(text.len()))?;
    let mut start = before.rfind(['\n', '\r']).map_or(0, |i| i + 1);
    while start > 0 && !opal_core::syntax::lexer::starts_item(&before[start..]) {
        start = before[..start - 1].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    }
    innermost_call(before, start)
}

/// [`enclosing_call`] on the tokens of `before[start..]`; inside an f-string's open `{` hole,
/// on the hole's text.
fn innermost_call(before: &str, start: usize) -> Option<(Span, usize)> {
    // Each open bracket: the callee before a `(` (none for `[`, or `(` after no name), commas.
    let mut open: Vec<(Option<Span>, usize)> = Vec::new();
    let mut previous: Option<Span> = None;
    let mut last = None;
    for t in lex(&before[start..]).tokens {
        let span = Span::new(start + t.span.start as usize, start + t.span.end as usize);
        match t.tok {
            Tok::Punct("(") => open.push((previous, 0)),
            Tok::Punct("[") => open.push((None, 0)),
            Tok::Punct(")" | "]") => {
                open.pop();
            }
            Tok::Punct(",") => {
                if let Some(top) = open.last_mut() {
                    top.1 += 1;
                }
            }
            _ => {}
        }
        previous = matches!(t.tok, Tok::Ident(_)).then_some(span);
        if !matches!(t.tok, Tok::Newline | Tok::Indent | Tok::Dedent | Tok::Eof) {
            last = Some((t.tok, span));
        }
    }
    // The cursor is in an f-string (which the window cuts short): a call in an open hole.
    if let Some((Tok::FStr(_), span)) = last {
        if span.end as usize == before.len() {
            let body = span.start as usize + 2;
            if let Some(hole) = before.get(body..).and_then(open_hole) {
                return innermost_call(before, body + hole);
            }
        }
    }
    let (callee, commas) = open.pop()?;
    Some((callee?, commas))
}

/// Where the expression of the f-string hole left open at the end of `s` (the text after
/// `f"`) starts, reading holes as the lexer does (`{{` is a brace).
fn open_hole(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' if b.get(i + 1) == Some(&b'{') => i += 2,
            b'{' => match opal_core::syntax::lexer::hole_end(b, i + 1) {
                Ok(end) => i = end + 1,
                Err(_) => return Some(i + 1),
            },
            _ => i += 1,
        }
    }
    None
}

/// The signature of the call around the cursor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// The callee and its parameters as written (`shout (s, n)`).
    pub label: String,
    pub params: Vec<String>,
    pub doc: Option<String>,
    /// The parameter the cursor is on (the last one past the end).
    pub active: u32,
}

pub fn signature_help(a: &Analysis, offset: u32) -> Option<Signature> {
    let (callee, active) = enclosing_call(&a.text, offset)?;
    let name = a.slice(callee);
    // In an unclosed call the line does not parse, so the callee has no reference: resolve
    // its name in the scope at the cursor instead.
    let target = a
        .target_at(callee.start)
        .map(|(_, t)| t)
        .or_else(|| resolve_name(a, name, callee.start));
    let (label, params, doc) = match target {
        Some(crate::analysis::Target::Def(i)) => {
            let d = &a.defs()[i];
            let ps = fun_params_of(a, d.span)?;
            let (whole, parts) = params_text(&a.text, ps);
            (format!("{name} {whole}"), parts, a.doc_above(d.span.start))
        }
        Some(crate::analysis::Target::Prelude(p)) => {
            let sig = prelude_signature(&p)?;
            let params_src = sig
                .split_once("fun")
                .map(|(_, r)| r.trim().to_string())
                .unwrap_or_default();
            (
                format!("{p} {params_src}"),
                sig_params(&format!("{p} {params_src}")),
                Some("prelude function".into()),
            )
        }
        Some(crate::analysis::Target::External(e)) => {
            let (sig, doc, _) = external_doc(&e)?;
            (sig.to_string(), sig_params(sig), Some(doc.to_string()))
        }
        _ => return None,
    };
    let active = active.min(params.len().saturating_sub(1)) as u32;
    Some(Signature {
        label,
        params,
        doc,
        active,
    })
}

/// What a name means at an offset when the syntax tree has no reference for it: a binding in
/// scope, else a prelude function, else a standard external.
fn resolve_name(a: &Analysis, name: &str, offset: u32) -> Option<crate::analysis::Target> {
    use crate::analysis::Target;
    if let Some(v) = a
        .scope_at(offset)
        .into_iter()
        .rev()
        .find(|v| v.name == name)
    {
        return a.def_at(v.span).map(Target::Def);
    }
    if let Some(i) = a.extern_def(name) {
        return Some(Target::Def(i));
    }
    if prelude::def(name).is_some() {
        return Some(Target::Prelude(name.to_string()));
    }
    externals::standard(name).map(|_| Target::External(name.to_string()))
}

/// The parameters of the `fun` bound at a binding site (`f := fun …` or `rec f := fun …`).
fn fun_params_of(a: &Analysis, def: Span) -> Option<&Params> {
    fn in_block(b: &Block, def: Span) -> Option<&Params> {
        for item in &b.items {
            let found = match &item.kind {
                ItemKind::Bind(Pattern::Name(id), e) | ItemKind::Rec(id, e) if id.span == def => {
                    match &e.kind {
                        ExprKind::Fun(ps, _) => Some(ps),
                        _ => None,
                    }
                }
                ItemKind::Bind(_, e)
                | ItemKind::Rec(_, e)
                | ItemKind::Expr(e)
                | ItemKind::Ret(e) => in_expr(e, def),
                ItemKind::For(_, _, b) | ItemKind::While(_, b) | ItemKind::DoWhile(b, _) => {
                    in_block(b, def)
                }
                ItemKind::If(bs, els) => bs
                    .iter()
                    .find_map(|(_, b)| in_block(b, def))
                    .or_else(|| els.as_ref().and_then(|b| in_block(b, def))),
                _ => None,
            };
            if found.is_some() {
                return found;
            }
        }
        None
    }
    fn in_expr(e: &Expr, def: Span) -> Option<&Params> {
        match &e.kind {
            ExprKind::Fun(_, FunBody::Block(b)) => in_block(b, def),
            _ => None,
        }
    }
    in_block(a.block(), def)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::WorldInfo;

    fn analysis(src: &str) -> Analysis {
        Analysis::new(src.to_string(), WorldInfo::default())
    }

    fn sig(src: &str) -> Option<(String, Option<u32>)> {
        let a = analysis(src);
        signature_help(&a, src.len() as u32).map(|s| (s.label, Some(s.active)))
    }

    #[test]
    fn signature_help_inside_unclosed_calls() {
        let f = "shout := fun (s, n): s\n";
        assert_eq!(
            sig(&format!("{f}x := shout (")),
            Some(("shout (s, n)".into(), Some(0)))
        );
        assert_eq!(
            sig(&format!("{f}x := shout (\"a\", ")),
            Some(("shout (s, n)".into(), Some(1)))
        );
        assert!(
            sig("print (&stdout, ").is_some_and(|(l, p)| l.starts_with("print") && p == Some(1)),
            "{:?}",
            sig("print (&stdout, ")
        );
        assert!(
            sig("x := map (").is_some_and(|(l, _)| l.starts_with("map")),
            "{:?}",
            sig("x := map (")
        );
        // Brackets and commas in strings and comments do not count; a call over several lines does.
        assert_eq!(
            sig(&format!("{f}x := shout (\"(a, b\", # )),\n    ")),
            Some(("shout (s, n)".into(), Some(1)))
        );
        assert_eq!(
            sig(&format!("{f}x := shout (\r\n  1,\r  ")),
            Some(("shout (s, n)".into(), Some(1)))
        );
        assert_eq!(
            enclosing_call("x := shout (1,\r\n  2,\r  ", 23).map(|(_, commas)| commas),
            Some(2)
        );
        // A call closed, or one left open in an earlier statement, is not the one at the cursor.
        assert_eq!(sig(&format!("{f}x := shout (1, 2)\ny := 3, ")), None);
        assert_eq!(sig(&format!("{f}x := shout (1,\ny := [1, ")), None);
        assert_eq!(sig(&format!("# shout (\n{f}y := 1\nz := ")), None);
        // In an f-string's open hole (a closed hole before it, and `{{`, do not count).
        assert_eq!(
            sig(&format!("{f}x := f\"{{{{a}} {{shout 1}} {{shout (\"}}\", ")),
            Some(("shout (s, n)".into(), Some(1)))
        );
        assert_eq!(sig(&format!("{f}x := f\"{{shout 1}} (")), None);
    }
}
