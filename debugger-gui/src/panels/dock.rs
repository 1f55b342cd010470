//! The bottom dock's tabs: pending tasks (resolve from the world, the trace, by hand or live),
//! history, the timeline (drawn by `crate::timeline`) and the before/after view of the last
//! step.

use super::*;
use crate::timeline::Timeline;
use opal_core::machine::label::LabelPath;
use opal_core::machine::StmtId;
use opal_debugger::session::StepRow;
use std::collections::HashMap;

/// The dock; it owns the timeline's choices and what the user typed to resolve each task.
#[derive(Default)]
pub struct Dock {
    pub timeline: Timeline,
    /// What the user typed to resolve each pending task, by its label.
    hand: HashMap<LabelPath, String>,
    /// The user last pressed the pointer inside the dock (and not Esc since): while its answer
    /// field is shown, keys are typing, not shortcuts (issue 31: letters of an answer typed
    /// after the field had moved ran rounds and switched the strategy).
    focused: bool,
    /// The answer field was drawn in the last frame.
    field_shown: bool,
}

impl Dock {
    pub fn ui(&mut self, ui: &mut egui::Ui, app: &AppView, out: &mut Vec<Cmd>) {
        self.follow_pointer(ui);
        self.field_shown = false;
        ui.horizontal(|ui| {
            for t in Tab::ALL {
                if ui
                    .selectable_label(
                        app.settings.tab == t,
                        RichText::new(tab_title(app, t)).strong(),
                    )
                    .clicked()
                {
                    out.push(WindowCmd::Tab(t).into());
                }
            }
        });
        ui.separator();
        match app.settings.tab {
            Tab::Tasks => self.tasks_tab(ui, app, out),
            Tab::History => history_tab(ui, app, out),
            Tab::Timeline => {
                if let Some(s) = app.session {
                    let now_ms = ui.input(|i| i.time) * 1000.0;
                    self.timeline.ui(ui, s.calls(), s.position(), now_ms);
                }
            }
            Tab::Stepper => stepper_tab(ui, app),
        }
        // A panel is as tall as what it drew on its first frame, and remembers that: a dock with
        // one line of text would open (and stay) a few lines tall.
        let rest = ui.available_size();
        if rest.y > 0.0 {
            ui.allocate_space(rest);
        }
    }

    /// Whether keys typed now belong to the dock's answer field rather than to shortcuts.
    pub fn typing(&self) -> bool {
        self.focused && self.field_shown
    }

    /// A press inside the dock focuses it, one elsewhere (or Esc) takes the focus away.
    fn follow_pointer(&mut self, ui: &egui::Ui) {
        let rect = ui.max_rect();
        let (pressed, at, esc) = ui.input(|i| {
            (
                i.pointer.any_pressed(),
                i.pointer.interact_pos(),
                i.key_pressed(Key::Escape),
            )
        });
        if pressed {
            self.focused = at.is_some_and(|p| rect.contains(p));
        }
        if esc {
            self.focused = false;
        }
    }

    /// Pending tasks on the left, the chosen one's resolution on the right.
    fn tasks_tab(&mut self, ui: &mut egui::Ui, app: &AppView, out: &mut Vec<Cmd>) {
        let Some(s) = app.session else { return };
        let pending = &app.cache.pending;
        if pending.is_empty() {
            ui.weak("No task waits for a result. Dispatched calls show up here, and as orange nodes in the graph.");
            return;
        }
        let chosen = pending
            .iter()
            .find(|(st, _)| app.selected.is_some_and(|k| s.key_of(*st) == k))
            .or(pending.first())
            .map(|(st, c)| (*st, c.clone()));
        ui.columns(2, |cols| {
            pending_list(&mut cols[0], app, s, chosen.as_ref().map(|c| c.0), out);
            if let Some((st, call)) = chosen {
                self.resolve(&mut cols[1], app, s, st, &call, out);
            }
        });
    }

