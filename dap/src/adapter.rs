//! The adapter: DAP requests in, the session stepped, responses and events out. See
//! `docs/dap.md` for the mapping; in short: `next` is one action of the chosen strategy (an
//! opportunistic round), `stepIn` one rule step, `stepOut` runs until the current statement's
//! inlined call has finished, `continue` runs until a breakpoint, an exception breakpoint, the
//! step budget, a task nothing can resolve, or the end; `stepBack`/`reverseContinue` travel
//! through the action log. Pending tasks resolve from the trace (`replay`) or the world file
//! when nothing else can step, chunk by chunk for streams, or by hand in the Debug Console.

mod breakpoints;
mod launch;

pub use launch::{MAX_DATA, MAX_PROGRAM};

use crate::transport::{Incoming, Writer};
use opal_core::machine::label::{LabelKey, LabelPath};
use opal_core::machine::{MOp, Rule, StmtId};
use opal_debugger::session::{Kind, Session, Standing, Strategy};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

const THREAD: i64 = 1;
/// Default step budget of one `continue` (a divergent program pauses there, never hangs).
const DEFAULT_MAX_STEPS: u64 = 1_000_000;
/// Variables references of the four scopes.
const SCOPE_STATEMENT: i64 = 1;
const SCOPE_TERM: i64 = 2;
const SCOPE_TASKS: i64 = 3;
const SCOPE_OUTPUT: i64 = 4;

#[derive(Clone, Debug)]
struct LineBreakpoint {
    id: i64,
    /// The line it stops at (the requested one, or the next line with a statement).
    line: usize,
}

/// What a running request does until it stops.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Run {
    Continue,
    /// Until no statement under this label is left (the inlined call finished).
    StepOut(LabelKey),
}

pub struct Adapter {
    out: Writer,
    session: Option<Session>,
    program: Option<PathBuf>,
    strategy: Strategy,
    stop_on_entry: bool,
    max_steps: u64,
    configured: bool,
    breakpoints: Vec<LineBreakpoint>,
    /// Lines asked for before the program was known: (path, lines).
    early_breakpoints: Vec<(String, Vec<usize>)>,
    function_breakpoints: Vec<(i64, String)>,
    break_on_stuck: bool,
    break_on_failed: bool,
    next_id: i64,
    run: Option<Run>,
    /// Machine steps when the run started (the budget counts from there).
    run_from: u64,
    /// The statements the last breakpoint stop was for: the next action may step them
    /// (continuing from a breakpoint does not stop at it again).
    skip: Vec<LabelKey>,
    /// Bytes of output already sent.
    output_sent: usize,
    /// Stuck statements after the last action (a new one is an exception).
    stuck: usize,
    /// The statement the client is shown (the top stack frame).
    focus: Option<LabelKey>,
    /// Events to send after the response being built.
    queue: Vec<Value>,
    exit: Option<i32>,
    make_live: Option<crate::LiveMaker>,
    /// Whether the launch lets the process externals run.
    allow_exec: bool,
    /// Live externals answering pending tasks that nothing else resolves.
    live: Option<opal_debugger::live::LiveCalls>,
}

fn event(name: &str, body: Value) -> Value {
    json!({"type": "event", "event": name, "body": body})
}

impl Adapter {
    pub fn new(out: Writer, make_live: Option<crate::LiveMaker>) -> Adapter {
        Adapter {
            out,
            session: None,
            program: None,
            strategy: Strategy::Opportunistic,
            stop_on_entry: false,
            max_steps: DEFAULT_MAX_STEPS,
            configured: false,
            breakpoints: Vec::new(),
            early_breakpoints: Vec::new(),
            function_breakpoints: Vec::new(),
            break_on_stuck: false,
            break_on_failed: true,
            next_id: 1,
            run: None,
            run_from: 0,
            skip: Vec::new(),
            output_sent: 0,
            stuck: 0,
            focus: None,
            queue: Vec::new(),
            exit: None,
            make_live,
            allow_exec: false,
            live: None,
        }
    }

