//! End-to-end tests for issue 17's "exact and honest at run time": world and trace files are
//! range-checked at load, a replay that does not match its run is an error (never a wrong
//! result with exit 0, never a hang), `--max-steps N` allows N steps, and W0002/W0004 speak
//! only when something is wrong. Each runs the real `opal` binary.

use opal_e2e::{opal, root};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `opal` with a deadline, so a regression to "hangs for ever" fails instead of blocking.
fn run(args: &[&str]) -> Output {
    let mut child = Command::new(opal())
        .args(args)
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn opal");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("opal {args:?} did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("opal-honest-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    dir
}

fn write(dir: &Path, file: &str, text: &str) -> String {
    let p = dir.join(file);
    std::fs::write(&p, text).expect("write");
    p.to_str().expect("utf8 path").to_string()
}

/// A recorded trace of CityExcursions: a 4-chunk stream at label 2, then four excursions.
fn recorded(dir: &Path) -> Value {
    let t = dir.join("rec.json");
    let o = run(&[
        "run",
        "examples/city_excursions.opal",
        "--record",
        t.to_str().expect("utf8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    serde_json::from_str(&std::fs::read_to_string(t).expect("trace")).expect("json")
}

fn replay(dir: &Path, trace: &Value, extra: &[&str]) -> Output {
    let t = write(dir, "edited.json", &trace.to_string());
    let mut args = vec!["run", "examples/city_excursions.opal", "--replay", &t];
    args.extend_from_slice(extra);
    run(&args)
}

fn excursion_index(trace: &Value, city: &str) -> usize {
    let evs = trace["events"].as_array().expect("events");
    evs.iter()
        .position(|e| e["external"] == "get_excursions_in" && e["arg"] == city)
        .expect("excursion event")
}

#[test]
fn a_replay_whose_labels_were_swapped_is_an_error_naming_both_values() {
    let dir = scratch("swap");
    let mut t = recorded(&dir);
    let (h, j) = (
        excursion_index(&t, "Honolulu"),
        excursion_index(&t, "Jakarta"),
    );
    let (lh, lj) = (
        t["events"][h]["label"].clone(),
        t["events"][j]["label"].clone(),
    );
    t["events"][h]["label"] = lj;
    t["events"][j]["label"] = lh;
    let o = replay(&dir, &t, &[]);
    assert_eq!(
        o.status.code(),
        Some(3),
        "stdout {}\nstderr {}",
        out(&o),
        err(&o)
    );
    let e = err(&o);
    assert!(
        e.contains("replay:") && e.contains("\"Honolulu\"") && e.contains("\"Jakarta\""),
        "{e}"
    );
    // With --force the recorded results are used anyway, each mismatch a warning.
    let o = replay(&dir, &t, &["--force"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(err(&o).matches("warning:").count() >= 2, "{}", err(&o));
}

#[test]
fn a_trace_whose_stream_stops_while_partial_is_refused_at_load_without_hanging() {
    let dir = scratch("cut");
    let mut t = recorded(&dir);
    let evs = t["events"].as_array_mut().expect("events");
    let last = evs
        .iter()
        .position(|e| e["chunk"] == 3)
        .expect("last chunk");
    evs.remove(last);
    let o = replay(&dir, &t, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(
        err(&o).contains("stops after chunk 2") && err(&o).contains("partial"),
        "{}",
        err(&o)
    );
}

#[test]
fn duplicated_and_renumbered_events_are_refused_at_load() {
    let dir = scratch("dup");
    let t = recorded(&dir);
    let mut dup = t.clone();
    let h = excursion_index(&t, "Honolulu");
    let copy = dup["events"][h].clone();
    dup["events"].as_array_mut().expect("events").push(copy);
    let o = replay(&dir, &dup, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(err(&o).contains("a call resolves once"), "{}", err(&o));
    let mut renum = t.clone();
    renum["events"][0]["chunk"] = Value::from(1);
    let o = replay(&dir, &renum, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(
        err(&o).contains("chunk 1 of the stream at label 2 is there twice"),
        "{}",
        err(&o)
    );
}

#[test]
fn an_event_the_run_never_uses_is_an_error() {
    let dir = scratch("unused");
    let mut t = recorded(&dir);
    let mut extra = t["events"][excursion_index(&t, "Suva")].clone();
    extra["label"] = Value::from("9.9");
    t["events"].as_array_mut().expect("events").push(extra);
    let o = replay(&dir, &t, &[]);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    assert!(
        err(&o).contains("at label 9.9 that the run never dispatched"),
        "{}",
        err(&o)
    );
}

#[test]
fn out_of_range_times_are_load_errors_not_panics() {
    let dir = scratch("range");
    let mut t = recorded(&dir);
    t["events"][4]["resolved_at_ms"] = Value::from(1e25);
    let o = replay(&dir, &t, &["--timing"]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    // Printed as written, not digit by digit (issue 29), at the event's line in the file.
    assert!(err(&o).contains("`resolved_at_ms` is 1e25:"), "{}", err(&o));
    let prog = write(&dir, "w.opal", "extern ask\nask \"x\"\n");
    for (table, key) in [
        ("[ask]\nlatency_ms = 1e300\ndefault = '1'\n", "latency_ms"),
        (
            "[ask]\n[[ask.responses]]\narg = '\"x\"'\nstream = [\"a\"]\nchunk_ms = [1e300]\n",
            "chunk_ms",
        ),
        ("[ask]\nlatency_ms = -1\ndefault = '1'\n", "latency_ms"),
    ] {
        let w = write(&dir, "w.world.toml", table);
        let o = run(&["run", &prog, "--world", &w]);
        assert_eq!(o.status.code(), Some(1), "{table}: {}", err(&o));
        assert!(
            err(&o).contains(key) && err(&o).contains("w.world.toml:"),
            "{table}: {}",
            err(&o)
        );
        assert!(!err(&o).contains("panicked"), "{}", err(&o));
    }
    let big_sleep = write(&dir, "s.opal", "sleep 1e300\n");
    let o = run(&["run", &big_sleep]);
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    assert!(
        err(&o).contains("sleep needs 0 to 86400000 milliseconds"),
        "{}",
        err(&o)
    );
}

#[test]
fn max_steps_n_allows_exactly_n_steps() {
    let o = run(&["run", "examples/sum.opal", "--stats", "--quiet"]);
    let steps: u64 = err(&o)
        .lines()
        .find_map(|l| l.strip_prefix("steps: "))
        .and_then(|n| n.trim().parse().ok())
        .expect("--stats prints steps");
    let n = steps.to_string();
    let o = run(&["run", "examples/sum.opal", "--max-steps", &n]);
    assert_eq!(
        (out(&o).as_str(), o.status.code()),
        ("55\n55\n", Some(0)),
        "{}",
        err(&o)
    );
    let less = (steps - 1).to_string();
    let o = run(&["run", "examples/sum.opal", "--max-steps", &less]);
    assert_eq!(o.status.code(), Some(4), "{}", err(&o));
    assert!(
        err(&o).contains(&format!("did not finish within {less} steps")),
        "{}",
        err(&o)
    );
    let dir = scratch("zero");
    let zero = write(&dir, "z.opal", "x := 1\nx\n");
    let o = run(&["run", &zero, "--max-steps", "0"]);
    assert_eq!(
        (out(&o).as_str(), o.status.code()),
        ("1\n", Some(0)),
        "{}",
        err(&o)
    );
}

#[test]
fn a_handle_threaded_once_in_each_branch_does_not_warn() {
    let dir = scratch("w0002");
    let prog = write(&dir, "b.opal", "x := 1\nif x < 2:\n    print (&stdout, \"a\")\nelse:\n    print (&stdout, \"b\")\nprint (&stdout, \"c\")\n");
    let o = run(&["check", &prog]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(!err(&o).contains("W0002"), "{}", err(&o));
    let o = run(&["check", "examples/fork_join.opal"]);
    assert!(!err(&o).contains("W0002"), "{}", err(&o));
    // Used twice without threading still warns.
    let twice = write(
        &dir,
        "t.opal",
        "a := print (stdout, \"a\")\nb := print (stdout, \"b\")\n",
    );
    assert!(err(&run(&["check", &twice])).contains("W0002"));
}

#[test]
fn a_world_table_that_shadows_a_standard_external_warns() {
    let dir = scratch("w0004");
    let prog = write(&dir, "p.opal", "print (&stdout, \"hi\")\n");
    let w = write(&dir, "p.world.toml", "[print]\ndefault = '()'\n");
    let o = run(&["run", &prog, "--world", &w]);
    assert!(
        err(&o).contains("warning[W0004]") && err(&o).contains("`print`"),
        "{}",
        err(&o)
    );
}

#[test]
fn a_world_table_no_call_can_read_warns() {
    let dir = scratch("w0007");
    let prog = write(
        &dir,
        "p.opal",
        "extern ask
x := ask 1
print (&stdout, x)
",
    );
    let w = write(&dir, "p.world.toml", "[ask]\ndefault = '2'\n[stdout]\ndefault = '()'\n[if]\ndefault = '1'\n[\"my ext\"]\ndefault = '1'\n");
    let o = run(&["run", &prog, "--world", &w]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "2\n");
    for (table, why) in [
        ("stdout", "is a handle"),
        ("if", "is a keyword"),
        ("my ext", "not a name a program can declare"),
    ] {
        let line = err(&o)
            .lines()
            .find(|l| l.contains(&format!("`[{table}]`")))
            .map(str::to_string)
            .unwrap_or_default();
        assert!(
            line.contains("warning[W0007]") && line.contains(why),
            "{table}: {}",
            err(&o)
        );
    }
    assert!(!err(&o).contains("`[ask]`"), "{}", err(&o));
}
