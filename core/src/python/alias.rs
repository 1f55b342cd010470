//! Which names may share their list with another holder. Python's `xs.append(v)` changes the
//! one list object every holder sees; the front end rewrites it to `xs += [v]`, a new list
//! bound to `xs`, which means the same only while nothing else holds `xs`'s list. A name is
//! shared (and appending to it refused, with the place it escaped) when the script binds it to
//! another name, puts it in a container, passes it to a function the script defines, returns
//! it from a function that did not bind it, or when it is a function's parameter (the caller
//! holds the list).

use super::span;
use crate::span::Span;
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{self as py};
use std::collections::{HashMap, HashSet};

/// The shared names, each with where it escaped first.
pub(super) fn shared_names(body: &[py::Stmt]) -> HashMap<String, Span> {
    let mut functions = HashSet::new();
    for s in body {
        if let py::Stmt::FunctionDef(f) = s {
            if f.decorator_list.is_empty() {
                functions.insert(f.name.to_string());
            }
        }
    }
    let mut v = Escapes {
        functions,
        shared: HashMap::new(),
        locals: Vec::new(),
    };
    for s in body {
        v.visit_stmt(s);
    }
    v.shared
}

/// The names a function body binds by assignment (its locals, as far as a return is
/// concerned; parameters are shared anyway).
fn bound_in(body: &[py::Stmt]) -> HashSet<String> {
    #[derive(Default)]
    struct Bound(HashSet<String>);
    impl<'a> Visitor<'a> for Bound {
        fn visit_expr(&mut self, e: &'a py::Expr) {
            if let py::Expr::Name(n) = e {
                if n.ctx == py::ExprContext::Store {
                    self.0.insert(n.id.to_string());
                }
            }
            walk_expr(self, e);
        }
    }
    let mut b = Bound::default();
    body.iter().for_each(|s| b.visit_stmt(s));
    b.0
}

struct Escapes {
    /// The script's own functions (not externals: an external gets a copy of its argument).
    functions: HashSet<String>,
    shared: HashMap<String, Span>,
    /// The names bound in each function being walked, innermost last.
    locals: Vec<HashSet<String>>,
}

impl Escapes {
    fn escape(&mut self, e: &py::Expr) {
        match e {
            py::Expr::Name(n) => {
                self.shared
                    .entry(n.id.to_string())
                    .or_insert_with(|| span(n.range));
            }
            py::Expr::Tuple(t) => t.elts.iter().for_each(|x| self.escape(x)),
            py::Expr::List(l) => l.elts.iter().for_each(|x| self.escape(x)),
            _ => {}
        }
    }
}

impl<'a> Visitor<'a> for Escapes {
    fn visit_stmt(&mut self, s: &'a py::Stmt) {
        match s {
            py::Stmt::Assign(a) => self.escape(&a.value),
            py::Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    self.escape(v);
                }
            }
            // Returning a list the function made hands it over: the function is done with it
            // (each call makes its own). Returning one from outside shares it with the caller.
            py::Stmt::Return(r) => {
                if let Some(v) = &r.value {
                    let local = |n: &str| self.locals.last().is_some_and(|l| l.contains(n));
                    if !matches!(&**v, py::Expr::Name(n) if local(n.id.as_str())) {
                        self.escape(v);
                    }
                }
            }
            py::Stmt::FunctionDef(f) => {
                let p = &f.parameters;
                for a in p.posonlyargs.iter().chain(&p.args).chain(&p.kwonlyargs) {
                    let name = &a.parameter.name;
                    self.shared
                        .entry(name.to_string())
                        .or_insert_with(|| span(name.range));
                }
                self.locals.push(bound_in(&f.body));
                walk_stmt(self, s);
                self.locals.pop();
                return;
            }
            _ => {}
        }
        walk_stmt(self, s);
    }

    fn visit_expr(&mut self, e: &'a py::Expr) {
        match e {
            py::Expr::List(l) => l.elts.iter().for_each(|x| self.escape(x)),
            py::Expr::Tuple(t) => t.elts.iter().for_each(|x| self.escape(x)),
            py::Expr::Dict(d) => d.items.iter().for_each(|i| self.escape(&i.value)),
            py::Expr::Call(c) => {
                if matches!(&*c.func, py::Expr::Name(n) if self.functions.contains(n.id.as_str())) {
                    c.arguments.args.iter().for_each(|x| self.escape(x));
                }
            }
            _ => {}
        }
        walk_expr(self, e);
    }
}
