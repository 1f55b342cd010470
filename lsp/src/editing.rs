//! Diagnostics, completion, signature help, formatting, folding, selection ranges, semantic
//! tokens, inlay hints, code actions and code lenses.

use crate::analysis::{describe_known, external_doc, params_text, prelude_signature, sig_params, Analysis};
use opal_core::desugar::{assigned, DefKind, Known, RefTarget};
use opal_core::diag::{Diagnostic as ODiag, Severity};
use opal_core::names::FastMap;
use opal_core::span::Span;
use opal_core::syntax::ast::Pattern;
use opal_core::syntax::ast::*;
use opal_core::syntax::lexer::{lex, Kw, Tok, KEYWORDS};
use opal_core::{externals, prelude};
use std::collections::HashSet;
use tower_lsp_server::ls_types::*;

/// Where each code is explained; `docs/diagnostics.md` has an anchor per code.
pub const DOCS_URL: &str = "https://github.com/opal-lang/opal/blob/main/docs/diagnostics.md";

pub fn to_lsp_diagnostic(pos: &crate::position::Positions, uri: &Uri, d: &ODiag) -> Diagnostic {
    let mut message = d.message.clone();
    if let Some(h) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(h);
    }
    let href = format!("{DOCS_URL}#{}", d.code.to_ascii_lowercase()).parse::<Uri>().ok();
    Diagnostic {
        range: pos.range(d.span),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        code_description: href.map(|href| CodeDescription { href }),
        source: Some("opal".into()),
        message,
        related_information: (!d.related.is_empty()).then(|| {
            d.related
                .iter()
                .map(|(s, m)| DiagnosticRelatedInformation { location: Location { uri: uri.clone(), range: pos.range(*s) }, message: m.clone() })
                .collect()
        }),
        tags: (d.code == "W0001").then(|| vec![DiagnosticTag::UNNECESSARY]),
        data: d.fix.as_ref().map(|f| serde_json::json!({ "fix": f })),
    }
}

// ---- completion ----------------------------------------------------------------------------

const SNIPPETS: &[(&str, &str, &str)] = &[
    ("fun", "fun ${1:x}: ${0:x}", "function"),
    ("for", "for ${1:x} in ${2:list}:\n    ${0:pass}", "fold a list, threading rebound variables"),
    ("if", "if ${1:cond}:\n    ${2}\nelse:\n    ${0}", "if / else on a Church boolean"),
    ("while", "while ${1:cond}:\n    ${0}", "loop while a condition holds"),
    ("rec", "rec ${1:f} := fun ${2:x}:\n    ${0}", "recursive function"),
    ("do", "do:\n    ${1}\nwhile ${0:cond}", "loop at least once"),
];

/// True when the offset is inside a comment or a string literal, where completion is noise.
fn in_comment_or_string(a: &Analysis, offset: u32) -> bool {
    a.compiled.parsed.comments.iter().any(|c| c.span.start < offset && offset <= c.span.end)
        || lex(&a.text).tokens.iter().any(|t| matches!(t.tok, Tok::Str(_)) && t.span.start < offset && offset < t.span.end)
}

/// Completions at most; a longer list is cut (best first) and marked incomplete.
pub const MAX_COMPLETIONS: usize = 200;

/// The identifier characters right before an offset: what the user is typing.
pub fn typed_prefix(text: &str, offset: u32) -> &str {
    let before = text.get(..(offset as usize).min(text.len())).unwrap_or("");
    let start = before.char_indices().rev().take_while(|(_, c)| c.is_alphanumeric() || *c == '_').last().map_or(before.len(), |(i, _)| i);
    &before[start..]
}

/// Completion items matching the typed prefix (its characters in order, ignoring case),
/// best first, at most [`MAX_COMPLETIONS`]; `true` when some were cut.
pub fn completion_list(a: &Analysis, offset: u32) -> (Vec<CompletionItem>, bool) {
    let prefix = typed_prefix(&a.text, offset);
    let mut items: Vec<CompletionItem> = completion(a, offset).into_iter().filter(|i| crate::navigation::fuzzy_match(prefix, &i.label)).collect();
    // Names that start with the prefix come before ones that only contain its letters; else
    // the order stays (scope innermost first, prelude, externals, handles, keywords, snippets).
    let lower = prefix.to_lowercase();
    items.sort_by_cached_key(|i| !i.label.to_lowercase().starts_with(&lower));
    let cut = items.len() > MAX_COMPLETIONS;
    items.truncate(MAX_COMPLETIONS);
    (items, cut)
}

pub fn completion(a: &Analysis, offset: u32) -> Vec<CompletionItem> {
    if in_comment_or_string(a, offset) {
        return vec![];
    }
    let mut seen: HashSet<String> = HashSet::new();
    let mut items = Vec::new();
    // Innermost bindings first: a name shadows the prelude and the externals.
    for v in a.scope_at(offset).into_iter().rev() {
        if !seen.insert(v.name.clone()) || v.name.starts_with('_') && v.name.len() == 1 {
            continue;
        }
        let def = a.def_at(v.span).map(|i| &a.defs()[i]);
        let known = def.map(|d| d.known.clone()).unwrap_or(Known::Unknown);
        let is_extern = def.is_some_and(|d| d.kind == DefKind::Extern);
        let kind = match (&known, is_extern) {
            (_, true) => CompletionItemKind::INTERFACE,
            (Known::Fun(_), _) => CompletionItemKind::FUNCTION,
            _ => CompletionItemKind::VARIABLE,
        };
        let detail = if is_extern {
            "extern".to_string()
        } else if v.param {
            format!("parameter · {}", describe_known(&known))
        } else {
            describe_known(&known)
        };
        items.push(CompletionItem {
            label: v.name.clone(),
            kind: Some(kind),
            detail: Some(detail),
            sort_text: Some(format!("0{}", v.name)),
            data: Some(serde_json::json!({ "def": v.span.start })),
            ..Default::default()
        });
    }
    for p in prelude::names() {
        if seen.insert(p.to_string()) && !p.ends_with('_') && !p.starts_with("fix_") {
            items.push(CompletionItem {
                label: p.to_string(),
                kind: Some(CompletionItemKind::FUNCTION),
                detail: prelude_signature(p).map(|s| format!("prelude: {s}")),
                sort_text: Some(format!("1{p}")),
                ..Default::default()
            });
        }
    }
    for e in externals::STANDARD {
        if seen.insert(e.name.to_string()) {
            items.push(CompletionItem {
                label: e.name.to_string(),
                kind: Some(CompletionItemKind::FUNCTION),
                detail: Some(e.sig.to_string()),
                sort_text: Some(format!("2{}", e.name)),
                data: Some(serde_json::json!({ "external": e.name })),
                ..Default::default()
            });
        }
    }
    for (h, _) in externals::HANDLES {
        if seen.insert(h.to_string()) {
            items.push(CompletionItem {
                label: h.to_string(),
                kind: Some(CompletionItemKind::VARIABLE),
                detail: Some("handle".into()),
                sort_text: Some(format!("2{h}")),
                data: Some(serde_json::json!({ "handle": h })),
                ..Default::default()
            });
        }
    }
    for (k, _) in KEYWORDS {
        items.push(CompletionItem { label: k.to_string(), kind: Some(CompletionItemKind::KEYWORD), sort_text: Some(format!("3{k}")), ..Default::default() });
    }
    for (label, body, detail) in SNIPPETS {
        items.push(CompletionItem {
            label: label.to_string(),
            kind: Some(CompletionItemKind::SNIPPET),
            detail: Some(detail.to_string()),
            insert_text: Some(with_breaks(body.to_string(), line_break(&a.text))),
            insert_text_format: Some(InsertTextFormat::SNIPPET),
            sort_text: Some(format!("4{label}")),
            ..Default::default()
        });
    }
    items
}

