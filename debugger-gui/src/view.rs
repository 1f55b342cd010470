//! Drawing the task graph so a room can read it: node text never smaller than 14 points at
//! any zoom (21 px in the projector theme); zooming out shrinks boxes and spacing, not type,
//! and drops the third line below 85 %. The mouse wheel zooms about the pointer, a drag pans,
//! the view pans (never zooms) to follow what just stepped, and a minimap shows where the view
//! is when the graph is bigger than the pane. Only nodes in view are painted.

use crate::layout::{bounds, cell_pos, short, Layout, ANIMATION, CELL_H, CELL_W, NODE_H, NODE_W};
use eframe::egui::{
    self, Align2, Color32, CornerRadius, FontId, Pos2, Rect, Sense, Shape, Stroke, StrokeKind, Vec2,
};
use opal_core::machine::label::LabelKey;
use opal_core::machine::StmtId;
use opal_debugger::graph::{kind_rgb, Graph, Node};
use opal_debugger::session::Kind;
use std::collections::HashSet;

/// Graph text at a zoom (never below [`MIN_TEXT`]).
fn font_size(z: f32) -> f32 {
    (15.0 * z).max(MIN_TEXT)
}

/// A node's height at a zoom: three lines always (a call's status is what the graph is for),
/// so below 100 % boxes shrink less than the zoom says.
fn node_height(z: f32) -> f32 {
    (NODE_H * z).max(3.0 * font_size(z) * 1.2 + 8.0)
}

/// Graph units to points: rows never closer than a node's height and room for an arrow (at
/// 75 % boxes touched and arrowheads hid behind them).
fn scale(z: f32) -> Vec2 {
    Vec2::new(z, z.max((node_height(z) + 18.0) / CELL_H))
}

/// The smallest text drawn in the graph, in points.
pub const MIN_TEXT: f32 = 14.0;
pub const MIN_ZOOM: f32 = 0.5;
pub const MAX_ZOOM: f32 = 2.5;

pub struct GraphView {
    pub offset: Vec2,
    pub zoom: f32,
    /// The zoom the user chose (wheel, −/+, Fit, remembered settings). A pane that shrinks
    /// (the labeled term shown) zooms out as far as fits the graph, down to [`MIN_ZOOM`]; one
    /// that grows again returns to this, never past it.
    pub chosen: f32,
    /// Where the view is gliding to (follows activity without jumping).
    target: Option<Vec2>,
    /// Dim everything outside the selected node's upstream and downstream.
    pub focus: bool,
    /// Fit the graph in view at the next frame.
    pub fit: bool,
    /// The fit was asked for (Fit, 0): it may zoom out to 75 %.
    pub fit_asked: bool,
    /// Fit again when the tidy Fit started is done.
    pub fit_after_tidy: bool,
    /// Centre the graph at the next frame, keeping the zoom (a reopened window).
    pub centre: bool,
    /// Show the minimap when the graph does not fit (M).
    pub minimap: bool,
    /// Where the graph was drawn last frame (to tell whether a node is in view).
    area: Rect,
}

impl Default for GraphView {
    fn default() -> Self {
        GraphView {
            offset: Vec2::new(20.0, 20.0),
            zoom: 1.0,
            chosen: 1.0,
            target: None,
            focus: false,
            fit: true,
            fit_asked: false,
            fit_after_tidy: false,
            centre: false,
            minimap: true,
            area: Rect::NOTHING,
        }
    }
}

/// What the user did in the graph.
#[derive(Clone, Debug, PartialEq)]
pub enum GraphEvent {
    Select(LabelKey),
    Step(StmtId),
    /// A group node was clicked: open it (or close the group it belongs to).
    Toggle(LabelKey),
}

pub fn kind_color(k: Kind) -> Color32 {
    let [r, g, b] = kind_rgb(k);
    Color32::from_rgb(r, g, b)
}

/// What a node shows: its label, two lines of text, a tooltip.
pub struct NodeText {
    pub title: String,
    pub detail: String,
    pub tip: String,
}

