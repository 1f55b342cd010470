//! The task graph's two models, drawn by the window and sent by the DAP adapter:
//!
//! * **calls** (the default, as the paper and PopPy draw it): a node per external call that has
//!   been dispatched (pending, streaming with the chunks so far, arrived, failed) or that is
//!   queued at the top level waiting for its argument; an edge when a call's argument was
//!   computed from another call's result, through any number of internal statements (traced by
//!   `State::origin`). Resolved calls leave the graph, so it grows as calls dispatch and
//!   collapses as they resolve.
//! * **statements**: every top-level statement, def-use edges.
//!
//! Either can be grouped: when a graph has more nodes than a window can show legibly, the
//! statements one step put in place of another (an inlined call, a loop iteration, a
//! resolution: labels `ℓ.1 … ℓ.k`) fold into one node for `ℓ`, from the deepest level up,
//! except the groups the user opened and those where the last step happened.

use crate::kind::{kind_of, Kind};
use crate::session::Session;
use opal_core::machine::label::{LabelKey, LabelPath};
use opal_core::machine::{MOp, StmtId, TaskId, VarId};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// What a call depends on: the calls its argument's data comes from, and the calls it is
/// ordered after (the sequencing token).
type Sources = (Vec<LabelKey>, Vec<LabelKey>);

/// An edge between two nodes of a graph, by their positions.
type Edge = (usize, usize);

/// The edges between call nodes: data edges, and the ones that only order two calls; through
/// a hidden pure call, to what it depends on.
fn call_edges(
    nodes: &[Node],
    sources: &[Sources],
    hidden: &HashMap<LabelKey, Sources>,
) -> (Vec<Edge>, Vec<Edge>) {
    let index: HashMap<LabelKey, usize> =
        nodes.iter().enumerate().map(|(i, n)| (n.key, i)).collect();
    let (mut edges, mut ordering) = (Vec::new(), Vec::new());
    for (to, (deps, order)) in sources.iter().enumerate() {
        // Popped in the order given; a source reached through data is a data edge even if
        // program order reaches it too.
        let mut todo: Vec<(LabelKey, bool)> = deps
            .iter()
            .map(|d| (*d, false))
            .chain(order.iter().map(|d| (*d, true)))
            .rev()
            .collect();
        let mut seen = HashSet::new();
        let mut from_nodes: Vec<(usize, bool)> = Vec::new();
        while let Some((d, by_order)) = todo.pop() {
            if !seen.insert((d, by_order)) {
                continue;
            }
            if let Some(&from) = index.get(&d) {
                match from_nodes.iter_mut().find(|(f, _)| *f == from) {
                    Some(f) => f.1 &= by_order,
                    None => from_nodes.push((from, by_order)),
                }
            } else if let Some((data, ord)) = hidden.get(&d) {
                // Through a hidden pure call (`fork`, `add`): to what it depends on.
                todo.extend(
                    data.iter()
                        .map(|x| (*x, by_order))
                        .chain(ord.iter().map(|x| (*x, true)))
                        .rev(),
                );
            }
        }
        for (from, by_order) in from_nodes {
            if from != to && !edges.contains(&(from, to)) {
                edges.push((from, to));
                if by_order {
                    ordering.push((from, to));
                }
            }
        }
    }
    (edges, ordering)
}

/// Where an external call stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallState {
    /// At the top level, but its argument is not a primitive value yet.
    Queued,
    /// Its argument is ready: the next step dispatches it.
    Ready,
    /// Dispatched; the result has not arrived.
    Pending,
    /// Dispatched; some chunks of its streamed list arrived, the rest has not.
    Streaming,
    /// The result arrived: the next step resolves it.
    Arrived,
    Failed,
}

impl CallState {
    pub fn words(self) -> &'static str {
        match self {
            CallState::Queued => "queued: waits for its argument",
            CallState::Ready => "ready: the next step dispatches it",
            CallState::Pending => "pending: dispatched, waiting for the result",
            CallState::Streaming => "streaming: chunks arrive, the rest is pending",
            CallState::Arrived => "arrived: the next step resolves it",
            CallState::Failed => "failed",
        }
    }
    /// Not dispatched yet (drawn dashed).
    pub fn queued(self) -> bool {
        matches!(self, CallState::Queued | CallState::Ready)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The node's identity across steps (a statement's, a call's, or a group's label key).
    pub key: LabelKey,
    /// The statement a click steps or selects (none for a group).
    pub stmt: Option<StmtId>,
    /// The label shown (abbreviated; a group's ends in `.…`).
    pub label: String,
    /// First line: the call (`get_excursions_in "Honolulu"`) or the statement; empty when the
    /// view should take the statement's row text.
    pub title: String,
    /// Second line: what it waits on, what streamed so far, how many it groups.
    pub detail: String,
    pub kind: Kind,
    pub call: Option<CallState>,
    /// Statements (or calls) it stands for: 1, or a group's size.
    pub members: usize,
    pub line: Option<usize>,
    /// The keys of its label's ancestors, nearest first (a few): where a new node grows from.
    pub parents: Vec<LabelKey>,
}

