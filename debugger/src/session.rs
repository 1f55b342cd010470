//! A debugging session: a program on the λ^O machine that the user steps one statement, one
//! round, or by cbv or lazy at a time. Dispatched tasks wait until the user resolves them (by
//! hand, from the world file, from a recorded trace, live); pure externals resolve at dispatch
//! as in `opal run`.
//!
//! Everything the user does is an `Action`, and the state is a function of the action list
//! (`history`): time travel restores the nearest checkpoint and replays, a saved session is
//! the list, and a reloaded program replays as much of it as still applies. Statements are
//! identified in views by `LabelKey` (a hash of the label, O(1) to get however deep labels
//! grow) and shown with abbreviated labels; actions keep whole labels only where the user
//! named a statement.
//!
//! `Session` is the facade the window and the DAP adapter use: the work is in `state` (one
//! action), `history` (the log, time travel, session files), `view` (rows, the stepper),
//! `practice`, `confluence` and `jobs`.

pub use crate::confluence::{Confluence, Order};
use crate::history::{parse_saved, read_saved, History};
pub use crate::jobs::Until;
use crate::jobs::{Driver, Job, JobSpec, Poll, Progress, Worked};
pub use crate::kind::{kind_of, Kind, RowStatus, Standing};
pub use crate::practice::{Quiz, Verdict};
pub use crate::source::Local;
use crate::state::State;
pub use crate::state::{partial_answer, Action, By, Instance, Taken};
use crate::state::{pending_in, Env};
use crate::timeline::Call;
use crate::view::Cache;
pub use crate::view::{Row, StepRow, Stepper};
use opal_core::diag::Diagnostic;
pub use opal_core::machine::label::{LabelKey, LabelPath};
pub use opal_core::machine::run::Strategy;
use opal_core::machine::trace::Trace;
use opal_core::machine::{Lazy, MOp, Machine, Outcome, Status, StmtId, TaskId, VarId};
use opal_core::world::World;
use std::time::{Duration, Instant};

/// Default step budget of long-running jobs (run until, confluence), adjustable.
pub const DEFAULT_STEP_BUDGET: usize = 100_000;

pub struct Session {
    pub(crate) env: Env,
    trace: Option<Trace>,
    pub(crate) history: History,
    started: Instant,
    job: Option<Job>,
    /// Step budget of long-running jobs.
    pub step_budget: usize,
    confluence_result: Option<Confluence>,
    /// Rows and statements by label for the revision shown.
    cache: Cache,
}

impl Session {
    /// A session on the OPAL program `source`; `Err` with the errors if it does not compile.
    pub fn new(source: &str, world: Option<World>) -> Result<Session, Vec<Diagnostic>> {
        Session::for_file("program.opal", source, world)
    }

    /// A session on the file `path` holding `source`, read by the front end its name picks
    /// (a `.py` script by the Python front end); `Err` with the errors if it does not compile.
    pub fn for_file(
        path: &str,
        source: &str,
        world: Option<World>,
    ) -> Result<Session, Vec<Diagnostic>> {
        let (env, start) = crate::state::start(path, source, world)?;
        Ok(Session {
            env,
            trace: None,
            history: History::new(start),
            started: Instant::now(),
            job: None,
            step_budget: DEFAULT_STEP_BUDGET,
            confluence_result: None,
            cache: Cache::default(),
        })
    }

    /// The state shown (for the call graph).
    pub(crate) fn state(&self) -> &State {
        self.history.current()
    }

    pub fn machine(&self) -> &Machine {
        &self.history.current().machine
    }
    pub fn output(&self) -> &str {
        &self.history.current().output
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
        self.history.revision()
    }
    /// How many actions lead to the state shown.
    pub fn position(&self) -> usize {
        self.history.at()
    }
    /// Every action of this branch of history (also those after the position, after going back).
    pub fn actions(&self) -> &[Action] {
        self.history.actions()
    }
    /// `history()[i]` says what action `i` did, with the paper's rule names.
    pub fn history(&self) -> &[String] {
        self.history.said()
    }
    pub fn calls(&self) -> &[Call] {
        &self.history.current().calls
    }
    pub fn last_steps(&self) -> &[Taken] {
        &self.history.current().last
    }
    /// How many full copies of the state the session keeps for time travel.
    pub fn checkpoints(&self) -> usize {
        self.history.checkpoints()
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
        self.cache.row(
            self.history.revision(),
            self.history.current(),
            &self.env,
            s,
        )
    }

