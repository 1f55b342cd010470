//! `opal dap` driven over stdio by a small DAP client, as an editor would: launch, breakpoints,
//! stops, stack, variables, stepping back, output, the task graph, bad launches, disconnect.

use opal_e2e::{opal, root};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

struct Dap {
    child: Child,
    stdin: ChildStdin,
    rx: mpsc::Receiver<Value>,
    seq: i64,
    /// Events seen so far, in order.
    events: Vec<Value>,
}

impl Dap {
    fn start() -> Dap {
        Dap::start_with(&[])
    }

    fn start_with(env: &[(&str, &str)]) -> Dap {
        let mut cmd = Command::new(opal());
        cmd.arg("dap").current_dir(root()).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
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
        Dap { child, stdin, rx, seq: 0, events: Vec::new() }
    }

    fn send(&mut self, command: &str, arguments: Value) -> i64 {
        self.seq += 1;
        let body = json!({"seq": self.seq, "type": "request", "command": command, "arguments": arguments}).to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        self.stdin.flush().expect("flush");
        self.seq
    }

    fn next(&mut self) -> Value {
        let v = self.rx.recv_timeout(Duration::from_secs(30)).unwrap_or_else(|_| panic!("no message within 30 s; events so far: {:#?}", self.events));
        if v["type"] == "event" {
            self.events.push(v.clone());
        }
        v
    }

    /// The response to a request (events before it are kept).
    fn request(&mut self, command: &str, arguments: Value) -> Value {
        let seq = self.send(command, arguments);
        loop {
            let v = self.next();
            if v["type"] == "response" && v["request_seq"] == seq {
                return v;
            }
        }
    }

    /// The next event named `name` (others are kept).
    fn event(&mut self, name: &str) -> Value {
        let seen = self.events.iter().position(|e| e["event"] == name);
        if let Some(i) = seen {
            return self.events.remove(i);
        }
        let start = Instant::now();
        loop {
            assert!(start.elapsed() < Duration::from_secs(30), "no `{name}` event: {:#?}", self.events);
            let v = self.next();
            if v["type"] == "event" && v["event"] == name {
                if let Some(i) = self.events.iter().rposition(|e| *e == v) {
                    self.events.remove(i);
                }
                return v;
            }
        }
    }

    fn output(&self) -> String {
        self.events.iter().filter(|e| e["event"] == "output" && e["body"]["category"] == "stdout").map(|e| e["body"]["output"].as_str().unwrap_or("")).collect()
    }

