//! Live externals for `opal run` (issue 7): `llm`/`llm_chat` stream chat completions from an
//! OpenAI-compatible endpoint, and `create_process`/`fd_write_and_close`/`fd_read_and_close`
//! run programs (only with `--allow-exec`). The core's runner starts them through
//! `opal_core::machine::live::Live`; world files and replayed traces take precedence.

mod llm;
mod process;
pub mod sse;
mod stop;

pub use llm::LlmConfig;
pub use process::MAX_LINE;
pub use stop::{stop_children, stopping};

use opal_core::ir::PExp;
use opal_core::machine::live::{Live, LiveCall};
use std::cell::OnceCell;

pub struct LiveExternals {
    llm: LlmConfig,
    client: OnceCell<Result<reqwest::Client, String>>,
    /// `None` unless `--allow-exec`: the core then fails process calls with that hint.
    processes: Option<process::Processes>,
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
        }
    }

    fn client(&self) -> Result<reqwest::Client, String> {
        self.client
            .get_or_init(|| {
                reqwest::Client::builder()
                    .connect_timeout(self.llm.timeout)
                    .build()
                    .map_err(|e| format!("cannot set up the HTTP client: {e}"))
            })
            .clone()
    }
}

impl Live for LiveExternals {
    fn start(&self, ext: &str, arg: &PExp) -> Option<LiveCall> {
        match ext {
            "llm" | "llm_chat" => Some(match self.client() {
                Ok(c) => llm::start(c, &self.llm, ext, arg),
                Err(e) => LiveCall::Value(Box::pin(async move { Err(e) })),
            }),
            "create_process" | "fd_write_and_close" | "fd_read_and_close" => {
                self.processes.as_ref().map(|p| p.start(ext, arg))
            }
            _ => None,
        }
    }

    fn shutdown(&self) {
        if let Some(p) = &self.processes {
            p.kill_all();
        }
    }
}
