//! Desugaring OPAL to core λ^O (LANGUAGE.md §3), with static checks that need scopes.
//!
//! Every binder gets a program-wide unique core [`Name`] (the user's first binding of `x`
//! keeps `x`; later ones and invented names are `x'1`, `t'7`), so the output is well-formed
//! by construction; [`crate::check::well_formed`] verifies it.

use crate::diag::Diagnostic;
use crate::externals::{self, ExtDecl};
use crate::ir::{Expr as CExpr, Fun, Op, Prim, Stmt};
use crate::names::{FastMap, FastSet, Name, Sym};
use crate::ordering::{Plan, HIGHER_ORDER};
use crate::span::Span;
use crate::syntax::ast::*;
use std::collections::HashMap;
use std::sync::Arc;

pub mod prelude;

/// What a name is known to be, statically, for arity and shape checks and hover.
#[derive(Clone, Debug, PartialEq)]
pub enum Known {
    Unknown,
    /// A function; `Some(n)` when its parameter is an n-tuple pattern.
    Fun(Option<usize>),
    Tuple(usize),
    Prim,
    Ext(String),
    Handle,
    List,
    Dict,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefKind {
    Binding,
    Param,
    Extern,
}

/// A binding site in the source, for tooling (hover, go to definition, rename).
#[derive(Clone, Debug)]
pub struct Def {
    pub name: String,
    pub span: Span,
    pub kind: DefKind,
    pub core: Name,
    pub known: Known,
}

#[derive(Clone, Debug, PartialEq)]
pub enum RefTarget {
    Def(usize),
    Prelude(String),
    External(String),
    Handle(String),
}

#[derive(Clone, Debug, Default)]
pub struct Symbols {
    pub defs: Vec<Def>,
    pub refs: Vec<(Span, RefTarget)>,
}

/// A desugared program: environment statements (labels `0.1 …`) and the program's own.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub env: Vec<Stmt>,
    pub body: CExpr,
    /// Names declared with `extern`, with the span of their declaration.
    pub externs: Vec<(String, Span)>,
    pub symbols: Symbols,
    /// Externals whose calls take and give back the sequencing token (`print` and those
    /// declared `sequential` or `readonly`): the machine hands them their argument without it.
    pub ordered: Vec<String>,
    /// Every declared external's class (from its `extern` line or the world file).
    pub orders: std::collections::BTreeMap<String, Order>,
}

impl Program {
    /// Statements of the initial term (environment and body, nested bodies included).
    pub fn size(&self) -> usize {
        self.body.size() + self.env.iter().map(|s| 1 + if let crate::ir::Op::Fun(f) = &s.op { f.body.size() } else { 0 }).sum::<usize>()
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ScopeKind {
    Top,
    Fun,
    Branch,
    Loop,
}

/// `Var::def` of a variable with no binding site in the source (a carried environment handle).
const NO_DEF: usize = usize::MAX;

struct Var {
    core: Name,
    def: usize,
    known: Known,
    handle: bool,
    used: bool,
    lint_unused: bool,
    /// Uses as a handle without threading (W0002).
    handle_uses: u32,
    first_use: Option<Span>,
}

/// Handle use counts of a first branch, kept while the second is desugared.
struct BranchUses {
    vars: Vec<(usize, u32)>,
    env: FastMap<String, (u32, Span)>,
}

struct Scope {
    kind: ScopeKind,
    vars: FastMap<String, usize>,
}

pub struct Desugarer {
    counters: crate::names::FastMap<Sym, u32>,
    vars: Vec<Var>,
    scopes: Vec<Scope>,
    buf: Vec<Stmt>,
    diags: Vec<Diagnostic>,
    used_env: FastSet<String>,
    externs: Vec<(String, Span)>,
    symbols: Symbols,
    core_mode: bool,
    block_locals: FastMap<String, &'static str>,
    /// Resolves prelude-internal names (`if_` → `if`) when desugaring the prelude itself.
    prelude_mode: bool,
    /// W0002 for `stdout`/`stderr` themselves: uses without threading, and the first one.
    env_handle_uses: FastMap<String, (u32, Span)>,
    temp_syms: Vec<(&'static str, Sym)>,
    /// (variable, previous count) for every change of a handle's use count.
    handle_log: Vec<(usize, u32)>,
    /// Each external's ordering class: from its `extern` line, else the world file's `order`.
    orders: HashMap<String, Order>,
    /// The world file's classes, for externals declared without one.
    world_orders: HashMap<String, Order>,
    /// Which calls and functions thread the sequencing token (`crate::ordering`).
    plan: Plan,
    /// The name the `fun` literal being desugared is bound to (`f := fun …`, `rec f`).
    fun_owner: Option<String>,
}

/// The scope key of the sequencing token: no source name can be written like it.
const TOKEN: &str = "%seq";

/// Prelude names that are values, not functions a program calls (never wrapped).
const PRELUDE_VALUES: &[&str] = &["true", "false", "nil"];

/// How a call passes the sequencing token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CallKind {
    /// An external or prelude function: no token.
    Plain,
    /// A function of the program: `(tok, arg)` in, `(tok, result)` out.
    User,
    /// An external declared sequential or readonly (or `print v`).
    Ordered(Order),
}

fn is_keyword_alias(s: &str) -> Option<&'static str> {
    match s {
        "if_" => Some("if"),
        "not_" => Some("not"),
        "and_" => Some("and"),
        "or_" => Some("or"),
        _ => None,
    }
}

impl Desugarer {
    pub fn new(prelude_mode: bool) -> Desugarer {
        let mut d = Desugarer {
            counters: Default::default(),
            vars: Vec::new(),
            scopes: vec![Scope { kind: ScopeKind::Top, vars: FastMap::default() }],
            buf: Vec::new(),
            diags: Vec::new(),
            used_env: FastSet::default(),
            externs: Vec::new(),
            symbols: Symbols::default(),
            core_mode: false,
            block_locals: FastMap::default(),
            prelude_mode,
            env_handle_uses: FastMap::default(),
            handle_log: Vec::new(),
            temp_syms: Vec::new(),
            orders: HashMap::new(),
            world_orders: HashMap::new(),
            plan: Plan::default(),
            fun_owner: None,
        };
        if !prelude_mode {
            // Invented names are numbered per program from 1 (`t'1`, not `t'84` after the
            // prelude's): the prelude's own binders live only inside its function bodies,
            // which no program name is in scope of, and a step freshens them (`t'1@5.2`)
            // before they meet the program's. Environment names are reserved: a user binding
            // of `map` becomes `map'1`.
            for n in prelude::names() {
                d.counters.insert(Sym::intern(n), 1);
            }
            for e in externals::STANDARD {
                d.counters.insert(Sym::intern(e.name), 1);
            }
            for (h, _) in externals::HANDLES {
                d.counters.insert(Sym::intern(h), 1);
            }
        }
        d
    }

    /// Classes for externals the program declares without one (a world file's `order`).
    pub fn with_world_orders(mut self, orders: HashMap<String, Order>) -> Desugarer {
        self.world_orders = orders;
        self
    }

    // ---- names -------------------------------------------------------------------------

    fn user_name(&mut self, base: &str) -> Name {
        let base = if self.prelude_mode { is_keyword_alias(base).unwrap_or(base) } else { base };
        // Hidden names (the token, `%seq`) print as `seq'k`.
        let base = base.strip_prefix('%').unwrap_or(base);
        let sym = Sym::intern(base);
        let c = self.counters.entry(sym).or_insert(0);
        let n = Name { base: sym, idx: *c };
        *c += 1;
        n
    }

    fn temp(&mut self, base: &'static str) -> Name {
        // Interning takes a global lock; temporaries use a handful of bases, cached here.
        let sym = match self.temp_syms.iter().find(|(b, _)| *b == base) {
            Some((_, s)) => *s,
            None => {
                let s = Sym::intern(base);
                self.temp_syms.push((base, s));
                s
            }
        };
        let c = self.counters.entry(sym).or_insert(1);
        if *c == 0 {
            *c = 1;
        }
        let n = Name { base: sym, idx: *c };
        *c += 1;
        n
    }

    fn emit(&mut self, op: Op, span: Span, target: Option<Name>) -> Name {
        let bind = target.unwrap_or_else(|| self.temp("t"));
        self.buf.push(Stmt { bind, op, span });
        bind
    }

    // ---- scopes ------------------------------------------------------------------------

    fn define(&mut self, id: &str, span: Span, core: Name, known: Known, kind: DefKind, lint: bool) -> usize {
        let def = self.symbols.defs.len();
        self.symbols.defs.push(Def { name: id.to_string(), span, kind, core, known: known.clone() });
        let handle = known == Known::Handle;
        let vi = self.vars.len();
        self.vars.push(Var { core, def, known, handle, used: false, lint_unused: lint, handle_uses: 0, first_use: None });
        let scope = self.scopes.last_mut().map(|s| &mut s.vars);
        if let Some(vars) = scope {
            if let Some(old) = vars.insert(id.to_string(), vi) {
                self.check_unused(old);
            }
        }
        self.block_locals.remove(id);
        vi
    }

    fn check_unused(&mut self, vi: usize) {
        let v = &self.vars[vi];
        if v.lint_unused && !v.used && !self.prelude_mode && !self.core_mode {
            let Some(d) = self.symbols.defs.get(v.def) else { return };
            if !d.name.starts_with('_') && !v.handle {
                let span = d.span;
                let name = d.name.clone();
                self.diags.push(
                    Diagnostic::warning("W0001", span, format!("`{name}` is bound but never used"))
                        .with_help(format!("remove the binding, or name it `_{name}` if it is bound on purpose")),
                );
            }
        }
    }

    fn pop_scope(&mut self) -> Scope {
        let s = self.scopes.pop().unwrap_or(Scope { kind: ScopeKind::Top, vars: FastMap::default() });
        let mut vis: Vec<usize> = s.vars.values().copied().collect();
        vis.sort();
        for vi in vis {
            self.check_unused(vi);
        }
        s
    }

    fn find_var(&self, id: &str) -> Option<(usize, bool)> {
        let mut crossed_repeat = false;
        for s in self.scopes.iter().rev() {
            if let Some(&vi) = s.vars.get(id) {
                return Some((vi, crossed_repeat));
            }
            if matches!(s.kind, ScopeKind::Loop | ScopeKind::Fun) {
                crossed_repeat = true;
            }
        }
        None
    }

