//! Which calls thread the sequencing token (PopPy §4–§6 in λ^O; `docs/language.md`,
//! "Ordering"). A program that makes ordered calls (`print v`, externals declared
//! `sequential` or `readonly`) threads a token through them in program order. Functions that
//! may make ordered calls take the token and give it back: `f (tok, x)` is `(tok, y)`. A
//! function that is only ever called by its name and never makes an ordered call, directly
//! or through what it calls, keeps its plain form, so a pure loop or a divergent one (§3.4)
//! holds back no print. Every other function value takes the token, so a call to an unknown
//! function (a parameter, a computed callee) can always pass it.
//!
//! The analysis is by source name over the whole file: a name counts as a plain function only
//! if every binding of that name anywhere is a `fun` literal (or `rec`) and every use of it
//! calls it. That over-approximates and keeps every call site and definition of one name on
//! one convention, whatever scope they are in.

use crate::names::{FastMap, FastSet};
use crate::syntax::ast::*;
use std::collections::{HashMap, HashSet};

/// The analysis' answer for one program.
#[derive(Debug, Default)]
pub struct Plan {
    /// Some call is ordered: the program threads the token.
    pub ordered: bool,
    /// Some call is readonly: the token is the pair (after every ordered call, after every
    /// sequential call).
    pub readonly: bool,
    /// Names whose functions take no token.
    plain: HashSet<String>,
    /// Names the program binds somewhere (else a name is the environment's).
    bound: HashSet<String>,
}

impl Plan {
    /// Does a function called (or defined) under this program name take the token?
    pub fn takes_token(&self, name: &str) -> bool {
        !self.plain.contains(name)
    }
    /// Is this name bound by the program somewhere (not only the environment's)?
    pub fn is_bound(&self, name: &str) -> bool {
        self.bound.contains(name)
    }

    pub fn analyze(block: &Block, orders: &HashMap<String, Order>) -> Plan {
        // Most programs order nothing: a first walk only looks for an ordered call, and the
        // names and bodies are recorded only when there is one.
        let mut probe = Walk {
            orders,
            record: false,
            names: FastMap::default(),
            bound: FastSet::default(),
            bodies: Vec::new(),
            ordered: false,
            readonly: false,
        };
        probe.block(block, None);
        if !probe.ordered {
            return Plan::default();
        }
        let mut w = Walk {
            record: true,
            ..probe
        };
        w.block(block, None);
        let bound = std::mem::take(&mut w.bound);
        // Candidates: bound only to functions, only ever called.
        let mut plain: FastSet<&str> = w
            .names
            .iter()
            .filter(|(k, n)| bound.contains(*k) && n.only_funs && !n.as_value)
            .map(|(k, _)| *k)
            .collect();
        // A body orders if it makes an ordered call, calls something unknown or a higher-order
        // prelude function, or calls a name that is not a plain candidate; and then every
        // candidate calling it orders too (worklist over the reverse call graph).
        let mut callers: FastMap<&str, Vec<&str>> = FastMap::default();
        let mut work: Vec<&str> = Vec::new();
        for body in &w.bodies {
            let Some(owner) = body.owner else { continue };
            if !plain.contains(owner) {
                continue;
            }
            let orders_itself = body.intrinsic
                || body
                    .calls
                    .iter()
                    .any(|c| bound.contains(c) && !plain.contains(c));
            if orders_itself {
                work.push(owner);
            }
            for c in &body.calls {
                if plain.contains(c) {
                    callers.entry(c).or_default().push(owner);
                }
            }
        }
        while let Some(n) = work.pop() {
            if !plain.remove(n) {
                continue;
            }
            if let Some(cs) = callers.get(n) {
                work.extend(cs.iter().filter(|c| plain.contains(**c)));
            }
        }
        let owned = |set: FastSet<&str>| set.into_iter().map(str::to_string).collect();
        Plan {
            ordered: true,
            readonly: w.readonly,
            plain: owned(plain),
            bound: owned(bound),
        }
    }
}

#[derive(Default)]
struct NameInfo {
    /// Every binding of the name is a `fun` literal or `rec`.
    only_funs: bool,
    /// The name is used other than as the function of a call.
    as_value: bool,
}

