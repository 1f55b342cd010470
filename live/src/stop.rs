//! Stopping children when opal itself is told to stop: SIGINT (Ctrl+C), SIGTERM and SIGHUP
//! kill and reap every child still running, then opal exits with 128 + the signal's number
//! (130, 143, 129), as a shell reports a process that a signal ended (docs/live.md).
//!
//! One watcher thread serves the whole process, not the runtime that started a child: the
//! debuggers run their externals on a worker runtime that can end before the process does, and
//! a signal that arrived when no runtime listened would be lost (tokio's handlers stay
//! installed, so the signal's default action would not happen either). The watcher kills by
//! process id from a registry of the children not yet reaped; the owner of each `Child` still
//! reaps it in the ordinary way, and whichever reaps first wins (the other sees ECHILD).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use tokio::process::Child;

/// Process ids of the children started and not yet reaped by their owner. An id leaves the
/// registry when its `Child` is dropped after being reaped, so the watcher never signals an id
/// the system has handed to an unrelated process in the meantime (ids are only reused after
/// the reap, and the drop follows it at once on the same thread).
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Set when a signal arrived, before the children are killed.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Is opal ending on a signal? Then the children die because opal killed them: a process
/// external must not report that as its failure (the run would print a runtime error and end
/// with 3 before the watcher ends it with 128 + the signal), and a command that returns
/// meanwhile must leave the exit to the watcher (`opal` waits for it, cli/src/main.rs).
pub fn stopping() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

/// What a process external reports, unless opal is stopping: then it never answers.
pub(crate) async fn unless_stopping<T>(r: Result<T, String>) -> Result<T, String> {
    if r.is_err() && stopping() {
        std::future::pending::<()>().await;
    }
    r
}

fn running() -> std::sync::MutexGuard<'static, Vec<u32>> {
    // A panic while the lock was held cannot leave the list half-changed (push, retain, take).
    RUNNING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts a child with `spawn` and records it. The watcher listens before the child exists,
/// and the registry stays locked until the child is in it, so a signal at any moment finds
/// every child (one in between would otherwise be left behind).
pub(crate) fn spawn_recorded(spawn: impl FnOnce() -> std::io::Result<Child>) -> std::io::Result<Child> {
    watch();
    let mut r = running();
    let child = spawn()?;
    r.extend(child.id());
    Ok(child)
}

/// The child with this id was reaped (or handed to tokio's reaper after a kill).
pub(crate) fn forget(pid: u32) {
    running().retain(|p| *p != pid);
}

/// Kills every child process this opal process started through `create_process` and has not
/// reaped yet, in every session and runtime, and reaps them (waiting at most 2 s in all); how
/// many there were. For an embedder that ends without dropping its live externals (the DAP
/// adapter on disconnect, a window's exit path); dropping `LiveExternals`' owner or calling
/// `Live::shutdown` stops only that provider's children.
pub fn stop_children() -> usize {
    let pids: Vec<u32> = std::mem::take(&mut *running());
    kill_and_reap_pids(&pids);
    pids.len()
}

/// Kills what a child started (`sh -c "sleep 9; echo"` forks `sleep`), found through its
/// parent links in /proc at the time of the kill. Children stay in opal's process group, so
/// one that asks on the terminal (a password prompt) can read it; a descendant that started a
/// session of its own (`setsid`) or was orphaned earlier is not found.
#[cfg(unix)]
pub(crate) fn kill_descendants(pid: u32) {
    for d in descendants(pid) {
        // SAFETY: kill(2) of a process whose parent chain leads to our child, just read.
        unsafe {
            libc::kill(d as libc::pid_t, libc::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
pub(crate) fn kill_descendants(_pid: u32) {}

/// The processes below `root` (children, grandchildren, …), from /proc's parent links.
#[cfg(unix)]
fn descendants(root: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    let parent_of = |e: std::fs::DirEntry| -> Option<(u32, u32)> {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
        // `pid (comm) state ppid …`: the command may hold spaces and parentheses.
        let ppid = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()?;
        Some((pid, ppid))
    };
    let links: Vec<(u32, u32)> = dir.flatten().filter_map(parent_of).collect();
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(links.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    found.remove(0);
    found
}

#[cfg(unix)]
fn kill_and_reap_pids(pids: &[u32]) {
    for &pid in pids {
        kill_descendants(pid);
        // SAFETY: kill(2) on an id from the registry: a child of this process not yet reaped.
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGKILL);
        }
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    for &pid in pids {
        loop {
            let mut status = 0;
            // SAFETY: waitpid(2) with WNOHANG on a child's id; `status` is a valid out pointer.
            let r = unsafe { libc::waitpid(pid as libc::pid_t, &mut status, libc::WNOHANG) };
            // r == pid: reaped now; r < 0 (ECHILD): its owner reaped it first.
            if r != 0 || std::time::Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
}

#[cfg(not(unix))]
fn kill_and_reap_pids(_pids: &[u32]) {}

/// Starts the watcher once per process and returns when its handlers are installed.
fn watch() {
    static WATCHING: OnceLock<()> = OnceLock::new();
    WATCHING.get_or_init(|| {
        let (ready_tx, ready) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new().name("opal-signals".into()).spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = ready_tx.send(Err(e.to_string()));
                    return;
                }
            };
            rt.block_on(async move {
                let mut signals = match Signals::install() {
                    Ok(s) => s,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e.to_string()));
                        return;
                    }
                };
                let _ = ready_tx.send(Ok(()));
                let (what, code) = signals.next().await;
                STOPPING.store(true, Ordering::SeqCst);
                let stopped = if stop_children() > 0 { "; child processes stopped" } else { "" };
                // Not eprintln!: after SIGHUP the terminal may be gone, and a panic here would
                // end this thread without ending opal.
                let _ = writeln!(std::io::stderr(), "opal: {what}{stopped}");
                std::process::exit(code);
            });
        });
        // Without a watcher, the signals keep their default action: opal ends and the children
        // it started outlive it, as they would have before; the run itself goes on.
        match spawned.map_err(|e| e.to_string()).and_then(|_| ready.recv().map_err(|e| e.to_string())) {
            Ok(Ok(())) => {}
            Ok(Err(e)) | Err(e) => {
                let _ = writeln!(std::io::stderr(), "opal: cannot watch for signals ({e}); on SIGTERM or SIGHUP child processes may outlive opal");
            }
        }
    });
}

#[cfg(unix)]
struct Signals {
    int: tokio::signal::unix::Signal,
    term: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Signals {
    /// Installs the handlers now (a `ctrl_c()` future would only install SIGINT's when polled).
    fn install() -> std::io::Result<Signals> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(Signals { int: signal(SignalKind::interrupt())?, term: signal(SignalKind::terminate())?, hup: signal(SignalKind::hangup())? })
    }

    /// The first of the three to arrive: what to say and the exit code (128 + its number).
    async fn next(&mut self) -> (&'static str, i32) {
        tokio::select! {
            _ = self.int.recv() => ("interrupted", 128 + libc::SIGINT),
            _ = self.term.recv() => ("terminated (SIGTERM)", 128 + libc::SIGTERM),
            _ = self.hup.recv() => ("hung up (SIGHUP)", 128 + libc::SIGHUP),
        }
    }
}

#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn install() -> std::io::Result<Signals> {
        Ok(Signals)
    }

    async fn next(&mut self) -> (&'static str, i32) {
        let _ = tokio::signal::ctrl_c().await;
        ("interrupted", 130)
    }
}
