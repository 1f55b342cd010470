//! The tool row and its menus (File, Step, Teach, View, More), the strategy, Run until and
//! speed choices, and the status line under the graph.

use super::*;

/// The tool row (no state of its own: everything it shows is the window's).
#[derive(Default)]
pub struct Toolbar;

impl Toolbar {
    /// One row: the menus, then the tools in order of use; what does not fit goes in "More"
    /// (at 1280×720 in the projector theme the row is 853 points wide).
    pub fn ui(&mut self, ui: &mut egui::Ui, app: &AppView, out: &mut Vec<Cmd>) {
        let width = ui.available_width();
        let (wide, mid) = (width > 1300.0, width > 1000.0);
        ui.horizontal(|ui| {
            file_menu(ui, out);
            step_menu(ui, out);
            teach_menu(ui, out);
            view_menu(ui, app, out);
            ui.separator();
            let history = [
                (SessionCmd::Back, "Back", "step back in history"),
                (
                    SessionCmd::Round,
                    "Round",
                    "one opportunistic round: every steppable statement steps",
                ),
                (SessionCmd::Forward, "Forward", "step forward in history"),
            ];
            buttons(ui, out, history);
            if wide {
                buttons(
                    ui,
                    out,
                    [
                        (SessionCmd::Cbv, "CBV step", "one call-by-value step"),
                        (SessionCmd::Lazy, "Lazy step", "one lazy step"),
                        (
                            SessionCmd::Restart,
                            "Restart",
                            "restart from the initial term",
                        ),
                    ],
                );
            }
            ui.separator();
            let run = if app.running { "Pause" } else { "Run" };
            if ui
                .button(run)
                .on_hover_text(tip("run or pause", RunCmd::RunPause))
                .clicked()
            {
                out.push(RunCmd::RunPause.into());
            }
            if mid {
                strategy_box(ui, app, out);
            }
            if ui
                .button("Run until")
                .on_hover_text(tip(
                    "run until the chosen event, within the step budget",
                    SessionCmd::RunUntil,
                ))
                .clicked()
            {
                out.push(SessionCmd::RunUntil.into());
            }
            if mid {
                until_box(ui, app, out);
            }
            if wide {
                speed_and_auto(ui, app, out);
            }
            more_menu(ui, app, out, wide, mid);
            if wide {
                ui.label(RichText::new(app.name).strong());
            }
        });
    }
}

/// A row of buttons, each a session command with its shortcut in the tooltip.
fn buttons<const N: usize>(
    ui: &mut egui::Ui,
    out: &mut Vec<Cmd>,
    row: [(SessionCmd, &str, &str); N],
) {
    for (cmd, label, what) in row {
        if ui
            .button(label)
            .on_hover_text(tip(what, cmd.clone()))
            .clicked()
        {
            out.push(cmd.into());
        }
    }
}

/// What the tool row has no room for; on a narrow window the strategy, goal and speed too.
fn more_menu(ui: &mut egui::Ui, app: &AppView, out: &mut Vec<Cmd>, wide: bool, mid: bool) {
    // The menu stays open while its choices are set (a combo box inside a menu that closes
    // on any click could not be opened); its buttons close it.
    let more = egui::containers::menu::MenuConfig::new()
        .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside);
    egui::containers::menu::MenuButton::new("More")
        .config(more)
        .ui(ui, |ui| {
            if !mid {
                strategy_choice(ui, app, out);
                until_choice(ui, app, out);
                ui.separator();
            }
            if !wide {
                for (cmd, label) in [
                    (SessionCmd::Cbv, "CBV step"),
                    (SessionCmd::Lazy, "Lazy step"),
                    (SessionCmd::Restart, "Restart"),
                ] {
                    if ui
                        .button(label)
                        .on_hover_text(tip(label, cmd.clone()))
                        .clicked()
                    {
                        out.push(cmd.into());
                        ui.close();
                    }
                }
                speed_and_auto(ui, app, out);
            }
            if ui
                .button("Resolve all pending")
                .on_hover_text(tip(
                    "from the trace or the world file",
                    SessionCmd::ResolveAll,
                ))
                .clicked()
            {
                out.push(SessionCmd::ResolveAll.into());
                ui.close();
            }
            ui.horizontal(|ui| {
                let name = ui.label("step budget:");
                let mut b = app.settings.step_budget as f64;
                let r = ui
                    .add(
                        egui::DragValue::new(&mut b)
                            .range(100.0..=100_000_000.0)
                            .speed(1000.0),
                    )
                    .labelled_by(name.id);
                if r.changed() {
                    out.push(RunCmd::SetStepBudget(b as usize).into());
                }
            })
            .response
            .on_hover_text("run until, confluence and other long runs stop after this many steps");
        });
}

