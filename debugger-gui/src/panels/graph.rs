//! The centre: the task graph (`crate::view` draws it) with its mode and tidy controls.

use super::*;

pub(super) fn graph_panel(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
    ui.horizontal_wrapped(|ui| {
        for (mode, label) in [(GraphMode::Calls, "Calls"), (GraphMode::Statements, "Statements")] {
            if ui
                .selectable_label(app.mode() == mode, RichText::new(label).strong())
                .on_hover_text(tip("graph of external calls, or of every statement", &Cmd::GraphMode))
                .clicked()
                && app.mode() != mode
            {
                cmds.push(Cmd::GraphMode);
            }
        }
        ui.separator();
        for (cmd, label, what) in [
            (Cmd::Tidy, "Tidy", "full layered layout"),
            (Cmd::FitView, "Fit", "fit the graph in view"),
            (Cmd::ZoomOut, "−", "zoom out"),
            (Cmd::ZoomIn, "+", "zoom in"),
        ] {
            if ui.button(label).on_hover_text(tip(what, &cmd)).clicked() {
                cmds.push(cmd);
            }
        }
        let mut focus = app.view.focus;
        if ui.toggle_value(&mut focus, "Focus").on_hover_text(tip("show only the selected node's upstream and downstream", &Cmd::Focus)).clicked() {
            cmds.push(Cmd::Focus);
        }
        match app.mode() {
            GraphMode::Calls => {
                if ui
                    .checkbox(&mut app.settings.show_pure, "pure calls")
                    .on_hover_text("also show calls such as print and add, which resolve at dispatch")
                    .changed()
                {
                    cmds.push(Cmd::RefreshGraph);
                }
            }
            GraphMode::Statements => {
                let mut prelude = app.settings.prelude;
                if ui.checkbox(&mut prelude, "prelude").on_hover_text("show the environment and prelude statements (labels 0.…)").changed() {
                    cmds.push(Cmd::TogglePrelude);
                }
            }
        }
        let hint = "wheel: zoom · drag: pan · click a stacked node to open it · double-click a green node to step it";
        if ui.available_width() > 560.0 {
            ui.weak(hint);
        } else {
            ui.weak("(?)").on_hover_text(hint);
        }
    });
    let Some(s) = &app.session else { return };
    let empty = app.graph.nodes.is_empty().then_some(match app.mode() {
        GraphMode::Calls => {
            "No external call at the top level now. Calls appear here when they reach the top level (dashed: queued), \
             turn orange when dispatched, and fold away when they resolve. G shows every statement."
        }
        GraphMode::Statements => "No statement.",
    });
    let practice = app.practice.is_some();
    let text = |n: &Node| node_text(s, n, practice);
    let ev = app.view.ui(ui, &app.graph, &app.layout, app.selected, app.now, practice, &text);
    if let Some(msg) = empty {
        let r = app.view.area().shrink(24.0);
        ui.put(egui::Rect::from_min_size(r.min, egui::vec2(r.width(), 120.0)), egui::Label::new(RichText::new(msg).size(16.0).weak()).wrap());
    }
    match ev {
        Some(GraphEvent::Select(k)) => {
            cmds.push(Cmd::Select(Some(k)));
            // A pending call clicked: its resolution editor is in the Tasks tab.
            let pending = app.graph.nodes.iter().any(|n| n.key == k && n.kind == Kind::Pending);
            if pending && app.settings.tab != Tab::Tasks {
                cmds.push(Cmd::Tab(Tab::Tasks));
            }
        }
        Some(GraphEvent::Step(st)) => cmds.push(Cmd::Step(st)),
        Some(GraphEvent::Toggle(k)) => cmds.push(Cmd::ToggleGroup(k)),
        None => {}
    }
}
