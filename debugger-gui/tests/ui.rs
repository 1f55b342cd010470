//! The debugger window driven headless through egui_kittest (AccessKit): clicks and keys on the
//! real panels, assertions on the session behind them and on what the window shows.

use eframe::egui;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use opal_debugger::session::Session;
use opal_debugger_gui::app::{DebuggerApp, FileCmd, GraphMode, SessionCmd};
use opal_debugger_gui::examples::EXAMPLES;

fn harness(app: DebuggerApp) -> Harness<'static, DebuggerApp> {
    sized(app, [1500.0, 950.0])
}

fn sized(app: DebuggerApp, size: [f32; 2]) -> Harness<'static, DebuggerApp> {
    Harness::builder()
        .with_size(size)
        .with_max_steps(120)
        .build_ui_state(|ui, app: &mut DebuggerApp| app.show(ui), app)
}

fn example(name: &str) -> DebuggerApp {
    let i = EXAMPLES
        .iter()
        .position(|e| e.name == name)
        .expect("bundled");
    DebuggerApp::from_example(i)
}

fn session<'a>(h: &'a Harness<'_, DebuggerApp>) -> &'a Session {
    h.state().session.as_ref().expect("a session")
}

#[test]
fn clicking_a_rows_step_button_steps_that_statement() {
    let app = DebuggerApp::from_source(
        "t.opal",
        "a := 1 + 2\nb := 3 + 4\nprint (&stdout, a * b)\n",
        None,
    );
    let mut h = harness(app);
    h.run();
    let rows = session(&h).rows();
    let last = rows
        .iter()
        .rfind(|r| r.status.is_steppable() && !r.prelude)
        .expect("steppable")
        .label
        .clone();
    h.get_by_label(&format!("step {last}")).click();
    h.run();
    assert_eq!(session(&h).position(), 1);
    assert!(
        session(&h).history()[0].ends_with(&format!("at {last}")),
        "{:?}",
        session(&h).history()
    );
    assert!(
        h.query_all_by_label_contains(&format!("at {last}"))
            .next()
            .is_some(),
        "the history panel shows the step"
    );
    // Rounds by keyboard until the end; the output panel shows what was printed.
    for _ in 0..40 {
        h.key_press(egui::Key::Space);
        h.run();
    }
    assert_eq!(session(&h).output(), "21\n");
    assert!(h.query_by_label("21\n").is_some() || h.query_by_label_contains("21").is_some());
}

#[test]
fn resolving_by_hand_in_the_tasks_panel_and_travelling_back() {
    let mut h = harness(example("city_excursions"));
    h.run();
    for _ in 0..20 {
        if !session(&h).pending().is_empty() {
            break;
        }
        h.get_by_label("Round").click();
        h.run();
    }
    let label = session(&h)
        .pending()
        .first()
        .map(|(st, _)| session(&h).row(*st).label)
        .expect("pending");
    // A broken expression is refused with the reason, and nothing changes.
    let before = session(&h).position();
    h.get_by_label("result:").click();
    h.get_by_label("result:").type_text("[\"Lima\"");
    h.run();
    h.get_by_label(&format!("Resolve {label}")).click();
    h.run();
    assert_eq!(session(&h).position(), before);
    assert!(
        h.state().status.contains("not a closed OPAL expression"),
        "{}",
        h.state().status
    );
    // ...also under the field, where the user is typing, and the text is kept for correcting.
    let under = || {
        h.query_all_by_label_contains("not a closed OPAL expression")
            .count()
    };
    assert_eq!(
        under(),
        2,
        "the refusal is in the status line and under the field"
    );
    h.get_by_label("result:").click();
    h.run();
    h.key_press(egui::Key::End);
    h.get_by_label("result:").type_text("]");
    h.run();
    h.get_by_label(&format!("Resolve {label}")).click();
    h.run();
    assert_eq!(session(&h).position(), before + 1, "{}", h.state().status);
    assert!(session(&h).pending().is_empty());
    assert!(
        h.state().hand_error.is_none(),
        "a delivered answer clears the refusal"
    );
    // Back and forward through the toolbar.
    h.get_by_label("Back").click();
    h.run();
    assert_eq!(session(&h).position(), before);
    assert_eq!(session(&h).pending().len(), 1);
    h.get_by_label("Forward").click();
    h.run();
    assert_eq!(session(&h).position(), before + 1);
    // The rest from the world file: W resolves, Space rounds.
    for _ in 0..200 {
        h.key_press(egui::Key::Space);
        h.key_press(egui::Key::W);
        h.run();
    }
    assert_eq!(session(&h).output(), "Lima\nWalk around.\n");
}

