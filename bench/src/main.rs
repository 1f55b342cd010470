//! `cargo run --release -p opal-bench [-- sum|fanout|examples|table1|soak|lsp|scale|world|frame|all [MAX_EXP]]`
//! or `-- ab OLD_OPAL NEW_OPAL [ROUNDS [FILTER]]` (two builds interleaved, see `ab.rs`): the cost-model benchmarks of
//! SEMANTICS.md §6. Prints one table per benchmark; docs/performance.md quotes the figures.
//! Each phase is timed in-process (front end, building the graph, running), best of a few runs.

mod ab;

use opal_core::machine::run::{run, End, Options, Strategy};
use opal_core::machine::Machine;
use std::time::{Duration, Instant};

fn sum_source(n: usize) -> String {
    let mut s = String::with_capacity(n * 8 + 64);
    s.push_str("total := 0\nfor n in [");
    for i in 1..=n {
        if i > 1 {
            s.push_str(", ");
        }
        s.push_str(&i.to_string());
    }
    s.push_str("]:\n    total += n\nprint (&stdout, total)\n");
    s
}

fn fanout_source(n: usize, ms: u64) -> String {
    // n independent sleeps, then one use of all of them so none is garbage.
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!("s{i} := sleep {ms}\n"));
    }
    s.push_str("all := [");
    for i in 0..n {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(&format!("s{i}"));
    }
    s.push_str("]\nprint (&stdout, length all)\n");
    s
}

struct Timing {
    front: Duration,
    build: Duration,
    run: Duration,
    steps: u64,
    statements: usize,
    out: String,
    report: opal_core::machine::run::Report,
}

/// Compiles, builds and runs one program; an error only for static errors.
fn time_once(src: &str, opts: Options) -> Result<Timing, String> {
    let t0 = Instant::now();
    let c = opal_core::compile(src);
    if let Some(d) = c.diags.iter().find(|d| d.is_error()) {
        return Err(format!("{}: {}", d.code, d.message));
    }
    let t1 = Instant::now();
    let rss_front = rss_mb();
    let mut m = Machine::new(&c.program);
    let statements = c.program.size();
    drop(c);
    let rss_build = rss_mb();
    let t2 = Instant::now();
    let out = std::rc::Rc::new(std::cell::RefCell::new(String::new()));
    let o2 = out.clone();
    let report = run(
        &mut m,
        opts,
        Box::new(move |_, s| o2.borrow_mut().push_str(s)),
        None,
    );
    let t3 = Instant::now();
    let out = out.borrow().clone();
    if std::env::var_os("OPAL_BENCH_RSS").is_some() {
        eprintln!("rss MB: after front end {rss_front:.0}, after build {rss_build:.0}, after run {:.0}, peak {:.0}", rss_mb(), peak_mb());
        eprintln!(
            "slots: {} statements, {} variables, {} tasks, {} labels",
            m.stmts.len(),
            m.vars.len(),
            m.tasks.len(),
            m.labels.len()
        );
        let tables: Vec<String> = m
            .memory()
            .iter()
            .map(|(k, b)| format!("{k} {:.0}", *b as f64 / 1e6))
            .collect();
        eprintln!("machine tables MB (capacity): {}", tables.join(", "));
    }
    Ok(Timing {
        front: t1 - t0,
        build: t2 - t1,
        run: t3 - t2,
        steps: m.steps_total(),
        statements,
        out,
        report,
    })
}

fn status_field(key: &str) -> f64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.0)
        / 1024.0
}
fn rss_mb() -> f64 {
    status_field("VmRSS:")
}
fn peak_mb() -> f64 {
    status_field("VmHWM:")
}

