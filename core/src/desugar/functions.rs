//! `fun` literals: parameters, patterns, `&` threading and the token through a function body.

use super::token::has_amp_call;
use super::*;

impl Desugarer {
    /// `fun params: body` with patterns and `&` threading.
    pub(super) fn fun(&mut self, params: &Params, body: &FunBody) -> Fun {
        self.fun_in(params, body, ScopeKind::Fun)
    }

    /// A `fun` literal; `ScopeKind::Branch` for a branch of a hand-written `if (c, fun …, fun …)`,
    /// which runs at most once, so a handle used in it once is not used again.
    pub(super) fn fun_in(&mut self, params: &Params, body: &FunBody, kind: ScopeKind) -> Fun {
        // A function bound to a name takes the token unless the analysis found that name's
        // functions plain; any other function value takes it.
        let owner = self.fun_owner.take();
        let token = self.plan.ordered && owner.as_deref().is_none_or(|n| self.plan.takes_token(n));
        let surely_no_value = self.ends_without_value(body);
        let f = self.fun_with(params, kind, token, None, |d| match body {
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
        self.last_fun_handles_only &= surely_no_value;
        f
    }

    /// Whether a body surely ends without a value (E0109 may then be reported on a call that
    /// binds one). A last item `g (&h, …)` of a `g` that returns a value leaves `(h, value)`
    /// in `h`, which the function returns: programs rely on it, so only a callee known to
    /// return just its handle (`print`, or a function of this kind) counts.
    pub(super) fn ends_without_value(&self, body: &FunBody) -> bool {
        let last = match body {
            FunBody::Expr(e) => e,
            FunBody::Block(b) => match b.items.last().map(|i| &i.kind) {
                Some(ItemKind::Expr(e)) => e,
                Some(ItemKind::Ret(_)) | None => return false,
                Some(_) => return true,
            },
        };
        if !has_amp_call(last) {
            return false;
        }
        let ExprKind::App(f, _) = &last.kind else {
            return false;
        };
        let ExprKind::Name(id) = &f.kind else {
            return false;
        };
        match self.find_var(&id.name) {
            Some((vi, _)) => self.vars[vi].handles_only,
            None => {
                !self.externs.iter().any(|(x, _)| *x == id.name)
                    && externals::standard(&id.name).is_some_and(|d| d.sig.ends_with("-> handle"))
            }
        }
    }

    /// With `token`, the function takes `(tok, arg)` and gives back `(tok, result)`. With
    /// `rec`, it is the step of `rec NAME := fun …`: `fix` passes it `(itself, arg)`.
    pub(super) fn fun_with(
        &mut self,
        params: &Params,
        kind: ScopeKind,
        token: bool,
        rec: Option<&Ident>,
        body: impl FnOnce(&mut Self) -> Option<Name>,
    ) -> Fun {
        let saved = std::mem::take(&mut self.buf);
        self.scopes.push(Scope {
            kind,
            vars: FastMap::default(),
        });
        let tok_in = token.then(|| {
            let t = self.user_name(crate::ir::SEQ_TOKEN);
            self.define_hidden(TOKEN, t);
            t
        });
        let itself = rec.map(|id| self.define_itself(id, params));
        let mut amps: Vec<String> = Vec::new();
        let param = self.bind_params(params, &mut amps);
        let value = body(self);
        self.last_fun_handles_only = !amps.is_empty() && value.is_none();
        let ret = self.fun_result(&amps, value);
        let (param, ret) = self.unpack_argument(params, param, ret, itself, tok_in);
        self.pop_scope();
        let stmts = std::mem::replace(&mut self.buf, saved);
        Fun {
            param,
            body: CExpr {
                stmts,
                ret: Some(ret),
            },
        }
    }

    /// `rec NAME := fun …`: the function's own name, in scope in its body as a function of as
    /// many parameters as it has (so calls to it are checked like calls to any function).
    fn define_itself(&mut self, id: &Ident, params: &Params) -> Name {
        let core = self.user_name(&id.name);
        let k = match params {
            Params::Unit(_) => Some(0),
            Params::List(ps, _) if ps.len() > 1 => Some(ps.len()),
            _ => None,
        };
        self.define(
            &id.name,
            id.span,
            core,
            Known::Fun(k),
            DefKind::Param,
            false,
        );
        core
    }

    /// What the function returns: its body's value, preceded by the current version of every
    /// `&h` parameter (a tuple when there is more than one thing to give back).
    fn fun_result(&mut self, amps: &[String], value: Option<Name>) -> Name {
        if amps.is_empty() {
            return value.unwrap_or_else(|| self.emit(Op::Tuple(vec![]), Span::default(), None));
        }
        let mut xs: Vec<Name> = amps.iter().map(|a| self.current(a)).collect();
        if let Some(v) = value {
            xs.push(v);
        }
        if xs.len() == 1 {
            xs[0]
        } else {
            self.emit(Op::Tuple(xs), Span::default(), None)
        }
    }

    /// The parameters were bound from `param`; what the function really takes comes first in
    /// the body: `fun (itself, param)` for `rec`, `fun (tok, …)` with a token, whose result is
    /// then `(tok, ret)`. Returns the function's real parameter and result.
    fn unpack_argument(
        &mut self,
        params: &Params,
        mut param: Name,
        mut ret: Name,
        itself: Option<Name>,
        tok_in: Option<Name>,
    ) -> (Name, Name) {
        let prj = |bind: Name, i: u32, of: Name| Stmt {
            bind,
            op: Op::Prj(i, of),
            span: Span::default(),
        };
        // (A function of `()` ignores its argument: nothing binds it.)
        let unit = matches!(params, Params::Unit(_));
        if let Some(f) = itself {
            let p = self.temp("p");
            let head: Vec<Stmt> = if unit {
                vec![prj(f, 1, p)]
            } else {
                vec![prj(f, 1, p), prj(param, 2, p)]
            };
            self.buf.splice(0..0, head);
            param = p;
        }
        if let Some(tok_in) = tok_in {
            let out = self.token();
            ret = self.emit(Op::Tuple(vec![out, ret]), Span::default(), None);
            let p = self.temp("p");
            let head: Vec<Stmt> = if unit && itself.is_none() {
                vec![prj(tok_in, 1, p)]
            } else {
                vec![prj(tok_in, 1, p), prj(param, 2, p)]
            };
            self.buf.splice(0..0, head);
            param = p;
        }
        (param, ret)
    }

    /// Binds the parameters as the body sees them, from the one argument the function takes
    /// (a tuple is projected); returns that argument's name. `&h` parameters go to `amps`.
    fn bind_params(&mut self, params: &Params, amps: &mut Vec<String>) -> Name {
        match params {
            Params::Name(id) => {
                let core = self.user_name(&id.name);
                self.param_name(id, core);
                core
            }
            Params::Unit(_) => self.temp("u"),
            Params::List(ps, _) if ps.len() == 1 => match &ps[0] {
                Param::Amp(id) => {
                    amps.push(id.name.clone());
                    let core = self.user_name(&id.name);
                    self.param_amp(id, core);
                    core
                }
                Param::Pat(Pattern::Name(id)) => {
                    let core = self.user_name(&id.name);
                    self.param_name(id, core);
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
                            self.param_amp(id, c);
                        }
                        Param::Pat(Pattern::Name(id)) => {
                            let c = self.user_name(&id.name);
                            self.emit(Op::Prj(i as u32 + 1, core), span, Some(c));
                            self.param_name(id, c);
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
        }
    }

    /// A parameter written as a name (`stdout` and the other handles' names stay handles).
    fn param_name(&mut self, id: &Ident, core: Name) {
        let h = externals::is_handle(&id.name);
        let vi = self.define(
            &id.name,
            id.span,
            core,
            if h { Known::Handle } else { Known::Unknown },
            DefKind::Param,
            false,
        );
        self.vars[vi].handle = h;
    }

    /// A `&h` parameter: a handle the function threads and gives back.
    fn param_amp(&mut self, id: &Ident, core: Name) {
        let vi = self.define(
            &id.name,
            id.span,
            core,
            Known::Handle,
            DefKind::Param,
            false,
        );
        self.vars[vi].handle = true;
    }
}
