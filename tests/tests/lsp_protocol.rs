//! Issue 19: `opal lsp` against raw bytes and unusual clients. The real binary over stdio;
//! every test ends with a request that must still be answered. Clients' capabilities are in
//! `lsp_clients.rs`, editing and navigation in `lsp_editing.rs`.

mod lsp_common;

use lsp_common::*;
use opal_e2e::opal;
use opal_lsp::client::StdioClient;
use serde_json::{json, Value};
use std::time::Duration;

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