/// The documentation of a completion item, from its `data`: a standard external's or a
/// handle's doc, or the doc comment above a binding of the file.
pub fn completion_documentation(a: &Analysis, data: Option<&serde_json::Value>) -> Option<Documentation> {
    let data = data?;
    if let Some(name) = data["external"].as_str() {
        let e = externals::STANDARD.iter().find(|e| e.name == name)?;
        return Some(Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: format!("{} ({} external)", e.doc, e.kind.as_str()) }));
    }
    if let Some(name) = data["handle"].as_str() {
        let (_, doc) = externals::HANDLES.iter().find(|(h, _)| *h == name)?;
        return Some(Documentation::String(doc.to_string()));
    }
    let at = u32::try_from(data["def"].as_u64()?).ok()?;
    if at as usize > a.text.len() {
        return None;
    }
    a.doc_above(at).map(|d| Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: d }))
}

// ---- signature help ------------------------------------------------------------------------

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

pub fn signature_help(a: &Analysis, offset: u32) -> Option<SignatureHelp> {
    let (callee, active) = enclosing_call(&a.text, offset)?;
    let name = a.slice(callee);
    // In an unclosed call the line does not parse, so the callee has no reference: resolve
    // its name in the scope at the cursor instead.
    let target = a.target_at(callee.start).map(|(_, t)| t).or_else(|| resolve_name(a, name, callee.start));
    let (label, params, doc) = match target {
        Some(crate::analysis::Target::Def(i)) => {
            let d = &a.defs()[i];
            let ps = fun_params_of(a, d.span)?;
            let (whole, parts) = params_text(&a.text, ps);
            (format!("{name} {whole}"), parts, a.doc_above(d.span.start))
        }
        Some(crate::analysis::Target::Prelude(p)) => {
            let sig = prelude_signature(&p)?;
            let params_src = sig.split_once("fun").map(|(_, r)| r.trim().to_string()).unwrap_or_default();
            (format!("{p} {params_src}"), sig_params(&format!("{p} {params_src}")), Some("prelude function".into()))
        }
        Some(crate::analysis::Target::External(e)) => {
            let (sig, doc, _) = external_doc(&e)?;
            (sig.to_string(), sig_params(sig), Some(doc.to_string()))
        }
        _ => return None,
    };
    let parameters: Vec<ParameterInformation> =
        params.iter().map(|p| ParameterInformation { label: ParameterLabel::Simple(p.clone()), documentation: None }).collect();
    let n = parameters.len();
    Some(SignatureHelp {
        signatures: vec![SignatureInformation {
            label,
            documentation: doc.map(Documentation::String),
            parameters: Some(parameters),
            active_parameter: Some(active.min(n.saturating_sub(1)) as u32),
        }],
        active_signature: Some(0),
        active_parameter: Some(active.min(n.saturating_sub(1)) as u32),
    })
}

