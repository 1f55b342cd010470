//! Drawing the window: one row of menus and tools, the source (wrapping, never scrolling
//! sideways) with the output under it, the task graph in the centre, the labeled term on the
//! right, and a bottom dock (pending tasks, history, timeline, before/after). Every panel can
//! be hidden (F3, F4, F6, View menu) and resized; on a narrow window (a projector at
//! 1280×720) the term panel and the dock start hidden so the graph keeps most of the screen.
//! Panels only draw and push `Cmd`s.

use crate::app::{strategy_label, tip, Ask, Cmd, DebuggerApp, GraphMode, Panel, Tab};
use crate::layout::short;
use crate::view::{GraphEvent, NodeText};
use eframe::egui::{self, Color32, Key, RichText};
use opal_debugger::examples::EXAMPLES;
use opal_debugger::graph::Node;
use opal_debugger::session::{Kind, Order, Quiz, RowStatus, Session, Standing, Strategy, Until};
use std::path::{Path, PathBuf};

const GREEN: Color32 = Color32::from_rgb(0x20, 0x90, 0x20);
const RED: Color32 = Color32::from_rgb(0xc0, 0x20, 0x20);
const ORANGE: Color32 = Color32::from_rgb(0xc0, 0x60, 0x00);

/// The lines a graph node shows and its tooltip; `practice` hides every status.
pub fn node_text(s: &Session, n: &Node, practice: bool) -> NodeText {
    let Some(stmt) = n.stmt.filter(|st| s.machine().stmt(*st).is_alive()) else {
        return NodeText { title: n.title.clone(), detail: n.detail.clone(), tip: format!("{}: {}\nclick to open the group", n.label, n.title) };
    };
    let label = s.label_tip(stmt);
    let line = n.line.map(|l| format!(" (line {l})")).unwrap_or_default();
    if !n.title.is_empty() {
        let state = n.call.map(|c| c.words()).unwrap_or("");
        let detail = if state.starts_with(&n.detail) { String::new() } else { format!("\n{}", n.detail) };
        let tip = if practice { format!("{label}{line}\n{}", n.title) } else { format!("{label}{line}\n{}\n{state}{detail}", n.title) };
        return NodeText { title: n.title.clone(), detail: n.detail.clone(), tip };
    }
    let row = s.row(stmt);
    let core: Vec<&str> = row.core.lines().take(12).collect();
    let detail = match &row.status {
        RowStatus::Steppable(r) => r.name().to_string(),
        _ => row.status.to_string(),
    };
    let tip = if practice { format!("{label}{line}\n{}", core.join("\n")) } else { format!("{label}{line}\n{}\n{}", core.join("\n"), row.status) };
    NodeText { title: row.text, detail, tip }
}

/// Draws one frame.
pub(crate) fn frame(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
    let ctx = ui.ctx().clone();
    app.screen = ctx.content_rect().size();
    let projector = app.settings.projector;
    let pid = if projector { "-projector" } else { "" };

    let dock_open = app.dock_shown();
    egui::Panel::top("bar").show(ui, |ui| bar(app, ui, cmds));
    egui::Panel::bottom("status").show(ui, |ui| status_bar(app, ui, cmds, !dock_open));
    if let Some(e) = &app.errors {
        let e = e.clone();
        let kept = app.session.is_some();
        egui::Panel::top("errors").show(ui, |ui| {
            egui::ScrollArea::vertical().max_height(120.0).show(ui, |ui| {
                ui.colored_label(RED, RichText::new(e).monospace());
            });
            ui.label(if kept {
                "Fix the program or its world file: it reloads when saved (or press F5). The session below is the last one that compiled."
            } else {
                "Fix the program or its world file: it opens when saved (or press F5)."
            });
        });
    }
    // Side panels start at most about a quarter of the window each (in points: the projector
    // theme makes a 1280-pixel screen 853 points wide), so the graph keeps at least half of it.
    let width = app.screen.x;
    let (source_w, term_w, dock_h): (f32, f32, f32) = if projector { (230.0, 340.0, 170.0) } else { (380.0, 470.0, 240.0) };
    let (source_w, term_w) = (source_w.min(width * 0.22), term_w.min(width * 0.25));
    if app.settings.source {
        egui::Panel::left(format!("source{pid}")).resizable(true).default_size(source_w).size_range(120.0..=width * 0.3).show(ui, |ui| source_panel(app, ui));
    }
    if dock_open {
        egui::Panel::bottom(format!("dock{pid}")).resizable(true).default_size(dock_h).show(ui, |ui| dock(app, ui, cmds));
    }
    if app.term_shown() {
        egui::Panel::right(format!("term{pid}")).resizable(true).default_size(term_w).size_range(160.0..=width * 0.28).show(ui, |ui| term_panel(app, ui, cmds));
    }
    egui::CentralPanel::default().show(ui, |ui| graph_panel(app, ui, cmds));
    windows(app, &ctx, cmds);
}

