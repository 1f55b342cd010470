//! The stepping engine behind OPAL's debuggers, with no GUI: the egui window (`opal debug`)
//! and the Debug Adapter Protocol server use the same `Session`, so they cannot disagree.
//!
//! * `session`: the state as a function of an action log (step, round, cbv, lazy, resolve),
//!   time travel through checkpoints, resolutions (hand, world, trace, live), practice checks,
//!   the before/after view of the last step, session files;
//! * `jobs`: long work (run until, confluence, loading, replaying) in slices with a step
//!   budget, progress and cancellation;
//! * `graph`: the task graph's models (external calls, statements) and grouping;
//! * `timeline`: external calls from dispatch to resolve, the critical path;
//! * `live`: live externals (`llm`, processes) on a worker thread, delivered as resolutions;
//! * `examples`: the bundled programs.
//!
//! The all-paths view (every reduction order of a small program, `opal explore`'s graph) is
//! the window's own (`opal-debugger-gui`'s `paths` module): it travels through `Session`.

pub mod examples;
pub mod graph;
pub mod jobs;
pub mod live;
pub mod session;
pub mod timeline;

pub use jobs::{JobSpec, Poll, Progress};
pub use session::{Action, By, Kind, Order, Quiz, Row, Session, Standing, Strategy, Until};
