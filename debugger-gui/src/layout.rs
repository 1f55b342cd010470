//! Where the task graph's nodes sit. A full layered layout (rust-sugiyama) is not stable —
//! adding one node moves most others — so it runs only at the start and on "tidy"; between,
//! nodes keep their grid cells, a step's new nodes take the cells below the node they came
//! from, and removed nodes leave gaps (they fold into what replaced them). Tidy runs on a
//! worker thread, so a big graph never blocks a frame.

use opal_core::machine::label::LabelKey;
use opal_debugger::graph::Graph;
use opal_debugger::session::Kind;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use std::sync::mpsc;

/// Grid cell size in graph units at 100 % (a node is `NODE_W` × `NODE_H`).
pub const CELL_W: f32 = 305.0;
pub const CELL_H: f32 = 84.0;
pub const NODE_W: f32 = 280.0;
pub const NODE_H: f32 = 62.0;
/// How long a node takes to grow in or fold away, in seconds.
pub const ANIMATION: f64 = 0.35;
/// Nodes related to nothing already placed fill rows this many wide.
const ORPHAN_COLUMNS: i32 = 3;
/// A tidy layout packs unconnected parts of the graph into bands this many columns wide.
const PACK_COLUMNS: i32 = 4;
/// A tidy layout folds a component taller than this many layers (or than the pane shows at
/// the smallest zoom, `Layout::pane`) into side-by-side columns, a newspaper's, while they
/// fit in `PACK_COLUMNS`: a 12-statement chain is three columns of 4 that fit a projected
/// 1280×720 pane, not one column that never does.
const FOLD_ROWS: i32 = 6;
/// Graphs up to this size get rust-sugiyama's layered layout on tidy; bigger ones a linear
/// layering (it took seconds on 6 000 nodes).
const SUGIYAMA_MAX: usize = 1500;

/// A node's place: its grid cell and where it is drawn now (moving toward the cell).
#[derive(Clone, Debug)]
pub struct Placed {
    pub cell: (i32, i32),
    pub pos: [f32; 2],
    pub born: f64,
}

/// A removed node folding into `to`.
#[derive(Clone, Debug)]
pub struct Dying {
    pub from: [f32; 2],
    pub to: [f32; 2],
    pub died: f64,
    pub kind: Kind,
}

/// Grid cells by node.
type Cells = Vec<(LabelKey, (i32, i32))>;

#[derive(Default)]
pub struct Layout {
    pub placed: HashMap<LabelKey, Placed>,
    occupied: HashMap<(i32, i32), LabelKey>,
    pub dying: Vec<Dying>,
    /// Each node's kind and the nodes it uses, to fold a removed node into what it named.
    sources: HashMap<LabelKey, (Kind, Vec<LabelKey>)>,
    /// A tidy running on a worker thread: the cells it computes, by key.
    tidying: Option<mpsc::Receiver<Cells>>,
    /// The rows and columns of cells the graph pane shows at the smallest zoom: a tidy packs
    /// the graph to fit them where it can (`None` until the pane is measured).
    pub pane: Option<(i32, i32)>,
}

pub fn cell_pos(c: (i32, i32)) -> [f32; 2] {
    [c.0 as f32 * CELL_W, c.1 as f32 * CELL_H]
}

/// The box around nodes drawn at `positions` (top-left corners): (least corner, greatest
/// corner); `None` for no nodes.
pub fn bounds(positions: impl IntoIterator<Item = [f32; 2]>) -> Option<([f32; 2], [f32; 2])> {
    positions.into_iter().fold(None, |b, p| {
        let (lo, hi) = b.unwrap_or((p, [p[0] + NODE_W, p[1] + NODE_H]));
        Some((
            [lo[0].min(p[0]), lo[1].min(p[1])],
            [hi[0].max(p[0] + NODE_W), hi[1].max(p[1] + NODE_H)],
        ))
    })
}

