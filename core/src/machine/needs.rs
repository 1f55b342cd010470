//! What lazy evaluation must compute beyond the chain of needs from the result (issue 28).
//!
//! A Church list or boolean is a function, so a result or a data argument can be a value while
//! its elements are still unevaluated calls: printing it, or dispatching an external with it,
//! needs them, as call-by-value has them. Reading the value back after each one would cost
//! O(n) per element (the read-back stops at the first variable that is not a value), so a
//! depth-first walk visits what the value mentions once each: the components of tuples and
//! the captures of functions shaped as lists and booleans are (functions of a pair, `fun
//! (state, append)`, `fun (t, f)`); another function is printed as `<fun>` and needs nothing.
//! A walk is moved past what each step computed (`Machine::advance_walks`), so the scan
//! (`lazy_next`) and the stepper (`lazy_next_mut`) read the same next need.

use super::template::{TOp, TVar, Template};
use super::{MOp, Machine, StmtId, VarId};
use crate::names::{FastMap, FastSet};

/// A depth-first walk over the variables a value mentions: those still to visit, those met,
/// those met whose variable was released since (a stale entry on the stack: the slot may now
/// hold another variable), and the step count at which the walk and a read-back found the
/// value complete.
#[derive(Clone, Debug, Default)]
pub(super) struct NeedWalk {
    root: VarId,
    stack: Vec<VarId>,
    seen: FastSet<VarId>,
    dead: FastSet<VarId>,
    started: bool,
    done_at: Option<u64>,
}

/// The walks lazy evaluation keeps: the result's, and one per call waiting for its data
/// argument (dropped when the call dispatches or its statement goes).
#[derive(Clone, Debug, Default)]
pub(super) struct LazyWalks {
    print: NeedWalk,
    data: FastMap<StmtId, NeedWalk>,
}

impl LazyWalks {
    fn all(&mut self) -> impl Iterator<Item = &mut NeedWalk> {
        std::iter::once(&mut self.print).chain(self.data.values_mut())
    }

    /// `v` was released: its slot may be reused by another variable.
    pub(super) fn forget_var(&mut self, v: VarId) {
        for walk in self.all() {
            if walk.seen.remove(&v) {
                walk.dead.insert(v);
            }
        }
    }

    /// The statement `s` left the term or dispatched: no call of it waits for data.
    pub(super) fn forget_stmt(&mut self, s: StmtId) {
        if !self.data.is_empty() {
            self.data.remove(&s);
        }
    }

    /// reduce-alias keeps `kept` and releases `gone`: a walk that met `gone` meets `kept`
    /// (which now has its binding or its occurrences), in its place when it was the top.
    pub(super) fn survives(&mut self, gone: VarId, kept: VarId) {
        for walk in self.all() {
            if !walk.seen.contains(&gone) {
                continue;
            }
            match walk.stack.last_mut() {
                Some(top) if *top == gone => {
                    *top = kept;
                    walk.seen.insert(kept);
                    walk.dead.remove(&kept);
                }
                _ => {
                    if walk.seen.insert(kept) {
                        walk.dead.remove(&kept);
                        walk.stack.push(kept);
                    }
                }
            }
        }
    }

    pub(super) fn is_idle(&self) -> bool {
        !self.print.started && self.data.is_empty()
    }
}

/// A function shaped as a Church list or boolean: its parameter is a pair it projects.
fn pair_function(t: &Template) -> bool {
    t.stmts
        .iter()
        .take(4)
        .any(|s| matches!(s.op, TOp::Prj(2, TVar::Local(0))))
}

impl Machine {
    /// Moves every walk past what the last step computed (`step` calls it), so its top is the
    /// next variable still to compute.
    pub(super) fn advance_walks(&mut self) {
        if self.walks.is_idle() {
            return;
        }
        let mut walks = std::mem::take(&mut self.walks);
        if walks.print.started {
            self.walk_needs(&mut walks.print);
        }
        for walk in walks.data.values_mut() {
            self.walk_needs(walk);
        }
        self.walks = walks;
    }

