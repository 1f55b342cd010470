//! Live externals (`llm`, processes) for the debuggers. They run on their own thread with a
//! current-thread tokio runtime (the `Live` trait's futures are not `Send`), take calls over a
//! channel and report results and stream elements back; the window (every frame) or the
//! adapter (between slices) polls. What they return enters the session as an ordinary
//! `Resolve` action (`LiveCalls::pump`), so time travel and saved sessions replay it without
//! calling the service again.

use crate::session::Session;
use opal_core::ir::{PExp, Prim};
use opal_core::machine::label::LabelPath;
use opal_core::machine::live::{Live, LiveCall};
use std::collections::HashMap;
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
    /// What the live externals printed (a Python external's `print`) or said (a retry), on
    /// a handle (`stdout`, `stderr`).
    Output(String, String),
}

/// What `LiveCalls::pump` took in.
#[derive(Debug, Default)]
pub struct Pumped {
    /// Messages for the user (a call resolved, a call failed).
    pub messages: Vec<String>,
    /// What the live externals printed or said: (handle, text).
    pub output: Vec<(String, String)>,
    /// Whether the session changed.
    pub changed: bool,
}

pub struct LiveWorker {
    /// `None` once stopped: the worker's loop ends when its last sender is gone, and it then
    /// calls `Live::shutdown`.
    calls: Option<tokio::sync::mpsc::UnboundedSender<(u64, String, PExp)>>,
    replies: mpsc::Receiver<Reply>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// How long dropping a worker waits for its shutdown: the process externals' kill and reap
/// takes at most 2 s (`opal-live`).
const DROP_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

impl LiveWorker {
    /// Starts the worker thread; `wake` is called whenever a reply arrives (a window repaints).
    pub fn spawn(
        make: LiveFactory,
        wake: Option<Box<dyn Fn() + Send>>,
    ) -> Result<LiveWorker, String> {
        let (call_tx, mut call_rx) = tokio::sync::mpsc::unbounded_channel::<(u64, String, PExp)>();
        let (reply_tx, replies) = mpsc::channel();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the live externals: {e}"))?;
        let thread = std::thread::Builder::new()
            .name("opal-live".into())
            .spawn(move || {
                let local = tokio::task::LocalSet::new();
                local.block_on(&rt, async move {
                    let live = make();
                    let wake = std::rc::Rc::new(wake);
                    let send = move |r: Reply| {
                        let ok = reply_tx.send(r).is_ok();
                        if let Some(wake) = wake.as_ref() {
                            wake();
                        }
                        ok
                    };
                    let print = send.clone();
                    live.attach(opal_core::machine::live::Printer::new(
                        move |handle, text| {
                            print(Reply::Output(handle.to_string(), text.to_string()));
                        },
                    ));
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
        Ok(LiveWorker {
            calls: Some(call_tx),
            replies,
            thread: Some(thread),
        })
    }

    /// Ends the worker and waits (at most `wait`) until its live externals have shut down:
    /// the process externals kill and reap their children then. Dropping the worker does the
    /// same with a wait of 3 s, so a debugger window that closes leaves no child behind; a
    /// process that ends without dropping it (`std::process::exit`) must call this first.
    /// False if the worker did not finish in time.
    pub fn stop(mut self, wait: std::time::Duration) -> bool {
        self.end(wait)
    }

    fn end(&mut self, wait: std::time::Duration) -> bool {
        self.calls = None;
        let Some(thread) = self.thread.take() else {
            return true;
        };
        let deadline = std::time::Instant::now() + wait;
        while !thread.is_finished() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        thread.is_finished() && thread.join().is_ok()
    }

    pub fn call(&self, id: u64, ext: &str, arg: PExp) -> Result<(), String> {
        let calls = self
            .calls
            .as_ref()
            .ok_or("the live externals were stopped")?;
        calls
            .send((id, ext.to_string(), arg))
            .map_err(|_| "the live externals stopped".to_string())
    }

    /// Replies that arrived since the last poll (never blocks).
    pub fn poll(&self) -> Vec<Reply> {
        self.replies.try_iter().collect()
    }
}

impl Drop for LiveWorker {
    fn drop(&mut self) {
        self.end(DROP_WAIT);
    }
}

/// A live call in flight: what arrived and is not yet delivered. A stream's elements go to
/// whichever of its tasks is pending (the first, then each continuation after its resolve).
struct InFlight {
    origin: LabelPath,
    ext: String,
    items: Vec<Prim>,
    value: Option<Result<PExp, String>>,
    error: Option<String>,
    ended: bool,
    delivered: bool,
}

/// The live calls of a session: started by `call`, delivered by `pump`.
pub struct LiveCalls {
    worker: LiveWorker,
    calls: HashMap<u64, InFlight>,
    next: u64,
    /// Externals the worker said are not live (not called again).
    not_live: std::collections::HashSet<String>,
}

impl LiveCalls {
    pub fn new(worker: LiveWorker) -> LiveCalls {
        LiveCalls {
            worker,
            calls: HashMap::new(),
            next: 0,
            not_live: Default::default(),
        }
    }

    /// Ends the calls and the worker, waiting for its shutdown ([`LiveWorker::stop`]).
    pub fn stop(self, wait: std::time::Duration) -> bool {
        self.worker.stop(wait)
    }

    /// Calls still in flight.
    pub fn in_flight(&self) -> usize {
        self.calls.len()
    }

    /// Is the pending task at `label` (whole label) being called, itself or as the rest of a
    /// stream being called?
    pub fn calling(&self, s: &Session, label: &LabelPath) -> bool {
        self.calls.values().any(|c| {
            c.origin == *label
                || c.delivered && s.stream_continuation(&c.origin).as_ref() == Some(label)
        })
    }

    /// Calls the real external for the pending task at `label`.
    pub fn call(&mut self, s: &Session, label: &LabelPath) -> Result<String, String> {
        if self.calling(s, label) {
            return Err(format!("{label} is already being called"));
        }
        let (ext, arg) = s.task_call(label)?;
        if self.not_live.contains(&ext) {
            return Err(not_live(&ext));
        }
        let id = self.next;
        self.next += 1;
        self.worker.call(id, &ext, arg)?;
        self.calls.insert(
            id,
            InFlight {
                origin: label.clone(),
                ext: ext.clone(),
                items: Vec::new(),
                value: None,
                error: None,
                ended: false,
                delivered: false,
            },
        );
        Ok(format!(
            "called `{ext}` live for {label}: it resolves when the answer arrives"
        ))
    }

    /// Takes what the calls reported and delivers it to the tasks that wait for it.
    pub fn pump(&mut self, s: &mut Session) -> Pumped {
        let mut messages = Vec::new();
        let mut output = Vec::new();
        for r in self.worker.poll() {
            let id = match r {
                Reply::Value(id, _) | Reply::Chunk(id, _) | Reply::End(id) | Reply::NotLive(id) => {
                    id
                }
                Reply::Output(handle, text) => {
                    output.push((handle, text));
                    continue;
                }
            };
            let Some(c) = self.calls.get_mut(&id) else {
                continue;
            };
            match r {
                Reply::Value(_, v) => c.value = Some(v),
                Reply::Chunk(_, Ok(p)) => c.items.push(p),
                Reply::Chunk(_, Err(e)) => c.error = Some(e),
                Reply::End(_) => c.ended = true,
                Reply::Output(..) => {}
                Reply::NotLive(_) => {
                    // The task stays pending for another way of resolving it.
                    messages.push(format!(
                        "{}: resolve {} by hand, from the world file or a trace",
                        not_live(&c.ext),
                        c.origin
                    ));
                    self.not_live.insert(c.ext.clone());
                    self.calls.remove(&id);
                }
            }
        }
        if s.busy().is_some() {
            return Pumped {
                messages,
                output,
                changed: false,
            };
        }
        let mut done = Vec::new();
        let mut changed = false;
        for (id, c) in self.calls.iter_mut() {
            let target = if c.delivered {
                s.stream_continuation(&c.origin)
            } else {
                Some(c.origin.clone())
            };
            let Some(target) = target.filter(|t| s.task_call(t).is_ok()) else {
                continue;
            };
            let r = if let Some(v) = c.value.take() {
                done.push(*id);
                match v {
                    Ok(e) => s.resolve_live(&target, e.to_string(), false, None),
                    Err(e) => s.resolve_live(&target, String::new(), false, Some(e)),
                }
            } else if !c.items.is_empty() || c.ended || c.error.is_some() {
                let more = !(c.ended || c.error.is_some() && c.items.is_empty());
                let items: Vec<String> = c.items.drain(..).map(|p| p.to_string()).collect();
                let r = if items.is_empty() && c.error.is_some() {
                    done.push(*id);
                    s.resolve_live(&target, String::new(), false, c.error.clone())
                } else {
                    if !more {
                        done.push(*id);
                    }
                    s.resolve_live(&target, format!("[{}]", items.join(", ")), more, None)
                };
                c.delivered = true;
                r
            } else {
                continue;
            };
            changed = true;
            match r {
                Ok(m) => messages.push(m),
                Err(e) => {
                    done.push(*id);
                    messages.push(e);
                }
            }
        }
        for id in done {
            self.calls.remove(&id);
        }
        Pumped {
            messages,
            output,
            changed,
        }
    }
}

/// Why the worker did not call `ext`. Process externals are live only when allowed, as in
/// `opal run --allow-exec`: the message says how to allow them.
fn not_live(ext: &str) -> String {
    if opal_core::externals::standard(ext).is_some_and(|d| d.needs_exec) {
        format!("`{ext}` runs programs only when allowed: start `opal debug --allow-exec`, or set \"allowExec\": true in the launch configuration")
    } else {
        format!("`{ext}` is not a live external")
    }
}