fn tab_title(app: &DebuggerApp, t: Tab) -> String {
    match t {
        Tab::Tasks => format!("{} ({})", t.name(), app.cache.pending.len()),
        _ => t.name().to_string(),
    }
}

/// One row: the menus, then the tools in order of use; what does not fit goes in "More"
/// (at 1280×720 in the projector theme the row is 853 points wide).
fn bar(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
    let width = ui.available_width();
    let (wide, mid) = (width > 1300.0, width > 1000.0);
    ui.horizontal(|ui| {
        menus(app, ui, cmds);
        ui.separator();
        for (cmd, label, what) in [
            (Cmd::Back, "Back", "step back in history"),
            (Cmd::Round, "Round", "one opportunistic round: every steppable statement steps"),
            (Cmd::Forward, "Forward", "step forward in history"),
        ] {
            if ui.button(label).on_hover_text(tip(what, &cmd)).clicked() {
                cmds.push(cmd);
            }
        }
        if wide {
            for (cmd, label, what) in [
                (Cmd::Cbv, "CBV step", "one call-by-value step"),
                (Cmd::Lazy, "Lazy step", "one lazy step"),
                (Cmd::Restart, "Restart", "restart from the initial term"),
            ] {
                if ui.button(label).on_hover_text(tip(what, &cmd)).clicked() {
                    cmds.push(cmd);
                }
            }
        }
        ui.separator();
        let run = if app.running { "Pause" } else { "Run" };
        if ui.button(run).on_hover_text(tip("run or pause", &Cmd::RunPause)).clicked() {
            cmds.push(Cmd::RunPause);
        }
        if mid {
            strategy_box(app, ui);
        }
        if ui.button("Run until").on_hover_text(tip("run until the chosen event, within the step budget", &Cmd::RunUntil)).clicked() {
            cmds.push(Cmd::RunUntil);
        }
        if mid {
            until_box(app, ui);
        }
        if wide {
            speed_and_auto(app, ui);
        }
        // The menu stays open while its choices are set (a combo box inside a menu that closes
        // on any click could not be opened); its buttons close it.
        let more = egui::containers::menu::MenuConfig::new().close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside);
        egui::containers::menu::MenuButton::new("More").config(more).ui(ui, |ui| {
            if !mid {
                strategy_choice(app, ui);
                until_choice(app, ui);
                ui.separator();
            }
            if !wide {
                for (cmd, label) in [(Cmd::Cbv, "CBV step"), (Cmd::Lazy, "Lazy step"), (Cmd::Restart, "Restart")] {
                    if ui.button(label).on_hover_text(tip(label, &cmd)).clicked() {
                        cmds.push(cmd);
                        ui.close();
                    }
                }
                speed_and_auto(app, ui);
            }
            if ui.button("Resolve all pending").on_hover_text(tip("from the trace or the world file", &Cmd::ResolveAll)).clicked() {
                cmds.push(Cmd::ResolveAll);
                ui.close();
            }
            ui.horizontal(|ui| {
                let name = ui.label("step budget:");
                let mut b = app.settings.step_budget as f64;
                let r = ui.add(egui::DragValue::new(&mut b).range(100.0..=100_000_000.0).speed(1000.0)).labelled_by(name.id);
                if r.changed() {
                    app.settings.step_budget = b as usize;
                    if let Some(s) = &mut app.session {
                        s.step_budget = app.settings.step_budget;
                    }
                }
            })
            .response
            .on_hover_text("run until, confluence and other long runs stop after this many steps");
        });
        if wide {
            ui.label(RichText::new(&app.name).strong());
        }
    });
}

