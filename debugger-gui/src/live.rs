//! Live externals (`llm`, processes) for the debugger. They run on their own thread with a
//! current-thread tokio runtime (the `Live` trait's futures are not `Send`), take calls over a
//! channel and report results and stream elements back; the window polls every frame. What
//! they return enters the session as an ordinary `Resolve` action, so time travel and saved
//! sessions replay it without calling the service again.

use eframe::egui;
use opal_core::ir::{PExp, Prim};
use opal_core::machine::live::{Live, LiveCall};
use std::rc::Rc;
use std::sync::mpsc;

/// Builds the live externals on the worker thread (they need not be `Send`).
pub type LiveFactory = Box<dyn FnOnce() -> Rc<dyn Live> + Send>;

/// What a live call reported.
#[derive(Debug)]
pub enum Reply {
    Value(u64, Result<PExp, String>),
    /// The next element of a streamed list, or the error that ends it.
    Chunk(u64, Result<Prim, String>),
    /// The stream ended.
    End(u64),
    /// No live external of that name.
    NotLive(u64),
}

pub struct LiveWorker {
    calls: tokio::sync::mpsc::UnboundedSender<(u64, String, PExp)>,
    replies: mpsc::Receiver<Reply>,
}

impl LiveWorker {
    /// Starts the worker thread; `wake` is repainted whenever a reply arrives.
    pub fn spawn(make: LiveFactory, wake: Option<egui::Context>) -> Result<LiveWorker, String> {
        let (call_tx, mut call_rx) = tokio::sync::mpsc::unbounded_channel::<(u64, String, PExp)>();
        let (reply_tx, replies) = mpsc::channel();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| format!("cannot start the live externals: {e}"))?;
        std::thread::Builder::new()
            .name("opal-live".into())
            .spawn(move || {
                let local = tokio::task::LocalSet::new();
                local.block_on(&rt, async move {
                    let live = make();
                    let send = move |r: Reply| {
                        let ok = reply_tx.send(r).is_ok();
                        if let Some(ctx) = &wake {
                            ctx.request_repaint();
                        }
                        ok
                    };
                    while let Some((id, ext, arg)) = call_rx.recv().await {
                        let send = send.clone();
                        match live.start(&ext, &arg) {
                            None => {
                                send(Reply::NotLive(id));
                            }
                            Some(LiveCall::Value(fut)) => {
                                tokio::task::spawn_local(async move {
                                    send(Reply::Value(id, fut.await));
                                });
                            }
                            Some(LiveCall::Stream(mut rx)) => {
                                tokio::task::spawn_local(async move {
                                    while let Some(item) = rx.recv().await {
                                        let failed = item.is_err();
                                        if !send(Reply::Chunk(id, item)) || failed {
                                            return;
                                        }
                                    }
                                    send(Reply::End(id));
                                });
                            }
                        }
                    }
                    live.shutdown();
                });
            })
            .map_err(|e| format!("cannot start the live externals: {e}"))?;
        Ok(LiveWorker { calls: call_tx, replies })
    }

    pub fn call(&self, id: u64, ext: &str, arg: PExp) -> Result<(), String> {
        self.calls.send((id, ext.to_string(), arg)).map_err(|_| "the live externals stopped".to_string())
    }

    /// Replies that arrived since the last poll (never blocks).
    pub fn poll(&self) -> Vec<Reply> {
        self.replies.try_iter().collect()
    }
}
