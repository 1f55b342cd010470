//! The visual step debugger behind `opal debug`: an egui/eframe window on the λ^O machine,
//! driving an `opal_debugger::Session` (the stepping engine, shared with the DAP adapter).
//! `cmd` is what the user can ask for (by concern), `app` the window's state and its one place
//! of action (`DebuggerApp::run_cmd`), `settings` what is remembered between launches, `state`
//! what the panels read; `panels` draws the panels (each a struct owning its UI state), `view`
//! the task graph, `layout` keeps its nodes in place, `timeline` draws the calls over time,
//! `paths` every reduction path.

pub mod app;
pub mod cmd;
pub mod layout;
pub mod panels;
pub mod paths;
pub mod settings;
pub mod state;
pub mod timeline;
pub mod view;

pub use app::{run_native, Cmd, DebuggerApp};
pub use opal_debugger::{examples, live};
