//! All paths (PLT Redex's `traces`): every reduction order of a small program from its
//! initial term, as a graph of states (rows by depth; normal forms ringed) and steps. The
//! search (`opal explore`'s) runs on a worker thread; a click on a state travels there (the
//! session replays the steps of a shortest path to it, resolving as the search did).

use eframe::egui::{self, Align2, Color32, FontId, Pos2, RichText, Sense, Stroke, Vec2};
use opal_core::machine::explore::{explore, Explored, Mode, Options};
use opal_core::machine::Rule;
use opal_debugger::session::{Action, By, Session};
use std::sync::mpsc;

/// States beyond this are not searched (a 3-call program has a few hundred).
const MAX_STATES: usize = 600;

pub struct PathsView {
    pub open: bool,
    mode: Mode,
    /// Every interleaving had too many states: the reduced search replaced it.
    fell_back: bool,
    rx: Option<mpsc::Receiver<(Explored, bool)>>,
    result: Option<Explored>,
    /// Each state's term as the views name variables (`c#1`, not `c@4.6.2`).
    shown: Vec<String>,
    /// For each edge, its statement as the views name it: the program's name (`city#1`),
    /// else its label (`5.2.1`) for a temporary of the desugarer's.
    step_names: Vec<String>,
    /// For each state, the edge that first reached it (a shortest path from the start).
    parent: Vec<Option<usize>>,
    depth: Vec<usize>,
    /// The state shown now by the session, when it is one of them.
    current: Option<usize>,
    current_revision: Option<u64>,
}

impl PathsView {
    /// Starts searching every path from the session's initial term.
    pub fn start(s: &Session) -> PathsView {
        let mut v = PathsView {
            open: true,
            mode: Mode::Full,
            fell_back: false,
            rx: None,
            result: None,
            shown: Vec::new(),
            step_names: Vec::new(),
            parent: vec![],
            depth: vec![],
            current: None,
            current_revision: None,
        };
        v.search(s);
        v
    }

    fn search(&mut self, s: &Session) {
        self.result = None;
        let (tx, rx) = mpsc::channel();
        let m = s.initial().clone();
        let world = s.world().cloned();
        let mode = self.mode;
        std::thread::spawn(move || {
            let mut r = explore(
                &m,
                world.clone(),
                Options {
                    mode,
                    max_states: MAX_STATES,
                    graph: true,
                },
            );
            // Every interleaving grows fast (two additions side by side: over 600 states); one
            // order per class always fits, and finds the same normal forms.
            let fell_back = r.truncated && mode == Mode::Full;
            if fell_back {
                r = explore(
                    &m,
                    world,
                    Options {
                        mode: Mode::Reduced,
                        max_states: MAX_STATES,
                        graph: true,
                    },
                );
            }
            let _ = tx.send((r, fell_back));
        });
        self.rx = Some(rx);
        self.result = None;
        self.current_revision = None;
    }

    pub fn busy(&self) -> bool {
        self.rx.is_some()
    }

    pub fn cancel(&mut self) -> bool {
        self.rx.take().is_some()
    }

    /// Takes the search's result when it arrives; true then.
    pub fn poll(&mut self) -> bool {
        let Some(rx) = &self.rx else { return false };
        let Ok((r, fell_back)) = rx.try_recv() else {
            return false;
        };
        {
            self.rx = None;
            if fell_back {
                self.mode = Mode::Reduced;
                self.fell_back = true;
            }
            // Breadth first from the start: the first edge into a state is on a shortest path.
            let n = r.graph.len();
            self.parent = vec![None; n];
            self.depth = vec![0; n];
            let mut seen = vec![false; n];
            if n > 0 {
                seen[0] = true;
            }
            let mut queue = std::collections::VecDeque::from([0usize]);
            while let Some(i) = queue.pop_front() {
                for (k, e) in r.edges.iter().enumerate().filter(|(_, e)| e.from == i) {
                    if e.to < n && !seen[e.to] {
                        seen[e.to] = true;
                        self.parent[e.to] = Some(k);
                        self.depth[e.to] = self.depth[i] + 1;
                        queue.push_back(e.to);
                    }
                }
            }
            // The edges' names are marked after the terms, so a name has the mark the
            // states' terms gave it.
            let mut texts: Vec<String> = r.graph.iter().map(|st| st.term.clone()).collect();
            texts.extend(r.edges.iter().map(|e| e.name.clone().unwrap_or_default()));
            let mut marked = opal_debugger::marked_terms(&texts);
            let names = marked.split_off(n);
            self.shown = marked;
            self.step_names = (r.edges.iter().zip(names))
                .map(|(e, name)| match e.name {
                    Some(_) => name,
                    None => e.label.to_string(),
                })
                .collect();
            self.result = Some(r);
        }
        true
    }

