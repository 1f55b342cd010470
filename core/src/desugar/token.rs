//! The sequencing token (`crate::ordering`): which calls take it, how a call threads it, and
//! environment functions wrapped to take it when a program passes them as values.

use super::*;

impl Desugarer {
    /// Binds a name that has no place in the source (the token) in the current scope.
    pub(super) fn define_hidden(&mut self, key: &str, core: Name) {
        let vi = self.vars.len();
        self.vars.push(Var {
            core,
            def: NO_DEF,
            known: Known::Unknown,
            handle: false,
            used: true,
            lint_unused: false,
            handle_uses: 0,
            first_use: None,
            handles_only: false,
        });
        if let Some(s) = self.scopes.last_mut() {
            s.vars.insert(key.to_string(), vi);
        }
    }

    pub(super) fn token(&mut self) -> Name {
        self.current(TOKEN)
    }

    /// How a call of `f` passes the token, and the prelude variant a higher-order call uses
    /// instead of `f`.
    pub(super) fn call_kind(&self, f: &Expr) -> (CallKind, Option<String>) {
        if !self.plan.ordered {
            return (CallKind::Plain, None);
        }
        let id = match &f.kind {
            ExprKind::Name(id) => id,
            ExprKind::Paren(x) => return self.call_kind(x),
            _ => return (CallKind::User, None),
        };
        if self.find_var(&id.name).is_some() {
            return (
                if self.plan.takes_token(&id.name) {
                    CallKind::User
                } else {
                    CallKind::Plain
                },
                None,
            );
        }
        self.env_kind(&id.name)
    }

    /// How an environment function is called. Every `print` of a program that threads the
    /// token takes it, `print (&h, v)` as well as `print v`: the handle alone would let a
    /// handle print overtake a `print v` before it (stdout has one order).
    fn env_kind(&self, name: &str) -> (CallKind, Option<String>) {
        if crate::externals::is_printer(name) && !self.externs.iter().any(|(e, _)| e == name) {
            return (CallKind::Ordered(Order::Sequential), None);
        }
        match self.orders.get(name) {
            Some(o @ (Order::Sequential | Order::Readonly)) => (CallKind::Ordered(*o), None),
            _ if HIGHER_ORDER.contains(&name) && prelude::names().contains(&name) => {
                (CallKind::User, Some(format!("{name}_t")))
            }
            _ => (CallKind::Plain, None),
        }
    }

    /// Emits the call `f arg` as `kind` passes the token; returns what holds its result.
    pub(super) fn call_op(
        &mut self,
        kind: CallKind,
        f: Name,
        arg: Name,
        span: Span,
        target: Option<Name>,
    ) -> Name {
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
                let (after_all, after_seq) = if self.plan.readonly {
                    (
                        self.emit(Op::Prj(1, tok), span, None),
                        self.emit(Op::Prj(2, tok), span, None),
                    )
                } else {
                    (tok, tok)
                };
                let gate = if order == Order::Readonly {
                    after_seq
                } else {
                    after_all
                };
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
        self.scopes.push(Scope {
            kind: ScopeKind::Fun,
            vars: FastMap::default(),
        });
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
        self.emit(
            Op::Fun(Box::new(Fun {
                param: p,
                body: CExpr {
                    stmts,
                    ret: Some(ret),
                },
            })),
            span,
            None,
        )
    }

    /// A name in a value position: an environment function is wrapped to take the token.
    pub(super) fn value_name(&mut self, id: &Ident, as_handle_arg: bool) -> (Name, Known) {
        let env = self.find_var(&id.name).is_none();
        let (n, k) = self.use_name(id, as_handle_arg);
        if self.plan.ordered && env && self.is_env_function(&id.name) {
            return (self.wrap_env(&id.name, n, id.span), Known::Fun(None));
        }
        (n, k)
    }

    /// Does running these blocks pass the token on (a call that takes it, in them or in their
    /// nested control flow)? Then an `if` or loop carries it.
    pub(super) fn needs_token(&self, blocks: &[&Block]) -> bool {
        self.plan.ordered
            && blocks
                .iter()
                .any(|b| b.items.iter().any(|i| self.item_needs_token(i)))
    }

    fn item_needs_token(&self, item: &Item) -> bool {
        match &item.kind {
            ItemKind::Bind(_, e)
            | ItemKind::Aug(_, _, e)
            | ItemKind::Ret(e)
            | ItemKind::Expr(e) => self.expr_needs_token(e),
            ItemKind::Rec(..) | ItemKind::Extern(..) | ItemKind::Error => false,
            ItemKind::For(_, e, b) => self.expr_needs_token(e) || self.needs_token(&[b]),
            ItemKind::If(arms, els) => {
                arms.iter()
                    .any(|(c, b)| self.expr_needs_token(c) || self.needs_token(&[b]))
                    || els.as_ref().is_some_and(|b| self.needs_token(&[b]))
            }
            ItemKind::While(c, b) | ItemKind::DoWhile(b, c) => {
                self.expr_needs_token(c) || self.needs_token(&[b])
            }
        }
    }

    fn expr_needs_token(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::App(f, a) => {
                self.call_kind(f).0 != CallKind::Plain
                    || self.expr_needs_token(f)
                    || self.expr_needs_token(a)
            }
            // An environment function as a value is wrapped, and the wrapper is a function
            // value like any other: making it needs no token.
            ExprKind::Paren(x) | ExprKind::Not(x) | ExprKind::Neg(x) | ExprKind::Prj(_, x) => {
                self.expr_needs_token(x)
            }
            ExprKind::Tuple(es) | ExprKind::List(es) => es.iter().any(|x| self.expr_needs_token(x)),
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
                self.expr_needs_token(a) || self.expr_needs_token(b)
            }
            ExprKind::Cond(a, c, b) => {
                self.expr_needs_token(a) || self.expr_needs_token(c) || self.expr_needs_token(b)
            }
            ExprKind::FStr(parts) => parts
                .iter()
                .any(|p| matches!(p, FPart::Expr(x) if self.expr_needs_token(x))),
            ExprKind::Dict(kvs) => kvs
                .iter()
                .any(|(k, v)| self.expr_needs_token(k) || self.expr_needs_token(v)),
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
}

/// Does this expression call something with an `&` argument (at its top)?
pub(super) fn has_amp_call(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::App(_, a) => match &a.kind {
            ExprKind::Amp(_) => true,
            ExprKind::Tuple(es) => es.iter().any(|x| matches!(x.kind, ExprKind::Amp(_))),
            _ => false,
        },
        _ => false,
    }
}

pub(super) fn is_amp_rebinding(e: &Expr) -> bool {
    has_amp_call(e)
}