impl GraphView {
    pub fn area(&self) -> Rect {
        self.area
    }

    /// Glides (never zooms) so that the cells `cells` come into view: when the whole graph
    /// (`all`) fits, it is kept centred; else the view moves as little as shows the new cells.
    /// Called after a step, so new nodes never appear off screen.
    pub fn reveal(&mut self, cells: &[(i32, i32)], all: Option<([f32; 2], [f32; 2])>) {
        if self.area.width() <= 0.0 {
            return;
        }
        let size = self.area.size();
        let margin = Vec2::splat(24.0);
        let offset = self.target.unwrap_or(self.offset);
        // The whole graph fits: keep it centred (it shifts as nodes come and fold away). The
        // zoom is the user's alone: a view that zoomed itself out confused a room.
        if let Some((a, b)) = all.map(|(a, b)| (Vec2::from(a), Vec2::from(b))) {
            // Margins shrink before a graph that fits is cut at an edge (two columns of a
            // projected 1280×720 pane leave 11 points a side).
            let need = (b - a) * scale(self.zoom) + Vec2::splat(8.0);
            if need.x <= size.x && need.y <= size.y {
                let centred = (size - (b - a) * scale(self.zoom)) / 2.0 - a * scale(self.zoom);
                if (centred - offset).length() > 1.0 {
                    self.target = Some(centred);
                }
                return;
            }
        }
        // Else move as little as brings the new cells into view.
        let Some((lo, hi)) = bounds(cells.iter().map(|&c| cell_pos(c))) else {
            return;
        };
        let (lo, hi) = (Vec2::from(lo), Vec2::from(hi));
        let (s_lo, s_hi) = (
            lo * scale(self.zoom) + offset,
            hi * scale(self.zoom) + offset,
        );
        let mut shift = Vec2::ZERO;
        for axis in 0..2 {
            let (a, b, room) = (s_lo[axis], s_hi[axis], size[axis]);
            if b - a + 2.0 * margin[axis] > room || a < margin[axis] {
                shift[axis] = margin[axis] - a;
            } else if b > room - margin[axis] {
                shift[axis] = room - margin[axis] - b;
            }
        }
        if shift != Vec2::ZERO {
            self.target = Some(offset + shift);
        }
    }

    /// How many rows and columns of cells the pane shows at the smallest zoom (what a tidy
    /// packs the graph into, so that Fit fits it); `None` before the pane is measured.
    pub fn pane_at_floor(&self) -> Option<(i32, i32)> {
        let cell = Vec2::new(CELL_W, CELL_H) * scale(MIN_ZOOM);
        let room = self.area.size() - Vec2::splat(40.0);
        // A pane's last row and column need a node, not a whole cell.
        let node = Vec2::new(NODE_W, NODE_H) * scale(MIN_ZOOM);
        let fit = |axis: usize| ((room[axis] - node[axis]) / cell[axis]).floor() as i32 + 1;
        (room.x >= node.x && room.y >= node.y).then(|| (fit(1), fit(0)))
    }

    /// Does a graph spanning `all` (graph units) fit the pane at the smallest zoom?
    pub fn fits_at_floor(&self, all: Option<([f32; 2], [f32; 2])>) -> bool {
        self.fits_at(MIN_ZOOM, all)
    }

    /// Does a graph spanning `all` (graph units) fit the pane at zoom `z`?
    pub fn fits_at(&self, z: f32, all: Option<([f32; 2], [f32; 2])>) -> bool {
        let Some((a, b)) = all else {
            return true;
        };
        let need = (Vec2::from(b) - Vec2::from(a)) * scale(z) + Vec2::splat(40.0);
        need.x <= self.area.width() && need.y <= self.area.height()
    }

    pub fn zoom_by(&mut self, factor: f32) {
        let at = self.area.size() / 2.0;
        let z = (self.zoom * factor).clamp(MIN_ZOOM, MAX_ZOOM);
        self.offset = at - (at - self.offset) * (scale(z) / scale(self.zoom));
        self.zoom = z;
        self.chosen = z;
        self.target = None;
    }

