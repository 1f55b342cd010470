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
        let target = ident(&name, span(n.range));
        let recv = Expr::new(ExprKind::Name(target.clone()), span(n.range));
        if method == "sort" && !c.arguments.keywords.is_empty() {
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
        let args = match args.len() {
            0 => Expr::new(ExprKind::Unit, at),
            _ => Expr::new(ExprKind::Tuple(args), at),
        };
        let method = Expr::new(
            ExprKind::Lit(Lit::Str(method.to_string())),
            span(a.attr.range),
        );
        let changed = call("py_mutated", vec![recv, method, args], at);
        let result = match result {
            Some(r) => match self.pattern(r) {
                Some(p) => p,
                None => return vec![],
            },
            None => Pattern::Wild(at),
        };
        let both = Pattern::Tuple(vec![Pattern::Name(target), result], at);
        vec![item(ItemKind::Bind(both, changed), at)]
    }
}
