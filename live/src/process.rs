//! Process externals for shell pipelines (paper appendix A.1, TextToSpeech), enabled by
//! `--allow-exec`: `create_process cmd` starts a program (no shell: `cmd` is the program, or a
//! tuple of the program and its arguments) and returns descriptors for its stdin and stdout;
//! `fd_write_and_close (fd, s)` writes and closes stdin; `fd_read_and_close fd` streams stdout
//! line by line (without the line ends) and fails if the program exits with an error.
//! Children are killed and reaped when the run ends, and when a signal ends opal (`stop.rs`),
//! with what they started and left behind. A line of output is at most `MAX_LINE` bytes.

use crate::stop;
use opal_core::ir::{PExp, Prim};
use opal_core::machine::live::LiveCall;
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;
use std::process::Stdio;
use std::rc::Rc;
use std::sync::Arc;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

type Shared<T> = Rc<RefCell<T>>;

/// The longest line `fd_read_and_close` takes from a child, in bytes (without its line end):
/// a line is one list element held in memory whole, so a child writing without line breaks
/// (`cat /dev/zero`) would otherwise grow it until memory runs out.
pub const MAX_LINE: usize = 16 << 20;

/// A started child; its process id leaves the signal watcher's registry when it is dropped
/// (after its reap, or after the kill that hands it to tokio's reaper).
struct Running {
    child: Child,
    pid: Option<u32>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(pid) = self.pid {
            stop::forget(pid);
        }
    }
}

#[derive(Default)]
pub struct Processes {
    next: Cell<u32>,
    /// This provider's `OPAL_STARTED_BY` value, given to every child it starts.
    tag: OnceCell<String>,
    /// Every child started, with its command line for messages; `None` once reaped.
    children: Shared<Vec<(String, Option<Running>)>>,
    /// A stdin descriptor, with the index of its child (to name it in messages).
    stdins: RefCell<HashMap<Arc<str>, (ChildStdin, usize)>>,
    /// A stdout descriptor, with the index of its child (to report its exit status).
    stdouts: RefCell<HashMap<Arc<str>, (ChildStdout, usize)>>,
}

fn failed(msg: String) -> LiveCall {
    LiveCall::Value(Box::pin(async move { Err(msg) }))
}

fn descriptor(arg: &PExp) -> Option<Arc<str>> {
    match arg {
        PExp::Prim(Prim::Handle(h)) => Some(h.clone()),
        _ => None,
    }
}

impl Processes {
    pub fn start(&self, ext: &str, arg: &PExp) -> LiveCall {
        match ext {
            "create_process" => self.create(arg),
            "fd_write_and_close" => self.write_and_close(arg),
            _ => self.read_and_close(arg),
        }
    }

    fn create(&self, arg: &PExp) -> LiveCall {
        let argv: Option<Vec<String>> = match arg {
            PExp::Prim(Prim::Str(s)) => Some(vec![s.to_string()]),
            PExp::Tuple(xs) if !xs.is_empty() => xs
                .iter()
                .map(|x| match x {
                    PExp::Prim(Prim::Str(s)) => Some(s.to_string()),
                    _ => None,
                })
                .collect(),
            _ => None,
        };
        let Some(argv) = argv.filter(|a| !a[0].is_empty()) else {
            return failed(format!("create_process needs a program name, or a tuple of the program and its arguments (all strings); got {arg}"));
        };
        let shown = argv.join(" ");
        let mut command = Command::new(&argv[0]);
        command
            .args(&argv[1..])
            .env(stop::STARTED_BY, self.tag.get_or_init(stop::new_tag))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let mut child = match stop::spawn_recorded(|| command.spawn()) {
            Ok(c) => c,
            Err(e) => return failed(format!("create_process: cannot start `{shown}`: {e}")),
        };
        let n = self.next.get() + 1;
        self.next.set(n);
        // Names that read back as the same handles (`proc1_stdin`), so a trace can hold them.
        let (stdin_h, stdout_h) = opal_core::externals::process_handles(n);
        let (stdin_h, stdout_h): (Arc<str>, Arc<str>) = (Arc::from(stdin_h), Arc::from(stdout_h));
        let mut children = self.children.borrow_mut();
        if let (Some(i), Some(o)) = (child.stdin.take(), child.stdout.take()) {
            self.stdins
                .borrow_mut()
                .insert(stdin_h.clone(), (i, children.len()));
            self.stdouts
                .borrow_mut()
                .insert(stdout_h.clone(), (o, children.len()));
        }
        let pid = child.id();
        children.push((shown, Some(Running { child, pid })));
        let value = PExp::Tuple(vec![
            PExp::Prim(Prim::Handle(stdin_h)),
            PExp::Prim(Prim::Handle(stdout_h)),
        ]);
        LiveCall::Value(Box::pin(async move { Ok(value) }))
    }

