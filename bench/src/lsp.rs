//! `lsp` and `lsp-analysis`: the real `opal lsp` over stdio on big files, and the server's
//! analysis alone, in-process.

use super::{heap_in_use, ms};
use std::time::{Duration, Instant};

/// A program of about `lines` lines: functions, calls, and `if`s threading `stdout`.
fn lsp_source(lines: usize) -> String {
    let mut s = String::from("# A long program for the language-server benchmark.\n");
    // One header line, then blocks of 7 lines.
    for i in 0..(lines - 1).div_ceil(7) {
        s.push_str(&format!(
            "# block {i}\nf{i} := fun (a, b):\n    c := a + b\n    ret c * 2\nx{i} := f{i} ({i}, 1)\nif x{i} > 10:\n    print (&stdout, x{i})\n"
        ));
    }
    s
}

/// Through the real `opal lsp`, on 10 000- and 50 000-line files: change → diagnostics (5 ms
/// wait for changes sent together included), full semantic tokens, whole-file inlay hints, document symbols, and
/// hover while ten whole-file semantic-token requests are queued and cancelled; the analysis
/// alone, in-process. Targets (issue 19): ≤ 150 ms, ≤ 150 ms, ≤ 150 ms, hover p95 ≤ 5 ms.
pub fn bench_lsp() {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| Some(p.parent()?.join("opal")));
    let Some(exe) = exe.filter(|p| p.exists()) else {
        println!("lsp: build the server first (`cargo build --release`)");
        return;
    };
    lsp_scale();
    println!("\n| lines | analysis (in-process, best of 3) | change → diagnostics p50 / worst (20 edits) | semantic tokens full p50 | inlay hints whole file p50 | one screen: tokens / inlay hints p50 | document symbols p50 | hover p50 / p95 with 10 cancelled token requests queued |");
    println!("|---|---|---|---|---|---|---|---|");
    for lines in [10_000, 50_000] {
        if let Err(e) = bench_lsp_file(&exe, lines) {
            println!("lsp: {e}");
        }
    }
}

/// The analysis alone (parse, desugar, check, indexes), in-process, best of 3, from 10 000 to
/// 200 000 lines: the time per line should stay flat (SEMANTICS.md §6).
pub fn lsp_scale() {
    for n in [10_000, 20_000, 50_000, 100_000, 200_000] {
        let best = analysis_ms(&lsp_source(n));
        println!(
            "lsp analysis, {n} lines: {best:.1} ms ({:.2} µs per line)",
            best * 1000.0 / n as f64
        );
    }
}

/// The best of three runs of `f`, in ms.
fn best_of_3(mut f: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            ms(t.elapsed())
        })
        .fold(f64::MAX, f64::min)
}

/// The language server's analysis of a text, in-process, best of 3.
fn analysis_ms(text: &str) -> f64 {
    best_of_3(|| {
        drop(opal_lsp::analysis::Analysis::new(
            text.to_string(),
            Default::default(),
        ))
    })
}

