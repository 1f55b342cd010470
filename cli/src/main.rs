//! The `opal` command-line tool (LANGUAGE.md §6).

mod cmd;
mod run;

use std::process::ExitCode;

fn main() -> ExitCode {
    tune_allocator();
    ExitCode::from(cmd::main() as u8)
}

/// glibc raises its mmap threshold as big blocks are freed, after which growing the machine's
/// tables copies them and freed front-end memory stays resident. A fixed threshold keeps big
/// tables in their own mappings: they grow by `mremap` and go back to the OS when dropped.
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator parameters; called before any other thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 * 1024);
    }
}