impl Layout {
    /// A fresh layout of `g` (layered, computed at once: a program's first graph is small).
    pub fn new(g: &Graph) -> Layout {
        let mut l = Layout::default();
        let cells = layered(g, None);
        // Grown already: a new layout appears at once.
        l.apply_cells(g, &cells, -ANIMATION);
        l.placed.values_mut().for_each(|p| p.pos = cell_pos(p.cell));
        l.remember(g);
        l
    }

    fn take(&mut self, key: LabelKey, cell: (i32, i32)) {
        self.occupied.insert(cell, key);
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

    /// The first free cell from row `row` down, in the first `cols` columns.
    fn free_in_rows(&self, row: i32, cols: i32) -> (i32, i32) {
        (row..)
            .flat_map(|y| (0..cols).map(move |x| (x, y)))
            .find(|c| !self.occupied.contains_key(c))
            .unwrap_or((0, row))
    }

    /// Follows the graph to `g`: removed nodes fold away, new ones take cells below the node
    /// they came from (an ancestor label, else a node they use), the rest stays where it is.
    /// Returns the cells of the new nodes.
    /// `animate`: false while a job runs (the graph changes every frame, so growing and gliding
    /// nodes would never settle and be drawn as text-less boxes): everything is put in place.
    pub fn update(&mut self, g: &Graph, now: f64, animate: bool) -> Vec<(i32, i32)> {
        let (gone, old) = self.remove_gone(g);
        let born = self.place_new(g, &old, now, animate);
        self.fold_away(g, gone, &old, now, animate);
        self.close_gaps();
        if !animate {
            self.dying.clear();
            for p in self.placed.values_mut() {
                p.pos = cell_pos(p.cell);
            }
        }
        // A long run leaves many fold-aways at once: keep the newest few.
        if self.dying.len() > 400 {
            let drop = self.dying.len() - 400;
            self.dying.drain(..drop);
        }
        self.remember(g);
        born
    }

    /// Takes the nodes no longer in `g` off the grid; returns their keys and where they were.
    fn remove_gone(&mut self, g: &Graph) -> (Vec<LabelKey>, HashMap<LabelKey, Placed>) {
        let alive: HashSet<LabelKey> = g.nodes.iter().map(|n| n.key).collect();
        let gone: Vec<LabelKey> = self
            .placed
            .keys()
            .filter(|k| !alive.contains(k))
            .copied()
            .collect();
        let old: HashMap<LabelKey, Placed> = gone
            .iter()
            .filter_map(|k| self.placed.get(k).map(|p| (*k, p.clone())))
            .collect();
        for k in &gone {
            if let Some(p) = self.placed.remove(k) {
                self.occupied.remove(&p.cell);
            }
        }
        (gone, old)
    }

    /// Places the nodes new in `g`: below the node they came from (an ancestor label, `old` if
    /// it just went away, else a node they use), growing from there when `animate`. Returns
    /// their cells.
    fn place_new(
        &mut self,
        g: &Graph,
        old: &HashMap<LabelKey, Placed>,
        now: f64,
        animate: bool,
    ) -> Vec<(i32, i32)> {
        let sources_of = g.sources();
        // Children of the same origin stack below it, in label order.
        let mut next_row: HashMap<LabelKey, i32> = HashMap::new();
        let mut born = Vec::new();
        for (i, n) in g.nodes.iter().enumerate() {
            if self.placed.contains_key(&n.key) {
                continue;
            }
            let origin = n
                .parents
                .iter()
                .find_map(|p| {
                    old.get(p)
                        .or_else(|| self.placed.get(p))
                        .map(|o| (*p, o.cell, o.pos))
                })
                .or_else(|| {
                    let src = sources_of[i]
                        .iter()
                        .find_map(|&s| self.placed.get(&g.nodes[s].key))?;
                    Some((LabelKey(0), (src.cell.0, src.cell.1 + 1), src.pos))
                });
            let (want, from) = match origin {
                Some((pk, cell, pos)) => {
                    let k = next_row.entry(pk).or_insert(0);
                    let want = (cell.0, cell.1 + *k);
                    *k += 1;
                    (want, pos)
                }
                None => {
                    // Unrelated to anything placed: fill the last rows, a few nodes wide.
                    let last = self.occupied.keys().map(|c| c.1).max().unwrap_or(0);
                    let cell = self.free_in_rows(last, ORPHAN_COLUMNS);
                    (cell, cell_pos(cell))
                }
            };
            let cell = self.free_near(want);
            self.take(n.key, cell);
            let placed = if animate {
                Placed {
                    cell,
                    pos: from,
                    born: now,
                }
            } else {
                Placed {
                    cell,
                    pos: cell_pos(cell),
                    born: now - ANIMATION,
                }
            };
            self.placed.insert(n.key, placed);
            born.push(cell);
        }
        born
    }

    /// Removed nodes fold into a node that took their place (a descendant), else into what
    /// they used, else in place (only when animating: otherwise nothing is drawn moving).
    fn fold_away(
        &mut self,
        g: &Graph,
        gone: Vec<LabelKey>,
        old: &HashMap<LabelKey, Placed>,
        now: f64,
        animate: bool,
    ) {
        let index: HashMap<LabelKey, usize> = g
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.key, i))
            .collect();
        for k in gone {
            let Some(p) = old.get(&k) else { continue };
            let child = g.nodes.iter().find(|n| n.parents.contains(&k));
            let before = self.sources.get(&k);
            let to = child
                .or_else(|| {
                    before.and_then(|(_, s)| {
                        s.iter().find_map(|x| index.get(x).map(|&i| &g.nodes[i]))
                    })
                })
                .and_then(|n| self.placed.get(&n.key))
                .map(|q| cell_pos(q.cell))
                .unwrap_or(p.pos);
            let kind = before.map(|(k, _)| *k).unwrap_or(Kind::Waiting);
            if animate {
                self.dying.push(Dying {
                    from: p.pos,
                    to,
                    died: now,
                    kind,
                });
            }
        }
    }

    /// Rows left empty by nodes that folded away close up: the rows below move up (every node
    /// keeps its column and its order; they glide there).
    fn close_gaps(&mut self) {
        let mut rows: Vec<i32> = self.occupied.keys().map(|c| c.1).collect();
        rows.sort_unstable();
        rows.dedup();
        // Row `rows[i]` moves to row `i` (rows start at 0 and leave no gap).
        if rows.iter().enumerate().all(|(i, &r)| r == i as i32) {
            return;
        }
        let to: HashMap<i32, i32> = rows
            .iter()
            .enumerate()
            .map(|(i, &r)| (r, i as i32))
            .collect();
        self.occupied = self
            .occupied
            .drain()
            .map(|((x, y), k)| ((x, to[&y]), k))
            .collect();
        for p in self.placed.values_mut() {
            p.cell.1 = to.get(&p.cell.1).copied().unwrap_or(p.cell.1);
        }
    }

    fn remember(&mut self, g: &Graph) {
        let sources = g.sources();
        self.sources = g
            .nodes
            .iter()
            .zip(&sources)
            .map(|(n, of)| {
                (
                    n.key,
                    (n.kind, of.iter().map(|&j| g.nodes[j].key).collect()),
                )
            })
            .collect();
    }

    /// Starts a full layered layout on a worker thread; `poll_tidy` applies it when done.
    pub fn start_tidy(&mut self, g: &Graph) {
        let g = g.clone();
        let (tx, rx) = mpsc::channel();
        let pane = self.pane;
        std::thread::spawn(move || {
            let cells = layered(&g, pane);
            let _ = tx.send(g.nodes.iter().zip(cells).map(|(n, c)| (n.key, c)).collect());
        });
        self.tidying = Some(rx);
    }

    pub fn tidying(&self) -> bool {
        self.tidying.is_some()
    }

    /// Drops a running tidy (Esc).
    pub fn cancel_tidy(&mut self) -> bool {
        self.tidying.take().is_some()
    }

    /// Applies a finished tidy; true if one was applied.
    pub fn poll_tidy(&mut self, g: &Graph, now: f64) -> bool {
        let Some(rx) = &self.tidying else {
            return false;
        };
        match rx.try_recv() {
            Ok(by_key) => {
                self.tidying = None;
                let map: HashMap<LabelKey, (i32, i32)> = by_key.into_iter().collect();
                let cells: Vec<(i32, i32)> = g
                    .nodes
                    .iter()
                    .enumerate()
                    .map(|(i, n)| map.get(&n.key).copied().unwrap_or((0, i as i32)))
                    .collect();
                self.apply_cells(g, &cells, now);
                true
            }
            Err(mpsc::TryRecvError::Empty) => false,
            Err(mpsc::TryRecvError::Disconnected) => {
                self.tidying = None;
                false
            }
        }
    }

    /// Moves every node to its cell in `cells` (nodes then glide there).
    fn apply_cells(&mut self, g: &Graph, cells: &[(i32, i32)], now: f64) {
        self.occupied.clear();
        let old = std::mem::take(&mut self.placed);
        for (n, &want) in g.nodes.iter().zip(cells) {
            let cell = self.free_near(want);
            self.take(n.key, cell);
            let (pos, born) = old
                .get(&n.key)
                .map(|p| (p.pos, p.born))
                .unwrap_or((cell_pos(cell), now));
            self.placed.insert(n.key, Placed { cell, pos, born });
        }
    }

    /// Moves drawn positions toward their cells and forgets finished fold-aways; true while
    /// something still moves.
    pub fn animate(&mut self, dt: f32, now: f64) -> bool {
        let k = 1.0 - (-dt * 12.0).exp();
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

    /// The graph as SVG, at the cells; `text` gives a node's lines.
    pub fn to_svg(
        &self,
        g: &Graph,
        text: impl Fn(&opal_debugger::graph::Node) -> String,
    ) -> String {
        let xml = |s: &str| {
            s.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
        };
        let cells: Vec<[f32; 2]> = g
            .nodes
            .iter()
            .map(|n| {
                self.placed
                    .get(&n.key)
                    .map(|p| cell_pos(p.cell))
                    .unwrap_or([0.0, 0.0])
            })
            .collect();
        let ([x0, y0], [w, h]) = bounds(cells.iter().copied().chain([[0.0, 0.0]]))
            .unwrap_or(([0.0, 0.0], [NODE_W, NODE_H]));
        let (ox, oy) = (10.0 - x0, 10.0 - y0);
        let mut out = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"monospace\" font-size=\"14\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
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
            let dash = if n.call.is_some_and(|c| c.queued()) {
                " stroke-dasharray=\"6 4\""
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "<g><rect x=\"{}\" y=\"{}\" width=\"{NODE_W}\" height=\"{NODE_H}\" rx=\"8\" fill=\"{}\" stroke=\"#333\"{dash}/><text x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text><text x=\"{}\" y=\"{}\">{}</text></g>",
                c[0] + ox,
                c[1] + oy,
                opal_debugger::graph::kind_hex(n.kind),
                c[0] + ox + 8.0,
                c[1] + oy + 20.0,
                xml(&n.label),
                c[0] + ox + 8.0,
                c[1] + oy + 42.0,
                xml(&short(&text(n), 26))
            );
        }
        out.push_str("</svg>\n");
        out
    }
}