    /// Serves until the client disconnects or input ends; the exit code.
    pub fn serve(mut self, rx: mpsc::Receiver<Incoming>) -> i32 {
        let code = self.serve_until_the_end(&rx);
        // The client is gone (its pipe closed mid-run, or writes fail) or said goodbye: the
        // children of process externals must not outlive the adapter.
        self.stop_live();
        code
    }

    fn serve_until_the_end(&mut self, rx: &mpsc::Receiver<Incoming>) -> i32 {
        loop {
            let waiting_live = self.live.as_ref().is_some_and(|l| l.in_flight() > 0);
            let next = if self.run.is_some() {
                match rx.try_recv() {
                    Ok(m) => Some(m),
                    Err(mpsc::TryRecvError::Empty) => None,
                    Err(mpsc::TryRecvError::Disconnected) => return 0,
                }
            } else if waiting_live {
                match rx.recv_timeout(Duration::from_millis(20)) {
                    Ok(m) => Some(m),
                    Err(mpsc::RecvTimeoutError::Timeout) => None,
                    Err(mpsc::RecvTimeoutError::Disconnected) => return 0,
                }
            } else {
                match rx.recv() {
                    Ok(m) => Some(m),
                    Err(_) => return 0,
                }
            };
            match next {
                Some(Incoming::Message(m)) => self.handle(m),
                Some(Incoming::Bad(why, message)) => self.bad_frame(&why, message),
                None => {}
            }
            if let Some(code) = self.exit {
                return code;
            }
            if waiting_live && self.run.is_none() {
                self.pump_live(true);
                self.flush();
            }
            if self.run.is_some() {
                self.work(Duration::from_millis(20));
                self.flush();
            }
            if !self.out.alive {
                return 0;
            }
        }
    }

    fn log(&mut self, text: &str) {
        self.out.send(event(
            "output",
            json!({"category": "console", "output": text}),
        ));
    }

    fn flush(&mut self) {
        for e in std::mem::take(&mut self.queue) {
            self.out.send(e);
        }
    }

    /// A frame that is not a well-formed message: said on the console, and a request it still
    /// held is answered with why it was not carried out (its client waits for an answer).
    fn bad_frame(&mut self, why: &str, message: Option<Value>) {
        self.log(&format!("opal dap: ignored input: {why}\n"));
        let Some(m) = message.filter(|m| !is_not_ours(m)) else {
            return;
        };
        let command = m
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        self.respond(
            m.get("seq").cloned().unwrap_or(Value::Null),
            &command,
            Err(format!("{why}; the request was not carried out")),
        );
    }

    /// Answers every request exactly once: one that cannot be carried out (no `seq` a client can
    /// match, no command, not a request) gets an error response echoing its `seq` as given.
    fn handle(&mut self, m: Value) {
        if is_not_ours(&m) {
            self.log("opal dap: ignored a response or an event from the client (opal dap sends no requests)\n");
            return;
        }
        let seq = m.get("seq").cloned().unwrap_or(Value::Null);
        let command = m
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let result = if m.get("type").and_then(Value::as_str) != Some("request") {
            Err(format!(
                "not a request: `type` must be \"request\", not {}",
                m.get("type").unwrap_or(&Value::Null)
            ))
        } else if seq.as_u64().is_none() {
            Err(format!(
                "`seq` must be a whole number from 0 to 2^64-1, not {seq}"
            ))
        } else if command.is_empty() {
            Err(format!(
                "`command` must name the request, not {}",
                m.get("command").unwrap_or(&Value::Null)
            ))
        } else {
            let args = m.get("arguments").cloned().unwrap_or(Value::Null);
            self.request(&command, &args)
        };
        self.respond(seq, &command, result);
    }

    fn respond(&mut self, request_seq: Value, command: &str, result: Result<Value, String>) {
        let response = match result {
            Ok(body) => {
                json!({"type": "response", "request_seq": request_seq, "command": command, "success": true, "body": body})
            }
            Err(message) => {
                json!({"type": "response", "request_seq": request_seq, "command": command, "success": false, "message": message,
                                   "body": {"error": {"id": 1, "format": message, "showUser": true}}})
            }
        };
        self.out.send(response);
        self.flush();
    }