    /// Draws `g`; `text` gives each node's lines; `practice` hides every status.
    #[allow(clippy::too_many_arguments)]
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        g: &Graph,
        layout: &Layout,
        selected: Option<LabelKey>,
        now: f64,
        practice: bool,
        text: &dyn Fn(&Node) -> NodeText,
    ) -> Option<GraphEvent> {
        let (resp, painter) = self.allocate(ui);
        let area = resp.rect;
        painter.rect_filled(area, 0.0, ui.visuals().extreme_bg_color);
        self.navigate(ui, &resp, area, g, layout);
        let z = self.zoom;
        let k = scale(z);
        let to_screen = |p: [f32; 2]| area.min + self.offset + Vec2::new(p[0], p[1]) * k;
        let fs = font_size(z);
        let node_size = Vec2::new(NODE_W * z, node_height(z));
        let sel = selected.and_then(|k| g.nodes.iter().position(|n| n.key == k));
        let lit: Option<HashSet<usize>> = match (self.focus, sel) {
            (true, Some(i)) => Some(g.neighbourhood(i)),
            _ => None,
        };
        let dim = |i: usize| lit.as_ref().is_some_and(|s| !s.contains(&i));
        let pos = node_positions(g, layout, now, &to_screen);
        draw_edges(
            ui,
            &painter,
            g,
            &pos,
            node_size,
            area.expand(NODE_W * z),
            z,
            &dim,
        );
        let look = Look {
            fs,
            chars: ((node_size.x - 14.0) / (fs * 0.62)).max(4.0) as usize,
            practice,
        };
        let titles: Vec<&str> = g.nodes.iter().map(|n| n.title.as_str()).collect();
        let from = crate::layout::distinct_from(&titles);
        let pointer = resp.hover_pos();
        let mut hovered = None;
        for (i, n) in g.nodes.iter().enumerate() {
            let Some((p, scale)) = pos[i] else { continue };
            let r = Rect::from_center_size(p + node_size / 2.0, node_size * scale);
            if !area.intersects(r) {
                continue;
            }
            draw_node(&painter, r, n, &look, Some(i) == sel, dim(i));
            if scale > 0.9 {
                node_lines(&painter, r, n, &look, &text(n), from[i]);
            }
            if pointer.is_some_and(|q| r.contains(q)) {
                hovered = Some(i);
            }
        }
        draw_dying(&painter, layout, now, &to_screen, node_size, area, practice);
        let mut event = hovered.and_then(|i| node_event(&resp, &g.nodes[i], text, practice));
        if let Some(ev) = self.minimap(ui, &painter, area, layout, g, practice) {
            event = event.or(ev);
        }
        legend(ui, &painter, area, g, z);
        event
    }

    /// The pane: what is visible of the space left (a row above that overflowed must not make
    /// the view wider than its panel: it would centre nodes under the next panel). A pane that
    /// changed size (a panel shown or hidden, the window resized) is centred again.
    fn allocate(&mut self, ui: &mut egui::Ui) -> (egui::Response, egui::Painter) {
        let visible = ui.available_rect_before_wrap().intersect(ui.clip_rect());
        let (resp, painter) = ui.allocate_painter(
            visible.size().max(egui::vec2(1.0, 1.0)),
            Sense::click_and_drag(),
        );
        let area = resp.rect;
        if self.area.width() > 0.0 && (area.size() - self.area.size()).length() > 40.0 {
            self.centre = true;
        }
        self.area = area;
        (resp, painter)
    }

    /// Pan (drag), zoom (wheel or pinch, about the pointer), the glide to a target, Fit and
    /// centring: where the graph is before anything is drawn.
    fn navigate(
        &mut self,
        ui: &egui::Ui,
        resp: &egui::Response,
        area: Rect,
        g: &Graph,
        layout: &Layout,
    ) {
        let dt = ui.input(|i| i.stable_dt).min(0.1);
        if resp.dragged() {
            self.offset += resp.drag_delta();
            self.target = None;
        }
        if resp.hovered() {
            let (pinch, scroll) = ui.input(|i| (i.zoom_delta(), i.smooth_scroll_delta()));
            let wheel = (scroll.y * 0.0025).exp();
            let factor = pinch * wheel;
            if (factor - 1.0).abs() > 1e-4 {
                let at = resp.hover_pos().unwrap_or(area.center()) - area.min;
                let z = (self.zoom * factor).clamp(MIN_ZOOM, MAX_ZOOM);
                self.offset = at - (at - self.offset) * (scale(z) / scale(self.zoom));
                self.zoom = z;
                self.chosen = z;
                self.target = None;
            }
        }
        if let Some(t) = self.target {
            let d = t - self.offset;
            if d.length() < 1.0 {
                self.offset = t;
                self.target = None;
            } else {
                self.offset += d * (1.0 - (-dt * 16.0).exp());
                ui.ctx().request_repaint();
            }
        }
        let placed = || layout.placed.values().map(|p| cell_pos(p.cell));
        if self.fit && !g.nodes.is_empty() {
            self.fit = false;
            self.target = None;
            let all = bounds(placed());
            if let Some((lo, hi)) = all {
                let (lo, hi) = (Vec2::from(lo), Vec2::from(hi));
                let size = hi - lo;
                // The largest zoom that fits: nodes keep legible text, so below some zoom
                // they shrink less than the zoom (`scale`); search rather than divide.
                let z = (0..=75)
                    .map(|i| 1.25 - i as f32 * 0.01)
                    .find(|&z| self.fits_at(z, all))
                    .unwrap_or(0.0);
                // Fit (0) goes down to the smallest zoom, where text still stays at MIN_TEXT (a
                // graph that still does not fit shows its start and the minimap the rest);
                // opening a program keeps the zoom the user chose, or less if that fits.
                if self.fit_asked {
                    self.zoom = z.clamp(MIN_ZOOM, 1.25);
                    self.chosen = self.zoom;
                } else {
                    self.zoom = if z >= MIN_ZOOM {
                        self.chosen.min(z)
                    } else {
                        self.chosen
                    };
                }
                self.fit_asked = false;
                let k = scale(self.zoom);
                self.offset = if z >= self.zoom {
                    (area.size() - size * k) / 2.0 - lo * k
                } else {
                    Vec2::new(20.0, 20.0) - lo * k
                };
            }
        }
        if self.centre && !g.nodes.is_empty() {
            self.centre = false;
            let all = bounds(placed());
            if let Some((lo, hi)) = all {
                let (lo, hi) = (Vec2::from(lo), Vec2::from(hi));
                // The zoom the user chose, or as much less as lets the graph fit the pane (a
                // node cut at the pane's edge when the labeled term was shown, at 720p); a
                // graph that fits at no zoom keeps the chosen one (the minimap shows the rest).
                self.zoom = (0..=200)
                    .map(|i| self.chosen - i as f32 * 0.01)
                    .take_while(|&z| z >= MIN_ZOOM)
                    .find(|&z| self.fits_at(z, all))
                    .unwrap_or(self.chosen);
                let size = (hi - lo) * scale(self.zoom);
                let free = (area.size() - size).max(Vec2::splat(40.0)) / 2.0;
                self.offset = free - lo * scale(self.zoom);
            }
        }
    }

    /// A minimap in the corner when the graph is bigger than the pane: every node as a dot,
    /// the view as a rectangle; a click or drag there moves the view.
    fn minimap(
        &mut self,
        ui: &mut egui::Ui,
        painter: &egui::Painter,
        area: Rect,
        layout: &Layout,
        g: &Graph,
        practice: bool,
    ) -> Option<Option<GraphEvent>> {
        if !self.minimap {
            return None;
        }
        let (lo, hi) = bounds(layout.placed.values().map(|p| cell_pos(p.cell)))?;
        let (lo, hi) = (Vec2::from(lo), Vec2::from(hi));
        let view_lo = -self.offset / scale(self.zoom);
        let view_hi = view_lo + area.size() / scale(self.zoom);
        if lo.x >= view_lo.x && lo.y >= view_lo.y && hi.x <= view_hi.x && hi.y <= view_hi.y {
            return None;
        }
        // A few nodes need no map, and a map in a narrow pane would cover what it maps.
        if g.nodes.len() < 4 || area.width() < 3.0 * 150.0 || area.height() < 3.0 * 96.0 {
            return None;
        }
        let size = Vec2::new(150.0, 96.0);
        let map = Rect::from_min_size(area.right_bottom() - size - Vec2::splat(10.0), size);
        let world_lo = lo.min(view_lo);
        let world_hi = hi.max(view_hi);
        let span = (world_hi - world_lo).max(Vec2::splat(1.0));
        let s = ((size.x - 8.0) / span.x).min((size.y - 8.0) / span.y);
        let to_map = |p: Vec2| map.min + Vec2::splat(4.0) + (p - world_lo) * s;
        painter.rect_filled(map, 4.0, ui.visuals().window_fill);
        painter.rect_stroke(
            map,
            4.0,
            Stroke::new(1.0, ui.visuals().weak_text_color()),
            StrokeKind::Inside,
        );
        for n in &g.nodes {
            if let Some(p) = layout.placed.get(&n.key) {
                let c = cell_pos(p.cell);
                let r = Rect::from_min_size(
                    to_map(Vec2::new(c[0], c[1])),
                    (Vec2::new(NODE_W, NODE_H) * s).max(Vec2::splat(2.0)),
                );
                painter.rect_filled(
                    r,
                    0.0,
                    if practice {
                        Color32::GRAY
                    } else {
                        kind_color(n.kind)
                    },
                );
            }
        }
        painter.rect_stroke(
            Rect::from_min_max(to_map(view_lo), to_map(view_hi)),
            0.0,
            Stroke::new(2.0, Color32::from_rgb(0x20, 0x60, 0xff)),
            StrokeKind::Inside,
        );
        let r = ui.interact(map, ui.scope_id().with("minimap"), Sense::click_and_drag());
        if let Some(p) = r
            .interact_pointer_pos()
            .filter(|_| r.clicked() || r.dragged())
        {
            let world = world_lo + (p - map.min - Vec2::splat(4.0)) / s;
            self.offset = area.size() / 2.0 - world * scale(self.zoom);
            self.target = None;
        }
        Some(None)
    }
}