    /// How to resolve the chosen task: a pick among its choices, or an expression typed.
    fn resolve(
        &mut self,
        ui: &mut egui::Ui,
        app: &AppView,
        s: &Session,
        st: StmtId,
        call: &str,
        out: &mut Vec<Cmd>,
    ) {
        let label = s.machine().label_path(st);
        // Not justified: a justified column spreads a wrapped call's letters apart.
        ui.with_layout(egui::Layout::top_down(egui::Align::LEFT), |ui| {
            ui.add(egui::Label::new(RichText::new(short(call, 80)).monospace()).wrap())
        });
        let choices = s.choices(&label);
        if !choices.is_empty() {
            ui.horizontal_wrapped(|ui| {
                ui.label("pick:");
                for c in choices {
                    if ui
                        .button(&c)
                        .on_hover_text(format!("resolve with {c}"))
                        .clicked()
                    {
                        out.push(SessionCmd::ResolveHand(label.clone(), c).into());
                    }
                }
            });
        }
        ui.horizontal_wrapped(|ui| {
            let name = ui.label("result:");
            let text = self.hand.entry(label.clone()).or_default();
            let width = (ui.available_width() - 12.0).clamp(120.0, 260.0);
            let edit = ui
                .add(
                    egui::TextEdit::singleline(text)
                        .hint_text("an OPAL expression, e.g. \"yes\"")
                        .desired_width(width),
                )
                .labelled_by(name.id);
            let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
            self.field_shown = true;
            // The dock has the keyboard: its field takes what is typed, even after a relayout
            // moved it from under the pointer.
            if self.focused && !enter && ui.memory(|m| m.focused().is_none()) {
                edit.request_focus();
            }
            if ui
                .button(format!("Resolve {}", s.row(st).label))
                .on_hover_text("deliver the expression (checked first)")
                .clicked()
                || enter
            {
                out.push(SessionCmd::ResolveHand(label.clone(), text.clone()).into());
            }
        });
        if let Some((_, e)) = app.hand_error.filter(|(l, _)| *l == label) {
            ui.colored_label(RED, RichText::new(e).monospace());
        }
        ui.weak("A list ending in `...`, e.g. [\"Ho\", ...], is a partial answer: the rest stays pending (paper Fig. 10).");
    }
}

/// The pending tasks, each with the ways it can be resolved at once (world, trace, live).
fn pending_list(
    ui: &mut egui::Ui,
    app: &AppView,
    s: &Session,
    chosen: Option<StmtId>,
    out: &mut Vec<Cmd>,
) {
    let pending = &app.cache.pending;
    let row_h = ui.spacing().interact_size.y + 2.0;
    // Calls cut to the column show the part that tells them apart (two value calls of Tree of
    // Thoughts differ only at the end of their argument).
    let calls: Vec<&str> = pending.iter().map(|(_, c)| c.as_str()).collect();
    let from = crate::layout::distinct_from(&calls);
    let font = egui::TextStyle::Monospace.resolve(ui.style());
    let char_w = ui.ctx().fonts_mut(|f| f.glyph_width(&font, '0')).max(1.0);
    egui::ScrollArea::vertical()
        .id_salt("pending")
        .auto_shrink([false, false])
        .show_rows(ui, row_h, pending.len(), |ui, range| {
            for (i, (st, call)) in pending.iter().enumerate().take(range.end).skip(range.start) {
                let label = s.machine().label_path(*st);
                ui.horizontal(|ui| {
                    // The buttons first: the call's text is truncated to what is left of the
                    // column (it ran over into the next one on a projected 1280×720 window).
                    let on = chosen == Some(*st);
                    if s.has_world()
                        && ui
                            .small_button("world")
                            .on_hover_text(
                                "resolve as the world file answers (a stream: its next chunk)",
                            )
                            .clicked()
                    {
                        out.push(SessionCmd::ResolveWorld(label.clone()).into());
                    }
                    if s.has_trace()
                        && ui
                            .small_button("trace")
                            .on_hover_text("resolve as the loaded trace recorded")
                            .clicked()
                    {
                        out.push(SessionCmd::ResolveTrace(label.clone()).into());
                    }
                    if app.live
                        && ui
                            .small_button("live")
                            .on_hover_text("call the real external (llm, processes)")
                            .clicked()
                    {
                        out.push(SessionCmd::ResolveLive(label.clone()).into());
                    }
                    let room = (ui.available_width() / char_w) as usize;
                    let shown = crate::layout::short_from(call, room.saturating_sub(2), from[i]);
                    if ui
                        .add(
                            egui::Button::selectable(on, RichText::new(shown).monospace())
                                .truncate(),
                        )
                        .on_hover_text(format!("{call}\nclick to resolve it on the right"))
                        .clicked()
                    {
                        out.push(GraphCmd::Select(Some(s.key_of(*st))).into());
                    }
                });
            }
        });
}