    fn session(&mut self) -> Result<&mut Session, String> {
        self.session
            .as_mut()
            .ok_or_else(|| "no program is being debugged: send `launch` first".to_string())
    }

    /// Hands each request to the function for it; the short ones are answered here.
    fn request(&mut self, command: &str, args: &Value) -> Result<Value, String> {
        match command {
            "initialize" => Ok(capabilities()),
            "launch" => self.launch(args),
            "configurationDone" => self.configuration_done(),
            "restart" => self.restart(),
            "disconnect" | "terminate" => self.terminate(command == "disconnect"),
            "setBreakpoints" => self.set_breakpoints(args),
            "setFunctionBreakpoints" => self.set_function_breakpoints(args),
            "setExceptionBreakpoints" => self.set_exception_breakpoints(args),
            "continue" => {
                self.session()?;
                self.start(Run::Continue);
                Ok(json!({"allThreadsContinued": true}))
            }
            "next" => {
                self.session()?;
                self.step_once(None);
                Ok(json!({}))
            }
            "stepIn" => self.step_in(),
            "stepOut" => self.step_out(),
            "stepBack" => self.step_back(),
            "reverseContinue" => {
                self.reverse_continue()?;
                Ok(json!({}))
            }
            "pause" => {
                if self.run.take().is_some() {
                    self.stopped("pause", "paused");
                }
                Ok(json!({}))
            }
            "threads" => Ok(json!({"threads": [{"id": THREAD, "name": "λ^O machine"}]})),
            "stackTrace" => self.stack_trace(args),
            "scopes" => self.scopes(),
            "variables" => self.variables(args),
            "evaluate" => self.evaluate(args),
            "opal/taskGraph" => self.task_graph(args),
            other => Err(format!("`{other}` is not supported by opal dap")),
        }
    }

    // ---- lifecycle --------------------------------------------------------------------

    fn configuration_done(&mut self) -> Result<Value, String> {
        self.session()?;
        self.configured = true;
        if self.stop_on_entry {
            self.stopped("entry", "paused at the initial term");
        } else {
            self.start(Run::Continue);
        }
        Ok(json!({}))
    }

    fn restart(&mut self) -> Result<Value, String> {
        self.session()?;
        // The program runs again from its initial term: the children of the last run go.
        self.stop_live();
        self.start_live();
        let s = self.session()?;
        s.restart();
        self.output_sent = 0;
        self.stuck = 0;
        self.run = None;
        if self.stop_on_entry {
            self.stopped("entry", "restarted: the initial term");
        } else {
            self.start(Run::Continue);
        }
        Ok(json!({}))
    }

    /// `disconnect` (which also ends the adapter) and `terminate`.
    fn terminate(&mut self, disconnect: bool) -> Result<Value, String> {
        self.run = None;
        // Before answering: when the client sees the answer, no child is left.
        self.stop_live();
        self.queue.push(event("terminated", json!({})));
        if disconnect {
            self.exit = Some(0);
        }
        Ok(json!({}))
    }

    fn set_exception_breakpoints(&mut self, args: &Value) -> Result<Value, String> {
        let filters: Vec<&str> = args
            .get("filters")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        self.break_on_failed = filters.contains(&"failed");
        self.break_on_stuck = filters.contains(&"stuck");
        Ok(json!({}))
    }

    // ---- running ----------------------------------------------------------------------

    fn step_in(&mut self) -> Result<Value, String> {
        self.session()?;
        let first = self
            .session
            .as_ref()
            .and_then(|s| s.next_steps(Strategy::Opportunistic).first().copied());
        match self.strategy {
            Strategy::Opportunistic => self.step_once(Some(first)),
            _ => self.step_once(None),
        }
        Ok(json!({}))
    }

    fn step_out(&mut self) -> Result<Value, String> {
        let focus = self.focus;
        let s = self.session()?;
        let parent = focus
            .and_then(|k| s.find(k))
            .and_then(|st| s.parent_key(st));
        match parent {
            Some(p) => self.start(Run::StepOut(p)),
            None => self.step_once(None),
        }
        Ok(json!({}))
    }