/// How node text is set at this zoom.
struct Look {
    /// Font size, points.
    fs: f32,
    /// Characters that fit on a line of a node.
    chars: usize,
    /// Practice mode: every node grey, no status.
    practice: bool,
}

/// A node's box: its kind's colour (grey in practice mode, dimmed outside the focus), a stack
/// for a group, a pale dashed box for a queued call, a thick blue outline when selected.
fn draw_node(
    painter: &egui::Painter,
    r: Rect,
    n: &Node,
    look: &Look,
    selected: bool,
    dimmed: bool,
) {
    let mut fill = if look.practice {
        Color32::from_gray(225)
    } else {
        kind_color(n.kind)
    };
    if dimmed {
        fill = fill.gamma_multiply(0.25);
    }
    let radius = CornerRadius::same(8);
    let queued = !look.practice && n.call.is_some_and(|c| c.queued());
    if queued {
        // Not dispatched yet: a paler box (the text stays dark on it) with a dashed outline.
        let pale = |c: u8| (c as f32 + (255.0 - c as f32) * 0.55) as u8;
        painter.rect_filled(
            r,
            radius,
            Color32::from_rgb(pale(fill.r()), pale(fill.g()), pale(fill.b())),
        );
        let pts = [
            r.left_top(),
            r.right_top(),
            r.right_bottom(),
            r.left_bottom(),
            r.left_top(),
        ];
        painter.extend(Shape::dashed_line(
            &pts,
            Stroke::new(2.0, Color32::from_gray(70)),
            8.0,
            5.0,
        ));
    } else {
        let group = n.stmt.is_none();
        if group {
            // A stack: a second box behind says "several".
            let back = r.translate(Vec2::new(6.0, 6.0));
            painter.rect_filled(back, radius, fill.gamma_multiply(0.8));
            painter.rect_stroke(
                back,
                radius,
                Stroke::new(1.5, Color32::from_gray(90)),
                StrokeKind::Inside,
            );
        }
        painter.rect_filled(r, radius, fill);
        let outline = if selected {
            Stroke::new(4.0, Color32::from_rgb(0x20, 0x60, 0xff))
        } else if group {
            Stroke::new(2.5, Color32::from_gray(40))
        } else {
            Stroke::new(1.2, Color32::from_gray(60))
        };
        painter.rect_stroke(r, radius, outline, StrokeKind::Inside);
    }
    if selected && queued {
        painter.rect_stroke(
            r,
            radius,
            Stroke::new(4.0, Color32::from_rgb(0x20, 0x60, 0xff)),
            StrokeKind::Outside,
        );
    }
}

