//! What views show of the state: a row per statement (built once per revision), the
//! before/after view of the last action (the stepper), where a breakpoint can stop.

use crate::kind::RowStatus;
use crate::state::{Env, State, Taken};
use opal_core::machine::label::LabelKey;
use opal_core::machine::{MOp, Machine, StmtId};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

/// One top-level statement as views show it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub id: StmtId,
    /// The label's identity (stable across time travel).
    pub key: LabelKey,
    /// The label, abbreviated past six levels (`5.6.…6.6`); `full_label` has all of it.
    pub label: String,
    /// `x := o` with values read back (`["Ho"] + <<…>>`, `true`), one line.
    pub text: String,
    /// The statement in the paper's core notation (a function's body on further lines).
    pub core: String,
    /// How it stands, with the rule or the reason; shown as "steppable by reduce-call",
    /// "waiting: …", "pending task …", "stuck: …", "value (still used)".
    pub status: RowStatus,
    /// The 1-based source line the statement was written at (inlined code maps back).
    pub line: Option<usize>,
    /// A prelude or environment statement (labels `0.…`), folded away by default.
    pub prelude: bool,
    /// The statement this one waits on, if it waits.
    pub waits_on: Option<LabelKey>,
}

/// The before/after view of the last action (DrRacket's stepper): the redexes are
/// highlighted before, what replaced them after.
#[derive(Clone, Debug, PartialEq)]
pub struct Stepper {
    pub what: String,
    pub before: Vec<StepRow>,
    pub after: Vec<StepRow>,
}

/// A statement in the before/after view.
#[derive(Clone, Debug, PartialEq)]
pub struct StepRow {
    pub label: String,
    pub text: String,
    /// A redex (before) or what replaced one (after).
    pub marked: bool,
    /// The prelude's machinery or a temporary folded into its uses: shown only when the
    /// user asks for the prelude (`State::is_machinery`, `State::is_folded`).
    pub machinery: bool,
}

/// The row of statement `s` of `st`.
pub(crate) fn build_row(st: &State, env: &Env, s: StmtId) -> Row {
    let m = &st.machine;
    let (status, on) = RowStatus::of_named(m, s, &|v| st.name(v));
    let waits_on = on.and_then(|v| m.binder(v)).map(|b| st.key(b));
    let core = m.stmt_text_with(s, &mut |v| st.core_name(v));
    let text = st.text(s);
    let label = st.short(s);
    Row {
        id: s,
        key: st.key(s),
        prelude: st.is_prelude_stmt(s),
        line: env.line_at(m.stmt(s).source_offset()),
        label,
        text,
        core,
        status,
        waits_on,
    }
}

/// Rows and statements by label, kept for one revision (a view asks for the same rows every
/// frame).
pub(crate) struct Cache {
    rows: RefCell<(u64, HashMap<StmtId, Row>)>,
    keys: RefCell<(u64, HashMap<LabelKey, StmtId>)>,
}

impl Default for Cache {
    fn default() -> Cache {
        Cache {
            rows: RefCell::new((u64::MAX, HashMap::new())),
            keys: RefCell::new((u64::MAX, HashMap::new())),
        }
    }
}

impl Cache {
    /// The row of statement `s` of `st` (at `revision`), built once.
    pub(crate) fn row(&self, revision: u64, st: &State, env: &Env, s: StmtId) -> Row {
        {
            let mut cache = self.rows.borrow_mut();
            if cache.0 != revision {
                *cache = (revision, HashMap::new());
            }
            if let Some(r) = cache.1.get(&s) {
                return r.clone();
            }
        }
        let r = build_row(st, env, s);
        self.rows.borrow_mut().1.insert(s, r.clone());
        r
    }

    /// The live statement labeled `key` in `st` (at `revision`; a map built once).
    pub(crate) fn find(&self, revision: u64, st: &State, key: LabelKey) -> Option<StmtId> {
        let mut cache = self.keys.borrow_mut();
        if cache.0 != revision {
            let mut memo = st.memo.0.borrow_mut();
            let map = st
                .machine
                .iter()
                .map(|s| (st.machine.label_key(&mut memo, s), s))
                .collect();
            *cache = (revision, map);
        }
        cache.1.get(&key).copied()
    }
}

