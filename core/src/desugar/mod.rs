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

mod checks;
mod control_flow;
mod expressions;
mod functions;
mod items;
pub mod prelude;
mod scope;
mod token;

pub use control_flow::assigned;
pub use scope::edit_distance;

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
    /// Every core name given to a variable the program named, its rebindings and the copies a
    /// loop or branch threads (`values'7` for `values += …` in a loop) included: what a
    /// debugger shows by its source name (`Machine::keep_source_names`).
    pub user_names: Vec<Name>,
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
    /// Calls of prelude list functions the program wrote: the start of each call's span, with
    /// the function's index in `prelude::SHAPES`, sorted by offset.
    pub library_calls: Vec<(u32, u32)>,
}

impl Program {
    /// Statements of the initial term (environment and body, nested bodies included).
    pub fn size(&self) -> usize {
        self.body.size()
            + self
                .env
                .iter()
                .map(|s| {
                    1 + if let crate::ir::Op::Fun(f) = &s.op {
                        f.body.size()
                    } else {
                        0
                    }
                })
                .sum::<usize>()
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
    /// Bound to a `fun (&h, …)` whose body has no value: it returns only its handles (E0109).
    handles_only: bool,
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
    /// Whether the `fun` desugared last returns only its `&` handles (no value).
    last_fun_handles_only: bool,
    /// See `Program::library_calls`.
    library_calls: Vec<(u32, u32)>,
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
            scopes: vec![Scope {
                kind: ScopeKind::Top,
                vars: FastMap::default(),
            }],
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
            last_fun_handles_only: false,
            library_calls: Vec::new(),
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
            // The standard externals' own classes (a file read is readonly, a write
            // sequential), unless the program declares an external of that name.
            for e in crate::externals::STANDARD {
                if let Some(o) = e.order {
                    if !self.externs.iter().any(|(n, _)| n == e.name) {
                        self.orders.insert(e.name.to_string(), o);
                    }
                }
            }
            self.plan = Plan::analyze(block, &self.orders);
        }
        if self.plan.ordered {
            // The token starts as `seq` (the pair `(seq, seq)` with readonly calls); every
            // later one is `seq'k`.
            self.counters.insert(Sym::intern(crate::ir::SEQ_TOKEN), 1);
            let seq = self.env(crate::ir::SEQ_TOKEN);
            let tok = if self.plan.readonly {
                self.emit(Op::Tuple(vec![seq, seq]), Span::default(), None)
            } else {
                seq
            };
            self.define_hidden(TOKEN, tok);
        }
        let value = self.block_skip_externs(block);
        let ret = value.unwrap_or_else(|| self.emit(Op::Tuple(vec![]), Span::default(), None));
        self.pop_scope();
        let stmts = std::mem::take(&mut self.buf);
        let env = prelude::environment(&self.used_env, &self.externs);
        // Only the standard externals the program calls keep their class in what it records.
        let (used, externs) = (&self.used_env, &self.externs);
        self.orders
            .retain(|n, _| used.contains(n.as_str()) || externs.iter().any(|(e, _)| e == n));
        let mut ordered: Vec<String> = self
            .orders
            .iter()
            .filter(|(_, o)| **o != Order::Unordered)
            .map(|(n, _)| n.clone())
            .collect();
        if self.plan.ordered {
            ordered.push("print".into());
            if self.used_env.contains("print_raw") {
                ordered.push("print_raw".into());
            }
        }
        ordered.sort();
        let orders = self.orders.into_iter().collect();
        let mut library_calls = self.library_calls;
        library_calls.sort_unstable();
        library_calls.dedup_by_key(|c| c.0);
        let program = Program {
            env,
            body: CExpr {
                stmts,
                ret: Some(ret),
            },
            externs: self.externs,
            symbols: self.symbols,
            ordered,
            orders,
            library_calls,
        };
        (program, self.diags)
    }

    fn block_skip_externs(&mut self, b: &Block) -> Option<Name> {
        self.items(
            b.items
                .iter()
                .filter(|i| !matches!(i.kind, ItemKind::Extern(..)))
                .collect(),
        )
    }

    /// Desugars the prelude: each top-level definition in order, with the names it uses.
    #[allow(clippy::type_complexity)]
    pub fn prelude_defs(
        mut self,
        block: &Block,
    ) -> (
        Vec<(String, Vec<Stmt>, Vec<String>, Option<usize>)>,
        Vec<Diagnostic>,
    ) {
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
                    (
                        is_keyword_alias(&id.name).unwrap_or(&id.name).to_string(),
                        k,
                    )
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
    core_items(
        &b.items
            .iter()
            .filter(|i| !matches!(i.kind, ItemKind::Extern(..)))
            .collect::<Vec<_>>(),
    )
}
