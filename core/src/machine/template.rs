//! Function bodies as templates: copying one at reduce-call costs O(body), and free
//! variables live in the closure's environment, so reduce-alias rewrites only that.

use crate::ir::{Expr, Fun, Op, Prim};
use crate::names::FastMap as HashMap;
use crate::names::{Name, NameTable};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TVar {
    /// Index into the closure's environment.
    Free(u32),
    /// Index into the template's binders; 0 is the parameter.
    Local(u32),
}

/// An operation of a template. Twenty bytes: what does not fit (tuple components,
/// primitives, nested functions) lives in side tables of the template, so a long body (a list
/// literal's 3·10^5 statements) is one allocation per table, not one per statement.
#[derive(Clone, Copy, Debug)]
pub enum TOp {
    Alias(TVar),
    /// `Template::funs[i]`: the nested function's template and its captures.
    Fun(u32),
    Call(TVar, TVar),
    /// `Template::vars[start..start + len]`.
    Tuple(u32, u32),
    Prj(u32, TVar),
    /// `Template::prims[i]`.
    Prim(u32),
}

#[derive(Clone, Copy, Debug)]
pub struct TStmt {
    pub local: u32,
    pub op: TOp,
    /// Where the statement was written (the start of its span; `NONE` if nowhere), with the
    /// `LIBRARY_CALL` mark on a call of a prelude list function the program wrote
    /// (`Program::library_calls`): what `StmtNode::at` of its copies starts as.
    pub at: u32,
}

#[derive(Debug, Default)]
pub struct Template {
    /// Binder names; `names[0]` is the parameter.
    pub names: Vec<Name>,
    pub stmts: Vec<TStmt>,
    pub ret: TVar,
    /// Names of the free variables, in environment order (for printing and debugging).
    pub free: Vec<Name>,
    vars: Vec<TVar>,
    prims: Vec<Prim>,
    funs: Vec<(Arc<Template>, Vec<TVar>)>,
}

impl TStmt {
    /// The source offset the statement was written at, if it comes from the source.
    pub fn source_offset(&self) -> Option<u32> {
        (self.at != super::NONE).then_some(self.at & !super::LIBRARY_CALL)
    }
}

impl Default for TVar {
    fn default() -> TVar {
        TVar::Local(0)
    }
}

impl Template {
    /// An empty body with these binder names (`names[0]` is the parameter).
    pub fn with_names(names: Vec<Name>) -> Template {
        Template {
            names,
            ..Template::default()
        }
    }
    /// Appends `local := op`.
    pub fn push(&mut self, local: u32, op: TOp) {
        self.stmts.push(TStmt {
            local,
            op,
            at: super::NONE,
        });
    }
    pub fn tuple_op(&mut self, parts: impl IntoIterator<Item = TVar>) -> TOp {
        let start = self.vars.len();
        self.vars.extend(parts);
        TOp::Tuple(start as u32, (self.vars.len() - start) as u32)
    }
    pub fn prim_op(&mut self, p: Prim) -> TOp {
        self.prims.push(p);
        TOp::Prim(self.prims.len() as u32 - 1)
    }
    fn fun_op(&mut self, t: Arc<Template>, caps: Vec<TVar>) -> TOp {
        self.funs.push((t, caps));
        TOp::Fun(self.funs.len() as u32 - 1)
    }
    // The side tables are only indexed by operations the template itself made.

    /// A tuple's components (`TOp::Tuple`).
    pub fn tuple(&self, start: u32, len: u32) -> &[TVar] {
        &self.vars[start as usize..(start + len) as usize]
    }
    /// A primitive (`TOp::Prim`).
    pub fn prim(&self, i: u32) -> &Prim {
        &self.prims[i as usize]
    }
    /// A nested function and its captures (`TOp::Fun`).
    pub fn fun(&self, i: u32) -> (&Arc<Template>, &[TVar]) {
        let (t, caps) = &self.funs[i as usize];
        (t, caps)
    }
}

/// Compiles a function; its free variables resolve through `outer` into the returned capture list.
pub fn compile_fun(f: &Fun) -> (Arc<Template>, Vec<Name>) {
    compile_fun_marking(f, &[])
}

/// `compile_fun`, marking the calls whose span starts at one of `calls` (sorted offsets of the
/// program's calls of prelude list functions) as `TStmt::library_call`.
pub fn compile_fun_marking(f: &Fun, calls: &[(u32, u32)]) -> (Arc<Template>, Vec<Name>) {
    let mut binders = NameTable::new(4 * f.body.size() + 64);
    let mut next_id = 0;
    compile_in(f, &mut binders, &mut next_id, calls)
}

/// Compiles a closed expression (a resolution result) as a template whose parameter is unused.
pub fn compile_closed(e: &Expr) -> (Arc<Template>, Vec<Name>) {
    compile_fun(&Fun {
        param: Name::plain("_"),
        body: e.clone(),
    })
}

/// `binders` maps every binder seen so far, in this function and the ones nested in it, to
/// (template, local): names are unique in a desugared term, so one table serves them all.
fn compile_in(
    f: &Fun,
    binders: &mut NameTable<(u32, u32)>,
    next_id: &mut u32,
    calls: &[(u32, u32)],
) -> (Arc<Template>, Vec<Name>) {
    let id = *next_id;
    *next_id += 1;
    let mut names = Vec::with_capacity(f.body.stmts.len() + 1);
    names.push(f.param);
    binders.insert(f.param, (id, 0));
    let mut tpl = Template::with_names(names);
    tpl.stmts.reserve(f.body.stmts.len());
    let mut c = Compiler {
        id,
        tpl,
        free_idx: HashMap::default(),
    };
    c.expr_stmts(&f.body, binders, next_id, calls);
    c.tpl.ret = c.var(f.body.ret_name(), binders);
    let free = c.tpl.free.clone();
    (Arc::new(c.tpl), free)
}

struct Compiler {
    id: u32,
    /// The template being built; its `free` lists the free variables met so far.
    tpl: Template,
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
        let i = self.tpl.free.len() as u32;
        self.tpl.free.push(n);
        self.free_idx.insert(n, i);
        TVar::Free(i)
    }
    fn expr_stmts(
        &mut self,
        e: &Expr,
        binders: &mut NameTable<(u32, u32)>,
        next_id: &mut u32,
        calls: &[(u32, u32)],
    ) {
        for s in &e.stmts {
            let op = match &s.op {
                Op::Alias(y) => TOp::Alias(self.var(*y, binders)),
                Op::Call(f, x) => {
                    let f = self.var(*f, binders);
                    TOp::Call(f, self.var(*x, binders))
                }
                Op::Tuple(xs) => {
                    let start = self.tpl.vars.len();
                    for x in xs {
                        let v = self.var(*x, binders);
                        self.tpl.vars.push(v);
                    }
                    TOp::Tuple(start as u32, xs.len() as u32)
                }
                Op::Prj(i, x) => TOp::Prj(*i, self.var(*x, binders)),
                Op::Prim(p) => self.tpl.prim_op(p.clone()),
                Op::Fun(f) => {
                    let (t, caps) = compile_in(f, binders, next_id, calls);
                    let caps = caps.into_iter().map(|n| self.var(n, binders)).collect();
                    self.tpl.fun_op(t, caps)
                }
            };
            let local = self.tpl.names.len() as u32;
            self.tpl.names.push(s.bind);
            binders.insert(s.bind, (self.id, local));
            let at = super::marked_place(&s.op, s.span, calls);
            self.tpl.stmts.push(TStmt { local, op, at });
        }
    }
}