    /// Edge `k` as a caption: its rule, its statement by name, the result taken
    /// (`dispatch city#1 → "sunny"`); `long` gives the rule's whole name and the label.
    fn caption(&self, r: &Explored, k: usize, long: bool) -> String {
        let e = &r.edges[k];
        let name = self
            .step_names
            .get(k)
            .cloned()
            .unwrap_or_else(|| e.label.to_string());
        let mut out = if long {
            let at = if e.name.is_some() {
                format!(" ({})", e.label)
            } else {
                String::new()
            };
            format!("{} {name}{at}", e.rule.name())
        } else {
            format!("{} {name}", short_rule(e.rule))
        };
        if let Some(c) = &e.choice {
            out.push_str(&format!(" → {c}"));
        }
        out
    }

    /// The actions that take the session from the initial term to state `to`.
    fn path_to(&self, s: &Session, to: usize) -> Vec<Action> {
        let Some(r) = &self.result else { return vec![] };
        let mut edges = Vec::new();
        let mut at = to;
        while let Some(k) = self.parent.get(at).copied().flatten() {
            edges.push(k);
            at = r.edges[k].from;
        }
        edges.reverse();
        let mut out = Vec::new();
        for k in edges {
            let e = &r.edges[k];
            out.push(Action::Step {
                label: e.label.clone(),
                strategy: None,
                at_ms: 0.0,
            });
            if let (Rule::Dispatch, Some((ext, result, partial, error))) = (e.rule, &e.delivered) {
                if !s.is_pure(ext) {
                    out.push(Action::Resolve {
                        label: e.label.clone(),
                        by: By::World,
                        result: result.clone(),
                        partial: *partial,
                        error: error.clone(),
                        at_ms: 0.0,
                        call: None,
                    });
                }
            }
        }
        out
    }

    /// "N states, M steps, K normal forms" once the search is done.
    pub fn summary(&self) -> Option<String> {
        let r = self.result.as_ref()?;
        let nfs = r.normal_forms.len();
        let mut out = format!(
            "{} states, {} steps, {nfs} normal form{}",
            r.graph.len(),
            r.edges.len(),
            if nfs == 1 { "" } else { "s" }
        );
        if self.fell_back {
            out.push_str(&format!(
                " (one order per class: every interleaving has more than {MAX_STATES} states)"
            ));
        }
        if r.truncated {
            out.push_str(&format!(" — stopped at {MAX_STATES} states"));
        }
        Some(out)
    }

    /// Every edge's caption as drawn when edges are labelled (for tests).
    pub fn captions(&self) -> Vec<String> {
        let Some(r) = &self.result else { return vec![] };
        (0..r.edges.len())
            .map(|k| self.caption(r, k, false))
            .collect()
    }

    /// The actions to the first normal form found (for tests and scripts).
    pub fn path_to_normal_form(&self, s: &Session) -> Option<Vec<Action>> {
        let r = self.result.as_ref()?;
        let i = r.graph.iter().position(|st| st.normal)?;
        Some(self.path_to(s, i))
    }

