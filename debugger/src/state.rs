//! The state of a session as the action log makes it: the machine with the calls it made,
//! their streams and the call graph's origins, and how one `Action` changes it (`Env::apply`).
//! Views, history and jobs build on this; it knows nothing of them.

use crate::kind::{kind_of, Kind, RowStatus};
use crate::names::parameter_pattern;
use crate::timeline::Call;
use opal_core::diag::Diagnostic;
use opal_core::machine::explore::resolve_now;
use opal_core::machine::label::{LabelKey, LabelMemo, LabelPath};
use opal_core::machine::readback::{Budget, Value};
use opal_core::machine::run::{eval_pure, outcome_record, Host};
use opal_core::machine::{
    Lazy, MOp, Machine, Outcome, Rule, Status, StepEvent, StmtId, TaskId, VarId,
};
use opal_core::span::LineIndex;
use opal_core::world::{Reply, World};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::HashMap;

/// Where a resolution came from.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum By {
    Hand,
    World,
    Trace,
    /// A live external (`llm`, a process) answered.
    Live,
}

/// One thing the user did. A session is a list of these.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// Step the statement labeled `label` (clicked). `strategy` is kept for session files
    /// written before cbv and lazy steps had actions of their own.
    Step {
        label: LabelPath,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strategy: Option<String>,
        #[serde(default)]
        at_ms: f64,
    },
    /// One opportunistic round: every statement steppable at its start steps.
    Round {
        #[serde(default)]
        at_ms: f64,
    },
    /// One call-by-value step (the statement cbv chooses when the action applies).
    Cbv {
        #[serde(default)]
        at_ms: f64,
    },
    /// One lazy step.
    Lazy {
        #[serde(default)]
        at_ms: f64,
    },
    /// Deliver a result to the pending task labeled `label`, as a trace event writes it.
    Resolve {
        label: LabelPath,
        by: By,
        result: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        partial: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        #[serde(default)]
        at_ms: f64,
        /// The call it answered (`ext arg`), filled in when the action is first taken: a
        /// replay (after the program changed) refuses to give this answer to another call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call: Option<String>,
    },
    /// Several answers given at once (every pending task from the world file or the trace):
    /// one step of the history, given all or none.
    Resolves { resolves: Vec<Action> },
}

impl Action {
    /// The answers this action gives: a batch's, or the action itself.
    pub(crate) fn answers(&self) -> &[Action] {
        match self {
            Action::Resolves { resolves } => resolves,
            one => std::slice::from_ref(one),
        }
    }

    /// [`Action::answers`], to fill in.
    pub(crate) fn answers_mut(&mut self) -> &mut [Action] {
        match self {
            Action::Resolves { resolves } => resolves,
            one => std::slice::from_mut(one),
        }
    }
}

/// One run of a source statement: the line it was written on and the label of the call that
/// put it there (`LabelKey::default()` at the top level). A loop's body runs once per
/// iteration; a breakpoint stops once per run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instance {
    pub line: usize,
    pub call: LabelKey,
}

/// A step taken: the rule and where it applied.
#[derive(Clone, Debug, PartialEq)]
pub struct Taken {
    pub rule: Rule,
    pub key: LabelKey,
    pub label: String,
    /// The source line of the statement that stepped.
    pub line: Option<usize>,
    /// The run of a source statement this step was part of, if the program wrote the
    /// statement there (not a prelude body or a result that replaced one).
    pub run: Option<Instance>,
    /// The statements the step put in its place (`ℓ.1 …`; the same label for dispatch).
    pub created: Vec<LabelKey>,
    /// A dispatch of an external that resolves at once (`print`, `add`): not a call to wait for.
    pub pure: bool,
}

/// Label facts for views; a copy of the state starts with an empty memo (it refills in O(1)
/// per label on use), so checkpoints do not carry it.
#[derive(Default)]
pub(crate) struct Memo(pub RefCell<LabelMemo>);

impl Clone for Memo {
    fn clone(&self) -> Memo {
        Memo::default()
    }
}

/// No call made this statement (`State::origin`).
const NO_CALL: u32 = u32::MAX;

