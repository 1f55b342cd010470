//! The names the program gave its variables, kept through reduce-alias for a debugger.
//!
//! The calculus renames freely: `city := prj 2 p'1` becomes `city := x'1@5.6` and
//! reduce-alias then replaces `city` by the prelude's `x'1@5.6` everywhere. The term is right,
//! but a person debugging the loop asked for `city`. When a machine keeps source names
//! (`Machine::keep_source_names`, off unless a debugger asks: `opal run` pays nothing), every
//! variable that survives an alias also carries the source names of the variables it
//! replaced, with the label each was freshened at (which loop iteration or call it belongs
//! to). `Machine::source_names` reads them.

use super::label::LabelId;
use super::{Machine, VarId, FREED};
use crate::desugar::Program;
use crate::ir::{Op, Stmt};
use crate::names::{FastMap, Name};
use std::collections::HashSet;
use std::sync::Arc;

fn add_names(to: &mut Vec<SourceName>, names: Vec<SourceName>) {
    for n in names {
        if !to.contains(&n) {
            to.push(n);
        }
    }
}

/// A name the program wrote for a variable, and the label of the call that freshened it
/// (`ROOT` at the top level): `city` of the loop iteration inlined at `5.6.6`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceName {
    pub name: Name,
    pub fresh: LabelId,
}

#[derive(Clone, Default)]
pub(super) struct SourceNames {
    /// Core names the program's own variables got (`Symbols::defs`, `Symbols::user_names`).
    user: Arc<HashSet<Name>>,
    /// Core names bound in the environment (the prelude): a user name that is also one of
    /// these is the user's only where the program wrote its binding statement.
    prelude: Arc<HashSet<Name>>,
    /// Source names a variable took over from variables aliased into it.
    taken: FastMap<VarId, Vec<SourceName>>,
}

impl SourceNames {
    /// Renumbers the kept names' labels after a compaction.
    pub(super) fn relabel(&mut self, re: &dyn Fn(LabelId) -> LabelId) {
        for s in self.taken.values_mut().flatten() {
            s.fresh = re(s.fresh);
        }
    }
}

fn bound_names(stmts: &[Stmt], out: &mut HashSet<Name>) {
    for s in stmts {
        out.insert(s.bind);
        if let Op::Fun(f) = &s.op {
            out.insert(f.param);
            bound_names(&f.body.stmts, out);
        }
    }
}

impl Machine {
    /// From now on, keep the program's names through reduce-alias (`source_names`).
    pub fn keep_source_names(&mut self, p: &Program) {
        // A handle (`&stdout`) is threaded through the program as a variable per use: the
        // program never names those copies.
        let handles: HashSet<&str> = p
            .symbols
            .refs
            .iter()
            .filter_map(|(_, t)| match t {
                crate::desugar::RefTarget::Handle(h) => Some(h.as_str()),
                _ => None,
            })
            .collect();
        let user = (p.symbols.defs.iter().map(|d| d.core))
            .chain(p.symbols.user_names.iter().copied())
            .filter(|n| {
                let base = n.base.as_str();
                !handles.contains(base) && base != "stdout" && base != crate::ir::SEQ_TOKEN
            })
            .collect();
        let mut prelude = HashSet::new();
        bound_names(&p.env, &mut prelude);
        self.source_names = Some(Box::new(SourceNames {
            user: Arc::new(user),
            prelude: Arc::new(prelude),
            taken: FastMap::default(),
        }));
    }

    /// Is `v`'s own name one the program wrote (not a temporary of the desugarer, not the
    /// prelude's)?
    fn is_user_var(&self, names: &SourceNames, v: VarId) -> bool {
        let n = &self.vars[v];
        if !names.user.contains(&n.name) {
            return false;
        }
        if !names.prelude.contains(&n.name) {
            return true;
        }
        // Written there by the program: a prelude body inlined at a call the program wrote
        // carries the call's place, but only as inherited.
        self.binder(v)
            .is_some_and(|b| self.stmts[b].written_at().is_some())
    }

