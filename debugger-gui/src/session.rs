//! The debugger's state, kept apart from drawing (issue 5): a program on the λ^O machine that
//! the user steps one statement, one round, or by cbv or lazy at a time. Dispatched tasks wait
//! until the user resolves them (by hand, or from the world file); pure externals resolve at
//! dispatch as in `opal run`. Every state is kept, so the user can travel back and forth.

use opal_core::machine::explore::resolve_now;
use opal_core::machine::run::{eval_pure, Host};
use opal_core::machine::{Lazy, MOp, Machine, Outcome, Rule, Status, StmtId, TaskId};
use opal_core::span::LineIndex;
use opal_core::world::World;

/// One top-level statement as the labeled-term view shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub label: String,
    pub text: String,
    /// "steppable by reduce-call", "waiting: …", "pending task", "stuck: …", "value".
    pub status: String,
    pub steppable: bool,
    /// The 1-based source line the statement was written at (inlined code maps back).
    pub line: Option<usize>,
    /// A prelude or environment statement (labels `0.…`), folded away by default.
    pub prelude: bool,
}

#[derive(Clone)]
struct State {
    machine: Machine,
    output: String,
}

pub struct Session {
    source: String,
    lines: LineIndex,
    host: Host,
    /// `states[i]` is the term after `history[..i]`; `at` is the one shown.
    states: Vec<State>,
    pub history: Vec<String>,
    at: usize,
}

fn describe(s: Status) -> (String, bool) {
    match s {
        Status::Steppable(r) => (format!("steppable by {}", r.name()), true),
        Status::Value => ("value".into(), false),
        Status::Waiting { why, .. } => (format!("waiting: {why}"), false),
        Status::Pending => ("pending task: resolve it by hand or from the world file".into(), false),
        Status::Stuck(why) => (format!("stuck: {why}"), false),
    }
}

impl Session {
    /// A session on `source`; `Err` with the rendered errors if it does not compile.
    pub fn new(source: &str, world: Option<World>) -> Result<Session, String> {
        let c = opal_core::compile(source);
        if c.has_errors() {
            let errs: Vec<String> = c.diags.iter().filter(|d| d.is_error()).map(|d| format!("{}: {}", d.code, d.message)).collect();
            return Err(errs.join("\n"));
        }
        let machine = Machine::new(&c.program);
        Ok(Session {
            source: source.to_string(),
            lines: LineIndex::new(source),
            host: Host::new(world, false),
            states: vec![State { machine, output: String::new() }],
            history: Vec::new(),
            at: 0,
        })
    }

    pub fn machine(&self) -> &Machine {
        &self.states[self.at].machine
    }
    pub fn output(&self) -> &str {
        &self.states[self.at].output
    }
    pub fn source(&self) -> &str {
        &self.source
    }
    /// How many steps and resolutions lead to the state shown.
    pub fn position(&self) -> usize {
        self.at
    }

    pub fn rows(&self) -> Vec<Row> {
        let m = self.machine();
        m.iter()
            .map(|s| {
                let label = m.label_of(s);
                let (status, steppable) = describe(m.status(s));
                let span = m.stmt(s).span;
                let line = (span.end > 0).then(|| self.lines.line_of(span.start) + 1);
                Row { prelude: label.starts_with("0."), label, text: m.stmt_text(s), status, steppable, line }
            })
            .collect()
    }

    fn find(&self, label: &str) -> Result<StmtId, String> {
        let m = self.machine();
        m.iter().find(|s| m.label_of(*s) == label).ok_or_else(|| format!("no statement has label {label}"))
    }

    /// Starts a new branch of history from the state shown (forward states are dropped).
    fn fork(&mut self) -> State {
        self.states.truncate(self.at + 1);
        self.history.truncate(self.at);
        self.states[self.at].clone()
    }

    fn commit(&mut self, st: State, what: String) {
        self.states.push(st);
        self.history.push(what);
        self.at = self.states.len() - 1;
    }

    /// Steps the statement at `label` (any steppable one); why not, if it cannot.
    pub fn step(&mut self, label: &str) -> Result<Rule, String> {
        let s = self.find(label)?;
        self.step_stmt(s)
    }

    fn step_stmt(&mut self, s: StmtId) -> Result<Rule, String> {
        let label = self.machine().label_of(s);
        if let (why, false) = describe(self.machine().status(s)) {
            return Err(format!("{label} cannot step: {why}"));
        }
        let mut st = self.fork();
        let rule = self.step_in(&mut st, s).ok_or_else(|| format!("{label} cannot step"))?;
        self.commit(st, format!("{} at {label}", rule.name()));
        Ok(rule)
    }

