//! The task graph: top-level statements and pending tasks as nodes, def-use as edges, with a
//! layout that stays put. A full layered layout (rust-sugiyama) is not stable — adding one
//! node moves most others — so it runs only at the start and on "tidy"; between, nodes keep
//! their grid cells, a step's new statements take the cells below the statement they came
//! from, and removed nodes leave gaps.

use crate::session::{Kind, Session};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// Grid cell size in graph units (a node is `NODE_W` × `NODE_H`).
pub const CELL_W: f32 = 190.0;
pub const CELL_H: f32 = 64.0;
pub const NODE_W: f32 = 170.0;
pub const NODE_H: f32 = 44.0;
/// How long a node takes to grow in or fold away, in seconds.
pub const ANIMATION: f64 = 0.3;

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub label: String,
    pub text: String,
    pub kind: Kind,
    pub status: String,
    pub line: Option<usize>,
}

/// The term as a graph: nodes in label order, edges (definition, use) as node indices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Graph {
    pub nodes: Vec<Node>,
    pub edges: Vec<(usize, usize)>,
}

impl Graph {
    pub fn of(session: &Session, show_prelude: bool) -> Graph {
        let m = session.machine();
        let mut index = HashMap::new();
        let mut nodes = Vec::new();
        let mut stmts = Vec::new();
        for s in m.iter() {
            let row = session.row(s);
            if row.prelude && !show_prelude {
                continue;
            }
            index.insert(s, nodes.len());
            stmts.push(s);
            nodes.push(Node { label: row.label, text: row.text, kind: row.kind, status: row.status, line: row.line });
        }
        let mut edges = Vec::new();
        let mut seen = HashSet::new();
        for (to, &s) in stmts.iter().enumerate() {
            for v in m.uses_of(s) {
                if let Some(&from) = m.binder(v).and_then(|b| index.get(&b)) {
                    if from != to && seen.insert((from, to)) {
                        edges.push((from, to));
                    }
                }
            }
        }
        Graph { nodes, edges }
    }

    /// For each node, the nodes it uses (the sources of its edges).
    pub fn sources(&self) -> Vec<Vec<usize>> {
        let mut of = vec![Vec::new(); self.nodes.len()];
        for &(a, b) in &self.edges {
            of[b].push(a);
        }
        of
    }

    /// Nodes that `i` depends on (transitively) and that depend on it, `i` included.
    pub fn neighbourhood(&self, i: usize) -> HashSet<usize> {
        let mut out = HashSet::from([i]);
        for forward in [true, false] {
            let mut stack = vec![i];
            let mut seen = HashSet::from([i]);
            while let Some(n) = stack.pop() {
                for &(a, b) in &self.edges {
                    let (from, to) = if forward { (a, b) } else { (b, a) };
                    if from == n && seen.insert(to) {
                        stack.push(to);
                        out.insert(to);
                    }
                }
            }
        }
        out
    }