    fn write_and_close(&self, arg: &PExp) -> LiveCall {
        let (fd, text) = match arg {
            PExp::Tuple(xs) if xs.len() == 2 => (descriptor(&xs[0]), text_of(&xs[1])),
            _ => (None, None),
        };
        let (Some(fd), Some(text)) = (fd, text) else {
            return failed(format!(
                "fd_write_and_close needs (stdin descriptor, string), got {arg}"
            ));
        };
        let Some((mut stdin, child)) = self.stdins.borrow_mut().remove(&fd) else {
            return failed(format!("fd_write_and_close: `{fd}` is not an open stdin descriptor (already closed, or not from create_process)"));
        };
        let cmd = self.command(child);
        LiveCall::Value(Box::pin(async move {
            // SIGPIPE is ignored (cli/src/main.rs), so a child that stopped reading is EPIPE here:
            // this call fails, naming the child, and opal goes on.
            let written = match stdin.write_all(text.as_bytes()).await {
                Ok(()) => stdin.shutdown().await.map_err(|e| (e, "closing")),
                Err(e) => Err((e, "writing to")),
            };
            let r = match written {
                Ok(()) => Ok(PExp::Tuple(vec![])),
                Err((e, _)) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(format!(
                    "fd_write_and_close: `{cmd}` stopped reading its input (it exited or closed its stdin) before all of it was written to `{fd}`: broken pipe"
                )),
                Err((e, doing)) => Err(format!("fd_write_and_close: {doing} `{fd}` (stdin of `{cmd}`): {e}")),
            };
            stop::unless_stopping(r).await
        }))
    }

    fn read_and_close(&self, arg: &PExp) -> LiveCall {
        let Some(fd) = descriptor(arg) else {
            return failed(format!(
                "fd_read_and_close needs a stdout descriptor from create_process, got {arg}"
            ));
        };
        let Some((stdout, child)) = self.stdouts.borrow_mut().remove(&fd) else {
            return failed(format!("fd_read_and_close: `{fd}` is not an open stdout descriptor (already read, or not from create_process)"));
        };
        let children = self.children.clone();
        let cmd = self.command(child);
        let (tx, rx) = unbounded_channel();
        tokio::task::spawn_local(async move {
            let r = match stream_lines(stdout, &tx, &cmd, &fd).await {
                // End of output: the program's exit status decides whether the list ends or fails.
                Ok(true) => exit_status(&children, child).await,
                Ok(false) => Ok(()),
                Err(e) => Err(e),
            };
            if let Err(e) = stop::unless_stopping(r).await {
                let _ = tx.send(Err(e));
            }
        });
        LiveCall::Stream(rx)
    }

    /// Kills every child still running and reaps it (the run is over).
    pub fn kill_all(&self) {
        self.stdins.borrow_mut().clear();
        self.stdouts.borrow_mut().clear();
        kill_and_reap(
            &mut self.children.borrow_mut(),
            self.tag.get().map(String::as_str),
        );
    }

    /// The command line of the child at `index`, for messages.
    fn command(&self, index: usize) -> String {
        self.children
            .borrow()
            .get(index)
            .map(|(cmd, _)| cmd.clone())
            .unwrap_or_default()
    }
}

/// Sends the lines of `stdout` as they come: `true` at the end of the output, `false` when
/// nobody reads the list any more.
async fn stream_lines(
    stdout: ChildStdout,
    tx: &UnboundedSender<Result<Prim, String>>,
    cmd: &str,
    fd: &str,
) -> Result<bool, String> {
    let mut reader = BufReader::with_capacity(64 << 10, stdout);
    let mut line = Vec::new();
    loop {
        match next_line(&mut reader, &mut line).await {
            Ok(true) => {
                let l = std::str::from_utf8(&line).map_err(|_| format!("fd_read_and_close: `{cmd}` wrote a line that is not UTF-8 text (on `{fd}`)"))?;
                if tx.send(Ok(Prim::Str(Arc::from(l)))).is_err() {
                    return Ok(false);
                }
            }
            Ok(false) => return Ok(true),
            Err(Line::TooLong) => {
                return Err(format!(
                    "fd_read_and_close: `{cmd}` wrote a line longer than {} MiB on `{fd}`, the limit for one line; have it break its output into lines",
                    MAX_LINE >> 20
                ))
            }
            Err(Line::Io(e)) => return Err(format!("fd_read_and_close: reading `{fd}` (stdout of `{cmd}`): {e}")),
        }
    }
}

