//! Data-driven end-to-end runs: every program in `examples/` and `tests/runs/` (with its world
//! file) under each strategy through the real `opal` binary; exit code, stdout and stderr are
//! snapshot-tested, one snapshot per program and strategy.

use opal_e2e::{opal, root};
use std::path::{Path, PathBuf};
use std::process::Command;

fn programs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["examples", "tests/runs"] {
        let entries = std::fs::read_dir(root().join(dir)).expect("program directory");
        out.extend(
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "opal")),
        );
    }
    out.sort();
    out
}

fn run_all(strategy: &str) {
    let exe = opal();
    for p in programs() {
        let rel = p
            .strip_prefix(root())
            .unwrap_or(&p)
            .to_string_lossy()
            .into_owned();
        let o = Command::new(&exe)
            .args(["run", &rel, "--strategy", strategy, "--max-steps", "20000"])
            .current_dir(root())
            .output()
            .expect("run opal");
        let text = format!(
            "$ opal run {rel} --strategy {strategy} --max-steps 20000\nexit code: {:?}\n--- stdout\n{}--- stderr\n{}",
            o.status.code(),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        let name = Path::new(&rel)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        insta::with_settings!({ snapshot_suffix => strategy, prepend_module_to_snapshot => true }, {
            insta::assert_snapshot!(name, text);
        });
    }
}

#[test]
fn opportunistic() {
    run_all("opportunistic");
}

#[test]
fn cbv() {
    run_all("cbv");
}

#[test]
fn lazy() {
    run_all("lazy");
}
