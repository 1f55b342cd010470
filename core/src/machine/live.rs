//! Live externals implemented outside the core (an HTTP client for `llm`, child processes):
//! the runner starts them like its own async externals and turns what they report into
//! resolutions (SEMANTICS.md §7, "live"). The core stays free of network and process code.

use crate::ir::{PExp, Prim};
use std::future::Future;
use std::pin::Pin;
use tokio::sync::mpsc::UnboundedReceiver;

/// What a started live call reports.
pub enum LiveCall {
    /// One result, when the future completes; `Err` fails the task with that message.
    Value(Pin<Box<dyn Future<Output = Result<PExp, String>>>>),
    /// The elements of a streamed list as they arrive (paper §4.2): each `Ok` is the next
    /// element, an `Err` fails the task that waits for the rest, and the channel closing ends
    /// the list.
    Stream(UnboundedReceiver<Result<Prim, String>>),
}

/// A provider of live externals. Calls run on the run's current-thread tokio runtime (IO and
/// timers enabled), so implementations may `spawn_local`.
pub trait Live {
    /// Starts `ext` on `arg`, or `None` when this provider does not implement `ext`.
    fn start(&self, ext: &str, arg: &PExp) -> Option<LiveCall>;
    /// The run is over: stop whatever is still running (kill and reap child processes).
    fn shutdown(&self) {}
}
