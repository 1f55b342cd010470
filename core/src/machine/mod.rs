//! The λ^O machine (SEMANTICS.md §2–§6): a labeled term as a graph of statement and
//! variable nodes with two-way maps, the six step rules, and steppability in words.
//!
//! Invariants (checked by `check_invariants` in tests): top-level statements are linked in
//! label order; labels are independent; every variable's use list contains every live
//! statement that mentions it; `count` equals the number of live mentions (+1 for the
//! return variable).

pub mod explore;
pub mod label;
pub mod print;
pub mod run;
pub mod template;
pub mod trace;

use crate::desugar::Program;
use crate::ir::{PExp, Prim};
use crate::names::Name;
use crate::span::Span;
use label::{LabelId, Labels, ROOT};
use std::sync::Arc;
use template::{compile_closed, compile_fun, TOp, TVar, Template};

pub use print::print_initial;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StmtId(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TaskId(pub u32);

const NONE: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct Closure {
    pub tpl: Arc<Template>,
    pub env: Vec<VarId>,
}

/// A top-level operation `o` of the running term.
#[derive(Clone, Debug)]
pub enum MOp {
    Alias(VarId),
    Fun(Closure),
    Call(VarId, VarId),
    Tuple(Vec<VarId>),
    Prj(u32, VarId),
    Prim(Prim),
    Task(TaskId),
}

impl MOp {
    fn for_each_var(&self, mut f: impl FnMut(VarId)) {
        match self {
            MOp::Alias(y) | MOp::Prj(_, y) => f(*y),
            MOp::Call(a, b) => {
                f(*a);
                f(*b)
            }
            MOp::Tuple(xs) => xs.iter().for_each(|x| f(*x)),
            MOp::Fun(c) => c.env.iter().for_each(|x| f(*x)),
            MOp::Prim(_) | MOp::Task(_) => {}
        }
    }
    fn for_each_var_mut(&mut self, mut f: impl FnMut(&mut VarId)) {
        match self {
            MOp::Alias(y) | MOp::Prj(_, y) => f(y),
            MOp::Call(a, b) => {
                f(a);
                f(b)
            }
            MOp::Tuple(xs) => xs.iter_mut().for_each(f),
            MOp::Fun(c) => c.env.iter_mut().for_each(f),
            MOp::Prim(_) | MOp::Task(_) => {}
        }
    }
    pub fn is_value(&self) -> bool {
        matches!(self, MOp::Fun(_) | MOp::Tuple(_) | MOp::Prim(_))
    }
}

#[derive(Clone, Debug)]
pub struct StmtNode {
    pub label: LabelId,
    pub bind: VarId,
    pub op: MOp,
    pub span: Span,
    prev: u32,
    next: u32,
    pub alive: bool,
}

#[derive(Clone, Debug)]
pub struct VarNode {
    pub name: Name,
    /// The label of the step that freshened this binder (`y@3.2`), if any.
    pub fresh: Option<LabelId>,
    pub binder: u32,
    uses: Vec<StmtId>,
    count: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    ReduceAlias,
    ReduceCall,
    ReduceProj,
    ReduceGc,
    Dispatch,
    Resolve,
}

impl Rule {
    pub const ALL: [Rule; 6] = [Rule::ReduceAlias, Rule::ReduceCall, Rule::ReduceProj, Rule::ReduceGc, Rule::Dispatch, Rule::Resolve];
    pub fn name(self) -> &'static str {
        match self {
            Rule::ReduceAlias => "reduce-alias",
            Rule::ReduceCall => "reduce-call",
            Rule::ReduceProj => "reduce-proj",
            Rule::ReduceGc => "reduce-gc",
            Rule::Dispatch => "dispatch",
            Rule::Resolve => "resolve",
        }
    }
}

/// What a statement can do now, in words a student understands.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    Steppable(Rule),
    /// A value (function, tuple or primitive) that is still used.
    Value,
    /// Cannot step yet: waiting for `on` (a variable) and why.
    Waiting {
        on: Option<VarId>,
        why: String,
    },
    /// A dispatched external call whose result has not arrived.
    Pending,
    /// Can never step: the program is wrong here, or its external call failed.
    Stuck(String),
}