/// Grid cells of a layered layout of `g`: rust-sugiyama for graphs it handles quickly, a
/// linear layering (depth by longest path, columns in label order) for bigger ones.
fn layered(g: &Graph, pane: Option<(i32, i32)>) -> Vec<(i32, i32)> {
    let n = g.nodes.len();
    if n <= SUGIYAMA_MAX {
        if let Some(cells) = sugiyama_cells(g, pane) {
            return cells;
        }
    }
    linear_cells(g)
}

/// rust-sugiyama's layout, packed to fit `pane` (rows and columns of cells the graph pane
/// shows at the smallest zoom) where some folding does; `None` when the crate panicked.
fn sugiyama_cells(g: &Graph, pane: Option<(i32, i32)>) -> Option<Vec<(i32, i32)>> {
    let n = g.nodes.len();
    let vertices: Vec<(u32, (f64, f64))> = (0..n as u32).map(|i| (i, (1.0, 1.0))).collect();
    let edges: Vec<(u32, u32)> = g.edges.iter().map(|&(a, b)| (a as u32, b as u32)).collect();
    let config = rust_sugiyama::configure::Config {
        vertex_spacing: 1.0,
        transpose: n <= 300,
        ..Default::default()
    };
    // The layout crate asserts on shapes it does not expect: fall back, never crash.
    let layouts = std::panic::catch_unwind(|| {
        rust_sugiyama::from_vertices_and_edges(&vertices, &edges, &config)
    })
    .ok()?;
    let parts: Vec<Part> = layouts.iter().map(|(l, _, _)| part(l)).collect();
    let Some((rows, cols)) = pane else {
        return Some(pack(&parts, n, FOLD_ROWS, PACK_COLUMNS).0);
    };
    // The folding that needs the least zoom beyond the pane's (none, where one fits).
    let over = |(w, h): (i32, i32)| (w as f32 / cols as f32).max(h as f32 / rows as f32);
    (1..=rows.max(1))
        .rev()
        .map(|fold_rows| pack(&parts, n, fold_rows, cols.max(1)))
        .min_by(|a, b| over(a.1).total_cmp(&over(b.1)))
        .map(|(cells, _)| cells)
}