fn strategy_box(app: &mut DebuggerApp, ui: &mut egui::Ui) {
    let mut strategy = app.strategy();
    let name = |s: Strategy| match s {
        Strategy::Opportunistic => "opportunistic",
        Strategy::Cbv => "call-by-value",
        Strategy::Lazy => "lazy",
    };
    egui::ComboBox::new("strategy", "strategy").selected_text(name(strategy)).show_ui(ui, |ui| {
        for s in Strategy::ALL {
            ui.selectable_value(&mut strategy, s, strategy_label(s));
        }
    });
    app.settings.strategy = strategy;
}

/// The strategy as a row of choices (inside the More menu, where a combo box's own popup
/// would fight the menu's).
fn strategy_choice(app: &mut DebuggerApp, ui: &mut egui::Ui) {
    let mut strategy = app.strategy();
    ui.label("strategy:");
    ui.horizontal(|ui| {
        for s in Strategy::ALL {
            ui.selectable_value(&mut strategy, s, strategy_label(s));
        }
    });
    app.settings.strategy = strategy;
}

fn until_choice(app: &mut DebuggerApp, ui: &mut egui::Ui) {
    ui.label("run until:");
    ui.horizontal_wrapped(|ui| {
        ui.selectable_value(&mut app.until, Until::Dispatch, "next dispatch");
        ui.selectable_value(&mut app.until, Until::Resolve, "next resolve");
        ui.selectable_value(&mut app.until, Until::End, "the end");
        if let Some(k) = app.selected {
            ui.selectable_value(&mut app.until, Until::Steps(k), "the selected statement steps");
        }
    });
}

fn speed_and_auto(app: &mut DebuggerApp, ui: &mut egui::Ui) {
    ui.add(egui::Slider::new(&mut app.settings.speed, 0.5..=60.0).logarithmic(true).text("actions/s"));
    ui.checkbox(&mut app.settings.auto_resolve, "auto-resolve").on_hover_text("when nothing can step, resolve pending tasks from the trace or the world file");
}

fn until_box(app: &mut DebuggerApp, ui: &mut egui::Ui) {
    let text = match &app.until {
        Until::Dispatch => "next dispatch".to_string(),
        Until::Resolve => "next resolve".to_string(),
        Until::Steps(_) => "selected steps".to_string(),
        Until::End => "the end".to_string(),
    };
    egui::ComboBox::new("until", "until").selected_text(text).show_ui(ui, |ui| {
        ui.selectable_value(&mut app.until, Until::Dispatch, "next dispatch");
        ui.selectable_value(&mut app.until, Until::Resolve, "next resolve");
        ui.selectable_value(&mut app.until, Until::End, "the end");
        match app.selected {
            Some(k) => {
                ui.selectable_value(&mut app.until, Until::Steps(k), "the selected statement steps");
            }
            None => {
                ui.weak("select a statement to run until it steps");
            }
        }
    });
}