/// Reaps the child at `index` once its output ended: an error unless it exited with 0.
async fn exit_status(
    children: &Shared<Vec<(String, Option<Running>)>>,
    index: usize,
) -> Result<(), String> {
    let taken = children
        .borrow_mut()
        .get_mut(index)
        .and_then(|(cmd, c)| c.take().map(|c| (cmd.clone(), c)));
    let Some((cmd, mut c)) = taken else {
        return Ok(());
    };
    match c.child.wait().await {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!("`{cmd}` exited with {s}")),
        Err(e) => Err(format!("waiting for `{cmd}`: {e}")),
    }
}

enum Line {
    TooLong,
    Io(std::io::Error),
}

/// Reads the next line into `line` without its `\n` or `\r\n` (as tokio's `lines`), holding at
/// most `MAX_LINE` bytes of it; `false` at the end of the output. A last line without a line
/// end counts.
async fn next_line<R: AsyncBufRead + Unpin>(r: &mut R, line: &mut Vec<u8>) -> Result<bool, Line> {
    line.clear();
    loop {
        let buf = r.fill_buf().await.map_err(Line::Io)?;
        if buf.is_empty() {
            return Ok(!line.is_empty());
        }
        let (take, end) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        // The `\n` does not count (a `\r` before it does): checked before the bytes are kept.
        if line.len() + take - usize::from(end) > MAX_LINE {
            return Err(Line::TooLong);
        }
        line.extend_from_slice(&buf[..take]);
        r.consume(take);
        if end {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(true);
        }
    }
}

/// Kills the children, what they started and the orphans handed to opal with this provider's
/// `tag` (none started a child without one), and reaps them all.
fn kill_and_reap(children: &mut [(String, Option<Running>)], tag: Option<&str>) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    let roots: Vec<u32> = children
        .iter()
        .filter_map(|(_, c)| c.as_ref().and_then(|c| c.child.id()))
        .collect();
    let others = match tag {
        Some(tag) => stop::kill_around(&roots, Some(tag)),
        None => Vec::new(),
    };
    for (_, slot) in children.iter_mut() {
        if let Some(c) = slot.as_mut() {
            let _ = c.child.start_kill();
        }
    }
    for (_, slot) in children.iter_mut() {
        if let Some(c) = slot.as_mut() {
            while matches!(c.child.try_wait(), Ok(None)) && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
        *slot = None;
    }
    stop::reap(&others, deadline);
}

/// A string, or a tuple of strings written one after another.
fn text_of(e: &PExp) -> Option<String> {
    match e {
        PExp::Prim(Prim::Str(s)) => Some(s.to_string()),
        PExp::Tuple(xs) => xs.iter().map(text_of).collect(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<Result<String, &'static str>> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        rt.block_on(async {
            let mut r = input;
            let mut line = Vec::new();
            let mut out = Vec::new();
            loop {
                match next_line(&mut r, &mut line).await {
                    Ok(true) => out.push(Ok(String::from_utf8_lossy(&line).into_owned())),
                    Ok(false) => return out,
                    Err(Line::TooLong) => return [out, vec![Err("too long")]].concat(),
                    Err(Line::Io(_)) => return [out, vec![Err("io")]].concat(),
                }
            }
        })
    }

    #[test]
    fn lines_drop_their_ends_as_tokio_lines_does_and_stop_at_the_limit() {
        assert_eq!(
            lines(b"a\r\nb\n\nc"),
            vec![
                Ok("a".into()),
                Ok("b".into()),
                Ok(String::new()),
                Ok("c".into())
            ]
        );
        assert_eq!(lines(b""), vec![]);
        let mut at_limit = vec![b'x'; MAX_LINE];
        at_limit.push(b'\n');
        at_limit.extend_from_slice(b"next\n");
        let got = lines(&at_limit);
        assert_eq!(
            (got.len(), got[0].as_ref().map(|l| l.len()), got[1].clone()),
            (2, Ok(MAX_LINE), Ok("next".to_string()))
        );
        let over = vec![b'x'; MAX_LINE + 1];
        assert_eq!(lines(&over), vec![Err("too long")]);
    }
}
