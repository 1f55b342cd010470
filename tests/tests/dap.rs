//! `opal dap` driven over stdio by a small DAP client, as an editor would: launch, breakpoints,
//! stops, stack, variables, stepping back, output, the task graph, bad launches, disconnect.

mod dap_common;

use dap_common::{program, Dap};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

#[test]
fn a_session_stops_at_a_breakpoint_inspects_steps_back_and_runs_to_the_end() {
    let mut d = Dap::start();
    let path = program("examples/city_excursions.opal");
    let r = d.launch(json!({"program": path, "stopOnEntry": true}));
    assert_eq!(r["success"], true, "{r}");
    d.event("initialized");
    breakpoints_move_to_statements(&mut d, &path);
    d.request("configurationDone", json!({}));
    assert_eq!(d.event("stopped")["body"]["reason"], "entry");
    d.request("continue", json!({"threadId": 1}));
    let stop = d.event("stopped");
    assert_eq!(stop["body"]["reason"], "breakpoint", "{stop}");
    the_stop_shows_frames_scopes_and_values(&mut d);
    a_step_in_is_undone_by_a_step_back(&mut d);
    without_breakpoints_the_program_runs_to_the_end(&mut d, &path);
    disconnect_ends_the_adapter(&mut d);
}

fn breakpoints_move_to_statements(d: &mut Dap, path: &str) {
    // Line 5 is empty: the breakpoint moves to line 6; line 8 has the excursions call.
    let bps = d.request(
        "setBreakpoints",
        json!({"source": {"path": path}, "breakpoints": [{"line": 5}, {"line": 8}]}),
    );
    let got = bps["body"]["breakpoints"]
        .as_array()
        .expect("breakpoints")
        .clone();
    assert_eq!(got[0]["line"], 6, "{got:?}");
    assert_eq!(got[1]["line"], 8);
    assert!(got.iter().all(|b| b["verified"] == true));
    d.request(
        "setBreakpoints",
        json!({"source": {"path": path}, "breakpoints": [{"line": 8}]}),
    );
}

/// At the breakpoint on line 8: the inlined calls as frames, the scopes, values read back.
fn the_stop_shows_frames_scopes_and_values(d: &mut Dap) {
    let trace = d.request("stackTrace", json!({"threadId": 1}));
    let frames = trace["body"]["stackFrames"]
        .as_array()
        .expect("frames")
        .clone();
    assert_eq!(frames[0]["line"], 8, "{frames:?}");
    assert_eq!(
        frames[0]["name"], "excursions := get_excursions_in city",
        "{frames:?}"
    );
    assert_eq!(frames[1]["line"], 6, "the loop is the caller: {frames:?}");
    assert_eq!(
        frames[1]["name"], "for city in get_cities_in \"Oceania\"",
        "{frames:?}"
    );
    assert!(frames[0]["source"]["path"]
        .as_str()
        .unwrap_or("")
        .ends_with("city_excursions.opal"));
    let scopes = d.request("scopes", json!({"frameId": 0}));
    let names: Vec<&str> = scopes["body"]["scopes"]
        .as_array()
        .expect("scopes")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "Locals",
            "Statement (core)",
            "Labeled term",
            "Pending tasks",
            "Output"
        ]
    );
    let term = d.request("variables", json!({"variablesReference": 2}));
    let values: Vec<String> = term["body"]["variables"]
        .as_array()
        .expect("vars")
        .iter()
        .map(|v| v["value"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        values
            .iter()
            .any(|v| v.contains("[\"Honolulu\"") || v.contains("<<get_cities_in")),
        "values read back: {values:?}"
    );
    let locals = d.request("variables", json!({"variablesReference": 5}));
    let locals: Vec<(String, String)> = locals["body"]["variables"]
        .as_array()
        .expect("locals")
        .iter()
        .map(|v| {
            (
                v["name"].as_str().unwrap_or("").into(),
                v["value"].as_str().unwrap_or("").into(),
            )
        })
        .collect();
    assert_eq!(
        locals,
        [
            ("city".to_string(), "\"Honolulu\"".to_string()),
            ("excursions".to_string(), "(not computed yet)".to_string())
        ]
    );
    let stmt = d.request("variables", json!({"variablesReference": 1}));
    assert!(
        stmt["body"]["variables"]
            .to_string()
            .contains("get_excursions_in"),
        "{stmt}"
    );
}