struct Body<'a> {
    /// The name the function is bound to (`None`: an anonymous function, which always takes
    /// the token).
    owner: Option<&'a str>,
    /// It makes an ordered call, calls an unknown function or a higher-order prelude function.
    intrinsic: bool,
    /// Names it calls.
    calls: Vec<&'a str>,
}

/// Walks the syntax tree once, borrowing every name from it (no allocation per name).
struct Walk<'a> {
    orders: &'a HashMap<String, Order>,
    /// Record names and bodies (else only look for an ordered call).
    record: bool,
    names: FastMap<&'a str, NameInfo>,
    bound: FastSet<&'a str>,
    bodies: Vec<Body<'a>>,
    ordered: bool,
    readonly: bool,
}

/// Prelude functions that call a function argument.
pub const HIGHER_ORDER: &[&str] = &["map", "filter", "fold", "if", "sort_by"];

impl<'a> Walk<'a> {
    fn bind(&mut self, name: &'a str, is_fun: bool) {
        if !self.record {
            return;
        }
        self.bound.insert(name);
        let e = self.names.entry(name).or_insert(NameInfo {
            only_funs: true,
            as_value: false,
        });
        e.only_funs &= is_fun;
    }
    fn bind_pattern(&mut self, p: &'a Pattern) {
        if !self.record {
            return;
        }
        let mut ns = Vec::new();
        p.names(&mut ns);
        for n in ns {
            self.bind(&n.name, false);
        }
    }
    fn value_ref(&mut self, name: &'a str) {
        if !self.record {
            return;
        }
        self.names
            .entry(name)
            .or_insert(NameInfo {
                only_funs: true,
                as_value: false,
            })
            .as_value = true;
    }

    /// Walks a block; `body` is the index of the function body it belongs to, if any.
    fn block(&mut self, b: &'a Block, body: Option<usize>) {
        for item in &b.items {
            self.item(item, body);
        }
    }

    fn item(&mut self, item: &'a Item, body: Option<usize>) {
        match &item.kind {
            ItemKind::Bind(Pattern::Name(id), e) if fun_of(e).is_some() => {
                self.bind(&id.name, true);
                self.fun(e, Some(&id.name), body);
            }
            ItemKind::Bind(p, e) => {
                self.bind_pattern(p);
                self.expr(e, body);
            }
            ItemKind::Aug(id, _, e) => {
                self.bind(&id.name, false);
                self.value_ref(&id.name);
                self.expr(e, body);
            }
            ItemKind::Rec(id, f) => {
                self.bind(&id.name, true);
                self.fun(f, Some(&id.name), body);
            }
            ItemKind::Extern(..) | ItemKind::Error => {}
            ItemKind::For(p, e, b) => {
                self.bind_pattern(p);
                self.expr(e, body);
                self.block(b, body);
            }
            ItemKind::If(arms, els) => {
                for (c, b) in arms {
                    self.expr(c, body);
                    self.block(b, body);
                }
                if let Some(b) = els {
                    self.block(b, body);
                }
            }
            ItemKind::While(c, b) | ItemKind::DoWhile(b, c) => {
                self.expr(c, body);
                self.block(b, body);
            }
            ItemKind::Ret(e) | ItemKind::Expr(e) => self.expr(e, body),
        }
    }

    /// A `fun` literal (possibly in parentheses): a body of its own.
    fn fun(&mut self, e: &'a Expr, owner: Option<&'a str>, _outer: Option<usize>) {
        let Some((params, fb)) = fun_of(e) else {
            return;
        };
        match params {
            Params::Name(id) => self.bind(&id.name, false),
            Params::Unit(_) => {}
            Params::List(ps, _) => {
                for p in ps {
                    match p {
                        Param::Pat(p) => self.bind_pattern(p),
                        Param::Amp(id) => self.bind(&id.name, false),
                    }
                }
            }
        }
        let me = self.record.then(|| {
            self.bodies.push(Body {
                owner,
                intrinsic: false,
                calls: Vec::new(),
            });
            self.bodies.len() - 1
        });
        match fb {
            FunBody::Expr(x) => self.expr(x, me),
            FunBody::Block(b) => self.block(b, me),
        }
    }

    fn mark(&mut self, body: Option<usize>) {
        if let Some(i) = body {
            self.bodies[i].intrinsic = true;
        }
    }

