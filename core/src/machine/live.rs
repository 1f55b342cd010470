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

/// Where a live external's own prints go (a Python external's `print`): the run's output, in
/// order with the results, since both travel the runner's one queue of arrivals.
#[derive(Clone)]
pub struct Printer(std::rc::Rc<PrintFn>);

/// What a `Printer` calls: the handle (`stdout`, `stderr`) and the text.
type PrintFn = dyn Fn(&str, &str);

impl Printer {
    pub fn new(f: impl Fn(&str, &str) + 'static) -> Printer {
        Printer(std::rc::Rc::new(f))
    }
    /// Prints `text` on `handle` (`stdout` or `stderr`).
    pub fn print(&self, handle: &str, text: &str) {
        (self.0)(handle, text)
    }
}

/// A provider of live externals. Calls run on the run's current-thread tokio runtime (IO and
/// timers enabled), so implementations may `spawn_local`.
pub trait Live {
    /// Starts `ext` on `arg`, or `None` when this provider does not implement `ext`.
    fn start(&self, ext: &str, arg: &PExp) -> Option<LiveCall>;
    /// The run starts: what the provider's calls print goes to `printer`.
    fn attach(&self, _printer: Printer) {}
    /// The run is over: stop whatever is still running (kill and reap child processes).
    fn shutdown(&self) {}
    /// Lines for `--stats` (requests made, retries).
    fn stats(&self) -> Vec<String> {
        Vec::new()
    }
}
