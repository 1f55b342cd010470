//! The order of call-by-value and lazy evaluation (SEMANTICS.md §5): the next statement each
//! strategy steps, following lazy evaluation's chain of needs from the result.

use super::*;

/// One link of lazy evaluation's chain of needs (`Machine::lazy_at`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Need {
    Step(StmtId),
    On(VarId),
    /// A call whose data argument is not complete, read back just now: it waits on the
    /// variable (the first its read-back met; `lazy_next_mut` then walks the whole argument,
    /// `needs.rs`).
    OnData(StmtId, VarId),
    Value,
    Blocked,
}

impl Need {
    pub(super) fn on(self) -> Option<VarId> {
        match self {
            Need::On(v) | Need::OnData(_, v) => Some(v),
            _ => None,
        }
    }
}

/// The next move of lazy evaluation (`Machine::lazy_next`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lazy {
    Step(StmtId),
    /// The return variable is a value.
    Done,
    /// What the result needs cannot step (yet).
    Blocked,
}

impl Machine {
    /// What cbv steps next: the leftmost statement that is not a value, if it is steppable
    /// (SEMANTICS.md §5; a task or a stuck statement there stops it).
    pub fn cbv_next(&self) -> Option<StmtId> {
        let s = self.iter().find(|s| !self.stmts[*s].op.is_value())?;
        self.steppable(s).is_ok().then_some(s)
    }

    /// `cbv_next` in O(1) amortised, for a caller that steps what it returns (the runner, the
    /// debugger's cbv action).
    pub fn cbv_next_mut(&mut self) -> Option<StmtId> {
        let mut cur = if self.cbv_hint == NONE {
            self.head
        } else {
            self.cbv_hint
        };
        while cur != NONE && self.stmts[StmtId::from_raw(cur)].op.is_value() {
            self.cbv_hint = cur;
            cur = self.stmts[StmtId::from_raw(cur)].next;
        }
        if cur == NONE {
            return None;
        }
        self.cbv_hint = cur;
        let s = StmtId::from_raw(cur);
        self.steppable(s).is_ok().then_some(s)
    }

    /// `lazy_next` in O(1) amortised (the chain of needs is kept between steps), for a caller
    /// that steps what it returns.
    pub fn lazy_next_mut(&mut self) -> Lazy {
        let Some(root) = self.lazy_root().or_else(|| self.lazy_print_need_mut()) else {
            return Lazy::Done;
        };
        if self.lazy_stack.first() != Some(&root) {
            self.lazy_stack.clear();
            self.lazy_stack.push(root);
        }
        // The step just taken may have renamed the top (alias) or made it a value.
        while let [.., parent, top] = self.lazy_stack[..] {
            if self.lazy_at(parent).on() == Some(top) {
                break;
            }
            self.lazy_stack.pop();
        }
        // A chain longer than the term has a cycle (ill-formed): give up as the scan would.
        let limit = self.live + 1;
        loop {
            let Some(&top) = self.lazy_stack.last() else {
                return Lazy::Blocked;
            };
            let next = match self.lazy_at(top) {
                Need::Step(b) => {
                    self.lazy_proposed = b.raw();
                    return Lazy::Step(b);
                }
                Need::Blocked | Need::Value => return Lazy::Blocked,
                Need::On(v) => v,
                Need::OnData(call, v) => {
                    if let MOp::Call(_, w) = self.stmts[call].op {
                        self.walk_data(call, w);
                    }
                    v
                }
            };
            if self.lazy_stack.len() > limit {
                return Lazy::Blocked;
            }
            self.lazy_stack.push(next);
        }
    }

    /// The first part of the result lazy evaluation still has to compute: the return variable,
    /// or once that is a tuple, its first component (depth first) that is not a value.
    pub(super) fn lazy_root(&self) -> Option<VarId> {
        match self.binder(self.ret).map(|b| self.stmts[b].op) {
            Some(MOp::Tuple(_)) => {}
            Some(MOp::Fun(_) | MOp::Prim(_)) | None => return None,
            Some(_) => return Some(self.ret),
        }
        let mut seen = std::collections::HashSet::new();
        let mut result = vec![self.ret];
        while let Some(v) = result.pop() {
            if !seen.insert(v) {
                continue;
            }
            match self.binder(v).map(|b| self.stmts[b].op) {
                Some(MOp::Tuple(xs)) => result.extend(self.tuple(xs).iter().rev()),
                Some(MOp::Fun(_) | MOp::Prim(_)) | None => {}
                Some(_) => return Some(v),
            }
        }
        None
    }

    /// One link of lazy evaluation's chain: what computing `need` takes next.
    pub(super) fn lazy_at(&self, need: VarId) -> Need {
        let Some(b) = self.binder(need) else {
            return Need::Blocked;
        };
        match self.stmts[b].op {
            MOp::Fun(_) | MOp::Tuple(_) | MOp::Prim(_) => Need::Value,
            MOp::Gone => Need::Blocked,
            MOp::Alias(_) => Need::Step(b),
            MOp::Task(_) => {
                if self.steppable(b).is_ok() {
                    Need::Step(b)
                } else {
                    Need::Blocked
                }
            }
            MOp::Call(..) => {
                // A data argument known to wait: what it waits on, without reading it back.
                if let Some(v) = self.data_need(b) {
                    return Need::On(v);
                }
                // What `explain` calls waiting, without writing its message.
                match self.steppable(b) {
                    Ok(_) => Need::Step(b),
                    Err(
                        Blocked::WaitPrim(v)
                        | Blocked::WaitTask(v)
                        | Blocked::WaitFun(v)
                        | Blocked::WaitTuple(v),
                    ) => Need::On(v),
                    Err(Blocked::WaitData(v)) => Need::OnData(b, v),
                    Err(_) => Need::Blocked,
                }
            }
            MOp::Prj(_, x) => match self.steppable(b) {
                Ok(_) => Need::Step(b),
                Err(
                    Blocked::WaitPrim(_)
                    | Blocked::WaitTask(_)
                    | Blocked::WaitFun(_)
                    | Blocked::WaitTuple(_),
                ) => Need::On(x),
                Err(_) => Need::Blocked,
            },
        }
    }

    /// What lazy evaluation steps next: follow what the return variable needs — the binder of
    /// a needed variable; for a call first its function, for a projection first its tuple.
    /// Printing the result needs its tuple components too, so once the return variable is a
    /// tuple, its components are needed in order (a function or primitive needs nothing more).
    /// O(length of the chain of needs); a stepper uses `lazy_next_mut`.
    pub fn lazy_next(&self) -> Lazy {
        let Some(mut need) = self.lazy_root().or_else(|| self.lazy_print_need()) else {
            return Lazy::Done;
        };
        let mut seen = std::collections::HashSet::new();
        while seen.insert(need) {
            match self.lazy_at(need) {
                Need::Step(b) => return Lazy::Step(b),
                Need::On(v) | Need::OnData(_, v) => need = v,
                Need::Value | Need::Blocked => return Lazy::Blocked,
            }
        }
        Lazy::Blocked
    }
}