    /// Changes a handle's use count, remembering the old one so branches can be undone.
    fn set_handle_uses(&mut self, vi: usize, uses: u32) {
        self.handle_log.push((vi, self.vars[vi].handle_uses));
        self.vars[vi].handle_uses = uses;
    }

    /// Desugars the first of two alternatives (an `if`'s branches): its handle uses are undone
    /// afterwards and returned, so `merge_alternatives` counts the larger of the two branches,
    /// not the sum. The log holds every change since `mark` with the value before it, so undoing
    /// a branch costs what the branch changed, not the number of variables.
    fn first_alternative<R>(&mut self, branch: impl FnOnce(&mut Self) -> R) -> (R, BranchUses) {
        let mark = self.handle_log.len();
        let env_before = self.env_handle_uses.clone();
        let r = branch(self);
        let env = std::mem::replace(&mut self.env_handle_uses, env_before);
        let changed: Vec<(usize, u32)> = self.handle_log[mark..].to_vec();
        let vars = changed.iter().map(|&(vi, _)| (vi, self.vars[vi].handle_uses)).collect();
        for &(vi, old) in changed.iter().rev() {
            self.set_handle_uses(vi, old);
        }
        (r, BranchUses { vars, env })
    }

    /// After the second alternative: each handle counts the larger of its two branches' uses.
    fn merge_alternatives(&mut self, first: BranchUses) {
        for (vi, a) in first.vars {
            let merged = self.vars[vi].handle_uses.max(a);
            self.set_handle_uses(vi, merged);
        }
        // `stdout` and `stderr` themselves count the same way.
        for (h, (n, span)) in first.env {
            let e = self.env_handle_uses.entry(h).or_insert((n, span));
            if n > e.0 {
                *e = (n, span);
            }
        }
    }

    /// Resolves a use of a source name; reports an unbound name.
    fn use_name(&mut self, id: &Ident, as_handle_arg: bool) -> (Name, Known) {
        if let Some((vi, repeated)) = self.find_var(&id.name) {
            let v = &mut self.vars[vi];
            v.used = true;
            let def = v.def;
            if v.handle && as_handle_arg && !self.prelude_mode {
                let uses = v.handle_uses + if repeated { 2 } else { 1 };
                if uses >= 2 {
                    let first = v.first_use.unwrap_or(id.span);
                    self.set_handle_uses(vi, 0); // report once per binding
                    self.diags.push(handle_twice(&id.name, id.span, first));
                } else {
                    v.first_use = Some(id.span);
                    self.set_handle_uses(vi, uses);
                }
            }
            let v = &self.vars[vi];
            // A carried environment handle (`stdout` threaded through a loop) has no source
            // definition: it still refers to the handle.
            let target = if def == NO_DEF { RefTarget::Handle(id.name.clone()) } else { RefTarget::Def(def) };
            self.symbols.refs.push((id.span, target));
            return (v.core, v.known.clone());
        }
        let name = if self.prelude_mode { is_keyword_alias(&id.name).unwrap_or(&id.name) } else { id.name.as_str() };
        if let Some(target) = self.env_name(name) {
            self.used_env.insert(name.to_string());
            if as_handle_arg && externals::is_handle(name) && !self.prelude_mode {
                let repeated = self.scopes.iter().any(|s| matches!(s.kind, ScopeKind::Loop | ScopeKind::Fun));
                let e = self.env_handle_uses.entry(name.to_string()).or_insert((0, id.span));
                e.0 += if repeated { 2 } else { 1 };
                if e.0 >= 2 {
                    let first = e.1;
                    e.0 = 0;
                    self.diags.push(handle_twice(name, id.span, first));
                }
            }
            let known = match &target {
                RefTarget::Prelude(p) => Known::Fun(prelude::arity(p)),
                RefTarget::External(e) => Known::Ext(e.clone()),
                _ => Known::Handle,
            };
            self.symbols.refs.push((id.span, target));
            return (Name::plain(name), known);
        }
        let mut d = Diagnostic::error("E0100", id.span, format!("unbound name `{}`", id.name));
        if let Some(kind) = self.block_locals.get(&id.name) {
            d = d.with_help(format!(
                "`{}` was first bound inside {kind} and is local to it; bind it before the {kind} (e.g. `{} := …`) to use it afterwards",
                id.name, id.name
            ));
        } else if let Some(s) = self.suggest(&id.name) {
            d = d.with_help(format!("did you mean `{s}`?")).with_fix(s);
        } else {
            d = d.with_help(format!("bind `{}` with `:=` before this line, or declare it with `extern {}`", id.name, id.name));
        }
        self.diags.push(d);
        (Name::plain(&id.name), Known::Unknown)
    }

    fn env_name(&self, name: &str) -> Option<RefTarget> {
        if self.externs.iter().any(|(e, _)| e == name) {
            return Some(RefTarget::External(name.to_string()));
        }
        if self.prelude_mode {
            if externals::standard(name).is_some() {
                return Some(RefTarget::External(name.to_string()));
            }
            return None;
        }
        if prelude::names().contains(&name) {
            return Some(RefTarget::Prelude(name.to_string()));
        }
        if externals::standard(name).is_some() {
            return Some(RefTarget::External(name.to_string()));
        }
        if externals::is_handle(name) {
            return Some(RefTarget::Handle(name.to_string()));
        }
        None
    }