/// What a name means at an offset when the syntax tree has no reference for it: a binding in
/// scope, else a prelude function, else a standard external.
fn resolve_name(a: &Analysis, name: &str, offset: u32) -> Option<crate::analysis::Target> {
    use crate::analysis::Target;
    if let Some(v) = a.scope_at(offset).into_iter().rev().find(|v| v.name == name) {
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
                ItemKind::Bind(Pattern::Name(id), e) | ItemKind::Rec(id, e) if id.span == def => match &e.kind {
                    ExprKind::Fun(ps, _) => Some(ps),
                    _ => None,
                },
                ItemKind::Bind(_, e) | ItemKind::Rec(_, e) | ItemKind::Expr(e) | ItemKind::Ret(e) => in_expr(e, def),
                ItemKind::For(_, _, b) | ItemKind::While(_, b) | ItemKind::DoWhile(b, _) => in_block(b, def),
                ItemKind::If(bs, els) => bs.iter().find_map(|(_, b)| in_block(b, def)).or_else(|| els.as_ref().and_then(|b| in_block(b, def))),
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

// ---- formatting ----------------------------------------------------------------------------

/// Where the line holding byte `i` starts: after a `\n` or a lone `\r` (never between the two
/// bytes of a `\r\n`).
fn line_start_at(s: &str, i: usize) -> usize {
    let b = s.as_bytes();
    (1..=i.min(b.len())).rev().find(|&j| b[j - 1] == b'\n' || (b[j - 1] == b'\r' && b.get(j) != Some(&b'\n'))).unwrap_or(0)
}

/// One edit that turns `old` into `new`, covering only the lines that differ.
pub fn minimal_edit(old: &str, new: &str) -> Option<(Span, String)> {
    if old == new {
        return None;
    }
    let prefix = old.bytes().zip(new.bytes()).take_while(|(a, b)| a == b).count();
    let prefix = line_start_at(old, prefix);
    let max_suffix = (old.len() - prefix).min(new.len() - prefix);
    let suffix = old.bytes().rev().zip(new.bytes().rev()).take(max_suffix).take_while(|(a, b)| a == b).count();
    // Keep the edit on whole lines so clients show a clean change (and on a character boundary:
    // `é` and `ĩ` share their last byte).
    let mut suffix = suffix;
    while suffix > 0 && (!old.is_char_boundary(old.len() - suffix) || !old[old.len() - suffix..].starts_with(['\n', '\r'])) && old.len() - suffix != prefix {
        suffix -= 1;
    }
    // A `\r\n` break is in or out of the edit whole: no position may count the `\r`. Out of it
    // when both texts have the `\r` (the edit ends before it), else in it (after the `\n`).
    let end = old.len() - suffix;
    if suffix > 0 && old[..end].ends_with('\r') && old[end..].starts_with('\n') {
        if new[..new.len() - suffix].ends_with('\r') && end > prefix && new.len() - suffix > prefix {
            suffix += 1;
        } else {
            suffix -= 1;
        }
    }
    Some((Span::new(prefix, old.len() - suffix), new[prefix..new.len() - suffix].to_string()))
}

/// The line break a text uses: its first line's (`\n` when it has one line).
pub fn line_break(text: &str) -> &'static str {
    match text.find(['\n', '\r']).map(|i| &text[i..]) {
        Some(rest) if rest.starts_with("\r\n") => "\r\n",
        Some(rest) if rest.starts_with('\r') => "\r",
        _ => "\n",
    }
}

/// Formatter output (always `\n`) with the document's line breaks.
fn with_breaks(formatted: String, brk: &str) -> String {
    if brk == "\n" {
        formatted
    } else {
        formatted.replace('\n', brk)
    }
}

/// The edit that formats the whole document; `Err` (with the reason) when it has syntax
/// errors, which the server answers with no edits.
pub fn format_document(a: &Analysis) -> Result<Option<(Span, String)>, String> {
    if a.compiled.parsed.diags.iter().any(|d| d.is_error()) {
        return Err("the file has syntax errors; fix them before formatting".into());
    }
    Ok(minimal_edit(&a.text, &with_breaks(opal_core::format::format(&a.compiled.parsed), line_break(&a.text))))
}

/// Formats the top-level items that overlap a range (each one parses on its own).
pub fn format_range(a: &Analysis, range: Span) -> Result<Option<(Span, String)>, String> {
    let items: Vec<&Item> = a.block().items.iter().filter(|i| i.span.start <= range.end && i.span.end >= range.start).collect();
    let (Some(first), Some(last)) = (items.first(), items.last()) else { return Ok(None) };
    let start = a.lines.line_start(a.lines.line_of(first.span.start)) as usize;
    let end_line = a.lines.line_of(last.span.end) + 1;
    let end = (a.lines.line_start(end_line) as usize).min(a.text.len());
    let slice = &a.text[start..end];
    let parsed = opal_core::syntax::parser::parse(slice);
    if parsed.diags.iter().any(|d| d.is_error()) {
        return Err("the selected statements have syntax errors; fix them before formatting".into());
    }
    let mut out = with_breaks(opal_core::format::format(&parsed), line_break(&a.text));
    if !slice.ends_with(['\n', '\r']) {
        out.truncate(out.trim_end_matches(['\r', '\n']).len());
    }
    Ok(minimal_edit(slice, &out).map(|(s, t)| (Span::new(start + s.start as usize, start + s.end as usize), t)))
}

// ---- folding and selection -----------------------------------------------------------------

pub fn folding_ranges(a: &Analysis) -> Vec<FoldingRange> {
    let mut out = Vec::new();
    fold_block(a, a.block(), &mut out);
    // Runs of two or more comment lines.
    let mut run: Option<(u32, u32)> = None;
    for c in a.compiled.parsed.comments.iter().filter(|c| c.own_line) {
        let l = a.lines.line_of(c.span.start) as u32;
        run = match run {
            Some((s, e)) if e + 1 == l => Some((s, l)),
            Some((s, e)) => {
                push_fold(&mut out, s, e, Some(FoldingRangeKind::Comment));
                Some((l, l))
            }
            None => Some((l, l)),
        };
    }
    if let Some((s, e)) = run {
        push_fold(&mut out, s, e, Some(FoldingRangeKind::Comment));
    }
    out.sort_by_key(|f| (f.start_line, f.end_line));
    out
}

fn push_fold(out: &mut Vec<FoldingRange>, start: u32, end: u32, kind: Option<FoldingRangeKind>) {
    if end > start {
        out.push(FoldingRange { start_line: start, start_character: None, end_line: end, end_character: None, kind, collapsed_text: None });
    }
}

/// The line of the last character of a span that is not a blank or a line break.
fn last_line(a: &Analysis, span: Span) -> u32 {
    let text = a.text.get(span.start as usize..(span.end as usize).min(a.text.len())).unwrap_or("");
    let end = span.start + text.trim_end().len() as u32;
    a.lines.line_of(end.saturating_sub(1).max(span.start)) as u32
}

fn fold_block(a: &Analysis, b: &Block, out: &mut Vec<FoldingRange>) {
    for item in &b.items {
        crate::cancel::check();
        let (s, e) = (a.lines.line_of(item.span.start) as u32, last_line(a, item.span));
        push_fold(out, s, e, Some(FoldingRangeKind::Region));
        for_each_child_block(item, &mut |blk| fold_block(a, blk, out));
    }
}

fn for_each_child_block<'a>(item: &'a Item, f: &mut dyn FnMut(&'a Block)) {
    fn expr<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Block)) {
        match &e.kind {
            ExprKind::Fun(_, FunBody::Block(b)) => f(b),
            ExprKind::Fun(_, FunBody::Expr(x)) | ExprKind::Paren(x) => expr(x, f),
            ExprKind::App(x, y) | ExprKind::Binary(_, x, y) => {
                expr(x, f);
                expr(y, f);
            }
            ExprKind::Tuple(xs) | ExprKind::List(xs) => xs.iter().for_each(|x| expr(x, f)),
            _ => e.sugar_children().into_iter().for_each(|x| expr(x, f)),
        }
    }
    match &item.kind {
        ItemKind::Bind(_, e) | ItemKind::Rec(_, e) | ItemKind::Expr(e) | ItemKind::Ret(e) | ItemKind::Aug(_, _, e) => expr(e, f),
        ItemKind::For(_, _, b) | ItemKind::While(_, b) | ItemKind::DoWhile(b, _) => f(b),
        ItemKind::If(bs, els) => {
            bs.iter().for_each(|(_, b)| f(b));
            if let Some(b) = els {
                f(b);
            }
        }
        _ => {}
    }
}

