//! A small JSON-RPC client that drives a real server process over stdio, for the protocol
//! tests and the diagnostics benchmark. Messages are read on a thread so every wait has a
//! time limit; server-to-client requests are answered with `null`.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

pub struct StdioClient {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Notifications received while waiting for something else, oldest first.
    pub notifications: Vec<Value>,
    /// Requests the server sent (each answered with `null`), oldest first.
    pub server_requests: Vec<Value>,
    pub timeout: Duration,
}

impl StdioClient {
    /// Starts `program args…` with piped stdin/stdout (stderr is inherited, so the server's
    /// log shows in test output).
    pub fn spawn(
        program: &std::path::Path,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> std::io::Result<StdioClient> {
        let mut child = Command::new(program)
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("no stdin"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| std::io::Error::other("no stdout"))?;
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(msg) = read_message(&mut r) {
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        Ok(StdioClient {
            child,
            stdin,
            incoming: rx,
            next_id: 0,
            notifications: Vec::new(),
            server_requests: Vec::new(),
            timeout: Duration::from_secs(20),
        })
    }

    pub fn send_raw(&mut self, body: &[u8]) {
        let _ = write!(self.stdin, "Content-Length: {}\r\n\r\n", body.len());
        let _ = self.stdin.write_all(body);
        let _ = self.stdin.flush();
    }

    /// The server's process id (the benchmark reads its memory use).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes bytes as they are, with no framing (for transport tests).
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        let _ = self.stdin.write_all(bytes);
        let _ = self.stdin.flush();
    }

    /// The server's exit code once it exits by itself within `within` (it is killed after).
    pub fn wait_exit(mut self, within: Duration) -> Option<i32> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        None
    }

    pub fn send(&mut self, msg: &Value) {
        self.send_raw(msg.to_string().as_bytes());
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request without waiting; returns its id.
    pub fn request_async(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The next message from the server, answering its requests on the way.
    pub fn next_message(&mut self) -> Result<Value, String> {
        loop {
            let msg = match self.incoming.recv_timeout(self.timeout) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!(
                        "no message from the server within {:?}",
                        self.timeout
                    ))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err("the server closed its output".into())
                }
            };
            if msg.get("method").is_some() && msg.get("id").is_some() {
                let id = msg["id"].clone();
                self.send(&json!({"jsonrpc": "2.0", "id": id, "result": null}));
                self.server_requests.push(msg);
                continue;
            }
            return Ok(msg);
        }
    }

    /// The whole response (`result` or `error`) to a request with this id.
    pub fn response(&mut self, id: i64) -> Result<Value, String> {
        loop {
            let msg = self.next_message()?;
            if msg.get("method").is_none() && msg.get("id") == Some(&json!(id)) {
                return Ok(msg);
            }
            self.notifications.push(msg);
        }
    }

    /// Sends a request and returns its `result`, or `Err` with the error object.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.request_async(method, params);
        let msg = self.response(id).map_err(Value::String)?;
        match msg.get("error") {
            Some(e) => Err(e.clone()),
            None => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
        }
    }

    /// Waits for a message matching `pred` (looking at ones already received first).
    pub fn wait_message(&mut self, pred: impl Fn(&Value) -> bool) -> Result<Value, String> {
        if let Some(i) = self.notifications.iter().position(&pred) {
            return Ok(self.notifications.remove(i));
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            if Instant::now() > deadline {
                return Err("timed out waiting for a notification".into());
            }
            let msg = self.next_message()?;
            if pred(&msg) {
                return Ok(msg);
            }
            self.notifications.push(msg);
        }
    }

    /// The diagnostics published for `uri` (at `version`, when given).
    pub fn diagnostics(&mut self, uri: &str, version: Option<i64>) -> Result<Value, String> {
        let m = self.wait_message(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && version.is_none_or(|v| m["params"]["version"] == json!(v))
        })?;
        Ok(m["params"]["diagnostics"].clone())
    }

    /// `initialize` as VS Code does it (its name, markdown, snippets, hierarchical symbols,
    /// dynamic registration, UTF-16, the extension's `clientLenses`), but taking pushed
    /// diagnostics (VS Code pulls them; see
    /// `a_pulling_client_gets_each_diagnostic_once`), then `initialized`.
    pub fn initialize(&mut self, root_uri: &str) -> Result<Value, Value> {
        let caps = json!({
            "general": {"positionEncodings": ["utf-16"]},
            "textDocument": {
                "publishDiagnostics": {"versionSupport": true, "relatedInformation": true},
                "hover": {"contentFormat": ["markdown", "plaintext"]},
                "completion": {"completionItem": {"snippetSupport": true, "documentationFormat": ["markdown", "plaintext"]}},
                "documentSymbol": {"hierarchicalDocumentSymbolSupport": true}
            },
            "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}
        });
        let r =
            self.request("initialize", json!({"processId": null, "rootUri": root_uri, "capabilities": caps, "clientInfo": {"name": "Visual Studio Code"}, "initializationOptions": {"clientLenses": true}}))?;
        self.notify("initialized", json!({}));
        Ok(r)
    }

    /// `initialize` with the given client capabilities, then `initialized`.
    pub fn initialize_with(&mut self, root_uri: &str, caps: Value) -> Result<Value, Value> {
        let r = self.request(
            "initialize",
            json!({"processId": null, "rootUri": root_uri, "capabilities": caps}),
        )?;
        self.notify("initialized", json!({}));
        Ok(r)
    }

    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "opal", "version": 1, "text": text}}),
        );
    }

    /// `shutdown` then `exit`; the server's exit code, if it exits within five seconds.
    pub fn shutdown(mut self) -> Option<i32> {
        let _ = self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        self.wait_exit(Duration::from_secs(5))
    }
}

impl Drop for StdioClient {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse::<usize>().ok();
            }
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}