    /// The closest name in scope, for "did you mean".
    fn suggest(&self, name: &str) -> Option<String> {
        if self.prelude_mode {
            return None;
        }
        let mut cands: Vec<String> = self.scopes.iter().flat_map(|s| s.vars.keys().cloned()).collect();
        cands.extend(prelude::names().iter().filter(|n| !matches!(**n, "if" | "not" | "and" | "or")).map(|s| s.to_string()));
        cands.extend(externals::STANDARD.iter().map(|e| e.name.to_string()));
        cands.extend(externals::HANDLES.iter().map(|h| h.0.to_string()));
        cands.extend(self.externs.iter().map(|e| e.0.clone()));
        let max = (name.len() / 3).max(1);
        cands.into_iter().map(|c| (edit_distance(name, &c), c)).filter(|(d, _)| *d <= max).min_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1))).map(|(_, c)| c)
    }

    /// An environment name the desugarer itself calls (operators, `if`, `fold`, `fix`).
    fn env(&mut self, name: &str) -> Name {
        self.used_env.insert(name.to_string());
        Name::plain(name)
    }

    // ---- the sequencing token ------------------------------------------------------------

    /// Binds a name that has no place in the source (the token) in the current scope.
    fn define_hidden(&mut self, key: &str, core: Name) {
        let vi = self.vars.len();
        self.vars.push(Var { core, def: NO_DEF, known: Known::Unknown, handle: false, used: true, lint_unused: false, handle_uses: 0, first_use: None });
        if let Some(s) = self.scopes.last_mut() {
            s.vars.insert(key.to_string(), vi);
        }
    }

    fn token(&mut self) -> Name {
        self.current(TOKEN)
    }

    /// How a call of `f` passes the token, and the prelude variant a higher-order call uses
    /// instead of `f`.
    fn call_kind(&self, f: &Expr) -> (CallKind, Option<String>) {
        if !self.plan.ordered {
            return (CallKind::Plain, None);
        }
        let id = match &f.kind {
            ExprKind::Name(id) => id,
            ExprKind::Paren(x) => return self.call_kind(x),
            _ => return (CallKind::User, None),
        };
        if self.find_var(&id.name).is_some() {
            return (if self.plan.takes_token(&id.name) { CallKind::User } else { CallKind::Plain }, None);
        }
        self.env_kind(&id.name)
    }

    /// How an environment function is called. Every `print` of a program that threads the
    /// token takes it, `print (&h, v)` as well as `print v`: the handle alone would let a
    /// handle print overtake a `print v` before it (stdout has one order).
    fn env_kind(&self, name: &str) -> (CallKind, Option<String>) {
        if name == "print" && !self.externs.iter().any(|(e, _)| e == "print") {
            return (CallKind::Ordered(Order::Sequential), None);
        }
        match self.orders.get(name) {
            Some(o @ (Order::Sequential | Order::Readonly)) => (CallKind::Ordered(*o), None),
            _ if HIGHER_ORDER.contains(&name) && prelude::names().contains(&name) => (CallKind::User, Some(format!("{name}_t"))),
            _ => (CallKind::Plain, None),
        }
    }

    /// Emits the call `f arg` as `kind` passes the token; returns what holds its result.
    fn call_op(&mut self, kind: CallKind, f: Name, arg: Name, span: Span, target: Option<Name>) -> Name {
        match kind {
            CallKind::Plain => self.emit(Op::Call(f, arg), span, target),
            CallKind::User => {
                let tok = self.token();
                let a = self.emit(Op::Tuple(vec![tok, arg]), span, None);
                let t = self.emit(Op::Call(f, a), span, None);
                let next = self.user_name(crate::ir::SEQ_TOKEN);
                self.emit(Op::Prj(1, t), span, Some(next));
                self.define_hidden(TOKEN, next);
                self.emit(Op::Prj(2, t), span, target)
            }
            CallKind::Ordered(order) => {
                // With readonly calls the token is (after every ordered call, after every
                // sequential call); a sequential call waits for the first, a readonly call for
                // the second, and what comes after a readonly call waits for it through `join`.
                let tok = self.token();
                let (after_all, after_seq) =
                    if self.plan.readonly { (self.emit(Op::Prj(1, tok), span, None), self.emit(Op::Prj(2, tok), span, None)) } else { (tok, tok) };
                let gate = if order == Order::Readonly { after_seq } else { after_all };
                let a = self.emit(Op::Tuple(vec![gate, arg]), span, None);
                let t = self.emit(Op::Call(f, a), span, None);
                let done = self.user_name(crate::ir::SEQ_TOKEN);
                self.emit(Op::Prj(1, t), span, Some(done));
                let r = self.emit(Op::Prj(2, t), span, target);
                let next = match (order, self.plan.readonly) {
                    (Order::Readonly, _) => {
                        let both = self.emit(Op::Tuple(vec![after_all, done]), span, None);
                        let join = self.env("join");
                        let all = self.emit(Op::Call(join, both), span, None);
                        self.emit(Op::Tuple(vec![all, after_seq]), span, None)
                    }
                    (_, true) => self.emit(Op::Tuple(vec![done, done]), span, None),
                    (_, false) => done,
                };
                self.define_hidden(TOKEN, next);
                r
            }
        }
    }

    /// Is this environment name a function a program might pass around as a value?
    fn is_env_function(&self, name: &str) -> bool {
        externals::standard(name).is_some()
            || self.externs.iter().any(|(e, _)| e == name)
            || (prelude::names().contains(&name) && !PRELUDE_VALUES.contains(&name))
    }

    /// An environment function used as a value in a program that threads the token: a
    /// function that takes and gives back the token around it, as every function value does.
    fn wrap_env(&mut self, name: &str, f: Name, span: Span) -> Name {
        let saved = std::mem::take(&mut self.buf);
        self.scopes.push(Scope { kind: ScopeKind::Fun, vars: FastMap::default() });
        let p = self.temp("p");
        let tok = self.user_name(crate::ir::SEQ_TOKEN);
        self.emit(Op::Prj(1, p), span, Some(tok));
        self.define_hidden(TOKEN, tok);
        let x = self.emit(Op::Prj(2, p), span, None);
        let (kind, variant) = self.env_kind(name);
        let callee = match variant {
            Some(v) => self.env(&v),
            None => f,
        };
        let r = self.call_op(kind, callee, x, span, None);
        let out = self.token();
        let ret = self.emit(Op::Tuple(vec![out, r]), span, None);
        self.pop_scope();
        let stmts = std::mem::replace(&mut self.buf, saved);
        self.emit(Op::Fun(Box::new(Fun { param: p, body: CExpr { stmts, ret: Some(ret) } })), span, None)
    }

    /// A name in a value position: an environment function is wrapped to take the token.
    fn value_name(&mut self, id: &Ident, as_handle_arg: bool) -> (Name, Known) {
        let env = self.find_var(&id.name).is_none();
        let (n, k) = self.use_name(id, as_handle_arg);
        if self.plan.ordered && env && self.is_env_function(&id.name) {
            return (self.wrap_env(&id.name, n, id.span), Known::Fun(None));
        }
        (n, k)
    }

    /// Does running these blocks pass the token on (a call that takes it, in them or in their
    /// nested control flow)? Then an `if` or loop carries it.
    fn needs_token(&self, blocks: &[&Block]) -> bool {
        self.plan.ordered && blocks.iter().any(|b| b.items.iter().any(|i| self.item_needs_token(i)))
    }

    fn item_needs_token(&self, item: &Item) -> bool {
        match &item.kind {
            ItemKind::Bind(_, e) | ItemKind::Aug(_, _, e) | ItemKind::Ret(e) | ItemKind::Expr(e) => self.expr_needs_token(e),
            ItemKind::Rec(..) | ItemKind::Extern(..) | ItemKind::Error => false,
            ItemKind::For(_, e, b) => self.expr_needs_token(e) || self.needs_token(&[b]),
            ItemKind::If(arms, els) => {
                arms.iter().any(|(c, b)| self.expr_needs_token(c) || self.needs_token(&[b])) || els.as_ref().is_some_and(|b| self.needs_token(&[b]))
            }
            ItemKind::While(c, b) | ItemKind::DoWhile(b, c) => self.expr_needs_token(c) || self.needs_token(&[b]),
        }
    }

    fn expr_needs_token(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::App(f, a) => self.call_kind(f).0 != CallKind::Plain || self.expr_needs_token(f) || self.expr_needs_token(a),
            // An environment function as a value is wrapped, and the wrapper is a function
            // value like any other: making it needs no token.
            ExprKind::Paren(x) | ExprKind::Not(x) | ExprKind::Neg(x) | ExprKind::Prj(_, x) => self.expr_needs_token(x),
            ExprKind::Tuple(es) | ExprKind::List(es) => es.iter().any(|x| self.expr_needs_token(x)),
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => self.expr_needs_token(a) || self.expr_needs_token(b),
            ExprKind::Cond(a, c, b) => self.expr_needs_token(a) || self.expr_needs_token(c) || self.expr_needs_token(b),
            ExprKind::FStr(parts) => parts.iter().any(|p| matches!(p, FPart::Expr(x) if self.expr_needs_token(x))),
            ExprKind::Dict(kvs) => kvs.iter().any(|(k, v)| self.expr_needs_token(k) || self.expr_needs_token(v)),
            ExprKind::Name(_)
            | ExprKind::Lit(_)
            | ExprKind::Prim(_)
            | ExprKind::PrimName(_)
            | ExprKind::Unit
            | ExprKind::Amp(_)
            | ExprKind::Fun(..)
            | ExprKind::Error => false,
        }
    }

    // ---- blocks and items --------------------------------------------------------------

    /// Desugars a block; returns its value, if it has one.
    fn block(&mut self, b: &Block) -> Option<Name> {
        self.items(b.items.iter().collect())
    }

    fn items(&mut self, items: Vec<&Item>) -> Option<Name> {
        let n = items.len();
        let mut value = None;
        for (i, item) in items.into_iter().enumerate() {
            let last = i + 1 == n;
            if let ItemKind::Ret(_) = item.kind {
                if !last {
                    self.diags.push(
                        Diagnostic::error("E0009", item.span, "`ret` must be the last item of its block")
                            .with_help("move the `ret` to the end of the block, or remove the items after it"),
                    );
                }
            }
            value = self.item(item, last);
        }
        value
    }

    fn item(&mut self, item: &Item, last: bool) -> Option<Name> {
        let span = item.span;
        match &item.kind {
            ItemKind::Error => None,
            ItemKind::Extern(names, order) => {
                for id in names {
                    let world = self.world_orders.get(&id.name).copied();
                    if let (Some(o), Some(w)) = (order, world) {
                        if *o != w {
                            self.diags.push(
                                Diagnostic::warning(
                                    "W0005",
                                    id.span,
                                    format!("the world file says `{}` is {}, this line says {}", id.name, w.as_str(), o.as_str()),
                                )
                                .with_help("the program's class is used; make the two agree"),
                            );
                        }
                    }
                    self.orders.insert(id.name.clone(), order.or(world).unwrap_or_default());
                    if !self.externs.iter().any(|(e, _)| *e == id.name) {
                        self.externs.push((id.name.clone(), id.span));
                        self.symbols.defs.push(Def {
                            name: id.name.clone(),
                            span: id.span,
                            kind: DefKind::Extern,
                            core: Name::plain(&id.name),
                            known: Known::Ext(id.name.clone()),
                        });
                    }
                }
                None
            }
            ItemKind::Bind(pat, e) => {
                self.bind(pat, e, span);
                None
            }
            ItemKind::Aug(id, op, e) => {
                let lhs = Expr::new(ExprKind::Name(id.clone()), id.span);
                let rhs = Expr::new(ExprKind::Binary(op.binop(), Box::new(lhs), Box::new(e.clone())), span);
                self.bind(&Pattern::Name(id.clone()), &rhs, span);
                if let Some((vi, _)) = self.find_var(&id.name) {
                    self.vars[vi].lint_unused = false;
                }
                None
            }
            ItemKind::Rec(id, f) => {
                let ExprKind::Fun(params, body) = &f.kind else { return None };
                // `rec f := fun P: B` is `f := fix (fun (f, p): B)`, p bound as P binds it.
                let token = self.plan.ordered && self.plan.takes_token(&id.name);
                let step = self.fun_with(params, ScopeKind::Fun, token, Some(id), |d| match body {
                    FunBody::Expr(e) => {
                        if has_amp_call(e) {
                            d.expr_stmt(e);
                            None
                        } else {
                            Some(d.expr(e, None))
                        }
                    }
                    FunBody::Block(b) => d.block(b),
                });
                let stepn = self.emit(Op::Fun(Box::new(step)), f.span, None);
                let fix = self.env(if token { "fix_t" } else { "fix" });
                let core = self.user_name(&id.name);
                self.emit(Op::Call(fix, stepn), span, Some(core));
                let k = match params {
                    Params::Unit(_) => Some(0),
                    Params::List(ps, _) if ps.len() > 1 => Some(ps.len()),
                    _ => None,
                };
                self.define(&id.name, id.span, core, Known::Fun(k), DefKind::Binding, true);
                None
            }
            ItemKind::Ret(e) => Some(self.expr(e, None)),
            ItemKind::Expr(e) => {
                if has_amp_call(e) {
                    self.expr_stmt(e);
                    None
                } else if last {
                    Some(self.expr(e, None))
                } else {
                    let t = self.temp("_");
                    self.expr(e, Some(t));
                    None
                }
            }
            ItemKind::If(arms, els) => self.if_item(arms, els.as_ref(), span, last),
            ItemKind::For(pat, iter, body) => {
                self.for_item(pat, iter, body, span);
                None
            }
            ItemKind::While(c, body) => {
                self.loop_item(Some(c), body, None, span);
                None
            }
            ItemKind::DoWhile(body, c) => {
                self.loop_item(None, body, Some(c), span);
                None
            }
        }
    }

    /// An expression item whose value is dropped: `&` calls thread their handles.
    fn expr_stmt(&mut self, e: &Expr) {
        if let ExprKind::App(f, a) = &e.kind {
            self.call(f, a, e.span, None, false);
        } else {
            let t = self.temp("_");
            self.expr(e, Some(t));
        }
    }

    fn bind(&mut self, pat: &Pattern, e: &Expr, span: Span) {
        match pat {
            Pattern::Name(id) => {
                let core = self.user_name(&id.name);
                if self.core_mode && self.find_var(&id.name).is_some() {
                    self.diags.push(
                        Diagnostic::error("E0101", id.span, format!("`{}` is already bound; core notation does not allow rebinding", id.name)).with_help(
                            "use a new name (the paper's well-formedness requires x ∉ Γ), or write the program in OPAL sugar where rebinding is allowed",
                        ),
                    );
                }
                if fun_literal(e) {
                    self.fun_owner = Some(id.name.clone());
                }
                let v = self.expr(e, Some(core));
                let known = self.known_of_expr(e, v);
                let handle = known == Known::Handle || is_amp_rebinding(e);
                let vi = self.define(&id.name, id.span, core, known, DefKind::Binding, true);
                self.vars[vi].handle |= handle;
            }
            Pattern::Wild(_) => {
                let t = self.temp("_");
                self.expr(e, Some(t));
            }
            _ => {
                let v = self.expr(e, None);
                let known = self.known_of_expr(e, v);
                self.destructure(pat, v, known, span, DefKind::Binding);
            }
        }
    }

    fn known_of_expr(&self, e: &Expr, _v: Name) -> Known {
        match &e.kind {
            ExprKind::Fun(Params::Unit(_), _) => Known::Fun(Some(0)),
            ExprKind::Fun(Params::List(ps, _), _) if ps.len() > 1 => Known::Fun(Some(ps.len())),
            ExprKind::Fun(..) => Known::Fun(None),
            ExprKind::Tuple(es) => Known::Tuple(es.len()),
            ExprKind::Unit => Known::Tuple(0),
            ExprKind::List(_) => Known::List,
            ExprKind::Dict(_) => Known::Dict,
            ExprKind::Lit(_) | ExprKind::Prim(_) => Known::Prim,
            ExprKind::PrimName(id) if externals::is_handle(&id.name) => Known::Handle,
            ExprKind::Paren(inner) => self.known_of_expr(inner, _v),
            ExprKind::Name(id) => self.find_var(&id.name).map(|(vi, _)| self.vars[vi].known.clone()).unwrap_or_else(|| {
                if externals::is_handle(&id.name) {
                    Known::Handle
                } else {
                    Known::Unknown
                }
            }),
            _ => Known::Unknown,
        }
    }

    /// Binds a tuple pattern to the components of `v` by projections.
    fn destructure(&mut self, pat: &Pattern, v: Name, known: Known, span: Span, kind: DefKind) {
        match pat {
            Pattern::Name(id) => {
                let core = self.user_name(&id.name);
                self.emit(Op::Alias(v), span, Some(core));
                self.define(&id.name, id.span, core, known, kind, kind == DefKind::Binding);
            }
            Pattern::Wild(_) | Pattern::Unit(_) => {}
            Pattern::Tuple(ps, pspan) => {
                if let Known::Tuple(n) = known {
                    if n != ps.len() {
                        self.diags.push(
                            Diagnostic::error("E0103", *pspan, format!("this pattern has {} components but the tuple has {n}", ps.len()))
                                .with_help("make the pattern's shape match the tuple"),
                        );
                    }
                }
                for (i, p) in ps.iter().enumerate() {
                    match p {
                        Pattern::Wild(_) | Pattern::Unit(_) => {}
                        Pattern::Name(id) => {
                            let core = self.user_name(&id.name);
                            self.emit(Op::Prj(i as u32 + 1, v), span, Some(core));
                            let h = externals::is_handle(&id.name);
                            let vi = self.define(&id.name, id.span, core, Known::Unknown, kind, kind == DefKind::Binding);
                            self.vars[vi].handle |= h;
                        }
                        Pattern::Tuple(..) => {
                            let t = self.temp("t");
                            self.emit(Op::Prj(i as u32 + 1, v), span, Some(t));
                            self.destructure(p, t, Known::Unknown, span, kind);
                        }
                    }
                }
            }
        }
    }

    // ---- expressions -------------------------------------------------------------------

    /// Desugars `e` to ANF statements in the buffer; returns the name holding its value.
    /// With a `target`, the value is bound to that name.
    fn expr(&mut self, e: &Expr, target: Option<Name>) -> Name {
        let span = e.span;
        match &e.kind {
            ExprKind::Name(id) if self.find_var(&id.name).is_none() && !externals::is_handle(&id.name) && externals::is_handle_literal(&id.name) => {
                // A handle made by `fork` (`stdout_1`) or `create_process` (`proc1_stdin`),
                // written in a result, a world file or a trace.
                self.emit(Op::Prim(Prim::Handle(Arc::from(id.name.as_str()))), span, target)
            }
            ExprKind::Name(id) => {
                let (n, _) = self.value_name(id, false);
                match target {
                    Some(t) => self.emit(Op::Alias(n), span, Some(t)),
                    None => n,
                }
            }
            ExprKind::Lit(l) | ExprKind::Prim(l) => {
                let p = match l {
                    Lit::Int(i) => Prim::Int(*i),
                    Lit::Float(f) => Prim::Float(*f),
                    Lit::Str(s) => Prim::Str(Arc::from(s.as_str())),
                };
                self.emit(Op::Prim(p), span, target)
            }
            ExprKind::PrimName(id) => {
                let p = if externals::is_handle(&id.name) {
                    Prim::Handle(Arc::from(id.name.as_str()))
                } else if externals::standard(&id.name).is_some() || self.externs.iter().any(|(x, _)| *x == id.name) {
                    Prim::Ext(Arc::from(id.name.as_str()))
                } else {
                    self.diags.push(
                        Diagnostic::error("E0106", id.span, format!("`<{}>` is not a primitive", id.name))
                            .with_help("inside `<…>` write a number, a string, a handle (`stdout`) or an external's name"),
                    );
                    Prim::Ext(Arc::from(id.name.as_str()))
                };
                self.emit(Op::Prim(p), span, target)
            }
            ExprKind::Unit => self.emit(Op::Tuple(vec![]), span, target),
            ExprKind::Paren(inner) => self.expr(inner, target),
            ExprKind::Tuple(es) => {
                let xs: Vec<Name> = es.iter().map(|x| self.expr(x, None)).collect();
                self.emit(Op::Tuple(xs), span, target)
            }
            ExprKind::List(es) => self.list(es, span, target),
            ExprKind::Prj(i, x) => {
                let (xn, known) = match &x.kind {
                    ExprKind::Name(id) => self.use_name(id, false),
                    _ => {
                        let k = self.known_of_expr(x, Name::plain("?"));
                        (self.expr(x, None), k)
                    }
                };
                match known {
                    Known::Tuple(n) if *i as usize > n => self.diags.push(
                        Diagnostic::error("E0104", span, format!("projection `prj {i}` out of range: the tuple has {n} components"))
                            .with_help(format!("use a component number from 1 to {n}")),
                    ),
                    Known::Fun(_) | Known::Prim => self
                        .diags
                        .push(Diagnostic::error("E0104", span, "projection out of something that is not a tuple").with_help("`prj i x` needs x to be a tuple")),
                    _ => {}
                }
                self.emit(Op::Prj(*i, xn), span, target)
            }
            ExprKind::Amp(id) => {
                self.diags.push(
                    Diagnostic::error("E0010", span, "`&` is allowed only on an argument of a call")
                        .with_help(format!("write `f (&{0}, …)` to thread `{0}` through the call f", id.name)),
                );
                let (n, _) = self.use_name(id, false);
                n
            }
            ExprKind::Fun(params, body) => {
                let f = self.fun(params, body);
                self.emit(Op::Fun(Box::new(f)), span, target)
            }
            ExprKind::Binary(op @ (BinOp::In | BinOp::NotIn), a, b) => {
                // `x in l` is `contains (l, x)`.
                let an = self.expr(a, None);
                let bn = self.expr(b, None);
                let t = self.emit(Op::Tuple(vec![bn, an]), span, None);
                let f = self.env("contains");
                if *op == BinOp::In {
                    return self.emit(Op::Call(f, t), span, target);
                }
                let r = self.emit(Op::Call(f, t), span, None);
                let not = self.env("not");
                self.emit(Op::Call(not, r), span, target)
            }
            ExprKind::Binary(op, a, b) => {
                if *op == BinOp::Concat {
                    self.check_concat(a);
                    self.check_concat(b);
                }
                let an = self.expr(a, None);
                let bn = self.expr(b, None);
                let t = self.emit(Op::Tuple(vec![an, bn]), span, None);
                let f = self.env(op.callee());
                self.emit(Op::Call(f, t), span, target)
            }
            ExprKind::Index(x, i) => {
                let xn = self.expr(x, None);
                let in_ = self.expr(i, None);
                let t = self.emit(Op::Tuple(vec![xn, in_]), span, None);
                let f = self.env("index");
                self.emit(Op::Call(f, t), span, target)
            }
            ExprKind::Cond(a, c, b) => self.cond(a, c, b, span, target),
            ExprKind::FStr(parts) => self.fstring(parts, span, target),
            ExprKind::Dict(kvs) => {
                let mut pairs = Vec::with_capacity(kvs.len());
                for (k, v) in kvs {
                    let kn = self.expr(k, None);
                    let vn = self.expr(v, None);
                    pairs.push(self.emit(Op::Tuple(vec![kn, vn]), k.span.to(v.span), None));
                }
                let entries = self.list_of(&pairs, span);
                let tag = self.emit(Op::Prim(Prim::Handle(Arc::from(crate::ir::DICT_TAG))), span, None);
                self.emit(Op::Tuple(vec![tag, entries]), span, target)
            }
            ExprKind::Not(a) => {
                let an = self.expr(a, None);
                let f = self.env("not");
                self.emit(Op::Call(f, an), span, target)
            }
            ExprKind::Neg(a) => {
                let an = self.expr(a, None);
                let f = self.env("neg");
                self.emit(Op::Call(f, an), span, target)
            }
            ExprKind::App(f, a) => self.call(f, a, span, target, true),
            ExprKind::Error => self.emit(Op::Tuple(vec![]), span, target),
        }
    }

    /// A call `f a`. `&name` arguments are passed and rebound from the result.
    fn call(&mut self, f: &Expr, a: &Expr, span: Span, target: Option<Name>, want_value: bool) -> Name {
        let (kind, variant) = self.call_kind(f);
        let (fname, fknown) = match (&f.kind, variant) {
            (ExprKind::Name(id), Some(v)) => {
                let known = self.use_name(id, false).1;
                (self.env(&v), known)
            }
            (ExprKind::Name(id), None) => self.use_name(id, false),
            _ => {
                let k = self.known_of_expr(f, Name::plain("?"));
                (self.expr(f, None), k)
            }
        };
        let mut amps: Vec<&Ident> = Vec::new();
        let (arg, arg_shape) = match &a.kind {
            ExprKind::Amp(id) => {
                amps.push(id);
                (self.use_name(id, true).0, Some(None))
            }
            ExprKind::Tuple(es) => {
                let mut xs = Vec::new();
                let branches = Self::is_core_if(f, es);
                let mut then_uses = None;
                for (i, x) in es.iter().enumerate() {
                    match &x.kind {
                        ExprKind::Amp(id) => {
                            amps.push(id);
                            xs.push(self.use_name(id, true).0);
                        }
                        ExprKind::Name(id) => xs.push(self.value_name(id, true).0),
                        ExprKind::Fun(params, body) if branches => {
                            let branch = |d: &mut Self| {
                                let fun = d.fun_in(params, body, ScopeKind::Branch);
                                d.emit(Op::Fun(Box::new(fun)), x.span, None)
                            };
                            if i == 1 {
                                let (n, uses) = self.first_alternative(branch);
                                then_uses = Some(uses);
                                xs.push(n);
                            } else {
                                xs.push(branch(self));
                            }
                        }
                        _ => xs.push(self.expr(x, None)),
                    }
                }
                if let Some(uses) = then_uses {
                    self.merge_alternatives(uses);
                }
                (self.emit(Op::Tuple(xs), a.span, None), Some(Some(es.len())))
            }
            ExprKind::Unit => (self.expr(a, None), Some(Some(0))),
            ExprKind::Name(id) => {
                let (n, k) = self.value_name(id, true);
                let shape = match k {
                    Known::Tuple(n) => Some(Some(n)),
                    Known::Prim | Known::Handle | Known::List | Known::Dict => Some(None),
                    _ => None,
                };
                (n, shape)
            }
            ExprKind::Lit(_) | ExprKind::Prim(_) => (self.expr(a, None), Some(None)),
            _ => (self.expr(a, None), None),
        };
        self.check_call(f, &fknown, arg_shape, span);
        self.check_argument_order(f, a);
        if amps.is_empty() {
            return self.call_op(kind, fname, arg, span, target);
        }
        let k = amps.len();
        if !want_value {
            if k == 1 {
                let core = self.user_name(&amps[0].name);
                self.call_op(kind, fname, arg, span, Some(core));
                self.rebind_handle(amps[0], core);
                return core;
            }
            let r = self.call_op(kind, fname, arg, span, None);
            for (i, id) in amps.iter().enumerate() {
                let core = self.user_name(&id.name);
                self.emit(Op::Prj(i as u32 + 1, r), span, Some(core));
                self.rebind_handle(id, core);
            }
            return r;
        }
        let r = self.call_op(kind, fname, arg, span, None);
        for (i, id) in amps.iter().enumerate() {
            let core = self.user_name(&id.name);
            self.emit(Op::Prj(i as u32 + 1, r), span, Some(core));
            self.rebind_handle(id, core);
        }
        self.emit(Op::Prj(k as u32 + 1, r), span, target)
    }

    /// `if (c, fun …, fun …)` written by hand: its two functions are alternatives, each called
    /// at most once. `if` is a keyword, so no binding can shadow the standard one.
    fn is_core_if(f: &Expr, args: &[Expr]) -> bool {
        matches!(&f.kind, ExprKind::Name(id) if id.name == "if") && args.len() == 3 && args[1..].iter().all(|a| matches!(a.kind, ExprKind::Fun(..)))
    }

    fn rebind_handle(&mut self, id: &Ident, core: Name) {
        let vi = self.define(&id.name, id.span, core, Known::Handle, DefKind::Binding, false);
        self.vars[vi].handle = true;
        // The threaded handle is a fresh binding: its next use is its first.
        if let Some(d) = self.symbols.defs.last_mut() {
            d.span = id.span;
        }
    }

    fn check_call(&mut self, f: &Expr, known: &Known, arg_shape: Option<Option<usize>>, span: Span) {
        let fname = match &f.kind {
            ExprKind::Name(id) => id.name.clone(),
            _ => "this function".into(),
        };
        let expected: Option<Option<usize>> = match known {
            Known::Fun(k) => k.map(Some),
            Known::Ext(e) => externals::standard(e).filter(|_| !self.externs.iter().any(|(x, _)| x == e)).map(|d: &ExtDecl| d.arity),
            Known::Tuple(_) | Known::Prim | Known::Handle | Known::List | Known::Dict => {
                let what = match known {
                    Known::Tuple(_) => "a tuple",
                    Known::Handle => "a handle",
                    Known::List => "a list",
                    Known::Dict => "a dictionary",
                    _ => "a primitive value",
                };
                self.diags.push(
                    Diagnostic::error("E0105", f.span, format!("`{fname}` is {what}, not a function, so it cannot be called"))
                        .with_help("call a function (`fun …`), a prelude function or an external"),
                );
                return;
            }
            Known::Unknown => None,
        };
        let (Some(exp), Some(got)) = (expected, arg_shape) else { return };
        let show = |s: Option<usize>| match s {
            None => "one value".to_string(),
            Some(0) => "`()`".to_string(),
            Some(n) => format!("a {n}-tuple"),
        };
        let mismatch = match (exp, got) {
            (Some(a), Some(b)) => a != b,
            (Some(_), None) => true,
            (None, Some(_)) => false, // a single parameter may receive a tuple
            (None, None) => false,
        };
        if mismatch {
            self.diags.push(
                Diagnostic::error("E0103", span, format!("`{fname}` takes {} but is given {}", show(exp), show(got)))
                    .with_help("pass arguments of the shape the function's parameter pattern expects"),
            );
        }
    }

    /// The prelude's higher-order functions take the list first (`map (l, f)`), the reverse of
    /// Python's `map(f, l)`: a function where the list goes is a clear error here, not a
    /// stuck `add` deep inside `map` at run time.
    fn check_argument_order(&mut self, f: &Expr, a: &Expr) {
        let ExprKind::Name(id) = &f.kind else { return };
        let shape = match id.name.as_str() {
            "map" | "filter" => "(list, function)",
            "sort_by" => "(list, key function)",
            "fold" => "(list, initial value, function)",
            _ => return,
        };
        // A program's own `map` may take anything.
        if self.find_var(&id.name).is_some() {
            return;
        }
        let ExprKind::Tuple(es) = &a.kind else { return };
        let Some(first) = es.first() else { return };
        // A function of a pair may be a hand-written Church list (`fold (fun (s, a): …, …)`):
        // only a list where the function goes gives it away.
        let list_second = es.get(1).is_some_and(|e| matches!(self.known_of_expr(e, Name::plain("?")), Known::List));
        let is_function = match (self.known_of_expr(first, Name::plain("?")), &first.kind) {
            (Known::Fun(Some(2)), _) => list_second,
            (Known::Fun(_), _) => true,
            (Known::Ext(e), _) => externals::standard(&e).is_some(),
            // An external or prelude function used as a value (`map (len, l)`).
            (Known::Unknown, ExprKind::Name(n)) => self.find_var(&n.name).is_none() && externals::standard(&n.name).is_some(),
            _ => false,
        };
        if is_function {
            self.diags.push(
                Diagnostic::error("E0108", first.span, format!("`{}` takes {shape}: this function is where the list goes", id.name))
                    .with_help(format!("put the list first, as in `{} (items, fun x: …)` (Python's `map(f, l)` order is reversed here)", id.name)),
            );
        }
    }

    fn list(&mut self, es: &[Expr], span: Span, target: Option<Name>) -> Name {
        // Element values are computed once, outside the list; literals live inside it.
        let mut elems = Vec::with_capacity(es.len());
        for e in es {
            match &e.kind {
                ExprKind::Lit(_) | ExprKind::Prim(_) => elems.push(None),
                _ => elems.push(Some(self.expr(e, None))),
            }
        }
        let saved = std::mem::take(&mut self.buf);
        let p = self.temp("p");
        let mut state = self.temp("state");
        let append = self.temp("append");
        self.emit(Op::Prj(1, p), span, Some(state));
        self.emit(Op::Prj(2, p), span, Some(append));
        for (e, v) in es.iter().zip(elems) {
            let x = match v {
                Some(x) => x,
                None => self.expr(e, None),
            };
            let t = self.emit(Op::Tuple(vec![state, x]), e.span, None);
            let next = self.temp("state");
            self.emit(Op::Call(append, t), e.span, Some(next));
            state = next;
        }
        let body = CExpr { stmts: std::mem::replace(&mut self.buf, saved), ret: Some(state) };
        self.emit(Op::Fun(Box::new(Fun { param: p, body })), span, target)
    }

    /// `++` joins lists: a tuple or a string on either side is a mistake worth a clear error.
    fn check_concat(&mut self, e: &Expr) {
        let what = match self.known_of_expr(e, Name::plain("?")) {
            Known::Tuple(_) => "a tuple",
            Known::Prim if matches!(e.kind, ExprKind::Lit(Lit::Str(_)) | ExprKind::FStr(_)) => "a string",
            Known::Prim => "a primitive value",
            Known::Dict => "a dictionary",
            _ => return,
        };
        self.diags.push(
            Diagnostic::error("E0107", e.span, format!("`++` joins lists, and this is {what}"))
                .with_help("join strings and tuples with `+` (`(1, 2) + (3,)`), lists with `++` or `+`"),
        );
    }

    /// A Church list of names already bound (the elements of a dictionary).
    fn list_of(&mut self, items: &[Name], span: Span) -> Name {
        let saved = std::mem::take(&mut self.buf);
        let p = self.temp("p");
        let mut state = self.temp("state");
        let append = self.temp("append");
        self.emit(Op::Prj(1, p), span, Some(state));
        self.emit(Op::Prj(2, p), span, Some(append));
        for x in items {
            let t = self.emit(Op::Tuple(vec![state, *x]), span, None);
            let next = self.temp("state");
            self.emit(Op::Call(append, t), span, Some(next));
            state = next;
        }
        let body = CExpr { stmts: std::mem::replace(&mut self.buf, saved), ret: Some(state) };
        self.emit(Op::Fun(Box::new(Fun { param: p, body })), span, None)
    }

    /// `a if c else b`: an `if` with a value, its branches threading what they must.
    fn cond(&mut self, a: &Expr, c: &Expr, b: &Expr, span: Span, target: Option<Name>) -> Name {
        let arm = |e: &Expr| Block { items: vec![Item { kind: ItemKind::Ret(e.clone()), span: e.span }] };
        let (then_b, else_b) = (arm(a), arm(b));
        let vs = self.carried(&[&then_b, &else_b]);
        let r = self.if_chain(&[(c.clone(), then_b)], Some(&else_b), &vs, span, true);
        if vs.is_empty() {
            return match target {
                Some(t) => self.emit(Op::Alias(r), span, Some(t)),
                None => r,
            };
        }
        for (i, v) in vs.iter().enumerate() {
            let core = self.user_name(v);
            self.emit(Op::Prj(i as u32 + 1, r), span, Some(core));
            self.define_carried(v, core);
        }
        self.emit(Op::Prj(vs.len() as u32 + 1, r), span, target)
    }

    /// `f"a {x} b"`: the parts joined with `+`, each hole through `to_str` (lists, booleans
    /// and dictionaries read back as literals).
    fn fstring(&mut self, parts: &[FPart], span: Span, target: Option<Name>) -> Name {
        let mut acc: Option<Name> = None;
        let n = parts.len();
        for (i, part) in parts.iter().enumerate() {
            let piece = match part {
                FPart::Lit(s) => self.emit(Op::Prim(Prim::Str(Arc::from(s.as_str()))), span, None),
                FPart::Expr(e) => {
                    let v = self.expr(e, None);
                    let to_str = self.env("to_str");
                    self.emit(Op::Call(to_str, v), e.span, None)
                }
            };
            acc = Some(match acc {
                None => piece,
                Some(prev) => {
                    let t = self.emit(Op::Tuple(vec![prev, piece]), span, None);
                    let add = self.env("add");
                    let last = i + 1 == n;
                    self.emit(Op::Call(add, t), span, if last { target } else { None })
                }
            });
        }
        match (acc, n) {
            (Some(r), 1) | (Some(r), 0) => match target {
                Some(t) => self.emit(Op::Alias(r), span, Some(t)),
                None => r,
            },
            (Some(r), _) => r,
            (None, _) => self.emit(Op::Prim(Prim::Str(Arc::from(""))), span, target),
        }
    }

    /// `fun params: body` with patterns and `&` threading.
    fn fun(&mut self, params: &Params, body: &FunBody) -> Fun {
        self.fun_in(params, body, ScopeKind::Fun)
    }

    /// A `fun` literal; `ScopeKind::Branch` for a branch of a hand-written `if (c, fun …, fun …)`,
    /// which runs at most once, so a handle used in it once is not used again.
    fn fun_in(&mut self, params: &Params, body: &FunBody, kind: ScopeKind) -> Fun {
        // A function bound to a name takes the token unless the analysis found that name's
        // functions plain; any other function value takes it.
        let owner = self.fun_owner.take();
        let token = self.plan.ordered && owner.as_deref().is_none_or(|n| self.plan.takes_token(n));
        self.fun_with(params, kind, token, None, |d| match body {
            FunBody::Expr(e) => {
                if has_amp_call(e) {
                    d.expr_stmt(e);
                    None
                } else {
                    Some(d.expr(e, None))
                }
            }
            FunBody::Block(b) => d.block(b),
        })
    }

    /// With `token`, the function takes `(tok, arg)` and gives back `(tok, result)`. With
    /// `rec`, it is the step of `rec NAME := fun …`: `fix` passes it `(itself, arg)`.
    fn fun_with(&mut self, params: &Params, kind: ScopeKind, token: bool, rec: Option<&Ident>, body: impl FnOnce(&mut Self) -> Option<Name>) -> Fun {
        let saved = std::mem::take(&mut self.buf);
        self.scopes.push(Scope { kind, vars: FastMap::default() });
        let tok_in = token.then(|| {
            let t = self.user_name(crate::ir::SEQ_TOKEN);
            self.define_hidden(TOKEN, t);
            t
        });
        let itself = rec.map(|id| {
            let core = self.user_name(&id.name);
            let k = match params {
                Params::Unit(_) => Some(0),
                Params::List(ps, _) if ps.len() > 1 => Some(ps.len()),
                _ => None,
            };
            self.define(&id.name, id.span, core, Known::Fun(k), DefKind::Param, false);
            core
        });
        let mut amps: Vec<String> = Vec::new();
        let param = match params {
            Params::Name(id) => {
                let core = self.user_name(&id.name);
                let h = externals::is_handle(&id.name);
                let vi = self.define(&id.name, id.span, core, if h { Known::Handle } else { Known::Unknown }, DefKind::Param, false);
                self.vars[vi].handle = h;
                core
            }
            Params::Unit(_) => self.temp("u"),
            Params::List(ps, _) if ps.len() == 1 => match &ps[0] {
                Param::Amp(id) => {
                    amps.push(id.name.clone());
                    let core = self.user_name(&id.name);
                    let vi = self.define(&id.name, id.span, core, Known::Handle, DefKind::Param, false);
                    self.vars[vi].handle = true;
                    core
                }
                Param::Pat(Pattern::Name(id)) => {
                    let core = self.user_name(&id.name);
                    let h = externals::is_handle(&id.name);
                    let vi = self.define(&id.name, id.span, core, if h { Known::Handle } else { Known::Unknown }, DefKind::Param, false);
                    self.vars[vi].handle = h;
                    core
                }
                Param::Pat(p) => {
                    let core = self.temp("p");
                    self.destructure(p, core, Known::Unknown, p.span(), DefKind::Param);
                    core
                }
            },
            Params::List(ps, _) => {
                let core = self.temp("p");
                for (i, prm) in ps.iter().enumerate() {
                    let span = match prm {
                        Param::Amp(id) => id.span,
                        Param::Pat(p) => p.span(),
                    };
                    match prm {
                        Param::Amp(id) => {
                            amps.push(id.name.clone());
                            let c = self.user_name(&id.name);
                            self.emit(Op::Prj(i as u32 + 1, core), span, Some(c));
                            let vi = self.define(&id.name, id.span, c, Known::Handle, DefKind::Param, false);
                            self.vars[vi].handle = true;
                        }
                        Param::Pat(Pattern::Name(id)) => {
                            let c = self.user_name(&id.name);
                            self.emit(Op::Prj(i as u32 + 1, core), span, Some(c));
                            let h = externals::is_handle(&id.name);
                            let vi = self.define(&id.name, id.span, c, if h { Known::Handle } else { Known::Unknown }, DefKind::Param, false);
                            self.vars[vi].handle = h;
                        }
                        Param::Pat(Pattern::Wild(_) | Pattern::Unit(_)) => {}
                        Param::Pat(p) => {
                            let t = self.temp("t");
                            self.emit(Op::Prj(i as u32 + 1, core), span, Some(t));
                            self.destructure(p, t, Known::Unknown, span, DefKind::Param);
                        }
                    }
                }
                core
            }
        };
        let value = body(self);
        let mut ret = if amps.is_empty() {
            value.unwrap_or_else(|| self.emit(Op::Tuple(vec![]), Span::default(), None))
        } else {
            let mut xs: Vec<Name> = amps.iter().map(|a| self.current(a)).collect();
            if let Some(v) = value {
                xs.push(v);
            }
            if xs.len() == 1 {
                xs[0]
            } else {
                self.emit(Op::Tuple(xs), Span::default(), None)
            }
        };
        // The parameters above were bound from `param`; what the function really takes
        // comes first in the body: `fun (itself, param)` for `rec`, `fun (tok, …)`.
        let mut param = param;
        let prj = |bind: Name, i: u32, of: Name| Stmt { bind, op: Op::Prj(i, of), span: Span::default() };
        // (A function of `()` ignores its argument: nothing binds it.)
        let unit = matches!(params, Params::Unit(_));
        if let Some(f) = itself {
            let p = self.temp("p");
            let head: Vec<Stmt> = if unit { vec![prj(f, 1, p)] } else { vec![prj(f, 1, p), prj(param, 2, p)] };
            self.buf.splice(0..0, head);
            param = p;
        }
        if let Some(tok_in) = tok_in {
            let out = self.token();
            ret = self.emit(Op::Tuple(vec![out, ret]), Span::default(), None);
            let p = self.temp("p");
            let head: Vec<Stmt> = if unit && itself.is_none() { vec![prj(tok_in, 1, p)] } else { vec![prj(tok_in, 1, p), prj(param, 2, p)] };
            self.buf.splice(0..0, head);
            param = p;
        }
        self.pop_scope();
        let stmts = std::mem::replace(&mut self.buf, saved);
        Fun { param, body: CExpr { stmts, ret: Some(ret) } }
    }

    /// The current core name of a source name (after any rebinding).
    fn current(&mut self, name: &str) -> Name {
        match self.find_var(name) {
            Some((vi, _)) => {
                self.vars[vi].used = true;
                self.vars[vi].core
            }
            None => self.env(name),
        }
    }

    // ---- control flow ------------------------------------------------------------------

    /// Source names the block assigns (not inside nested `fun`s), in order of first assignment,
    /// that are bound before it: the variables it threads (LANGUAGE.md §3.6).
    fn carried(&self, blocks: &[&Block]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for b in blocks {
            assigned(b, &mut out);
        }
        out.retain(|n| self.find_var(n).is_some() || (!self.prelude_mode && self.env_name(n).is_some()));
        if self.needs_token(blocks) {
            out.push(TOKEN.to_string());
        }
        out
    }

    fn tuple_of(&mut self, vs: &[String], span: Span) -> Name {
        let xs: Vec<Name> = vs.iter().map(|v| self.current(v)).collect();
        if xs.len() == 1 {
            xs[0]
        } else {
            self.emit(Op::Tuple(xs), span, None)
        }
    }

    /// Rebinds the carried names from the result `r` of a branch or loop.
    fn unpack_carried(&mut self, vs: &[String], r: Name, span: Span) {
        if vs.len() == 1 {
            return; // already bound to the new name by the caller
        }
        for (i, v) in vs.iter().enumerate() {
            let core = self.user_name(v);
            self.emit(Op::Prj(i as u32 + 1, r), span, Some(core));
            self.define_carried(v, core);
        }
    }

    fn define_carried(&mut self, v: &str, core: Name) {
        let handle = self.find_var(v).map(|(vi, _)| self.vars[vi].handle).unwrap_or(externals::is_handle(v));
        let known = if handle { Known::Handle } else { Known::Unknown };
        let vi = self.define(v, Span::default(), core, known, DefKind::Binding, false);
        self.vars[vi].handle = handle;
        self.vars[vi].used = true;
        // Carried bindings are not source binding sites.
        self.symbols.defs.pop();
        self.vars[vi].def = self.find_def_of(v).unwrap_or(NO_DEF);
    }

    fn find_def_of(&self, v: &str) -> Option<usize> {
        self.symbols.defs.iter().rposition(|d| d.name == v)
    }

    /// A branch or loop body as a function of the carried variables.
    fn branch_fun(
        &mut self,
        param_vars: &[String],
        extra: Option<&Pattern>,
        body: &Block,
        kind: ScopeKind,
        what: &'static str,
        with_value: bool,
    ) -> (Fun, bool) {
        let saved = std::mem::take(&mut self.buf);
        self.scopes.push(Scope { kind, vars: FastMap::default() });
        let p = self.temp(if extra.is_some() { "p" } else { "u" });
        // Bind carried variables inside a loop body from `prj 1 p` (one variable: directly, so
        // each iteration costs no alias step).
        if extra.is_some() {
            if param_vars.len() == 1 {
                let core = self.user_name(&param_vars[0]);
                self.emit(Op::Prj(1, p), Span::default(), Some(core));
                self.define_carried(&param_vars[0], core);
            } else if !param_vars.is_empty() {
                let acc = self.temp("acc");
                self.emit(Op::Prj(1, p), Span::default(), Some(acc));
                for (i, v) in param_vars.iter().enumerate() {
                    let core = self.user_name(v);
                    self.emit(Op::Prj(i as u32 + 1, acc), Span::default(), Some(core));
                    self.define_carried(v, core);
                }
            }
        }
        if let Some(pat) = extra {
            match pat {
                Pattern::Name(id) => {
                    let core = self.user_name(&id.name);
                    self.emit(Op::Prj(2, p), id.span, Some(core));
                    self.define(&id.name, id.span, core, Known::Unknown, DefKind::Param, false);
                }
                _ => {
                    let x = self.temp("x");
                    self.emit(Op::Prj(2, p), pat.span(), Some(x));
                    self.destructure(pat, x, Known::Unknown, pat.span(), DefKind::Param)
                }
            }
        }
        // Names bound here before the body (carried variables, the loop pattern) are not local
        // to the body; names of outer scopes are checked when the scope closes. Collecting every
        // visible name here instead made a file with many `if`s quadratic.
        let before: FastSet<String> = self.scopes.last().map(|s| s.vars.keys().cloned().collect()).unwrap_or_default();
        let value = self.block(body);
        let has_value = with_value && value.is_some() && ends_in_ret(body);
        let mut xs: Vec<Name> = param_vars.iter().map(|v| self.current(v)).collect();
        if has_value {
            if let Some(v) = value {
                xs.push(v);
            }
        }
        let ret = match xs.len() {
            0 => self.emit(Op::Tuple(vec![]), Span::default(), None),
            1 => xs[0],
            _ => self.emit(Op::Tuple(xs), Span::default(), None),
        };
        let scope = self.pop_scope();
        for name in scope.vars.keys() {
            if !before.contains(name) && !param_vars.contains(name) && self.find_var(name).is_none() {
                self.block_locals.insert(name.clone(), what);
            }
        }
        let stmts = std::mem::replace(&mut self.buf, saved);
        (Fun { param: p, body: CExpr { stmts, ret: Some(ret) } }, has_value)
    }

    fn if_item(&mut self, arms: &[(Expr, Block)], els: Option<&Block>, span: Span, last: bool) -> Option<Name> {
        let mut blocks: Vec<&Block> = arms.iter().map(|(_, b)| b).collect();
        if let Some(e) = els {
            blocks.push(e);
        }
        let mut vs = self.carried(&blocks);
        // A name every branch binds (with an `else`) is bound after the `if`, as in Python.
        if els.is_some() {
            let mut every: Option<Vec<String>> = None;
            for b in &blocks {
                let mut names = Vec::new();
                assigned(b, &mut names);
                every = Some(match every {
                    None => names,
                    Some(prev) => prev.into_iter().filter(|n| names.contains(n)).collect(),
                });
            }
            for n in every.unwrap_or_default() {
                if !vs.contains(&n) {
                    vs.push(n);
                }
            }
        }
        // An `if` whose every branch (with an `else`) ends in `ret` gives its block's value.
        let valued = last && els.is_some() && blocks.iter().all(|b| ends_in_ret(b));
        let r = self.if_chain(arms, els, &vs, span, valued);
        let k = vs.len();
        if valued {
            if k == 0 {
                return Some(r);
            }
            for (i, v) in vs.iter().enumerate() {
                let core = self.user_name(v);
                self.emit(Op::Prj(i as u32 + 1, r), span, Some(core));
                self.define_carried(v, core);
            }
            return Some(self.emit(Op::Prj(k as u32 + 1, r), span, None));
        }
        if k == 1 {
            self.define_carried(&vs[0], r);
        } else {
            self.unpack_carried(&vs, r, span);
        }
        None
    }

    fn if_chain(&mut self, arms: &[(Expr, Block)], els: Option<&Block>, vs: &[String], span: Span, valued: bool) -> Name {
        let (c, then_b) = &arms[0];
        let cn = self.expr(c, None);
        let ((tf, _), then_uses) = self.first_alternative(|d| d.branch_fun(vs, None, then_b, ScopeKind::Branch, "an `if` branch", valued));
        let tn = self.emit(Op::Fun(Box::new(tf)), then_b.items.first().map(|i| i.span).unwrap_or(span), None);
        let ef = if arms.len() > 1 {
            // elif: the else branch is the rest of the chain.
            let saved = std::mem::take(&mut self.buf);
            self.scopes.push(Scope { kind: ScopeKind::Branch, vars: FastMap::default() });
            let u = self.temp("u");
            let r = self.if_chain(&arms[1..], els, vs, span, valued);
            self.pop_scope();
            let stmts = std::mem::replace(&mut self.buf, saved);
            Fun { param: u, body: CExpr { stmts, ret: Some(r) } }
        } else if let Some(b) = els {
            self.branch_fun(vs, None, b, ScopeKind::Branch, "an `else` branch", valued).0
        } else {
            let saved = std::mem::take(&mut self.buf);
            let u = self.temp("u");
            let r = self.tuple_of(vs, span);
            let r = if vs.is_empty() { self.emit(Op::Tuple(vec![]), span, None) } else { r };
            let stmts = std::mem::replace(&mut self.buf, saved);
            Fun { param: u, body: CExpr { stmts, ret: Some(r) } }
        };
        self.merge_alternatives(then_uses);
        let en = self.emit(Op::Fun(Box::new(ef)), span, None);
        let t = self.emit(Op::Tuple(vec![cn, tn, en]), span, None);
        let iff = self.env("if");
        let target = if vs.len() == 1 && !valued { Some(self.user_name(&vs[0])) } else { None };
        self.emit(Op::Call(iff, t), span, target)
    }

    fn for_item(&mut self, pat: &Pattern, iter: &Expr, body: &Block, span: Span) {
        let vs = self.carried(&[body]);
        let mut l = self.expr(iter, None);
        // `for k in d` walks a dictionary's keys, as in Python.
        if self.known_of_expr(iter, l) == Known::Dict {
            let keys = self.env("keys");
            l = self.emit(Op::Call(keys, l), iter.span, None);
        }
        let init = if vs.is_empty() { self.emit(Op::Tuple(vec![]), span, None) } else { self.tuple_of(&vs, span) };
        let (f, _) = self.branch_fun(&vs, Some(pat), body, ScopeKind::Loop, "a `for` body", false);
        let fname = self.emit(Op::Fun(Box::new(f)), span, None);
        let t = self.emit(Op::Tuple(vec![l, init, fname]), span, None);
        let fold = self.env("fold");
        let target = match vs.len() {
            0 => Some(self.temp("_")),
            1 => Some(self.user_name(&vs[0])),
            _ => None,
        };
        let r = self.emit(Op::Call(fold, t), span, target);
        if vs.len() == 1 {
            self.define_carried(&vs[0], r);
        } else if vs.len() > 1 {
            self.unpack_carried(&vs, r, span);
        }
    }

    /// `while c: B` (cond first) and `do: B while c` (cond after): a local recursive
    /// function through `fix` that threads the carried variables.
    fn loop_item(&mut self, pre: Option<&Expr>, body: &Block, post: Option<&Expr>, span: Span) {
        let vs = self.carried(&[body]);
        let init = if vs.is_empty() { self.emit(Op::Tuple(vec![]), span, None) } else { self.tuple_of(&vs, span) };
        let what = if pre.is_some() { "a `while` body" } else { "a `do` body" };
        // step := fun (loop, acc): …
        let saved = std::mem::take(&mut self.buf);
        self.scopes.push(Scope { kind: ScopeKind::Loop, vars: FastMap::default() });
        let p = self.temp("p");
        let lp = self.temp("loop");
        self.emit(Op::Prj(1, p), span, Some(lp));
        let acc = self.temp("acc");
        self.emit(Op::Prj(2, p), span, Some(acc));
        if vs.len() == 1 {
            let core = self.user_name(&vs[0]);
            self.emit(Op::Alias(acc), span, Some(core));
            self.define_carried(&vs[0], core);
        } else {
            for (i, v) in vs.iter().enumerate() {
                let core = self.user_name(v);
                self.emit(Op::Prj(i as u32 + 1, acc), span, Some(core));
                self.define_carried(v, core);
            }
        }
        let result = match (pre, post) {
            (Some(c), _) => {
                let cn = self.expr(c, None);
                // then: B; loop V'
                let saved2 = std::mem::take(&mut self.buf);
                self.scopes.push(Scope { kind: ScopeKind::Branch, vars: FastMap::default() });
                let u = self.temp("u");
                self.block(body);
                let a = if vs.is_empty() { self.emit(Op::Tuple(vec![]), span, None) } else { self.tuple_of(&vs, span) };
                let r = self.emit(Op::Call(lp, a), span, None);
                let sc = self.pop_scope();
                for name in sc.vars.keys() {
                    if !vs.contains(name) {
                        self.block_locals.insert(name.clone(), what);
                    }
                }
                let then_stmts = std::mem::replace(&mut self.buf, saved2);
                let tn = self.emit(Op::Fun(Box::new(Fun { param: u, body: CExpr { stmts: then_stmts, ret: Some(r) } })), span, None);
                let en = self.done_branch(&vs, span);
                let t = self.emit(Op::Tuple(vec![cn, tn, en]), span, None);
                let iff = self.env("if");
                self.emit(Op::Call(iff, t), span, None)
            }
            (None, Some(c)) => {
                self.block(body);
                let cn = self.expr(c, None);
                let saved2 = std::mem::take(&mut self.buf);
                let u = self.temp("u");
                let a = if vs.is_empty() { self.emit(Op::Tuple(vec![]), span, None) } else { self.tuple_of(&vs, span) };
                let r = self.emit(Op::Call(lp, a), span, None);
                let then_stmts = std::mem::replace(&mut self.buf, saved2);
                let tn = self.emit(Op::Fun(Box::new(Fun { param: u, body: CExpr { stmts: then_stmts, ret: Some(r) } })), span, None);
                let en = self.done_branch(&vs, span);
                let t = self.emit(Op::Tuple(vec![cn, tn, en]), span, None);
                let iff = self.env("if");
                self.emit(Op::Call(iff, t), span, None)
            }
            _ => self.emit(Op::Tuple(vec![]), span, None),
        };
        let sc = self.pop_scope();
        for name in sc.vars.keys() {
            if !vs.contains(name) {
                self.block_locals.insert(name.clone(), what);
            }
        }
        let stmts = std::mem::replace(&mut self.buf, saved);
        let step = self.emit(Op::Fun(Box::new(Fun { param: p, body: CExpr { stmts, ret: Some(result) } })), span, None);
        let fix = self.env("fix");
        let lf = self.emit(Op::Call(fix, step), span, None);
        let target = match vs.len() {
            0 => Some(self.temp("_")),
            1 => Some(self.user_name(&vs[0])),
            _ => None,
        };
        let r = self.emit(Op::Call(lf, init), span, target);
        if vs.len() == 1 {
            self.define_carried(&vs[0], r);
        } else if vs.len() > 1 {
            self.unpack_carried(&vs, r, span);
        }
    }

    /// `fun u: V` — the branch that leaves a loop with the carried variables.
    fn done_branch(&mut self, vs: &[String], span: Span) -> Name {
        let saved = std::mem::take(&mut self.buf);
        let u = self.temp("u");
        let r = if vs.is_empty() { self.emit(Op::Tuple(vec![]), span, None) } else { self.tuple_of(vs, span) };
        let stmts = std::mem::replace(&mut self.buf, saved);
        self.emit(Op::Fun(Box::new(Fun { param: u, body: CExpr { stmts, ret: Some(r) } })), span, None)
    }

    // ---- entry points ------------------------------------------------------------------

    /// Desugars a whole program block; returns the top-level statements and the return name.
    pub fn program(mut self, block: &Block) -> (Program, Vec<Diagnostic>) {
        self.core_mode = is_core_notation(block);
        // Declare every `extern` first so uses before the declaration line resolve too.
        for item in &block.items {
            if let ItemKind::Extern(..) = item.kind {
                self.item(item, false);
            }
        }
        if !self.core_mode && !self.prelude_mode {
            self.plan = Plan::analyze(block, &self.orders);
        }
        if self.plan.ordered {
            // The token starts as `seq` (the pair `(seq, seq)` with readonly calls); every
            // later one is `seq'k`.
            self.counters.insert(Sym::intern(crate::ir::SEQ_TOKEN), 1);
            let seq = self.env(crate::ir::SEQ_TOKEN);
            let tok = if self.plan.readonly { self.emit(Op::Tuple(vec![seq, seq]), Span::default(), None) } else { seq };
            self.define_hidden(TOKEN, tok);
        }
        let value = self.block_skip_externs(block);
        let ret = value.unwrap_or_else(|| self.emit(Op::Tuple(vec![]), Span::default(), None));
        self.pop_scope();
        let stmts = std::mem::take(&mut self.buf);
        let env = prelude::environment(&self.used_env, &self.externs);
        let mut ordered: Vec<String> = self.orders.iter().filter(|(_, o)| **o != Order::Unordered).map(|(n, _)| n.clone()).collect();
        if self.plan.ordered {
            ordered.push("print".into());
        }
        ordered.sort();
        let orders = self.orders.into_iter().collect();
        let program = Program { env, body: CExpr { stmts, ret: Some(ret) }, externs: self.externs, symbols: self.symbols, ordered, orders };
        (program, self.diags)
    }

    fn block_skip_externs(&mut self, b: &Block) -> Option<Name> {
        self.items(b.items.iter().filter(|i| !matches!(i.kind, ItemKind::Extern(..))).collect())
    }

    /// Desugars the prelude: each top-level definition in order, with the names it uses.
    #[allow(clippy::type_complexity)]
    pub fn prelude_defs(mut self, block: &Block) -> (Vec<(String, Vec<Stmt>, Vec<String>, Option<usize>)>, Vec<Diagnostic>) {
        let mut out = Vec::new();
        for item in &block.items {
            self.used_env.clear();
            // Each definition numbers its invented names from 1: its body is a scope of its
            // own, and a student stepping into `fix` or `map` should not read `t'82`.
            for (_, sym) in &self.temp_syms {
                self.counters.remove(sym);
            }
            let before = self.buf.len();
            let (name, arity) = match &item.kind {
                ItemKind::Bind(Pattern::Name(id), e) => {
                    let k = match self.known_of_expr(e, Name::plain("?")) {
                        Known::Fun(k) => k,
                        _ => None,
                    };
                    (is_keyword_alias(&id.name).unwrap_or(&id.name).to_string(), k)
                }
                _ => continue,
            };
            self.item(item, false);
            let stmts = self.buf[before..].to_vec();
            let mut deps: Vec<String> = self.used_env.iter().cloned().collect();
            deps.sort();
            // Prelude names defined earlier are in scope as variables: record them as deps too.
            for s in &stmts {
                collect_free(&s.op, &mut deps);
            }
            deps.sort();
            deps.dedup();
            deps.retain(|d| *d != name);
            out.push((name, stmts, deps, arity));
        }
        (out, self.diags)
    }
}

