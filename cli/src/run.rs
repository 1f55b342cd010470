//! `opal run`, `opal step` and `opal explore`.

use crate::cmd::{load, read_file, usage_error, Args};
use opal_core::machine::run::{check_trace, run as run_machine, End, Options, Report, Strategy};
use opal_core::machine::trace::{sha256_hex, Trace};
use opal_core::machine::{Machine, Rule};
use std::io::Write;

fn options(args: &Args, text: &str) -> Result<Options, i32> {
    let strategy = match args.value("--strategy") {
        None => Strategy::Opportunistic,
        Some(s) => match Strategy::parse(s) {
            Some(s) => s,
            None => return Err(usage_error(&format!("unknown strategy `{s}` (use opportunistic, cbv or lazy)"))),
        },
    };
    let mut o = Options::new(strategy);
    o.max_steps = args.number("--max-steps").map_err(|e| usage_error(&e))?;
    o.max_rounds = args.number("--rounds").map_err(|e| usage_error(&e))?;
    o.allow_exec = args.flag("--allow-exec");
    o.live = Some(std::rc::Rc::new(opal_live::LiveExternals::from_env(o.allow_exec)));
    o.replay_timing = args.flag("--timing");
    // Only a recorded trace carries the source's hash (a long program takes a while to hash).
    if args.value("--record").is_some() {
        o.source_sha256 = sha256_hex(text);
        o.record = true;
    }
    if let Some(t) = args.value("--replay") {
        let trace = read_file(t).and_then(|s| Trace::parse(&s)).map_err(|e| {
            eprintln!("opal: {e}");
            1
        })?;
        if let Err(e) = check_trace(&trace, text, args.flag("--force")) {
            eprintln!("opal: {e}");
            return Err(1);
        }
        o.replay = Some(trace);
    }
    Ok(o)
}

fn sink() -> opal_core::machine::run::Sink {
    Box::new(|handle, text| {
        if handle == "stderr" {
            let _ = std::io::stderr().write_all(text.as_bytes());
        } else {
            let mut out = std::io::stdout();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
        }
    })
}

fn exit_code(r: &Report) -> i32 {
    match &r.end {
        End::Done(_) => 0,
        End::Stuck(_) => 3,
        End::StepBudget => 4,
        End::RoundBudget => 0,
    }
}

fn report_end(r: &Report, file: &str, quiet: bool) {
    match &r.end {
        End::Done(Some(v)) if !quiet => println!("{v}"),
        End::Done(_) => {}
        End::Stuck(items) => {
            for (label, why) in items {
                if label.is_empty() {
                    eprintln!("{file}: runtime error: {why}");
                } else {
                    eprintln!("{file}: runtime error at statement {label}: {why}");
                }
            }
        }
        End::StepBudget => eprintln!("{file}: stopped: the step budget (--max-steps) is exhausted"),
        End::RoundBudget => {}
    }
}

pub fn run(args: &Args) -> i32 {
    let [file] = args.files.as_slice() else { return usage_error("`run` needs exactly one FILE") };
    let (text, compiled, world) = match load(file, args.value("--world")) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let mut opts = match options(args, &text) {
        Ok(o) => o,
        Err(c) => return c,
    };
    opts.world = world;
    let mut m = Machine::new(&compiled.program);
    // The syntax tree and core term are not needed while the machine runs.
    drop(compiled);
    let report = run_machine(&mut m, opts, sink(), None);
    let _ = std::io::stdout().flush();
    report_end(&report, file, args.flag("--quiet"));
    if let Some(t) = args.value("--record") {
        let json = serde_json::to_string_pretty(&report.trace).unwrap_or_default();
        if let Err(e) = crate::cmd::write_atomic(t, &json) {
            eprintln!("opal: cannot write trace `{t}`: {e}");
        }
    }
    if args.flag("--stats") {
        eprintln!("rounds: {}", report.rounds);
        for r in Rule::ALL {
            eprintln!("  {}: {}", r.name(), m.steps_by(r));
        }
        eprintln!("steps: {}", m.steps_total());
        eprintln!("tasks: {} (max in flight {})", report.tasks, report.max_in_flight);
        eprintln!("wall time: {:.3} ms", report.wall.as_secs_f64() * 1000.0);
        match report.first_output {
            Some(d) => eprintln!("time to first output: {:.3} ms", d.as_secs_f64() * 1000.0),
            None => eprintln!("time to first output: -"),
        }
    }
    // The process exits next: handing back a large term table by table only costs time.
    std::mem::forget(m);
    exit_code(&report)
}