#[derive(Clone)]
pub(crate) struct State {
    pub machine: Machine,
    pub output: String,
    pub calls: Vec<Call>,
    /// A stream's pending continuation task → the index of its call.
    pub streams: HashMap<LabelKey, usize>,
    /// For each statement slot, the call whose result made it (directly, or by calling a
    /// function that a result made): how a later call's argument is traced to the calls it
    /// depends on (the call graph's edges).
    pub origin: Vec<u32>,
    /// The steps of the last action (for the source highlight, the graph, the stepper).
    pub last: Vec<Taken>,
    pub memo: Memo,
    /// Iteration marks of the program's names (`city#2`), shared by every copy of the state
    /// so a mark stays the same through time travel (`names.rs`).
    pub marks: crate::names::Marks,
    /// Keep `last` (a confluence run does not: it takes up to the step budget at once).
    pub record: bool,
    /// Where each call that reduce-call inlined was written (for a debugger's stack frames:
    /// a statement `ℓ.i` was put there by the call at `ℓ`).
    pub sites: HashMap<LabelKey, Option<usize>>,
    /// The last values of the program's variables that reduce-gc took out of the term, by
    /// (the label they were freshened at, their source name): a debugger still shows `city`
    /// in the loop body after its last use.
    pub collected: HashMap<(LabelKey, String), Collected>,
    /// The labels of the calls of prelude functions reduce-call inlined, each with the call
    /// as views showed it (`map (fun x: …, scored#1)`): what runs under one is the prelude's
    /// machinery (`Session::is_machinery`), and a program variable it computes reads as that
    /// call (`State::running_call`).
    pub library: HashMap<LabelKey, String>,
}

/// A variable's value as it was when reduce-gc removed its statement.
#[derive(Clone, Debug)]
pub struct Collected {
    pub value: String,
    /// As OPAL source, if it was complete data.
    pub data: Option<String>,
}

/// What applying an action needs besides the state: the program text (for source lines) and
/// the host (world file, pure externals, result compilation).
pub(crate) struct Env {
    pub source: String,
    pub lines: LineIndex,
    pub host: Host,
}

/// Compiles `source`: what applying actions needs, and the initial state; `Err` with the
/// errors if it does not compile.
pub(crate) fn start(
    path: &str,
    source: &str,
    world: Option<World>,
) -> Result<(Env, State), Vec<Diagnostic>> {
    let c = opal_core::compile_file(path, source, world.as_ref());
    if c.has_errors() {
        return Err(c.diags.into_iter().filter(|d| d.is_error()).collect());
    }
    let mut machine = Machine::new(&c.program);
    machine.keep_source_names(&c.program);
    let st = State::new(machine);
    Ok((
        Env {
            source: source.to_string(),
            lines: LineIndex::new(source),
            host: Host::new(world, false).declaring(&st.machine),
        },
        st,
    ))
}

impl State {
    /// The term, one line per statement (the environment, the prelude's machinery and the
    /// temporaries folded into their uses hidden, as in the labeled term), values read back;
    /// at most `rows` statements.
    pub(crate) fn view(&self, rows: usize) -> String {
        let m = &self.machine;
        let mut out = String::new();
        let mut shown = 0;
        for s in m.iter() {
            if self.is_machinery(s) || self.is_folded(s) {
                continue;
            }
            let label = self.short(s);
            if shown == rows {
                let more = m.iter().count().saturating_sub(shown);
                out.push_str(&format!("… (and about {more} more statements)\n"));
                break;
            }
            shown += 1;
            out.push_str(&format!("{label}  {}\n", self.text(s)));
        }
        out.push_str(&format!("ret {}\n", self.readback(m.ret)));
        out
    }