    /// One step; a pure external's task is resolved at once (its output captured).
    fn step_in(&mut self, st: &mut State, s: StmtId) -> Option<Rule> {
        let mut discard = Vec::new();
        st.machine.take_dirty(&mut discard);
        let ev = st.machine.step(s)?;
        if let (Rule::Dispatch, Some(t)) = (ev.rule, ev.task) {
            let (ext, arg) = (st.machine.tasks[t.0 as usize].ext.clone(), st.machine.tasks[t.0 as usize].arg.clone());
            if self.host.is_pure(&ext) {
                let out = &mut st.output;
                let r = eval_pure(&ext, &arg, &mut |_, text| out.push_str(text), tokio::time::Instant::now());
                st.machine.deliver(t, r.unwrap_or_else(Outcome::Failed), 0.0);
            }
        }
        Some(ev.rule)
    }

    /// One opportunistic round: every statement steppable now steps. Returns how many.
    pub fn round(&mut self) -> usize {
        let m = self.machine();
        let all: Vec<StmtId> = m.iter().filter(|s| m.steppable(*s).is_ok()).collect();
        if all.is_empty() {
            return 0;
        }
        let mut st = self.fork();
        let n = all.iter().filter(|&&s| self.step_in(&mut st, s).is_some()).count();
        self.commit(st, format!("round: {n} steps"));
        n
    }

    /// One step of call-by-value (the leftmost statement that is not a value).
    pub fn step_cbv(&mut self) -> Result<Rule, String> {
        let s = self.machine().cbv_next().ok_or("cbv cannot step: the leftmost statement that is not a value is waiting or stuck")?;
        self.step_stmt(s)
    }

    /// One step of lazy evaluation (what the result needs).
    pub fn step_lazy(&mut self) -> Result<Rule, String> {
        match self.machine().lazy_next() {
            Lazy::Step(s) => self.step_stmt(s),
            Lazy::Done => Err("lazy evaluation is done: the result is a value".into()),
            Lazy::Blocked => Err("lazy evaluation cannot step: what the result needs is waiting".into()),
        }
    }

    /// Dispatched calls that wait for a resolution: (label, the call).
    pub fn pending(&self) -> Vec<(String, String)> {
        let m = self.machine();
        m.iter().filter(|s| matches!(m.status(*s), Status::Pending)).map(|s| (m.label_of(s), m.stmt_text(s))).collect()
    }

    fn pending_task(&self, label: &str) -> Result<TaskId, String> {
        let s = self.find(label)?;
        match self.machine().stmt(s).op {
            MOp::Task(t) if matches!(self.machine().status(s), Status::Pending) => Ok(t),
            _ => Err(format!("{label} is not a pending task")),
        }
    }

    /// The finite results the task's external may return, for a pick list (`coin`, a world
    /// file's `choices`); empty when the set is not finite.
    pub fn choices(&self, label: &str) -> Vec<String> {
        let Ok(t) = self.pending_task(label) else { return vec![] };
        let ext = &self.machine().tasks[t.0 as usize].ext;
        if let Some(w) = self.host.world.as_ref().and_then(|w| w.get(ext)) {
            return w.choices.clone();
        }
        opal_core::externals::standard(ext).map(|d| d.results.iter().map(|r| r.to_string()).collect()).unwrap_or_default()
    }

    /// Resolves a pending task with an OPAL expression the user typed (validated first).
    pub fn resolve_with(&mut self, label: &str, src: &str) -> Result<(), String> {
        let t = self.pending_task(label)?;
        let outcome = self.host.compile_result(src).map_err(|e| format!("`{src}` is not a closed OPAL expression: {e}"))?;
        let mut st = self.fork();
        st.machine.deliver(t, outcome, 0.0);
        self.commit(st, format!("resolved {label} by hand: {src}"));
        Ok(())
    }

    /// Resolves a pending task from the world file (or `coin`/`sleep` defaults).
    pub fn resolve_from_world(&mut self, label: &str) -> Result<(), String> {
        let t = self.pending_task(label)?;
        let (ext, arg) = (self.machine().tasks[t.0 as usize].ext.clone(), self.machine().tasks[t.0 as usize].arg.clone());
        let outcome = resolve_now(&mut self.host, &ext, &arg);
        if let Outcome::Failed(e) = &outcome {
            return Err(e.clone());
        }
        let mut st = self.fork();
        st.machine.deliver(t, outcome, 0.0);
        self.commit(st, format!("resolved {label} from the world file"));
        Ok(())
    }

    pub fn back(&mut self) -> bool {
        let moved = self.at > 0;
        self.at = self.at.saturating_sub(1);
        moved
    }
    pub fn forward(&mut self) -> bool {
        let moved = self.at + 1 < self.states.len();
        if moved {
            self.at += 1;
        }
        moved
    }
    pub fn restart(&mut self) {
        self.states.truncate(1);
        self.history.clear();
        self.at = 0;
    }
}
