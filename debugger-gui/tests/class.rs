//! The window as a lecturer uses it (issue 16), driven headless through egui_kittest: it never
//! freezes, the default graph is the graph of external calls, values read as the paper writes
//! them, streams arrive chunk by chunk, it lays out at 1280×720 in the projector theme,
//! practice hides every answer, settings and the session survive a restart.

use eframe::egui;
use egui_kittest::kittest::{NodeT, Queryable};
use egui_kittest::Harness;
use opal_debugger::graph::CallState;
use opal_debugger::session::Standing;
use opal_debugger_gui::app::{
    DebuggerApp, FileCmd, GraphCmd, GraphMode, Panel, SessionCmd, Settings, Tab, WindowCmd,
    SETTINGS_KEY,
};
use opal_debugger_gui::examples::EXAMPLES;
use opal_debugger_gui::layout::{bounds, cell_pos};

fn sized(app: DebuggerApp, size: [f32; 2]) -> Harness<'static, DebuggerApp> {
    Harness::builder()
        .with_size(size)
        .with_max_steps(60)
        .build_ui_state(|ui, app: &mut DebuggerApp| app.show(ui), app)
}

fn example(name: &str) -> DebuggerApp {
    let i = EXAMPLES
        .iter()
        .position(|e| e.name == name)
        .expect("bundled");
    DebuggerApp::from_example(i)
}

fn busy(h: &Harness<'_, DebuggerApp>) -> Option<usize> {
    h.state()
        .session
        .as_ref()
        .and_then(|s| s.busy())
        .map(|p| p.done)
}

/// §3.4's program: confluence (V) and call-by-value run until (U) keep the window drawing,
/// show progress, and Esc cancels; with a budget they end with "did not finish".
#[test]
fn long_runs_on_the_divergent_program_keep_the_window_alive_and_escape_cancels() {
    let mut h = sized(example("diverge"), [1280.0, 720.0]);
    h.run();
    h.key_press(egui::Key::V);
    h.step();
    let mut seen = Vec::new();
    for _ in 0..6 {
        h.step();
        seen.push(busy(&h).expect("the confluence job is running"));
    }
    assert!(
        seen.windows(2).all(|w| w[1] > w[0]),
        "every frame makes progress: {seen:?}"
    );
    assert!(
        h.query_by_label_contains("Cancel (Esc)").is_some(),
        "a cancel button shows while it runs"
    );
    h.key_press(egui::Key::Escape);
    h.step();
    assert!(busy(&h).is_none(), "Esc cancelled");
    assert!(
        h.state().status.starts_with("cancelled confluence"),
        "{}",
        h.state().status
    );
    // Call-by-value run until: the same, then a small budget ends it with a clear message.
    h.state_mut().settings.strategy = opal_debugger::session::Strategy::Cbv;
    h.key_press(egui::Key::U);
    h.step();
    h.step();
    assert!(busy(&h).is_some(), "run until is a job");
    // While it runs the graph changes every frame: nodes are put in place full size (growing
    // and gliding ones never settled and were drawn as text-less boxes).
    assert_eq!(
        h.state().mode(),
        GraphMode::Statements,
        "no externals: it opens on statements"
    );
    for _ in 0..3 {
        h.step();
        let (app, now) = (h.state(), h.state().now());
        assert!(!app.layout.placed.is_empty());
        for p in app.layout.placed.values() {
            assert_eq!(
                p.pos,
                opal_debugger_gui::layout::cell_pos(p.cell),
                "in place while a job runs"
            );
            assert!(
                now - p.born >= opal_debugger_gui::layout::ANIMATION - 1e-6,
                "grown while a job runs"
            );
        }
    }
    h.key_press(egui::Key::Escape);
    h.step();
    assert!(busy(&h).is_none());
    h.state_mut().session.as_mut().expect("session").step_budget = 3_000;
    h.key_press(egui::Key::V);
    h.step();
    h.state_mut().settle();
    h.run();
    let c = h.state().confluence.clone().expect("a result");
    assert!(c.truncated && c.mine_output == "foo\n", "{c:?}");
    assert!(h
        .query_all_by_label_contains("did not finish within 3000 steps")
        .next()
        .is_some());
}