    /// A statement in one line: `x := o`, a function that is a list or a boolean read back.
    /// A program variable a prelude function is still computing reads as that call
    /// (`front#2 := map (…) [running]`), not as the prelude's insides (`l#3 (init#4, each#3)`).
    pub(crate) fn text(&self, s: StmtId) -> String {
        let m = &self.machine;
        if let Some(text) = self.machinery_text(s) {
            return text;
        }
        // The bound variable by its name; the operands with temporaries folded.
        let mut bind_first = true;
        let core = m.stmt_text_with(s, &mut |v| {
            if std::mem::take(&mut bind_first) {
                self.bind_name(v)
            } else {
                self.name(v)
            }
        });
        let bind = m.stmt(s).bind;
        match m.stmt(s).op {
            MOp::Fun(c) => match self.readback(bind) {
                v @ (Value::List(_) | Value::Bool(_)) => format!("{} := {v}", self.bind_name(bind)),
                _ => {
                    let first = core.lines().next().unwrap_or("");
                    let first = match m.closure(c).and_then(|(t, _)| parameter_pattern(t)) {
                        Some(pattern) => format!("{} := fun {pattern}:", self.bind_name(bind)),
                        None => first.to_string(),
                    };
                    first + if core.contains('\n') { " …" } else { "" }
                }
            },
            // A tuple holding lists, booleans or a dictionary reads as data too.
            MOp::Tuple(_) => match self.readback(bind) {
                v if holds_data(&v) => format!("{} := {v}", self.bind_name(bind)),
                _ => core.lines().next().unwrap_or("").to_string(),
            },
            _ => core.lines().next().unwrap_or("").to_string(),
        }
    }

    pub(crate) fn new(machine: Machine) -> State {
        State {
            marks: crate::names::Marks::new(&machine),
            machine,
            output: String::new(),
            calls: Vec::new(),
            streams: HashMap::new(),
            origin: Vec::new(),
            last: Vec::new(),
            memo: Memo::default(),
            record: true,
            sites: HashMap::new(),
            collected: HashMap::new(),
            library: Default::default(),
        }
    }

    pub(crate) fn key(&self, s: StmtId) -> LabelKey {
        self.machine.label_key(&mut self.memo.0.borrow_mut(), s)
    }

    /// The run of a source statement `s` belongs to, if the program wrote `s` where it is:
    /// its line, and the label of the call that put it there (its parent's key;
    /// `LabelKey::default()` at the top level).
    pub(crate) fn run_of(&self, s: StmtId, lines: &LineIndex, source: &str) -> Option<Instance> {
        let m = &self.machine;
        let at = m
            .stmt(s)
            .written_at()
            .filter(|o| (*o as usize) < source.len())?;
        let call = match m.labels.parent(m.label_id(s)) {
            Some(p) => self.memo.0.borrow_mut().key(&m.labels, p),
            None => LabelKey::default(),
        };
        Some(Instance {
            line: lines.line_of(at) + 1,
            call,
        })
    }

    /// Is `s` a call of a function the environment (the prelude) defines?
    fn calls_prelude(&self, s: StmtId) -> bool {
        let m = &self.machine;
        let MOp::Call(f, _) = m.stmt(s).op else {
            return false;
        };
        m.binder(f)
            .is_some_and(|b| self.memo.0.borrow_mut().top(&m.labels, m.label_id(b)) == 0)
    }

    /// Reduce-gc is about to remove `s`: the program's names for its variable keep its value.
    fn keep_collected(&mut self, s: StmtId) {
        let m = &self.machine;
        let v = m.stmt(s).bind;
        let names = m.source_names(v);
        if names.is_empty() {
            return;
        }
        let value = Collected {
            value: m.readback_text(v, Budget::VIEW),
            data: m.data(v, Budget::VIEW).0.ok().map(|d| d.to_string()),
        };
        for n in names {
            let key = if n.fresh == opal_core::machine::label::ROOT {
                LabelKey::default()
            } else {
                self.memo.0.borrow_mut().key(&m.labels, n.fresh)
            };
            self.collected
                .insert((key, n.name.base.to_string()), value.clone());
        }
    }

    /// The live statement labeled `key`.
    pub(crate) fn find(&self, key: LabelKey) -> Option<StmtId> {
        let m = &self.machine;
        let mut memo = self.memo.0.borrow_mut();
        m.iter().find(|s| m.label_key(&mut memo, *s) == key)
    }

    fn origin_of(&self, s: StmtId) -> Option<usize> {
        self.origin
            .get(s.index())
            .copied()
            .filter(|&c| c != NO_CALL)
            .map(|c| c as usize)
    }

    fn set_origin(&mut self, s: StmtId, call: Option<usize>) {
        let i = s.index();
        if self.origin.len() <= i {
            self.origin.resize(i + 1, NO_CALL);
        }
        self.origin[i] = call.map(|c| c as u32).unwrap_or(NO_CALL);
    }

