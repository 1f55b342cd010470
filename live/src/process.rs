//! Process externals for shell pipelines (paper appendix A.1, TextToSpeech), enabled by
//! `--allow-exec`: `create_process cmd` starts a program (no shell: `cmd` is the program, or a
//! tuple of the program and its arguments) and returns descriptors for its stdin and stdout;
//! `fd_write_and_close (fd, s)` writes and closes stdin; `fd_read_and_close fd` streams stdout
//! line by line (without the line ends) and fails if the program exits with an error.
//! Children are killed and reaped when the run ends, and on Ctrl+C.

use opal_core::ir::{PExp, Prim};
use opal_core::machine::live::LiveCall;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::process::Stdio;
use std::rc::Rc;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::mpsc::unbounded_channel;

type Shared<T> = Rc<RefCell<T>>;

#[derive(Default)]
pub struct Processes {
    next: Cell<u32>,
    /// Every child started, with its command line for messages; `None` once reaped.
    children: Shared<Vec<(String, Option<Child>)>>,
    stdins: RefCell<HashMap<Arc<str>, ChildStdin>>,
    /// A stdout descriptor, with the index of its child (to report its exit status).
    stdouts: RefCell<HashMap<Arc<str>, (ChildStdout, usize)>>,
    interrupt_armed: Cell<bool>,
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
        let mut child =
            match Command::new(&argv[0]).args(&argv[1..]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).kill_on_drop(true).spawn() {
                Ok(c) => c,
                Err(e) => return failed(format!("create_process: cannot start `{shown}`: {e}")),
            };
        self.arm_interrupt();
        let n = self.next.get() + 1;
        self.next.set(n);
        // Names that read back as the same handles (`proc1_stdin`), so a trace can hold them.
        let (stdin_h, stdout_h) = opal_core::externals::process_handles(n);
        let (stdin_h, stdout_h): (Arc<str>, Arc<str>) = (Arc::from(stdin_h), Arc::from(stdout_h));
        let mut children = self.children.borrow_mut();
        if let (Some(i), Some(o)) = (child.stdin.take(), child.stdout.take()) {
            self.stdins.borrow_mut().insert(stdin_h.clone(), i);
            self.stdouts.borrow_mut().insert(stdout_h.clone(), (o, children.len()));
        }
        children.push((shown, Some(child)));
        let value = PExp::Tuple(vec![PExp::Prim(Prim::Handle(stdin_h)), PExp::Prim(Prim::Handle(stdout_h))]);
        LiveCall::Value(Box::pin(async move { Ok(value) }))
    }

    fn write_and_close(&self, arg: &PExp) -> LiveCall {
        let (fd, text) = match arg {
            PExp::Tuple(xs) if xs.len() == 2 => (descriptor(&xs[0]), text_of(&xs[1])),
            _ => (None, None),
        };
        let (Some(fd), Some(text)) = (fd, text) else {
            return failed(format!("fd_write_and_close needs (stdin descriptor, string), got {arg}"));
        };
        let Some(mut stdin) = self.stdins.borrow_mut().remove(&fd) else {
            return failed(format!("fd_write_and_close: `{fd}` is not an open stdin descriptor (already closed, or not from create_process)"));
        };
        LiveCall::Value(Box::pin(async move {
            stdin.write_all(text.as_bytes()).await.map_err(|e| format!("fd_write_and_close: writing to `{fd}`: {e}"))?;
            stdin.shutdown().await.map_err(|e| format!("fd_write_and_close: closing `{fd}`: {e}"))?;
            Ok(PExp::Tuple(vec![]))
        }))
    }

    fn read_and_close(&self, arg: &PExp) -> LiveCall {
        let Some(fd) = descriptor(arg) else {
            return failed(format!("fd_read_and_close needs a stdout descriptor from create_process, got {arg}"));
        };
        let Some((stdout, child)) = self.stdouts.borrow_mut().remove(&fd) else {
            return failed(format!("fd_read_and_close: `{fd}` is not an open stdout descriptor (already read, or not from create_process)"));
        };
        let children = self.children.clone();
        let (tx, rx) = unbounded_channel();
        tokio::task::spawn_local(async move {
            let mut lines = BufReader::new(stdout).lines();
            loop {
                match lines.next_line().await {
                    Ok(Some(l)) => {
                        if tx.send(Ok(Prim::Str(Arc::from(l)))).is_err() {
                            return;
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        let _ = tx.send(Err(format!("fd_read_and_close: reading `{fd}`: {e}")));
                        return;
                    }
                }
            }
            // End of output: the program's exit status decides whether the list ends or fails.
            let taken = children.borrow_mut().get_mut(child).and_then(|(cmd, c)| c.take().map(|c| (cmd.clone(), c)));
            if let Some((cmd, mut c)) = taken {
                match c.wait().await {
                    Ok(s) if s.success() => {}
                    Ok(s) => {
                        let _ = tx.send(Err(format!("`{cmd}` exited with {s}")));
                    }
                    Err(e) => {
                        let _ = tx.send(Err(format!("waiting for `{cmd}`: {e}")));
                    }
                }
            }
        });
        LiveCall::Stream(rx)
    }

    /// Kills every child still running and reaps it (the run is over).
    pub fn kill_all(&self) {
        self.stdins.borrow_mut().clear();
        self.stdouts.borrow_mut().clear();
        kill_and_reap(&mut self.children.borrow_mut());
    }

    /// On Ctrl+C, stop the children before the process ends (they would otherwise outlive a
    /// run that is interrupted while they are blocked or detached from the terminal).
    fn arm_interrupt(&self) {
        if self.interrupt_armed.replace(true) {
            return;
        }
        let children = self.children.clone();
        tokio::task::spawn_local(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                kill_and_reap(&mut children.borrow_mut());
                eprintln!("opal: interrupted; child processes stopped");
                std::process::exit(130);
            }
        });
    }
}

fn kill_and_reap(children: &mut [(String, Option<Child>)]) {
    for (_, slot) in children.iter_mut() {
        if let Some(c) = slot.as_mut() {
            let _ = c.start_kill();
        }
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    for (_, slot) in children.iter_mut() {
        if let Some(c) = slot.as_mut() {
            while matches!(c.try_wait(), Ok(None)) && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
        *slot = None;
    }
}

/// A string, or a tuple of strings written one after another.
fn text_of(e: &PExp) -> Option<String> {
    match e {
        PExp::Prim(Prim::Str(s)) => Some(s.to_string()),
        PExp::Tuple(xs) => xs.iter().map(text_of).collect(),
        _ => None,
    }
}