fn collect_free(op: &Op, out: &mut Vec<String>) {
    // Over-approximates: every name mentioned. Filtered against prelude names by the caller.
    match op {
        Op::Alias(y) => out.push(y.to_string()),
        Op::Call(f, x) => {
            out.push(f.to_string());
            out.push(x.to_string());
        }
        Op::Tuple(xs) => out.extend(xs.iter().map(|x| x.to_string())),
        Op::Prj(_, x) => out.push(x.to_string()),
        Op::Fun(f) => {
            for s in &f.body.stmts {
                collect_free(&s.op, out);
            }
            out.push(f.body.ret_name().to_string());
        }
        Op::Prim(_) => {}
    }
}

/// W0002: a handle used again without threading (the order of its effects is open).
fn handle_twice(name: &str, span: Span, first: Span) -> Diagnostic {
    Diagnostic::warning("W0002", span, format!("handle `{name}` is used again without threading"))
        .with_related(first, "first used here")
        .with_help(format!(
            "write `&{name}` so each call returns the next `{name}` (e.g. `print (&{name}, x)`); otherwise the order of these effects is not determined (paper §4.3)"
        ))
        .with_fix(format!("&{name}"))
}

fn ends_in_ret(b: &Block) -> bool {
    matches!(b.items.last().map(|i| &i.kind), Some(ItemKind::Ret(_)))
}

