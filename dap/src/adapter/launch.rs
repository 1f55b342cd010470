//! `launch`: the program, its world file and trace read from disk, the session started, the
//! live externals' worker with it.

use super::{event, rendered, Adapter, DEFAULT_MAX_STEPS};
use opal_core::files::read_text;
use opal_debugger::session::{Session, Strategy};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The largest program `launch` reads: far beyond any source written by hand or generated for
/// the benchmarks, and small enough that a wrong `program` cannot exhaust memory.
pub const MAX_PROGRAM: u64 = 16 << 20;
/// The largest world file or trace `launch` reads (a trace of a long run is large).
pub const MAX_DATA: u64 = 256 << 20;
/// How long stopping the live externals may take (killing and reaping the children of the
/// process externals waits up to 2 s of this).
const STOP_LIVE: Duration = Duration::from_secs(5);

impl Adapter {
    pub(super) fn launch(&mut self, args: &Value) -> Result<Value, String> {
        let str_arg = |k: &str| -> Result<Option<String>, String> {
            match args.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(format!("launch: `{k}` must be a string, not {other}")),
            }
        };
        let bool_arg = |k: &str| -> Result<bool, String> {
            match args.get(k) {
                None | Some(Value::Null) => Ok(false),
                Some(Value::Bool(b)) => Ok(*b),
                Some(other) => Err(format!("launch: `{k}` must be true or false, not {other}")),
            }
        };
        let program = str_arg("program")?
            .ok_or("launch: `program` is required: the path of the .opal file to debug")?;
        let strategy = match str_arg("strategy")? {
            None => Strategy::Opportunistic,
            Some(s) => Strategy::parse(&s).ok_or_else(|| {
                format!("launch: unknown strategy `{s}` (use opportunistic, cbv or lazy)")
            })?,
        };
        let max_steps = match args.get("maxSteps") {
            None | Some(Value::Null) => DEFAULT_MAX_STEPS,
            Some(v) => v.as_u64().filter(|n| *n > 0).ok_or_else(|| {
                format!("launch: `maxSteps` must be a positive whole number, not {v}")
            })?,
        };
        self.stop_on_entry = bool_arg("stopOnEntry")?;
        let allow_exec = bool_arg("allowExec")?;
        let path = PathBuf::from(&program);
        let source = read_text(&path, "the program", MAX_PROGRAM).map_err(|e| e.to_string())?;
        let world_path = match str_arg("world")? {
            Some(w) => Some(PathBuf::from(w)),
            None => opal_core::world::path_beside(&path).filter(|w| w.exists()),
        };
        let world = match &world_path {
            Some(w) => {
                let text = read_text(w, "the world file", MAX_DATA).map_err(|e| e.to_string())?;
                Some(
                    opal_core::world::parse_world(&text)
                        .map_err(|diags| rendered(&diags, &w.display().to_string(), &text))?,
                )
            }
            None => None,
        };
        let session = Session::for_file(&program, &source, world).map_err(|diags| {
            // The caret diagrams in the Debug Console (monospace); the error message, which an
            // editor shows in a proportional font, only says where the first error is.
            let all = rendered(&diags, &program, &source);
            self.out.send(event(
                "output",
                json!({"category": "stderr", "output": format!("{program} does not compile:\n{all}")}),
            ));
            let first = all.lines().next().unwrap_or("");
            let n = diags.len();
            format!(
                "{program} does not compile: {first} ({n} error{} in the Debug Console)",
                if n == 1 { "" } else { "s" }
            )
        });
        let mut session = session?;
        if let Some(t) = str_arg("replay")? {
            let text =
                read_text(Path::new(&t), "the trace", MAX_DATA).map_err(|e| e.to_string())?;
            let trace =
                opal_core::machine::trace::Trace::parse(&text).map_err(|e| format!("{t}: {e}"))?;
            session.set_trace(trace).map_err(|e| format!("{t}: {e}"))?;
        }
        session.step_budget = max_steps as usize;
        self.program = Some(std::fs::canonicalize(&path).unwrap_or(path));
        self.strategy = strategy;
        self.max_steps = max_steps;
        self.session = Some(session);
        self.allow_exec = allow_exec;
        // A second launch: the first program's children must not outlive it.
        self.stop_live();
        self.start_live();
        // Breakpoints set before the program was known.
        for (p, lines) in std::mem::take(&mut self.early_breakpoints) {
            if self.is_program(&p) {
                self.breakpoints = lines
                    .iter()
                    .map(|&l| self.verify(l))
                    .map(|(bp, _)| bp)
                    .collect();
            }
        }
        self.queue.push(event("initialized", json!({})));
        Ok(json!({}))
    }

    /// Starts the live externals' worker for the launched program, if the adapter has them.
    pub(super) fn start_live(&mut self) {
        self.live = match &self.make_live {
            Some(make) => {
                match opal_debugger::live::LiveWorker::spawn(
                    make(self.allow_exec, self.program.clone()),
                    None,
                ) {
                    Ok(w) => Some(opal_debugger::live::LiveCalls::new(w)),
                    Err(e) => {
                        self.log(&format!("opal dap: {e}; tasks resolve from the world file, a trace or by hand\n"));
                        None
                    }
                }
            }
            None => None,
        };
    }

    /// Stops the live externals' worker and waits until the process externals have killed and
    /// reaped their children: on disconnect, terminate, restart, a new launch and the end of
    /// input, none may outlive the run they belong to.
    pub(super) fn stop_live(&mut self) {
        if let Some(live) = self.live.take() {
            if !live.stop(STOP_LIVE) {
                eprintln!(
                    "opal dap: the live externals did not stop within {} s",
                    STOP_LIVE.as_secs()
                );
            }
        }
    }
}