/// A node's three lines: label, title, and (not in practice mode) its status.
fn node_lines(painter: &egui::Painter, r: Rect, n: &Node, look: &Look, t: &NodeText, from: usize) {
    let (fs, chars) = (look.fs, look.chars);
    let text_color = Color32::from_gray(15);
    let pad = Vec2::new(7.0, 4.0);
    let line_h = fs * 1.2;
    let label_font = FontId::monospace((fs * 0.92).max(MIN_TEXT));
    painter.text(
        r.left_top() + pad,
        Align2::LEFT_TOP,
        short(&n.label, chars),
        label_font,
        text_color.gamma_multiply(0.8),
    );
    painter.text(
        r.left_top() + pad + Vec2::new(0.0, line_h),
        Align2::LEFT_TOP,
        crate::layout::short_from(&t.title, chars, from),
        FontId::monospace(fs),
        text_color,
    );
    if !look.practice {
        let font = FontId::proportional(fs * 0.95);
        let detail = fitted(painter, &t.detail, &font, r.width() - 2.0 * pad.x);
        painter.text(
            r.left_top() + pad + Vec2::new(0.0, 2.0 * line_h),
            Align2::LEFT_TOP,
            detail,
            font,
            text_color,
        );
    }
}

/// `text` cut (with an ellipsis) to what fits in `width` in `font`: a proportional line holds
/// more characters than the monospace title's count (`2 streamed: "Honolulu", "Jakarta"`).
/// One layout of the whole line (egui caches it across frames): the cut is read off its glyphs.
fn fitted(painter: &egui::Painter, text: &str, font: &FontId, width: f32) -> String {
    let layout = |t: &str| painter.layout_no_wrap(t.to_string(), font.clone(), Color32::WHITE);
    let galley = layout(text);
    if galley.size().x <= width {
        return text.to_string();
    }
    let room = width - layout("…").size().x;
    let fit = galley.rows.first().map_or(0, |r| {
        (r.row.glyphs.iter())
            .take_while(|g| g.pos.x + g.advance_width <= room)
            .count()
    });
    short(text, fit + 1)
}

