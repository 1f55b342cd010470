//! A debugging session: a program on the λ^O machine that the user steps one statement, one
//! round, or by cbv or lazy at a time. Dispatched tasks wait until the user resolves them (by
//! hand, from the world file, from a recorded trace, live); pure externals resolve at dispatch
//! as in `opal run`.
//!
//! Everything the user does is an `Action`, and the state is a function of the action list:
//! time travel restores the nearest checkpoint and replays, a saved session is the list, and
//! a reloaded program replays as much of it as still applies. Statements are identified in
//! views by `LabelKey` (a hash of the label, O(1) to get however deep labels grow) and shown
//! with abbreviated labels; actions keep whole labels only where the user named a statement.

use crate::timeline::Call;
use opal_core::diag::Diagnostic;
use opal_core::machine::explore::resolve_now;
use opal_core::machine::label::{LabelKey, LabelMemo};
use opal_core::machine::readback::{Budget, Value};
pub use opal_core::machine::run::Strategy;
use opal_core::machine::run::{eval_pure, outcome_record, Host};
use opal_core::machine::trace::Trace;
use opal_core::machine::{Lazy, MOp, Machine, Outcome, Rule, Status, StmtId, TaskId, VarId};
use opal_core::span::LineIndex;
use opal_core::world::{Reply, World};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::HashMap;

/// Keep at most this many checkpoints; past it, every other one is dropped (their spacing
/// doubles), so a long history costs O(log) copies of the state, not one per 16 actions.
const MAX_CHECKPOINTS: usize = 40;
/// Default step budget of long-running jobs (run until, confluence), adjustable.
pub const DEFAULT_STEP_BUDGET: usize = 100_000;

/// Where a resolution came from.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum By {
    Hand,
    World,
    Trace,
    /// A live external (`llm`, a process) answered.
    Live,
}

/// One thing the user did. A session is a list of these.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// Step the statement labeled `label` (clicked). `strategy` is kept for session files
    /// written before cbv and lazy steps had actions of their own.
    Step {
        label: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strategy: Option<String>,
        #[serde(default)]
        at_ms: f64,
    },
    /// One opportunistic round: every statement steppable at its start steps.
    Round {
        #[serde(default)]
        at_ms: f64,
    },
    /// One call-by-value step (the statement cbv chooses when the action applies).
    Cbv {
        #[serde(default)]
        at_ms: f64,
    },
    /// One lazy step.
    Lazy {
        #[serde(default)]
        at_ms: f64,
    },
    /// Deliver a result to the pending task labeled `label`, as a trace event writes it.
    Resolve {
        label: String,
        by: By,
        result: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        partial: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        #[serde(default)]
        at_ms: f64,
        /// The call it answered (`ext arg`), filled in when the action is first taken: a
        /// replay (after the program changed) refuses to give this answer to another call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call: Option<String>,
    },
}

/// How a statement stands, for colours and the practice check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Steppable(Rule),
    Value,
    Waiting,
    Pending,
    Stuck,
}

/// One top-level statement as views show it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub id: StmtId,
    /// The label's identity (stable across time travel).
    pub key: LabelKey,
    /// The label, abbreviated past six levels (`5.6.…6.6`); `full_label` has all of it.
    pub label: String,
    /// `x := o` with values read back (`["Ho"] + <<…>>`, `true`), one line.
    pub text: String,
    /// The statement in the paper's core notation (a function's body on further lines).
    pub core: String,
    /// "steppable by reduce-call", "waiting: …", "pending task …", "stuck: …", "value".
    pub status: String,
    pub kind: Kind,
    pub steppable: bool,
    /// The 1-based source line the statement was written at (inlined code maps back).
    pub line: Option<usize>,
    /// A prelude or environment statement (labels `0.…`), folded away by default.
    pub prelude: bool,
    /// The statement this one waits on, if it waits.
    pub waits_on: Option<LabelKey>,
}

/// A step taken: the rule and where it applied.
#[derive(Clone, Debug, PartialEq)]
pub struct Taken {
    pub rule: Rule,
    pub key: LabelKey,
    pub label: String,
    /// The source line of the statement that stepped.
    pub line: Option<usize>,
    /// The statements the step put in its place (`ℓ.1 …`; the same label for dispatch).
    pub created: Vec<LabelKey>,
    /// A dispatch of an external that resolves at once (`print`, `add`): not a call to wait for.
    pub pure: bool,
}

/// Label facts for views; a copy of the state starts with an empty memo (it refills in O(1)
/// per label on use), so checkpoints do not carry it.
#[derive(Default)]
pub(crate) struct Memo(pub RefCell<LabelMemo>);

impl Clone for Memo {
    fn clone(&self) -> Memo {
        Memo::default()
    }
}

/// No call made this statement (`State::origin`).
const NO_CALL: u32 = u32::MAX;

#[derive(Clone)]
pub(crate) struct State {
    pub machine: Machine,
    pub output: String,
    pub calls: Vec<Call>,
    /// A stream's pending continuation task → the index of its call.
    pub streams: HashMap<LabelKey, usize>,
    /// For each statement slot, the call whose result made it (directly, or by calling a
    /// function that a result made): how a later call's argument is traced to the calls it
    /// depends on (the call graph's edges).
    pub origin: Vec<u32>,
    /// The steps of the last action (for the source highlight, the graph, the stepper).
    pub last: Vec<Taken>,
    pub memo: Memo,
    /// Keep `last` (a confluence run does not: it takes up to the step budget at once).
    pub record: bool,
    /// Where each call that reduce-call inlined was written (for a debugger's stack frames:
    /// a statement `ℓ.i` was put there by the call at `ℓ`).
    pub sites: HashMap<LabelKey, Option<usize>>,
}

/// What applying an action needs besides the state: the program text (for source lines) and
/// the host (world file, pure externals, result compilation).
pub(crate) struct Env {
    pub source: String,
    pub lines: LineIndex,
    pub host: Host,
}

pub struct Session {
    pub(crate) env: Env,
    pub(crate) trace: Option<Trace>,
    pub(crate) actions: Vec<Action>,
    /// `history[i]` describes `actions[i]` in words (rule names, labels).
    pub(crate) history: Vec<String>,
    /// `touched[i]`: the source lines of the statements action `i` stepped (reverse continue
    /// stops where one is a breakpoint's line).
    pub(crate) touched: Vec<Vec<usize>>,
    /// (position, the state after that many actions), sorted; the first is the initial term.
    pub(crate) checkpoints: Vec<(usize, State)>,
    /// Actions between checkpoints (doubles when there are too many).
    pub(crate) spacing: usize,
    pub(crate) current: State,
    pub(crate) at: usize,
    /// Counts changes of the state shown, so a window redraws only after one.
    pub(crate) revision: u64,
    pub(crate) started: std::time::Instant,
    pub(crate) job: Option<crate::jobs::Job>,
    /// Step budget of long-running jobs.
    pub step_budget: usize,
    pub(crate) confluence_result: Option<Confluence>,
    /// Rows already built for this revision (a view asks for the same rows every frame).
    rows: RefCell<(u64, HashMap<StmtId, Row>)>,
    /// Statements by label key, for this revision.
    keys: RefCell<(u64, HashMap<LabelKey, StmtId>)>,
}

