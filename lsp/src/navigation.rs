//! Hover, go to definition, references, highlights, rename, and symbols.

use crate::analysis::{describe_known, external_doc, prelude_signature, Analysis, Target};
use opal_core::desugar::{DefKind, Known};
use opal_core::span::Span;
use opal_core::syntax::ast::Pattern;
use opal_core::syntax::ast::*;
use opal_core::syntax::lexer::KEYWORDS;
use std::collections::HashMap;

/// A hover: Markdown about the name (or keyword) at `span`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HoverResult {
    pub markdown: String,
    pub span: Span,
}

/// Whether an occurrence binds the name (a definition) or uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HighlightKind {
    Read,
    Write,
}

/// What a symbol is, for its icon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    Function,
    Variable,
    /// A tuple.
    Array,
    /// An `extern`.
    Interface,
}

/// A symbol of the outline: the whole item (`range`) and its name (`selection`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub detail: Option<String>,
    pub kind: SymbolKind,
    pub range: Span,
    pub selection: Span,
    pub children: Vec<Symbol>,
}

/// A symbol of the flattened outline, with the name of the symbol it is in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlatSymbol {
    pub name: String,
    pub kind: SymbolKind,
    pub selection: Span,
    pub container: Option<String>,
}

pub fn hover(a: &Analysis, offset: u32) -> Option<HoverResult> {
    let (span, target) = match a.target_at(offset) {
        Some(t) => t,
        None => return keyword_hover(a, offset),
    };
    let mut md = String::new();
    match &target {
        Target::Def(i) => {
            let d = &a.defs()[*i];
            let what = match d.kind {
                DefKind::Extern => {
                    let class = a
                        .compiled
                        .program
                        .orders
                        .get(&d.name)
                        .copied()
                        .unwrap_or_default();
                    let how = match class {
                        Order::Sequential => "sequential: its calls run in program order",
                        Order::Readonly => {
                            "readonly: its calls may overlap each other, never a sequential call"
                        }
                        Order::Unordered => {
                            "unordered: its calls run as soon as their arguments exist"
                        }
                    };
                    format!("extern, {how} (supplied by the world file)")
                }
                DefKind::Param => format!("parameter · {}", describe_known(&d.known)),
                DefKind::Binding => format!("binding · {}", describe_known(&d.known)),
            };
            let line = a.lines.line_of(d.span.start);
            md.push_str(&format!(
                "```opal\n{}\n```\n**{}** — {what}, line {}\n",
                a.lines.line_text(&a.text, line).trim(),
                d.name,
                line + 1
            ));
            if let Some(doc) = a.doc_above(d.span.start) {
                md.push_str(&format!("\n{doc}\n"));
            }
            if d.kind == DefKind::Extern {
                md.push_str(&world_summary(a, &d.name));
            }
            md.push_str(&core_block(a, a.lines.line_of(d.span.start), Some(d.core)));
        }
        Target::Prelude(p) => {
            let sig = prelude_signature(p).unwrap_or_else(|| p.clone());
            md.push_str(&format!(
                "```opal\n{sig}\n```\n**{p}** — prelude function (LANGUAGE.md §4)\n"
            ));
            if let Some(d) = opal_core::prelude::def(p) {
                let src = opal_core::prelude::SOURCE.get(d.span.range()).unwrap_or("");
                md.push_str(&format!("\n```opal\n{}\n```\n", src.trim_end()));
            }
        }
        Target::External(e) => match external_doc(e) {
            Some((sig, doc, kind)) => md.push_str(&format!(
                "```opal\n{sig}\n```\n**{e}** — {kind} external\n\n{doc}\n"
            )),
            None => md.push_str(&format!("**{e}** — external\n")),
        },
        Target::Handle(h) => {
            let doc = opal_core::externals::HANDLES
                .iter()
                .find(|(n, _)| n == h)
                .map(|(_, d)| *d)
                .unwrap_or("A handle.");
            md.push_str(&format!(
                "**{h}** — handle\n\n{doc} Thread it with `&{h}` so effects keep their order.\n"
            ));
        }
    }
    // On a use, also say what its line desugars to.
    if !matches!(target, Target::Def(_)) {
        md.push_str(&core_block(a, a.lines.line_of(offset), None));
    }
    Some(HoverResult { markdown: md, span })
}

fn world_summary(a: &Analysis, name: &str) -> String {
    match a.world.world.as_ref().and_then(|w| w.get(name)) {
        Some(e) => {
            let mut s = format!(
                "\nWorld file: latency {} ms, {} response(s)",
                e.latency_ms,
                e.responses.len()
            );
            if let Some(d) = &e.default {
                s.push_str(&format!(", default `{d}`"));
            }
            if !e.choices.is_empty() {
                s.push_str(&format!(", choices {}", e.choices.join(" | ")));
            }
            s.push('\n');
            s
        }
        None => "\nNo world-file entry: calls to it fail (W0003).\n".into(),
    }
}

