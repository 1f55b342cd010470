//! What `--record` writes, `--replay` reads back (issue 29): arguments nested up to 199 deep
//! round-trip, a deeper one is refused when the trace is made, a trace nested 100 000 deep is an
//! error at its line and column; and names `--record` cannot write are refused before the run.

use opal_e2e::opal;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh directory of this test's own, with a program that passes `ask` a tuple nested
/// `depth` deep (built at run time, by a loop) and a world file mocking `ask`.
fn program(name: &str, depth: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("opal-trace-limits-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("make a private directory");
    let items: Vec<String> = (0..depth).map(|i| i.to_string()).collect();
    let src = format!("extern ask\nv := 0\nfor n in [{}]:\n    v := (v,)\nprint (&stdout, \"before\")\nr := ask v\nprint (&stdout, r)\nr\n", items.join(", "));
    std::fs::write(dir.join("deep.opal"), src).expect("write the program");
    std::fs::write(dir.join("w.world.toml"), "[ask]\ndefault = '\"answer\"'\n")
        .expect("write the world file");
    dir
}

/// `opal run deep.opal --world w.world.toml EXTRA…` in `dir`.
fn run(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["run", "deep.opal", "--world", "w.world.toml"];
    args.extend_from_slice(extra);
    Command::new(opal())
        .args(&args)
        .current_dir(dir)
        .output()
        .expect("run opal")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

const OUTPUT: &str = "before\nanswer\n\"answer\"\n";

#[test]
fn an_argument_199_deep_is_recorded_and_replayed() {
    let dir = program("199", 199);
    let o = run(&dir, &["--record", "t.json"]);
    assert_eq!(
        (o.status.code(), text(&o.stdout).as_str()),
        (Some(0), OUTPUT),
        "{}",
        text(&o.stderr)
    );
    let o = run(&dir, &["--replay", "t.json"]);
    assert_eq!(
        (o.status.code(), text(&o.stdout).as_str()),
        (Some(0), OUTPUT),
        "{}",
        text(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_argument_250_deep_is_refused_at_record_and_the_output_is_kept() {
    let dir = program("250", 250);
    let o = run(&dir, &["--record", "t.json"]);
    let err = text(&o.stderr);
    assert_eq!(
        (o.status.code(), text(&o.stdout).as_str()),
        (Some(1), OUTPUT),
        "{err}"
    );
    assert!(
        err.contains(
            "the trace `t.json` was not written: deep.opal:6:6: the call to `ask` (statement "
        ) && err.contains("the argument nests 250 deep; a trace holds arguments at most 199 deep"),
        "{err}"
    );
    assert_eq!(names_in(&dir), ["deep.opal", "w.world.toml"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_trace_nested_100000_deep_is_refused_at_its_line_and_column() {
    let dir = program("100k", 3);
    let o = run(&dir, &["--record", "t.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let trace = std::fs::read_to_string(dir.join("t.json")).expect("the trace");
    let (at, _) = trace.split_once("\"arg\": ").expect("an argument");
    let line = at.lines().count();
    let col = at.lines().last().map_or(0, |l| l.chars().count()) + "\"arg\": ".len();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let (_, rest) = trace.split_once("\"dispatched_at_ms\"").expect("a time");
    std::fs::write(
        dir.join("deep.json"),
        format!("{at}\"arg\": {deep},\n\"dispatched_at_ms\"{rest}"),
    )
    .expect("write the trace");
    let o = run(&dir, &["--replay", "deep.json"]);
    let err = text(&o.stderr);
    assert_eq!(
        (o.status.code(), text(&o.stdout).as_str()),
        (Some(1), ""),
        "{err}"
    );
    // The reader stops at the bracket one past 400 levels of JSON.
    let want = format!(
        "invalid trace file at line {line}, column {}: `arg` nests deeper than 400 levels of JSON",
        col + 401
    );
    assert!(err.contains(&want), "{err}\nwanted: {want}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn names_that_cannot_be_written_are_refused_before_the_run() {
    let dir = program("names", 3);
    std::fs::write(dir.join("file.json"), "keep").expect("write a file");
    for name in ["new.json/", "x/.", "x/..", "file.json/", "."] {
        let o = run(&dir, &["--record", name]);
        let err = text(&o.stderr);
        assert_eq!(
            (o.status.code(), text(&o.stdout).as_str()),
            (Some(1), ""),
            "{name}: {err}"
        );
        assert!(
            err.contains("so it names a directory, not a file")
                && err.contains("(nothing was run)"),
            "{name}: {err}"
        );
    }
    let long = "t".repeat(250) + ".json";
    let o = run(&dir, &["--record", &long]);
    assert_eq!(
        (o.status.code(), text(&o.stdout).as_str()),
        (Some(0), OUTPUT),
        "{}",
        text(&o.stderr)
    );
    let longer = "t".repeat(251) + ".json";
    let o = run(&dir, &["--record", &longer]);
    let err = text(&o.stderr);
    assert_eq!(
        (o.status.code(), text(&o.stdout).as_str()),
        (Some(1), ""),
        "{err}"
    );
    assert!(
        err.contains("the file name is 256 bytes, over the 255 a file name may have")
            && err.contains("(nothing was run)"),
        "{err}"
    );
    assert_eq!(
        names_in(&dir),
        ["deep.opal", "file.json", long.as_str(), "w.world.toml"]
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("file.json"))
            .ok()
            .as_deref(),
        Some("keep")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
