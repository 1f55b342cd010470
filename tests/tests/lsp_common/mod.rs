//! What the `opal lsp` protocol tests share: the fixture directory's URIs, a started session,
//! hand-built frames, and the checks that a session still answers.
// Each test file uses some of these, never all.
#![allow(dead_code)]

use opal_e2e::{opal, root};
use opal_lsp::client::StdioClient;
use serde_json::{json, Value};

pub fn dir_uri() -> String {
    let dir = root()
        .join("tests/lsp")
        .canonicalize()
        .expect("tests/lsp exists");
    format!("file://{}", dir.display())
}

pub fn uri(name: &str) -> String {
    format!("{}/{name}", dir_uri())
}

pub fn start() -> StdioClient {
    let mut c = StdioClient::spawn(&opal(), &["lsp", "--stdio"], &[]).expect("start opal lsp");
    c.initialize(&dir_uri()).expect("initialize");
    c
}

pub fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

pub fn hover_body(id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"textDocument/hover","params":{{"textDocument":{{"uri":"{}"}},"position":{{"line":0,"character":0}}}}}}"#,
        uri("a.opal")
    )
}

/// The answer to the id, and every error answered with `id: null` on the way.
pub fn answer(c: &mut StdioClient, id: Value) -> Value {
    c.wait_message(|m| m.get("method").is_none() && m["id"] == id)
        .expect("an answer")
}

/// The session still works: a hover on an open document is answered.
pub fn still_serving(c: &mut StdioClient) {
    let r = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri("a.opal")}, "position": {"line": 0, "character": 0}}),
    );
    assert!(r.is_ok(), "the server still answers: {r:?}");
}

/// A long program: functions, calls, and `if`s threading `stdout` (as in `opal-bench lsp`).
pub fn long_source(blocks: usize) -> String {
    let mut s = String::from("# A long program.\n");
    for i in 0..blocks {
        s.push_str(&format!(
            "# block {i}\nf{i} := fun (a, b):\n    c := a + b\n    ret c * 2\nx{i} := f{i} ({i}, 1)\nif x{i} > 10:\n    print (&stdout, x{i})\n"
        ));
    }
    s
}

pub fn start_with_caps(caps: Value) -> (StdioClient, Value) {
    let mut c = StdioClient::spawn(&opal(), &["lsp"], &[]).expect("start opal lsp");
    let init = c.initialize_with(&dir_uri(), caps).expect("initialize");
    (c, init)
}

pub const TOUR_LIKE: &str = "# Greets.\nshout := fun s: s ++ \"!\"\ncount := 0\nfor w in [\"a\", \"b\"]:\n    count += 1\nprint (&stdout, shout \"hi\")\n";