fn history_tab(ui: &mut egui::Ui, app: &AppView, out: &mut Vec<Cmd>) {
    let Some(s) = app.session else { return };
    let history = s.history();
    let position = s.position();
    let row_h = ui.spacing().interact_size.y + 2.0;
    egui::ScrollArea::vertical()
        .id_salt("history")
        .auto_shrink([false, false])
        .show_rows(ui, row_h, history.len() + 1, |ui, range| {
            for i in range {
                let text = if i == 0 {
                    RichText::new("0  initial term")
                } else {
                    RichText::new(format!("{i}  {}", history[i - 1]))
                };
                let text = if i > position { text.weak() } else { text };
                if ui
                    .add(egui::Button::selectable(position == i, text).truncate())
                    .on_hover_text("go to the state after this action")
                    .clicked()
                {
                    out.push(SessionCmd::Goto(i).into());
                }
            }
        });
}

/// The rows around the marked ones (at most 40), or the first 8 when none is marked.
fn around_marks(rows: &[StepRow]) -> Vec<StepRow> {
    let marked: Vec<usize> = rows
        .iter()
        .enumerate()
        .filter(|r| r.1.marked)
        .map(|r| r.0)
        .collect();
    let (Some(&a), Some(&b)) = (marked.first(), marked.last()) else {
        return rows.iter().take(8).cloned().collect();
    };
    let (lo, hi) = (a.saturating_sub(3), (b + 4).min(rows.len()));
    let mut out: Vec<StepRow> = rows[lo..hi].to_vec();
    if hi - lo > 40 {
        out.truncate(40);
        out.push(StepRow {
            label: "…".into(),
            text: String::new(),
            marked: false,
            machinery: false,
        });
    }
    out
}

/// The last step, before and after (DrRacket's stepper): the redex highlighted in the term
/// before, what replaced it highlighted after; rows around them only. The app computes it
/// (`Session::before_last` needs the session mutably) once per revision, when this tab shows.
fn stepper_tab(ui: &mut egui::Ui, app: &AppView) {
    if app.session.is_none() {
        return;
    }
    let Some(Some(v)) = &app.cache.stepper else {
        ui.weak("Take a step: this shows the term before and after it, the redex and what replaced it highlighted.");
        return;
    };
    ui.label(RichText::new(format!("last action: {}", v.what)).strong());
    // The program's statements only, unless the prelude is asked for (as in the term panel).
    let shown = |rows: &[StepRow]| -> Vec<StepRow> {
        let keep = |r: &&StepRow| app.settings.prelude || !r.machinery;
        rows.iter().filter(keep).cloned().collect()
    };
    let hidden = v.before.iter().filter(|r| r.marked && r.machinery).count();
    if hidden > 0 && !app.settings.prelude {
        let (n, are) = if hidden == 1 {
            ("1 redex".to_string(), "is")
        } else {
            (format!("{hidden} redexes"), "are")
        };
        ui.weak(format!(
            "{n} {are} the prelude's machinery or folded temporaries: tick \"prelude\" to see \
             them"
        ));
    }
    let (before, after) = (
        around_marks(&shown(&v.before)),
        around_marks(&shown(&v.after)),
    );
    let hl = Color32::from_rgba_unmultiplied(0xff, 0xd0, 0x40, 0xb0);
    ui.columns(2, |cols| {
        for (col, title, rows) in [(0, "before", &before), (1, "after", &after)] {
            let ui = &mut cols[col];
            ui.label(RichText::new(title).strong());
            egui::ScrollArea::vertical()
                .id_salt(title)
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    // Left-aligned: a wrapped row in the columns' justified layout would be
                    // stretched to the full width, its words spaced apart.
                    ui.set_max_width(ui.available_width());
                    ui.with_layout(egui::Layout::top_down(egui::Align::Min), |ui| {
                        rows_ui(ui, rows, hl)
                    });
                });
        }
    });
}

fn rows_ui(ui: &mut egui::Ui, rows: &[StepRow], hl: Color32) {
    for r in rows {
        let t = RichText::new(format!("{}  {}", r.label, r.text)).monospace();
        let t = if r.marked {
            t.background_color(hl).strong()
        } else {
            t
        };
        // Wrapped, never cut: the room reads the whole statement.
        ui.add(egui::Label::new(t).wrap());
    }
}
