//! Reading a value back as the paper writes it: Church booleans as `true`/`false`, Church
//! lists (paper §4.1) as `["a", "b"]`, partial lists (§4.2, Fig. 10) as
//! `["Ho"] + <<get_cities_in "Oceania">>`, tuples as tuples.
//!
//! A function value is read back by applying it to probes, symbolically, without touching the
//! machine: a list is whatever, applied to `(state, append)`, returns `state` with elements
//! appended (and holes: a task applied to `(state, append)`); a boolean is whatever, applied to
//! `(t, f)`, calls `t ()` or `f ()`. The evaluator knows only the six core operations, so it
//! reads back every encoding the desugarer, the prelude (`cons`, `concat`, `map` with a pure
//! function, …) and streamed results produce. It is bounded (steps and nesting), so a function
//! that loops or calls an external reads back as `<fun>`, never hangs.

use super::template::{TOp, TVar, Template};
use super::{MOp, Machine, VarId};
use crate::ir::{write_str_lit, PExp, Prim, DICT_TAG, SET_TAG};
use std::fmt::{self, Write};
use std::rc::Rc;

/// A value as the paper writes it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Prim(Prim),
    Tuple(Vec<Value>),
    Bool(bool),
    /// A (possibly partial) list: its known elements and holes, in order.
    List(Vec<Part>),
    /// A dictionary `(dict, [(key, value), …])`: its entries in order.
    Dict(Vec<(Value, Value)>),
    /// A Python set `(set, [x, …])`: its elements in insertion order.
    Set(Vec<Value>),
    /// A function that is neither a boolean nor a list (or could not be read back in budget).
    Fun,
    /// A dispatched external call that has not resolved: `<<ext arg>>`.
    Task(String),
    /// A variable not bound to a value yet (its name).
    Unknown(String),
}

/// A piece of a list: an element, or a hole that a pending task fills (`<<ext arg>>`).
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    Item(Value),
    Hole(String),
}

/// How much work one readback may do.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Symbolic operations in all (a list of n elements costs about 3n).
    pub steps: usize,
    /// Nested values and non-tail calls.
    pub depth: usize,
}

impl Budget {
    /// For one row or tooltip of the debugger: small, so a frame stays fast.
    pub const VIEW: Budget = Budget {
        steps: 20_000,
        depth: 64,
    };
    /// For a program's printed result: big enough for a 10^6-element list.
    pub const RESULT: Budget = Budget {
        steps: 50_000_000,
        depth: 1000,
    };
}

impl Value {
    /// Is this a value the program could print (no function, task or unbound name inside)?
    pub fn is_complete(&self) -> bool {
        match self {
            Value::Prim(_) | Value::Bool(_) => true,
            Value::Tuple(xs) => xs.iter().all(Value::is_complete),
            Value::Dict(kvs) => kvs.iter().all(|(k, v)| k.is_complete() && v.is_complete()),
            Value::Set(xs) => xs.iter().all(Value::is_complete),
            Value::List(parts) => parts
                .iter()
                .all(|p| matches!(p, Part::Item(v) if v.is_complete())),
            Value::Fun | Value::Task(_) | Value::Unknown(_) => false,
        }
    }

