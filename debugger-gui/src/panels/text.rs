//! The source (wrapping, never scrolling sideways) with the output under it, and the labeled
//! term, one row per statement.

use super::*;
use opal_core::machine::StmtId;

/// The source panel; it remembers the line it last scrolled to (scroll only when it changes).
#[derive(Default)]
pub struct SourcePanel {
    scrolled_to: Option<usize>,
    /// The widest line of code (not comment) in characters and the digits of the last line
    /// number, for the text they were counted in (its address and length).
    code_columns: Option<((usize, usize), usize, usize)>,
}

impl SourcePanel {
    /// The width (points) that shows the program's longest line of code without wrapping: the
    /// gutter, the line and the panel's margins; at most 72 columns of code.
    pub fn fitting_width(&mut self, ui: &egui::Ui, app: &AppView) -> f32 {
        // A program that does not compile is shown too, as wide.
        let source = match (app.session, app.broken) {
            (Some(s), _) => s.source(),
            (None, Some(b)) => &b.source,
            (None, None) => "",
        };
        // Counted once per text (a new session or reload is a new string), not every frame.
        let key = (source.as_ptr() as usize, source.len());
        let (columns, digits) = match self.code_columns {
            Some((k, columns, digits)) if k == key => (columns, digits),
            _ => {
                let lines = source.lines().count().max(1);
                let (columns, digits) = (code_columns(source), lines.to_string().len());
                self.code_columns = Some((key, columns, digits));
                (columns, digits)
            }
        };
        let font = egui::TextStyle::Monospace.resolve(ui.style());
        let char_w = ui.ctx().fonts_mut(|f| f.glyph_width(&font, '0'));
        (columns.min(72) + digits + 2) as f32 * char_w + 3.0 * ui.spacing().item_spacing.x + 16.0
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, app: &AppView) {
        let Some(s) = app.session else {
            match app.broken {
                Some(b) => broken_source(ui, b, &mut self.scrolled_to),
                None => {
                    ui.heading("Source");
                    ui.weak("No program. File > Open (Ctrl+O) or File > Examples.");
                }
            }
            return;
        };
        // The output under the source, a few lines, growing to a third of the panel.
        egui::Panel::bottom("output")
            .resizable(true)
            .default_size(ui.available_height() / 4.0)
            .show(ui, |ui| {
                ui.heading("Output");
                egui::ScrollArea::vertical()
                    .id_salt("output")
                    .auto_shrink([false, false])
                    .stick_to_bottom(true)
                    .show(ui, |ui| {
                        if s.output().is_empty() {
                            ui.weak("Nothing printed yet.");
                        } else {
                            ui.add(egui::Label::new(RichText::new(s.output()).monospace()).wrap());
                        }
                    });
            });
        ui.heading("Source");
        let sel_line = app
            .selected
            .and_then(|k| s.find(k))
            .and_then(|st| s.line_of(st));
        let last_line = s.last_steps().iter().find_map(|t| t.line);
        let hl = sel_line.or(last_line);
        let scrolled_to = self.scrolled_to;
        let lines = opal_core::span::lines(s.source());
        egui::ScrollArea::vertical()
            .id_salt("source")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let big = lines.len() > 3000;
                let digits = lines.len().max(1).to_string().len();
                for (i, line) in lines.iter().enumerate() {
                    let n = i + 1;
                    let failed = app.cache.failures.get(&n);
                    let mark = match (failed, Some(n) == hl) {
                        (Some(_), _) => Some(FAILED_LINE),
                        (None, true) => Some(Color32::from_rgb(0xff, 0xd8, 0x60)),
                        (None, false) => None,
                    };
                    let r = source_line(ui, n, digits, line, mark, big);
                    for why in failed.into_iter().flatten() {
                        under_line(ui, digits, why);
                    }
                    if Some(n) == hl && scrolled_to != hl {
                        r.scroll_to_me(Some(egui::Align::Center));
                    }
                }
            });
        self.scrolled_to = hl;
    }
}