/// In-process costs of the whole-file features, each best of 3, and their JSON (to see what
/// the server computes and what the transport costs).
fn lsp_parts(text: &str) -> String {
    let before = heap_in_use();
    let a = opal_lsp::analysis::Analysis::new(text.to_string(), Default::default());
    let live = heap_in_use().saturating_sub(before);
    let held = |f: &dyn Fn() -> Box<dyn std::any::Any>| {
        let before = heap_in_use();
        let kept = f();
        let n = heap_in_use().saturating_sub(before);
        drop(kept);
        n >> 20
    };
    let tree = held(&|| Box::new(opal_core::syntax::parser::parse(text)));
    let compiled = held(&|| Box::new(opal_core::compile(text)));
    let whole = opal_core::span::Span::new(0, text.len());
    // The features answer in their own types; the server converts them (`to_proto`), and so
    // do the timings here, so they count what a request computes.
    let tokens_of = |range: opal_core::span::Span| {
        opal_lsp::to_proto::semantic_tokens(
            &a,
            &opal_lsp::semantic_tokens::semantic_tokens_in(&a, range),
        )
    };
    let hints_of = |range: opal_core::span::Span| {
        let p = a.pos();
        opal_lsp::inlay_hints::inlay_hints(&a, range)
            .into_iter()
            .map(|h| opal_lsp::to_proto::inlay_hint(&p, h))
            .collect::<Vec<_>>()
    };
    let tokens =
        opal_lsp::to_proto::semantic_tokens(&a, &opal_lsp::semantic_tokens::semantic_tokens(&a));
    // As the protocol sends them: five integers per token.
    let flat: Vec<u32> = tokens
        .iter()
        .flat_map(|t| {
            [
                t.delta_line,
                t.delta_start,
                t.length,
                t.token_type,
                t.token_modifiers_bitset,
            ]
        })
        .collect();
    let json = serde_json::to_string(&flat).unwrap_or_default();
    // A screenful (60 lines) in the middle of the file, as the server benchmark asks for.
    let mid = a.lines.line_count() / 2;
    let screen = opal_core::span::Span::new(
        a.lines.line_start(mid) as usize,
        a.lines.line_start(mid + 60).min(text.len() as u32) as usize,
    );
    let mut out = format!(
        "lsp {} lines, in-process: one analysis holds {} MiB (the syntax tree {tree} MiB, with the core program and its symbols {compiled} MiB); one screen: tokens {:.2} ms, inlay hints {:.2} ms\n",
        text.lines().count(),
        live >> 20,
        best_of_3(|| drop(tokens_of(screen))),
        best_of_3(|| drop(hints_of(screen))),
    );
    let hints = hints_of(whole);
    let hints_json = serde_json::to_string(&hints).unwrap_or_default();
    out += &format!(
        "  {} inlay hints: to JSON through a Value (tower-lsp-server's way) {:.1} ms, directly (the server's, lsp/src/splice.rs) {:.1} ms ({} KiB); from JSON to a Value {:.1} ms\n",
        hints.len(),
        best_of_3(|| drop(serde_json::to_value(&hints).map(|v| serde_json::to_string(&v)))),
        best_of_3(|| drop(serde_json::to_vec(&hints))),
        hints_json.len() / 1024,
        best_of_3(|| drop(serde_json::from_str::<serde_json::Value>(&hints_json))),
    );
    out += &format!(
        "  whole file: semantic tokens {:.1} ms (to JSON {:.1} ms, {} KiB; from JSON to a Value {:.1} ms), inlay hints {:.1} ms, document symbols {:.1} ms",
        best_of_3(|| drop(opal_lsp::to_proto::semantic_tokens(&a, &opal_lsp::semantic_tokens::semantic_tokens(&a)))),
        best_of_3(|| drop(serde_json::to_string(&flat))),
        json.len() / 1024,
        best_of_3(|| drop(serde_json::from_str::<serde_json::Value>(&json))),
        best_of_3(|| drop(hints_of(whole))),
        best_of_3(|| drop(opal_lsp::navigation::document_symbols(&a).into_iter().map(|s| opal_lsp::to_proto::document_symbol(&a, s)).collect::<Vec<_>>())),
    );
    out
}

/// A process's resident set size in KiB (Linux), 0 when unknown.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn bench_lsp_file(exe: &std::path::Path, lines: usize) -> Result<(), String> {
    use opal_lsp::client::StdioClient;
    use serde_json::json;
    let text = lsp_source(lines);
    let lines = text.lines().count();
    let analysis = analysis_ms(&text);
    let parts = lsp_parts(&text);
    let mut c = StdioClient::spawn(exe, &["lsp"], &[])
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let uri = "file:///tmp/opal-bench-long.opal";
    c.initialize("file:///tmp")
        .map_err(|_| "initialize failed")?;
    c.open(uri, &text);
    c.diagnostics(uri, Some(1))
        .map_err(|_| "no diagnostics for the opened file")?;
    let rss_open = idle_rss(&c);
    let mut v = 1i64;
    let mut diags = lsp_change_to_diagnostics(&mut c, uri, lines, &mut v)?;
    let doc = json!({"textDocument": {"uri": uri}});
    let whole = json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": lines + 1, "character": 0}}});
    let mut timed = |method: &str, params: &serde_json::Value| -> Result<f64, String> {
        let mut t = Vec::new();
        for _ in 0..5 {
            let s = Instant::now();
            c.request(method, params.clone())
                .map_err(|e| format!("{method}: {e}"))?;
            t.push(s.elapsed());
        }
        Ok(p50(&mut t))
    };
    let tokens = timed("textDocument/semanticTokens/full", &doc)?;
    let hints = timed("textDocument/inlayHint", &whole)?;
    // What an editor asks while scrolling: a screenful (60 lines) in the middle.
    let mid = lines / 2;
    let screen = json!({"textDocument": {"uri": uri}, "range": {"start": {"line": mid, "character": 0}, "end": {"line": mid + 60, "character": 0}}});
    let screen_tokens = timed("textDocument/semanticTokens/range", &screen)?;
    let screen_hints = timed("textDocument/inlayHint", &screen)?;
    let symbols = timed("textDocument/documentSymbol", &doc)?;
    let typing = lsp_typing(&mut c, uri, lines, &mut v)?;
    let mut hovers = lsp_hovers_with_cancelled_requests(&mut c, uri)?;
    // 10 000 edits (type a character, delete it), then the diagnostics of the last version.
    let rss_before_edits = rss_kib(c.pid());
    let rss_before_edits_idle = idle_rss(&c);
    for k in 0..10_000u32 {
        v += 1;
        let line = ((k / 2) % (lines as u32 - 10)) / 7 * 7 + 5;
        c.notify("textDocument/didChange", json!({"textDocument": {"uri": uri, "version": v}, "contentChanges": [keystroke(line, k)]}));
    }
    c.diagnostics(uri, Some(v))
        .map_err(|_| format!("no diagnostics after 10 000 edits (version {v})"))?;
    let _ = c.request("textDocument/semanticTokens/full", doc.clone());
    let rss_busy = rss_kib(c.pid());
    let rss_edits = idle_rss(&c);
    hovers.sort();
    // p95 of 60 rounds: the three slowest are left out.
    let hover_p95 = ms(hovers[hovers.len() * 95 / 100]);
    let diag_worst = ms(*diags.iter().max().unwrap_or(&Duration::ZERO));
    println!(
        "| {lines} | {:.1} ms | {:.1} / {:.1} ms | {tokens:.1} ms | {hints:.1} ms | {screen_tokens:.2} / {screen_hints:.2} ms | {symbols:.1} ms | {:.2} / {hover_p95:.2} ms |",
        analysis,
        p50(&mut diags),
        diag_worst,
        p50(&mut hovers)
    );
    println!(
        "lsp {lines} lines: RSS idle after open {} MiB, right after the requests above {} MiB (idle {} MiB), right after 10 000 edits {} MiB, idle after them {} MiB ({:.2}× open)",
        rss_open / 1024,
        rss_before_edits / 1024,
        rss_before_edits_idle / 1024,
        rss_busy / 1024,
        rss_edits / 1024,
        rss_edits as f64 / rss_open.max(1) as f64
    );
    println!("lsp {lines} lines: typing 50 keys 40 ms apart, then the last version's diagnostics after {typing:.1} ms");
    println!("{parts}");
    let _ = c.shutdown();
    Ok(())
}

