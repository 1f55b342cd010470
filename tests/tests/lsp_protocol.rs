//! Issue 19: `opal lsp` against raw bytes and unusual clients. The real binary over stdio;
//! every test ends with a request that must still be answered.

use opal_e2e::{opal, root};
use opal_lsp::client::StdioClient;
use serde_json::{json, Value};
use std::time::Duration;

fn dir_uri() -> String {
    let dir = root()
        .join("tests/lsp")
        .canonicalize()
        .expect("tests/lsp exists");
    format!("file://{}", dir.display())
}

fn uri(name: &str) -> String {
    format!("{}/{name}", dir_uri())
}

fn start() -> StdioClient {
    let mut c = StdioClient::spawn(&opal(), &["lsp", "--stdio"], &[]).expect("start opal lsp");
    c.initialize(&dir_uri()).expect("initialize");
    c
}

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fn hover_body(id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"textDocument/hover","params":{{"textDocument":{{"uri":"{}"}},"position":{{"line":0,"character":0}}}}}}"#,
        uri("a.opal")
    )
}

/// The answer to the id, and every error answered with `id: null` on the way.
fn answer(c: &mut StdioClient, id: Value) -> Value {
    c.wait_message(|m| m.get("method").is_none() && m["id"] == id)
        .expect("an answer")
}

/// The session still works: a hover on an open document is answered.
fn still_serving(c: &mut StdioClient) {
    let r = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri("a.opal")}, "position": {"line": 0, "character": 0}}),
    );
    assert!(r.is_ok(), "the server still answers: {r:?}");
}

