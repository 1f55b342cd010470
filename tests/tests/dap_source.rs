//! Source-level debugging over the real `opal dap` (issue 31): a breakpoint stops once per
//! loop iteration on the statement itself, `city` is in Locals with its value at each stop,
//! the console and hovers evaluate expressions over the variables in scope, every step lands
//! on a line of the program's code, and stepping back and reverse continue mirror them.

mod dap_common;

use dap_common::{program, Dap};
use serde_json::{json, Value};

/// The lines of CityExcursions that hold code (the `for` and its body).
const CODE_LINES: [u64; 4] = [6, 7, 8, 9];

fn launch_city(d: &mut Dap, breakpoints: &[u64]) -> String {
    launch_city_with(d, breakpoints, "opportunistic")
}

fn launch_city_with(d: &mut Dap, breakpoints: &[u64], strategy: &str) -> String {
    let path = program("examples/city_excursions.opal");
    let r = d.launch(json!({"program": path, "strategy": strategy}));
    assert_eq!(r["success"], true, "{r}");
    d.event("initialized");
    let bps: Vec<Value> = breakpoints.iter().map(|l| json!({"line": l})).collect();
    d.request(
        "setBreakpoints",
        json!({"source": {"path": path}, "breakpoints": bps}),
    );
    d.request("configurationDone", json!({}));
    path
}

/// The stop's top frame: (line, name).
fn top_frame(d: &mut Dap) -> (u64, String) {
    let trace = d.request("stackTrace", json!({"threadId": 1}));
    let f = &trace["body"]["stackFrames"][0];
    (
        f["line"].as_u64().unwrap_or(0),
        f["name"].as_str().unwrap_or("").to_string(),
    )
}