    fn step_back(&mut self) -> Result<Value, String> {
        let s = self.session()?;
        if s.back() {
            let len = s.output().len();
            self.undo_output(len);
            self.stopped("step", "stepped back");
            Ok(json!({}))
        } else {
            Err("at the initial term: nothing to step back to".into())
        }
    }

    fn start(&mut self, run: Run) {
        let Some(s) = &self.session else { return };
        self.run_from = s.machine().steps_total();
        self.run = Some(run);
    }

    /// Time travel went back to where only `len` bytes were printed: the console says what
    /// is undone (output events cannot be taken back), and it will be printed again.
    fn undo_output(&mut self, len: usize) {
        if len < self.output_sent {
            let undone = self
                .session
                .as_ref()
                .map(|_| self.output_sent - len)
                .unwrap_or(0);
            self.queue
                .push(event("output", json!({"category": "console", "output": format!("(stepped back: the last {undone} bytes of output are undone)\n")})));
            self.output_sent = len;
        }
    }

    /// Sends what `print` wrote since the last time.
    fn send_output(&mut self) {
        let Some(s) = &self.session else { return };
        let out = s.output();
        if out.len() > self.output_sent {
            let text = out[self.output_sent..].to_string();
            self.output_sent = out.len();
            self.queue.push(event(
                "output",
                json!({"category": "stdout", "output": text}),
            ));
        }
    }

    /// Stops: the focus is the statement about to step (else the first pending task).
    fn stopped(&mut self, reason: &str, description: &str) {
        self.skip.clear();
        self.stopped_at(reason, description, Vec::new(), None);
    }

    /// Stops with the breakpoints `hit` by the statement `at` (the focus).
    fn stopped_at(&mut self, reason: &str, description: &str, hit: Vec<i64>, at: Option<StmtId>) {
        self.run = None;
        self.send_output();
        if let Some(s) = &self.session {
            let next = s.next_steps(self.strategy).first().copied();
            let focus = at
                .or(next)
                .or_else(|| s.pending().first().map(|p| p.0))
                .or_else(|| s.statements().last().copied());
            self.focus = focus.map(|st| s.key_of(st));
        }
        let mut body = json!({"reason": reason, "description": description, "threadId": THREAD, "allThreadsStopped": true, "text": description});
        if !hit.is_empty() {
            body["hitBreakpointIds"] = json!(hit);
        }
        self.queue.push(event("stopped", body));
    }

    /// The program ended: finished, or stuck with nothing left to wait for.
    fn ended(&mut self) {
        self.run = None;
        self.send_output();
        let Some(s) = &self.session else { return };
        let (code, what) = match s.standing() {
            Standing::Finished => (
                0,
                format!(
                    "finished: normal form; result {}\n",
                    s.value_text(s.machine().ret)
                ),
            ),
            Standing::Stuck(n) => (3, format!("stuck: {n} statement(s) can never step\n")),
            other => (0, format!("{}\n", other.text())),
        };
        self.queue.push(event(
            "output",
            json!({"category": "console", "output": what}),
        ));
        self.queue.push(event("exited", json!({"exitCode": code})));
        self.queue.push(event("terminated", json!({})));
    }

    /// Why the next action must not happen yet: a breakpoint on a statement about to step.
    fn breakpoint_hit(&self) -> Option<(&'static str, String, Vec<i64>, StmtId)> {
        let s = self.session.as_ref()?;
        let next = s.next_steps(self.strategy);
        let m = s.machine();
        for st in next {
            if self.skip.contains(&s.key_of(st)) {
                continue;
            }
            if let Some(line) = s.line_of(st) {
                let ids: Vec<i64> = self
                    .breakpoints
                    .iter()
                    .filter(|b| b.line == line)
                    .map(|b| b.id)
                    .collect();
                if !ids.is_empty() {
                    return Some(("breakpoint", format!("breakpoint on line {line}"), ids, st));
                }
            }
            if let (MOp::Call(f, _), Ok(Rule::Dispatch)) = (m.stmt(st).op, m.steppable(st)) {
                if let Some(MOp::Prim(p)) = m.binder(f).map(|b| m.stmt(b).op) {
                    if let opal_core::ir::Prim::Ext(name) = m.prim(p) {
                        let ids: Vec<i64> = self
                            .function_breakpoints
                            .iter()
                            .filter(|(_, n)| **n == **name)
                            .map(|(id, _)| *id)
                            .collect();
                        if !ids.is_empty() {
                            return Some((
                                "function breakpoint",
                                format!("`{name}` is about to be dispatched"),
                                ids,
                                st,
                            ));
                        }
                    }
                }
            }
        }
        None
    }