/// Nodes in label order, edges (from, to) as node indices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Graph {
    pub nodes: Vec<Node>,
    pub edges: Vec<(usize, usize)>,
    /// The edges that only order two calls (the sequencing token of `print v` or of
    /// sequential and readonly externals), not pass data: views draw them dashed.
    pub ordering: Vec<(usize, usize)>,
}

/// How many ancestors a node records for placing new nodes.
const PARENTS: usize = 4;
/// Folded temporaries an edge of the statement graph looks through (a tuple of tuples).
const FOLDED_DEPTH: usize = 3;

impl Session {
    fn parents_of(&self, s: StmtId) -> Vec<LabelKey> {
        let st = self.state();
        let m = &st.machine;
        let mut memo = st.memo.0.borrow_mut();
        let mut out = Vec::new();
        let mut l = m.label_id(s);
        while out.len() < PARENTS {
            let Some(p) = m.labels.parent(l) else { break };
            out.push(memo.key(&m.labels, p));
            l = p;
        }
        out
    }

    /// The graph of external calls (see the module's doc); pure externals (`print`, `add`)
    /// only if `show_pure`.
    pub fn call_graph(&self, show_pure: bool) -> Graph {
        let st = self.state();
        let m = &st.machine;
        let mut nodes = Vec::new();
        let mut sources: Vec<Sources> = Vec::new();
        let mut hidden: HashMap<LabelKey, Sources> = HashMap::new();
        for s in m.iter() {
            let found = match m.stmt(s).op {
                MOp::Call(f, x) => self.call_node(s, f, x, show_pure, &mut hidden),
                MOp::Task(t) => self.task_node(s, t, show_pure, &mut hidden),
                _ => None,
            };
            if let Some((node, deps)) = found {
                nodes.push(node);
                sources.push(deps);
            }
        }
        let (edges, ordering) = call_edges(&nodes, &sources, &hidden);
        Graph {
            nodes,
            edges,
            ordering,
        }
    }

    /// The node of a call `f x` not dispatched yet, with what it depends on; `None` for a call
    /// of a function or, unless `show_pure`, of a pure external (then recorded in `hidden`, so
    /// what depends on it depends on what it depends on).
    fn call_node(
        &self,
        s: StmtId,
        f: VarId,
        x: VarId,
        show_pure: bool,
        hidden: &mut HashMap<LabelKey, Sources>,
    ) -> Option<(Node, Sources)> {
        let st = self.state();
        let m = &st.machine;
        let kind = kind_of(m, s);
        let key = st.key(s);
        let ext = match m.binder(f).map(|b| m.stmt(b).op) {
            Some(MOp::Prim(p)) => match m.prim(p) {
                opal_core::ir::Prim::Ext(e) => e.clone(),
                _ => return None,
            },
            _ => return None,
        };
        if !show_pure && self.is_pure(&ext) {
            // Hidden, but what depends on it depends on what it depends on.
            hidden.insert(key, st.call_sources(&ext, x));
            return None;
        }
        let ready = kind == Kind::Steppable(opal_core::machine::Rule::Dispatch);
        // An argument that is not a value yet goes by the program's name for it.
        let arg = match st.readback(x) {
            opal_core::machine::readback::Value::Unknown(_) => st.name(x),
            v => v.to_string(),
        };
        let detail = match m.status_named(s, &|v| st.name(v)) {
            _ if ready => "ready to dispatch".to_string(),
            opal_core::machine::Status::Waiting { on: Some(v), .. } => {
                format!("waits for `{}`", st.name(v))
            }
            opal_core::machine::Status::Stuck(why) => format!("stuck: {why}"),
            _ => "queued".to_string(),
        };
        let (deps, order) = st.call_sources(&ext, x);
        let call = if kind == Kind::Stuck {
            CallState::Failed
        } else if ready {
            CallState::Ready
        } else {
            CallState::Queued
        };
        let node = Node {
            key,
            stmt: Some(s),
            label: st.short(s),
            title: format!("{ext} {arg}"),
            detail,
            kind,
            call: Some(call),
            members: 1,
            line: self.line_of(s),
            parents: self.parents_of(s),
        };
        Some((node, (deps, order)))
    }