/// The stepper's view of an action that took `taken`, said as `what`, from `before` to `after`.
pub(crate) fn stepper(what: String, before: &State, after: &State, taken: &[Taken]) -> Stepper {
    let lines = |st: &State, mark: &dyn Fn(LabelKey) -> bool| -> Vec<StepRow> {
        let m = &st.machine;
        m.iter()
            .filter(|&s| !st.is_prelude_stmt(s))
            .map(|s| StepRow {
                label: st.short(s),
                text: st.text(s),
                marked: mark(st.key(s)),
                machinery: st.is_machinery(s) || st.is_folded(s),
            })
            .collect()
    };
    let redexes: Vec<LabelKey> = taken.iter().map(|t| t.key).collect();
    let results: Vec<LabelKey> = taken
        .iter()
        .flat_map(|t| t.created.iter().copied())
        .collect();
    Stepper {
        what,
        before: lines(before, &|k| redexes.contains(&k)),
        after: lines(after, &|k| results.contains(&k)),
    }
}

/// The source lines (1-based) where some statement of the program on `m` was written, inside
/// function bodies too: where a line breakpoint can stop.
pub(crate) fn statement_lines(m: &Machine, env: &Env) -> BTreeSet<usize> {
    fn walk(t: &opal_core::machine::template::Template, env: &Env, out: &mut BTreeSet<usize>) {
        for st in &t.stmts {
            if let Some(at) = st.source_offset() {
                out.extend(env.line_at(Some(at)));
            }
            if let opal_core::machine::template::TOp::Fun(i) = st.op {
                walk(t.fun(i).0, env, out);
            }
        }
    }
    let mut out = BTreeSet::new();
    for s in m.iter() {
        out.extend(env.line_at(m.stmt(s).source_offset()));
        if let MOp::Fun(c) = m.stmt(s).op {
            if let Some((tpl, _)) = m.closure(c) {
                walk(tpl, env, &mut out);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_say_how_each_statement_stands_and_the_cache_follows_the_revision() {
        let (mut env, mut st) =
            crate::state::start("t.opal", "a := 1 + 2\nb := a + 3\n", None).expect("compiles");
        let cache = Cache::default();
        let rows: Vec<Row> = st
            .machine
            .iter()
            .map(|s| cache.row(0, &st, &env, s))
            .collect();
        let row = |text: &str| {
            rows.iter()
                .find(|r| r.text == text)
                .cloned()
                .unwrap_or_else(|| panic!("no row {text} in {rows:?}"))
        };
        let (a, b) = (row("a := add (1, 2)"), row("b := add (a, 3)"));
        assert!(
            a.status == RowStatus::Steppable(opal_core::machine::Rule::Dispatch)
                && a.line == Some(1),
            "{a:?}"
        );
        assert!(
            matches!(b.status, RowStatus::Waiting(_))
                && b.status.to_string().starts_with("waiting")
                && b.line == Some(2),
            "{b:?}"
        );
        assert_eq!(b.waits_on, Some(a.key), "b waits on a");
        assert_eq!(cache.find(0, &st, b.key), Some(b.id));
        env.apply(&mut st, &crate::state::Action::Round { at_ms: 0.0 }, 0)
            .expect("a round");
        let again = cache.row(1, &st, &env, a.id);
        assert_ne!(again, a, "a new revision builds the row again");
    }

    #[test]
    fn a_call_that_failed_stands_as_failed_and_says_stuck() {
        let (mut env, mut st) =
            crate::state::start("t.opal", "a := 1 / 0\nprint (&stdout, a)\n", None)
                .expect("compiles");
        for at in 0..4 {
            let _ = env.apply(
                &mut st,
                &crate::state::Action::Round { at_ms: at as f64 },
                at,
            );
        }
        let rows: Vec<Row> = st.machine.iter().map(|s| build_row(&st, &env, s)).collect();
        let failed = rows
            .iter()
            .find(|r| r.status.is_failed())
            .unwrap_or_else(|| panic!("no failed row in {rows:?}"));
        assert_eq!(
            failed.status.to_string(),
            "stuck: the external call `div` failed: division by zero"
        );
        assert!(!failed.status.is_steppable() && failed.status.kind() == crate::kind::Kind::Stuck);
    }

    #[test]
    fn breakpoints_can_stop_inside_function_bodies() {
        let src = "f := fun x:\n    y := x + 1\n    ret y\nprint (&stdout, f 2)\n";
        let (env, st) = crate::state::start("t.opal", src, None).expect("compiles");
        let lines = statement_lines(&st.machine, &env);
        assert!(lines.contains(&2) && lines.contains(&4), "{lines:?}");
    }
}
