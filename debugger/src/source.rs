//! The source map: from the machine's state back to the program the user wrote.
//!
//! * A **run** (`Instance`) of a source statement is its line and the call that put its
//!   statements there: one per loop iteration or function call. A breakpoint stops once per
//!   run, before the action that steps its first statement; stepping moves from run to run.
//! * **Locals** are the variables in scope at a statement by the names the program gave them
//!   (the machine keeps them through reduce-alias: `Machine::source_names`), with their values
//!   read back as the paper writes them.
//! * **Evaluate** computes an OPAL expression over the locals (a debug console, a watch, a
//!   hover): in a machine of its own, so nothing it does reaches the program.

use crate::session::{Session, Strategy};
use opal_core::machine::label::{LabelKey, ROOT};
use opal_core::machine::readback::{Budget, Value};
use opal_core::machine::run::{run, End, Options};
use opal_core::machine::{Machine, Rule, StmtId, VarId};

pub use crate::state::Instance;

/// A variable in scope, by its source name.
#[derive(Clone, Debug, PartialEq)]
pub struct Local {
    pub name: String,
    /// Read back as the paper writes it: `"Honolulu"`, `["Ho"] + <<get_cities_in "Oceania">>`,
    /// `<<get_excursions_in "Honolulu">>`.
    pub value: String,
    /// The value as OPAL source, if it is complete data (what `evaluate` can compute with).
    pub data: Option<String>,
}

/// The value of a variable whose statement has not computed it yet.
const NOT_YET: &str = "(not computed yet)";

/// Steps one evaluation may take (a console expression is small; a runaway one stops).
const EVALUATE_STEPS: u64 = 1_000_000;

impl Session {
    /// The run of a source statement that statement `s` belongs to, if the program wrote it.
    pub fn instance(&self, s: StmtId) -> Option<Instance> {
        if self.is_prelude(s) {
            return None;
        }
        let env = &self.env;
        self.history.current().run_of(s, &env.lines, &env.source)
    }

    /// Has an action before the position stepped a statement of `run`?
    pub fn has_begun(&self, run: &Instance) -> bool {
        self.history.has_begun(run)
    }

    /// The statements the next action of `strategy` steps that begin a run of a source
    /// statement (in the order they step).
    pub fn beginning(&self, strategy: Strategy) -> Vec<(StmtId, Instance)> {
        let mut out: Vec<(StmtId, Instance)> = Vec::new();
        let m = self.machine();
        for s in self.next_steps(strategy) {
            // Reduce-gc only tidies up after a statement's last use.
            if m.steppable(s) == Ok(Rule::ReduceGc) {
                continue;
            }
            if let Some(run) = self.instance(s) {
                if !self.has_begun(&run) && !out.iter().any(|(_, r)| *r == run) {
                    out.push((s, run));
                }
            }
        }
        out
    }

    /// The position just after the last action before the current one that began a run
    /// `wanted` accepts (0 if none): where stepping back or reversing to it lands.
    pub fn before_last_begun(&self, wanted: &dyn Fn(&Instance) -> bool) -> usize {
        let mut pos = self.position();
        while pos > 0 {
            pos -= 1;
            let began = self
                .history
                .touched(pos)
                .iter()
                .any(|r| wanted(r) && self.history.began_at(r, pos));
            if began {
                return pos;
            }
        }
        0
    }

    /// Is `s` the machinery of a prelude function the program called (`State::is_machinery`)?
    pub fn is_machinery(&self, s: StmtId) -> bool {
        self.history.current().is_machinery(s)
    }

    /// Is `s` a temporary of the desugarer that views fold into its uses (a tuple or a
    /// constant the program did not name: `t'3 := (stdout, city#1)` reads inside
    /// `print (stdout, city#1)`)?
    pub fn is_folded(&self, s: StmtId) -> bool {
        self.history.current().is_folded(s)
    }

