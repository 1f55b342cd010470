//! The debugger's state, kept apart from drawing: a program on the λ^O machine that the user
//! steps one statement, one round, or by cbv or lazy at a time. Dispatched tasks wait until
//! the user resolves them (by hand, from the world file, from a recorded trace); pure
//! externals resolve at dispatch as in `opal run`.
//!
//! Everything the user does is an `Action`, and the state is a function of the action list:
//! time travel restores the nearest checkpoint and replays, a saved session is the list, and
//! a reloaded program replays as much of it as still applies.

use opal_core::diag::Diagnostic;
use opal_core::machine::explore::resolve_now;
pub use opal_core::machine::run::Strategy;
use opal_core::machine::run::{eval_pure, outcome_record, Host};
use opal_core::machine::trace::Trace;
use opal_core::machine::{Lazy, MOp, Machine, Outcome, Rule, Status, StmtId, TaskId};
use opal_core::span::LineIndex;
use opal_core::world::World;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};

/// Keep a full state every this many actions; time travel replays at most this many.
const CHECKPOINT_EVERY: usize = 16;
/// Confluence runs give up after this many steps (a diverging program).
pub const STEP_LIMIT: usize = 100_000;
/// Run-until gives up after this many actions (each is kept in the history), so a program that
/// never reaches the goal does not freeze the window.
pub const RUN_LIMIT: usize = 10_000;

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
    /// Step the statement labeled `label` (clicked, or chosen by cbv or lazy).
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

/// One top-level statement as the labeled-term view shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub label: String,
    pub text: String,
    /// "steppable by reduce-call", "waiting: …", "pending task …", "stuck: …", "value".
    pub status: String,
    pub kind: Kind,
    pub steppable: bool,
    /// The 1-based source line the statement was written at (inlined code maps back).
    pub line: Option<usize>,
    /// A prelude or environment statement (labels `0.…`), folded away by default.
    pub prelude: bool,
    /// The label of the statement this one waits on, if it waits.
    pub waits_on: Option<String>,
}

/// One external call from dispatch to resolve, for the timeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub label: String,
    pub ext: String,
    pub arg: String,
    /// Positions in the action list (the step axis).
    pub dispatched_step: usize,
    pub resolved_step: Option<usize>,
    /// Milliseconds since the session started (the wall-clock axis).
    pub dispatched_ms: f64,
    pub resolved_ms: Option<f64>,
    pub failed: bool,
    /// Resolved at dispatch (a pure external such as `print`).
    pub pure: bool,
}

/// A step taken: the rule and the label it applied at.
#[derive(Clone, Debug, PartialEq)]
pub struct Taken {
    pub rule: Rule,
    pub label: String,
    /// The source line of the statement that stepped.
    pub line: Option<usize>,
}

#[derive(Clone)]
struct State {
    machine: Machine,
    output: String,
    calls: Vec<Call>,
    /// A stream's continuation task label → the index of its call.
    streams: HashMap<String, usize>,
    /// The steps of the last action (for the source highlight and the graph's animation).
    last: Vec<Taken>,
}

/// What applying an action needs besides the state: the program text (for source lines) and
/// the host (world file, pure externals, result compilation).
struct Env {
    source: String,
    lines: LineIndex,
    host: Host,
}

pub struct Session {
    env: Env,
    trace: Option<Trace>,
    actions: Vec<Action>,
    /// `history[i]` describes `actions[i]` in words (rule names, labels).
    history: Vec<String>,
    /// `checkpoints[k]` is the state after `k * CHECKPOINT_EVERY` actions.
    checkpoints: Vec<State>,
    current: State,
    at: usize,
    /// Counts changes of the state shown, so the window redraws the graph only after one.
    revision: u64,
    started: std::time::Instant,
}

