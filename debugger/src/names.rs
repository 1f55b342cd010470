//! How views name a variable: by the name the program gave it (`city`, `city#2` where several
//! loop iterations' copies are live), with the desugarer's temporaries folded into what they
//! stand for (`print (stdout, city#1)`, not `print t'3@5.6.6`); the core notation (`x'1@5.6`)
//! stays in `Row::core` and the window's core view.

use crate::state::State;
use opal_core::machine::label::{LabelId, LabelKey, ROOT};
use opal_core::machine::readback::{Budget, Value};
use opal_core::machine::template::{TOp, TVar, Template};
use opal_core::machine::{MOp, SourceName, StmtId, VarId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Iteration marks handed out in order of first sight: (name, the label it was freshened at)
/// → its mark, and the marks given per name. Shared by every copy of a session's state.
#[derive(Clone, Default)]
pub(crate) struct Marks(Arc<Mutex<MarkTable>>);

#[derive(Default)]
pub(crate) struct MarkTable {
    given: HashMap<(String, LabelKey), u32>,
    count: HashMap<String, u32>,
    /// Deep labels' short marks (`ℓk` is `labels[k - 1]`), in order of first sight.
    labels: Vec<LabelKey>,
    label_marks: HashMap<LabelKey, u32>,
    /// How many of the initial term's variables have each base name: a temporary whose base
    /// is its own (`for_body`, `for_list`) is shown without its core index.
    bases: HashMap<String, u32>,
}

impl Marks {
    /// The marks of a session on `m`'s initial term.
    pub(crate) fn new(m: &opal_core::machine::Machine) -> Marks {
        let mut bases: HashMap<String, u32> = HashMap::new();
        for v in m.vars.iter() {
            *bases.entry(v.name.base.to_string()).or_insert(0) += 1;
        }
        Marks(Arc::new(Mutex::new(MarkTable {
            bases,
            ..MarkTable::default()
        })))
    }
}

/// What views call the program's result when the program did not name it (the paper's
/// Figure 2 returns an unnamed `()`).
const RESULT: &str = "result";

/// Labels up to this deep are shown whole (`5.6.1`, as the paper writes them); deeper ones
/// by a mark that is short and stable within the session (`ℓ12`).
const LABEL_DEPTH: usize = 3;

/// How many calls up `is_machinery` looks for a call of a prelude function.
const MACHINERY_DEPTH: usize = 64;

/// Components a folded tuple may show before it is named instead.
const FOLD_WIDTH: usize = 6;
/// Nested temporaries folded into one operand.
const FOLD_DEPTH: usize = 4;

impl State {
    /// `v` as the program named it (`city`, `city#2` in a loop iteration or a call), its
    /// temporaries folded; the core name if the program never named it.
    pub(crate) fn name(&self, v: VarId) -> String {
        self.folded(v, FOLD_DEPTH)
    }

    /// `v` where it is bound: the program's name, else the core name (never folded).
    pub(crate) fn bind_name(&self, v: VarId) -> String {
        let m = &self.machine;
        match m.source_names(v).last() {
            Some(n) => self.marked(n),
            // Every copy of the threaded handle is the program's `stdout` (the paper's sugar
            // writes `stdout := fold (cities, stdout, for_body)`), as where it is used.
            None if matches!(m.vars[v].name.base.as_str(), "stdout" | "seq")
                && !self.is_prelude_var(v) =>
            {
                m.vars[v].name.base.to_string()
            }
            None => self.unnamed(v),
        }
    }

    /// `v`'s value as the paper writes it, a variable not a value yet by its view name.
    pub(crate) fn readback(&self, v: VarId) -> Value {
        self.machine
            .readback_named(v, Budget::VIEW, &|x| self.name(x))
    }

    /// A variable the program did not name: its core name at the top level (`t'2`,
    /// `for_body`) and in the prelude; a copy a call or loop iteration made by its base name
    /// and an iteration mark (`t#3`, `values#2`), never a label path.
    fn unnamed(&self, v: VarId) -> String {
        let m = &self.machine;
        let fresh = m.fresh_label(v);
        if self.is_prelude_var(v) {
            return self.core_name(v);
        }
        if fresh == ROOT {
            // At the top level a temporary's base names it when no other variable has it:
            // `for_body`, `for_list`, and the unnamed result as `result`.
            let base = m.vars[v].name.base.to_string();
            let count = |b: &str| {
                self.marks
                    .0
                    .lock()
                    .map_or(2, |t| t.bases.get(b).copied().unwrap_or(0))
            };
            return if v == m.ret && count(RESULT) == 0 {
                RESULT.into()
            } else if base != "t" && count(&base) == 1 {
                base
            } else {
                self.core_name(v)
            };
        }
        let n = &m.vars[v].name;
        self.mark(n.base.to_string(), n.to_string(), fresh)
    }

    /// Statement `s`'s label as views show it: a stream's pending rest by its call's label
    /// and the chunks arrived (`2+3`, the graph's node `2`); else whole up to `LABEL_DEPTH`
    /// levels (`5.6.1`), else its mark (`ℓ12`). Marks go only to statements views show, so
    /// they stay few; a hidden temporary's label is abbreviated (`5.6.…6.6`).
    /// `Session::label_tip` and the core view give the whole label.
    pub(crate) fn short(&self, s: StmtId) -> String {
        let m = &self.machine;
        let l = m.label_id(s);
        let (deep, key) = {
            let mut memo = self.memo.0.borrow_mut();
            (
                memo.depth(&m.labels, l) > LABEL_DEPTH,
                memo.key(&m.labels, l),
            )
        };
        if let Some(c) = self.streams.get(&key).and_then(|&i| self.calls.get(i)) {
            return c.rest_label();
        }
        if !deep {
            return self.memo.0.borrow_mut().short(&m.labels, l);
        }
        if self.is_machinery(s) || self.is_folded(s) {
            return m.label_short(&mut self.memo.0.borrow_mut(), s);
        }
        let Ok(mut marks) = self.marks.0.lock() else {
            return m.label_short(&mut self.memo.0.borrow_mut(), s);
        };
        let table = &mut *marks;
        let k = match table.label_marks.get(&key) {
            Some(k) => *k,
            None => {
                table.labels.push(key);
                let k = table.labels.len() as u32;
                table.label_marks.insert(key, k);
                k
            }
        };
        format!("ℓ{k}")
    }

    /// The label a mark a view showed stands for (`ℓ12`, typed also `l12` or `L12`).
    pub(crate) fn marked_label(&self, text: &str) -> Option<LabelKey> {
        let digits = ["ℓ", "l", "L"].iter().find_map(|p| text.strip_prefix(p))?;
        let k: usize = digits.parse().ok()?;
        let marks = self.marks.0.lock().ok()?;
        marks.labels.get(k.checked_sub(1)?).copied()
    }

    /// Is `s` bound in the environment (the prelude's definitions, labels `0.…`)?
    pub(crate) fn is_prelude_stmt(&self, s: StmtId) -> bool {
        let m = &self.machine;
        self.memo.0.borrow_mut().top(&m.labels, m.label_id(s)) == 0
    }

    /// `v` in the core notation, its label abbreviated (`x'1@5.6`).
    pub(crate) fn core_name(&self, v: VarId) -> String {
        self.machine
            .var_name_short(&mut self.memo.0.borrow_mut(), v)
    }

    fn folded(&self, v: VarId, depth: usize) -> String {
        let m = &self.machine;
        if let Some(n) = m.source_names(v).last() {
            return self.marked(n);
        }
        let Some(b) = m.binder(v) else {
            return self.unnamed(v);
        };
        // The threaded handle is the program's `stdout`, the sequencing token `seq`, whichever
        // copy.
        if let base @ ("stdout" | "seq") = m.vars[v].name.base.as_str() {
            return base.into();
        }
        if self.is_prelude_var(v) {
            return self.unnamed(v);
        }
        if depth == 0 {
            // Deeper than views write out: a temporary whose row is hidden reads `…` (its
            // name would point at nothing shown; the row's hover has the core).
            return if self.is_folded(b) {
                "…".into()
            } else {
                self.unnamed(v)
            };
        }
        match m.stmt(b).op {
            MOp::Prim(p) => m.prim(p).to_string(),
            MOp::Alias(y) => self.folded(y, depth - 1),
            // A list (or a boolean) reads as the paper writes it: `["Ho"] + <<…>>`; a
            // function the desugarer bound to a temporary (an `if`'s branches, the body `rec`
            // gives `fix`) as the function: `fix (fun p'1: …)`.
            MOp::Fun(_) => match self.readback(v) {
                r @ (Value::List(_) | Value::Bool(_)) => r.to_string(),
                _ if self.is_temporary_fun(b) => self.fun_text(b),
                _ => self.unnamed(v),
            },
            // A library call waiting for its argument reads inside what uses it:
            // `print (seq, "0: " + to_str value#7)` rather than `t#47 := to_str value#7`.
            MOp::Call(f, x) if self.is_folded_call(b) => {
                // The argument's tuple costs no level of its own: `add (a, to_str v)`.
                let arg = match m.binder(x).map(|a| m.stmt(a).op) {
                    Some(MOp::Tuple(_)) if m.source_names(x).is_empty() => self.folded(x, depth),
                    _ => self.folded(x, depth - 1),
                };
                let arg = if matches!(m.binder(x).map(|a| m.stmt(a).op), Some(MOp::Call(..))) {
                    format!("({arg})")
                } else {
                    arg
                };
                format!("{} {arg}", self.folded(f, depth - 1))
            }
            MOp::Tuple(xs) if m.tuple(xs).len() <= FOLD_WIDTH => {
                let parts: Vec<String> = m
                    .tuple(xs)
                    .iter()
                    .map(|x| self.folded(*x, depth - 1))
                    .collect();
                let comma = if parts.len() == 1 { "," } else { "" };
                format!("({}{comma})", parts.join(", "))
            }
            _ => self.unnamed(v),
        }
    }

    /// Is `s` the machinery of a prelude function the program called (a fold's `l@5 :=
    /// list@2`), not a statement the program wrote or a variable it named? Views fold these
    /// away unless asked for the core; a pending or stuck one is never machinery.
    pub(crate) fn is_machinery(&self, s: StmtId) -> bool {
        let m = &self.machine;
        if self.is_prelude_stmt(s) {
            return true;
        }
        let n = m.stmt(s);
        if n.written_at().is_some() || !m.source_names(n.bind).is_empty() {
            return false;
        }
        if matches!(
            crate::kind::kind_of(m, s),
            crate::kind::Kind::Pending | crate::kind::Kind::Stuck
        ) {
            return false;
        }
        // Inside a call of a prelude function (a loop's fold), looked for a few levels up: a
        // stream's resolution (`list@2 := ["Ho"] + <<…>>`) is not machinery.
        self.library_call(s).is_some()
    }

    /// The nearest call of a prelude function `s` runs inside (looked for a few levels up),
    /// as views showed the call.
    pub(crate) fn library_call(&self, s: StmtId) -> Option<&str> {
        let m = &self.machine;
        if self.library.is_empty() {
            return None;
        }
        let mut l = m.label_id(s);
        for _ in 0..MACHINERY_DEPTH {
            let p = m.labels.parent(l)?;
            let key = self.memo.0.borrow_mut().key(&m.labels, p);
            if let Some(call) = self.library.get(&key) {
                return Some(call);
            }
            l = p;
        }
        None
    }

    /// The call statement `s` makes, as its row shows it (`map (fun x: …, scored#1)`); a call
    /// inside a prelude function (`map`'s `fold`) reads as the call the program made.
    pub(crate) fn call_text(&self, s: StmtId) -> String {
        if self.machine.stmt(s).written_at().is_none() {
            if let Some(outer) = self.library_call(s) {
                return outer.to_string();
            }
        }
        let text = self.text(s);
        match text.split_once(" := ") {
            Some((_, call)) => call.to_string(),
            None => text,
        }
    }

    /// The prelude call `s` computes a program variable of, if its row would otherwise show
    /// the prelude's insides: `s` binds a name the program gave, is the prelude's code (not
    /// written in the program), runs inside a call of a prelude function and is not a value
    /// yet (a call, an alias or a projection).
    pub(crate) fn running_call(&self, s: StmtId) -> Option<&str> {
        let m = &self.machine;
        let n = m.stmt(s);
        // A statement the program wrote (a loop body's, which runs inside `fold`) is its own.
        if self.is_prelude_stmt(s)
            || n.written_at().is_some()
            || m.source_names(n.bind).is_empty()
            || !matches!(n.op, MOp::Call(..) | MOp::Alias(_) | MOp::Prj(..))
        {
            return None;
        }
        self.library_call(s)
    }

    /// A program variable the prelude's machinery computes, as views show it: its value
    /// (`copied_value`), else the call it is computed in (`running_call`): `cands#1 := fold
    /// (…) [running]` for the call's result, `step#1 := … [inside fold]` for a copy of a
    /// value the call has not computed yet (a loop iteration's `step := prj 2 p'1`).
    pub(crate) fn machinery_text(&self, s: StmtId) -> Option<String> {
        if let Some(text) = self.copied_value(s) {
            return Some(text);
        }
        let call = self.running_call(s)?;
        let n = self.machine.stmt(s);
        let bind = self.bind_name(n.bind);
        Some(match n.op {
            MOp::Call(..) => format!("{bind} := {call} [running]"),
            _ => {
                let f = call.split_whitespace().next().unwrap_or(call);
                format!("{bind} := … [inside {f}]")
            }
        })
    }

    /// A program variable that is a copy of a value the prelude's machinery computed (a loop
    /// iteration's `city@5.6.6 := x'1@5.6`, a resolved call's `excursions := v@5.6.6.6`), as
    /// that value: `city#1 := <"Honolulu">`, not the machinery's name or the loop's call.
    pub(crate) fn copied_value(&self, s: StmtId) -> Option<String> {
        let m = &self.machine;
        let n = m.stmt(s);
        let (MOp::Alias(y) | MOp::Prj(_, y)) = n.op else {
            return None;
        };
        let b = m.binder(y)?;
        if !(self.is_prelude_var(y) || self.is_machinery(b)) {
            return None;
        }
        let value = match self.readback(n.bind) {
            Value::Fun | Value::Unknown(_) => return None,
            Value::Prim(p) => format!("<{p}>"),
            v => v.to_string(),
        };
        Some(format!("{} := {value}", self.bind_name(n.bind)))
    }

    /// Is `s` a temporary the desugarer invented whose value every view writes in place of
    /// its name (`print (stdout, city#1)`): a value the program did not name, small enough to
    /// fold, not the result?
    pub(crate) fn is_folded(&self, s: StmtId) -> bool {
        let m = &self.machine;
        let n = m.stmt(s);
        if n.bind == m.ret || !m.source_names(n.bind).is_empty() || self.is_prelude_var(n.bind) {
            return false;
        }
        // A copy of the threaded handle or token (`stdout'1@5.6.6 := stdout`), not a print.
        if matches!(m.vars[n.bind].name.base.as_str(), "stdout" | "seq") {
            return matches!(n.op, MOp::Alias(_) | MOp::Prj(..) | MOp::Prim(_));
        }
        match n.op {
            MOp::Prim(_) => true,
            MOp::Tuple(xs) => m.tuple(xs).len() <= FOLD_WIDTH,
            MOp::Call(..) => self.is_folded_call(s),
            // A list (or a boolean): its uses write it out (`add (values#5, [value#2])`); so
            // do they a temporary function.
            MOp::Fun(_) => {
                matches!(self.readback(n.bind), Value::List(_) | Value::Bool(_))
                    || self.is_temporary_fun(s)
            }
            _ => false,
        }
    }

    /// Is `s` a function bound to a temporary the desugarer named `t` (an `if`'s branches, the
    /// function `rec` hands to `fix`)? A loop's `for_body` and `loop_step` keep their rows, as
    /// the paper's Figure 2 names them.
    fn is_temporary_fun(&self, s: StmtId) -> bool {
        let m = &self.machine;
        let n = m.stmt(s);
        matches!(n.op, MOp::Fun(_))
            && m.source_names(n.bind).is_empty()
            && m.vars[n.bind].name.base.as_str() == "t"
    }

    /// A function as its statement writes it, on one line and in parentheses (it may be
    /// called where it is written): `(fun p'1: …)`.
    fn fun_text(&self, s: StmtId) -> String {
        let text = self.machine.stmt_text_with(s, &mut |x| self.bind_name(x));
        let rhs = text.split_once(" := ").map_or(text.as_str(), |(_, r)| r);
        match rhs.split_once('\n') {
            Some((first, _)) if !first.ends_with('…') => format!("({first} …)"),
            Some((first, _)) => format!("({first})"),
            None => format!("({rhs})"),
        }
    }

    /// Is `s` a call of a pure library function (`to_str x`, `add (a, b)`, not a print) that
    /// waits for its argument? It shows inside the statement that uses it until it can step,
    /// when it gets its own row again (the step is then visible where it happens).
    fn is_folded_call(&self, s: StmtId) -> bool {
        let m = &self.machine;
        let MOp::Call(f, _) = m.stmt(s).op else {
            return false;
        };
        let Some(MOp::Prim(p)) = m.binder(f).map(|b| m.stmt(b).op) else {
            return false;
        };
        let opal_core::ir::Prim::Ext(name) = m.prim(p) else {
            return false;
        };
        let pure = opal_core::externals::standard(name).is_some_and(|d| {
            d.kind == opal_core::externals::ExtKind::Pure && !opal_core::externals::is_printer(name)
        });
        pure && crate::kind::kind_of(m, s) == crate::kind::Kind::Waiting
    }

    /// Is `v` bound in the environment (the prelude's definitions, labels `0.…`)?
    fn is_prelude_var(&self, v: VarId) -> bool {
        self.machine
            .binder(v)
            .is_some_and(|b| self.is_prelude_stmt(b))
    }

    /// A source name with its iteration mark: none at the top level; `#k` for the k-th copy
    /// of the name a call or loop iteration made.
    fn marked(&self, n: &SourceName) -> String {
        let name = n.name.base.to_string();
        if n.fresh == ROOT {
            return name;
        }
        self.mark(name.clone(), name, n.fresh)
    }

    /// `shown#k`: the k-th copy shown as `shown`, the copy being `whose` freshened at `fresh`
    /// (a source name, or a core name the program never wrote: `t'2` and `t'3` of one call
    /// are two copies of `t`). Marks count per shown name, so they never collide.
    fn mark(&self, shown: String, whose: String, fresh: LabelId) -> String {
        let key = self.memo.0.borrow_mut().key(&self.machine.labels, fresh);
        let Ok(mut marks) = self.marks.0.lock() else {
            return shown;
        };
        let table = &mut *marks;
        let mark = match table.given.get(&(whose.clone(), key)) {
            Some(k) => *k,
            None => {
                let count = table.count.entry(shown.clone()).or_insert(0);
                *count += 1;
                table.given.insert((whose, key), *count);
                *count
            }
        };
        format!("{shown}#{mark}")
    }
}

/// Terms printed in the core notation (`opal explore`'s states: `c@4.6.2 := …`) with every
/// freshened name written as the views write it: `c#1`, numbered per name in the order first
/// met across all of `terms`, so one copy has one mark in every state.
pub fn marked_terms(terms: &[String]) -> Vec<String> {
    let mut given: HashMap<String, u32> = HashMap::new();
    let mut count: HashMap<String, u32> = HashMap::new();
    terms
        .iter()
        .map(|t| {
            let mut out = String::with_capacity(t.len());
            let mut rest = t.as_str();
            while let Some(at) = rest.find('@') {
                let (before, after) = rest.split_at(at);
                // The name before `@`: identifier characters and `'` (a core name, `t'2`).
                let start = before
                    .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\''))
                    .map_or(0, |i| i + 1);
                let name = &before[start..];
                let label_len = after[1..]
                    .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '…'))
                    .unwrap_or(after.len() - 1);
                let label = after[1..1 + label_len].trim_end_matches('.');
                if name.is_empty() || label.is_empty() {
                    out.push_str(before);
                    out.push('@');
                    rest = &after[1..];
                    continue;
                }
                let base = name.split('\'').next().unwrap_or(name).to_string();
                let key = format!("{name}@{label}");
                let k = *given.entry(key).or_insert_with(|| {
                    let c = count.entry(base.clone()).or_insert(0);
                    *c += 1;
                    *c
                });
                out.push_str(&before[..start]);
                out.push_str(&format!("{base}#{k}"));
                rest = &after[1 + label.len()..];
            }
            out.push_str(rest);
            out
        })
        .collect()
}

