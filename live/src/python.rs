//! A Python script's external functions, run in one CPython worker (issue 32): the functions
//! decorated `@unordered`, `@readonly` or `@sequential` are called in `opal_worker.py`, a child
//! `python3` (or `OPAL_PYTHON`) started at the first call. Requests and replies are JSON lines
//! (the worker's docstring has the protocol); values cross as data, other objects stay in the
//! worker as handles `py#n:Class`; a raised exception fails the task with the script's file, line,
//! class and message. What an external prints reaches the run's output.

use crate::stop;
use opal_core::ir::{PExp, Prim};
use opal_core::machine::live::{LiveCall, Printer};
use serde_json::{json, Value};
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::rc::Rc;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};
use tokio::sync::oneshot;

const WORKER: &str = include_str!("opal_worker.py");

/// The script's externals and, once called, the worker that runs them.
pub struct PythonExternals {
    script: PathBuf,
    /// Each external's name, and whether it streams (a generator: its items are a list).
    externs: HashMap<String, bool>,
    worker: OnceCell<Result<Worker, String>>,
    /// Where the externals' prints go (the run's output); stderr until a run attaches.
    printer: Rc<RefCell<Option<Printer>>>,
}

/// A call waiting for its reply.
enum Waiting {
    Value(oneshot::Sender<Result<PExp, String>>),
    Stream(UnboundedSender<Result<Prim, String>>),
}

struct Worker {
    child: RefCell<Option<Child>>,
    pid: Option<u32>,
    requests: UnboundedSender<String>,
    waiting: Rc<RefCell<HashMap<u64, Waiting>>>,
    next: Cell<u64>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        if let Some(pid) = self.pid {
            stop::forget(pid);
        }
    }
}

impl PythonExternals {
    /// The externals of `script` (from `opal_core::python::externals`).
    pub fn new(script: PathBuf, externs: HashMap<String, bool>) -> PythonExternals {
        PythonExternals {
            script,
            externs,
            worker: OnceCell::new(),
            printer: Rc::default(),
        }
    }

    pub fn attach(&self, printer: Printer) {
        *self.printer.borrow_mut() = Some(printer);
    }

    pub fn start(&self, ext: &str, arg: &PExp) -> Option<LiveCall> {
        // A dotted name is a module function internal code calls (`json.loads`): OPAL's own
        // names have no dots.
        // `try.f` is `f` called from a `try` body: an exception is its value, and a generator's
        // items come as one list.
        let (base, catching) = match ext.strip_prefix("try.") {
            Some(b) => (b, true),
            None => (ext, false),
        };
        let streams = match self.externs.get(base) {
            Some(s) => *s && !catching,
            None if base.contains('.') || catching => false,
            None => return None,
        };
        let worker = match self.worker.get_or_init(|| self.spawn()) {
            Ok(w) => w,
            Err(e) => return Some(failed(e.clone())),
        };
        let arg = match encode(arg) {
            Ok(a) => a,
            Err(e) => return Some(failed(format!("`{ext}`: {e}"))),
        };
        let id = worker.next.get() + 1;
        worker.next.set(id);
        let line = json!({"id": id, "fn": ext, "arg": arg}).to_string();
        let call = if streams {
            let (tx, rx) = unbounded_channel();
            worker.waiting.borrow_mut().insert(id, Waiting::Stream(tx));
            LiveCall::Stream(rx)
        } else {
            let (tx, rx) = oneshot::channel();
            worker.waiting.borrow_mut().insert(id, Waiting::Value(tx));
            LiveCall::Value(Box::pin(async move {
                rx.await
                    .unwrap_or_else(|_| Err("the Python worker stopped".to_string()))
            }))
        };
        if worker.requests.send(line).is_err() {
            worker.waiting.borrow_mut().remove(&id);
            return Some(failed("the Python worker stopped".to_string()));
        }
        Some(call)
    }

