//! The λ^O machine (SEMANTICS.md §2–§6): a labeled term as a graph of statement and
//! variable nodes with two-way maps, the six step rules, and steppability in words.
//!
//! Invariants (checked by `check_invariants` in tests): top-level statements are linked in
//! label order; labels are independent; every variable's use list contains every live
//! statement that mentions it; `count` equals the number of live mentions (+1 for the
//! return variable).

pub mod data;
pub mod explore;
pub mod label;
pub mod live;
mod needs;
pub mod print;
pub mod readback;
mod results;
pub mod run;
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

pub use print::print_initial;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StmtId(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TaskId(pub u32);

const NONE: u32 = u32::MAX;
/// Marks a statement's source offset (`StmtNode::at`): a call of a prelude list function the
/// program wrote, whose inlining `inline` records (source files are at most 1 GiB, so no
/// offset has this bit).
const LIBRARY_CALL: u32 = 1 << 31;

/// Where a statement of the program was written (`StmtNode::at`): `NONE` if nowhere, marked
/// `LIBRARY_CALL` if it is a call of a prelude list function the program wrote (`calls`, the
/// sorted `Program::library_calls`).
fn marked_place(op: &crate::ir::Op, span: Span, calls: &[(u32, u32)]) -> u32 {
    let Some(at) = source_pos(span) else { return NONE };
    let call = matches!(op, crate::ir::Op::Call(..)) && calls.binary_search_by_key(&at, |c| c.0).is_ok();
    if call {
        at | LIBRARY_CALL
    } else {
        at
    }
}

/// A source offset without the `LIBRARY_CALL` mark (`NONE` stays `NONE`).
fn unmarked(at: u32) -> u32 {
    if at == NONE {
        NONE
    } else {
        at & !LIBRARY_CALL
    }
}
/// The binder of a variable whose slot is free for reuse.
const FREED: u32 = u32::MAX - 1;
/// Externals' arguments may nest tuples this deep (deeper ones are stuck, not a crash).
pub const MAX_ARG_DEPTH: usize = 1000;

fn sym_v() -> crate::names::Sym {
    static V: std::sync::OnceLock<crate::names::Sym> = std::sync::OnceLock::new();
    *V.get_or_init(|| crate::names::Sym::intern("v"))
}

/// Why a statement cannot step (`Machine::steppable`); `Machine::status` puts it in words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blocked {
    Gone,
    Value,
    Pending,
    NotBound(VarId),
    FunInArg(VarId),
    ArgTooDeep,
    /// The argument holds a list or dictionary nested deeper than a read-back goes.
    DataTooDeep,
    /// The argument holds a list or dictionary too big to read back.
    DataTooBig,
    WaitPrim(VarId),
    CallPrim(VarId),
    CallTuple(VarId),
    WaitTask(VarId),
    WaitFun(VarId),
    PrjRange(u32, usize),
    PrjFun(u32, VarId),
    PrjPrim(u32, VarId),
    WaitTuple(VarId),
    /// An external's argument holds data (a list, a boolean, a dictionary) that is not
    /// complete yet: it waits on this variable.
    WaitData(VarId),
    Failed(TaskId),
}

/// Label tables smaller than this are never compacted (786 432 labels: 6 MB, plus 5.3 MB of
/// scratch while compacting). Below a power of two, so the table's vector, grown by doubling,
/// stops at 2^20 entries instead of doubling once more just before a compaction.
const LABEL_BUDGET: usize = 3 << 18;

/// Where `Machine::put` inserts the next replacement of a statement.
struct Insert {
    prev: u32,
    label: LabelId,
    bind: VarId,
    at: u32,
    next: u32,
}

/// A run of the machine's operand arena: a tuple's components or a closure's environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operands {
    start: u32,
    len: u32,
}

impl Operands {
    const EMPTY: Operands = Operands { start: 0, len: 0 };
    pub fn len(self) -> usize {
        self.len as usize
    }
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

/// Tuples and closure environments of the running term, in one arena with free lists by
/// length, so a statement node stays small and a tuple costs no allocation of its own.
#[derive(Clone, Default)]
struct Arena {
    data: Vec<VarId>,
    free: Vec<Vec<u32>>,
}

impl Arena {
    fn alloc(&mut self, xs: impl ExactSizeIterator<Item = VarId>) -> Operands {
        let len = xs.len();
        if len == 0 {
            return Operands::EMPTY;
        }
        match self.free.get_mut(len).and_then(|f| f.pop()) {
            Some(start) => {
                for (slot, x) in self.data[start as usize..start as usize + len].iter_mut().zip(xs) {
                    *slot = x;
                }
                Operands { start, len: len as u32 }
            }
            None => {
                let start = self.data.len() as u32;
                self.data.extend(xs);
                Operands { start, len: len as u32 }
            }
        }
    }
    fn release(&mut self, o: Operands) {
        if o.len == 0 {
            return;
        }
        let len = o.len as usize;
        if self.free.len() <= len {
            self.free.resize_with(len + 1, Vec::new);
        }
        self.free[len].push(o.start);
    }
    fn get(&self, o: Operands) -> &[VarId] {
        &self.data[o.range()]
    }
}

/// Slots for values too big for a statement node (primitives, closures), reused once freed.
#[derive(Clone)]
struct Slab<T> {
    items: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab { items: Vec::new(), free: Vec::new() }
    }
}

impl<T> Slab<T> {
    fn insert(&mut self, x: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.items[i as usize] = Some(x);
                i
            }
            None => {
                self.items.push(Some(x));
                self.items.len() as u32 - 1
            }
        }
    }
    fn remove(&mut self, i: u32) -> Option<T> {
        let x = self.items.get_mut(i as usize)?.take();
        if x.is_some() {
            self.free.push(i);
        }
        x
    }
    fn get(&self, i: u32) -> Option<&T> {
        self.items.get(i as usize).and_then(|x| x.as_ref())
    }
}

/// A function value: its body and the variables its free names denote.
#[derive(Clone, Debug)]
pub struct Closure {
    pub tpl: Arc<Template>,
    pub env: Operands,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClosureId(u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PrimId(u32);

/// A top-level operation `o` of the running term. Twelve bytes: tuples and environments
/// live in the machine's arena, primitives and closures in slabs (`Machine::tuple`,
/// `Machine::prim`, `Machine::closure` read them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MOp {
    Alias(VarId),
    Fun(ClosureId),
    Call(VarId, VarId),
    Tuple(Operands),
    Prj(u32, VarId),
    Prim(PrimId),
    Task(TaskId),
    /// The operation of a statement that has left the term.
    Gone,
}

impl MOp {
    pub fn is_value(self) -> bool {
        matches!(self, MOp::Fun(_) | MOp::Tuple(_) | MOp::Prim(_))
    }
}

/// The variables of one operation, without allocating.
enum OpVars<'a> {
    Two([VarId; 2], usize),
    Slice(&'a [VarId]),
}

impl OpVars<'_> {
    fn as_slice(&self) -> &[VarId] {
        match self {
            OpVars::Two(xs, n) => &xs[..*n],
            OpVars::Slice(xs) => xs,
        }
    }
}