    /// The value as data for an external, if it is complete.
    pub fn to_data(&self) -> Option<PExp> {
        Some(match self {
            Value::Prim(p) => PExp::Prim(p.clone()),
            Value::Tuple(xs) => PExp::Tuple(xs.iter().map(Value::to_data).collect::<Option<_>>()?),
            Value::Bool(b) => PExp::Bool(*b),
            Value::List(parts) => PExp::List(
                parts
                    .iter()
                    .map(|p| match p {
                        Part::Item(v) => v.to_data(),
                        Part::Hole(_) => None,
                    })
                    .collect::<Option<_>>()?,
            ),
            Value::Dict(kvs) => PExp::Dict(
                kvs.iter()
                    .map(|(k, v)| Some((k.to_data()?, v.to_data()?)))
                    .collect::<Option<_>>()?,
            ),
            Value::Set(xs) => PExp::Set(xs.iter().map(Value::to_data).collect::<Option<_>>()?),
            Value::Fun | Value::Task(_) | Value::Unknown(_) => return None,
        })
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Prim(Prim::Str(s)) => write_str_lit(f, s),
            Value::Prim(p) => write!(f, "{p}"),
            Value::Tuple(xs) => {
                f.write_char('(')?;
                for (i, x) in xs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{x}")?;
                }
                if xs.len() == 1 {
                    f.write_char(',')?;
                }
                f.write_char(')')
            }
            Value::Bool(b) => write!(f, "{b}"),
            Value::Dict(kvs) => {
                f.write_char('{')?;
                for (i, (k, v)) in kvs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_char('}')
            }
            Value::Set(xs) => match self.to_data() {
                Some(p) => write!(f, "{p}"),
                None => {
                    f.write_str("set(")?;
                    for (i, x) in xs.iter().enumerate() {
                        f.write_str(if i > 0 { ", " } else { "{" })?;
                        write!(f, "{x}")?;
                    }
                    f.write_str(if xs.is_empty() { ")" } else { "})" })
                }
            },
            Value::List(parts) => {
                if parts.is_empty() {
                    return f.write_str("[]");
                }
                // Runs of elements in brackets, holes between them: `["a"] + h1 + ["m"]`.
                let mut first = true;
                let mut open = false;
                for p in parts {
                    match p {
                        Part::Item(v) => {
                            if !open {
                                if !first {
                                    f.write_str(" + ")?;
                                }
                                f.write_char('[')?;
                                open = true;
                            } else {
                                f.write_str(", ")?;
                            }
                            write!(f, "{v}")?;
                        }
                        Part::Hole(h) => {
                            if open {
                                f.write_char(']')?;
                                open = false;
                            }
                            if !first {
                                f.write_str(" + ")?;
                            }
                            f.write_str(h)?;
                        }
                    }
                    first = false;
                }
                if open {
                    f.write_char(']')?;
                }
                Ok(())
            }
            Value::Fun => f.write_str("<fun>"),
            Value::Task(t) => f.write_str(t),
            Value::Unknown(n) => f.write_str(n),
        }
    }
}

/// A symbolic value during readback. Cheap to clone: tuples and environments are shared, and
/// a list under construction is an index into a persistent (shared-tail) list of parts.
#[derive(Clone)]
enum Sym<'m> {
    /// A top-level variable of the term, looked at when needed.
    Var(VarId),
    Prim(Prim),
    Tuple(Rc<[Sym<'m>]>),
    Clo(&'m Template, Rc<[Sym<'m>]>),
    /// The list probe's state: the parts appended so far (`None`: none).
    State(Option<u32>),
    /// The list probe's `append`.
    Append,
    /// The boolean probe's branches, and the result of calling one with `()`.
    Branch(bool),
    Chose(bool),
    /// A pending task (a hole when applied to `(state, append)`).
    Task(VarId),
}

struct Reader<'m> {
    m: &'m Machine,
    /// The first variable met that is not a value yet (or a pending task's): what a
    /// readback that could not finish waits on.
    blocked: Option<VarId>,
    /// Every variable met that is not a value yet, when asked for (`readback_needs`).
    all_blocked: Option<Vec<VarId>>,
    /// Write the names of unknown values and tasks (for views; not for data or needs), by
    /// this function where a view gives one.
    names: bool,
    namer: Option<&'m dyn Fn(VarId) -> String>,
    steps: usize,
    depth: usize,
    max_depth: usize,
    /// The persistent list of parts: (part, previous).
    parts: Vec<(PartSym<'m>, Option<u32>)>,
    /// The budget ran out somewhere (a value read back as `…` or a function).
    spent: Option<Spent>,
}

#[derive(Clone)]
enum PartSym<'m> {
    Item(Sym<'m>),
    Hole(VarId),
}

