//! Errors stay readable whatever the size of the data (issue 29): a value is quoted up to 200
//! characters and then counted, a dictionary's keys up to 8, a run prints its first 20 runtime
//! errors, a replay names its first 10 unused or mismatched events and counts the rest.

use opal_e2e::opal;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh directory of this test's own holding `files`.
fn dir_with(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("opal-error-sizes-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("make a private directory");
    for (file, text) in files {
        std::fs::write(dir.join(file), text).expect("write a test file");
    }
    dir
}

fn run(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    Command::new(opal())
        .args(&all)
        .current_dir(dir)
        .output()
        .expect("run opal")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_two_megabyte_string_in_an_error_is_quoted_200_characters_long() {
    // Twenty doublings of "ab": 2 097 152 bytes, then added to a number.
    let doublings: Vec<String> = (1..=20).map(|i| i.to_string()).collect();
    let src = format!(
        "s := \"ab\"\nfor n in [{}]:\n    s := s + s\nprint (s + 1)\n",
        doublings.join(", ")
    );
    let dir = dir_with("string", &[("big.opal", &src)]);
    let o = run(&dir, &["big.opal"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&format!(
            "add needs two numbers, got (\"{}… (2097154 bytes in all), 1)",
            "ab".repeat(99) + "a"
        )),
        "{err}"
    );
    assert!(err.len() < 2_000, "{} bytes of stderr", err.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_key_lists_eight_keys_and_counts_them_all() {
    let entries: Vec<String> = (0..500).map(|i| format!("\"k{i}\": {i}")).collect();
    let src = format!("d := {{{}}}\nprint d[\"nope\"]\n", entries.join(", "));
    let dir = dir_with("keys", &[("keys.opal", &src)]);
    let o = run(&dir, &["keys.opal"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    let keys =
        "\"k0\", \"k1\", \"k2\", \"k3\", \"k4\", \"k5\", \"k6\", \"k7\", … (500 keys in all)";
    assert!(
        err.contains(&format!(
            "key \"nope\" is not in the dictionary (its keys: {keys})"
        )),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

const MANY: &str = "extern ask\nxs := map(range 30, fun n: ask n)\nprint xs\n";

#[test]
fn thirty_failed_calls_print_twenty_errors_and_a_count() {
    let world = "[ask]\n[[ask.responses]]\narg = '0'\nresult = '\"zero\"'\n";
    let dir = dir_with("many", &[("many.opal", MANY), ("many.world.toml", world)]);
    let o = run(&dir, &["many.opal"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert_eq!(err.matches("error[R0002]").count(), 20, "{err}");
    assert!(
        err.ends_with("many.opal: and 9 more runtime errors (the first 20 are shown)\n"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_forced_replay_names_ten_mismatches_and_counts_the_rest() {
    let dir = dir_with(
        "force",
        &[
            ("many.opal", MANY),
            ("many.world.toml", "[ask]\ndefault = '\"x\"'\n"),
        ],
    );
    let o = run(&dir, &["many.opal", "--record", "t.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // The same calls with other arguments: every delivery mismatches.
    let trace = std::fs::read_to_string(dir.join("t.json")).expect("read the trace");
    let shifted = trace.replace("\"arg\": ", "\"arg\": 1");
    assert_ne!(trace, shifted);
    std::fs::write(dir.join("t2.json"), shifted).expect("write the edited trace");
    let o = run(&dir, &["many.opal", "--replay", "t2.json", "--force"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(err.matches("but the run calls `ask`").count(), 10, "{err}");
    assert!(err.contains("warning: and 20 more calls that do not match the trace (replaying the recorded results, --force)"), "{err}");
    // Without --force the first mismatch is an error.
    let o = run(&dir, &["many.opal", "--replay", "t2.json"]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    // A program that calls nothing: 30 unused events, 10 named.
    std::fs::write(dir.join("many.opal"), "extern ask\nprint 1\n").expect("write the program");
    let o = run(&dir, &["many.opal", "--replay", "t.json", "--force"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(
        err.matches("that the run never dispatched (--force)")
            .count(),
        11,
        "{err}"
    );
    assert!(err.contains("warning: replay: and 20 more events in the trace that the run never dispatched (--force)"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `v := [v]` `depth` times, then `len v` and `v`.
fn nested(depth: usize) -> String {
    format!("v := [1]\nfor n in range {depth}:\n    v := [v]\nprint (len v)\nprint v\n")
}

#[test]
fn a_list_nested_990_deep_prints_and_1200_deep_is_an_error_that_says_so() {
    let dir = dir_with(
        "nested",
        &[("ok.opal", &nested(990)), ("deep.opal", &nested(1200))],
    );
    for strategy in ["opportunistic", "cbv", "lazy"] {
        let o = run(&dir, &["--strategy", strategy, "ok.opal"]);
        let out = text(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{strategy}: {}", text(&o.stderr));
        assert!(
            out.starts_with(&format!("1\n{}1{}\n", "[".repeat(991), "]".repeat(991))),
            "{strategy}: {out}"
        );
        let o = run(&dir, &["--strategy", strategy, "deep.opal"]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "{strategy}: {err}");
        assert!(
            err.contains(
                "deep.opal:4:8: error[R0001]: runtime error (statement 7): the argument nests lists, dictionaries or tuples more than 1000 levels deep"
            ),
            "{strategy}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_world_value_nested_199_deep_prints() {
    let deep = format!("{}1{}", "[".repeat(199), "]".repeat(199));
    let world = format!("[ask]\ndefault = '{deep}'\n");
    let dir = dir_with(
        "world",
        &[
            ("w.opal", "extern ask\nprint (ask 1)\n"),
            ("w.world.toml", &world),
        ],
    );
    let o = run(&dir, &["w.opal"]);
    assert_eq!(
        (o.status.code(), text(&o.stdout)),
        (Some(0), format!("{deep}\n")),
        "{}",
        text(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