    /// After an action: a statement that became stuck or a task that failed (exception
    /// breakpoints).
    fn exception(&mut self) -> Option<String> {
        let s = self.session.as_ref()?;
        let m = s.machine();
        let stuck: Vec<StmtId> = m
            .iter()
            .filter(|st| opal_debugger::session::kind_of(m, *st) == Kind::Stuck)
            .collect();
        let before = std::mem::replace(&mut self.stuck, stuck.len());
        if stuck.len() <= before {
            return None;
        }
        let row = s.row(*stuck.last()?);
        let failed = row.status.is_failed();
        if self.break_on_stuck || failed && self.break_on_failed {
            return Some(format!("{}: {}", row.label, row.status));
        }
        None
    }

    /// One action (`step`: a single statement to step, if given; else the strategy's next);
    /// when nothing can step, the pending tasks resolve from the trace or the world file.
    fn step_once(&mut self, step: Option<Option<StmtId>>) {
        self.run = None;
        let strategy = self.strategy;
        let Some(s) = self.session.as_mut() else {
            return;
        };
        let r = match step {
            Some(Some(st)) => s.step_stmt(st),
            _ => s.advance(strategy),
        };
        match r {
            Ok(what) => {
                if let Some(e) = self.exception() {
                    self.stopped("exception", &e);
                } else {
                    self.stopped("step", &what);
                }
            }
            Err(why) => self.stalled(&why),
        }
    }

    /// Resolves the pending tasks from the trace, else the world file, else by calling the
    /// live external; how many were resolved now, or why one cannot be.
    fn resolve_pending(&mut self) -> Result<usize, String> {
        let Some(s) = self.session.as_mut() else {
            return Ok(0);
        };
        let mut n = 0;
        let mut why = None;
        for label in s.pending_labels() {
            if self.live.as_ref().is_some_and(|l| l.calling(s, &label)) {
                continue;
            }
            let r = if s.has_trace() {
                s.resolve_from_trace(&label)
            } else {
                s.resolve_from_world(&label)
            };
            match r {
                Ok(_) => n += 1,
                Err(e) => match &mut self.live {
                    Some(live) => match live.call(s, &label) {
                        Ok(m) => self.queue.push(event(
                            "output",
                            json!({"category": "console", "output": format!("{m}\n")}),
                        )),
                        Err(e2) => why = Some(format!("{e}; live: {e2}")),
                    },
                    None => why = Some(e),
                },
            }
        }
        match why {
            Some(e) if n == 0 && self.live.as_ref().is_none_or(|l| l.in_flight() == 0) => Err(e),
            _ => Ok(n),
        }
    }

    /// Delivers what live externals answered; `announce` stops (so the client shows it) when
    /// something arrived while stopped.
    fn pump_live(&mut self, announce: bool) {
        let (Some(live), Some(s)) = (self.live.as_mut(), self.session.as_mut()) else {
            return;
        };
        let (messages, changed) = live.pump(s);
        for m in messages {
            self.queue.push(event(
                "output",
                json!({"category": "console", "output": format!("{m}\n")}),
            ));
        }
        if changed && announce {
            self.stopped("step", "a live external answered");
        }
    }

    /// Nothing can step: resolve what is pending, or say why not, or end.
    fn stalled(&mut self, why: &str) {
        let Some(s) = self.session.as_mut() else {
            return;
        };
        match s.standing() {
            Standing::Waiting(n) => match self.resolve_pending() {
                Ok(0) => self.stopped("pause", &format!("waiting for {n} pending task(s): a live external is answering")),
                Ok(k) => self.stopped("step", &format!("resolved {k} pending task(s)")),
                Err(e) => self
                    .stopped("pause", &format!("waiting for {n} pending task(s) that nothing resolves ({e}); in the Debug Console: resolve LABEL EXPRESSION")),
            },
            Standing::Finished | Standing::Stuck(_) => self.ended(),
            Standing::Steppable(_) => self.stopped("pause", why),
        }
    }

