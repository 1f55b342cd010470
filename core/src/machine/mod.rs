//! The λ^O machine (SEMANTICS.md §2–§6): a labeled term as a graph of statement and
//! variable nodes with two-way maps, the six step rules, and steppability in words.
//!
//! Invariants (checked by `check_invariants` in tests): top-level statements are linked in
//! label order; labels are independent; every variable's use list contains every live
//! statement that mentions it; `count` equals the number of live mentions (+1 for the
//! return variable).

mod call_error;
pub mod data;
pub mod explore;
pub mod label;
mod lazy;
pub mod live;
mod needs;
pub mod print;
mod pycollections;
pub mod pylib;
mod pyrepr;
pub mod pyset;
pub mod readback;
mod results;
pub mod run;
mod source_names;
mod step;
mod steppable;
mod store;
mod strategy;
pub mod template;
pub mod trace;
mod uses;

use crate::desugar::Program;
use crate::ir::{PExp, Prim};
use crate::names::Name;
use crate::span::Span;
use label::{LabelId, Labels, ROOT};
use std::sync::Arc;
use template::{compile_closed, compile_fun_marking, TOp, TVar, Template};

pub use call_error::CallError;
pub use lazy::Lazy;
pub use print::print_initial;
pub use source_names::SourceName;
pub use steppable::{Blocked, Rule, Status, MAX_ARG_DEPTH};
use store::{still_uses, Arena, OpVars, Slab};
pub use store::{
    Closure, ClosureId, Id, MOp, Operands, PrimId, StmtId, StmtNode, Store, TaskId, VarId, VarNode,
};

const NONE: u32 = u32::MAX;
/// Marks a statement's source offset (`StmtNode::at`): a call of a prelude list function the
/// program wrote, whose inlining `inline` records (source files are at most 1 GiB, so no
/// offset has this bit or `INHERITED`).
const LIBRARY_CALL: u32 = 1 << 31;

/// Where a statement of the program was written (`StmtNode::at`): `NONE` if nowhere, marked
/// `LIBRARY_CALL` if it is a call of a prelude list function the program wrote (`calls`, the
/// sorted `Program::library_calls`).
fn marked_place(op: &crate::ir::Op, span: Span, calls: &[(u32, u32)]) -> u32 {
    let Some(at) = source_pos(span) else {
        return NONE;
    };
    let call =
        matches!(op, crate::ir::Op::Call(..)) && calls.binary_search_by_key(&at, |c| c.0).is_ok();
    if call {
        at | LIBRARY_CALL
    } else {
        at
    }
}

/// Marks a statement's source offset (`StmtNode::at`) as its place, not where it was written:
/// what replaced a statement (a call's inlined prelude body, a resolved result) shows at the
/// replaced statement's line but does not begin a run of a source statement there.
const INHERITED: u32 = 1 << 30;

/// A source offset without the `LIBRARY_CALL` and `INHERITED` marks (`NONE` stays `NONE`).
fn unmarked(at: u32) -> u32 {
    if at == NONE {
        NONE
    } else {
        at & !(LIBRARY_CALL | INHERITED)
    }
}
/// The binder of a variable whose slot is free for reuse.
const FREED: u32 = u32::MAX - 1;

/// Label tables smaller than this are never compacted (786 432 labels: 6 MB, plus 5.3 MB of
/// scratch while compacting). Below a power of two, so the table's vector, grown by doubling,
/// stops at 2^20 entries instead of doubling once more just before a compaction.
const LABEL_BUDGET: usize = 3 << 18;

/// Where code with this span was written (`Span::default()` marks code with no position).
fn source_pos(span: Span) -> Option<u32> {
    (span != Span::default()).then_some(span.start)
}

/// The outcome of an external call, delivered to a task.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// A closed expression (compiled from OPAL source or built by a primitive).
    Expr(Arc<Template>, String),
    /// A primitive value: resolves like the expression `v := c; ret v`, without a template.
    Value(Prim),
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
    /// An ordered call (`extern sequential`/`readonly`, `print v`): its argument came as
    /// `(seq, arg)` and its result goes back as `(seq, result)`, so the next ordered call can
    /// dispatch only once this one resolved. `arg` is the argument without the token.
    pub ordered: bool,
}