/// Spans of the syntax nodes containing an offset, outermost first.
pub fn enclosing_spans(a: &Analysis, offset: u32) -> Vec<Span> {
    fn pat(p: &Pattern, o: u32, out: &mut Vec<Span>) {
        if contains(p.span(), o) {
            out.push(p.span());
            if let Pattern::Tuple(ps, _) = p {
                ps.iter().for_each(|q| pat(q, o, out));
            }
        }
    }
    fn expr(e: &Expr, o: u32, out: &mut Vec<Span>) {
        if !contains(e.span, o) {
            return;
        }
        out.push(e.span);
        match &e.kind {
            ExprKind::Fun(_, FunBody::Block(b)) => block(b, o, out),
            ExprKind::Fun(_, FunBody::Expr(x)) | ExprKind::Paren(x) | ExprKind::Prj(_, x) | ExprKind::Not(x) | ExprKind::Neg(x) => expr(x, o, out),
            ExprKind::App(x, y) | ExprKind::Binary(_, x, y) => {
                expr(x, o, out);
                expr(y, o, out);
            }
            ExprKind::Tuple(xs) | ExprKind::List(xs) => xs.iter().for_each(|x| expr(x, o, out)),
            _ => e.sugar_children().into_iter().for_each(|x| expr(x, o, out)),
        }
    }
    fn block(b: &Block, o: u32, out: &mut Vec<Span>) {
        if let (Some(f), Some(l)) = (b.items.first(), b.items.last()) {
            let s = f.span.to(l.span);
            if contains(s, o) && b.items.len() > 1 {
                out.push(s);
            }
        }
        for item in &b.items {
            if !contains(item.span, o) {
                continue;
            }
            out.push(item.span);
            match &item.kind {
                ItemKind::Bind(p, e) => {
                    pat(p, o, out);
                    expr(e, o, out);
                }
                ItemKind::Rec(id, e) | ItemKind::Aug(id, _, e) => {
                    if contains(id.span, o) {
                        out.push(id.span);
                    }
                    expr(e, o, out);
                }
                ItemKind::Expr(e) | ItemKind::Ret(e) => expr(e, o, out),
                ItemKind::Extern(ids, _) => ids.iter().filter(|id| contains(id.span, o)).for_each(|id| out.push(id.span)),
                ItemKind::For(p, e, b) => {
                    pat(p, o, out);
                    expr(e, o, out);
                    block(b, o, out);
                }
                ItemKind::While(c, b) | ItemKind::DoWhile(b, c) => {
                    expr(c, o, out);
                    block(b, o, out);
                }
                ItemKind::If(bs, els) => {
                    for (c, b) in bs {
                        expr(c, o, out);
                        block(b, o, out);
                    }
                    if let Some(b) = els {
                        block(b, o, out);
                    }
                }
                ItemKind::Error => {}
            }
        }
    }
    let mut out = vec![Span::new(0, a.text.len())];
    block(a.block(), offset, &mut out);
    out.dedup();
    out
}

fn contains(s: Span, o: u32) -> bool {
    s.start <= o && o <= s.end
}

pub fn selection_range(a: &Analysis, offset: u32) -> SelectionRange {
    let p = a.pos();
    let mut cur: Option<SelectionRange> = None;
    for s in enclosing_spans(a, offset) {
        cur = Some(SelectionRange { range: p.range(s), parent: cur.map(Box::new) });
    }
    cur.unwrap_or(SelectionRange { range: p.range(Span::new(offset as usize, offset as usize)), parent: None })
}

// ---- semantic tokens -----------------------------------------------------------------------

/// The legend: standard types first, then OPAL's own (clients map unknown types by name).
pub const TOKEN_TYPES: &[&str] =
    &["keyword", "number", "string", "comment", "operator", "function", "parameter", "variable", "external", "prelude", "primitive", "label"];
pub const TOKEN_MODIFIERS: &[&str] = &["declaration", "defaultLibrary", "readonly"];

pub fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TOKEN_TYPES.iter().map(|t| SemanticTokenType::new(t)).collect(),
        token_modifiers: TOKEN_MODIFIERS.iter().map(|m| SemanticTokenModifier::new(m)).collect(),
    }
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

pub fn semantic_tokens(a: &Analysis) -> Vec<SemanticToken> {
    semantic_tokens_in(a, Span::new(0, a.text.len()))
}

/// The tokens that overlap a range (lines before it are not encoded; deltas start from the
/// document's start, as the protocol wants).
///
/// The work is what the range touches: in text the lexer accepts, every token ends on its
/// line, so lexing the range's lines alone gives the same words, numbers and strings as
/// lexing the file (only the layout tokens, which are not highlighted, differ), and
/// references are found by binary search. A token crosses a line break only in text the
/// lexer rejects (E0003: a `\` before the break inside a string; E0004: a task `<<…>>`):
/// then the whole file is lexed.
pub fn semantic_tokens_in(a: &Analysis, range: Span) -> Vec<SemanticToken> {
    let len = a.text.len() as u32;
    let crossing = a.compiled.parsed.diags.iter().any(|d| matches!(d.code, "E0003" | "E0004"));
    let (first, last) = if crossing { (0, a.lines.line_count()) } else { (a.lines.line_of(range.start.min(len)), a.lines.line_of(range.end.min(len))) };
    let base = a.lines.line_start(first).min(len);
    let end = if last + 1 < a.lines.line_count() { a.lines.line_start(last + 1) } else { len };
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
            Tok::Punct(p) if matches!(*p, ":=" | "+=" | "-=" | "++=" | "+" | "-" | "*" | "/" | "%" | "++" | "==" | "!=" | "<" | "<=" | ">" | ">=" | "&") => {
                Some((ty!("operator"), 0))
            }
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
    for c in comments[from..].iter().take_while(|c| c.span.start <= range.end) {
        spans.push((c.span, ty!("comment"), 0));
    }
    spans.retain(|(s, _, _)| s.end >= range.start && s.start <= range.end);
    spans.sort_unstable_by_key(|s| s.0.start);
    encode(a, &spans)
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

fn encode(a: &Analysis, spans: &[(Span, u32, u32)]) -> Vec<SemanticToken> {
    let p = a.pos();
    let mut cursor = p.cursor();
    let mut out = Vec::with_capacity(spans.len());
    let (mut pl, mut pc) = (0u32, 0u32);
    for (i, (s, k, m)) in spans.iter().enumerate() {
        if i % 1024 == 0 {
            crate::cancel::check();
        }
        let (start, end) = (cursor.position(s.start), cursor.position(s.end));
        if start.line != end.line || end.character <= start.character {
            continue;
        }
        let dl = start.line - pl;
        let dc = if dl == 0 { start.character - pc } else { start.character };
        out.push(SemanticToken { delta_line: dl, delta_start: dc, length: end.character - start.character, token_type: *k, token_modifiers_bitset: *m });
        (pl, pc) = (start.line, start.character);
    }
    out
}

/// The single edit between two token arrays (in units of u32, as the protocol counts).
pub fn token_delta(old: &[SemanticToken], new: &[SemanticToken]) -> Vec<SemanticTokensEdit> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..].iter().rev().zip(new[prefix..].iter().rev()).take_while(|(a, b)| a == b).count();
    if prefix == old.len() && prefix == new.len() {
        return vec![];
    }
    vec![SemanticTokensEdit {
        start: 5 * prefix as u32,
        delete_count: 5 * (old.len() - prefix - suffix) as u32,
        data: Some(new[prefix..new.len() - suffix].to_vec()),
    }]
}