/// The outcome of an external call, delivered to a task.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// A closed expression (compiled from OPAL source or built by a primitive).
    Expr(Arc<Template>, String),
    /// Some elements of a streamed list; `more` when a further task continues it.
    Partial {
        items: Vec<Prim>,
        more: bool,
    },
    Failed(String),
}

#[derive(Clone, Debug)]
pub struct TaskRec {
    pub stmt: StmtId,
    pub label: LabelId,
    pub ext: Arc<str>,
    pub arg: PExp,
    pub outcome: Option<Outcome>,
    /// For streaming externals: the stream this task continues.
    pub stream: Option<u32>,
    pub dispatched_at_ms: f64,
    pub resolved_at_ms: Option<f64>,
}

/// One step taken, for traces, the debugger and `opal step`.
#[derive(Clone, Debug)]
pub struct StepEvent {
    pub rule: Rule,
    pub label: LabelId,
    pub task: Option<TaskId>,
    /// Statements the step created (their labels are `label.1 …`).
    pub created: Vec<StmtId>,
}

#[derive(Clone)]
pub struct Machine {
    pub labels: Labels,
    pub stmts: Vec<StmtNode>,
    pub vars: Vec<VarNode>,
    pub tasks: Vec<TaskRec>,
    head: u32,
    tail: u32,
    pub ret: VarId,
    dirty: Vec<StmtId>,
    in_dirty: Vec<bool>,
    pub steps: [u64; 6],
    pub live: usize,
}

fn rule_idx(r: Rule) -> usize {
    Rule::ALL.iter().position(|x| *x == r).unwrap_or(0)
}

impl Machine {
    /// Builds the initial labeled term: environment statements `0.1 … 0.k`, then `1 … n`.
    pub fn new(p: &Program) -> Machine {
        let mut m = Machine {
            labels: Labels::default(),
            stmts: Vec::new(),
            vars: Vec::new(),
            tasks: Vec::new(),
            head: NONE,
            tail: NONE,
            ret: VarId(0),
            dirty: Vec::new(),
            in_dirty: Vec::new(),
            steps: [0; 6],
            live: 0,
        };
        let mut names: std::collections::HashMap<Name, VarId> = std::collections::HashMap::new();
        let zero = m.labels.child(ROOT, 0);
        let mut resolve = |m: &mut Machine, n: Name| -> VarId { *names.entry(n).or_insert_with(|| m.new_var(n, None)) };
        let top: Vec<(LabelId, &crate::ir::Stmt)> = {
            let mut v = Vec::new();
            for (i, s) in p.env.iter().enumerate() {
                v.push((m.labels.child(zero, i as u32 + 1), s));
            }
            for (i, s) in p.body.stmts.iter().enumerate() {
                v.push((m.labels.child(ROOT, i as u32 + 1), s));
            }
            v
        };
        for (label, s) in top {
            let op = match &s.op {
                crate::ir::Op::Alias(y) => MOp::Alias(resolve(&mut m, *y)),
                crate::ir::Op::Call(f, x) => {
                    let f = resolve(&mut m, *f);
                    MOp::Call(f, resolve(&mut m, *x))
                }
                crate::ir::Op::Tuple(xs) => MOp::Tuple(xs.iter().map(|x| resolve(&mut m, *x)).collect()),
                crate::ir::Op::Prj(i, x) => MOp::Prj(*i, resolve(&mut m, *x)),
                crate::ir::Op::Prim(c) => MOp::Prim(c.clone()),
                crate::ir::Op::Fun(f) => {
                    let (tpl, caps) = compile_fun(f);
                    MOp::Fun(Closure { tpl, env: caps.into_iter().map(|n| resolve(&mut m, n)).collect() })
                }
            };
            let bind = resolve(&mut m, s.bind);
            let id = m.push_stmt(label, bind, op, s.span);
            m.link_after(m.tail, id);
        }
        m.ret = resolve(&mut m, p.body.ret_name());
        m.vars[m.ret.0 as usize].count += 1;
        let all: Vec<StmtId> = m.iter().collect();
        for s in all {
            m.mark_dirty(s);
        }
        m
    }

