//! Steppability (SEMANTICS.md §3): which rule applies at a statement, or why none does, and
//! that reason in words a student understands.

use super::*;

/// Externals' arguments may nest tuples this deep (deeper ones are stuck, not a crash).
pub const MAX_ARG_DEPTH: usize = 1000;

/// Why a statement cannot step (`Machine::steppable`); `Machine::status` puts it in words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blocked {
    Gone,
    Value,
    Pending,
    NotBound(VarId),
    FunInArg(VarId),
    ArgTooDeep,
    /// The argument holds a list or dictionary nested deeper than a read-back goes.
    DataTooDeep,
    /// The argument holds a list or dictionary too big to read back.
    DataTooBig,
    WaitPrim(VarId),
    CallPrim(VarId),
    CallTuple(VarId),
    WaitTask(VarId),
    WaitFun(VarId),
    PrjRange(u32, usize),
    PrjFun(u32, VarId),
    PrjPrim(u32, VarId),
    WaitTuple(VarId),
    /// An external's argument holds data (a list, a boolean, a dictionary) that is not
    /// complete yet: it waits on this variable.
    WaitData(VarId),
    Failed(TaskId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    ReduceAlias,
    ReduceCall,
    ReduceProj,
    ReduceGc,
    Dispatch,
    Resolve,
}

impl Rule {
    pub const ALL: [Rule; 6] = [
        Rule::ReduceAlias,
        Rule::ReduceCall,
        Rule::ReduceProj,
        Rule::ReduceGc,
        Rule::Dispatch,
        Rule::Resolve,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Rule::ReduceAlias => "reduce-alias",
            Rule::ReduceCall => "reduce-call",
            Rule::ReduceProj => "reduce-proj",
            Rule::ReduceGc => "reduce-gc",
            Rule::Dispatch => "dispatch",
            Rule::Resolve => "resolve",
        }
    }
}

/// What a statement can do now, in words a student understands (`Machine::status`).
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    Steppable(Rule),
    /// A value (function, tuple or primitive) that is still used.
    Value,
    /// Cannot step yet: waiting for `on` (a variable) and why.
    Waiting {
        on: Option<VarId>,
        why: String,
    },
    /// A dispatched external call whose result has not arrived.
    Pending,
    /// Can never step: the program is wrong here, or its external call failed.
    Stuck(String),
}

impl Machine {
    /// Builds the primitive expression of a variable that `pexp_ready` accepted.
    pub(super) fn pexp_of(&self, x: VarId) -> PExp {
        match self.binder(x).map(|b| self.stmts[b].op) {
            Some(MOp::Prim(c)) => PExp::Prim(self.prim(c).clone()),
            Some(MOp::Tuple(xs)) => {
                PExp::Tuple(self.tuple(xs).iter().map(|x| self.pexp_of(*x)).collect())
            }
            _ => PExp::Tuple(vec![]),
        }
    }

