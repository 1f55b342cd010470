//! Driving the machine: strategies (SEMANTICS.md §5), externals and resolution sources (§7).
//!
//! Pure externals run synchronously at dispatch and are resolved at once (recorded as
//! dispatch + resolve); others run on a current-thread tokio runtime and report through a
//! channel, so a run that waits only on tasks sleeps until one completes.

pub use super::results::{compile_result_source, outcome_record, ResultError};
pub use super::strategy::Strategy;
pub use host::{Choice, Host};
pub use pure::eval_pure;
pub use replay::check_trace;

mod arrivals;
mod host;
mod pure;
mod replay;

use arrivals::{delay, Arrival, Due, StreamState};
use host::is_stream_ext;

use super::live::{Live, LiveCall};
use super::results::bool_outcome;
use super::trace::{sha256_hex, Event, Trace};
use super::{Blocked, Lazy, Machine, Outcome, Rule, Status, StepEvent, StmtId, TaskId};
use crate::diag::Clip;
use crate::externals::{self, ExtKind};
use crate::ir::{PExp, Prim};
use crate::world::{Reply, World};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// Sees every step (for `opal step` and the debugger).
pub type Observer<'a> = Option<&'a mut dyn FnMut(&Machine, &StepEvent)>;

/// Where `print` writes: (handle root, text). The CLI writes to the real stdout.
pub type Sink = Box<dyn FnMut(&str, &str)>;

pub struct Options {
    pub strategy: Strategy,
    pub max_steps: Option<u64>,
    pub max_rounds: Option<u64>,
    pub world: Option<World>,
    pub replay: Option<Trace>,
    /// Reproduce recorded resolve times when replaying.
    pub replay_timing: bool,
    /// Replaying, each call takes its recorded latency from its own dispatch (a stream's
    /// deliveries keep their recorded gaps), whatever the schedule: on the virtual clock this
    /// gives the critical path of the recorded latencies, the bound no schedule can beat.
    pub replay_latencies: bool,
    /// Keep a trace of every resolution in the report (`--record`); off, a long run's memory
    /// follows its live term alone.
    pub record: bool,
    pub allow_exec: bool,
    pub source_sha256: String,
    /// Run on a virtual clock that advances only while the run waits for externals, so the
    /// wall time is the critical path of external latencies alone (feature `virtual-clock`;
    /// the benchmarks use it to report evaluation overhead).
    pub virtual_clock: bool,
    /// Externals implemented outside the core (`llm`, processes); world files and replayed
    /// traces take precedence over them.
    pub live: Option<Rc<dyn Live>>,
    /// Replaying an edited program (`--force`): a delivery that does not match the run (another
    /// external or argument, an event never used) is a warning on stderr instead of an error.
    pub replay_force: bool,
}

impl Options {
    pub fn new(strategy: Strategy) -> Options {
        Options {
            strategy,
            max_steps: None,
            max_rounds: None,
            world: None,
            replay: None,
            replay_timing: false,
            replay_latencies: false,
            record: false,
            allow_exec: false,
            source_sha256: String::new(),
            virtual_clock: false,
            live: None,
            replay_force: false,
        }
    }
}

/// Why a run could not finish, at a statement (its label; empty when no statement is to
/// blame) with a code from `docs/diagnostics.md` ("Runtime errors").
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    pub label: String,
    pub code: &'static str,
    pub message: String,
    /// The call of a prelude list function the program wrote that the statement ran inside
    /// (reported as a note: a function given arguments of the wrong shape fails inside it).
    pub inside: Option<super::LibraryCall>,
}

impl Fault {
    pub fn new(label: String, code: &'static str, message: impl Into<String>) -> Fault {
        Fault {
            label,
            code,
            message: message.into(),
            inside: None,
        }
    }
    /// The fault at statement `s` of `m`, with the library call it ran inside, if any.
    pub fn at(m: &Machine, s: StmtId, code: &'static str, message: impl Into<String>) -> Fault {
        Fault {
            inside: m.library_call_of(s),
            ..Fault::new(m.label_of(s), code, message)
        }
    }
}

