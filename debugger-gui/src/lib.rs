//! The visual step debugger behind `opal debug`: an egui/eframe window on the λ^O machine.
//! `session` is the state and every action (no drawing); `graph` the task graph and its
//! stable layout; `app` the window (panels push `app::Cmd`s, `DebuggerApp::run_cmd` does
//! them); `view` and `timeline` draw the graph and the Gantt chart; `examples` are bundled.

pub mod app;
pub mod examples;
pub mod graph;
pub mod live;
pub mod session;
pub mod timeline;
pub mod view;

pub use app::{run_native, Cmd, DebuggerApp};