    fn new_var(&mut self, name: Name, fresh: Option<LabelId>) -> VarId {
        self.vars.push(VarNode { name, fresh, binder: NONE, uses: Vec::new(), count: 0 });
        VarId(self.vars.len() as u32 - 1)
    }

    fn push_stmt(&mut self, label: LabelId, bind: VarId, op: MOp, span: Span) -> StmtId {
        let id = StmtId(self.stmts.len() as u32);
        op.for_each_var(|v| self.add_use(v, id));
        self.stmts.push(StmtNode { label, bind, op, span, prev: NONE, next: NONE, alive: true });
        self.in_dirty.push(false);
        self.vars[bind.0 as usize].binder = id.0;
        self.live += 1;
        id
    }

    fn add_use(&mut self, v: VarId, s: StmtId) {
        let var = &mut self.vars[v.0 as usize];
        var.count += 1;
        if var.uses.last() != Some(&s) {
            var.uses.push(s);
        }
        // Compact stale entries now and then so use lists stay O(live uses).
        if var.uses.len() > 2 * var.count as usize + 16 {
            let mut uses = std::mem::take(&mut self.vars[v.0 as usize].uses);
            uses.sort_unstable();
            uses.dedup();
            uses.retain(|u| self.stmts.get(u.0 as usize).map(|n| n.alive).unwrap_or(u.0 == s.0));
            self.vars[v.0 as usize].uses = uses;
        }
    }

    fn drop_use(&mut self, v: VarId) {
        let var = &mut self.vars[v.0 as usize];
        var.count = var.count.saturating_sub(1);
        if var.count == 0 && var.binder != NONE {
            let b = StmtId(var.binder);
            self.mark_dirty(b);
        }
    }

    fn link_after(&mut self, prev: u32, id: StmtId) {
        let next = if prev == NONE { self.head } else { self.stmts[prev as usize].next };
        self.stmts[id.0 as usize].prev = prev;
        self.stmts[id.0 as usize].next = next;
        if prev == NONE {
            self.head = id.0;
        } else {
            self.stmts[prev as usize].next = id.0;
        }
        if next == NONE {
            self.tail = id.0;
        } else {
            self.stmts[next as usize].prev = id.0;
        }
    }

    /// Removes a statement; returns the statement before it (for inserting replacements).
    fn remove(&mut self, id: StmtId) -> u32 {
        let (prev, next) = {
            let n = &mut self.stmts[id.0 as usize];
            n.alive = false;
            (n.prev, n.next)
        };
        if prev == NONE {
            self.head = next;
        } else {
            self.stmts[prev as usize].next = next;
        }
        if next == NONE {
            self.tail = prev;
        } else {
            self.stmts[next as usize].prev = prev;
        }
        let op = std::mem::replace(&mut self.stmts[id.0 as usize].op, MOp::Tuple(vec![]));
        op.for_each_var(|v| self.drop_use(v));
        let b = self.stmts[id.0 as usize].bind;
        if self.vars[b.0 as usize].binder == id.0 {
            self.vars[b.0 as usize].binder = NONE;
        }
        self.live -= 1;
        prev
    }

    pub fn mark_dirty(&mut self, s: StmtId) {
        if !self.in_dirty[s.0 as usize] {
            self.in_dirty[s.0 as usize] = true;
            self.dirty.push(s);
        }
    }

    /// Takes the statements that may have become steppable since the last call.
    pub fn take_dirty(&mut self) -> Vec<StmtId> {
        let d = std::mem::take(&mut self.dirty);
        for s in &d {
            self.in_dirty[s.0 as usize] = false;
        }
        d
    }

