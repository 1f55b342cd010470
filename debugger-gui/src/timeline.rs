//! The timeline: every external call as a bar from dispatch to resolve, on the step axis
//! (positions in the action list) or the wall clock, with the number in flight above and the
//! critical path outlined.

use eframe::egui::{self, Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, StrokeKind, Vec2};
use opal_debugger::timeline::{critical_path, in_flight, span, Axis, Call};

pub struct Timeline {
    pub axis: Axis,
    pub include_pure: bool,
}

impl Default for Timeline {
    fn default() -> Self {
        Timeline {
            axis: Axis::Steps,
            include_pure: false,
        }
    }
}

/// Characters of a row's name (its label and call) before its bar.
const NAME_CHARS: usize = 28;

/// Where times go across the drawing: names on the left, bars scaled to `t_max` after them.
#[derive(Clone, Copy)]
struct Scale {
    rect: Rect,
    name_w: f32,
    t_max: f64,
}

impl Scale {
    fn x(self, t: f64) -> f32 {
        self.rect.left()
            + self.name_w
            + (t / self.t_max) as f32 * (self.rect.width() - self.name_w - 10.0)
    }
}

impl Timeline {
    pub fn ui(&mut self, ui: &mut egui::Ui, calls: &[Call], position: usize, now_ms: f64) {
        let shown: Vec<&Call> = calls
            .iter()
            .filter(|c| self.include_pure || !c.pure)
            .collect();
        let end = match self.axis {
            Axis::Steps => position as f64 + 1.0,
            Axis::WallClock => now_ms,
        };
        let flight = in_flight(&shown, self.axis, end);
        let max_flight = flight.iter().map(|f| f.1).max().unwrap_or(0);
        let critical = critical_path(&shown);
        // Each row names its call by the part that tells it from the others (Tree of
        // Thoughts' value calls differ only at the end of their argument).
        let titles: Vec<String> = shown
            .iter()
            .map(|c| format!("{} {}", c.ext, c.arg))
            .collect();
        let from =
            crate::layout::distinct_from(&titles.iter().map(String::as_str).collect::<Vec<_>>());
        ui.horizontal_wrapped(|ui| {
            ui.selectable_value(&mut self.axis, Axis::Steps, "steps")
                .on_hover_text("x axis: positions in the history of actions");
            ui.selectable_value(&mut self.axis, Axis::WallClock, "wall clock")
                .on_hover_text("x axis: milliseconds since the session started");
            ui.checkbox(&mut self.include_pure, "pure externals")
                .on_hover_text("also show calls such as print that resolve at dispatch");
            ui.label(format!(
                "{} calls · at most {max_flight} in flight · critical path: {} calls",
                shown.len(),
                critical.len()
            ));
        });
        if shown.is_empty() {
            ui.weak("No external call has been dispatched yet.");
            return;
        }
        let font = ui.text_style_height(&egui::TextStyle::Body);
        let row_h = font + 6.0;
        let band = 2.0 * font + 8.0;
        let height = band + row_h * shown.len() as f32 + 8.0;
        egui::ScrollArea::vertical()
            .id_salt("timeline")
            .show(ui, |ui| {
                let (resp, painter) =
                    ui.allocate_painter(Vec2::new(ui.available_width(), height), Sense::hover());
                let r = resp.rect;
                let t_max = shown
                    .iter()
                    .map(|c| span(c, self.axis, end).1)
                    .fold(end, f64::max)
                    .max(1.0);
                let axis = Scale {
                    rect: r,
                    name_w: 17.5 * font,
                    t_max,
                };
                draw_in_flight(ui, &painter, axis, &flight, max_flight, band, font);
                let clip = ui.clip_rect();
                for (i, c) in shown.iter().enumerate() {
                    let y = r.top() + band + i as f32 * row_h;
                    // Only rows in view are drawn: a run may have thousands of calls.
                    if y + row_h < clip.top() || y > clip.bottom() {
                        continue;
                    }
                    let row =
                        Rect::from_min_size(Pos2::new(r.left(), y), Vec2::new(r.width(), row_h));
                    let name = format!(
                        "{} {}",
                        c.label,
                        crate::layout::short_from(
                            &titles[i],
                            NAME_CHARS.saturating_sub(c.label.chars().count() + 1),
                            from[i]
                        )
                    );
                    self.call_row(
                        ui,
                        &painter,
                        axis,
                        row,
                        (i, c, &name),
                        end,
                        critical.contains(&i),
                        font,
                    );
                }
            });
    }