// ---- inlay hints ---------------------------------------------------------------------------

/// The fields of a stand-in for a whole answer of inlay hints ([`crate::splice`]) but its label.
pub const STAND_IN_HINT: InlayHint = InlayHint {
    position: Position { line: 0, character: 0 },
    label: InlayHintLabel::String(String::new()),
    kind: None,
    text_edits: None,
    tooltip: None,
    padding_left: None,
    padding_right: None,
    data: None,
};

/// The `data` of a label hint and of a `threads` hint, for `inlayHint/resolve`.
pub const HINT_LABELS: &str = "labels";
pub const HINT_THREADS: &str = "threads";

/// Fills in a hint's tooltip (left out of `textDocument/inlayHint` to keep big answers small).
pub fn resolve_inlay_hint(mut h: InlayHint) -> InlayHint {
    let tip = match h.data.as_ref().and_then(|d| d.as_str()) {
        Some(HINT_LABELS) => "initial label(s) of the core statements this line desugars to (SEMANTICS.md §2)",
        Some(HINT_THREADS) => "variables bound before and rebound inside: passed in and returned by the desugared function (LANGUAGE.md §3.6)",
        _ => return h,
    };
    h.tooltip = Some(InlayHintTooltip::String(tip.into()));
    h
}

/// Label hints after each top-level statement and `threads …` hints after loop and `if`
/// headers, for the items that overlap `range`. One walk of the syntax tree with the names in
/// scope kept on a stack, and one pass over the core statements: linear in the file.
pub fn inlay_hints(a: &Analysis, range: Span) -> Vec<InlayHint> {
    let p = a.pos();
    let mut out = Vec::new();
    let items = &a.block().items;
    // A range costs what it touches: the items before it are skipped by binary search, and
    // the names they bind are looked up in a per-analysis table instead of walked.
    let from = items.partition_point(|it| it.span.end < range.start);
    let labels = a.label_ranges();
    let mut scope = Scope { earlier: Some((a.top_binders.get_or_init(|| top_binders(items)), from)), ..Scope::default() };
    for (item, labels) in items[from..].iter().zip(&labels[from..]) {
        crate::cancel::check();
        if item.span.start > range.end {
            break;
        }
        let line = a.lines.line_of(item.span.start);
        let eol = a.lines.line_start(line) + line_len(a, line);
        if let Some(labels) = labels {
            out.push(InlayHint {
                position: p.position(eol),
                label: InlayHintLabel::String(format!("@{labels}")),
                kind: None,
                text_edits: None,
                // The tooltip comes with `inlayHint/resolve` (50 000 lines make 28 000 hints).
                tooltip: None,
                padding_left: Some(true),
                padding_right: None,
                data: Some(serde_json::json!(HINT_LABELS)),
            });
        }
        threaded_hints(a, item, &mut scope, &mut out);
        scope.bind_item(item);
    }
    out
}

/// For each name a top-level item binds, the index of the first such item.
fn top_binders(items: &[Item]) -> FastMap<String, usize> {
    let mut first = FastMap::default();
    for (k, item) in items.iter().enumerate() {
        let mut scope = Scope::default();
        scope.bind_item(item);
        for n in scope.names {
            first.entry(n).or_insert(k);
        }
    }
    first
}

/// A line's length in bytes without its line break (`\n` or `\r\n`).
pub fn line_len(a: &Analysis, line: usize) -> u32 {
    let t = a.lines.line_text(&a.text, line);
    t.strip_suffix('\r').unwrap_or(t).len() as u32
}

/// The names in scope during a walk: a stack, with counts for lookups, over the names that
/// the top-level items before the walk's first item bind.
#[derive(Default)]
struct Scope<'a> {
    names: Vec<String>,
    count: FastMap<String, u32>,
    earlier: Option<(&'a FastMap<String, usize>, usize)>,
}

impl Scope<'_> {
    fn push(&mut self, n: &str) {
        self.names.push(n.to_string());
        *self.count.entry(n.to_string()).or_default() += 1;
    }

    fn mark(&self) -> usize {
        self.names.len()
    }

    fn pop_to(&mut self, mark: usize) {
        for n in self.names.drain(mark..) {
            if let Some(c) = self.count.get_mut(&n) {
                *c -= 1;
                if *c == 0 {
                    self.count.remove(&n);
                }
            }
        }
    }

    fn has(&self, n: &str) -> bool {
        self.count.contains_key(n) || self.earlier.is_some_and(|(first, from)| first.get(n).is_some_and(|&k| k < from))
    }

    fn pattern(&mut self, p: &Pattern) {
        let mut names = Vec::new();
        p.names(&mut names);
        names.iter().for_each(|id| self.push(&id.name));
    }

    /// What an item binds for the items after it in its block.
    fn bind_item(&mut self, item: &Item) {
        match &item.kind {
            ItemKind::Bind(p, _) => self.pattern(p),
            ItemKind::Aug(id, _, _) | ItemKind::Rec(id, _) => self.push(&id.name),
            ItemKind::Extern(ids, _) => ids.iter().for_each(|id| self.push(&id.name)),
            _ => {}
        }
    }

    fn params(&mut self, ps: &Params) {
        match ps {
            Params::Name(id) => self.push(&id.name),
            Params::Unit(_) => {}
            Params::List(list, _) => {
                for p in list {
                    match p {
                        Param::Pat(p) => self.pattern(p),
                        Param::Amp(id) => self.push(&id.name),
                    }
                }
            }
        }
    }
}