    /// The statements steppable at the start of an opportunistic round (paper Fig. 8).
    /// Every statement that became steppable since the last round is in the dirty set.
    pub fn round_candidates(&mut self) -> Vec<StmtId> {
        let dirty = self.take_dirty();
        dirty.into_iter().filter(|s| self.stmts[s.0 as usize].alive && matches!(self.status(*s), Status::Steppable(_))).collect()
    }

    /// Top-level statements in label order.
    pub fn iter(&self) -> impl Iterator<Item = StmtId> + '_ {
        let mut cur = self.head;
        std::iter::from_fn(move || {
            if cur == NONE {
                return None;
            }
            let id = StmtId(cur);
            cur = self.stmts[cur as usize].next;
            Some(id)
        })
    }

    pub fn first(&self) -> Option<StmtId> {
        (self.head != NONE).then_some(StmtId(self.head))
    }
    pub fn next_of(&self, s: StmtId) -> Option<StmtId> {
        let n = self.stmts[s.0 as usize].next;
        (n != NONE).then_some(StmtId(n))
    }

    pub fn stmt(&self, s: StmtId) -> &StmtNode {
        &self.stmts[s.0 as usize]
    }
    pub fn binder(&self, v: VarId) -> Option<StmtId> {
        let b = self.vars[v.0 as usize].binder;
        (b != NONE).then_some(StmtId(b))
    }
    pub fn label_of(&self, s: StmtId) -> String {
        self.labels.show(self.stmts[s.0 as usize].label)
    }
    pub fn use_count(&self, v: VarId) -> u32 {
        self.vars[v.0 as usize].count
    }
    pub fn steps_total(&self) -> u64 {
        self.steps.iter().sum()
    }
    pub fn steps_by(&self, r: Rule) -> u64 {
        self.steps[rule_idx(r)]
    }
    pub fn var_name(&self, v: VarId) -> String {
        let n = &self.vars[v.0 as usize];
        match n.fresh {
            Some(l) => format!("{}@{}", n.name, self.labels.show(l)),
            None => n.name.to_string(),
        }
    }

    // ---- steppability -----------------------------------------------------------------

    /// `x ↑E c̄`: the primitive expression x stands for, or what is missing.
    pub fn pexp(&self, x: VarId) -> Result<PExp, Status> {
        let Some(b) = self.binder(x) else {
            return Err(Status::Stuck(format!("`{}` is not bound", self.var_name(x))));
        };
        match &self.stmts[b.0 as usize].op {
            MOp::Prim(c) => Ok(PExp::Prim(c.clone())),
            MOp::Tuple(xs) => {
                let mut out = Vec::with_capacity(xs.len());
                for x in xs {
                    out.push(self.pexp(*x)?);
                }
                Ok(PExp::Tuple(out))
            }
            MOp::Fun(_) => {
                Err(Status::Stuck(format!("the argument contains a function (`{}`); externals take only primitives and tuples of them", self.var_name(x))))
            }
            _ => Err(Status::Waiting { on: Some(x), why: format!("waiting for `{}` to become a primitive value", self.var_name(x)) }),
        }
    }

    pub fn status(&self, s: StmtId) -> Status {
        let node = &self.stmts[s.0 as usize];
        if !node.alive {
            return Status::Stuck("this statement no longer exists".into());
        }
        match &node.op {
            MOp::Alias(_) => Status::Steppable(Rule::ReduceAlias),
            MOp::Fun(_) | MOp::Tuple(_) | MOp::Prim(_) => {
                if self.vars[node.bind.0 as usize].count == 0 {
                    Status::Steppable(Rule::ReduceGc)
                } else {
                    Status::Value
                }
            }
            MOp::Call(f, w) => {
                let Some(fb) = self.binder(*f) else {
                    return Status::Stuck(format!("`{}` is not bound", self.var_name(*f)));
                };
                match &self.stmts[fb.0 as usize].op {
                    MOp::Fun(_) => Status::Steppable(Rule::ReduceCall),
                    MOp::Prim(Prim::Ext(_)) => match self.pexp(*w) {
                        Ok(_) => Status::Steppable(Rule::Dispatch),
                        Err(st) => st,
                    },
                    MOp::Prim(p) => Status::Stuck(format!("`{}` is the primitive {p}, not a function, so it cannot be called", self.var_name(*f))),
                    MOp::Tuple(_) => Status::Stuck(format!("`{}` is a tuple, not a function, so it cannot be called", self.var_name(*f))),
                    MOp::Task(_) => {
                        Status::Waiting { on: Some(*f), why: format!("waiting for the external call that computes `{}` to resolve", self.var_name(*f)) }
                    }
                    _ => Status::Waiting { on: Some(*f), why: format!("waiting for `{}` to become a function", self.var_name(*f)) },
                }
            }
            MOp::Prj(i, x) => {
                let Some(xb) = self.binder(*x) else {
                    return Status::Stuck(format!("`{}` is not bound", self.var_name(*x)));
                };
                match &self.stmts[xb.0 as usize].op {
                    MOp::Tuple(xs) if (*i as usize) >= 1 && (*i as usize) <= xs.len() => Status::Steppable(Rule::ReduceProj),
                    MOp::Tuple(xs) => Status::Stuck(format!("`prj {i}` of a tuple with {} components", xs.len())),
                    MOp::Fun(_) => Status::Stuck(format!("`prj {i}` of a function (`{}`)", self.var_name(*x))),
                    MOp::Prim(p) => Status::Stuck(format!("`prj {i}` of the primitive {p}")),
                    _ => Status::Waiting { on: Some(*x), why: format!("waiting for `{}` to become a tuple", self.var_name(*x)) },
                }
            }
            MOp::Task(t) => match &self.tasks[t.0 as usize].outcome {
                None => Status::Pending,
                Some(Outcome::Failed(e)) => Status::Stuck(format!("the external call `{}` failed: {e}", self.tasks[t.0 as usize].ext)),
                Some(_) => Status::Steppable(Rule::Resolve),
            },
        }
    }

    // ---- the rules ----------------------------------------------------------------------

    /// Takes one step at `s` if it is steppable. Dispatch returns the new task; the caller
    /// starts the external call.
    pub fn step(&mut self, s: StmtId) -> Option<StepEvent> {
        let Status::Steppable(rule) = self.status(s) else { return None };
        let label = self.stmts[s.0 as usize].label;
        self.steps[rule_idx(rule)] += 1;
        let mut ev = StepEvent { rule, label, task: None, created: Vec::new() };
        match rule {
            Rule::ReduceAlias => self.reduce_alias(s),
            Rule::ReduceGc => {
                self.remove(s);
            }
            Rule::ReduceProj => {
                let (i, x) = match &self.stmts[s.0 as usize].op {
                    MOp::Prj(i, x) => (*i, *x),
                    _ => return None,
                };
                let xb = self.binder(x)?;
                let xi = match &self.stmts[xb.0 as usize].op {
                    MOp::Tuple(xs) => xs[i as usize - 1],
                    _ => return None,
                };
                ev.created = self.replace(s, vec![(None, MOp::Alias(xi))]);
            }
            Rule::ReduceCall => {
                let (f, w) = match &self.stmts[s.0 as usize].op {
                    MOp::Call(f, w) => (*f, *w),
                    _ => return None,
                };
                let fb = self.binder(f)?;
                let clo = match &self.stmts[fb.0 as usize].op {
                    MOp::Fun(c) => c.clone(),
                    _ => return None,
                };
                ev.created = self.inline(s, &clo, Some(w));
            }
            Rule::Dispatch => {
                let (f, w) = match &self.stmts[s.0 as usize].op {
                    MOp::Call(f, w) => (*f, *w),
                    _ => return None,
                };
                let ext = match self.binder(f).map(|b| &self.stmts[b.0 as usize].op) {
                    Some(MOp::Prim(Prim::Ext(e))) => e.clone(),
                    _ => return None,
                };
                let arg = self.pexp(w).ok()?;
                let t = TaskId(self.tasks.len() as u32);
                self.tasks.push(TaskRec { stmt: s, label, ext, arg, outcome: None, stream: None, dispatched_at_ms: 0.0, resolved_at_ms: None });
                let op = std::mem::replace(&mut self.stmts[s.0 as usize].op, MOp::Task(t));
                op.for_each_var(|v| self.drop_use(v));
                ev.task = Some(t);
            }
            Rule::Resolve => {
                let t = match &self.stmts[s.0 as usize].op {
                    MOp::Task(t) => *t,
                    _ => return None,
                };
                ev.task = Some(t);
                let outcome = self.tasks[t.0 as usize].outcome.clone()?;
                ev.created = match outcome {
                    Outcome::Expr(tpl, _) => self.inline(s, &Closure { tpl, env: vec![] }, None),
                    Outcome::Partial { items, more } => self.resolve_partial(s, t, items, more),
                    Outcome::Failed(_) => return None,
                };
            }
        }
        Some(ev)
    }

    /// Records the outcome of a task's external call; the task becomes resolvable.
    pub fn deliver(&mut self, t: TaskId, outcome: Outcome, at_ms: f64) {
        let task = &mut self.tasks[t.0 as usize];
        if task.outcome.is_some() {
            return;
        }
        task.outcome = Some(outcome);
        task.resolved_at_ms = Some(at_ms);
        let s = task.stmt;
        if self.stmts[s.0 as usize].alive {
            self.mark_dirty(s);
        }
    }

    fn reduce_alias(&mut self, s: StmtId) {
        let (y, x) = {
            let n = &self.stmts[s.0 as usize];
            match n.op {
                MOp::Alias(x) => (n.bind, x),
                _ => return,
            }
        };
        self.remove(s);
        if x == y {
            return;
        }
        // Every occurrence of y becomes x.
        let uses = std::mem::take(&mut self.vars[y.0 as usize].uses);
        let mut notify = Vec::new();
        for u in uses {
            let node = &mut self.stmts[u.0 as usize];
            if !node.alive {
                continue;
            }
            let mut n = 0;
            node.op.for_each_var_mut(|v| {
                if *v == y {
                    *v = x;
                    n += 1;
                }
            });
            if n == 0 {
                continue;
            }
            let xv = &mut self.vars[x.0 as usize];
            xv.count += n;
            if xv.uses.last() != Some(&u) {
                xv.uses.push(u);
            }
            self.vars[y.0 as usize].count -= n.min(self.vars[y.0 as usize].count);
            notify.push(u);
        }
        if self.ret == y {
            self.ret = x;
            self.vars[x.0 as usize].count += 1;
            self.vars[y.0 as usize].count = self.vars[y.0 as usize].count.saturating_sub(1);
        }
        for u in notify {
            self.notify(u);
        }
    }

    /// A statement's operands changed: it and, through tuples, its users may now step.
    fn notify(&mut self, s: StmtId) {
        let mut stack = vec![s];
        while let Some(u) = stack.pop() {
            self.mark_dirty(u);
            if let MOp::Tuple(_) = self.stmts[u.0 as usize].op {
                let b = self.stmts[u.0 as usize].bind;
                for &w in &self.vars[b.0 as usize].uses {
                    if self.stmts[w.0 as usize].alive && !self.in_dirty[w.0 as usize] {
                        stack.push(w);
                    }
                }
            }
        }
    }

    /// Replaces statement `s` by new ones labeled `ℓ.1 …`; `None` binds `s`'s own variable.
    fn replace(&mut self, s: StmtId, new: Vec<(Option<VarId>, MOp)>) -> Vec<StmtId> {
        let (label, bind, span) = {
            let n = &self.stmts[s.0 as usize];
            (n.label, n.bind, n.span)
        };
        let mut prev = self.remove(s);
        let mut created = Vec::with_capacity(new.len());
        for (i, (b, op)) in new.into_iter().enumerate() {
            let l = self.labels.child(label, i as u32 + 1);
            let id = self.push_stmt(l, b.unwrap_or(bind), op, span);
            self.link_after(prev, id);
            prev = id.0;
            self.mark_dirty(id);
            created.push(id);
        }
        created
    }

    /// reduce-call and resolve: `x' := w; s̄'; z := y'` with the body freshened at ℓ.
    fn inline(&mut self, s: StmtId, clo: &Closure, arg: Option<VarId>) -> Vec<StmtId> {
        let label = self.stmts[s.0 as usize].label;
        let tpl = &clo.tpl;
        let locals: Vec<VarId> = tpl.names.iter().map(|n| self.new_var(*n, Some(label))).collect();
        let map = |v: TVar| match v {
            TVar::Free(i) => clo.env[i as usize],
            TVar::Local(i) => locals[i as usize],
        };
        let mut new: Vec<(Option<VarId>, MOp)> = Vec::with_capacity(tpl.stmts.len() + 2);
        if let Some(w) = arg {
            new.push((Some(locals[0]), MOp::Alias(w)));
        }
        for ts in &tpl.stmts {
            let op = match &ts.op {
                TOp::Alias(y) => MOp::Alias(map(*y)),
                TOp::Call(f, x) => MOp::Call(map(*f), map(*x)),
                TOp::Tuple(xs) => MOp::Tuple(xs.iter().map(|x| map(*x)).collect()),
                TOp::Prj(i, x) => MOp::Prj(*i, map(*x)),
                TOp::Prim(p) => MOp::Prim(p.clone()),
                TOp::Fun(t, caps) => MOp::Fun(Closure { tpl: t.clone(), env: caps.iter().map(|c| map(*c)).collect() }),
            };
            new.push((Some(locals[ts.local as usize]), op));
        }
        new.push((None, MOp::Alias(map(tpl.ret))));
        let spans: Vec<Span> = tpl.stmts.iter().map(|t| t.span).collect();
        let created = self.replace(s, new);
        // Statements keep the source span they were written at (the debugger's current line).
        let off = usize::from(arg.is_some());
        for (i, sp) in spans.into_iter().enumerate() {
            if sp != Span::default() {
                self.stmts[created[i + off].0 as usize].span = sp;
            }
        }
        created
    }

    /// resolve of a streaming task: `h := <<rest>>` (if more), the partial list, `z := l`.
    fn resolve_partial(&mut self, s: StmtId, t: TaskId, items: Vec<Prim>, more: bool) -> Vec<StmtId> {
        let label = self.stmts[s.0 as usize].label;
        let tpl = partial_list_template(&items, more);
        let mut new: Vec<(Option<VarId>, MOp)> = Vec::new();
        let mut env = Vec::new();
        if more {
            let h = self.new_var(Name::plain("rest"), Some(label));
            let nt = TaskId(self.tasks.len() as u32);
            let old = &self.tasks[t.0 as usize];
            let rec = TaskRec {
                stmt: StmtId(NONE),
                label: ROOT,
                ext: old.ext.clone(),
                arg: old.arg.clone(),
                outcome: None,
                stream: old.stream,
                dispatched_at_ms: old.resolved_at_ms.unwrap_or(old.dispatched_at_ms),
                resolved_at_ms: None,
            };
            self.tasks.push(rec);
            new.push((Some(h), MOp::Task(nt)));
            env.push(h);
        }
        let l = self.new_var(Name::plain("list"), Some(label));
        new.push((Some(l), MOp::Fun(Closure { tpl, env })));
        new.push((None, MOp::Alias(l)));
        let created = self.replace(s, new);
        if more {
            let nt = TaskId(self.tasks.len() as u32 - 1);
            self.tasks[nt.0 as usize].stmt = created[0];
            self.tasks[nt.0 as usize].label = self.stmts[created[0].0 as usize].label;
        }
        created
    }

    /// The task that continues stream `t`'s list, if its resolution created one.
    pub fn continuation(&self, ev: &StepEvent) -> Option<TaskId> {
        ev.created.first().and_then(|s| match self.stmts[s.0 as usize].op {
            MOp::Task(nt) if ev.rule == Rule::Resolve => Some(nt),
            _ => None,
        })
    }

    /// Compiles a closed core expression into an outcome.
    pub fn outcome_of(e: &crate::ir::Expr, source: String) -> Outcome {
        Outcome::Expr(compile_closed(e).0, source)
    }

    /// Checks the graph's invariants; returns the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        let order: Vec<StmtId> = self.iter().collect();
        if order.len() != self.live {
            return Err(format!("{} linked statements but {} live", order.len(), self.live));
        }
        let paths: Vec<Vec<u32>> = order.iter().map(|s| self.labels.path(self.stmts[s.0 as usize].label)).collect();
        for w in paths.windows(2) {
            if w[0] >= w[1] {
                return Err(format!("labels out of order: {:?} then {:?}", w[0], w[1]));
            }
            if w[1].starts_with(&w[0]) {
                return Err(format!("label {:?} is a prefix of {:?}", w[0], w[1]));
            }
        }
        let mut counts = vec![0u32; self.vars.len()];
        for s in &order {
            let n = &self.stmts[s.0 as usize];
            if self.vars[n.bind.0 as usize].binder != s.0 {
                return Err(format!("`{}` does not point back to its binder", self.var_name(n.bind)));
            }
            n.op.for_each_var(|v| counts[v.0 as usize] += 1);
            let mut missing = None;
            n.op.for_each_var(|v| {
                if !self.vars[v.0 as usize].uses.contains(s) {
                    missing = Some(v);
                }
            });
            if let Some(v) = missing {
                return Err(format!("use of `{}` at {} is not in its use list", self.var_name(v), self.label_of(*s)));
            }
        }
        counts[self.ret.0 as usize] += 1;
        for (i, v) in self.vars.iter().enumerate() {
            if counts[i] != v.count {
                return Err(format!("`{}` has count {} but {} uses", self.var_name(VarId(i as u32)), v.count, counts[i]));
            }
        }
        Ok(())
    }
}

