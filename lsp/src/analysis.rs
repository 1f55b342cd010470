//! One snapshot of a document taken through the shared front end, and the questions every
//! feature asks of it: what is at this offset, what does it refer to, what is in scope.

use crate::cancel;
use crate::position::{Encoding, Positions};
use opal_core::desugar::{Def, DefKind, Known, RefTarget};
use opal_core::diag::Diagnostic;
use opal_core::names::FastMap;
use opal_core::span::{LineIndex, Span};
use opal_core::syntax::ast::*;
use opal_core::world::World;
use opal_core::{externals, prelude, Compiled};
use std::collections::HashSet;
use std::sync::OnceLock;

/// The world file beside a program, as the server last read it.
#[derive(Clone, Default)]
pub struct WorldInfo {
    pub world: Option<World>,
    /// Whether a world file exists (a broken one still makes externs "described").
    pub exists: bool,
}

pub struct Analysis {
    pub text: String,
    pub lines: LineIndex,
    pub compiled: Compiled,
    pub world: WorldInfo,
    /// Every diagnostic of the program: front end plus the extern/world check.
    pub diags: Vec<Diagnostic>,
    /// Definitions by their binding site, and `extern` declarations by name (so every
    /// feature stays linear in the file).
    def_by_span: FastMap<Span, usize>,
    extern_by_name: FastMap<String, usize>,
    /// `refs()` as indices ordered by where they start, built on first use (semantic tokens
    /// look references up by position, a screenful at a time).
    ref_order: OnceLock<Vec<u32>>,
    /// For inlay hints: each name bound by a top-level item, with the first such item.
    pub(crate) top_binders: OnceLock<FastMap<String, usize>>,
    /// [`Self::label_ranges`], computed on first use.
    label_ranges: OnceLock<Vec<Option<String>>>,
    /// What positions count (negotiated at `initialize`).
    pub encoding: Encoding,
}

/// What a name at some offset refers to.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Def(usize),
    Prelude(String),
    External(String),
    Handle(String),
}

impl Analysis {
    pub fn new(text: String, world: WorldInfo) -> Analysis {
        // A checkpoint between the parse and the rest: work on a replaced version of a big
        // file stops halfway instead of holding up the analysis of the new one.
        let parsed = opal_core::syntax::parser::parse(&text);
        cancel::check();
        let compiled = opal_core::compile_parsed(parsed, world.world.as_ref());
        let lines = LineIndex::new(&text);
        let mut diags = compiled.diags.clone();
        if world.exists {
            match world.world.as_ref() {
                Some(w) => diags.extend(opal_core::check_externs(&compiled.program, Some(w))),
                None => diags.extend(broken_world(&compiled.program)),
            }
        } else if !compiled.has_errors() {
            diags.extend(opal_core::check_externs(&compiled.program, None));
        }
        diags.sort_by_key(|d| (d.span.start, d.span.end));
        let defs = &compiled.program.symbols.defs;
        let def_by_span = defs
            .iter()
            .enumerate()
            .rev()
            .map(|(i, d)| (d.span, i))
            .collect();
        let extern_by_name = defs
            .iter()
            .enumerate()
            .rev()
            .filter(|(_, d)| d.kind == DefKind::Extern)
            .map(|(i, d)| (d.name.clone(), i))
            .collect();
        Analysis {
            text,
            lines,
            compiled,
            world,
            diags,
            def_by_span,
            extern_by_name,
            ref_order: OnceLock::new(),
            top_binders: OnceLock::new(),
            label_ranges: OnceLock::new(),
            encoding: Encoding::Utf16,
        }
    }

    pub fn with_encoding(text: String, world: WorldInfo, encoding: Encoding) -> Analysis {
        Analysis {
            encoding,
            ..Analysis::new(text, world)
        }
    }