    /// Starts the worker on the run's runtime, with a task writing requests and one reading
    /// replies.
    fn spawn(&self) -> Result<Worker, String> {
        let python = std::env::var("OPAL_PYTHON").unwrap_or_else(|_| "python3".to_string());
        let mut cmd = Command::new(&python);
        cmd.arg("-u")
            .arg("-c")
            .arg(WORKER)
            .arg(&self.script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let mut child = stop::spawn_recorded(|| cmd.spawn()).map_err(|e| {
            format!(
                "cannot start Python (`{python}`): {e}; install CPython 3 or set OPAL_PYTHON \
                 to its path"
            )
        })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("cannot talk to the Python worker (no pipes)".to_string());
        };
        let (requests, mut rx) = unbounded_channel::<String>();
        tokio::task::spawn_local(async move {
            let mut stdin = stdin;
            while let Some(line) = rx.recv().await {
                let bytes = format!("{line}\n");
                if stdin.write_all(bytes.as_bytes()).await.is_err() {
                    return;
                }
            }
        });
        let waiting: Rc<RefCell<HashMap<u64, Waiting>>> = Rc::default();
        let (w, printer) = (waiting.clone(), self.printer.clone());
        tokio::task::spawn_local(async move {
            let mut lines = BufReader::new(stdout).lines();
            let mut fatal = None;
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(f) = on_reply(&line, &w, &printer) {
                    fatal = Some(f);
                    break;
                }
            }
            let why = fatal.unwrap_or_else(|| "the Python worker exited".to_string());
            for (_, waiting) in w.borrow_mut().drain() {
                fail(waiting, why.clone());
            }
        });
        Ok(Worker {
            pid: child.id(),
            child: RefCell::new(Some(child)),
            requests,
            waiting,
            next: Cell::new(0),
        })
    }

    pub fn shutdown(&self) {
        if let Some(Ok(w)) = self.worker.get() {
            if let Some(mut c) = w.child.borrow_mut().take() {
                let _ = c.start_kill();
            }
        }
    }
}

fn failed(msg: String) -> LiveCall {
    LiveCall::Value(Box::pin(async move { Err(msg) }))
}

fn fail(waiting: Waiting, why: String) {
    match waiting {
        Waiting::Value(tx) => {
            let _ = tx.send(Err(why));
        }
        Waiting::Stream(tx) => {
            let _ = tx.send(Err(why));
        }
    }
}

/// Handles one line from the worker; `Some(why)` when the worker cannot serve any call.
fn on_reply(
    line: &str,
    waiting: &RefCell<HashMap<u64, Waiting>>,
    printer: &RefCell<Option<Printer>>,
) -> Option<String> {
    let Ok(msg) = serde_json::from_str::<Value>(line) else {
        return Some(format!(
            "the Python worker said something unreadable: {line:.200}"
        ));
    };
    if let Some(f) = msg.get("fatal").and_then(Value::as_str) {
        return Some(format!("the script's externals cannot be loaded: {f}"));
    }
    if let Some(text) = msg.get("out").and_then(Value::as_str) {
        let to = msg.get("to").and_then(Value::as_str).unwrap_or("stdout");
        match &*printer.borrow() {
            Some(p) => p.print(to, text),
            None => eprint!("{text}"),
        }
        return None;
    }
    let id = msg.get("id").and_then(Value::as_u64)?;
    let mut w = waiting.borrow_mut();
    if let Some(item) = msg.get("item") {
        if let Some(Waiting::Stream(tx)) = w.get(&id) {
            let _ = tx.send(decode(item).and_then(|p| match p {
                PExp::Prim(p) => Ok(p),
                other => Err(format!(
                    "a streamed item must be a number or a string, not {other}"
                )),
            }));
        }
        return None;
    }
    let waiting = w.remove(&id)?;
    let result = if let Some(err) = msg.get("err").and_then(Value::as_str) {
        Err(err.to_string())
    } else if let Some(v) = msg.get("ok") {
        decode(v)
    } else {
        // `end` of a stream: dropping the sender closes the list.
        return None;
    };
    match waiting {
        Waiting::Value(tx) => {
            let _ = tx.send(result);
        }
        Waiting::Stream(tx) => {
            if let Err(e) = result {
                let _ = tx.send(Err(e));
            }
        }
    }
    None
}

/// A value as the worker reads it (`opal_worker.py`'s `decode`).
fn encode(p: &PExp) -> Result<Value, String> {
    Ok(match p {
        PExp::Prim(Prim::Int(i)) => json!(i),
        PExp::Prim(Prim::Float(f)) if f.is_finite() => json!(f),
        PExp::Prim(Prim::Float(f)) => {
            let text = if f.is_nan() {
                "nan"
            } else if *f > 0.0 {
                "inf"
            } else {
                "-inf"
            };
            json!({ "$float": text })
        }
        PExp::Prim(Prim::Str(s)) => json!(&**s),
        PExp::Prim(Prim::Handle(h)) => {
            match h
                .strip_prefix("py#")
                .and_then(|t| t.split(':').next())
                .and_then(|n| n.parse::<u64>().ok())
            {
                Some(n) => json!({ "$handle": n }),
                None => return Err(format!("the handle `{h}` cannot be passed to Python")),
            }
        }
        PExp::Prim(Prim::Ext(e)) => {
            return Err(format!("the function `{e}` cannot be passed to Python"))
        }
        PExp::Tuple(xs) if xs.is_empty() => Value::Null,
        PExp::Tuple(xs) => {
            json!({ "$tuple": xs.iter().map(encode).collect::<Result<Vec<_>, _>>()? })
        }
        PExp::List(xs) => Value::Array(xs.iter().map(encode).collect::<Result<_, _>>()?),
        PExp::Bool(b) => json!(b),
        PExp::Dict(kvs) => {
            let pairs = kvs
                .iter()
                .map(|(k, v)| Ok(json!([encode(k)?, encode(v)?])))
                .collect::<Result<Vec<_>, String>>()?;
            json!({ "$dict": pairs })
        }
        PExp::Set(xs) => json!({ "$set": xs.iter().map(encode).collect::<Result<Vec<_>, _>>()? }),
    })
}

