//! The tool row and its menus (File, View, More, Help), the strategy, Run until and speed
//! choices, and the status line under the graph.

use super::*;

/// One row: the menus, then the tools in order of use; what does not fit goes in "More"
/// (at 1280×720 in the projector theme the row is 853 points wide).
pub(super) fn bar(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
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
            strategy_box(app, ui, cmds);
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
                strategy_choice(app, ui, cmds);
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

pub(super) fn strategy_box(app: &DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
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
    if strategy != app.strategy() {
        cmds.push(Cmd::SetStrategy(strategy));
    }
}

/// The strategy as a row of choices (inside the More menu, where a combo box's own popup
/// would fight the menu's).
pub(super) fn strategy_choice(app: &DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
    let mut strategy = app.strategy();
    ui.label("strategy:");
    ui.horizontal(|ui| {
        for s in Strategy::ALL {
            ui.selectable_value(&mut strategy, s, strategy_label(s));
        }
    });
    if strategy != app.strategy() {
        cmds.push(Cmd::SetStrategy(strategy));
    }
}

pub(super) fn until_choice(app: &mut DebuggerApp, ui: &mut egui::Ui) {
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

pub(super) fn speed_and_auto(app: &mut DebuggerApp, ui: &mut egui::Ui) {
    ui.add(egui::Slider::new(&mut app.settings.speed, 0.5..=60.0).logarithmic(true).text("actions/s"));
    ui.checkbox(&mut app.settings.auto_resolve, "auto-resolve").on_hover_text("when nothing can step, resolve pending tasks from the trace or the world file");
}

pub(super) fn until_box(app: &mut DebuggerApp, ui: &mut egui::Ui) {
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

pub(super) fn menus(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
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
pub(super) fn status_bar(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>, tabs: bool) {
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

pub(super) fn status_line(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>, message: bool) {
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