    /// The node of a dispatched call (a task), pending, streaming, arrived or failed.
    fn task_node(
        &self,
        s: StmtId,
        t: TaskId,
        show_pure: bool,
        hidden: &mut HashMap<LabelKey, Sources>,
    ) -> Option<(Node, Sources)> {
        let st = self.state();
        let m = &st.machine;
        let kind = kind_of(m, s);
        let key = st.key(s);
        let task = &m.tasks[t];
        if !show_pure && self.is_pure(&task.ext) {
            if let Some(c) = st.call_index(key).and_then(|i| st.calls.get(i)) {
                hidden.insert(c.key, (c.deps.clone(), c.order.clone()));
            }
            return None;
        }
        let call = st.call_index(key).and_then(|i| st.calls.get(i));
        let streamed = call.map(|c| c.streamed()).unwrap_or_default();
        let (state, detail) = match kind {
            Kind::Steppable(_) => (CallState::Arrived, "arrived: resolve it".to_string()),
            Kind::Stuck => (CallState::Failed, self.row(s).status.to_string()),
            // The count first: a narrow node cuts the end of the line.
            _ if !streamed.is_empty() => {
                let n = call.map(|c| c.chunks_arrived()).unwrap_or(0);
                (
                    CallState::Streaming,
                    format!("{n} streamed: {streamed} + …"),
                )
            }
            _ => (CallState::Pending, "pending".to_string()),
        };
        let node = Node {
            key: call.map(|c| c.key).unwrap_or(key),
            stmt: Some(s),
            label: call.map(|c| c.label.clone()).unwrap_or_else(|| st.short(s)),
            title: format!("{} {}", task.ext, task.arg),
            detail,
            kind,
            call: Some(state),
            members: 1,
            line: call.and_then(|c| c.line).or_else(|| self.line_of(s)),
            parents: self.parents_of(s),
        };
        Some((
            node,
            call.map(|c| (c.deps.clone(), c.order.clone()))
                .unwrap_or_default(),
        ))
    }

    /// Every top-level statement, def-use edges; the environment (`0.…`), the prelude's
    /// machinery and the temporaries folded into their uses only if `prelude` (an edge
    /// through a folded temporary goes to what it was folded into).
    pub fn statement_graph(&self, prelude: bool) -> Graph {
        let st = self.state();
        let m = &st.machine;
        let mut index = HashMap::new();
        let mut nodes = Vec::new();
        let mut stmts = Vec::new();
        for s in m.iter() {
            if !prelude && (self.is_machinery(s) || self.is_folded(s)) {
                continue;
            }
            index.insert(s, nodes.len());
            stmts.push(s);
            nodes.push(Node {
                key: st.key(s),
                stmt: Some(s),
                label: st.short(s),
                title: String::new(),
                detail: String::new(),
                kind: kind_of(m, s),
                call: None,
                members: 1,
                line: self.line_of(s),
                parents: self.parents_of(s),
            });
        }
        let mut edges = Vec::new();
        let mut seen = HashSet::new();
        for (to, &s) in stmts.iter().enumerate() {
            let mut uses: Vec<(VarId, usize)> = m.uses_of(s).into_iter().map(|v| (v, 0)).collect();
            while let Some((v, depth)) = uses.pop() {
                let Some(b) = m.binder(v) else { continue };
                match index.get(&b) {
                    Some(&from) if from != to && seen.insert((from, to)) => {
                        edges.push((from, to));
                    }
                    Some(_) => {}
                    // A folded temporary: what it holds is what `s` uses.
                    None if depth < FOLDED_DEPTH && self.is_folded(b) => {
                        uses.extend(m.uses_of(b).into_iter().map(|u| (u, depth + 1)));
                    }
                    None => {}
                }
            }
        }
        Graph {
            nodes,
            edges,
            ordering: Vec::new(),
        }
    }

