//! Python calls lowered to OPAL's: the script's own functions and externals bound from their
//! signatures (keywords, defaults, `*args`, `**kwargs`), and the built-ins whose Python
//! meaning needs more than one library function (`dict`, `enumerate`, `sorted(key=…)`,
//! `isinstance`).

use super::expr::{argument, call, ident, str_lit, PY_BUILTINS, SAME_BUILTINS};
use super::{span, Lower};
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, FunBody, Lit, Params};
use ruff_python_ast as py;

impl Lower {
    pub(super) fn call_expr(&mut self, c: &py::ExprCall, at: Span) -> Expr {
        if let Some(path) = self.module_path(&c.func) {
            return self.module_call(&path, Some(c), at);
        }
        if let py::Expr::Attribute(a) = &*c.func {
            return self.method_call(a, c, at);
        }
        let py::Expr::Name(f) = &*c.func else {
            // `(lambda a: …)(x)`, `handlers[0](x)`: the value called with the arguments.
            if let Some(k) = c.arguments.keywords.first() {
                let todo = "pass the arguments by position";
                return self.refused(span(k.range), "a keyword argument", todo);
            }
            let f = self.expr(&c.func);
            let args: Vec<Expr> = c.arguments.args.iter().map(|x| self.expr(x)).collect();
            let arg = argument(args, at);
            return Expr::new(ExprKind::App(Box::new(f), Box::new(arg)), at);
        };
        let name = f.id.as_str();
        if name == "print" {
            return self.refused(
                at,
                "`print` inside an expression",
                "call `print` on a line of its own",
            );
        }
        if let Some(sig) = self.sigs.get(name).cloned() {
            return self.call_with_signature(name, &sig, c, at);
        }
        if name == "isinstance" {
            return self.isinstance(c, at);
        }
        if name == "type" {
            let todo = "use `type(x).__name__` for the name of its class, or `isinstance(x, C)`";
            return self.refused(at, "`type(…)` as a value", todo);
        }
        if name == "sorted" && !c.arguments.keywords.is_empty() {
            return self.sorted_with_keywords(c, at);
        }
        if let Some(e) = self.dict_or_enumerate(name, c, at) {
            return e;
        }
        if let Some(e) = self.python_order_builtin(name, c, at) {
            return e;
        }
        if let Some(k) = c.arguments.keywords.first() {
            return self.refused(
                span(k.range),
                "a keyword argument",
                "pass the arguments by position",
            );
        }
        let mut args = Vec::new();
        for a in c.arguments.args.iter() {
            if matches!(a, py::Expr::Starred(_)) {
                return self.refused(at, "`*` unpacking", "pass the items one by one");
            }
            // These walk or convert their argument: a dictionary view is a list there.
            self.view_ok = SAME_BUILTINS.contains(&name) || name == "list";
            // These walk their argument: a dictionary's keys, as Python walks it.
            let walks = matches!(name, "sorted" | "sum" | "min" | "max" | "reversed");
            args.push(if walks {
                self.iterated(a)
            } else {
                self.expr(a)
            });
            self.view_ok = false;
        }
        let callee = match PY_BUILTINS.iter().find(|(p, _)| *p == name) {
            Some((_, ours)) => ours,
            None if SAME_BUILTINS.contains(&name) => name,
            None => name,
        };
        call(callee, args, at)
    }