#[test]
fn help_overlay_lists_every_shortcut_and_escape_closes_it() {
    let mut h = harness(example("fork_join"));
    h.run();
    h.key_press(egui::Key::F1);
    h.run();
    assert!(h.state().panels.windows.help);
    assert!(h
        .query_by_label("one opportunistic round: every steppable statement steps")
        .is_some());
    assert!(h.query_by_label("restart from the initial term").is_some());
    h.key_press(egui::Key::Escape);
    h.run();
    assert!(!h.state().panels.windows.help);
}

#[test]
fn practice_mode_checks_the_ticked_rows() {
    let app = DebuggerApp::from_source(
        "t.opal",
        "a := 1 + 2\nb := 3 + 4\nprint (&stdout, a * b)\n",
        None,
    );
    let mut h = harness(app);
    h.run();
    h.key_press(egui::Key::Q);
    h.run();
    let steppable: Vec<String> = session(&h)
        .rows()
        .iter()
        .filter(|r| r.status.is_steppable() && !r.prelude)
        .map(|r| r.label.clone())
        .collect();
    assert!(
        h.query_by_label_contains("step 1").is_none(),
        "practice mode hides the step buttons"
    );
    // Tick only the first: the check names the one missed.
    h.get_by_label(&format!("tick {}", steppable[0])).click();
    h.run();
    h.get_by_label("Check").click();
    h.run();
    assert!(h
        .query_by_label_contains(&format!("missed {}", steppable[1]))
        .is_some());
    for l in &steppable[1..] {
        h.get_by_label(&format!("tick {l}")).click();
    }
    h.run();
    h.get_by_label("Check").click();
    h.run();
    assert!(
        h.query_by_label_contains("Correct").is_some(),
        "{}",
        h.state().status
    );
}

#[test]
fn confluence_window_shows_identical_final_terms() {
    let mut h = harness(example("tree_of_thoughts"));
    h.run();
    h.key_press(egui::Key::Space);
    h.key_press(egui::Key::V);
    h.run();
    h.state_mut().settle();
    h.run();
    let c = h.state().confluence.clone().expect("ran");
    assert!(c.identical(), "{}\n---\n{}", c.mine, c.theirs);
    assert!(h.query_by_label_contains("Identical final terms").is_some());
    // Nothing runs now: Esc closes the window (F1: "close windows").
    h.key_press(egui::Key::Escape);
    h.run();
    assert!(h.state().confluence.is_none());
    assert!(h.query_by_label_contains("Identical final terms").is_none());
}

#[test]
fn graph_follows_the_term_and_keeps_existing_nodes_in_place() {
    let mut h = harness(example("city_excursions"));
    h.run();
    h.key_press(egui::Key::G);
    h.run();
    assert_eq!(h.state().settings.mode, GraphMode::Statements);
    let before: std::collections::HashMap<_, (i32, i32)> = h
        .state()
        .layout
        .placed
        .iter()
        .map(|(l, p)| (*l, p.cell))
        .collect();
    assert_eq!(before.len(), h.state().graph.nodes.len());
    h.key_press(egui::Key::Space);
    h.run();
    let app = h.state();
    let keys: std::collections::HashSet<_> = app.graph.nodes.iter().map(|n| n.key).collect();
    assert_eq!(app.layout.placed.len(), keys.len(), "every node is placed");
    // Existing nodes keep their column and their order; only rows that emptied close up.
    let kept: Vec<((i32, i32), (i32, i32))> = app
        .layout
        .placed
        .iter()
        .filter_map(|(l, p)| before.get(l).map(|c| (*c, p.cell)))
        .collect();
    for (a, a2) in &kept {
        assert_eq!(a.0, a2.0, "a node changed column");
        for (b, b2) in &kept {
            assert_eq!(a.1.cmp(&b.1), a2.1.cmp(&b2.1), "two nodes swapped rows");
        }
    }
    assert!(!kept.is_empty());
    let cells: std::collections::HashSet<(i32, i32)> =
        app.layout.placed.values().map(|p| p.cell).collect();
    assert_eq!(
        cells.len(),
        app.layout.placed.len(),
        "no two nodes share a cell"
    );
}

