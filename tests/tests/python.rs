//! CPython is the oracle for the Python front end (issue 32): every script in `tests/python/`
//! runs under `python3` (with the project's `opal` module on the path, whose decorators run
//! each external where it is called) and under `opal run` with each strategy, lazy included (a
//! script's result is its output; its externals run in OPAL's CPython worker); stdout must be
//! byte-identical and both must exit 0.

use opal_e2e::{opal, root};
use std::path::PathBuf;
use std::process::Command;

fn scripts() -> Vec<PathBuf> {
    let dir = root().join("tests/python");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/python")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    out.sort();
    out
}

#[test]
fn every_script_prints_what_cpython_prints() {
    let python = std::env::var("OPAL_PYTHON").unwrap_or_else(|_| "python3".into());
    let scripts = scripts();
    assert!(scripts.len() >= 40, "the scripts are there");
    // A script named like a standard module (`numbers.py`) would shadow it for both runs.
    let stdlib = Command::new(&python)
        .args(["-c", "import sys; print(' '.join(sys.stdlib_module_names))"])
        .output()
        .unwrap_or_else(|e| panic!("{python} is needed for the Python tests: {e}"));
    let stdlib = String::from_utf8_lossy(&stdlib.stdout).into_owned();
    for s in &scripts {
        let stem = s
            .file_stem()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        assert!(
            !stdlib.split(' ').any(|m| m == stem),
            "{s:?} shadows a standard module"
        );
    }
    let mut failures = Vec::new();
    for script in &scripts {
        let name = script.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        let want = Command::new(&python)
            .arg(script)
            .env("PYTHONPATH", root().join("python"))
            .current_dir(root().join("tests/python"))
            .output()
            .unwrap_or_else(|e| panic!("{python} is needed for the Python tests: {e}"));
        assert!(want.status.success(), "{name} under CPython: {want:?}");
        for strategy in ["opportunistic", "cbv", "lazy"] {
            let got = Command::new(opal())
                .args(["run", &name, "--strategy", strategy])
                .current_dir(root().join("tests/python"))
                .output()
                .expect("run opal");
            if !got.status.success() || got.stdout != want.stdout {
                failures.push(format!(
                    "{name} ({strategy}): exit {:?}\n--- CPython\n{}--- opal\n{}--- stderr\n{}",
                    got.status.code(),
                    String::from_utf8_lossy(&want.stdout),
                    String::from_utf8_lossy(&got.stdout),
                    String::from_utf8_lossy(&got.stderr)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// What is outside the fragment is refused with its place and what to do, never run wrongly.
#[test]
fn a_script_outside_the_fragment_is_refused_at_its_line() {
    let (code, out, err) = run_script("outside", "x = 1\nclass Plan:\n    pass\nprint(x)\n", &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("outside.py:2:1: error[E0401]"), "{err}");
    assert!(err.contains("move the class into an external"), "{err}");
    assert!(out.is_empty(), "nothing ran");
}

/// `opal run NAME.py` on `text` in a directory of its own (removed after), with `env`
/// (a value naming `{dir}` gets the directory): the exit code, stdout and stderr.
fn run_script(name: &str, text: &str, env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let dir = std::env::temp_dir().join(format!("opal-py-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let script = dir.join(format!("{name}.py"));
    std::fs::write(&script, text).expect("write");
    let mut cmd = Command::new(opal());
    cmd.args(["run", &script.to_string_lossy()]);
    for (k, v) in env {
        cmd.env(k, v.replace("{dir}", &dir.to_string_lossy()));
    }
    let o = cmd.output().expect("run opal");
    let _ = std::fs::remove_dir_all(&dir);
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (o.status.code(), text(&o.stdout), text(&o.stderr))
}

const RAISES: &str = "from opal import unordered\n\n\n@unordered\ndef lookup(city):\n    \
    if city == \"Atlantis\":\n        raise KeyError(f\"no such city: {city}\")\n    \
    return city.upper()\n\n\nprint(lookup(\"Oslo\"))\nprint(lookup(\"Atlantis\"))\n";

/// An exception in an external fails its call with the script's file and line, the class and
/// the message; what ran before is kept.
#[test]
fn an_external_that_raises_fails_its_call_at_the_scripts_line() {
    let (code, out, err) = run_script("raises", RAISES, &[]);
    assert_eq!(code, Some(3), "{err}");
    assert_eq!(out, "OSLO\n");
    assert!(err.contains("raises.py:12:7: error[R0002]"), "{err}");
    assert!(
        err.contains("raises.py:7: KeyError: 'no such city: Atlantis'"),
        "{err}"
    );
}

/// Without the interpreter the calls fail saying what to install; nothing crashes.
#[test]
fn a_missing_python_is_a_clear_error() {
    let (code, _, err) = run_script(
        "nopython",
        RAISES,
        &[("OPAL_PYTHON", "{dir}/no-such-python")],
    );
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("cannot start Python"), "{err}");
    assert!(
        err.contains("install CPython 3 or set OPAL_PYTHON"),
        "{err}"
    );
}

/// An object that stays in the worker crosses as a handle: its attributes and methods run in
/// the worker (`c.chat.ask(…)`); a method OPAL's library computes for data (`get`) called on
/// it says where to call it instead of guessing.
#[test]
fn a_worker_objects_attributes_and_methods_run_in_the_worker() {
    let src =
        "from opal import unordered\n\n\nclass Chat:\n    def ask(self, q, punct=\"?\"):\n        \
        return q.upper() + punct\n\n\nclass Client:\n    def __init__(self):\n        \
        self.chat = Chat()\n\n\n@unordered\ndef connect(name):\n    return Client()\n\n\n\
        c = connect(\"x\")\nprint(c.chat.ask(\"direct\", punct=\"!\"))\nprint(c.get(\"k\"))\n";
    let (code, out, err) = run_script("handle", src, &[]);
    assert_eq!(code, Some(3), "{err}");
    assert_eq!(out, "DIRECT!\n");
    assert!(err.contains("handle.py:21:7: error[R0002]"), "{err}");
    assert!(
        err.contains("on a Client object, which stays in the CPython worker"),
        "{err}"
    );
}

/// An exception no `except` clause names ends the run with it, at the call's line.
#[test]
fn an_exception_no_except_catches_ends_the_run_with_it() {
    let src = "from opal import unordered\n\n\n@unordered\ndef f(x):\n    raise KeyError(x)\n\n\n\
        try:\n    v = f(-1)\nexcept ValueError:\n    v = 0\nprint(v)\n";
    let (code, out, err) = run_script("uncaught", src, &[]);
    assert_eq!(code, Some(3), "{err}");
    assert!(out.is_empty(), "nothing after the exception ran");
    assert!(err.contains("uncaught.py:10:5: error[R0002]"), "{err}");
    assert!(err.contains("uncaught.py:6: KeyError: -1"), "{err}");
}

/// Scripts that end with an exception (`tests/python/raising/`): OPAL prints what CPython
/// printed before its traceback, nothing after, and fails (exit 3) where CPython fails (1).
#[test]
fn a_script_that_raises_prints_what_cpython_printed_before_it() {
    let python = std::env::var("OPAL_PYTHON").unwrap_or_else(|_| "python3".into());
    let dir = root().join("tests/python/raising");
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/python/raising")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    scripts.sort();
    assert!(scripts.len() >= 2, "the scripts are there");
    for script in &scripts {
        let want = Command::new(&python)
            .arg(script)
            .env("PYTHONPATH", root().join("python"))
            .output()
            .expect("python3");
        assert_eq!(
            want.status.code(),
            Some(1),
            "{script:?} raises under CPython"
        );
        for strategy in ["opportunistic", "cbv", "lazy"] {
            let got = Command::new(opal())
                .args(["run", &script.to_string_lossy(), "--strategy", strategy])
                .output()
                .expect("run opal");
            let err = String::from_utf8_lossy(&got.stderr);
            assert_eq!(got.status.code(), Some(3), "{script:?} {strategy}: {err}");
            assert_eq!(
                String::from_utf8_lossy(&got.stdout),
                String::from_utf8_lossy(&want.stdout),
                "{script:?} {strategy}: {err}"
            );
        }
    }
}

/// `opal explore` answers a script's externals only from a world file: without one it says
/// which externals it could not answer instead of a bare "stuck".
#[test]
fn explore_names_the_python_externals_it_cannot_answer() {
    let o = Command::new(opal())
        .args(["explore", "map_reduce.py"])
        .current_dir(root().join("tests/python"))
        .output()
        .expect("run opal");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("explore does not run a script's Python externals"),
        "{err}"
    );
    assert!(
        err.contains("combine, summarize") || err.contains("summarize, combine"),
        "{err}"
    );
}