/// A statement that can never step (R0001).
pub const STUCK: &str = "R0001";
/// An external call that failed (R0002).
pub const FAILED: &str = "R0002";
/// The result waits on something that can never come (R0003).
pub const UNFINISHED: &str = "R0003";
/// How many never-dispatched trace events a replay names before it counts the rest.
const NAMED_EVENTS: usize = 10;

/// A replayed run that does not match its trace (R0004).
pub const REPLAY: &str = "R0004";
/// Call-by-value stopped at a statement that waits (R0005).
pub const STOPPED: &str = "R0005";
/// The run could not start (R0006).
pub const NO_RUNTIME: &str = "R0006";

#[derive(Clone, Debug, PartialEq)]
pub enum End {
    /// The return variable is a value; its literal (None for `()`).
    Done(Option<String>),
    /// Statements that can never step, failed tasks, and why the result cannot be computed.
    Stuck(Vec<Fault>),
    StepBudget,
    RoundBudget,
}

#[derive(Debug)]
pub struct Report {
    pub end: End,
    pub rounds: u64,
    pub steps: [u64; 6],
    pub tasks: usize,
    pub wall: Duration,
    pub first_output: Option<Duration>,
    pub trace: Trace,
    /// The largest number of tasks in flight at once.
    pub max_in_flight: usize,
}
/// Runs a program to the end under a strategy. `on_step` sees every step (for `opal step`).
pub fn run(m: &mut Machine, opts: Options, sink: Sink, on_step: Observer<'_>) -> Report {
    let mut builder = tokio::runtime::Builder::new_current_thread();
    // IO (sockets, pipes, signals) only for live externals; the rest needs timers alone.
    if opts.live.is_some() {
        builder.enable_all();
    } else {
        builder.enable_time();
    }
    #[cfg(feature = "virtual-clock")]
    builder.start_paused(opts.virtual_clock);
    let rt = match builder.build() {
        Ok(rt) => rt,
        Err(e) => {
            return Report {
                end: End::Stuck(vec![Fault::new(
                    String::new(),
                    NO_RUNTIME,
                    format!("cannot start the async runtime: {e}"),
                )]),
                rounds: 0,
                steps: [0; 6],
                tasks: 0,
                wall: Duration::ZERO,
                first_output: None,
                trace: Trace {
                    version: 1,
                    source_sha256: opts.source_sha256,
                    strategy: opts.strategy.name().into(),
                    events: vec![],
                },
                max_in_flight: 0,
            }
        }
    };
    let live = opts.live.clone();
    let local = tokio::task::LocalSet::new();
    let report = local.block_on(&rt, Runner::new(m, opts, sink).go(on_step));
    if let Some(l) = live {
        l.shutdown();
    }
    report
}

struct Runner<'m> {
    m: &'m mut Machine,
    host: Host,
    opts: Options,
    sink: Sink,
    started: Instant,
    first_output: Option<Duration>,
    tx: tokio::sync::mpsc::UnboundedSender<Arrival>,
    rx: tokio::sync::mpsc::UnboundedReceiver<Arrival>,
    timers: std::collections::BinaryHeap<Due>,
    timer_seq: u64,
    in_flight: usize,
    max_in_flight: usize,
    rounds: u64,
    streams: Vec<StreamState>,
    events: Vec<Event>,
    /// Recorded events by label; a stream's events in chunk order.
    replay: HashMap<String, Vec<Event>>,
    replaying: bool,
    /// Replay errors: a delivery that does not match the run, or nothing left to deliver.
    replay_errors: Vec<Fault>,
    /// Calls that did not match the trace and were replayed anyway (`--force`): the first
    /// `NAMED_EVENTS` are warned about one by one, the rest counted at the end.
    forced_mismatches: usize,
    /// The strategy wanted a step the budget did not allow.
    over_budget: bool,
    /// The statements of the current round (a buffer kept across rounds).
    cands: Vec<StmtId>,
}

