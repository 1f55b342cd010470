//! Python's names belong to a function (or the module), not to a block: `r = ask(q)` inside a
//! `try` in a retry loop is read after the loop. An OPAL block keeps what it binds unless the
//! name was bound before it, so a name first bound inside a compound statement (`if`, `for`,
//! `while`, `try`, `with`) and read after it is bound just before it to `py_unbound "r"`: a
//! marker every library function refuses with Python's `NameError`, which a path through the
//! statement that assigns the name replaces. A `for` loop's own target read after the loop
//! (`for x in xs: if …: break` then `x`) is bound so too, and the loop binds a fresh name
//! (`x_item`) that its body's first statement assigns to `x`, since an OPAL loop binds its
//! pattern afresh in each iteration.

use super::Lower;
use crate::syntax::ast::{Item, ItemKind, Pattern};
use ruff_python_ast as py;
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use std::collections::{BTreeSet, HashMap, HashSet};

/// The names to bind before each compound statement, and the targets of `for` loops read
/// after them, each by the statement's start offset.
#[derive(Default)]
pub(super) struct Prebind {
    before: HashMap<u32, Vec<String>>,
    targets: HashMap<u32, Vec<String>>,
}

/// The names to bind before the compound statements of the script, in every function too.
pub(super) fn plan(body: &[py::Stmt]) -> Prebind {
    let mut out = Prebind::default();
    block(body, HashSet::new(), &mut out);
    out
}

/// Plans `stmts`, a block entered with the names `bound` already bound.
fn block(stmts: &[py::Stmt], mut bound: HashSet<String>, out: &mut Prebind) {
    for (i, s) in stmts.iter().enumerate() {
        let sub: Vec<&[py::Stmt]> = match s {
            py::Stmt::If(x) => std::iter::once(&x.body[..])
                .chain(x.elif_else_clauses.iter().map(|c| &c.body[..]))
                .collect(),
            py::Stmt::For(f) => vec![&f.body, &f.orelse],
            py::Stmt::While(w) => vec![&w.body, &w.orelse],
            py::Stmt::With(w) => vec![&w.body],
            py::Stmt::Try(t) => {
                let handlers = t.handlers.iter().map(|h| match h {
                    py::ExceptHandler::ExceptHandler(h) => &h.body[..],
                });
                [&t.body[..], &t.orelse, &t.finalbody]
                    .into_iter()
                    .chain(handlers)
                    .collect()
            }
            py::Stmt::FunctionDef(f) => {
                bound.insert(f.name.to_string());
                let p = &f.parameters;
                let params = (p.posonlyargs.iter().chain(&p.args).chain(&p.kwonlyargs))
                    .map(|a| a.parameter.name.to_string())
                    .chain(p.vararg.iter().map(|a| a.name.to_string()))
                    .chain(p.kwarg.iter().map(|a| a.name.to_string()));
                block(&f.body, params.collect(), out);
                continue;
            }
            simple => {
                bound.extend(assigned(std::slice::from_ref(simple)));
                continue;
            }
        };
        let later = read(&stmts[i + 1..]);
        let mut inside: BTreeSet<String> = sub.iter().flat_map(|b| assigned(b)).collect();
        let start: u32 = ruff_text_size::Ranged::range(s).start().into();
        if let py::Stmt::For(f) = s {
            let read_after: Vec<String> = assigned_by(&f.target)
                .into_iter()
                .filter(|t| later.contains(t))
                .collect();
            if !read_after.is_empty() {
                out.targets.insert(start, read_after.clone());
            }
            inside.extend(read_after);
        }
        let need: Vec<String> = inside
            .into_iter()
            .filter(|n| !bound.contains(n) && later.contains(n))
            .collect();
        bound.extend(need.iter().cloned());
        if !need.is_empty() {
            out.before.insert(start, need);
        }
        for b in sub {
            block(b, bound.clone(), out);
        }
    }
}

