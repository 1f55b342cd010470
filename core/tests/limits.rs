//! Depth and size limits of the files a run reads (world files, traces), and errors that point
//! at the key or event at fault (issue 29). Fixtures are in `limits/`; the deeply nested inputs
//! are generated here.

use opal_core::diag::{render, Diagnostic};
use opal_core::machine::run::Host;
use opal_core::machine::trace::{json_to_pexp, Trace};
use opal_core::span::LineIndex;
use opal_core::syntax::parser::MAX_DEPTH;
use opal_core::world::parse_world;

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/limits")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs `f` on a thread with 2 MiB of stack: what std gives a spawned thread and tokio its
/// worker and blocking threads (the language server's analysis, `opal run`'s world loader), a
/// quarter of the main thread's. A walk that recurses once per level of the input overflows it.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let worker = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn a thread");
    worker.join().expect("the walk panicked")
}

fn rendered(name: &str, text: &str, ds: &[Diagnostic]) -> String {
    let idx = LineIndex::new(text);
    ds.iter().map(|d| render(d, name, text, &idx)).collect()
}

/// The world file's first error, rendered.
fn world_error(name: &str, text: String) -> String {
    let label = name.to_string();
    on_small_stack(move || match parse_world(&text) {
        Ok(_) => format!("{label}: loaded"),
        Err(ds) => rendered(&label, &text, &ds[..1]),
    })
}

#[test]
fn an_out_of_range_delay_is_reported_at_its_key_and_readably() {
    let cases = [
        ("latency_huge.world.toml", "latency_huge.world.toml:4:1: error[E0200]: `latency_ms` of `ask` is 1e308: a delay must be"),
        ("latency_inf.world.toml", "latency_inf.world.toml:3:1: error[E0200]: `latency_ms` of `ask` is inf:"),
        ("latency_nan.world.toml", "latency_nan.world.toml:3:1: error[E0200]: `latency_ms` of `ask` is nan:"),
        ("latency_negative.world.toml", "latency_negative.world.toml:3:1: error[E0200]: `latency_ms` of `ask` is -5:"),
        ("latency_inline.world.toml", "latency_inline.world.toml:1:26: error[E0200]: `latency_ms` of `ask` is -5:"),
        ("latency_response.world.toml", "latency_response.world.toml:7:1: error[E0200]: `latency_ms` of a `ask` response is 1e20:"),
        ("chunk_ms_huge.world.toml", "chunk_ms_huge.world.toml:6:3: error[E0200]: `chunk_ms` of `ask` has 1e300:"),
    ];
    for (name, want) in cases {
        let got = world_error(name, fixture(name));
        assert!(got.starts_with(want), "{name}:\n{got}");
        // The caret line underlines the whole entry, key first.
        assert!(got.contains("^^^^^^^^^^"), "{name}:\n{got}");
        assert!(
            !got.contains("0000000000"),
            "{name}: a number printed digit by digit:\n{got}"
        );
    }
}

/// Every way a world file can nest: TOML arrays and inline tables (`toml` stops at 80 levels),
/// dotted keys, and OPAL values in strings (the parser stops at `MAX_DEPTH`). Each is a clean
/// E0200 at the line of the key, on a small stack.
#[test]
fn deeply_nested_world_files_are_errors_not_stack_overflows() {
    let deep = |open: &str| open.repeat(10_000);
    let cases = [
        (
            "array",
            format!("[ask]\nx = {}\n", deep("[")),
            "2:",
            "nest at most 80 deep",
        ),
        (
            "array in a known key",
            format!("[ask]\nchoices = [{}\n", deep("[")),
            "2:",
            "nest at most 80 deep",
        ),
        (
            "inline tables",
            format!("[ask]\nx = {}\n", deep("{a = ")),
            "2:",
            "nest at most 80 deep",
        ),
        (
            "dotted header",
            format!("[{}b]\n", deep("a.")),
            "1:",
            "E0200",
        ),
        (
            "default",
            format!("[ask]\ndefault = '{}1'\n", deep("[")),
            "2:11",
            "nesting deeper than 200 levels",
        ),
        (
            "choices",
            format!("[ask]\nchoices = ['{}1']\n", deep("(")),
            "2:12",
            "nesting deeper than 200 levels",
        ),
        (
            "arg",
            format!(
                "[ask]\n[[ask.responses]]\narg = '{}1'\nresult = '1'\n",
                deep("[")
            ),
            "3:7",
            "nesting deeper than 200 levels",
        ),
        (
            "result",
            format!(
                "[ask]\n[[ask.responses]]\narg = '1'\nresult = '{}1'\n",
                deep("-")
            ),
            "4:10",
            "deeper than 200 levels",
        ),
    ];
    for (what, text, at, says) in cases {
        let got = world_error(what, text);
        assert!(
            got.starts_with(&format!("{what}:{at}")) && got.contains("E0200") && got.contains(says),
            "{what}:\n{}",
            &got[..got.len().min(600)]
        );
    }
}

