//! The centre: the task graph (`crate::view` draws it) with its mode and tidy controls.

use super::*;
use crate::view::GraphView;

/// The graph panel; it owns the view (pan, zoom, focus, minimap).
#[derive(Default)]
pub struct GraphPanel {
    pub view: GraphView,
}

impl GraphPanel {
    pub fn ui(&mut self, ui: &mut egui::Ui, app: &AppView, out: &mut Vec<Cmd>) {
        ui.horizontal_wrapped(|ui| self.controls(ui, app, out));
        let Some(s) = app.session else { return };
        let empty = app.graph.nodes.is_empty().then_some(match app.mode {
            GraphMode::Calls => {
                "No external call at the top level now. Calls appear here when they reach the top level (dashed: queued), \
                 turn orange when dispatched, and fold away when they resolve. G shows every statement."
            }
            GraphMode::Statements => "No statement.",
        });
        let practice = app.practice.is_some();
        let text = |n: &Node| node_text(s, n, practice);
        let ev = self.view.ui(
            ui,
            app.graph,
            app.layout,
            app.selected,
            app.now,
            practice,
            &text,
        );
        if let Some(msg) = empty {
            let r = self.view.area().shrink(24.0);
            let rect = egui::Rect::from_min_size(r.min, egui::vec2(r.width(), 120.0));
            // Centred lines, not `ui.put`'s justified layout (it spread the words apart).
            let layout = egui::Layout::top_down(egui::Align::Center);
            ui.scope_builder(egui::UiBuilder::new().max_rect(rect).layout(layout), |ui| {
                ui.add(egui::Label::new(RichText::new(msg).size(16.0).weak()).wrap());
            });
        }
        match ev {
            Some(GraphEvent::Select(k)) => {
                out.push(GraphCmd::Select(Some(k)).into());
                // A pending call clicked: its resolution editor is in the Tasks tab.
                let pending = app
                    .graph
                    .nodes
                    .iter()
                    .any(|n| n.key == k && n.kind == Kind::Pending);
                if pending && app.settings.tab != Tab::Tasks {
                    out.push(WindowCmd::Tab(Tab::Tasks).into());
                }
            }
            Some(GraphEvent::Step(st)) => out.push(SessionCmd::Step(st).into()),
            Some(GraphEvent::Toggle(k)) => out.push(GraphCmd::ToggleGroup(k).into()),
            None => {}
        }
    }

    /// The row above the graph: mode, tidy, fit, zoom, focus, what it shows.
    fn controls(&self, ui: &mut egui::Ui, app: &AppView, out: &mut Vec<Cmd>) {
        for (mode, label) in [
            (GraphMode::Calls, "Calls"),
            (GraphMode::Statements, "Statements"),
        ] {
            if ui
                .selectable_label(app.mode == mode, RichText::new(label).strong())
                .on_hover_text(tip(
                    "graph of external calls, or of every statement",
                    GraphCmd::GraphMode,
                ))
                .clicked()
                && app.mode != mode
            {
                out.push(GraphCmd::GraphMode.into());
            }
        }
        ui.separator();
        for (cmd, label, what) in [
            (GraphCmd::Tidy, "Tidy", "full layered layout"),
            (GraphCmd::FitView, "Fit", "fit the graph in view"),
            (GraphCmd::ZoomOut, "−", "zoom out"),
            (GraphCmd::ZoomIn, "+", "zoom in"),
        ] {
            if ui
                .button(label)
                .on_hover_text(tip(what, cmd.clone()))
                .clicked()
            {
                out.push(cmd.into());
            }
        }
        let mut focus = self.view.focus;
        if ui
            .toggle_value(&mut focus, "Focus")
            .on_hover_text(tip(
                "show only the selected node's upstream and downstream",
                GraphCmd::Focus,
            ))
            .clicked()
        {
            out.push(GraphCmd::Focus.into());
        }
        match app.mode {
            GraphMode::Calls => {
                let mut pure = app.settings.show_pure;
                if ui
                    .checkbox(&mut pure, "pure calls")
                    .on_hover_text(
                        "also show calls such as print and add, which resolve at dispatch",
                    )
                    .changed()
                {
                    out.push(GraphCmd::ShowPure(pure).into());
                }
            }
            GraphMode::Statements => {
                let mut prelude = app.settings.prelude;
                if ui
                    .checkbox(&mut prelude, "prelude")
                    .on_hover_text("show the environment and prelude statements (labels 0.…)")
                    .changed()
                {
                    out.push(GraphCmd::TogglePrelude.into());
                }
            }
        }
        let hint = "wheel: zoom · drag: pan · click a stacked node to open it · double-click a green node to step it";
        if ui.available_width() > 560.0 {
            ui.weak(hint);
        } else {
            ui.weak("(?)").on_hover_text(hint);
        }
    }
}