fn describe(s: Status) -> (String, Kind) {
    match s {
        Status::Steppable(r) => (format!("steppable by {}", r.name()), Kind::Steppable(r)),
        Status::Value => ("value (still used)".into(), Kind::Value),
        Status::Waiting { why, .. } => (format!("waiting: {why}"), Kind::Waiting),
        Status::Pending => ("pending task: resolve it by hand, from the world file or from a trace".into(), Kind::Pending),
        Status::Stuck(why) => (format!("stuck: {why}"), Kind::Stuck),
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
    pub mine: String,
    pub theirs: String,
    pub mine_output: String,
    pub theirs_output: String,
    pub truncated: bool,
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

/// The debugger's answer to a prediction.
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
    Steps(String),
}

/// A saved session: the program's hash and what the user did.
#[derive(Serialize, Deserialize)]
struct Saved {
    version: u32,
    program_sha256: String,
    position: usize,
    actions: Vec<Action>,
}

impl Session {
    /// A session on `source`; `Err` with the errors if it does not compile.
    pub fn new(source: &str, world: Option<World>) -> Result<Session, Vec<Diagnostic>> {
        let c = opal_core::compile(source);
        let lines = LineIndex::new(source);
        if c.has_errors() {
            return Err(c.diags.into_iter().filter(|d| d.is_error()).collect());
        }
        let machine = Machine::new(&c.program);
        let start = State { machine, output: String::new(), calls: Vec::new(), streams: HashMap::new(), last: Vec::new() };
        Ok(Session {
            env: Env { source: source.to_string(), lines, host: Host::new(world, false) },
            trace: None,
            actions: Vec::new(),
            history: Vec::new(),
            checkpoints: vec![start.clone()],
            current: start,
            at: 0,
            revision: 0,
            started: std::time::Instant::now(),
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
    fn now_ms(&self) -> f64 {
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

    pub fn rows(&self) -> Vec<Row> {
        let m = self.machine();
        m.iter().map(|s| self.row(s)).collect()
    }

    pub fn row(&self, s: StmtId) -> Row {
        let m = self.machine();
        let label = m.label_of(s);
        let st = m.status(s);
        let waits_on = match &st {
            Status::Waiting { on: Some(v), .. } => m.binder(*v).map(|b| m.label_of(b)),
            _ => None,
        };
        let (status, kind) = describe(st);
        Row {
            prelude: label.starts_with("0."),
            line: self.line_of(s),
            label,
            text: m.stmt_text(s),
            status,
            steppable: matches!(kind, Kind::Steppable(_)),
            kind,
            waits_on,
        }
    }

    /// The 1-based source line statement `s` was written at.
    pub fn line_of(&self, s: StmtId) -> Option<usize> {
        self.env.line_at(self.machine().stmt(s).source_offset())
    }
    pub fn find(&self, label: &str) -> Result<StmtId, String> {
        find_in(self.machine(), label)
    }

    // ---- actions ------------------------------------------------------------------------

    /// Does `a` at the position shown: later actions of this branch are dropped.
    fn act(&mut self, a: Action) -> Result<String, String> {
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
        self.checkpoints.truncate(self.at / CHECKPOINT_EVERY + 1);
        self.actions.push(a);
        self.history.push(what.clone());
        self.at += 1;
        self.revision += 1;
        if self.at.is_multiple_of(CHECKPOINT_EVERY) {
            self.checkpoints.push(self.current.clone());
        }
        Ok(what)
    }

    /// Steps the statement at `label` (any steppable one); why not, if it cannot.
    pub fn step(&mut self, label: &str) -> Result<String, String> {
        let at_ms = self.now_ms();
        self.act(Action::Step { label: label.to_string(), strategy: None, at_ms })
    }

    /// One opportunistic round: every statement steppable now steps.
    pub fn round(&mut self) -> Result<String, String> {
        let at_ms = self.now_ms();
        self.act(Action::Round { at_ms })
    }

    /// The statement `strategy` steps next (`None` for a round), or why it cannot step.
    pub fn next_of(&self, strategy: Strategy) -> Result<Option<StmtId>, String> {
        let m = self.machine();
        match strategy {
            Strategy::Opportunistic => {
                if m.iter().any(|s| m.steppable(s).is_ok()) {
                    Ok(None)
                } else {
                    Err("nothing is steppable: resolve a pending task first".into())
                }
            }
            Strategy::Cbv => {
                m.cbv_next().map(Some).ok_or_else(|| "cbv cannot step: the leftmost statement that is not a value is waiting, pending or stuck".into())
            }
            Strategy::Lazy => match m.lazy_next() {
                Lazy::Step(s) => Ok(Some(s)),
                Lazy::Done => Err("lazy evaluation is done: the result is a value".into()),
                Lazy::Blocked => Err("lazy evaluation cannot step: what the result needs is pending or stuck".into()),
            },
        }
    }

    /// One step (cbv, lazy) or one round (opportunistic).
    pub fn advance(&mut self, strategy: Strategy) -> Result<String, String> {
        match self.next_of(strategy)? {
            None => self.round(),
            Some(s) => {
                let at_ms = self.now_ms();
                let label = self.machine().label_of(s);
                self.act(Action::Step { label, strategy: Some(strategy.name().into()), at_ms })
            }
        }
    }

    pub fn step_cbv(&mut self) -> Result<String, String> {
        self.advance(Strategy::Cbv)
    }
    pub fn step_lazy(&mut self) -> Result<String, String> {
        self.advance(Strategy::Lazy)
    }

    /// Dispatched calls that wait for a resolution: (label, the call).
    pub fn pending(&self) -> Vec<(String, String)> {
        let m = self.machine();
        m.iter().filter(|s| matches!(m.status(*s), Status::Pending)).map(|s| (m.label_of(s), m.stmt_text(s))).collect()
    }

    fn pending_task(&self, label: &str) -> Result<TaskId, String> {
        pending_in(self.machine(), label)
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
        self.act(Action::Resolve { label: label.to_string(), by, result, partial, error, at_ms })
    }

    /// Resolves a pending task with an OPAL expression the user typed (validated first).
    pub fn resolve_with(&mut self, label: &str, src: &str) -> Result<String, String> {
        self.pending_task(label)?;
        if let Err(e) = self.env.host.compile_result(src) {
            return Err(format!("`{src}` is not a closed OPAL expression: {e}"));
        }
        self.resolve(label, By::Hand, src.to_string(), false, None)
    }

    /// Resolves a pending task from the world file (or `coin`'s and `sleep`'s defaults).
    pub fn resolve_from_world(&mut self, label: &str) -> Result<String, String> {
        let t = self.pending_task(label)?;
        let outcome = self.env.world_answer(&self.current.machine, t);
        if let Outcome::Failed(e) = &outcome {
            return Err(format!("{e}; resolve {label} by hand or add a response to the world file"));
        }
        let (result, partial, error) = outcome_record(&outcome);
        self.resolve(label, By::World, result, partial, error)
    }

    /// Resolves a pending task with what the trace recorded for it (a stream's next delivery).
    pub fn resolve_from_trace(&mut self, label: &str) -> Result<String, String> {
        self.pending_task(label)?;
        let trace = self.trace.as_ref().ok_or("no trace is loaded: open one with File > Load trace or `opal debug FILE --replay TRACE`")?;
        let (origin, chunk) = match self.current.streams.get(label) {
            Some(&i) => {
                let c = &self.current.calls[i];
                // The k-th continuation of a stream waits for its delivery number k.
                let n = self.current.streams.iter().filter(|(_, &j)| j == i).count() as u32;
                (c.label.clone(), Some(n))
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

    /// The pending task that waits for the next delivery of the stream `origin` started.
    pub fn stream_continuation(&self, origin: &str) -> Option<String> {
        let st = &self.current;
        st.streams.iter().filter(|(_, &i)| st.calls.get(i).is_some_and(|c| c.label == origin)).map(|(l, _)| l.clone()).find(|l| self.pending_task(l).is_ok())
    }

    /// Resolves every pending task from the trace if loaded, else the world; how many.
    pub fn resolve_all(&mut self) -> Result<usize, String> {
        let mut n = 0;
        for (label, _) in self.pending() {
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

    /// Shows the state after `pos` actions of this branch (restores a checkpoint, replays).
    pub fn goto(&mut self, pos: usize) -> Result<(), String> {
        let pos = pos.min(self.actions.len());
        let k = (pos / CHECKPOINT_EVERY).min(self.checkpoints.len() - 1);
        let mut st = self.checkpoints[k].clone();
        for i in k * CHECKPOINT_EVERY..pos {
            let a = self.actions[i].clone();
            if let Err(e) = self.env.apply(&mut st, &a, i) {
                return Err(format!("replaying action {}: {e}", i + 1));
            }
            if (i + 1).is_multiple_of(CHECKPOINT_EVERY) && self.checkpoints.len() == (i + 1) / CHECKPOINT_EVERY {
                self.checkpoints.push(st.clone());
            }
        }
        self.current = st;
        self.at = pos;
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
        self.checkpoints.truncate(1);
        self.current = self.checkpoints[0].clone();
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

    // ---- runs ---------------------------------------------------------------------------

    /// Advances by `strategy` until `until` happens, resolving pending tasks from the trace or
    /// world when `auto_resolve` and nothing else can step, for at most `limit` actions. What
    /// stopped it.
    pub fn run_until(&mut self, strategy: Strategy, until: &Until, auto_resolve: bool, limit: usize) -> Result<String, String> {
        for _ in 0..limit {
            let r = match self.advance(strategy) {
                Ok(r) => r,
                Err(e) => {
                    if auto_resolve && !self.pending().is_empty() {
                        self.resolve_all()?;
                        if matches!(until, Until::Resolve) {
                            return Ok("stopped: tasks were resolved".into());
                        }
                        continue;
                    }
                    return Err(format!("stopped: {e}"));
                }
            };
            let hit = self.last_steps().iter().any(|t| match until {
                Until::Dispatch => t.rule == Rule::Dispatch,
                Until::Resolve => t.rule == Rule::Resolve,
                Until::Steps(l) => &t.label == l,
            });
            if hit {
                return Ok(format!("stopped after {r}"));
            }
        }
        Err(format!("stopped after {limit} actions without reaching the goal; run until again to go on"))
    }

    // ---- practice mode ------------------------------------------------------------------

    /// Checks a prediction (labels the student ticked) against the machine, with reasons.
    pub fn check(&self, quiz: Quiz, ticked: &BTreeSet<String>) -> Verdict {
        let mut v = Verdict::default();
        for row in self.rows() {
            let should = match quiz {
                Quiz::Steppable => row.steppable,
                Quiz::Dispatch => row.kind == Kind::Steppable(Rule::Dispatch),
            };
            match (ticked.contains(&row.label), should) {
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

    // ---- confluence ---------------------------------------------------------------------

    /// Runs this session's term to the end in opportunistic rounds, and the program from the
    /// start in `order`; both resolve each task as this session did (the world's or default
    /// answer for tasks it never resolved). By confluence the final terms are identical.
    pub fn confluence(&mut self, order: Order) -> Confluence {
        let mut given: HashMap<String, Action> = HashMap::new();
        for a in &self.actions {
            if let Action::Resolve { label, .. } = a {
                given.insert(label.clone(), a.clone());
            }
        }
        let mut mine = self.current.clone();
        let (mine_steps, t1) = self.env.finish(&mut mine, Order::Rounds, &given);
        let mut theirs = self.checkpoints[0].clone();
        let (theirs_steps, t2) = self.env.finish(&mut theirs, order, &given);
        Confluence {
            order: order.name(),
            mine_steps: self.at + mine_steps,
            theirs_steps,
            mine: mine.machine.print_term(false),
            theirs: theirs.machine.print_term(false),
            mine_output: mine.output,
            theirs_output: theirs.output,
            truncated: t1 || t2,
        }
    }

    // ---- files --------------------------------------------------------------------------

    /// The session as JSON: the program's hash, the actions and the position.
    pub fn to_json(&self) -> String {
        let saved =
            Saved { version: 1, program_sha256: opal_core::machine::trace::sha256_hex(&self.env.source), position: self.at, actions: self.actions.clone() };
        serde_json::to_string_pretty(&saved).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Loads a saved session of this program: replays its actions, goes to its position.
    pub fn load_json(&mut self, text: &str) -> Result<String, String> {
        let saved: Saved = serde_json::from_str(text).map_err(|e| format!("not a session file: line {}, column {}: {e}", e.line(), e.column()))?;
        if saved.version != 1 {
            return Err(format!("session version {} is not supported (this opal reads version 1)", saved.version));
        }
        let sha = opal_core::machine::trace::sha256_hex(&self.env.source);
        if saved.program_sha256 != sha {
            return Err("the session was saved for a different text of this program (its program_sha256 differs); open the program it was saved with".into());
        }
        let keep = (self.actions.clone(), self.at);
        let (n, err) = self.replay(&saved.actions);
        if let Some(e) = err {
            self.actions = keep.0;
            let _ = self.goto(keep.1);
            return Err(format!("the session does not replay: {e} (after {n} actions); nothing was changed"));
        }
        self.goto(saved.position).map_err(|e| format!("the session does not replay: {e}"))?;
        Ok(format!("loaded {} actions, at step {}", saved.actions.len(), self.at))
    }

    /// The timeline as CSV (one external call per line).
    pub fn timeline_csv(&self) -> String {
        let mut out = String::from("label,external,argument,dispatched_step,resolved_step,dispatched_ms,resolved_ms,failed\n");
        for c in self.calls() {
            let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
            let opt = |x: Option<String>| x.unwrap_or_default();
            out.push_str(&format!(
                "{},{},{},{},{},{:.1},{},{}\n",
                q(&c.label),
                q(&c.ext),
                q(&c.arg),
                c.dispatched_step,
                opt(c.resolved_step.map(|s| s.to_string())),
                c.dispatched_ms,
                opt(c.resolved_ms.map(|m| format!("{m:.1}"))),
                c.failed
            ));
        }
        out
    }
}

impl Env {
    /// Applies `a` to `st`; what it did in words, or why it cannot be done (then nothing has
    /// changed: every check comes before the first change).
    fn apply(&mut self, st: &mut State, a: &Action, position: usize) -> Result<String, String> {
        st.last.clear();
        match a {
            Action::Step { label, strategy, at_ms } => {
                let s = find_in(&st.machine, label)?;
                let (why, k) = describe(st.machine.status(s));
                if !matches!(k, Kind::Steppable(_)) {
                    return Err(format!("{label} cannot step: {why}"));
                }
                let rule = self.step_in(st, s, position, *at_ms).ok_or_else(|| format!("{label} cannot step"))?;
                Ok(match strategy {
                    Some(by) => format!("{by}: {} at {label}", rule.name()),
                    None => format!("{} at {label}", rule.name()),
                })
            }
            Action::Round { at_ms } => {
                let m = &st.machine;
                let all: Vec<StmtId> = m.iter().filter(|s| m.steppable(*s).is_ok()).collect();
                if all.is_empty() {
                    return Err("nothing is steppable: resolve a pending task first".into());
                }
                let n = all.iter().filter(|&&s| self.step_in(st, s, position, *at_ms).is_some()).count();
                let mut by_rule: Vec<(Rule, usize)> = Vec::new();
                for t in &st.last {
                    match by_rule.iter_mut().find(|(r, _)| *r == t.rule) {
                        Some((_, c)) => *c += 1,
                        None => by_rule.push((t.rule, 1)),
                    }
                }
                let parts: Vec<String> = by_rule.iter().map(|(r, c)| format!("{c} {}", r.name())).collect();
                Ok(format!("round: {n} steps ({})", parts.join(", ")))
            }
            Action::Resolve { label, by, result, partial, error, at_ms } => {
                let t = pending_in(&st.machine, label)?;
                let ext = st.machine.tasks[t.0 as usize].ext.clone();
                let streamed = st.streams.contains_key(label);
                let outcome = self.host.outcome_of_record(&ext, streamed, result, *partial, error.clone());
                if let (By::Hand, Outcome::Failed(e)) = (by, &outcome) {
                    return Err(format!("`{result}` is not a closed OPAL expression: {e}"));
                }
                let failed = matches!(outcome, Outcome::Failed(_));
                let more = matches!(outcome, Outcome::Partial { more: true, .. });
                st.machine.deliver(t, outcome, *at_ms);
                if let Some(c) = call_of(st, label) {
                    if !more {
                        c.resolved_step = Some(position);
                        c.resolved_ms = Some(*at_ms);
                    }
                    c.failed |= failed;
                }
                let how = match by {
                    By::Hand => format!("by hand: {result}"),
                    By::World => "from the world file".into(),
                    By::Trace => "from the trace".into(),
                    By::Live => "by the live external".into(),
                };
                Ok(format!("delivered to {label} {how}{}", if failed { " (failed)" } else { "" }))
            }
        }
    }

    /// One step; a pure external's task is resolved at once (its output captured).
    fn step_in(&mut self, st: &mut State, s: StmtId, position: usize, at_ms: f64) -> Option<Rule> {
        let mut discard = Vec::new();
        st.machine.take_dirty(&mut discard);
        let label = st.machine.label_of(s);
        let line = self.line_at(st.machine.stmt(s).source_offset());
        let ev = st.machine.step(s)?;
        st.last.push(Taken { rule: ev.rule, label: label.clone(), line });
        match (ev.rule, ev.task) {
            (Rule::Dispatch, Some(t)) => {
                let (ext, arg) = (st.machine.tasks[t.0 as usize].ext.clone(), st.machine.tasks[t.0 as usize].arg.clone());
                let pure = self.host.is_pure(&ext);
                let mut call = Call {
                    label: label.clone(),
                    ext: ext.to_string(),
                    arg: arg.to_string(),
                    dispatched_step: position,
                    resolved_step: None,
                    dispatched_ms: at_ms,
                    resolved_ms: None,
                    failed: false,
                    pure,
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
                    let next = st.machine.labels.show(st.machine.tasks[nt.0 as usize].label);
                    let origin = st.streams.get(&label).copied().or_else(|| st.calls.iter().rposition(|c| c.label == label));
                    if let Some(i) = origin {
                        st.streams.insert(next, i);
                    }
                }
            }
            _ => {}
        }
        Some(ev.rule)
    }

    fn line_at(&self, offset: Option<u32>) -> Option<usize> {
        offset.filter(|o| (*o as usize) < self.source.len()).map(|o| self.lines.line_of(o) + 1)
    }

    fn finish(&mut self, st: &mut State, order: Order, given: &HashMap<String, Action>) -> (usize, bool) {
        let mut rng = match order {
            Order::Random(seed) => seed | 1,
            _ => 1,
        };
        let mut steps = 0;
        while steps < STEP_LIMIT {
            let m = &st.machine;
            let all: Vec<StmtId> = m.iter().filter(|s| m.steppable(*s).is_ok()).collect();
            if all.is_empty() {
                let pending: Vec<String> = m.iter().filter(|s| matches!(m.status(*s), Status::Pending)).map(|s| m.label_of(s)).collect();
                if pending.is_empty() {
                    return (steps, false);
                }
                for label in pending {
                    let a = match given.get(&label) {
                        Some(a) => a.clone(),
                        None => self.fixed_resolution(st, &label),
                    };
                    if self.apply(st, &a, 0).is_err() {
                        return (steps, false);
                    }
                }
                continue;
            }
            let pick: Vec<StmtId> = match order {
                Order::Rounds => all,
                Order::Reversed => all.last().copied().into_iter().collect(),
                Order::Random(_) => {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    vec![all[(rng % all.len() as u64) as usize]]
                }
                Order::Cbv => vec![m.cbv_next().unwrap_or(all[0])],
            };
            for s in pick {
                if self.step_in(st, s, 0, 0.0).is_some() {
                    steps += 1;
                }
            }
        }
        (steps, true)
    }

    /// The world file's answer for task `t` (`coin`'s and `sleep`'s defaults without one).
    fn world_answer(&mut self, m: &Machine, t: TaskId) -> Outcome {
        let task = &m.tasks[t.0 as usize];
        resolve_now(&mut self.host, &task.ext, &task.arg)
    }

    /// The world's (or a default) answer for the pending task at `label`, as an action.
    fn fixed_resolution(&mut self, st: &State, label: &str) -> Action {
        let outcome = match pending_in(&st.machine, label) {
            Ok(t) => self.world_answer(&st.machine, t),
            Err(e) => Outcome::Failed(e),
        };
        let (result, partial, error) = outcome_record(&outcome);
        Action::Resolve { label: label.to_string(), by: By::World, result, partial, error, at_ms: 0.0 }
    }
}

fn find_in(m: &Machine, label: &str) -> Result<StmtId, String> {
    m.iter().find(|s| m.label_of(*s) == label).ok_or_else(|| format!("no statement has label {label} now"))
}

/// The task of the pending statement labeled `label`.
fn pending_in(m: &Machine, label: &str) -> Result<TaskId, String> {
    let s = find_in(m, label)?;
    match m.stmt(s).op {
        MOp::Task(t) if matches!(m.status(s), Status::Pending) => Ok(t),
        _ => Err(format!("{label} is not a pending task")),
    }
}

/// The call a task at `label` belongs to (a stream's continuation belongs to its first call).
fn call_of<'a>(st: &'a mut State, label: &str) -> Option<&'a mut Call> {
    let i = match st.streams.get(label) {
        Some(&i) => i,
        None => st.calls.iter().rposition(|c| c.label == label)?,
    };
    st.calls.get_mut(i)
}

/// The calls on the critical path of the schedule shown: starting from the call that resolved
/// last, each earlier one is the call that resolved last before it was dispatched (what it
/// waited for). Indices into `calls`.
pub fn critical_path(calls: &[Call]) -> Vec<usize> {
    let end = |c: &Call| c.resolved_step.unwrap_or(usize::MAX);
    let real: Vec<usize> = (0..calls.len()).filter(|&i| !calls[i].pure).collect();
    let Some(mut cur) = real.iter().copied().max_by_key(|&i| (end(&calls[i]), i)) else { return vec![] };
    let mut path = vec![cur];
    // Each link resolved before the previous one was dispatched, so the chain is at most as
    // long as the calls; the bound keeps a malformed history from looping.
    while path.len() < real.len() {
        let before = real.iter().copied().filter(|&j| calls[j].resolved_step.is_some_and(|r| r <= calls[cur].dispatched_step) && j != cur);
        let Some(prev) = before.max_by_key(|&j| (end(&calls[j]), j)) else { break };
        path.push(prev);
        cur = prev;
    }
    path.reverse();
    path
}