fn menus(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
    ui.menu_button("File", |ui| {
        for (ask, label) in [(Ask::Open, "Open…"), (Ask::SaveSession, "Save session…"), (Ask::LoadSession, "Load session…"), (Ask::LoadTrace, "Load trace…")]
        {
            if ui.button(label).on_hover_text(tip(ask.title(), &Cmd::Ask(ask))).clicked() {
                cmds.push(Cmd::Ask(ask));
            }
        }
        if ui.button("Reload").on_hover_text(tip("reload the program from disk", &Cmd::Reload)).clicked() {
            cmds.push(Cmd::Reload);
        }
        ui.menu_button("Examples", |ui| {
            for (i, e) in EXAMPLES.iter().enumerate() {
                if ui.button(e.name).clicked() {
                    cmds.push(Cmd::OpenExample(i));
                }
            }
        });
        ui.separator();
        for (ask, label) in
            [(Ask::ExportDot, "Export graph as DOT…"), (Ask::ExportSvg, "Export graph as SVG…"), (Ask::ExportTimeline, "Export timeline as CSV…")]
        {
            if ui.button(label).clicked() {
                cmds.push(Cmd::Ask(ask));
            }
        }
        ui.separator();
        if ui.button("Quit").clicked() {
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
        }
    });
    ui.menu_button("Step", |ui| {
        for (cmd, label) in [
            (Cmd::Round, "Round"),
            (Cmd::Advance, "Step (strategy)"),
            (Cmd::Cbv, "Call-by-value step"),
            (Cmd::Lazy, "Lazy step"),
            (Cmd::Back, "Back"),
            (Cmd::Forward, "Forward"),
            (Cmd::Restart, "Restart"),
            (Cmd::RunUntil, "Run until"),
            (Cmd::ResolveAll, "Resolve all pending"),
            (Cmd::Cancel, "Cancel what runs"),
        ] {
            if ui.button(label).on_hover_text(tip(label, &cmd)).clicked() {
                cmds.push(cmd);
            }
        }
    });
    ui.menu_button("Teach", |ui| {
        if ui.button("Practice mode").on_hover_text(tip("predict, then check", &Cmd::Practice)).clicked() {
            cmds.push(Cmd::Practice);
        }
        if ui.button("Before/after of the last step").on_hover_text(tip("the redex and what replaced it", &Cmd::Tab(Tab::Stepper))).clicked() {
            cmds.push(Cmd::Tab(Tab::Stepper));
        }
        if ui.button("All paths").on_hover_text(tip("every reduction order of a small program, as a graph", &Cmd::AllPaths)).clicked() {
            cmds.push(Cmd::AllPaths);
        }
        for order in [Order::Reversed, Order::Random(7), Order::Cbv] {
            if ui
                .button(format!("Confluence: {}", order.name()))
                .on_hover_text("finish the program under another step order with the same resolutions and compare the final terms")
                .clicked()
            {
                cmds.push(Cmd::Confluence(order));
            }
        }
    });
    ui.menu_button("View", |ui| {
        let s = &app.settings;
        let toggles = [
            (Cmd::Projector, "Projector theme", s.projector),
            (Cmd::Panel(Panel::Source), "Source panel", s.source),
            (Cmd::Panel(Panel::Term), "Labeled term panel", app.term_shown()),
            (Cmd::Panel(Panel::Dock), "Bottom panel", app.dock_shown()),
        ];
        for (cmd, label, on) in toggles {
            let mut on = on;
            if ui.checkbox(&mut on, label).on_hover_text(tip(label, &cmd)).clicked() {
                cmds.push(cmd);
            }
        }
        ui.separator();
        for (mode, label) in [(GraphMode::Calls, "Graph of external calls"), (GraphMode::Statements, "Graph of statements")] {
            if ui.radio(app.mode() == mode, label).on_hover_text(tip(label, &Cmd::GraphMode)).clicked() && app.mode() != mode {
                cmds.push(Cmd::GraphMode);
            }
        }
        if ui.button("Keyboard shortcuts").on_hover_text(tip("help", &Cmd::Help)).clicked() {
            cmds.push(Cmd::Help);
        }
    });
}

/// The status line; with the dock folded away, its tabs sit at the right, one click away.
fn status_bar(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>, tabs: bool) {
    // A message too long for the row (a projector's narrow window) gets a line of its own,
    // whole, instead of being cut.
    let font = egui::TextStyle::Body.resolve(ui.style());
    let needs = ui.painter().layout_no_wrap(app.status.clone(), font, Color32::WHITE).size().x;
    let own_line = needs > ui.available_width() * if tabs { 0.3 } else { 0.6 };
    ui.horizontal(|ui| {
        if tabs {
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                for t in Tab::ALL.iter().rev() {
                    if ui.selectable_label(false, tab_title(app, *t)).on_hover_text("open the bottom panel (F6)").clicked() {
                        cmds.push(Cmd::Tab(*t));
                    }
                }
                ui.separator();
                ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| status_line(app, ui, cmds, !own_line));
            });
        } else {
            status_line(app, ui, cmds, !own_line);
        }
    });
    if own_line && !app.status.is_empty() {
        ui.add(egui::Label::new(&app.status).wrap());
    }
}

fn status_line(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>, message: bool) {
    if let Some(s) = &app.session {
        {
            if let Some(p) = s.busy() {
                let frac = if p.total > 0 { p.done as f32 / p.total as f32 } else { 0.0 };
                ui.add(egui::ProgressBar::new(frac.min(1.0)).desired_width(120.0).show_percentage())
                    .on_hover_text(format!("{}: {} of {}", p.what, p.done, p.total));
                if ui.button("Cancel (Esc)").clicked() {
                    cmds.push(Cmd::Cancel);
                }
                ui.separator();
            }
            ui.label(format!("step {} of {}", s.position(), s.actions().len()));
            ui.separator();
            let standing = match (&app.practice, &app.cache.standing) {
                (Some(_), _) => "practice: predict, then Check".to_string(),
                (None, Some(st)) => st.text(),
                (None, None) => String::new(),
            };
            let color = match app.cache.standing {
                Some(Standing::Finished) if app.practice.is_none() => GREEN,
                Some(Standing::Stuck(_)) if app.practice.is_none() => RED,
                _ => ui.visuals().text_color(),
            };
            ui.colored_label(color, RichText::new(standing).strong());
            ui.separator();
        }
    }
    if message {
        ui.add(egui::Label::new(&app.status).truncate()).on_hover_text(&app.status);
    }
}