    /// The call that statements created by stepping `s` come from: a reduce-call's new
    /// statements come from the function; a proj's from the statement.
    fn inherited_origin(&self, s: StmtId) -> Option<usize> {
        match self.machine.stmt(s).op {
            MOp::Call(f, _) => self
                .machine
                .binder(f)
                .and_then(|b| self.origin_of(b))
                .or_else(|| self.origin_of(s)),
            _ => self.origin_of(s),
        }
    }

    /// Marks where the statements a step `created` come from: a resolved task's from its call
    /// (found by `key`), any other rule's from `inherit`; a dispatch sets none (its call is
    /// recorded by `record_call`).
    fn set_created_origins(
        &mut self,
        rule: Rule,
        key: LabelKey,
        created: &[StmtId],
        inherit: Option<usize>,
    ) {
        let call = match rule {
            Rule::Resolve => self.call_index(key),
            Rule::Dispatch => return,
            _ => inherit,
        };
        for &c in created {
            self.set_origin(c, call);
        }
    }

    /// A stream's task at `key` resolved: its continuation, if any, now belongs to the
    /// stream's first call.
    fn stream_moves_on(&mut self, ev: &StepEvent, key: LabelKey) {
        if let Some(nt) = self.machine.continuation(ev) {
            let next = self.machine.tasks[nt].stmt;
            let next = self.key(next);
            if let Some(i) = self.call_index(key) {
                self.streams.insert(next, i);
            }
        }
        self.streams.remove(&key);
    }

    /// The call a pending task at `key` belongs to (a stream's continuation belongs to its
    /// first call).
    pub(crate) fn call_index(&self, key: LabelKey) -> Option<usize> {
        self.streams
            .get(&key)
            .copied()
            .or_else(|| self.calls.iter().rposition(|c| c.key == key))
    }

    /// The calls whose results `v`'s value came from, by key: a dispatched call (its task, or
    /// the origin of the statements its value was built of), or a call still queued at the top
    /// level that computes part of it (bounded: a call's argument is small).
    /// The calls the argument `x` of a call to `ext` comes from: by its data, and for an
    /// ordered call (its argument is `(token, data)`) by program order alone.
    pub(crate) fn call_sources(&self, ext: &str, x: VarId) -> (Vec<LabelKey>, Vec<LabelKey>) {
        let (mut data, mut order) = (Vec::new(), Vec::new());
        let m = &self.machine;
        if m.is_ordered(ext) {
            if let Some(MOp::Tuple(xs)) = m.binder(x).map(|b| m.stmt(b).op) {
                if let [tok, v] = m.tuple(xs) {
                    self.sources_of(*v, &mut data);
                    self.sources_of(*tok, &mut order);
                    order.retain(|k| !data.contains(k));
                    return (data, order);
                }
            }
        }
        self.sources_of(x, &mut data);
        (data, order)
    }

    pub(crate) fn sources_of(&self, v: VarId, out: &mut Vec<LabelKey>) {
        let m = &self.machine;
        let push = |k: LabelKey, out: &mut Vec<LabelKey>| {
            if !out.contains(&k) {
                out.push(k);
            }
        };
        // With the projections still to apply: `prj 2 (stdout, city)` depends on `city` alone
        // (following every component made each loop iteration's call depend on the previous
        // iteration's, through the threaded `stdout`).
        let mut stack: Vec<(VarId, Vec<u32>)> = vec![(v, Vec::new())];
        let mut seen = 0;
        while let Some((v, mut path)) = stack.pop() {
            seen += 1;
            if seen > 256 {
                break;
            }
            let Some(b) = m.binder(v) else { continue };
            if let Some(c) = self.origin_of(b).and_then(|c| self.calls.get(c)) {
                push(c.key, out);
            }
            match m.stmt(b).op {
                MOp::Task(_) => {
                    if let Some(c) = self.call_index(self.key(b)).and_then(|c| self.calls.get(c)) {
                        push(c.key, out);
                    }
                }
                // An external call not dispatched yet: its result is what `v` waits for.
                MOp::Call(f, _) if matches!(m.binder(f).map(|fb| m.stmt(fb).op), Some(MOp::Prim(p)) if matches!(m.prim(p), opal_core::ir::Prim::Ext(_))) => {
                    push(self.key(b), out)
                }
                MOp::Tuple(xs) => match path.pop() {
                    Some(i) => match m.tuple(xs).get((i as usize).wrapping_sub(1)) {
                        Some(&x) => stack.push((x, path)),
                        None => stack.extend(m.tuple(xs).iter().map(|&x| (x, Vec::new()))),
                    },
                    None => stack.extend(m.tuple(xs).iter().map(|&x| (x, Vec::new()))),
                },
                MOp::Alias(y) => stack.push((y, path)),
                MOp::Prj(i, y) => {
                    path.push(i);
                    stack.push((y, path));
                }
                MOp::Call(f, x) => {
                    stack.push((x, Vec::new()));
                    stack.push((f, Vec::new()));
                }
                MOp::Prim(_) | MOp::Fun(_) | MOp::Gone => {}
            }
        }
    }
}