    /// initialize + launch (+ initialized).
    fn launch(&mut self, args: Value) -> Value {
        let init = self.request("initialize", json!({"adapterID": "opal", "linesStartAt1": true}));
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

fn program(name: &str) -> String {
    root().join(name).display().to_string()
}

#[test]
fn a_session_stops_at_a_breakpoint_inspects_steps_back_and_runs_to_the_end() {
    let mut d = Dap::start();
    let path = program("examples/city_excursions.opal");
    let r = d.launch(json!({"program": path, "stopOnEntry": true}));
    assert_eq!(r["success"], true, "{r}");
    d.event("initialized");
    // Line 5 is empty: the breakpoint moves to line 6; line 8 has the excursions call.
    let bps = d.request("setBreakpoints", json!({"source": {"path": path}, "breakpoints": [{"line": 5}, {"line": 8}]}));
    let got = bps["body"]["breakpoints"].as_array().expect("breakpoints").clone();
    assert_eq!(got[0]["line"], 6, "{got:?}");
    assert_eq!(got[1]["line"], 8);
    assert!(got.iter().all(|b| b["verified"] == true));
    d.request("setBreakpoints", json!({"source": {"path": path}, "breakpoints": [{"line": 8}]}));
    d.request("configurationDone", json!({}));
    assert_eq!(d.event("stopped")["body"]["reason"], "entry");
    d.request("continue", json!({"threadId": 1}));
    let stop = d.event("stopped");
    assert_eq!(stop["body"]["reason"], "breakpoint", "{stop}");
    let trace = d.request("stackTrace", json!({"threadId": 1}));
    let frames = trace["body"]["stackFrames"].as_array().expect("frames").clone();
    assert_eq!(frames[0]["line"], 8, "{frames:?}");
    assert!(frames.len() >= 2 && frames[1]["name"].as_str().unwrap_or("").starts_with("call at"), "frames are the inlined calls: {frames:?}");
    assert!(frames[0]["source"]["path"].as_str().unwrap_or("").ends_with("city_excursions.opal"));
    let scopes = d.request("scopes", json!({"frameId": 0}));
    let names: Vec<&str> = scopes["body"]["scopes"].as_array().expect("scopes").iter().filter_map(|s| s["name"].as_str()).collect();
    assert_eq!(names, ["Statement", "Labeled term", "Pending tasks", "Output"]);
    let term = d.request("variables", json!({"variablesReference": 2}));
    let values: Vec<String> = term["body"]["variables"].as_array().expect("vars").iter().map(|v| v["value"].as_str().unwrap_or("").to_string()).collect();
    assert!(values.iter().any(|v| v.contains("[\"Honolulu\"") || v.contains("<<get_cities_in")), "values read back: {values:?}");
    let stmt = d.request("variables", json!({"variablesReference": 1}));
    assert!(stmt["body"]["variables"].to_string().contains("get_excursions_in"), "{stmt}");
    // One rule step, then back.
    d.request("stepIn", json!({"threadId": 1}));
    assert_eq!(d.event("stopped")["body"]["reason"], "step");
    let back = d.request("stepBack", json!({"threadId": 1}));
    assert_eq!(back["success"], true, "{back}");
    assert_eq!(d.event("stopped")["body"]["reason"], "step");
    // The task graph for an editor to draw.
    let g = d.request("opal/taskGraph", json!({}));
    assert!(g["body"]["nodes"].as_array().is_some_and(|n| !n.is_empty()), "{g}");
    // No breakpoints: run to the end; the output is the program's.
    d.request("setBreakpoints", json!({"source": {"path": path}, "breakpoints": []}));
    d.request("continue", json!({"threadId": 1}));
    let exited = d.event("exited");
    assert_eq!(exited["body"]["exitCode"], 0);
    d.event("terminated");
    // Stepping back undid one printed line (the console says so); it was printed again.
    assert!(d.events.iter().any(|e| e["body"]["output"].as_str().is_some_and(|o| o.contains("output are undone"))), "{:#?}", d.events);
    assert_eq!(
        d.output().replacen("Honolulu\n", "", 1),
        "Honolulu\nLocated in the US state of Hawaii: surf at Waikiki.\nJakarta\nIn Jakarta, you can find the National Monument.\nAuckland\nWalk around.\nSuva\nWalk around.\n"
    );
    let r = d.request("disconnect", json!({}));
    assert_eq!(r["success"], true);
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if let Ok(Some(status)) = d.child.try_wait() {
            assert!(status.success());
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("opal dap did not exit after disconnect");
}

#[test]
fn bad_launches_are_clear_errors_and_the_adapter_keeps_answering() {
    let mut d = Dap::start();
    let r = d.launch(json!({}));
    assert_eq!(r["success"], false);
    assert!(r["message"].as_str().unwrap_or("").contains("`program` is required"), "{r}");
    let r = d.request("launch", json!({"program": program("no/such.opal")}));
    assert!(r["message"].as_str().unwrap_or("").contains("cannot read"), "{r}");
    let dir = std::env::temp_dir().join(format!("opal-dap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let broken = dir.join("broken.opal");
    std::fs::write(&broken, "x := 1 +\n").expect("write");
    let r = d.request("launch", json!({"program": broken.display().to_string()}));
    let msg = r["message"].as_str().unwrap_or("");
    assert!(msg.contains("does not compile") && msg.contains("broken.opal:1:") && msg.contains("error[E"), "{r}");
    let r = d.request("launch", json!({"program": program("examples/sum.opal"), "strategy": "eager"}));
    assert!(r["message"].as_str().unwrap_or("").contains("unknown strategy"), "{r}");
    let r = d.request("stackTrace", json!({"threadId": 1}));
    assert_eq!(r["success"], false, "nothing launched: {r}");
    // Garbage on the wire is skipped; the adapter still answers.
    write!(d.stdin, "Content-Length: 5\r\n\r\nnope!").expect("write");
    let r = d.request("threads", json!({}));
    assert_eq!(r["body"]["threads"][0]["id"], 1);
    let r = d.request("launch", json!({"program": program("examples/sum.opal")}));
    assert_eq!(r["success"], true, "{r}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_divergent_program_pauses_at_the_step_budget_and_pause_works() {
    let mut d = Dap::start();
    let r = d.launch(json!({"program": program("examples/diverge.opal"), "strategy": "cbv", "maxSteps": 5000}));
    assert_eq!(r["success"], true, "{r}");
    d.request("configurationDone", json!({}));
    let stop = d.event("stopped");
    assert_eq!(stop["body"]["reason"], "pause");
    assert!(stop["body"]["description"].as_str().unwrap_or("").contains("did not finish within 5000 steps"), "{stop}");
    // Continue again and pause by hand: the adapter reads messages while it runs.
    d.request("continue", json!({"threadId": 1}));
    let r = d.request("pause", json!({"threadId": 1}));
    assert_eq!(r["success"], true);
    assert_eq!(d.event("stopped")["body"]["reason"], "pause");
}

#[test]
fn function_breakpoints_stop_at_dispatch_and_the_console_resolves_by_hand() {
    let mut d = Dap::start();
    let dir = std::env::temp_dir().join(format!("opal-dap-coin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("c.opal");
    std::fs::write(&file, "extern ask\nx := ask \"q\"\nprint (&stdout, x)\n").expect("write");
    let r = d.launch(json!({"program": file.display().to_string()}));
    assert_eq!(r["success"], true, "{r}");
    let fb = d.request("setFunctionBreakpoints", json!({"breakpoints": [{"name": "ask"}, {"name": "nope"}]}));
    let got = fb["body"]["breakpoints"].as_array().expect("bps").clone();
    assert_eq!((got[0]["verified"].clone(), got[1]["verified"].clone()), (json!(true), json!(false)), "{got:?}");
    d.request("configurationDone", json!({}));
    let stop = d.event("stopped");
    assert_eq!(stop["body"]["reason"], "function breakpoint", "{stop}");
    // No world file answers `ask`: continuing waits for a hand resolution.
    d.request("continue", json!({"threadId": 1}));
    let stop = d.event("stopped");
    assert!(stop["body"]["description"].as_str().unwrap_or("").contains("resolve LABEL EXPRESSION"), "{stop}");
    let tasks = d.request("variables", json!({"variablesReference": 3}));
    let label = tasks["body"]["variables"][0]["name"].as_str().expect("a pending task").to_string();
    let bad = d.request("evaluate", json!({"expression": format!("resolve {label} \"oops"), "context": "repl"}));
    assert_eq!(bad["success"], false, "a broken expression is refused: {bad}");
    let ok = d.request("evaluate", json!({"expression": format!("resolve {label} \"answer\""), "context": "repl"}));
    assert_eq!(ok["success"], true, "{ok}");
    let why = d.request("evaluate", json!({"expression": format!("why {label}"), "context": "repl"}));
    assert!(why["body"]["result"].as_str().unwrap_or("").contains("resolve"), "{why}");
    d.request("continue", json!({"threadId": 1}));
    d.event("terminated");
    assert_eq!(d.output(), "answer\n");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A task no world file answers is called live: an `llm` stream against the scripted server,
/// delivered chunk by chunk while `continue` runs.
#[test]
fn live_externals_answer_what_nothing_else_resolves() {
    let server = opal_e2e::LlmServer::start();
    let mut d = Dap::start_with(&[("OPAL_LLM_BASE_URL", server.url.as_str()), ("OPAL_LLM_MODEL", "ok"), ("OPAL_LLM_API_KEY", "test-key")]);
    let r = d.launch(json!({"program": program("tests/live/llm.opal")}));
    assert_eq!(r["success"], true, "{r}");
    d.request("configurationDone", json!({}));
    d.event("terminated");
    assert_eq!(d.output(), "Hel\nlo\n world\n");
    assert_eq!(server.requests.lock().map(|r| r.len()).unwrap_or(0), 1);
}