/// What the 0-based `line` desugars to: its own core statements (a loop's body line shows
/// its statements, not the whole loop), top-level ones with their initial labels; for a
/// binding (`bound`), only the statement that binds it (and a function's body on that line).
fn core_block(a: &Analysis, line: usize, bound: Option<opal_core::names::Name>) -> String {
    let mut rows = a.core_on_line(line);
    if let Some(name) = bound {
        let head = format!("{name} := ");
        if let Some(i) = rows.iter().position(|r| r.2.starts_with(&head)) {
            let depth = rows[i].1;
            let end = (i + 1..rows.len())
                .find(|&j| rows[j].1 <= depth)
                .unwrap_or(rows.len());
            rows = rows[i..end].to_vec();
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0) + 2;
    let mut s = format!(
        "\n---\nLine {} desugars to (initial labels at the top level):\n```opal-core\n",
        line + 1
    );
    for (label, depth, t) in rows.iter().take(12) {
        let pad = "  ".repeat(*depth);
        s.push_str(&format!("{label:<w$}{pad}{t}\n"));
    }
    if rows.len() > 12 {
        s.push_str(&format!("… {} more\n", rows.len() - 12));
    }
    s.push_str("```\n");
    s
}

fn keyword_hover(a: &Analysis, offset: u32) -> Option<HoverResult> {
    let (span, word) = word_at(&a.text, offset)?;
    if !KEYWORDS.iter().any(|(k, _)| *k == word) {
        return None;
    }
    let doc = match word {
        "fun" => "`fun params: body` — a function (λ). `fun (a, b): …` takes one tuple and projects it.",
        "ret" => "`ret e` — the value of the block; must be its last item.",
        "prj" => "`prj i x` — the i-th component (from 1) of the tuple x.",
        "rec" => "`rec f := fun p: …` — a recursive function, desugared through `fix`.",
        "for" => "`for x in l: body` — folds the Church list l, threading the variables the body rebinds.",
        "in" => "`for x in l` — the list to fold.",
        "if" | "elif" | "else" => "`if c: A else: B` — calls the Church boolean c with two thunks, threading rebound variables.",
        "while" | "do" => "`while c: body` / `do: body while c` — a local recursive function through `fix`.",
        "extern" => "`extern f, g` — names supplied by the environment (a world file, or a live external).",
        "and" | "or" | "not" => "Church-boolean operators (prelude `and`, `or`, `not`).",
        _ => return None,
    };
    Some(HoverResult {
        markdown: format!("**{word}** — keyword\n\n{doc}\n"),
        span,
    })
}

/// The identifier-like word touching an offset.
pub fn word_at(text: &str, offset: u32) -> Option<(Span, &str)> {
    let o = (offset as usize).min(text.len());
    let is_w = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let start = text[..o]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_w(*c))
        .last()
        .map(|(i, _)| i)
        .unwrap_or(o);
    let end = text[o..]
        .char_indices()
        .find(|(_, c)| !is_w(*c))
        .map(|(i, _)| o + i)
        .unwrap_or(text.len());
    (end > start).then(|| (Span::new(start, end), &text[start..end]))
}

pub fn definition(a: &Analysis, offset: u32) -> Option<Span> {
    match a.target_at(offset)?.1 {
        Target::Def(i) => Some(a.defs()[i].span),
        _ => None,
    }
}

/// References to what is under the cursor (with or without its definition).
pub fn references(a: &Analysis, offset: u32, include_decl: bool) -> Vec<Span> {
    let Some((_, t)) = a.target_at(offset) else {
        return vec![];
    };
    a.occurrences(&t)
        .into_iter()
        .filter(|(_, is_def)| include_decl || !is_def)
        .map(|(s, _)| s)
        .collect()
}

pub fn highlights(a: &Analysis, offset: u32) -> Vec<(Span, HighlightKind)> {
    let Some((_, t)) = a.target_at(offset) else {
        return vec![];
    };
    a.occurrences(&t)
        .into_iter()
        .map(|(s, is_def)| {
            (
                s,
                if is_def {
                    HighlightKind::Write
                } else {
                    HighlightKind::Read
                },
            )
        })
        .collect()
}

/// Why a rename cannot happen, in words for the user.
pub type RenameError = String;

pub fn prepare_rename(a: &Analysis, offset: u32) -> Result<Span, RenameError> {
    match a.target_at(offset) {
        Some((span, Target::Def(i))) if a.defs()[i].kind != DefKind::Extern => Ok(span),
        Some((_, Target::Def(_))) => Err("an `extern` is named by its world file and live externals; rename it there too, by hand".into()),
        Some((_, Target::Prelude(p))) => Err(format!("`{p}` is a prelude function; bind your own name instead")),
        Some((_, Target::External(e))) => Err(format!("`{e}` is a standard external and cannot be renamed")),
        Some((_, Target::Handle(h))) => Err(format!("`{h}` is a standard handle and cannot be renamed")),
        None => Err("there is no name here to rename".into()),
    }
}

