//! Python expressions lowered to OPAL's: operators with Python's meaning (`/` is true
//! division, `//` and `%` floor, through the library's `py_*` functions), calls, literals,
//! f-strings formatted as Python formats them.

use super::{span, Lower};
use crate::span::Span;
use crate::syntax::ast::Pattern;
use crate::syntax::ast::{BinOp, Expr, ExprKind, FPart, FunBody, Ident, Lit, Param, Params};
use ruff_python_ast as py;

/// Are `keys` string or integer literals, no two equal? (A display of those keys is a
/// dictionary as written; other keys may be equal at run time.)
fn distinct_literals<'a>(keys: impl Iterator<Item = &'a Expr>) -> bool {
    let mut seen = std::collections::HashSet::new();
    for k in keys {
        let fresh = match &k.kind {
            ExprKind::Lit(Lit::Str(s)) => seen.insert(format!("s{s}")),
            ExprKind::Lit(Lit::Int(i)) => seen.insert(format!("n{i}")),
            _ => false,
        };
        if !fresh {
            return false;
        }
    }
    true
}

/// A call of a named function: `f a` for one argument, `f (a, b)` for several, `f ()` for
/// none (a Python call's arguments are one tuple, as OPAL's are).
pub(super) fn call(name: &str, args: Vec<Expr>, at: Span) -> Expr {
    let f = Expr::new(ExprKind::Name(ident(name, at)), at);
    Expr::new(ExprKind::App(Box::new(f), Box::new(argument(args, at))), at)
}

/// A call's argument: `()` for none, the one itself, a tuple of several.
pub(super) fn argument(args: Vec<Expr>, at: Span) -> Expr {
    match args.len() {
        0 => Expr::new(ExprKind::Unit, at),
        1 => args
            .into_iter()
            .next()
            .unwrap_or_else(|| Expr::new(ExprKind::Unit, at)),
        _ => Expr::new(ExprKind::Tuple(args), at),
    }
}

/// A comprehension's element: a list's (or generator's) value, or a dictionary's key and value.
#[derive(Clone, Copy)]
enum Elt<'a> {
    One(&'a py::Expr),
    Pair(&'a py::Expr, &'a py::Expr),
}

pub(super) fn ident(name: &str, at: Span) -> Ident {
    Ident {
        name: name.to_string(),
        span: at,
    }
}

pub(super) fn str_lit(s: &str, at: Span) -> Expr {
    Expr::new(ExprKind::Lit(Lit::Str(s.to_string())), at)
}

fn binary(op: BinOp, a: Expr, b: Expr, at: Span) -> Expr {
    Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), at)
}

/// Methods that change their receiver: their meaning needs the object, which OPAL's values
/// are not (docs/python.md).
pub(super) const MUTATING: &[&str] = &[
    "append",
    "extend",
    "insert",
    "pop",
    "remove",
    "sort",
    "reverse",
    "clear",
    "update",
    "setdefault",
    "popitem",
    "add",
    "discard",
];

/// Python built-ins that are OPAL library functions of the same name and meaning.
pub(super) const SAME_BUILTINS: &[&str] = &[
    "len",
    "range",
    "sorted",
    "sum",
    "min",
    "max",
    "enumerate",
    "zip",
    "reversed",
];

/// Python built-ins OPAL's library implements under a `py_` name (Python's printing and
/// conversions).
pub(super) const PY_BUILTINS: &[(&str, &str)] = &[
    ("str", "py_str"),
    ("repr", "py_repr"),
    ("int", "py_int"),
    ("float", "py_float"),
    ("abs", "py_abs"),
    ("bool", "py_bool"),
    ("list", "py_list"),
    ("set", "py_set"),
    ("tuple", "py_tuple"),
    ("any", "py_any"),
    ("all", "py_all"),
    ("round", "py_round"),
];