/// One connected component laid out: (cell, vertex) pairs, its width and height in cells.
type Part = (Vec<((i32, i32), usize)>, i32, i32);

/// A component of rust-sugiyama's layout as cells. The crate spaces layers and columns apart
/// and centres layers under each other, leaving empty columns: a projected pane shows two or
/// three. Keep its layers and its order within each, but pack them from the left.
fn part(layout: &[(usize, (f64, f64))]) -> Part {
    let mut ys: Vec<i64> = layout.iter().map(|p| p.1 .1.round() as i64).collect();
    ys.sort_unstable();
    ys.dedup();
    let row = |y: f64| ys.binary_search(&(y.round() as i64)).unwrap_or(0) as i32;
    let mut order: Vec<(i32, f64, usize)> =
        layout.iter().map(|&(v, (x, y))| (row(y), x, v)).collect();
    order.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut placed: Vec<((i32, i32), usize)> = Vec::with_capacity(order.len());
    let mut col = 0;
    for (i, &(r, _, v)) in order.iter().enumerate() {
        col = if i > 0 && order[i - 1].0 == r {
            col + 1
        } else {
            0
        };
        placed.push(((col, r), v));
    }
    let width = placed.iter().map(|p| p.0 .0 + 1).max().unwrap_or(1);
    (placed, width, ys.len() as i32)
}

