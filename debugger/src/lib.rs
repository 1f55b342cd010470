//! The stepping engine behind OPAL's debuggers, with no GUI: the egui window (`opal debug`)
//! and the Debug Adapter Protocol server use the same `Session`, so they cannot disagree.
//!
//! * `session`: `Session`, the facade both debuggers use, over the modules below;
//! * `state`: the state as the action log makes it, and how one `Action` (step, round, cbv,
//!   lazy, resolve) changes it;
//! * `history`: the action log, time travel through checkpoints, session files;
//! * `kind`: how a statement and the whole program stand;
//! * `view`: rows, the before/after view of the last step (the stepper);
//! * `practice`: practice mode's checks of a prediction;
//! * `confluence`: another step order from the start, compared;
//! * `jobs`: long work (run until, confluence, loading, replaying) in slices with a step
//!   budget, progress and cancellation;
//! * `graph`: the task graph's models (external calls, statements) and grouping;
//! * `timeline`: external calls from dispatch to resolve, the critical path;
//! * `live`: live externals (`llm`, processes) on a worker thread, delivered as resolutions;
//! * `examples`: the bundled programs;
//! * `source`: the source map back to the program: runs of source statements (where a
//!   breakpoint stops), the variables in scope by their source names, evaluating an
//!   expression over them.
//!
//! Modules depend downwards only: `session` on `jobs`, `confluence`, `practice`, `view`,
//! `history`, `state` and `kind`; none of those on `session`.
//!
//! The all-paths view (every reduction order of a small program, `opal explore`'s graph) is
//! the window's own (`opal-debugger-gui`'s `paths` module): it travels through `Session`.

pub mod confluence;
pub mod examples;
pub mod graph;
mod history;
pub mod jobs;
pub mod kind;
pub mod live;
mod names;
pub mod practice;
pub mod session;
pub mod source;
mod state;
pub mod timeline;
pub mod view;

pub use jobs::{JobSpec, Poll, Progress};
pub use names::marked_terms;
pub use session::{
    Action, By, Kind, Order, Quiz, Row, RowStatus, Session, Standing, Strategy, Until,
};