    pub fn pos(&self) -> Positions<'_> {
        Positions::with_encoding(&self.text, &self.lines, self.encoding)
    }

    pub fn defs(&self) -> &[Def] {
        &self.compiled.program.symbols.defs
    }

    pub fn refs(&self) -> &[(Span, RefTarget)] {
        &self.compiled.program.symbols.refs
    }

    pub fn block(&self) -> &Block {
        &self.compiled.parsed.block
    }

    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.range()).unwrap_or("")
    }

    /// The name under the cursor (an offset touching it at either end) and what it refers to.
    /// A binding site refers to its own definition.
    pub fn target_at(&self, offset: u32) -> Option<(Span, Target)> {
        let touches = |s: &Span| s.start <= offset && offset <= s.end && s.end > s.start;
        // Prefer a use over a definition at the same place: `&h` both uses and rebinds `h`.
        if let Some((span, t)) = self.refs().iter().find(|(s, _)| touches(s)) {
            let t = match t {
                RefTarget::Def(i) => Target::Def(*i),
                RefTarget::Prelude(p) => Target::Prelude(p.clone()),
                RefTarget::External(e) => self
                    .extern_def(e)
                    .map(Target::Def)
                    .unwrap_or(Target::External(e.clone())),
                RefTarget::Handle(h) => Target::Handle(h.clone()),
            };
            return Some((*span, t));
        }
        self.defs()
            .iter()
            .position(|d| touches(&d.span))
            .map(|i| (self.defs()[i].span, Target::Def(i)))
    }

    /// The `extern` declaration of a name, if the program has one.
    pub fn extern_def(&self, name: &str) -> Option<usize> {
        self.extern_by_name.get(name).copied()
    }

    /// What the reference starting exactly at `offset` refers to; of several there, the one
    /// recorded last (`&h` records its use, then its rebinding).
    pub fn ref_starting_at(&self, offset: u32) -> Option<&RefTarget> {
        let refs = self.refs();
        let order = self.ref_order.get_or_init(|| {
            let mut order: Vec<u32> = (0..refs.len() as u32).collect();
            // Stable, and linear on the (nearly) sorted order the desugarer records them in.
            order.sort_by_key(|&i| refs[i as usize].0.start);
            order
        });
        let end = order.partition_point(|&i| refs[i as usize].0.start <= offset);
        let (span, target) = &refs[*order[..end].last()? as usize];
        (span.start == offset).then_some(target)
    }

    /// The definition whose binding site is exactly this span.
    pub fn def_at(&self, span: Span) -> Option<usize> {
        self.def_by_span.get(&span).copied()
    }

    /// For each top-level item, the labels of the core statements it desugars to (as
    /// [`Self::label_range`]), in one pass over the statements, once per analysis.
    pub fn label_ranges(&self) -> &[Option<String>] {
        self.label_ranges
            .get_or_init(|| self.compute_label_ranges())
    }

    fn compute_label_ranges(&self) -> Vec<Option<String>> {
        let items = &self.block().items;
        let mut first_last: Vec<Option<(usize, usize)>> = vec![None; items.len()];
        for (i, s) in self.compiled.program.body.stmts.iter().enumerate() {
            if s.span.end <= s.span.start {
                continue;
            }
            let k = items.partition_point(|it| it.span.start <= s.span.start);
            let Some(k) = k.checked_sub(1) else { continue };
            if s.span.end > items[k].span.end {
                continue;
            }
            let label = i + 1;
            let e = first_last[k].get_or_insert((label, label));
            e.0 = e.0.min(label);
            e.1 = e.1.max(label);
        }
        first_last
            .into_iter()
            .map(|fl| match fl {
                Some((a, b)) if a == b => Some(a.to_string()),
                Some((a, b)) => Some(format!("{a}–{b}")),
                None => None,
            })
            .collect()
    }

    /// Every place that refers to the target, the definition first when it is in this file.
    pub fn occurrences(&self, target: &Target) -> Vec<(Span, bool)> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        if let Target::Def(i) = target {
            out.push((self.defs()[*i].span, true));
            seen.insert(self.defs()[*i].span);
        }
        for (k, (span, t)) in self.refs().iter().enumerate() {
            if k % 4096 == 0 {
                cancel::check();
            }
            let same = match (t, target) {
                (RefTarget::Def(a), Target::Def(b)) => a == b,
                (RefTarget::External(e), Target::Def(b)) => self.extern_def(e) == Some(*b),
                (RefTarget::Prelude(a), Target::Prelude(b)) => a == b,
                (RefTarget::External(a), Target::External(b)) => a == b,
                (RefTarget::Handle(a), Target::Handle(b)) => a == b,
                _ => false,
            };
            if same && seen.insert(*span) {
                out.push((*span, false));
            }
        }
        out
    }

    /// The top-level item containing an offset.
    pub fn top_item_at(&self, offset: u32) -> Option<(usize, &Item)> {
        self.block()
            .items
            .iter()
            .enumerate()
            .find(|(_, it)| it.span.start <= offset && offset <= it.span.end)
    }

    /// The program's own top-level core statements that came from a source span, with their
    /// initial labels (the statement's index from 1, SEMANTICS.md §2).
    fn stmts_from(&self, span: Span) -> impl Iterator<Item = (usize, &opal_core::ir::Stmt)> {
        let body = self.compiled.program.body.stmts.iter().enumerate();
        body.filter(move |(_, s)| {
            s.span.start >= span.start && s.span.end <= span.end && s.span.end > s.span.start
        })
        .map(|(i, s)| (i + 1, s))
    }

    /// The core text of [`Self::stmts_from`], label first.
    pub fn core_of(&self, span: Span) -> Vec<(String, String)> {
        self.stmts_from(span)
            .map(|(label, s)| {
                let mut t = format!("{} := ", s.bind);
                opal_core::ir::write_op(&mut t, &s.op, 0);
                (label.to_string(), t)
            })
            .collect()
    }

    /// The core statements written on 0-based `line`, nested function bodies included, in
    /// order: (initial label for a top-level statement, nesting depth, `x := o` with a
    /// function's body left out). What one line of a loop's body desugars to, not the loop.
    pub fn core_on_line(&self, line: usize) -> Vec<(String, usize, String)> {
        fn walk(
            a: &Analysis,
            stmts: &[opal_core::ir::Stmt],
            line: usize,
            depth: usize,
            top: bool,
            out: &mut Vec<(String, usize, String)>,
        ) {
            for (i, s) in stmts.iter().enumerate() {
                let here = s.span.end > s.span.start && a.lines.line_of(s.span.start) == line;
                let label = if top {
                    (i + 1).to_string()
                } else {
                    String::new()
                };
                match &s.op {
                    opal_core::ir::Op::Fun(f) => {
                        if here {
                            out.push((label, depth, format!("{} := fun {}: …", s.bind, f.param)));
                        }
                        walk(
                            a,
                            &f.body.stmts,
                            line,
                            depth + usize::from(here),
                            false,
                            out,
                        );
                    }
                    op if here => {
                        let mut t = format!("{} := ", s.bind);
                        opal_core::ir::write_op(&mut t, op, 0);
                        out.push((label, depth, t));
                    }
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(
            self,
            &self.compiled.program.body.stmts,
            line,
            0,
            true,
            &mut out,
        );
        out
    }

    /// Labels of the core statements a top-level item desugars to, as `first` or `first–last`.
    pub fn label_range(&self, span: Span) -> Option<String> {
        let idx: Vec<usize> = self.stmts_from(span).map(|(label, _)| label).collect();
        match (idx.first(), idx.last()) {
            (Some(a), Some(b)) if a == b => Some(a.to_string()),
            (Some(a), Some(b)) => Some(format!("{a}–{b}")),
            _ => None,
        }
    }

    /// Names visible at an offset: the program's bindings in scope there (innermost last).
    pub fn scope_at(&self, offset: u32) -> Vec<Visible> {
        let mut out = Vec::new();
        let cursor_indent = self.indent_of_line_at(offset);
        scope_in_block(self, self.block(), offset, cursor_indent, &mut out);
        out
    }

    fn indent_of_line_at(&self, offset: u32) -> u32 {
        let line = self.lines.line_of(offset.min(self.text.len() as u32));
        let text = self.lines.line_text(&self.text, line);
        text.len() as u32 - text.trim_start().len() as u32
    }

    pub fn column(&self, offset: u32) -> u32 {
        let line = self.lines.line_of(offset.min(self.text.len() as u32));
        offset - self.lines.line_start(line)
    }

    /// What the checker knows about the definition of a name visible at an offset.
    pub fn known_of(&self, name: &str, before: u32) -> Option<&Def> {
        self.defs()
            .iter()
            .rev()
            .find(|d| d.name == name && d.span.start <= before)
    }

    /// The comment lines right above a line, as a doc string. A comment block that starts the
    /// file is the file's header, not the doc of its first statement.
    pub fn doc_above(&self, offset: u32) -> Option<String> {
        let mut line = self.lines.line_of(offset);
        let mut docs = Vec::new();
        while line > 0 {
            line -= 1;
            let t = self.lines.line_text(&self.text, line).trim();
            match t.strip_prefix('#') {
                Some(c) => docs.push(c.trim().to_string()),
                None => {
                    line += 1;
                    break;
                }
            }
        }
        docs.reverse();
        (!docs.is_empty() && line > 0).then(|| docs.join("\n"))
    }
}

/// A name in scope at the cursor.
#[derive(Clone, Debug)]
pub struct Visible {
    pub name: String,
    pub span: Span,
    pub param: bool,
}

fn push_pattern(p: &Pattern, param: bool, out: &mut Vec<Visible>) {
    let mut names = Vec::new();
    p.names(&mut names);
    for id in names {
        out.push(Visible {
            name: id.name.clone(),
            span: id.span,
            param,
        });
    }
}

fn push_params(ps: &Params, out: &mut Vec<Visible>) {
    match ps {
        Params::Name(id) => out.push(Visible {
            name: id.name.clone(),
            span: id.span,
            param: true,
        }),
        Params::Unit(_) => {}
        Params::List(list, _) => {
            for p in list {
                match p {
                    Param::Pat(p) => push_pattern(p, true, out),
                    Param::Amp(id) => out.push(Visible {
                        name: id.name.clone(),
                        span: id.span,
                        param: true,
                    }),
                }
            }
        }
    }
}

fn inside(span: Span, offset: u32) -> bool {
    span.start <= offset && offset <= span.end
}

fn block_span(b: &Block) -> Option<Span> {
    Some(b.items.first()?.span.to(b.items.last()?.span))
}

fn scope_in_block(
    a: &Analysis,
    b: &Block,
    offset: u32,
    cursor_indent: u32,
    out: &mut Vec<Visible>,
) {
    let n = b.items.len();
    for (i, item) in b.items.iter().enumerate() {
        if item.span.start > offset {
            break;
        }
        // The cursor may sit on an empty line below the last item of a nested body: it is in
        // that body when it is indented deeper than the item that opens it.
        let last_before = i + 1 == n || b.items[i + 1].span.start > offset;
        let deeper = last_before && cursor_indent > a.column(item.span.start);
        if inside(item.span, offset) || deeper {
            scope_in_item(a, item, offset, cursor_indent, out);
            if !deeper || inside(item.span, offset) {
                return;
            }
        }
        match &item.kind {
            ItemKind::Bind(p, _) => push_pattern(p, false, out),
            ItemKind::Aug(id, _, _) | ItemKind::Rec(id, _) => out.push(Visible {
                name: id.name.clone(),
                span: id.span,
                param: false,
            }),
            ItemKind::Extern(ids, _) => ids.iter().for_each(|id| {
                out.push(Visible {
                    name: id.name.clone(),
                    span: id.span,
                    param: false,
                })
            }),
            _ => {}
        }
    }
}

fn scope_in_item(a: &Analysis, item: &Item, offset: u32, ci: u32, out: &mut Vec<Visible>) {
    let nested = |b: &Block, out: &mut Vec<Visible>| {
        if block_span(b).is_some_and(|s| inside(s, offset) || offset > s.end) {
            scope_in_block(a, b, offset, ci, out);
        }
    };
    match &item.kind {
        ItemKind::Bind(_, e) | ItemKind::Ret(e) | ItemKind::Expr(e) | ItemKind::Aug(_, _, e) => {
            scope_in_expr(a, e, offset, ci, out)
        }
        ItemKind::Rec(id, e) => {
            out.push(Visible {
                name: id.name.clone(),
                span: id.span,
                param: false,
            });
            scope_in_expr(a, e, offset, ci, out);
        }
        ItemKind::For(p, e, body)
            if block_span(body).is_some_and(|s| offset >= s.start) || offset > e.span.end =>
        {
            push_pattern(p, false, out);
            nested(body, out);
        }
        ItemKind::If(branches, els) => {
            for (_, body) in branches.iter().rev() {
                if block_span(body).is_some_and(|s| offset >= s.start) {
                    nested(body, out);
                    return;
                }
            }
            if let Some(b) = els {
                nested(b, out);
            }
        }
        ItemKind::While(_, body) | ItemKind::DoWhile(body, _) => {
            nested(body, out);
        }
        _ => {}
    }
}

fn scope_in_expr(a: &Analysis, e: &Expr, offset: u32, ci: u32, out: &mut Vec<Visible>) {
    if !inside(e.span, offset) && !matches!(e.kind, ExprKind::Fun(_, FunBody::Block(_))) {
        return;
    }
    match &e.kind {
        ExprKind::Fun(ps, body) => {
            push_params(ps, out);
            match body {
                FunBody::Expr(x) => scope_in_expr(a, x, offset, ci, out),
                FunBody::Block(b) => scope_in_block(a, b, offset, ci, out),
            }
        }
        ExprKind::Paren(x) | ExprKind::Prj(_, x) | ExprKind::Not(x) | ExprKind::Neg(x) => {
            scope_in_expr(a, x, offset, ci, out)
        }
        ExprKind::Tuple(xs) | ExprKind::List(xs) => {
            xs.iter().for_each(|x| scope_in_expr(a, x, offset, ci, out))
        }
        ExprKind::Binary(_, x, y) | ExprKind::App(x, y) => {
            scope_in_expr(a, x, offset, ci, out);
            scope_in_expr(a, y, offset, ci, out);
        }
        _ => e
            .sugar_children()
            .into_iter()
            .for_each(|x| scope_in_expr(a, x, offset, ci, out)),
    }
}

/// A one-line description of what a name is, for hover and completion details.
pub fn describe_known(k: &Known) -> String {
    match k {
        Known::Fun(Some(0)) => "function of ()".into(),
        Known::Fun(Some(n)) => format!("function of a {n}-tuple"),
        Known::Fun(None) => "function".into(),
        Known::Tuple(n) => format!("{n}-tuple"),
        Known::Prim => "primitive".into(),
        Known::Ext(e) => format!("external `{e}`"),
        Known::Handle => "handle".into(),
        Known::List => "list".into(),
        Known::Dict => "dictionary".into(),
        Known::Unknown => "value".into(),
    }
}

/// The prelude source of a definition's first line (`map := fun (l, f):`).
pub fn prelude_signature(name: &str) -> Option<String> {
    let d = prelude::def(name)?;
    let src = prelude::SOURCE.get(d.span.range())?;
    Some(
        src.lines()
            .next()
            .unwrap_or("")
            .trim_end_matches(':')
            .to_string(),
    )
}

/// The parameter list of a function, as written (`(l, f)`), for signature help.
pub fn params_text(src: &str, ps: &Params) -> (String, Vec<String>) {
    let span = match ps {
        Params::Name(id) => id.span,
        Params::Unit(s) | Params::List(_, s) => *s,
    };
    let whole = src.get(span.range()).unwrap_or("").to_string();
    let parts = match ps {
        Params::Name(id) => vec![id.name.clone()],
        Params::Unit(_) => vec![],
        Params::List(list, _) => list
            .iter()
            .map(|p| match p {
                Param::Pat(p) => src.get(p.span().range()).unwrap_or("").to_string(),
                Param::Amp(id) => format!("&{}", id.name),
            })
            .collect(),
    };
    (whole, parts)
}

/// Splits a signature like `add (a, b) -> number` into its parameters.
pub fn sig_params(sig: &str) -> Vec<String> {
    let Some(open) = sig.find('(') else {
        return sig
            .split_whitespace()
            .nth(1)
            .filter(|p| *p != "->")
            .map(|p| vec![p.to_string()])
            .unwrap_or_default();
    };
    let close = sig[open..].find(')').map(|c| open + c).unwrap_or(sig.len());
    sig[open + 1..close]
        .split(',')
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

pub fn external_doc(name: &str) -> Option<(&'static str, &'static str, &'static str)> {
    externals::standard(name).map(|e| (e.sig, e.doc, e.kind.as_str()))
}

/// W0003 when the world file beside the program does not parse: its own errors (E0200) are in
/// that file, and "no entry" would send the user to add one that may well be there.
fn broken_world(program: &opal_core::desugar::Program) -> Vec<Diagnostic> {
    let described = |name: &str| opal_core::externals::standard(name).is_some();
    let unread = program.externs.iter().filter(|(name, _)| !described(name));
    unread
        .map(|(name, span)| {
            Diagnostic::warning("W0003", *span, format!("`{name}` has no readable world entry: the world file beside this program has errors"))
                .with_help("fix the errors shown in the world file (NAME.world.toml); until then calls to it fail")
        })
        .collect()
}
