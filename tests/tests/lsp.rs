//! Protocol tests: start the real `opal lsp` and talk JSON-RPC over stdio, one feature per
//! test, answers snapshotted. Fixtures are in `tests/lsp/`.

use opal_e2e::{opal, root};
use opal_lsp::client::StdioClient;
use serde_json::{json, Value};

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

fn fixture(name: &str) -> String {
    std::fs::read_to_string(root().join("tests/lsp").join(name)).expect("fixture")
}

fn start() -> StdioClient {
    start_with_env(&[])
}

fn start_with_env(env: &[(&str, &str)]) -> StdioClient {
    let mut c = StdioClient::spawn(&opal(), &["lsp", "--stdio"], env).expect("start opal lsp");
    c.initialize(&dir_uri()).expect("initialize");
    c
}

/// Opens a fixture and waits for its first diagnostics.
fn open(c: &mut StdioClient, name: &str) -> (String, Value) {
    let u = uri(name);
    c.open(&u, &fixture(name));
    let d = c.diagnostics(&u, Some(1)).expect("diagnostics");
    (u, d)
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v)
        .expect("json")
        .replace(&dir_uri(), "file:///FIXTURES")
}

fn at(u: &str, line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": u}, "position": {"line": line, "character": character}})
}

fn whole(u: &str) -> Value {
    json!({"textDocument": {"uri": u}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1000, "character": 0}}})
}

#[test]
fn initialize_announces_every_feature() {
    let mut c = StdioClient::spawn(&opal(), &["lsp"], &[]).expect("start");
    let r = c.initialize(&dir_uri()).expect("initialize");
    insta::assert_snapshot!("initialize", pretty(&r));
    assert_eq!(
        c.shutdown(),
        Some(0),
        "the server exits with 0 after shutdown and exit"
    );
}

#[test]
fn diagnostics_carry_codes_help_related_information_and_docs_links() {
    let mut c = start();
    let (_, tour) = open(&mut c, "tour.opal");
    let (_, broken) = open(&mut c, "broken.opal");
    insta::assert_snapshot!(
        "diagnostics",
        pretty(&json!({"tour.opal": tour, "broken.opal": broken}))
    );
}

#[test]
fn hover_says_what_each_name_is() {
    let mut c = start();
    let (u, _) = open(&mut c, "tour.opal");
    let mut out = serde_json::Map::new();
    for (what, line, col) in [
        ("user function (use)", 9, 21),
        ("parameter", 4, 28),
        ("binding with its desugared core", 6, 1),
        ("prelude function", 11, 12),
        ("standard external", 9, 5),
        ("handle", 9, 12),
        ("extern with its world entry", 5, 12),
        ("keyword", 7, 1),
        ("nothing (blank line)", 2, 0),
    ] {
        out.insert(
            what.into(),
            c.request("textDocument/hover", at(&u, line, col))
                .expect("hover"),
        );
    }
    insta::assert_snapshot!("hover", pretty(&Value::Object(out)));
}

#[test]
fn definition_references_and_highlights() {
    let mut c = start();
    let (u, _) = open(&mut c, "tour.opal");
    let def = c
        .request("textDocument/definition", at(&u, 9, 21))
        .expect("definition");
    assert_eq!(
        def["range"]["start"],
        json!({"line": 4, "character": 0}),
        "shout is defined on line 5"
    );
    let mut refs = at(&u, 4, 1);
    refs["context"] = json!({"includeDeclaration": true});
    let references = c
        .request("textDocument/references", refs)
        .expect("references");
    let highlights = c
        .request("textDocument/documentHighlight", at(&u, 6, 0))
        .expect("highlight");
    let prelude = c
        .request("textDocument/definition", at(&u, 11, 12))
        .expect("definition of a prelude name");
    insta::assert_snapshot!(
        "navigation",
        pretty(
            &json!({"definition of shout": def, "references to shout": references, "highlights of count": highlights, "definition of map": prelude})
        )
    );
}