/// Where each node of `g` is on screen, and how far it has grown (a new node grows into place).
fn node_positions(
    g: &Graph,
    layout: &Layout,
    now: f64,
    to_screen: &dyn Fn([f32; 2]) -> Pos2,
) -> Vec<Option<(Pos2, f32)>> {
    g.nodes
        .iter()
        .map(|n| {
            layout.placed.get(&n.key).map(|p| {
                let grow = ((now - p.born) / ANIMATION).clamp(0.0, 1.0) as f32;
                (to_screen(p.pos), 0.3 + 0.7 * grow)
            })
        })
        .collect()
}

/// Nodes that just left the graph shrink and fade on their way to where they went.
fn draw_dying(
    painter: &egui::Painter,
    layout: &Layout,
    now: f64,
    to_screen: &dyn Fn([f32; 2]) -> Pos2,
    node_size: Vec2,
    area: Rect,
    practice: bool,
) {
    for d in &layout.dying {
        let t = (((now - d.died) / ANIMATION) as f32).clamp(0.0, 1.0);
        let p = [
            d.from[0] + (d.to[0] - d.from[0]) * t,
            d.from[1] + (d.to[1] - d.from[1]) * t,
        ];
        let r = Rect::from_center_size(to_screen(p) + node_size / 2.0, node_size * (1.0 - t));
        if area.intersects(r) {
            let fill = if practice {
                Color32::from_gray(225)
            } else {
                kind_color(d.kind)
            };
            painter.rect_filled(r, CornerRadius::same(8), fill.gamma_multiply(1.0 - t));
        }
    }
}