    /// A call of one of the script's functions (or externals): positional arguments, then
    /// each remaining parameter from its keyword or its default, as Python binds them.
    fn call_with_signature(
        &mut self,
        name: &str,
        signature: &super::Signature,
        c: &py::ExprCall,
        at: Span,
    ) -> Expr {
        let sig = &signature.params[..];
        if signature.external && signature.star.is_some() {
            return self.external_star_call(name, c, at);
        }
        if c.arguments.args.len() > sig.len() && signature.star.is_none() {
            let what = format!("`{name}` called with {} arguments", c.arguments.args.len());
            return self.refused(at, &what, &format!("it takes {}", sig.len()));
        }
        let mut args: Vec<Expr> = Vec::new();
        for a in c.arguments.args.iter() {
            if matches!(a, py::Expr::Starred(_)) {
                return self.refused(at, "`*` unpacking", "pass the items one by one");
            }
            args.push(self.expr(a));
        }
        // `*args` is the tuple of the positional arguments past the parameters.
        let rest = args.split_off(args.len().min(sig.len()));
        let given = rest.len();
        let mut extra_keywords = Vec::new();
        for k in c.arguments.keywords.iter() {
            let known = k.arg.as_ref().is_some_and(|a| {
                sig.iter()
                    .skip(c.arguments.args.len())
                    .any(|(p, _)| p == a.as_str())
            });
            // `**kwargs` is the dictionary of the keywords no parameter takes.
            if let (false, Some(_), Some(a)) = (known, &signature.kwargs, &k.arg) {
                let key = str_lit(a.as_str(), span(k.range));
                extra_keywords.push((key, self.expr(&k.value)));
                continue;
            }
            if !known {
                let what = format!("this keyword argument of `{name}`");
                let todo = format!("`{name}` takes {}", names_of(sig));
                return self.refused(span(k.range), &what, &todo);
            }
        }
        for (p, default) in sig.iter().skip(c.arguments.args.len()) {
            let given = c
                .arguments
                .keywords
                .iter()
                .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == p));
            match (given, default) {
                (Some(k), _) => args.push(self.expr(&k.value)),
                (None, Some(d)) => args.push(self.expr(d)),
                (None, None) => {
                    let what = format!("a call of `{name}` without its argument `{p}`");
                    return self.refused(at, &what, &format!("`{name}` takes {}", names_of(sig)));
                }
            }
        }
        if signature.star.is_some() {
            let rest = match given {
                0 => ExprKind::Unit,
                _ => ExprKind::Tuple(rest),
            };
            args.push(Expr::new(rest, at));
        }
        if signature.kwargs.is_some() {
            args.push(Expr::new(ExprKind::Dict(extra_keywords), at));
        }
        call(name, args, at)
    }

    /// A call of an external taking `*args`: its arguments always as one tuple (`(x,)` for
    /// one), which the worker spreads over the function's parameters.
    fn external_star_call(&mut self, name: &str, c: &py::ExprCall, at: Span) -> Expr {
        if let Some(k) = c.arguments.keywords.first() {
            let what = format!("a keyword argument of `{name}`, which takes `*args`");
            return self.refused(span(k.range), &what, "pass the arguments by position");
        }
        let mut args = Vec::new();
        for a in c.arguments.args.iter() {
            if matches!(a, py::Expr::Starred(_)) {
                return self.refused(at, "`*` unpacking", "pass the items one by one");
            }
            args.push(self.expr(a));
        }
        let all = match args.len() {
            0 => ExprKind::Unit,
            _ => ExprKind::Tuple(args),
        };
        let f = Expr::new(ExprKind::Name(ident(name, at)), at);
        Expr::new(ExprKind::App(Box::new(f), Box::new(Expr::new(all, at))), at)
    }

    /// `dict(…)` (from pairs, a dictionary, keywords or nothing) and `enumerate(xs)`,
    /// `enumerate(xs, start)` (`start` by position or keyword): over what Python iterates (a
    /// string's characters), with the start OPAL's own `enumerate` does not take.
    fn dict_or_enumerate(&mut self, name: &str, c: &py::ExprCall, at: Span) -> Option<Expr> {
        let (args, kws) = (&c.arguments.args, &c.arguments.keywords);
        if args.iter().any(|a| matches!(a, py::Expr::Starred(_))) {
            return None;
        }
        match name {
            "dict" if args.len() <= 1 && kws.iter().all(|k| k.arg.is_some()) => {
                let mut pairs = Vec::new();
                for k in kws.iter() {
                    let key = k.arg.as_ref().map(|a| a.to_string()).unwrap_or_default();
                    pairs.push(Expr::new(
                        ExprKind::Tuple(vec![str_lit(&key, span(k.range)), self.expr(&k.value)]),
                        span(k.range),
                    ));
                }
                let arg = match args.first() {
                    _ if !kws.is_empty() && !args.is_empty() => {
                        let todo = "build the dictionary, then set the keys";
                        return Some(self.refused(at, "`dict` with pairs and keywords", todo));
                    }
                    Some(a) => {
                        self.view_ok = true;
                        let e = self.expr(a);
                        self.view_ok = false;
                        e
                    }
                    None if pairs.is_empty() => Expr::new(ExprKind::Unit, at),
                    None => Expr::new(ExprKind::List(pairs), at),
                };
                Some(call("py_dict", vec![arg], at))
            }
            "enumerate" if !args.is_empty() && args.len() + kws.len() <= 2 => {
                let start = match (args.get(1), kws.first()) {
                    (Some(s), None) => Some(s),
                    (None, Some(k)) if k.arg.as_deref() == Some("start") => Some(&k.value),
                    (None, None) => None,
                    _ => return None,
                };
                self.view_ok = true;
                let xs = self.expr(&args[0]);
                self.view_ok = false;
                let start = match start {
                    Some(s) => self.expr(s),
                    None => Expr::new(ExprKind::Lit(Lit::Int(0)), at),
                };
                Some(call("py_enumerate", vec![xs, start], at))
            }
            _ => None,
        }
    }

    /// Built-ins whose Python form differs from OPAL's function of the same name:
    /// `map(f, xs)` and `filter(f, xs)` (function first, Python's truth), `zip(a, b)` over
    /// what Python iterates (a string's characters), `max`/`min` with `key=` (the first of
    /// the largest, as Python picks).
    fn python_order_builtin(&mut self, name: &str, c: &py::ExprCall, at: Span) -> Option<Expr> {
        let (args, kws) = (&c.arguments.args[..], &c.arguments.keywords[..]);
        if args.iter().any(|a| matches!(a, py::Expr::Starred(_))) {
            return None;
        }
        let walked = |this: &mut Lower, e: &py::Expr| {
            this.view_ok = true;
            let x = this.iterated(e);
            this.view_ok = false;
            match e {
                py::Expr::List(_) | py::Expr::ListComp(_) => x,
                _ => call("py_list", vec![x], at),
            }
        };
        // A parameter no Python name can be (`lambda` is a keyword).
        let param = || ident("lambda", at);
        Some(match (name, args, kws) {
            ("map", [f, xs], []) => {
                let (f, xs) = (self.expr(f), walked(self, xs));
                call("map", vec![xs, f], at)
            }
            ("filter", [f, xs], []) => {
                let keep = match f {
                    py::Expr::NoneLiteral(_) => None,
                    f => Some(self.expr(f)),
                };
                let xs = walked(self, xs);
                let v = Expr::new(ExprKind::Name(param()), at);
                let test = match keep {
                    None => v,
                    Some(f) => Expr::new(ExprKind::App(Box::new(f), Box::new(v)), at),
                };
                let body = FunBody::Expr(Box::new(call("py_bool", vec![test], at)));
                let pred = Expr::new(ExprKind::Fun(Params::Name(param()), body), at);
                call("filter", vec![xs, pred], at)
            }
            ("zip", lists, []) if lists.len() >= 2 => {
                let lists = lists.iter().map(|l| walked(self, l)).collect();
                call("zip", lists, at)
            }
            ("max" | "min", [xs], [k]) if k.arg.as_deref() == Some("key") => {
                let mut list = walked(self, xs);
                let f = self.expr(&k.value);
                // The first largest: sort the reversed list stably and take the last.
                if name == "max" {
                    list = call("reversed", vec![list], at);
                }
                let sorted = call("sort_by", vec![list, f], at);
                let i = Expr::new(
                    ExprKind::Lit(Lit::Int(if name == "max" { -1 } else { 0 })),
                    at,
                );
                call("index", vec![sorted, i], at)
            }
            _ => return None,
        })
    }

    /// `isinstance(x, T)` for a built-in type named by its name.
    fn isinstance(&mut self, c: &py::ExprCall, at: Span) -> Expr {
        let [x, py::Expr::Name(t)] = &*c.arguments.args else {
            let todo = "name one built-in type: `isinstance(x, int)`";
            return self.refused(at, "this `isinstance`", todo);
        };
        let x = self.expr(x);
        let ty = str_lit(t.id.as_str(), span(t.range));
        call("py_isinstance", vec![x, ty], at)
    }

    /// `sorted(xs, key=f, reverse=True)`: the prelude's `sort_by` (or `sorted`). Reversed as
    /// Python does, keeping equal elements in their order: reverse, sort stably, reverse.
    fn sorted_with_keywords(&mut self, c: &py::ExprCall, at: Span) -> Expr {
        let [xs] = &*c.arguments.args else {
            return self.refused(at, "`sorted` without exactly one list", "pass one list");
        };
        self.view_ok = true;
        let list = self.iterated(xs);
        self.view_ok = false;
        self.sort_list(list, &c.arguments.keywords, at)
    }

    /// `list` sorted as `sorted(…, key=f, reverse=b)` (and `xs.sort(…)`) sort it.
    pub(super) fn sort_list(&mut self, mut list: Expr, keywords: &[py::Keyword], at: Span) -> Expr {
        let (mut key, mut reverse) = (None, false);
        for k in keywords.iter() {
            match (k.arg.as_ref().map(|a| a.as_str()), &k.value) {
                (Some("key"), f) => key = Some(f),
                (Some("reverse"), py::Expr::BooleanLiteral(b)) => reverse = b.value,
                _ => {
                    let todo = "use `key=` and `reverse=True` or `False`";
                    return self.refused(span(k.range), "this keyword of `sorted`", todo);
                }
            }
        }
        if reverse {
            list = call("reversed", vec![list], at);
        }
        list = match key {
            Some(f) => {
                let f = self.expr(f);
                call("sort_by", vec![list, f], at)
            }
            None => call("sorted", vec![list], at),
        };
        if reverse {
            list = call("reversed", vec![list], at);
        }
        list
    }
}

fn names_of(sig: &[(String, Option<py::Expr>)]) -> String {
    let names: Vec<&str> = sig.iter().map(|(n, _)| n.as_str()).collect();
    format!("({})", names.join(", "))
}