fn a_step_in_is_undone_by_a_step_back(d: &mut Dap) {
    // One rule step, then back.
    d.request(
        "stepIn",
        json!({"threadId": 1, "granularity": "instruction"}),
    );
    assert_eq!(d.event("stopped")["body"]["reason"], "step");
    let back = d.request(
        "stepBack",
        json!({"threadId": 1, "granularity": "instruction"}),
    );
    assert_eq!(back["success"], true, "{back}");
    assert_eq!(d.event("stopped")["body"]["reason"], "step");
    // The task graph for an editor to draw.
    let g = d.request("opal/taskGraph", json!({}));
    assert!(
        g["body"]["nodes"].as_array().is_some_and(|n| !n.is_empty()),
        "{g}"
    );
}

fn without_breakpoints_the_program_runs_to_the_end(d: &mut Dap, path: &str) {
    // No breakpoints: run to the end; the output is the program's.
    d.request(
        "setBreakpoints",
        json!({"source": {"path": path}, "breakpoints": []}),
    );
    d.request("continue", json!({"threadId": 1}));
    let exited = d.event("exited");
    assert_eq!(exited["body"]["exitCode"], 0);
    d.event("terminated");
    // Stepping back undid one printed line (the console says so); it was printed again.
    assert!(
        d.events.iter().any(|e| e["body"]["output"]
            .as_str()
            .is_some_and(|o| o.contains("output are undone"))),
        "{:#?}",
        d.events
    );
    assert_eq!(
        d.output().replacen("Honolulu\n", "", 1),
        "Honolulu\nLocated in the US state of Hawaii: surf at Waikiki.\nJakarta\nIn Jakarta, you can find the National Monument.\nAuckland\nWalk around.\nSuva\nWalk around.\n"
    );
}