    /// The source lines (1-based) where some statement of the program was written, inside
    /// function bodies too: where a line breakpoint can stop.
    pub fn statement_lines(&self) -> std::collections::BTreeSet<usize> {
        crate::view::statement_lines(self.initial(), &self.env)
    }

    /// The runs of source statements action `i` stepped statements of.
    pub fn touched(&self, i: usize) -> &[Instance] {
        self.history.touched(i)
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
        let st = self.history.current();
        let m = &st.machine;
        let mut memo = st.memo.0.borrow_mut();
        let mut out = Vec::new();
        let mut l = m.label_id(s);
        while let Some(p) = m.labels.parent(l) {
            if out.len() == max {
                break;
            }
            let key = memo.key(&m.labels, p);
            out.push((
                memo.short(&m.labels, p),
                st.sites.get(&key).copied().flatten(),
            ));
            l = p;
        }
        out
    }

    /// Is statement `s`'s label `prefix` or below it (`prefix.…`)?
    pub fn under(&self, s: StmtId, prefix: LabelKey) -> bool {
        let st = self.history.current();
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
        let st = self.history.current();
        let m = &st.machine;
        let p = m.labels.parent(m.label_id(s))?;
        Some(st.memo.0.borrow_mut().key(&m.labels, p))
    }

    /// A statement's whole label (O(depth): for a tooltip).
    pub fn full_label(&self, s: StmtId) -> String {
        self.machine().label_of(s)
    }

    /// A label as a person typed it: a path (`5.6.2`), the mark a view showed for a deep
    /// one (`ℓ12`, `l12`) or a stream's rest (`2+3`).
    pub fn parse_label(&self, text: &str) -> Result<LabelPath, String> {
        let st = self.history.current();
        // A stream's pending rest as views show it (`2+3`).
        let rest = (st.streams.iter())
            .find(|(_, &i)| st.calls.get(i).is_some_and(|c| c.rest_label() == text));
        if let Some(s) = rest.and_then(|(&key, _)| st.find(key)) {
            return st.machine.label_of(s).parse();
        }
        match st.marked_label(text) {
            Some(key) => {
                let s = st
                    .find(key)
                    .ok_or_else(|| format!("no statement has label {text} now"))?;
                st.machine.label_of(s).parse()
            }
            None => text.parse(),
        }
    }