/// Reading back failed (out of budget, or not a boolean or list): the value is a function.
struct NotData;

/// Why a value is not data an external can take (`Machine::data`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoData {
    /// It holds this variable, not a value yet (or a pending task's): it may become data.
    Waits(VarId),
    /// It nests deeper than the budget's depth.
    TooDeep,
    /// Reading it back took more than the budget's steps.
    TooBig,
    /// A function that is neither a boolean nor a list.
    Function,
}

/// Which part of a budget a read-back ran out of.
#[derive(Clone, Copy)]
enum Spent {
    Depth,
    Steps,
}

impl Machine {
    /// The value of `v` as the paper writes it, within `budget`.
    pub fn readback(&self, v: VarId, budget: Budget) -> Value {
        Reader::new(self, budget, true).value(&Sym::Var(v))
    }

    /// `readback`, writing a variable that is not a value yet by `name` (a debugger's view
    /// names: `states#2`).
    pub fn readback_named(
        &self,
        v: VarId,
        budget: Budget,
        name: &dyn Fn(VarId) -> String,
    ) -> Value {
        Reader {
            namer: Some(name),
            ..Reader::new(self, budget, true)
        }
        .value(&Sym::Var(v))
    }

    /// `v` as data for an external (`PExp`), if it reads back completely within `budget`;
    /// else why not: what it waits on (a variable not a value yet, or a pending task's), a
    /// budget it exceeds, or a function that is not a list or boolean. Also returns the
    /// symbolic steps it took, so callers can pace repeated checks.
    pub fn data(&self, v: VarId, budget: Budget) -> (Result<PExp, NoData>, usize) {
        let mut r = Reader::new(self, budget, false);
        let value = r.value(&Sym::Var(v));
        let used = budget.steps - r.steps;
        let why = match (r.blocked, r.spent) {
            (Some(v), _) => NoData::Waits(v),
            (None, Some(Spent::Depth)) => NoData::TooDeep,
            (None, Some(Spent::Steps)) => NoData::TooBig,
            (None, None) => NoData::Function,
        };
        (value.to_data().ok_or(why), used)
    }

    /// Every variable `v`'s read-back meets that is not a value yet (unevaluated, or a pending
    /// task's), in the order met: what printing `v` needs (lazy evaluation's result).
    pub fn readback_needs(&self, v: VarId, budget: Budget) -> Vec<VarId> {
        let mut r = Reader {
            all_blocked: Some(Vec::new()),
            ..Reader::new(self, budget, false)
        };
        r.value(&Sym::Var(v));
        r.all_blocked.unwrap_or_default()
    }

    /// `v`'s value as text (`["a", "b"]`, `true`, `(1, "x")`, `<fun>`) for views and results.
    pub fn readback_text(&self, v: VarId, budget: Budget) -> String {
        self.readback(v, budget).to_string()
    }
}