    /// One call: its label and external, then its bar (hover: what it was and when).
    #[allow(clippy::too_many_arguments)]
    fn call_row(
        &self,
        ui: &egui::Ui,
        painter: &egui::Painter,
        axis: Scale,
        row: Rect,
        (i, c, name): (usize, &Call, &str),
        end: f64,
        critical: bool,
        font: f32,
    ) {
        let y = row.top();
        let (a, b) = span(c, self.axis, end);
        painter.text(
            Pos2::new(row.left() + 4.0, y + 2.0),
            Align2::LEFT_TOP,
            name,
            FontId::monospace(font * 0.9),
            ui.visuals().text_color(),
        );
        let bar = Rect::from_min_max(
            Pos2::new(axis.x(a), y + 3.0),
            Pos2::new(axis.x(b).max(axis.x(a) + 3.0), row.bottom() - 3.0),
        );
        let fill = if c.failed {
            Color32::from_rgb(0xf0, 0x90, 0x90)
        } else if c.resolved_step.is_none() {
            Color32::from_rgb(0xff, 0xc0, 0x66)
        } else {
            Color32::from_rgb(0x9b, 0xc8, 0xe0)
        };
        painter.rect_filled(bar, 3.0, fill);
        if critical {
            painter.rect_stroke(
                bar,
                3.0,
                Stroke::new(2.0, Color32::from_rgb(0xd0, 0x20, 0x20)),
                StrokeKind::Outside,
            );
        }
        let bar_resp = ui.interact(bar, ui.scope_id().with(("call", i)), Sense::hover());
        let when = match self.axis {
            Axis::Steps => format!(
                "dispatched at step {}, {}",
                c.dispatched_step + 1,
                c.resolved_step
                    .map(|s| format!("resolved at step {}", s + 1))
                    .unwrap_or("pending".into())
            ),
            Axis::WallClock => {
                format!(
                    "dispatched at {:.0} ms, {}",
                    c.dispatched_ms,
                    c.resolved_ms
                        .map(|s| format!("resolved at {s:.0} ms"))
                        .unwrap_or("pending".into())
                )
            }
        };
        bar_resp.on_hover_text(format!(
            "{} := {} {}\n{when}{}",
            c.label,
            c.ext,
            c.arg,
            if critical {
                "\non the critical path"
            } else {
                ""
            }
        ));
    }
}

/// The number of calls in flight, as a step plot in the band over the calls.
fn draw_in_flight(
    ui: &egui::Ui,
    painter: &egui::Painter,
    axis: Scale,
    flight: &[(f64, usize)],
    max_flight: usize,
    band: f32,
    font: f32,
) {
    let r = axis.rect;
    let base = r.top() + band - 4.0;
    let scale = (band - 10.0) / max_flight.max(1) as f32;
    let stroke = Stroke::new(1.5, Color32::from_rgb(0x30, 0x80, 0xd0));
    let mut prev = (axis.x(0.0), 0usize);
    for &(t, n) in flight {
        let x = axis.x(t);
        let y0 = base - prev.1 as f32 * scale;
        painter.line_segment([Pos2::new(prev.0, y0), Pos2::new(x, y0)], stroke);
        painter.line_segment(
            [Pos2::new(x, y0), Pos2::new(x, base - n as f32 * scale)],
            stroke,
        );
        prev = (x, n);
    }
    painter.text(
        Pos2::new(r.left() + 4.0, r.top() + 4.0),
        Align2::LEFT_TOP,
        format!("in flight (max {max_flight})"),
        FontId::proportional(font * 0.9),
        ui.visuals().text_color(),
    );
}