    /// Is `x ↑E c̄` defined? Iterative, and bounded by `MAX_ARG_DEPTH`, so a hostile nesting
    /// of tuples cannot overflow the stack (here or when the argument is built and dropped).
    pub(super) fn pexp_ready(&self, x: VarId) -> Result<(), Blocked> {
        // Fast path, allocation-free: a primitive, or a flat tuple of primitives.
        // The answer for a leaf (a variable that is not bound to a tuple); `None` for a tuple.
        let leaf = |v: VarId| -> Option<Result<(), Blocked>> {
            let Some(b) = self.binder(v) else {
                return Some(Err(Blocked::NotBound(v)));
            };
            match self.stmts[b].op {
                MOp::Prim(_) => Some(Ok(())),
                MOp::Tuple(_) => None,
                MOp::Fun(_) => Some(Err(Blocked::FunInArg(v))),
                _ => Some(Err(Blocked::WaitPrim(v))),
            }
        };
        // Also without allocating: a flat tuple, or one whose first components up to the first
        // one in the way are leaves. Components are visited first to last (here and in the
        // walk below), so what a call waits on is its leftmost missing part: lazy evaluation
        // needs an ordered call's token, `(seq, x)`, before its argument, and so runs the
        // prints before it first, as the program wrote them.
        match self.binder(x).map(|b| self.stmts[b].op) {
            Some(MOp::Tuple(xs)) => {
                let mut nested = false;
                for v in self.tuple(xs).iter() {
                    match leaf(*v) {
                        Some(Ok(())) => {}
                        Some(Err(e)) => return Err(e),
                        None => {
                            nested = true;
                            break;
                        }
                    }
                }
                if !nested {
                    return Ok(());
                }
            }
            _ => {
                if let Some(r) = leaf(x) {
                    return r;
                }
            }
        }
        let mut stack = vec![(x, 0usize)];
        while let Some((x, depth)) = stack.pop() {
            if depth > MAX_ARG_DEPTH {
                return Err(Blocked::ArgTooDeep);
            }
            match leaf(x) {
                Some(r) => r?,
                None => {
                    if let Some(MOp::Tuple(xs)) = self.binder(x).map(|b| self.stmts[b].op) {
                        stack.extend(self.tuple(xs).iter().rev().map(|x| (*x, depth + 1)));
                    }
                }
            }
        }
        Ok(())
    }

    /// The argument `w` as data (a list, boolean or dictionary inside it read back), or what
    /// it waits on; a function that is not data makes the call stuck (`FunInArg`).
    pub(super) fn data_arg(&self, w: VarId) -> Result<PExp, Blocked> {
        let (r, cost) = self.data(w, readback::Budget::RESULT);
        self.data_cost.set(cost as u64);
        match r {
            Ok(p) => Ok(p),
            Err(readback::NoData::Waits(v)) => Err(Blocked::WaitData(v)),
            Err(readback::NoData::TooDeep) => Err(Blocked::DataTooDeep),
            Err(readback::NoData::TooBig) => Err(Blocked::DataTooBig),
            Err(readback::NoData::Function) => Err(Blocked::FunInArg(w)),
        }
    }

    /// The rule that applies at `s`, or why none does. Allocation-free: the strategies call
    /// it for every statement a step touched.
    pub fn steppable(&self, s: StmtId) -> Result<Rule, Blocked> {
        let node = &self.stmts[s];
        match node.op {
            MOp::Gone => Err(Blocked::Gone),
            MOp::Alias(_) => Ok(Rule::ReduceAlias),
            MOp::Fun(_) | MOp::Tuple(_) | MOp::Prim(_) => {
                if self.vars[node.bind].count == 0 {
                    Ok(Rule::ReduceGc)
                } else {
                    Err(Blocked::Value)
                }
            }
            MOp::Call(f, w) => {
                let Some(fb) = self.binder(f) else {
                    return Err(Blocked::NotBound(f));
                };
                match self.stmts[fb].op {
                    MOp::Fun(_) => Ok(Rule::ReduceCall),
                    MOp::Prim(p) if matches!(self.prim(p), Prim::Ext(_)) => {
                        match self.pexp_ready(w) {
                            Ok(()) => Ok(Rule::Dispatch),
                            Err(Blocked::FunInArg(_)) => self.data_arg(w).map(|_| Rule::Dispatch),
                            Err(e) => Err(e),
                        }
                    }
                    MOp::Prim(_) => Err(Blocked::CallPrim(f)),
                    MOp::Tuple(_) => Err(Blocked::CallTuple(f)),
                    MOp::Task(_) => Err(Blocked::WaitTask(f)),
                    _ => Err(Blocked::WaitFun(f)),
                }
            }
            MOp::Prj(i, x) => {
                let Some(xb) = self.binder(x) else {
                    return Err(Blocked::NotBound(x));
                };
                match self.stmts[xb].op {
                    MOp::Tuple(xs) if (i as usize) >= 1 && (i as usize) <= xs.len() => {
                        Ok(Rule::ReduceProj)
                    }
                    MOp::Tuple(xs) => Err(Blocked::PrjRange(i, xs.len())),
                    MOp::Fun(_) => Err(Blocked::PrjFun(i, x)),
                    MOp::Prim(_) => Err(Blocked::PrjPrim(i, x)),
                    _ => Err(Blocked::WaitTuple(x)),
                }
            }
            MOp::Task(t) => match &self.tasks[t].outcome {
                None => Err(Blocked::Pending),
                Some(Outcome::Failed(_)) => Err(Blocked::Failed(t)),
                Some(_) => Ok(Rule::Resolve),
            },
        }
    }

