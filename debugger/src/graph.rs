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

use crate::session::{kind_of, Kind, Session};
use opal_core::machine::label::LabelKey;
use opal_core::machine::{MOp, StmtId};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

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
}

/// How many ancestors a node records for placing new nodes.
const PARENTS: usize = 4;

impl Session {
    fn parents_of(&self, s: StmtId) -> Vec<LabelKey> {
        let st = &self.current;
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
        let st = &self.current;
        let m = &st.machine;
        let mut nodes = Vec::new();
        let mut sources: Vec<Vec<LabelKey>> = Vec::new();
        for s in m.iter() {
            let op = m.stmt(s).op;
            let kind = kind_of(m, s);
            let key = st.key(s);
            let (node, deps) = match op {
                MOp::Call(f, x) => {
                    let ext = match m.binder(f).map(|b| m.stmt(b).op) {
                        Some(MOp::Prim(p)) => match m.prim(p) {
                            opal_core::ir::Prim::Ext(e) => e.clone(),
                            _ => continue,
                        },
                        _ => continue,
                    };
                    if !show_pure && self.env.host.is_pure(&ext) {
                        continue;
                    }
                    let ready = kind == Kind::Steppable(opal_core::machine::Rule::Dispatch);
                    let arg = m.readback(x, opal_core::machine::readback::Budget::VIEW);
                    let detail = match m.status(s) {
                        _ if ready => "ready to dispatch".to_string(),
                        opal_core::machine::Status::Waiting { on: Some(v), .. } => format!("waits for `{}`", st.name(v)),
                        opal_core::machine::Status::Stuck(why) => format!("stuck: {why}"),
                        _ => "queued".to_string(),
                    };
                    let mut deps = Vec::new();
                    st.sources_of(x, &mut deps);
                    let deps = deps.iter().filter_map(|&d| st.calls.get(d).map(|c| c.key)).collect();
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
                    (node, deps)
                }
                MOp::Task(t) => {
                    let task = &m.tasks[t.0 as usize];
                    if !show_pure && self.env.host.is_pure(&task.ext) {
                        continue;
                    }
                    let call = st.call_index(key).and_then(|i| st.calls.get(i));
                    let streamed = call.map(|c| c.streamed()).unwrap_or_default();
                    let (state, detail) = match kind {
                        Kind::Steppable(_) => (CallState::Arrived, "arrived: resolve it".to_string()),
                        Kind::Stuck => (CallState::Failed, self.row(s).status),
                        _ if !streamed.is_empty() => (CallState::Streaming, format!("streamed: {streamed} + …")),
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
                    (node, call.map(|c| c.deps.clone()).unwrap_or_default())
                }
                _ => continue,
            };
            nodes.push(node);
            sources.push(deps);
        }
        let index: HashMap<LabelKey, usize> = nodes.iter().enumerate().map(|(i, n)| (n.key, i)).collect();
        let mut edges = Vec::new();
        for (to, deps) in sources.iter().enumerate() {
            for d in deps {
                if let Some(&from) = index.get(d) {
                    if from != to && !edges.contains(&(from, to)) {
                        edges.push((from, to));
                    }
                }
            }
        }
        Graph { nodes, edges }
    }

    /// Every top-level statement, def-use edges; the environment (`0.…`) only if `prelude`.
    pub fn statement_graph(&self, prelude: bool) -> Graph {
        let st = &self.current;
        let m = &st.machine;
        let mut index = HashMap::new();
        let mut nodes = Vec::new();
        let mut stmts = Vec::new();
        for s in m.iter() {
            let label = st.short(s);
            if !prelude && label.starts_with("0.") {
                continue;
            }
            index.insert(s, nodes.len());
            stmts.push(s);
            nodes.push(Node {
                key: st.key(s),
                stmt: Some(s),
                label,
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

    /// `g` with groups folded so that at most about `max` nodes remain: nodes whose labels
    /// share a parent `ℓ` fold into one node for `ℓ`, deepest first, level by level; groups
    /// in `open` and those holding a node in `hot` (where the last step happened) stay open.
    pub fn grouped(&self, g: &Graph, max: usize, open: &HashSet<LabelKey>, hot: &HashSet<LabelKey>) -> Graph {
        if g.nodes.len() <= max {
            return g.clone();
        }
        let st = &self.current;
        let m = &st.machine;
        let mut memo = st.memo.0.borrow_mut();
        // Each node's current representative: a label id, and whether it may fold further.
        let mut rep: Vec<(Option<opal_core::machine::label::LabelId>, bool)> = g
            .nodes
            .iter()
            .map(|n| match n.stmt {
                Some(s) if st.machine.stmts.get(s.0 as usize).is_some_and(|x| x.is_alive()) => (Some(m.label_id(s)), !hot.contains(&n.key)),
                _ => (None, false),
            })
            .collect();
        let count = |rep: &[(Option<opal_core::machine::label::LabelId>, bool)]| {
            let mut seen = HashSet::new();
            rep.iter().enumerate().filter(|(i, (l, _))| seen.insert(l.map(|l| l.0 as i64).unwrap_or(-1 - *i as i64))).count()
        };
        // Fold the deepest level first: each round lifts the deepest foldable nodes one level.
        for _ in 0..64 {
            if count(&rep) <= max {
                break;
            }
            let deepest = rep.iter().filter(|(l, f)| *f && l.is_some()).filter_map(|(l, _)| l.map(|l| memo.depth(&m.labels, l))).max();
            let Some(d) = deepest.filter(|&d| d > 1) else { break };
            let mut lifted = false;
            for (l, f) in rep.iter_mut() {
                let Some(cur) = *l else { continue };
                if !*f || memo.depth(&m.labels, cur) != d {
                    continue;
                }
                match m.labels.parent(cur) {
                    Some(p) if !open.contains(&memo.key(&m.labels, p)) => {
                        *l = Some(p);
                        lifted = true;
                    }
                    _ => *f = false,
                }
            }
            if !lifted {
                break;
            }
        }
        // Build the folded graph: one node per representative.
        let mut out = Graph::default();
        let mut of_rep: HashMap<i64, usize> = HashMap::new();
        let mut node_of = vec![0usize; g.nodes.len()];
        for (i, n) in g.nodes.iter().enumerate() {
            let own = n.stmt.map(|s| m.label_id(s));
            let l = match rep[i].0 {
                Some(l) if Some(l) != own => l,
                _ => {
                    node_of[i] = out.nodes.len();
                    out.nodes.push(n.clone());
                    continue;
                }
            };
            let id = l.0 as i64;
            let j = *of_rep.entry(id).or_insert_with(|| {
                let key = memo.key(&m.labels, l);
                let mut parents = Vec::new();
                let mut p = l;
                while parents.len() < PARENTS {
                    let Some(q) = m.labels.parent(p) else { break };
                    parents.push(memo.key(&m.labels, q));
                    p = q;
                }
                out.nodes.push(Node {
                    key,
                    stmt: None,
                    label: format!("{}.…", memo.short(&m.labels, l)),
                    title: String::new(),
                    detail: String::new(),
                    kind: Kind::Value,
                    call: None,
                    members: 0,
                    line: n.line,
                    parents,
                });
                out.nodes.len() - 1
            });
            node_of[i] = j;
            let group = &mut out.nodes[j];
            group.members += n.members;
            group.kind = more_urgent(group.kind, n.kind);
        }
        for group in out.nodes.iter_mut().filter(|n| n.stmt.is_none()) {
            group.title = format!("{} statements", group.members);
            group.detail = "click to open".into();
        }
        let mut seen = HashSet::new();
        for &(a, b) in &g.edges {
            let (a, b) = (node_of[a], node_of[b]);
            if a != b && seen.insert((a, b)) {
                out.edges.push((a, b));
            }
        }
        out
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
            let style = if n.call.is_some_and(|c| c.queued()) { ", style=\"rounded,filled,dashed\"" } else { "" };
            let _ = writeln!(out, "  \"{}\" [label=\"{}\\n{}\", fillcolor=\"{}\"{style}];", esc(&n.label), esc(&n.label), esc(&text(n)), kind_hex(n.kind));
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