#[derive(Clone, Debug)]
pub struct StmtNode {
    pub label: LabelId,
    pub bind: VarId,
    pub op: MOp,
    /// Where the statement was written: the start of its source span (`NONE` if nowhere).
    /// Only the debugger's current line reads it, so the end is not kept.
    at: u32,
    prev: u32,
    next: u32,
}

impl StmtNode {
    pub fn is_alive(&self) -> bool {
        self.op != MOp::Gone
    }
    /// The source offset the statement was written at, if it comes from the source.
    pub fn source_offset(&self) -> Option<u32> {
        (self.at != NONE).then_some(self.at & !LIBRARY_CALL)
    }
}

/// Does statement `s` (still) use variable `v`? Its slot may be free or hold another statement.
fn still_uses(stmts: &[StmtNode], operands: &Arena, closures: &Slab<Closure>, s: StmtId, v: VarId) -> bool {
    let Some(n) = stmts.get(s.0 as usize) else { return false };
    match n.op {
        MOp::Alias(y) | MOp::Prj(_, y) => y == v,
        MOp::Call(a, b) => a == v || b == v,
        MOp::Tuple(o) => operands.get(o).contains(&v),
        MOp::Fun(c) => closures.get(c.0).is_some_and(|c| operands.get(c.env).contains(&v)),
        MOp::Prim(_) | MOp::Task(_) | MOp::Gone => false,
    }
}

/// Where code with this span was written (`Span::default()` marks code with no position).
fn source_pos(span: Span) -> Option<u32> {
    (span != Span::default()).then_some(span.start)
}

#[derive(Clone, Debug)]
pub struct VarNode {
    pub name: Name,
    /// The label of the step that freshened this binder (`y@3.2`); `ROOT` if none.
    fresh: LabelId,
    pub binder: u32,
    uses: uses::Uses,
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
/// One link of lazy evaluation's chain of needs (`Machine::lazy_at`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Need {
    Step(StmtId),
    On(VarId),
    /// A call whose data argument is not complete, read back just now: it waits on the
    /// variable (the first its read-back met; `lazy_next_mut` then walks the whole argument,
    /// `needs.rs`).
    OnData(StmtId, VarId),
    Value,
    Blocked,
}

impl Need {
    fn on(self) -> Option<VarId> {
        match self {
            Need::On(v) | Need::OnData(_, v) => Some(v),
            _ => None,
        }
    }
}

