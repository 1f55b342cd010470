//! Control flow: `if`, `for`, `while`, `do … while` as functions of the variables they carry.

use super::*;

impl Desugarer {
    /// Source names the block assigns (not inside nested `fun`s), in order of first assignment,
    /// that are bound before it: the variables it threads (LANGUAGE.md §3.6).
    pub(super) fn carried(&self, blocks: &[&Block]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for b in blocks {
            assigned(b, &mut out);
        }
        out.retain(|n| {
            self.find_var(n).is_some() || (!self.prelude_mode && self.env_name(n).is_some())
        });
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

    pub(super) fn define_carried(&mut self, v: &str, core: Name) {
        let handle = self
            .find_var(v)
            .map(|(vi, _)| self.vars[vi].handle)
            .unwrap_or(externals::is_handle(v));
        let known = if handle {
            Known::Handle
        } else {
            Known::Unknown
        };
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

    /// A loop body's argument `p` is `(carried, item)`: binds the carried variables from
    /// `prj 1 p` (one variable: directly, so each iteration costs no alias step) and the loop
    /// pattern from `prj 2 p`.
    fn bind_loop_argument(&mut self, p: Name, param_vars: &[String], pat: &Pattern) {
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
        match pat {
            Pattern::Name(id) => {
                let core = self.user_name(&id.name);
                self.emit(Op::Prj(2, p), id.span, Some(core));
                self.define(
                    &id.name,
                    id.span,
                    core,
                    Known::Unknown,
                    DefKind::Param,
                    false,
                );
            }
            _ => {
                let x = self.temp("x");
                self.emit(Op::Prj(2, p), pat.span(), Some(x));
                self.destructure(pat, x, Known::Unknown, pat.span(), DefKind::Param)
            }
        }
    }

    /// The names a branch or loop body bound for itself (not carried, not the loop pattern's,
    /// not an outer scope's): a later use outside the body is told where they were local.
    fn remember_block_locals(
        &mut self,
        scope: &Scope,
        before: &FastSet<String>,
        param_vars: &[String],
        what: &'static str,
    ) {
        for name in scope.vars.keys() {
            if !before.contains(name) && !param_vars.contains(name) && self.find_var(name).is_none()
            {
                self.block_locals.insert(name.clone(), what);
            }
        }
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
        self.scopes.push(Scope {
            kind,
            vars: FastMap::default(),
        });
        let p = self.temp(if extra.is_some() { "p" } else { "u" });
        if let Some(pat) = extra {
            self.bind_loop_argument(p, param_vars, pat);
        }
        // Names bound here before the body (carried variables, the loop pattern) are not local
        // to the body; names of outer scopes are checked when the scope closes. Collecting every
        // visible name here instead made a file with many `if`s quadratic.
        let before: FastSet<String> = self
            .scopes
            .last()
            .map(|s| s.vars.keys().cloned().collect())
            .unwrap_or_default();
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
        self.remember_block_locals(&scope, &before, param_vars, what);
        let stmts = std::mem::replace(&mut self.buf, saved);
        (
            Fun {
                param: p,
                body: CExpr {
                    stmts,
                    ret: Some(ret),
                },
            },
            has_value,
        )
    }

    pub(super) fn if_item(
        &mut self,
        arms: &[(Expr, Block)],
        els: Option<&Block>,
        span: Span,
        last: bool,
    ) -> Option<Name> {
        let mut blocks: Vec<&Block> = arms.iter().map(|(_, b)| b).collect();
        if let Some(e) = els {
            blocks.push(e);
        }
        let mut vs = self.carried(&blocks);
        // A name every branch binds (with an `else`) is bound after the `if`, as in Python.
        if els.is_some() {
            let mut every: Option<Vec<String>> = None;
            for b in &blocks {
                let names = surely_assigned(b);
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

    pub(super) fn if_chain(
        &mut self,
        arms: &[(Expr, Block)],
        els: Option<&Block>,
        vs: &[String],
        span: Span,
        valued: bool,
    ) -> Name {
        let (c, then_b) = &arms[0];
        let cn = self.expr(c, None);
        let ((tf, _), then_uses) = self.first_alternative(|d| {
            d.branch_fun(
                vs,
                None,
                then_b,
                ScopeKind::Branch,
                "an `if` branch",
                valued,
            )
        });
        let tn = self.emit(
            Op::Fun(Box::new(tf)),
            then_b.items.first().map(|i| i.span).unwrap_or(span),
            None,
        );
        let ef = if arms.len() > 1 {
            // elif: the else branch is the rest of the chain.
            let saved = std::mem::take(&mut self.buf);
            self.scopes.push(Scope {
                kind: ScopeKind::Branch,
                vars: FastMap::default(),
            });
            let u = self.temp("u");
            let r = self.if_chain(&arms[1..], els, vs, span, valued);
            self.pop_scope();
            let stmts = std::mem::replace(&mut self.buf, saved);
            Fun {
                param: u,
                body: CExpr {
                    stmts,
                    ret: Some(r),
                },
            }
        } else if let Some(b) = els {
            self.branch_fun(vs, None, b, ScopeKind::Branch, "an `else` branch", valued)
                .0
        } else {
            let saved = std::mem::take(&mut self.buf);
            let u = self.temp("u");
            let r = self.tuple_of(vs, span);
            let r = if vs.is_empty() {
                self.emit(Op::Tuple(vec![]), span, None)
            } else {
                r
            };
            let stmts = std::mem::replace(&mut self.buf, saved);
            Fun {
                param: u,
                body: CExpr {
                    stmts,
                    ret: Some(r),
                },
            }
        };
        self.merge_alternatives(then_uses);
        let en = self.emit(Op::Fun(Box::new(ef)), span, None);
        let t = self.emit(Op::Tuple(vec![cn, tn, en]), span, None);
        let iff = self.env("if");
        let target = if vs.len() == 1 && !valued {
            Some(self.user_name(&vs[0]))
        } else {
            None
        };
        self.emit(Op::Call(iff, t), span, target)
    }

    pub(super) fn for_item(&mut self, pat: &Pattern, iter: &Expr, body: &Block, span: Span) {
        let vs = self.carried(&[body]);
        // The list a loop walks is named as the paper's Figure 2 names the loop's body
        // (`for_list`, beside `for_body`), unless the program named it already.
        let mut inner = iter;
        while let ExprKind::Paren(e) = &inner.kind {
            inner = e;
        }
        let named = matches!(inner.kind, ExprKind::Name(_));
        let list_name = (!named).then(|| self.temp("for_list"));
        let mut l = self.expr(iter, list_name);
        // `for k in d` walks a dictionary's keys, as in Python.
        if self.known_of_expr(iter, l) == Known::Dict {
            let keys = self.env("keys");
            l = self.emit(Op::Call(keys, l), iter.span, None);
        }
        let init = if vs.is_empty() {
            self.emit(Op::Tuple(vec![]), span, None)
        } else {
            self.tuple_of(&vs, span)
        };
        let (f, _) = self.branch_fun(&vs, Some(pat), body, ScopeKind::Loop, "a `for` body", false);
        // Named as the paper's Figure 2 names it, in the core view and the debugger alike.
        let body_name = self.temp("for_body");
        let fname = self.emit(Op::Fun(Box::new(f)), span, Some(body_name));
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
    pub(super) fn loop_item(
        &mut self,
        pre: Option<&Expr>,
        body: &Block,
        post: Option<&Expr>,
        span: Span,
    ) {
        let vs = self.carried(&[body]);
        let init = if vs.is_empty() {
            self.emit(Op::Tuple(vec![]), span, None)
        } else {
            self.tuple_of(&vs, span)
        };
        let what = if pre.is_some() {
            "a `while` body"
        } else {
            "a `do` body"
        };
        // step := fun (loop, acc): …
        let saved = std::mem::take(&mut self.buf);
        self.scopes.push(Scope {
            kind: ScopeKind::Loop,
            vars: FastMap::default(),
        });
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
                self.loop_again(cn, lp, &vs, Some(body), what, span)
            }
            (None, Some(c)) => {
                self.block(body);
                let cn = self.expr(c, None);
                self.loop_again(cn, lp, &vs, None, what, span)
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
        let step_name = self.temp("loop_step");
        let step = self.emit(
            Op::Fun(Box::new(Fun {
                param: p,
                body: CExpr {
                    stmts,
                    ret: Some(result),
                },
            })),
            span,
            Some(step_name),
        );
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

    /// The end of a loop step: `if (c, fun u: B; loop V', done)`, where `B` is the body for a
    /// `while` (run in its own branch scope) and nothing for a `do … while` (the body ran
    /// before the condition).
    fn loop_again(
        &mut self,
        cn: Name,
        lp: Name,
        vs: &[String],
        body: Option<&Block>,
        what: &'static str,
        span: Span,
    ) -> Name {
        let saved = std::mem::take(&mut self.buf);
        if body.is_some() {
            self.scopes.push(Scope {
                kind: ScopeKind::Branch,
                vars: FastMap::default(),
            });
        }
        let u = self.temp("u");
        if let Some(b) = body {
            self.block(b);
        }
        let a = if vs.is_empty() {
            self.emit(Op::Tuple(vec![]), span, None)
        } else {
            self.tuple_of(vs, span)
        };
        let r = self.emit(Op::Call(lp, a), span, None);
        if body.is_some() {
            let sc = self.pop_scope();
            for name in sc.vars.keys() {
                if !vs.contains(name) {
                    self.block_locals.insert(name.clone(), what);
                }
            }
        }
        let then_stmts = std::mem::replace(&mut self.buf, saved);
        let tn = self.emit(
            Op::Fun(Box::new(Fun {
                param: u,
                body: CExpr {
                    stmts: then_stmts,
                    ret: Some(r),
                },
            })),
            span,
            None,
        );
        let en = self.done_branch(vs, span);
        let t = self.emit(Op::Tuple(vec![cn, tn, en]), span, None);
        let iff = self.env("if");
        self.emit(Op::Call(iff, t), span, None)
    }

    /// `fun u: V` — the branch that leaves a loop with the carried variables.
    fn done_branch(&mut self, vs: &[String], span: Span) -> Name {
        let saved = std::mem::take(&mut self.buf);
        let u = self.temp("u");
        let r = if vs.is_empty() {
            self.emit(Op::Tuple(vec![]), span, None)
        } else {
            self.tuple_of(vs, span)
        };
        let stmts = std::mem::replace(&mut self.buf, saved);
        self.emit(
            Op::Fun(Box::new(Fun {
                param: u,
                body: CExpr {
                    stmts,
                    ret: Some(r),
                },
            })),
            span,
            None,
        )
    }
}

fn ends_in_ret(b: &Block) -> bool {
    matches!(b.items.last().map(|i| &i.kind), Some(ItemKind::Ret(_)))
}

/// Names a block binds on every path through it: at its level, and what every branch of a
/// nested `if` with an `else` binds (what `if_item` binds after that `if`); not what a loop
/// body or only some branches bind, which stays local to them.
fn surely_assigned(b: &Block) -> Vec<String> {
    let mut out = Vec::new();
    for item in &b.items {
        let mut names = Vec::new();
        match &item.kind {
            ItemKind::If(arms, Some(els)) => {
                let mut every = surely_assigned(els);
                for (_, body) in arms {
                    let here = surely_assigned(body);
                    every.retain(|n| here.contains(n));
                }
                names = every;
            }
            ItemKind::If(..) | ItemKind::For(..) | ItemKind::While(..) | ItemKind::DoWhile(..) => {}
            _ => assigned_by(item, &mut names),
        }
        for n in names {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

/// Names assigned by a block at its level and in nested control flow, not in nested `fun`s.
pub fn assigned(b: &Block, out: &mut Vec<String>) {
    for item in &b.items {
        assigned_by(item, out);
    }
}

fn push(out: &mut Vec<String>, n: &str) {
    if !out.iter().any(|x| x == n) {
        out.push(n.to_string());
    }
}

/// The handles an expression passes as `&x` (it rebinds them).
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
        ExprKind::Paren(x) | ExprKind::Not(x) | ExprKind::Neg(x) | ExprKind::Prj(_, x) => {
            amps(x, out)
        }
        ExprKind::Tuple(es) | ExprKind::List(es) => es.iter().for_each(|x| amps(x, out)),
        _ => e.sugar_children().into_iter().for_each(|x| amps(x, out)),
    }
}
/// Names one item assigns (`assigned`).
fn assigned_by(item: &Item, out: &mut Vec<String>) {
    {
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
