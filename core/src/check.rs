//! Well-formedness of core terms (paper Appendix A, SEMANTICS.md §1).

use crate::desugar::Program;
use crate::ir::{Expr, Op, Stmt};
use crate::names::FastSet as HashSet;
use crate::names::Name;

/// Checks that every variable used is bound earlier in the same or an enclosing scope, and
/// that no binder rebinds a name in scope. Returns one message per violation.
pub fn well_formed(p: &Program) -> Vec<String> {
    let mut errs = Vec::new();
    let mut scope: Vec<Name> = Vec::new();
    let mut in_scope: HashSet<Name> = HashSet::default();
    for s in &p.env {
        stmt(s, &mut scope, &mut in_scope, &mut errs);
    }
    expr(&p.body, &mut scope, &mut in_scope, &mut errs);
    errs
}

fn use_var(x: &Name, in_scope: &HashSet<Name>, errs: &mut Vec<String>) {
    if !in_scope.contains(x) {
        errs.push(format!("`{x}` is used but not bound"));
    }
}

fn bind(x: Name, scope: &mut Vec<Name>, in_scope: &mut HashSet<Name>, errs: &mut Vec<String>) {
    if !in_scope.insert(x) {
        errs.push(format!("`{x}` is bound twice in one scope"));
    }
    scope.push(x);
}

fn stmt(s: &Stmt, scope: &mut Vec<Name>, in_scope: &mut HashSet<Name>, errs: &mut Vec<String>) {
    match &s.op {
        Op::Alias(y) | Op::Prj(_, y) => use_var(y, in_scope, errs),
        Op::Call(f, x) => {
            use_var(f, in_scope, errs);
            use_var(x, in_scope, errs);
        }
        Op::Tuple(xs) => xs.iter().for_each(|x| use_var(x, in_scope, errs)),
        Op::Prim(_) => {}
        Op::Fun(f) => {
            let mark = scope.len();
            bind(f.param, scope, in_scope, errs);
            expr(&f.body, scope, in_scope, errs);
            for x in scope.drain(mark..) {
                in_scope.remove(&x);
            }
        }
    }
    bind(s.bind, scope, in_scope, errs);
}

fn expr(e: &Expr, scope: &mut Vec<Name>, in_scope: &mut HashSet<Name>, errs: &mut Vec<String>) {
    let mark = scope.len();
    for s in &e.stmts {
        stmt(s, scope, in_scope, errs);
    }
    match &e.ret {
        Some(r) => use_var(r, in_scope, errs),
        None => errs.push("expression without a return variable".into()),
    }
    for x in scope.drain(mark..) {
        in_scope.remove(&x);
    }
}