    /// The lines a source statement that starts on `line` spans (1-based, inclusive): the
    /// line and the more indented lines under it (a `for`'s body), blank lines and comments
    /// inside included.
    pub fn extent(&self, line: usize) -> (usize, usize) {
        let lines: Vec<&str> = self.source().lines().collect();
        let indent = |l: &str| l.len() - l.trim_start().len();
        let Some(first) = lines.get(line.wrapping_sub(1)) else {
            return (line, line);
        };
        let base = indent(first);
        let mut last = line;
        for (i, l) in lines.iter().enumerate().skip(line) {
            let t = l.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            if indent(l) <= base {
                break;
            }
            last = i + 1;
        }
        (line, last)
    }

    /// The nearest call of a function written elsewhere that `s` runs inside (the label its
    /// body was inlined at): where stepping out of `s` returns from. A loop body or a branch
    /// written around `s` is not such a call; `None` at the top level.
    pub fn enclosing_call(&self, s: StmtId) -> Option<LabelKey> {
        let line = self.line_of(s)?;
        let st = self.history.current();
        let m = &st.machine;
        let mut l = m.label_id(s);
        while let Some(p) = m.labels.parent(l) {
            let key = st.memo.0.borrow_mut().key(&m.labels, p);
            if let Some(Some(site)) = st.sites.get(&key) {
                let (from, to) = self.extent(*site);
                if !(from..=to).contains(&line) {
                    return Some(key);
                }
            }
            l = p;
        }
        None
    }

    /// The variables in scope at statement `s`, by the names the program gave them, in the
    /// order they were bound; an inner or later binding of a name hides an outer one.
    pub fn locals(&self, s: StmtId) -> Vec<Local> {
        let m = self.machine();
        // (name, depth of the scope it was bound in, index of the binding, local)
        let mut found: Vec<(String, usize, u32, Local)> = Vec::new();
        for b in m.iter() {
            if self.is_prelude(b) {
                continue;
            }
            let v = m.stmt(b).bind;
            for n in m.source_names(v) {
                if n.fresh != ROOT && !m.in_scope_at(n.fresh, s) {
                    continue;
                }
                let name = n.name.base.to_string();
                let depth = m.labels.path(n.fresh).len();
                let rank = (depth, n.name.idx);
                match found.iter_mut().find(|f| f.0 == name) {
                    Some(f) if (f.1, f.2) >= rank => {}
                    Some(f) => *f = (name, depth, n.name.idx, local(m, v, f.0.clone())),
                    None => found.push((name.clone(), depth, n.name.idx, local(m, v, name))),
                }
            }
        }
        // What reduce-gc took out of the term after its last use is still the program's
        // variable: its last value, unless a live binding of the name hides it.
        let st = self.history.current();
        let mut scopes = vec![LabelKey::default()];
        let mut l = m.label_id(s);
        while let Some(p) = m.labels.parent(l) {
            scopes.push(st.memo.0.borrow_mut().key(&m.labels, p));
            l = p;
        }
        let mut gone: Vec<(usize, Local)> = st
            .collected
            .iter()
            .filter_map(|((scope, name), c)| {
                let depth = scopes.iter().rposition(|k| k == scope)?;
                let hidden = found.iter().any(|f| f.0 == *name);
                (!hidden).then(|| {
                    let local = Local {
                        name: name.clone(),
                        value: c.value.clone(),
                        data: c.data.clone(),
                    };
                    (depth, local)
                })
            })
            .collect();
        // The innermost scope's value of a name, once.
        gone.sort_by(|a, b| a.1.name.cmp(&b.1.name).then(a.0.cmp(&b.0)));
        gone.dedup_by(|b, a| a.1.name == b.1.name);
        let mut out: Vec<Local> = found.into_iter().map(|f| f.3).collect();
        out.extend(gone.into_iter().map(|g| g.1));
        out
    }