    /// Runs for about `slice`; stops when a stop condition holds.
    fn work(&mut self, slice: Duration) {
        let deadline = Instant::now() + slice;
        let strategy = self.strategy;
        while let Some(run) = self.run {
            self.pump_live(false);
            if let Some((reason, what, ids, at)) = self.breakpoint_hit() {
                // Every statement about to step on a breakpoint: the next action steps them.
                let keys: Vec<LabelKey> = match &self.session {
                    Some(s) => s
                        .next_steps(strategy)
                        .into_iter()
                        .map(|st| s.key_of(st))
                        .collect(),
                    None => vec![],
                };
                self.stopped_at(reason, &what, ids, Some(at));
                self.skip = keys;
                return;
            }
            self.skip.clear();
            let Some(s) = self.session.as_mut() else {
                return;
            };
            if let Run::StepOut(prefix) = run {
                if !s.statements().iter().any(|st| s.under(*st, prefix)) {
                    self.stopped("step", "stepped out: the call finished");
                    return;
                }
            }
            if s.machine().steps_total() - self.run_from >= self.max_steps {
                let budget = self.max_steps;
                self.stopped(
                    "pause",
                    &format!("did not finish within {budget} steps (maxSteps); continue to go on"),
                );
                return;
            }
            match s.advance(strategy) {
                Ok(_) => {
                    if let Some(e) = self.exception() {
                        self.stopped("exception", &e);
                        return;
                    }
                    self.send_output();
                }
                Err(why) => {
                    let standing = s.standing();
                    match standing {
                        Standing::Waiting(n) => {
                            match self.resolve_pending() {
                                Err(e) => {
                                    self.stopped(
                                        "pause",
                                        &format!("waiting for {n} pending task(s) that nothing resolves ({e}); in the Debug Console: resolve LABEL EXPRESSION"),
                                    );
                                    return;
                                }
                                // A live external is answering: wait for it, reading messages.
                                Ok(0) => {
                                    self.pump_live(false);
                                    std::thread::sleep(Duration::from_millis(5));
                                }
                                Ok(_) => {}
                            }
                            self.send_output();
                        }
                        Standing::Finished | Standing::Stuck(_) => {
                            self.ended();
                            return;
                        }
                        Standing::Steppable(_) => {
                            self.stopped("pause", &why);
                            return;
                        }
                    }
                }
            }
            if Instant::now() >= deadline {
                return;
            }
        }
    }

    fn reverse_continue(&mut self) -> Result<(), String> {
        let lines: Vec<usize> = self.breakpoints.iter().map(|b| b.line).collect();
        let s = self.session()?;
        let mut pos = s.position();
        // Back to just before the last action that stepped a statement on a breakpoint line.
        while pos > 0 {
            pos -= 1;
            if s.touched(pos).iter().any(|l| lines.contains(l)) {
                break;
            }
        }
        s.goto(pos)?;
        let (len, at_start) = (s.output().len(), s.position() == 0);
        self.undo_output(len);
        self.stopped(
            if at_start { "entry" } else { "breakpoint" },
            if at_start {
                "back at the initial term"
            } else {
                "reversed to a breakpoint"
            },
        );
        Ok(())
    }

    // ---- inspecting -------------------------------------------------------------------

    fn scopes(&mut self) -> Result<Value, String> {
        self.session()?;
        Ok(json!({"scopes": [
            {"name": "Statement", "variablesReference": SCOPE_STATEMENT, "expensive": false, "presentationHint": "locals"},
            {"name": "Labeled term", "variablesReference": SCOPE_TERM, "expensive": false},
            {"name": "Pending tasks", "variablesReference": SCOPE_TASKS, "expensive": false},
            {"name": "Output", "variablesReference": SCOPE_OUTPUT, "expensive": false},
        ]}))
    }