/// A partial answer typed by hand: `["Ho", ...]` is `["Ho"]` with the rest still to come.
/// `None` if `src` does not end in `...]`.
pub fn partial_answer(src: &str) -> Option<String> {
    let body = src
        .trim()
        .strip_suffix(']')?
        .trim_end()
        .strip_suffix("...")?
        .trim_end();
    let body = body.strip_suffix(',').unwrap_or(body).trim_end();
    Some(format!("{body}]"))
}

impl Env {
    /// Applies `a` to `st`; what it did in words, or why it cannot be done (then nothing has
    /// changed: every check comes before the first change).
    pub(crate) fn apply(
        &mut self,
        st: &mut State,
        a: &Action,
        position: usize,
    ) -> Result<String, String> {
        st.last.clear();
        match a {
            Action::Step {
                label,
                strategy,
                at_ms,
            } => {
                let s = st
                    .find(label.key())
                    .ok_or_else(|| format!("no statement has label {label} now"))?;
                let (why, _) = RowStatus::of_named(&st.machine, s, &|v| st.name(v));
                if !why.is_steppable() {
                    return Err(format!("{} cannot step: {why}", st.short(s)));
                }
                let short = st.short(s);
                let rule = self
                    .step_in(st, s, position, *at_ms)
                    .ok_or_else(|| format!("{short} cannot step"))?;
                Ok(match strategy {
                    Some(by) => format!("{by}: {} at {short}", rule.name()),
                    None => format!("{} at {short}", rule.name()),
                })
            }
            Action::Cbv { at_ms } => {
                let s = st
                    .machine
                    .cbv_next_mut()
                    .ok_or_else(|| Self::blocked(st, "cbv"))?;
                let short = st.short(s);
                let rule = self
                    .step_in(st, s, position, *at_ms)
                    .ok_or("cbv cannot step")?;
                Ok(format!("cbv: {} at {short}", rule.name()))
            }
            Action::Lazy { at_ms } => self.lazy_step(st, position, *at_ms),
            Action::Round { at_ms } => self.round(st, position, *at_ms),
            Action::Resolves { resolves } => self.resolve_many(st, resolves, position),
            Action::Resolve {
                label,
                by,
                result,
                partial,
                error,
                at_ms,
                call,
            } => {
                let answer = Answer {
                    by: *by,
                    result,
                    partial: *partial,
                    error: error.clone(),
                    at_ms: *at_ms,
                    call: call.as_deref(),
                };
                self.resolve(st, label, answer, position)
            }
        }
    }

    /// One lazy step; when lazy evaluation is done or blocked, why.
    fn lazy_step(&mut self, st: &mut State, position: usize, at_ms: f64) -> Result<String, String> {
        let s = match st.machine.lazy_next_mut() {
            Lazy::Step(s) => s,
            Lazy::Done => {
                // Say why nothing ran: a program whose result is `()` has nothing for
                // lazy evaluation to compute (its prints are not needed).
                let result = st.machine.readback_text(st.machine.ret, Budget::VIEW);
                return Err(format!(
                    "lazy evaluation is done: the result, {result}, is a value, and \
                     lazy computes only what the result needs (prints that nothing \
                     needs do not run; choose opportunistic or call-by-value to run them)"
                ));
            }
            Lazy::Blocked => {
                return Err(
                    "lazy evaluation cannot step: what the result needs is pending or stuck".into(),
                )
            }
        };
        let short = st.short(s);
        let rule = self
            .step_in(st, s, position, at_ms)
            .ok_or("lazy cannot step")?;
        Ok(format!("lazy: {} at {short}", rule.name()))
    }

