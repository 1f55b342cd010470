//! Drawing the task graph: pan (drag), zoom (scroll or pinch), focus on a node's upstream and
//! downstream, hover for why a node cannot step. Only nodes in view are painted, so a frame
//! with a thousand nodes stays well under 16 ms.

use crate::graph::{bounds, cell_pos, short, Graph, Layout, ANIMATION, NODE_H, NODE_W};
use crate::session::Kind;
use eframe::egui::{self, Align2, Color32, CornerRadius, FontId, Pos2, Rect, Sense, Stroke, StrokeKind, Vec2};
use std::collections::HashSet;

pub struct GraphView {
    pub offset: Vec2,
    pub zoom: f32,
    /// Dim everything outside the selected node's upstream and downstream.
    pub focus: bool,
    /// Centre the view on the graph at the next frame.
    pub fit: bool,
    /// Where the graph was drawn last frame (to tell whether a node is in view).
    area: Rect,
}

impl Default for GraphView {
    fn default() -> Self {
        GraphView { offset: Vec2::new(20.0, 20.0), zoom: 1.0, focus: false, fit: true, area: Rect::NOTHING }
    }
}

/// What the user did in the graph.
pub enum GraphEvent {
    Select(String),
    Step(String),
}

pub fn kind_color(k: Kind) -> Color32 {
    let [r, g, b] = crate::graph::kind_rgb(k);
    Color32::from_rgb(r, g, b)
}