fn describe(s: Status) -> (String, Kind) {
    match s {
        Status::Steppable(r) => (format!("steppable by {}", r.name()), Kind::Steppable(r)),
        Status::Value => ("value (still used)".into(), Kind::Value),
        Status::Waiting { why, .. } if why.starts_with("waiting") => (why, Kind::Waiting),
        Status::Waiting { why, .. } => (format!("waiting: {why}"), Kind::Waiting),
        Status::Pending => ("pending task: resolve it by hand, from the world file or from a trace".into(), Kind::Pending),
        Status::Stuck(why) => (format!("stuck: {why}"), Kind::Stuck),
    }
}

/// The kind of a statement without building the words (allocation-free).
pub fn kind_of(m: &Machine, s: StmtId) -> Kind {
    use opal_core::machine::Blocked;
    match m.steppable(s) {
        Ok(r) => Kind::Steppable(r),
        Err(Blocked::Value) => Kind::Value,
        Err(Blocked::Pending) => Kind::Pending,
        Err(Blocked::WaitPrim(_) | Blocked::WaitTask(_) | Blocked::WaitFun(_) | Blocked::WaitTuple(_)) => Kind::Waiting,
        Err(_) => Kind::Stuck,
    }
}

/// Where the whole program stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Standing {
    /// Something can step now.
    Steppable(usize),
    /// Nothing can step until these many tasks are resolved.
    Waiting(usize),
    /// Nothing can step and no task is pending: some statements can never step.
    Stuck(usize),
    /// The term is in normal form: only values (and the result) remain.
    Finished,
}

impl Standing {
    pub fn text(&self) -> String {
        match self {
            Standing::Steppable(n) => format!("{n} steppable"),
            Standing::Waiting(n) => format!("waiting for {n} pending task{}", if *n == 1 { "" } else { "s" }),
            Standing::Stuck(n) => format!("stuck: {n} statement{} can never step", if *n == 1 { "" } else { "s" }),
            Standing::Finished => "finished: normal form".into(),
        }
    }
}

/// Which statements `order` picks among those steppable (for confluence runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Opportunistic rounds: everything steppable at once.
    Rounds,
    /// The last steppable statement in label order first.
    Reversed,
    /// A random steppable statement (xorshift from the seed).
    Random(u64),
    /// Call-by-value's next statement; where cbv is blocked, the first steppable one.
    Cbv,
}

impl Order {
    pub fn name(self) -> String {
        match self {
            Order::Rounds => "opportunistic rounds".into(),
            Order::Reversed => "reversed (last statement first)".into(),
            Order::Random(seed) => format!("random (seed {seed})"),
            Order::Cbv => "call-by-value".into(),
        }
    }
}

/// Two step orders under the same resolutions, run to the end.
#[derive(Clone, Debug)]
pub struct Confluence {
    pub order: String,
    pub mine_steps: usize,
    pub theirs_steps: usize,
    /// The final terms exactly (compared for identity).
    pub mine: String,
    pub theirs: String,
    /// The same, with values read back as the paper writes them (shown).
    pub mine_view: String,
    pub theirs_view: String,
    pub mine_output: String,
    pub theirs_output: String,
    /// A run did not finish within the step budget (the program may diverge).
    pub truncated: bool,
    pub budget: usize,
}

impl Confluence {
    pub fn identical(&self) -> bool {
        self.mine == self.theirs && self.mine_output == self.theirs_output
    }
}

/// What the student is asked to predict in practice mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quiz {
    /// Which statements are steppable now?
    Steppable,
    /// Which calls dispatch together in the next round?
    Dispatch,
}

/// The debugger's answer to a prediction: labels as shown, with reasons.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdict {
    pub right: Vec<String>,
    /// Ticked, but not: (label, why not).
    pub wrong: Vec<(String, String)>,
    /// Not ticked, but should have been: (label, which rule).
    pub missed: Vec<(String, String)>,
}

impl Verdict {
    pub fn correct(&self) -> bool {
        self.wrong.is_empty() && self.missed.is_empty()
    }
}

/// Stop a run when this happens.
#[derive(Clone, Debug, PartialEq)]
pub enum Until {
    Dispatch,
    Resolve,
    /// The statement with this label steps.
    Steps(LabelKey),
    /// Nothing can step any more (the program finished, or waits, or is stuck).
    End,
}

/// A saved session: the program's hash and what the user did.
#[derive(Serialize, Deserialize)]
pub(crate) struct Saved {
    pub version: u32,
    pub program_sha256: String,
    pub position: usize,
    pub actions: Vec<Action>,
}

impl State {
    /// The term, one line per statement (environment hidden), values read back; at most
    /// `rows` statements.
    pub(crate) fn view(&self, rows: usize) -> String {
        let m = &self.machine;
        let mut out = String::new();
        let mut shown = 0;
        for s in m.iter() {
            let label = self.short(s);
            if label.starts_with("0.") {
                continue;
            }
            if shown == rows {
                let more = m.iter().count().saturating_sub(shown);
                out.push_str(&format!("… (and about {more} more statements)\n"));
                break;
            }
            shown += 1;
            out.push_str(&format!("{label}  {}\n", self.text(s)));
        }
        out.push_str(&format!("ret {}\n", m.readback_text(m.ret, Budget::VIEW)));
        out
    }

    /// A statement in one line: `x := o`, a function that is a list or a boolean read back.
    pub(crate) fn text(&self, s: StmtId) -> String {
        let m = &self.machine;
        let core = m.stmt_text_with(s, &mut |v| self.name(v));
        let bind = m.stmt(s).bind;
        match m.stmt(s).op {
            MOp::Fun(_) => match m.readback(bind, Budget::VIEW) {
                v @ (Value::List(_) | Value::Bool(_)) => format!("{} := {v}", self.name(bind)),
                _ => core.lines().next().unwrap_or("").to_string() + if core.contains('\n') { " …" } else { "" },
            },
            // A tuple holding lists, booleans or a dictionary reads as data too.
            MOp::Tuple(_) => match m.readback(bind, Budget::VIEW) {
                v if holds_data(&v) => format!("{} := {v}", self.name(bind)),
                _ => core.lines().next().unwrap_or("").to_string(),
            },
            _ => core.lines().next().unwrap_or("").to_string(),
        }
    }

    fn new(machine: Machine) -> State {
        State {
            machine,
            output: String::new(),
            calls: Vec::new(),
            streams: HashMap::new(),
            origin: Vec::new(),
            last: Vec::new(),
            memo: Memo::default(),
            record: true,
            sites: HashMap::new(),
        }
    }

    pub(crate) fn key(&self, s: StmtId) -> LabelKey {
        self.machine.label_key(&mut self.memo.0.borrow_mut(), s)
    }

    pub(crate) fn short(&self, s: StmtId) -> String {
        self.machine.label_short(&mut self.memo.0.borrow_mut(), s)
    }

    pub(crate) fn name(&self, v: VarId) -> String {
        self.machine.var_name_short(&mut self.memo.0.borrow_mut(), v)
    }

    /// The live statement labeled `key`.
    pub(crate) fn find(&self, key: LabelKey) -> Option<StmtId> {
        let m = &self.machine;
        let mut memo = self.memo.0.borrow_mut();
        m.iter().find(|s| m.label_key(&mut memo, *s) == key)
    }

