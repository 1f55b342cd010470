//! The Run lens for every client. The VS Code extension runs its own `opal.runFile` and
//! `opal.debugFile` (it says so in `initializationOptions`: `{"clientLenses": true}`); any
//! other client gets one lens, `▶ Run`, whose command `opal.server.run` the server runs when
//! the client sends `workspace/executeCommand` (Neovim's `vim.lsp.codelens.run()`, lsp-mode's
//! lenses): `opal run FILE` on the saved file in a child process, its output reported with
//! `window/showMessage` (a summary) and `window/logMessage` (all of it) and returned. A Debug
//! lens would need a debugger the server cannot start, so those clients do not get one: no
//! lens does nothing when clicked.

use super::guard::invalid;
use super::Backend;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{LSPAny, MessageType, Uri};

pub const RUN_COMMAND: &str = "opal.server.run";

/// A run that takes longer is stopped: the lens is for scripts, not servers.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);
/// Output kept from each stream; the rest is counted, not kept.
const MAX_OUTPUT: usize = 1 << 20;

/// What a run printed and how it ended.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunResult {
    /// `None` when it was stopped (timed out) or ended by a signal.
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
}

impl RunResult {
    /// One line for `window/showMessage`: how it ended and the last line it printed.
    pub fn summary(&self, file: &str) -> String {
        let how = match (self.timed_out, self.exit_code) {
            (true, _) => format!("stopped after {} s", RUN_TIMEOUT.as_secs()),
            (false, Some(0)) => "finished".to_string(),
            (false, Some(c)) => format!("failed (exit {c})"),
            (false, None) => "ended by a signal".to_string(),
        };
        let last = if self.exit_code == Some(0) {
            &self.stdout
        } else {
            &self.stderr
        };
        match last.lines().rev().find(|l| !l.trim().is_empty()) {
            Some(l) => format!("opal run {file}: {how}: {l}"),
            None => format!("opal run {file}: {how}"),
        }
    }

    /// Everything, for `window/logMessage`.
    pub fn log(&self, file: &str) -> String {
        format!("opal run {file}\n{}{}", self.stdout, self.stderr)
    }
}

impl Backend {
    /// `workspace/executeCommand` of [`RUN_COMMAND`]: the argument is the document's URI (as
    /// the lens gives it, or `{"uri": …}`).
    pub(super) async fn run_command(&self, arguments: Vec<LSPAny>) -> Result<Option<LSPAny>> {
        let uri = match arguments.into_iter().next() {
            Some(serde_json::Value::String(u)) => Some(u),
            Some(serde_json::Value::Object(o)) => {
                o.get("uri").and_then(|u| u.as_str()).map(str::to_string)
            }
            _ => None,
        };
        let path = uri
            .as_deref()
            .and_then(|u| u.parse::<Uri>().ok())
            .and_then(|u| u.to_file_path().map(|p| p.into_owned()))
            .ok_or_else(|| invalid(format!("{RUN_COMMAND}: expected a file URI, got {uri:?}")))?;
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let ran = tokio::task::spawn_blocking(move || run_file(&path))
            .await
            .map_err(|e| invalid(format!("{RUN_COMMAND}: {e}")))?;
        // A refusal is the request's error: the client shows it (once).
        let r = ran.map_err(|e| invalid(format!("{RUN_COMMAND}: {e}")))?;
        let kind = if r.exit_code == Some(0) {
            MessageType::INFO
        } else {
            MessageType::ERROR
        };
        self.client
            .log_message(MessageType::INFO, r.log(&file))
            .await;
        self.client.show_message(kind, r.summary(&file)).await;
        Ok(serde_json::to_value(&r).ok())
    }
}

/// Runs `opal run FILE` (this very binary) in the file's folder, so its world file and
/// relative paths are found as on the command line; blocks until it ends or times out.
pub fn run_file(path: &Path) -> std::result::Result<RunResult, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the opal binary: {e}"))?;
    if !path.is_file() {
        return Err(format!(
            "{} is not a saved file: save it, then run it",
            path.display()
        ));
    }
    let mut child = Command::new(exe)
        .arg("run")
        .arg(path)
        .current_dir(path.parent().unwrap_or(Path::new(".")))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start opal run: {e}"))?;
    let out = capture(child.stdout.take());
    let err = capture(child.stderr.take());
    let started = Instant::now();
    let (status, timed_out) = loop {
        match child.try_wait() {
            Ok(Some(s)) => break (Some(s), false),
            Ok(None) if started.elapsed() > RUN_TIMEOUT => {
                let _ = child.kill();
                break (child.wait().ok(), true);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("cannot wait for opal run: {e}")),
        }
    };
    // What the run printed. A process it started may still hold its pipes (a Python worker
    // finishing): the readers get a moment, then what they have is the answer.
    let settle = Instant::now() + Duration::from_secs(2);
    while [&out, &err].iter().any(|c| !c.done()) && Instant::now() < settle {
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(RunResult {
        exit_code: if timed_out {
            None
        } else {
            status.and_then(|s| s.code())
        },
        stdout: out.text(),
        stderr: err.text(),
        timed_out,
    })
}

/// A stream read to its end on a thread of its own, keeping `MAX_OUTPUT` bytes.
struct Captured {
    /// What was read, and how many bytes past the limit were dropped.
    kept: std::sync::Arc<std::sync::Mutex<(Vec<u8>, usize)>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Captured {
    fn done(&self) -> bool {
        self.reader.as_ref().is_none_or(|r| r.is_finished())
    }

    /// What was read so far, with a note of what was dropped over the limit.
    fn text(&self) -> String {
        let Ok(kept) = self.kept.lock() else {
            return String::new();
        };
        let mut s = String::from_utf8_lossy(&kept.0).into_owned();
        if kept.1 > 0 {
            s.push_str(&format!("\n… and {} more bytes\n", kept.1));
        }
        s
    }
}

fn capture(r: Option<impl Read + Send + 'static>) -> Captured {
    let kept = std::sync::Arc::new(std::sync::Mutex::new((Vec::new(), 0usize)));
    let into = kept.clone();
    let reader = r.map(|mut r| {
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = r.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let Ok(mut kept) = into.lock() else { break };
                let room = MAX_OUTPUT.saturating_sub(kept.0.len()).min(n);
                kept.0.extend_from_slice(&buf[..room]);
                kept.1 += n - room;
            }
        })
    });
    Captured { kept, reader }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(code: Option<i32>, out: &str, err: &str) -> RunResult {
        RunResult {
            exit_code: code,
            stdout: out.into(),
            stderr: err.into(),
            timed_out: false,
        }
    }

    #[test]
    fn summaries_say_how_it_ended_and_the_last_line() {
        assert_eq!(
            result(Some(0), "a\nb\n\n", "").summary("x.opal"),
            "opal run x.opal: finished: b"
        );
        assert_eq!(
            result(Some(3), "a\n", "x.opal:2:1: error[R0001]: boom\n").summary("x.opal"),
            "opal run x.opal: failed (exit 3): x.opal:2:1: error[R0001]: boom"
        );
        assert_eq!(
            result(Some(0), "", "").summary("x.opal"),
            "opal run x.opal: finished"
        );
    }

    #[test]
    fn an_unsaved_file_is_refused() {
        let e = run_file(Path::new("/nonexistent/never.opal")).unwrap_err();
        assert!(e.contains("is not a saved file"), "{e}");
    }
}
