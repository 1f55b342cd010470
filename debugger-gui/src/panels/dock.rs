//! The bottom dock's tabs: pending tasks (resolve from the world, the trace, by hand or live),
//! history, and the before/after view of the last step (the timeline is `crate::timeline`).

use super::*;

pub(super) fn dock(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
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

pub(super) fn tasks_tab(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
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

pub(super) fn history_tab(app: &mut DebuggerApp, ui: &mut egui::Ui, cmds: &mut Vec<Cmd>) {
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
pub(super) fn stepper_tab(app: &mut DebuggerApp, ui: &mut egui::Ui) {
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
