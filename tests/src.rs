//! Helpers shared by the end-to-end tests: where the repository and the real `opal` binary are.

use std::path::PathBuf;
use std::process::Command;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `opal` binary of this test's target directory and profile, rebuilt once per test
/// process so a test never runs a stale binary (this crate does not depend on `opal-cli`).
pub fn opal() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().expect("test exe");
            let dir = exe.parent().and_then(|p| p.parent()).expect("target dir").to_path_buf();
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let mut c = Command::new(cargo);
            c.args(["build", "-q", "-p", "opal-cli", "--bin", "opal"]).current_dir(root());
            if dir.ends_with("release") {
                c.arg("--release");
            }
            assert!(c.status().expect("cargo build").success(), "building opal failed");
            dir.join(if cfg!(windows) { "opal.exe" } else { "opal" })
        })
        .clone()
}
