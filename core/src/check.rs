//! Well-formedness of core terms (paper Appendix A, SEMANTICS.md §1).

use crate::desugar::Program;
use crate::ir::{Expr, Op, Stmt};
use crate::names::{Name, NameTable};
use crate::span::Span;

/// Checks that every variable used is bound earlier in the same or an enclosing scope, and
/// that no binder rebinds a name in scope. Returns one message per violation, with the span of
/// the source that the offending core statement came from.
pub fn well_formed(p: &Program) -> Vec<(String, Span)> {
    let mut wf = Wf {
        bound: NameTable::new(4 * p.size() + 64),
        open: vec![true],
        errs: Vec::new(),
        at: Span::default(),
    };
    for s in &p.env {
        wf.stmt(s, 0);
    }
    wf.expr(&p.body, 0);
    wf.errs
}

/// Scopes are function bodies, numbered as they open; a name is in scope when the scope that
/// bound it last is still open. Closing a scope is O(1): nothing is removed from `bound`.
struct Wf {
    bound: NameTable<u32>,
    open: Vec<bool>,
    errs: Vec<(String, Span)>,
    /// Span of the statement being checked.
    at: Span,
}

impl Wf {
    fn in_scope(&self, x: &Name) -> bool {
        self.bound.get(*x).is_some_and(|s| self.open[s as usize])
    }

    fn use_var(&mut self, x: &Name) {
        if !self.in_scope(x) {
            self.errs
                .push((format!("`{x}` is used but not bound"), self.at));
        }
    }

    fn bind(&mut self, x: Name, scope: u32) {
        if self.in_scope(&x) {
            self.errs
                .push((format!("`{x}` is bound twice in one scope"), self.at));
        }
        self.bound.insert(x, scope);
    }

    fn stmt(&mut self, s: &Stmt, scope: u32) {
        self.at = s.span;
        match &s.op {
            Op::Alias(y) | Op::Prj(_, y) => self.use_var(y),
            Op::Call(f, x) => {
                self.use_var(f);
                self.use_var(x);
            }
            Op::Tuple(xs) => xs.iter().for_each(|x| self.use_var(x)),
            Op::Prim(_) => {}
            Op::Fun(f) => {
                let inner = self.open.len() as u32;
                self.open.push(true);
                self.bind(f.param, inner);
                self.expr(&f.body, inner);
                self.open[inner as usize] = false;
                self.at = s.span;
            }
        }
        self.bind(s.bind, scope);
    }

    fn expr(&mut self, e: &Expr, scope: u32) {
        for s in &e.stmts {
            self.stmt(s, scope);
        }
        match &e.ret {
            Some(r) => self.use_var(r),
            None => self
                .errs
                .push(("expression without a return variable".into(), self.at)),
        }
    }
}