    /// The names the program gave `v`: its own if the program wrote it, then those of the
    /// variables aliased into it, oldest first. Empty without `keep_source_names`.
    pub fn source_names(&self, v: VarId) -> Vec<SourceName> {
        let Some(names) = &self.source_names else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if self.vars.get(v).is_some_and(|n| n.binder != FREED) && self.is_user_var(names, v) {
            out.push(SourceName {
                name: self.vars[v].name,
                fresh: self.vars[v].fresh,
            });
        }
        if let Some(t) = names.taken.get(&v) {
            out.extend(
                t.iter()
                    .filter(|t| !out.contains(t))
                    .copied()
                    .collect::<Vec<_>>(),
            );
        }
        out
    }

    /// Reduce-alias of `y := x` renames `gone` (`y`) into `survivor` (`x`): `survivor`
    /// keeps `gone`'s names (`own`, read before its alias statement left, and those it took
    /// over).
    pub(super) fn names_move(&mut self, gone: VarId, own: Option<SourceName>, survivor: VarId) {
        let Some(names) = &mut self.source_names else {
            return;
        };
        let mut moved: Vec<SourceName> = own.into_iter().collect();
        moved.extend(names.taken.remove(&gone).unwrap_or_default());
        add_names(names.taken.entry(survivor).or_default(), moved);
    }

    /// Reduce-alias of `y := x` where `y` took `x`'s binding, name and label (`alias_into`):
    /// `y` carries `x`'s names (`x_own` and those `x` took over) first, then its own (`y_own`,
    /// read before its alias statement left) and those it had.
    pub(super) fn names_take_identity(
        &mut self,
        x: VarId,
        x_own: Option<SourceName>,
        y: VarId,
        y_own: Option<SourceName>,
    ) {
        let Some(names) = &mut self.source_names else {
            return;
        };
        let mut all: Vec<SourceName> = x_own.into_iter().collect();
        all.extend(names.taken.remove(&x).unwrap_or_default());
        all.extend(y_own);
        all.extend(names.taken.remove(&y).unwrap_or_default());
        let mut t = Vec::new();
        add_names(&mut t, all);
        if !t.is_empty() {
            names.taken.insert(y, t);
        }
    }

    /// `x`'s own name, if it is one the program wrote (before `alias_into` moves it).
    pub(super) fn own_source_name(&self, x: VarId) -> Option<SourceName> {
        let names = self.source_names.as_ref()?;
        self.is_user_var(names, x).then(|| SourceName {
            name: self.vars[x].name,
            fresh: self.vars[x].fresh,
        })
    }

    /// A variable's slot is free: it carries no names any more.
    pub(super) fn names_forget(&mut self, v: VarId) {
        if let Some(names) = &mut self.source_names {
            if !names.taken.is_empty() {
                names.taken.remove(&v);
            }
        }
    }

    /// The labels the kept names hold (roots when the label table is compacted).
    pub(super) fn names_labels(&self) -> Vec<LabelId> {
        match &self.source_names {
            Some(n) => n.taken.values().flatten().map(|s| s.fresh).collect(),
            None => Vec::new(),
        }
    }

    /// `v` by the name the program gave it, with the label it was freshened at (`city@5.6.6`);
    /// the core name if it has none.
    pub fn shown_name(&self, v: VarId) -> String {
        match self.source_names(v).last() {
            Some(n) if n.fresh == super::label::ROOT => n.name.base.to_string(),
            Some(n) => format!("{}@{}", n.name.base, self.labels.show(n.fresh)),
            None => self.var_name(v),
        }
    }

    /// The label of the step that freshened `v` (`ROOT` if none): which call or loop
    /// iteration's copy it is.
    pub fn fresh_label(&self, v: VarId) -> LabelId {
        self.vars[v].fresh
    }

    /// Is the label `fresh` (a source name's) the label of statement `s` or one of its
    /// prefixes: is a variable freshened there in scope at `s`?
    pub fn in_scope_at(&self, fresh: LabelId, s: super::StmtId) -> bool {
        let Some(n) = self.stmts.get(s) else {
            return false;
        };
        self.labels.is_prefix(fresh, n.label)
    }
}