    fn origin_of(&self, s: StmtId) -> Option<usize> {
        self.origin.get(s.0 as usize).copied().filter(|&c| c != NO_CALL).map(|c| c as usize)
    }

    fn set_origin(&mut self, s: StmtId, call: Option<usize>) {
        let i = s.0 as usize;
        if self.origin.len() <= i {
            self.origin.resize(i + 1, NO_CALL);
        }
        self.origin[i] = call.map(|c| c as u32).unwrap_or(NO_CALL);
    }

    /// The call a pending task at `key` belongs to (a stream's continuation belongs to its
    /// first call).
    pub(crate) fn call_index(&self, key: LabelKey) -> Option<usize> {
        self.streams.get(&key).copied().or_else(|| self.calls.iter().rposition(|c| c.key == key))
    }

    /// The calls whose results `v`'s value came from, by key: a dispatched call (its task, or
    /// the origin of the statements its value was built of), or a call still queued at the top
    /// level that computes part of it (bounded: a call's argument is small).
    /// The calls the argument `x` of a call to `ext` comes from: by its data, and for an
    /// ordered call (its argument is `(token, data)`) by program order alone.
    pub(crate) fn call_sources(&self, ext: &str, x: VarId) -> (Vec<LabelKey>, Vec<LabelKey>) {
        let (mut data, mut order) = (Vec::new(), Vec::new());
        let m = &self.machine;
        if m.is_ordered(ext) {
            if let Some(MOp::Tuple(xs)) = m.binder(x).map(|b| m.stmt(b).op) {
                if let [tok, v] = m.tuple(xs) {
                    self.sources_of(*v, &mut data);
                    self.sources_of(*tok, &mut order);
                    order.retain(|k| !data.contains(k));
                    return (data, order);
                }
            }
        }
        self.sources_of(x, &mut data);
        (data, order)
    }

    pub(crate) fn sources_of(&self, v: VarId, out: &mut Vec<LabelKey>) {
        let m = &self.machine;
        let push = |k: LabelKey, out: &mut Vec<LabelKey>| {
            if !out.contains(&k) {
                out.push(k);
            }
        };
        // With the projections still to apply: `prj 2 (stdout, city)` depends on `city` alone
        // (following every component made each loop iteration's call depend on the previous
        // iteration's, through the threaded `stdout`).
        let mut stack: Vec<(VarId, Vec<u32>)> = vec![(v, Vec::new())];
        let mut seen = 0;
        while let Some((v, mut path)) = stack.pop() {
            seen += 1;
            if seen > 256 {
                break;
            }
            let Some(b) = m.binder(v) else { continue };
            if let Some(c) = self.origin_of(b).and_then(|c| self.calls.get(c)) {
                push(c.key, out);
            }
            match m.stmt(b).op {
                MOp::Task(_) => {
                    if let Some(c) = self.call_index(self.key(b)).and_then(|c| self.calls.get(c)) {
                        push(c.key, out);
                    }
                }
                // An external call not dispatched yet: its result is what `v` waits for.
                MOp::Call(f, _) if matches!(m.binder(f).map(|fb| m.stmt(fb).op), Some(MOp::Prim(p)) if matches!(m.prim(p), opal_core::ir::Prim::Ext(_))) => {
                    push(self.key(b), out)
                }
                MOp::Tuple(xs) => match path.pop() {
                    Some(i) => match m.tuple(xs).get((i as usize).wrapping_sub(1)) {
                        Some(&x) => stack.push((x, path)),
                        None => stack.extend(m.tuple(xs).iter().map(|&x| (x, Vec::new()))),
                    },
                    None => stack.extend(m.tuple(xs).iter().map(|&x| (x, Vec::new()))),
                },
                MOp::Alias(y) => stack.push((y, path)),
                MOp::Prj(i, y) => {
                    path.push(i);
                    stack.push((y, path));
                }
                MOp::Call(f, x) => {
                    stack.push((x, Vec::new()));
                    stack.push((f, Vec::new()));
                }
                MOp::Prim(_) | MOp::Fun(_) | MOp::Gone => {}
            }
        }
    }
}

/// A partial answer typed by hand: `["Ho", ...]` is `["Ho"]` with the rest still to come.
/// `None` if `src` does not end in `...]`.
pub fn partial_answer(src: &str) -> Option<String> {
    let body = src.trim().strip_suffix(']')?.trim_end().strip_suffix("...")?.trim_end();
    let body = body.strip_suffix(',').unwrap_or(body).trim_end();
    Some(format!("{body}]"))
}

impl Session {
    /// A session on `source`; `Err` with the errors if it does not compile.
    pub fn new(source: &str, world: Option<World>) -> Result<Session, Vec<Diagnostic>> {
        let c = opal_core::compile_with(source, world.as_ref());
        let lines = LineIndex::new(source);
        if c.has_errors() {
            return Err(c.diags.into_iter().filter(|d| d.is_error()).collect());
        }
        let start = State::new(Machine::new(&c.program));
        Ok(Session {
            env: Env { source: source.to_string(), lines, host: Host::new(world, false) },
            trace: None,
            actions: Vec::new(),
            history: Vec::new(),
            touched: Vec::new(),
            checkpoints: vec![(0, start.clone())],
            spacing: 16,
            current: start,
            at: 0,
            revision: 0,
            started: std::time::Instant::now(),
            job: None,
            step_budget: DEFAULT_STEP_BUDGET,
            confluence_result: None,
            rows: RefCell::new((u64::MAX, HashMap::new())),
            keys: RefCell::new((u64::MAX, HashMap::new())),
        })
    }