impl Lower {
    pub(super) fn expr(&mut self, e: &py::Expr) -> Expr {
        let at = span(ruff_text_size::Ranged::range(e));
        let kind = match e {
            // A script runs as the main module: `if __name__ == "__main__":` holds.
            py::Expr::Name(n) if n.id.as_str() == "__name__" => ExprKind::Lit(Lit::Str("__main__".into())),
            py::Expr::Name(n) => ExprKind::Name(ident(n.id.as_str(), at)),
            py::Expr::BooleanLiteral(b) => {
                ExprKind::Name(ident(if b.value { "true" } else { "false" }, at))
            }
            // None is the unit value `()`, which prints as `None` (docs/python.md).
            py::Expr::NoneLiteral(_) => ExprKind::Unit,
            py::Expr::NumberLiteral(n) => match &n.value {
                py::Number::Int(i) => match i.as_i64() {
                    Some(i) => ExprKind::Lit(Lit::Int(i)),
                    None => return self.refused(at, "an integer beyond 64 bits", "use a float, or compute it in an external"),
                },
                py::Number::Float(f) => ExprKind::Lit(Lit::Float(*f)),
                py::Number::Complex { .. } => {
                    return self.refused(at, "a complex number", "compute with it in an external function")
                }
            },
            py::Expr::StringLiteral(s) => ExprKind::Lit(Lit::Str(s.value.to_str().to_string())),
            py::Expr::FString(f) => return self.fstring(&f.value, at),
            py::Expr::BinOp(b) => return self.binop(b, at),
            py::Expr::UnaryOp(u) if u.op == py::UnaryOp::Not => {
                ExprKind::Not(Box::new(self.cond(&u.operand)))
            }
            py::Expr::UnaryOp(u) => {
                let x = self.expr(&u.operand);
                match u.op {
                    // (Taken by the arm above.)
                    py::UnaryOp::Not => ExprKind::Not(Box::new(x)),
                    py::UnaryOp::USub => ExprKind::Neg(Box::new(x)),
                    py::UnaryOp::UAdd => return x,
                    py::UnaryOp::Invert => {
                        return self.refused(at, "`~`", "compute bit operations in an external function")
                    }
                }
            }
            py::Expr::BoolOp(b) => return self.bool_op(b, at),
            py::Expr::Compare(c) => return self.compare(c, at),
            py::Expr::Call(c) => return self.call_expr(c, at),
            py::Expr::List(l) => ExprKind::List(l.elts.iter().map(|x| self.expr(x)).collect()),
            py::Expr::Tuple(t) => match t.elts.len() {
                0 => ExprKind::Unit,
                _ => ExprKind::Tuple(t.elts.iter().map(|x| self.expr(x)).collect()),
            },
            py::Expr::Dict(d) => {
                let mut kvs = Vec::new();
                for item in &d.items {
                    let Some(k) = &item.key else {
                        return self.refused(at, "`**` in a dictionary", "build the dictionary in an external function");
                    };
                    kvs.push((self.expr(k), self.expr(&item.value)));
                }
                if distinct_literals(kvs.iter().map(|(k, _)| k)) {
                    ExprKind::Dict(kvs)
                } else {
                    // Keys Python may find equal (`{1: "a", 1.0: "b"}` is `{1: 'b'}`): the
                    // library builds it, a later key's value in the first key's place.
                    let display = Expr::new(ExprKind::Dict(kvs), at);
                    return call("py_dict", vec![display], at);
                }
            }
            py::Expr::Subscript(s) => {
                if let py::Expr::Slice(sl) = &*s.slice {
                    let mut bound = |b: &Option<Box<py::Expr>>| match b {
                        Some(x) => self.expr(x),
                        None => Expr::new(ExprKind::Unit, at),
                    };
                    let (a, b, c) = (bound(&sl.lower), bound(&sl.upper), bound(&sl.step));
                    let seq = self.expr(&s.value);
                    return call("py_slice", vec![seq, a, b, c], at);
                }
                ExprKind::Index(Box::new(self.expr(&s.value)), Box::new(self.expr(&s.slice)))
            }
            py::Expr::If(i) => ExprKind::Cond(
                Box::new(self.expr(&i.body)),
                Box::new(self.cond(&i.test)),
                Box::new(self.expr(&i.orelse)),
            ),
            py::Expr::Lambda(l) => {
                let params = match &l.parameters {
                    Some(p) => self.params(p, at),
                    None => Params::Unit(at),
                };
                ExprKind::Fun(params, FunBody::Expr(Box::new(self.expr(&l.body))))
            }
            py::Expr::Attribute(a) => {
                if let Some(path) = self.module_path(e) {
                    return self.module_call(&path, None, at);
                }
                // `type(x).__name__` (`print(f"{type(e).__name__}: {e}")` in an `except`).
                if let (py::Expr::Call(c), "__name__") = (&*a.value, a.attr.as_str()) {
                    let is_type = matches!(&*c.func, py::Expr::Name(f) if f.id.as_str() == "type");
                    let builtin = is_type && !self.sigs.contains_key("type");
                    if let ([x], true) = (&c.arguments.args[..], builtin) {
                        if c.arguments.keywords.is_empty() {
                            let x = self.expr(x);
                            return call("py_type_name", vec![x], at);
                        }
                    }
                }
                return self.object_attribute(a, at);
            }
            py::Expr::ListComp(c) => {
                return self.comprehension(Elt::One(&c.elt), &c.generators, at)
            }
            py::Expr::Generator(g) => {
                return self.comprehension(Elt::One(&g.elt), &g.generators, at)
            }
            py::Expr::DictComp(d) => {
                let Some(key) = &d.key else {
                    return self.refused(at, "this dictionary comprehension", "name each key");
                };
                let pairs = self.comprehension(Elt::Pair(key, &d.value), &d.generators, at);
                return call("py_dict", vec![pairs], at);
            }
            py::Expr::SetComp(c) => {
                let items = self.comprehension(Elt::One(&c.elt), &c.generators, at);
                return call("py_set", vec![items], at);
            }
            py::Expr::Await(_) => {
                return self.refused(at, "`await`", "call the external without `await`: OPAL runs every call as soon as its argument is ready")
            }
            py::Expr::Yield(_) | py::Expr::YieldFrom(_) => {
                return self.refused(at, "a generator (`yield`)", "build a list, or move the generator into an external function")
            }
            py::Expr::Set(s) => {
                if s.elts.iter().any(|e| matches!(e, py::Expr::Starred(_))) {
                    return self.refused(at, "`*` unpacking", "pass the items one by one");
                }
                let items = s.elts.iter().map(|e| self.expr(e)).collect();
                return call("py_set", vec![Expr::new(ExprKind::List(items), at)], at);
            }
            py::Expr::Named(_) => return self.refused(at, "`:=` in an expression", "assign on a line of its own"),
            py::Expr::Starred(_) => return self.refused(at, "`*` unpacking", "pass the items one by one"),
            py::Expr::Slice(_) => return self.refused(at, "a slice", "take the items in an external function"),
            py::Expr::BytesLiteral(_) | py::Expr::TString(_) | py::Expr::EllipsisLiteral(_) | py::Expr::IpyEscapeCommand(_) => {
                return self.refused(at, "this literal", "use a string, a number or a list")
            }
        };
        Expr::new(kind, at)
    }