/// The deepest value a world file may hold loads, and becomes a term on a small stack (the
/// conversion a dispatch makes) as the program's own literals do.
#[test]
fn the_deepest_world_value_allowed_becomes_a_term_on_a_small_stack() {
    let n = MAX_DEPTH as usize - 1;
    let value = format!("{}1{}", "[".repeat(n), "]".repeat(n));
    let text = format!(
        "[ask]\ndefault = '{value}'\n[[ask.responses]]\narg = '{value}'\nresult = '{value}'\n"
    );
    let ok = on_small_stack(move || {
        let world = parse_world(&text).map_err(|ds| rendered("w", &text, &ds))?;
        let ask = world.get("ask").ok_or("no [ask]")?;
        let arg = opal_core::world::parse_pexp(&value)?;
        let (reply, _) = ask
            .reply(&arg)
            .ok_or("the response does not match its own argument")?;
        let opal_core::world::Reply::Result(src) = reply else {
            return Err("not a result".to_string());
        };
        Host::new(None, false)
            .compile_result(&src)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
    assert_eq!(ok, Ok(()));
}

/// The trace's error: the event by number and line, and what is wrong with it.
fn trace_error(name: &str) -> String {
    let text = fixture(name);
    on_small_stack(move || match Trace::parse(&text) {
        Ok(_) => "loaded".into(),
        Err(e) => e.to_string(),
    })
}

#[test]
fn a_broken_trace_event_is_refused_at_load_by_its_number_and_line() {
    let cases = [
        ("fun_result.trace.json", "trace event 2 (line 14, label 3, `ask`): result `fun x:` is not an OPAL expression: expected an indented function body"),
        ("unbound_result.trace.json", "trace event 1 (line 6, label 2, `ask`): result `nowhere + 1`: "),
        ("resolved_before_dispatch.trace.json", "trace event 2 (line 7, label 3, `ask`): resolved at 1 ms, before it was dispatched at 100 ms"),
        (
            "chunk_not_a_list.trace.json",
            "trace event 2 (line 7, label 2, `cities`): `result` `\"Apia\"` of a stream's chunk is not a list of literals; write e.g.",
        ),
        ("weird_strategy.trace.json", "trace (line 4): `strategy` is \"weird\"; a trace is recorded under \"opportunistic\", \"cbv\" or \"lazy\""),
        ("fine.trace.json", "loaded"),
    ];
    for (name, want) in cases {
        let got = trace_error(name);
        assert!(got.starts_with(want), "{name}:\n{got}\nwanted:\n{want}");
    }
}

#[test]
fn deeply_nested_traces_are_errors_not_stack_overflows() {
    let base = fixture("fine.trace.json");
    let deep_arg = base.replacen(
        "\"arg\": \"q\"",
        &format!("\"arg\": {}1{}", "[".repeat(10_000), "]".repeat(10_000)),
        1,
    );
    let deep_result = base.replacen(
        "\"result\": \"fun x: x + 1\"",
        &format!("\"result\": \"{}1\"", "(".repeat(10_000)),
        1,
    );
    let deep_unused = base.replacen(
        "\"version\": 1,",
        &format!(
            "\"version\": 1, \"x\": {}1{},",
            "{\"a\": ".repeat(10_000),
            "}".repeat(10_000)
        ),
        1,
    );
    let deep_chunk = base.replacen(
        "\"result\": \"[\\\"Suva\\\", -3, 2.5]\"",
        &format!("\"result\": \"{}\"", "[".repeat(10_000)),
        1,
    );
    let got = on_small_stack(move || {
        [deep_arg, deep_result, deep_unused, deep_chunk].map(|t| {
            Trace::parse(&t)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        })
    });
    // Refused where the reader stopped, before it went deeper.
    assert!(
        got[0].starts_with(
            "invalid trace file at line 9, column 446: `arg` nests deeper than 400 levels of JSON"
        ),
        "{}",
        got[0]
    );
    assert!(
        got[1].starts_with("trace event 3 (line 8, label 4, `ask`): result `((((")
            && got[1].contains("nesting deeper than 200 levels"),
        "{}",
        got[1]
    );
    // An unknown key is skipped by `serde_json` without recursing, however deep.
    assert_eq!(got[2], "");
    assert!(
        got[3].starts_with("trace event 1 (line 6, label 2, `cities`): `result` `[[[[")
            && got[3].contains("(nesting deeper than 200 levels)"),
        "{}",
        got[3]
    );
}

/// An argument built in code (a debugger request, not `serde_json`'s reader, which stops at 128
/// levels) is refused past `MAX_DEPTH` before the walk goes deeper.
#[test]
fn a_trace_argument_deeper_than_the_limit_is_not_data() {
    let nest = |n: usize| (0..n).fold(serde_json::json!(1), |v, _| serde_json::json!([v]));
    assert!(json_to_pexp(&nest(MAX_DEPTH as usize - 1)).is_some());
    assert!(json_to_pexp(&nest(MAX_DEPTH as usize)).is_none());
    let list = |n: usize| {
        (0..n).fold(
            serde_json::json!(1),
            |v, _| serde_json::json!({"list": [v]}),
        )
    };
    assert!(json_to_pexp(&list(MAX_DEPTH as usize)).is_none());
}

/// `fine.trace.json` with its first event's argument replaced by `arg`.
fn with_arg(arg: &serde_json::Value) -> Trace {
    let mut t = Trace::parse(&fixture("fine.trace.json")).expect("fine.trace.json loads");
    t.events[0].arg = arg.clone();
    t
}

/// What `--record` writes, `--replay` reads: an argument 199 deep (a tuple, a list, which is two
/// levels of JSON a level, a dictionary, a float at the bottom) is written, read back whole and
/// is data again, on a small stack; one level more is refused when the trace is made, naming
/// the event.
#[test]
fn the_deepest_argument_a_trace_holds_round_trips_and_a_deeper_one_is_not_recorded() {
    use opal_core::ir::{PExp, Prim};
    use opal_core::machine::trace::{arg_depth, pexp_to_json, MAX_ARG_DEPTH};
    let leaf = PExp::Prim(Prim::Float(2.5));
    let tuple = |n: usize| (0..n).fold(leaf.clone(), |v, _| PExp::Tuple(vec![v]));
    let list = |n: usize| {
        (0..n).fold(leaf.clone(), |v, _| {
            PExp::List(vec![PExp::Prim(Prim::Int(1)), v])
        })
    };
    let dict = |n: usize| {
        (0..n / 2).fold(leaf.clone(), |v, _| {
            PExp::Dict(vec![(PExp::Prim(Prim::Int(1)), v)])
        })
    };
    for (what, arg) in [
        ("tuple", tuple(MAX_ARG_DEPTH)),
        ("list", list(MAX_ARG_DEPTH)),
        ("dict", dict(MAX_ARG_DEPTH)),
    ] {
        let json = pexp_to_json(&arg);
        assert_eq!(
            arg_depth(&json),
            MAX_ARG_DEPTH - usize::from(what == "dict"),
            "{what}"
        );
        let t = with_arg(&json);
        assert_eq!(t.check_recordable(), Ok(()), "{what}");
        let text = serde_json::to_string_pretty(&t).expect("a trace prints");
        let back = on_small_stack(move || {
            Trace::parse(&text).map(|b| json_to_pexp(&b.events[0].arg).map(|p| p.to_string()))
        });
        assert_eq!(back, Ok(Some(arg.to_string())), "{what}");
    }
    // Were one written anyway, loading it says the same, at the event, or where the reader
    // stopped for an argument deeper in JSON than any a trace holds.
    let at_event = "trace event 1 (line 6, label 2, `cities`): the argument nests ";
    let at_reader = "invalid trace file at line ";
    for (arg, refused) in [
        (tuple(MAX_ARG_DEPTH + 1), at_event),
        (list(MAX_ARG_DEPTH + 1), at_reader),
        (tuple(1000), at_reader),
    ] {
        let t = with_arg(&pexp_to_json(&arg));
        let (i, why) = t.check_recordable().err().unwrap_or_default();
        assert_eq!(i, 0);
        assert!(
            why.starts_with("the argument nests ")
                && why.ends_with("deep; a trace holds arguments at most 199 deep"),
            "{why}"
        );
        let text = serde_json::to_string_pretty(&t).expect("a trace prints");
        let got = on_small_stack(move || {
            Trace::parse(&text)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        });
        assert!(
            got.starts_with(refused) && got.contains("a trace holds arguments at most 199 deep"),
            "{got}"
        );
    }
}
