//! `opal-bench python`: the LLM-shaped scripts of `tests/python/` as a Python developer runs
//! them, end to end: time to first output and wall time of `opal run script.py` against
//! `python3 script.py` (sequential, the project's `opal` module running each external where it
//! is called) and, where `bench/python/` has one, a hand-written asyncio version. Each figure
//! is the best of three rounds; the three programs run interleaved in every round. Process
//! start is included (CPython's interpreter, OPAL's CPython worker): that is what a user waits
//! for. A row whose output differs from CPython's says so instead of a time.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const SCRIPTS: &[&str] = &[
    "map_reduce",
    "self_consistency",
    "poppy_fig1",
    "city_excursions",
    "fact_check",
    "tree_of_thoughts",
    "json_extraction",
    "camel_plan",
    "react_agent",
    "streaming_chat",
];

/// One run: (ms to the first byte of output, ms to exit, the output).
fn timed(mut cmd: Command) -> Result<(f64, f64, Vec<u8>), String> {
    let t0 = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut out = child.stdout.take().ok_or("no stdout")?;
    let mut buf = Vec::new();
    let mut first = None;
    let mut chunk = [0u8; 4096];
    loop {
        let n = out.read(&mut chunk).map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        first.get_or_insert_with(|| t0.elapsed());
        buf.extend_from_slice(&chunk[..n]);
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    let total = super::ms(t0.elapsed());
    if !status.success() {
        return Err(format!("exit {:?}", status.code()));
    }
    Ok((first.map(super::ms).unwrap_or(f64::NAN), total, buf))
}

/// The best (by wall time) of the runs so far, with its first-output time.
#[derive(Default)]
struct Best(Option<(f64, f64)>);

impl Best {
    fn add(&mut self, r: (f64, f64)) {
        if self.0.is_none_or(|b| r.1 < b.1) {
            self.0 = Some(r);
        }
    }
    fn cells(&self) -> String {
        match self.0 {
            Some((f, t)) => format!("{f:.0} | {t:.0}"),
            None => "– | –".into(),
        }
    }
}

pub fn bench_python() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let opal = root.join("target/release/opal");
    if !opal.exists() {
        println!("opal-bench python: build target/release/opal first (cargo build --release -p opal-cli)");
        return;
    }
    let python = std::env::var("OPAL_PYTHON").unwrap_or_else(|_| "python3".into());
    let scripts = root.join("tests/python");
    println!("## Python scripts: time to first output and wall time (ms, end to end), best of 3");
    println!(
        "| script | CPython first | CPython total | asyncio first | asyncio total | OPAL first | OPAL total | OPAL vs CPython | OPAL vs asyncio |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for name in SCRIPTS {
        let script = scripts.join(format!("{name}.py"));
        let by_hand: PathBuf = root.join(format!("bench/python/{name}_asyncio.py"));
        let (mut cpython, mut asyncio, mut ours) =
            (Best::default(), Best::default(), Best::default());
        let mut wrong = None;
        for _ in 0..3 {
            let mut c = Command::new(&python);
            c.arg(&script)
                .env("PYTHONPATH", root.join("python"))
                .current_dir(&scripts);
            let want = match timed(c) {
                Ok((f, t, out)) => {
                    cpython.add((f, t));
                    out
                }
                Err(e) => {
                    wrong = Some(format!("CPython: {e}"));
                    break;
                }
            };
            if by_hand.exists() {
                let mut c = Command::new(&python);
                c.arg(&by_hand);
                match timed(c) {
                    Ok((f, t, _)) => asyncio.add((f, t)),
                    Err(e) => wrong = Some(format!("asyncio: {e}")),
                }
            }
            let mut c = Command::new(&opal);
            c.arg("run").arg(&script).current_dir(&scripts);
            match timed(c) {
                Ok((_, _, out)) if out != want => wrong = Some("OPAL's output differs".into()),
                Ok((f, t, _)) => ours.add((f, t)),
                Err(e) => wrong = Some(format!("opal: {e}")),
            }
        }
        if let Some(w) = wrong {
            println!("| {name} | {w} |");
            continue;
        }
        let ratio = |b: &Best| match (b.0, ours.0) {
            (Some((_, a)), Some((_, o))) => format!("{:.2}x", a / o),
            _ => "–".into(),
        };
        println!(
            "| {name} | {} | {} | {} | {} | {} |",
            cpython.cells(),
            asyncio.cells(),
            ours.cells(),
            ratio(&cpython),
            ratio(&asyncio)
        );
    }
    println!("(ratios above 1: OPAL finishes sooner)");
}
