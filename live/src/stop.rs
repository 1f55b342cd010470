//! Stopping children when opal itself is told to stop: SIGINT (Ctrl+C), SIGTERM, SIGHUP and
//! every other catchable signal whose default action ends a process (`ENDING`) kill and reap
//! every child still running, then opal exits with 128 + the signal's number (130, 143, 129,
//! 131 for SIGQUIT, without a core dump), as a shell reports a process that a signal ended
//! (docs/live.md). A signal opal was started with ignored (`nohup`, a background job of a
//! non-interactive shell) stays ignored, as POSIX asks of programs that catch signals.
//!
//! One watcher thread serves the whole process, not the runtime that started a child: the
//! debuggers run their externals on a worker runtime that can end before the process does, and
//! a signal that arrived when no runtime listened would be lost (tokio's handlers stay
//! installed, so the signal's default action would not happen either). The watcher kills by
//! process id from a registry of the children not yet reaped; the owner of each `Child` still
//! reaps it in the ordinary way, and whichever reaps first wins (the other sees ECHILD).
//!
//! On Linux opal is a child subreaper: what a child started and left behind (`setsid cmd &`
//! from a shell that then exits) is handed to opal instead of init, and recognised as ours by
//! the `OPAL_STARTED_BY` variable every child gets (`orphans`).

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};
use tokio::process::Child;

/// The variable every child gets, `<opal's pid>.<provider>`: an orphan handed to opal (the
/// subreaper) is one of ours when it still holds it. The provider part lets the end of one run
/// (or debug session) stop only its own orphans.
pub(crate) const STARTED_BY: &str = "OPAL_STARTED_BY";