    /// `g` with groups folded so that at most about `max` nodes remain. Top down from the
    /// whole term: a group is the nodes under a label prefix `ℓ` (one step's replacement: an
    /// inlined call, a loop iteration, a resolution), drawn as one stacked node "ℓ.…"; the
    /// biggest group opens first, while the budget allows; a group with many parts (a loop
    /// of 1 000 iterations) opens into about ten ranges of them ("ℓ.[1–100].…"). Groups in
    /// `open` and those holding a node in `hot` (where the last step happened) open first.
    pub fn grouped(
        &self,
        g: &Graph,
        max: usize,
        open: &HashSet<LabelKey>,
        hot: &HashSet<LabelKey>,
    ) -> Graph {
        if g.nodes.len() <= max {
            return g.clone();
        }
        let m = &self.state().machine;
        // Each node's label path; a group never splits below this many levels of it.
        const DEEPEST: usize = 64;
        let mut stmts = Vec::with_capacity(g.nodes.len());
        for n in &g.nodes {
            let Some(s) = n
                .stmt
                .filter(|s| m.stmts.get(*s).is_some_and(|x| x.is_alive()))
            else {
                return g.clone();
            };
            stmts.push(m.label_id(s));
        }
        let paths = m.labels.prefixes(stmts.into_iter(), DEEPEST);
        let items = open_parts(g, &paths, max, open, hot);
        let mut out = Graph::default();
        let mut node_of = vec![0usize; g.nodes.len()];
        for part in &items {
            let j = out.nodes.len();
            for &i in &part.members {
                node_of[i] = j;
            }
            match part.members[..] {
                [i] => out.nodes.push(g.nodes[i].clone()),
                _ => out.nodes.push(self.group_node(g, part)),
            }
        }
        fold_edges(g, &node_of, &mut out);
        out
    }

    /// The node standing for a group of several: its label prefix, "12 × ext" or "12 calls",
    /// and how many members are in each state.
    fn group_node(&self, g: &Graph, part: &Part) -> Node {
        let m = &self.state().machine;
        let mut memo = self.state().memo.0.borrow_mut();
        let first = &g.nodes[part.members[0]];
        let kind = part
            .members
            .iter()
            .fold(Kind::Value, |k, &i| more_urgent(k, g.nodes[i].kind));
        let label = group_label(part);
        let members: usize = part.members.iter().map(|&i| g.nodes[i].members).sum();
        let parents = first.stmt.map(|s| {
            let mut out = Vec::new();
            let mut l = m.label_id(s);
            while let Some(p) = m.labels.parent(l) {
                if memo.depth(&m.labels, p) <= part.prefix.len() {
                    out.push(memo.key(&m.labels, p));
                }
                l = p;
            }
            out.truncate(PARENTS);
            out
        });
        let title = group_title(g, part, members);
        let detail = group_detail(g, part);
        Node {
            key: part.key(),
            stmt: None,
            label: format!("{label}.…"),
            title,
            detail: format!("{detail} · click to open"),
            kind,
            call: None,
            members,
            line: first.line,
            parents: parents.unwrap_or_default(),
        }
    }
}

/// A group's label: its prefix (elided in the middle when deep) and, for a range of a wide
/// group, the range of next indices.
fn group_label(part: &Part) -> String {
    let prefix: Vec<String> = part.prefix.iter().map(|x| x.to_string()).collect();
    let label = if prefix.len() > opal_core::machine::label::SHORT_DEPTH {
        format!(
            "{}.{}.…{}.{}",
            prefix[0],
            prefix[1],
            prefix[prefix.len() - 2],
            prefix[prefix.len() - 1]
        )
    } else {
        prefix.join(".")
    };
    match part.range {
        Some((lo, hi)) if label.is_empty() => format!("[{lo}–{hi}]"),
        Some((lo, hi)) => format!("{label}.[{lo}–{hi}]"),
        None => label,
    }
}

/// A group's title: "12 × get_excursions_in" when the members call one external (their
/// titles start with its name), else "12 calls" or "12 statements".
fn group_title(g: &Graph, part: &Part, members: usize) -> String {
    let first = &g.nodes[part.members[0]];
    let what = if first.call.is_some() {
        "calls"
    } else {
        "statements"
    };
    let head = |i: &usize| {
        g.nodes[*i]
            .title
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_string()
    };
    let ext = head(&part.members[0]);
    if first.call.is_some() && !ext.is_empty() && part.members.iter().all(|i| head(i) == ext) {
        format!("{members} × {ext}")
    } else {
        format!("{members} {what}")
    }
}