impl<'m> Runner<'m> {
    fn new(m: &'m mut Machine, mut opts: Options, sink: Sink) -> Runner<'m> {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let replaying = opts.replay.is_some();
        let mut replay: HashMap<String, Vec<Event>> = HashMap::new();
        for e in opts.replay.take().map(|t| t.events).unwrap_or_default() {
            replay.entry(e.label.clone()).or_default().push(e);
        }
        for evs in replay.values_mut() {
            evs.sort_by_key(|e| e.chunk);
        }
        let host = Host::new(opts.world.take(), opts.allow_exec).declaring(m);
        Runner {
            m,
            host,
            opts,
            sink,
            started: Instant::now(),
            first_output: None,
            tx,
            rx,
            timers: std::collections::BinaryHeap::new(),
            timer_seq: 0,
            in_flight: 0,
            max_in_flight: 0,
            rounds: 0,
            streams: Vec::new(),
            events: Vec::new(),
            replay,
            replaying,
            replay_errors: Vec::new(),
            forced_mismatches: 0,
            over_budget: false,
            cands: Vec::new(),
        }
    }

    fn now_ms(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * 1000.0
    }

    fn budget_left(&self) -> bool {
        self.opts
            .max_steps
            .map(|n| self.m.steps_total() < n)
            .unwrap_or(true)
    }

    async fn go(mut self, mut on_step: Observer<'_>) -> Report {
        // Inside the runtime, so a virtual clock (if any) is the one read.
        self.started = Instant::now();
        if let Some(live) = &self.opts.live {
            let tx = self.tx.clone();
            live.attach(crate::machine::live::Printer::new(move |handle, text| {
                let (handle, text) = (handle.to_string(), text.to_string());
                let _ = tx.send(Arrival::Output { handle, text });
            }));
        }
        let end = loop {
            // Only tasks in flight send arrivals (pure externals resolve at dispatch).
            while self.in_flight > 0 {
                let Ok(a) = self.rx.try_recv() else { break };
                self.arrive(a);
            }
            self.fire_due();
            if self
                .opts
                .max_rounds
                .map(|r| self.rounds >= r)
                .unwrap_or(false)
            {
                break End::RoundBudget;
            }
            let progressed = match self.opts.strategy {
                Strategy::Opportunistic => self.round(&mut on_step),
                Strategy::Cbv => self.cbv_step(&mut on_step),
                Strategy::Lazy => match self.lazy_step(&mut on_step) {
                    Some(p) => p,
                    None => break self.finish(),
                },
            };
            if progressed {
                continue;
            }
            // `--max-steps N` allows N steps: the budget ends a run only when it needs one more.
            if self.over_budget {
                break End::StepBudget;
            }
            if self.in_flight > 0 {
                if !self.wait().await {
                    break self.finish();
                }
                continue;
            }
            if self.opts.strategy == Strategy::Cbv {
                self.sweep_gc(&mut on_step);
            }
            break self.finish();
        };
        let end = self.replay_verdict(end);
        let trace = Trace {
            version: 1,
            source_sha256: self.opts.source_sha256.clone(),
            strategy: self.opts.strategy.name().into(),
            events: std::mem::take(&mut self.events),
        };
        Report {
            end,
            rounds: self.rounds,
            steps: self.m.steps,
            tasks: self.m.dispatched,
            wall: self.started.elapsed(),
            first_output: self.first_output,
            trace,
            max_in_flight: self.max_in_flight,
        }
    }

    fn finish(&mut self) -> End {
        let ret = self.m.ret;
        // Lazy evaluation is done when the value it prints is: its tuple components too.
        let ret_done = match self.opts.strategy {
            Strategy::Lazy => self.m.lazy_next_mut() == Lazy::Done,
            _ => self
                .m
                .binder(ret)
                .map(|b| self.m.stmt(b).op.is_value())
                .unwrap_or(false),
        };
        let mut stuck = Vec::new();
        if self.opts.strategy != Strategy::Lazy || !ret_done {
            let ids: Vec<StmtId> = self.m.iter().collect();
            for s in ids {
                match self.m.status(s) {
                    Status::Stuck(why) => {
                        let code = if matches!(self.m.steppable(s), Err(Blocked::Failed(_))) {
                            FAILED
                        } else {
                            STUCK
                        };
                        stuck.push(Fault::at(self.m, s, code, why))
                    }
                    Status::Waiting { .. } | Status::Pending
                        if stuck.is_empty() && self.opts.strategy == Strategy::Cbv =>
                    {
                        stuck.push(Fault::at(self.m, s, STOPPED, "evaluation stopped here"))
                    }
                    _ => {}
                }
            }
        }
        if !stuck.is_empty() || !ret_done {
            if stuck.is_empty() {
                stuck.push(self.unfinished());
            }
            return End::Stuck(stuck);
        }
        let lit = self.m.readback_text(ret, super::readback::Budget::RESULT);
        End::Done(if lit == "()" { None } else { Some(lit) })
    }

    /// Why the result is not a value when nothing is stuck: the end of the chain of waits from
    /// the result (the statement the rest waits for, with what it waits on).
    fn unfinished(&self) -> Fault {
        let mut at = None;
        // Lazy evaluation's result may be a value whose list waits on an element.
        let lazy_need = if self.opts.strategy == Strategy::Lazy {
            self.m.lazy_print_waits_on()
        } else {
            None
        };
        let mut v = lazy_need.unwrap_or(self.m.ret);
        let mut seen = std::collections::HashSet::new();
        while let Some(b) = self.m.binder(v) {
            if !seen.insert(b) {
                break;
            }
            match self.m.status(b) {
                Status::Waiting { on: Some(w), why } => {
                    at = Some((b, why));
                    v = w;
                }
                Status::Pending => {
                    at = Some((b, "its external call never resolved".into()));
                    break;
                }
                _ => break,
            }
        }
        match at {
            Some((s, why)) => Fault::at(
                self.m,
                s,
                UNFINISHED,
                format!("the result cannot be computed: this statement is {why}"),
            ),
            None => Fault::new(
                String::new(),
                UNFINISHED,
                "the result cannot be computed: it is not a value and nothing can step",
            ),
        }
    }

    fn after_step(&mut self, ev: &StepEvent, on_step: &mut Observer<'_>) {
        if let Some(f) = on_step.as_mut() {
            f(self.m, ev);
        }
        match ev.rule {
            Rule::Dispatch => {
                if let Some(t) = ev.task {
                    self.start(t, on_step);
                }
            }
            Rule::Resolve => {
                if let Some(nt) = self.m.continuation(ev) {
                    // The new rest-of-stream task continues the same stream.
                    if ev.task.is_some() {
                        if let Some(si) = self.m.tasks[nt].stream {
                            self.streams[si as usize].current = nt;
                            self.in_flight += 1;
                            self.flush_stream(si as usize);
                        } else if let Some(ev2) = self
                            .replay
                            .remove(&self.m.label_of(self.m.tasks[nt].stmt))
                            .and_then(|mut v| v.drain(..).next())
                        {
                            self.in_flight += 1;
                            self.schedule_replay(nt, ev2);
                        } else {
                            let msg = "the trace does not continue this stream".to_string();
                            self.m.deliver(nt, Outcome::Failed(msg), self.now_ms());
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn step_at(&mut self, s: StmtId, on_step: &mut Observer<'_>) -> bool {
        match self.m.step(s) {
            Some(ev) => {
                self.after_step(&ev, on_step);
                true
            }
            None => false,
        }
    }

    /// One opportunistic round: every statement steppable at its start steps.
    fn round(&mut self, on_step: &mut Observer<'_>) -> bool {
        let mut cands = std::mem::take(&mut self.cands);
        self.m.round_candidates(&mut cands);
        if cands.is_empty() || !self.budget_left() {
            self.over_budget |= !cands.is_empty();
            self.cands = cands;
            return false;
        }
        self.rounds += 1;
        for &s in &cands {
            if !self.budget_left() {
                self.over_budget = true;
                break;
            }
            self.step_at(s, on_step);
        }
        // One huge round (a long list unfolding) must not pin its buffer for the whole run.
        if cands.capacity() > 1 << 16 && cands.len() < cands.capacity() / 8 {
            cands = Vec::new();
        }
        self.cands = cands;
        true
    }

    /// cbv: step the leftmost statement that is not a value.
    fn cbv_step(&mut self, on_step: &mut Observer<'_>) -> bool {
        self.collect_garbage(on_step);
        let Some(s) = self.m.cbv_next_mut() else {
            return false;
        };
        if !self.budget_left() {
            self.over_budget = true;
            return false;
        }
        self.rounds += 1;
        self.step_at(s, on_step)
    }

    /// cbv and lazy step one statement at a time, so garbage (values nothing uses) would pile
    /// up for the whole run (a divergent loop grew by 50 bytes a step): reduce-gc the
    /// statements that became garbage since the last step. It never changes which statement
    /// the strategy steps next, which is never a value.
    fn collect_garbage(&mut self, on_step: &mut Observer<'_>) {
        let mut cands = std::mem::take(&mut self.cands);
        self.m.take_dirty(&mut cands);
        for &s in &cands {
            if self.m.steppable(s) == Ok(Rule::ReduceGc) && self.budget_left() {
                self.step_at(s, on_step);
            }
        }
        self.cands = cands;
    }

    /// The garbage left when call-by-value ends. One scan of the term, then only the
    /// statements a collection marked dirty (the binder of a variable whose last use went):
    /// a chain of n values each used by the next (a list's `cons` cells) goes in O(n), where a
    /// scan per layer took O(n²).
    fn sweep_gc(&mut self, on_step: &mut Observer<'_>) {
        self.m.take_dirty(&mut self.cands);
        let mut ids: Vec<StmtId> = self
            .m
            .iter()
            .filter(|s| self.m.steppable(*s) == Ok(Rule::ReduceGc))
            .collect();
        while !ids.is_empty() && self.budget_left() {
            for &s in &ids {
                if self.m.steppable(s) == Ok(Rule::ReduceGc) && self.budget_left() {
                    self.step_at(s, on_step);
                }
            }
            self.m.take_dirty(&mut ids);
        }
    }

    /// lazy: step what the return variable's value needs. `None` when it is a value.
    fn lazy_step(&mut self, on_step: &mut Observer<'_>) -> Option<bool> {
        self.collect_garbage(on_step);
        match self.m.lazy_next_mut() {
            Lazy::Step(_) if !self.budget_left() => {
                self.over_budget = true;
                Some(false)
            }
            Lazy::Step(s) => {
                self.rounds += 1;
                Some(self.step_at(s, on_step))
            }
            Lazy::Done => None,
            Lazy::Blocked => Some(false),
        }
    }

    // ---- externals --------------------------------------------------------------------

    fn emit(&mut self, handle: &str, text: &str) {
        if self.first_output.is_none() && handle == "stdout" {
            self.first_output = Some(self.started.elapsed());
        }
        (self.sink)(handle, text);
    }

    /// Starts the external call of a freshly dispatched task: computed at once if it is pure,
    /// else from the trace being replayed, the world file, a live external, or the runner's own
    /// `sleep` and `coin`.
    fn start(&mut self, t: TaskId, on_step: &mut Observer<'_>) {
        let now = self.now_ms();
        self.m.tasks[t].dispatched_at_ms = now;
        if self.host.is_pure(&self.m.tasks[t].ext) {
            return self.start_pure(t, now, on_step);
        }
        let (ext, arg) = (self.m.tasks[t].ext.clone(), self.m.tasks[t].arg.clone());
        self.in_flight += 1;
        self.max_in_flight = self.max_in_flight.max(self.in_flight);
        if self.replaying {
            return self.start_replay(t, &ext, &arg);
        }
        if let Some(w) = self.host.world.as_ref().and_then(|w| w.get_shared(&ext)) {
            return self.start_world(t, &w, &ext, &arg);
        }
        if let Some(call) = self.opts.live.as_ref().and_then(|l| l.start(&ext, &arg)) {
            return self.start_live(t, call);
        }
        self.start_builtin(t, &ext, &arg)
    }

    /// A pure external: computed and resolved at dispatch, its prints emitted in order.
    fn start_pure(&mut self, t: TaskId, now: f64, on_step: &mut Observer<'_>) {
        let task = &self.m.tasks[t];
        let stmt = task.stmt;
        let mut out: Vec<(String, String)> = Vec::new();
        let r = eval_pure(
            &task.ext,
            &task.arg,
            &mut |h, s| out.push((h.to_string(), s.to_string())),
            self.started,
        );
        for (h, s) in out {
            self.emit(&h, &s);
        }
        let outcome = r.unwrap_or_else(|e| Outcome::Failed(e.to_string()));
        self.m.deliver(t, outcome, now);
        self.step_at(stmt, on_step);
    }

    /// An external the world file describes: a choice, a result or a stream, after its latency.
    fn start_world(&mut self, t: TaskId, w: &crate::world::WorldExt, ext: &str, arg: &PExp) {
        if let Some(outcome) = self.host.choose(w, Choice::Random) {
            self.schedule(t, outcome, w.latency_ms);
            return;
        }
        match w.reply(arg) {
            Some((Reply::Result(src), lat)) => {
                let outcome = self.host.compile_result(&src).unwrap_or_else(|e| Outcome::Failed(e.to_string()));
                self.schedule(t, outcome, lat);
            }
            Some((Reply::Stream(chunks, ms), lat)) => {
                let si = self.new_stream(t);
                // Deadlines count from dispatch: chunk i arrives chunk_ms[i] after chunk i-1.
                let mut at = Instant::now() + delay(lat);
                let n = chunks.len();
                if n == 0 {
                    self.schedule_at(at, Arrival::Chunk { stream: si, item: None, last: true });
                }
                for (i, c) in chunks.into_iter().enumerate() {
                    at += delay(ms.get(i).copied().unwrap_or(0.0));
                    self.schedule_at(at, Arrival::Chunk { stream: si, item: Some(Prim::Str(Arc::from(c.as_str()))), last: i + 1 == n });
                }
            }
            None => self.fail_now(t, format!("the world file has no response for `{ext}` with argument {arg} and no `default`", arg = Clip(arg))),
        }
    }

    /// The runner's own externals (`sleep`, `coin`), or why an external has no implementation.
    fn start_builtin(&mut self, t: TaskId, ext: &str, arg: &PExp) {
        match ext {
            "sleep" => {
                let ms = match arg {
                    PExp::Prim(Prim::Int(i)) => *i as f64,
                    PExp::Prim(Prim::Float(f)) => *f,
                    other => return self.fail_now(t, format!("sleep needs a number of milliseconds, got {other}", other = Clip(other))),
                };
                if !(0.0..=crate::world::MAX_MS).contains(&ms) {
                    return self.fail_now(t, format!("sleep needs 0 to 86400000 milliseconds (a day), got {ms}"));
                }
                self.schedule(t, super::data::outcome(PExp::Tuple(vec![])), ms);
            }
            "coin" => {
                let b = self.host.coin();
                self.schedule(t, bool_outcome(b), 0.0);
            }
            "llm" | "llm_chat" => self.fail_now(t, format!("`{ext}` needs the real-externals build (issue 7); describe it in a world file to mock it")),
            "create_process" | "fd_write_and_close" | "fd_read_and_close" => {
                let msg = if self.host.allow_exec {
                    format!("`{ext}` is not available in this build yet (issue 7)")
                } else {
                    format!("`{ext}` runs programs and is disabled; pass --allow-exec to enable it")
                };
                self.fail_now(t, msg)
            }
            _ => self.fail_now(t, format!("no implementation for external `{ext}`: add a `[{ext}]` table to the world file")),
        }
    }

    fn start_live(&mut self, t: TaskId, call: LiveCall) {
        let tx = self.tx.clone();
        match call {
            LiveCall::Value(fut) => {
                tokio::task::spawn_local(async move {
                    let outcome = match fut.await {
                        Ok(e) => super::data::outcome(e),
                        Err(e) => Outcome::Failed(e),
                    };
                    let _ = tx.send(Arrival::Done(t, outcome));
                });
            }
            LiveCall::Stream(mut rx) => {
                let si = self.new_stream(t);
                tokio::task::spawn_local(async move {
                    while let Some(item) = rx.recv().await {
                        let a = match item {
                            Ok(p) => Arrival::Chunk {
                                stream: si,
                                item: Some(p),
                                last: false,
                            },
                            Err(error) => {
                                let _ = tx.send(Arrival::StreamFailed { stream: si, error });
                                return;
                            }
                        };
                        if tx.send(a).is_err() {
                            return;
                        }
                    }
                    let _ = tx.send(Arrival::Chunk {
                        stream: si,
                        item: None,
                        last: true,
                    });
                });
            }
        }
    }
}
