//! The window shows the program's names (issue 31): at 1280×720 in the projector theme the
//! labeled term reads `excursions#1 := get_excursions_in city#1`, not the core's
//! `excursions@5.6.6 := get_excursions_in city@5.6.6`; "core names" is one click away; Tree of
//! Thoughts' rows use its variables' names, and long rows wrap inside the panel.

use eframe::egui;
use egui_kittest::kittest::{NodeT, Queryable};
use egui_kittest::Harness;
use opal_debugger_gui::app::DebuggerApp;
use opal_debugger_gui::examples::EXAMPLES;
use opal_debugger_gui::layout::{bounds, cell_pos};

fn projected(name: &str) -> Harness<'static, DebuggerApp> {
    let i = EXAMPLES
        .iter()
        .position(|e| e.name == name)
        .expect("bundled");
    let mut app = DebuggerApp::from_example(i);
    app.settings.projector = true;
    app.settings.term = Some(true);
    let mut h = Harness::builder()
        .with_size([1280.0, 720.0])
        .with_max_steps(60)
        .build_ui_state(|ui, app: &mut DebuggerApp| app.show(ui), app);
    h.run();
    h
}

fn rounds(h: &mut Harness<'_, DebuggerApp>, n: usize) {
    for _ in 0..n {
        h.key_press(egui::Key::Space);
        h.key_press(egui::Key::W);
        h.run();
    }
}

fn has(h: &Harness<'_, DebuggerApp>, text: &str) -> bool {
    h.query_all_by_label_contains(text).next().is_some()
}

#[test]
fn the_term_reads_the_programs_names_and_the_core_is_one_click_away() {
    let mut h = projected("city_excursions");
    let call = "excursions#1 := get_excursions_in city#1";
    for _ in 0..40 {
        if has(&h, call) {
            break;
        }
        h.key_press(egui::Key::Space);
        h.run();
        if !has(&h, call) {
            h.key_press(egui::Key::W);
            h.run();
        }
    }
    assert!(has(&h, call), "the excursion call by the program's names");
    let rows: Vec<String> = h
        .state()
        .session
        .as_ref()
        .expect("a session")
        .rows()
        .into_iter()
        .map(|r| r.text)
        .collect();
    assert!(
        rows.iter().any(|r| r.contains("print (stdout, city#1)")),
        "temporaries folded: {rows:#?}"
    );
    let shown = |t: &str| h.query_all_by_label_contains(t).next().is_some();
    assert!(
        shown("print (stdout, city#1)"),
        "the folded row is on screen"
    );
    // The prelude's machinery inside the loop (its fold) is folded away until asked for.
    let machinery: Vec<String> = {
        let s = h.state().session.as_ref().expect("a session");
        s.statements()
            .into_iter()
            .filter(|st| s.is_machinery(*st) && !s.is_prelude(*st))
            .map(|st| s.row(st).text)
            .collect()
    };
    assert!(
        !machinery.is_empty(),
        "the loop runs inside the prelude's fold"
    );
    assert!(
        !machinery.iter().any(|t| has(&h, t)),
        "{machinery:?} hidden"
    );
    h.get_by_label("prelude").click();
    h.run();
    assert!(
        machinery.iter().all(|t| has(&h, t)),
        "{machinery:?} shown on request"
    );
    h.get_by_label("prelude").click();
    h.run();
    assert!(
        !has(&h, "get_excursions_in city@"),
        "no core name in the rows"
    );
    h.get_by_label("core names").click();
    h.run();
    assert!(
        has(&h, "excursions@5.6.6 := get_excursions_in city@5.6.6"),
        "the core notation, one click away"
    );
}

#[test]
fn tree_of_thoughts_rows_use_its_variables_names() {
    let mut h = projected("poppy_tree_of_thoughts");
    rounds(&mut h, 12);
    let session = h.state().session.as_ref().expect("a session");
    let texts: Vec<String> = session.rows().into_iter().map(|r| r.text).collect();
    for name in ["states", "task"] {
        assert!(
            texts.iter().any(|t| t.contains(name)),
            "`{name}` in the rows: {texts:#?}"
        );
    }
    // The copies a loop threads go by their names too (`values#2`, not `values'7@7`), in the
    // rows the window leaves out as well (a folded tuple's read-back).
    for copy in ["values'", "states'"] {
        assert!(
            !texts.iter().any(|t| t.contains(copy)),
            "{copy}: {texts:#?}"
        );
    }
    for core in ["values'", "states'", "seq'"] {
        assert!(
            h.query_all_by_label_contains(core).next().is_none(),
            "`{core}` on screen: {texts:#?}"
        );
    }
}

#[test]
fn long_rows_wrap_inside_the_term_panel() {
    let mut h = projected("poppy_tree_of_thoughts");
    rounds(&mut h, 12);
    let screen = h.ctx.content_rect();
    let rows: Vec<(usize, egui::Rect)> = h
        .query_all_by_label_contains(":=")
        .filter_map(|n| {
            let chars = n.accesskit_node().label()?.chars().count();
            Some((chars, n.rect()))
        })
        .collect();
    // The height of a row of one line: the shortest row's.
    let one_line = rows
        .iter()
        .map(|r| r.1.height())
        .fold(f32::INFINITY, f32::min);
    let long: Vec<egui::Rect> = rows.iter().filter(|r| r.0 > 40).map(|r| r.1).collect();
    assert!(!long.is_empty(), "a long row to look at");
    for r in long {
        assert!(
            r.right() <= screen.right() + 1.0,
            "{r:?} runs off {screen:?}"
        );
        assert!(
            r.height() > one_line * 1.5,
            "{r:?}: a row of more than 40 characters wraps (one line is {one_line})"
        );
    }
}

/// Fit fits (issue 31): a 12-node statement graph (a chain of 11 and the program's result),
/// whose layout grows straight down, fits the graph pane of a projected 1280×720 window at a
/// legible zoom after Fit (which tidies it into side-by-side columns first).
#[test]
fn fit_fits_a_twelve_node_chain_at_720p() {
    let mut src = String::from("extern fetch\na0 := fetch \"x\"\n");
    for i in 1..11 {
        src.push_str(&format!("a{i} := a{} + \"{i}\"\n", i - 1));
    }
    let mut app = DebuggerApp::from_source("chain.opal", &src, None);
    app.settings.projector = true;
    let mut h = Harness::builder()
        .with_size([1280.0, 720.0])
        .with_max_steps(60)
        .build_ui_state(|ui, app: &mut DebuggerApp| app.show(ui), app);
    h.run();
    h.key_press(egui::Key::G);
    h.run();
    assert_eq!(h.state().graph.nodes.len(), 12);
    let fits = |h: &Harness<'_, DebuggerApp>| {
        let app = h.state();
        let cells = app.layout.placed.values().map(|p| cell_pos(p.cell));
        app.panels.graph.view.fits_at_floor(bounds(cells))
    };
    assert!(!fits(&h), "the grown layout does not fit: nothing to test");
    h.key_press(egui::Key::Num0);
    for _ in 0..200 {
        h.run();
        if fits(&h) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let app = h.state();
    let cells: Vec<_> = app.layout.placed.values().map(|p| p.cell).collect();
    assert!(
        fits(&h),
        "after Fit the chain fits the pane ({:?} cells at the floor): {cells:?}",
        app.panels.graph.view.pane_at_floor(),
    );
    assert!(h.state().status.contains("tidied"), "{}", h.state().status);
}
