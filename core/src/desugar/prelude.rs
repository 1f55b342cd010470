//! The prelude (LANGUAGE.md §4), written in OPAL in `prelude.opal` and desugared once.
//! Only the definitions a program uses, transitively, join its initial term (labels `0.k`).

use super::Desugarer;
use crate::externals;
use crate::ir::{Op, Prim, Stmt};
use crate::names::Name;
use crate::span::Span;
use crate::syntax::parser::parse;
use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

pub const SOURCE: &str = include_str!("../prelude.opal");

/// The prelude's list functions and the shape of what each takes, in the words errors use:
/// E0108 (a function where the list goes) and the runtime note on an error inside a call a
/// program wrote (`machine::Machine::library_call_of`) both read this one table.
pub const SHAPES: &[(&str, &str)] = &[
    ("map", "(list, function)"),
    ("filter", "(list, function)"),
    ("fold", "(list, initial value, function)"),
    ("sort_by", "(list, key function)"),
    ("join_str", "(list, separator)"),
    ("concat", "(list, list)"),
    ("length", "a list"),
    ("reverse", "a list"),
    ("is_empty", "a list"),
];

/// What the prelude list function `name` takes (`SHAPES`).
pub fn shape(name: &str) -> Option<&'static str> {
    SHAPES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

pub struct PreludeDef {
    pub name: String,
    pub stmts: Vec<Stmt>,
    pub deps: Vec<String>,
    pub arity: Option<usize>,
    /// The source span of the definition in `prelude.opal`.
    pub span: Span,
}

struct Prelude {
    defs: Vec<PreludeDef>,
    names: Vec<&'static str>,
}

fn prelude() -> &'static Prelude {
    static P: OnceLock<Prelude> = OnceLock::new();
    P.get_or_init(|| {
        let parsed = parse(SOURCE);
        debug_assert!(parsed.diags.is_empty(), "prelude parse: {:?}", parsed.diags);
        let (defs, diags) = Desugarer::new(true).prelude_defs(&parsed.block);
        debug_assert!(
            diags.iter().all(|d| !d.is_error()),
            "prelude desugar: {diags:?}"
        );
        let all: HashSet<String> = defs.iter().map(|d| d.0.clone()).collect();
        let spans: Vec<Span> = parsed.block.items.iter().map(|i| i.span).collect();
        let defs: Vec<PreludeDef> = defs
            .into_iter()
            .zip(spans)
            .map(|((name, mut stmts, deps, arity), span)| {
                // Prelude code has no place in a program's text: spans into `prelude.opal`
                // would point a debugger at unrelated lines of the program.
                stmts.iter_mut().for_each(forget_spans);
                let deps = deps
                    .into_iter()
                    .filter(|d| all.contains(d) || externals::standard(d).is_some())
                    .collect();
                PreludeDef {
                    name,
                    stmts,
                    deps,
                    arity,
                    span,
                }
            })
            .collect();
        let names = defs
            .iter()
            .map(|d| &*Box::leak(d.name.clone().into_boxed_str()))
            .collect();
        Prelude { defs, names }
    })
}

fn forget_spans(s: &mut Stmt) {
    s.span = Span::default();
    if let Op::Fun(f) = &mut s.op {
        f.body.stmts.iter_mut().for_each(forget_spans);
    }
}

pub fn names() -> &'static [&'static str] {
    &prelude().names
}

pub fn defs() -> &'static [PreludeDef] {
    &prelude().defs
}

pub fn def(name: &str) -> Option<&'static PreludeDef> {
    prelude().defs.iter().find(|d| d.name == name)
}

pub fn arity(name: &str) -> Option<usize> {
    def(name).and_then(|d| d.arity)
}

/// The environment statements for the names a program uses: externals and handles first,
/// then prelude definitions in prelude order (each after what it uses).
pub fn environment(used: &crate::names::FastSet<String>, externs: &[(String, Span)]) -> Vec<Stmt> {
    let mut need: crate::names::FastSet<String> = used.clone();
    let mut work: Vec<String> = used.iter().cloned().collect();
    while let Some(n) = work.pop() {
        if externs.iter().any(|(e, _)| *e == n) {
            continue;
        }
        if let Some(d) = def(&n) {
            for dep in &d.deps {
                if need.insert(dep.clone()) {
                    work.push(dep.clone());
                }
            }
        }
    }
    let mut out = Vec::new();
    let prim = |name: &str, p: Prim| Stmt {
        bind: Name::plain(name),
        op: Op::Prim(p),
        span: Span::default(),
    };
    for (e, _) in externs {
        if need.contains(e) {
            out.push(prim(e, Prim::Ext(Arc::from(e.as_str()))));
        }
    }
    for e in externals::STANDARD {
        if need.contains(e.name) && !externs.iter().any(|(x, _)| x == e.name) {
            out.push(prim(e.name, Prim::Ext(Arc::from(e.name))));
        }
    }
    for (h, _) in externals::HANDLES {
        if need.contains(*h) {
            out.push(prim(h, Prim::Handle(Arc::from(*h))));
        }
    }
    // The first sequencing token of a program with ordered calls.
    if need.contains(crate::ir::SEQ_TOKEN) {
        out.push(prim(
            crate::ir::SEQ_TOKEN,
            Prim::Handle(Arc::from(crate::ir::SEQ_TOKEN)),
        ));
    }
    for d in defs() {
        if need.contains(&d.name) && !externs.iter().any(|(x, _)| *x == d.name) {
            out.extend(d.stmts.iter().cloned());
        }
    }
    out
}