/// The components packed `cols` wide, each taller than `fold_rows` folded, each at the first
/// place (row by row) where its cells are free: side by side, wrapping to new rows (a fan-out
/// of independent calls would otherwise be one row as wide as the fan-out), small ones in the
/// gaps big ones leave. The cells of `n` vertices and the packing's (width, height).
fn pack(parts: &[Part], n: usize, fold_rows: i32, cols: i32) -> (Vec<(i32, i32)>, (i32, i32)) {
    let mut cells: Vec<Option<(i32, i32)>> = vec![None; n];
    let mut taken: HashSet<(i32, i32)> = HashSet::new();
    // Rows below this are empty: the search for a place starts at most a part's height above.
    let mut filled_to = 0i32;
    let (mut max_x, mut max_y) = (0i32, 0i32);
    for (placed, width, height) in parts {
        let (placed, width, height) = fold_tall(placed, *width, *height, fold_rows, cols);
        let fits = |x0: i32, y0: i32| {
            (placed.iter()).all(|((c, r), _)| !taken.contains(&(x0 + c, y0 + r)))
        };
        let mut at = (0, filled_to);
        'search: for y0 in (filled_to - height).max(0)..=filled_to {
            for x0 in 0..=(cols - width).max(0) {
                if fits(x0, y0) {
                    at = (x0, y0);
                    break 'search;
                }
            }
        }
        for &((c, r), v) in &placed {
            let cell = (at.0 + c, at.1 + r);
            taken.insert(cell);
            if let Some(slot) = cells.get_mut(v) {
                *slot = Some(cell);
            }
        }
        max_x = max_x.max(at.0 + width);
        max_y = max_y.max(at.1 + height);
        filled_to = max_y;
    }
    let cells = (cells.iter().enumerate())
        .map(|(i, c)| c.unwrap_or((i as i32 % cols, max_y + i as i32 / cols)))
        .collect();
    (cells, (max_x, max_y))
}

