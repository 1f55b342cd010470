//! `opal lsp` while the user edits: broken and unusual files, workspace symbols from an index
//! that follows the disk, navigation, document links, formatting on type, long completions.

mod lsp_common;

use lsp_common::*;
use opal_e2e::opal;
use opal_lsp::client::StdioClient;
use serde_json::{json, Value};
use std::path::Path;

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
    assert_eq!(symbol_names(&mut c, "alpha"), vec!["alpha"]);
    the_server_asks_to_watch_opal_and_world_files(&mut c);
    the_index_rereads_a_file_once_per_event(&mut c, &root, &file);
    saves_and_closes_reread_a_file_without_an_event(&mut c, &dir, &root, &file);
    std::fs::remove_file(&file).expect("remove");
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": format!("{root}/a.opal"), "type": 3}]}),
    );
    assert_eq!(symbol_names(&mut c, "delta"), Vec::<String>::new());
    assert_eq!(c.shutdown(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The names `workspace/symbol` answers for `q`.
fn symbol_names(c: &mut StdioClient, q: &str) -> Vec<String> {
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
}

/// The client offered dynamic registration: the server asked it to watch OPAL and world files.
fn the_server_asks_to_watch_opal_and_world_files(c: &mut StdioClient) {
    for _ in 0..50 {
        if !c.server_requests.is_empty() {
            break;
        }
        symbol_names(c, "alpha");
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
}

/// The disk changes: the index does not re-read it until the client says so, and then reads
/// it once for that event, not again on every later request.
fn the_index_rereads_a_file_once_per_event(c: &mut StdioClient, root: &str, file: &Path) {
    std::fs::write(file, "beta := 1\n").expect("write");
    assert_eq!(
        symbol_names(c, "beta"),
        Vec::<String>::new(),
        "not re-read from disk on every request"
    );
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": format!("{root}/a.opal"), "type": 2}]}),
    );
    assert_eq!(symbol_names(c, "beta"), vec!["beta"]);
    std::fs::write(file, "omega := 1\n").expect("write");
    assert_eq!(
        symbol_names(c, "beta"),
        vec!["beta"],
        "re-read without a new event"
    );
    assert_eq!(symbol_names(c, "omega"), Vec::<String>::new());
}

/// A file written by the editor is read again when it is saved, and when it is closed, even
/// if no file event follows.
fn saves_and_closes_reread_a_file_without_an_event(
    c: &mut StdioClient,
    dir: &Path,
    root: &str,
    file: &Path,
) {
    let a = format!("{root}/a.opal");
    c.open(&a, "beta := 1\n");
    std::fs::write(file, "gamma := 1\n").expect("write");
    c.notify("textDocument/didSave", json!({"textDocument": {"uri": a}}));
    // Open documents answer from their own text; the saved file is read for the index.
    assert_eq!(symbol_names(c, "beta"), vec!["beta"]);
    c.notify("textDocument/didClose", json!({"textDocument": {"uri": a}}));
    assert_eq!(symbol_names(c, "gamma"), vec!["gamma"]);
    // A save alone (of a file the index answers for) is enough.
    std::fs::write(dir.join("b.opal"), "kappa := 1\n").expect("write");
    assert_eq!(
        symbol_names(c, "kappa"),
        Vec::<String>::new(),
        "a new file without an event"
    );
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": format!("{root}/b.opal")}}),
    );
    assert_eq!(symbol_names(c, "kappa"), vec!["kappa"]);
    c.open(&a, "gamma := 1\n");
    std::fs::write(file, "delta := 1\n").expect("write");
    c.notify("textDocument/didClose", json!({"textDocument": {"uri": a}}));
    assert_eq!(symbol_names(c, "delta"), vec!["delta"]);
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
    let actions = code_actions_at(&mut c, &u, 5, 16, 27);
    let titles = kinds_and_titles(&actions);
    let only_inline = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": u}, "range": {"start": {"line": 5, "character": 16}, "end": {"line": 5, "character": 27}}, "context": {"diagnostics": [], "only": ["refactor.inline"]}}),
        )
        .expect("code actions");
    assert_eq!(only_inline, json!([]), "`only` filters by kind");
    // Inline `notes` (its binder), and the threaded `stdout := print (stdout, notes)` back to `&stdout`.
    let inline = code_actions_at(&mut c, &u, 1, 0, 5);
    let back = code_actions_at(&mut c, &u, 6, 0, 6);
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

/// The code actions offered on `line`, columns `from` to `to`.
fn code_actions_at(c: &mut StdioClient, u: &str, line: u32, from: u32, to: u32) -> Value {
    let range =
        json!({"start": {"line": line, "character": from}, "end": {"line": line, "character": to}});
    c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": u}, "range": range, "context": {"diagnostics": []}}),
    )
    .expect("code actions")
}

/// Each action's kind and title.
fn kinds_and_titles(actions: &Value) -> Vec<(String, String)> {
    actions
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
        .unwrap_or_default()
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
    // Said where the user sees it, with the place of the error.
    let shown = c.wait_message(|m| {
        m["method"] == "window/showMessage"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|t| t.contains("not formatted"))
    });
    assert!(shown.is_ok_and(|m| m["params"]["message"]
        .as_str()
        .is_some_and(|t| t.contains("line 2:1") && t.contains("fix the syntax error"))));
    assert_eq!(c.shutdown(), Some(0));
}