/// A value the worker sent (`opal_worker.py`'s `encode`); refuses what it cannot read.
fn decode(v: &Value) -> Result<PExp, String> {
    let bad = || format!("the Python worker sent a value OPAL cannot read: {v:.200}");
    Ok(match v {
        Value::Null => PExp::Tuple(Vec::new()),
        Value::Bool(b) => PExp::Bool(*b),
        // The worker sends integers within 64 bits and floats with a point or exponent.
        Value::Number(n) if n.is_f64() => PExp::Prim(Prim::Float(n.as_f64().ok_or_else(bad)?)),
        Value::Number(n) => PExp::Prim(Prim::Int(n.as_i64().ok_or_else(bad)?)),
        Value::String(s) => PExp::str(s),
        Value::Array(xs) => PExp::List(xs.iter().map(decode).collect::<Result<_, _>>()?),
        Value::Object(o) => {
            if let Some(Value::Array(xs)) = o.get("$tuple") {
                PExp::Tuple(xs.iter().map(decode).collect::<Result<_, _>>()?)
            } else if let Some(Value::Array(kvs)) = o.get("$dict") {
                let mut out = Vec::with_capacity(kvs.len());
                for kv in kvs {
                    let Some([k, v]) = kv.as_array().map(Vec::as_slice) else {
                        return Err(bad());
                    };
                    out.push((decode(k)?, decode(v)?));
                }
                PExp::Dict(out)
            } else if let Some(Value::Array(xs)) = o.get("$set") {
                let items = PExp::List(xs.iter().map(decode).collect::<Result<_, _>>()?);
                PExp::Set(opal_core::machine::pyset::from(&items).map_err(|_| bad())?)
            } else if let Some(Value::Object(e)) = o.get("$exception") {
                // What a catching call returns when the function raised (`py_caught`).
                let text = |k: &str| PExp::str(e.get(k).and_then(Value::as_str).unwrap_or(""));
                let classes = (e.get("classes").and_then(Value::as_array))
                    .map(|cs| cs.iter().filter_map(Value::as_str).map(PExp::str).collect())
                    .unwrap_or_default();
                PExp::Tuple(vec![
                    PExp::Prim(Prim::Handle(Arc::from("exception"))),
                    text("type"),
                    PExp::List(classes),
                    text("message"),
                    text("err"),
                ])
            } else if let Some(f) = o.get("$float").and_then(Value::as_str) {
                PExp::Prim(Prim::Float(f.parse().map_err(|_| bad())?))
            } else if let Some(n) = o.get("$handle").and_then(Value::as_u64) {
                // The class rides along in the name, for messages (`py#3:Client`).
                let class = o.get("type").and_then(Value::as_str).unwrap_or("object");
                let class: String = class
                    .chars()
                    .filter(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                PExp::Prim(Prim::Handle(Arc::from(format!("py#{n}:{class}").as_str())))
            } else {
                return Err(bad());
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_cross_both_ways_unchanged() {
        let v = PExp::Dict(vec![
            (
                PExp::str("k"),
                PExp::List(vec![PExp::Prim(Prim::Int(1)), PExp::Bool(true)]),
            ),
            (
                PExp::Tuple(vec![PExp::Prim(Prim::Float(0.5)), PExp::str("é")]),
                PExp::Tuple(Vec::new()),
            ),
            (PExp::str("inf"), PExp::Prim(Prim::Float(f64::INFINITY))),
            (
                PExp::str("h"),
                PExp::Prim(Prim::Handle(Arc::from("py#3:object"))),
            ),
        ]);
        let json = encode(&v).unwrap();
        assert_eq!(decode(&json).unwrap(), v);
    }

    #[test]
    fn what_cannot_cross_is_refused_not_guessed() {
        assert!(encode(&PExp::Prim(Prim::Handle(Arc::from("stdout")))).is_err());
        assert!(decode(&json!({"$what": 1})).is_err());
        assert!(decode(&json!({"$dict": [[1]]})).is_err());
        assert!(decode(&json!(18446744073709551615u64)).is_err());
    }
}