/// The default graph is the graph of external calls: CityExcursions' cities call streams
/// while an excursion is dispatched, with an edge between them; W delivers one chunk.
#[test]
fn the_default_graph_shows_calls_and_world_streams_arrive_chunk_by_chunk() {
    let mut h = sized(example("city_excursions"), [1920.0, 1080.0]);
    h.run();
    assert_eq!(h.state().settings.mode, GraphMode::Calls);
    for _ in 0..6 {
        h.key_press(egui::Key::Space);
    }
    h.run();
    let g = h.state().graph.clone();
    assert_eq!(g.nodes.len(), 1, "{g:?}");
    assert_eq!(g.nodes[0].call, Some(CallState::Pending));
    h.key_press(egui::Key::W);
    h.run();
    let last = h
        .state()
        .session
        .as_ref()
        .and_then(|s| s.history().last().cloned())
        .unwrap_or_default();
    assert!(last.contains("[\"Honolulu\"] + …"), "one chunk: {last}");
    for _ in 0..12 {
        h.key_press(egui::Key::Space);
        h.run();
        let g = &h.state().graph;
        if g.nodes
            .iter()
            .any(|n| n.title.starts_with("get_excursions_in \"Honolulu\""))
        {
            break;
        }
    }
    let g = h.state().graph.clone();
    let cities = g
        .nodes
        .iter()
        .position(|n| n.call == Some(CallState::Streaming))
        .expect("the cities call streams");
    let exc = g
        .nodes
        .iter()
        .position(|n| n.title.starts_with("get_excursions_in \"Honolulu\""))
        .expect("an excursion call");
    assert!(g.edges.contains(&(cities, exc)), "{:?}", g.edges);
}

/// Rows read back values: a partial answer typed by hand reads as in the paper's Fig. 10.
#[test]
fn rows_show_lists_as_the_paper_writes_them() {
    let mut h = sized(example("city_excursions"), [1920.0, 1080.0]);
    h.run();
    while h
        .state()
        .session
        .as_ref()
        .is_some_and(|s| s.pending().is_empty())
    {
        h.key_press(egui::Key::Space);
        h.run();
    }
    let label = h
        .state()
        .session
        .as_ref()
        .map(|s| s.pending_labels()[0].clone())
        .expect("pending");
    h.state_mut()
        .run_cmd(SessionCmd::ResolveHand(label, "[\"Ho\", ...]".into()));
    h.key_press(egui::Key::Space);
    h.run();
    assert!(
        h.query_all_by_label_contains("[\"Ho\"] + <<get_cities_in \"Oceania\">>")
            .next()
            .is_some(),
        "the row reads back the partial list"
    );
    assert_eq!(
        h.state().session.as_ref().map(|s| s.pending().len()),
        Some(1),
        "the rest is pending"
    );
}