#[test]
fn rename_honours_scopes_and_refuses_collisions_and_keywords() {
    let mut c = start();
    let (u, _) = open(&mut c, "tour.opal");
    let prepare = c
        .request("textDocument/prepareRename", at(&u, 4, 2))
        .expect("prepare");
    let prepare_print = c
        .request("textDocument/prepareRename", at(&u, 9, 5))
        .expect_err("print cannot be renamed");
    let mut p = at(&u, 4, 2);
    p["newName"] = json!("exclaim");
    let ok = c.request("textDocument/rename", p.clone()).expect("rename");
    p["newName"] = json!("count");
    let collision = c
        .request("textDocument/rename", p.clone())
        .expect_err("count is in scope where shout is used");
    p["newName"] = json!("for");
    let keyword = c
        .request("textDocument/rename", p.clone())
        .expect_err("keyword");
    p["newName"] = json!("9lives");
    let not_a_name = c.request("textDocument/rename", p).expect_err("not a name");
    insta::assert_snapshot!(
        "rename",
        pretty(
            &json!({"prepare shout": prepare, "prepare print": prepare_print, "shout -> exclaim": ok, "shout -> count": collision, "shout -> for": keyword, "shout -> 9lives": not_a_name})
        )
    );
}

#[test]
fn document_and_workspace_symbols() {
    let mut c = start();
    let (u, _) = open(&mut c, "tour.opal");
    let doc = c
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": u}}),
        )
        .expect("symbols");
    let ws = c
        .request("workspace/symbol", json!({"query": "shout"}))
        .expect("workspace symbols");
    insta::assert_snapshot!(
        "symbols",
        pretty(&json!({"document": doc, "workspace 'shout'": ws}))
    );
}

#[test]
fn completion_knows_the_scope_at_the_cursor() {
    let mut c = start();
    let (u, _) = open(&mut c, "tour.opal");
    let items = c
        .request("textDocument/completion", at(&u, 9, 4))
        .expect("completion");
    let items = items.as_array().expect("a list");
    let scope: Vec<String> = items
        .iter()
        .filter(|i| i["sortText"].as_str().is_some_and(|s| s.starts_with('0')))
        .map(|i| {
            format!(
                "{} ({})",
                i["label"].as_str().unwrap_or(""),
                i["detail"].as_str().unwrap_or("")
            )
        })
        .collect();
    let has = |l: &str| items.iter().any(|i| i["label"] == l);
    assert!(
        has("map") && has("print") && has("stdout") && has("for") && has("while"),
        "prelude, externals, handles, keywords, snippets"
    );
    let snippet = items
        .iter()
        .find(|i| i["label"] == "for" && i["kind"] == 15)
        .expect("a `for` snippet");
    let top = c
        .request("textDocument/completion", at(&u, 5, 0))
        .expect("completion at top level");
    let top_scope: Vec<&str> = top
        .as_array()
        .expect("list")
        .iter()
        .filter(|i| i["sortText"].as_str().is_some_and(|s| s.starts_with('0')))
        .filter_map(|i| i["label"].as_str())
        .collect();
    let in_comment = c
        .request("textDocument/completion", at(&u, 0, 5))
        .expect("completion in a comment");
    insta::assert_snapshot!(
        "completion",
        pretty(
            &json!({"in the loop body": scope, "before `cities`": top_scope, "for snippet": snippet, "in a comment": in_comment})
        )
    );
}

#[test]
fn signature_help_for_user_functions_and_externals() {
    let mut c = start();
    let (u, _) = open(&mut c, "tour.opal");
    let user = c
        .request("textDocument/signatureHelp", at(&u, 9, 38))
        .expect("signature help");
    let ext = c
        .request("textDocument/signatureHelp", at(&u, 9, 12))
        .expect("signature help");
    let prelude = c
        .request("textDocument/signatureHelp", at(&u, 11, 18))
        .expect("signature help");
    insta::assert_snapshot!(
        "signature_help",
        pretty(
            &json!({"shout, second argument": user, "print, first argument": ext, "map": prelude})
        )
    );
}