    fn stack_trace(&mut self, args: &Value) -> Result<Value, String> {
        let path = self
            .program
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let name = self
            .program
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let focus = self.focus;
        let s = self.session()?;
        let Some(st) = focus.and_then(|k| s.find(k)) else {
            return Ok(json!({"stackFrames": [], "totalFrames": 0}));
        };
        let row = s.row(st);
        let source = json!({"name": name, "path": path});
        let mut frames = vec![json!({
            "id": 0,
            "name": format!("{}  {}", row.label, row.text),
            "source": source,
            "line": row.line.unwrap_or(0),
            "column": 1,
        })];
        let start = args.get("startFrame").and_then(Value::as_u64).unwrap_or(0) as usize;
        let levels = args
            .get("levels")
            .and_then(Value::as_u64)
            .filter(|l| *l > 0)
            .unwrap_or(200) as usize;
        for (i, (label, line)) in s.call_chain(st, start + levels).into_iter().enumerate() {
            frames.push(json!({
                "id": i + 1,
                "name": format!("call at {label}"),
                "source": source,
                "line": line.unwrap_or(0),
                "column": 1,
                "presentationHint": if line.is_some() { "normal" } else { "subtle" },
            }));
        }
        let total = frames.len();
        let frames: Vec<Value> = frames.into_iter().skip(start).take(levels).collect();
        Ok(json!({"stackFrames": frames, "totalFrames": total}))
    }

    fn variables(&mut self, args: &Value) -> Result<Value, String> {
        let reference = args
            .get("variablesReference")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        let start = args.get("start").and_then(Value::as_u64).unwrap_or(0) as usize;
        let count = args
            .get("count")
            .and_then(Value::as_u64)
            .filter(|c| *c > 0)
            .unwrap_or(u64::MAX) as usize;
        let focus = self.focus;
        let s = self.session()?;
        let var = |name: &str, value: String| json!({"name": name, "value": value, "variablesReference": 0});
        let vars: Vec<Value> = match reference {
            SCOPE_STATEMENT => match focus.and_then(|k| s.find(k)) {
                Some(st) => {
                    let row = s.row(st);
                    vec![
                        var("label", s.label_tip(st)),
                        var("statement", row.text.clone()),
                        var("status", row.status.to_string()),
                        var("core", row.core.clone()),
                        var("line", row.line.map(|l| l.to_string()).unwrap_or_else(|| "(none)".into())),
                        var("value", s.value_text(s.machine().stmt(st).bind)),
                    ]
                }
                None => vec![var("statement", "(none)".into())],
            },
            SCOPE_TERM => s
                .statements()
                .into_iter()
                .filter(|st| !s.is_prelude(*st))
                .skip(start)
                .take(count)
                .map(|st| {
                    let row = s.row(st);
                    json!({"name": row.label, "value": row.text, "variablesReference": 0, "type": row.status.to_string()})
                })
                .collect(),
            SCOPE_TASKS => s.pending().into_iter().map(|(st, call)| var(&s.row(st).label, call)).collect(),
            SCOPE_OUTPUT => s.output().lines().enumerate().skip(start).take(count).map(|(i, l)| var(&(i + 1).to_string(), l.to_string())).collect(),
            _ => return Err(format!("no variables with reference {reference}")),
        };
        Ok(json!({"variables": vars}))
    }

