//! The `opal` command-line tool (LANGUAGE.md §6).

mod args;
mod cmd;
mod load;
mod run;

// The front end allocates many small nodes and frees them in bulk; with mimalloc a 50 000-line
// program compiles in about half the time of glibc's allocator (`opal-bench lsp`, README), and
// the language server returns freed memory instead of keeping per-thread arenas
// (`cmd::return_idle_memory`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

fn main() -> ExitCode {
    // SIGPIPE ignored (Rust's default, stated here because opal once restored the default
    // action): writing to a pipe whose reader is gone is then the error EPIPE instead of death
    // by signal, so a child that exited before reading its input is a failed task naming it,
    // and a closed stdout still lets opal stop its children before it ends.
    #[cfg(unix)]
    // SAFETY: sets the disposition of one signal before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    end_quietly_when_stdout_closes();
    let code = cmd::main();
    // A signal arrived and its watcher is killing the children (opal-live's stop.rs): it ends
    // opal with 128 + the signal's number when they are reaped, not this command's code.
    while opal_live::stopping() {
        std::thread::park();
    }
    ExitCode::from(code as u8)
}

/// `opal desugar big.opal | head` ends quietly with `STDOUT_CLOSED`, as Unix tools do. The
/// commands write with `println!`, which panics when the write fails; the hook turns that
/// one panic into the exit, so no printing site needs its own check. (`opal run` checks its
/// program's output itself, to stop its children first: `run::sink`.)
fn end_quietly_when_stdout_closes() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // std's message for a failed `print!`: "failed printing to stdout: <the io::Error>";
        // the OS error number says EPIPE in any locale.
        let broken_pipe = info.payload_as_str().is_some_and(|m| {
            m.starts_with("failed printing to stdout")
                && m.ends_with(&format!("(os error {})", epipe()))
        });
        if broken_pipe {
            std::process::exit(run::STDOUT_CLOSED);
        }
        default(info)
    }));
}

fn epipe() -> i32 {
    #[cfg(unix)]
    return libc::EPIPE;
    #[cfg(not(unix))]
    return 232; // ERROR_NO_DATA, what Windows reports for a pipe closed at the other end
}
