//! Expressions to ANF: calls, operators, lists, conditional expressions, f-strings.

use super::*;

impl Desugarer {
    /// Desugars `e` to ANF statements in the buffer; returns the name holding its value.
    /// With a `target`, the value is bound to that name.
    pub(super) fn expr(&mut self, e: &Expr, target: Option<Name>) -> Name {
        let span = e.span;
        match &e.kind {
            ExprKind::Name(id)
                if self.find_var(&id.name).is_none()
                    && !externals::is_handle(&id.name)
                    && externals::is_handle_literal(&id.name) =>
            {
                // A handle made by `fork` (`stdout_1`) or `create_process` (`proc1_stdin`),
                // written in a result, a world file or a trace.
                self.emit(
                    Op::Prim(Prim::Handle(Arc::from(id.name.as_str()))),
                    span,
                    target,
                )
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
            ExprKind::PrimName(id) => self.prim_name(id, span, target),
            ExprKind::Unit => self.emit(Op::Tuple(vec![]), span, target),
            ExprKind::Paren(inner) => self.expr(inner, target),
            ExprKind::Tuple(es) => {
                let xs: Vec<Name> = es.iter().map(|x| self.expr(x, None)).collect();
                self.emit(Op::Tuple(xs), span, target)
            }
            ExprKind::List(es) => self.list(es, span, target),
            ExprKind::Prj(i, x) => self.projection(*i, x, span, target),
            ExprKind::Amp(id) => self.stray_amp(id, span),
            ExprKind::Fun(params, body) => {
                let f = self.fun(params, body);
                self.emit(Op::Fun(Box::new(f)), span, target)
            }
            ExprKind::Binary(op @ (BinOp::In | BinOp::NotIn), a, b) => {
                self.membership(*op, a, b, span, target)
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, span, target),
            ExprKind::Index(x, i) => {
                let xn = self.expr(x, None);
                let in_ = self.expr(i, None);
                let t = self.emit(Op::Tuple(vec![xn, in_]), span, None);
                let f = self.env("index");
                self.emit(Op::Call(f, t), span, target)
            }
            ExprKind::Cond(a, c, b) => self.cond(a, c, b, span, target),
            ExprKind::FStr(parts) => self.fstring(parts, span, target),
            ExprKind::Dict(kvs) => self.dict(kvs, span, target),
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

    /// `<name>`: a handle or an external written as a primitive value.
    fn prim_name(&mut self, id: &Ident, span: Span, target: Option<Name>) -> Name {
        let p = if externals::is_handle(&id.name) {
            Prim::Handle(Arc::from(id.name.as_str()))
        } else if externals::standard(&id.name).is_some()
            || self.externs.iter().any(|(x, _)| *x == id.name)
        {
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

    /// `prj i x`, checked against what is known of x's shape.
    fn projection(&mut self, i: u32, x: &Expr, span: Span, target: Option<Name>) -> Name {
        let (xn, known) = match &x.kind {
            ExprKind::Name(id) => self.use_name(id, false),
            _ => {
                let k = self.known_of_expr(x, Name::plain("?"));
                (self.expr(x, None), k)
            }
        };
        match known {
            Known::Tuple(n) if i as usize > n => self.diags.push(
                Diagnostic::error(
                    "E0104",
                    span,
                    format!("projection `prj {i}` out of range: the tuple has {n} components"),
                )
                .with_help(format!("use a component number from 1 to {n}")),
            ),
            Known::Fun(_) | Known::Prim => self.diags.push(
                Diagnostic::error(
                    "E0104",
                    span,
                    "projection out of something that is not a tuple",
                )
                .with_help("`prj i x` needs x to be a tuple"),
            ),
            _ => {}
        }
        self.emit(Op::Prj(i, xn), span, target)
    }

    /// `&h` anywhere but in a call's argument: an error, after which h is used as a value
    /// so that the rest of the program is still checked.
    fn stray_amp(&mut self, id: &Ident, span: Span) -> Name {
        self.diags.push(
            Diagnostic::error(
                "E0010",
                span,
                "`&` is allowed only on an argument of a call",
            )
            .with_help(format!(
                "write `f (&{0}, …)` to thread `{0}` through the call f",
                id.name
            )),
        );
        let (n, _) = self.use_name(id, false);
        n
    }

    /// `a in b` and `a not in b`.
    fn membership(
        &mut self,
        op: BinOp,
        a: &Expr,
        b: &Expr,
        span: Span,
        target: Option<Name>,
    ) -> Name {
        // `x in l` is `contains (l, x)`.
        let an = self.expr(a, None);
        let bn = self.expr(b, None);
        let t = self.emit(Op::Tuple(vec![bn, an]), span, None);
        let f = self.env("contains");
        if op == BinOp::In {
            return self.emit(Op::Call(f, t), span, target);
        }
        let r = self.emit(Op::Call(f, t), span, None);
        let not = self.env("not");
        self.emit(Op::Call(not, r), span, target)
    }

    /// Any other binary operator: a call of its standard function on the pair of operands.
    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, span: Span, target: Option<Name>) -> Name {
        if op == BinOp::Concat {
            self.check_concat(a);
            self.check_concat(b);
        }
        let an = self.expr(a, None);
        let bn = self.expr(b, None);
        let t = self.emit(Op::Tuple(vec![an, bn]), span, None);
        let f = self.env(op.callee());
        self.emit(Op::Call(f, t), span, target)
    }

    /// `{k: v, ...}`: a pair of the dictionary tag and the list of (k, v) entries.
    fn dict(&mut self, kvs: &[(Expr, Expr)], span: Span, target: Option<Name>) -> Name {
        let mut pairs = Vec::with_capacity(kvs.len());
        for (k, v) in kvs {
            let kn = self.expr(k, None);
            let vn = self.expr(v, None);
            pairs.push(self.emit(Op::Tuple(vec![kn, vn]), k.span.to(v.span), None));
        }
        let entries = self.list_of(&pairs, span);
        let tag = self.emit(
            Op::Prim(Prim::Handle(Arc::from(crate::ir::DICT_TAG))),
            span,
            None,
        );
        self.emit(Op::Tuple(vec![tag, entries]), span, target)
    }

    /// A call `f a`. `&name` arguments are passed and rebound from the result.
    pub(super) fn call(
        &mut self,
        f: &Expr,
        a: &Expr,
        span: Span,
        target: Option<Name>,
        want_value: bool,
    ) -> Name {
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
        let (arg, arg_shape) = self.call_argument(f, a, &mut amps);
        self.check_call(f, &fknown, arg_shape, span);
        self.check_argument_order(f, a);
        self.note_library_call(f, span);
        if amps.is_empty() {
            return self.call_op(kind, fname, arg, span, target);
        }
        let k = amps.len();
        if want_value {
            self.check_value_of_handles_only(f, span);
        }
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

    /// A call's argument, with the handles it threads (`&h`) pushed onto `amps`. Also returns
    /// the argument's shape as far as it is known: `None` when unknown, `Some(Some(n))` for
    /// a tuple of n components, `Some(None)` for anything that is not a tuple.
    fn call_argument<'e>(
        &mut self,
        f: &Expr,
        a: &'e Expr,
        amps: &mut Vec<&'e Ident>,
    ) -> (Name, Option<Option<usize>>) {
        match &a.kind {
            ExprKind::Amp(id) => {
                amps.push(id);
                (self.use_name(id, true).0, Some(None))
            }
            ExprKind::Tuple(es) => (
                self.tuple_argument(f, es, a.span, amps),
                Some(Some(es.len())),
            ),
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
        }
    }

    /// A tuple argument `(x, &h, …)`. The two functions of a hand-written `if (c, fun …, fun …)`
    /// are desugared as alternatives, so that what either branch binds is merged afterwards.
    fn tuple_argument<'e>(
        &mut self,
        f: &Expr,
        es: &'e [Expr],
        span: Span,
        amps: &mut Vec<&'e Ident>,
    ) -> Name {
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
        self.emit(Op::Tuple(xs), span, None)
    }

    /// `if (c, fun …, fun …)` written by hand: its two functions are alternatives, each called
    /// at most once. `if` is a keyword, so no binding can shadow the standard one.
    fn is_core_if(f: &Expr, args: &[Expr]) -> bool {
        matches!(&f.kind, ExprKind::Name(id) if id.name == "if")
            && args.len() == 3
            && args[1..]
                .iter()
                .all(|a| matches!(a.kind, ExprKind::Fun(..)))
    }

    fn rebind_handle(&mut self, id: &Ident, core: Name) {
        let vi = self.define(
            &id.name,
            id.span,
            core,
            Known::Handle,
            DefKind::Binding,
            false,
        );
        self.vars[vi].handle = true;
        // The threaded handle is a fresh binding: its next use is its first.
        if let Some(d) = self.symbols.defs.last_mut() {
            d.span = id.span;
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
        let body = CExpr {
            stmts: std::mem::replace(&mut self.buf, saved),
            ret: Some(state),
        };
        self.emit(Op::Fun(Box::new(Fun { param: p, body })), span, target)
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
        let body = CExpr {
            stmts: std::mem::replace(&mut self.buf, saved),
            ret: Some(state),
        };
        self.emit(Op::Fun(Box::new(Fun { param: p, body })), span, None)
    }

    /// `a if c else b`: an `if` with a value, its branches threading what they must.
    fn cond(&mut self, a: &Expr, c: &Expr, b: &Expr, span: Span, target: Option<Name>) -> Name {
        let arm = |e: &Expr| Block {
            items: vec![Item {
                kind: ItemKind::Ret(e.clone()),
                span: e.span,
            }],
        };
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
}