fn source_panel(app: &mut DebuggerApp, ui: &mut egui::Ui) {
    let Some(s) = &app.session else {
        ui.heading("Source");
        ui.weak("No program. File > Open (Ctrl+O) or File > Examples.");
        return;
    };
    // The output under the source, a few lines, growing to a third of the panel.
    egui::Panel::bottom("output").resizable(true).default_size(ui.available_height() / 4.0).show(ui, |ui| {
        ui.heading("Output");
        egui::ScrollArea::vertical().id_salt("output").auto_shrink([false, false]).stick_to_bottom(true).show(ui, |ui| {
            if s.output().is_empty() {
                ui.weak("Nothing printed yet.");
            } else {
                ui.add(egui::Label::new(RichText::new(s.output()).monospace()).wrap());
            }
        });
    });
    ui.heading("Source");
    let sel_line = app.selected.and_then(|k| s.find(k)).and_then(|st| s.line_of(st));
    let last_line = s.last_steps().iter().find_map(|t| t.line);
    let hl = sel_line.or(last_line);
    let scrolled_to = app.scrolled_to;
    let lines = opal_core::span::lines(s.source());
    let digits = lines.len().max(1).to_string().len();
    let hl_color = Color32::from_rgb(0xff, 0xd8, 0x60);
    egui::ScrollArea::vertical().id_salt("source").auto_shrink([false, false]).show(ui, |ui| {
        let big = lines.len() > 3000;
        for (i, line) in lines.iter().enumerate() {
            let n = i + 1;
            // A long file is not wrapped (wrapping it every frame would be slow): lines are
            // cut at the panel's edge instead, still never scrolled sideways.
            let r = ui
                .horizontal_top(|ui| {
                    ui.spacing_mut().item_spacing.x = 0.0;
                    ui.label(RichText::new(format!("{n:>digits$}  ")).monospace().weak());
                    // The indentation stays in front of the wrapped part too: a wrapped line
                    // must not look less indented in a language where indentation is syntax.
                    let body = line.trim_start_matches(' ');
                    let indent = line.len() - body.len();
                    let mark = |t: RichText| if Some(n) == hl { t.background_color(hl_color).color(Color32::BLACK) } else { t };
                    if indent > 0 {
                        ui.label(mark(RichText::new(" ".repeat(indent)).monospace()));
                    }
                    let label = egui::Label::new(mark(RichText::new(body).monospace()));
                    ui.add(if big { label.truncate() } else { label.wrap() });
                })
                .response;
            if Some(n) == hl && scrolled_to != hl {
                r.scroll_to_me(Some(egui::Align::Center));
            }
        }
    });
    app.scrolled_to = hl;
}