    /// A label for a tooltip: whole, or abbreviated with its depth when it is very deep.
    pub fn label_tip(&self, s: StmtId) -> String {
        let st = self.history.current();
        let depth = st
            .memo
            .0
            .borrow_mut()
            .depth(&st.machine.labels, st.machine.label_id(s));
        if depth <= 64 {
            st.machine.label_of(s)
        } else {
            let path = st.machine.label_short(&mut st.memo.0.borrow_mut(), s);
            format!("{path} ({depth} levels deep)")
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
            MOp::Prim(p) => {
                matches!(m.prim(p), opal_core::ir::Prim::Ext(e) if !self.env.host.is_pure(e))
            }
            _ => false,
        })
    }

    /// The world file, for `opal explore` from the debugger.
    pub fn world(&self) -> Option<&World> {
        self.env.host.world.as_ref()
    }

    /// The initial machine (for exploring every path from the start).
    pub fn initial(&self) -> &Machine {
        &self.history.initial().machine
    }

    /// The actions and position of a saved session, and whether it was saved for this text.
    pub fn saved_actions(&self, text: &str) -> Result<(Vec<Action>, usize, bool), String> {
        let (saved, same) = read_saved(text, &self.env.source)?;
        Ok((saved.actions, saved.position, same))
    }

    pub fn key_of(&self, s: StmtId) -> LabelKey {
        self.history.current().key(s)
    }

    /// The live statement labeled `key` (a map built once per revision).
    pub fn find(&self, key: LabelKey) -> Option<StmtId> {
        self.cache
            .find(self.history.revision(), self.history.current(), key)
    }

    /// Is `s` an environment or prelude statement (label `0.…`)? O(1).
    pub fn is_prelude(&self, s: StmtId) -> bool {
        self.history.current().is_prelude_stmt(s)
    }

    /// The 1-based source line statement `s` was written at.
    pub fn line_of(&self, s: StmtId) -> Option<usize> {
        self.env.line_at(self.machine().stmt(s).source_offset())
    }

    /// A value as the paper writes it (for tooltips).
    pub fn value_text(&self, v: VarId) -> String {
        self.state().readback(v).to_string()
    }

    /// Where the program stands: finished, stuck, waiting for tasks, or steppable.
    pub fn standing(&self) -> Standing {
        crate::kind::standing(self.machine())
    }

    // ---- actions ------------------------------------------------------------------------

    /// Does `a` at the position shown: later actions of this branch are dropped.
    fn act(&mut self, a: Action) -> Result<String, String> {
        self.history.act(&mut self.env, a)
    }

    /// Steps the statement labeled `label`; why not, if it cannot.
    pub fn step(&mut self, label: &LabelPath) -> Result<String, String> {
        let at_ms = self.now_ms();
        self.act(Action::Step {
            label: label.clone(),
            strategy: None,
            at_ms,
        })
    }

    /// Steps the statement `s` (a row or node the user clicked).
    pub fn step_stmt(&mut self, s: StmtId) -> Result<String, String> {
        let label = self.machine().label_path(s);
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
        m.iter()
            .filter(|s| matches!(m.status(*s), Status::Pending))
            .map(|s| (s, self.row(s).text))
            .collect()
    }

    /// The program's statements that can never step (the program is wrong there, or their
    /// external call failed), with how they stand: what the source marks in red.
    pub fn failures(&self) -> Vec<(StmtId, RowStatus)> {
        let m = self.machine();
        m.iter()
            .filter(|s| !self.is_prelude(*s))
            .filter_map(|s| match RowStatus::of(m, s).0 {
                st @ (RowStatus::Stuck(_) | RowStatus::Failed(_)) => Some((s, st)),
                _ => None,
            })
            .collect()
    }

    /// Labels of the pending tasks, for tests and scripts.
    pub fn pending_labels(&self) -> Vec<LabelPath> {
        self.pending()
            .into_iter()
            .map(|(s, _)| self.machine().label_path(s))
            .collect()
    }

    fn pending_task(&self, label: &LabelPath) -> Result<TaskId, String> {
        pending_in(self.history.current(), label)
    }

    /// The finite results the task's external may return, for a pick list (`coin`, a world
    /// file's `choices`); empty when the set is not finite.
    pub fn choices(&self, label: &LabelPath) -> Vec<String> {
        let Ok(t) = self.pending_task(label) else {
            return vec![];
        };
        let ext = &self.machine().tasks[t].ext;
        if let Some(w) = self.env.host.world.as_ref().and_then(|w| w.get(ext)) {
            return w.choices.clone();
        }
        opal_core::externals::standard(ext)
            .map(|d| d.results.iter().map(|r| r.to_string()).collect())
            .unwrap_or_default()
    }

    fn resolve(
        &mut self,
        label: &LabelPath,
        by: By,
        result: String,
        partial: bool,
        error: Option<String>,
    ) -> Result<String, String> {
        self.pending_task(label)?;
        let at_ms = self.now_ms();
        self.act(Action::Resolve {
            label: label.clone(),
            by,
            result,
            partial,
            error,
            at_ms,
            call: None,
        })
    }

    /// Resolves a pending task with an OPAL expression the user typed (validated first). A
    /// list ending in `...` (`["Ho", ...]`) is a partial answer: its rest becomes a new
    /// pending task, as when a stream delivers a chunk (paper Fig. 10).
    pub fn resolve_with(&mut self, label: &LabelPath, src: &str) -> Result<String, String> {
        let t = self.pending_task(label)?;
        if let Some(items) = partial_answer(src) {
            let ext = self.machine().tasks[t].ext.clone();
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
    pub fn resolve_from_world(&mut self, label: &LabelPath) -> Result<String, String> {
        let a = self.world_answer(label)?;
        self.act(a)
    }

    /// The world file's answer for the pending task at `label`, as an action; an error when
    /// the world file has none.
    fn world_answer(&mut self, label: &LabelPath) -> Result<Action, String> {
        let a = self
            .env
            .world_action(self.history.current(), label, By::World)?;
        if let Action::Resolve { error: Some(e), .. } = &a {
            return Err(format!(
                "{e}; resolve {label} by hand or add a response to the world file"
            ));
        }
        Ok(a)
    }

    /// Resolves a pending task with what the trace recorded for it (a stream's next delivery).
    pub fn resolve_from_trace(&mut self, label: &LabelPath) -> Result<String, String> {
        let a = self.trace_action(label)?;
        self.act(a)
    }

    /// The trace's answer for the pending task at `label` (a stream's next delivery), as an
    /// action.
    fn trace_action(&self, label: &LabelPath) -> Result<Action, String> {
        self.pending_task(label)?;
        let trace = self.trace.as_ref().ok_or("no trace is loaded: open one with File > Load trace or `opal debug FILE --replay TRACE`")?;
        let st = self.history.current();
        let (origin, chunk) = match st.streams.get(&label.key()) {
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
            .find(|e| {
                e.label == origin && (e.chunk == chunk || chunk.is_none() && e.chunk == Some(0))
            })
            .ok_or_else(|| {
                format!(
                    "the trace has no event for {origin}{}",
                    chunk
                        .map(|c| format!(" (delivery {c})"))
                        .unwrap_or_default()
                )
            })?
            .clone();
        Ok(Action::Resolve {
            label: label.clone(),
            by: By::Trace,
            result: ev.result,
            partial: ev.partial,
            error: ev.error,
            at_ms: self.now_ms(),
            call: None,
        })
    }

    /// The external and argument of the pending task at `label` (to call it live).
    pub fn task_call(&self, label: &LabelPath) -> Result<(String, opal_core::ir::PExp), String> {
        let t = self.pending_task(label)?;
        let task = &self.machine().tasks[t];
        Ok((task.ext.to_string(), task.arg.clone()))
    }

    /// Delivers what a live external returned (as a trace event writes it) to `label`.
    pub fn resolve_live(
        &mut self,
        label: &LabelPath,
        result: String,
        partial: bool,
        error: Option<String>,
    ) -> Result<String, String> {
        self.resolve(label, By::Live, result, partial, error)
    }

    /// The pending task (whole label) that waits for the next delivery of the stream the call
    /// at `origin` started.
    pub fn stream_continuation(&self, origin: &LabelPath) -> Option<LabelPath> {
        let st = self.history.current();
        let key = origin.key();
        let i = st.calls.iter().rposition(|c| c.key == key)?;
        let (&k, _) = st.streams.iter().find(|(k, &j)| {
            j == i
                && st
                    .find(**k)
                    .is_some_and(|s| kind_of(&st.machine, s) == Kind::Pending)
        })?;
        st.find(k).map(|s| self.machine().label_path(s))
    }

    /// Resolves every pending task from the trace if loaded, else the world; how many.
    /// Every answer is found before any is given, and they go into the history as one step,
    /// so Back undoes them together (W on 999 pending tasks was 999 steps).
    pub fn resolve_all(&mut self) -> Result<usize, String> {
        let mut resolves = Vec::new();
        for label in self.pending_labels() {
            resolves.push(if self.trace.is_some() {
                self.trace_action(&label)?
            } else {
                self.world_answer(&label)?
            });
        }
        let n = resolves.len();
        match n {
            0 => {}
            1 => {
                self.act(resolves.remove(0))?;
            }
            _ => {
                self.act(Action::Resolves { resolves })?;
            }
        }
        Ok(n)
    }

    // ---- time travel --------------------------------------------------------------------

    /// How many actions going to `pos` replays (0 when a checkpoint is there).
    pub fn replay_cost(&self, pos: usize) -> usize {
        self.history.replay_cost(pos)
    }

    /// Shows the state after `pos` actions of this branch (restores a checkpoint, replays).
    pub fn goto(&mut self, pos: usize) -> Result<(), String> {
        self.history.goto(&mut self.env, pos)
    }

    pub fn back(&mut self) -> bool {
        let at = self.history.at();
        at > 0 && self.goto(at - 1).is_ok()
    }
    pub fn forward(&mut self) -> bool {
        let at = self.history.at();
        at < self.history.actions().len() && self.goto(at + 1).is_ok()
    }
    pub fn restart(&mut self) {
        self.history.restart();
    }

    /// Replays `actions` from the start as far as they apply; how many did, and the first
    /// error. (A reloaded program keeps the user's work up to where it changed.)
    pub fn replay(&mut self, actions: &[Action]) -> (usize, Option<String>) {
        self.history.replay(&mut self.env, actions)
    }

    /// The state before the last action and what it changed, for a before/after view.
    pub fn before_last(&mut self) -> Option<Stepper> {
        let at = self.history.at();
        if at == 0 {
            return None;
        }
        let before = self.history.state_at(&mut self.env, at - 1).ok()?;
        let h = &self.history;
        let what = h.said().get(at - 1).cloned().unwrap_or_default();
        Some(crate::view::stepper(
            what,
            &before,
            h.current(),
            &h.current().last,
        ))
    }

    // ---- practice mode ------------------------------------------------------------------

    /// Checks a prediction (the statements the student ticked) against the machine.
    pub fn check(&self, quiz: Quiz, ticked: &std::collections::BTreeSet<LabelKey>) -> Verdict {
        crate::practice::check(self.rows(), quiz, ticked)
    }

    // ---- files --------------------------------------------------------------------------

    /// The session as JSON: the program's hash, the actions and the position.
    pub fn to_json(&self) -> String {
        self.history.to_json(&self.env.source)
    }

    /// Loads a saved session of this program at once: replays its actions, goes to its
    /// position (a window uses the `Job::Load` job instead, which keeps drawing).
    pub fn load_json(&mut self, text: &str) -> Result<String, String> {
        let saved = parse_saved(text, &self.env.source)?;
        let keep = (self.history.actions().to_vec(), self.history.at());
        let (n, err) = self.replay(&saved.actions);
        if let Some(e) = err {
            self.replay(&keep.0);
            let _ = self.goto(keep.1);
            return Err(format!(
                "the session does not replay: {e} (after {n} actions); nothing was changed"
            ));
        }
        self.goto(saved.position)
            .map_err(|e| format!("the session does not replay: {e}"))?;
        Ok(format!(
            "loaded {} actions, at step {}",
            saved.actions.len(),
            self.history.at()
        ))
    }
}

// ---- jobs ----------------------------------------------------------------------------------

impl Driver for Session {
    fn history(&self) -> &History {
        &self.history
    }
    fn parts(&mut self) -> (&mut History, &mut Env) {
        (&mut self.history, &mut self.env)
    }
    fn step_budget(&self) -> usize {
        self.step_budget
    }
    fn advance(&mut self, strategy: Strategy) -> Result<String, String> {
        Session::advance(self, strategy)
    }
    fn resolve_all(&mut self) -> Result<usize, String> {
        Session::resolve_all(self)
    }
}

impl Session {
    /// Starts a job (refused while one runs).
    pub fn start(&mut self, spec: JobSpec) -> Result<String, String> {
        if let Some(p) = self.busy() {
            return Err(format!("{} is still running (Esc cancels it)", p.what));
        }
        let job = Job::start(self, spec)?;
        let what = job.name();
        self.job = Some(job);
        Ok(format!("{what}… (Esc cancels)"))
    }

    /// The running job's progress, if one runs.
    pub fn busy(&self) -> Option<Progress> {
        self.job.as_ref().map(|j| j.progress(self))
    }

    /// Drops the running job; what was cancelled. A run until keeps the actions it took; a
    /// load or a far time travel leaves the session as it was.
    pub fn cancel(&mut self) -> Option<String> {
        let job = self.job.take()?;
        Some(job.cancel(self))
    }

    /// Works on the running job for about `slice`; `None` if no job runs.
    pub fn poll(&mut self, slice: Duration) -> Option<Poll> {
        let deadline = Instant::now() + slice;
        let job = self.job.take()?;
        match job.work(self, deadline) {
            Worked::Done(r, confluence) => {
                if confluence.is_some() {
                    self.confluence_result = confluence;
                }
                Some(Poll::Done(r))
            }
            Worked::Going(job) => {
                let p = job.progress(self);
                self.job = Some(job);
                Some(Poll::Working(p))
            }
        }
    }

    /// Runs a job to its end (tests and scripts; a window polls instead).
    pub fn run_job(&mut self, spec: JobSpec) -> Result<String, String> {
        self.start(spec)?;
        loop {
            match self.poll(Duration::from_secs(3600)) {
                Some(Poll::Done(r)) => return r,
                Some(Poll::Working(_)) => {}
                None => return Err("the job vanished".into()),
            }
        }
    }

    /// Advances by `strategy` until `until` happens (see `JobSpec::RunUntil`), at once.
    pub fn run_until(
        &mut self,
        strategy: Strategy,
        until: &Until,
        auto_resolve: bool,
    ) -> Result<String, String> {
        self.run_job(JobSpec::RunUntil {
            strategy,
            until: until.clone(),
            auto_resolve,
        })
    }

    /// Runs the confluence check to its end at once.
    pub fn confluence(&mut self, order: Order) -> Confluence {
        let r = self.run_job(JobSpec::Confluence(order));
        self.take_confluence().unwrap_or_else(|| Confluence {
            order: order.name(),
            mine_steps: 0,
            theirs_steps: 0,
            mine: String::new(),
            theirs: r.err().unwrap_or_default(),
            mine_view: String::new(),
            theirs_view: String::new(),
            mine_output: String::new(),
            theirs_output: String::new(),
            truncated: true,
            budget: self.step_budget,
        })
    }

    /// The result of the last confluence job, once.
    pub fn take_confluence(&mut self) -> Option<Confluence> {
        self.confluence_result.take()
    }
}
