//! Live externals for `opal run` (issue 7): `llm`/`llm_chat` stream chat completions from an
//! OpenAI-compatible endpoint (per-call options, retries on 429 and 5xx), `http_get` and
//! `http_post` over the same client, files and the environment (`read_file`, `write_file`,
//! `append_file`, `list_dir`, `getenv`), and `create_process`/`fd_write_and_close`/
//! `fd_read_and_close` run programs (only with `--allow-exec`). The core's runner starts them
//! through `opal_core::machine::live::Live`; world files and replayed traces take precedence.

mod files;
mod http;
mod llm;
mod process;
mod python;
mod retry;
pub mod sse;
mod stop;

pub use llm::LlmConfig;
pub use process::MAX_LINE;
pub use python::PythonExternals;
pub use stop::{stop_children, stopping};

use opal_core::ir::PExp;
use opal_core::machine::live::{Live, LiveCall, Printer};
use std::cell::OnceCell;
use std::rc::Rc;

pub struct LiveExternals {
    llm: LlmConfig,
    client: OnceCell<Result<reqwest::Client, String>>,
    /// `None` unless `--allow-exec`: the core then fails process calls with that hint.
    processes: Option<process::Processes>,
    /// A Python script's own externals, run in CPython.
    python: Option<PythonExternals>,
    /// Retries said and counted.
    log: Rc<retry::Log>,
}

impl LiveExternals {
    /// The LLM endpoint from `OPAL_LLM_*` variables; processes only if `allow_exec`.
    pub fn from_env(allow_exec: bool) -> LiveExternals {
        LiveExternals::new(LlmConfig::from_env(), allow_exec)
    }

    pub fn new(llm: LlmConfig, allow_exec: bool) -> LiveExternals {
        LiveExternals {
            llm,
            client: OnceCell::new(),
            processes: allow_exec.then(process::Processes::default),
            python: None,
            log: Rc::default(),
        }
    }

    /// `from_env`, with a Python program's own externals (`with_python`) when `program` is a
    /// `.py` file that can be read.
    pub fn for_program(allow_exec: bool, program: Option<&std::path::Path>) -> LiveExternals {
        let live = LiveExternals::from_env(allow_exec);
        match program.and_then(|p| Some((p, std::fs::read_to_string(p).ok()?))) {
            Some((p, src)) => live.with_python(p, &src),
            None => live,
        }
    }

    /// For a Python script (a `.py` file), also runs the externals it defines
    /// (`opal_core::python::externals`) and the module functions it calls (dotted names), in a
    /// CPython worker started at the first call.
    pub fn with_python(mut self, script: &std::path::Path, src: &str) -> LiveExternals {
        if opal_core::python::is_python(&script.to_string_lossy()) {
            let externs = opal_core::python::externals(src);
            self.python = Some(PythonExternals::new(script.to_path_buf(), externs));
        }
        self
    }

    fn client(&self) -> Result<reqwest::Client, String> {
        self.client
            .get_or_init(|| {
                reqwest::Client::builder()
                    .connect_timeout(self.llm.idle)
                    .build()
                    .map_err(|e| format!("cannot set up the HTTP client: {e}"))
            })
            .clone()
    }
}

impl Live for LiveExternals {
    fn start(&self, ext: &str, arg: &PExp) -> Option<LiveCall> {
        if let Some(call) = self.python.as_ref().and_then(|p| p.start(ext, arg)) {
            return Some(call);
        }
        match ext {
            "llm" | "llm_chat" | "http_get" | "http_post" => Some(match self.client() {
                Ok(c) if ext.starts_with("llm") => {
                    llm::start(c, &self.llm, self.log.clone(), ext, arg)
                }
                Ok(c) => http::start(c, &self.llm, self.log.clone(), ext, arg),
                Err(e) => LiveCall::Value(Box::pin(async move { Err(e) })),
            }),
            "read_file" | "write_file" | "append_file" | "list_dir" | "getenv" => {
                Some(files::start(ext, arg))
            }
            "create_process" | "fd_write_and_close" | "fd_read_and_close" => {
                self.processes.as_ref().map(|p| p.start(ext, arg))
            }
            _ => None,
        }
    }

    fn attach(&self, printer: Printer) {
        self.log.attach(printer.clone());
        if let Some(p) = &self.python {
            p.attach(printer);
        }
    }

    fn stats(&self) -> Vec<String> {
        self.log.stats()
    }

    fn shutdown(&self) {
        if let Some(p) = &self.processes {
            p.kill_all();
        }
        if let Some(p) = &self.python {
            p.shutdown();
        }
    }
}
