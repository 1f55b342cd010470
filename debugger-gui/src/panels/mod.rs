//! Drawing the window: one row of menus and tools, the source (wrapping, never scrolling
//! sideways) with the output under it, the task graph in the centre, the labeled term on the
//! right, and a bottom dock (pending tasks, history, timeline, before/after). Every panel can
//! be hidden (F3, F4, F6, View menu) and resized; on a narrow window (a projector at
//! 1280×720) the term panel and the dock start hidden so the graph keeps most of the screen.
//!
//! As egui's demo apps: each panel is a struct owning its own UI state (what was typed, the
//! graph's pan and zoom, the file dialog's path) with a `ui` method that reads the window's
//! state through `AppView` and pushes `Cmd`s; only `DebuggerApp::run_cmd` changes the app and
//! the session. One module per part of the window: `toolbar` (tool row, menus, status line),
//! `text` (source, output, labeled term), `graph`, `dock` (its tabs) and `windows` (help, file
//! dialog, confluence, all paths).

use crate::cmd::{
    strategy_label, tip, Ask, Cmd, FileCmd, GraphCmd, GraphMode, Panel, RunCmd, SessionCmd, Tab,
    TeachCmd, WindowCmd,
};
use crate::layout::short;
use crate::state::AppView;
use crate::view::{GraphEvent, NodeText};
use eframe::egui::{self, Color32, Key, RichText};
use opal_debugger::examples::EXAMPLES;
use opal_debugger::graph::Node;
use opal_debugger::session::{Kind, Order, Quiz, RowStatus, Session, Standing, Strategy, Until};
use std::path::{Path, PathBuf};

const GREEN: Color32 = Color32::from_rgb(0x20, 0x90, 0x20);
const RED: Color32 = Color32::from_rgb(0xc0, 0x20, 0x20);
const ORANGE: Color32 = Color32::from_rgb(0xc0, 0x60, 0x00);

mod dock;
mod graph;
mod text;
mod toolbar;
mod windows;

pub use dock::Dock;
pub use graph::GraphPanel;
pub use text::{SourcePanel, TermPanel};
pub use toolbar::{StatusBar, Toolbar};
pub use windows::{Dialog, Windows};

/// Every panel of the window, each with its own state.
#[derive(Default)]
pub struct Panels {
    pub toolbar: Toolbar,
    pub status: StatusBar,
    pub source: SourcePanel,
    pub term: TermPanel,
    pub graph: GraphPanel,
    pub dock: Dock,
    pub windows: Windows,
}

impl Panels {
    /// Draws one frame; what the user did goes into `out`.
    pub fn ui(&mut self, ui: &mut egui::Ui, app: &AppView, out: &mut Vec<Cmd>) {
        let ctx = ui.ctx().clone();
        let projector = app.settings.projector;
        let pid = if projector { "-projector" } else { "" };

        egui::Panel::top("bar").show(ui, |ui| self.toolbar.ui(ui, app, out));
        egui::Panel::bottom("status").show(ui, |ui| self.status.ui(ui, app, out, !app.dock_shown));
        if let Some(e) = app.errors {
            egui::Panel::top("errors").show(ui, |ui| errors(ui, e, app.session.is_some()));
        }
        // Side panels start at most about a quarter of the window each (in points: the projector
        // theme makes a 1280-pixel screen 853 points wide), so the graph keeps about half of it.
        let width = app.screen.x;
        let (term_w, dock_h): (f32, f32) = if projector {
            (340.0, 170.0)
        } else {
            (470.0, 240.0)
        };
        let term_w = term_w.min(width * 0.25);
        if app.settings.source {
            // The room reads the program: the source starts as wide as its longest line of code
            // (comments may wrap), up to 45 % of the window (a third beside the labeled term),
            // so the graph keeps the rest.
            // (A window narrower than 270 points, zoomed in or minimised, has less than the
            // 120-point floor to give: the floor gives way, never the reverse.)
            let most = width * if app.term_shown { 0.33 } else { 0.45 };
            let least = most.min(120.0);
            let source_w = self.source.fitting_width(ui, app).min(most).max(least);
            egui::Panel::left(format!("source{pid}"))
                .resizable(true)
                .default_size(source_w)
                .size_range(least..=most)
                .show(ui, |ui| self.source.ui(ui, app));
        }
        if app.dock_shown {
            egui::Panel::bottom(format!("dock{pid}"))
                .resizable(true)
                .default_size(dock_h)
                .show(ui, |ui| self.dock.ui(ui, app, out));
        }
        if app.term_shown {
            egui::Panel::right(format!("term{pid}"))
                .resizable(true)
                .default_size(term_w)
                // Up to half the window, for reading long rows on a projector.
                .size_range(160.0..=width * 0.5)
                .show(ui, |ui| self.term.ui(ui, app, out));
        }
        egui::CentralPanel::default().show(ui, |ui| self.graph.ui(ui, app, out));
        self.windows.ui(&ctx, app, out);
    }
}

/// The program's compile errors, above everything.
fn errors(ui: &mut egui::Ui, e: &str, kept: bool) {
    egui::ScrollArea::vertical()
        .max_height(120.0)
        .show(ui, |ui| {
            ui.colored_label(RED, RichText::new(e).monospace());
        });
    ui.label(if kept {
        "Fix the program or its world file: it reloads when saved (or press F5). The session below is the last one that compiled."
    } else {
        "Fix the program or its world file: it opens when saved (or press F5)."
    });
}

/// The lines a graph node shows and its tooltip; `practice` hides every status.
pub fn node_text(s: &Session, n: &Node, practice: bool) -> NodeText {
    let Some(stmt) = n.stmt.filter(|st| s.machine().stmt(*st).is_alive()) else {
        return NodeText {
            title: n.title.clone(),
            detail: n.detail.clone(),
            tip: format!("{}: {}\nclick to open the group", n.label, n.title),
        };
    };
    let label = s.label_tip(stmt);
    let line = n.line.map(|l| format!(" (line {l})")).unwrap_or_default();
    if !n.title.is_empty() {
        let state = n.call.map(|c| c.words()).unwrap_or("");
        let detail = if state.starts_with(&n.detail) {
            String::new()
        } else {
            format!("\n{}", n.detail)
        };
        let tip = if practice {
            format!("{label}{line}\n{}", n.title)
        } else {
            format!("{label}{line}\n{}\n{state}{detail}", n.title)
        };
        return NodeText {
            title: n.title.clone(),
            detail: n.detail.clone(),
            tip,
        };
    }
    let row = s.row(stmt);
    let core: Vec<&str> = row.core.lines().take(12).collect();
    let detail = match &row.status {
        RowStatus::Steppable(r) => r.name().to_string(),
        // The node's one line for the reason: what went wrong, not which call (its title).
        RowStatus::Failed(why) => match why.split_once(" failed: ") {
            Some((_, what)) => format!("failed: {what}"),
            None => row.status.to_string(),
        },
        _ => row.status.to_string(),
    };
    let tip = if practice {
        format!("{label}{line}\n{}", core.join("\n"))
    } else {
        format!("{label}{line}\n{}\n{}", core.join("\n"), row.status)
    };
    NodeText {
        title: row.text,
        detail,
        tip,
    }
}

fn tab_title(app: &AppView, t: Tab) -> String {
    match t {
        Tab::Tasks => format!("{} ({})", t.name(), app.cache.pending.len()),
        _ => t.name().to_string(),
    }
}