    /// Graphviz DOT, coloured by status.
    pub fn to_dot(&self) -> String {
        let mut out = String::from("digraph opal {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontname=\"monospace\"];\n");
        for n in &self.nodes {
            let _ = writeln!(
                out,
                "  \"{}\" [label=\"{}\\n{}\", fillcolor=\"{}\", tooltip=\"{}\"];",
                esc(&n.label),
                esc(&n.label),
                esc(&n.text),
                kind_hex(n.kind),
                esc(&n.status)
            );
        }
        for &(a, b) in &self.edges {
            let _ = writeln!(out, "  \"{}\" -> \"{}\";", esc(&self.nodes[a].label), esc(&self.nodes[b].label));
        }
        out.push_str("}\n");
        out
    }
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Fill colours by status (also used by the window, through `kind_rgb`).
pub fn kind_rgb(k: Kind) -> [u8; 3] {
    match k {
        Kind::Steppable(_) => [0x9b, 0xe0, 0x9b],
        Kind::Pending => [0xff, 0xc0, 0x66],
        Kind::Waiting => [0xd8, 0xd8, 0xd8],
        Kind::Value => [0xa8, 0xcc, 0xf0],
        Kind::Stuck => [0xf0, 0x90, 0x90],
    }
}

fn kind_hex(k: Kind) -> String {
    let [r, g, b] = kind_rgb(k);
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// A node's place: its grid cell and where it is drawn now (moving toward the cell).
#[derive(Clone, Debug)]
pub struct Placed {
    pub cell: (i32, i32),
    pub pos: [f32; 2],
    pub born: f64,
}

/// A removed node folding into `to` over `ANIMATION` seconds.
#[derive(Clone, Debug)]
pub struct Dying {
    pub label: String,
    pub from: [f32; 2],
    pub to: [f32; 2],
    pub died: f64,
    pub kind: Kind,
}

#[derive(Default)]
pub struct Layout {
    pub placed: HashMap<String, Placed>,
    occupied: HashMap<(i32, i32), String>,
    pub dying: Vec<Dying>,
    /// For each node, its kind and the labels it uses (to fold a removed alias into what it
    /// named).
    sources: HashMap<String, (Kind, Vec<String>)>,
}

pub fn cell_pos(c: (i32, i32)) -> [f32; 2] {
    [c.0 as f32 * CELL_W, c.1 as f32 * CELL_H]
}

/// The box around nodes drawn at `positions` (top-left corners): (least corner, greatest
/// corner); `None` for no nodes.
pub fn bounds(positions: impl IntoIterator<Item = [f32; 2]>) -> Option<([f32; 2], [f32; 2])> {
    positions.into_iter().fold(None, |b, p| {
        let (lo, hi) = b.unwrap_or((p, [p[0] + NODE_W, p[1] + NODE_H]));
        Some(([lo[0].min(p[0]), lo[1].min(p[1])], [hi[0].max(p[0] + NODE_W), hi[1].max(p[1] + NODE_H)]))
    })
}

/// The label `ℓ` a statement `ℓ.i` came from.
fn parent_label(l: &str) -> Option<&str> {
    l.rfind('.').map(|i| &l[..i])
}

impl Layout {
    /// A fresh layered layout of `g`.
    pub fn new(g: &Graph) -> Layout {
        let mut l = Layout::default();
        l.tidy(g, 0.0);
        l.placed.values_mut().for_each(|p| p.pos = cell_pos(p.cell));
        l.remember(g, &g.sources());
        l
    }

    fn take(&mut self, label: &str, cell: (i32, i32)) {
        self.occupied.insert(cell, label.to_string());
    }

    /// The free cell nearest `want`, searching that row rightward then leftward, then rows below.
    fn free_near(&self, want: (i32, i32)) -> (i32, i32) {
        for dy in 0..1000 {
            for dx in 0..64 {
                for c in [(want.0 + dx, want.1 + dy), (want.0 - dx, want.1 + dy)] {
                    if !self.occupied.contains_key(&c) {
                        return c;
                    }
                }
            }
        }
        (want.0, want.1 + 1000)
    }

    /// Follows the term to `g`: removed nodes fold away, new ones take cells below the node
    /// they came from (or the node they use), everything else stays where it is.
    pub fn update(&mut self, g: &Graph, now: f64) {
        let alive: HashSet<&str> = g.nodes.iter().map(|n| n.label.as_str()).collect();
        let gone: Vec<String> = self.placed.keys().filter(|l| !alive.contains(l.as_str())).cloned().collect();
        // Where each removed node was, for its children to grow out of.
        let old: HashMap<String, Placed> = gone.iter().filter_map(|l| self.placed.get(l).map(|p| (l.clone(), p.clone()))).collect();
        for l in &gone {
            if let Some(p) = self.placed.remove(l) {
                self.occupied.remove(&p.cell);
            }
        }
        let index: HashMap<&str, usize> = g.nodes.iter().enumerate().map(|(i, n)| (n.label.as_str(), i)).collect();
        let sources_of = g.sources();
        // Children of the same parent stack below it, in label order.
        let mut next_row: HashMap<String, i32> = HashMap::new();
        for (i, n) in g.nodes.iter().enumerate() {
            if self.placed.contains_key(&n.label) {
                continue;
            }
            let mut p = parent_label(&n.label);
            let mut origin = None;
            while let Some(pl) = p {
                if let Some(o) = old.get(pl).or_else(|| self.placed.get(pl)) {
                    origin = Some((pl.to_string(), o.cell, o.pos));
                    break;
                }
                p = parent_label(pl);
            }
            let origin = origin.or_else(|| {
                let src = sources_of[i].iter().find_map(|&s| self.placed.get(&g.nodes[s].label))?;
                Some((String::new(), (src.cell.0, src.cell.1 + 1), src.pos))
            });
            let (want, from) = match origin {
                Some((pl, cell, pos)) => {
                    let k = next_row.entry(pl).or_insert(0);
                    let want = (cell.0, cell.1 + *k);
                    *k += 1;
                    (want, pos)
                }
                None => {
                    let bottom = self.occupied.keys().map(|c| c.1).max().map(|y| y + 1).unwrap_or(0);
                    ((0, bottom), cell_pos((0, bottom)))
                }
            };
            let cell = self.free_near(want);
            self.take(&n.label, cell);
            self.placed.insert(n.label.clone(), Placed { cell, pos: from, born: now });
        }
        // Removed nodes fold into their children, else into what they used, else in place.
        for l in gone {
            let Some(p) = old.get(&l) else { continue };
            let child = g.nodes.iter().find(|n| n.label.starts_with(&l) && n.label[l.len()..].starts_with('.'));
            let before = self.sources.get(&l);
            let to = child
                .or_else(|| before.and_then(|(_, s)| s.iter().find_map(|x| index.get(x.as_str()).map(|&i| &g.nodes[i]))))
                .and_then(|n| self.placed.get(&n.label))
                .map(|q| cell_pos(q.cell))
                .unwrap_or(p.pos);
            let kind = before.map(|(k, _)| *k).unwrap_or(Kind::Waiting);
            self.dying.push(Dying { label: l, from: p.pos, to, died: now, kind });
        }
        self.remember(g, &sources_of);
    }

    /// Keeps each node's kind and sources, for folding it away when it is removed.
    fn remember(&mut self, g: &Graph, sources: &[Vec<usize>]) {
        let labels = |of: &[usize]| of.iter().map(|&j| g.nodes[j].label.clone()).collect();
        self.sources = g.nodes.iter().zip(sources).map(|(n, of)| (n.label.clone(), (n.kind, labels(of)))).collect();
    }

    /// A full layered layout (rust-sugiyama); nodes then move to their new cells.
    pub fn tidy(&mut self, g: &Graph, now: f64) {
        self.occupied.clear();
        let vertices: Vec<(u32, (f64, f64))> = (0..g.nodes.len() as u32).map(|i| (i, (1.0, 1.0))).collect();
        let edges: Vec<(u32, u32)> = g.edges.iter().map(|&(a, b)| (a as u32, b as u32)).collect();
        let config = rust_sugiyama::configure::Config { vertex_spacing: 1.0, transpose: g.nodes.len() <= 300, ..Default::default() };
        // The layout crate asserts on shapes it does not expect; a failed tidy keeps the old
        // places rather than taking the window down.
        let layouts = std::panic::catch_unwind(|| rust_sugiyama::from_vertices_and_edges(&vertices, &edges, &config)).unwrap_or_default();
        let mut cells: Vec<Option<(i32, i32)>> = vec![None; g.nodes.len()];
        let mut x0 = 0i32;
        for (layout, _w, _h) in &layouts {
            let min_x = layout.iter().map(|(_, (x, _))| *x).fold(f64::INFINITY, f64::min);
            let mut max_x = x0;
            for &(v, (x, y)) in layout {
                let c = (x0 + (x - min_x).round() as i32, y.round() as i32);
                max_x = max_x.max(c.0);
                if let Some(slot) = cells.get_mut(v) {
                    *slot = Some(c);
                }
            }
            x0 = max_x + 1;
        }
        let old = std::mem::take(&mut self.placed);
        for (i, n) in g.nodes.iter().enumerate() {
            let want = cells[i].unwrap_or((x0, i as i32));
            let cell = self.free_near(want);
            self.take(&n.label, cell);
            let (pos, born) = old.get(&n.label).map(|p| (p.pos, p.born)).unwrap_or((cell_pos(cell), now));
            self.placed.insert(n.label.clone(), Placed { cell, pos, born });
        }
    }

    /// Moves drawn positions toward their cells (exponential ease) and forgets finished
    /// fold-aways; true while something still moves.
    pub fn animate(&mut self, dt: f32, now: f64) -> bool {
        let k = 1.0 - (-dt * 14.0).exp();
        let mut moving = false;
        for p in self.placed.values_mut() {
            let t = cell_pos(p.cell);
            let d = [t[0] - p.pos[0], t[1] - p.pos[1]];
            if d[0].abs() + d[1].abs() > 0.5 {
                p.pos = [p.pos[0] + d[0] * k, p.pos[1] + d[1] * k];
                moving = true;
            } else {
                p.pos = t;
            }
            moving |= now - p.born < ANIMATION;
        }
        self.dying.retain(|d| now - d.died < ANIMATION);
        moving || !self.dying.is_empty()
    }

    /// The graph as SVG, at the cells (not mid-animation).
    pub fn to_svg(&self, g: &Graph) -> String {
        let cells: Vec<[f32; 2]> = g.nodes.iter().map(|n| self.placed.get(&n.label).map(|p| cell_pos(p.cell)).unwrap_or([0.0, 0.0])).collect();
        // The box always includes the origin's node, as if one stood there.
        let ([x0, y0], [w, h]) = bounds(cells.iter().copied().chain([[0.0, 0.0]])).unwrap_or(([0.0, 0.0], [NODE_W, NODE_H]));
        let (ox, oy) = (10.0 - x0, 10.0 - y0);
        let mut out = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"monospace\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
            w - x0 + 20.0,
            h - y0 + 20.0
        );
        for &(a, b) in &g.edges {
            let (p, q) = (cells[a], cells[b]);
            let _ = writeln!(
                out,
                "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#777\"/>",
                p[0] + ox + NODE_W / 2.0,
                p[1] + oy + NODE_H,
                q[0] + ox + NODE_W / 2.0,
                q[1] + oy
            );
        }
        for (n, c) in g.nodes.iter().zip(&cells) {
            let _ = writeln!(
                out,
                "<g><title>{}</title><rect x=\"{}\" y=\"{}\" width=\"{NODE_W}\" height=\"{NODE_H}\" rx=\"6\" fill=\"{}\" stroke=\"#333\"/><text x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text><text x=\"{}\" y=\"{}\">{}</text></g>",
                xml(&n.status),
                c[0] + ox,
                c[1] + oy,
                kind_hex(n.kind),
                c[0] + ox + 6.0,
                c[1] + oy + 16.0,
                xml(&n.label),
                c[0] + ox + 6.0,
                c[1] + oy + 34.0,
                xml(&short(n.text.lines().next().unwrap_or(""), 24))
            );
        }
        out.push_str("</svg>\n");
        out
    }
}

/// `s` cut to `n` characters with an ellipsis.
pub fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}