/// A program that does not compile: its lines, those with errors marked and followed by them.
fn broken_source(ui: &mut egui::Ui, b: &crate::state::Broken, scrolled_to: &mut Option<usize>) {
    let first = b.errors.keys().next().copied();
    ui.heading("Source (does not compile)");
    let lines = opal_core::span::lines(&b.source);
    let digits = lines.len().max(1).to_string().len();
    egui::ScrollArea::vertical()
        .id_salt("source")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for (i, line) in lines.iter().enumerate() {
                let errors = b.errors.get(&(i + 1));
                let mark = errors.map(|_| FAILED_LINE);
                let r = source_line(ui, i + 1, digits, line, mark, false);
                for e in errors.into_iter().flatten() {
                    under_line(ui, digits, e);
                }
                // The first error in view when it appears, then the user scrolls.
                if first == Some(i + 1) && *scrolled_to != first {
                    r.scroll_to_me(Some(egui::Align::Center));
                }
            }
        });
    *scrolled_to = first;
}

/// The background of a line that does not compile or cannot run.
const FAILED_LINE: Color32 = Color32::from_rgb(0xff, 0xb0, 0xa8);

/// Why the line above is marked, in red, under its text and wrapped, so it reads without a
/// hover.
fn under_line(ui: &mut egui::Ui, digits: usize, why: &str) {
    let text = RichText::new(format!("{:digits$}  ↑ {why}", "")).monospace();
    ui.add(egui::Label::new(text.color(RED)).wrap());
}

/// One numbered line of the source, its text on `mark`'s colour if given. A long file (`big`) is not wrapped
/// (wrapping it every frame would be slow): lines are cut at the panel's edge instead, still
/// never scrolled sideways.
fn source_line(
    ui: &mut egui::Ui,
    n: usize,
    digits: usize,
    line: &str,
    mark: Option<Color32>,
    big: bool,
) -> egui::Response {
    ui.horizontal_top(|ui| {
        ui.spacing_mut().item_spacing.x = 0.0;
        ui.label(RichText::new(format!("{n:>digits$}  ")).monospace().weak());
        // The indentation stays in front of the wrapped part too: a wrapped line
        // must not look less indented in a language where indentation is syntax.
        let body = line.trim_start_matches(' ');
        let indent = line.len() - body.len();
        let mark = |t: RichText| match mark {
            Some(c) => t.background_color(c).color(Color32::BLACK),
            None => t,
        };
        if indent > 0 {
            ui.label(mark(RichText::new(" ".repeat(indent)).monospace()));
        }
        let label = egui::Label::new(mark(RichText::new(body).monospace()));
        ui.add(if big { label.truncate() } else { label.wrap() });
    })
    .response
}

/// The widest line that is not a comment, in characters.
fn code_columns(source: &str) -> usize {
    source
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| l.trim_end().chars().count())
        .max()
        .unwrap_or(0)
}

/// The labeled term panel (no state of its own: practice ticks are the window's).
#[derive(Default)]
pub struct TermPanel;

impl TermPanel {
    pub fn ui(&mut self, ui: &mut egui::Ui, app: &AppView, out: &mut Vec<Cmd>) {
        let Some(s) = app.session else { return };
        // Wrapping, so the heading does not hold the panel wider than it was made.
        ui.horizontal_wrapped(|ui| {
            ui.heading("Labeled term");
            let mut p = app.settings.prelude;
            if ui
                .checkbox(&mut p, "prelude")
                .on_hover_text(
                    "show the environment and prelude statements (labels 0.…), the prelude's \
                     machinery inside the calls the program made (a for loop's fold) and the \
                     temporaries folded into the rows that use them",
                )
                .changed()
            {
                out.push(GraphCmd::TogglePrelude.into());
            }
            let mut core = app.settings.core_names;
            if ui
                .checkbox(&mut core, "core names")
                .on_hover_text(
                    "the core notation (x'1@5.6 := …) instead of the program's names (city#1 := …)",
                )
                .changed()
            {
                out.push(GraphCmd::ToggleCoreNames.into());
            }
        });
        if let Some(p) = app.practice {
            practice(ui, p, out);
        }
        // Practice asks about every statement: nothing is folded away then.
        let shown: &[StmtId] = if app.settings.prelude || app.practice.is_some() {
            &app.cache.statements
        } else {
            &app.cache.program_statements
        };
        let row_h = ui
            .text_style_height(&egui::TextStyle::Monospace)
            .max(ui.spacing().interact_size.y)
            + 4.0;
        let scroll = egui::ScrollArea::vertical()
            .id_salt("term")
            .auto_shrink([false, false]);
        // A term a person reads row by row wraps its rows; a huge one (laid out every frame
        // it would be slow) shows only the rows in view, cut at the panel's edge.
        if shown.len() <= WRAPPED_ROWS {
            scroll.show(ui, |ui| {
                for &st in shown {
                    ui.horizontal_top(|ui| term_row(ui, app, s, st, true, out));
                    // Why a statement can never step, in sight (not only on hover).
                    if app.practice.is_none() {
                        let status = &s.row(st).status;
                        if let RowStatus::Stuck(_) | RowStatus::Failed(_) = status {
                            let why = RichText::new(format!("  ↑ {status}"))
                                .color(RED)
                                .monospace();
                            ui.add(egui::Label::new(why).wrap());
                        }
                    }
                }
            });
        } else {
            scroll.show_rows(ui, row_h, shown.len(), |ui, range| {
                for &st in &shown[range] {
                    ui.horizontal(|ui| term_row(ui, app, s, st, false, out));
                }
            });
        }
    }
}