    /// A round: every steppable statement steps, in label order (so a round's calls and
    /// history read top to bottom).
    fn round(&mut self, st: &mut State, position: usize, at_ms: f64) -> Result<String, String> {
        // In label order, so a round's calls and history read top to bottom.
        let m = &st.machine;
        let all: Vec<StmtId> = m.iter().filter(|s| m.steppable(*s).is_ok()).collect();
        if all.is_empty() {
            return Err(Self::blocked(st, "a round"));
        }
        let mut by_rule: Vec<(Rule, usize)> = Vec::new();
        let mut n = 0;
        for s in all {
            if let Some(r) = self.step_in(st, s, position, at_ms) {
                n += 1;
                match by_rule.iter_mut().find(|(x, _)| *x == r) {
                    Some((_, c)) => *c += 1,
                    None => by_rule.push((r, 1)),
                }
            }
        }
        let parts: Vec<String> = by_rule
            .iter()
            .map(|(r, c)| format!("{c} {}", r.name()))
            .collect();
        Ok(format!("round: {n} steps ({})", parts.join(", ")))
    }

    /// Delivers every answer of `resolves` in order; if one cannot be given, none is.
    fn resolve_many(
        &mut self,
        st: &mut State,
        resolves: &[Action],
        position: usize,
    ) -> Result<String, String> {
        if let Some(a) = resolves
            .iter()
            .find(|a| !matches!(a, Action::Resolve { .. }))
        {
            return Err(format!("only answers can be given together, not {a:?}"));
        }
        // A copy only here, for a key press: rounds and steps check before they change.
        let before = st.clone();
        let mut taken = Vec::new();
        for a in resolves {
            if let Err(e) = self.apply(st, a, position) {
                *st = before;
                return Err(e);
            }
            taken.append(&mut st.last);
        }
        st.last = taken;
        Ok(format!("resolved {} pending tasks", resolves.len()))
    }

    /// Delivers an answer to the pending task at `label`.
    fn resolve(
        &mut self,
        st: &mut State,
        label: &LabelPath,
        answer: Answer<'_>,
        position: usize,
    ) -> Result<String, String> {
        let Answer {
            by,
            result,
            partial,
            error,
            at_ms,
            call,
        } = answer;
        let t = pending_in(st, label)?;
        let now = st.machine.tasks[t].text();
        if let Some(was) = call.as_ref().filter(|was| **was != now) {
            return Err(format!(
                "the task at {label} is now {now}; the answer was given to {was}"
            ));
        }
        let s = st.machine.tasks[t].stmt;
        let key = st.key(s);
        let ext = st.machine.tasks[t].ext.clone();
        let streamed = st.streams.contains_key(&key);
        let outcome = self
            .host
            .outcome_of_record(&ext, streamed, result, partial, error);
        if let (By::Hand, Outcome::Failed(e)) = (by, &outcome) {
            return Err(format!("`{result}` is not a closed OPAL expression: {e}"));
        }
        let failed = matches!(outcome, Outcome::Failed(_));
        let more = matches!(outcome, Outcome::Partial { more: true, .. });
        let chunk = matches!(outcome, Outcome::Partial { .. });
        st.machine.deliver(t, outcome, at_ms);
        if let Some(c) = st.call_index(key).and_then(|i| st.calls.get_mut(i)) {
            if chunk {
                c.chunks.push(result.clone());
            }
            if !more {
                c.resolved_step = Some(position);
                c.resolved_ms = Some(at_ms);
            }
            c.failed |= failed;
        }
        let how = match by {
            By::Hand => format!("by hand: {result}{}", if partial { " + …" } else { "" }),
            By::World if chunk => format!(
                "from the world file: {result}{}",
                if more { " + …" } else { " (the end)" }
            ),
            By::World => "from the world file".into(),
            By::Trace => "from the trace".into(),
            By::Live => "by the live external".into(),
        };
        Ok(format!(
            "delivered to {} {how}{}",
            st.short(s),
            if failed { " (failed)" } else { "" }
        ))
    }