    /// The Debug Console: `resolve LABEL EXPRESSION`, `why LABEL`, `step LABEL`, `help`.
    fn evaluate(&mut self, args: &Value) -> Result<Value, String> {
        let text = args
            .get("expression")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
            .to_string();
        let (cmd, rest) = text
            .split_once(char::is_whitespace)
            .map(|(c, r)| (c, r.trim()))
            .unwrap_or((text.as_str(), ""));
        let s = self.session()?;
        let result = match cmd {
            "resolve" => {
                let (label, expr) = rest.split_once(char::is_whitespace).ok_or("usage: resolve LABEL EXPRESSION, e.g. resolve 2 [\"Honolulu\", ...]")?;
                let r = s.resolve_with(&label.parse()?, expr.trim())?;
                self.stopped("step", &r);
                r
            }
            "why" => {
                let label: LabelPath = rest.parse()?;
                let st = s.find(label.key()).ok_or_else(|| format!("no statement has label {rest} now"))?;
                let row = s.row(st);
                format!("{}: {}", row.text, row.status)
            }
            "step" => {
                let r = s.step(&rest.parse()?)?;
                self.stopped("step", &r);
                r
            }
            "" | "help" => "commands: resolve LABEL EXPRESSION (a pending task's result; a list ending in ... is partial), why LABEL (why a statement can or cannot step), step LABEL (step that statement)".into(),
            other => return Err(format!("unknown command `{other}`; try: help")),
        };
        Ok(json!({"result": result, "variablesReference": 0}))
    }

    /// The custom request `opal/taskGraph` (`{"mode": "calls" | "statements"}`): the graph an
    /// editor draws.
    fn task_graph(&mut self, args: &Value) -> Result<Value, String> {
        let statements = args.get("mode").and_then(Value::as_str) == Some("statements");
        let s = self.session()?;
        let full = if statements {
            s.statement_graph(false)
        } else {
            s.call_graph(false)
        };
        let g = s.grouped(&full, 80, &Default::default(), &Default::default());
        let nodes: Vec<Value> = g
            .nodes
            .iter()
            .map(|n| {
                let (title, detail) = match (n.title.is_empty(), n.stmt) {
                    (true, Some(st)) => {
                        let row = s.row(st);
                        (row.text, row.status.to_string())
                    }
                    _ => (n.title.clone(), n.detail.clone()),
                };
                json!({
                    "id": format!("{:x}", n.key.0),
                    "label": n.label,
                    "title": title,
                    "detail": detail,
                    "kind": kind_name(n.kind),
                    "state": n.call.map(|c| format!("{c:?}").to_lowercase()),
                    "members": n.members,
                    "line": n.line,
                })
            })
            .collect();
        let edges: Vec<Value> = g.edges.iter().map(|(a, b)| json!([a, b])).collect();
        // Edges that only order two calls (the sequencing token), for a client to draw dashed.
        let ordering: Vec<Value> = g.ordering.iter().map(|(a, b)| json!([a, b])).collect();
        Ok(
            json!({"nodes": nodes, "edges": edges, "ordering": ordering, "standing": s.standing().text()}),
        )
    }
}

/// A response or an event from the client: nothing to answer.
/// The answer to `initialize`: what this adapter supports.
fn capabilities() -> Value {
    json!({
        "supportsConfigurationDoneRequest": true,
        "supportsFunctionBreakpoints": true,
        "supportsStepBack": true,
        "supportsRestartRequest": true,
        "supportsTerminateRequest": true,
        "supportsEvaluateForHovers": false,
        "supportsSteppingGranularity": false,
        "exceptionBreakpointFilters": [
            {"filter": "failed", "label": "Failed task", "description": "stop when an external call fails", "default": true},
            {"filter": "stuck", "label": "Stuck statement", "description": "stop when a statement becomes stuck (it can never step)", "default": false}
        ],
    })
}

fn is_not_ours(m: &Value) -> bool {
    matches!(
        m.get("type").and_then(Value::as_str),
        Some("response" | "event")
    )
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Steppable(_) => "steppable",
        Kind::Value => "value",
        Kind::Waiting => "waiting",
        Kind::Pending => "pending",
        Kind::Stuck => "stuck",
    }
}

/// The externals the program binds (for function breakpoints).
fn externals_used(s: &Session) -> Vec<String> {
    let m = s.initial();
    m.iter()
        .filter_map(|st| match m.stmt(st).op {
            MOp::Prim(p) => match m.prim(p) {
                opal_core::ir::Prim::Ext(e) => Some(e.to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

fn rendered(diags: &[opal_core::diag::Diagnostic], file: &str, text: &str) -> String {
    let index = opal_core::span::LineIndex::new(text);
    diags
        .iter()
        .map(|d| opal_core::diag::render(d, file, text, &index))
        .collect()
}
