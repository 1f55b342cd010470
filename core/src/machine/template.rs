//! Function bodies as templates: copying one at reduce-call costs O(body), and free
//! variables live in the closure's environment, so reduce-alias rewrites only that.

use crate::ir::{Expr, Fun, Op, Prim};
use crate::names::FastMap as HashMap;
use crate::names::{Name, NameTable};
use crate::span::Span;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TVar {
    /// Index into the closure's environment.
    Free(u32),
    /// Index into the template's binders; 0 is the parameter.
    Local(u32),
}

#[derive(Clone, Debug)]
pub enum TOp {
    Alias(TVar),
    Fun(Arc<Template>, Vec<TVar>),
    Call(TVar, TVar),
    Tuple(Vec<TVar>),
    Prj(u32, TVar),
    Prim(Prim),
}

#[derive(Clone, Debug)]
pub struct TStmt {
    pub local: u32,
    pub op: TOp,
    pub span: Span,
}

#[derive(Debug)]
pub struct Template {
    /// Binder names; `names[0]` is the parameter.
    pub names: Vec<Name>,
    pub stmts: Vec<TStmt>,
    pub ret: TVar,
    /// Names of the free variables, in environment order (for printing and debugging).
    pub free: Vec<Name>,
}

/// Compiles a function; its free variables resolve through `outer` into the returned capture list.
pub fn compile_fun(f: &Fun) -> (Arc<Template>, Vec<Name>) {
    let mut binders = NameTable::new(4 * f.body.size() + 64);
    let mut next_id = 0;
    compile_in(f, &mut binders, &mut next_id)
}

/// Compiles a closed expression (a resolution result) as a template whose parameter is unused.
pub fn compile_closed(e: &Expr) -> (Arc<Template>, Vec<Name>) {
    compile_fun(&Fun { param: Name::plain("_"), body: e.clone() })
}

/// `binders` maps every binder seen so far, in this function and the ones nested in it, to
/// (template, local): names are unique in a desugared term, so one table serves them all.
fn compile_in(f: &Fun, binders: &mut NameTable<(u32, u32)>, next_id: &mut u32) -> (Arc<Template>, Vec<Name>) {
    let id = *next_id;
    *next_id += 1;
    let mut names = Vec::with_capacity(f.body.stmts.len() + 1);
    names.push(f.param);
    binders.insert(f.param, (id, 0));
    let mut c = Compiler { id, names, free: Vec::new(), free_idx: HashMap::default() };
    let stmts = c.expr_stmts(&f.body, binders, next_id);
    let ret = c.var(f.body.ret_name(), binders);
    let free = c.free.clone();
    (Arc::new(Template { names: c.names, stmts, ret, free: c.free }), free)
}

struct Compiler {
    id: u32,
    names: Vec<Name>,
    free: Vec<Name>,
    free_idx: HashMap<Name, u32>,
}

impl Compiler {
    fn var(&mut self, n: Name, binders: &NameTable<(u32, u32)>) -> TVar {
        if let Some((owner, l)) = binders.get(n) {
            if owner == self.id {
                return TVar::Local(l);
            }
        }
        if let Some(&f) = self.free_idx.get(&n) {
            return TVar::Free(f);
        }
        let i = self.free.len() as u32;
        self.free.push(n);
        self.free_idx.insert(n, i);
        TVar::Free(i)
    }
    fn expr_stmts(&mut self, e: &Expr, binders: &mut NameTable<(u32, u32)>, next_id: &mut u32) -> Vec<crate::machine::template::TStmt> {
        let mut out = Vec::with_capacity(e.stmts.len());
        for s in &e.stmts {
            let op = match &s.op {
                Op::Alias(y) => TOp::Alias(self.var(*y, binders)),
                Op::Call(f, x) => {
                    let f = self.var(*f, binders);
                    TOp::Call(f, self.var(*x, binders))
                }
                Op::Tuple(xs) => TOp::Tuple(xs.iter().map(|x| self.var(*x, binders)).collect()),
                Op::Prj(i, x) => TOp::Prj(*i, self.var(*x, binders)),
                Op::Prim(p) => TOp::Prim(p.clone()),
                Op::Fun(f) => {
                    let (t, caps) = compile_in(f, binders, next_id);
                    let caps = caps.into_iter().map(|n| self.var(n, binders)).collect();
                    TOp::Fun(t, caps)
                }
            };
            let local = self.names.len() as u32;
            self.names.push(s.bind);
            binders.insert(s.bind, (self.id, local));
            out.push(TStmt { local, op, span: s.span });
        }
        out
    }
}