/// A component's cells folded into `k` side-by-side groups of at most `fold_rows` layers
/// when it is taller than that and `k` groups still fit in `cols`; its new width and height.
fn fold_tall(
    placed: &[((i32, i32), usize)],
    width: i32,
    height: i32,
    fold_rows: i32,
    cols: i32,
) -> Part {
    let groups = (height + fold_rows - 1) / fold_rows;
    if groups <= 1 || width * groups > cols {
        return (placed.to_vec(), width, height);
    }
    let rows = (height + groups - 1) / groups;
    let folded = (placed.iter())
        .map(|&((c, r), v)| ((c + (r / rows) * width, r % rows), v))
        .collect();
    (folded, width * groups, rows)
}

/// The linear layering for graphs too big for rust-sugiyama (or that it failed on).
fn linear_cells(g: &Graph) -> Vec<(i32, i32)> {
    let n = g.nodes.len();
    // Longest-path layering in one pass (edges go from earlier to later labels), then the
    // nodes of each layer side by side in label order, wrapped at 12 columns.
    let mut depth = vec![0i32; n];
    let mut by_target: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in &g.edges {
        by_target[b].push(a);
    }
    for i in 0..n {
        depth[i] = by_target[i]
            .iter()
            .filter(|&&a| a < i)
            .map(|&a| depth[a] + 1)
            .max()
            .unwrap_or(0);
    }
    let mut col: HashMap<i32, i32> = HashMap::new();
    let mut rows_before: HashMap<i32, i32> = HashMap::new();
    let max_depth = depth.iter().copied().max().unwrap_or(0);
    let per_layer: Vec<i32> = (0..=max_depth)
        .map(|d| depth.iter().filter(|&&x| x == d).count() as i32)
        .collect();
    let mut y = 0;
    for (d, count) in per_layer.iter().enumerate() {
        rows_before.insert(d as i32, y);
        y += (count + 11) / 12;
    }
    depth
        .iter()
        .map(|&d| {
            let c = col.entry(d).or_insert(0);
            let cell = (*c % 12, rows_before[&d] + *c / 12);
            *c += 1;
            cell
        })
        .collect()
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

/// Where each title starts to differ from the title most like it, in chars (0 for an empty
/// title or one another node has too): two calls that differ only late in their argument,
/// such as Tree of Thoughts' value calls, would otherwise show the same cut text.
pub fn distinct_from(titles: &[&str]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..titles.len()).collect();
    order.sort_by(|&a, &b| titles[a].cmp(titles[b]));
    let common = |a: &str, b: &str| a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let mut from = vec![0; titles.len()];
    for w in order.windows(2) {
        let (a, b) = (w[0], w[1]);
        if titles[a].is_empty() || titles[a] == titles[b] {
            continue;
        }
        let n = common(titles[a], titles[b]);
        from[a] = from[a].max(n);
        from[b] = from[b].max(n);
    }
    from
}