/// For a loop or an `if`: the variables it threads (bound before it, rebound inside); then
/// the same for the items nested in it, with `scope` the names visible at the item.
fn threaded_hints(a: &Analysis, item: &Item, scope: &mut Scope, out: &mut Vec<InlayHint>) {
    let blocks: Vec<&Block> = match &item.kind {
        ItemKind::For(_, _, b) | ItemKind::While(_, b) | ItemKind::DoWhile(b, _) => vec![b],
        ItemKind::If(bs, els) => bs.iter().map(|(_, b)| b).chain(els.iter()).collect(),
        ItemKind::Rec(id, e) => {
            let m = scope.mark();
            scope.push(&id.name);
            expr_hints(a, e, scope, out);
            scope.pop_to(m);
            return;
        }
        ItemKind::Bind(_, e) | ItemKind::Ret(e) | ItemKind::Expr(e) | ItemKind::Aug(_, _, e) => {
            expr_hints(a, e, scope, out);
            return;
        }
        _ => return,
    };
    let mut names = Vec::new();
    for b in &blocks {
        assigned(b, &mut names);
    }
    let threaded: Vec<String> = names.into_iter().filter(|n| scope.has(n) || externals::handle_root(n).is_some()).collect();
    if !threaded.is_empty() {
        let line = a.lines.line_of(item.span.start);
        let header = &a.lines.line_text(&a.text, line)[..line_len(a, line) as usize];
        let col = header.rfind(':').map(|c| c + 1).unwrap_or(header.len()) as u32;
        out.push(InlayHint {
            position: a.pos().position(a.lines.line_start(line) + col),
            label: InlayHintLabel::String(format!("threads {}", threaded.join(", "))),
            kind: None,
            text_edits: None,
            tooltip: None,
            padding_left: Some(true),
            padding_right: None,
            data: Some(serde_json::json!(HINT_THREADS)),
        });
    }
    let m = scope.mark();
    if let ItemKind::For(p, _, _) = &item.kind {
        scope.pattern(p);
    }
    for b in blocks {
        block_hints(a, b, scope, out);
    }
    scope.pop_to(m);
}

fn block_hints(a: &Analysis, b: &Block, scope: &mut Scope, out: &mut Vec<InlayHint>) {
    let m = scope.mark();
    for i in &b.items {
        threaded_hints(a, i, scope, out);
        scope.bind_item(i);
    }
    scope.pop_to(m);
}

fn expr_hints(a: &Analysis, e: &Expr, scope: &mut Scope, out: &mut Vec<InlayHint>) {
    match &e.kind {
        ExprKind::Fun(ps, body) => {
            let m = scope.mark();
            scope.params(ps);
            match body {
                FunBody::Block(b) => block_hints(a, b, scope, out),
                FunBody::Expr(x) => expr_hints(a, x, scope, out),
            }
            scope.pop_to(m);
        }
        ExprKind::Paren(x) | ExprKind::Prj(_, x) | ExprKind::Not(x) | ExprKind::Neg(x) => expr_hints(a, x, scope, out),
        ExprKind::App(x, y) | ExprKind::Binary(_, x, y) => {
            expr_hints(a, x, scope, out);
            expr_hints(a, y, scope, out);
        }
        ExprKind::Tuple(xs) | ExprKind::List(xs) => xs.iter().for_each(|x| expr_hints(a, x, scope, out)),
        _ => e.sugar_children().into_iter().for_each(|x| expr_hints(a, x, scope, out)),
    }
}

// ---- code actions and lenses ---------------------------------------------------------------

/// A quick fix for one diagnostic.
pub struct QuickFix {
    pub title: String,
    pub diag: ODiag,
    pub edits: Vec<(Span, String)>,
    pub preferred: bool,
}

/// Quick fixes for the diagnostics that overlap a range.
pub fn quick_fixes(a: &Analysis, range: Span) -> Vec<QuickFix> {
    let mut out = Vec::new();
    let mut add = |title: String, d: &ODiag, edits: Vec<(Span, String)>, preferred: bool| out.push(QuickFix { title, diag: d.clone(), edits, preferred });
    for d in a.diags.iter().filter(|d| d.span.start <= range.end && d.span.end >= range.start) {
        match (d.code, &d.fix) {
            ("E0005", _) => add("Use `:=` to bind".into(), d, vec![(d.span, ":=".into())], true),
            ("E0002", _) => {
                let line = a.lines.line_of(d.span.start);
                let text = a.lines.line_text(&a.text, line);
                let ws = text.len() - text.trim_start().len();
                let indent: String = text[..ws].chars().map(|c| if c == '\t' { "    ".to_string() } else { c.to_string() }).collect();
                let start = a.lines.line_start(line) as usize;
                add("Replace tabs with spaces".into(), d, vec![(Span::new(start, start + ws), indent)], true);
            }
            ("E0100", suggestion) => {
                let name = a.slice(d.span).to_string();
                if let Some(s) = suggestion {
                    add(format!("Change to `{s}`"), d, vec![(d.span, s.clone())], true);
                }
                if crate::navigation::valid_ident(&name) {
                    let at = extern_insertion_point(a);
                    add(format!("Declare `extern {name}`"), d, vec![(Span::new(at, at), format!("extern {name}{}", line_break(&a.text)))], false);
                }
            }
            ("W0001", _) => {
                let name = a.slice(d.span).to_string();
                add(format!("Rename to `_{name}`"), d, vec![(Span::new(d.span.start as usize, d.span.start as usize), "_".into())], false);
                if let Some(item) = simple_binding_item(a.block(), d.span) {
                    let l0 = a.lines.line_of(item.start);
                    let end = (a.lines.line_start(a.lines.line_of(item.end) + 1) as usize).min(a.text.len());
                    add(format!("Remove the unused binding `{name}`"), d, vec![(Span::new(a.lines.line_start(l0) as usize, end), String::new())], true);
                }
            }
            ("W0002", Some(threaded)) => add(format!("Thread the handle: `{threaded}`"), d, vec![(d.span, threaded.clone())], true),
            _ => {}
        }
    }
    out
}

/// After the leading comments and `extern` lines: where a new `extern` goes.
fn extern_insertion_point(a: &Analysis) -> usize {
    let lines = &a.lines;
    let line = (0..lines.line_count()).find(|&l| {
        let t = lines.line_text(&a.text, l).trim();
        !(t.starts_with('#') || t.starts_with("extern "))
    });
    line.map_or(a.text.len(), |l| (lines.line_start(l) as usize).min(a.text.len()))
}

/// The item `name := expr` whose binder is at `span`, at any depth, if it stands alone.
fn simple_binding_item(b: &Block, span: Span) -> Option<Span> {
    for item in &b.items {
        if let ItemKind::Bind(Pattern::Name(id), _) = &item.kind {
            if id.span == span {
                return Some(item.span);
            }
        }
        let mut found = None;
        for_each_child_block(item, &mut |blk| {
            if found.is_none() {
                found = simple_binding_item(blk, span);
            }
        });
        if found.is_some() {
            return found;
        }
    }
    None
}