/// At 1280×720 in the projector theme: one row of tools, the program's code unwrapped beside
/// a graph with more than half the width, every panel can be hidden and shown.
#[test]
fn the_projector_theme_at_1280_by_720_shows_the_code_whole_beside_the_graph() {
    let mut app = example("city_excursions");
    app.settings.projector = true;
    let mut h = sized(app, [1280.0, 720.0]);
    h.run();
    for _ in 0..8 {
        h.key_press(egui::Key::Space);
        h.key_press(egui::Key::W);
    }
    h.run();
    let screen = h.ctx.content_rect();
    let graph = h.state().panels.graph.view.area();
    assert!(
        graph.width() >= 0.5 * screen.width() && graph.area() >= 0.33 * screen.area(),
        "the graph has {:.0}% of the window ({graph:?} in {screen:?})",
        graph.area() / screen.area() * 100.0
    );
    // The longest line of code (40 columns) is one row of the source, not wrapped.
    let line = h
        .get_by_label("excursions := get_excursions_in city")
        .rect();
    let row = h.get_by_label("print (&stdout, city)").rect();
    assert!(
        line.height() <= row.height() + 1.0,
        "{line:?} wraps (a row is {row:?})"
    );
    // The tool row is one row: Round and More are on the same line.
    let round = h.get_by_label("Round").rect();
    let more = h.get_by_label("More").rect();
    assert!(
        (round.center().y - more.center().y).abs() < 4.0,
        "{round:?} {more:?}"
    );
    assert!(
        more.right() <= screen.right() + 1.0,
        "More is on screen: {more:?}"
    );
    // The strategy is in sight although its box is under More, and a click chooses the next.
    let strategy = h.get_by_label("strategy: opportunistic").rect();
    assert!(screen.contains_rect(strategy), "{strategy:?} in {screen:?}");
    h.get_by_label("strategy: opportunistic").click();
    h.run();
    assert!(h.query_by_label("strategy: call-by-value").is_some());
    h.get_by_label("strategy: call-by-value").click();
    h.run();
    h.get_by_label("strategy: lazy").click();
    h.run();
    assert!(h.query_by_label("strategy: opportunistic").is_some());
    // Hiding the source panel gives the graph more room; F3 shows it again.
    h.key_press(egui::Key::F3);
    h.run();
    assert!(!h.state().settings.source);
    assert!(h.state().panels.graph.view.area().width() > graph.width());
    h.key_press(egui::Key::F3);
    h.key_press(egui::Key::F4);
    h.run();
    assert!(h.state().settings.source && h.state().settings.term == Some(true));
    assert!(
        h.query_by_label("Labeled term").is_some(),
        "F4 shows the term panel"
    );
}

/// Practice mode hides every answer until Check: no step buttons, neutral nodes, no status
/// in hovers or the status line.
#[test]
fn practice_mode_gives_nothing_away() {
    let mut h = sized(example("fork_join"), [1500.0, 950.0]);
    h.run();
    h.key_press(egui::Key::Q);
    h.key_press(egui::Key::G);
    h.run();
    let says: Vec<String> = h
        .query_all_by_label_contains("steppable")
        .filter_map(|n| n.accesskit_node().label())
        .filter(|l| l.contains("steppable by") || l.ends_with(" steppable"))
        .collect();
    assert!(says.is_empty(), "nothing says what is steppable: {says:?}");
    assert!(h
        .query_by_label_contains("practice: predict, then Check")
        .is_some());
    let app = h.state();
    let s = app.session.as_ref().expect("session");
    for n in &app.graph.nodes {
        let t = opal_debugger_gui::panels::node_text(s, n, true);
        assert!(
            !t.tip.contains("steppable") && !t.tip.contains("waiting"),
            "{}",
            t.tip
        );
    }
}

/// A finished program says so.
#[test]
fn a_finished_program_says_finished() {
    let mut h = sized(
        DebuggerApp::from_source("t.opal", "x := 1 + 2\nx\n", None),
        [1500.0, 950.0],
    );
    h.run();
    for _ in 0..10 {
        h.key_press(egui::Key::Space);
    }
    h.run();
    assert_eq!(
        h.state().session.as_ref().map(|s| s.standing()),
        Some(Standing::Finished)
    );
    assert!(h.query_by_label("finished: normal form").is_some());
}

/// B shows the last step before and after.
#[test]
fn the_stepper_tab_shows_before_and_after() {
    let mut h = sized(
        DebuggerApp::from_source("t.opal", "f := fun x: x + 1\ny := f 2\ny\n", None),
        [1500.0, 950.0],
    );
    h.run();
    h.key_press(egui::Key::Space);
    h.key_press(egui::Key::B);
    h.run();
    assert_eq!(h.state().settings.tab, Tab::Stepper);
    assert!(h.query_by_label("before").is_some() && h.query_by_label("after").is_some());
    assert!(h.query_by_label_contains("last action: round").is_some());
}

