//! How views name a variable: by the name the program gave it (`city`, `city#2` where several
//! loop iterations' copies are live), with the desugarer's temporaries folded into what they
//! stand for (`print (stdout, city#1)`, not `print t'3@5.6.6`); the core notation (`x'1@5.6`)
//! stays in `Row::core` and the window's core view.

use crate::state::State;
use opal_core::machine::label::{LabelKey, ROOT};
use opal_core::machine::readback::{Budget, Value};
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
}

/// Components a folded tuple may show before it is named instead.
const FOLD_WIDTH: usize = 6;
/// Nested temporaries folded into one operand.
const FOLD_DEPTH: usize = 3;

impl State {
    /// `v` as the program named it (`city`, `city#2` in a loop iteration or a call), its
    /// temporaries folded; the core name if the program never named it.
    pub(crate) fn name(&self, v: VarId) -> String {
        self.folded(v, FOLD_DEPTH)
    }

    /// `v` where it is bound: the program's name, else the core name (never folded).
    pub(crate) fn bind_name(&self, v: VarId) -> String {
        match self.machine.source_names(v).last() {
            Some(n) => self.marked(n),
            None => self.core_name(v),
        }
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
            return self.core_name(v);
        };
        // The threaded handle is the program's `stdout`, the sequencing token `seq`, whichever
        // copy.
        if let base @ ("stdout" | "seq") = m.vars[v].name.base.as_str() {
            return base.into();
        }
        if depth == 0 || self.is_prelude_var(v) {
            return self.core_name(v);
        }
        match m.stmt(b).op {
            MOp::Prim(p) => m.prim(p).to_string(),
            MOp::Alias(y) => self.folded(y, depth - 1),
            // A list (or a boolean) reads as the paper writes it: `["Ho"] + <<…>>`.
            MOp::Fun(_) => match m.readback(v, Budget::VIEW) {
                r @ (Value::List(_) | Value::Bool(_)) => r.to_string(),
                _ => self.core_name(v),
            },
            MOp::Tuple(xs) if m.tuple(xs).len() <= FOLD_WIDTH => {
                let parts: Vec<String> = m
                    .tuple(xs)
                    .iter()
                    .map(|x| self.folded(*x, depth - 1))
                    .collect();
                let comma = if parts.len() == 1 { "," } else { "" };
                format!("({}{comma})", parts.join(", "))
            }
            _ => self.core_name(v),
        }
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
            _ => false,
        }
    }

    /// Is `v` bound in the environment (the prelude's definitions, labels `0.…`)?
    fn is_prelude_var(&self, v: VarId) -> bool {
        let m = &self.machine;
        m.binder(v)
            .is_some_and(|b| self.memo.0.borrow_mut().top(&m.labels, m.label_id(b)) == 0)
    }

    /// A source name with its iteration mark: none at the top level; `#k` for the k-th copy
    /// of the name a call or loop iteration made.
    fn marked(&self, n: &SourceName) -> String {
        let m = &self.machine;
        let name = n.name.base.to_string();
        if n.fresh == ROOT {
            return name;
        }
        let key = self.memo.0.borrow_mut().key(&m.labels, n.fresh);
        let Ok(mut marks) = self.marks.0.lock() else {
            return name;
        };
        let table = &mut *marks;
        let mark = match table.given.get(&(name.clone(), key)) {
            Some(k) => *k,
            None => {
                let count = table.count.entry(name.clone()).or_insert(0);
                *count += 1;
                table.given.insert((name.clone(), key), *count);
                *count
            }
        };
        format!("{name}#{mark}")
    }
}
