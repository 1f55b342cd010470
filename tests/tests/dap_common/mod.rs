//! A small DAP client over the real `opal dap`'s stdio, as an editor would drive it (shared
//! by the DAP test files).
#![allow(dead_code)]

use opal_e2e::{opal, root};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub struct Dap {
    pub child: Child,
    /// `None` once closed (end of input for the adapter).
    pub stdin: Option<ChildStdin>,
    rx: mpsc::Receiver<Value>,
    pub seq: i64,
    /// Events seen so far, in order.
    pub events: Vec<Value>,
}

impl Dap {
    pub fn start() -> Dap {
        Dap::start_with(&[])
    }

    pub fn start_with(env: &[(&str, &str)]) -> Dap {
        let mut cmd = Command::new(opal());
        cmd.arg("dap")
            .current_dir(root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("opal dap");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let t = line.trim();
                    if t.is_empty() {
                        break;
                    }
                    if let Some(v) = t.strip_prefix("Content-Length:") {
                        len = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0u8; len];
                if r.read_exact(&mut body).is_err() {
                    return;
                }
                if let Ok(v) = serde_json::from_slice::<Value>(&body) {
                    if tx.send(v).is_err() {
                        return;
                    }
                }
            }
        });
        Dap {
            child,
            stdin: Some(stdin),
            rx,
            seq: 0,
            events: Vec::new(),
        }
    }

    pub fn send(&mut self, command: &str, arguments: Value) -> i64 {
        self.seq += 1;
        let body =
            json!({"seq": self.seq, "type": "request", "command": command, "arguments": arguments})
                .to_string();
        self.raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
        self.seq
    }

    /// Bytes on the adapter's stdin, as they are.
    pub fn raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    /// The response with this `request_seq` (events and other responses before it are kept
    /// as events, or dropped).
    pub fn response_to(&mut self, request_seq: &Value) -> Value {
        loop {
            let v = self.next();
            if v["type"] == "response" && v["request_seq"] == *request_seq {
                return v;
            }
        }
    }

    pub fn next(&mut self) -> Value {
        let v = self
            .rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| {
                panic!("no message within 30 s; events so far: {:#?}", self.events)
            });
        if v["type"] == "event" {
            self.events.push(v.clone());
        }
        v
    }

    /// The response to a request (events before it are kept).
    pub fn request(&mut self, command: &str, arguments: Value) -> Value {
        let seq = self.send(command, arguments);
        loop {
            let v = self.next();
            if v["type"] == "response" && v["request_seq"] == seq {
                return v;
            }
        }
    }

    /// The next event named `name` (others are kept).
    pub fn event(&mut self, name: &str) -> Value {
        let seen = self.events.iter().position(|e| e["event"] == name);
        if let Some(i) = seen {
            return self.events.remove(i);
        }
        let start = Instant::now();
        loop {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "no `{name}` event: {:#?}",
                self.events
            );
            let v = self.next();
            if v["type"] == "event" && v["event"] == name {
                if let Some(i) = self.events.iter().rposition(|e| *e == v) {
                    self.events.remove(i);
                }
                return v;
            }
        }
    }

    pub fn output(&self) -> String {
        self.events
            .iter()
            .filter(|e| e["event"] == "output" && e["body"]["category"] == "stdout")
            .map(|e| e["body"]["output"].as_str().unwrap_or(""))
            .collect()
    }

    /// initialize + launch (+ initialized).
    pub fn launch(&mut self, args: Value) -> Value {
        let init = self.request(
            "initialize",
            json!({"adapterID": "opal", "linesStartAt1": true}),
        );
        assert_eq!(init["success"], true);
        assert_eq!(init["body"]["supportsStepBack"], true);
        self.request("launch", args)
    }
}

impl Drop for Dap {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn program(name: &str) -> String {
    root().join(name).display().to_string()
}