#[test]
fn any_bytes_leave_the_session_running() {
    let mut c = start();
    c.open(&uri("a.opal"), "x := 1\nprint (&stdout, x)\n");
    c.diagnostics(&uri("a.opal"), Some(1)).expect("diagnostics");
    let cases: Vec<(&str, Vec<u8>, Option<i64>)> = vec![
        ("a non-UTF-8 header line", [b"\xff\r\n".to_vec(), frame(&hover_body("101"))].concat(), None),
        (
            "a non-UTF-8 header value",
            [format!("Content-Length: {}\r\nX-Name: caf", hover_body("102").len()).into_bytes(), b"\xe9\r\n\r\n".to_vec(), hover_body("102").into_bytes()]
                .concat(),
            None,
        ),
        ("Content-Length: abc", [b"Content-Length: abc\r\n\r\n".to_vec(), hover_body("103").into_bytes()].concat(), Some(-32700)),
        ("a length too small", [b"Content-Length: 12\r\n\r\n".to_vec(), hover_body("104").into_bytes()].concat(), Some(-32700)),
        (
            "a length too large",
            [format!("Content-Length: {}\r\n\r\n", hover_body("105").len() + 40).into_bytes(), hover_body("105").into_bytes()].concat(),
            Some(-32700),
        ),
        ("garbage between frames", b"hello\x00\x01 world\r\n\r\n".to_vec(), None),
        // Found by the `lsp_transport` fuzz target: a declared body that ends inside the next
        // message's header must not swallow that message.
        (
            "a body declared to end inside the next header",
            [b"Content-Length: 52\r\n\r\n{\"jsonrod\":\"knitialize\",\"params\":\xfb}}\r\n\r\n".to_vec(), frame(&hover_body("106"))].concat(),
            Some(-32700),
        ),
        (
            "a garbage header inside a body declaring more than will come",
            [b"Content-Length: 53\r\n\n{\r\"json%on\r\"jsContent-Length: 953\r\n\n{\r\"json%\r\n\r\n".to_vec(), frame(&hover_body("107"))].concat(),
            Some(-32700),
        ),
        ("a body that is not JSON", frame("{]"), Some(-32700)),
        ("a batch", frame("[]"), Some(-32600)),
    ];
    for (what, bytes, err) in cases {
        c.write_bytes(&bytes);
        if let Some(code) = err {
            let e = c
                .wait_message(|m| m.get("error").is_some())
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(e["error"]["code"], json!(code), "{what}: {e}");
        }
        still_serving(&mut c);
    }
    // The well-framed hovers among them were answered.
    for id in [101, 102, 106, 107] {
        let _ = answer(&mut c, json!(id));
    }
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn odd_ids_get_invalid_request_with_the_id_and_the_session_goes_on() {
    let mut c = start();
    c.open(&uri("a.opal"), "x := 1\n");
    for (raw, id) in [
        ("1.5", json!(1.5)),
        ("1e300", json!(1e300)),
        ("18446744073709551616", json!(18446744073709551616.0)),
        ("true", Value::Null),
        ("[1]", Value::Null),
    ] {
        c.write_bytes(&frame(&hover_body(raw)));
        let e = c
            .wait_message(|m| m.get("error").is_some())
            .expect("an error");
        assert_eq!(e["error"]["code"], json!(-32600), "{raw}: {e}");
        assert_eq!(e["id"], id, "{raw}: {e}");
        still_serving(&mut c);
    }
    // Large ids that fit, and string ids, work.
    c.write_bytes(&frame(&hover_body("9223372036854775807")));
    assert!(answer(&mut c, json!(9223372036854775807i64))
        .get("error")
        .is_none());
    c.write_bytes(&frame(&hover_body("\"abc\"")));
    assert!(answer(&mut c, json!("abc")).get("error").is_none());
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn shutdown_accepts_empty_params_and_exit_codes_follow_the_spec() {
    // lsp-mode: `shutdown` with `params: {}`, `exit` with `params: {}` → 0.
    let mut c = start();
    let r = c.request("shutdown", json!({}));
    assert_eq!(r, Ok(Value::Null), "shutdown with {{}} params");
    c.notify("exit", json!({}));
    assert_eq!(c.wait_exit(Duration::from_secs(5)), Some(0));
    // `shutdown` with `params: null`.
    let mut c = start();
    assert_eq!(c.request("shutdown", Value::Null), Ok(Value::Null));
    c.notify("exit", Value::Null);
    assert_eq!(c.wait_exit(Duration::from_secs(5)), Some(0));
    // `exit` without `shutdown` → 1.
    let mut c = start();
    c.notify("exit", Value::Null);
    assert_eq!(c.wait_exit(Duration::from_secs(5)), Some(1));
}

#[test]
fn a_too_large_length_at_the_end_of_input_is_answered_after_a_pause() {
    let mut c = start();
    c.open(&uri("a.opal"), "x := 1\n");
    let body = hover_body("77");
    c.write_bytes(
        &[
            format!("Content-Length: {}\r\n\r\n", body.len() + 100).into_bytes(),
            body.into_bytes(),
        ]
        .concat(),
    );
    let e = answer(&mut c, json!(77));
    assert_eq!(e["error"]["code"], json!(-32700), "{e}");
    still_serving(&mut c);
    assert_eq!(c.shutdown(), Some(0));
}

/// Issue 29: two `Content-Length` headers that disagree were read with the first; a header block
/// without its blank line swallowed the message after it; a body holding a message and more
/// bytes got a parse error without its id. Each is refused with the id, or answered.
#[test]
fn disagreeing_lengths_a_header_without_its_blank_line_and_two_values_in_a_body() {
    let mut c = start();
    c.open(&uri("a.opal"), "x := 1\n");
    let body = hover_body("201");
    c.write_bytes(
        format!(
            "Content-Length: {}\r\nContent-Length: 5\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    );
    let e = answer(&mut c, json!(201));
    assert_eq!(e["error"]["code"], json!(-32700), "two lengths: {e}");
    still_serving(&mut c);
    c.write_bytes(
        &[
            b"Content-Length: 2\r\n{}".to_vec(),
            frame(&hover_body("202")),
        ]
        .concat(),
    );
    let r = answer(&mut c, json!(202));
    assert!(
        r.get("error").is_none(),
        "after a header without its blank line: {r}"
    );
    c.write_bytes(&frame(&format!(
        "{}{}",
        hover_body("203"),
        hover_body("204")
    )));
    let e = answer(&mut c, json!(203));
    assert_eq!(e["error"]["code"], json!(-32700), "two values: {e}");
    still_serving(&mut c);
    assert_eq!(c.shutdown(), Some(0));
}

/// A long program: functions, calls, and `if`s threading `stdout` (as in `opal-bench lsp`).
fn long_source(blocks: usize) -> String {
    let mut s = String::from("# A long program.\n");
    for i in 0..blocks {
        s.push_str(&format!(
            "# block {i}\nf{i} := fun (a, b):\n    c := a + b\n    ret c * 2\nx{i} := f{i} ({i}, 1)\nif x{i} > 10:\n    print (&stdout, x{i})\n"
        ));
    }
    s
}

#[test]
fn cancelled_requests_answer_request_cancelled_and_do_not_hold_up_others() {
    let mut c = start();
    let u = uri("long.opal");
    c.timeout = Duration::from_secs(120);
    let t = std::time::Instant::now();
    c.open(&u, &long_source(2_000));
    c.diagnostics(&u, Some(1)).expect("diagnostics");
    eprintln!("analysis of 14 000 lines: {:?}", t.elapsed());
    let doc = json!({"textDocument": {"uri": u}});
    let whole = json!({"textDocument": {"uri": u}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 60000, "character": 0}}});
    let mut ids = Vec::new();
    for k in 0..10 {
        ids.push(if k % 2 == 0 {
            c.request_async("textDocument/semanticTokens/full", doc.clone())
        } else {
            c.request_async("textDocument/inlayHint", whole.clone())
        });
    }
    for id in &ids {
        c.notify("$/cancelRequest", json!({"id": id}));
    }
    // A hover sent after them is answered.
    let hover = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": u}, "position": {"line": 2, "character": 1}}),
        )
        .expect("hover");
    assert!(
        hover["contents"]["value"]
            .as_str()
            .is_some_and(|v| v.contains("f0")),
        "{hover}"
    );
    for id in ids {
        let r = answer(&mut c, json!(id));
        assert_eq!(
            r["error"]["code"],
            json!(-32800),
            "request {id}: {}",
            &r.to_string()[..r.to_string().len().min(200)]
        );
    }
    // Not cancelled, the same requests complete.
    let tokens = c
        .request("textDocument/semanticTokens/full", doc)
        .expect("tokens");
    assert!(tokens["data"]
        .as_array()
        .is_some_and(|d| d.len() > 2_000 * 5));
    let hints = c.request("textDocument/inlayHint", whole).expect("hints");
    assert_eq!(
        hints.as_array().map(Vec::len),
        Some(2_000 * 4),
        "a label hint per top-level item, a `threads` hint per if"
    );
    assert_eq!(c.shutdown(), Some(0));
}

fn start_with_caps(caps: Value) -> (StdioClient, Value) {
    let mut c = StdioClient::spawn(&opal(), &["lsp"], &[]).expect("start opal lsp");
    let init = c.initialize_with(&dir_uri(), caps).expect("initialize");
    (c, init)
}

const TOUR_LIKE: &str = "# Greets.\nshout := fun s: s ++ \"!\"\ncount := 0\nfor w in [\"a\", \"b\"]:\n    count += 1\nprint (&stdout, shout \"hi\")\n";

#[test]
fn a_client_that_declares_nothing_gets_plain_text_no_snippets_flat_symbols_no_registration() {
    let (mut c, init) = start_with_caps(json!({}));
    assert_eq!(init["capabilities"]["positionEncoding"], json!("utf-16"));
    let u = uri("plain.opal");
    c.open(&u, TOUR_LIKE);
    c.diagnostics(&u, Some(1)).expect("diagnostics");
    let hover = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": u}, "position": {"line": 5, "character": 17}}),
        )
        .expect("hover");
    let completion = c
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": u}, "position": {"line": 5, "character": 0}}),
        )
        .expect("completion");
    let items = completion.as_array().cloned().unwrap_or_default();
    assert!(!items.is_empty());
    assert!(
        items.iter().all(|i| i["insertTextFormat"] != json!(2)),
        "no snippets"
    );
    assert!(
        items
            .iter()
            .all(|i| i["documentation"].is_null() || i["documentation"].is_string()),
        "plain documentation"
    );
    let symbols = c
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": u}}),
        )
        .expect("symbols");
    // No `client/registerCapability` was sent (the requests above let it arrive first).
    assert!(
        c.server_requests
            .iter()
            .all(|m| m["method"] != "client/registerCapability"),
        "{:?}",
        c.server_requests
    );
    insta::assert_snapshot!(
        "plain_client",
        serde_json::to_string_pretty(&json!({"hover": hover, "symbols": symbols}))
            .unwrap_or_default()
            .replace(&dir_uri(), "file:///FIXTURES")
    );
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn utf8_positions_when_the_client_offers_them() {
    let (mut c, init) =
        start_with_caps(json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}}));
    assert_eq!(init["capabilities"]["positionEncoding"], json!("utf-8"));
    let u = uri("utf8.opal");
    // `s` on line 1 is at byte 17 (the emoji is 4 bytes, é 2).
    c.open(&u, "s := \"é😀\"\nt := \"é😀\" ++ s\nprint (&stdout, t)\n");
    c.diagnostics(&u, Some(1)).expect("diagnostics");
    let hover = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": u}, "position": {"line": 1, "character": 17}}),
        )
        .expect("hover");
    assert_eq!(
        hover["range"],
        json!({"start": {"line": 1, "character": 17}, "end": {"line": 1, "character": 18}}),
        "{hover}"
    );
    // An edit at a byte column: after the emoji on line 0.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"range": {"start": {"line": 0, "character": 12}, "end": {"line": 0, "character": 12}}, "text": "!"}]}),
    );
    let text = c
        .request("opal/documentText", json!({"uri": u}))
        .expect("text");
    assert_eq!(
        text,
        json!("s := \"é😀!\"\nt := \"é😀\" ++ s\nprint (&stdout, t)\n")
    );
    let tokens = c
        .request(
            "textDocument/semanticTokens/full",
            json!({"textDocument": {"uri": u}}),
        )
        .expect("tokens");
    insta::assert_snapshot!(
        "utf8_positions",
        serde_json::to_string_pretty(&json!({"hover": hover, "tokens": tokens["data"]}))
            .unwrap_or_default()
    );
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn utf32_positions_when_the_client_offers_them_and_not_utf8() {
    let (mut c, init) =
        start_with_caps(json!({"general": {"positionEncodings": ["utf-32", "utf-16"]}}));
    assert_eq!(init["capabilities"]["positionEncoding"], json!("utf-32"));
    let u = uri("utf32.opal");
    // `s` on line 1 is at character 13 (the emoji is one character, two UTF-16 units).
    c.open(&u, "s := \"é😀\"\nt := \"é😀\" ++ s\nprint (&stdout, t)\n");
    c.diagnostics(&u, Some(1)).expect("diagnostics");
    let hover = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": u}, "position": {"line": 1, "character": 13}}),
        )
        .expect("hover");
    assert_eq!(
        hover["range"],
        json!({"start": {"line": 1, "character": 13}, "end": {"line": 1, "character": 14}}),
        "{hover}"
    );
    // An edit at a character column: after the emoji on line 0.
    let change = json!({"range": {"start": {"line": 0, "character": 8}, "end": {"line": 0, "character": 8}}, "text": "!"});
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [change]}),
    );
    let text = c
        .request("opal/documentText", json!({"uri": u}))
        .expect("text");
    assert_eq!(
        text,
        json!("s := \"é😀!\"\nt := \"é😀\" ++ s\nprint (&stdout, t)\n")
    );
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn editing_unclosed_calls_crlf_files_and_broken_files() {
    let mut c = start();
    let u = uri("editing.opal");
    let text = "shout := fun (s, n): s\r\nx := shout (\r\n";
    c.open(&u, text);
    c.diagnostics(&u, Some(1)).expect("diagnostics");
    let sig = c
        .request(
            "textDocument/signatureHelp",
            json!({"textDocument": {"uri": u}, "position": {"line": 1, "character": 12}}),
        )
        .expect("signature help");
    assert_eq!(
        sig["signatures"][0]["label"],
        json!("shout (s, n)"),
        "{sig}"
    );
    // A column past the end of a CRLF line is before the `\r`: on the last name of the line.
    let end = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": u}, "position": {"line": 0, "character": 99}}),
        )
        .expect("hover");
    assert_eq!(
        end["range"],
        json!({"start": {"line": 0, "character": 21}, "end": {"line": 0, "character": 22}}),
        "{end}"
    );
    let opts = json!({"tabSize": 4, "insertSpaces": true});
    // Formatting a broken file: no edits, no error.
    assert_eq!(
        c.request(
            "textDocument/formatting",
            json!({"textDocument": {"uri": u}, "options": opts})
        ),
        Ok(Value::Null)
    );
    let f = uri("crlf.opal");
    c.open(&f, "x:=1\r\nprint (&stdout,x)\r\n");
    c.diagnostics(&f, Some(1)).expect("diagnostics");
    let edits = c
        .request(
            "textDocument/formatting",
            json!({"textDocument": {"uri": f}, "options": opts}),
        )
        .expect("formatting");
    insta::assert_snapshot!(
        "crlf_formatting",
        serde_json::to_string_pretty(&edits).unwrap_or_default()
    );
    assert!(
        edits.to_string().contains("\\r\\n")
            && !edits.to_string().replace("\\r\\n", "").contains("\\n"),
        "{edits}"
    );
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn workspace_symbols_come_from_an_index_updated_by_watched_file_events() {
    let dir = std::env::temp_dir().join(format!("opal-lsp-index-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("a.opal");
    std::fs::write(&file, "alpha := 1\n").expect("write");
    let root = format!("file://{}", dir.display());
    let mut c = StdioClient::spawn(&opal(), &["lsp"], &[]).expect("start");
    c.initialize(&root).expect("initialize");
    let names = |c: &mut StdioClient, q: &str| -> Vec<String> {
        let r = c
            .request("workspace/symbol", json!({"query": q}))
            .expect("symbols");
        r.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s["name"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(names(&mut c, "alpha"), vec!["alpha"]);
    // The client offered dynamic registration: the server asked it to watch OPAL and world files.
    for _ in 0..50 {
        if !c.server_requests.is_empty() {
            break;
        }
        names(&mut c, "alpha");
    }
    let globs: Vec<&Value> = c
        .server_requests
        .iter()
        .filter(|m| m["method"] == "client/registerCapability")
        .flat_map(|m| {
            m["params"]["registrations"][0]["registerOptions"]["watchers"]
                .as_array()
                .into_iter()
                .flatten()
        })
        .map(|w| &w["globPattern"])
        .collect();
    assert_eq!(
        globs,
        [&json!("**/*.world.toml"), &json!("**/*.opal")],
        "{:?}",
        c.server_requests
    );
    // The disk changes: the index does not re-read it until the client says so.
    std::fs::write(&file, "beta := 1\n").expect("write");
    assert_eq!(
        names(&mut c, "beta"),
        Vec::<String>::new(),
        "not re-read from disk on every request"
    );
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": format!("{root}/a.opal"), "type": 2}]}),
    );
    assert_eq!(names(&mut c, "beta"), vec!["beta"]);
    // Read once for that event, not again on every later request.
    std::fs::write(&file, "omega := 1\n").expect("write");
    assert_eq!(
        names(&mut c, "beta"),
        vec!["beta"],
        "re-read without a new event"
    );
    assert_eq!(names(&mut c, "omega"), Vec::<String>::new());
    // A file written by the editor is read again when it is saved, and when it is closed, even
    // if no file event follows.
    let a = format!("{root}/a.opal");
    c.open(&a, "beta := 1\n");
    std::fs::write(&file, "gamma := 1\n").expect("write");
    c.notify("textDocument/didSave", json!({"textDocument": {"uri": a}}));
    // Open documents answer from their own text; the saved file is read for the index.
    assert_eq!(names(&mut c, "beta"), vec!["beta"]);
    c.notify("textDocument/didClose", json!({"textDocument": {"uri": a}}));
    assert_eq!(names(&mut c, "gamma"), vec!["gamma"]);
    // A save alone (of a file the index answers for) is enough.
    std::fs::write(dir.join("b.opal"), "kappa := 1\n").expect("write");
    assert_eq!(
        names(&mut c, "kappa"),
        Vec::<String>::new(),
        "a new file without an event"
    );
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": format!("{root}/b.opal")}}),
    );
    assert_eq!(names(&mut c, "kappa"), vec!["kappa"]);
    c.open(&a, "gamma := 1\n");
    std::fs::write(&file, "delta := 1\n").expect("write");
    c.notify("textDocument/didClose", json!({"textDocument": {"uri": a}}));
    assert_eq!(names(&mut c, "delta"), vec!["delta"]);
    std::fs::remove_file(&file).expect("remove");
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": a, "type": 3}]}),
    );
    assert_eq!(names(&mut c, "delta"), Vec::<String>::new());
    assert_eq!(c.shutdown(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A client that cannot watch files for the server (ALE, some Neovim setups) still sees files
/// created, changed and deleted on disk: the index compares modification times.
#[test]
fn workspace_symbols_follow_the_disk_for_a_client_that_does_not_watch() {
    let dir = std::env::temp_dir().join(format!("opal-lsp-index-nowatch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).expect("temp dir");
    std::fs::write(dir.join("a.opal"), "alpha := 1\n").expect("write");
    let root = format!("file://{}", dir.display());
    let mut c = StdioClient::spawn(&opal(), &["lsp"], &[]).expect("start");
    c.initialize_with(&root, json!({})).expect("initialize");
    let names = |c: &mut StdioClient, q: &str| -> Vec<String> {
        let r = c
            .request("workspace/symbol", json!({"query": q}))
            .expect("symbols");
        let mut v: Vec<String> = r
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s["name"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };
    assert_eq!(names(&mut c, "a"), vec!["alpha"]);
    std::fs::write(dir.join("sub/b.opal"), "alphabet := 2\n").expect("write");
    assert_eq!(names(&mut c, "a"), vec!["alpha", "alphabet"], "a new file");
    // Modification time and length both change (either one is enough).
    std::fs::write(dir.join("a.opal"), "aardvark := 1\n").expect("write");
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(dir.join("a.opal"))
        .and_then(|f| f.set_modified(later))
        .expect("touch");
    assert_eq!(
        names(&mut c, "a"),
        vec!["aardvark", "alphabet"],
        "a changed file"
    );
    std::fs::remove_file(dir.join("sub/b.opal")).expect("remove");
    assert_eq!(names(&mut c, "a"), vec!["aardvark"], "a deleted file");
    assert_eq!(c.shutdown(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn declaration_linked_editing_call_hierarchy_pull_diagnostics_and_token_ranges() {
    let mut c = start();
    let u = uri("more.opal");
    let src = "double := fun x: x * 2\nquad := fun x:\n    y := double x\n    ret double y\nunused := 1\nprint (&stdout, quad 3)\n";
    c.open(&u, src);
    c.diagnostics(&u, Some(1)).expect("diagnostics");
    let at = |line: u32, character: u32| json!({"textDocument": {"uri": u}, "position": {"line": line, "character": character}});
    let declaration = c
        .request("textDocument/declaration", at(2, 10))
        .expect("declaration");
    let linked = c
        .request("textDocument/linkedEditingRange", at(2, 4))
        .expect("linked editing");
    let prepared = c
        .request("textDocument/prepareCallHierarchy", at(0, 1))
        .expect("prepare");
    let item = prepared[0].clone();
    let incoming = c
        .request("callHierarchy/incomingCalls", json!({"item": item}))
        .expect("incoming");
    let quad = c
        .request("textDocument/prepareCallHierarchy", at(1, 1))
        .expect("prepare quad");
    let outgoing = c
        .request("callHierarchy/outgoingCalls", json!({"item": quad[0]}))
        .expect("outgoing");
    let pulled = c
        .request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": u}}),
        )
        .expect("pull diagnostics");
    let range = c
        .request(
            "textDocument/semanticTokens/range",
            json!({"textDocument": {"uri": u}, "range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 11}}}),
        )
        .expect("token range");
    let hints = c
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": u}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}}),
        )
        .expect("hints");
    assert!(
        hints
            .as_array()
            .is_some_and(|h| !h.is_empty() && h.iter().all(|x| x.get("tooltip").is_none())),
        "tooltips come with resolve: {hints}"
    );
    let resolved = c
        .request("inlayHint/resolve", hints[0].clone())
        .expect("resolve");
    assert!(
        resolved["tooltip"]
            .as_str()
            .is_some_and(|t| t.contains("SEMANTICS.md")),
        "{resolved}"
    );
    insta::assert_snapshot!(
        "more_capabilities",
        serde_json::to_string_pretty(&json!({
            "declaration of double": declaration, "linked editing of y": linked, "prepare double": prepared,
            "incoming to double": incoming, "outgoing from quad": outgoing, "pull diagnostics": pulled, "tokens of line 5": range,
            "first inlay hint, resolved": resolved
        }))
        .unwrap_or_default()
        .replace(&dir_uri(), "file:///FIXTURES")
    );
    assert_eq!(c.shutdown(), Some(0));
}

/// A client that pulls diagnostics (VS Code's languageclient) is offered pull diagnostics and
/// gets no pushed ones for programs, so it does not list each diagnostic twice; it can pull a
/// document's and the workspace's.
#[test]
fn a_pulling_client_gets_each_diagnostic_once() {
    let mut c = StdioClient::spawn(&opal(), &["lsp"], &[]).expect("spawn opal lsp");
    let caps = json!({
        "textDocument": {"diagnostic": {"dynamicRegistration": false}, "publishDiagnostics": {}},
        "workspace": {"diagnostics": {"refreshSupport": true}}
    });
    let init = c.initialize_with(&dir_uri(), caps).expect("initialize");
    assert_eq!(
        init["capabilities"]["diagnosticProvider"]["workspaceDiagnostics"],
        json!(true),
        "{init}"
    );
    let u = uri("pulled.opal");
    c.open(&u, "x := nope\n");
    let pulled = c
        .request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": u}}),
        )
        .expect("pull");
    assert!(
        pulled["items"]
            .as_array()
            .is_some_and(|i| i.iter().any(|d| d["code"] == "E0100")),
        "{pulled}"
    );
    let workspace = c
        .request("workspace/diagnostic", json!({"previousResultIds": []}))
        .expect("workspace pull");
    assert!(
        workspace["items"]
            .as_array()
            .is_some_and(|i| i.len() == 1 && i[0]["uri"] == json!(u)),
        "{workspace}"
    );
    insta::assert_snapshot!(
        "pulled_diagnostics",
        serde_json::to_string_pretty(&json!({"document": pulled, "workspace": workspace}))
            .unwrap_or_default()
            .replace(&dir_uri(), "file:///FIXTURES")
    );
    // Nothing is pushed for the program (a hover answers long after the debounce).
    std::thread::sleep(std::time::Duration::from_millis(300));
    let hover = c.request_async(
        "textDocument/hover",
        json!({"textDocument": {"uri": u}, "position": {"line": 0, "character": 0}}),
    );
    loop {
        let m = c.next_message().expect("message");
        assert_ne!(
            m["method"], "textDocument/publishDiagnostics",
            "pushed to a pulling client: {m}"
        );
        if m["id"] == json!(hover) {
            break;
        }
    }
    // Nor among the notifications that arrived while the requests above waited.
    assert!(
        c.notifications
            .iter()
            .all(|m| m["method"] != "textDocument/publishDiagnostics"),
        "{:?}",
        c.notifications
    );
    assert_eq!(c.shutdown(), Some(0));
}

/// Document links (files named by strings, externs' mocks in the world file), indentation after
/// Enter, and `workspace/executeCommand`.
#[test]
fn document_links_on_type_formatting_and_commands() {
    let mut c = start();
    // A program beside `tour.world.toml` (its world file), naming a file that exists.
    let u = uri("tour.opal");
    let src = "extern get_cities_in, get_excursions_in\nnotes := \"broken.opal\"\nshout := fun x:\n\n    ret x\nprint (&stdout, shout notes)\nstdout := print (stdout, notes)\n";
    c.open(&u, src);
    c.diagnostics(&u, Some(1)).expect("diagnostics");
    let links = c
        .request(
            "textDocument/documentLink",
            json!({"textDocument": {"uri": u}}),
        )
        .expect("links");
    let on_enter = c
        .request(
            "textDocument/onTypeFormatting",
            json!({"textDocument": {"uri": u}, "position": {"line": 3, "character": 0}, "ch": "\n", "options": {"tabSize": 4, "insertSpaces": true}}),
        )
        .expect("on type formatting");
    let desugared = c
        .request(
            "workspace/executeCommand",
            json!({"command": "opal.server.desugar", "arguments": [u]}),
        )
        .expect("command");
    assert!(
        desugared.as_str().is_some_and(|t| t.contains("notes")),
        "the desugared core: {desugared}"
    );
    // Refactors on `print (&stdout, shout notes)` with `shout notes` selected.
    let actions = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": u}, "range": {"start": {"line": 5, "character": 16}, "end": {"line": 5, "character": 27}}, "context": {"diagnostics": []}}),
        )
        .expect("code actions");
    let titles: Vec<(String, String)> = actions
        .as_array()
        .map(|xs| {
            xs.iter()
                .map(|x| {
                    (
                        x["kind"].as_str().unwrap_or_default().to_string(),
                        x["title"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let only_inline = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": u}, "range": {"start": {"line": 5, "character": 16}, "end": {"line": 5, "character": 27}}, "context": {"diagnostics": [], "only": ["refactor.inline"]}}),
        )
        .expect("code actions");
    assert_eq!(only_inline, json!([]), "`only` filters by kind");
    let action_at = |c: &mut StdioClient, line: u32, from: u32, to: u32| {
        let range = json!({"start": {"line": line, "character": from}, "end": {"line": line, "character": to}});
        c.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": u}, "range": range, "context": {"diagnostics": []}}),
        )
        .expect("code actions")
    };
    // Inline `notes` (its binder), and the threaded `stdout := print (stdout, notes)` back to `&stdout`.
    let inline = action_at(&mut c, 1, 0, 5);
    let back = action_at(&mut c, 6, 0, 6);
    let unknown = c.request(
        "workspace/executeCommand",
        json!({"command": "opal.nothing", "arguments": []}),
    );
    assert!(
        unknown.is_err(),
        "an unknown command is an error: {unknown:?}"
    );
    insta::assert_snapshot!(
        "links_and_on_type",
        serde_json::to_string_pretty(&json!({
            "document links": links, "Enter after `shout := fun x:`": on_enter, "refactors on `shout notes`": titles,
            "actions on `shout notes`": actions, "actions on the binder `notes`": inline, "actions on `stdout := print (stdout, notes)`": back,
            "executeCommand opal.server.desugar": desugared
        }))
        .unwrap_or_default()
        .replace(&dir_uri(), "file:///FIXTURES")
    );
    assert_eq!(c.shutdown(), Some(0));
}

/// A client that resolves completion documentation (VS Code) gets the list without it and
/// each item's documentation from `completionItem/resolve`: a binding's doc comment, an
/// external's doc; a client that does not gets it inline.
#[test]
fn completion_documentation_comes_with_resolve_when_the_client_asks() {
    let caps = json!({"textDocument": {"completion": {"completionItem": {
        "documentationFormat": ["markdown"], "resolveSupport": {"properties": ["documentation", "detail"]}
    }}}});
    let mut c = StdioClient::spawn(&opal(), &["lsp"], &[]).expect("start");
    c.initialize_with(&dir_uri(), caps).expect("initialize");
    let u = uri("resolve.opal");
    c.open(
        &u,
        "x := 1\n# How many cities to visit.\ncount := 3\nprint (&stdout, cou)\n",
    );
    let at = json!({"textDocument": {"uri": u}, "position": {"line": 3, "character": 19}});
    let list = c
        .request("textDocument/completion", at.clone())
        .expect("completion");
    let items = list
        .as_array()
        .cloned()
        .or_else(|| list["items"].as_array().cloned())
        .unwrap_or_default();
    assert!(
        items.iter().all(|i| i.get("documentation").is_none()),
        "no documentation in the list: {list}"
    );
    let count = items
        .iter()
        .find(|i| i["label"] == "count")
        .cloned()
        .expect("count is offered");
    let resolved = c.request("completionItem/resolve", count).expect("resolve");
    assert_eq!(
        resolved["documentation"]["value"],
        json!("How many cities to visit."),
        "{resolved}"
    );
    insta::assert_snapshot!(
        "completion_resolve",
        serde_json::to_string_pretty(&resolved)
            .unwrap_or_default()
            .replace(&dir_uri(), "file:///FIXTURES")
    );
    let at_pri = json!({"textDocument": {"uri": u}, "position": {"line": 3, "character": 3}});
    let list = c
        .request("textDocument/completion", at_pri)
        .expect("completion");
    let items = list
        .as_array()
        .cloned()
        .or_else(|| list["items"].as_array().cloned())
        .unwrap_or_default();
    let print = items
        .iter()
        .find(|i| i["label"] == "print")
        .cloned()
        .expect("print is offered");
    let resolved = c.request("completionItem/resolve", print).expect("resolve");
    assert!(
        resolved["documentation"]["value"]
            .as_str()
            .is_some_and(|d| d.contains("external")),
        "{resolved}"
    );
    assert_eq!(c.shutdown(), Some(0));
    // The default client (no resolveSupport): documentation inline.
    let mut c = start();
    c.open(
        &u,
        "x := 1\n# How many cities to visit.\ncount := 3\nprint (&stdout, cou)\n",
    );
    let list = c
        .request("textDocument/completion", at)
        .expect("completion");
    let items = list
        .as_array()
        .cloned()
        .or_else(|| list["items"].as_array().cloned())
        .unwrap_or_default();
    let count = items
        .iter()
        .find(|i| i["label"] == "count")
        .expect("count is offered");
    assert_eq!(
        count["documentation"]["value"],
        json!("How many cities to visit."),
        "{count}"
    );
    assert_eq!(c.shutdown(), Some(0));
}

/// Whole-file tokens, hints and symbols are written by the server itself and spliced into their
/// answers (lsp/src/splice.rs): the client gets the same answers for any document URI, however
/// long, and never a stand-in.
#[test]
fn whole_file_answers_are_the_same_for_any_uri_and_never_a_stand_in() {
    for caps in [
        json!({}),
        json!({"textDocument": {"documentSymbol": {"hierarchicalDocumentSymbolSupport": true}}}),
    ] {
        let (mut c, _) = start_with_caps(caps);
        let short = uri("splice.opal");
        let long = format!(
            "{}/{}splice.opal",
            dir_uri(),
            "a-directory-with-a-long-name/".repeat(60)
        );
        let mut answers = Vec::new();
        for u in [&short, &long] {
            c.open(u, TOUR_LIKE);
            c.diagnostics(u, Some(1)).expect("diagnostics");
            let doc = json!({"textDocument": {"uri": u}});
            let whole = json!({"textDocument": {"uri": u}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 99, "character": 0}}});
            let got = json!({
                "tokens": c.request("textDocument/semanticTokens/full", doc.clone()).expect("tokens")["data"],
                "hints": c.request("textDocument/inlayHint", whole).expect("hints"),
                "symbols": c.request("textDocument/documentSymbol", doc).expect("symbols"),
            });
            let text = got.to_string();
            assert!(
                !text.contains("opal-splice"),
                "a stand-in reached the client: {text}"
            );
            answers.push(text.replace(u.as_str(), "URI"));
        }
        assert_eq!(answers[0], answers[1]);
        assert!(
            answers[0].contains("\"shout\"") && answers[0].contains("@1"),
            "{}",
            answers[0]
        );
        assert_eq!(c.shutdown(), Some(0));
    }
}

/// LSP counts `\n`, `\r\n` and a lone `\r` as line breaks, and so does OPAL (LANGUAGE.md is
/// silent; Python reads all three): a file with lone `\r`s (Neovim's `fileformat=mac`) is
/// checked, edited and formatted on the lines the editor shows.
#[test]
fn a_file_with_lone_cr_line_breaks_is_on_the_lines_the_editor_shows() {
    let mut c = start();
    let u = uri("cr.opal");
    c.open(&u, "x:=1\rlengths := x\rprint (&stdout, x)\r");
    let d = c.diagnostics(&u, Some(1)).expect("diagnostics");
    let w = &d[0];
    assert_eq!(
        (&w["code"], &w["range"]["start"]),
        (&json!("W0001"), &json!({"line": 1, "character": 0})),
        "{d}"
    );
    // An edit on line 2, then a hover past the end of line 1: before its `\r`, on `x`.
    let change = json!({"range": {"start": {"line": 2, "character": 16}, "end": {"line": 2, "character": 17}}, "text": "lengths"});
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [change]}),
    );
    let d = c.diagnostics(&u, Some(2)).expect("diagnostics");
    assert_eq!(d, json!([]), "both names used now: {d}");
    let hover = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": u}, "position": {"line": 1, "character": 99}}),
        )
        .expect("hover");
    assert_eq!(
        hover["range"],
        json!({"start": {"line": 1, "character": 11}, "end": {"line": 1, "character": 12}}),
        "{hover}"
    );
    let opts = json!({"tabSize": 4, "insertSpaces": true});
    let edits = c
        .request(
            "textDocument/formatting",
            json!({"textDocument": {"uri": u}, "options": opts}),
        )
        .expect("formatting");
    let text = c
        .request("opal/documentText", json!({"uri": u}))
        .expect("text");
    assert_eq!(
        text,
        json!("x:=1\rlengths := x\rprint (&stdout, lengths)\r")
    );
    assert_eq!(
        edits,
        json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 4}}, "newText": "x := 1"}])
    );
    assert_eq!(c.shutdown(), Some(0));
}

/// A request whose document changes while it works answers ContentModified (-32801), and the
/// work stops (each whole-file feature); one cancelled while it works answers RequestCancelled (-32800). The feature is
/// made to stall (`OPAL_LSP_TEST_STALL`: a minute, checking for both, logging when it stops)
/// so the change and the cancellation land while it runs.
#[test]
fn work_on_a_changed_document_answers_content_modified() {
    let heavy = "inlayHint (range),semanticTokens/full,documentSymbol,references,formatting";
    let mut c =
        StdioClient::spawn(&opal(), &["lsp"], &[("OPAL_LSP_TEST_STALL", heavy)]).expect("start");
    c.initialize(&dir_uri()).expect("initialize");
    let u = uri("stall.opal");
    c.open(&u, TOUR_LIKE);
    c.diagnostics(&u, Some(1)).expect("diagnostics");
    let doc = json!({"textDocument": {"uri": u}});
    let at = json!({"textDocument": {"uri": u}, "position": {"line": 1, "character": 0}, "context": {"includeDeclaration": true}});
    let range = json!({"textDocument": {"uri": u}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}});
    let format =
        json!({"textDocument": {"uri": u}, "options": {"tabSize": 4, "insertSpaces": true}});
    let requests = [
        ("textDocument/inlayHint", range.clone()),
        ("textDocument/semanticTokens/full", doc.clone()),
        ("textDocument/documentSymbol", doc),
        ("textDocument/references", at),
        ("textDocument/formatting", format),
    ];
    // The stalled work logs when it stops (which it does only when the change or the
    // cancellation reaches it: otherwise after a minute, past the client's 20-second wait).
    let stopped = |c: &mut StdioClient, what: &str| {
        let line = format!("opal lsp: stalled {what} stopped");
        c.wait_message(|m| {
            m["method"] == "window/logMessage" && m["params"]["message"] == json!(line)
        })
        .map(|_| ())
    };
    for ((version, (method, params)), what) in (2..).zip(requests).zip(heavy.split(',')) {
        let id = c.request_async(method, params);
        std::thread::sleep(Duration::from_millis(200));
        let change = json!({"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "# edited\n"});
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": version}, "contentChanges": [change]}),
        );
        let r = answer(&mut c, json!(id));
        assert_eq!(r["error"]["code"], json!(-32801), "{method}: {r}");
        assert_eq!(stopped(&mut c, what), Ok(()), "{method}");
    }
    let id = c.request_async("textDocument/inlayHint", range);
    std::thread::sleep(Duration::from_millis(200));
    c.notify("$/cancelRequest", json!({"id": id}));
    assert_eq!(answer(&mut c, json!(id))["error"]["code"], json!(-32800));
    assert_eq!(
        stopped(&mut c, "inlayHint (range)"),
        Ok(()),
        "the cancelled work stopped"
    );
    assert_eq!(c.shutdown(), Some(0));
}

/// More matching names than a completion list holds: an incomplete list of the best 200, so
/// the client asks again as the user types. Formatting a broken file: no edits, and a log line
/// saying why.
#[test]
fn long_completion_lists_are_incomplete_and_broken_files_are_not_formatted() {
    let mut c = start();
    let u = uri("many.opal");
    let text: String = (0..300)
        .map(|i| format!("item{i} := {i}\n"))
        .collect::<String>()
        + "x := it";
    c.open(&u, &text);
    c.diagnostics(&u, Some(1)).expect("diagnostics");
    let list = c
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": u}, "position": {"line": 300, "character": 7}}),
        )
        .expect("completion");
    assert_eq!(
        (
            &list["isIncomplete"],
            list["items"].as_array().map(Vec::len)
        ),
        (&json!(true), Some(200))
    );
    let b = uri("broken.opal");
    c.open(&b, "x := (\n");
    c.diagnostics(&b, Some(1)).expect("diagnostics");
    let opts = json!({"tabSize": 4, "insertSpaces": true});
    assert_eq!(
        c.request(
            "textDocument/formatting",
            json!({"textDocument": {"uri": b}, "options": opts})
        ),
        Ok(Value::Null)
    );
    let log = c.wait_message(|m| {
        m["method"] == "window/logMessage"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|t| t.contains("not formatting"))
    });
    assert!(log.is_ok_and(|m| m["params"]["message"]
        .as_str()
        .is_some_and(|t| t.contains("syntax errors"))));
    assert_eq!(c.shutdown(), Some(0));
}

