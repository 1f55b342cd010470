//! The adapter: DAP requests in, the session stepped, responses and events out. See
//! `docs/dap.md` for the mapping; in short: `next` is one action of the chosen strategy (an
//! opportunistic round), `stepIn` one rule step, `stepOut` runs until the current statement's
//! inlined call has finished, `continue` runs until a breakpoint, an exception breakpoint, the
//! step budget, a task nothing can resolve, or the end; `stepBack`/`reverseContinue` travel
//! through the action log. Pending tasks resolve from the trace (`replay`) or the world file
//! when nothing else can step, chunk by chunk for streams, or by hand in the Debug Console.

mod breakpoints;
mod inspect;
mod launch;
mod running;

pub use launch::{MAX_DATA, MAX_PROGRAM};

use crate::transport::{Incoming, Writer};
use opal_core::machine::label::LabelKey;
use opal_core::machine::{MOp, Rule, StmtId};
use opal_debugger::session::{Instance, Kind, Session, Standing, Strategy};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

const THREAD: i64 = 1;
/// Default step budget of one `continue` (a divergent program pauses there, never hangs).
const DEFAULT_MAX_STEPS: u64 = 1_000_000;
/// Variables references of the scopes.
const SCOPE_LOCALS: i64 = 5;
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
    /// A source-level step: until an action is about to begin a run of a source statement
    /// the step accepts (after at least one action).
    Step(Step),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum StepKind {
    In,
    Over,
    Out,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Step {
    kind: StepKind,
    /// The call of a function the focus ran inside (`Session::enclosing_call`): its frame.
    frame: Option<LabelKey>,
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
    /// The runs already stopped at before the next action, the focus's last (an action
    /// can begin several: each is a stop of its own, in label order).
    skip_runs: Vec<Instance>,
    /// The position `skip_runs` belongs to.
    skip_at: usize,
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
            skip_runs: Vec::new(),
            skip_at: 0,
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
            "next" => self.step(StepKind::Over, args),
            "stepIn" => self.step(StepKind::In, args),
            "stepOut" => self.step(StepKind::Out, args),
            "stepBack" => self.step_back(args),
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

    /// Stops: the focus is a statement beginning a run of a source statement, else the next
    /// to step on a line of the program, else the first pending task.
    fn stopped(&mut self, reason: &str, description: &str) {
        self.skip.clear();
        self.stopped_at(reason, description, Vec::new(), None);
    }

    /// Stops with the breakpoints `hit` by the statement `at` (the focus). The focus's run
    /// begins with the next action without stopping again.
    fn stopped_at(&mut self, reason: &str, description: &str, hit: Vec<i64>, at: Option<StmtId>) {
        self.run = None;
        self.send_output();
        if let Some(s) = &self.session {
            let next = s.next_steps(self.strategy);
            let focus = at
                .or_else(|| s.beginning(self.strategy).first().map(|b| b.0))
                .or_else(|| next.iter().copied().find(|st| s.line_of(*st).is_some()))
                .or_else(|| {
                    s.pending()
                        .into_iter()
                        .map(|p| p.0)
                        .find(|st| s.line_of(*st).is_some())
                })
                .or_else(|| next.first().copied())
                .or_else(|| s.pending().first().map(|p| p.0))
                .or_else(|| s.statements().last().copied());
            self.focus = focus.map(|st| s.key_of(st));
            if s.position() != self.skip_at {
                self.skip_runs.clear();
                self.skip_at = s.position();
            }
            if let Some(run) = focus.and_then(|st| s.instance(st)) {
                self.skip_runs.retain(|r| *r != run);
                self.skip_runs.push(run);
            }
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
        "supportsEvaluateForHovers": true,
        "supportsSteppingGranularity": true,
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
