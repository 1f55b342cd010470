//! End-to-end tests: run the real `opal` binary on the bundled examples and check stdout,
//! stderr and exit codes per strategy (LANGUAGE.md §6). The files opal reads and writes are
//! tested in `cli_files.rs`.

use opal_e2e::{opal, root, run, stdout};
use std::process::Command;

#[test]
fn city_excursions_streams_and_runs_in_parallel() {
    let expected = "Honolulu\nLocated in the US state of Hawaii: surf at Waikiki.\nJakarta\nIn Jakarta, you can find the National Monument.\nAuckland\nWalk around.\nSuva\nWalk around.\n";
    for s in ["opportunistic", "cbv"] {
        let o = run(&["run", "examples/city_excursions.opal", "--strategy", s]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{s}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(stdout(&o), expected, "{s}");
    }
}

#[test]
fn section_3_4_diverge_under_each_strategy() {
    let o = run(&["run", "examples/diverge.opal", "--max-steps", "3000"]);
    assert_eq!((stdout(&o).as_str(), o.status.code()), ("foo\n", Some(4)));
    let o = run(&[
        "run",
        "examples/diverge.opal",
        "--strategy",
        "cbv",
        "--max-steps",
        "3000",
    ]);
    assert_eq!((stdout(&o).as_str(), o.status.code()), ("", Some(4)));
    let o = run(&[
        "run",
        "examples/diverge.opal",
        "--strategy",
        "lazy",
        "--max-steps",
        "3000",
    ]);
    assert_eq!(
        (stdout(&o).as_str(), o.status.code()),
        ("\"bar\"\n", Some(0))
    );
}

#[test]
fn sum_prints_output_then_result() {
    let o = run(&["run", "examples/sum.opal"]);
    assert_eq!(stdout(&o), "55\n55\n");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn streaming_and_fork_join() {
    let o = run(&["run", "examples/streaming.opal"]);
    assert_eq!(stdout(&o), "a\nm\nz\n");
    let o = run(&["run", "examples/fork_join.opal"]);
    assert_eq!(stdout(&o), "contents of foo\ndone\n");
}

#[test]
fn record_then_replay_reproduces_the_run_and_refuses_other_sources() {
    let dir = std::env::temp_dir().join(format!("opal-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let trace = dir.join("t.json");
    let t = trace.to_str().expect("utf8");
    let live = run(&["run", "examples/city_excursions.opal", "--record", t]);
    assert_eq!(live.status.code(), Some(0));
    let text = std::fs::read_to_string(&trace).expect("trace written");
    let v: serde_json::Value = serde_json::from_str(&text).expect("trace is JSON");
    assert_eq!(v["version"], 1);
    assert!(v["events"]
        .as_array()
        .map(|a| a.len() >= 5)
        .unwrap_or(false));
    let replay = run(&["run", "examples/city_excursions.opal", "--replay", t]);
    assert_eq!(stdout(&replay), stdout(&live));
    let other = run(&["run", "examples/sum.opal", "--replay", t]);
    assert_eq!(other.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&other.stderr).contains("different source"));
}

#[test]
fn check_reports_json_and_exit_codes() {
    let o = run(&[
        "check",
        "core/tests/fixtures/err_unbound_suggest.opal",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    let e = v
        .as_array()
        .and_then(|a| a.iter().find(|d| d["code"] == "E0100"))
        .expect("an E0100");
    assert_eq!(e["range"]["start"]["line"], 2);
    let o = run(&["check", "examples/sum.opal"]);
    assert_eq!(o.status.code(), Some(0));
    let o = run(&["check", "core/tests/fixtures/err_tab.opal"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("err_tab.opal:2:1: error[E0002]"), "{err}");
}

#[test]
fn usage_errors_exit_2_and_missing_files_exit_1() {
    assert_eq!(run(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(
        run(&["run", "examples/sum.opal", "--strategy", "eager"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(run(&["run", "no/such/file.opal"]).status.code(), Some(1));
}

#[test]
fn explore_finds_one_normal_form() {
    let o = run(&[
        "explore",
        "examples/confluence.opal",
        "--max-states",
        "20000",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("normal forms: 1"));
    let full = run(&[
        "explore",
        "examples/confluence.opal",
        "--full",
        "--max-states",
        "20000",
    ]);
    assert_eq!(full.status.code(), Some(0), "{}", stdout(&full));
    assert!(
        stdout(&full).contains("normal forms: 1") && stdout(&full).contains("every interleaving")
    );
}

/// Programs that exceeded 10 000 states before partial-order reduction: each has one
/// normal form, found within the default budget (times in `opal-bench explore`).
#[test]
fn explore_with_partial_order_reduction_finishes_on_small_programs() {
    for p in [
        "wrapper_calls",
        "calls_and_prints",
        "eight_calls",
        "sum2",
        "sum3",
    ] {
        let o = run(&["explore", &format!("tests/explore/{p}.opal")]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{p}: {}{}",
            stdout(&o),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            stdout(&o).contains("normal forms: 1\n"),
            "{p}: {}",
            stdout(&o)
        );
    }
    // Unreduced, the same program runs out of states: exit 4, and what was found is reported.
    let o = run(&[
        "explore",
        "tests/explore/eight_calls.opal",
        "--full",
        "--max-states",
        "2000",
    ]);
    assert_eq!(o.status.code(), Some(4), "{}", stdout(&o));
    assert!(stdout(&o).contains("lower bound"), "{}", stdout(&o));
}

#[test]
fn explore_lists_a_normal_form_per_choice_sequence_and_writes_the_graph() {
    let dot = std::env::temp_dir().join(format!("opal-explore-{}.dot", std::process::id()));
    let o = run(&[
        "explore",
        "tests/explore/coins.opal",
        "--dot",
        dot.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(out.contains("normal forms: 4"), "{out}");
    assert!(out.contains("→ true") && out.contains("→ false"), "{out}");
    let graph = std::fs::read_to_string(&dot).expect("the graph was written");
    let _ = std::fs::remove_file(&dot);
    assert!(
        graph.starts_with("digraph")
            && graph.contains("dispatch")
            && graph.contains("peripheries=2"),
        "{graph}"
    );
}

#[test]
fn step_shows_rules_by_name() {
    let o = run(&["step", "examples/sum.opal", "--format", "json"]);
    let rules: Vec<String> = stdout(&o)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["rule"].as_str().map(String::from))
        .collect();
    for r in [
        "reduce-alias",
        "reduce-call",
        "reduce-proj",
        "reduce-gc",
        "dispatch",
        "resolve",
    ] {
        assert!(rules.iter().any(|x| x == r), "no {r} step");
    }
}

#[test]
fn fmt_check_and_desugar() {
    assert_eq!(
        run(&["fmt", "--check", "examples/sum.opal"]).status.code(),
        Some(0)
    );
    let o = run(&["desugar", "examples/fig2b_core.opal"]);
    assert!(stdout(&o).contains("x0 := <\"Oceania\">"));
    assert!(stdout(&o).contains("stdout3 := fold x3"));
}

#[test]
fn debug_without_a_display_or_with_a_bad_program_says_why() {
    let headless = Command::new(opal())
        .args(["debug", "examples/sum.opal"])
        .current_dir(root())
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .expect("run opal");
    let err = String::from_utf8_lossy(&headless.stderr);
    assert_eq!(headless.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot open a window") && err.contains("xvfb-run"),
        "{err}"
    );
    let dir = std::env::temp_dir().join(format!("opal-debug-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("bad.opal");
    std::fs::write(&bad, "x := (1 +\n").expect("write");
    let o = run(&["debug", bad.to_str().expect("utf-8 path")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("bad.opal:2:1: error[E0001]"), "{err}");
    let o = run(&["debug", "nope.opal"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("nope.opal: cannot read"));
    assert_eq!(run(&["debug", "a.opal", "b.opal"]).status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_command_line_has_help_completions_a_man_page_and_suggestions() {
    let o = run(&["run", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    let help = stdout(&o);
    for want in [
        "--max-steps <N>",
        "--strategy <STRATEGY>",
        "--replay <T>",
        "--force",
        "Exit codes:",
        "4  budget reached",
    ] {
        assert!(
            help.contains(want),
            "`opal run --help` lacks {want}:\n{help}"
        );
    }
    let o = run(&["help", "explore"]);
    assert!(stdout(&o).contains("--max-states <N>"), "{}", stdout(&o));
    assert_eq!(run(&["--version"]).status.code(), Some(0));
    let o = run(&["chek", "examples/sum.opal"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("similar subcommand exists: 'check'"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = run(&["run", "--strat", "cbv", "examples/sum.opal"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("similar argument exists: '--strategy'"));
    for shell in ["bash", "zsh", "fish"] {
        let o = run(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0));
        assert!(stdout(&o).contains("max-steps"), "{shell}");
    }
    let o = run(&["man"]);
    assert!(
        stdout(&o).starts_with(".ie") || stdout(&o).contains(".TH opal"),
        "{}",
        stdout(&o)
    );
    // Each command has its own page with every option and the exit codes.
    let o = run(&["man", "run"]);
    assert_eq!(o.status.code(), Some(0));
    for want in [".TH opal-run", "max\\-steps", "replay", "Exit codes"] {
        assert!(stdout(&o).contains(want), "{want}: {}", stdout(&o));
    }
    let o = run(&["man", "runn"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("explore"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // The directory is created if missing.
    let base = std::env::temp_dir().join(format!("opal-man-{}", std::process::id()));
    let dir = base.join("man1");
    let o = run(&["man", "--out-dir", &dir.to_string_lossy()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for page in [
        "opal.1",
        "opal-run.1",
        "opal-explore.1",
        "opal-check.1",
        "opal-completions.1",
    ] {
        assert!(
            dir.join(page).is_file(),
            "{page} missing in {}",
            dir.display()
        );
    }
    let _ = std::fs::remove_dir_all(&base);
}

/// Issue 28: a runtime error names its place (file:line:col), a code, the source line and what
/// to do; Python's argument order for `map` is a static error.
#[test]
fn runtime_errors_name_their_place_and_map_order_is_checked() {
    for s in ["opportunistic", "cbv", "lazy"] {
        let o = run(&[
            "run",
            "tests/runs/runtime_error_place.opal",
            "--strategy",
            s,
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "{s}: {err}");
        assert!(
            err.contains("tests/runs/runtime_error_place.opal:2:19: error[R0002]"),
            "{s}: {err}"
        );
        assert!(
            err.contains("2 | add_one := fun x: x + 1") && err.contains("= help:"),
            "{s}: {err}"
        );
    }
    let o = run(&["run", "tests/runs/map_argument_order.opal"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(":3:13: error[E0108]: `map` takes (list, function)"),
        "{err}"
    );
}