fn term_panel(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
    let Some(s) = &app.session else { return };
    // Wrapping, so the heading does not hold the panel wider than it was made.
    ui.horizontal_wrapped(|ui| {
        ui.heading("Labeled term");
        let mut p = app.settings.prelude;
        if ui.checkbox(&mut p, "prelude").on_hover_text("show the environment and prelude statements (labels 0.…)").changed() {
            cmds.push(Cmd::TogglePrelude);
        }
    });
    if let Some(p) = &mut app.practice {
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new("Practice").strong());
            ui.selectable_value(&mut p.quiz, Quiz::Steppable, "which are steppable?");
            ui.selectable_value(&mut p.quiz, Quiz::Dispatch, "which dispatch next round?");
            if ui.button("Check").on_hover_text(tip("check the prediction", &Cmd::CheckPractice)).clicked() {
                cmds.push(Cmd::CheckPractice);
            }
        });
        if let Some(v) = &p.verdict {
            egui::ScrollArea::vertical().id_salt("verdict").max_height(ui.available_height() / 3.0).show(ui, |ui| {
                if v.correct() {
                    ui.colored_label(GREEN, format!("Correct: {} right.", v.right.len()));
                } else {
                    for (l, why) in &v.wrong {
                        ui.colored_label(RED, format!("wrong: {l}: {why}"));
                    }
                    for (l, why) in &v.missed {
                        ui.colored_label(ORANGE, format!("missed {l}: {why}"));
                    }
                }
            });
        }
    }
    let shown: Vec<_> = app.cache.statements.iter().copied().filter(|st| app.settings.prelude || !s.is_prelude(*st)).collect();
    let row_h = ui.text_style_height(&egui::TextStyle::Monospace).max(ui.spacing().interact_size.y) + 4.0;
    egui::ScrollArea::vertical().id_salt("term").auto_shrink([false, false]).show_rows(ui, row_h, shown.len(), |ui, range| {
        for &st in &shown[range] {
            let r = s.row(st);
            ui.horizontal(|ui| {
                if let Some(p) = &mut app.practice {
                    let mut on = p.ticked.contains(&r.key);
                    if ui.checkbox(&mut on, format!("tick {}", r.label)).changed() {
                        if on {
                            p.ticked.insert(r.key);
                        } else {
                            p.ticked.remove(&r.key);
                        }
                    }
                } else {
                    let chip = match r.status.kind() {
                        Kind::Steppable(rule) => rule.name(),
                        Kind::Value => "value",
                        Kind::Waiting => "waiting",
                        Kind::Pending => "pending",
                        Kind::Stuck => "stuck",
                    };
                    let b = egui::Button::new(RichText::new(format!("step {}", r.label)).color(Color32::from_gray(15)))
                        .fill(crate::view::kind_color(r.status.kind()));
                    let b = ui.add_enabled(r.status.is_steppable(), b);
                    let b = b.on_hover_text(format!("{chip}: {}", r.status)).on_disabled_hover_text(format!("{} cannot step: {}", r.label, r.status));
                    if b.clicked() {
                        cmds.push(Cmd::Step(st));
                    }
                }
                let sel = app.selected == Some(r.key);
                let text = RichText::new(&r.text).monospace();
                let hover = if app.practice.is_some() { r.core.clone() } else { format!("{}\n{}", r.core, r.status) };
                let resp = ui.add(egui::Button::selectable(sel, text).truncate()).on_hover_text(hover);
                if resp.clicked() {
                    cmds.push(Cmd::Select(if sel { None } else { Some(r.key) }));
                }
            });
        }
    });
}

fn dock(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
    ui.horizontal(|ui| {
        for t in Tab::ALL {
            if ui.selectable_label(app.settings.tab == t, RichText::new(tab_title(app, t)).strong()).clicked() {
                cmds.push(Cmd::Tab(t));
            }
        }
    });
    ui.separator();
    match app.settings.tab {
        Tab::Tasks => tasks_tab(app, ui, cmds),
        Tab::History => history_tab(app, ui, cmds),
        Tab::Timeline => {
            if let Some(s) = &app.session {
                let now_ms = ui.input(|i| i.time) * 1000.0;
                app.timeline.ui(ui, s.calls(), s.position(), now_ms);
            }
        }
        Tab::Stepper => stepper_tab(app, ui),
    }
    // A panel is as tall as what it drew on its first frame, and remembers that: a dock with
    // one line of text would open (and stay) a few lines tall.
    let rest = ui.available_size();
    if rest.y > 0.0 {
        ui.allocate_space(rest);
    }
}