/// Does this expression call something with an `&` argument (at its top)?
fn has_amp_call(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::App(_, a) => match &a.kind {
            ExprKind::Amp(_) => true,
            ExprKind::Tuple(es) => es.iter().any(|x| matches!(x.kind, ExprKind::Amp(_))),
            _ => false,
        },
        _ => false,
    }
}

fn fun_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Fun(..) => true,
        ExprKind::Paren(x) => fun_literal(x),
        _ => false,
    }
}

fn is_amp_rebinding(e: &Expr) -> bool {
    has_amp_call(e)
}

/// Names assigned by a block at its level and in nested control flow, not in nested `fun`s.
pub fn assigned(b: &Block, out: &mut Vec<String>) {
    fn push(out: &mut Vec<String>, n: &str) {
        if !out.iter().any(|x| x == n) {
            out.push(n.to_string());
        }
    }
    fn amps(e: &Expr, out: &mut Vec<String>) {
        match &e.kind {
            ExprKind::App(f, a) => {
                amps(f, out);
                match &a.kind {
                    ExprKind::Amp(id) => push(out, &id.name),
                    ExprKind::Tuple(es) => {
                        for x in es {
                            if let ExprKind::Amp(id) = &x.kind {
                                push(out, &id.name);
                            } else {
                                amps(x, out);
                            }
                        }
                    }
                    _ => amps(a, out),
                }
            }
            ExprKind::Binary(_, a, b) => {
                amps(a, out);
                amps(b, out);
            }
            ExprKind::Paren(x) | ExprKind::Not(x) | ExprKind::Neg(x) | ExprKind::Prj(_, x) => amps(x, out),
            ExprKind::Tuple(es) | ExprKind::List(es) => es.iter().for_each(|x| amps(x, out)),
            _ => e.sugar_children().into_iter().for_each(|x| amps(x, out)),
        }
    }
    for item in &b.items {
        match &item.kind {
            ItemKind::Bind(p, e) => {
                amps(e, out);
                let mut ns = Vec::new();
                p.names(&mut ns);
                for n in ns {
                    push(out, &n.name);
                }
            }
            ItemKind::Aug(id, _, e) => {
                amps(e, out);
                push(out, &id.name);
            }
            ItemKind::Rec(id, _) => push(out, &id.name),
            ItemKind::Expr(e) | ItemKind::Ret(e) => amps(e, out),
            ItemKind::For(_, e, body) => {
                amps(e, out);
                assigned(body, out);
            }
            ItemKind::If(arms, els) => {
                for (c, body) in arms {
                    amps(c, out);
                    assigned(body, out);
                }
                if let Some(b) = els {
                    assigned(b, out);
                }
            }
            ItemKind::While(c, body) | ItemKind::DoWhile(body, c) => {
                amps(c, out);
                assigned(body, out);
            }
            ItemKind::Extern(..) | ItemKind::Error => {}
        }
    }
}

