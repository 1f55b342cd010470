//! Exploring step orders (`opal explore`, the debugger's all-paths view, confluence tests).
//!
//! A task is resolved at its dispatch (resolving is still its own step): pure externals are
//! computed, a world file gives its reply, and a nondeterministic external (`coin`, a world
//! file's `choices`) branches: one successor per possible result. Normal forms are reported
//! per choice sequence; two different normal forms for the same choices would be a
//! confluence violation.
//!
//! **Partial-order reduction.** By strong confluence (paper Prop. 3.5), two different
//! steppable statements commute and stepping one never disables the other: the diamond
//! property. So from any state a single steppable statement is a persistent set: every
//! interleaving is equivalent to one that steps it first, and (random descent) every maximal
//! path from a term has the same length and ends in the same normal form. The reduced
//! exploration therefore follows one order, branching only on nondeterministic results, and
//! finds exactly the normal forms of the full one (a property test checks this on generated
//! programs). The full exploration (`Mode::Full`, every interleaving, breadth first) is kept
//! for teaching: it draws the diamonds.

use super::run::{eval_pure, Host};
use super::{Machine, Outcome, Rule, StmtId, TaskId};
use crate::diag::Clip;
use crate::ir::PExp;
use crate::world::{Reply, World};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// One order per equivalence class (see the module's doc).
    Reduced,
    /// Every interleaving.
    Full,
}

/// The results a nondeterministic call took, by the label of its statement.
pub type Choices = BTreeMap<String, String>;

#[derive(Clone, Debug, PartialEq)]
pub struct NormalForm {
    /// The final term (environment hidden).
    pub term: String,
    pub choices: Choices,
    /// Why the term is stuck rather than a normal form (failed tasks, statements that can
    /// never step), one line each; empty for a normal form.
    pub stuck: Vec<String>,
}

/// A state of the reduction graph.
#[derive(Clone, Debug, PartialEq)]
pub struct StateNode {
    /// The term (environment hidden).
    pub term: String,
    pub normal: bool,
}

/// A step of the reduction graph: `from` to `to` by `rule` at `label`; at a dispatch of a
/// nondeterministic external, `choice` is the result taken.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub rule: Rule,
    pub label: super::label::LabelPath,
    /// The name the program gave the statement's variable, as the term prints it
    /// (`city@5.6.6`); `None` for the desugarer's temporaries, which views show by `label`.
    pub name: Option<String>,
    pub choice: Option<String>,
    /// At a dispatch: the external and what was delivered, as a trace event writes it
    /// (result, partial, error), so a debugger can take the same path.
    pub delivered: Option<(String, String, bool, Option<String>)>,
}

#[derive(Clone, Debug, Default)]
pub struct Explored {
    pub states: usize,
    pub normal_forms: Vec<NormalForm>,
    /// Stopped at the state budget: what was found is a lower bound.
    pub truncated: bool,
    /// The reduction graph (states, steps), if asked for.
    pub graph: Vec<StateNode>,
    pub edges: Vec<Edge>,
}

impl Explored {
    /// Choice sequences that led to more than one normal form (a confluence violation).
    pub fn violations(&self) -> Vec<&Choices> {
        let mut by: BTreeMap<&Choices, Vec<&str>> = BTreeMap::new();
        for nf in &self.normal_forms {
            let v = by.entry(&nf.choices).or_default();
            if !v.contains(&nf.term.as_str()) {
                v.push(&nf.term);
            }
        }
        by.into_iter()
            .filter(|(_, v)| v.len() > 1)
            .map(|(c, _)| c)
            .collect()
    }