    /// The variables in scope at the top level (no statement in focus).
    pub fn top_locals(&self) -> Vec<Local> {
        let m = self.machine();
        let mut out: Vec<Local> = Vec::new();
        for b in m.iter().filter(|b| !self.is_prelude(*b)) {
            let v = m.stmt(b).bind;
            for n in m.source_names(v) {
                let name = n.name.base.to_string();
                if n.fresh == ROOT && !out.iter().any(|l| l.name == name) {
                    out.push(local(m, v, name));
                }
            }
        }
        out
    }

    /// Evaluates the OPAL expression `expr` over the variables in scope at `at` (the top
    /// level if `None`). A name in scope answers its value as it stands (a pending call
    /// too); any other expression is computed, under call-by-value, in a machine of its own
    /// from the values of the names it mentions, so it changes nothing in the program. It
    /// calls no external but the pure ones (`+`, `length`, …): the console is not a way to
    /// dispatch.
    pub fn evaluate(&self, at: Option<StmtId>, expr: &str) -> Result<String, String> {
        let expr = expr.trim();
        if expr.is_empty() {
            return Err("nothing to evaluate".into());
        }
        let locals = match at {
            Some(s) => self.locals(s),
            None => self.top_locals(),
        };
        if let Some(l) = locals.iter().find(|l| l.name == expr) {
            return Ok(l.value.clone());
        }
        let mut program = String::new();
        for l in locals.iter().filter(|l| mentions(expr, &l.name)) {
            match &l.data {
                Some(d) => program.push_str(&format!("{} := {d}\n", l.name)),
                None => {
                    return Err(format!(
                        "`{}` is not data yet ({}): the console computes with values",
                        l.name, l.value
                    ))
                }
            }
        }
        program.push_str(expr);
        program.push('\n');
        evaluate_program(&program, expr)
    }
}

/// The local `name` for variable `v`.
fn local(m: &Machine, v: VarId, name: String) -> Local {
    let value = match m.readback(v, Budget::VIEW) {
        Value::Unknown(_) => NOT_YET.to_string(),
        v => v.to_string(),
    };
    Local {
        name,
        value,
        data: m.data(v, Budget::VIEW).0.ok().map(|d| d.to_string()),
    }
}

/// Does `expr` use the identifier `name` (a whole word, outside string literals)?
fn mentions(expr: &str, name: &str) -> bool {
    let mut in_string = false;
    let mut escaped = false;
    let mut word = String::new();
    for c in expr.chars().chain(std::iter::once(' ')) {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' || c == '\'' {
            word.push(c);
            continue;
        }
        if word == name {
            return true;
        }
        word.clear();
        in_string = c == '"';
    }
    false
}

/// Compiles and runs a console program to its value.
fn evaluate_program(program: &str, expr: &str) -> Result<String, String> {
    let c = opal_core::compile_with(program, None);
    if let Some(d) = c.diags.iter().find(|d| d.is_error()) {
        let mut why = d.message.clone();
        if why.starts_with("unbound name") {
            why.push_str(
                " (the console sees the variables in scope at the stopped statement, the \
                 prelude's functions and the pure externals; it calls no other external)",
            );
        }
        return Err(format!("cannot evaluate `{expr}`: {why}"));
    }
    let mut m = Machine::new(&c.program);
    let mut opts = Options::new(Strategy::Cbv);
    opts.max_steps = Some(EVALUATE_STEPS);
    let report = run(&mut m, opts, Box::new(|_, _| {}), None);
    match report.end {
        End::Done(Some(text)) => Ok(text),
        End::Done(None) => Ok(m.readback_text(m.ret, Budget::VIEW)),
        End::Stuck(faults) => Err(match faults.first() {
            Some(f) => format!("cannot evaluate `{expr}`: {}", f.message),
            None => format!("cannot evaluate `{expr}`: it is stuck"),
        }),
        End::StepBudget | End::RoundBudget => Err(format!(
            "`{expr}` did not finish within {EVALUATE_STEPS} steps"
        )),
    }
}