#[test]
fn formatting_whole_documents_and_ranges() {
    let mut c = start();
    let u = uri("messy.opal");
    c.open(&u, "x:=1\nf := fun (a,b):   a+b\nprint (&stdout,f (x,x))\n");
    c.diagnostics(&u, Some(1)).expect("diagnostics");
    let opts = json!({"tabSize": 4, "insertSpaces": true});
    let all = c
        .request(
            "textDocument/formatting",
            json!({"textDocument": {"uri": u}, "options": opts}),
        )
        .expect("format");
    let range = c
        .request(
            "textDocument/rangeFormatting",
            json!({"textDocument": {"uri": u}, "options": opts, "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 3}}}),
        )
        .expect("range format");
    let (b, _) = open(&mut c, "broken.opal");
    // A file with syntax errors gets no edits (null), not an error (shown on every save).
    let refused = c
        .request(
            "textDocument/formatting",
            json!({"textDocument": {"uri": b}, "options": opts}),
        )
        .expect("no edits for syntax errors");
    assert_eq!(refused, Value::Null);
    insta::assert_snapshot!(
        "formatting",
        pretty(&json!({"document": all, "line 2 only": range, "with syntax errors": refused}))
    );
}

#[test]
fn folding_and_selection_ranges() {
    let mut c = start();
    let (u, _) = open(&mut c, "tour.opal");
    let folds = c
        .request(
            "textDocument/foldingRange",
            json!({"textDocument": {"uri": u}}),
        )
        .expect("folding");
    let sel = c
        .request(
            "textDocument/selectionRange",
            json!({"textDocument": {"uri": u}, "positions": [{"line": 9, "character": 30}]}),
        )
        .expect("selection");
    insta::assert_snapshot!(
        "folding_selection",
        pretty(&json!({"folding": folds, "selection at excursion": sel}))
    );
}

#[test]
fn semantic_tokens_full_and_delta() {
    let mut c = start();
    let (u, _) = open(&mut c, "tour.opal");
    let full = c
        .request(
            "textDocument/semanticTokens/full",
            json!({"textDocument": {"uri": u}}),
        )
        .expect("tokens");
    let id = full["resultId"].as_str().expect("result id").to_string();
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"range": {"start": {"line": 6, "character": 9}, "end": {"line": 6, "character": 10}}, "text": "10"}]}),
    );
    let delta = c
        .request(
            "textDocument/semanticTokens/full/delta",
            json!({"textDocument": {"uri": u}, "previousResultId": id}),
        )
        .expect("delta");
    insta::assert_snapshot!(
        "semantic_tokens",
        pretty(&json!({"full": decode(&full["data"]), "delta after `count := 10`": delta}))
    );
}

/// Semantic tokens as `line:col len type` lines, so the snapshot is readable.
fn decode(data: &Value) -> Vec<String> {
    let types = opal_lsp::semantic_tokens::TOKEN_TYPES;
    let d: Vec<u64> = data
        .as_array()
        .expect("data")
        .iter()
        .filter_map(|v| v.as_u64())
        .collect();
    let (mut line, mut col) = (0, 0);
    d.chunks(5)
        .map(|t| {
            if t[0] > 0 {
                line += t[0];
                col = t[1];
            } else {
                col += t[1];
            }
            format!(
                "{line}:{col} len {} {} mods {}",
                t[2], types[t[3] as usize], t[4]
            )
        })
        .collect()
}

#[test]
fn inlay_hints_show_labels_and_threaded_variables() {
    let mut c = start();
    let (u, _) = open(&mut c, "tour.opal");
    let hints = c
        .request("textDocument/inlayHint", whole(&u))
        .expect("hints");
    insta::assert_snapshot!("inlay_hints", pretty(&hints));
}

#[test]
fn quick_fixes_for_each_fixable_diagnostic() {
    let mut c = start();
    let (u, _) = open(&mut c, "broken.opal");
    let mut p = whole(&u);
    p["context"] = json!({"diagnostics": []});
    let actions = c.request("textDocument/codeAction", p).expect("actions");
    let summary: Vec<Value> = actions
        .as_array()
        .expect("list")
        .iter()
        .map(|a| json!({"title": a["title"], "code": a["diagnostics"][0]["code"], "preferred": a["isPreferred"], "edits": a["edit"]["changes"][&u]}))
        .collect();
    insta::assert_snapshot!("code_actions", pretty(&Value::Array(summary)));
}