/// The median of `t`, in ms (sorts `t`).
fn p50(t: &mut [Duration]) -> f64 {
    t.sort();
    ms(t[t.len() / 2])
}

/// Resident memory of an idle server (an editor between keystrokes): after work, the
/// server returns freed memory within about two seconds.
fn idle_rss(c: &opal_lsp::client::StdioClient) -> u64 {
    std::thread::sleep(Duration::from_millis(2500));
    rss_kib(c.pid())
}

/// The change of keystroke `k` at the start of `line`: even ones type a space, odd ones
/// delete it again, so the text comes back to what it was.
fn keystroke(line: u32, k: u32) -> serde_json::Value {
    use serde_json::json;
    if k.is_multiple_of(2) {
        json!({"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}}, "text": " "})
    } else {
        json!({"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 1}}, "text": ""})
    }
}

/// Change → diagnostics, 20 times: each change inserts a space in the middle of the file;
/// `v` is the document's version.
fn lsp_change_to_diagnostics(
    c: &mut opal_lsp::client::StdioClient,
    uri: &str,
    lines: usize,
    v: &mut i64,
) -> Result<Vec<Duration>, String> {
    use serde_json::json;
    let mut diags = Vec::new();
    for _ in 0..20 {
        *v += 1;
        // Change a literal in the middle of the file.
        let line = (lines / 2) as u32 / 7 * 7 + 5;
        let change = json!({"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}}, "text": " "});
        let t = Instant::now();
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": *v}, "contentChanges": [change]}),
        );
        c.diagnostics(uri, Some(*v))
            .map_err(|_| format!("no diagnostics for version {v}"))?;
        diags.push(t.elapsed());
    }
    Ok(diags)
}

/// Typing steadily, faster than the analysis: 50 keys 40 ms apart, then the wait (in ms) for
/// the last version's diagnostics. One analysis of a document runs at a time, so replaced
/// versions do not pile up.
fn lsp_typing(
    c: &mut opal_lsp::client::StdioClient,
    uri: &str,
    lines: usize,
    v: &mut i64,
) -> Result<f64, String> {
    use serde_json::json;
    let line = (lines / 2) as u32 / 7 * 7 + 5;
    for k in 0..50u32 {
        *v += 1;
        c.notify("textDocument/didChange", json!({"textDocument": {"uri": uri, "version": *v}, "contentChanges": [keystroke(line, k)]}));
        std::thread::sleep(Duration::from_millis(40));
    }
    let t = Instant::now();
    c.diagnostics(uri, Some(*v))
        .map_err(|_| format!("no diagnostics after typing (version {v})"))?;
    Ok(ms(t.elapsed()))
}

/// Hover while ten whole-file token requests are queued and cancelled before it, 60 rounds.
fn lsp_hovers_with_cancelled_requests(
    c: &mut opal_lsp::client::StdioClient,
    uri: &str,
) -> Result<Vec<Duration>, String> {
    use serde_json::json;
    let doc = json!({"textDocument": {"uri": uri}});
    let mut hovers = Vec::new();
    for round in 0..60u32 {
        let ids: Vec<i64> = (0..10)
            .map(|_| c.request_async("textDocument/semanticTokens/full", doc.clone()))
            .collect();
        for id in &ids {
            c.notify("$/cancelRequest", json!({"id": id}));
        }
        let t = Instant::now();
        c.request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": {"line": 2 + 7 * round, "character": 1}}))
            .map_err(|e| format!("hover: {e}"))?;
        hovers.push(t.elapsed());
        for id in ids {
            c.wait_message(|m| m.get("method").is_none() && m["id"] == json!(id))?;
        }
    }
    Ok(hovers)
}