/// A function's parameter as the paper's sugar writes it where the desugarer only takes it
/// apart (`fun (stdout, city):` for `fun p'1: stdout'1 := prj 1 p'1; city := prj 2 p'1 …`):
/// the body begins by projecting components 1, 2, … in order and uses the parameter nowhere
/// else. The components by their base names (`stdout`, not `stdout'1`).
pub(crate) fn parameter_pattern(t: &Template) -> Option<String> {
    let param = TVar::Local(0);
    let mut parts = Vec::new();
    for s in &t.stmts {
        match s.op {
            TOp::Prj(i, x) if x == param && i as usize == parts.len() + 1 => {
                parts.push(t.names.get(s.local as usize)?.base.to_string());
            }
            _ => break,
        }
    }
    if parts.len() < 2 || t.ret == param {
        return None;
    }
    let rest = &t.stmts[parts.len()..];
    let mentions = |v: TVar| v == param;
    let used = rest.iter().any(|s| match s.op {
        TOp::Alias(y) | TOp::Prj(_, y) => mentions(y),
        TOp::Call(f, x) => mentions(f) || mentions(x),
        TOp::Tuple(start, len) => t.tuple(start, len).iter().any(|v| mentions(*v)),
        TOp::Fun(i) => t.fun(i).1.iter().any(|v| mentions(*v)),
        TOp::Prim(_) => false,
    });
    (!used).then(|| format!("({})", parts.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::marked_terms;

    #[test]
    fn label_paths_become_marks_the_same_in_every_state() {
        let terms = [
            "1 c@4.6.2 := prj 1 x'1@4.6\n2 ret c@4.6.2".to_string(),
            "1 c@4.6.2 := <1>\n2 d := (c@4.6.2, c@5.1)\nmail a@b".to_string(),
        ];
        assert_eq!(
            marked_terms(&terms),
            [
                "1 c#1 := prj 1 x#1\n2 ret c#1",
                "1 c#1 := <1>\n2 d := (c#1, c#2)\nmail a@b"
            ]
        );
    }
}