    /// The reduction graph in Graphviz DOT: states as nodes (normal forms doubled), steps as
    /// edges labelled with the rule and the statement's label.
    pub fn to_dot(&self) -> String {
        use std::fmt::Write;
        let esc = |s: &str| {
            s.replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\l")
        };
        let mut out = String::from(
            "digraph reductions {\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n",
        );
        for (i, s) in self.graph.iter().enumerate() {
            let shape = if s.normal { ", peripheries=2" } else { "" };
            let _ = writeln!(out, "  s{i} [label=\"{}\"{shape}];", esc(&s.term));
        }
        for e in &self.edges {
            let choice = e
                .choice
                .as_ref()
                .map(|c| format!(" → {c}"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  s{} -> s{} [label=\"{} {}{}\"];",
                e.from,
                e.to,
                e.rule.name(),
                e.label,
                esc(&choice)
            );
        }
        out.push_str("}\n");
        out
    }
}

/// How to explore.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub mode: Mode,
    pub max_states: usize,
    /// Keep the reduction graph (`Explored::graph`, `edges`).
    pub graph: bool,
}

/// The fixed resolution of a task, computed without waiting (the first of several choices).
pub fn resolve_now(host: &mut Host, ext: &str, arg: &PExp) -> Outcome {
    resolutions(host, ext, arg)
        .into_iter()
        .next()
        .map(|(_, o)| o)
        .unwrap_or_else(|| Outcome::Failed(format!("`{ext}` has no result")))
}

/// Every result a call may resolve to, each with the choice it stands for when there are
/// several (`coin` → `true`, `false`; a world file's `choices`).
pub fn resolutions(host: &mut Host, ext: &str, arg: &PExp) -> Vec<(Option<String>, Outcome)> {
    let compile = |host: &mut Host, src: &str| {
        host.compile_result(src)
            .unwrap_or_else(|e| Outcome::Failed(e.to_string()))
    };
    if let Some(w) = host.world.as_ref().and_then(|w| w.get_shared(ext)) {
        if !w.choices.is_empty() && w.responses.is_empty() && w.default.is_none() {
            return w
                .choices
                .iter()
                .map(|c| (Some(c.clone()), compile(host, c)))
                .collect();
        }
        let o = match w.reply(arg) {
            Some((Reply::Result(src), _)) => compile(host, &src),
            Some((Reply::Stream(chunks, _), _)) => Outcome::Partial {
                items: chunks
                    .iter()
                    .map(|c| crate::ir::Prim::Str(Arc::from(c.as_str())))
                    .collect(),
                more: false,
            },
            None => Outcome::Failed(format!(
                "no world response for `{ext}` {arg}",
                arg = Clip(arg)
            )),
        };
        return vec![(None, o)];
    }
    match ext {
        "coin" => ["true", "false"]
            .iter()
            .map(|c| (Some(c.to_string()), compile(host, c)))
            .collect(),
        "sleep" => vec![(None, compile(host, "()"))],
        // Exploring has no clock: `now ()` is 0 on every path, so orders compare equal.
        "now" => vec![(None, Outcome::Value(crate::ir::Prim::Float(0.0)))],
        // Files, HTTP, `llm`, processes: what they answer depends on the world outside.
        _ if crate::externals::standard(ext)
            .is_some_and(|d| d.kind != crate::externals::ExtKind::Pure) =>
        {
            vec![(
                None,
                Outcome::Failed(format!(
                    "`{ext}` touches the world outside the program: exploring answers it only \
                     from a world file (add a `[{ext}]` table with its responses)"
                )),
            )]
        }
        _ => vec![(
            None,
            eval_pure(ext, arg, &mut |_, _| {}, tokio::time::Instant::now())
                .unwrap_or_else(|e| Outcome::Failed(e.to_string())),
        )],
    }
}

/// Steps `s` and, on dispatch, delivers the task's fixed resolution.
pub fn step_resolving(m: &mut Machine, host: &mut Host, s: StmtId) -> Option<super::StepEvent> {
    let ev = m.step(s)?;
    if ev.rule == Rule::Dispatch {
        if let Some(t) = ev.task {
            deliver_now(m, host, t);
        }
    }
    Some(ev)
}

pub fn deliver_now(m: &mut Machine, host: &mut Host, t: TaskId) {
    let (ext, arg) = (m.tasks[t].ext.clone(), m.tasks[t].arg.clone());
    let o = resolve_now(host, &ext, &arg);
    m.deliver(t, o, 0.0);
}

pub fn steppable(m: &Machine) -> Vec<StmtId> {
    m.iter().filter(|s| m.steppable(*s).is_ok()).collect()
}

/// What a dispatch delivered, as a trace event writes it: (external, result, partial, error).
type Delivered = Option<(String, String, bool, Option<String>)>;

/// The successors of `m` by stepping `s`: one, or one per result of a nondeterministic call
/// (with the result's text).
type Successor = (
    Machine,
    Rule,
    Option<String>,
    Option<(String, String, bool, Option<String>)>,
);

fn successors(m: &Machine, host: &mut Host, s: StmtId) -> Vec<Successor> {
    let mut next = m.clone();
    let Some(ev) = next.step(s) else {
        return vec![];
    };
    let Some(t) = ev.task.filter(|_| ev.rule == Rule::Dispatch) else {
        return vec![(next, ev.rule, None, None)];
    };
    let (ext, arg) = (next.tasks[t].ext.clone(), next.tasks[t].arg.clone());
    let mut outcomes = resolutions(host, &ext, &arg);
    let record = |o: &Outcome| {
        let (r, p, e) = super::run::outcome_record(o);
        Some((ext.to_string(), r, p, e))
    };
    let last = outcomes.pop();
    let mut out: Vec<Successor> = outcomes
        .into_iter()
        .map(|(choice, o)| {
            let mut m2 = next.clone();
            let rec = record(&o);
            m2.deliver(t, o, 0.0);
            (m2, ev.rule, choice, rec)
        })
        .collect();
    if let Some((choice, o)) = last {
        let rec = record(&o);
        next.deliver(t, o, 0.0);
        out.push((next, ev.rule, choice, rec));
    }
    out
}

/// The key of state `m`: its printed term (with the environment) and the results delivered
/// to its tasks (`coin`'s two results must not merge although the task prints the same),
/// hashed, so the seen set costs 16 bytes a state whatever the term's size.
fn state_key(m: &Machine) -> [u8; 16] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(m.print_term(true).as_bytes());
    for s in m.iter() {
        if let super::MOp::Task(t) = m.stmt(s).op {
            if let Some(o) = &m.tasks[t].outcome {
                let (res, partial, err) = super::run::outcome_record(o);
                h.update(format!("\n{} = {res} {partial} {err:?}", m.label_of(s)).as_bytes());
            }
        }
    }
    let d = h.finalize();
    let mut k = [0u8; 16];
    k.copy_from_slice(&d[..16]);
    k
}