    fn blocked(st: &State, what: &str) -> String {
        let m = &st.machine;
        let pending = m.iter().filter(|s| kind_of(m, *s) == Kind::Pending).count();
        if pending > 0 {
            return format!(
                "{what} cannot step: {pending} pending task{} to resolve first",
                if pending == 1 { "" } else { "s" }
            );
        }
        if m.iter().all(|s| kind_of(m, s) == Kind::Value) {
            return "finished: the term is in normal form".into();
        }
        match what {
            "cbv" => {
                "cbv cannot step: the leftmost statement that is not a value is waiting or stuck"
                    .into()
            }
            _ => "stuck: nothing can step and no task is pending (the red rows say why)".into(),
        }
    }

    /// One step; a pure external's task is resolved at once (its output captured).
    pub(crate) fn step_in(
        &mut self,
        st: &mut State,
        s: StmtId,
        position: usize,
        at_ms: f64,
    ) -> Option<Rule> {
        let mut discard = Vec::new();
        st.machine.take_dirty(&mut discard);
        let key = st.key(s);
        let line = self.line_at(st.machine.stmt(s).source_offset());
        let run = st.run_of(s, &self.lines, &self.source);
        let inherit = st.inherited_origin(s);
        let arg = match st.machine.stmt(s).op {
            MOp::Call(_, x) => Some(x),
            _ => None,
        };
        // What a call to be dispatched depends on, read before the step replaces it.
        let (deps, order) = match (st.machine.steppable(s), arg) {
            (Ok(Rule::Dispatch), Some(x)) => st.call_sources(&called_ext(st, s), x),
            _ => Default::default(),
        };
        if st.record && st.machine.steppable(s) == Ok(Rule::ReduceGc) {
            st.keep_collected(s);
        }
        let library = (st.record && st.calls_prelude(s)).then(|| st.call_text(s));
        let ev = st.machine.step(s)?;
        if let (Some(call), Rule::ReduceCall) = (library, ev.rule) {
            st.library.insert(key, call);
        }
        let pure = ev.rule == Rule::Dispatch
            && ev
                .task
                .is_some_and(|t| self.host.is_pure(&st.machine.tasks[t].ext));
        if ev.rule == Rule::ReduceCall && st.record {
            st.sites.insert(key, line);
        }
        let created: Vec<StmtId> = st.machine.created().to_vec();
        st.set_created_origins(ev.rule, key, &created, inherit);
        if st.record {
            let label = st.short(s);
            let created_keys = if ev.rule == Rule::Dispatch {
                vec![key]
            } else {
                created.iter().map(|c| st.key(*c)).collect()
            };
            st.last.push(Taken {
                rule: ev.rule,
                key,
                label,
                line,
                run,
                created: created_keys,
                pure,
            });
        }
        match (ev.rule, ev.task) {
            (Rule::Dispatch, Some(t)) => {
                self.record_call(
                    st,
                    s,
                    t,
                    Dispatched {
                        key,
                        line,
                        position,
                        at_ms,
                        deps,
                        order,
                    },
                );
            }
            (Rule::Resolve, _) => st.stream_moves_on(&ev, key),
            _ => {}
        }
        Some(ev.rule)
    }

    /// Records a call just dispatched; a pure one is computed at once, as the runner does.
    fn record_call(&mut self, st: &mut State, s: StmtId, t: TaskId, d: Dispatched) {
        let Dispatched {
            key,
            line,
            position,
            at_ms,
            deps,
            order,
        } = d;
        let (ext, arg) = (
            st.machine.tasks[t].ext.clone(),
            st.machine.tasks[t].arg.clone(),
        );
        let pure = self.host.is_pure(&ext);
        let mut call = Call {
            label: st.short(s),
            full_label: if pure {
                String::new()
            } else {
                st.machine.label_of(s)
            },
            key,
            ext: ext.to_string(),
            arg: arg.to_string(),
            line,
            dispatched_step: position,
            resolved_step: None,
            dispatched_ms: at_ms,
            resolved_ms: None,
            failed: false,
            pure,
            chunks: Vec::new(),
            deps,
            order,
        };
        if pure {
            let out = &mut st.output;
            let r = eval_pure(
                &ext,
                &arg,
                &mut |_, text| out.push_str(text),
                tokio::time::Instant::now(),
            );
            let outcome = r.unwrap_or_else(|e| Outcome::Failed(e.to_string()));
            call.failed = matches!(outcome, Outcome::Failed(_));
            call.resolved_step = Some(position);
            call.resolved_ms = Some(at_ms);
            st.machine.deliver(t, outcome, at_ms);
        }
        st.calls.push(call);
    }