/// The node under the pointer: its tooltip, and what a click means (open a group, step a
/// steppable node on a double click, else select).
fn node_event(
    resp: &egui::Response,
    n: &Node,
    text: &dyn Fn(&Node) -> NodeText,
    practice: bool,
) -> Option<GraphEvent> {
    resp.clone().on_hover_text_at_pointer(text(n).tip);
    if n.stmt.is_none() && resp.clicked() {
        Some(GraphEvent::Toggle(n.key))
    } else if resp.double_clicked() && matches!(n.kind, Kind::Steppable(_)) && !practice {
        n.stmt.map(GraphEvent::Step)
    } else if resp.clicked() {
        Some(GraphEvent::Select(n.key))
    } else {
        None
    }
}

/// Nodes, edges and zoom in the bottom-left corner, on a backing of its own: nodes pass under it.
fn legend(ui: &egui::Ui, painter: &egui::Painter, area: Rect, g: &Graph, z: f32) {
    let galley = painter.layout_no_wrap(
        format!(
            "{} nodes · {} edges · {:.0}%",
            g.nodes.len(),
            g.edges.len(),
            z * 100.0
        ),
        FontId::proportional(MIN_TEXT),
        ui.visuals().weak_text_color(),
    );
    let at = area.left_bottom() + Vec2::new(8.0, -6.0 - galley.size().y);
    painter.rect_filled(
        Rect::from_min_size(at, galley.size()).expand(4.0),
        4.0,
        ui.visuals().extreme_bg_color,
    );
    painter.galley(at, galley, ui.visuals().weak_text_color());
}

/// The graph's edges, each with an arrowhead: dashed where only program order links two nodes,
/// faint where focus dims either end; edges wholly outside the pane are skipped.
#[allow(clippy::too_many_arguments)]
fn draw_edges(
    ui: &egui::Ui,
    painter: &egui::Painter,
    g: &Graph,
    pos: &[Option<(Pos2, f32)>],
    node_size: Vec2,
    visible: Rect,
    z: f32,
    dim: &dyn Fn(usize) -> bool,
) {
    let edge_color = ui.visuals().text_color().gamma_multiply(0.55);
    let edge_stroke = Stroke::new(1.5_f32.max(2.0 * z), edge_color);
    for &(a, b) in &g.edges {
        let (Some((pa, _)), Some((pb, _))) = (pos[a], pos[b]) else {
            continue;
        };
        let from = pa + Vec2::new(node_size.x / 2.0, node_size.y);
        let to = pb + Vec2::new(node_size.x / 2.0, 0.0);
        if !visible.contains(from)
            && !visible.contains(to)
            && !visible.intersects(Rect::from_two_pos(from, to))
        {
            continue;
        }
        let stroke = if dim(a) || dim(b) {
            Stroke::new(edge_stroke.width, edge_color.gamma_multiply(0.2))
        } else {
            edge_stroke
        };
        // Program order alone (the sequencing token of `print v`, sequential and readonly
        // calls): dashed, where data is a solid line.
        if g.ordering.contains(&(a, b)) {
            painter.extend(Shape::dashed_line(&[from, to], stroke, 9.0, 6.0));
        } else {
            painter.line_segment([from, to], stroke);
        }
        let dir = (to - from).normalized() * 10.0 * z.max(0.6);
        painter.line_segment([to, to - dir + dir.rot90() * 0.5], stroke);
        painter.line_segment([to, to - dir - dir.rot90() * 0.5], stroke);
    }
}