/// Issue 33: a client that does not run the extension's commands (Neovim, lsp-mode) gets one
/// lens, Run, that the server runs on `workspace/executeCommand`, reporting the output.
#[test]
fn other_clients_get_a_run_lens_the_server_runs() {
    let mut c = StdioClient::spawn(&opal(), &["lsp"], &[]).expect("start opal lsp");
    let init = c
        .initialize_with(&dir_uri(), json!({}))
        .expect("initialize");
    let commands = &init["capabilities"]["executeCommandProvider"]["commands"];
    assert!(
        commands
            .as_array()
            .is_some_and(|c| c.contains(&json!("opal.server.run"))),
        "{commands}"
    );
    let (u, _) = open(&mut c, "tour.opal");
    let lenses = c
        .request("textDocument/codeLens", json!({"textDocument": {"uri": u}}))
        .expect("lenses");
    assert_eq!(
        lenses,
        json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "command": {"title": "▶ Run", "command": "opal.server.run", "arguments": [u]}}])
    );
    let ran = c
        .request(
            "workspace/executeCommand",
            json!({"command": "opal.server.run", "arguments": [u]}),
        )
        .expect("run");
    let cli = std::process::Command::new(opal())
        .args(["run", "tour.opal"])
        .current_dir(root().join("tests/lsp"))
        .output()
        .expect("opal run");
    assert_eq!(ran["exitCode"], json!(cli.status.code()), "{ran}");
    assert_eq!(
        ran["stdout"],
        json!(String::from_utf8_lossy(&cli.stdout)),
        "{ran}"
    );
    let shown = c
        .wait_message(|m| m["method"] == "window/showMessage")
        .expect("a message");
    let text = shown["params"]["message"].as_str().unwrap_or_default();
    assert!(text.starts_with("opal run tour.opal: finished"), "{text}");
    // A file that is not on disk is refused, saying so.
    let e = c
        .request(
            "workspace/executeCommand",
            json!({"command": "opal.server.run", "arguments": [uri("unsaved.opal")]}),
        )
        .expect_err("refused");
    assert!(e.to_string().contains("is not a saved file"), "{e}");
}

#[test]
fn code_lenses_and_the_desugared_core() {
    let mut c = start();
    let (u, _) = open(&mut c, "tour.opal");
    let lenses = c
        .request("textDocument/codeLens", json!({"textDocument": {"uri": u}}))
        .expect("lenses");
    let core = c
        .request("opal/desugar", json!({"textDocument": {"uri": u}}))
        .expect("desugar");
    let (b, _) = open(&mut c, "broken.opal");
    let broken = c
        .request("opal/desugar", json!({"uri": b}))
        .expect("desugar of a broken file");
    insta::assert_snapshot!("lenses", pretty(&lenses));
    insta::assert_snapshot!(
        "desugar",
        format!(
            "{}\n---\n{}",
            core.as_str().unwrap_or("?"),
            broken.as_str().unwrap_or("?")
        )
    );
    let cli = std::process::Command::new(opal())
        .args(["desugar", "tests/lsp/tour.opal"])
        .current_dir(root())
        .output()
        .expect("opal desugar");
    assert_eq!(
        core.as_str(),
        Some(String::from_utf8_lossy(&cli.stdout).as_ref()),
        "the server and `opal desugar` print the same core"
    );
}

#[test]
fn utf16_positions_with_non_ascii_text() {
    let mut c = start();
    let u = uri("unicode.opal");
    let text = "s := \"日本😀\"\nt := s + \"é😀\"\nprint (&stdout, t)\n";
    c.open(&u, text);
    c.diagnostics(&u, Some(1)).expect("diagnostics");
    // `s` on line 1 is at UTF-16 column 5; the emoji on line 0 counts two units.
    let hover = c
        .request("textDocument/hover", at(&u, 1, 5))
        .expect("hover");
    assert_eq!(
        hover["range"],
        json!({"start": {"line": 1, "character": 5}, "end": {"line": 1, "character": 6}})
    );
    // Insert after the emoji in line 1's string: `"é😀` is 4 UTF-16 units from column 9.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"range": {"start": {"line": 1, "character": 13}, "end": {"line": 1, "character": 13}}, "text": "!"}]}),
    );
    let now = c
        .request("opal/documentText", json!({"uri": u}))
        .expect("text");
    assert_eq!(
        now,
        json!("s := \"日本😀\"\nt := s + \"é😀!\"\nprint (&stdout, t)\n")
    );
    let tokens = c
        .request(
            "textDocument/semanticTokens/full",
            json!({"textDocument": {"uri": u}}),
        )
        .expect("tokens");
    insta::assert_snapshot!("unicode_tokens", decode(&tokens["data"]).join("\n"));
}