    pub(crate) fn line_at(&self, offset: Option<u32>) -> Option<usize> {
        offset
            .filter(|o| (*o as usize) < self.source.len())
            .map(|o| self.lines.line_of(o) + 1)
    }

    /// The world file's answer for the pending task at `label`, as an action: a streamed
    /// response's next chunk (the rest stays pending), or the whole reply.
    pub(crate) fn world_action(
        &mut self,
        st: &State,
        label: &LabelPath,
        by: By,
    ) -> Result<Action, String> {
        let t = pending_in(st, label)?;
        let task = &st.machine.tasks[t];
        let (ext, arg) = (task.ext.clone(), task.arg.clone());
        let key = st.key(task.stmt);
        let stream = self
            .host
            .world
            .as_ref()
            .and_then(|w| w.get(&ext))
            .and_then(|w| match w.reply(&arg) {
                Some((Reply::Stream(chunks, _), _)) => Some(chunks),
                _ => None,
            });
        let (result, partial, error) = match stream {
            Some(chunks) => {
                // Which delivery of its stream this task waits for.
                let k = st
                    .streams
                    .get(&key)
                    .and_then(|&i| st.calls.get(i))
                    .map(|c| c.chunks.len())
                    .unwrap_or(0);
                match chunks.get(k) {
                    Some(c) => {
                        let item = opal_core::ir::Prim::Str(std::sync::Arc::from(c.as_str()));
                        (format!("[{item}]"), k + 1 < chunks.len(), None)
                    }
                    None => ("[]".into(), false, None),
                }
            }
            None => outcome_record(&resolve_now(&mut self.host, &ext, &arg)),
        };
        Ok(Action::Resolve {
            label: label.clone(),
            by,
            result,
            partial,
            error,
            at_ms: 0.0,
            call: None,
        })
    }
}

/// Is there a list, a boolean or a dictionary in this value (so it reads better as data)?
fn holds_data(v: &Value) -> bool {
    match v {
        Value::List(_) | Value::Bool(_) | Value::Dict(_) => true,
        Value::Tuple(xs) => xs.iter().any(holds_data),
        _ => false,
    }
}

/// The task of the pending statement labeled `label`.
pub(crate) fn pending_in(st: &State, label: &LabelPath) -> Result<TaskId, String> {
    let s = st
        .find(label.key())
        .ok_or_else(|| format!("no statement has label {label} now"))?;
    match st.machine.stmt(s).op {
        MOp::Task(t) if matches!(st.machine.status(s), Status::Pending) => Ok(t),
        _ => Err(format!("{} is not a pending task", st.short(s))),
    }
}

/// An answer to a pending task, as an `Action::Resolve` gives it.
struct Answer<'a> {
    by: By,
    result: &'a String,
    partial: bool,
    error: Option<String>,
    at_ms: f64,
    /// The task's text when the answer was given: it must still be the same call.
    call: Option<&'a str>,
}

/// Where and when a call was dispatched, and what it depends on (`State::record_call`).
struct Dispatched {
    key: LabelKey,
    line: Option<usize>,
    position: usize,
    at_ms: f64,
    deps: Vec<LabelKey>,
    order: Vec<LabelKey>,
}

/// The external a call `f x` calls, if `f` is one (else "").
fn called_ext(st: &State, s: StmtId) -> String {
    match st.machine.stmt(s).op {
        MOp::Call(f, _) => match st.machine.binder(f).map(|b| st.machine.stmt(b).op) {
            Some(MOp::Prim(p)) => st.machine.prim(p).to_string(),
            _ => String::new(),
        },
        _ => String::new(),
    }
}