/// Terms up to this many rows wrap them (each laid out every frame); longer ones are cut.
const WRAPPED_ROWS: usize = 400;

/// What practice mode asks, Check, and the last verdict.
fn practice(ui: &mut egui::Ui, p: &crate::state::Practice, out: &mut Vec<Cmd>) {
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("Practice").strong());
        let mut quiz = p.quiz;
        ui.selectable_value(&mut quiz, Quiz::Steppable, "which are steppable?");
        ui.selectable_value(&mut quiz, Quiz::Dispatch, "which dispatch next round?");
        if quiz != p.quiz {
            out.push(TeachCmd::SetQuiz(quiz).into());
        }
        if ui
            .button("Check")
            .on_hover_text(tip("check the prediction", TeachCmd::CheckPractice))
            .clicked()
        {
            out.push(TeachCmd::CheckPractice.into());
        }
    });
    if let Some(v) = &p.verdict {
        egui::ScrollArea::vertical()
            .id_salt("verdict")
            .max_height(ui.available_height() / 3.0)
            .show(ui, |ui| {
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

/// One statement: its step button (a tick box in practice mode), then its text to select it.
fn term_row(
    ui: &mut egui::Ui,
    app: &AppView,
    s: &Session,
    st: StmtId,
    wrap: bool,
    out: &mut Vec<Cmd>,
) {
    let r = s.row(st);
    if let Some(p) = app.practice {
        let mut on = p.ticked.contains(&r.key);
        if ui.checkbox(&mut on, format!("tick {}", r.label)).changed() {
            out.push(TeachCmd::Tick(r.key, on).into());
        }
    } else {
        let chip = match r.status.kind() {
            Kind::Steppable(rule) => rule.name(),
            Kind::Value => "value",
            Kind::Waiting => "waiting",
            Kind::Pending => "pending",
            Kind::Stuck => "stuck",
        };
        let b = egui::Button::new(
            RichText::new(format!("step {}", r.label)).color(Color32::from_gray(15)),
        )
        .fill(crate::view::kind_color(r.status.kind()));
        let b = ui.add_enabled(r.status.is_steppable(), b);
        let b = b
            .on_hover_text(format!("{chip}: {}", r.status))
            .on_disabled_hover_text(format!("{} cannot step: {}", r.label, r.status));
        if b.clicked() {
            out.push(SessionCmd::Step(st).into());
        }
    }
    let sel = app.selected == Some(r.key);
    let core_line = r.core.lines().next().unwrap_or("");
    let shown = if app.settings.core_names {
        core_line
    } else {
        &r.text
    };
    let text = RichText::new(shown).monospace();
    let hover = if app.practice.is_some() {
        r.core.clone()
    } else {
        format!("{}\n{}\n{}", s.full_label(st), r.core, r.status)
    };
    let button = egui::Button::selectable(sel, text);
    let button = if wrap {
        button.wrap()
    } else {
        button.truncate()
    };
    let resp = ui.add(button).on_hover_text(hover);
    if resp.clicked() {
        out.push(GraphCmd::Select(if sel { None } else { Some(r.key) }).into());
    }
}