/// A (all paths): every reduction path of a small program; clicking a normal form travels
/// there.
#[test]
fn all_paths_draws_the_reduction_graph_and_travels_to_a_state() {
    let mut h = sized(example("confluence"), [1500.0, 950.0]);
    h.run();
    h.key_press(egui::Key::A);
    for _ in 0..200 {
        h.step();
        if h.state()
            .panels
            .windows
            .paths
            .as_ref()
            .is_some_and(|p| !p.busy())
        {
            break;
        }
    }
    h.run();
    let summary = h
        .state()
        .panels
        .windows
        .paths
        .as_ref()
        .and_then(|p| p.summary())
        .expect("searched");
    assert!(summary.contains(", 1 normal form"), "{summary}");
    assert!(
        summary.starts_with("41 states") && !summary.contains("one order per class"),
        "every interleaving of two calls of `id` is drawn: {summary}"
    );
    // Steps are captioned by the program's names, not by labels.
    let captions = h
        .state()
        .panels
        .windows
        .paths
        .as_ref()
        .expect("open")
        .captions();
    for named in ["call a", "call b", "alias a", "gc id"] {
        assert!(captions.iter().any(|c| c == named), "{named}: {captions:?}");
    }
    assert!(
        captions.iter().any(|c| c.starts_with("alias x#")),
        "a call's copy of `x` is marked as the states' terms mark it: {captions:?}"
    );
    // Travel along the path the view computes to the (only) normal form.
    let actions = h
        .state()
        .panels
        .windows
        .paths
        .as_ref()
        .and_then(|p| p.path_to_normal_form(h.state().session.as_ref().expect("session")))
        .expect("a path");
    h.state_mut().run_cmd(SessionCmd::Travel(actions));
    h.state_mut().settle();
    h.run();
    assert_eq!(
        h.state().session.as_ref().map(|s| s.standing()),
        Some(Standing::Finished),
        "{}",
        h.state().status
    );
}