/// The names assignments in `stmts` bind (inside nested blocks too, not inside functions,
/// classes, lambdas or comprehensions, which have their own).
fn assigned(stmts: &[py::Stmt]) -> BTreeSet<String> {
    #[derive(Default)]
    struct Stores(BTreeSet<String>);
    impl<'a> Visitor<'a> for Stores {
        fn visit_stmt(&mut self, s: &'a py::Stmt) {
            match s {
                py::Stmt::FunctionDef(f) => {
                    self.0.insert(f.name.to_string());
                }
                py::Stmt::ClassDef(c) => {
                    self.0.insert(c.name.to_string());
                }
                _ => walk_stmt(self, s),
            }
        }
        fn visit_expr(&mut self, e: &'a py::Expr) {
            match e {
                py::Expr::Name(n) if n.ctx == py::ExprContext::Store => {
                    self.0.insert(n.id.to_string());
                }
                py::Expr::Lambda(_)
                | py::Expr::ListComp(_)
                | py::Expr::SetComp(_)
                | py::Expr::DictComp(_)
                | py::Expr::Generator(_) => {}
                _ => walk_expr(self, e),
            }
        }
        fn visit_except_handler(&mut self, h: &'a py::ExceptHandler) {
            // `except E as e`: Python deletes `e` when the clause ends.
            let py::ExceptHandler::ExceptHandler(h) = h;
            h.body.iter().for_each(|s| self.visit_stmt(s));
        }
    }
    let mut v = Stores::default();
    stmts.iter().for_each(|s| v.visit_stmt(s));
    v.0
}

/// The names an assignment target binds.
fn assigned_by(target: &py::Expr) -> BTreeSet<String> {
    let stmt = py::Stmt::Expr(py::StmtExpr {
        node_index: Default::default(),
        range: Default::default(),
        value: Box::new(target.clone()),
    });
    assigned(std::slice::from_ref(&stmt))
}

/// The names `stmts` read, anywhere inside them (functions and comprehensions too).
fn read(stmts: &[py::Stmt]) -> HashSet<String> {
    #[derive(Default)]
    struct Loads(HashSet<String>);
    impl<'a> Visitor<'a> for Loads {
        fn visit_expr(&mut self, e: &'a py::Expr) {
            if let py::Expr::Name(n) = e {
                if n.ctx == py::ExprContext::Load {
                    self.0.insert(n.id.to_string());
                }
            }
            walk_expr(self, e);
        }
    }
    let mut v = Loads::default();
    stmts.iter().for_each(|s| v.visit_stmt(s));
    v.0
}

impl Lower {
    /// The bindings `plan` asks for before `s`: `r = py_unbound "r"`.
    pub(super) fn prebinding(&self, s: &py::Stmt) -> Vec<Item> {
        let start: u32 = ruff_text_size::Ranged::range(s).start().into();
        let Some(names) = self.prebind.before.get(&start) else {
            return Vec::new();
        };
        let at = super::span(ruff_text_size::Ranged::range(s));
        names
            .iter()
            .map(|n| {
                let marker = super::expr::call("py_unbound", vec![super::expr::str_lit(n, at)], at);
                let bind = ItemKind::Bind(Pattern::Name(super::expr::ident(n, at)), marker);
                super::stmt::item(bind, at)
            })
            .collect()
    }
}

impl Lower {
    /// The `for` loop `f`'s targets that are read after it, each with the fresh name the loop
    /// binds instead (`x_item`; `prebind`'s module comment says why).
    pub(super) fn carried_targets(&mut self, f: &py::StmtFor) -> Vec<(String, String)> {
        let start: u32 = ruff_text_size::Ranged::range(f).start().into();
        let Some(names) = self.prebind.targets.get(&start).cloned() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for n in names {
            let mut fresh = format!("{n}_item");
            while self.names.contains(&fresh) {
                fresh.push('_');
            }
            self.names.insert(fresh.clone());
            out.push((n, fresh));
        }
        out
    }
}

/// `target = fresh` (in Python's syntax tree, at the target's place), the first statement of
/// a loop body whose target is read after the loop.
pub(super) fn assign_from(target: &str, fresh: &str, at: ruff_text_size::TextRange) -> py::Stmt {
    let name = |id: &str, ctx| {
        py::Expr::Name(py::ExprName {
            node_index: Default::default(),
            range: at,
            id: id.into(),
            ctx,
        })
    };
    py::Stmt::Assign(py::StmtAssign {
        node_index: Default::default(),
        range: at,
        targets: vec![name(target, py::ExprContext::Store)],
        value: Box::new(name(fresh, py::ExprContext::Load)),
    })
}

/// `p` with the names `renamed` gives renamed.
pub(super) fn rename(p: Pattern, renamed: &[(String, String)]) -> Pattern {
    match p {
        Pattern::Name(mut id) => {
            if let Some((_, fresh)) = renamed.iter().find(|(n, _)| *n == id.name) {
                id.name = fresh.clone();
            }
            Pattern::Name(id)
        }
        Pattern::Tuple(ps, at) => {
            Pattern::Tuple(ps.into_iter().map(|p| rename(p, renamed)).collect(), at)
        }
        other => other,
    }
}