    /// `e` where Python tests its truth (`if`, `while`, `not`, `assert`): a boolean as it is,
    /// anything else through `bool` (an empty list is false, as in Python).
    pub(super) fn cond(&mut self, e: &py::Expr) -> Expr {
        let at = span(ruff_text_size::Ranged::range(e));
        match e {
            // Python's `and` and `or` decide by their left operand before the right one
            // runs (`top is None or d[top] < x` never reads `d[None]`), so they are
            // conditionals, not OPAL's `and`/`or`, which compute both sides.
            py::Expr::BoolOp(b) => {
                let and = b.op == py::BoolOp::And;
                let parts: Vec<Expr> = b.values.iter().map(|v| self.cond(v)).collect();
                let mut it = parts.into_iter().rev();
                let last = it.next().unwrap_or_else(|| Expr::new(ExprKind::Error, at));
                it.fold(last, |rest, a| {
                    let decided = ident(if and { "false" } else { "true" }, at);
                    let decided = Expr::new(ExprKind::Name(decided), at);
                    let (yes, no) = if and {
                        (rest, decided)
                    } else {
                        (decided, rest)
                    };
                    Expr::new(ExprKind::Cond(Box::new(yes), Box::new(a), Box::new(no)), at)
                })
            }
            e if is_boolean(e) => self.expr(e),
            e => {
                let x = self.expr(e);
                call("py_bool", vec![x], at)
            }
        }
    }