/// The strategy's name, as the tool row and the status line show it.
fn strategy_name(s: Strategy) -> &'static str {
    match s {
        Strategy::Opportunistic => "opportunistic",
        Strategy::Cbv => "call-by-value",
        Strategy::Lazy => "lazy",
    }
}

fn strategy_box(ui: &mut egui::Ui, app: &AppView, out: &mut Vec<Cmd>) {
    let mut strategy = app.settings.strategy;
    egui::ComboBox::new("strategy", "strategy")
        .selected_text(strategy_name(strategy))
        .show_ui(ui, |ui| {
            for s in Strategy::ALL {
                ui.selectable_value(&mut strategy, s, strategy_label(s));
            }
        });
    if strategy != app.settings.strategy {
        out.push(RunCmd::SetStrategy(strategy).into());
    }
}

/// The strategy as a row of choices (inside the More menu, where a combo box's own popup
/// would fight the menu's).
fn strategy_choice(ui: &mut egui::Ui, app: &AppView, out: &mut Vec<Cmd>) {
    let mut strategy = app.settings.strategy;
    ui.label("strategy:");
    ui.horizontal(|ui| {
        for s in Strategy::ALL {
            ui.selectable_value(&mut strategy, s, strategy_label(s));
        }
    });
    if strategy != app.settings.strategy {
        out.push(RunCmd::SetStrategy(strategy).into());
    }
}

fn until_choice(ui: &mut egui::Ui, app: &AppView, out: &mut Vec<Cmd>) {
    let mut until = app.until.clone();
    ui.label("run until:");
    ui.horizontal_wrapped(|ui| {
        ui.selectable_value(&mut until, Until::Dispatch, "next dispatch");
        ui.selectable_value(&mut until, Until::Resolve, "next resolve");
        ui.selectable_value(&mut until, Until::End, "the end");
        if let Some(k) = app.selected {
            ui.selectable_value(&mut until, Until::Steps(k), "the selected statement steps");
        }
    });
    if until != *app.until {
        out.push(RunCmd::SetUntil(until).into());
    }
}

fn speed_and_auto(ui: &mut egui::Ui, app: &AppView, out: &mut Vec<Cmd>) {
    let (mut speed, mut auto) = (app.settings.speed, app.settings.auto_resolve);
    ui.add(
        egui::Slider::new(&mut speed, 0.5..=60.0)
            .logarithmic(true)
            .text("actions/s"),
    );
    ui.checkbox(&mut auto, "auto-resolve").on_hover_text(
        "when nothing can step, resolve pending tasks from the trace or the world file",
    );
    if speed != app.settings.speed {
        out.push(RunCmd::SetSpeed(speed).into());
    }
    if auto != app.settings.auto_resolve {
        out.push(RunCmd::SetAutoResolve(auto).into());
    }
}

fn until_box(ui: &mut egui::Ui, app: &AppView, out: &mut Vec<Cmd>) {
    let mut until = app.until.clone();
    let text = match &until {
        Until::Dispatch => "next dispatch".to_string(),
        Until::Resolve => "next resolve".to_string(),
        Until::Steps(_) => "selected steps".to_string(),
        Until::End => "the end".to_string(),
    };
    egui::ComboBox::new("until", "until")
        .selected_text(text)
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut until, Until::Dispatch, "next dispatch");
            ui.selectable_value(&mut until, Until::Resolve, "next resolve");
            ui.selectable_value(&mut until, Until::End, "the end");
            match app.selected {
                Some(k) => {
                    ui.selectable_value(
                        &mut until,
                        Until::Steps(k),
                        "the selected statement steps",
                    );
                }
                None => {
                    ui.weak("select a statement to run until it steps");
                }
            }
        });
    if until != *app.until {
        out.push(RunCmd::SetUntil(until).into());
    }
}