fn tasks_tab(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
    let (live, selected) = (app.has_live(), app.selected);
    let hand = &mut app.hand;
    let Some(s) = &app.session else { return };
    let pending = &app.cache.pending;
    if pending.is_empty() {
        ui.weak("No task waits for a result. Dispatched calls show up here, and as orange nodes in the graph.");
        return;
    }
    let row_h = ui.spacing().interact_size.y + 2.0;
    let chosen = pending.iter().find(|(st, _)| selected.is_some_and(|k| s.key_of(*st) == k)).or(pending.first()).map(|(st, c)| (*st, c.clone()));
    ui.columns(2, |cols| {
        egui::ScrollArea::vertical().id_salt("pending").auto_shrink([false, false]).show_rows(&mut cols[0], row_h, pending.len(), |ui, range| {
            for (st, call) in &pending[range] {
                let label = s.full_label(*st);
                ui.horizontal(|ui| {
                    // The buttons first: the call's text is truncated to what is left of the
                    // column (it ran over into the next one on a projected 1280×720 window).
                    let on = chosen.as_ref().is_some_and(|(c, _)| c == st);
                    if s.has_world() && ui.small_button("world").on_hover_text("resolve as the world file answers (a stream: its next chunk)").clicked() {
                        cmds.push(Cmd::ResolveWorld(label.clone()));
                    }
                    if s.has_trace() && ui.small_button("trace").on_hover_text("resolve as the loaded trace recorded").clicked() {
                        cmds.push(Cmd::ResolveTrace(label.clone()));
                    }
                    if live && ui.small_button("live").on_hover_text("call the real external (llm, processes)").clicked() {
                        cmds.push(Cmd::ResolveLive(label.clone()));
                    }
                    if ui
                        .add(egui::Button::selectable(on, RichText::new(call).monospace()).truncate())
                        .on_hover_text(format!("{call}\nclick to resolve it on the right"))
                        .clicked()
                    {
                        cmds.push(Cmd::Select(Some(s.key_of(*st))));
                    }
                });
            }
        });
        let ui = &mut cols[1];
        if let Some((st, call)) = chosen {
            let label = s.full_label(st);
            // Not justified: a justified column spreads a wrapped call's letters apart.
            ui.with_layout(egui::Layout::top_down(egui::Align::LEFT), |ui| ui.add(egui::Label::new(RichText::new(short(&call, 80)).monospace()).wrap()));
            let choices = s.choices(&label);
            if !choices.is_empty() {
                ui.horizontal_wrapped(|ui| {
                    ui.label("pick:");
                    for c in choices {
                        if ui.button(&c).on_hover_text(format!("resolve with {c}")).clicked() {
                            cmds.push(Cmd::ResolveHand(label.clone(), c));
                        }
                    }
                });
            }
            ui.horizontal_wrapped(|ui| {
                let name = ui.label("result:");
                let text = hand.entry(label.clone()).or_default();
                let width = (ui.available_width() - 12.0).clamp(120.0, 260.0);
                let edit = ui.add(egui::TextEdit::singleline(text).hint_text("an OPAL expression, e.g. \"yes\"").desired_width(width)).labelled_by(name.id);
                let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
                if ui.button(format!("Resolve {}", s.row(st).label)).on_hover_text("deliver the expression (checked first)").clicked() || enter {
                    cmds.push(Cmd::ResolveHand(label.clone(), text.clone()));
                }
            });
            if let Some((_, e)) = app.hand_error.as_ref().filter(|(l, _)| *l == label) {
                ui.colored_label(RED, RichText::new(e).monospace());
            }
            ui.weak("A list ending in `...`, e.g. [\"Ho\", ...], is a partial answer: the rest stays pending (paper Fig. 10).");
        }
    });
}

fn history_tab(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
    let Some(s) = &app.session else { return };
    let history = s.history();
    let position = s.position();
    let row_h = ui.spacing().interact_size.y + 2.0;
    egui::ScrollArea::vertical().id_salt("history").auto_shrink([false, false]).show_rows(ui, row_h, history.len() + 1, |ui, range| {
        for i in range {
            let text = if i == 0 { RichText::new("0  initial term") } else { RichText::new(format!("{i}  {}", history[i - 1])) };
            let text = if i > position { text.weak() } else { text };
            if ui.add(egui::Button::selectable(position == i, text).truncate()).on_hover_text("go to the state after this action").clicked() {
                cmds.push(Cmd::Goto(i));
            }
        }
    });
}

/// The last step, before and after (DrRacket's stepper): the redex highlighted in the term
/// before, what replaced it highlighted after; rows around them only.
fn stepper_tab(app: &mut DebuggerApp, ui: &mut egui::Ui) {
    let Some(s) = app.session.as_mut() else { return };
    if app.cache.stepper.is_none() && s.busy().is_none() {
        app.cache.stepper = Some(s.before_last());
    }
    let Some(Some(v)) = &app.cache.stepper else {
        ui.weak("Take a step: this shows the term before and after it, the redex and what replaced it highlighted.");
        return;
    };
    ui.label(RichText::new(format!("last action: {}", v.what)).strong());
    let window = |rows: &[(String, String, bool)]| -> Vec<(String, String, bool)> {
        let marked: Vec<usize> = rows.iter().enumerate().filter(|r| r.1 .2).map(|r| r.0).collect();
        let (Some(&a), Some(&b)) = (marked.first(), marked.last()) else { return rows.iter().take(8).cloned().collect() };
        let (lo, hi) = (a.saturating_sub(3), (b + 4).min(rows.len()));
        let mut out: Vec<(String, String, bool)> = rows[lo..hi].to_vec();
        if hi - lo > 40 {
            out.truncate(40);
            out.push(("…".into(), String::new(), false));
        }
        out
    };
    let (before, after) = (window(&v.before), window(&v.after));
    let hl = Color32::from_rgba_unmultiplied(0xff, 0xd0, 0x40, 0xb0);
    ui.columns(2, |cols| {
        for (col, title, rows) in [(0, "before", &before), (1, "after", &after)] {
            let ui = &mut cols[col];
            ui.label(RichText::new(title).strong());
            egui::ScrollArea::vertical().id_salt(title).auto_shrink([false, false]).show(ui, |ui| {
                for (label, text, mark) in rows.iter() {
                    let t = RichText::new(format!("{label}  {text}")).monospace();
                    let t = if *mark { t.background_color(hl).strong() } else { t };
                    ui.add(egui::Label::new(t).truncate());
                }
            });
        }
    });
}