    /// Once the result is a value, the next variable printing it needs (see the module).
    pub(super) fn lazy_print_need(&self) -> Option<VarId> {
        let walk = &self.walks.print;
        if walk.started {
            if let Some(v) = self.top_need(walk) {
                return Some(v);
            }
            if walk.done_at == Some(self.steps_total()) {
                return None;
            }
        }
        let mut walk = walk.clone();
        self.walk_print(&mut walk)
    }

    /// `lazy_print_need`, keeping the walk.
    pub(super) fn lazy_print_need_mut(&mut self) -> Option<VarId> {
        let mut walk = std::mem::take(&mut self.walks.print);
        let need = self.walk_print(&mut walk);
        self.walks.print = walk;
        need
    }

    /// What the call `s`, waiting for its data argument, waits on now, if it is walked.
    pub(super) fn data_need(&self, s: StmtId) -> Option<VarId> {
        self.walks.data.get(&s).and_then(|walk| self.top_need(walk))
    }

    /// Starts walking the data argument `w` of the call `s`.
    pub(super) fn walk_data(&mut self, s: StmtId, w: VarId) {
        let mut walk = NeedWalk {
            root: w,
            ..NeedWalk::default()
        };
        self.walk_needs(&mut walk);
        self.walks.data.insert(s, walk);
    }

    /// The walk's top, if it is a variable still to compute.
    fn top_need(&self, walk: &NeedWalk) -> Option<VarId> {
        let &v = walk.stack.last()?;
        (!walk.dead.contains(&v) && self.binder(v).is_some() && !self.is_value_var(v)).then_some(v)
    }

    /// Continues the result's walk; when it ends, a read-back confirms the value complete (a
    /// variable the walk lost to a rename is found by one new walk, or named by the read-back).
    fn walk_print(&self, walk: &mut NeedWalk) -> Option<VarId> {
        let mut needs = Vec::new();
        for _fresh_walk in 0..2 {
            if !walk.started {
                walk.root = self.ret;
            }
            if walk.done_at == Some(self.steps_total()) {
                return None;
            }
            if let Some(v) = self.walk_needs(walk) {
                return Some(v);
            }
            needs = self.print_needs();
            if needs.is_empty() {
                walk.done_at = Some(self.steps_total());
                return None;
            }
            walk.started = false;
        }
        needs.first().copied()
    }

    /// Continues `walk` depth first from its root to the next variable that is not a value
    /// (left on its stack), or `None` when every variable the root mentions is one.
    fn walk_needs(&self, walk: &mut NeedWalk) -> Option<VarId> {
        if !walk.started {
            *walk = NeedWalk {
                root: walk.root,
                stack: vec![walk.root],
                seen: [walk.root].into_iter().collect(),
                started: true,
                ..NeedWalk::default()
            };
        }
        while let Some(&v) = walk.stack.last() {
            if walk.dead.contains(&v) {
                walk.stack.pop();
                continue;
            }
            let op = self.binder(v).map(|b| self.stmts[b].op);
            let inner: &[VarId] = match op {
                None | Some(MOp::Gone | MOp::Prim(_)) => &[],
                Some(MOp::Tuple(xs)) => self.tuple(xs),
                Some(MOp::Fun(c)) => match self.closure(c) {
                    Some((tpl, env)) if pair_function(tpl) => env,
                    _ => &[],
                },
                Some(_) => return Some(v),
            };
            walk.stack.pop();
            for &x in inner.iter().rev() {
                if walk.seen.insert(x) {
                    walk.dead.remove(&x);
                    walk.stack.push(x);
                }
            }
        }
        None
    }

    /// The variables the result's read-back waits on, in the order it meets them.
    fn print_needs(&self) -> Vec<VarId> {
        self.readback_needs(self.ret, super::readback::Budget::RESULT)
    }

    /// Is `v` bound to a value (a function, tuple or primitive)?
    pub(super) fn is_value_var(&self, v: VarId) -> bool {
        self.binder(v).is_some_and(|b| self.stmts[b].op.is_value())
    }

    /// The variable lazy evaluation's result waits on, for a message about why it cannot be
    /// computed.
    pub fn lazy_print_waits_on(&self) -> Option<VarId> {
        self.top_need(&self.walks.print)
    }
}