    /// `a and b`, `a or b` as values. Of booleans: OPAL's `and`/`or`. Else Python's meaning,
    /// the first operand that decides (`name or "default"`), which needs the left operand
    /// to be a name (it is tested, then maybe the value: it must not run twice).
    fn bool_op(&mut self, b: &py::ExprBoolOp, at: Span) -> Expr {
        let and = b.op == py::BoolOp::And;
        if b.values.iter().all(is_boolean) {
            return self.cond(&py::Expr::BoolOp(b.clone()));
        }
        let [left, right] = b.values.as_slice() else {
            return self.refused(
                at,
                "`and`/`or` of three values that are not booleans",
                "split it: `x = a or b`, then `x or c`",
            );
        };
        if !(matches!(left, py::Expr::Name(_)) || is_constant(left)) {
            return self.refused(
                at,
                "`and`/`or` of values that are not booleans, unless the left one is a name",
                "assign the left operand to a name first: `x = f(); y = x or default`",
            );
        }
        let (l, r) = (self.expr(left), self.expr(right));
        let test = call("py_bool", vec![l.clone()], at);
        let (yes, no) = if and { (r, l) } else { (l, r) };
        Expr::new(
            ExprKind::Cond(Box::new(yes), Box::new(test), Box::new(no)),
            at,
        )
    }

    /// An error expression, the refusal reported.
    pub(super) fn refused(&mut self, at: Span, what: &str, todo: &str) -> Expr {
        self.refuse(at, what, todo);
        Expr::new(ExprKind::Error, at)
    }

    fn binop(&mut self, b: &py::ExprBinOp, at: Span) -> Expr {
        let (l, r) = (self.expr(&b.left), self.expr(&b.right));
        let op = match b.op {
            py::Operator::Add => BinOp::Add,
            py::Operator::Sub => BinOp::Sub,
            py::Operator::Mult => return call("py_mul", vec![l, r], at),
            py::Operator::Div => return call("py_truediv", vec![l, r], at),
            py::Operator::FloorDiv => return call("py_floordiv", vec![l, r], at),
            py::Operator::Mod => return call("py_mod", vec![l, r], at),
            py::Operator::Pow => return call("py_pow", vec![l, r], at),
            py::Operator::BitOr => return call("py_bitor", vec![l, r], at),
            py::Operator::BitAnd => return call("py_bitand", vec![l, r], at),
            py::Operator::BitXor => return call("py_bitxor", vec![l, r], at),
            _ => {
                return self.refused(
                    at,
                    "this operator",
                    "compute bit operations in an external function",
                )
            }
        };
        binary(op, l, r, at)
    }

    fn compare(&mut self, c: &py::ExprCompare, at: Span) -> Expr {
        // `a < b < c` is `a < b and b < c`.
        let mut left = self.expr(&c.left);
        let mut out: Option<Expr> = None;
        for (op, right) in c.ops.iter().zip(c.comparators.iter()) {
            let r = self.expr(right);
            let op = match op {
                py::CmpOp::Eq | py::CmpOp::Is => BinOp::Eq,
                py::CmpOp::NotEq | py::CmpOp::IsNot => BinOp::Ne,
                py::CmpOp::Lt => BinOp::Lt,
                py::CmpOp::LtE => BinOp::Le,
                py::CmpOp::Gt => BinOp::Gt,
                py::CmpOp::GtE => BinOp::Ge,
                py::CmpOp::In => BinOp::In,
                py::CmpOp::NotIn => BinOp::NotIn,
            };
            let one = binary(op, left, r.clone(), at);
            out = Some(match out {
                None => one,
                Some(prev) => binary(BinOp::And, prev, one, at),
            });
            left = r;
        }
        out.unwrap_or_else(|| Expr::new(ExprKind::Error, at))
    }