fn graph_panel(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
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

fn windows(app: &mut DebuggerApp, ctx: &egui::Context, cmds: &mut Vec<Cmd>) {
    let screen = ctx.content_rect();
    let max = egui::vec2(screen.width() - 40.0, screen.height() - 80.0);
    if app.help {
        let mut open = true;
        egui::Window::new("Keyboard shortcuts").open(&mut open).collapsible(false).max_size(max).vscroll(true).show(ctx, |ui| {
            egui::Grid::new("keys").striped(true).show(ui, |ui| {
                for (sc, _, what) in crate::app::shortcuts() {
                    ui.monospace(ctx.format_shortcut(&sc));
                    ui.label(what);
                    ui.end_row();
                }
            });
            ui.label("Click 'step' on a row (or double-click a green node) to step that statement; hover any row or node for why it can or cannot step.");
        });
        app.help &= open;
    }
    if let Some(c) = &app.confluence {
        let mut open = true;
        let c = c.clone();
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
        if !open {
            app.confluence = None;
        }
    }
    if let Some(p) = &mut app.paths {
        if let Some(actions) = p.window(ctx, app.session.as_ref(), max) {
            cmds.push(Cmd::Travel(actions));
        }
        if !p.open {
            app.paths = None;
        }
    }
    if let Some(d) = &mut app.dialog {
        let mut open = true;
        let mut go = None;
        egui::Window::new(d.ask.title()).open(&mut open).collapsible(false).max_size(max).show(ctx, |ui| {
            ui.horizontal(|ui| {
                let name = ui.label("path:");
                let r = ui.add(egui::TextEdit::singleline(&mut d.path).desired_width(420.0)).labelled_by(name.id);
                if r.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
                    go = Some(PathBuf::from(&d.path));
                }
            });
            if matches!(d.ask, Ask::Open | Ask::LoadSession | Ask::LoadTrace) {
                // A small file browser: the directory of the typed path, filtered by type.
                let dir =
                    if d.path.ends_with('/') { PathBuf::from(&d.path) } else { PathBuf::from(&d.path).parent().map(Path::to_path_buf).unwrap_or_default() };
                let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
                egui::ScrollArea::vertical().max_height(240.0).show(ui, |ui| {
                    if ui.button("..").clicked() {
                        d.path = format!("{}/", dir.join("..").display());
                    }
                    let mut entries: Vec<(bool, String)> = std::fs::read_dir(&dir)
                        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| (e.path().is_dir(), e.file_name().to_string_lossy().into_owned())).collect())
                        .unwrap_or_default();
                    entries.sort();
                    for (is_dir, name) in entries.iter().filter(|(is_dir, n)| *is_dir || n.ends_with(".json") || n.ends_with(d.ask.suffix())) {
                        if name.starts_with('.') {
                            continue;
                        }
                        let shown = if *is_dir { format!("{name}/") } else { name.clone() };
                        if ui.selectable_label(false, shown).clicked() {
                            let p = dir.join(name);
                            d.path = if *is_dir { format!("{}/", p.display()) } else { p.display().to_string() };
                        }
                    }
                });
            }
            if ui.button(d.ask.title()).clicked() {
                go = Some(PathBuf::from(&d.path));
            }
        });
        if let Some(p) = go {
            cmds.push(d.ask.cmd(p));
            app.dialog = None;
        } else if !open {
            app.dialog = None;
        }
    }
}
