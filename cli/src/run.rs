//! `opal run`, `opal step` and `opal explore`.

use crate::args::{EvalArgs, RunArgs, StepArgs, StepFormat};
use crate::load::{load, read_file};
use opal_core::files::{check_writable, write_file_safely};
use opal_core::machine::run::{check_trace, run as run_machine, End, Options, Report};
use opal_core::machine::trace::{sha256_hex, Trace};
use opal_core::machine::{Machine, Rule};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// The exit code when stdout's reader went away (`opal run … | head`): 128 + SIGPIPE, what a
/// shell reported when SIGPIPE ended opal, and what it reports for `yes | head`.
pub const STDOUT_CLOSED: i32 = 141;

fn options(args: &EvalArgs, text: &str, record: bool) -> Result<Options, i32> {
    let mut o = Options::new(args.strategy.into());
    o.max_steps = args.max_steps;
    // Only a recorded trace carries the source's hash (a long program takes a while to hash).
    if record {
        o.source_sha256 = sha256_hex(text);
        o.record = true;
    }
    if let Some(t) = &args.replay {
        let trace = read_file(t)
            .and_then(|s| Trace::parse(&s).map_err(|e| e.to_string()))
            .map_err(|e| {
                eprintln!("opal: {t}: {e}");
                1
            })?;
        if let Err(e) = check_trace(&trace, text, args.force) {
            eprintln!("opal: {t}: {e}");
            return Err(1);
        }
        o.replay = Some(trace);
        o.replay_force = args.force;
    }
    Ok(o)
}