fn file_menu(ui: &mut egui::Ui, out: &mut Vec<Cmd>) {
    ui.menu_button("File", |ui| {
        for (ask, label) in [
            (Ask::Open, "Open…"),
            (Ask::SaveSession, "Save session…"),
            (Ask::LoadSession, "Load session…"),
            (Ask::LoadTrace, "Load trace…"),
        ] {
            if ui
                .button(label)
                .on_hover_text(tip(ask.title(), WindowCmd::Ask(ask)))
                .clicked()
            {
                out.push(WindowCmd::Ask(ask).into());
            }
        }
        if ui
            .button("Reload")
            .on_hover_text(tip("reload the program from disk", FileCmd::Reload))
            .clicked()
        {
            out.push(FileCmd::Reload.into());
        }
        ui.menu_button("Examples", |ui| {
            for (i, e) in EXAMPLES.iter().enumerate() {
                if ui.button(e.name).clicked() {
                    out.push(FileCmd::OpenExample(i).into());
                }
            }
        });
        ui.separator();
        for (ask, label) in [
            (Ask::ExportDot, "Export graph as DOT…"),
            (Ask::ExportSvg, "Export graph as SVG…"),
            (Ask::ExportTimeline, "Export timeline as CSV…"),
        ] {
            if ui.button(label).clicked() {
                out.push(WindowCmd::Ask(ask).into());
            }
        }
        ui.separator();
        if ui.button("Quit").clicked() {
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
        }
    });
}

fn step_menu(ui: &mut egui::Ui, out: &mut Vec<Cmd>) {
    ui.menu_button("Step", |ui| {
        for (cmd, label) in [
            (SessionCmd::Round.into(), "Round"),
            (
                SessionCmd::RoundVisible.into(),
                "Rounds until the graph changes",
            ),
            (SessionCmd::Advance.into(), "Step (strategy)"),
            (SessionCmd::Cbv.into(), "Call-by-value step"),
            (SessionCmd::Lazy.into(), "Lazy step"),
            (SessionCmd::Back.into(), "Back"),
            (SessionCmd::Forward.into(), "Forward"),
            (SessionCmd::Restart.into(), "Restart"),
            (SessionCmd::RunUntil.into(), "Run until"),
            (SessionCmd::ResolveAll.into(), "Resolve all pending"),
            (WindowCmd::Cancel.into(), "Cancel what runs"),
        ] {
            let cmd: Cmd = cmd;
            if ui
                .button(label)
                .on_hover_text(tip(label, cmd.clone()))
                .clicked()
            {
                out.push(cmd);
            }
        }
    });
}

fn teach_menu(ui: &mut egui::Ui, out: &mut Vec<Cmd>) {
    ui.menu_button("Teach", |ui| {
        if ui.button("Practice mode").on_hover_text(tip("predict, then check", TeachCmd::Practice)).clicked() {
            out.push(TeachCmd::Practice.into());
        }
        let stepper = WindowCmd::Tab(Tab::Stepper);
        if ui.button("Before/after of the last step").on_hover_text(tip("the redex and what replaced it", stepper.clone())).clicked() {
            out.push(stepper.into());
        }
        if ui.button("All paths").on_hover_text(tip("every reduction order of a small program, as a graph", TeachCmd::AllPaths)).clicked() {
            out.push(TeachCmd::AllPaths.into());
        }
        for order in [Order::Reversed, Order::Random(7), Order::Cbv] {
            if ui
                .button(format!("Confluence: {}", order.name()))
                .on_hover_text("finish the program under another step order with the same resolutions and compare the final terms")
                .clicked()
            {
                out.push(SessionCmd::Confluence(order).into());
            }
        }
    });
}

fn view_menu(ui: &mut egui::Ui, app: &AppView, out: &mut Vec<Cmd>) {
    ui.menu_button("View", |ui| {
        let s = app.settings;
        let toggles = [
            (WindowCmd::Projector, "Projector theme", s.projector),
            (WindowCmd::Panel(Panel::Source), "Source panel", s.source),
            (
                WindowCmd::Panel(Panel::Term),
                "Labeled term panel",
                app.term_shown,
            ),
            (
                WindowCmd::Panel(Panel::Dock),
                "Bottom panel",
                app.dock_shown,
            ),
        ];
        for (cmd, label, on) in toggles {
            let mut on = on;
            if ui
                .checkbox(&mut on, label)
                .on_hover_text(tip(label, cmd.clone()))
                .clicked()
            {
                out.push(cmd.into());
            }
        }
        ui.separator();
        for (mode, label) in [
            (GraphMode::Calls, "Graph of external calls"),
            (GraphMode::Statements, "Graph of statements"),
        ] {
            if ui
                .radio(app.mode == mode, label)
                .on_hover_text(tip(label, GraphCmd::GraphMode))
                .clicked()
                && app.mode != mode
            {
                out.push(GraphCmd::GraphMode.into());
            }
        }
        if ui
            .button("Keyboard shortcuts")
            .on_hover_text(tip("help", WindowCmd::Help))
            .clicked()
        {
            out.push(WindowCmd::Help.into());
        }
    });
}

/// The status line (no state of its own).
#[derive(Default)]
pub struct StatusBar;