impl GraphView {
    /// Pans (and if need be zooms out) so that the cells `cells` are in view; nothing moves
    /// when they already are. Called after a step, so new statements never appear off screen.
    pub fn reveal(&mut self, cells: &[(i32, i32)]) {
        let Some((lo, hi)) = bounds(cells.iter().map(|&c| cell_pos(c))) else { return };
        if self.area.width() <= 0.0 {
            return;
        }
        let (lo, hi) = (Vec2::from(lo), Vec2::from(hi));
        let size = self.area.size();
        let view_lo = -self.offset / self.zoom;
        let view_hi = view_lo + size / self.zoom;
        if lo.x >= view_lo.x && lo.y >= view_lo.y && hi.x <= view_hi.x && hi.y <= view_hi.y {
            return;
        }
        let need = (hi - lo) + Vec2::splat(40.0);
        self.zoom = self.zoom.min(size.x / need.x).min(size.y / need.y).max(0.1);
        let centre = (lo + hi) / 2.0;
        self.offset = size / 2.0 - centre * self.zoom;
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, g: &Graph, layout: &Layout, selected: Option<&str>, now: f64) -> Option<GraphEvent> {
        let (resp, painter) = ui.allocate_painter(ui.available_size(), Sense::click_and_drag());
        let area = resp.rect;
        self.area = area;
        painter.rect_filled(area, 0.0, ui.visuals().extreme_bg_color);
        if resp.dragged() {
            self.offset += resp.drag_delta();
        }
        if resp.hovered() {
            let (zoom, scroll) = ui.input(|i| (i.zoom_delta(), i.smooth_scroll_delta()));
            if zoom != 1.0 {
                let at = resp.hover_pos().unwrap_or(area.center()) - area.min;
                let z = (self.zoom * zoom).clamp(0.1, 4.0);
                self.offset = at - (at - self.offset) * (z / self.zoom);
                self.zoom = z;
            }
            self.offset += scroll;
        }
        if self.fit && !g.nodes.is_empty() {
            self.fit = false;
            if let Some((lo, hi)) = bounds(layout.placed.values().map(|p| cell_pos(p.cell))) {
                let (lo, hi) = (Vec2::from(lo), Vec2::from(hi));
                let size = hi - lo;
                self.zoom = (area.width() / (size.x + 40.0)).min(area.height() / (size.y + 40.0)).clamp(0.25, 1.5);
                self.offset = Vec2::new(20.0, 20.0) - lo * self.zoom;
            }
        }
        let z = self.zoom;
        let to_screen = |p: [f32; 2]| area.min + self.offset + Vec2::new(p[0], p[1]) * z;
        let node_rect = |p: [f32; 2], scale: f32| {
            let c = to_screen([p[0] + NODE_W / 2.0, p[1] + NODE_H / 2.0]);
            Rect::from_center_size(c, Vec2::new(NODE_W, NODE_H) * z * scale)
        };
        let sel = selected.and_then(|l| g.nodes.iter().position(|n| n.label == l));
        let lit: Option<HashSet<usize>> = match (self.focus, sel) {
            (true, Some(i)) => Some(g.neighbourhood(i)),
            _ => None,
        };
        let dim = |i: usize| lit.as_ref().is_some_and(|s| !s.contains(&i));
        let pos: Vec<Option<(Pos2, f32)>> = g
            .nodes
            .iter()
            .map(|n| {
                layout.placed.get(&n.label).map(|p| {
                    let grow = ((now - p.born) / ANIMATION).clamp(0.0, 1.0) as f32;
                    (to_screen(p.pos), 0.3 + 0.7 * grow)
                })
            })
            .collect();
        let visible = area.expand(NODE_W * z);
        let edge_stroke = Stroke::new(1.0_f32.max(1.2 * z), ui.visuals().weak_text_color());
        for &(a, b) in &g.edges {
            let (Some((pa, _)), Some((pb, _))) = (pos[a], pos[b]) else { continue };
            let from = pa + Vec2::new(NODE_W / 2.0, NODE_H) * z;
            let to = pb + Vec2::new(NODE_W / 2.0, 0.0) * z;
            if !visible.contains(from) && !visible.contains(to) && !visible.intersects(Rect::from_two_pos(from, to)) {
                continue;
            }
            let stroke = if dim(a) || dim(b) { Stroke::new(edge_stroke.width, edge_stroke.color.gamma_multiply(0.2)) } else { edge_stroke };
            painter.line_segment([from, to], stroke);
            let dir = (to - from).normalized() * 7.0 * z.max(0.5);
            painter.line_segment([to, to - dir + dir.rot90() * 0.5], stroke);
            painter.line_segment([to, to - dir - dir.rot90() * 0.5], stroke);
        }
        let text_color = Color32::from_gray(20);
        let show_text = z > 0.35;
        let pointer = resp.hover_pos();
        let mut hovered = None;
        for (i, n) in g.nodes.iter().enumerate() {
            let Some((p, scale)) = pos[i] else { continue };
            let r = node_rect([0.0, 0.0], scale).translate(p - area.min - self.offset);
            if !area.intersects(r) {
                continue;
            }
            let mut fill = kind_color(n.kind);
            if dim(i) {
                fill = fill.gamma_multiply(0.25);
            }
            painter.rect_filled(r, CornerRadius::same(6), fill);
            let outline = if Some(i) == sel { Stroke::new(3.0, Color32::from_rgb(0x20, 0x60, 0xff)) } else { Stroke::new(1.0, Color32::from_gray(60)) };
            painter.rect_stroke(r, CornerRadius::same(6), outline, StrokeKind::Inside);
            if show_text && scale > 0.9 {
                let fs = 12.0 * z;
                painter.text(r.left_top() + Vec2::new(6.0, 4.0) * z, Align2::LEFT_TOP, &n.label, FontId::monospace(fs), text_color);
                painter.text(
                    r.left_top() + Vec2::new(6.0, 22.0) * z,
                    Align2::LEFT_TOP,
                    short(n.text.lines().next().unwrap_or(""), 22),
                    FontId::monospace(fs * 0.9),
                    text_color,
                );
            }
            if pointer.is_some_and(|q| r.contains(q)) {
                hovered = Some(i);
            }
        }
        for d in &layout.dying {
            let t = (((now - d.died) / ANIMATION) as f32).clamp(0.0, 1.0);
            let p = [d.from[0] + (d.to[0] - d.from[0]) * t, d.from[1] + (d.to[1] - d.from[1]) * t];
            let r = node_rect(p, 1.0 - t);
            if area.intersects(r) {
                painter.rect_filled(r, CornerRadius::same(6), kind_color(d.kind).gamma_multiply(1.0 - t));
            }
        }
        let mut event = None;
        if let Some(i) = hovered {
            let n = &g.nodes[i];
            let line = n.line.map(|l| format!(" (line {l})")).unwrap_or_default();
            let tip = format!("{}{line}\n{}\n{}", n.label, n.text, n.status);
            resp.clone().on_hover_text_at_pointer(tip);
            if resp.double_clicked() && matches!(n.kind, Kind::Steppable(_)) {
                event = Some(GraphEvent::Step(n.label.clone()));
            } else if resp.clicked() {
                event = Some(GraphEvent::Select(n.label.clone()));
            }
        }
        painter.text(
            area.right_bottom() - Vec2::new(8.0, 8.0),
            Align2::RIGHT_BOTTOM,
            format!("{} nodes · {} edges · zoom {:.0}%", g.nodes.len(), g.edges.len(), z * 100.0),
            FontId::proportional(12.0),
            ui.visuals().weak_text_color(),
        );
        event
    }
}