impl TaskRec {
    /// The task as the term writes it: `<<ext arg>>`, with the token an ordered call took.
    pub fn text(&self) -> String {
        if self.ordered {
            format!("<<{} ({}, {})>>", self.ext, crate::ir::SEQ_TOKEN, self.arg)
        } else {
            format!("<<{} {}>>", self.ext, self.arg)
        }
    }
}

/// One step taken, for traces, the debugger and `opal step`.
#[derive(Clone, Debug)]
pub struct StepEvent {
    pub rule: Rule,
    pub label: LabelId,
    pub task: Option<TaskId>,
}

#[derive(Clone)]
pub struct Machine {
    pub labels: Labels,
    pub stmts: Store<StmtId, StmtNode>,
    pub vars: Store<VarId, VarNode>,
    pub tasks: Store<TaskId, TaskRec>,
    head: u32,
    tail: u32,
    pub ret: VarId,
    dirty: Vec<StmtId>,
    in_dirty: Store<StmtId, bool>,
    pub steps: [u64; 6],
    pub live: usize,
    /// Tasks dispatched so far (task slots are reused once resolved).
    pub dispatched: usize,
    /// Statements the last step created, in label order (`ℓ.1 …`).
    created: Vec<StmtId>,
    /// Free statement and variable slots, chained through the free nodes themselves (`next`,
    /// `count`), so the lists cost no memory. A slot is reusable as soon as it is freed, even
    /// within a round: only a statement's own step removes it, so no statement still to step
    /// in the round can be freed, and a round never sees a candidate change meaning under it.
    free_stmts: u32,
    free_vars: u32,
    /// Task slots freed by resolve; reusable from the next `take_dirty`, so the runner can
    /// still read a resolved task's record after the step.
    freed_tasks: Vec<u32>,
    free_tasks: Vec<u32>,
    spill: uses::Spill,
    operands: Arena,
    prims: Slab<Prim>,
    closures: Slab<Closure>,
    scratch_env: Vec<VarId>,
    /// Compact the label table when it grows past this many labels.
    label_budget: usize,
    scratch_locals: Vec<VarId>,
    scratch_stmts: Vec<StmtId>,
    scratch_users: Vec<StmtId>,
    scratch_notify: Vec<StmtId>,
    /// cbv's scan starts here (`NONE`: at the head): every statement before it is a value.
    /// Values never become non-values and new statements only appear where a non-value
    /// stepped, so the hint only moves back when its own statement leaves the term
    /// (`unlink`), and finding the leftmost non-value costs O(1) amortised per step.
    cbv_hint: u32,
    /// Lazy evaluation's chain of needs: the root the result needs, then what each one's
    /// binder waits on. A step of the top's binder only changes the edge into the top (an
    /// alias renames it), so each `lazy_next_mut` re-checks that edge alone; any other step
    /// but reduce-gc (`lazy_proposed` tells them apart) drops the chain.
    lazy_stack: Vec<VarId>,
    lazy_proposed: u32,
    /// What lazy evaluation computes beyond its chain: what printing a result that is a list
    /// needs, and what a call waiting for a data argument needs (`needs.rs`).
    walks: needs::LazyWalks,
    /// Dispatches whose data argument is not complete, by the variable each waits on, with
    /// the step count before which a new check is not worth its cost (`data_checks`).
    data_watch: crate::names::FastMap<VarId, Vec<(StmtId, u64)>>,
    /// Woken dispatches whose check would come too soon; checked once their step comes, or
    /// as soon as a round has nothing else to do.
    data_later: Vec<(StmtId, u64)>,
    /// Symbolic steps the last data check took (`steppable` is `&self`).
    data_cost: std::cell::Cell<u64>,
    /// Externals called with the sequencing token (`Program::ordered`).
    ordered: Arc<[Arc<str>]>,
    /// The externals the program declares itself (`extern get`): a call of one is never the
    /// standard library's function of the same name (`Host::declaring`).
    pub declared: Arc<[Arc<str>]>,
    /// `Program::library_calls`: the program's calls of prelude list functions.
    library_sites: Arc<[(u32, u32)]>,
    /// (label, source offset) of each such call inlined so far: the label is the prefix of
    /// every statement the call became, which is how `library_call_of` finds the call a
    /// failing statement ran inside. Pruned with the labels (`compact_labels`).
    library_entered: Vec<(LabelId, u32)>,
    /// The program's names kept through reduce-alias, for a debugger (`source_names.rs`).
    source_names: Option<Box<source_names::SourceNames>>,
}