/// The index of state `m`, added if new; whether it was new.
fn state_of(
    seen: &mut HashMap<[u8; 16], usize>,
    r: &mut Explored,
    m: &Machine,
    graph: bool,
) -> (usize, bool) {
    let key = state_key(m);
    if let Some(&i) = seen.get(&key) {
        return (i, false);
    }
    let i = seen.len();
    seen.insert(key, i);
    if graph {
        r.graph.push(StateNode {
            term: m.print_term_named(false),
            normal: false,
        });
    }
    (i, true)
}

/// A state with nothing steppable: a normal form, or a stuck term (a failed task, a statement
/// that can never step) with why.
fn final_state(m: &Machine, choices: Choices) -> NormalForm {
    let stuck: Vec<String> = m
        .iter()
        .filter_map(|s| match m.status(s) {
            super::Status::Stuck(why) => Some(format!("{}: {why}", m.label_of(s))),
            super::Status::Pending => {
                Some(format!("{}: a task that never resolves", m.label_of(s)))
            }
            _ => None,
        })
        .collect();
    NormalForm {
        term: m.print_term(false),
        choices,
        stuck,
    }
}

pub fn explore(start: &Machine, world: Option<World>, opts: Options) -> Explored {
    match opts.mode {
        Mode::Full => explore_full(start, world, opts),
        Mode::Reduced => explore_reduced(start, world, opts),
    }
}

/// The name the program gave statement `s`'s variable, if it gave one.
fn program_name(m: &Machine, s: StmtId) -> Option<String> {
    let v = m.stmts[s].bind;
    (!m.source_names(v).is_empty()).then(|| m.shown_name(v))
}

/// Every interleaving, breadth first; states merged by their key.
fn explore_full(start: &Machine, world: Option<World>, opts: Options) -> Explored {
    let mut host = Host::new(world, false).declaring(start);
    let mut r = Explored::default();
    let mut seen: HashMap<[u8; 16], usize> = HashMap::new();
    let (root, _) = state_of(&mut seen, &mut r, start, opts.graph);
    let mut work: VecDeque<(Machine, usize, Choices)> =
        VecDeque::from([(start.clone(), root, Choices::new())]);
    loop {
        if seen.len() > opts.max_states {
            r.truncated = true;
            break;
        }
        let Some((m, id, choices)) = work.pop_front() else {
            break;
        };
        let cands = steppable(&m);
        if cands.is_empty() {
            if let Some(s) = r.graph.get_mut(id) {
                s.normal = true;
            }
            let nf = final_state(&m, choices);
            if !r.normal_forms.contains(&nf) {
                r.normal_forms.push(nf);
            }
            continue;
        }
        for &s in &cands {
            let label = m.label_path(s);
            let name = program_name(&m, s);
            for (next, rule, choice, delivered) in successors(&m, &mut host, s) {
                let (to, new) = state_of(&mut seen, &mut r, &next, opts.graph);
                if opts.graph {
                    r.edges.push(Edge {
                        from: id,
                        to,
                        rule,
                        label: label.clone(),
                        name: name.clone(),
                        choice: choice.clone(),
                        delivered,
                    });
                }
                if new {
                    let mut ch = choices.clone();
                    if let Some(c) = choice {
                        ch.insert(label.to_string(), c);
                    }
                    work.push_back((next, to, ch));
                }
            }
        }
    }
    r.states = seen.len();
    r
}

