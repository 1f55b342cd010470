//! Blocks and items: bindings, patterns (destructuring), `extern` lines, `ret`.

use super::token::{has_amp_call, is_amp_rebinding};
use super::*;

impl Desugarer {
    /// Desugars a block; returns its value, if it has one.
    pub(super) fn block(&mut self, b: &Block) -> Option<Name> {
        self.items(b.items.iter().collect())
    }

    pub(super) fn items(&mut self, items: Vec<&Item>) -> Option<Name> {
        let n = items.len();
        let mut value = None;
        for (i, item) in items.into_iter().enumerate() {
            let last = i + 1 == n;
            if let ItemKind::Ret(_) = item.kind {
                if !last {
                    self.diags.push(
                        Diagnostic::error(
                            "E0009",
                            item.span,
                            "`ret` must be the last item of its block",
                        )
                        .with_help(
                            "move the `ret` to the end of the block, or remove the items after it",
                        ),
                    );
                }
            }
            value = self.item(item, last);
        }
        value
    }

    pub(super) fn item(&mut self, item: &Item, last: bool) -> Option<Name> {
        let span = item.span;
        match &item.kind {
            ItemKind::Error => None,
            ItemKind::Extern(names, order) => {
                self.extern_item(names, *order);
                None
            }
            ItemKind::Bind(pat, e) => {
                self.bind(pat, e, span);
                None
            }
            ItemKind::Aug(id, op, e) => {
                self.aug_item(id, *op, e, span);
                None
            }
            ItemKind::Rec(id, f) => {
                self.rec_item(id, f, span);
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

    /// `extern [ORDER] f, g`: declares the externals and their classes.
    fn extern_item(&mut self, names: &[Ident], order: Option<Order>) {
        for id in names {
            let world = self.world_orders.get(&id.name).copied();
            if let (Some(o), Some(w)) = (order, world) {
                if o != w {
                    self.diags.push(
                        Diagnostic::warning(
                            "W0005",
                            id.span,
                            format!(
                                "the world file says `{}` is {}, this line says {}",
                                id.name,
                                w.as_str(),
                                o.as_str()
                            ),
                        )
                        .with_help("the program's class is used; make the two agree"),
                    );
                }
            }
            self.orders
                .insert(id.name.clone(), order.or(world).unwrap_or_default());
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
    }

    /// `x += e` is `x := x + e`.
    fn aug_item(&mut self, id: &Ident, op: AugOp, e: &Expr, span: Span) {
        let lhs = Expr::new(ExprKind::Name(id.clone()), id.span);
        let rhs = Expr::new(
            ExprKind::Binary(op.binop(), Box::new(lhs), Box::new(e.clone())),
            span,
        );
        self.bind(&Pattern::Name(id.clone()), &rhs, span);
        if let Some((vi, _)) = self.find_var(&id.name) {
            self.vars[vi].lint_unused = false;
        }
    }

    /// `rec f := fun P: B`, a recursive function.
    fn rec_item(&mut self, id: &Ident, f: &Expr, span: Span) {
        let ExprKind::Fun(params, body) = &f.kind else {
            return;
        };
        // `rec f := fun P: B` is `f := fix (fun (f, p): B)`, p bound as P binds it.
        let token = self.plan.ordered && self.plan.takes_token(&id.name);
        let surely_no_value = self.ends_without_value(body);
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
        let handles_only = self.last_fun_handles_only && surely_no_value;
        let vi = self.define(
            &id.name,
            id.span,
            core,
            Known::Fun(k),
            DefKind::Binding,
            true,
        );
        self.vars[vi].handles_only = handles_only;
    }

    /// An expression item whose value is dropped: `&` calls thread their handles.
    pub(super) fn expr_stmt(&mut self, e: &Expr) {
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
                let handles_only = fun_literal(e) && self.last_fun_handles_only;
                let vi = self.define(&id.name, id.span, core, known, DefKind::Binding, true);
                self.vars[vi].handle |= handle;
                self.vars[vi].handles_only = handles_only;
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

    pub(super) fn known_of_expr(&self, e: &Expr, _v: Name) -> Known {
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
            ExprKind::Name(id) => self
                .find_var(&id.name)
                .map(|(vi, _)| self.vars[vi].known.clone())
                .unwrap_or_else(|| {
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
    pub(super) fn destructure(
        &mut self,
        pat: &Pattern,
        v: Name,
        known: Known,
        span: Span,
        kind: DefKind,
    ) {
        match pat {
            Pattern::Name(id) => {
                let core = self.user_name(&id.name);
                self.emit(Op::Alias(v), span, Some(core));
                self.define(
                    &id.name,
                    id.span,
                    core,
                    known,
                    kind,
                    kind == DefKind::Binding,
                );
            }
            Pattern::Wild(_) | Pattern::Unit(_) => {}
            Pattern::Tuple(ps, pspan) => {
                if let Known::Tuple(n) = known {
                    if n != ps.len() {
                        self.diags.push(
                            Diagnostic::error(
                                "E0103",
                                *pspan,
                                format!(
                                    "this pattern has {} components but the tuple has {n}",
                                    ps.len()
                                ),
                            )
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
                            let vi = self.define(
                                &id.name,
                                id.span,
                                core,
                                Known::Unknown,
                                kind,
                                kind == DefKind::Binding,
                            );
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
}

fn fun_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Fun(..) => true,
        ExprKind::Paren(x) => fun_literal(x),
        _ => false,
    }
}