/// Where the program's prints go. `live` is stopped when stdout's reader goes away.
fn sink(live: std::rc::Rc<dyn opal_core::machine::live::Live>) -> opal_core::machine::run::Sink {
    Box::new(move |handle, text| {
        if handle == "stderr" {
            let _ = std::io::stderr().write_all(text.as_bytes());
        } else {
            let mut out = std::io::stdout();
            if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                // `opal run x | head` and head has read enough: nothing more can be shown, so
                // the run ends quietly, its children stopped first (SIGPIPE is ignored, main.rs).
                if e.kind() == std::io::ErrorKind::BrokenPipe {
                    live.shutdown();
                    std::process::exit(STDOUT_CLOSED);
                }
            }
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

/// How many runtime errors a run prints before it counts the rest: a program with 100 000
/// failed calls is read from its first errors, not scrolled through.
const SHOWN_ERRORS: usize = 20;

fn report_end(
    r: &Report,
    file: &str,
    quiet: bool,
    max_steps: Option<u64>,
    m: &Machine,
    text: &str,
) {
    match &r.end {
        End::Done(Some(v)) if !quiet => println!("{v}"),
        End::Done(_) => {}
        End::Stuck(items) => {
            let index = opal_core::span::LineIndex::new(text);
            // Where each statement came from in the source, when it did (statements the
            // environment added have no place: the prelude's, the externals').
            let wanted: std::collections::HashSet<&str> = items
                .iter()
                .map(|f| f.label.as_str())
                .filter(|l| !l.is_empty())
                .collect();
            let at: std::collections::HashMap<String, u32> = if wanted.is_empty() {
                Default::default()
            } else {
                m.iter()
                    .filter_map(|s| {
                        let label = m.label_of(s);
                        let off = m.stmt(s).source_offset()?;
                        wanted.contains(label.as_str()).then_some((label, off))
                    })
                    .collect()
            };
            for f in items.iter().take(SHOWN_ERRORS) {
                eprint!(
                    "{}",
                    runtime_error(f, at.get(&f.label).copied(), file, text, &index)
                );
            }
            if items.len() > SHOWN_ERRORS {
                eprintln!(
                    "{file}: and {} more runtime errors (the first {SHOWN_ERRORS} are shown)",
                    items.len() - SHOWN_ERRORS
                );
            }
        }
        End::StepBudget => {
            let n = max_steps
                .map(|n| n.to_string())
                .unwrap_or_else(|| "the budget of".into());
            eprintln!("{file}: stopped: did not finish within {n} steps (--max-steps); a larger budget may let it finish, or it diverges")
        }
        End::RoundBudget => {}
    }
}

/// A runtime error as rustc writes errors: `file:line:col: error[R0002]: message`, the source
/// line with a caret at the statement's expression, and what to do (`docs/diagnostics.md`).
fn runtime_error(
    f: &opal_core::machine::run::Fault,
    at: Option<u32>,
    file: &str,
    text: &str,
    index: &opal_core::span::LineIndex,
) -> String {
    use opal_core::machine::run as r;
    let help = match f.code {
        r::FAILED => "the external call failed for the reason given; check the argument this call is given or, for a mocked external, its world file",
        r::STUCK => "this statement can never step with the value it was given; check how that value is built",
        r::UNFINISHED => {
            "the result waits on this statement, which waits on something that can never come (a failed or never-resolving call, or a value of the wrong shape)"
        }
        r::REPLAY => "the trace does not match this run: record it again, or pass --force to replay it anyway",
        r::STOPPED => "call-by-value stops at the first statement that cannot step; the errors above say why",
        _ => "see docs/diagnostics.md",
    };
    let label = if f.label.is_empty() {
        String::new()
    } else {
        format!(" (statement {})", f.label)
    };
    // A library function given arguments of the wrong shape fails inside it: name the call.
    let inside = f.inside.map(|c| {
        let span = opal_core::span::Span::new(c.offset as usize, c.offset as usize + c.name.len());
        (
            span,
            format!(
                "this happened inside this call of `{}`, which takes {}",
                c.name, c.shape
            ),
        )
    });
    match at {
        Some(off) => {
            // The caret covers the name or literal the statement starts at.
            let start = off as usize;
            let word = text.get(start..).map_or(1, |t| {
                t.find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(t.len())
                    .max(1)
            });
            let mut d = opal_core::diag::Diagnostic::error(
                f.code,
                opal_core::span::Span::new(start, start + word),
                format!("runtime error{label}: {}", f.message),
            )
            .with_help(help);
            if let Some((span, note)) = inside {
                d = d.with_related(span, note);
            }
            opal_core::diag::render(&d, file, text, index)
        }
        None => {
            let note = inside.map_or(String::new(), |(span, note)| {
                let lc = index.line_col(text, span.start);
                format!("  = note: {file}:{}:{}: {note}\n", lc.line, lc.col)
            });
            format!(
                "{file}: error[{}]: runtime error{label}: {}\n{note}  = help: {help}\n",
                f.code, f.message
            )
        }
    }
}

pub fn run(args: &RunArgs) -> i32 {
    let file = &args.file;
    let (text, compiled, world) = match load(file, args.eval.world.as_deref()) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let mut opts = match options(&args.eval, &text, args.record.is_some()) {
        Ok(o) => o,
        Err(c) => return c,
    };
    // A trace that cannot be written is known before the run, not after it.
    if let Some(t) = &args.record {
        if let Err(e) = check_writable(Path::new(t)) {
            eprintln!("opal: --record: {e} (nothing was run)");
            return 1;
        }
    }
    opts.world = world;
    opts.allow_exec = args.allow_exec;
    let live: std::rc::Rc<dyn opal_core::machine::live::Live> = std::rc::Rc::new(
        opal_live::LiveExternals::from_env(args.allow_exec).with_python(Path::new(file), &text),
    );
    opts.live = Some(live.clone());
    opts.replay_timing = args.timing;
    let mut m = Machine::new(&compiled.program);
    // The syntax tree and core term are not needed while the machine runs.
    drop(compiled);
    let max_steps = opts.max_steps;
    // Where the program's statements are, to name a call a trace cannot hold: a resolved call's
    // statement is gone from the term by the end of the run.
    let places = args.record.as_ref().map(|_| places(&m)).unwrap_or_default();
    let report = run_machine(&mut m, opts, sink(live.clone()), None);
    let _ = std::io::stdout().flush();
    report_end(&report, file, args.quiet, max_steps, &m, &text);
    let failed_record = args
        .record
        .as_deref()
        .is_some_and(|t| !write_trace(t, &report, &places, file, &text));
    if args.stats {
        eprintln!("rounds: {}", report.rounds);
        for r in Rule::ALL {
            eprintln!("  {}: {}", r.name(), m.steps_by(r));
        }
        eprintln!("steps: {}", m.steps_total());
        eprintln!(
            "tasks: {} (max in flight {})",
            report.tasks, report.max_in_flight
        );
        eprintln!("wall time: {:.3} ms", report.wall.as_secs_f64() * 1000.0);
        match report.first_output {
            Some(d) => eprintln!("time to first output: {:.3} ms", d.as_secs_f64() * 1000.0),
            None => eprintln!("time to first output: -"),
        }
        for line in live.stats() {
            eprintln!("{line}");
        }
    }
    // The process exits next: handing back a large term table by table only costs time.
    std::mem::forget(m);
    match exit_code(&report) {
        0 if failed_record => 1,
        code => code,
    }
}

/// The source offset of each statement of the program's term, by label.
fn places(m: &Machine) -> HashMap<String, u32> {
    m.iter()
        .filter_map(|s| Some((m.label_of(s), m.stmt(s).source_offset()?)))
        .collect()
}

/// Writes the run's trace to `path`, only if `--replay` can read all of it back (an argument
/// nested too deep cannot be): the refusal names the call and its place in the program. False
/// when nothing was written, said on stderr.
fn write_trace(
    path: &str,
    report: &Report,
    places: &HashMap<String, u32>,
    file: &str,
    text: &str,
) -> bool {
    if let Err((i, why)) = report.trace.check_recordable() {
        let call = match report.trace.events.get(i) {
            Some(e) => {
                let at = places
                    .get(&e.label)
                    .map(|off| opal_core::span::LineIndex::new(text).line_col(text, *off));
                let at = at
                    .map(|lc| format!("{file}:{}:{}: ", lc.line, lc.col))
                    .unwrap_or_default();
                format!("{at}the call to `{}` (statement {})", e.external, e.label)
            }
            None => format!("event {}", i + 1),
        };
        eprintln!("opal: --record: the trace `{path}` was not written: {call}: {why}; pass the external something flatter, or run without --record");
        return false;
    }
    let json = serde_json::to_string_pretty(&report.trace).unwrap_or_default();
    if let Err(e) = write_file_safely(Path::new(path), json.as_bytes()) {
        eprintln!("opal: --record: {e}");
        return false;
    }
    true
}

pub fn step(args: &StepArgs) -> i32 {
    let file = &args.file;
    let json = matches!(args.format, StepFormat::Json);
    let (text, compiled, world) = match load(file, args.eval.world.as_deref()) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let mut opts = match options(&args.eval, &text, false) {
        Ok(o) => o,
        Err(c) => return c,
    };
    opts.world = world;
    opts.max_rounds = args.rounds;
    opts.live = Some(std::rc::Rc::new(opal_live::LiveExternals::from_env(false)));
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
            println!(
                "step {n}: {} at {label}\n{}",
                ev.rule.name(),
                m.print_term(false)
            );
        }
    };
    let max_steps = opts.max_steps;
    let report = run_machine(&mut m, opts, Box::new(|_, _| {}), Some(&mut on_step));
    report_end(&report, file, json, max_steps, &m, &text);
    exit_code(&report)
}

/// Enumerates step orders of a small program under one resolution of every task.
pub fn explore(
    file: &str,
    world: Option<&str>,
    max_states: usize,
    full: bool,
    dot: Option<&str>,
) -> i32 {
    use opal_core::machine::explore::{explore, Mode, Options};
    let (_text, compiled, world) = match load(file, world) {
        Ok(x) => x,
        Err(c) => return c,
    };
    if let Some(path) = dot {
        if let Err(e) = check_writable(Path::new(path)) {
            eprintln!("opal: --dot: {e} (nothing was explored)");
            return 1;
        }
    }
    // A Python script's externals run in CPython under `opal run`; explore answers only what a
    // world file describes, so name the ones it cannot answer.
    let unanswered: Vec<String> = if opal_core::python::is_python(file) {
        (compiled.program.externs.iter())
            .map(|(n, _)| n.clone())
            .filter(|n| world.as_ref().is_none_or(|w| w.get(n).is_none()))
            .collect()
    } else {
        Vec::new()
    };
    let mode = if full { Mode::Full } else { Mode::Reduced };
    let r = explore(
        &Machine::new(&compiled.program),
        world,
        Options {
            mode,
            max_states,
            graph: dot.is_some(),
        },
    );
    if let Some(path) = dot {
        if let Err(e) = write_file_safely(Path::new(path), r.to_dot().as_bytes()) {
            eprintln!("opal: --dot: {e}");
            return 1;
        }
    }
    let how = match mode {
        Mode::Reduced => "one order per equivalence class",
        Mode::Full => "every interleaving",
    };
    println!("states: {} ({how})", r.states);
    let (finals, stuck): (Vec<_>, Vec<_>) =
        r.normal_forms.iter().partition(|nf| nf.stuck.is_empty());
    println!("normal forms: {}", finals.len());
    if !stuck.is_empty() {
        println!("stuck terms: {}", stuck.len());
        if !unanswered.is_empty() {
            eprintln!(
                "opal: explore does not run a script's Python externals ({}): answer them in a \
                 world file (NAME.world.toml, or --world FILE) to explore their orders",
                unanswered.join(", ")
            );
        }
    }
    print_normal_forms(&r);
    let violations = r.violations();
    if !violations.is_empty() {
        println!(
            "confluence violation: {} choice sequence(s) lead to different normal forms",
            violations.len()
        );
        return 1;
    }
    if r.truncated {
        println!("stopped at --max-states {max_states}: the states and normal forms found so far are a lower bound");
        return 4;
    }
    if !stuck.is_empty() {
        return 3;
    }
    0
}

/// Every normal form and stuck term with the choices that led to it, up to a screenful, then
/// how many more there are.
fn print_normal_forms(r: &opal_core::machine::explore::Explored) {
    const SHOWN: usize = 32;
    for (i, nf) in r.normal_forms.iter().enumerate().take(SHOWN) {
        let choices: Vec<String> = nf
            .choices
            .iter()
            .map(|(l, c)| format!("{l} → {c}"))
            .collect();
        let with = if choices.is_empty() {
            String::new()
        } else {
            format!(" (choices: {})", choices.join(", "))
        };
        let what = if nf.stuck.is_empty() {
            "normal form"
        } else {
            "stuck term"
        };
        println!("{what} {}{with}:\n{}", i + 1, nf.term);
        for why in &nf.stuck {
            println!("  stuck: {why}");
        }
    }
    if r.normal_forms.len() > SHOWN {
        println!("… and {} more", r.normal_forms.len() - SHOWN);
    }
}