/// The Locals scope as (name, value).
fn locals(d: &mut Dap) -> Vec<(String, String)> {
    let scopes = d.request("scopes", json!({"frameId": 0}));
    let reference = scopes["body"]["scopes"][0]["variablesReference"].clone();
    assert_eq!(scopes["body"]["scopes"][0]["name"], "Locals", "{scopes}");
    let vars = d.request("variables", json!({"variablesReference": reference}));
    vars["body"]["variables"]
        .as_array()
        .expect("variables")
        .iter()
        .map(|v| {
            (
                v["name"].as_str().unwrap_or("").to_string(),
                v["value"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn local(d: &mut Dap, name: &str) -> Option<String> {
    locals(d).into_iter().find(|l| l.0 == name).map(|l| l.1)
}

fn evaluate(d: &mut Dap, expression: &str, context: &str) -> Value {
    d.request(
        "evaluate",
        json!({"expression": expression, "context": context, "frameId": 0}),
    )
}

/// Runs (the launch started it) until the program ends; `city` at each breakpoint stop.
fn cities_at_each_stop(d: &mut Dap) -> Vec<String> {
    let mut cities = Vec::new();
    for i in 0..20 {
        if i > 0 {
            d.request("continue", json!({"threadId": 1}));
        }
        let stop = next_stop_or_end(d);
        let Some(stop) = stop else { return cities };
        assert_eq!(stop["body"]["reason"], "breakpoint", "{stop}");
        assert_eq!(top_frame(d).0, 8, "the stop is on the statement itself");
        cities.push(local(d, "city").expect("city is in Locals"));
    }
    panic!("more than 20 stops: {cities:?}");
}

/// The next `stopped` event, or `None` when the program ended (`terminated`).
fn next_stop_or_end(d: &mut Dap) -> Option<Value> {
    loop {
        let v = d.next();
        if v["type"] != "event" {
            continue;
        }
        if v["event"] == "stopped" || v["event"] == "terminated" {
            if let Some(i) = d.events.iter().rposition(|e| *e == v) {
                d.events.remove(i);
            }
            return (v["event"] == "stopped").then_some(v);
        }
    }
}

const CITIES: [&str; 4] = ["\"Honolulu\"", "\"Jakarta\"", "\"Auckland\"", "\"Suva\""];

#[test]
fn a_breakpoint_in_a_loop_stops_once_per_iteration_with_the_loop_variable() {
    let mut d = Dap::start();
    launch_city(&mut d, &[8]);
    assert_eq!(cities_at_each_stop(&mut d), CITIES);
    assert!(
        d.output().contains("Suva\nWalk around.\n"),
        "{}",
        d.output()
    );
}

#[test]
fn call_by_value_stops_once_per_iteration_too_and_lazily_the_body_never_runs() {
    let mut d = Dap::start();
    launch_city_with(&mut d, &[8], "cbv");
    assert_eq!(cities_at_each_stop(&mut d), CITIES);
    assert!(
        d.output().ends_with("Suva\nWalk around.\n"),
        "{}",
        d.output()
    );
    // Lazily nothing needs the prints (the result is `()`): no breakpoint stop, a pause that
    // says why.
    let mut d = Dap::start();
    launch_city_with(&mut d, &[8], "lazy");
    let stop = next_stop_or_end(&mut d).expect("a stop that says why");
    assert_eq!(stop["body"]["reason"], "pause", "{stop}");
    let said = stop["body"]["description"].as_str().unwrap_or("");
    assert!(said.contains("lazy evaluation is done"), "{stop}");
    assert_eq!(d.output(), "", "no print ran");
}

#[test]
fn the_console_hover_and_watch_evaluate_over_the_variables_in_scope() {
    let mut d = Dap::start();
    launch_city(&mut d, &[8]);
    d.event("stopped");
    for context in ["repl", "hover", "watch"] {
        let r = evaluate(&mut d, "city", context);
        assert_eq!(r["body"]["result"], "\"Honolulu\"", "{context}: {r}");
    }
    let r = evaluate(&mut d, "city + \"!\"", "repl");
    assert_eq!(r["body"]["result"], "\"Honolulu!\"", "{r}");
    let r = evaluate(&mut d, "length [city, city]", "repl");
    assert_eq!(r["body"]["result"], "2", "{r}");
    // Not computed yet, unknown, an external, a broken expression: refused, saying why.
    for (expr, why) in [
        ("excursions", "(not computed yet)"),
        ("nowhere", "unbound name"),
        ("get_excursions_in city", "unbound name"),
        ("city +", "cannot evaluate"),
    ] {
        let r = evaluate(&mut d, expr, "repl");
        let text = r.to_string();
        assert!(text.contains(why), "{expr}: {r}");
    }
    // The commands have a prefix; the bare word says so.
    let help = evaluate(&mut d, ":help", "repl");
    assert!(
        help["body"]["result"]
            .as_str()
            .unwrap_or("")
            .contains(":resolve"),
        "{help}"
    );
    // Rule by rule from the console: one rule step, a stop that names the rule.
    let r = evaluate(&mut d, ":rule", "repl");
    assert_eq!(r["success"], true, "{r}");
    let stop = d.event("stopped");
    let said = stop["body"]["description"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        ["reduce", "dispatch", "resolve"]
            .iter()
            .any(|w| said.contains(w)),
        "{stop}"
    );
    let bare = evaluate(&mut d, "why 1", "repl");
    assert!(
        bare["message"].as_str().unwrap_or("").contains("`:why"),
        "{bare}"
    );
    // Evaluating changed nothing: the program goes on to the same output.
    d.request(
        "setBreakpoints",
        json!({"source": {"path": program("examples/city_excursions.opal")}, "breakpoints": []}),
    );
    d.request("continue", json!({"threadId": 1}));
    d.event("terminated");
    assert!(
        d.output().ends_with("Suva\nWalk around.\n"),
        "{}",
        d.output()
    );
}

#[test]
fn every_step_lands_on_a_line_of_code_and_step_back_mirrors_it() {
    for step in ["next", "stepIn", "stepOut"] {
        let mut d = Dap::start();
        launch_city(&mut d, &[7]);
        d.event("stopped");
        let mut trail = vec![(top_frame(&mut d).0, local(&mut d, "city"))];
        for _ in 0..40 {
            d.request(step, json!({"threadId": 1}));
            let Some(stop) = next_stop_or_end(&mut d) else {
                break;
            };
            let (line, name) = top_frame(&mut d);
            assert!(
                CODE_LINES.contains(&line),
                "{step} stopped on line {line} ({name}): {stop}"
            );
            trail.push((line, local(&mut d, "city")));
        }
        if step == "stepOut" {
            // Out of the top level: on to the next breakpoint stop, as continue.
            let lines: Vec<u64> = trail.iter().map(|t| t.0).collect();
            assert_eq!(lines, [7, 7, 7, 7], "{trail:?}");
            continue;
        }
        // The loop as written: the body's lines in order, the `for` line before each next
        // iteration (its `city` not computed yet), `city` visible to the end of the body.
        let mut expected = Vec::new();
        for (i, city) in CITIES.iter().enumerate() {
            if i > 0 {
                expected.push((6, Some("(not computed yet)".to_string())));
            }
            for line in [7, 8, 9] {
                expected.push((line, Some(city.to_string())));
            }
        }
        assert_eq!(trail, expected, "{step}");
        // Back, step by step, through the same stops in reverse (while there was a stop).
        let mut d = Dap::start();
        launch_city(&mut d, &[7]);
        d.event("stopped");
        let mut forward = vec![(top_frame(&mut d).0, local(&mut d, "city"))];
        for _ in 0..6 {
            d.request(step, json!({"threadId": 1}));
            if next_stop_or_end(&mut d).is_none() {
                break;
            }
            forward.push((top_frame(&mut d).0, local(&mut d, "city")));
        }
        for expected in forward.iter().rev().skip(1) {
            let r = d.request("stepBack", json!({"threadId": 1}));
            assert_eq!(r["success"], true, "{r}");
            d.event("stopped");
            let here = (top_frame(&mut d).0, local(&mut d, "city"));
            assert_eq!(&here, expected, "{step} then stepBack: {forward:?}");
        }
    }
}

#[test]
fn reverse_continue_returns_to_the_previous_iterations_stop() {
    let mut d = Dap::start();
    launch_city(&mut d, &[8]);
    for (i, city) in CITIES[..3].iter().enumerate() {
        if i > 0 {
            d.request("continue", json!({"threadId": 1}));
        }
        d.event("stopped");
        assert_eq!(local(&mut d, "city").as_deref(), Some(*city));
    }
    let r = d.request("reverseContinue", json!({"threadId": 1}));
    assert_eq!(r["success"], true, "{r}");
    let stop = d.event("stopped");
    assert_eq!(stop["body"]["reason"], "breakpoint", "{stop}");
    assert_eq!(top_frame(&mut d).0, 8);
    assert_eq!(local(&mut d, "city").as_deref(), Some(CITIES[1]));
    let r = evaluate(&mut d, "city", "hover");
    assert_eq!(r["body"]["result"], CITIES[1], "{r}");
    // And forward again: the same stops as the first time.
    let mut rest = Vec::new();
    for _ in 0..3 {
        d.request("continue", json!({"threadId": 1}));
        match next_stop_or_end(&mut d) {
            Some(_) => rest.push(local(&mut d, "city").unwrap_or_default()),
            None => break,
        }
    }
    assert_eq!(rest, &CITIES[2..]);
}

/// A program with a function called twice: `next` stays in the frame, `stepIn` enters the
/// calls, `stepOut` leaves one.
fn launch_double(d: &mut Dap, breakpoint: u64) {
    launch_double_with(d, breakpoint, "opportunistic");
}

fn launch_double_with(d: &mut Dap, breakpoint: u64, strategy: &str) {
    let dir = std::env::temp_dir().join(format!("opal-dap-double-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("double.opal");
    std::fs::write(
        &file,
        "double := fun x:\n    y := x + x\n    y\na := double 2\nb := double a\nprint (&stdout, b)\n",
    )
    .expect("write");
    let path = file.display().to_string();
    let r = d.launch(json!({"program": path, "strategy": strategy}));
    assert_eq!(r["success"], true, "{r}");
    d.event("initialized");
    d.request(
        "setBreakpoints",
        json!({"source": {"path": path}, "breakpoints": [{"line": breakpoint}]}),
    );
    d.request("configurationDone", json!({}));
    d.event("stopped");
}

/// Steps with `step` until the end: the (line, x) of each stop.
fn trail(d: &mut Dap, step: &str) -> Vec<(u64, Option<String>)> {
    let mut out = vec![(top_frame(d).0, local(d, "x"))];
    for _ in 0..20 {
        d.request(step, json!({"threadId": 1}));
        if next_stop_or_end(d).is_none() {
            break;
        }
        out.push((top_frame(d).0, local(d, "x")));
    }
    out
}

#[test]
fn next_steps_over_calls_step_in_enters_them_step_out_leaves() {
    let x = |v: &str| Some(v.to_string());
    let mut d = Dap::start();
    launch_double(&mut d, 4);
    assert_eq!(trail(&mut d, "next"), [(4, None), (5, None), (6, None)]);
    let mut d = Dap::start();
    launch_double(&mut d, 4);
    assert_eq!(
        trail(&mut d, "stepIn"),
        [(4, None), (5, None), (2, x("2")), (2, x("4")), (6, None)]
    );
    // Call-by-value: a breakpoint in the function stops once per call, in order.
    let mut d = Dap::start();
    launch_double_with(&mut d, 2, "cbv");
    assert_eq!(trail(&mut d, "continue"), [(2, x("2")), (2, x("4"))]);
    // Out of `double 2`: the next statement that runs outside it (under opportunistic
    // evaluation `b := double a` was called at once, so its body is what runs next).
    let mut d = Dap::start();
    launch_double(&mut d, 2);
    assert_eq!(
        trail(&mut d, "stepOut"),
        [(2, x("2")), (2, x("4")), (6, None)]
    );
}

/// A Python script debugs like an OPAL program (issue 32): a breakpoint on a line of the `.py`
/// file inside a loop stops once per iteration with the loop variable by its Python name.
/// (Under call-by-value, where `n` is computed before the call on the line is inlined;
/// opportunistically the call is inlined in the same round that computes `n`, and Locals says
/// `n` is not computed yet, which is what the term holds.)
#[test]
fn a_python_script_stops_on_its_own_lines_with_its_variables() {
    let mut d = Dap::start();
    let path = program("tests/python/debug_loop.py");
    let r = d.launch(json!({"program": path, "strategy": "cbv"}));
    assert_eq!(r["success"], true, "{r}");
    d.event("initialized");
    d.request(
        "setBreakpoints",
        json!({"source": {"path": path}, "breakpoints": [{"line": 9}]}),
    );
    d.request("configurationDone", json!({}));
    let mut seen = Vec::new();
    for i in 0..10 {
        if i > 0 {
            d.request("continue", json!({"threadId": 1}));
        }
        let Some(stop) = next_stop_or_end(&mut d) else {
            break;
        };
        assert_eq!(stop["body"]["reason"], "breakpoint", "{stop}");
        assert_eq!(top_frame(&mut d).0, 9, "the stop is on the script's line");
        seen.push(local(&mut d, "n").expect("n is in Locals"));
    }
    assert_eq!(seen, ["-3", "0", "7", "10"]);
    assert!(d.output().ends_with("10 even\n"), "{}", d.output());
}

/// A Python script's externals run in CPython's worker under `opal dap` too: Continue runs
/// map_reduce.py to its end with the real summaries (no world file).
#[test]
fn a_python_scripts_externals_run_in_cpython_under_the_adapter() {
    let mut d = Dap::start();
    let path = program("tests/python/map_reduce.py");
    let r = d.launch(json!({"program": path}));
    assert_eq!(r["success"], true, "{r}");
    d.event("initialized");
    d.request("configurationDone", json!({}));
    for _ in 0..50 {
        if next_stop_or_end(&mut d).is_none() {
            break;
        }
        d.request("continue", json!({"threadId": 1}));
    }
    let out = d.output();
    assert!(
        out.contains("summary of delta epsilon zeta (3 words)"),
        "{out}"
    );
    assert!(out.ends_with("4 documents\n"), "{out}");
}
