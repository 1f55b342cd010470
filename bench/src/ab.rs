//! `opal-bench ab OLD NEW [ROUNDS [FILTER]]`: two `opal` binaries on the same programs,
//! interleaved (A B B A per round, so drift in the host's load falls on both alike), as whole
//! processes: median and best wall time, median CPU time (user + system, from `wait4`'s
//! rusage) and peak resident memory, with NEW/OLD ratios. No timing asserts: the ratios are for
//! a person to read (docs/performance.md, "Comparing two builds", gives the noise floor).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// One program to run: its name, the arguments after `opal` and the directory it runs in.
struct Case {
    name: String,
    args: Vec<String>,
}

/// What one run of one binary on one case cost.
#[derive(Clone, Copy)]
pub(crate) struct Sample {
    pub(crate) wall_ms: f64,
    pub(crate) cpu_ms: f64,
    /// The part of `cpu_ms` spent in the kernel.
    pub(crate) sys_ms: f64,
    pub(crate) peak_mb: f64,
}

/// Runs `exe args`, output discarded; the cost, or why it failed (a failed run is not timed:
/// comparing a binary that fails against one that works says nothing about speed).
pub(crate) fn run_once(exe: &Path, args: &[String]) -> Result<Sample, String> {
    let start = Instant::now();
    let child = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills in; `pid` is our own unreaped child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    if got != pid {
        return Err(format!("wait4 failed for {}", exe.display()));
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        return Err(format!(
            "{} {} exited with status {status}",
            exe.display(),
            args.join(" ")
        ));
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    Ok(Sample {
        wall_ms,
        cpu_ms: secs(usage.ru_utime) + secs(usage.ru_stime),
        sys_ms: secs(usage.ru_stime),
        peak_mb: usage.ru_maxrss as f64 / 1024.0,
    })
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    match xs.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => xs[n / 2],
        n => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    }
}

fn min(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::INFINITY, f64::min)
}

/// The programs: the sum of 10^5 under each strategy, 200 and 10 000 concurrent sleeps, and
/// every example that has a world file (latency-bound: there the two should tie).
fn cases(dir: &Path) -> Result<Vec<Case>, String> {
    let sum = dir.join("sum_1e5.opal");
    std::fs::write(&sum, crate::sum_source(100_000)).map_err(|e| e.to_string())?;
    let fan = dir.join("fanout_200.opal");
    std::fs::write(&fan, crate::fanout_source(200, 50)).map_err(|e| e.to_string())?;
    let path = |p: &Path| p.display().to_string();
    let mut out = Vec::new();
    for strategy in ["opportunistic", "cbv", "lazy"] {
        let args = vec![
            "run".into(),
            "--strategy".into(),
            strategy.into(),
            path(&sum),
        ];
        out.push(Case {
            name: format!("sum 1e5 {strategy}"),
            args,
        });
    }
    out.push(Case {
        name: "fan-out 200 x 50 ms".into(),
        args: vec!["run".into(), path(&fan)],
    });
    let wide = dir.join("fanout_10000.opal");
    std::fs::write(&wide, crate::fanout_source(10_000, 100)).map_err(|e| e.to_string())?;
    out.push(Case {
        name: "fan-out 10000 x 100 ms".into(),
        args: vec!["run".into(), path(&wide)],
    });
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&examples)
        .map_err(|e| format!("{}: {e}", examples.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".world.toml"))
        .collect();
    found.sort();
    for world in found {
        let program = PathBuf::from(world.to_string_lossy().replace(".world.toml", ".opal"));
        if program.is_file() {
            let name = program
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned());
            let name = name.unwrap_or_default();
            out.push(Case {
                name,
                args: vec!["run".into(), path(&program)],
            });
        }
    }
    Ok(out)
}

/// `ab OLD NEW [ROUNDS [FILTER]]`: prints one row per case.
pub fn bench_ab(args: &[String]) -> Result<(), String> {
    let [old, new, rest @ ..] = args else {
        return Err("usage: opal-bench ab OLD_OPAL NEW_OPAL [ROUNDS [FILTER]]".into());
    };
    let rounds: usize = match rest.first() {
        Some(r) => r
            .parse()
            .map_err(|_| format!("ROUNDS must be a number, not `{r}`"))?,
        None => 5,
    };
    let filter = rest.get(1).cloned().unwrap_or_default();
    let dir = std::env::temp_dir().join(format!("opal-ab-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let (old, new) = (PathBuf::from(old), PathBuf::from(new));
    println!(
        "A = {}, B = {}, {rounds} rounds of A B B A",
        old.display(),
        new.display()
    );
    println!(
        "{:<26} {:>10} {:>10} {:>7} {:>9} {:>9} {:>7} {:>8} {:>8} {:>6}",
        "case", "A med ms", "B med ms", "B/A", "A min", "B min", "cpu B/A", "A MB", "B MB", "mem"
    );
    for case in cases(&dir)?.iter().filter(|c| c.name.contains(&filter)) {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            a.push(run_once(&old, &case.args)?);
            b.push(run_once(&new, &case.args)?);
            b.push(run_once(&new, &case.args)?);
            a.push(run_once(&old, &case.args)?);
        }
        let col = |xs: &[Sample], f: fn(&Sample) -> f64| xs.iter().map(f).collect::<Vec<f64>>();
        let (aw, bw) = (col(&a, |s| s.wall_ms), col(&b, |s| s.wall_ms));
        let (ac, bc) = (median(col(&a, |s| s.cpu_ms)), median(col(&b, |s| s.cpu_ms)));
        let (am, bm) = (
            median(col(&a, |s| s.peak_mb)),
            median(col(&b, |s| s.peak_mb)),
        );
        let (amed, bmed) = (median(aw.clone()), median(bw.clone()));
        println!(
            "{:<26} {amed:>10.1} {bmed:>10.1} {:>7.3} {:>9.1} {:>9.1} {:>7.3} {am:>8.1} {bm:>8.1} {:>6.3}",
            case.name,
            bmed / amed,
            min(&aw),
            min(&bw),
            bc / ac,
            bm / am,
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