    /// `[elt for x in xs if c]` (and a generator passed to a call): the prelude's `map` over
    /// What a `for` walks: the expression; a set's elements (in CPython's order) where it
    /// names a set or builds one; a dictionary's keys where it names one (`evidence`).
    pub(super) fn iterated(&mut self, e: &py::Expr) -> Expr {
        let x = self.expr(e);
        match e {
            _ if self.is_set(e) => call("py_list", vec![x], span(ruff_text_size::Ranged::range(e))),
            // A function's `*args` is a tuple; a loop walks a list.
            py::Expr::Name(n) if self.sigs.values().any(|s| s.star.as_deref() == Some(&n.id)) => {
                call("py_list", vec![x], span(n.range))
            }
            py::Expr::Name(n) if self.dicts.contains(n.id.as_str()) => {
                let at = span(n.range);
                call("keys", vec![x], at)
            }
            _ => x,
        }
    }

    /// Does `e` give a set, as far as the script shows: a name it shows holds one (`evidence`),
    /// a display, a set comprehension, `set(…)`, an operator on a set (`a | b`), a method of
    /// a set that gives one (`a.union(b)`)?
    fn is_set(&self, e: &py::Expr) -> bool {
        use py::Operator as O;
        match e {
            py::Expr::Name(n) => self.sets.contains(n.id.as_str()),
            py::Expr::Set(_) | py::Expr::SetComp(_) => true,
            py::Expr::BinOp(b) if matches!(b.op, O::BitOr | O::BitAnd | O::BitXor | O::Sub) => {
                self.is_set(&b.left) || self.is_set(&b.right)
            }
            py::Expr::Call(c) => match &*c.func {
                py::Expr::Name(f) => f.id.as_str() == "set",
                py::Expr::Attribute(a) => {
                    let gives = [
                        "union",
                        "intersection",
                        "difference",
                        "symmetric_difference",
                    ];
                    gives.contains(&a.attr.as_str()) && self.is_set(&a.value)
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// `[elt for x in xs if c for y in ys …]`: `map` over the first `for`'s list, filtered by
    /// its conditions; each further `for` nests inside it, and the lists it makes are joined
    /// in order (`py_flatten`).
    fn comprehension(&mut self, elt: Elt, gens: &[py::Comprehension], at: Span) -> Expr {
        let Some((g, rest)) = gens.split_first() else {
            return self.elt(elt, at);
        };
        if g.is_async {
            return self.refused(at, "`async for`", "write a plain comprehension");
        }
        let Some(params) = self.comp_params(&g.target) else {
            return self.refused(
                at,
                "this comprehension target",
                "bind a name or a tuple of names",
            );
        };
        self.view_ok = true;
        let mut list = self.iterated(&g.iter);
        self.view_ok = false;
        for cond in &g.ifs {
            let test = self.cond(cond);
            let pred = Expr::new(
                ExprKind::Fun(params.clone(), FunBody::Expr(Box::new(test))),
                at,
            );
            list = call("filter", vec![list, pred], at);
        }
        let body = match rest {
            [] => self.elt(elt, at),
            _ => self.comprehension(elt, rest, at),
        };
        let f = Expr::new(ExprKind::Fun(params, FunBody::Expr(Box::new(body))), at);
        let lists = call("map", vec![list, f], at);
        match rest {
            [] => lists,
            _ => call("py_flatten", vec![lists], at),
        }
    }

    /// What a comprehension makes of each element: a value, or a dictionary's (key, value).
    fn elt(&mut self, elt: Elt, at: Span) -> Expr {
        match elt {
            Elt::One(e) => self.expr(e),
            Elt::Pair(k, v) => Expr::new(ExprKind::Tuple(vec![self.expr(k), self.expr(v)]), at),
        }
    }

    fn comp_params(&mut self, target: &py::Expr) -> Option<Params> {
        let at = span(ruff_text_size::Ranged::range(target));
        match target {
            py::Expr::Name(n) => Some(Params::Name(ident(n.id.as_str(), at))),
            py::Expr::Tuple(py::ExprTuple { elts, .. }) => {
                let mut ps = Vec::new();
                for e in elts {
                    let py::Expr::Name(n) = e else { return None };
                    ps.push(Param::Pat(Pattern::Name(ident(
                        n.id.as_str(),
                        span(n.range),
                    ))));
                }
                Some(Params::List(ps, at))
            }
            _ => None,
        }
    }

    /// `recv.name(args)`: the library's `py_method`, which dispatches on the receiver's type
    /// at run time as Python does. Methods that change their receiver are refused here
    /// (`xs.append(v)` as a statement is `Lower::append`).
    pub(super) fn method_call(
        &mut self,
        a: &py::ExprAttribute,
        c: &py::ExprCall,
        at: Span,
    ) -> Expr {
        let name = a.attr.as_str();
        if !super::modules::DATA_METHODS.contains(&name) && !MUTATING.contains(&name) {
            return self.object_method(a, c, at);
        }
        if MUTATING.contains(&name) {
            return self.refused(
                at,
                &format!("`.{name}(…)` inside an expression, which changes its receiver"),
                &format!("call it on a line of its own (`v = xs.{name}(…)`), or build a new value"),
            );
        }
        if let Some(k) = c.arguments.keywords.first() {
            return self.refused(
                span(k.range),
                "a keyword argument",
                "pass the arguments by position",
            );
        }
        // A dictionary view prints as `dict_keys([...])`, which a list does not: the views are
        // lists only where they are walked or converted, never printed.
        if matches!(name, "keys" | "values" | "items") && !std::mem::take(&mut self.view_ok) {
            return self.refused(
                at,
                &format!("`.{name}()` outside a `for`, a comprehension or a conversion"),
                &format!("walk it, or convert it: `list(d.{name}())`"),
            );
        }
        let recv = self.expr(&a.value);
        let args: Vec<Expr> = c.arguments.args.iter().map(|x| self.expr(x)).collect();
        let args = match args.len() {
            0 => Expr::new(ExprKind::Unit, at),
            _ => Expr::new(ExprKind::Tuple(args), at),
        };
        let name = Expr::new(
            ExprKind::Lit(Lit::Str(name.to_string())),
            span(a.attr.range),
        );
        call("py_method", vec![recv, name, args], at)
    }

    /// An f-string: its literal parts and each hole as Python formats it (`str`, or `format`
    /// with the spec, or `repr` for `!r`).
    fn fstring(&mut self, value: &py::FStringValue, at: Span) -> Expr {
        let mut parts = Vec::new();
        for part in value.iter() {
            match part {
                py::FStringPart::Literal(l) => parts.push(FPart::Lit(l.value.to_string())),
                py::FStringPart::FString(f) => {
                    for el in f.elements.iter() {
                        match el {
                            py::InterpolatedStringElement::Literal(l) => {
                                parts.push(FPart::Lit(l.value.to_string()))
                            }
                            py::InterpolatedStringElement::Interpolation(i) => {
                                let x = self.expr(&i.expression);
                                let hole = span(i.range);
                                let shown = if let Some(spec) = &i.format_spec {
                                    let spec = self.fstring_spec(spec, hole);
                                    call("py_format", vec![x, spec], hole)
                                } else if i.conversion == py::ConversionFlag::Repr {
                                    call("py_repr", vec![x], hole)
                                } else {
                                    call("py_str", vec![x], hole)
                                };
                                parts.push(FPart::Expr(shown));
                            }
                        }
                    }
                }
            }
        }
        Expr::new(ExprKind::FStr(parts), at)
    }

    /// A format spec (`.2f`, `>10`), which may itself hold holes.
    fn fstring_spec(&mut self, spec: &py::InterpolatedStringFormatSpec, at: Span) -> Expr {
        let mut parts = Vec::new();
        for el in spec.elements.iter() {
            match el {
                py::InterpolatedStringElement::Literal(l) => {
                    parts.push(FPart::Lit(l.value.to_string()))
                }
                py::InterpolatedStringElement::Interpolation(i) => {
                    let x = self.expr(&i.expression);
                    parts.push(FPart::Expr(call("py_str", vec![x], at)));
                }
            }
        }
        match parts.as_slice() {
            [FPart::Lit(s)] => str_lit(s, at),
            _ => Expr::new(ExprKind::FStr(parts), at),
        }
    }

    /// A function's parameters: its positional names, then its `*args` and `**kwargs`, which
    /// its calls pass as a tuple and a dictionary (`call_with_signature`).
    pub(super) fn params(&mut self, p: &py::Parameters, at: Span) -> Params {
        if !p.kwonlyargs.is_empty() {
            self.refuse(
                at,
                "keyword-only parameters",
                "take the arguments by position, or by keyword before `*args`",
            );
        }
        let mut names = Vec::new();
        for a in p.posonlyargs.iter().chain(p.args.iter()) {
            if a.default.as_deref().is_some_and(|d| !is_constant(d)) {
                self.refuse(
                    span(a.range),
                    "a parameter default that is not a constant",
                    "use a number, a string, True, False or None, and compute the value in the body",
                );
            }
            let name = &a.parameter.name;
            names.push(ident(name.as_str(), span(name.range)));
        }
        for v in [&p.vararg, &p.kwarg].into_iter().flatten() {
            names.push(ident(v.name.as_str(), span(v.name.range)));
        }
        match names.len() {
            0 => Params::Unit(at),
            1 => Params::Name(names.remove(0)),
            _ => Params::List(
                names
                    .into_iter()
                    .map(|n| Param::Pat(Pattern::Name(n)))
                    .collect(),
                at,
            ),
        }
    }

    /// `print(a, b, sep=s, end=e)`: the arguments as `str` formats them, joined by `sep`; a
    /// line, or with an `end` other than `"\n"` a `print_raw` of the text and `end`.
    pub(super) fn print(&mut self, c: &py::ExprCall, at: Span) -> Expr {
        let mut sep = str_lit(" ", at);
        let mut end = None;
        for k in c.arguments.keywords.iter() {
            let value = self.expr(&k.value);
            match k.arg.as_ref().map(|a| a.as_str()) {
                Some("sep") => sep = value,
                Some("end") if matches!(&k.value, py::Expr::StringLiteral(s) if s.value.to_str() == "\n") =>
                    {}
                Some("end") => end = Some(value),
                Some("flush") => {}
                _ => self.refuse(
                    span(k.range),
                    "this keyword of `print`",
                    "use `sep` and `end`, or build the text first",
                ),
            }
        }
        let mut line: Option<Expr> = None;
        for a in c.arguments.args.iter() {
            let x = call(
                "py_str",
                vec![self.expr(a)],
                span(ruff_text_size::Ranged::range(a)),
            );
            line = Some(match line {
                None => x,
                Some(l) => binary(BinOp::Add, binary(BinOp::Add, l, sep.clone(), at), x, at),
            });
        }
        let line = line.unwrap_or_else(|| str_lit("", at));
        match end {
            None => call("print", vec![line], at),
            // The script's own `print_raw` would take the call (the names share one scope).
            Some(_) if self.names.contains("print_raw") || self.sigs.contains_key("print_raw") => {
                self.refused(
                    at,
                    "`print` with `end` in a script that names something `print_raw`",
                    "rename the script's `print_raw`",
                )
            }
            Some(end) => call("print_raw", vec![binary(BinOp::Add, line, end, at)], at),
        }
    }
}

/// Is `e` a boolean by its form (a comparison, `not`, `and`/`or` of booleans, `True`)?
fn is_boolean(e: &py::Expr) -> bool {
    match e {
        py::Expr::Compare(_) | py::Expr::BooleanLiteral(_) => true,
        py::Expr::UnaryOp(u) => u.op == py::UnaryOp::Not,
        py::Expr::BoolOp(b) => b.values.iter().all(is_boolean),
        py::Expr::Call(c) => {
            matches!(&*c.func, py::Expr::Name(n) if matches!(n.id.as_str(), "bool" | "isinstance" | "any" | "all"))
        }
        _ => false,
    }
}

/// Is `e` a constant a parameter default may be (evaluated once in Python, at every call here)?
fn is_constant(e: &py::Expr) -> bool {
    match e {
        py::Expr::NumberLiteral(_)
        | py::Expr::StringLiteral(_)
        | py::Expr::BooleanLiteral(_)
        | py::Expr::NoneLiteral(_) => true,
        py::Expr::UnaryOp(u) => matches!(&*u.operand, py::Expr::NumberLiteral(_)),
        py::Expr::Tuple(t) => t.elts.iter().all(is_constant),
        _ => false,
    }
}