    /// Draws the window; the path to travel, if a state was clicked.
    pub fn window(
        &mut self,
        ctx: &egui::Context,
        s: Option<&Session>,
        max: Vec2,
    ) -> Option<Vec<Action>> {
        let s = s?;
        let mut open = self.open;
        let mut travel = None;
        let mut research = false;
        egui::Window::new("All paths")
            .open(&mut open)
            .default_size(Vec2::new(max.x * 0.8, max.y))
            .max_size(max)
            .show(ctx, |ui| {
                research = self.mode_row(ui);
                if self.result.is_none() {
                    ui.label("Searching… (Esc cancels)");
                    return;
                }
                self.follow(s);
                self.explain(ui);
                travel = self.draw(ui, s);
            });
        self.open = open;
        if research {
            self.search(s);
        }
        travel
    }

    /// Every interleaving or one order per class; true when the choice changed (search again).
    fn mode_row(&mut self, ui: &mut egui::Ui) -> bool {
        let mut research = false;
        ui.horizontal(|ui| {
            for (mode, label, what) in [
                (
                    Mode::Full,
                    "every interleaving",
                    "all step orders: the diamonds of strong confluence",
                ),
                (
                    Mode::Reduced,
                    "one order per class",
                    "partial-order reduction: one path, branching only on nondeterministic results",
                ),
            ] {
                if ui
                    .selectable_label(self.mode == mode, label)
                    .on_hover_text(what)
                    .clicked()
                    && self.mode != mode
                {
                    self.mode = mode;
                    self.fell_back = false;
                    research = true;
                }
            }
        });
        research
    }

    /// Which state the session shows now (looked up once per revision).
    fn follow(&mut self, s: &Session) {
        let Some(r) = &self.result else { return };
        if self.current_revision != Some(s.revision()) {
            self.current_revision = Some(s.revision());
            let term = s.machine().print_term_named(false);
            self.current = r.graph.iter().position(|st| st.term == term);
        }
    }

    /// The summary, why the search fell back, and how to read the drawing.
    fn explain(&self, ui: &mut egui::Ui) {
        let Some(r) = &self.result else { return };
        ui.label(RichText::new(self.summary().unwrap_or_default()).strong());
        if self.fell_back {
            ui.colored_label(
                Color32::from_rgb(0xc0, 0x60, 0x00),
                format!(
                    "Every interleaving of this program has more than {MAX_STATES} states, too many to draw: shown is one order per class \
                     (the same normal forms). For the diamonds of strong confluence, open examples/confluence.opal (41 states)."
                ),
            );
        }
        let how = if self.depth.iter().copied().max().unwrap_or(0) + 1 == r.graph.len() {
            "Each state is drawn with the step that led to it"
        } else {
            "Rows are steps from the start"
        };
        let edges = if r.edges.len() <= 40 {
            ""
        } else {
            " Hover a line for its rule and statement."
        };
        ui.weak(format!("{how}; ringed states are normal forms; blue is where you are. Click a state to go there; hover for its term.{edges}"));
    }

    /// The graph of states; the path to a state clicked.
    fn draw(&self, ui: &mut egui::Ui, s: &Session) -> Option<Vec<Action>> {
        let r = self.result.as_ref()?;
        let grid = Grid::new(ui, &self.depth, r);
        let mut travel = None;
        egui::ScrollArea::both()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let (resp, painter) =
                    ui.allocate_painter(grid.size.max(ui.available_size()), Sense::click());
                let origin = resp.rect.min + Vec2::new(if grid.linear { 60.0 } else { 24.0 }, 24.0);
                let pos = |i: usize| grid.pos(&self.depth, origin, i);
                let caption = |k: usize, long: bool| self.caption(r, k, long);
                if grid.linear {
                    draw_steps_taken(ui, &painter, r, &self.parent, &pos, &caption);
                }
                let pointer = resp.hover_pos();
                let hovered_edge = pointer
                    .filter(|_| !grid.linear && !grid.label_edges)
                    .and_then(|p| edge_under(r, &pos, p));
                draw_edges(
                    ui,
                    &painter,
                    r,
                    &pos,
                    hovered_edge,
                    grid.label_edges,
                    &caption,
                );
                let Some(i) = draw_states(&painter, r, self.current, &pos, pointer) else {
                    return;
                };
                let term: String = (self.shown.get(i).unwrap_or(&r.graph[i].term))
                    .lines()
                    .take(24)
                    .collect::<Vec<_>>()
                    .join("\n");
                let outgoing: Vec<String> = (r.edges.iter().enumerate())
                    .filter(|(_, e)| e.from == i)
                    .map(|(k, _)| caption(k, true))
                    .collect();
                resp.clone().on_hover_ui_at_pointer(|ui| {
                    ui.label(
                        RichText::new(format!(
                            "state {i}{}",
                            if r.graph[i].normal {
                                " (normal form)"
                            } else {
                                ""
                            }
                        ))
                        .strong(),
                    );
                    ui.label(RichText::new(term).monospace());
                    if !outgoing.is_empty() {
                        ui.label(format!("steps from here: {}", outgoing.join(", ")));
                    }
                });
                if resp.clicked() {
                    travel = Some(self.path_to(s, i));
                }
            });
        travel
    }
}