fn best_of(k: usize, src: &str, strategy: Strategy) -> Result<Timing, String> {
    let mut best: Option<Timing> = None;
    for _ in 0..k {
        let t = time_once(src, Options::new(strategy))?;
        if !matches!(t.report.end, End::Done(_)) {
            return Err(format!("run did not finish: {:?}", t.report.end));
        }
        if best
            .as_ref()
            .map(|b| t.front + t.build + t.run < b.front + b.build + b.run)
            .unwrap_or(true)
        {
            best = Some(t);
        }
    }
    best.ok_or_else(|| "no runs".into())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn bench_sum(max_exp: u32) {
    println!("## sum of a Church list of N literals (SEMANTICS.md §6; targets 10^5 ≤ 250 ms, 10^6 ≤ 3 s)");
    println!("| N | front end ms | build ms | run ms | total ms | steps | ns/step | initial stmts | x previous |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut prev: Option<f64> = None;
    for e in 3..=max_exp {
        let n = 10usize.pow(e);
        let src = sum_source(n);
        let runs = if e >= 6 { 1 } else { 3 };
        match best_of(runs, &src, Strategy::Opportunistic) {
            Ok(t) => {
                let total = ms(t.front + t.build + t.run);
                let expect = (n as u64 * (n as u64 + 1) / 2).to_string();
                let ok = if t.out.trim() == expect {
                    ""
                } else {
                    " (WRONG OUTPUT)"
                };
                println!(
                    "| 10^{e} | {:.1} | {:.1} | {:.1} | {:.1} | {} | {:.0} | {} | {} |{ok}",
                    ms(t.front),
                    ms(t.build),
                    ms(t.run),
                    total,
                    t.steps,
                    t.run.as_nanos() as f64 / t.steps as f64,
                    t.statements,
                    prev.map(|p| format!("{:.1}x", total / p))
                        .unwrap_or_else(|| "-".into())
                );
                prev = Some(total);
            }
            Err(e) => println!("| 10^{e} | error: {e} |"),
        }
    }
}

fn bench_fanout() {
    println!("## fan-out of 1000 async externals (`sleep 100`), target ≤ 110 ms");
    println!("| calls | latency each ms | run ms | overhead |");
    println!("|---|---|---|---|");
    for (n, lat) in [(1000usize, 100u64), (10_000, 100)] {
        match best_of(3, &fanout_source(n, lat), Strategy::Opportunistic) {
            Ok(t) => println!(
                "| {n} | {lat} | {:.1} | {:.1}% |",
                ms(t.run),
                (ms(t.run) / lat as f64 - 1.0) * 100.0
            ),
            Err(e) => println!("| {n} | {lat} | error: {e} | |"),
        }
    }
}

/// Every bundled example with a world file: wall time against the critical path of its
/// external latencies (the same run on a virtual clock that only waiting advances).
fn bench_examples() {
    println!("## examples: evaluation overhead against the critical path of external latencies");
    println!("| example | strategy | wall ms | critical path ms | overhead ms | overhead | steps | tasks | max in flight |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    for f in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "opal"))
    {
        let world_path = f.with_extension("world.toml");
        let Ok(world_text) = std::fs::read_to_string(&world_path) else {
            continue;
        };
        let name = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Ok(src) = std::fs::read_to_string(f) else {
            continue;
        };
        for strategy in [Strategy::Opportunistic, Strategy::Cbv] {
            let go = |virtual_clock: bool| -> Result<Timing, String> {
                let world = opal_core::world::parse_world(&world_text)
                    .map_err(|ds| ds.first().map(|d| d.message.clone()).unwrap_or_default())?;
                let mut o = Options::new(strategy);
                o.world = Some(world);
                o.virtual_clock = virtual_clock;
                time_once(&src, o)
            };
            match (go(false), go(true)) {
                (Ok(real), Ok(ideal)) => {
                    let (w, i) = (ms(real.report.wall), ms(ideal.report.wall));
                    println!(
                        "| {name} | {} | {w:.1} | {i:.1} | {:.1} | {:.1}% | {} | {} | {} |",
                        strategy.name(),
                        w - i,
                        if i > 0.0 { (w - i) / i * 100.0 } else { 0.0 },
                        real.steps,
                        real.report.tasks,
                        real.report.max_in_flight
                    );
                }
                (Err(e), _) | (_, Err(e)) => {
                    println!("| {name} | {} | error: {e} |", strategy.name())
                }
            }
        }
    }
}

/// The paper's Table 1: the five programs under cbv and opportunistic, with the lower bound
/// that no schedule can beat given the recorded latencies and the data dependencies (the
/// paper's "Manual" column), computed from the trace of the opportunistic run: replayed on a
/// virtual clock that only waiting advances, each call taking its recorded latency from the
/// moment its arguments exist, with free evaluation.
fn bench_table1() {
    println!(
        "## Table 1: latency to first output and running time (ms), best of 3 wall-clock runs"
    );
    println!(
        "| program | cbv first | cbv total | opp. first | opp. total | speedup | latency gain | lower bound first | lower bound total | opp. over bound |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    for name in [
        "city_excursions",
        "text_to_speech",
        "fact_check",
        "tree_of_thoughts",
        "json_dec",
        "poppy_tree_of_thoughts",
        "camel_tool_use",
    ] {
        let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}")));
        let (Ok(src), Ok(world_text)) = (read("opal"), read("world.toml")) else {
            println!("| {name} | missing example or world file |");
            continue;
        };
        let trace = std::cell::RefCell::new(None);
        let go = |strategy: Strategy| -> Result<(f64, f64), String> {
            let mut best: Option<(f64, f64)> = None;
            for _ in 0..3 {
                let world = opal_core::world::parse_world(&world_text)
                    .map_err(|ds| ds.first().map(|d| d.message.clone()).unwrap_or_default())?;
                let mut o = Options::new(strategy);
                o.world = Some(world);
                o.record = true;
                let t = time_once(&src, o)?;
                if !matches!(t.report.end, End::Done(_)) {
                    return Err(format!("{:?}", t.report.end));
                }
                // From the start of evaluation, as the paper measures.
                let r = (
                    t.report.first_output.map(ms).unwrap_or(f64::NAN),
                    ms(t.report.wall),
                );
                if best.is_none_or(|b| r.1 < b.1) {
                    best = Some(r);
                    if strategy == Strategy::Opportunistic {
                        *trace.borrow_mut() = Some(t.report.trace);
                    }
                }
            }
            best.ok_or_else(|| "no runs".into())
        };
        let bound = || -> Result<(f64, f64), String> {
            let mut o = Options::new(Strategy::Opportunistic);
            o.replay = trace.borrow().clone();
            o.replay_latencies = true;
            o.virtual_clock = true;
            let t = time_once(&src, o)?;
            if !matches!(t.report.end, End::Done(_)) {
                return Err(format!("the lower-bound replay: {:?}", t.report.end));
            }
            Ok((
                t.report.first_output.map(ms).unwrap_or(f64::NAN),
                ms(t.report.wall),
            ))
        };
        let (cbv, opp) = (go(Strategy::Cbv), go(Strategy::Opportunistic));
        match (cbv, opp, bound()) {
            (Ok(c), Ok(o), Ok(b)) => println!(
                "| {name} | {:.0} | {:.0} | {:.0} | {:.0} | {:.2}x | {:.2}x | {:.0} | {:.0} | {:+.2}% |",
                c.0,
                c.1,
                o.0,
                o.1,
                c.1 / o.1,
                c.0 / o.0,
                b.0,
                b.1,
                (o.1 / b.1 - 1.0) * 100.0
            ),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => println!("| {name} | error: {e} |"),
        }
    }
}

/// A stream of `n` chunks, `gap_ms` apart, from a live external (`ticks`), for the soak test.
struct Ticker {
    n: usize,
    gap_ms: u64,
}

impl opal_core::machine::live::Live for Ticker {
    fn start(
        &self,
        ext: &str,
        _arg: &opal_core::ir::PExp,
    ) -> Option<opal_core::machine::live::LiveCall> {
        if ext != "ticks" {
            return None;
        }
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let (n, gap) = (self.n, Duration::from_millis(self.gap_ms));
        tokio::task::spawn_local(async move {
            for i in 0..n {
                tokio::time::sleep(gap).await;
                if tx.send(Ok(opal_core::ir::Prim::Int(i as i64))).is_err() {
                    return;
                }
            }
        });
        Some(opal_core::machine::live::LiveCall::Stream(rx))
    }
}

/// Soak: 10 000 concurrent async externals, and an hour of a stream (360 000 chunks 10 ms
/// apart, on the virtual clock) consumed by a loop, sampling memory as it goes: memory must
/// follow the live term, not the number of chunks or steps.
fn bench_soak() {
    println!("## soak");
    match best_of(1, &fanout_source(10_000, 100), Strategy::Opportunistic) {
        Ok(t) => println!(
            "10 000 concurrent `sleep 100`: {:.1} ms, max in flight {}, peak RSS {:.0} MB",
            ms(t.run),
            t.report.max_in_flight,
            peak_mb()
        ),
        Err(e) => println!("10 000 concurrent externals: error: {e}"),
    }
    let n: usize = std::env::var("OPAL_SOAK_CHUNKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(360_000);
    let src = "extern ticks
count := 0
for t in ticks ():
    count += 1
    if t % 36000 == 0:
        print (&stdout, t)
print (&stdout, count)
";
    let c = opal_core::compile(src);
    if let Some(d) = c.diags.iter().find(|d| d.is_error()) {
        return println!("soak stream: {}: {}", d.code, d.message);
    }
    // Live (recorded), then the recording replayed at its recorded times on the virtual clock.
    let mut trace = None;
    for replay in [false, true] {
        let mut m = Machine::new(&c.program);
        let mut o = Options::new(Strategy::Opportunistic);
        o.virtual_clock = true;
        if replay {
            o.replay = trace.take();
            o.replay_timing = true;
        } else {
            o.live = Some(std::rc::Rc::new(Ticker { n, gap_ms: 10 }));
            o.record = true;
        }
        let samples = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let s2 = samples.clone();
        let t0 = Instant::now();
        let report = run(
            &mut m,
            o,
            Box::new(move |_, text| s2.borrow_mut().push((text.trim().to_string(), rss_mb()))),
            None,
        );
        let samples = samples.borrow();
        let rss: Vec<String> = samples.iter().map(|(_, r)| format!("{r:.1}")).collect();
        println!(
            "{} stream of {n} chunks 10 ms apart ({:.0} s of stream time, virtual clock): {:?}, {} steps in {:.1} s wall; RSS MB every 36 000 chunks: {}",
            if replay { "replayed" } else { "live, recorded" },
            ms(report.wall) / 1000.0,
            report.end,
            m.steps_total(),
            t0.elapsed().as_secs_f64(),
            rss.join(" ")
        );
        let tables: Vec<String> = m
            .memory()
            .iter()
            .map(|(k, b)| format!("{k} {:.1}", *b as f64 / 1e6))
            .collect();
        println!(
            "  live statements at the end: {}; machine tables MB (capacity): {}",
            m.iter().count(),
            tables.join(", ")
        );
        trace = Some(report.trace);
    }
}

// The same allocator as the `opal` binary, so in-process figures match the CLI and server,
// counting the bytes in use (one relaxed atomic add per allocation) so the benchmark can say
// how much of a server's RSS is live data.
#[global_allocator]
static ALLOCATOR: Counting = Counting;

struct Counting;
static IN_USE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to mimalloc; the counter has no effect on memory.
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: std::alloc::Layout) -> *mut u8 {
        IN_USE.fetch_add(l.size(), std::sync::atomic::Ordering::Relaxed);
        unsafe { mimalloc::MiMalloc.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: std::alloc::Layout) {
        IN_USE.fetch_sub(l.size(), std::sync::atomic::Ordering::Relaxed);
        unsafe { mimalloc::MiMalloc.dealloc(p, l) }
    }
    unsafe fn alloc_zeroed(&self, l: std::alloc::Layout) -> *mut u8 {
        IN_USE.fetch_add(l.size(), std::sync::atomic::Ordering::Relaxed);
        unsafe { mimalloc::MiMalloc.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: std::alloc::Layout, new: usize) -> *mut u8 {
        IN_USE.fetch_add(new, std::sync::atomic::Ordering::Relaxed);
        IN_USE.fetch_sub(l.size(), std::sync::atomic::Ordering::Relaxed);
        unsafe { mimalloc::MiMalloc.realloc(p, l, new) }
    }
}

/// Bytes allocated and not yet freed in this process.
fn heap_in_use() -> usize {
    IN_USE.load(std::sync::atomic::Ordering::Relaxed)
}

fn main() {
    let what = std::env::args().nth(1).unwrap_or_else(|| "all".into());
    if what == "ab" {
        let args: Vec<String> = std::env::args().skip(2).collect();
        if let Err(e) = ab::bench_ab(&args) {
            eprintln!("opal-bench ab: {e}");
            std::process::exit(2);
        }
        return;
    }
    let max_exp = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(6);
    if what == "sum" || what == "all" {
        bench_sum(max_exp);
    }
    if what == "fanout" || what == "all" {
        bench_fanout();
    }
    if what == "examples" || what == "all" {
        bench_examples();
    }
    if what == "table1" || what == "all" {
        bench_table1();
    }
    if what == "soak" {
        bench_soak();
    }
    if what == "scale" || what == "all" {
        bench_scale(what == "all" || std::env::var_os("OPAL_BENCH_FULL").is_some());
    }
    if what == "world" {
        bench_world(10_000);
    }
    if what == "lsp-analysis" {
        lsp_scale();
    }
    if what == "lsp" || what == "all" {
        bench_lsp();
    }
    if what == "frame" || what == "all" {
        bench_frame();
    }
}

/// One timed run (front end, build and run) with a world file and a step budget.
fn time_world(
    src: &str,
    world: Option<&str>,
    strategy: Strategy,
    max_steps: Option<u64>,
) -> Result<(f64, End, u64), String> {
    let t0 = Instant::now();
    let c = opal_core::compile(src);
    if let Some(d) = c.diags.iter().find(|d| d.is_error()) {
        return Err(format!("{}: {}", d.code, d.message));
    }
    let mut opts = Options::new(strategy);
    opts.max_steps = max_steps;
    if let Some(w) = world {
        opts.world = Some(opal_core::world::parse_world(w).map_err(|d| format!("{d:?}"))?);
    }
    let mut m = Machine::new(&c.program);
    drop(c);
    let report = run(&mut m, opts, Box::new(|_, _| {}), None);
    Ok((ms(t0.elapsed()), report.end, m.steps_total()))
}

/// Best of three runs, in ms.
fn best_world(
    src: &str,
    world: Option<&str>,
    strategy: Strategy,
    max_steps: Option<u64>,
) -> String {
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        match time_world(src, world, strategy, max_steps) {
            Ok((t, End::Done(_) | End::StepBudget, _)) => best = best.min(t),
            Ok((_, end, _)) => return format!("did not finish: {end:?}"),
            Err(e) => return format!("error: {e}"),
        }
    }
    format!("{best:.0}")
}

/// Issue 17's scaling targets: every strategy and program shape linear (SEMANTICS.md §6).
/// Each row gives a size and 4× it, so the ratio shows the growth (≈ 4 is linear).
fn bench_scale(full: bool) {
    let k = if full { 1 } else { 10 };
    println!("## scaling (issue 17): ms for N and 4N, best of 3; ratio ≈ 4 is linear");
    println!("| program | N | ms at N | ms at 4N | ratio |");
    println!("|---|---|---|---|---|");
    let row = |name: &str, n: usize, f: &dyn Fn(usize) -> String| {
        let (a, b) = (f(n), f(4 * n));
        let ratio = match (a.parse::<f64>(), b.parse::<f64>()) {
            (Ok(x), Ok(y)) if x > 0.0 => format!("{:.1}", y / x),
            _ => "-".into(),
        };
        println!("| {name} | {n} | {a} | {b} | {ratio} |");
    };
    for (name, strategy) in [
        ("sum, opportunistic", Strategy::Opportunistic),
        ("sum, cbv", Strategy::Cbv),
        ("sum, lazy", Strategy::Lazy),
    ] {
        // The result is the total, so lazy evaluation must compute it too.
        row(name, 25_000 / k, &|n| {
            best_world(&format!("{}total\n", sum_source(n)), None, strategy, None)
        });
    }
    let deep = |n: usize| {
        format!("rec count := fun n:\n    if n == 0:\n        ret 0\n    else:\n        ret 1 + count (n - 1)\ncount {n}\n")
    };
    row("non-tail recursion, depth N", 25_000 / k, &|n| {
        best_world(&deep(n), None, Strategy::Opportunistic, None)
    });
    let build = |n: usize| {
        format!("rec build := fun n:\n    if n == 0:\n        ret []\n    else:\n        ret cons (n, build (n - 1))\nlength (build {n})\n")
    };
    row("list of N built by recursion", 250_000 / k, &|n| {
        best_world(&build(n), None, Strategy::Opportunistic, None)
    });
    // Lazily, each element's call is deferred and renamed along a chain of aliases: the shape
    // that was quadratic before reduce-alias renamed the shorter use list.
    row("list of N built by recursion, lazy", 25_000 / k, &|n| {
        best_world(&build(n), None, Strategy::Lazy, None)
    });
    let fold = |n: usize| {
        let rec = "rec build := fun n:\n    if n == 0:\n        ret []\n    else:\n        ret cons (n, build (n - 1))\n";
        format!("{rec}xs := build {n}\ntotal := 0\nfor x in xs:\n    total += x\ntotal\n")
    };
    row("left fold over a built list, lazy", 25_000 / k, &|n| {
        best_world(&fold(n), None, Strategy::Lazy, None)
    });
    for (name, strategy) in [
        (
            "§3.4 diverge, N steps, opportunistic",
            Strategy::Opportunistic,
        ),
        ("§3.4 diverge, N steps, cbv", Strategy::Cbv),
    ] {
        let src = "rec diverge := fun (): diverge ()\n() := diverge ()\n() := print <\"foo\">\n<\"bar\">\n";
        row(name, 250_000 / k, &|n| {
            best_world(src, None, strategy, Some(n as u64))
        });
    }
    println!();
    bench_world(10_000 / k);
}

/// A map of `n` calls answered by `n` world responses against the same map answered by a
/// `default`: the lookup is indexed, so the responses cost only their loading.
fn bench_world(n: usize) {
    println!(
        "## a map of N calls answered by N world responses vs. by a `default` (target ≤ 1.2×)"
    );
    let prog = format!(
        "extern ask\nxs := [{}]\nys := map (xs, ask)\nlength ys\n",
        (0..n)
            .map(|i| format!("\"q{i}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let responses: String = (0..n)
        .map(|i| format!("[[ask.responses]]\narg = '\"q{i}\"'\nresult = '{i}'\n"))
        .collect();
    let with = best_world(
        &prog,
        Some(&format!("[ask]\n{responses}")),
        Strategy::Opportunistic,
        None,
    );
    let default = best_world(
        &prog,
        Some("[ask]\ndefault = '1'\n"),
        Strategy::Opportunistic,
        None,
    );
    // Loading the world file is a cost of its size, not of lookups: shown on its own.
    let world = format!("[ask]\n{responses}");
    let mut parse = f64::INFINITY;
    for _ in 0..3 {
        let t0 = Instant::now();
        let _ = opal_core::world::parse_world(&world);
        parse = parse.min(ms(t0.elapsed()));
    }
    println!("| calls | {n} responses ms | of which loading the world file | default ms |");
    println!("|---|---|---|---|\n| {n} | {with} | {parse:.0} | {default} |");
}

/// A program whose task graph has about `n` nodes: `n/2` independent calls, each used by a
/// statement that also uses the previous one (a ladder of def-use edges).
fn frame_source(n: usize) -> String {
    let mut s = String::from("extern f\nacc0 := 0\n");
    for i in 1..=n / 2 {
        s.push_str(&format!("a{i} := f {i}\nacc{i} := (a{i}, acc{})\n", i - 1));
    }
    s.push_str(&format!("print (&stdout, acc{})\n", n / 2));
    s
}

/// A fan-out of `n` external calls in one loop, each answered by the world file's default.
fn fan_out_source(n: usize) -> String {
    let items: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    format!(
        "extern f\nfor x in [{}]:\n    print (&stdout, f x)\n",
        items.join(", ")
    )
}

/// Frame time of the debugger window (CPU: egui's layout and tessellation, what must fit in
/// 16 ms, and the session's slice of a running job) with a 1 000-node statement graph, a
/// 1 000-call fan-out in the call graph, and while a confluence check runs.
fn bench_frame() {
    let mut frames = Frames {
        ctx: eframe::egui::Context::default(),
        t: 0.0,
    };
    // A benchmark program that does not compile ends the benchmark.
    if frame_statements(&mut frames).is_some() && frame_calls(&mut frames).is_some() {
        frame_confluence(&mut frames);
    }
}

/// Draws frames of the debugger window, each 1/60 s after the last.
struct Frames {
    ctx: eframe::egui::Context,
    t: f64,
}

impl Frames {
    /// One frame, timed.
    fn frame(&mut self, app: &mut opal_debugger_gui::app::DebuggerApp) -> Duration {
        use eframe::egui;
        let size = egui::vec2(1600.0, 1000.0);
        self.t += 1.0 / 60.0;
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, size)),
            time: Some(self.t),
            ..Default::default()
        };
        let start = Instant::now();
        let mut out = self.ctx.run_ui(input, |ui| app.show(ui));
        out.textures_delta.clear();
        let prims = self.ctx.tessellate(out.shapes, out.pixels_per_point);
        std::hint::black_box(prims.len());
        start.elapsed()
    }
}

fn frame_report(name: &str, app: &opal_debugger_gui::app::DebuggerApp, times: &mut [Duration]) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let members: usize = app.graph.nodes.iter().map(|n| n.members).sum();
    println!(
        "frame {name}: {} nodes drawn for {members}, {} edges: median {:.2} ms, p95 {:.2} ms, max {:.2} ms ({} samples)",
        app.graph.nodes.len(),
        app.graph.edges.len(),
        ms(times[times.len() / 2]),
        ms(times[times.len() * 95 / 100]),
        ms(times[times.len() - 1]),
        times.len()
    );
}

/// The debugger window on `src`; `None` (after saying so) when the program does not compile.
fn frame_open(src: &str, world: Option<&str>) -> Option<opal_debugger_gui::app::DebuggerApp> {
    let app = opal_debugger_gui::app::DebuggerApp::from_source("frame.opal", src, world);
    if app.session.is_none() {
        println!(
            "frame: the benchmark program does not compile: {:?}",
            app.errors
        );
        return None;
    }
    Some(app)
}

/// 1. The statement graph of a 1 000-statement ladder, grouped to a legible size.
fn frame_statements(frames: &mut Frames) -> Option<()> {
    use opal_debugger_gui::app::{GraphCmd, SessionCmd};
    let mut app = frame_open(&frame_source(1_000), Some("[f]\ndefault = '1'\n"))?;
    app.run_cmd(GraphCmd::GraphMode);
    for _ in 0..5 {
        frames.frame(&mut app);
    }
    let mut times: Vec<Duration> = (0..120).map(|_| frames.frame(&mut app)).collect();
    frame_report("statements, idle", &app, &mut times);
    let mut stepping = Vec::new();
    for _ in 0..40 {
        let before = app.session.as_ref().map(|s| s.revision());
        app.run_cmd(SessionCmd::Round);
        if app.session.as_ref().map(|s| s.revision()) == before {
            app.run_cmd(SessionCmd::ResolveAll);
            continue;
        }
        for _ in 0..3 {
            stepping.push(frames.frame(&mut app));
        }
    }
    frame_report(
        "statements, stepping rounds (animating)",
        &app,
        &mut stepping,
    );
    Some(())
}

/// 2. A 1 000-call fan-out in the call graph: every call dispatched and pending.
fn frame_calls(frames: &mut Frames) -> Option<()> {
    use opal_debugger_gui::app::SessionCmd;
    let mut app = frame_open(&fan_out_source(1_000), Some("[f]\ndefault = '\"done\"'\n"))?;
    app.settings.auto_resolve = false;
    app.until = opal_debugger::session::Until::End;
    app.run_cmd(SessionCmd::RunUntil);
    let mut running = Vec::new();
    while app.session.as_ref().is_some_and(|s| s.busy().is_some()) {
        running.push(frames.frame(&mut app));
    }
    if !running.is_empty() {
        frame_report(
            "calls, while running until all 1 000 are dispatched",
            &app,
            &mut running,
        );
    }
    let mut times: Vec<Duration> = (0..120).map(|_| frames.frame(&mut app)).collect();
    frame_report("calls, 1 000 pending, idle", &app, &mut times);
    let mut resolving = Vec::new();
    for _ in 0..30 {
        app.run_cmd(SessionCmd::ResolveAll);
        app.run_cmd(SessionCmd::Round);
        for _ in 0..3 {
            resolving.push(frames.frame(&mut app));
        }
    }
    frame_report(
        "calls, resolving and stepping (collapsing)",
        &app,
        &mut resolving,
    );
    Some(())
}

/// 3. Frames during a running confluence check: the fan-out, and §3.4's divergent program.
fn frame_confluence(frames: &mut Frames) -> Option<()> {
    use opal_debugger_gui::app::SessionCmd;
    for (name, src, world) in [
        (
            "confluence on the 1 000-call fan-out",
            fan_out_source(1_000),
            Some("[f]\ndefault = '\"done\"'\n"),
        ),
        (
            "confluence on §3.4's divergent program",
            include_str!("../../examples/diverge.opal").to_string(),
            None,
        ),
    ] {
        let mut app = frame_open(&src, world)?;
        app.run_cmd(SessionCmd::Confluence(
            opal_debugger::session::Order::Reversed,
        ));
        let mut times = Vec::new();
        let start = Instant::now();
        while app.session.as_ref().is_some_and(|s| s.busy().is_some())
            && start.elapsed() < Duration::from_secs(20)
        {
            times.push(frames.frame(&mut app));
        }
        if times.is_empty() {
            println!("frame {name}: finished within one frame");
        } else {
            frame_report(name, &app, &mut times);
        }
        println!("frame {name}: {}", app.status);
    }
    Some(())
}

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
fn bench_lsp() {
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
fn lsp_scale() {
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