#[test]
fn three_hundred_back_to_back_edits_apply_in_order() {
    let mut c = start();
    let (u, _) = open(&mut c, "tour.opal");
    let line0 = fixture("tour.opal")
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    let mut expected = line0.clone();
    for v in 0..300u32 {
        let ch = char::from(b'a' + (v % 26) as u8);
        let col = line0.len() as u32 + v;
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": 2 + v}, "contentChanges": [{"range": {"start": {"line": 0, "character": col}, "end": {"line": 0, "character": col}}, "text": ch.to_string()}]}),
        );
        expected.push(ch);
    }
    let got = c
        .request("opal/documentText", json!({"uri": u}))
        .expect("text");
    assert_eq!(
        got.as_str().and_then(|t| t.lines().next()),
        Some(expected.as_str())
    );
    // Diagnostics arrive for the last version only (debounced), and still make sense.
    let d = c
        .diagnostics(&u, Some(301))
        .expect("diagnostics of the last version");
    assert!(
        d.as_array()
            .is_some_and(|a| a.iter().all(|x| x["code"] != "E0001")),
        "a comment line stays a comment: {d}"
    );
}

#[test]
fn world_files_are_checked_and_followed() {
    let mut c = start();
    let p = uri("virtual.opal");
    let w = uri("virtual.world.toml");
    c.notify("textDocument/didOpen", json!({"textDocument": {"uri": w, "languageId": "toml", "version": 1, "text": "[lookup\nlatency_ms = 5\n"}}));
    let world_diags = c.diagnostics(&w, Some(1)).expect("world diagnostics");
    c.open(&p, "extern lookup\nprint (&stdout, lookup 1)\n");
    let before = c.diagnostics(&p, Some(1)).expect("program diagnostics");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": w, "version": 2}, "contentChanges": [{"text": "[lookup]\nlatency_ms = 5\ndefault = '\"found\"'\n"}]}),
    );
    let world_fixed = c
        .diagnostics(&w, Some(2))
        .expect("world diagnostics after the fix");
    let after = c
        .diagnostics(&p, Some(1))
        .expect("program diagnostics after the world changed");
    let hover = c
        .request("textDocument/hover", at(&p, 1, 17))
        .expect("hover");
    insta::assert_snapshot!(
        "world_files",
        pretty(
            &json!({"broken world": world_diags, "program with broken world": before, "fixed world": world_fixed, "program after": after, "hover lookup": hover["contents"]["value"]})
        )
    );
}

#[test]
fn bad_requests_get_errors_and_the_server_keeps_running() {
    let mut c = start_with_env(&[("OPAL_LSP_TEST_PANIC", "hover")]);
    let (u, _) = open(&mut c, "tour.opal");
    // A handler that panics answers with an internal error.
    let panicked = c
        .request("textDocument/hover", at(&u, 9, 21))
        .expect_err("hover panics on purpose");
    assert_eq!(panicked["code"], json!(-32603));
    // Malformed JSON gets a parse error; an unknown method gets MethodNotFound.
    c.send_raw(b"{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\": ");
    let parse_error = c
        .wait_message(|m| m.get("error").is_some())
        .expect("an answer to malformed JSON");
    assert_eq!(parse_error["error"]["code"], json!(-32700), "{parse_error}");
    let unknown = c
        .request("opal/noSuchMethod", json!({}))
        .expect_err("unknown method");
    assert_eq!(unknown["code"], json!(-32601), "{unknown}");
    let bad_params = c
        .request(
            "textDocument/definition",
            json!({"textDocument": {"uri": u}}),
        )
        .expect_err("missing position");
    assert_eq!(bad_params["code"], json!(-32602));
    // Unknown and closed documents answer empty.
    let unknown_doc = c
        .request("textDocument/definition", at(&uri("nowhere.opal"), 0, 0))
        .expect("answer");
    assert_eq!(unknown_doc, Value::Null);
    c.notify("textDocument/didClose", json!({"textDocument": {"uri": u}}));
    assert_eq!(
        c.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": u}})
        )
        .expect("answer"),
        Value::Null
    );
    // Cancelling a request that already finished is harmless; positions past the end clamp.
    c.notify("$/cancelRequest", json!({"id": 1}));
    let (u, _) = open(&mut c, "tour.opal");
    let def = c
        .request("textDocument/definition", at(&u, 9, 21))
        .expect("still serving");
    assert_eq!(def["range"]["start"]["line"], json!(4));
    assert_eq!(
        c.request("textDocument/definition", at(&u, 9999, 9999))
            .expect("clamped"),
        Value::Null
    );
    assert_eq!(c.shutdown(), Some(0));
}