/// Where the states go: a row per depth (centred), or, for a single path, wrapped like text.
struct Grid {
    per_row: Vec<usize>,
    /// Each state's place in its row.
    slot: Vec<usize>,
    widest: usize,
    /// A single path (one order per class, no choices): each state with the step that led to it.
    linear: bool,
    /// States per line of a single path.
    cols: usize,
    dx: f32,
    dy: f32,
    /// Every edge is labelled (few of them), else only the one under the pointer.
    label_edges: bool,
    size: Vec2,
}

impl Grid {
    fn new(ui: &egui::Ui, depth: &[usize], r: &Explored) -> Grid {
        let rows = depth.iter().copied().max().unwrap_or(0) + 1;
        let mut per_row = vec![0usize; rows];
        let mut slot = vec![0usize; r.graph.len()];
        for (i, d) in depth.iter().enumerate() {
            slot[i] = per_row[*d];
            per_row[*d] += 1;
        }
        let widest = per_row.iter().copied().max().unwrap_or(1);
        let linear = widest == 1;
        let cols = ((ui.available_width() - 60.0) / 130.0).max(2.0) as usize;
        // Rows squeeze (down to 34 points) so a projected 1280×720 window shows them all.
        let fit_dy = ((ui.available_height() - 40.0) / rows as f32).clamp(34.0, 64.0);
        // Every edge is labelled with its rule and statement when there are few (then
        // states stand far enough apart for the labels); else the edge under the pointer is.
        let label_edges = !linear && r.edges.len() <= 40;
        let (dx, dy) = if linear {
            (130.0, 64.0)
        } else if label_edges {
            (120.0, fit_dy)
        } else {
            (44.0, fit_dy)
        };
        let size = if linear {
            Vec2::new(
                cols as f32 * dx + 40.0,
                rows.div_ceil(cols) as f32 * dy + 40.0,
            )
        } else {
            Vec2::new(widest as f32 * dx + 40.0, rows as f32 * dy + 40.0)
        };
        Grid {
            per_row,
            slot,
            widest,
            linear,
            cols,
            dx,
            dy,
            label_edges,
            size,
        }
    }

    fn pos(&self, depth: &[usize], origin: Pos2, i: usize) -> Pos2 {
        let d = depth[i];
        if self.linear {
            return origin
                + Vec2::new(
                    (d % self.cols) as f32 * self.dx,
                    (d / self.cols) as f32 * self.dy,
                );
        }
        let offset = (self.widest - self.per_row[d]) as f32 * self.dx / 2.0;
        origin + Vec2::new(offset + self.slot[i] as f32 * self.dx, d as f32 * self.dy)
    }
}

/// On a single path, each state's step under it (rule, statement, what it resolved to).
fn draw_steps_taken(
    ui: &egui::Ui,
    painter: &egui::Painter,
    r: &Explored,
    incoming: &[Option<usize>],
    pos: &impl Fn(usize) -> Pos2,
    caption: &impl Fn(usize, bool) -> String,
) {
    for (i, e) in incoming.iter().enumerate() {
        let Some(k) = e.filter(|k| *k < r.edges.len()) else {
            continue;
        };
        let text = caption(k, false);
        painter.text(
            pos(i) + Vec2::new(0.0, 16.0),
            Align2::CENTER_TOP,
            crate::layout::short(&text, 16),
            FontId::proportional(14.0),
            ui.visuals().text_color(),
        );
    }
}