    pub fn status(&self, s: StmtId) -> Status {
        // By the program's names where a debugger keeps them (`opal run` keeps none).
        self.status_named(s, &|v| self.shown_name(v))
    }

    /// `status`, naming variables by `name` (a debugger's view names).
    pub fn status_named(&self, s: StmtId, name: &dyn Fn(VarId) -> String) -> Status {
        match self.steppable(s) {
            Ok(r) => Status::Steppable(r),
            Err(b) => self.explain(b, name),
        }
    }

    /// Why a statement cannot step, in words, naming variables by `name`.
    fn explain(&self, b: Blocked, name: &dyn Fn(VarId) -> String) -> Status {
        let prim = |v: VarId| match self.binder(v).map(|b| self.stmts[b].op) {
            Some(MOp::Prim(p)) => crate::diag::clip_display(self.prim(p)),
            _ => name(v),
        };
        let waiting = |on: VarId, why: String| Status::Waiting { on: Some(on), why };
        match b {
            Blocked::Gone => Status::Stuck("this statement no longer exists".into()),
            Blocked::Value => Status::Value,
            Blocked::Pending => Status::Pending,
            Blocked::NotBound(v) => Status::Stuck(format!("`{}` is not bound", name(v))),
            Blocked::FunInArg(v) => {
                Status::Stuck(format!("the argument contains a function (`{}`); externals take only primitives and tuples of them", name(v)))
            }
            Blocked::ArgTooDeep => Status::Stuck(format!("the argument nests tuples more than {MAX_ARG_DEPTH} deep; pass an external something flatter")),
            Blocked::DataTooDeep => Status::Stuck(format!(
                "the argument nests lists, dictionaries or tuples more than {} levels deep; pass an external something flatter",
                readback::Budget::RESULT.depth
            )),
            Blocked::DataTooBig => Status::Stuck(format!(
                "the argument could not be read back as data within {} steps (a list of millions of items, or a function that loops); pass an external something smaller",
                readback::Budget::RESULT.steps
            )),
            Blocked::WaitPrim(v) => waiting(v, format!("waiting for `{}` to become a primitive value", name(v))),
            Blocked::CallPrim(v) => Status::Stuck(format!("`{}` is the primitive {}, not a function, so it cannot be called", name(v), prim(v))),
            Blocked::CallTuple(v) => Status::Stuck(format!("`{}` is a tuple, not a function, so it cannot be called", name(v))),
            Blocked::WaitTask(v) => waiting(v, format!("waiting for the external call that computes `{}` to resolve", name(v))),
            Blocked::WaitFun(v) => waiting(v, format!("waiting for `{}` to become a function", name(v))),
            Blocked::PrjRange(i, n) => Status::Stuck(format!("`prj {i}` of a tuple with {n} components")),
            Blocked::PrjFun(i, v) => Status::Stuck(format!("`prj {i}` of a function (`{}`)", name(v))),
            Blocked::PrjPrim(i, v) => Status::Stuck(format!("`prj {i}` of the primitive {}", prim(v))),
            Blocked::WaitTuple(v) => waiting(v, format!("waiting for `{}` to become a tuple", name(v))),
            Blocked::WaitData(v) => waiting(v, format!("waiting for `{}`: the argument's list (or dictionary) is not complete yet", name(v))),
            Blocked::Failed(t) => {
                let task = &self.tasks[t];
                let e = match &task.outcome {
                    Some(Outcome::Failed(e)) => e.as_str(),
                    _ => "",
                };
                Status::Stuck(format!("the external call `{}` failed: {e}", task.ext))
            }
        }
    }
}