fn disconnect_ends_the_adapter(d: &mut Dap) {
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
    assert!(
        r["message"]
            .as_str()
            .unwrap_or("")
            .contains("`program` is required"),
        "{r}"
    );
    let r = d.request("launch", json!({"program": program("no/such.opal")}));
    assert!(
        r["message"].as_str().unwrap_or("").contains("cannot read"),
        "{r}"
    );
    let dir = std::env::temp_dir().join(format!("opal-dap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let broken = dir.join("broken.opal");
    std::fs::write(&broken, "x := 1 +\n").expect("write");
    let r = d.request("launch", json!({"program": broken.display().to_string()}));
    let msg = r["message"].as_str().unwrap_or("");
    assert!(
        msg.contains("does not compile")
            && msg.contains("broken.opal:1:")
            && msg.contains("error[E")
            && !msg.contains('\n'),
        "one line in the error: {r}"
    );
    // The caret diagrams go to the Debug Console, which is monospace.
    assert!(
        d.events.iter().any(|e| e["event"] == "output"
            && e["body"]["category"] == "stderr"
            && e["body"]["output"]
                .as_str()
                .is_some_and(|o| o.contains("| x := 1 +") && o.contains('^'))),
        "{:#?}",
        d.events
    );
    let r = d.request(
        "launch",
        json!({"program": program("examples/sum.opal"), "strategy": "eager"}),
    );
    assert!(
        r["message"]
            .as_str()
            .unwrap_or("")
            .contains("unknown strategy"),
        "{r}"
    );
    let r = d.request("stackTrace", json!({"threadId": 1}));
    assert_eq!(r["success"], false, "nothing launched: {r}");
    // Garbage on the wire is skipped; the adapter still answers.
    d.raw(b"Content-Length: 5\r\n\r\nnope!");
    let r = d.request("threads", json!({}));
    assert_eq!(r["body"]["threads"][0]["id"], 1);
    let r = d.request("launch", json!({"program": program("examples/sum.opal")}));
    assert_eq!(r["success"], true, "{r}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_divergent_program_pauses_at_the_step_budget_and_pause_works() {
    let mut d = Dap::start();
    let r = d.launch(
        json!({"program": program("examples/diverge.opal"), "strategy": "cbv", "maxSteps": 5000}),
    );
    assert_eq!(r["success"], true, "{r}");
    d.request("configurationDone", json!({}));
    let stop = d.event("stopped");
    assert_eq!(stop["body"]["reason"], "pause");
    assert!(
        stop["body"]["description"]
            .as_str()
            .unwrap_or("")
            .contains("did not finish within 5000 steps"),
        "{stop}"
    );
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
    let fb = d.request(
        "setFunctionBreakpoints",
        json!({"breakpoints": [{"name": "ask"}, {"name": "nope"}]}),
    );
    let got = fb["body"]["breakpoints"].as_array().expect("bps").clone();
    assert_eq!(
        (got[0]["verified"].clone(), got[1]["verified"].clone()),
        (json!(true), json!(false)),
        "{got:?}"
    );
    d.request("configurationDone", json!({}));
    let stop = d.event("stopped");
    assert_eq!(stop["body"]["reason"], "function breakpoint", "{stop}");
    // No world file answers `ask`: continuing waits for a hand resolution.
    d.request("continue", json!({"threadId": 1}));
    let stop = d.event("stopped");
    assert!(
        stop["body"]["description"]
            .as_str()
            .unwrap_or("")
            .contains(":resolve LABEL EXPRESSION"),
        "{stop}"
    );
    let tasks = d.request("variables", json!({"variablesReference": 3}));
    let label = tasks["body"]["variables"][0]["name"]
        .as_str()
        .expect("a pending task")
        .to_string();
    let bad = d.request(
        "evaluate",
        json!({"expression": format!(":resolve {label} \"oops"), "context": "repl"}),
    );
    assert_eq!(
        bad["success"], false,
        "a broken expression is refused: {bad}"
    );
    let ok = d.request(
        "evaluate",
        json!({"expression": format!(":resolve {label} \"answer\""), "context": "repl"}),
    );
    assert_eq!(ok["success"], true, "{ok}");
    let why = d.request(
        "evaluate",
        json!({"expression": format!(":why {label}"), "context": "repl"}),
    );
    assert!(
        why["body"]["result"]
            .as_str()
            .unwrap_or("")
            .contains("resolve"),
        "{why}"
    );
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
    let mut d = Dap::start_with(&[
        ("OPAL_LLM_BASE_URL", server.url.as_str()),
        ("OPAL_LLM_MODEL", "ok"),
        ("OPAL_LLM_API_KEY", "test-key"),
    ]);
    let r = d.launch(json!({"program": program("tests/live/llm.opal")}));
    assert_eq!(r["success"], true, "{r}");
    d.request("configurationDone", json!({}));
    d.event("terminated");
    assert_eq!(d.output(), "Hel\nlo\n world\n");
    assert_eq!(server.requests.lock().map(|r| r.len()).unwrap_or(0), 1);
}

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// A mebibyte of noise (xorshift: the same bytes every run).
fn noise() -> Vec<u8> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    (0..1 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect()
}

/// Issue 29: one malformed frame made the adapter deaf for the rest of the session. After each,
/// a valid `initialize` is answered; a request the bad frame still held is answered too.
#[test]
fn every_malformed_frame_is_followed_by_an_answered_request() {
    for (what, bytes) in malformed_frames() {
        let mut d = Dap::start();
        d.seq = 2000;
        d.raw(&bytes);
        let start = Instant::now();
        let r = d.request("initialize", json!({"adapterID": "opal"}));
        assert_eq!(r["success"], true, "after {what}: {r}");
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "after {what}: answered only after {:?}",
            start.elapsed()
        );
        // Nothing is left waiting: the session goes on.
        let r = d.request("threads", json!({}));
        assert_eq!(r["body"]["threads"][0]["id"], 1, "after {what}: {r}");
        let console: String = d
            .events
            .iter()
            .filter_map(|e| e["body"]["output"].as_str())
            .collect();
        // An unknown header is no error, and bytes outside any frame are logged on stderr.
        let silent = ["a non-UTF-8 header", "a mebibyte of noise"].contains(&what);
        assert!(
            silent || console.contains("ignored input"),
            "after {what}, the console says what was skipped: {console}"
        );
    }
    a_frame_counted_in_characters_is_answered_refused();
    requests_not_in_unicode_are_answered_refused();
}

/// `threads` and `evaluate` requests, seq 1000; `é` takes two bytes.
const THREADS: &str = r#"{"seq":1000,"type":"request","command":"threads"}"#;
const CAFE: &str =
    r#"{"seq":1000,"type":"request","command":"evaluate","arguments":{"expression":"café"}}"#;

/// Each malformed frame, named.
fn malformed_frames() -> Vec<(&'static str, Vec<u8>)> {
    let (threads, cafe) = (THREADS, CAFE);
    vec![
        (
            "a length that is not a number",
            [format!("Content-Length: abc\r\n\r\n{threads}").into_bytes()].concat(),
        ),
        // A client counting characters, not bytes: one short for the `é`.
        (
            "a length one byte short",
            [format!("Content-Length: {}\r\n\r\n{cafe}", cafe.chars().count()).into_bytes()]
                .concat(),
        ),
        (
            "two lengths",
            format!(
                "Content-Length: {}\r\nContent-Length: {}\r\n\r\n{threads}",
                threads.len(),
                threads.len() + 7
            )
            .into_bytes(),
        ),
        (
            "two lengths, the first too small",
            format!(
                "Content-Length: {}\r\nContent-Length: {}\r\n\r\n{threads}",
                threads.len() - 9,
                threads.len()
            )
            .into_bytes(),
        ),
        (
            "a non-UTF-8 header",
            [b"X-Caf\xe9: \xff\xfe\r\n".to_vec(), frame(threads)].concat(),
        ),
        (
            "a length too large",
            format!("Content-Length: {}\r\n\r\n{threads}", threads.len() + 40).into_bytes(),
        ),
        ("a mebibyte of noise", noise()),
    ]
}

/// The request in a frame whose length was counted in characters is answered, refused.
fn a_frame_counted_in_characters_is_answered_refused() {
    let cafe = CAFE;
    let mut d = Dap::start();
    d.raw(format!("Content-Length: {}\r\n\r\n{cafe}", cafe.chars().count()).as_bytes());
    let r = d.response_to(&json!(1000));
    assert_eq!(
        (r["success"].clone(), r["command"].clone()),
        (json!(false), json!("evaluate")),
        "{r}"
    );
    assert!(
        r["message"]
            .as_str()
            .unwrap_or("")
            .contains("not characters"),
        "{r}"
    );
}

/// A request whose strings are not Unicode (a lone surrogate escape, a byte that is not
/// UTF-8) is answered too, refused.
fn requests_not_in_unicode_are_answered_refused() {
    for body in [
        r#"{"seq":1001,"type":"request","command":"evaluate","arguments":{"expression":"why \ud800"}}"#.as_bytes(),
        b"{\"seq\":1001,\"type\":\"request\",\"command\":\"evaluate\",\"arguments\":{\"expression\":\"\xff\"}}",
    ] {
        let mut d = Dap::start();
        d.raw(&[format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes(), body].concat());
        let r = d.response_to(&json!(1001));
        assert_eq!((r["success"].clone(), r["command"].clone()), (json!(false), json!("evaluate")), "{r}");
        assert!(r["message"].as_str().unwrap_or("").contains("Unicode"), "{r}");
    }
}

/// Issue 29 (found after the transport was made to resynchronise): a header block without its
/// blank line swallowed the request after it, and a body holding a request and more bytes was
/// refused without an answer. Both requests are answered now.
#[test]
fn a_header_without_its_blank_line_and_a_body_with_two_values_are_answered() {
    let threads = |seq: i64| format!(r#"{{"seq":{seq},"type":"request","command":"threads"}}"#);
    let mut d = Dap::start();
    d.raw(&[b"Content-Length: 2\r\n{}".to_vec(), frame(&threads(3001))].concat());
    let r = d.response_to(&json!(3001));
    assert_eq!(
        (r["success"].clone(), r["command"].clone()),
        (json!(true), json!("threads")),
        "{r}"
    );
    for (seq, body) in [
        (3002, format!("{}{}", threads(3002), threads(3003))),
        (3004, format!("{} x", threads(3004))),
    ] {
        d.raw(&frame(&body));
        let r = d.response_to(&json!(seq));
        assert_eq!(r["success"], false, "{body}: {r}");
        assert!(
            r["message"].as_str().unwrap_or("").contains("more byte"),
            "{body}: {r}"
        );
    }
    // The session goes on.
    let r = d.request("threads", json!({}));
    assert_eq!(r["body"]["threads"][0]["id"], 1, "{r}");
}

/// One breakpoint per requested breakpoint, in order, before the launch and after it; the
/// invalid ones unverified with a message.
#[test]
fn set_breakpoints_answers_every_requested_breakpoint_in_order() {
    let mut d = Dap::start();
    let path = program("examples/city_excursions.opal");
    let asked = json!({"source": {"path": path}, "breakpoints": [{"line": 6}, {"line": -1}, {"line": 1.5}, {"line": 8}]});
    d.request("initialize", json!({"adapterID": "opal"}));
    let early = d.request("setBreakpoints", asked.clone());
    assert_eq!(
        early["body"]["breakpoints"].as_array().map(Vec::len),
        Some(4),
        "{early}"
    );
    let r = d.request("launch", json!({"program": path, "stopOnEntry": true}));
    assert_eq!(r["success"], true, "{r}");
    for legacy in [false, true] {
        let args = if legacy {
            json!({"source": {"path": path}, "lines": [6, -1, 1.5, 8]})
        } else {
            asked.clone()
        };
        let r = d.request("setBreakpoints", args);
        let got = r["body"]["breakpoints"]
            .as_array()
            .expect("breakpoints")
            .clone();
        assert_eq!(got.len(), 4, "{r}");
        assert_eq!(
            (got[0]["verified"].clone(), got[0]["line"].clone()),
            (json!(true), json!(6)),
            "{got:?}"
        );
        assert_eq!(
            (got[3]["verified"].clone(), got[3]["line"].clone()),
            (json!(true), json!(8)),
            "{got:?}"
        );
        for (bad, shown) in [(&got[1], "-1"), (&got[2], "1.5")] {
            assert_eq!(bad["verified"], false, "{got:?}");
            assert!(
                bad["message"].as_str().unwrap_or("").contains(shown),
                "{got:?}"
            );
        }
    }
    let r = d.request(
        "setFunctionBreakpoints",
        json!({"breakpoints": [{"name": "get_excursions_in"}, {"nom": "x"}, {"name": "nope"}]}),
    );
    let got = r["body"]["breakpoints"]
        .as_array()
        .expect("breakpoints")
        .clone();
    let verified: Vec<Value> = got.iter().map(|b| b["verified"].clone()).collect();
    assert_eq!(
        verified,
        [json!(true), json!(false), json!(false)],
        "{got:?}"
    );
}

/// A request whose `seq` is not a whole number from 0 gets an error echoing it as given; one
/// with an empty or missing command is answered with an error; every request once.
#[test]
fn every_request_is_answered_once_with_its_seq_as_given() {
    let mut d = Dap::start();
    // 2^63 is a whole number: answered, not turned into 0.
    d.raw(&frame(
        r#"{"seq":9223372036854775808,"type":"request","command":"threads"}"#,
    ));
    let r = d.response_to(&json!(9223372036854775808u64));
    assert_eq!(r["success"], true, "{r}");
    for seq in ["1.5", "-3", "\"seven\"", "18446744073709551616"] {
        d.raw(&frame(&format!(
            r#"{{"seq":{seq},"type":"request","command":"threads"}}"#
        )));
        let given: Value = serde_json::from_str(seq).expect("json");
        let r = d.response_to(&given);
        assert_eq!(r["success"], false, "{seq}: {r}");
        assert!(
            r["message"].as_str().unwrap_or("").contains("`seq`"),
            "{seq}: {r}"
        );
    }
    for (seq, body) in [
        (41, r#"{"seq":41,"type":"request","command":""}"#),
        (42, r#"{"seq":42,"type":"request"}"#),
        (43, r#"{"seq":43,"type":"request","command":"frobnicate"}"#),
    ] {
        d.raw(&frame(body));
        let r = d.response_to(&json!(seq));
        assert_eq!(r["success"], false, "{body}: {r}");
    }
    // Exactly once: the next answer is to the next request, with no duplicate in between.
    let seq = d.send("threads", json!({}));
    let v = d.next();
    assert_eq!(
        (v["type"].clone(), v["request_seq"].clone()),
        (json!("response"), json!(seq)),
        "{v}"
    );
}

/// Devices and pipes are not programs: `/dev/zero` exhausted memory and `/proc/self/fd/0` (the
/// adapter's own stdin) hung. Both, and a file over the size limit, are refused at once.
#[test]
fn launching_what_is_not_a_regular_file_is_refused_quickly() {
    let dir = std::env::temp_dir().join(format!("opal-dap-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let big = dir.join("big.opal");
    // Sparse: no disk space is used.
    std::fs::File::create(&big)
        .and_then(|f| f.set_len(17 << 20))
        .expect("a big file");
    let mut d = Dap::start();
    d.request("initialize", json!({"adapterID": "opal"}));
    let cases = [
        ("/dev/zero", "a device"),
        ("/proc/self/fd/0", "named pipe"),
        (dir.to_str().expect("path"), "a directory"),
        (big.to_str().expect("path"), "over the 16 MiB"),
    ];
    for (path, why) in cases {
        let start = Instant::now();
        let r = d.request("launch", json!({"program": path}));
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{path}: {:?}",
            start.elapsed()
        );
        assert_eq!(r["success"], false, "{path}: {r}");
        assert!(
            r["message"].as_str().unwrap_or("").contains(why),
            "{path}: {r}"
        );
    }
    let r = d.request(
        "launch",
        json!({"program": program("examples/sum.opal"), "world": "/dev/zero"}),
    );
    assert!(
        r["message"].as_str().unwrap_or("").contains("a device"),
        "{r}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether a process with this command line runs (`/proc`, as tests/tests/live.rs reads it).
fn running(needle: &str) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return false;
    };
    dir.flatten().any(|e| {
        String::from_utf8_lossy(&std::fs::read(e.path().join("cmdline")).unwrap_or_default())
            .contains(needle)
    })
}

/// The children of process externals die with the session: when the client's pipe closes
/// mid-run, and on disconnect (before its answer).
#[test]
fn children_are_killed_and_reaped_when_the_client_goes() {
    let dir = std::env::temp_dir().join(format!("opal-dap-kids-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    for (i, how) in ["end of input", "disconnect"].into_iter().enumerate() {
        let marker = format!(
            "{}.{}{i}",
            500 + std::process::id() % 1000,
            std::process::id() % 83
        );
        let file = dir.join(format!("kid{i}.opal"));
        let src = format!(
            "(i, o) := create_process (\"sleep\", \"{marker}\")\n() := fd_write_and_close (i, \"\")\nfor l in fd_read_and_close o:\n    print (&stdout, l)\n"
        );
        std::fs::write(&file, src).expect("write");
        let mut d = Dap::start();
        let r = d.launch(json!({"program": file.display().to_string(), "allowExec": true}));
        assert_eq!(r["success"], true, "{r}");
        d.request("configurationDone", json!({}));
        let needle = format!("sleep\0{marker}");
        let start = Instant::now();
        while !running(&needle) && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(running(&needle), "{how}: the child never started");
        if how == "disconnect" {
            let r = d.request("disconnect", json!({}));
            assert_eq!(r["success"], true, "{r}");
            assert!(
                !running(&needle),
                "{how}: a child outlived the answer to disconnect"
            );
        } else {
            d.stdin = None;
        }
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10)
            && !matches!(d.child.try_wait(), Ok(Some(_)))
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            matches!(d.child.try_wait(), Ok(Some(s)) if s.success()),
            "{how}: opal dap did not exit"
        );
        assert!(!running(&needle), "{how}: a child outlived opal dap");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