pub fn valid_ident(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && s != "_"
}

/// The edits that rename what is under the cursor, checked by compiling the result: a rename
/// that would change what any name refers to (a collision or a captured use) is refused.
pub fn rename(
    a: &Analysis,
    offset: u32,
    new_name: &str,
) -> Result<Vec<(Span, String)>, RenameError> {
    prepare_rename(a, offset)?;
    if KEYWORDS.iter().any(|(k, _)| *k == new_name) {
        return Err(format!("`{new_name}` is a keyword"));
    }
    if !valid_ident(new_name) {
        return Err(format!(
            "`{new_name}` is not a name (letters, digits and `_`, not starting with a digit)"
        ));
    }
    let Some((_, t)) = a.target_at(offset) else {
        return Err("there is no name here to rename".into());
    };
    let mut spans: Vec<Span> = a.occurrences(&t).into_iter().map(|(s, _)| s).collect();
    spans.sort();
    spans.dedup();
    // One pass over the text and a binary search per offset: a name used 10^4 times in a
    // big file must not cost 10^4 copies of the file.
    let mut text = String::with_capacity(a.text.len() + spans.len() * new_name.len());
    let mut copied = 0;
    for s in &spans {
        text.push_str(&a.text[copied..s.start as usize]);
        text.push_str(new_name);
        copied = s.end as usize;
    }
    text.push_str(&a.text[copied..]);
    let delta =
        new_name.len() as i64 - (spans.first().map(|s| s.end - s.start).unwrap_or(0) as i64);
    let shift = |o: u32| -> u32 {
        (o as i64 + delta * spans.partition_point(|s| s.end <= o) as i64) as u32
    };
    let shift_span = |s: Span| Span {
        start: shift(s.start),
        end: shift(s.end),
    };
    let after = Analysis::new(text, a.world.clone());
    let errors = |x: &Analysis| x.diags.iter().filter(|d| d.is_error()).count();
    // The line first: an editor's notification may cut a long message.
    if errors(&after) > errors(a) {
        let first = after.diags.iter().find(|d| d.is_error());
        let line = first
            .map(|d| after.lines.line_of(d.span.start) + 1)
            .unwrap_or(1);
        return Err(format!(
            "line {line}: renaming to `{new_name}` would introduce an error: {}",
            first.map(|d| d.message.as_str()).unwrap_or("")
        ));
    }
    // Every use must still resolve to the shifted version of its old definition.
    let new_refs: HashMap<Span, String> = after
        .refs()
        .iter()
        .map(|(s, t)| (*s, target_key(&after, t)))
        .collect();
    for (s, t) in a.refs() {
        let want = shifted_key(a, t, &shift_span);
        if new_refs.get(&shift_span(*s)) != Some(&want) {
            let line = a.lines.line_of(s.start) + 1;
            return Err(format!(
                "line {line}: renaming to `{new_name}` would change what `{}` refers to",
                a.slice(*s)
            ));
        }
    }
    if after.refs().len() != a.refs().len() {
        return Err(format!(
            "renaming to `{new_name}` would change which names the program uses"
        ));
    }
    Ok(spans
        .into_iter()
        .map(|s| (s, new_name.to_string()))
        .collect())
}

fn target_key(a: &Analysis, t: &opal_core::desugar::RefTarget) -> String {
    use opal_core::desugar::RefTarget as R;
    match t {
        R::Def(i) => format!(
            "def@{}",
            a.defs().get(*i).map(|d| d.span.start).unwrap_or(u32::MAX)
        ),
        R::Prelude(p) => format!("prelude {p}"),
        R::External(e) => format!("external {e}"),
        R::Handle(h) => format!("handle {h}"),
    }
}

fn shifted_key(
    a: &Analysis,
    t: &opal_core::desugar::RefTarget,
    shift: &dyn Fn(Span) -> Span,
) -> String {
    use opal_core::desugar::RefTarget as R;
    match t {
        R::Def(i) => format!(
            "def@{}",
            a.defs()
                .get(*i)
                .map(|d| shift(d.span).start)
                .unwrap_or(u32::MAX)
        ),
        other => target_key(a, other),
    }
}

/// Nested document symbols: functions contain the bindings of their bodies.
pub fn document_symbols(a: &Analysis) -> Vec<Symbol> {
    let mut out = Vec::new();
    block_symbols(a, a.block(), &mut out);
    out
}

fn symbol(
    name: &str,
    detail: Option<String>,
    kind: SymbolKind,
    range: Span,
    selection: Span,
    children: Vec<Symbol>,
) -> Symbol {
    Symbol {
        name: name.to_string(),
        detail,
        kind,
        range,
        selection,
        children,
    }
}