impl<'m> Reader<'m> {
    fn new(m: &'m Machine, budget: Budget, names: bool) -> Reader<'m> {
        Reader {
            m,
            blocked: None,
            all_blocked: None,
            names,
            namer: None,
            steps: budget.steps,
            depth: 0,
            max_depth: budget.depth,
            parts: Vec::new(),
            spent: None,
        }
    }

    /// Notes that `s` is not a value yet (an unevaluated variable or a pending task): the
    /// readback cannot finish until it is.
    fn wait_on(&mut self, s: &Sym<'m>) -> NotData {
        if let Sym::Var(v) | Sym::Task(v) = s {
            if self.blocked.is_none() {
                self.blocked = Some(*v);
            }
            if let Some(all) = &mut self.all_blocked {
                all.push(*v);
            }
        }
        NotData
    }

    fn task_text(&self, v: VarId) -> String {
        // Data and needs are not shown: no names to write (a deep label costs its depth).
        if !self.names {
            return String::new();
        }
        match self.m.binder(v).map(|b| self.m.stmts[b].op) {
            Some(MOp::Task(t)) => {
                let task = &self.m.tasks[t];
                task.text()
            }
            _ => self.m.var_name(v),
        }
    }

    /// Follows a top-level variable to what it is bound to (through aliases).
    fn resolve(&self, s: &Sym<'m>) -> Sym<'m> {
        let mut s = s.clone();
        // Aliases chain at most through every statement once.
        for _ in 0..=self.m.stmts.len() {
            let Sym::Var(v) = s else { return s };
            let Some(b) = self.m.binder(v) else {
                return Sym::Var(v);
            };
            s = match self.m.stmts[b].op {
                MOp::Prim(p) => Sym::Prim(self.m.prim(p).clone()),
                MOp::Tuple(xs) => {
                    Sym::Tuple(self.m.tuple(xs).iter().map(|x| Sym::Var(*x)).collect())
                }
                MOp::Fun(c) => match self.m.closure(c) {
                    Some((tpl, env)) => Sym::Clo(tpl, env.iter().map(|x| Sym::Var(*x)).collect()),
                    None => return Sym::Var(v),
                },
                MOp::Task(_) => Sym::Task(v),
                MOp::Alias(y) => Sym::Var(y),
                _ => return Sym::Var(v),
            };
        }
        s
    }

    fn value(&mut self, s: &Sym<'m>) -> Value {
        if self.depth >= self.max_depth {
            self.spent = Some(Spent::Depth);
            return Value::Unknown("…".into());
        }
        self.depth += 1;
        let v = match self.resolve(s) {
            Sym::Prim(p) => Value::Prim(p),
            Sym::Tuple(xs) => match self.tuple(&xs) {
                Value::Tuple(vs) => match &vs[..] {
                    [Value::Prim(Prim::Handle(tag)), Value::List(parts)] if &**tag == DICT_TAG => {
                        self.dict(parts).unwrap_or(Value::Tuple(vs))
                    }
                    [Value::Prim(Prim::Handle(tag)), Value::List(parts)] if &**tag == SET_TAG => {
                        let items = parts.iter().map(|p| match p {
                            Part::Item(v) => Some(v.clone()),
                            Part::Hole(_) => None,
                        });
                        match items.collect::<Option<Vec<_>>>() {
                            Some(xs) => Value::Set(xs),
                            None => Value::Tuple(vs),
                        }
                    }
                    _ => Value::Tuple(vs),
                },
                other => other,
            },
            t @ Sym::Task(v) => {
                self.wait_on(&t);
                Value::Task(self.task_text(v))
            }
            f @ Sym::Clo(..) => self.function(f),
            Sym::Var(v) => {
                self.wait_on(&Sym::Var(v));
                // By the program's name where the machine keeps them (a debugger).
                Value::Unknown(if let Some(name) = self.namer {
                    name(v)
                } else if self.names {
                    abbreviate(&self.m.shown_name(v))
                } else {
                    String::new()
                })
            }
            // Probes never escape a readback that succeeded.
            _ => Value::Fun,
        };
        self.depth -= 1;
        v
    }

    fn tuple(&mut self, xs: &Rc<[Sym<'m>]>) -> Value {
        Value::Tuple(xs.iter().map(|x| self.value(x)).collect())
    }

    /// A dictionary's entries, if every one is a (key, value) pair.
    fn dict(&self, parts: &[Part]) -> Option<Value> {
        let kvs = parts.iter().map(|p| match p {
            Part::Item(Value::Tuple(kv)) if kv.len() == 2 => Some((kv[0].clone(), kv[1].clone())),
            _ => None,
        });
        Some(Value::Dict(kvs.collect::<Option<_>>()?))
    }

    /// A function value: a boolean, a list, or `<fun>`.
    fn function(&mut self, f: Sym<'m>) -> Value {
        let steps = self.steps;
        // Any function of a pair that calls the pair's first component with `()` behaves
        // like `true`, `fix`'s step for a function of `()` included (§3.4's `diverge` read
        // back as `true`): only a function written as the paper writes booleans,
        // `fun (t, f): …`, reads back as one.
        let boolean = matches!(self.resolve(&f), Sym::Clo(t, _) if looks_boolean(t));
        let probe = Sym::Tuple(Rc::from([Sym::Branch(true), Sym::Branch(false)]));
        if boolean {
            if let Ok(Sym::Chose(b)) = self.apply(f.clone(), probe).map(|r| self.resolve(&r)) {
                return Value::Bool(b);
            }
        }
        self.steps = steps;
        let mark = self.parts.len();
        let probe = Sym::Tuple(Rc::from([Sym::State(None), Sym::Append]));
        let parts = match self.apply(f, probe).map(|r| self.resolve(&r)) {
            Ok(Sym::State(end)) => {
                let mut at = end;
                let mut rev = Vec::new();
                while let Some(i) = at {
                    let (p, prev) = self.parts[i as usize].clone();
                    rev.push(p);
                    at = prev;
                }
                rev.reverse();
                Some(rev)
            }
            _ => None,
        };
        self.parts.truncate(mark);
        match parts {
            Some(parts) => Value::List(
                parts
                    .into_iter()
                    .map(|p| match p {
                        PartSym::Item(x) => Part::Item(self.value(&x)),
                        PartSym::Hole(v) => {
                            // A hole is a task not resolved yet: data that holds it waits on it.
                            self.wait_on(&Sym::Task(v));
                            Part::Hole(self.task_text(v))
                        }
                    })
                    .collect(),
            ),
            None => Value::Fun,
        }
    }

    fn push_part(&mut self, state: Option<u32>, p: PartSym<'m>) -> Sym<'m> {
        self.parts.push((p, state));
        Sym::State(Some(self.parts.len() as u32 - 1))
    }

    /// `f x`, symbolically.
    fn apply(&mut self, f: Sym<'m>, x: Sym<'m>) -> Result<Sym<'m>, NotData> {
        let (mut f, mut x) = (f, x);
        // Tail calls loop here instead of recursing, so a long `cons` list or `fold` chain
        // costs no stack.
        loop {
            if self.steps == 0 {
                self.spent = Some(Spent::Steps);
                return Err(NotData);
            }
            self.steps -= 1;
            match self.resolve(&f) {
                w @ (Sym::Var(_) | Sym::Task(_))
                    if !matches!(w, Sym::Task(_)) || !self.is_list_probe(&x) =>
                {
                    return Err(self.wait_on(&w))
                }
                Sym::Clo(tpl, env) => match self.body(tpl, &env, x)? {
                    Next::Done(r) => return Ok(r),
                    Next::Call(g, y) => {
                        f = g;
                        x = y;
                    }
                },
                Sym::Append => {
                    let Sym::Tuple(xs) = self.resolve(&x) else {
                        return Err(self.wait_on(&x));
                    };
                    let [st, item] = &xs[..] else {
                        return Err(NotData);
                    };
                    let Sym::State(st) = self.resolve(st) else {
                        return Err(NotData);
                    };
                    return Ok(self.push_part(st, PartSym::Item(item.clone())));
                }
                Sym::Task(t) => {
                    let Sym::Tuple(xs) = self.resolve(&x) else {
                        return Err(NotData);
                    };
                    let [st, ap] = &xs[..] else {
                        return Err(NotData);
                    };
                    match (self.resolve(st), self.resolve(ap)) {
                        (Sym::State(st), Sym::Append) => {
                            return Ok(self.push_part(st, PartSym::Hole(t)))
                        }
                        _ => return Err(NotData),
                    }
                }
                Sym::Branch(b) => {
                    return match self.resolve(&x) {
                        Sym::Tuple(xs) if xs.is_empty() => Ok(Sym::Chose(b)),
                        _ => Err(NotData),
                    }
                }
                _ => return Err(NotData),
            }
        }
    }

    /// Runs a function body with parameter `x`; a call in tail position is returned, not made.
    fn body(
        &mut self,
        t: &'m Template,
        env: &Rc<[Sym<'m>]>,
        x: Sym<'m>,
    ) -> Result<Next<'m>, NotData> {
        if self.depth >= self.max_depth {
            self.spent = Some(Spent::Depth);
            return Err(NotData);
        }
        let mut locals: Vec<Option<Sym<'m>>> = vec![None; t.names.len()];
        locals[0] = Some(x);
        let get = |locals: &[Option<Sym<'m>>], v: TVar| -> Result<Sym<'m>, NotData> {
            match v {
                TVar::Local(i) => locals
                    .get(i as usize)
                    .and_then(|s| s.clone())
                    .ok_or(NotData),
                TVar::Free(i) => env.get(i as usize).cloned().ok_or(NotData),
            }
        };
        let last = t.stmts.len().checked_sub(1);
        for (k, s) in t.stmts.iter().enumerate() {
            if self.steps == 0 {
                self.spent = Some(Spent::Steps);
                return Err(NotData);
            }
            self.steps -= 1;
            let val = match s.op {
                TOp::Alias(y) => get(&locals, y)?,
                TOp::Prim(i) => Sym::Prim(t.prim(i).clone()),
                TOp::Tuple(start, len) => {
                    let xs: Result<Vec<Sym<'m>>, NotData> = t
                        .tuple(start, len)
                        .iter()
                        .map(|v| get(&locals, *v))
                        .collect();
                    Sym::Tuple(Rc::from(xs?))
                }
                TOp::Prj(i, y) => match self.resolve(&get(&locals, y)?) {
                    Sym::Tuple(xs) => xs
                        .get((i as usize).wrapping_sub(1))
                        .cloned()
                        .ok_or(NotData)?,
                    w => return Err(self.wait_on(&w)),
                },
                TOp::Fun(i) => {
                    let (inner, caps) = t.fun(i);
                    let caps: Result<Vec<Sym<'m>>, NotData> =
                        caps.iter().map(|v| get(&locals, *v)).collect();
                    Sym::Clo(inner, Rc::from(caps?))
                }
                TOp::Call(g, y) => {
                    let (g, y) = (get(&locals, g)?, get(&locals, y)?);
                    if Some(k) == last && t.ret == TVar::Local(s.local) {
                        return Ok(Next::Call(g, y));
                    }
                    self.depth += 1;
                    let r = self.apply(g, y);
                    self.depth -= 1;
                    r?
                }
            };
            if let Some(slot) = locals.get_mut(s.local as usize) {
                *slot = Some(val);
            }
        }
        Ok(Next::Done(get(&locals, t.ret)?))
    }
}

impl<'m> Reader<'m> {
    /// Is `x` the list probe `(state, append)` (a hole's task applied to it reads as a hole)?
    fn is_list_probe(&self, x: &Sym<'m>) -> bool {
        match self.resolve(x) {
            Sym::Tuple(xs) => {
                matches!(&xs[..], [st, ap] if matches!(self.resolve(st), Sym::State(_)) && matches!(self.resolve(ap), Sym::Append))
            }
            _ => false,
        }
    }
}

/// `x@5.6.8.8.8.6.6` as views write it, `x@5.6.…6.6` (labels deepen one level per loop
/// iteration; the whole name is in the term).
fn abbreviate(name: &str) -> String {
    let Some((base, label)) = name.split_once('@') else {
        return name.to_string();
    };
    let parts: Vec<&str> = label.split('.').collect();
    if parts.len() <= super::label::SHORT_DEPTH {
        return name.to_string();
    }
    let n = parts.len();
    format!(
        "{base}@{}.{}.…{}.{}",
        parts[0],
        parts[1],
        parts[n - 2],
        parts[n - 1]
    )
}

/// A function whose parameters are named `t` and `f`, as `true := fun (t, f): t ()`.
fn looks_boolean(t: &Template) -> bool {
    let named = |b: &str| t.names.iter().any(|n| n.base.as_str() == b);
    named("t") && named("f")
}

enum Next<'m> {
    Done(Sym<'m>),
    Call(Sym<'m>, Sym<'m>),
}
