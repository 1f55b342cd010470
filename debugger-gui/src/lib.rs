//! The visual step debugger `opal debug` (issue 5). So far: `session`, the debugger's state
//! and actions, apart from drawing; the egui window comes next.

pub mod session;
