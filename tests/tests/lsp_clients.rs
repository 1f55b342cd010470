//! `opal lsp` and what a client declares: position encodings, plain text or snippets, flat or
//! nested symbols, pulled diagnostics, completion documentation resolved or inline.

mod lsp_common;

use lsp_common::*;
use opal_e2e::opal;
use opal_lsp::client::StdioClient;
use serde_json::{json, Value};

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
    c.open(&u, WITH_A_DOC_COMMENT);
    let at = json!({"textDocument": {"uri": u}, "position": {"line": 3, "character": 19}});
    let (list, items) = completion(&mut c, at);
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
    let (_, items) = completion(&mut c, at_pri);
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
}

/// The default client (no resolveSupport): documentation inline.
#[test]
fn completion_documentation_is_inline_when_the_client_does_not_resolve() {
    let mut c = start();
    let u = uri("resolve.opal");
    c.open(&u, WITH_A_DOC_COMMENT);
    let at = json!({"textDocument": {"uri": u}, "position": {"line": 3, "character": 19}});
    let (_, items) = completion(&mut c, at);
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

/// A document completed at line 3, column 19 (`cou`), where `count` has a doc comment.
const WITH_A_DOC_COMMENT: &str =
    "x := 1\n# How many cities to visit.\ncount := 3\nprint (&stdout, cou)\n";

/// The completion answer at `at`, and its items whether it is a list or a `CompletionList`.
fn completion(c: &mut StdioClient, at: Value) -> (Value, Vec<Value>) {
    let list = c
        .request("textDocument/completion", at)
        .expect("completion");
    let items = list
        .as_array()
        .cloned()
        .or_else(|| list["items"].as_array().cloned())
        .unwrap_or_default();
    (list, items)
}