/// A call of a prelude list function the program wrote, that a failing statement ran inside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LibraryCall {
    /// Where the call starts in the source.
    pub offset: u32,
    pub name: &'static str,
    /// What the function takes (`desugar::prelude::SHAPES`).
    pub shape: &'static str,
}

impl Machine {
    /// Builds the initial labeled term: environment statements `0.1 … 0.k`, then `1 … n`.
    pub fn new(p: &Program) -> Machine {
        let mut m = Machine::empty(p);
        let mut names: crate::names::FastMap<Name, VarId> = Default::default();
        let zero = m.labels.child(ROOT, 0);
        let mut resolve = |m: &mut Machine, n: Name| -> VarId {
            *names.entry(n).or_insert_with(|| m.new_var(n, ROOT))
        };
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
                crate::ir::Op::Tuple(xs) => {
                    let xs: Vec<VarId> = xs.iter().map(|x| resolve(&mut m, *x)).collect();
                    MOp::Tuple(m.operands.alloc(xs.into_iter()))
                }
                crate::ir::Op::Prj(i, x) => MOp::Prj(*i, resolve(&mut m, *x)),
                crate::ir::Op::Prim(c) => m.new_prim(c.clone()),
                crate::ir::Op::Fun(f) => {
                    let (tpl, caps) = compile_fun_marking(f, &p.library_calls);
                    let env: Vec<VarId> = caps.into_iter().map(|n| resolve(&mut m, n)).collect();
                    m.new_fun(tpl, env.into_iter())
                }
            };
            let bind = resolve(&mut m, s.bind);
            let id = m.push_stmt(
                label,
                bind,
                op,
                marked_place(&s.op, s.span, &p.library_calls),
            );
            m.link_after(m.tail, id);
        }
        m.ret = resolve(&mut m, p.body.ret_name());
        m.vars[m.ret].count += 1;
        let all: Vec<StmtId> = m.iter().collect();
        for s in all {
            m.mark_dirty(s);
        }
        m
    }

    /// A machine holding no statement yet, for `p`'s ordered externals and library calls.
    fn empty(p: &Program) -> Machine {
        Machine {
            labels: Labels::default(),
            stmts: Store::default(),
            vars: Store::default(),
            tasks: Store::default(),
            head: NONE,
            tail: NONE,
            ret: VarId::from_raw(0),
            dirty: Vec::new(),
            in_dirty: Store::default(),
            steps: [0; 6],
            live: 0,
            dispatched: 0,
            created: Vec::new(),
            free_stmts: NONE,
            free_vars: NONE,
            freed_tasks: Vec::new(),
            free_tasks: Vec::new(),
            spill: uses::Spill::default(),
            operands: Arena::default(),
            prims: Slab::default(),
            closures: Slab::default(),
            scratch_env: Vec::new(),
            label_budget: LABEL_BUDGET,
            scratch_locals: Vec::new(),
            scratch_stmts: Vec::new(),
            scratch_users: Vec::new(),
            scratch_notify: Vec::new(),
            cbv_hint: NONE,
            lazy_stack: Vec::new(),
            lazy_proposed: NONE,
            walks: needs::LazyWalks::default(),
            data_watch: Default::default(),
            data_later: Vec::new(),
            data_cost: std::cell::Cell::new(0),
            ordered: p.ordered.iter().map(|e| Arc::from(e.as_str())).collect(),
            declared: p
                .externs
                .iter()
                .map(|(e, _)| Arc::from(e.as_str()))
                .collect(),
            library_sites: Arc::from(p.library_calls.as_slice()),
            library_entered: Vec::new(),
            source_names: None,
        }
    }

    fn new_var(&mut self, name: Name, fresh: LabelId) -> VarId {
        let i = self.free_vars;
        if i != NONE {
            let v = &mut self.vars[VarId::from_raw(i)];
            self.free_vars = v.count;
            v.name = name;
            v.fresh = fresh;
            v.binder = NONE;
            v.count = 0;
            self.spill.clear(&mut v.uses);
            return VarId::from_raw(i);
        }
        self.vars.push(VarNode {
            name,
            fresh,
            binder: NONE,
            uses: uses::Uses::default(),
            count: 0,
        });
        VarId::from_raw(self.vars.len() as u32 - 1)
    }

    /// A variable nothing mentions and nothing binds can never be mentioned again.
    #[inline]
    fn release_var(&mut self, v: VarId) {
        let n = &self.vars[v];
        if n.count == 0 && n.binder == NONE {
            // Its slot may be reused: a lazy walk that met it forgets it.
            if !self.walks.is_idle() {
                self.walks.forget_var(v);
            }
            let n = &mut self.vars[v];
            n.binder = FREED;
            n.count = self.free_vars;
            self.free_vars = v.raw();
            self.names_forget(v);
        }
    }

    fn new_prim(&mut self, c: Prim) -> MOp {
        MOp::Prim(PrimId(self.prims.insert(c)))
    }

    fn new_fun(&mut self, tpl: Arc<Template>, env: impl ExactSizeIterator<Item = VarId>) -> MOp {
        let env = self.operands.alloc(env);
        MOp::Fun(ClosureId(self.closures.insert(Closure { tpl, env })))
    }

    /// A tuple's components.
    pub fn tuple(&self, o: Operands) -> &[VarId] {
        self.operands.get(o)
    }
    pub fn prim(&self, p: PrimId) -> &Prim {
        static NONE_PRIM: Prim = Prim::Int(0);
        self.prims.get(p.0).unwrap_or(&NONE_PRIM)
    }
    /// A closure and its environment.
    pub fn closure(&self, c: ClosureId) -> Option<(&Arc<Template>, &[VarId])> {
        self.closures
            .get(c.0)
            .map(|c| (&c.tpl, self.operands.get(c.env)))
    }
    /// The variables an operation mentions (the closure's environment for a function).
    fn op_vars(&self, op: MOp) -> OpVars<'_> {
        match op {
            MOp::Alias(y) | MOp::Prj(_, y) => OpVars::Two([y, y], 1),
            MOp::Call(a, b) => OpVars::Two([a, b], 2),
            _ => OpVars::Slice(
                self.op_operands(op)
                    .map(|o| self.operands.get(o))
                    .unwrap_or(&[]),
            ),
        }
    }
    /// The variables statement `s` uses, a closure's environment included (the def-use edges
    /// of the debugger's task graph).
    pub fn uses_of(&self, s: StmtId) -> Vec<VarId> {
        self.op_vars(self.stmts[s].op).as_slice().to_vec()
    }
    /// `op_vars` for callers that change the machine for each variable.
    fn each_op_var(&mut self, op: MOp, mut f: impl FnMut(&mut Machine, VarId)) {
        match op {
            MOp::Alias(y) | MOp::Prj(_, y) => f(self, y),
            MOp::Call(a, b) => {
                f(self, a);
                f(self, b)
            }
            _ => {
                if let Some(o) = self.op_operands(op) {
                    for i in o.range() {
                        let v = self.operands.data[i];
                        f(self, v);
                    }
                }
            }
        }
    }
    /// Where the variables of an operation stored in the arena are (tuples and closures).
    fn op_operands(&self, op: MOp) -> Option<Operands> {
        match op {
            MOp::Tuple(o) => Some(o),
            MOp::Fun(c) => self.closures.get(c.0).map(|c| c.env),
            _ => None,
        }
    }

    fn push_stmt(&mut self, label: LabelId, bind: VarId, op: MOp, at: u32) -> StmtId {
        let node = StmtNode {
            label,
            bind,
            op: MOp::Gone,
            at,
            prev: NONE,
            next: NONE,
        };
        let id = match self.free_stmts {
            i if i != NONE => {
                self.free_stmts = self.stmts[StmtId::from_raw(i)].next;
                self.stmts[StmtId::from_raw(i)] = node;
                StmtId::from_raw(i)
            }
            _ => {
                self.stmts.push(node);
                self.in_dirty.push(false);
                StmtId::from_raw(self.stmts.len() as u32 - 1)
            }
        };
        // The operation goes in first: adding a use may compact the variable's use list, which
        // keeps only live statements, and this one must already count as live.
        self.stmts[id].op = op;
        self.each_op_var(op, |m, v| m.add_use(v, id));
        self.vars[bind].binder = id.raw();
        self.live += 1;
        id
    }

    /// Makes freed task slots reusable and compacts labels (between rounds and steps of the
    /// strategies).
    fn recycle(&mut self) {
        self.free_tasks.append(&mut self.freed_tasks);
        if self.labels.len() > self.label_budget.max(4 * (self.live + self.vars.len())) {
            self.compact_labels();
        }
    }

    /// Compacts labels as soon as the table passes `n` (tests use a small `n`).
    #[doc(hidden)]
    pub fn set_label_budget(&mut self, n: usize) {
        self.label_budget = n;
    }

    /// Drops the labels nothing live carries any more and renumbers the rest (amortized O(1)
    /// per label: the next compaction waits until the table has grown by as much again).
    /// Label ids held outside the machine are invalid after a recycle.
    fn compact_labels(&mut self) {
        let live_stmts: Vec<StmtId> = self.iter().collect();
        let stmts = live_stmts.iter().map(|s| self.stmts[*s].label);
        let vars = self
            .vars
            .iter()
            .filter(|v| v.binder != FREED)
            .map(|v| v.fresh);
        let tasks = self
            .tasks
            .iter()
            .filter(|t| t.stmt.raw() != NONE)
            .map(|t| t.label);
        let named = self.names_labels();
        let roots: Vec<LabelId> = stmts.chain(vars).chain(tasks).chain(named).collect();
        let map = self.labels.compact(roots.into_iter());
        // Every label held by a live statement, variable or task was a root: it is kept.
        let re = |l: &mut LabelId| *l = map.get(*l).unwrap_or(*l);
        for s in &live_stmts {
            re(&mut self.stmts[*s].label);
        }
        for v in self.vars.iter_mut().filter(|v| v.binder != FREED) {
            re(&mut v.fresh);
        }
        for t in self.tasks.iter_mut().filter(|t| t.stmt.raw() != NONE) {
            re(&mut t.label);
        }
        if let Some(n) = &mut self.source_names {
            n.relabel(&|l| map.get(l).unwrap_or(l));
        }
        // A call whose label nothing live extends any more can no longer be reported; one
        // folded into a run no longer names its own label (a note left out, never a wrong one).
        self.library_entered.retain_mut(|(l, _)| match map.get(*l) {
            Some(k) => {
                *l = k;
                true
            }
            None => false,
        });
        let labels = &self.labels;
        self.library_entered.retain(|(l, _)| !labels.is_run(*l));
        self.label_budget = (2 * self.labels.len()).max(self.label_budget);
    }

    /// A removed statement's slot, reusable at once (see `free_stmts`).
    #[inline]
    fn free_stmt(&mut self, s: StmtId) {
        // Its slot may be reused by another statement.
        self.walks.forget_stmt(s);
        self.stmts[s].next = self.free_stmts;
        self.free_stmts = s.raw();
    }

    #[inline]
    fn add_use(&mut self, v: VarId, s: StmtId) {
        let var = &mut self.vars[v];
        var.count += 1;
        let (stmts, operands, closures) = (&self.stmts, &self.operands, &self.closures);
        if self.spill.last(&var.uses) != Some(s) {
            self.spill.push(&mut var.uses, s, |u| {
                still_uses(stmts, operands, closures, u, v)
            });
        }
        // Compact stale entries now and then so use lists stay O(live uses). A stale entry is a
        // statement that no longer uses `v`: gone, or its slot reused by another statement (a
        // reused slot is alive, so aliveness alone would keep it, and a deep recursion, which
        // reuses slots all the time, would compact on every use: quadratic).
        if var.uses.is_spilled() && self.spill.slice(&var.uses).len() > 2 * var.count as usize + 16
        {
            let mut uses = std::mem::take(&mut var.uses);
            self.spill
                .compact(&mut uses, |u| still_uses(stmts, operands, closures, u, v));
            self.vars[v].uses = uses;
        }
    }

    #[inline]
    fn drop_use(&mut self, v: VarId) {
        let var = &mut self.vars[v];
        if var.count == 0 {
            return;
        }
        var.count -= 1;
        if var.count == 0 {
            if var.binder == NONE {
                self.release_var(v);
            } else {
                let b = StmtId::from_raw(var.binder);
                self.mark_dirty(b);
            }
        }
    }

    #[inline]
    fn link_after(&mut self, prev: u32, id: StmtId) {
        let next = if prev == NONE {
            self.head
        } else {
            self.stmts[StmtId::from_raw(prev)].next
        };
        if next == self.cbv_hint && next != NONE {
            self.cbv_hint = id.raw();
        }
        self.stmts[id].prev = prev;
        self.stmts[id].next = next;
        if prev == NONE {
            self.head = id.raw();
        } else {
            self.stmts[StmtId::from_raw(prev)].next = id.raw();
        }
        if next == NONE {
            self.tail = id.raw();
        } else {
            self.stmts[StmtId::from_raw(next)].prev = id.raw();
        }
    }

    /// Removes a statement for good: its slot and, if unused, its variable are freed.
    fn remove(&mut self, id: StmtId) {
        self.unlink(id);
        let b = self.stmts[id].bind;
        self.release_var(b);
        self.free_stmt(id);
    }

    /// Removes a statement whose variable a replacement binds; returns the statement before it.
    fn unlink(&mut self, id: StmtId) -> u32 {
        let (prev, next) = {
            let n = &self.stmts[id];
            (n.prev, n.next)
        };
        if self.cbv_hint == id.raw() {
            self.cbv_hint = prev;
        }
        if prev == NONE {
            self.head = next;
        } else {
            self.stmts[StmtId::from_raw(prev)].next = next;
        }
        if next == NONE {
            self.tail = prev;
        } else {
            self.stmts[StmtId::from_raw(next)].prev = prev;
        }
        let op = std::mem::replace(&mut self.stmts[id].op, MOp::Gone);
        self.drop_op(op);
        let b = self.stmts[id].bind;
        if self.vars[b].binder == id.raw() {
            self.vars[b].binder = NONE;
        }
        self.live -= 1;
        prev
    }

    /// Drops an operation's uses and frees what it held in the arena and slabs.
    fn drop_op(&mut self, op: MOp) {
        self.each_op_var(op, |m, v| m.drop_use(v));
        match op {
            MOp::Tuple(o) => self.operands.release(o),
            MOp::Fun(c) => {
                if let Some(c) = self.closures.remove(c.0) {
                    self.operands.release(c.env);
                }
            }
            MOp::Prim(p) => {
                self.prims.remove(p.0);
            }
            MOp::Alias(_) | MOp::Call(..) | MOp::Prj(..) | MOp::Task(_) | MOp::Gone => {}
        }
    }

    #[inline]
    pub fn mark_dirty(&mut self, s: StmtId) {
        if !self.in_dirty[s] {
            self.in_dirty[s] = true;
            self.dirty.push(s);
        }
    }

    /// Makes freed task slots reusable and moves the statements that may have become steppable
    /// since the last call into `out` (emptied first; its buffer becomes the next dirty set).
    pub fn take_dirty(&mut self, out: &mut Vec<StmtId>) {
        self.recycle();
        out.clear();
        std::mem::swap(&mut self.dirty, out);
        for s in out.iter() {
            self.in_dirty[*s] = false;
        }
    }

    /// The statements steppable at the start of an opportunistic round (paper Fig. 8), into
    /// `out`. Every statement that became steppable since the last round is in the dirty set.
    pub fn round_candidates(&mut self, out: &mut Vec<StmtId>) {
        self.wake_data(false);
        self.take_dirty(out);
        self.keep_steppable(out);
        if out.is_empty() && !self.data_later.is_empty() {
            // Nothing else to do: the checks that were paced may be due now.
            self.wake_data(true);
            self.take_dirty(out);
            self.keep_steppable(out);
        }
    }

    /// Keeps the steppable candidates; a dispatch waiting for its data starts watching what
    /// it waits on.
    fn keep_steppable(&mut self, out: &mut Vec<StmtId>) {
        let mut watch = Vec::new();
        out.retain(|&s| match self.steppable(s) {
            Ok(_) => true,
            Err(Blocked::WaitData(v)) => {
                watch.push((v, s, self.data_cost.get()));
                false
            }
            Err(_) => false,
        });
        for (v, s, cost) in watch {
            self.watch_data(v, s, cost);
        }
    }

    /// `s` waits for the data of `v`, whose check just cost `cost`: it is checked again when a
    /// step changes `v`, once the machine has taken as many steps as that check.
    fn watch_data(&mut self, v: VarId, s: StmtId, cost: u64) {
        let due = self.steps_total() + cost;
        self.data_watch.entry(v).or_default().push((s, due));
    }

    /// Moves the paced data checks that are due (all of them with `force`) to the dirty set.
    fn wake_data(&mut self, force: bool) {
        if self.data_later.is_empty() {
            return;
        }
        let now = self.steps_total();
        let mut later = std::mem::take(&mut self.data_later);
        later.retain(|&(s, due)| {
            if force || due <= now {
                self.mark_dirty(s);
                false
            } else {
                true
            }
        });
        self.data_later = later;
    }

    /// A step is about to change what `v` is bound to: the dispatches waiting on it for their
    /// data may proceed. Each check of a big value costs its size, so a dispatch is checked
    /// again only once the machine has taken as many steps as its last check took (or when
    /// nothing else is left): checks then cost at most as much as the steps themselves.
    fn data_changed(&mut self, v: VarId) {
        let Some(waiting) = self.data_watch.remove(&v) else {
            return;
        };
        let now = self.steps_total();
        for (s, due) in waiting {
            if due <= now {
                self.mark_dirty(s);
            } else {
                self.data_later.push((s, due));
            }
        }
    }

    /// Top-level statements in label order.
    pub fn iter(&self) -> impl Iterator<Item = StmtId> + '_ {
        let mut cur = self.head;
        std::iter::from_fn(move || {
            if cur == NONE {
                return None;
            }
            let id = StmtId::from_raw(cur);
            cur = self.stmts[StmtId::from_raw(cur)].next;
            Some(id)
        })
    }

    pub fn first(&self) -> Option<StmtId> {
        (self.head != NONE).then_some(StmtId::from_raw(self.head))
    }
    pub fn next_of(&self, s: StmtId) -> Option<StmtId> {
        let n = self.stmts[s].next;
        (n != NONE).then_some(StmtId::from_raw(n))
    }

    pub fn stmt(&self, s: StmtId) -> &StmtNode {
        &self.stmts[s]
    }
    pub fn binder(&self, v: VarId) -> Option<StmtId> {
        let b = self.vars[v].binder;
        (b < FREED).then_some(StmtId::from_raw(b))
    }
    /// The innermost call of a prelude list function the program wrote that statement `s`
    /// came from (its label extends the call's). Only computed when a failure is reported.
    pub fn library_call_of(&self, s: StmtId) -> Option<LibraryCall> {
        if self.library_entered.is_empty() {
            return None;
        }
        let entered: std::collections::HashMap<LabelId, u32> =
            self.library_entered.iter().copied().collect();
        let mut l = self.labels.parent(self.stmts.get(s)?.label);
        while let Some(p) = l {
            if let Some(&offset) = entered.get(&p) {
                let i = self
                    .library_sites
                    .binary_search_by_key(&offset, |c| c.0)
                    .ok()?;
                let (name, shape) =
                    *crate::desugar::prelude::SHAPES.get(self.library_sites[i].1 as usize)?;
                return Some(LibraryCall {
                    offset,
                    name,
                    shape,
                });
            }
            l = self.labels.parent(p);
        }
        None
    }

    pub fn label_of(&self, s: StmtId) -> String {
        self.labels.show(self.stmts[s].label)
    }
    /// A statement's whole label, for actions and session files.
    pub fn label_path(&self, s: StmtId) -> label::LabelPath {
        label::LabelPath::new(self.labels.path(self.stmts[s].label))
    }
    pub fn use_count(&self, v: VarId) -> u32 {
        self.vars[v].count
    }
    pub fn steps_total(&self) -> u64 {
        self.steps.iter().sum()
    }
    pub fn steps_by(&self, r: Rule) -> u64 {
        self.steps[r as usize]
    }
    pub fn var_name(&self, v: VarId) -> String {
        let n = &self.vars[v];
        if n.fresh == ROOT {
            n.name.to_string()
        } else {
            format!("{}@{}", n.name, self.labels.show(n.fresh))
        }
    }
    /// `var_name` with a deep freshening label abbreviated (`y@5.6.…6.6`), in O(1).
    pub fn var_name_short(&self, memo: &mut label::LabelMemo, v: VarId) -> String {
        let n = &self.vars[v];
        if n.fresh == ROOT {
            n.name.to_string()
        } else {
            format!("{}@{}", n.name, memo.short(&self.labels, n.fresh))
        }
    }
    /// A statement's label, abbreviated past a few levels (`5.6.…6.6`), in O(1).
    pub fn label_short(&self, memo: &mut label::LabelMemo, s: StmtId) -> String {
        memo.short(&self.labels, self.stmts[s].label)
    }
    /// A statement's label id (valid until the label table is next compacted).
    pub fn label_id(&self, s: StmtId) -> LabelId {
        self.stmts[s].label
    }
    /// A statement's label as a key for views (the same in every copy of the machine).
    pub fn label_key(&self, memo: &mut label::LabelMemo, s: StmtId) -> label::LabelKey {
        memo.key(&self.labels, self.stmts[s].label)
    }

    /// Is `ext` called with the sequencing token (`Program::ordered`)?
    pub fn is_ordered(&self, ext: &str) -> bool {
        self.ordered.iter().any(|e| &**e == ext)
    }

    /// Statements the last step created, in label order.
    pub fn created(&self) -> &[StmtId] {
        &self.created
    }

    /// Is task `t` a live statement's task (pending, failed or resolvable)?
    pub fn task_live(&self, t: TaskId) -> bool {
        let s = self.tasks[t].stmt;
        s.raw() != NONE && matches!(self.stmts[s].op, MOp::Task(x) if x == t)
    }

    /// Compiles a closed core expression into an outcome.
    pub fn outcome_of(e: &crate::ir::Expr, source: String) -> Outcome {
        Outcome::Expr(compile_closed(e).0, source)
    }

    /// Bytes held by the machine's tables, by table (for the memory benchmark).
    pub fn memory(&self) -> Vec<(&'static str, usize)> {
        fn cap<T>(v: &Vec<T>) -> usize {
            v.capacity() * std::mem::size_of::<T>()
        }
        vec![
            ("statements", self.stmts.memory() + self.in_dirty.memory()),
            ("variables", self.vars.memory() + self.spill.memory()),
            ("labels", self.labels.memory()),
            ("tasks", self.tasks.memory()),
            (
                "operands",
                cap(&self.operands.data) + self.operands.free.iter().map(cap).sum::<usize>(),
            ),
            ("primitives", cap(&self.prims.items) + cap(&self.prims.free)),
            (
                "closures",
                cap(&self.closures.items) + cap(&self.closures.free),
            ),
            (
                "dirty and free lists",
                cap(&self.dirty) + cap(&self.freed_tasks) + cap(&self.free_tasks),
            ),
        ]
    }

    /// Checks the graph's invariants; returns the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        let order: Vec<StmtId> = self.iter().collect();
        if order.len() != self.live {
            return Err(format!(
                "{} linked statements but {} live",
                order.len(),
                self.live
            ));
        }
        let paths: Vec<Vec<u32>> = order
            .iter()
            .map(|s| self.labels.path(self.stmts[*s].label))
            .collect();
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
            let n = &self.stmts[*s];
            if self.vars[n.bind].binder != s.raw() {
                return Err(format!(
                    "`{}` does not point back to its binder",
                    self.var_name(n.bind)
                ));
            }
            let vars = self.op_vars(n.op);
            vars.as_slice()
                .iter()
                .for_each(|v| counts[v.raw() as usize] += 1);
            let missing = vars
                .as_slice()
                .iter()
                .find(|v| !self.spill.slice(&self.vars[**v].uses).contains(s));
            if let Some(v) = missing {
                return Err(format!(
                    "use of `{}` at {} is not in its use list",
                    self.var_name(*v),
                    self.label_of(*s)
                ));
            }
        }
        counts[self.ret.raw() as usize] += 1;
        for (i, v) in self.vars.iter().enumerate() {
            // A free slot's `count` links the free list.
            if v.binder != FREED && counts[i] != v.count {
                return Err(format!(
                    "`{}` has count {} but {} uses",
                    self.var_name(VarId::from_raw(i as u32)),
                    v.count,
                    counts[i]
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    /// A long list keeps ~8 statements and ~8 variables per element live at the peak, so
    /// these sizes are the §6 memory target's budget (ARCHITECTURE.md); growing them fails here.
    #[test]
    fn node_sizes_stay_within_the_memory_budget() {
        assert_eq!(std::mem::size_of::<super::MOp>(), 12);
        assert_eq!(std::mem::size_of::<super::StmtNode>(), 32);
        assert_eq!(std::mem::size_of::<super::VarNode>(), 28);
        // A list literal's body is a template of 3 statements per element.
        assert_eq!(std::mem::size_of::<super::template::TStmt>(), 24);
    }
}