impl StatusBar {
    /// The status line; with the dock folded away, its tabs sit at the right, one click away.
    pub fn ui(&mut self, ui: &mut egui::Ui, app: &AppView, out: &mut Vec<Cmd>, tabs: bool) {
        // A message too long for the row (a projector's narrow window) gets a line of its own,
        // whole, instead of being cut.
        let font = egui::TextStyle::Body.resolve(ui.style());
        let width = |t: String| {
            ui.painter()
                .layout_no_wrap(t, font.clone(), Color32::WHITE)
                .size()
                .x
        };
        let needs = width(app.status.lines().next().unwrap_or_default().to_string());
        // What the row holds besides the message: the step, the strategy, the standing and
        // (with the dock folded) the tabs, each with its spacing and separator.
        let gap = 2.0 * ui.spacing().item_spacing.x + 2.0 * ui.spacing().button_padding.x + 8.0;
        let mut parts = Vec::new();
        if let Some(s) = app.session {
            parts.push(format!("step {} of {}", s.position(), s.actions().len()));
            parts.push(format!(
                "strategy: {}",
                strategy_name(app.settings.strategy)
            ));
            parts.push(standing(app).0);
        }
        if tabs {
            parts.extend(Tab::ALL.iter().map(|t| tab_title(app, *t)));
        }
        let taken: f32 = parts.into_iter().map(|p| width(p) + gap).sum();
        let own_line = taken + needs + gap > ui.available_width();
        ui.horizontal(|ui| {
            if tabs {
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    for t in Tab::ALL.iter().rev() {
                        if ui
                            .selectable_label(false, tab_title(app, *t))
                            .on_hover_text("open the bottom panel (F6)")
                            .clicked()
                        {
                            out.push(WindowCmd::Tab(*t).into());
                        }
                    }
                    ui.separator();
                    ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                        status_line(ui, app, out, !own_line)
                    });
                });
            } else {
                status_line(ui, app, out, !own_line);
            }
        });
        if own_line && !app.status.is_empty() {
            // Its first line: a longer message is a compile error's caret diagram, which the
            // error banner shows in monospace (here it would be a second, misaligned copy).
            let first = app.status.lines().next().unwrap_or_default();
            let label = ui.add(egui::Label::new(first).wrap());
            if first.len() < app.status.len() {
                label.on_hover_text(RichText::new(app.status).monospace());
            }
        }
    }
}

/// Where the program stands, in words and a colour (`None`: the text's own).
fn standing(app: &AppView) -> (String, Option<Color32>) {
    // Under lazy evaluation, done is done: the statements only the other strategies would
    // step are not "steppable" to it.
    let lazy_done = app.settings.strategy == Strategy::Lazy && app.cache.lazy_done;
    match (app.practice, &app.cache.standing) {
        (Some(_), _) => ("practice: predict, then Check".to_string(), None),
        (None, _) if lazy_done => (
            "lazy: done (the result is a value)".to_string(),
            Some(GREEN),
        ),
        (None, Some(st @ Standing::Finished)) => (st.text(), Some(GREEN)),
        (None, Some(st @ Standing::Stuck(_))) => (st.text(), Some(RED)),
        (None, Some(st)) => (st.text(), None),
        (None, None) => (String::new(), None),
    }
}

fn status_line(ui: &mut egui::Ui, app: &AppView, out: &mut Vec<Cmd>, message: bool) {
    if let Some(s) = app.session {
        if let Some(p) = s.busy() {
            let frac = if p.total > 0 {
                p.done as f32 / p.total as f32
            } else {
                0.0
            };
            ui.add(
                egui::ProgressBar::new(frac.min(1.0))
                    .desired_width(120.0)
                    .show_percentage(),
            )
            .on_hover_text(format!("{}: {} of {}", p.what, p.done, p.total));
            if ui.button("Cancel (Esc)").clicked() {
                out.push(WindowCmd::Cancel.into());
            }
            ui.separator();
        }
        ui.label(format!("step {} of {}", s.position(), s.actions().len()));
        ui.separator();
        // Always in sight: at 1280×720 the tool row's strategy box is under More.
        let strategy = format!("strategy: {}", strategy_name(app.settings.strategy));
        let next = "what N, Run and Run until follow; click (or S) for the next";
        if ui.button(strategy).on_hover_text(next).clicked() {
            out.push(RunCmd::NextStrategy.into());
        }
        ui.separator();
        let (standing, color) = standing(app);
        let color = color.unwrap_or(ui.visuals().text_color());
        ui.colored_label(color, RichText::new(standing).strong());
        ui.separator();
    }
    if message {
        ui.add(egui::Label::new(app.status).truncate())
            .on_hover_text(app.status);
    }
}