/// What a group's members are doing: how many are in each state, "3 running, 9 done".
fn group_detail(g: &Graph, part: &Part) -> String {
    let mut states: Vec<(&'static str, usize)> = Vec::new();
    for &i in &part.members {
        let word = match g.nodes[i].call {
            Some(c) => c.words().split(':').next().unwrap_or(""),
            None => kind_word(g.nodes[i].kind),
        };
        match states.iter_mut().find(|(w, _)| *w == word) {
            Some((_, n)) => *n += g.nodes[i].members,
            None => states.push((word, g.nodes[i].members)),
        }
    }
    states
        .iter()
        .map(|(w, n)| format!("{n} {w}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A group of nodes while grouping: those whose label starts with `prefix` (and whose next
/// index is within `range`, for a range of a wide group).
/// The groups shown: one group of every node, opened while the budget `max` allows, the ones
/// asked for (`open`, or holding a `hot` node) first, then the biggest.
fn open_parts(
    g: &Graph,
    paths: &[std::rc::Rc<[u32]>],
    max: usize,
    open: &HashSet<LabelKey>,
    hot: &HashSet<LabelKey>,
) -> Vec<Part> {
    let mut items: Vec<Part> = vec![Part {
        prefix: vec![],
        range: None,
        members: (0..g.nodes.len()).collect(),
    }];
    // Open groups while the budget allows: the ones asked for first, then the biggest.
    loop {
        let count = items.len();
        let want = |p: &Part| {
            let forced =
                p.members.iter().any(|&i| hot.contains(&g.nodes[i].key)) || open.contains(&p.key());
            (p.members.len() > 1, forced, p.members.len())
        };
        let Some(k) = (0..items.len())
            .filter(|&k| items[k].members.len() > 1)
            .max_by_key(|&k| {
                let (_, forced, size) = want(&items[k]);
                (forced, size)
            })
        else {
            break;
        };
        let children = items[k].split(paths);
        let forced = want(&items[k]).1;
        if count - 1 + children.len() > max && !(forced && count - 1 + children.len() <= max * 2) {
            break;
        }
        items.splice(k..k + 1, children);
    }
    items
}

/// The edges between groups: one per pair of groups, an ordering edge only if every edge it
/// stands for orders.
fn fold_edges(g: &Graph, node_of: &[usize], out: &mut Graph) {
    // A folded edge orders only if every edge it stands for does.
    let ordering: HashSet<(usize, usize)> = g.ordering.iter().copied().collect();
    let mut data = HashSet::new();
    let mut seen = HashSet::new();
    for &(a0, b0) in &g.edges {
        let (a, b) = (node_of[a0], node_of[b0]);
        if a == b {
            continue;
        }
        if !ordering.contains(&(a0, b0)) {
            data.insert((a, b));
        }
        if seen.insert((a, b)) {
            out.edges.push((a, b));
        }
    }
    out.ordering = out
        .edges
        .iter()
        .copied()
        .filter(|e| !data.contains(e))
        .collect();
}

struct Part {
    prefix: Vec<u32>,
    range: Option<(u32, u32)>,
    members: Vec<usize>,
}

/// A wide group opens into about this many ranges.
const RANGES: usize = 10;

impl Part {
    /// The group's identity: its label's key, or a key of its range.
    fn key(&self) -> LabelKey {
        // No label is empty: the root group keeps the default key.
        let base = if self.prefix.is_empty() {
            LabelKey::default()
        } else {
            LabelPath::new(self.prefix.clone()).key()
        };
        match self.range {
            None => base,
            Some((lo, hi)) => LabelKey(
                base.0 ^ (u64::from(lo) << 32 | u64::from(hi)).wrapping_mul(0x9e37_79b9_7f4a_7c15),
            ),
        }
    }

    /// The parts one level down: by the next index of the label (a node whose label is the
    /// prefix itself stands alone); too many become ranges; a single part opens further.
    fn split(&self, paths: &[std::rc::Rc<[u32]>]) -> Vec<Part> {
        let mut prefix = self.prefix.clone();
        let mut members = self.members.clone();
        loop {
            let level = prefix.len();
            let mut by: std::collections::BTreeMap<u32, Vec<usize>> =
                std::collections::BTreeMap::new();
            let mut alone = Vec::new();
            for &i in &members {
                match paths[i].get(level) {
                    Some(&x) => by.entry(x).or_default().push(i),
                    None => alone.push(i),
                }
            }
            // One part and nothing alone: go down a level (a chain of single steps).
            if alone.is_empty() && by.len() == 1 {
                if let Some((x, ms)) = by.pop_first() {
                    prefix.push(x);
                    members = ms;
                    if prefix.len() >= 64 {
                        return members
                            .into_iter()
                            .map(|i| Part {
                                prefix: paths[i].to_vec(),
                                range: None,
                                members: vec![i],
                            })
                            .collect();
                    }
                    continue;
                }
            }
            let mut out: Vec<Part> = alone
                .into_iter()
                .map(|i| Part {
                    prefix: paths[i].to_vec(),
                    range: None,
                    members: vec![i],
                })
                .collect();
            let groups: Vec<(u32, Vec<usize>)> = by.into_iter().collect();
            if groups.len() <= RANGES + 2 || self.range.is_some() && groups.len() <= 2 * RANGES {
                for (x, ms) in groups {
                    let mut p = prefix.clone();
                    p.push(x);
                    out.push(Part {
                        prefix: p,
                        range: None,
                        members: ms,
                    });
                }
            } else {
                let per = groups.len().div_ceil(RANGES);
                for chunk in groups.chunks(per) {
                    let (lo, hi) = (chunk[0].0, chunk[chunk.len() - 1].0);
                    let ms: Vec<usize> = chunk
                        .iter()
                        .flat_map(|(_, ms)| ms.iter().copied())
                        .collect();
                    if chunk.len() == 1 {
                        let mut p = prefix.clone();
                        p.push(lo);
                        out.push(Part {
                            prefix: p,
                            range: None,
                            members: ms,
                        });
                    } else {
                        out.push(Part {
                            prefix: prefix.clone(),
                            range: Some((lo, hi)),
                            members: ms,
                        });
                    }
                }
            }
            return out;
        }
    }
}

/// The kind a group shows: what most needs attention among its members.
fn more_urgent(a: Kind, b: Kind) -> Kind {
    let rank = |k: Kind| match k {
        Kind::Steppable(_) => 4,
        Kind::Stuck => 3,
        Kind::Pending => 2,
        Kind::Waiting => 1,
        Kind::Value => 0,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

impl Graph {
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
        let mut fwd: Vec<Vec<usize>> = vec![Vec::new(); self.nodes.len()];
        let mut back: Vec<Vec<usize>> = vec![Vec::new(); self.nodes.len()];
        for &(a, b) in &self.edges {
            fwd[a].push(b);
            back[b].push(a);
        }
        for adj in [&fwd, &back] {
            let mut stack = vec![i];
            let mut seen = HashSet::from([i]);
            while let Some(n) = stack.pop() {
                for &to in &adj[n] {
                    if seen.insert(to) {
                        stack.push(to);
                        out.insert(to);
                    }
                }
            }
        }
        out
    }

    /// Graphviz DOT, coloured by status; `text` gives a node's lines.
    pub fn to_dot(&self, text: impl Fn(&Node) -> String) -> String {
        let mut out = String::from("digraph opal {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontname=\"monospace\"];\n");
        for n in &self.nodes {
            let style = if n.call.is_some_and(|c| c.queued()) {
                ", style=\"rounded,filled,dashed\""
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "  \"{}\" [label=\"{}\\n{}\", fillcolor=\"{}\"{style}];",
                esc(&n.label),
                esc(&n.label),
                esc(&text(n)),
                kind_hex(n.kind)
            );
        }
        for &(a, b) in &self.edges {
            let style = if self.ordering.contains(&(a, b)) {
                " [style=dashed, label=\"order\"]"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "  \"{}\" -> \"{}\"{style};",
                esc(&self.nodes[a].label),
                esc(&self.nodes[b].label)
            );
        }
        out.push_str("}\n");
        out
    }
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Fill colours by status (the window, DOT and SVG exports use the same).
pub fn kind_rgb(k: Kind) -> [u8; 3] {
    match k {
        Kind::Steppable(_) => [0x9b, 0xe0, 0x9b],
        Kind::Pending => [0xff, 0xc0, 0x66],
        Kind::Waiting => [0xd8, 0xd8, 0xd8],
        Kind::Value => [0xa8, 0xcc, 0xf0],
        Kind::Stuck => [0xf0, 0x90, 0x90],
    }
}

pub fn kind_hex(k: Kind) -> String {
    let [r, g, b] = kind_rgb(k);
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn kind_word(k: Kind) -> &'static str {
    match k {
        Kind::Steppable(_) => "steppable",
        Kind::Value => "values",
        Kind::Waiting => "waiting",
        Kind::Pending => "pending",
        Kind::Stuck => "stuck",
    }
}
