//! Document links: each link's span marked on the fixture, its target and line listed.

use crate::fixture::{check_text, fixture};
use opal_lsp::document_link;
use std::path::PathBuf;

/// A folder with `data/in.txt`, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let dir =
            std::env::temp_dir().join(format!("opal-link-fixture-{name}-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("data")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.join("data/in.txt"), "hello").unwrap_or_else(|e| panic!("{e}"));
        Dir(dir)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[track_caller]
fn check(src: &str, world: Option<&str>, expect: &str) {
    let dir = Dir::new(&format!("{}", src.len()));
    let f = fixture(src);
    let world_path = dir.0.join("p.world.toml");
    let links = document_link::document_links(
        &f.analysis,
        &dir.0,
        world.map(|w| (world_path.as_path(), w)),
    );
    check_text(
        &f.marked(&links.iter().map(|l| l.span).collect::<Vec<_>>()),
        src,
    );
    let lines: Vec<String> = links
        .iter()
        .map(|l| {
            let target = l
                .target
                .strip_prefix(&dir.0)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| l.target.display().to_string());
            format!(
                "{target}{} · {}",
                l.line.map(|n| format!(" line {n}")).unwrap_or_default(),
                l.tooltip
            )
        })
        .collect();
    check_text(&lines.join("\n"), expect);
}

#[test]
fn a_string_naming_a_file_beside_the_program() {
    check(
        "extern fetch\nx := fetch \"«data/in.txt»\"\ny := fetch \"data/missing.txt\"\n",
        None,
        "data/in.txt · open data/in.txt",
    );
}

#[test]
fn an_extern_links_to_its_mock() {
    let world = "# mocks\n[ask]\ndefault = '1'\n\n[[fetch.responses]]\narg = '1'\nresult = '2'\n";
    check(
        "extern «fetch», «ask»\nx := ask \"why?\"\n",
        Some(world),
        "p.world.toml line 4 · the mock of `fetch` in p.world.toml\np.world.toml line 1 · the mock of `ask` in p.world.toml",
    );
}

#[test]
fn no_links_without_paths_or_world() {
    check("x := \"not a file.\"\nprint (&stdout, x)\n", None, "");
}
