//! Methods that change their receiver, as statements: `xs.pop()`, `v = d.pop(k)`,
//! `xs.insert(i, v)`, `d.update(e)`, `xs.sort(key=f)`, … The receiver is rebound to the changed
//! value the library's `py_mutated` computes (with the method's result), which means what
//! Python means only while nothing else holds the receiver's object: the same condition as
//! `append` (`alias`), refused otherwise with where it is shared.

use super::expr::{call, ident};
use super::stmt::item;
use super::{span, Lower};
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, Item, ItemKind, Lit, Pattern};
use ruff_python_ast as py;

/// The methods lowered here (`append` and `extend` are `Lower::append`'s).
const CHANGING: &[&str] = &[
    "insert",
    "pop",
    "remove",
    "clear",
    "reverse",
    "sort",
    "update",
    "setdefault",
    "popitem",
    "add",
    "discard",
];

/// Is `e` a call of a method that changes its receiver, handled here?
pub(super) fn is_mutation(e: &py::Expr) -> bool {
    matches!(e, py::Expr::Call(c)
        if matches!(&*c.func, py::Expr::Attribute(a) if CHANGING.contains(&a.attr.as_str())))
}

impl Lower {
    /// `recv.m(args)` as a statement, its result bound to `result` (`v = xs.pop()`) or
    /// dropped.
    pub(super) fn mutation(
        &mut self,
        e: &py::Expr,
        result: Option<&py::Expr>,
        at: Span,
    ) -> Vec<Item> {
        let py::Expr::Call(c) = e else { return vec![] };
        let py::Expr::Attribute(a) = &*c.func else {
            return vec![];
        };
        let method = a.attr.as_str();
        let py::Expr::Name(n) = &*a.value else {
            let what = format!("`.{method}(…)` on this expression");
            return self.refused_item(at, &what, "call it on a list or dictionary bound to a name");
        };
        let name = n.id.to_string();
        if let Some(why) = self.sharing(&name) {
            let what = format!("`{name}.{method}(…)` where `{name}` {why}");
            let todo = "build a new value instead (every holder then sees its own)";
            return self.refused_item(at, &what, todo);
        }
        if method == "sort" && !c.arguments.keywords.is_empty() {
            let target = ident(&name, span(n.range));
            let recv = Expr::new(ExprKind::Name(target.clone()), span(n.range));
            if result.is_some() {
                return self.refused_item(
                    at,
                    "the result of `.sort(…)`",
                    "it is None: sort, then use the list",
                );
            }
            let sorted = self.sort_list(recv, &c.arguments.keywords, at);
            return vec![item(ItemKind::Bind(Pattern::Name(target), sorted), at)];
        }
        if let Some(k) = c.arguments.keywords.first() {
            return self.refused_item(
                span(k.range),
                "a keyword argument",
                "pass the arguments by position",
            );
        }
        let mut args = Vec::new();
        for x in c.arguments.args.iter() {
            if matches!(x, py::Expr::Starred(_)) {
                return self.refused_item(at, "`*` unpacking", "pass the items one by one");
            }
            args.push(self.expr(x));
        }
        let result = match result {
            Some(r) => match self.pattern(r) {
                Some(p) => p,
                None => return vec![],
            },
            None => Pattern::Wild(at),
        };
        vec![changed(n, method, args, result, at)]
    }