/// `fun p: st := prj 1 p; ap := prj 2 p; (x_i := <c_i>; st := ap (st, x_i))*; [st := rest (st, ap)]; st`
fn partial_list_template(items: &[Prim], more: bool) -> Arc<Template> {
    use template::TStmt;
    let mut names = vec![Name::plain("p"), Name::plain("state"), Name::plain("append")];
    let mut stmts = vec![
        TStmt { local: 1, op: TOp::Prj(1, TVar::Local(0)), span: Span::default() },
        TStmt { local: 2, op: TOp::Prj(2, TVar::Local(0)), span: Span::default() },
    ];
    let mut state = 1u32;
    let fresh = |names: &mut Vec<Name>, base: &str, i: u32| {
        names.push(Name { base: crate::names::Sym::intern(base), idx: i });
        names.len() as u32 - 1
    };
    for (i, c) in items.iter().enumerate() {
        let i = i as u32 + 1;
        let x = fresh(&mut names, "x", i);
        stmts.push(TStmt { local: x, op: TOp::Prim(c.clone()), span: Span::default() });
        let t = fresh(&mut names, "t", i);
        stmts.push(TStmt { local: t, op: TOp::Tuple(vec![TVar::Local(state), TVar::Local(x)]), span: Span::default() });
        let st = fresh(&mut names, "state", i);
        stmts.push(TStmt { local: st, op: TOp::Call(TVar::Local(2), TVar::Local(t)), span: Span::default() });
        state = st;
    }
    if more {
        let k = items.len() as u32 + 1;
        let t = fresh(&mut names, "t", k);
        stmts.push(TStmt { local: t, op: TOp::Tuple(vec![TVar::Local(state), TVar::Local(2)]), span: Span::default() });
        let st = fresh(&mut names, "state", k);
        stmts.push(TStmt { local: st, op: TOp::Call(TVar::Free(0), TVar::Local(t)), span: Span::default() });
        state = st;
    }
    Arc::new(Template { names, stmts, ret: TVar::Local(state), free: if more { vec![Name::plain("rest")] } else { vec![] } })
}