/// `title` in `n` chars; when those would show only the part it shares with another title
/// (it differs from char `from` on), its callee, then from just before where it differs:
/// `llm_get_value …"8 3 4 12")`.
pub fn short_from(title: &str, n: usize, from: usize) -> String {
    let len = title.chars().count();
    if len <= n || n < 12 {
        return short(title, n);
    }
    if from == 0 {
        // Like no other title: its start and its end, which for a call is often what the
        // reader needs (the prompt's last line, the state a value call scores).
        let callee = title
            .find(' ')
            .map_or(0, |i| title[..i].chars().count() + 1);
        let head = (callee + 4).min(n - 9).max((n - 1) / 2);
        let tail = n - 1 - head;
        let start: String = title.chars().take(head).collect();
        let end: String = title.chars().skip(len - tail).collect();
        return format!("{start}…{end}");
    }
    if from + 1 < n {
        return short(title, n);
    }
    // The callee whole (`llm_get_value`, not `llm_get_…`, which could be another), leaving
    // room for nine chars of what differs.
    let head = title
        .find(' ')
        .map_or(0, |i| title[..i].chars().count() + 1)
        .min(n - 9);
    let room = n - head - 1;
    // From a little before the difference, or earlier when the rest fits anyway.
    let start = from
        .saturating_sub(3)
        .min(len.saturating_sub(room))
        .max(head);
    let rest: String = title.chars().skip(start).collect();
    let head: String = title.chars().take(head).collect();
    format!("{head}…{}", short(&rest, room))
}

#[cfg(test)]
mod tests {
    use super::*;
    use opal_debugger::session::Session;

    /// A chain of `n` statements, each using the one before.
    fn chain(n: usize) -> Graph {
        let mut src = String::from("extern fetch\na0 := fetch \"x\"\n");
        for i in 1..n {
            src.push_str(&format!("a{i} := a{} + \"{i}\"\n", i - 1));
        }
        let s = Session::new(&src, None).expect("compiles");
        s.statement_graph(false)
    }

    fn size(cells: &[(i32, i32)]) -> (i32, i32) {
        let w = cells.iter().map(|c| c.0 + 1).max().unwrap_or(0);
        let h = cells.iter().map(|c| c.1 + 1).max().unwrap_or(0);
        (w, h)
    }

    #[test]
    fn a_tidy_folds_a_tall_chain_into_columns_that_fit_the_pane() {
        let g = chain(12);
        let chain_nodes = g.nodes.len();
        assert!(chain_nodes >= 12, "{chain_nodes} nodes");
        // Unmeasured: one column, folded at FOLD_ROWS.
        let (w, h) = size(&layered(&g, None));
        assert!(h <= FOLD_ROWS + 1, "{w}×{h}");
        // A projected 1280×720 pane shows 3 columns of 4 rows at the smallest zoom.
        let cells = layered(&g, Some((5, 3)));
        let (w, h) = size(&cells);
        assert!(w <= 3 && h <= 5, "{w}×{h} in a 3×5 pane");
        let distinct: HashSet<(i32, i32)> = cells.iter().copied().collect();
        assert_eq!(distinct.len(), cells.len(), "no two nodes share a cell");
        // A pane too small for any folding gets the least overflow, still one node per cell.
        let cells = layered(&g, Some((2, 2)));
        let distinct: HashSet<(i32, i32)> = cells.iter().copied().collect();
        assert_eq!(distinct.len(), cells.len());
    }
}