/// Issue 29: a `didChange` whose text cannot be decoded (a lone surrogate escape) is never
/// applied in part nor dropped in silence: the user is told, the document's one diagnostic says
/// it is out of sync, later incremental edits are refused (no diagnostics for text the editor
/// does not have), and the whole text sent again repairs it.
#[test]
fn undecodable_text_marks_the_document_out_of_sync_until_the_whole_text_comes() {
    let mut c = start();
    let u = uri("sync.opal");
    c.open(&u, "x := 1\nprint (&stdout, x)\n");
    c.diagnostics(&u, Some(1)).expect("diagnostics");
    let bad = format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didChange","params":{{"textDocument":{{"uri":"{u}","version":2}},"contentChanges":[{{"range":{{"start":{{"line":0,"character":0}},"end":{{"line":0,"character":0}}}},"text":"\ud800"}}]}}}}"#
    );
    c.send_raw(bad.as_bytes());
    let shown = c
        .wait_message(|m| m["method"] == "window/showMessage")
        .expect("a message the user sees");
    assert_eq!(shown["params"]["type"], json!(1), "an error: {shown}");
    assert!(
        shown["params"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("out of sync")),
        "{shown}"
    );
    let d = c
        .diagnostics(&u, Some(2))
        .expect("the out-of-sync diagnostic");
    assert!(
        d[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("reopen")),
        "{d}"
    );
    // An incremental edit now would land on the wrong text: refused, and nothing analysed.
    let edit = json!({"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 5}}, "text": "oops"});
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 3}, "contentChanges": [edit]}),
    );
    let refused = c
        .wait_message(|m| {
            m["method"] == "window/logMessage"
                && m["params"]["message"]
                    .as_str()
                    .is_some_and(|t| t.contains("refused"))
        })
        .expect("refused");
    assert!(
        refused["params"]["message"]
            .as_str()
            .is_some_and(|t| t.contains("sync.opal")),
        "{refused}"
    );
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": u}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(hover, Ok(Value::Null), "no answer about stale text");
    // The whole text repairs it: diagnostics of the new text (an unbound name), version 4.
    let whole = json!({"text": "x := 1\nprint (&stdout, y)\n"});
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 4}, "contentChanges": [whole]}),
    );
    let d = c.diagnostics(&u, Some(4)).expect("diagnostics again");
    let unbound = d.as_array().into_iter().flatten().any(|d| {
        d["message"]
            .as_str()
            .is_some_and(|m| m.contains("unbound name `y`"))
    });
    assert!(unbound, "{d}");
    assert_eq!(c.shutdown(), Some(0));
}
