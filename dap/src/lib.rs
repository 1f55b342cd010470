//! `opal dap`: a Debug Adapter Protocol server on stdio, on the same stepping engine as the
//! debugger window (`opal_debugger::Session`), so the two can never disagree.
//!
//! The protocol types are plain serde JSON (the requests used are few, and no DAP crate is
//! both maintained and complete); `transport` frames messages, `adapter` answers them. A
//! reader thread turns stdin into messages, so `pause` and `disconnect` arrive while a
//! `continue` runs: the adapter runs in slices and looks for messages between them. The
//! mapping from DAP to λ^O is in `docs/dap.md`.

pub mod adapter;
pub mod transport;

/// Makes the live externals for a launch: `llm`, processes when the launch allows them, and a
/// Python program's own externals (the program's path).
pub type LiveMaker =
    Box<dyn Fn(bool, Option<std::path::PathBuf>) -> opal_debugger::live::LiveFactory>;

/// Serves DAP on stdin/stdout until the client disconnects; the process exit code.
pub fn run_stdio(live: Option<LiveMaker>) -> i32 {
    let rx = transport::spawn_reader(std::io::stdin());
    let out = transport::Writer::new(Box::new(std::io::stdout()));
    adapter::Adapter::new(out, live).serve(rx)
}