    pub fn machine(&self) -> &Machine {
        &self.current.machine
    }
    pub fn output(&self) -> &str {
        &self.current.output
    }
    pub fn source(&self) -> &str {
        &self.env.source
    }
    pub fn has_world(&self) -> bool {
        self.env.host.world.is_some()
    }
    pub fn has_trace(&self) -> bool {
        self.trace.is_some()
    }
    /// Changes whenever the state shown changes (a step, a resolution, time travel).
    pub fn revision(&self) -> u64 {
        self.revision
    }
    /// How many actions lead to the state shown.
    pub fn position(&self) -> usize {
        self.at
    }
    /// Every action of this branch of history (also those after the position, after going back).
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }
    /// `history()[i]` says what action `i` did, with the paper's rule names.
    pub fn history(&self) -> &[String] {
        &self.history
    }
    pub fn calls(&self) -> &[Call] {
        &self.current.calls
    }
    pub fn last_steps(&self) -> &[Taken] {
        &self.current.last
    }
    /// How many full copies of the state the session keeps for time travel.
    pub fn checkpoints(&self) -> usize {
        self.checkpoints.len()
    }
    pub(crate) fn now_ms(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * 1000.0
    }

    /// Uses a recorded trace (`opal run --record`) to resolve tasks; it must be of this program.
    pub fn set_trace(&mut self, trace: Trace) -> Result<(), String> {
        let sha = opal_core::machine::trace::sha256_hex(&self.env.source);
        if trace.source_sha256 != sha {
            return Err("the trace was recorded from a different program text (its source_sha256 differs); record it again with `opal run --record`".into());
        }
        self.trace = Some(trace);
        Ok(())
    }

    // ---- views ------------------------------------------------------------------------

    /// The live statements in label order.
    pub fn statements(&self) -> Vec<StmtId> {
        self.machine().iter().collect()
    }

    /// Every row (for tests and small programs; views build only the rows they show).
    pub fn rows(&self) -> Vec<Row> {
        self.machine().iter().map(|s| self.row(s)).collect()
    }

    /// The row of statement `s`, built once per revision.
    pub fn row(&self, s: StmtId) -> Row {
        {
            let mut cache = self.rows.borrow_mut();
            if cache.0 != self.revision {
                *cache = (self.revision, HashMap::new());
            }
            if let Some(r) = cache.1.get(&s) {
                return r.clone();
            }
        }
        let r = self.build_row(s);
        self.rows.borrow_mut().1.insert(s, r.clone());
        r
    }

    fn build_row(&self, s: StmtId) -> Row {
        let st = &self.current;
        let m = &st.machine;
        let status = m.status(s);
        let waits_on = match &status {
            Status::Waiting { on: Some(v), .. } => m.binder(*v).map(|b| st.key(b)),
            _ => None,
        };
        let (status, kind) = describe(status);
        let core = m.stmt_text_with(s, &mut |v| st.name(v));
        let text = st.text(s);
        let label = st.short(s);
        Row {
            id: s,
            key: st.key(s),
            prelude: label.starts_with("0."),
            line: self.line_of(s),
            label,
            text,
            core,
            status,
            steppable: matches!(kind, Kind::Steppable(_)),
            kind,
            waits_on,
        }
    }

    /// The source lines (1-based) where some statement of the program was written, inside
    /// function bodies too: where a line breakpoint can stop.
    pub fn statement_lines(&self) -> std::collections::BTreeSet<usize> {
        fn walk(t: &opal_core::machine::template::Template, env: &Env, out: &mut std::collections::BTreeSet<usize>) {
            for st in &t.stmts {
                if st.span != opal_core::span::Span::default() {
                    out.extend(env.line_at(Some(st.span.start)));
                }
                if let opal_core::machine::template::TOp::Fun(i) = st.op {
                    walk(t.fun(i).0, env, out);
                }
            }
        }
        let m = self.initial();
        let mut out = std::collections::BTreeSet::new();
        for s in m.iter() {
            out.extend(self.env.line_at(m.stmt(s).source_offset()));
            if let MOp::Fun(c) = m.stmt(s).op {
                if let Some((tpl, _)) = m.closure(c) {
                    walk(tpl, &self.env, &mut out);
                }
            }
        }
        out
    }

    /// The source lines action `i` stepped statements at.
    pub fn touched(&self, i: usize) -> &[usize] {
        self.touched.get(i).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The statements the next action of `strategy` steps: a round's candidates, or cbv's or
    /// lazy's one (empty when nothing can step).
    pub fn next_steps(&self, strategy: Strategy) -> Vec<StmtId> {
        let m = self.machine();
        match strategy {
            Strategy::Opportunistic => m.iter().filter(|s| m.steppable(*s).is_ok()).collect(),
            Strategy::Cbv => m.cbv_next().into_iter().collect(),
            Strategy::Lazy => match m.lazy_next() {
                Lazy::Step(s) => vec![s],
                _ => vec![],
            },
        }
    }

    /// The call sites a statement was inlined through, innermost first: (label of the call,
    /// the source line it was written at). A statement `5.6.2` came from the calls at `5.6`
    /// and `5`. At most `max`.
    pub fn call_chain(&self, s: StmtId, max: usize) -> Vec<(String, Option<usize>)> {
        let st = &self.current;
        let m = &st.machine;
        let mut memo = st.memo.0.borrow_mut();
        let mut out = Vec::new();
        let mut l = m.label_id(s);
        while let Some(p) = m.labels.parent(l) {
            if out.len() == max {
                break;
            }
            let key = memo.key(&m.labels, p);
            out.push((memo.short(&m.labels, p), st.sites.get(&key).copied().flatten()));
            l = p;
        }
        out
    }

    /// Is statement `s`'s label `prefix` or below it (`prefix.…`)?
    pub fn under(&self, s: StmtId, prefix: LabelKey) -> bool {
        let st = &self.current;
        let m = &st.machine;
        let mut memo = st.memo.0.borrow_mut();
        let mut l = m.label_id(s);
        loop {
            if memo.key(&m.labels, l) == prefix {
                return true;
            }
            match m.labels.parent(l) {
                Some(p) => l = p,
                None => return false,
            }
        }
    }

    /// The key of the label `s` was inlined from (its parent label), if any.
    pub fn parent_key(&self, s: StmtId) -> Option<LabelKey> {
        let st = &self.current;
        let m = &st.machine;
        let p = m.labels.parent(m.label_id(s))?;
        Some(st.memo.0.borrow_mut().key(&m.labels, p))
    }

    /// A statement's whole label (O(depth): for a tooltip).
    pub fn full_label(&self, s: StmtId) -> String {
        self.machine().label_of(s)
    }

    /// A label for a tooltip: whole, or abbreviated with its depth when it is very deep.
    pub fn label_tip(&self, s: StmtId) -> String {
        let st = &self.current;
        let depth = st.memo.0.borrow_mut().depth(&st.machine.labels, st.machine.label_id(s));
        if depth <= 64 {
            st.machine.label_of(s)
        } else {
            format!("{} ({depth} levels deep)", st.short(s))
        }
    }

    /// Whether the external is pure (resolves at dispatch, as `print` and `add` do).
    pub fn is_pure(&self, ext: &str) -> bool {
        self.env.host.is_pure(ext)
    }

    /// Does the program use an external that does not resolve at dispatch (a world file's,
    /// `llm`, `sleep`, `coin`, …)? Without one, its graph of calls stays empty.
    pub fn has_async_externals(&self) -> bool {
        let m = self.initial();
        m.iter().any(|s| match m.stmt(s).op {
            MOp::Prim(p) => matches!(m.prim(p), opal_core::ir::Prim::Ext(e) if !self.env.host.is_pure(e)),
            _ => false,
        })
    }

    /// The world file, for `opal explore` from the debugger.
    pub fn world(&self) -> Option<&World> {
        self.env.host.world.as_ref()
    }

    /// The initial machine (for exploring every path from the start).
    pub fn initial(&self) -> &Machine {
        &self.checkpoints[0].1.machine
    }

    /// The actions and position of a saved session, and whether it was saved for this text.
    pub fn saved_actions(&self, text: &str) -> Result<(Vec<Action>, usize, bool), String> {
        let saved: Saved = serde_json::from_str(text).map_err(|e| format!("not a session file: line {}, column {}: {e}", e.line(), e.column()))?;
        let same = saved.program_sha256 == opal_core::machine::trace::sha256_hex(&self.env.source);
        Ok((saved.actions, saved.position, same))
    }

    pub fn key_of(&self, s: StmtId) -> LabelKey {
        self.current.key(s)
    }

    /// The live statement labeled `key` (a map built once per revision).
    pub fn find(&self, key: LabelKey) -> Option<StmtId> {
        let mut cache = self.keys.borrow_mut();
        if cache.0 != self.revision {
            let st = &self.current;
            let mut memo = st.memo.0.borrow_mut();
            let map = st.machine.iter().map(|s| (st.machine.label_key(&mut memo, s), s)).collect();
            *cache = (self.revision, map);
        }
        cache.1.get(&key).copied()
    }

    /// Is `s` an environment or prelude statement (label `0.…`)? O(1).
    pub fn is_prelude(&self, s: StmtId) -> bool {
        let st = &self.current;
        st.memo.0.borrow_mut().top(&st.machine.labels, st.machine.label_id(s)) == 0
    }

    /// The 1-based source line statement `s` was written at.
    pub fn line_of(&self, s: StmtId) -> Option<usize> {
        self.env.line_at(self.machine().stmt(s).source_offset())
    }

    /// A value as the paper writes it (for tooltips).
    pub fn value_text(&self, v: VarId) -> String {
        self.machine().readback_text(v, Budget::VIEW)
    }

    /// Where the program stands: finished, stuck, waiting for tasks, or steppable.
    pub fn standing(&self) -> Standing {
        let m = self.machine();
        let (mut steppable, mut pending, mut stuck) = (0, 0, 0);
        for s in m.iter() {
            match kind_of(m, s) {
                Kind::Steppable(_) => steppable += 1,
                Kind::Pending => pending += 1,
                Kind::Stuck => stuck += 1,
                Kind::Waiting | Kind::Value => {}
            }
        }
        if steppable > 0 {
            Standing::Steppable(steppable)
        } else if pending > 0 {
            Standing::Waiting(pending)
        } else if stuck > 0 || m.iter().any(|s| kind_of(m, s) == Kind::Waiting) {
            Standing::Stuck(stuck.max(1))
        } else {
            Standing::Finished
        }
    }

    // ---- actions ------------------------------------------------------------------------

    /// Does `a` at the position shown: later actions of this branch are dropped.
    pub(crate) fn act(&mut self, mut a: Action) -> Result<String, String> {
        if let Action::Resolve { label, call: call @ None, .. } = &mut a {
            *call = pending_in(&self.current, label).ok().map(|t| self.current.machine.tasks[t.0 as usize].text());
        }
        // In place, not on a copy (a copy per action made long runs quadratic): `apply` checks
        // everything before it changes anything, so an error leaves the state as it was.
        let last = std::mem::take(&mut self.current.last);
        let what = match self.env.apply(&mut self.current, &a, self.at) {
            Ok(w) => w,
            Err(e) => {
                self.current.last = last;
                return Err(e);
            }
        };
        self.actions.truncate(self.at);
        self.history.truncate(self.at);
        self.touched.truncate(self.at);
        let at = self.at;
        self.checkpoints.retain(|(p, _)| *p <= at);
        self.actions.push(a);
        self.history.push(what.clone());
        let mut lines: Vec<usize> = self.current.last.iter().filter_map(|t| t.line).collect();
        lines.dedup();
        self.touched.push(lines);
        self.at += 1;
        self.revision += 1;
        self.checkpoint_if_due();
        Ok(what)
    }

    /// Keeps a copy of the state every `spacing` actions; too many copies thin out.
    fn checkpoint_if_due(&mut self) {
        let last = self.checkpoints.last().map(|c| c.0).unwrap_or(0);
        if self.at < last + self.spacing {
            return;
        }
        self.checkpoints.push((self.at, self.current.clone()));
        if self.checkpoints.len() > MAX_CHECKPOINTS {
            self.spacing *= 2;
            let spacing = self.spacing;
            // Keep the initial term, the newest, and those on the new spacing.
            let n = self.checkpoints.len();
            let mut i = 0;
            self.checkpoints.retain(|(p, _)| {
                i += 1;
                *p == 0 || i == n || p.is_multiple_of(spacing)
            });
        }
    }

    /// Steps the statement labeled `label` (whole label text); why not, if it cannot.
    pub fn step(&mut self, label: &str) -> Result<String, String> {
        let at_ms = self.now_ms();
        self.act(Action::Step { label: label.to_string(), strategy: None, at_ms })
    }

    /// Steps the statement `s` (a row or node the user clicked).
    pub fn step_stmt(&mut self, s: StmtId) -> Result<String, String> {
        let label = self.full_label(s);
        self.step(&label)
    }

    /// One opportunistic round: every statement steppable now steps.
    pub fn round(&mut self) -> Result<String, String> {
        let at_ms = self.now_ms();
        self.act(Action::Round { at_ms })
    }

    /// One step (cbv, lazy) or one round (opportunistic).
    pub fn advance(&mut self, strategy: Strategy) -> Result<String, String> {
        let at_ms = self.now_ms();
        match strategy {
            Strategy::Opportunistic => self.act(Action::Round { at_ms }),
            Strategy::Cbv => self.act(Action::Cbv { at_ms }),
            Strategy::Lazy => self.act(Action::Lazy { at_ms }),
        }
    }

    pub fn step_cbv(&mut self) -> Result<String, String> {
        self.advance(Strategy::Cbv)
    }
    pub fn step_lazy(&mut self) -> Result<String, String> {
        self.advance(Strategy::Lazy)
    }

    /// Dispatched calls that wait for a resolution: (statement, the call as text).
    pub fn pending(&self) -> Vec<(StmtId, String)> {
        let m = self.machine();
        m.iter().filter(|s| matches!(m.status(*s), Status::Pending)).map(|s| (s, self.row(s).text)).collect()
    }

    /// Labels (whole) of the pending tasks, for tests and scripts.
    pub fn pending_labels(&self) -> Vec<String> {
        self.pending().into_iter().map(|(s, _)| self.full_label(s)).collect()
    }

    fn pending_task(&self, label: &str) -> Result<TaskId, String> {
        pending_in(&self.current, label)
    }

    /// The finite results the task's external may return, for a pick list (`coin`, a world
    /// file's `choices`); empty when the set is not finite.
    pub fn choices(&self, label: &str) -> Vec<String> {
        let Ok(t) = self.pending_task(label) else { return vec![] };
        let ext = &self.machine().tasks[t.0 as usize].ext;
        if let Some(w) = self.env.host.world.as_ref().and_then(|w| w.get(ext)) {
            return w.choices.clone();
        }
        opal_core::externals::standard(ext).map(|d| d.results.iter().map(|r| r.to_string()).collect()).unwrap_or_default()
    }

    fn resolve(&mut self, label: &str, by: By, result: String, partial: bool, error: Option<String>) -> Result<String, String> {
        self.pending_task(label)?;
        let at_ms = self.now_ms();
        self.act(Action::Resolve { label: label.to_string(), by, result, partial, error, at_ms, call: None })
    }

    /// Resolves a pending task with an OPAL expression the user typed (validated first). A
    /// list ending in `...` (`["Ho", ...]`) is a partial answer: its rest becomes a new
    /// pending task, as when a stream delivers a chunk (paper Fig. 10).
    pub fn resolve_with(&mut self, label: &str, src: &str) -> Result<String, String> {
        let t = self.pending_task(label)?;
        if let Some(items) = partial_answer(src) {
            let ext = self.machine().tasks[t.0 as usize].ext.clone();
            return match self.env.host.outcome_of_record(&ext, true, &items, true, None) {
                Outcome::Partial { .. } => self.resolve(label, By::Hand, items, true, None),
                _ => Err(format!("`{src}`: the known part of a partial answer must be a list of literals, e.g. [\"Ho\", ...]")),
            };
        }
        if let Err(e) = self.env.host.compile_result(src) {
            return Err(format!("`{src}` is not a closed OPAL expression: {e}"));
        }
        self.resolve(label, By::Hand, src.to_string(), false, None)
    }

    /// Resolves a pending task from the world file (or `coin`'s and `sleep`'s defaults). A
    /// streamed response is delivered one chunk at a time, the rest staying pending, as a
    /// recorded trace would.
    pub fn resolve_from_world(&mut self, label: &str) -> Result<String, String> {
        let a = self.env.world_action(&self.current, label, By::World)?;
        if let Action::Resolve { error: Some(e), .. } = &a {
            return Err(format!("{e}; resolve {label} by hand or add a response to the world file"));
        }
        self.act(a)
    }

    /// Resolves a pending task with what the trace recorded for it (a stream's next delivery).
    pub fn resolve_from_trace(&mut self, label: &str) -> Result<String, String> {
        self.pending_task(label)?;
        let trace = self.trace.as_ref().ok_or("no trace is loaded: open one with File > Load trace or `opal debug FILE --replay TRACE`")?;
        let st = &self.current;
        let key = LabelKey::of_text(label).ok_or_else(|| format!("`{label}` is not a label"))?;
        let (origin, chunk) = match st.streams.get(&key) {
            Some(&i) => {
                let c = &st.calls[i];
                // The k-th continuation of a stream waits for its delivery number k.
                (c.full_label.clone(), Some(c.chunks.len() as u32))
            }
            None => (label.to_string(), None),
        };
        let ev = trace
            .events
            .iter()
            .find(|e| e.label == origin && (e.chunk == chunk || chunk.is_none() && e.chunk == Some(0)))
            .ok_or_else(|| format!("the trace has no event for {origin}{}", chunk.map(|c| format!(" (delivery {c})")).unwrap_or_default()))?
            .clone();
        self.resolve(label, By::Trace, ev.result, ev.partial, ev.error)
    }

    /// The external and argument of the pending task at `label` (to call it live).
    pub fn task_call(&self, label: &str) -> Result<(String, opal_core::ir::PExp), String> {
        let t = self.pending_task(label)?;
        let task = &self.machine().tasks[t.0 as usize];
        Ok((task.ext.to_string(), task.arg.clone()))
    }

    /// Delivers what a live external returned (as a trace event writes it) to `label`.
    pub fn resolve_live(&mut self, label: &str, result: String, partial: bool, error: Option<String>) -> Result<String, String> {
        self.resolve(label, By::Live, result, partial, error)
    }

    /// The pending task (whole label) that waits for the next delivery of the stream the call
    /// at `origin` started.
    pub fn stream_continuation(&self, origin: &str) -> Option<String> {
        let st = &self.current;
        let key = LabelKey::of_text(origin)?;
        let i = st.calls.iter().rposition(|c| c.key == key)?;
        let (&k, _) = st.streams.iter().find(|(k, &j)| j == i && st.find(**k).is_some_and(|s| kind_of(&st.machine, s) == Kind::Pending))?;
        st.find(k).map(|s| self.full_label(s))
    }

    /// Resolves every pending task from the trace if loaded, else the world; how many.
    pub fn resolve_all(&mut self) -> Result<usize, String> {
        let mut n = 0;
        for label in self.pending_labels() {
            if self.trace.is_some() {
                self.resolve_from_trace(&label)?;
            } else {
                self.resolve_from_world(&label)?;
            }
            n += 1;
        }
        Ok(n)
    }

    // ---- time travel --------------------------------------------------------------------

    /// The state after `pos` actions of this branch: the nearest checkpoint, replayed.
    pub(crate) fn state_at(&mut self, pos: usize) -> Result<State, String> {
        let pos = pos.min(self.actions.len());
        let (from, st) = self.checkpoints.iter().rev().find(|(p, _)| *p <= pos).map(|(p, s)| (*p, s.clone())).ok_or("no checkpoint")?;
        let mut st = st;
        for i in from..pos {
            let a = self.actions[i].clone();
            self.env.apply(&mut st, &a, i).map_err(|e| format!("replaying action {}: {e}", i + 1))?;
        }
        Ok(st)
    }

    /// How many actions going to `pos` replays (0 when a checkpoint is there).
    pub fn replay_cost(&self, pos: usize) -> usize {
        let pos = pos.min(self.actions.len());
        self.checkpoints.iter().rev().find(|(p, _)| *p <= pos).map(|(p, _)| pos - p).unwrap_or(pos)
    }

    /// Shows the state after `pos` actions of this branch (restores a checkpoint, replays).
    pub fn goto(&mut self, pos: usize) -> Result<(), String> {
        let st = self.state_at(pos)?;
        self.current = st;
        self.at = pos.min(self.actions.len());
        self.revision += 1;
        Ok(())
    }

    pub fn back(&mut self) -> bool {
        self.at > 0 && self.goto(self.at - 1).is_ok()
    }
    pub fn forward(&mut self) -> bool {
        self.at < self.actions.len() && self.goto(self.at + 1).is_ok()
    }
    pub fn restart(&mut self) {
        self.actions.clear();
        self.history.clear();
        self.touched.clear();
        self.checkpoints.truncate(1);
        self.spacing = 16;
        self.current = self.checkpoints[0].1.clone();
        self.at = 0;
        self.revision += 1;
    }

    /// Replays `actions` from the start as far as they apply; how many did, and the first
    /// error. (A reloaded program keeps the user's work up to where it changed.)
    pub fn replay(&mut self, actions: &[Action]) -> (usize, Option<String>) {
        self.restart();
        for (i, a) in actions.iter().enumerate() {
            if let Err(e) = self.act(a.clone()) {
                return (i, Some(format!("action {} no longer applies: {e}", i + 1)));
            }
        }
        (actions.len(), None)
    }

    /// The state before the last action and what it changed, for a before/after view.
    pub fn before_last(&mut self) -> Option<Stepper> {
        if self.at == 0 {
            return None;
        }
        let before = self.state_at(self.at - 1).ok()?;
        let taken = self.current.last.clone();
        let lines = |st: &State, mark: &dyn Fn(LabelKey) -> bool| -> Vec<(String, String, bool)> {
            let m = &st.machine;
            m.iter()
                .filter_map(|s| {
                    let label = st.short(s);
                    (!label.starts_with("0.")).then(|| {
                        let key = st.key(s);
                        (label, st.text(s), mark(key))
                    })
                })
                .collect()
        };
        let redexes: Vec<LabelKey> = taken.iter().map(|t| t.key).collect();
        let results: Vec<LabelKey> = taken.iter().flat_map(|t| t.created.iter().copied()).collect();
        Some(Stepper {
            what: self.history.get(self.at - 1).cloned().unwrap_or_default(),
            before: lines(&before, &|k| redexes.contains(&k)),
            after: lines(&self.current, &|k| results.contains(&k)),
        })
    }

    // ---- practice mode ------------------------------------------------------------------

    /// Checks a prediction (the statements the student ticked) against the machine.
    pub fn check(&self, quiz: Quiz, ticked: &std::collections::BTreeSet<LabelKey>) -> Verdict {
        let mut v = Verdict::default();
        for row in self.rows() {
            let should = match quiz {
                Quiz::Steppable => row.steppable,
                Quiz::Dispatch => row.kind == Kind::Steppable(Rule::Dispatch),
            };
            match (ticked.contains(&row.key), should) {
                (true, true) => v.right.push(row.label),
                (true, false) => {
                    let why = match (quiz, row.kind) {
                        (Quiz::Dispatch, Kind::Steppable(r)) => format!("it steps by {}, not dispatch", r.name()),
                        _ => row.status,
                    };
                    v.wrong.push((row.label, why));
                }
                (false, true) => v.missed.push((row.label, row.status)),
                (false, false) => {}
            }
        }
        v
    }

    // ---- files --------------------------------------------------------------------------

    /// The session as JSON: the program's hash, the actions and the position.
    pub fn to_json(&self) -> String {
        let saved =
            Saved { version: 1, program_sha256: opal_core::machine::trace::sha256_hex(&self.env.source), position: self.at, actions: self.actions.clone() };
        serde_json::to_string_pretty(&saved).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Reads a saved session of this program: its actions and position (checked, not applied).
    pub(crate) fn parse_saved(&self, text: &str) -> Result<Saved, String> {
        let saved: Saved = serde_json::from_str(text).map_err(|e| format!("not a session file: line {}, column {}: {e}", e.line(), e.column()))?;
        if saved.version != 1 {
            return Err(format!("session version {} is not supported (this opal reads version 1)", saved.version));
        }
        let sha = opal_core::machine::trace::sha256_hex(&self.env.source);
        if saved.program_sha256 != sha {
            return Err("the session was saved for a different text of this program (its program_sha256 differs); open the program it was saved with".into());
        }
        Ok(saved)
    }

    /// Loads a saved session of this program at once: replays its actions, goes to its
    /// position (a window uses the `Job::Load` job instead, which keeps drawing).
    pub fn load_json(&mut self, text: &str) -> Result<String, String> {
        let saved = self.parse_saved(text)?;
        let keep = (self.actions.clone(), self.at);
        let (n, err) = self.replay(&saved.actions);
        if let Some(e) = err {
            self.replay(&keep.0);
            let _ = self.goto(keep.1);
            return Err(format!("the session does not replay: {e} (after {n} actions); nothing was changed"));
        }
        self.goto(saved.position).map_err(|e| format!("the session does not replay: {e}"))?;
        Ok(format!("loaded {} actions, at step {}", saved.actions.len(), self.at))
    }
}

/// The before/after view of the last action (DrRacket's stepper): rows as (label, text,
/// highlighted); the redexes are highlighted before, what replaced them after.
#[derive(Clone, Debug, PartialEq)]
pub struct Stepper {
    pub what: String,
    pub before: Vec<(String, String, bool)>,
    pub after: Vec<(String, String, bool)>,
}

impl Env {
    /// Applies `a` to `st`; what it did in words, or why it cannot be done (then nothing has
    /// changed: every check comes before the first change).
    pub(crate) fn apply(&mut self, st: &mut State, a: &Action, position: usize) -> Result<String, String> {
        st.last.clear();
        match a {
            Action::Step { label, strategy, at_ms } => {
                let key = LabelKey::of_text(label).ok_or_else(|| format!("`{label}` is not a label"))?;
                let s = st.find(key).ok_or_else(|| format!("no statement has label {label} now"))?;
                let (why, k) = describe(st.machine.status(s));
                if !matches!(k, Kind::Steppable(_)) {
                    return Err(format!("{} cannot step: {why}", st.short(s)));
                }
                let short = st.short(s);
                let rule = self.step_in(st, s, position, *at_ms).ok_or_else(|| format!("{short} cannot step"))?;
                Ok(match strategy {
                    Some(by) => format!("{by}: {} at {short}", rule.name()),
                    None => format!("{} at {short}", rule.name()),
                })
            }
            Action::Cbv { at_ms } => {
                let s = st.machine.cbv_next_mut().ok_or_else(|| Self::blocked(st, "cbv"))?;
                let short = st.short(s);
                let rule = self.step_in(st, s, position, *at_ms).ok_or("cbv cannot step")?;
                Ok(format!("cbv: {} at {short}", rule.name()))
            }
            Action::Lazy { at_ms } => {
                let s = match st.machine.lazy_next_mut() {
                    Lazy::Step(s) => s,
                    Lazy::Done => return Err("lazy evaluation is done: the result is a value".into()),
                    Lazy::Blocked => return Err("lazy evaluation cannot step: what the result needs is pending or stuck".into()),
                };
                let short = st.short(s);
                let rule = self.step_in(st, s, position, *at_ms).ok_or("lazy cannot step")?;
                Ok(format!("lazy: {} at {short}", rule.name()))
            }
            Action::Round { at_ms } => {
                // In label order, so a round's calls and history read top to bottom.
                let m = &st.machine;
                let all: Vec<StmtId> = m.iter().filter(|s| m.steppable(*s).is_ok()).collect();
                if all.is_empty() {
                    return Err(Self::blocked(st, "a round"));
                }
                let mut by_rule: Vec<(Rule, usize)> = Vec::new();
                let mut n = 0;
                for s in all {
                    if let Some(r) = self.step_in(st, s, position, *at_ms) {
                        n += 1;
                        match by_rule.iter_mut().find(|(x, _)| *x == r) {
                            Some((_, c)) => *c += 1,
                            None => by_rule.push((r, 1)),
                        }
                    }
                }
                let parts: Vec<String> = by_rule.iter().map(|(r, c)| format!("{c} {}", r.name())).collect();
                Ok(format!("round: {n} steps ({})", parts.join(", ")))
            }
            Action::Resolve { label, by, result, partial, error, at_ms, call } => {
                let t = pending_in(st, label)?;
                let now = st.machine.tasks[t.0 as usize].text();
                if let Some(was) = call.as_ref().filter(|was| **was != now) {
                    return Err(format!("the task at {label} is now {now}; the answer was given to {was}"));
                }
                let s = st.machine.tasks[t.0 as usize].stmt;
                let key = st.key(s);
                let ext = st.machine.tasks[t.0 as usize].ext.clone();
                let streamed = st.streams.contains_key(&key);
                let outcome = self.host.outcome_of_record(&ext, streamed, result, *partial, error.clone());
                if let (By::Hand, Outcome::Failed(e)) = (by, &outcome) {
                    return Err(format!("`{result}` is not a closed OPAL expression: {e}"));
                }
                let failed = matches!(outcome, Outcome::Failed(_));
                let more = matches!(outcome, Outcome::Partial { more: true, .. });
                let chunk = matches!(outcome, Outcome::Partial { .. });
                st.machine.deliver(t, outcome, *at_ms);
                if let Some(c) = st.call_index(key).and_then(|i| st.calls.get_mut(i)) {
                    if chunk {
                        c.chunks.push(result.clone());
                    }
                    if !more {
                        c.resolved_step = Some(position);
                        c.resolved_ms = Some(*at_ms);
                    }
                    c.failed |= failed;
                }
                let how = match by {
                    By::Hand => format!("by hand: {result}{}", if *partial { " + …" } else { "" }),
                    By::World if chunk => format!("from the world file: {result}{}", if more { " + …" } else { " (the end)" }),
                    By::World => "from the world file".into(),
                    By::Trace => "from the trace".into(),
                    By::Live => "by the live external".into(),
                };
                Ok(format!("delivered to {} {how}{}", st.short(s), if failed { " (failed)" } else { "" }))
            }
        }
    }

    fn blocked(st: &State, what: &str) -> String {
        let m = &st.machine;
        let pending = m.iter().filter(|s| kind_of(m, *s) == Kind::Pending).count();
        if pending > 0 {
            return format!("{what} cannot step: {pending} pending task{} to resolve first", if pending == 1 { "" } else { "s" });
        }
        if m.iter().all(|s| kind_of(m, s) == Kind::Value) {
            return "finished: the term is in normal form".into();
        }
        match what {
            "cbv" => "cbv cannot step: the leftmost statement that is not a value is waiting or stuck".into(),
            _ => "stuck: nothing can step and no task is pending (hover the red rows for why)".into(),
        }
    }

    /// One step; a pure external's task is resolved at once (its output captured).
    pub(crate) fn step_in(&mut self, st: &mut State, s: StmtId, position: usize, at_ms: f64) -> Option<Rule> {
        let mut discard = Vec::new();
        st.machine.take_dirty(&mut discard);
        let key = st.key(s);
        let line = self.line_at(st.machine.stmt(s).source_offset());
        // A reduce-call's new statements come from the function; a proj's from the statement.
        let inherit = match st.machine.stmt(s).op {
            MOp::Call(f, _) => st.machine.binder(f).and_then(|b| st.origin_of(b)).or_else(|| st.origin_of(s)),
            _ => st.origin_of(s),
        };
        let arg = match st.machine.stmt(s).op {
            MOp::Call(_, x) => Some(x),
            _ => None,
        };
        let (mut deps, mut order) = (Vec::new(), Vec::new());
        if let (Ok(Rule::Dispatch), Some(x)) = (st.machine.steppable(s), arg) {
            let ext = match st.machine.stmt(s).op {
                MOp::Call(f, _) => match st.machine.binder(f).map(|b| st.machine.stmt(b).op) {
                    Some(MOp::Prim(p)) => st.machine.prim(p).to_string(),
                    _ => String::new(),
                },
                _ => String::new(),
            };
            (deps, order) = st.call_sources(&ext, x);
        }
        let ev = st.machine.step(s)?;
        let pure = ev.rule == Rule::Dispatch && ev.task.is_some_and(|t| self.host.is_pure(&st.machine.tasks[t.0 as usize].ext));
        if ev.rule == Rule::ReduceCall && st.record {
            st.sites.insert(key, line);
        }
        let created: Vec<StmtId> = st.machine.created().to_vec();
        match ev.rule {
            Rule::Resolve => {
                let call = st.call_index(key);
                for &c in &created {
                    st.set_origin(c, call);
                }
            }
            Rule::Dispatch => {}
            _ => {
                for &c in &created {
                    st.set_origin(c, inherit);
                }
            }
        }
        if st.record {
            let label = st.short(s);
            let created_keys = if ev.rule == Rule::Dispatch { vec![key] } else { created.iter().map(|c| st.key(*c)).collect() };
            st.last.push(Taken { rule: ev.rule, key, label, line, created: created_keys, pure });
        }
        match (ev.rule, ev.task) {
            (Rule::Dispatch, Some(t)) => {
                let (ext, arg) = (st.machine.tasks[t.0 as usize].ext.clone(), st.machine.tasks[t.0 as usize].arg.clone());
                let pure = self.host.is_pure(&ext);
                let mut call = Call {
                    label: st.short(s),
                    full_label: if pure { String::new() } else { st.machine.label_of(s) },
                    key,
                    ext: ext.to_string(),
                    arg: arg.to_string(),
                    line,
                    dispatched_step: position,
                    resolved_step: None,
                    dispatched_ms: at_ms,
                    resolved_ms: None,
                    failed: false,
                    pure,
                    chunks: Vec::new(),
                    deps,
                    order,
                };
                if pure {
                    let out = &mut st.output;
                    let r = eval_pure(&ext, &arg, &mut |_, text| out.push_str(text), tokio::time::Instant::now());
                    let outcome = r.unwrap_or_else(Outcome::Failed);
                    call.failed = matches!(outcome, Outcome::Failed(_));
                    call.resolved_step = Some(position);
                    call.resolved_ms = Some(at_ms);
                    st.machine.deliver(t, outcome, at_ms);
                }
                st.calls.push(call);
            }
            (Rule::Resolve, _) => {
                if let Some(nt) = st.machine.continuation(&ev) {
                    let next = st.machine.tasks[nt.0 as usize].stmt;
                    let next = st.key(next);
                    if let Some(i) = st.call_index(key) {
                        st.streams.insert(next, i);
                    }
                }
                st.streams.remove(&key);
            }
            _ => {}
        }
        Some(ev.rule)
    }

    pub(crate) fn line_at(&self, offset: Option<u32>) -> Option<usize> {
        offset.filter(|o| (*o as usize) < self.source.len()).map(|o| self.lines.line_of(o) + 1)
    }

    /// The world file's answer for the pending task at `label`, as an action: a streamed
    /// response's next chunk (the rest stays pending), or the whole reply.
    pub(crate) fn world_action(&mut self, st: &State, label: &str, by: By) -> Result<Action, String> {
        let t = pending_in(st, label)?;
        let task = &st.machine.tasks[t.0 as usize];
        let (ext, arg) = (task.ext.clone(), task.arg.clone());
        let key = st.key(task.stmt);
        let stream = self.host.world.as_ref().and_then(|w| w.get(&ext)).and_then(|w| match w.reply(&arg) {
            Some((Reply::Stream(chunks, _), _)) => Some(chunks),
            _ => None,
        });
        let (result, partial, error) = match stream {
            Some(chunks) => {
                // Which delivery of its stream this task waits for.
                let k = st.streams.get(&key).and_then(|&i| st.calls.get(i)).map(|c| c.chunks.len()).unwrap_or(0);
                match chunks.get(k) {
                    Some(c) => {
                        let item = opal_core::ir::Prim::Str(std::sync::Arc::from(c.as_str()));
                        (format!("[{item}]"), k + 1 < chunks.len(), None)
                    }
                    None => ("[]".into(), false, None),
                }
            }
            None => outcome_record(&resolve_now(&mut self.host, &ext, &arg)),
        };
        Ok(Action::Resolve { label: label.to_string(), by, result, partial, error, at_ms: 0.0, call: None })
    }
}

/// Is there a list, a boolean or a dictionary in this value (so it reads better as data)?
fn holds_data(v: &Value) -> bool {
    match v {
        Value::List(_) | Value::Bool(_) | Value::Dict(_) => true,
        Value::Tuple(xs) => xs.iter().any(holds_data),
        _ => false,
    }
}

/// The task of the pending statement labeled `label` (whole label text).
pub(crate) fn pending_in(st: &State, label: &str) -> Result<TaskId, String> {
    let key = LabelKey::of_text(label).ok_or_else(|| format!("`{label}` is not a label"))?;
    let s = st.find(key).ok_or_else(|| format!("no statement has label {label} now"))?;
    match st.machine.stmt(s).op {
        MOp::Task(t) if matches!(st.machine.status(s), Status::Pending) => Ok(t),
        _ => Err(format!("{} is not a pending task", st.short(s))),
    }
}