    fn expr(&mut self, e: &'a Expr, body: Option<usize>) {
        match &e.kind {
            ExprKind::Name(id) => {
                self.value_ref(&id.name);
                // An ordered external passed as a value is called somewhere, in order.
                let order = if crate::externals::is_printer(&id.name) {
                    Some(Order::Sequential)
                } else {
                    self.orders.get(&id.name).copied()
                };
                if let Some(o @ (Order::Sequential | Order::Readonly)) = order {
                    self.ordered = true;
                    self.readonly |= o == Order::Readonly;
                }
            }
            ExprKind::Amp(id) => {
                self.value_ref(&id.name);
                self.bind(&id.name, false);
            }
            ExprKind::Fun(..) => self.fun(e, None, body),
            ExprKind::App(f, a) => {
                match &f.kind {
                    ExprKind::Name(id) => {
                        let n = id.name.as_str();
                        let printer = crate::externals::is_printer(n);
                        let order = if printer && !explicit_handle(a) {
                            Some(Order::Sequential)
                        } else {
                            self.orders.get(n).copied()
                        };
                        match order {
                            Some(o @ (Order::Sequential | Order::Readonly)) => {
                                self.ordered = true;
                                self.readonly |= o == Order::Readonly;
                                self.mark(body);
                            }
                            // `print (&h, v)` orders nothing by itself, but in a program that
                            // threads the token it joins the token too (one order for stdout).
                            _ if printer || HIGHER_ORDER.contains(&n) => self.mark(body),
                            _ => {}
                        }
                        if let Some(i) = body {
                            self.bodies[i].calls.push(n);
                        }
                    }
                    _ => {
                        self.mark(body);
                        self.expr(f, body);
                    }
                }
                self.expr(a, body);
            }
            ExprKind::Paren(x) | ExprKind::Not(x) | ExprKind::Neg(x) | ExprKind::Prj(_, x) => {
                self.expr(x, body)
            }
            ExprKind::Tuple(es) | ExprKind::List(es) => es.iter().for_each(|x| self.expr(x, body)),
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
                self.expr(a, body);
                self.expr(b, body);
            }
            ExprKind::Cond(a, c, b) => {
                self.expr(a, body);
                self.expr(c, body);
                self.expr(b, body);
            }
            ExprKind::FStr(parts) => {
                for p in parts {
                    if let FPart::Expr(x) = p {
                        self.expr(x, body);
                    }
                }
            }
            ExprKind::Dict(kvs) => {
                for (k, v) in kvs {
                    self.expr(k, body);
                    self.expr(v, body);
                }
            }
            ExprKind::Lit(_)
            | ExprKind::Prim(_)
            | ExprKind::PrimName(_)
            | ExprKind::Unit
            | ExprKind::Error => {}
        }
    }
}

fn fun_of(e: &Expr) -> Option<(&Params, &FunBody)> {
    match &e.kind {
        ExprKind::Fun(p, b) => Some((p, b)),
        ExprKind::Paren(x) => fun_of(x),
        _ => None,
    }
}

/// Is `print`'s argument the explicit-handle form, `(&h, v)` or `(stdout, v)` (paper Fig. 2)?
/// That print is ordered by its handle, and makes no program ordered by itself: a program
/// whose prints all name their handle threads no token. In a program that does thread it
/// (some other call is ordered), the print takes the token as well, so every line printed
/// comes out in program order (`docs/language.md`, "Decisions").
pub fn explicit_handle(a: &Expr) -> bool {
    match &a.kind {
        ExprKind::Tuple(es) if es.len() == 2 => match &es[0].kind {
            ExprKind::Amp(_) => true,
            ExprKind::Name(id) => crate::externals::handle_root(&id.name).is_some(),
            _ => false,
        },
        ExprKind::Paren(x) => explicit_handle(x),
        _ => has_amp(a),
    }
}

/// Does a call's argument thread a handle with `&`?
pub fn has_amp(a: &Expr) -> bool {
    match &a.kind {
        ExprKind::Amp(_) => true,
        ExprKind::Tuple(es) => es.iter().any(|x| matches!(x.kind, ExprKind::Amp(_))),
        _ => false,
    }
}
