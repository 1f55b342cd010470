//! The floating windows: help, the file dialog, confluence, all paths.

use super::*;
use crate::paths::PathsView;
use opal_debugger::session::Confluence;

/// A file the user is asked for: what for, and the path typed so far.
pub struct Dialog {
    pub ask: Ask,
    pub path: String,
}

/// The floating windows that have state of their own: help (open or not), the file dialog,
/// all paths (its search and drawing). Confluence shows the session's last result.
#[derive(Default)]
pub struct Windows {
    pub help: bool,
    pub dialog: Option<Dialog>,
    pub paths: Option<PathsView>,
}

impl Windows {
    pub fn ui(&mut self, ctx: &egui::Context, app: &AppView, out: &mut Vec<Cmd>) {
        let screen = ctx.content_rect();
        let max = egui::vec2(screen.width() - 40.0, screen.height() - 80.0);
        if self.help {
            self.help &= help_window(ctx, max);
        }
        if let Some(c) = app.confluence {
            if !confluence_window(ctx, c, max) {
                out.push(WindowCmd::CloseConfluence.into());
            }
        }
        if let Some(p) = &mut self.paths {
            if let Some(actions) = p.window(ctx, app.session, max) {
                out.push(SessionCmd::Travel(actions).into());
            }
            if !p.open {
                self.paths = None;
            }
        }
        if let Some(d) = &mut self.dialog {
            let (go, open) = dialog_window(ctx, d, max);
            if let Some(p) = go {
                out.push(d.ask.cmd(p).into());
                self.dialog = None;
            } else if !open {
                self.dialog = None;
            }
        }
    }
}

/// The keyboard table; false once closed.
fn help_window(ctx: &egui::Context, max: egui::Vec2) -> bool {
    let mut open = true;
    egui::Window::new("Keyboard shortcuts").open(&mut open).collapsible(false).max_size(max).vscroll(true).show(ctx, |ui| {
        egui::Grid::new("keys").striped(true).show(ui, |ui| {
            for (sc, _, what) in crate::cmd::shortcuts() {
                ui.monospace(ctx.format_shortcut(&sc));
                ui.label(what);
                ui.end_row();
            }
        });
        ui.label("Click 'step' on a row (or double-click a green node) to step that statement; hover any row or node for why it can or cannot step.");
    });
    open
}

/// The two final terms side by side; false once closed.
fn confluence_window(ctx: &egui::Context, c: &Confluence, max: egui::Vec2) -> bool {
    let mut open = true;
    egui::Window::new("Confluence").open(&mut open).default_width(max.x.min(900.0)).max_size(max).show(ctx, |ui| {
        if c.truncated {
            ui.colored_label(
                ORANGE,
                format!(
                    "A run did not finish within {} steps (the program may diverge): the terms are not final. Raise the step budget (More) to go further.",
                    c.budget
                ),
            );
        } else if c.identical() {
            ui.colored_label(GREEN, "Identical final terms and output: the step order did not matter.");
        } else {
            ui.colored_label(RED, "The final terms differ.");
        }
        egui::ScrollArea::vertical().show(ui, |ui| {
            ui.columns(2, |cols| {
                let sides = [
                    (format!("your order, then rounds ({} steps)", c.mine_steps), &c.mine_view, &c.mine_output),
                    (format!("{} ({} steps)", c.order, c.theirs_steps), &c.theirs_view, &c.theirs_output),
                ];
                for (ui, (title, view, output)) in cols.iter_mut().zip(sides) {
                    // Not justified (it spread a wrapped line's letters apart), and a gap
                    // before the other column.
                    ui.with_layout(egui::Layout::top_down(egui::Align::LEFT), |ui| {
                        ui.set_max_width(ui.available_width() - 12.0);
                        ui.label(RichText::new(title).strong());
                        ui.add(egui::Label::new(RichText::new(short(view, 20_000)).monospace()).wrap());
                        ui.label(RichText::new("output").strong());
                        ui.add(egui::Label::new(RichText::new(output).monospace()).wrap());
                    });
                }
            });
        });
    });
    open
}

/// The file dialog: (the path chosen, whether the window is still open).
fn dialog_window(ctx: &egui::Context, d: &mut Dialog, max: egui::Vec2) -> (Option<PathBuf>, bool) {
    let mut open = true;
    let mut go = None;
    egui::Window::new(d.ask.title())
        .open(&mut open)
        .collapsible(false)
        .max_size(max)
        .show(ctx, |ui| {
            ui.horizontal(|ui| {
                let name = ui.label("path:");
                let r = ui
                    .add(egui::TextEdit::singleline(&mut d.path).desired_width(420.0))
                    .labelled_by(name.id);
                if r.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
                    go = Some(PathBuf::from(&d.path));
                }
            });
            if matches!(d.ask, Ask::Open | Ask::LoadSession | Ask::LoadTrace) {
                browser(ui, d);
            }
            if ui.button(d.ask.title()).clicked() {
                go = Some(PathBuf::from(&d.path));
            }
        });
    (go, open)
}

/// A small file browser: the directory of the typed path, filtered by type.
fn browser(ui: &mut egui::Ui, d: &mut Dialog) {
    let dir = if d.path.ends_with('/') {
        PathBuf::from(&d.path)
    } else {
        PathBuf::from(&d.path)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    };
    let dir = if dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        dir
    };
    egui::ScrollArea::vertical()
        .max_height(240.0)
        .show(ui, |ui| {
            if ui.button("..").clicked() {
                d.path = format!("{}/", dir.join("..").display());
            }
            let mut entries: Vec<(bool, String)> = std::fs::read_dir(&dir)
                .map(|rd| {
                    rd.filter_map(|e| e.ok())
                        .map(|e| {
                            (
                                e.path().is_dir(),
                                e.file_name().to_string_lossy().into_owned(),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            entries.sort();
            for (is_dir, name) in entries.iter().filter(|(is_dir, n)| {
                *is_dir || n.ends_with(".json") || n.ends_with(d.ask.suffix())
            }) {
                if name.starts_with('.') {
                    continue;
                }
                let shown = if *is_dir {
                    format!("{name}/")
                } else {
                    name.clone()
                };
                if ui.selectable_label(false, shown).clicked() {
                    let p = dir.join(name);
                    d.path = if *is_dir {
                        format!("{}/", p.display())
                    } else {
                        p.display().to_string()
                    };
                }
            }
        });
}