pub fn step(args: &Args) -> i32 {
    let [file] = args.files.as_slice() else { return usage_error("`step` needs exactly one FILE") };
    let json = match args.value("--format") {
        None | Some("text") => false,
        Some("json") => true,
        Some(f) => return usage_error(&format!("unknown format `{f}` (use text or json)")),
    };
    let (text, compiled, world) = match load(file, args.value("--world")) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let mut opts = match options(args, &text) {
        Ok(o) => o,
        Err(c) => return c,
    };
    opts.world = world;
    if opts.max_steps.is_none() {
        opts.max_steps = Some(10_000);
    }
    let mut m = Machine::new(&compiled.program);
    if !json {
        println!("initial term:\n{}", m.print_term(false));
    }
    let mut n = 0u64;
    let mut on_step = |m: &Machine, ev: &opal_core::machine::StepEvent| {
        n += 1;
        let label = m.labels.show(ev.label);
        if json {
            let v = serde_json::json!({"step": n, "rule": ev.rule.name(), "label": label, "term": m.print_term(false)});
            println!("{v}");
        } else {
            println!("step {n}: {} at {label}\n{}", ev.rule.name(), m.print_term(false));
        }
    };
    let report = run_machine(&mut m, opts, Box::new(|_, _| {}), Some(&mut on_step));
    report_end(&report, file, json);
    exit_code(&report)
}

/// Enumerates step orders of a small program under one resolution of every task.
pub fn explore(args: &Args) -> i32 {
    use opal_core::machine::explore::{explore, Mode, Options};
    let [file] = args.files.as_slice() else { return usage_error("`explore` needs exactly one FILE") };
    let max_states = match args.number("--max-states") {
        Ok(n) => n.unwrap_or(10_000) as usize,
        Err(e) => return usage_error(&e),
    };
    let (_text, compiled, world) = match load(file, args.value("--world")) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let mode = if args.flag("--full") { Mode::Full } else { Mode::Reduced };
    let dot = args.value("--dot");
    let r = explore(&Machine::new(&compiled.program), world, Options { mode, max_states, graph: dot.is_some() });
    if let Some(path) = dot {
        if let Err(e) = std::fs::write(path, r.to_dot()) {
            eprintln!("opal: cannot write `{path}`: {e}");
            return 1;
        }
    }
    let how = match mode {
        Mode::Reduced => "one order per equivalence class",
        Mode::Full => "every interleaving",
    };
    println!("states: {} ({how})", r.states);
    println!("normal forms: {}", r.normal_forms.len());
    for (i, nf) in r.normal_forms.iter().enumerate().take(8) {
        let choices: Vec<String> = nf.choices.iter().map(|(l, c)| format!("{l} → {c}")).collect();
        let with = if choices.is_empty() { String::new() } else { format!(" (choices: {})", choices.join(", ")) };
        println!("normal form {}{with}:\n{}", i + 1, nf.term);
    }
    let violations = r.violations();
    if !violations.is_empty() {
        println!("confluence violation: {} choice sequence(s) lead to different normal forms", violations.len());
        return 1;
    }
    if r.truncated {
        println!("stopped at --max-states {max_states}: the states and normal forms found so far are a lower bound");
        return 4;
    }
    0
}