/// The next move of lazy evaluation (`Machine::lazy_next`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lazy {
    Step(StmtId),
    /// The return variable is a value.
    Done,
    /// What the result needs cannot step (yet).
    Blocked,
}

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
    /// `Program::library_calls`: the program's calls of prelude list functions.
    library_sites: Arc<[(u32, u32)]>,
    /// (label, source offset) of each such call inlined so far: the label is the prefix of
    /// every statement the call became, which is how `library_call_of` finds the call a
    /// failing statement ran inside. Pruned with the labels (`compact_labels`).
    library_entered: Vec<(LabelId, u32)>,
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
            library_sites: Arc::from(p.library_calls.as_slice()),
            library_entered: Vec::new(),
        };
        let mut names: crate::names::FastMap<Name, VarId> = Default::default();
        let zero = m.labels.child(ROOT, 0);
        let mut resolve = |m: &mut Machine, n: Name| -> VarId { *names.entry(n).or_insert_with(|| m.new_var(n, ROOT)) };
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
            let id = m.push_stmt(label, bind, op, marked_place(&s.op, s.span, &p.library_calls));
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

    fn new_var(&mut self, name: Name, fresh: LabelId) -> VarId {
        let i = self.free_vars;
        if i != NONE {
            let v = &mut self.vars[i as usize];
            self.free_vars = v.count;
            v.name = name;
            v.fresh = fresh;
            v.binder = NONE;
            v.count = 0;
            self.spill.clear(&mut v.uses);
            return VarId(i);
        }
        self.vars.push(VarNode { name, fresh, binder: NONE, uses: uses::Uses::default(), count: 0 });
        VarId(self.vars.len() as u32 - 1)
    }

    /// A variable nothing mentions and nothing binds can never be mentioned again.
    #[inline]
    fn release_var(&mut self, v: VarId) {
        let n = &self.vars[v.0 as usize];
        if n.count == 0 && n.binder == NONE {
            // Its slot may be reused: a lazy walk that met it forgets it.
            if !self.walks.is_idle() {
                self.walks.forget_var(v);
            }
            let n = &mut self.vars[v.0 as usize];
            n.binder = FREED;
            n.count = self.free_vars;
            self.free_vars = v.0;
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
        self.closures.get(c.0).map(|c| (&c.tpl, self.operands.get(c.env)))
    }
    /// The variables an operation mentions (the closure's environment for a function).
    fn op_vars(&self, op: MOp) -> OpVars<'_> {
        match op {
            MOp::Alias(y) | MOp::Prj(_, y) => OpVars::Two([y, y], 1),
            MOp::Call(a, b) => OpVars::Two([a, b], 2),
            _ => OpVars::Slice(self.op_operands(op).map(|o| self.operands.get(o)).unwrap_or(&[])),
        }
    }
    /// The variables statement `s` uses, a closure's environment included (the def-use edges
    /// of the debugger's task graph).
    pub fn uses_of(&self, s: StmtId) -> Vec<VarId> {
        self.op_vars(self.stmts[s.0 as usize].op).as_slice().to_vec()
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
        let node = StmtNode { label, bind, op: MOp::Gone, at, prev: NONE, next: NONE };
        let id = match self.free_stmts {
            i if i != NONE => {
                self.free_stmts = self.stmts[i as usize].next;
                self.stmts[i as usize] = node;
                StmtId(i)
            }
            _ => {
                self.stmts.push(node);
                self.in_dirty.push(false);
                StmtId(self.stmts.len() as u32 - 1)
            }
        };
        // The operation goes in first: adding a use may compact the variable's use list, which
        // keeps only live statements, and this one must already count as live.
        self.stmts[id.0 as usize].op = op;
        self.each_op_var(op, |m, v| m.add_use(v, id));
        self.vars[bind.0 as usize].binder = id.0;
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
        let stmts = live_stmts.iter().map(|s| self.stmts[s.0 as usize].label);
        let vars = self.vars.iter().filter(|v| v.binder != FREED).map(|v| v.fresh);
        let tasks = self.tasks.iter().filter(|t| t.stmt.0 != NONE).map(|t| t.label);
        let roots: Vec<LabelId> = stmts.chain(vars).chain(tasks).collect();
        let map = self.labels.compact(roots.into_iter());
        let re = |l: &mut LabelId| l.0 = map[l.0 as usize];
        for s in &live_stmts {
            re(&mut self.stmts[s.0 as usize].label);
        }
        for v in self.vars.iter_mut().filter(|v| v.binder != FREED) {
            re(&mut v.fresh);
        }
        for t in self.tasks.iter_mut().filter(|t| t.stmt.0 != NONE) {
            re(&mut t.label);
        }
        // A call whose label nothing live extends any more can no longer be reported; one
        // folded into a run no longer names its own label (a note left out, never a wrong one).
        self.library_entered.retain_mut(|(l, _)| {
            l.0 = map[l.0 as usize];
            l.0 != u32::MAX
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
        self.stmts[s.0 as usize].next = self.free_stmts;
        self.free_stmts = s.0;
    }

    #[inline]
    fn add_use(&mut self, v: VarId, s: StmtId) {
        let var = &mut self.vars[v.0 as usize];
        var.count += 1;
        let (stmts, operands, closures) = (&self.stmts, &self.operands, &self.closures);
        if self.spill.last(&var.uses) != Some(s) {
            self.spill.push(&mut var.uses, s, |u| still_uses(stmts, operands, closures, u, v));
        }
        // Compact stale entries now and then so use lists stay O(live uses). A stale entry is a
        // statement that no longer uses `v`: gone, or its slot reused by another statement (a
        // reused slot is alive, so aliveness alone would keep it, and a deep recursion, which
        // reuses slots all the time, would compact on every use: quadratic).
        if var.uses.is_spilled() && self.spill.slice(&var.uses).len() > 2 * var.count as usize + 16 {
            let mut uses = std::mem::take(&mut var.uses);
            self.spill.compact(&mut uses, |u| still_uses(stmts, operands, closures, u, v));
            self.vars[v.0 as usize].uses = uses;
        }
    }

    #[inline]
    fn drop_use(&mut self, v: VarId) {
        let var = &mut self.vars[v.0 as usize];
        if var.count == 0 {
            return;
        }
        var.count -= 1;
        if var.count == 0 {
            if var.binder == NONE {
                self.release_var(v);
            } else {
                let b = StmtId(var.binder);
                self.mark_dirty(b);
            }
        }
    }

    #[inline]
    fn link_after(&mut self, prev: u32, id: StmtId) {
        let next = if prev == NONE { self.head } else { self.stmts[prev as usize].next };
        if next == self.cbv_hint && next != NONE {
            self.cbv_hint = id.0;
        }
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

    /// Removes a statement for good: its slot and, if unused, its variable are freed.
    fn remove(&mut self, id: StmtId) {
        self.unlink(id);
        let b = self.stmts[id.0 as usize].bind;
        self.release_var(b);
        self.free_stmt(id);
    }

    /// Removes a statement whose variable a replacement binds; returns the statement before it.
    fn unlink(&mut self, id: StmtId) -> u32 {
        let (prev, next) = {
            let n = &self.stmts[id.0 as usize];
            (n.prev, n.next)
        };
        if self.cbv_hint == id.0 {
            self.cbv_hint = prev;
        }
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
        let op = std::mem::replace(&mut self.stmts[id.0 as usize].op, MOp::Gone);
        self.drop_op(op);
        let b = self.stmts[id.0 as usize].bind;
        if self.vars[b.0 as usize].binder == id.0 {
            self.vars[b.0 as usize].binder = NONE;
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
        if !self.in_dirty[s.0 as usize] {
            self.in_dirty[s.0 as usize] = true;
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
            self.in_dirty[s.0 as usize] = false;
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
        let Some(waiting) = self.data_watch.remove(&v) else { return };
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
        (b < FREED).then_some(StmtId(b))
    }
    /// The innermost call of a prelude list function the program wrote that statement `s`
    /// came from (its label extends the call's). Only computed when a failure is reported.
    pub fn library_call_of(&self, s: StmtId) -> Option<LibraryCall> {
        if self.library_entered.is_empty() {
            return None;
        }
        let entered: std::collections::HashMap<LabelId, u32> = self.library_entered.iter().copied().collect();
        let mut l = self.labels.parent(self.stmts.get(s.0 as usize)?.label);
        while let Some(p) = l {
            if let Some(&offset) = entered.get(&p) {
                let i = self.library_sites.binary_search_by_key(&offset, |c| c.0).ok()?;
                let (name, shape) = *crate::desugar::prelude::SHAPES.get(self.library_sites[i].1 as usize)?;
                return Some(LibraryCall { offset, name, shape });
            }
            l = self.labels.parent(p);
        }
        None
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
        self.steps[r as usize]
    }
    pub fn var_name(&self, v: VarId) -> String {
        let n = &self.vars[v.0 as usize];
        if n.fresh == ROOT {
            n.name.to_string()
        } else {
            format!("{}@{}", n.name, self.labels.show(n.fresh))
        }
    }
    /// `var_name` with a deep freshening label abbreviated (`y@5.6.…6.6`), in O(1).
    pub fn var_name_short(&self, memo: &mut label::LabelMemo, v: VarId) -> String {
        let n = &self.vars[v.0 as usize];
        if n.fresh == ROOT {
            n.name.to_string()
        } else {
            format!("{}@{}", n.name, memo.short(&self.labels, n.fresh))
        }
    }
    /// A statement's label, abbreviated past a few levels (`5.6.…6.6`), in O(1).
    pub fn label_short(&self, memo: &mut label::LabelMemo, s: StmtId) -> String {
        memo.short(&self.labels, self.stmts[s.0 as usize].label)
    }
    /// A statement's label id (valid until the label table is next compacted).
    pub fn label_id(&self, s: StmtId) -> LabelId {
        self.stmts[s.0 as usize].label
    }
    /// A statement's label as a key for views (the same in every copy of the machine).
    pub fn label_key(&self, memo: &mut label::LabelMemo, s: StmtId) -> label::LabelKey {
        memo.key(&self.labels, self.stmts[s.0 as usize].label)
    }

    // ---- steppability -----------------------------------------------------------------

    /// Builds the primitive expression of a variable that `pexp_ready` accepted.
    fn pexp_of(&self, x: VarId) -> PExp {
        match self.binder(x).map(|b| self.stmts[b.0 as usize].op) {
            Some(MOp::Prim(c)) => PExp::Prim(self.prim(c).clone()),
            Some(MOp::Tuple(xs)) => PExp::Tuple(self.tuple(xs).iter().map(|x| self.pexp_of(*x)).collect()),
            _ => PExp::Tuple(vec![]),
        }
    }

    /// Is `x ↑E c̄` defined? Iterative, and bounded by `MAX_ARG_DEPTH`, so a hostile nesting
    /// of tuples cannot overflow the stack (here or when the argument is built and dropped).
    fn pexp_ready(&self, x: VarId) -> Result<(), Blocked> {
        // Fast path, allocation-free: a primitive, or a flat tuple of primitives.
        // The answer for a leaf (a variable that is not bound to a tuple); `None` for a tuple.
        let leaf = |v: VarId| -> Option<Result<(), Blocked>> {
            let Some(b) = self.binder(v) else { return Some(Err(Blocked::NotBound(v))) };
            match self.stmts[b.0 as usize].op {
                MOp::Prim(_) => Some(Ok(())),
                MOp::Tuple(_) => None,
                MOp::Fun(_) => Some(Err(Blocked::FunInArg(v))),
                _ => Some(Err(Blocked::WaitPrim(v))),
            }
        };
        // Also without allocating: a flat tuple, or one whose last components up to the first
        // one in the way are leaves. The walk below visits components last first, so it would
        // report the same one.
        match self.binder(x).map(|b| self.stmts[b.0 as usize].op) {
            Some(MOp::Tuple(xs)) => {
                let mut nested = false;
                for v in self.tuple(xs).iter().rev() {
                    match leaf(*v) {
                        Some(Ok(())) => {}
                        Some(Err(e)) => return Err(e),
                        None => {
                            nested = true;
                            break;
                        }
                    }
                }
                if !nested {
                    return Ok(());
                }
            }
            _ => {
                if let Some(r) = leaf(x) {
                    return r;
                }
            }
        }
        let mut stack = vec![(x, 0usize)];
        while let Some((x, depth)) = stack.pop() {
            if depth > MAX_ARG_DEPTH {
                return Err(Blocked::ArgTooDeep);
            }
            match leaf(x) {
                Some(r) => r?,
                None => {
                    if let Some(MOp::Tuple(xs)) = self.binder(x).map(|b| self.stmts[b.0 as usize].op) {
                        stack.extend(self.tuple(xs).iter().map(|x| (*x, depth + 1)));
                    }
                }
            }
        }
        Ok(())
    }

    /// The argument `w` as data (a list, boolean or dictionary inside it read back), or what
    /// it waits on; a function that is not data makes the call stuck (`FunInArg`).
    fn data_arg(&self, w: VarId) -> Result<PExp, Blocked> {
        let (r, cost) = self.data(w, readback::Budget::RESULT);
        self.data_cost.set(cost as u64);
        match r {
            Ok(p) => Ok(p),
            Err(readback::NoData::Waits(v)) => Err(Blocked::WaitData(v)),
            Err(readback::NoData::TooDeep) => Err(Blocked::DataTooDeep),
            Err(readback::NoData::TooBig) => Err(Blocked::DataTooBig),
            Err(readback::NoData::Function) => Err(Blocked::FunInArg(w)),
        }
    }

    /// The rule that applies at `s`, or why none does. Allocation-free: the strategies call
    /// it for every statement a step touched.
    pub fn steppable(&self, s: StmtId) -> Result<Rule, Blocked> {
        let node = &self.stmts[s.0 as usize];
        match node.op {
            MOp::Gone => Err(Blocked::Gone),
            MOp::Alias(_) => Ok(Rule::ReduceAlias),
            MOp::Fun(_) | MOp::Tuple(_) | MOp::Prim(_) => {
                if self.vars[node.bind.0 as usize].count == 0 {
                    Ok(Rule::ReduceGc)
                } else {
                    Err(Blocked::Value)
                }
            }
            MOp::Call(f, w) => {
                let Some(fb) = self.binder(f) else { return Err(Blocked::NotBound(f)) };
                match self.stmts[fb.0 as usize].op {
                    MOp::Fun(_) => Ok(Rule::ReduceCall),
                    MOp::Prim(p) if matches!(self.prim(p), Prim::Ext(_)) => match self.pexp_ready(w) {
                        Ok(()) => Ok(Rule::Dispatch),
                        Err(Blocked::FunInArg(_)) => self.data_arg(w).map(|_| Rule::Dispatch),
                        Err(e) => Err(e),
                    },
                    MOp::Prim(_) => Err(Blocked::CallPrim(f)),
                    MOp::Tuple(_) => Err(Blocked::CallTuple(f)),
                    MOp::Task(_) => Err(Blocked::WaitTask(f)),
                    _ => Err(Blocked::WaitFun(f)),
                }
            }
            MOp::Prj(i, x) => {
                let Some(xb) = self.binder(x) else { return Err(Blocked::NotBound(x)) };
                match self.stmts[xb.0 as usize].op {
                    MOp::Tuple(xs) if (i as usize) >= 1 && (i as usize) <= xs.len() => Ok(Rule::ReduceProj),
                    MOp::Tuple(xs) => Err(Blocked::PrjRange(i, xs.len())),
                    MOp::Fun(_) => Err(Blocked::PrjFun(i, x)),
                    MOp::Prim(_) => Err(Blocked::PrjPrim(i, x)),
                    _ => Err(Blocked::WaitTuple(x)),
                }
            }
            MOp::Task(t) => match &self.tasks[t.0 as usize].outcome {
                None => Err(Blocked::Pending),
                Some(Outcome::Failed(_)) => Err(Blocked::Failed(t)),
                Some(_) => Ok(Rule::Resolve),
            },
        }
    }

    /// What cbv steps next: the leftmost statement that is not a value, if it is steppable
    /// (SEMANTICS.md §5; a task or a stuck statement there stops it).
    pub fn cbv_next(&self) -> Option<StmtId> {
        let s = self.iter().find(|s| !self.stmts[s.0 as usize].op.is_value())?;
        self.steppable(s).is_ok().then_some(s)
    }

    /// `cbv_next` in O(1) amortised, for a caller that steps what it returns (the runner, the
    /// debugger's cbv action).
    pub fn cbv_next_mut(&mut self) -> Option<StmtId> {
        let mut cur = if self.cbv_hint == NONE { self.head } else { self.cbv_hint };
        while cur != NONE && self.stmts[cur as usize].op.is_value() {
            self.cbv_hint = cur;
            cur = self.stmts[cur as usize].next;
        }
        if cur == NONE {
            return None;
        }
        self.cbv_hint = cur;
        let s = StmtId(cur);
        self.steppable(s).is_ok().then_some(s)
    }

    /// `lazy_next` in O(1) amortised (the chain of needs is kept between steps), for a caller
    /// that steps what it returns.
    pub fn lazy_next_mut(&mut self) -> Lazy {
        let Some(root) = self.lazy_root().or_else(|| self.lazy_print_need_mut()) else { return Lazy::Done };
        if self.lazy_stack.first() != Some(&root) {
            self.lazy_stack.clear();
            self.lazy_stack.push(root);
        }
        // The step just taken may have renamed the top (alias) or made it a value.
        while let [.., parent, top] = self.lazy_stack[..] {
            if self.lazy_at(parent).on() == Some(top) {
                break;
            }
            self.lazy_stack.pop();
        }
        // A chain longer than the term has a cycle (ill-formed): give up as the scan would.
        let limit = self.live + 1;
        loop {
            let Some(&top) = self.lazy_stack.last() else { return Lazy::Blocked };
            let next = match self.lazy_at(top) {
                Need::Step(b) => {
                    self.lazy_proposed = b.0;
                    return Lazy::Step(b);
                }
                Need::Blocked | Need::Value => return Lazy::Blocked,
                Need::On(v) => v,
                Need::OnData(call, v) => {
                    if let MOp::Call(_, w) = self.stmts[call.0 as usize].op {
                        self.walk_data(call, w);
                    }
                    v
                }
            };
            if self.lazy_stack.len() > limit {
                return Lazy::Blocked;
            }
            self.lazy_stack.push(next);
        }
    }

    /// The first part of the result lazy evaluation still has to compute: the return variable,
    /// or once that is a tuple, its first component (depth first) that is not a value.
    fn lazy_root(&self) -> Option<VarId> {
        match self.binder(self.ret).map(|b| self.stmts[b.0 as usize].op) {
            Some(MOp::Tuple(_)) => {}
            Some(MOp::Fun(_) | MOp::Prim(_)) | None => return None,
            Some(_) => return Some(self.ret),
        }
        let mut seen = std::collections::HashSet::new();
        let mut result = vec![self.ret];
        while let Some(v) = result.pop() {
            if !seen.insert(v) {
                continue;
            }
            match self.binder(v).map(|b| self.stmts[b.0 as usize].op) {
                Some(MOp::Tuple(xs)) => result.extend(self.tuple(xs).iter().rev()),
                Some(MOp::Fun(_) | MOp::Prim(_)) | None => {}
                Some(_) => return Some(v),
            }
        }
        None
    }

    /// One link of lazy evaluation's chain: what computing `need` takes next.
    fn lazy_at(&self, need: VarId) -> Need {
        let Some(b) = self.binder(need) else { return Need::Blocked };
        match self.stmts[b.0 as usize].op {
            MOp::Fun(_) | MOp::Tuple(_) | MOp::Prim(_) => Need::Value,
            MOp::Gone => Need::Blocked,
            MOp::Alias(_) => Need::Step(b),
            MOp::Task(_) => {
                if self.steppable(b).is_ok() {
                    Need::Step(b)
                } else {
                    Need::Blocked
                }
            }
            MOp::Call(..) => {
                // A data argument known to wait: what it waits on, without reading it back.
                if let Some(v) = self.data_need(b) {
                    return Need::On(v);
                }
                // What `explain` calls waiting, without writing its message.
                match self.steppable(b) {
                    Ok(_) => Need::Step(b),
                    Err(Blocked::WaitPrim(v) | Blocked::WaitTask(v) | Blocked::WaitFun(v) | Blocked::WaitTuple(v)) => Need::On(v),
                    Err(Blocked::WaitData(v)) => Need::OnData(b, v),
                    Err(_) => Need::Blocked,
                }
            }
            MOp::Prj(_, x) => match self.steppable(b) {
                Ok(_) => Need::Step(b),
                Err(Blocked::WaitPrim(_) | Blocked::WaitTask(_) | Blocked::WaitFun(_) | Blocked::WaitTuple(_)) => Need::On(x),
                Err(_) => Need::Blocked,
            },
        }
    }

    /// What lazy evaluation steps next: follow what the return variable needs — the binder of
    /// a needed variable; for a call first its function, for a projection first its tuple.
    /// Printing the result needs its tuple components too, so once the return variable is a
    /// tuple, its components are needed in order (a function or primitive needs nothing more).
    /// O(length of the chain of needs); a stepper uses `lazy_next_mut`.
    pub fn lazy_next(&self) -> Lazy {
        let Some(mut need) = self.lazy_root().or_else(|| self.lazy_print_need()) else { return Lazy::Done };
        let mut seen = std::collections::HashSet::new();
        while seen.insert(need) {
            match self.lazy_at(need) {
                Need::Step(b) => return Lazy::Step(b),
                Need::On(v) | Need::OnData(_, v) => need = v,
                Need::Value | Need::Blocked => return Lazy::Blocked,
            }
        }
        Lazy::Blocked
    }

    pub fn status(&self, s: StmtId) -> Status {
        match self.steppable(s) {
            Ok(r) => Status::Steppable(r),
            Err(b) => self.explain(b),
        }
    }

    /// Why a statement cannot step, in words.
    fn explain(&self, b: Blocked) -> Status {
        let name = |v: VarId| self.var_name(v);
        let prim = |v: VarId| match self.binder(v).map(|b| self.stmts[b.0 as usize].op) {
            Some(MOp::Prim(p)) => crate::diag::clip_display(self.prim(p)),
            _ => name(v),
        };
        let waiting = |on: VarId, why: String| Status::Waiting { on: Some(on), why };
        match b {
            Blocked::Gone => Status::Stuck("this statement no longer exists".into()),
            Blocked::Value => Status::Value,
            Blocked::Pending => Status::Pending,
            Blocked::NotBound(v) => Status::Stuck(format!("`{}` is not bound", name(v))),
            Blocked::FunInArg(v) => {
                Status::Stuck(format!("the argument contains a function (`{}`); externals take only primitives and tuples of them", name(v)))
            }
            Blocked::ArgTooDeep => Status::Stuck(format!("the argument nests tuples more than {MAX_ARG_DEPTH} deep; pass an external something flatter")),
            Blocked::DataTooDeep => Status::Stuck(format!(
                "the argument nests lists, dictionaries or tuples more than {} levels deep; pass an external something flatter",
                readback::Budget::RESULT.depth
            )),
            Blocked::DataTooBig => Status::Stuck(format!(
                "the argument could not be read back as data within {} steps (a list of millions of items, or a function that loops); pass an external something smaller",
                readback::Budget::RESULT.steps
            )),
            Blocked::WaitPrim(v) => waiting(v, format!("waiting for `{}` to become a primitive value", name(v))),
            Blocked::CallPrim(v) => Status::Stuck(format!("`{}` is the primitive {}, not a function, so it cannot be called", name(v), prim(v))),
            Blocked::CallTuple(v) => Status::Stuck(format!("`{}` is a tuple, not a function, so it cannot be called", name(v))),
            Blocked::WaitTask(v) => waiting(v, format!("waiting for the external call that computes `{}` to resolve", name(v))),
            Blocked::WaitFun(v) => waiting(v, format!("waiting for `{}` to become a function", name(v))),
            Blocked::PrjRange(i, n) => Status::Stuck(format!("`prj {i}` of a tuple with {n} components")),
            Blocked::PrjFun(i, v) => Status::Stuck(format!("`prj {i}` of a function (`{}`)", name(v))),
            Blocked::PrjPrim(i, v) => Status::Stuck(format!("`prj {i}` of the primitive {}", prim(v))),
            Blocked::WaitTuple(v) => waiting(v, format!("waiting for `{}` to become a tuple", name(v))),
            Blocked::WaitData(v) => waiting(v, format!("waiting for `{}`: the argument's list (or dictionary) is not complete yet", name(v))),
            Blocked::Failed(t) => {
                let task = &self.tasks[t.0 as usize];
                let e = match &task.outcome {
                    Some(Outcome::Failed(e)) => e.as_str(),
                    _ => "",
                };
                Status::Stuck(format!("the external call `{}` failed: {e}", task.ext))
            }
        }
    }

    // ---- the rules ----------------------------------------------------------------------

    /// Takes one step at `s` if it is steppable. Dispatch returns the new task; the caller
    /// starts the external call. The statements the step created are in `created()`.
    pub fn step(&mut self, s: StmtId) -> Option<StepEvent> {
        let rule = self.steppable(s).ok()?;
        // Garbage is used by nothing, so it is never on the chain of needs.
        if s.0 != self.lazy_proposed && rule != Rule::ReduceGc {
            self.lazy_stack.clear();
        }
        let label = self.stmts[s.0 as usize].label;
        if !self.data_watch.is_empty() {
            self.data_changed(self.stmts[s.0 as usize].bind);
        }
        self.steps[rule as usize] += 1;
        self.created.clear();
        let mut ev = StepEvent { rule, label, task: None };
        match rule {
            Rule::ReduceAlias => self.reduce_alias(s),
            Rule::ReduceGc => self.remove(s),
            Rule::ReduceProj => {
                let MOp::Prj(i, x) = self.stmts[s.0 as usize].op else { return None };
                let xb = self.binder(x)?;
                let MOp::Tuple(xs) = self.stmts[xb.0 as usize].op else { return None };
                let xi = *self.tuple(xs).get(i as usize - 1)?;
                let mut at = self.open(s);
                self.put(&mut at, None, MOp::Alias(xi), None);
            }
            Rule::ReduceCall => {
                let MOp::Call(f, w) = self.stmts[s.0 as usize].op else { return None };
                let fb = self.binder(f)?;
                let MOp::Fun(clo) = self.stmts[fb.0 as usize].op else { return None };
                let mut env = std::mem::take(&mut self.scratch_env);
                env.clear();
                let Some((tpl, clo_env)) = self.closure(clo) else {
                    self.scratch_env = env;
                    return None;
                };
                let tpl = tpl.clone();
                env.extend_from_slice(clo_env);
                self.inline(s, &tpl, &env, Some(w), false);
                self.scratch_env = env;
            }
            Rule::Dispatch => {
                let MOp::Call(f, w) = self.stmts[s.0 as usize].op else { return None };
                let ext = match self.binder(f).map(|b| self.stmts[b.0 as usize].op) {
                    Some(MOp::Prim(p)) => match self.prim(p) {
                        Prim::Ext(e) => e.clone(),
                        _ => return None,
                    },
                    _ => return None,
                };
                let arg = match self.pexp_ready(w) {
                    Ok(()) => self.pexp_of(w),
                    Err(_) => self.data_arg(w).ok()?,
                };
                // An ordered call's argument is `(seq, x)`: the external sees x alone. (`join`
                // takes tokens too, as data: only an ordered external's token is taken off.)
                let is_ordered = self.ordered.contains(&ext);
                let (arg, ordered) = match arg {
                    PExp::Tuple(mut xs) if is_ordered && xs.len() == 2 && matches!(&xs[0], PExp::Prim(Prim::Handle(h)) if &**h == crate::ir::SEQ_TOKEN) => {
                        (xs.pop().unwrap_or(PExp::Tuple(vec![])), true)
                    }
                    other => (other, false),
                };
                let rec = TaskRec { stmt: s, label, ext, arg, outcome: None, stream: None, dispatched_at_ms: 0.0, resolved_at_ms: None, ordered };
                let t = self.new_task(rec);
                let op = std::mem::replace(&mut self.stmts[s.0 as usize].op, MOp::Task(t));
                self.drop_op(op);
                self.dispatched += 1;
                ev.task = Some(t);
                self.walks.forget_stmt(s);
            }
            Rule::Resolve => {
                let MOp::Task(t) = self.stmts[s.0 as usize].op else { return None };
                ev.task = Some(t);
                if let Some(Outcome::Failed(_)) = self.tasks[t.0 as usize].outcome {
                    return None;
                }
                // Taken out while the resolution inlines it (which needs `&mut self`), then put back.
                let outcome = self.tasks[t.0 as usize].outcome.take()?;
                let ordered = self.tasks[t.0 as usize].ordered;
                match &outcome {
                    Outcome::Expr(tpl, _) => self.inline(s, tpl, &[], None, ordered),
                    Outcome::Value(c) => {
                        let v = self.new_var(Name { base: sym_v(), idx: 0 }, label);
                        let mut at = self.open(s);
                        let c = self.new_prim(c.clone());
                        self.put(&mut at, Some(v), c, None);
                        self.finish(&mut at, v, ordered);
                    }
                    Outcome::Partial { items, more } => self.resolve_partial(s, t, items, *more, ordered),
                    Outcome::Failed(_) => {}
                }
                self.tasks[t.0 as usize].outcome = Some(outcome);
                // The task's record stays readable until the strategies next recycle slots.
                self.tasks[t.0 as usize].stmt = StmtId(NONE);
                self.freed_tasks.push(t.0);
            }
        }
        self.advance_walks();
        Some(ev)
    }

    fn new_task(&mut self, rec: TaskRec) -> TaskId {
        match self.free_tasks.pop() {
            Some(i) => {
                self.tasks[i as usize] = rec;
                TaskId(i)
            }
            None => {
                self.tasks.push(rec);
                TaskId(self.tasks.len() as u32 - 1)
            }
        }
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
        let s = self.tasks[t.0 as usize].stmt;
        s.0 != NONE && matches!(self.stmts[s.0 as usize].op, MOp::Task(x) if x == t)
    }

    /// Records the outcome of a task's external call; the task becomes resolvable.
    pub fn deliver(&mut self, t: TaskId, outcome: Outcome, at_ms: f64) {
        if !self.task_live(t) {
            return;
        }
        let task = &mut self.tasks[t.0 as usize];
        if task.outcome.is_some() {
            return;
        }
        task.outcome = Some(outcome);
        task.resolved_at_ms = Some(at_ms);
        let s = task.stmt;
        self.mark_dirty(s);
    }

    fn reduce_alias(&mut self, s: StmtId) {
        let (y, x) = {
            let n = &self.stmts[s.0 as usize];
            match n.op {
                MOp::Alias(x) => (n.bind, x),
                _ => return,
            }
        };
        // Hold x while the alias leaves, so its use count does not pass through zero (which
        // would mark its binder dirty for nothing when y's uses are about to become x's).
        self.vars[x.0 as usize].count += 1;
        self.remove(s);
        if x == y {
            self.drop_use(x);
            return;
        }
        // Every occurrence of y becomes x. When x occurs in fewer statements than y, the same
        // term is reached by renaming x's occurrences to y and giving y x's binding, name and
        // label instead: each step then costs the smaller use list, and a long chain of
        // aliases (a lazy left fold defers one call per element, all using one function,
        // renamed at every element) costs O(n log n) in all instead of O(n²).
        // (A y nothing uses was freed by the removal: its slot is not ours to rename into.)
        let len = |v: VarId| self.spill.slice(&self.vars[v.0 as usize].uses).len();
        if self.vars[y.0 as usize].binder != FREED && len(x) < len(y) && x != self.ret && !self.on_lazy_stack(x, y) && !self.data_watch.contains_key(&x) {
            self.alias_into(y, x);
            return;
        }
        if !self.walks.is_idle() {
            self.walks.survives(y, x);
        }
        let mut notify = std::mem::take(&mut self.scratch_stmts);
        notify.clear();
        self.rename_occurrences(y, x, &mut notify);
        if self.ret == y {
            self.ret = x;
            self.vars[x.0 as usize].count += 1;
            self.vars[y.0 as usize].count = self.vars[y.0 as usize].count.saturating_sub(1);
        }
        self.drop_use(x);
        self.release_var(y);
        for &u in &notify {
            self.notify(u);
        }
        self.scratch_stmts = notify;
    }

    /// Every occurrence of `from` becomes `to`: the operands, the use counts and the use lists
    /// move over; the statements that changed are appended to `renamed`.
    fn rename_occurrences(&mut self, from: VarId, to: VarId, renamed: &mut Vec<StmtId>) {
        let mut uses = std::mem::take(&mut self.vars[from.0 as usize].uses);
        let mut users = std::mem::take(&mut self.scratch_users);
        users.clear();
        users.extend_from_slice(self.spill.slice(&uses));
        self.spill.clear(&mut uses);
        for &u in &users {
            let mut n = 0;
            let mut sub = |v: &mut VarId| {
                if *v == from {
                    *v = to;
                    n += 1;
                }
            };
            match &mut self.stmts[u.0 as usize].op {
                MOp::Alias(v) | MOp::Prj(_, v) => sub(v),
                MOp::Call(a, b) => {
                    sub(a);
                    sub(b)
                }
                MOp::Tuple(o) => self.operands.data[o.range()].iter_mut().for_each(sub),
                MOp::Fun(c) => {
                    if let Some(c) = self.closures.get(c.0) {
                        self.operands.data[c.env.range()].iter_mut().for_each(sub)
                    }
                }
                MOp::Prim(_) | MOp::Task(_) | MOp::Gone => {}
            }
            if n == 0 {
                continue;
            }
            let tv = &mut self.vars[to.0 as usize];
            tv.count += n;
            if self.spill.last(&tv.uses) != Some(u) {
                let (stmts, operands, closures) = (&self.stmts, &self.operands, &self.closures);
                self.spill.push(&mut tv.uses, u, |u| still_uses(stmts, operands, closures, u, to));
            }
            self.vars[from.0 as usize].count -= n.min(self.vars[from.0 as usize].count);
            renamed.push(u);
        }
        self.vars[from.0 as usize].uses = uses;
        self.scratch_users = users;
    }

    /// Is x on the lazy chain of needs (`lazy_stack`), where renaming it would leave a stale
    /// entry? A lazy step of `y := x` has y on top, and x below it would be a cycle of needs;
    /// so the O(depth) search runs only for a step the lazy strategy did not propose.
    fn on_lazy_stack(&self, x: VarId, y: VarId) -> bool {
        match self.lazy_stack.last() {
            None => false,
            Some(&top) if top == y => false,
            Some(_) => self.lazy_stack.contains(&x),
        }
    }

    /// reduce-alias of `y := x` (already removed) by renaming x's occurrences to y: y takes
    /// x's binding statement, name and label, so the term reads exactly as if y had become x.
    /// y's own users now see x's binding: they may step if it is a value.
    fn alias_into(&mut self, y: VarId, x: VarId) {
        if !self.walks.is_idle() {
            self.walks.survives(x, y);
        }
        let mut renamed = std::mem::take(&mut self.scratch_stmts);
        renamed.clear();
        self.rename_occurrences(x, y, &mut renamed);
        self.scratch_stmts = renamed;
        // y is x now: its binding statement, and the name and label it prints with.
        let b = self.vars[x.0 as usize].binder;
        let (name, fresh) = (self.vars[x.0 as usize].name, self.vars[x.0 as usize].fresh);
        let yv = &mut self.vars[y.0 as usize];
        yv.binder = b;
        yv.name = name;
        yv.fresh = fresh;
        if b < FREED {
            self.stmts[b as usize].bind = y;
        }
        let xv = &mut self.vars[x.0 as usize];
        xv.binder = NONE;
        xv.count = 0; // the hold taken for the alias's removal
        self.release_var(x);
        // y's users waited for y's binding (an alias): a value there may let them step. A
        // binding that is not a value becomes one only through a step that renames y, which
        // tells them then.
        if b < FREED && self.stmts[b as usize].op.is_value() {
            let mut users = std::mem::take(&mut self.scratch_users);
            users.clear();
            users.extend_from_slice(self.spill.slice(&self.vars[y.0 as usize].uses));
            for &u in &users {
                self.notify(u);
            }
            self.scratch_users = users;
        }
        // Nothing may use y any more (its statements were garbage): it is then garbage too.
        if self.vars[y.0 as usize].count == 0 && b < FREED {
            self.mark_dirty(StmtId(b));
        }
    }

    /// A statement's operands changed: it and, through tuples, its users may now step.
    fn notify(&mut self, s: StmtId) {
        self.mark_dirty(s);
        if !matches!(self.stmts[s.0 as usize].op, MOp::Tuple(_)) {
            return;
        }
        let mut stack = std::mem::take(&mut self.scratch_notify);
        stack.clear();
        stack.push(s);
        while let Some(u) = stack.pop() {
            self.mark_dirty(u);
            if let MOp::Tuple(_) = self.stmts[u.0 as usize].op {
                let b = self.stmts[u.0 as usize].bind;
                for &w in self.spill.slice(&self.vars[b.0 as usize].uses) {
                    if self.stmts[w.0 as usize].is_alive() && !self.in_dirty[w.0 as usize] {
                        stack.push(w);
                    }
                }
            }
        }
        self.scratch_notify = stack;
    }

    /// Starts replacing statement `s`: it leaves the term; `put` inserts its replacements.
    fn open(&mut self, s: StmtId) -> Insert {
        let n = &self.stmts[s.0 as usize];
        // What replaces a statement is not the call the program wrote: it keeps the place only.
        let (label, bind, at) = (n.label, n.bind, unmarked(n.at));
        let prev = self.unlink(s);
        self.free_stmt(s);
        Insert { prev, label, bind, at, next: 1 }
    }

    /// Inserts the next replacement statement `ℓ.i`; `None` binds the replaced statement's variable.
    fn put(&mut self, at: &mut Insert, bind: Option<VarId>, op: MOp, pos: Option<u32>) -> StmtId {
        let l = self.labels.child(at.label, at.next);
        at.next += 1;
        let id = self.push_stmt(l, bind.unwrap_or(at.bind), op, pos.unwrap_or(at.at));
        self.link_after(at.prev, id);
        at.prev = id.0;
        // Only what can step goes in the dirty set now, decided while the node is in cache:
        // every later change that could make a statement steppable marks it then. A new value
        // can only step by reduce-gc, and only if nothing uses it once the step is done
        // (`inline` marks those); a call or projection is decided now, since what it waits on
        // is bound earlier in the term and no later statement of this step changes it.
        let now = match op {
            MOp::Alias(_) => true,
            _ if op.is_value() => false,
            // A dispatch made by this step that waits for its data (a `print xs` in a branch
            // while `xs` still streams) watches it, as a round's candidate does: nothing else
            // would mark it dirty when the data completes.
            _ => match self.steppable(id) {
                Ok(_) => true,
                Err(Blocked::WaitData(v)) => {
                    self.watch_data(v, id, self.data_cost.get());
                    false
                }
                Err(_) => false,
            },
        };
        if now {
            self.mark_dirty(id);
        }
        self.created.push(id);
        id
    }

    /// reduce-call and resolve: `x' := w; s̄'; z := y'` with the body freshened at ℓ.
    /// Statements keep the source span they were written at (the debugger's current line).
    fn inline(&mut self, s: StmtId, tpl: &Template, env: &[VarId], arg: Option<VarId>, ordered: bool) {
        let (label, at) = (self.stmts[s.0 as usize].label, self.stmts[s.0 as usize].at);
        if at != NONE && at & LIBRARY_CALL != 0 {
            self.library_entered.push((label, at & !LIBRARY_CALL));
        }
        let mut locals = std::mem::take(&mut self.scratch_locals);
        locals.clear();
        for n in &tpl.names {
            let v = self.new_var(*n, label);
            locals.push(v);
        }
        let map = |v: TVar| match v {
            TVar::Free(i) => env[i as usize],
            TVar::Local(i) => locals[i as usize],
        };
        let mut at = self.open(s);
        if let Some(w) = arg {
            self.put(&mut at, Some(locals[0]), MOp::Alias(w), None);
        }
        for ts in &tpl.stmts {
            let op = match ts.op {
                TOp::Alias(y) => MOp::Alias(map(y)),
                TOp::Call(f, x) => MOp::Call(map(f), map(x)),
                TOp::Tuple(start, len) => MOp::Tuple(self.operands.alloc(tpl.tuple(start, len).iter().map(|x| map(*x)))),
                TOp::Prj(i, x) => MOp::Prj(i, map(x)),
                TOp::Prim(i) => self.new_prim(tpl.prim(i).clone()),
                TOp::Fun(i) => {
                    let (t, caps) = tpl.fun(i);
                    self.new_fun(t.clone(), caps.iter().map(|c| map(*c)))
                }
            };
            self.put(&mut at, Some(locals[ts.local as usize]), op, (ts.at != NONE).then_some(ts.at));
        }
        self.finish(&mut at, map(tpl.ret), ordered);
        // Binders of the template that no statement uses are garbage already: a value bound
        // to one is steppable by reduce-gc (`put` left it unmarked).
        for &v in &locals {
            if self.vars[v.0 as usize].count == 0 {
                if let Some(b) = self.binder(v) {
                    self.mark_dirty(b);
                }
            }
            self.release_var(v);
        }
        self.scratch_locals = locals;
    }

    /// The last statement of a replacement: `z := y`, or for an ordered call's resolution
    /// `k := <seq>; r := (k, y); z := r`, the token the next ordered call waits for. (It ends
    /// in an alias like every replacement: reduce-alias is what tells z's users.)
    fn finish(&mut self, at: &mut Insert, y: VarId, ordered: bool) {
        if !ordered {
            self.put(at, None, MOp::Alias(y), None);
            return;
        }
        let k = self.new_var(Name::plain(crate::ir::SEQ_TOKEN), at.label);
        let token = self.new_prim(Prim::Handle(Arc::from(crate::ir::SEQ_TOKEN)));
        self.put(at, Some(k), token, None);
        let r = self.new_var(Name::plain("r"), at.label);
        let pair = MOp::Tuple(self.operands.alloc([k, y].into_iter()));
        self.put(at, Some(r), pair, None);
        self.put(at, None, MOp::Alias(r), None);
    }

    /// resolve of a streaming task: `h := <<rest>>` (if more), the partial list, `z := l`.
    fn resolve_partial(&mut self, s: StmtId, t: TaskId, items: &[Prim], more: bool, ordered: bool) {
        let label = self.stmts[s.0 as usize].label;
        let tpl = partial_list_template(items, more);
        let mut at = self.open(s);
        let mut env = Vec::new();
        if more {
            let h = self.new_var(Name::plain("rest"), label);
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
                ordered: false,
            };
            let nt = self.new_task(rec);
            let hs = self.put(&mut at, Some(h), MOp::Task(nt), None);
            self.tasks[nt.0 as usize].stmt = hs;
            self.tasks[nt.0 as usize].label = self.stmts[hs.0 as usize].label;
            self.dispatched += 1;
            env.push(h);
        }
        let l = self.new_var(Name::plain("list"), label);
        let f = self.new_fun(tpl, env.into_iter());
        self.put(&mut at, Some(l), f, None);
        self.finish(&mut at, l, ordered);
    }

    /// The task that continues a stream's list, if the last step (a resolve) created one.
    pub fn continuation(&self, ev: &StepEvent) -> Option<TaskId> {
        self.created.first().and_then(|s| match self.stmts[s.0 as usize].op {
            MOp::Task(nt) if ev.rule == Rule::Resolve => Some(nt),
            _ => None,
        })
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
            ("statements", cap(&self.stmts) + cap(&self.in_dirty)),
            ("variables", cap(&self.vars) + self.spill.memory()),
            ("labels", self.labels.memory()),
            ("tasks", cap(&self.tasks)),
            ("operands", cap(&self.operands.data) + self.operands.free.iter().map(cap).sum::<usize>()),
            ("primitives", cap(&self.prims.items) + cap(&self.prims.free)),
            ("closures", cap(&self.closures.items) + cap(&self.closures.free)),
            ("dirty and free lists", cap(&self.dirty) + cap(&self.freed_tasks) + cap(&self.free_tasks)),
        ]
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
            let vars = self.op_vars(n.op);
            vars.as_slice().iter().for_each(|v| counts[v.0 as usize] += 1);
            let missing = vars.as_slice().iter().find(|v| !self.spill.slice(&self.vars[v.0 as usize].uses).contains(s));
            if let Some(v) = missing {
                return Err(format!("use of `{}` at {} is not in its use list", self.var_name(*v), self.label_of(*s)));
            }
        }
        counts[self.ret.0 as usize] += 1;
        for (i, v) in self.vars.iter().enumerate() {
            // A free slot's `count` links the free list.
            if v.binder != FREED && counts[i] != v.count {
                return Err(format!("`{}` has count {} but {} uses", self.var_name(VarId(i as u32)), v.count, counts[i]));
            }
        }
        Ok(())
    }
}

/// `fun p: st := prj 1 p; ap := prj 2 p; (x_i := <c_i>; st := ap (st, x_i))*; [st := rest (st, ap)]; st`
fn partial_list_template(items: &[Prim], more: bool) -> Arc<Template> {
    let mut t = Template::with_names(vec![Name::plain("p"), Name::plain("state"), Name::plain("append")]);
    t.push(1, TOp::Prj(1, TVar::Local(0)));
    t.push(2, TOp::Prj(2, TVar::Local(0)));
    let mut state = 1u32;
    let fresh = |t: &mut Template, base: &str, i: u32| {
        t.names.push(Name { base: crate::names::Sym::intern(base), idx: i });
        t.names.len() as u32 - 1
    };
    for (i, c) in items.iter().enumerate() {
        let i = i as u32 + 1;
        let x = fresh(&mut t, "x", i);
        let op = t.prim_op(c.clone());
        t.push(x, op);
        let tu = fresh(&mut t, "t", i);
        let op = t.tuple_op([TVar::Local(state), TVar::Local(x)]);
        t.push(tu, op);
        let st = fresh(&mut t, "state", i);
        t.push(st, TOp::Call(TVar::Local(2), TVar::Local(tu)));
        state = st;
    }
    if more {
        let k = items.len() as u32 + 1;
        let tu = fresh(&mut t, "t", k);
        let op = t.tuple_op([TVar::Local(state), TVar::Local(2)]);
        t.push(tu, op);
        let st = fresh(&mut t, "state", k);
        t.push(st, TOp::Call(TVar::Free(0), TVar::Local(tu)));
        state = st;
        t.free = vec![Name::plain("rest")];
    }
    t.ret = TVar::Local(state);
    Arc::new(t)
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