#[test]
fn sessions_save_and_load_through_files_and_exports_are_written() {
    let dir = std::env::temp_dir().join(format!("opal-gui-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut h = harness(example("fork_join"));
    h.run();
    for _ in 0..4 {
        h.key_press(egui::Key::Space);
        h.key_press(egui::Key::W);
    }
    h.run();
    let path = dir.join("fj.session.json");
    h.state_mut().run_cmd(FileCmd::SaveSession(path.clone()));
    let (pos, term) = (
        session(&h).position(),
        session(&h).machine().print_term(false),
    );
    assert!(pos > 0);
    let mut other = example("fork_join");
    other.run_cmd(FileCmd::LoadSession(path.clone()));
    other.settle();
    let s = other.session.as_ref().expect("session");
    assert_eq!(
        (s.position(), s.machine().print_term(false)),
        (pos, term),
        "{}",
        other.status
    );
    // A broken session file is refused with where, and the session is unchanged.
    std::fs::write(&path, "{\"version\": 1, \"actions\": [").expect("write");
    other.run_cmd(FileCmd::LoadSession(path.clone()));
    other.settle();
    assert!(other.status.contains("line 1"), "{}", other.status);
    assert_eq!(other.session.as_ref().map(|s| s.position()), Some(pos));
    for (cmd, name, needle) in [
        (
            FileCmd::ExportDot(dir.join("g.dot")),
            "g.dot",
            "digraph opal",
        ),
        (FileCmd::ExportSvg(dir.join("g.svg")), "g.svg", "<svg"),
        (
            FileCmd::ExportTimeline(dir.join("t.csv")),
            "t.csv",
            "label,external",
        ),
    ] {
        h.state_mut().run_cmd(cmd);
        let text = std::fs::read_to_string(dir.join(name)).expect("written");
        assert!(text.contains(needle), "{name}: {text}");
    }
    // Saving writes a symlink's target and keeps the link (opal_core::files), and refuses a
    // directory with a message.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("fj.session.json", dir.join("link.json")).expect("symlink");
        std::fs::write(&path, "").expect("write");
        h.state_mut()
            .run_cmd(FileCmd::SaveSession(dir.join("link.json")));
        assert!(
            std::fs::symlink_metadata(dir.join("link.json"))
                .expect("link")
                .file_type()
                .is_symlink(),
            "{}",
            h.state().status
        );
        assert!(
            std::fs::read_to_string(&path)
                .expect("read")
                .contains("\"actions\""),
            "{}",
            h.state().status
        );
    }
    h.state_mut().run_cmd(FileCmd::SaveSession(dir.clone()));
    assert!(
        h.state().status.contains("it is a directory"),
        "{}",
        h.state().status
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_broken_edit_on_disk_keeps_the_session_and_a_fixed_one_replays_the_work() {
    let dir = std::env::temp_dir().join(format!("opal-gui-reload-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("p.opal");
    std::fs::write(&file, "a := 1 + 2\nb := 3 + 4\nprint (&stdout, a * b)\n").expect("write");
    let mut app = DebuggerApp::from_file(&file, None);
    app.run_cmd(SessionCmd::Round);
    app.run_cmd(SessionCmd::Round);
    assert_eq!(app.session.as_ref().map(|s| s.position()), Some(2));
    std::fs::write(&file, "a := 1 + \nb := 3 + 4\n").expect("write");
    app.run_cmd(FileCmd::Reload);
    let e = app.errors.clone().expect("errors shown");
    assert!(e.contains("p.opal:1:") && e.contains("error[E"), "{e}");
    assert_eq!(
        app.session.as_ref().map(|s| s.position()),
        Some(2),
        "the last good session stays"
    );
    std::fs::write(
        &file,
        "a := 1 + 2\nb := 3 + 4\nprint (&stdout, a * b)\n# a comment\n",
    )
    .expect("write");
    app.run_cmd(FileCmd::Reload);
    app.settle();
    assert!(app.errors.is_none());
    assert!(app.status.contains("replayed 2 actions"), "{}", app.status);
    assert_eq!(app.session.as_ref().map(|s| s.position()), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_reload_keeps_the_world_file_given_on_the_command_line() {
    let dir = std::env::temp_dir().join(format!("opal-gui-reload-world-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (file, world) = (dir.join("p.opal"), dir.join("other.toml"));
    std::fs::write(&file, "extern ask\nprint (ask 1)\n").expect("write");
    std::fs::write(&world, "[ask]\nlatency_ms = -5\ndefault = '\"a\"'\n").expect("write");
    let mut app = DebuggerApp::from_file(&file, Some(&world));
    let e = app.errors.clone().expect("the world file's error is shown");
    assert!(e.contains("other.toml:2:1: error[E0200]"), "{e}");
    std::fs::write(&world, "[ask]\nlatency_ms = 5\ndefault = '\"a\"'\n").expect("write");
    app.run_cmd(FileCmd::Reload);
    assert!(app.errors.is_none(), "{:?}", app.errors);
    // Another edit of the program: still run with other.toml (it fails without a world file).
    std::fs::write(&world, "[ask]\nlatency_ms = nope\n").expect("write");
    app.run_cmd(FileCmd::Reload);
    assert!(
        app.errors
            .as_deref()
            .unwrap_or("")
            .contains("other.toml:2:"),
        "{:?}",
        app.errors
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hostile_files_get_clear_errors_not_crashes() {
    let dir = std::env::temp_dir().join(format!("opal-gui-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bin = dir.join("bin.opal");
    std::fs::write(&bin, [0xff, 0xfe, 0x00, 0x41]).expect("write");
    let app = DebuggerApp::from_file(&bin, None);
    assert!(
        app.errors.as_deref().unwrap_or("").contains("not UTF-8"),
        "{:?}",
        app.errors
    );
    let missing = DebuggerApp::from_file(&dir.join("nope.opal"), None);
    assert!(missing
        .errors
        .as_deref()
        .unwrap_or("")
        .contains("cannot read"));
    let deep = format!("x := {}1{}\n", "(".repeat(5000), ")".repeat(5000));
    let app = DebuggerApp::from_source("deep.opal", &deep, None);
    assert!(
        app.errors.as_deref().unwrap_or("").contains("E0007"),
        "{:?}",
        app.errors
    );
    let bad_world = DebuggerApp::from_source("w.opal", "x := 1\n", Some("[llm\nresult = "));
    assert!(
        bad_world
            .errors
            .as_deref()
            .unwrap_or("")
            .starts_with("w.world.toml:1:"),
        "{:?}",
        bad_world.errors
    );
    // The window still draws with no session.
    let mut h = harness(missing);
    h.run();
    h.key_press(egui::Key::Space);
    h.run();
    assert!(
        h.state().status.contains("no program"),
        "{}",
        h.state().status
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_file_menu_saves_and_loads_a_session_through_its_dialog() {
    let dir = std::env::temp_dir().join(format!("opal-gui-menu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("menu.session.json");
    let mut h = harness(example("fork_join"));
    h.run();
    h.key_press(egui::Key::Space);
    h.key_press(egui::Key::Space);
    h.run();
    let (pos, term) = (
        session(&h).position(),
        session(&h).machine().print_term(false),
    );
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Save session…").click();
    h.run();
    let field = h.get_by_label("path:");
    field.focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    field.type_text(&path.display().to_string());
    h.run();
    h.get_by_role_and_label(egui::accesskit::Role::Button, "Save session")
        .click();
    h.run();
    assert!(path.exists(), "{}", h.state().status);
    // Back to the start, then File > Load session restores the position and the term.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::R);
    h.run();
    assert_eq!(session(&h).position(), 0);
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Load session…").click();
    h.run();
    assert!(
        h.query_by_label("menu.session.json").is_some(),
        "the dialog lists the session file"
    );
    h.get_by_label("menu.session.json").click();
    h.run();
    h.get_by_role_and_label(egui::accesskit::Role::Button, "Load session")
        .click();
    h.run();
    h.state_mut().settle();
    h.run();
    assert_eq!(
        (
            session(&h).position(),
            session(&h).machine().print_term(false)
        ),
        (pos, term),
        "{}",
        h.state().status
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_program_changed_on_disk_reloads_by_itself() {
    let dir = std::env::temp_dir().join(format!("opal-gui-poll-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("p.opal");
    std::fs::write(&file, "print (&stdout, 1 + 2)\n").expect("write");
    let mut h = harness(DebuggerApp::from_file(&file, None));
    h.run_steps(5);
    h.key_press(egui::Key::Space);
    h.run_steps(5);
    // A different modification time (some file systems keep whole seconds).
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(&file, "print (&stdout, 1 + 2)\nprint (&stdout, 4)\n").expect("write");
    h.run_steps(90);
    h.state_mut().settle();
    assert!(
        h.state().status.contains("replayed"),
        "{}",
        h.state().status
    );
    assert!(session(&h).source().contains("4"), "the new text is loaded");
    assert_eq!(
        session(&h).position(),
        1,
        "the round was replayed on the new text"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 31: an answer typed into a pending task's field after a relayout took the focus from
/// it ran its letters as shortcuts (rounds, All paths, the strategy). While the dock was clicked
/// last and shows its answer field, keys are typing; Esc gives them back to the shortcuts.
#[test]
fn keys_typed_in_the_dock_never_run_shortcuts() {
    let mut h = harness(example("city_excursions"));
    h.run();
    for _ in 0..20 {
        if !session(&h).pending().is_empty() {
            break;
        }
        h.get_by_label("Round").click();
        h.run();
    }
    assert!(!session(&h).pending().is_empty(), "a pending task");
    h.get_by_label("result:").click();
    h.run();
    // The field loses the keyboard as a relayout would take it away.
    h.state_mut().status.clear();
    let ctx = h.ctx.clone();
    ctx.memory_mut(|m| {
        if let Some(id) = m.focused() {
            m.surrender_focus(id);
        }
    });
    let (position, strategy) = (session(&h).position(), h.state().settings.strategy);
    for key in [egui::Key::Space, egui::Key::N, egui::Key::S, egui::Key::W] {
        h.key_press(key);
        h.run();
    }
    assert_eq!(
        session(&h).position(),
        position,
        "no round, step or resolve ran"
    );
    assert_eq!(
        h.state().settings.strategy,
        strategy,
        "the strategy did not change"
    );
    // Esc leaves the dock: Space is a round again.
    h.key_press(egui::Key::Escape);
    h.run();
    h.key_press(egui::Key::Space);
    h.run();
    assert_eq!(session(&h).position(), position + 1, "{}", h.state().status);
}

/// Issue 31: a program that does not compile blanked the Source panel ("No program"). It now
/// shows the program with the failing line marked and its error under it.
#[test]
fn a_program_that_does_not_compile_shows_its_source_with_the_error_marked() {
    let app = DebuggerApp::from_source("bad.opal", "a := 1\nb := a +\nprint (&stdout, a)\n", None);
    assert!(app.session.is_none(), "it does not compile");
    let mut h = harness(app);
    h.run();
    assert!(h.query_by_label("Source (does not compile)").is_some());
    assert!(h
        .query_by_label("No program. File > Open (Ctrl+O) or File > Examples.")
        .is_none());
    assert!(
        h.query_by_label_contains("print (&stdout, a)").is_some(),
        "every line is shown"
    );
    let marked = h.query_all_by_label_contains("↑ error[").count();
    assert!(marked >= 1, "the error is under its line");
}

/// Issue 31: a runtime failure's reason was only in the hover of a red, cut-off row. The source
/// line of a statement that can never step is marked, with why under it.
#[test]
fn a_statement_that_can_never_step_is_marked_in_the_source_with_why() {
    let src = "a := 1\nb := a / 0\nprint (&stdout, b)\n";
    let mut h = harness(DebuggerApp::from_source("zero.opal", src, None));
    h.run();
    for _ in 0..20 {
        h.key_press(egui::Key::Space);
        h.run();
    }
    let failures = session(&h).failures();
    assert!(!failures.is_empty(), "the division fails");
    assert_eq!(session(&h).line_of(failures[0].0), Some(2));
    assert!(
        h.query_all_by_label_contains("↑ ").count() >= 1,
        "a reason under a line"
    );
    assert!(h.query_all_by_label_contains("division by zero").count() >= 1);
}