/// A file is in core notation when every item is a core statement and it ends in `ret x`.
pub fn is_core_notation(b: &Block) -> bool {
    fn is_var(e: &Expr) -> bool {
        matches!(e.kind, ExprKind::Name(_))
    }
    fn core_op(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Name(_) | ExprKind::Prim(_) | ExprKind::PrimName(_) | ExprKind::Unit => true,
            ExprKind::Tuple(es) => es.iter().all(is_var),
            ExprKind::Prj(_, x) => is_var(x),
            ExprKind::App(f, x) => is_var(f) && is_var(x),
            ExprKind::Fun(Params::Name(_), FunBody::Block(b)) => core_block(b),
            _ => false,
        }
    }
    fn core_block(b: &Block) -> bool {
        core_items(&b.items.iter().collect::<Vec<_>>())
    }
    fn core_items(items: &[&Item]) -> bool {
        let n = items.len();
        n > 0
            && items.iter().enumerate().all(|(i, it)| match &it.kind {
                ItemKind::Bind(Pattern::Name(_), e) => i + 1 < n && core_op(e),
                ItemKind::Ret(e) => i + 1 == n && is_var(e),
                _ => false,
            })
    }
    // `extern` lines only declare what the world file supplies (Fig. 2(b) has one).
    core_items(&b.items.iter().filter(|i| !matches!(i.kind, ItemKind::Extern(..))).collect::<Vec<_>>())
}

pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = if a[i - 1] == b[j - 1] { 0 } else { 1 };
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}