/// A new value for `STARTED_BY`, one per `Processes`.
pub(crate) fn new_tag() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    format!(
        "{}.{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

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
pub(crate) fn spawn_recorded(
    spawn: impl FnOnce() -> std::io::Result<Child>,
) -> std::io::Result<Child> {
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
/// reaped yet, in every session and runtime, with what they started and the orphans handed to
/// opal, and reaps them (waiting at most 2 s in all); how many children there were. For an
/// embedder that ends without dropping its live externals (the DAP adapter on disconnect, a
/// window's exit path); dropping `LiveExternals`' owner or calling `Live::shutdown` stops only
/// that provider's children and orphans.
pub fn stop_children() -> usize {
    let pids: Vec<u32> = std::mem::take(&mut *running());
    let deadline = Instant::now() + Duration::from_secs(2);
    let others = kill_around(&pids, None);
    reap(&pids, deadline);
    reap(&others, deadline);
    pids.len()
}

/// Kills what the children `roots` started (`sh -c "sleep 9; echo"` forks `sleep`), found
/// through parent links in /proc at the time of the kill, and the orphans handed to opal whose
/// `STARTED_BY` is `tag` (any of this process's tags with `None`), with what they started;
/// returns the ids killed other than the roots, for `reap`. The roots die first, so a shell
/// cannot report its own child's death ("Killed") on the way (the roots must be children of
/// this process not reaped yet, so their ids are still theirs). Children
/// stay in opal's process group, so one that asks on the terminal (a password prompt) can read
/// it. Not found: an orphan that cleared its environment (`env -i`), and without /proc anything
/// but the children.
#[cfg(unix)]
pub(crate) fn kill_around(roots: &[u32], tag: Option<&str>) -> Vec<u32> {
    let me = std::process::id();
    let mine = |pid: u32| {
        started_by_settled(pid).is_some_and(|v| {
            tag.map_or_else(|| v.split('.').next() == Some(&me.to_string()), |t| v == t)
        })
    };
    let mut killed: Vec<u32> = Vec::new();
    // Twice: a process exiting closes its files (the end of a child's output, which may end
    // the run) before the kernel hands its children to opal, so an orphan can reach opal just
    // after the first look (seen under load in CI).
    for pass in 0..2 {
        let links = parent_links();
        let orphans = links
            .iter()
            .filter(|(pid, ppid)| {
                *ppid == me && !roots.contains(pid) && !killed.contains(pid) && mine(*pid)
            })
            .map(|(pid, _)| *pid);
        let starts: Vec<u32> = if pass == 0 {
            roots.iter().copied().chain(orphans).collect()
        } else {
            orphans.collect()
        };
        let mut found = descendants(&links, &starts);
        found.retain(|p| !roots.contains(p) && !killed.contains(p));
        let targets: Vec<u32> = if pass == 0 {
            roots.iter().copied().chain(found.iter().copied()).collect()
        } else {
            found.clone()
        };
        for d in targets {
            // SAFETY: kill(2) of a child not reaped, of our own orphan, or of a process whose
            // parent chain leads to one of them, just read.
            unsafe {
                libc::kill(d as libc::pid_t, libc::SIGKILL);
            }
        }
        killed.extend(found);
        if pass == 0 {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    killed
}

#[cfg(not(unix))]
pub(crate) fn kill_around(_roots: &[u32], _tag: Option<&str>) -> Vec<u32> {
    Vec::new()
}

/// (pid, parent pid) of every process in /proc.
#[cfg(unix)]
fn parent_links() -> Vec<(u32, u32)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let parent_of = |e: std::fs::DirEntry| -> Option<(u32, u32)> {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
        // `pid (comm) state ppid …`: the command may hold spaces and parentheses.
        let ppid = stat
            .rsplit_once(')')?
            .1
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()?;
        Some((pid, ppid))
    };
    dir.flatten().filter_map(parent_of).collect()
}

/// `started_by`, for a process that may be in the middle of `execve`: its environment reads
/// as empty (or not at all) until the new program's is in place, so an empty read is tried
/// again for up to 50 ms (an orphan that cleared its environment costs that wait).
#[cfg(unix)]
fn started_by_settled(pid: u32) -> Option<String> {
    // A zombie's environment is gone for good.
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    if stat
        .rsplit_once(')')
        .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
    {
        return None;
    }
    for _ in 0..10 {
        match std::fs::read(format!("/proc/{pid}/environ")) {
            Ok(env) if !env.is_empty() => return started_by(pid),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            _ => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    started_by(pid)
}

/// The `STARTED_BY` value in a process's environment (as it was at its start, or as it set it).
#[cfg(unix)]
fn started_by(pid: u32) -> Option<String> {
    let env = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{STARTED_BY}=");
    env.split(|b| *b == 0)
        .find_map(|kv| kv.strip_prefix(prefix.as_bytes()))
        .map(|v| String::from_utf8_lossy(v).into_owned())
}

/// The processes below `starts` and the starts themselves (children, grandchildren, …).
#[cfg(unix)]
fn descendants(links: &[(u32, u32)], starts: &[u32]) -> Vec<u32> {
    let mut found = starts.to_vec();
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(
            links
                .iter()
                .filter(|(c, pp)| *pp == p && !found.contains(c))
                .map(|(c, _)| *c)
                .collect::<Vec<_>>(),
        );
        i += 1;
    }
    found
}

/// Reaps the killed processes that are (or become, when the parent they had dies) children of
/// opal, until `deadline`: with opal a subreaper, a grandchild killed with its parent is handed
/// to opal and would stay a zombie. One that is not ours is left to its parent once it is gone.
#[cfg(unix)]
pub(crate) fn reap(pids: &[u32], deadline: Instant) {
    let mut pending = pids.to_vec();
    while !pending.is_empty() {
        pending.retain(|&pid| {
            let mut status = 0;
            // SAFETY: waitpid(2) with WNOHANG on one id; `status` is a valid out pointer.
            let r = unsafe { libc::waitpid(pid as libc::pid_t, &mut status, libc::WNOHANG) };
            // 0: our child, not dead yet; < 0 (ECHILD): not ours (yet), or reaped by its owner.
            r == 0 || (r < 0 && std::path::Path::new(&format!("/proc/{pid}")).exists())
        });
        if pending.is_empty() || Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[cfg(not(unix))]
pub(crate) fn reap(_pids: &[u32], _deadline: Instant) {}

/// Starts the watcher once per process and returns when its handlers are installed; makes opal
/// a child subreaper (Linux) before the first child starts.
fn watch() {
    static WATCHING: OnceLock<()> = OnceLock::new();
    WATCHING.get_or_init(|| {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        // SAFETY: prctl(2) with an integer option; only changes who adopts our orphans.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0 as libc::c_ulong, 0 as libc::c_ulong, 0 as libc::c_ulong);
        }
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

/// The signals that end opal through the watcher: every catchable one whose default action
/// ends a process, except the faults (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS: a
/// handler that returns would run the faulting instruction again), SIGPIPE (ignored,
/// cli/src/main.rs) and SIGKILL (cannot be caught). Real-time signals from SIGRTMIN (glibc
/// keeps the two below it for its threads) to SIGRTMAX - 1, the last tokio has a slot for.
#[cfg(unix)]
fn ending() -> Vec<libc::c_int> {
    #[allow(unused_mut)]
    let mut v = vec![
        libc::SIGINT,
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGUSR1,
        libc::SIGUSR2,
        libc::SIGALRM,
        libc::SIGABRT,
        libc::SIGXCPU,
        libc::SIGXFSZ,
        libc::SIGVTALRM,
        libc::SIGPROF,
    ];
    // SIGIO's default ends a process on Linux (it is ignored on the BSDs and macOS).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    v.extend([libc::SIGIO, libc::SIGPWR, libc::SIGSTKFLT]);
    #[cfg(any(target_os = "linux", target_os = "android"))]
    v.extend(libc::SIGRTMIN()..libc::SIGRTMAX());
    v
}

/// What opal says when `sig` ends it (after `opal: `).
#[cfg(unix)]
fn describe(sig: libc::c_int) -> String {
    let named = [
        (libc::SIGQUIT, "SIGQUIT"),
        (libc::SIGUSR1, "SIGUSR1"),
        (libc::SIGUSR2, "SIGUSR2"),
        (libc::SIGALRM, "SIGALRM"),
        (libc::SIGABRT, "SIGABRT"),
        (libc::SIGXCPU, "SIGXCPU"),
        (libc::SIGXFSZ, "SIGXFSZ"),
        (libc::SIGVTALRM, "SIGVTALRM"),
        (libc::SIGPROF, "SIGPROF"),
        #[cfg(any(target_os = "linux", target_os = "android"))]
        (libc::SIGIO, "SIGIO"),
        #[cfg(any(target_os = "linux", target_os = "android"))]
        (libc::SIGPWR, "SIGPWR"),
        #[cfg(any(target_os = "linux", target_os = "android"))]
        (libc::SIGSTKFLT, "SIGSTKFLT"),
    ];
    match sig {
        libc::SIGINT => "interrupted".into(),
        libc::SIGTERM => "terminated (SIGTERM)".into(),
        libc::SIGHUP => "hung up (SIGHUP)".into(),
        _ => match named.iter().find(|(n, _)| *n == sig) {
            Some((_, name)) => format!("ended by {name}"),
            #[cfg(any(target_os = "linux", target_os = "android"))]
            None => format!("ended by SIGRTMIN+{}", sig - libc::SIGRTMIN()),
            #[cfg(not(any(target_os = "linux", target_os = "android")))]
            None => format!("ended by signal {sig}"),
        },
    }
}

/// Was `sig` ignored when opal started? Then it stays ignored: whoever started opal so
/// (`nohup`, a shell starting a background job) meant it not to end opal.
#[cfg(unix)]
fn ignored(sig: libc::c_int) -> bool {
    // SAFETY: a zeroed sigaction is a valid out value; a null new action only reads the old.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
    }
}

#[cfg(unix)]
struct Signals(Vec<(libc::c_int, tokio::signal::unix::Signal)>);

#[cfg(unix)]
impl Signals {
    /// Installs the handlers now (a `ctrl_c()` future would only install SIGINT's when polled),
    /// leaving the signals that were ignored ignored. A signal tokio refuses (beyond its table)
    /// keeps its default action; SIGINT, SIGTERM and SIGHUP must be installed.
    fn install() -> std::io::Result<Signals> {
        use tokio::signal::unix::{signal, SignalKind};
        let mut all = Vec::new();
        for sig in ending().into_iter().filter(|s| !ignored(*s)) {
            match signal(SignalKind::from_raw(sig)) {
                Ok(s) => all.push((sig, s)),
                Err(e) if [libc::SIGINT, libc::SIGTERM, libc::SIGHUP].contains(&sig) => {
                    return Err(e)
                }
                Err(_) => {}
            }
        }
        Ok(Signals(all))
    }

    /// The first to arrive: what to say and the exit code (128 + its number).
    async fn next(&mut self) -> (String, i32) {
        let sig = std::future::poll_fn(|cx| {
            for (sig, s) in self.0.iter_mut() {
                if s.poll_recv(cx).is_ready() {
                    return std::task::Poll::Ready(*sig);
                }
            }
            std::task::Poll::Pending
        })
        .await;
        (describe(sig), 128 + sig)
    }
}

#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn install() -> std::io::Result<Signals> {
        Ok(Signals)
    }

    async fn next(&mut self) -> (String, i32) {
        let _ = tokio::signal::ctrl_c().await;
        ("interrupted".into(), 130)
    }
}