/// One order per equivalence class (see the module's doc): each path steps the first
/// steppable statement, in place, and copies the term only where a nondeterministic result
/// branches. A path never meets one of its own states again (every step removes its
/// statement or deepens its label), so states are not keyed: a long or divergent path costs
/// O(term) a step, not O(states × term).
fn explore_reduced(start: &Machine, world: Option<World>, opts: Options) -> Explored {
    let mut host = Host::new(world, false).declaring(start);
    let mut r = Explored::default();
    let mut states = 1usize;
    if opts.graph {
        r.graph.push(StateNode {
            term: start.print_term_named(false),
            normal: false,
        });
    }
    let mut work: Vec<(Machine, usize, Choices)> = vec![(start.clone(), 0, Choices::new())];
    'paths: while let Some((mut m, mut id, mut choices)) = work.pop() {
        loop {
            if states > opts.max_states {
                r.truncated = true;
                break 'paths;
            }
            let Some(s) = m.iter().find(|s| m.steppable(*s).is_ok()) else {
                if let Some(st) = r.graph.get_mut(id) {
                    st.normal = true;
                }
                let nf = final_state(&m, choices);
                if !r.normal_forms.contains(&nf) {
                    r.normal_forms.push(nf);
                }
                continue 'paths;
            };
            let label = m.label_path(s);
            let name = program_name(&m, s);
            let Some(ev) = m.step(s) else { continue 'paths };
            let (choice, delivered, branches) = match (ev.rule, ev.task) {
                (Rule::Dispatch, Some(t)) => deliver_or_branch(&mut host, &mut m, t),
                _ => (None, None, Vec::new()),
            };
            let edge = |r: &mut Explored,
                        states: &mut usize,
                        choice: Option<String>,
                        delivered,
                        term: &Machine| {
                let to = *states;
                *states += 1;
                if opts.graph {
                    r.graph.push(StateNode {
                        term: term.print_term_named(false),
                        normal: false,
                    });
                    r.edges.push(Edge {
                        from: id,
                        to,
                        rule: ev.rule,
                        label: label.clone(),
                        name: name.clone(),
                        choice,
                        delivered,
                    });
                }
                to
            };
            for (c, rec, other) in branches {
                let to = edge(&mut r, &mut states, c.clone(), rec, &other);
                let mut ch = choices.clone();
                if let Some(c) = c {
                    ch.insert(label.to_string(), c);
                }
                work.push((other, to, ch));
            }
            let to = edge(&mut r, &mut states, choice.clone(), delivered, &m);
            if let Some(c) = choice {
                choices.insert(label.to_string(), c);
            }
            id = to;
        }
    }
    r.states = states;
    r
}

/// Another path from a dispatch: the choice that led to it, what was delivered, the state.
type Branch = (Option<String>, Delivered, Machine);

/// A freshly dispatched task's resolutions: the first is delivered to `m`, which continues
/// the path (its choice and delivery are returned); each other one is delivered to a copy of
/// `m`, a path of its own.
fn deliver_or_branch(
    host: &mut Host,
    m: &mut Machine,
    t: TaskId,
) -> (Option<String>, Delivered, Vec<Branch>) {
    let (ext, arg) = (m.tasks[t].ext.clone(), m.tasks[t].arg.clone());
    let mut outcomes = resolutions(host, &ext, &arg);
    let record = |o: &Outcome| {
        let (res, p, e) = super::run::outcome_record(o);
        Some((ext.to_string(), res, p, e))
    };
    let first = if outcomes.is_empty() {
        None
    } else {
        Some(outcomes.remove(0))
    };
    let mut branches = Vec::new();
    for (c, o) in outcomes {
        let mut other = m.clone();
        let rec = record(&o);
        other.deliver(t, o, 0.0);
        branches.push((c, rec, other));
    }
    match first {
        Some((c, o)) => {
            let delivered = record(&o);
            m.deliver(t, o, 0.0);
            (c, delivered, branches)
        }
        None => (None, None, branches),
    }
}