/// Settings survive a restart through eframe's storage; the session through the autosave.
#[test]
fn settings_and_the_session_survive_a_restart() {
    #[derive(Default)]
    struct Store(std::collections::HashMap<String, String>);
    impl eframe::Storage for Store {
        fn get_string(&self, key: &str) -> Option<String> {
            self.0.get(key).cloned()
        }
        fn set_string(&mut self, key: &str, value: String) {
            self.0.insert(key.to_string(), value);
        }
        fn remove_string(&mut self, key: &str) {
            self.0.remove(key);
        }
        fn flush(&mut self) {
            // Nothing to write out: the store is the map itself.
        }
    }
    let dir = std::env::temp_dir().join(format!("opal-gui-persist-{}", std::process::id()));
    let mut app = example("fork_join");
    app.autosave_dir = Some(dir.clone());
    app.run_cmd(WindowCmd::Projector);
    app.run_cmd(WindowCmd::Panel(Panel::Source));
    app.run_cmd(GraphCmd::GraphMode);
    app.run_cmd(GraphCmd::ZoomIn);
    app.run_cmd(SessionCmd::Round);
    app.run_cmd(SessionCmd::Round);
    let mut store = Store::default();
    eframe::App::save(&mut app, &mut store);
    let term = app.session.as_ref().map(|s| s.machine().print_term(false));
    // A new window: the settings come back, and the autosaved session replays.
    let settings: Settings = eframe::get_value(&store, SETTINGS_KEY).expect("saved");
    assert!(
        settings.projector && !settings.source && settings.mode == GraphMode::Statements,
        "{settings:?}"
    );
    assert!((settings.zoom - 1.2).abs() < 1e-3, "{}", settings.zoom);
    let mut again = DebuggerApp::from_example(
        EXAMPLES
            .iter()
            .position(|e| e.name == "fork_join")
            .expect("bundled"),
    );
    assert_eq!(again.session.as_ref().map(|s| s.position()), Some(0));
    again.autosave_dir = Some(dir.clone());
    again.run_cmd(FileCmd::OpenExample(
        EXAMPLES
            .iter()
            .position(|e| e.name == "fork_join")
            .expect("bundled"),
    ));
    again.apply_settings(settings);
    again.settle();
    assert_eq!(
        again.session.as_ref().map(|s| s.position()),
        Some(2),
        "{}",
        again.status
    );
    assert_eq!(
        again
            .session
            .as_ref()
            .map(|s| s.machine().print_term(false)),
        term
    );
    assert!(
        again.status.contains("autosave") || again.status.contains("replayed"),
        "{}",
        again.status
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 1 000-call fan-out folds into a legible number of nodes, with a minimap.
#[test]
fn a_thousand_calls_fold_into_groups() {
    let mut src = String::from("extern slow\nfor x in [");
    src.push_str(
        &(0..1000)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", "),
    );
    src.push_str("]:\n    print (&stdout, slow x)\n");
    let mut app = DebuggerApp::from_source("fan.opal", &src, None);
    app.until = opal_debugger::session::Until::End;
    app.settings.auto_resolve = false;
    app.run_cmd(SessionCmd::RunUntil);
    app.settle();
    let s = app.session.as_ref().expect("session");
    assert_eq!(s.pending().len(), 1000, "{}", app.status);
    let n = app.graph.nodes.len();
    assert!(
        (8..=opal_debugger_gui::app::MAX_NODES).contains(&n),
        "folded into a legible number of groups: {n}"
    );
    let members: usize = app.graph.nodes.iter().map(|n| n.members).sum();
    assert_eq!(members, 1000);
}

/// A program without externals opens on the statement graph; the first G shows the calls.
#[test]
fn the_first_g_switches_from_the_mode_shown() {
    let mut h = sized(example("diverge"), [1280.0, 720.0]);
    h.run();
    assert_eq!(h.state().mode(), GraphMode::Statements);
    h.key_press(egui::Key::G);
    h.run();
    assert_eq!(h.state().mode(), GraphMode::Calls);
    h.key_press(egui::Key::G);
    h.run();
    assert_eq!(h.state().mode(), GraphMode::Statements);
}

/// Issue 31: at 1280×720 the term panel could not be dragged wider than 28 % of the window,
/// so every row was cut; it now takes up to half of it.
#[test]
fn the_term_panel_can_be_dragged_to_half_the_window_at_1280_by_720() {
    let mut app = example("city_excursions");
    app.settings.projector = true;
    let mut h = sized(app, [1280.0, 720.0]);
    h.run();
    if h.query_by_label("Labeled term").is_none() {
        h.key_press(egui::Key::F4);
        h.run();
    }
    let screen = h.ctx.content_rect();
    let left = h.get_by_label("Labeled term").rect().left();
    // The panel's resize handle is its left edge, a few points left of its contents.
    let edge = egui::pos2(left - 6.0, screen.center().y);
    let to = egui::pos2(screen.width() * 0.45, screen.center().y);
    h.event(egui::Event::PointerMoved(edge));
    h.run();
    h.event(egui::Event::PointerButton {
        pos: edge,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    h.run();
    for i in 1..=10 {
        h.event(egui::Event::PointerMoved(edge.lerp(to, i as f32 / 10.0)));
        h.run();
    }
    h.event(egui::Event::PointerButton {
        pos: to,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    h.run();
    let width = screen.right() - h.get_by_label("Labeled term").rect().left();
    assert!(
        width > screen.width() * 0.4,
        "the term panel is {width} of {} points wide",
        screen.width()
    );
}

/// Issue 31: rounds 2–9 of CityExcursions changed nothing in the default view. Shift+Space
/// runs rounds until the graph shown changes; each press changes it, and some presses take
/// several rounds.
#[test]
fn shift_space_runs_rounds_until_the_graph_changes() {
    let mut h = sized(example("city_excursions"), [1500.0, 950.0]);
    h.run();
    let mut several = false;
    for _ in 0..6 {
        let (at, nodes) = {
            let app = h.state();
            let g = &app.graph;
            (
                app.session.as_ref().map(|s| s.position()),
                (g.nodes.clone(), g.edges.clone()),
            )
        };
        h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::Space);
        h.run();
        let app = h.state();
        let now = app.session.as_ref().map(|s| s.position());
        if app.status.contains("until the graph changed") {
            assert_ne!((app.graph.nodes.clone(), app.graph.edges.clone()), nodes);
            several |= now.zip(at).is_some_and(|(n, a)| n > a + 1);
        } else {
            // Nothing steps until a pending task is resolved.
            h.key_press(egui::Key::W);
            h.run();
        }
    }
    assert!(
        several,
        "some press ran several rounds: {}",
        h.state().status
    );
}

/// Issue 31: Tree of Thoughts' two value calls read the same in their boxes
/// (`llm_get_value ("24 fr…`). A title that would show only what it shares with another shows
/// its callee and then where it differs; every call node of the graph reads differently.
#[test]
fn calls_that_differ_late_in_their_argument_read_differently() {
    use opal_debugger_gui::layout::{distinct_from, short, short_from};
    let a = "llm_get_value (\"24 from 4 6 8 2: 8 3 4 12\")";
    let b = "llm_get_value (\"24 from 4 6 8 2: 8 3 4 10\")";
    let from = distinct_from(&[a, b, ""]);
    assert_eq!(from, vec![a.len() - 3, a.len() - 3, 0]);
    assert_eq!(
        short(a, 28),
        short(b, 28),
        "cut at the end, they read the same"
    );
    let (sa, sb) = (short_from(a, 28, from[0]), short_from(b, 28, from[1]));
    assert_ne!(sa, sb);
    assert!(
        sa.starts_with("llm_get_value …") && sa.chars().count() <= 28,
        "{sa}"
    );
    assert_eq!(short_from("f 1", 28, 2), "f 1", "short titles are whole");
    // A title like no other keeps its start and its end (the state a value call scores).
    let lone = short_from(a, 22, 0);
    assert!(
        lone.starts_with("llm_get_value") && lone.ends_with("4 12\")"),
        "{lone}"
    );
    assert_eq!(lone.chars().count(), 22);
    // In a narrow box (a projected node at 70 %) the callee stays whole: `llm_get_…` could
    // be llm_get_proposals.
    let (sa, sb) = (short_from(a, 22, from[0]), short_from(b, 22, from[1]));
    assert!(
        sa.starts_with("llm_get_value") && sa.ends_with("12\")"),
        "{sa}"
    );
    assert!(
        sb.starts_with("llm_get_value") && sb.ends_with("10\")"),
        "{sb}"
    );

    let mut h = sized(example("tree_of_thoughts"), [1500.0, 950.0]);
    h.run();
    for _ in 0..400 {
        let calls = h
            .state()
            .graph
            .nodes
            .iter()
            .filter(|n| n.title.contains("value"))
            .count();
        if calls >= 2 {
            break;
        }
        h.key_press(egui::Key::Space);
        h.key_press(egui::Key::W);
        h.run();
    }
    let nodes = &h.state().graph.nodes;
    let titles: Vec<&str> = nodes.iter().map(|n| n.title.as_str()).collect();
    let from = distinct_from(&titles);
    let shown: Vec<String> = titles
        .iter()
        .zip(&from)
        .map(|(t, f)| short_from(t, 28, *f))
        .collect();
    for i in 0..titles.len() {
        for j in i + 1..titles.len() {
            if !titles[i].is_empty() && titles[i] != titles[j] {
                assert_ne!(shown[i], shown[j], "{} / {}", titles[i], titles[j]);
            }
        }
    }
    assert!(
        titles.iter().filter(|t| t.contains("value")).count() >= 2,
        "{titles:?}"
    );
}

/// Issue 31: at 1280×720 in the projector theme the status message is never cut: one that
/// does not fit beside the step, the strategy, the standing and the tabs gets a line of its
/// own, whole.
#[test]
fn the_status_message_is_whole_at_1280_by_720() {
    let mut app = example("poppy_tree_of_thoughts");
    app.settings.projector = true;
    let mut h = sized(app, [1280.0, 720.0]);
    h.run();
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::Space);
    h.run();
    h.run();
    let status = h.state().status.clone();
    assert!(!status.is_empty());
    let screen = h.ctx.content_rect();
    let message = h.get_by_label(&status).rect();
    assert!(screen.contains_rect(message), "{message:?} in {screen:?}");
    let step = {
        let s = h.state().session.as_ref().expect("a session");
        format!("step {} of {}", s.position(), s.actions().len())
    };
    let step = h.get_by_label(&step).rect();
    // Beside the step (the same row), the row had room for all of it; else on a row below.
    let beside = (message.center().y - step.center().y).abs() < 4.0;
    let font = egui::TextStyle::Body.resolve(&h.ctx.global_style());
    let natural = h
        .ctx
        .fonts_mut(|f| f.layout_no_wrap(status.clone(), font, egui::Color32::WHITE))
        .size()
        .x;
    assert!(
        !beside || message.width() + 1.0 >= natural,
        "the message is cut to {message:?} ({natural} wide): {status}"
    );
}

/// Issue 31: why a statement can never step is written under its row in the labeled term,
/// not only in a hover.
#[test]
fn a_stuck_rows_reason_is_in_sight() {
    let src = "xs := [1, 2, 3]\na := xs[7]\nprint a\n";
    let mut app = DebuggerApp::from_source("stuck.opal", src, None);
    app.settings.projector = true;
    let mut h = sized(app, [1280.0, 720.0]);
    h.run();
    h.key_press(egui::Key::F4);
    for _ in 0..6 {
        h.key_press(egui::Key::Space);
        h.run();
    }
    let why = h
        .get_by_label_contains("↑ stuck: the external call `index` failed")
        .rect();
    assert!(h.ctx.content_rect().contains_rect(why), "{why:?}");
}

/// Issue 31: under lazy evaluation, once the result is a value the status says lazy is
/// done, not how many statements the other strategies would step.
#[test]
fn lazy_says_done_when_the_result_is_a_value() {
    let mut h = sized(example("city_excursions"), [1500.0, 950.0]);
    h.run();
    h.key_press(egui::Key::S);
    h.key_press(egui::Key::S);
    h.run();
    assert!(h.query_by_label("strategy: lazy").is_some());
    h.key_press(egui::Key::N);
    h.run();
    assert!(
        h.query_by_label("lazy: done (the result is a value)")
            .is_some(),
        "{}",
        h.state().status
    );
    assert!(h.query_by_label_contains("steppable").is_none());
}

/// Showing the labeled term at 1280×720 narrows the graph pane below one node's width at
/// 100 %: the view zooms out as far as the graph fits, and back to the chosen zoom when the
/// term is hidden again (issue 31: the call's node was cut at the pane's edge).
#[test]
fn a_pane_narrowed_by_the_term_panel_still_shows_the_whole_graph() {
    let mut app = example("city_excursions");
    app.settings.projector = true;
    let mut h = sized(app, [1280.0, 720.0]);
    h.run();
    h.key_press(egui::Key::Space);
    h.key_press(egui::Key::Space);
    h.run();
    let fits_now = |h: &Harness<'_, DebuggerApp>| {
        let app = h.state();
        let cells = app.layout.placed.values().map(|p| cell_pos(p.cell));
        let view = &app.panels.graph.view;
        view.fits_at(view.zoom, bounds(cells))
    };
    assert!(!h.state().graph.nodes.is_empty());
    assert_eq!(h.state().panels.graph.view.zoom, 1.0);
    assert!(fits_now(&h), "at 100 % beside the source alone");
    h.key_press(egui::Key::F4);
    for _ in 0..10 {
        h.run();
    }
    let view = &h.state().panels.graph.view;
    assert!(
        view.zoom < 1.0 && view.chosen == 1.0,
        "zoom {} chosen {}",
        view.zoom,
        view.chosen
    );
    assert!(
        fits_now(&h),
        "the node is whole beside the term: {:?}",
        view.area()
    );
    h.key_press(egui::Key::F4);
    for _ in 0..10 {
        h.run();
    }
    assert_eq!(
        h.state().panels.graph.view.zoom,
        1.0,
        "hidden again: the chosen zoom"
    );
}