    /// A line of a `try` body that changes a collection (`del d[k]`, `v = xs.pop()`,
    /// `xs.remove(x)`): what it binds and `py_mutated`'s argument, for `py_try` to catch the
    /// `KeyError`, `IndexError` or `ValueError` Python raises there. `None` for a line
    /// `mutation` or `delete` would refuse (they say why).
    pub(super) fn catchable_mutation(&mut self, s: &py::Stmt) -> Option<(Pattern, Expr)> {
        let at = span(ruff_text_size::Ranged::range(s));
        let (n, method, args, result) = match s {
            py::Stmt::Delete(d) => {
                let [py::Expr::Subscript(x)] = &d.targets[..] else {
                    return None;
                };
                let py::Expr::Name(n) = &*x.value else {
                    return None;
                };
                if matches!(&*x.slice, py::Expr::Slice(_)) {
                    return None;
                }
                (n, "__delitem__", vec![&*x.slice], Pattern::Wild(at))
            }
            py::Stmt::Expr(_) | py::Stmt::Assign(_) => {
                let (target, value) = match s {
                    py::Stmt::Assign(a) if a.targets.len() == 1 => (Some(&a.targets[0]), &*a.value),
                    py::Stmt::Expr(e) => (None, &*e.value),
                    _ => return None,
                };
                let py::Expr::Call(c) = value else {
                    return None;
                };
                let py::Expr::Attribute(a) = &*c.func else {
                    return None;
                };
                let py::Expr::Name(n) = &*a.value else {
                    return None;
                };
                let plain = !c
                    .arguments
                    .args
                    .iter()
                    .any(|x| matches!(x, py::Expr::Starred(_)));
                if !is_mutation(value) || !c.arguments.keywords.is_empty() || !plain {
                    return None;
                }
                let result = match target {
                    Some(t) => self.pattern(t)?,
                    None => Pattern::Wild(at),
                };
                let args = c.arguments.args.iter().collect();
                (n, a.attr.as_str(), args, result)
            }
            _ => return None,
        };
        if self.sharing(n.id.as_str()).is_some() {
            return None;
        }
        let args = args.into_iter().map(|x| self.expr(x)).collect();
        let (both, parts) = changed_parts(n, method, args, result, at);
        Some((both, Expr::new(ExprKind::Tuple(parts), at)))
    }

    /// `del d[k]`, `del xs[i]` (each target in turn, as Python does); `del x` unbinds `x`
    /// (reading it after is `NameError`, as in Python).
    pub(super) fn delete(&mut self, d: &py::StmtDelete, at: Span) -> Vec<Item> {
        let mut items = Vec::new();
        for t in &d.targets {
            match t {
                py::Expr::Name(n) => {
                    let x = ident(n.id.as_str(), span(n.range));
                    let gone = super::expr::str_lit(n.id.as_str(), at);
                    let unbound = call("py_unbound", vec![gone], at);
                    items.push(item(ItemKind::Bind(Pattern::Name(x), unbound), at));
                }
                py::Expr::Subscript(s) if !matches!(&*s.slice, py::Expr::Slice(_)) => {
                    let py::Expr::Name(n) = &*s.value else {
                        let todo = "bind the collection to a name, then `del name[key]`";
                        return self.refused_item(at, "`del` of an item of this expression", todo);
                    };
                    if let Some(why) = self.sharing(n.id.as_str()) {
                        let what = format!("`del {}[…]` where `{}` {why}", n.id, n.id);
                        let todo = "build a new value instead (every holder then sees its own)";
                        return self.refused_item(at, &what, todo);
                    }
                    let key = self.expr(&s.slice);
                    items.push(changed(n, "__delitem__", vec![key], Pattern::Wild(at), at));
                }
                _ => {
                    let todo = "delete one key or index at a time (`del d[k]`), or a name";
                    return self.refused_item(at, "this `del`", todo);
                }
            }
        }
        items
    }
}

/// `(n, result) = py_mutated(n, method, args)`: `n` rebound to the changed receiver.
fn changed(n: &py::ExprName, method: &str, args: Vec<Expr>, result: Pattern, at: Span) -> Item {
    let (both, parts) = changed_parts(n, method, args, result, at);
    item(ItemKind::Bind(both, call("py_mutated", parts, at)), at)
}

/// What `(n, result) = py_mutated(n, method, args)` binds, and `py_mutated`'s arguments.
fn changed_parts(
    n: &py::ExprName,
    method: &str,
    args: Vec<Expr>,
    result: Pattern,
    at: Span,
) -> (Pattern, Vec<Expr>) {
    let target = ident(n.id.as_str(), span(n.range));
    let recv = Expr::new(ExprKind::Name(target.clone()), span(n.range));
    let args = match args.len() {
        0 => Expr::new(ExprKind::Unit, at),
        _ => Expr::new(ExprKind::Tuple(args), at),
    };
    let method = Expr::new(ExprKind::Lit(Lit::Str(method.to_string())), at);
    let both = Pattern::Tuple(vec![Pattern::Name(target), result], at);
    (both, vec![recv, method, args])
}