pub fn code_lenses(uri: &Uri) -> Vec<CodeLens> {
    let at = Range::default();
    let arg = serde_json::Value::String(uri.to_string());
    vec![
        CodeLens {
            range: at,
            command: Some(Command { title: "▶ Run".into(), command: "opal.runFile".into(), arguments: Some(vec![arg.clone()]) }),
            data: None,
        },
        CodeLens { range: at, command: Some(Command { title: "Debug".into(), command: "opal.debugFile".into(), arguments: Some(vec![arg]) }), data: None },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::WorldInfo;

    const NESTED: &str = "total := 0\nf := fun (n, h):\n    acc := n\n    for x in [1, 2]:\n        acc += x\n        if acc > 2:\n            h := h\n    ret acc\nfor y in [1, 2]:\n    total += y\nprint (&stdout, total)\n";

    fn hints(src: &str) -> String {
        let a = Analysis::new(src.to_string(), WorldInfo::default());
        inlay_hints(&a, Span::new(0, src.len()))
            .iter()
            .map(|h| {
                let label = match &h.label {
                    InlayHintLabel::String(s) => s.clone(),
                    InlayHintLabel::LabelParts(_) => String::new(),
                };
                format!("{}:{} {label}", h.position.line, h.position.character)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn inlay_hints_follow_nested_scopes() {
        insta::assert_snapshot!("inlay_hints_nested", hints(NESTED));
    }

    /// Tokens as absolute `(line, col, len, type, mods)`.
    fn absolute(tokens: &[SemanticToken]) -> Vec<(u32, u32, u32, u32, u32)> {
        let (mut line, mut col) = (0, 0);
        tokens
            .iter()
            .map(|t| {
                line += t.delta_line;
                col = if t.delta_line > 0 { t.delta_start } else { col + t.delta_start };
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
        let full = absolute(&semantic_tokens(&a));
        let lines = src.lines().count();
        for first in 0..lines {
            for last in first..lines {
                let start = a.lines.line_start(first);
                let end = a.lines.line_start(last) + line_len(&a, last);
                let range = Span::new(start as usize, end as usize);
                let p = a.pos();
                let (from, to) = (p.position(range.start), p.position(range.end));
                let expect: Vec<_> =
                    full.iter().copied().filter(|t| (t.0, t.1 + t.2) >= (from.line, from.character) && (t.0, t.1) <= (to.line, to.character)).collect();
                assert_eq!(absolute(&semantic_tokens_in(&a, range)), expect, "lines {first}..={last}");
            }
        }
    }

    #[test]
    fn range_hints_are_the_whole_file_hints_of_the_items_it_touches() {
        // Names bound by items before the range must still count as threaded inside it.
        let src = format!("{NESTED}count := 0\nwhile count < 3:\n    count += 1\n    total += count\n");
        let a = analysis(&src);
        let all: Vec<(u32, u32, String)> =
            inlay_hints(&a, Span::new(0, src.len())).into_iter().map(|h| (h.position.line, h.position.character, format!("{:?}", h.label))).collect();
        assert!(all.iter().any(|h| h.2.contains("threads count, total")), "{all:?}");
        let lines = src.lines().count();
        for first in 0..lines {
            for last in first..lines {
                let range = Span::new(a.lines.line_start(first) as usize, (a.lines.line_start(last) + line_len(&a, last)) as usize);
                let items: Vec<&Item> = a.block().items.iter().filter(|it| it.span.end >= range.start && it.span.start <= range.end).collect();
                let expect: Vec<_> = match (items.first(), items.last()) {
                    (Some(f), Some(l)) => {
                        let (lo, hi) = (a.lines.line_of(f.span.start) as u32, a.lines.line_of(l.span.end.saturating_sub(1)) as u32);
                        all.iter().filter(|h| lo <= h.0 && h.0 <= hi).cloned().collect()
                    }
                    _ => vec![],
                };
                let got: Vec<_> = inlay_hints(&a, range).into_iter().map(|h| (h.position.line, h.position.character, format!("{:?}", h.label))).collect();
                assert_eq!(got, expect, "lines {first}..={last}");
            }
        }
    }

    #[test]
    fn inlay_hints_sit_before_a_crlf_or_a_lone_cr() {
        assert_eq!(hints(&NESTED.replace('\n', "\r\n")), hints(NESTED));
        assert_eq!(hints(&NESTED.replace('\n', "\r")), hints(NESTED));
    }

    fn analysis(src: &str) -> Analysis {
        Analysis::new(src.to_string(), WorldInfo::default())
    }

    fn sig(src: &str) -> Option<(String, Option<u32>)> {
        let a = analysis(src);
        signature_help(&a, src.len() as u32).map(|h| (h.signatures[0].label.clone(), h.active_parameter))
    }

    #[test]
    fn signature_help_inside_unclosed_calls() {
        let f = "shout := fun (s, n): s\n";
        assert_eq!(sig(&format!("{f}x := shout (")), Some(("shout (s, n)".into(), Some(0))));
        assert_eq!(sig(&format!("{f}x := shout (\"a\", ")), Some(("shout (s, n)".into(), Some(1))));
        assert!(sig("print (&stdout, ").is_some_and(|(l, p)| l.starts_with("print") && p == Some(1)), "{:?}", sig("print (&stdout, "));
        assert!(sig("x := map (").is_some_and(|(l, _)| l.starts_with("map")), "{:?}", sig("x := map ("));
        // Brackets and commas in strings and comments do not count; a call over several lines does.
        assert_eq!(sig(&format!("{f}x := shout (\"(a, b\", # )),\n    ")), Some(("shout (s, n)".into(), Some(1))));
        assert_eq!(sig(&format!("{f}x := shout (\r\n  1,\r  ")), Some(("shout (s, n)".into(), Some(1))));
        assert_eq!(enclosing_call("x := shout (1,\r\n  2,\r  ", 23).map(|(_, commas)| commas), Some(2));
        // A call closed, or one left open in an earlier statement, is not the one at the cursor.
        assert_eq!(sig(&format!("{f}x := shout (1, 2)\ny := 3, ")), None);
        assert_eq!(sig(&format!("{f}x := shout (1,\ny := [1, ")), None);
        assert_eq!(sig(&format!("# shout (\n{f}y := 1\nz := ")), None);
        // In an f-string's open hole (a closed hole before it, and `{{`, do not count).
        assert_eq!(sig(&format!("{f}x := f\"{{{{a}} {{shout 1}} {{shout (\"}}\", ")), Some(("shout (s, n)".into(), Some(1))));
        assert_eq!(sig(&format!("{f}x := f\"{{shout 1}} (")), None);
    }

    #[test]
    fn formatting_keeps_crlf_and_lone_cr() {
        let a = analysis("x:=1\r\nf := fun (a,b):   a+b\r\nprint (&stdout,f (x,x))\r\n");
        let (_, text) = format_document(&a).ok().flatten().unwrap_or_default();
        assert!(!text.is_empty() && text.matches('\n').count() == text.matches("\r\n").count(), "{text:?}");
        for brk in ["\r\n", "\r", "\n"] {
            for end in [brk, ""] {
                // The second line, then the last (with and without a final break).
                let src = format!("x:=1{brk}f := fun (a,b):   a+b{brk}print (&stdout,f (x,x)){end}");
                let a = analysis(&src);
                let at = src.find('f').unwrap_or_default();
                let (span, new) = format_range(&a, Span::new(at, at + 2)).ok().flatten().unwrap_or_default();
                let after = format!("{}{new}{}", &a.text[..span.start as usize], &a.text[span.end as usize..]);
                assert_eq!(after, format!("x:=1{brk}f := fun (a, b): a + b{brk}print (&stdout,f (x,x)){end}"), "{brk:?} {end:?}");
                let at = src.find("print").unwrap_or_default();
                let (span, new) = format_range(&a, Span::new(at, at + 2)).ok().flatten().unwrap_or_default();
                let after = format!("{}{new}{}", &a.text[..span.start as usize], &a.text[span.end as usize..]);
                assert_eq!(after, format!("x:=1{brk}f := fun (a,b):   a+b{brk}print (&stdout, f (x, x)){end}"), "{brk:?} {end:?}");
            }
        }
        let cr = analysis("x:=1\rf := fun (a,b):   a+b\rprint (&stdout,f (x,x))\r");
        let (span, new) = format_document(&cr).ok().flatten().unwrap_or_default();
        let after = format!("{}{new}{}", &cr.text[..span.start as usize], &cr.text[span.end as usize..]);
        assert_eq!(after, "x := 1\rf := fun (a, b): a + b\rprint (&stdout, f (x, x))\r");
        assert!(format_document(&analysis("x := (\n")).is_err(), "a broken file is not formatted");
    }

    #[test]
    fn quick_fixes_keep_crlf_and_lone_cr() {
        for brk in ["\r\n", "\r", "\n"] {
            let src = format!("# c{brk}print (&stdout, nope){brk}");
            let a = analysis(&src);
            let fixes = quick_fixes(&a, Span::new(0, src.len()));
            let declare = fixes.iter().find(|q| q.title.starts_with("Declare")).map(|q| (q.edits[0].0, q.edits[0].1.clone()));
            // After the leading comment, with the file's line break.
            assert_eq!(declare, Some((Span::new(3 + brk.len(), 3 + brk.len()), format!("extern nope{brk}"))), "{brk:?}");
        }
    }

    #[test]
    fn folds_end_on_the_last_line_of_their_block() {
        let src = "f := fun (a, b):\n    c := a + b\n    ret c\n\ng := fun x:\n    ret x\nif f (1, 2) > 2:\n    print (&stdout, 1)\n";
        let a = analysis(src);
        let folds: Vec<(u32, u32)> = folding_ranges(&a).iter().map(|f| (f.start_line, f.end_line)).collect();
        assert_eq!(folds, vec![(0, 2), (4, 5), (6, 7)]);
        for brk in ["\r\n", "\r"] {
            let other = analysis(&src.replace('\n', brk));
            assert_eq!(folding_ranges(&other).iter().map(|f| (f.start_line, f.end_line)).collect::<Vec<_>>(), folds, "{brk:?}");
        }
    }

    #[test]
    fn completion_is_filtered_by_the_typed_prefix() {
        let src = "printer := 1\nprogress := 2\nx := pr";
        let a = analysis(src);
        let (items, cut) = completion_list(&a, src.len() as u32);
        let labels: Vec<&str> = items.iter().map(|i| i.label.as_str()).collect();
        assert!(!cut);
        assert!(labels.iter().all(|l| crate::navigation::fuzzy_match("pr", l)), "{labels:?}");
        assert_eq!(&labels[..2], &["progress", "printer"], "bindings in scope first, innermost first: {labels:?}");
        assert!(labels.contains(&"print"));
        // 300 bindings that match: the best 200 go out, marked as cut (the server then answers an
        // incomplete list, so the client asks again as the user types).
        let many: String = (0..300).map(|i| format!("item{i} := {i}\n")).collect::<String>() + "x := it";
        let (items, cut) = completion_list(&analysis(&many), many.len() as u32);
        assert!(cut && items.len() == MAX_COMPLETIONS, "{} items, cut {cut}", items.len());
        assert_eq!(items[0].label, "item299", "innermost (latest) binding first");
    }

    #[test]
    fn snippets_use_the_files_line_break() {
        for brk in ["\r\n", "\r", "\n"] {
            let src = format!("x := 1{brk}fo");
            let (items, _) = completion_list(&analysis(&src), src.len() as u32);
            let body =
                items.iter().find(|i| i.label == "for" && i.kind == Some(CompletionItemKind::SNIPPET)).and_then(|i| i.insert_text.clone()).unwrap_or_default();
            assert_eq!(body, format!("for ${{1:x}} in ${{2:list}}:{brk}    ${{0:pass}}"), "{brk:?}");
        }
    }

    #[test]
    fn completion_inside_unclosed_calls() {
        for src in ["shout := fun (s, n): s\nx := shout (sh", "shout := 1\nprint (&stdout, sh"] {
            let (items, _) = completion_list(&analysis(src), src.len() as u32);
            assert!(items.iter().any(|i| i.label == "shout"), "{src:?}: {:?}", items.iter().map(|i| &i.label).collect::<Vec<_>>());
        }
    }

    proptest::proptest! {
        /// The edit turns the old text into the new one, starts at a line start, and never
        /// starts or ends between the `\r` and the `\n` of a line break.
        #[test]
        fn minimal_edits_are_exact_and_keep_line_breaks_whole(
            old in "(a|b|é| |\r\n|\r|\n){0,24}",
            new in "(a|b|é| |\r\n|\r|\n){0,24}",
        ) {
            if let Some((span, text)) = minimal_edit(&old, &new) {
                let (a, b) = (span.start as usize, span.end as usize);
                proptest::prop_assert_eq!(format!("{}{text}{}", &old[..a], &old[b..]), new.clone());
                proptest::prop_assert_eq!(line_start_at(&old, a), a);
                for i in [a, b] {
                    proptest::prop_assert!(!(old[..i].ends_with('\r') && old[i..].starts_with('\n')), "{:?} at {}", old, i);
                }
            } else {
                proptest::prop_assert_eq!(old, new);
            }
        }
    }
}