/// The edge under the pointer, away from the states' circles (drawn thicker).
fn edge_under(r: &Explored, pos: &impl Fn(usize) -> Pos2, p: Pos2) -> Option<usize> {
    if r.graph
        .iter()
        .enumerate()
        .any(|(i, _)| (p - pos(i)).length() < 15.0)
    {
        return None;
    }
    r.edges
        .iter()
        .enumerate()
        .filter(|(_, e)| e.from < r.graph.len() && e.to < r.graph.len())
        .map(|(k, e)| (k, distance_to_segment(p, pos(e.from), pos(e.to))))
        .filter(|(_, d)| *d < 6.0)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(k, _)| k)
}

/// The steps between states: every one labelled when there are few, else only the one under
/// the pointer (drawn thicker), so a big graph stays readable.
fn draw_edges(
    ui: &egui::Ui,
    painter: &egui::Painter,
    r: &Explored,
    pos: &impl Fn(usize) -> Pos2,
    hovered_edge: Option<usize>,
    label_edges: bool,
    caption: &impl Fn(usize, bool) -> String,
) {
    let weak = ui.visuals().weak_text_color();
    for (k, e) in r.edges.iter().enumerate() {
        if e.from >= r.graph.len() || e.to >= r.graph.len() {
            continue;
        }
        let (a, b) = (pos(e.from), pos(e.to));
        let hot = hovered_edge == Some(k);
        painter.line_segment(
            [a, b],
            if hot {
                Stroke::new(3.5, ui.visuals().text_color())
            } else {
                Stroke::new(1.5, weak)
            },
        );
        if label_edges || hot {
            let mid = a + (b - a) * 0.5;
            let text = caption(k, hot);
            let galley =
                painter.layout_no_wrap(text, FontId::proportional(14.0), ui.visuals().text_color());
            let rect = Align2::LEFT_CENTER
                .anchor_size(mid + Vec2::new(4.0, 0.0), galley.size())
                .expand(2.0);
            if hot {
                painter.rect_filled(rect, 3.0, ui.visuals().extreme_bg_color);
            }
            painter.galley(
                rect.min + Vec2::splat(2.0),
                galley,
                ui.visuals().text_color(),
            );
        }
    }
}

/// The states as circles (blue where the session is, ringed normal forms); returns the one under
/// the pointer.
fn draw_states(
    painter: &egui::Painter,
    r: &Explored,
    current: Option<usize>,
    pos: &impl Fn(usize) -> Pos2,
    pointer: Option<Pos2>,
) -> Option<usize> {
    let mut hovered = None;
    for (i, st) in r.graph.iter().enumerate() {
        let c = pos(i);
        let fill = if Some(i) == current {
            Color32::from_rgb(0x30, 0x70, 0xff)
        } else if st.normal {
            Color32::from_rgb(0x9b, 0xe0, 0x9b)
        } else {
            Color32::from_gray(200)
        };
        painter.circle_filled(c, 11.0, fill);
        painter.circle_stroke(c, 11.0, Stroke::new(1.0, Color32::from_gray(60)));
        if st.normal {
            painter.circle_stroke(c, 15.0, Stroke::new(2.0, Color32::from_gray(40)));
        }
        if pointer.is_some_and(|p| (p - c).length() < 13.0) {
            hovered = Some(i);
        }
    }
    hovered
}

fn distance_to_segment(p: Pos2, a: Pos2, b: Pos2) -> f32 {
    let ab = b - a;
    let t = if ab.length_sq() > 0.0 {
        ((p - a).dot(ab) / ab.length_sq()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p - (a + ab * t)).length()
}

fn short_rule(r: Rule) -> &'static str {
    match r {
        Rule::ReduceAlias => "alias",
        Rule::ReduceCall => "call",
        Rule::ReduceProj => "proj",
        Rule::ReduceGc => "gc",
        Rule::Dispatch => "dispatch",
        Rule::Resolve => "resolve",
    }
}