fn block_symbols(a: &Analysis, b: &Block, out: &mut Vec<Symbol>) {
    for item in &b.items {
        crate::cancel::check();
        match &item.kind {
            ItemKind::Bind(Pattern::Name(id), e) => out.push(expr_symbol(a, id, e, item.span)),
            ItemKind::Bind(p, e) => {
                let mut names = Vec::new();
                p.names(&mut names);
                for id in names {
                    out.push(symbol(
                        &id.name,
                        None,
                        SymbolKind::Variable,
                        item.span,
                        id.span,
                        vec![],
                    ));
                }
                let mut inner = Vec::new();
                expr_children(a, e, &mut inner);
                out.extend(inner);
            }
            ItemKind::Rec(id, e) => out.push(expr_symbol(a, id, e, item.span)),
            ItemKind::Extern(ids, _) => {
                for id in ids {
                    out.push(symbol(
                        &id.name,
                        Some("extern".into()),
                        SymbolKind::Interface,
                        item.span,
                        id.span,
                        vec![],
                    ));
                }
            }
            ItemKind::For(_, _, body) | ItemKind::While(_, body) | ItemKind::DoWhile(body, _) => {
                block_symbols(a, body, out)
            }
            ItemKind::If(branches, els) => {
                for (_, body) in branches {
                    block_symbols(a, body, out);
                }
                if let Some(b) = els {
                    block_symbols(a, b, out);
                }
            }
            _ => {}
        }
    }
}

fn expr_symbol(a: &Analysis, id: &Ident, e: &Expr, item: Span) -> Symbol {
    let mut children = Vec::new();
    expr_children(a, e, &mut children);
    match &e.kind {
        ExprKind::Fun(ps, _) => {
            let (params, _) = crate::analysis::params_text(&a.text, ps);
            symbol(
                &id.name,
                Some(format!("fun {params}")),
                SymbolKind::Function,
                item,
                id.span,
                children,
            )
        }
        _ => {
            let known = a
                .def_at(id.span)
                .map(|i| a.defs()[i].known.clone())
                .unwrap_or(Known::Unknown);
            let kind = match known {
                Known::Fun(_) => SymbolKind::Function,
                Known::Tuple(_) => SymbolKind::Array,
                _ => SymbolKind::Variable,
            };
            symbol(
                &id.name,
                Some(describe_known(&known)),
                kind,
                item,
                id.span,
                children,
            )
        }
    }
}

fn expr_children(a: &Analysis, e: &Expr, out: &mut Vec<Symbol>) {
    match &e.kind {
        ExprKind::Fun(_, FunBody::Block(b)) => block_symbols(a, b, out),
        ExprKind::Fun(_, FunBody::Expr(x)) => expr_children(a, x, out),
        ExprKind::Paren(x) => expr_children(a, x, out),
        ExprKind::App(f, x) => {
            expr_children(a, f, out);
            expr_children(a, x, out);
        }
        ExprKind::Tuple(xs) | ExprKind::List(xs) => {
            xs.iter().for_each(|x| expr_children(a, x, out))
        }
        _ => e
            .sugar_children()
            .into_iter()
            .for_each(|x| expr_children(a, x, out)),
    }
}

/// Flattened symbols of one file, outer ones before their children, for workspace symbol
/// search and for clients without nested symbols.
pub fn flat_symbols(a: &Analysis) -> Vec<FlatSymbol> {
    fn walk(s: &Symbol, container: Option<&str>, out: &mut Vec<FlatSymbol>) {
        out.push(FlatSymbol {
            name: s.name.clone(),
            kind: s.kind,
            selection: s.selection,
            container: container.map(String::from),
        });
        for c in &s.children {
            walk(c, Some(&s.name), out);
        }
    }
    let mut out = Vec::new();
    for s in document_symbols(a) {
        walk(&s, None, &mut out);
    }
    out
}

/// A fuzzy match: the query's characters appear in order, ignoring case.
pub fn fuzzy_match(query: &str, name: &str) -> bool {
    let mut it = name.chars().map(|c| c.to_ascii_lowercase());
    query
        .chars()
        .map(|c| c.to_ascii_lowercase())
        .all(|q| it.any(|c| c == q))
}

/// Markdown as plain text: code fences dropped (their code kept), `**bold**` and
/// `` `code` `` markers removed, `---` rules as blank lines.
pub fn plain_text(md: &str) -> String {
    let mut out = String::new();
    for line in md.lines() {
        if line.starts_with("```") {
            continue;
        }
        if line.trim() == "---" {
            out.push('\n');
            continue;
        }
        out.push_str(&line.replace("**", "").replace('`', ""));
        out.push('\n');
    }
    out
}
