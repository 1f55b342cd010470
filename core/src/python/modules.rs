//! Calls into imported modules from internal code (`json.loads(text)`, `math.sqrt(x)`,
//! `from os.path import join`): each function is an external named by its dotted path, run in
//! the CPython worker with its positional and keyword arguments. Its ordering class comes from
//! `ORDERS`, a table of the standard library's functions; anything not in it is sequential, the
//! class that cannot reorder effects (PopPy §4.2).

use super::expr::{call, ident};
use super::stmt::item;
use super::{span, Lower};
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, Item, ItemKind, Lit, Order};
use ruff_python_ast as py;
use std::collections::HashMap;

/// The ordering class of standard-library functions (a prefix ending in `.` covers a module).
/// Pure computations are unordered; what reads the world (files, the environment, the clock)
/// is readonly; what changes it or keeps hidden state (`random`) is left sequential.
const ORDERS: &[(&str, Order)] = &[
    ("json.loads", Order::Unordered),
    ("json.dumps", Order::Unordered),
    ("math.", Order::Unordered),
    ("cmath.", Order::Unordered),
    ("statistics.", Order::Unordered),
    ("re.", Order::Unordered),
    ("string.", Order::Unordered),
    ("textwrap.", Order::Unordered),
    ("unicodedata.", Order::Unordered),
    ("hashlib.", Order::Unordered),
    ("base64.", Order::Unordered),
    ("html.escape", Order::Unordered),
    ("html.unescape", Order::Unordered),
    ("urllib.parse.", Order::Unordered),
    ("itertools.", Order::Unordered),
    ("functools.reduce", Order::Unordered),
    ("operator.", Order::Unordered),
    ("copy.", Order::Unordered),
    ("decimal.", Order::Unordered),
    ("fractions.", Order::Unordered),
    ("os.path.join", Order::Unordered),
    ("os.path.basename", Order::Unordered),
    ("os.path.dirname", Order::Unordered),
    ("os.path.splitext", Order::Unordered),
    ("os.path.split", Order::Unordered),
    ("os.path.", Order::Readonly),
    ("os.getenv", Order::Readonly),
    ("os.listdir", Order::Readonly),
    ("os.getcwd", Order::Readonly),
    ("glob.", Order::Readonly),
    ("time.time", Order::Readonly),
    ("time.monotonic", Order::Readonly),
    ("time.perf_counter", Order::Readonly),
    ("datetime.", Order::Readonly),
];

/// The methods OPAL's library computes on strings, lists and dictionaries (`py_method`); a
/// method of any other name is an object's, called in the worker (`Lower::object_method`).
pub(super) const DATA_METHODS: &[&str] = &[
    "capitalize",
    "count",
    "endswith",
    "find",
    "format",
    "isalnum",
    "isalpha",
    "isdigit",
    "islower",
    "isspace",
    "istitle",
    "isupper",
    "join",
    "lower",
    "lstrip",
    "partition",
    "replace",
    "rpartition",
    "rstrip",
    "split",
    "splitlines",
    "startswith",
    "strip",
    "title",
    "upper",
    "index",
    "copy",
    "get",
    "keys",
    "values",
    "items",
];

/// The worker's operations on its objects (externals with dotted names, as module functions).
pub(super) const OBJECT_METHOD: &str = "py.method";
pub(super) const OBJECT_ATTRIBUTE: &str = "py.getattr";

/// The class of the function at `path`: the longest entry of `ORDERS` that names it or its
/// module, else sequential.
pub(super) fn order_of(path: &str) -> Order {
    ORDERS
        .iter()
        .filter(|(p, _)| *p == path || (p.ends_with('.') && path.starts_with(p)))
        .max_by_key(|(p, _)| p.len())
        .map(|(_, o)| *o)
        .unwrap_or(Order::Sequential)
}

/// What each imported name stands for: `import json` binds `json` to `json`, `import numpy as
/// np` binds `np` to `numpy`, `from os.path import join` binds `join` to `os.path.join`.
/// `opal`'s decorators and relative imports are left out.
pub(super) fn imported(body: &[py::Stmt]) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for s in body {
        match s {
            py::Stmt::Import(i) => {
                for a in &i.names {
                    let full = a.name.to_string();
                    match &a.asname {
                        Some(n) => out.insert(n.to_string(), full),
                        // `import os.path` binds `os`.
                        None => {
                            let root = full.split('.').next().unwrap_or(&full).to_string();
                            out.insert(root.clone(), root)
                        }
                    };
                }
            }
            py::Stmt::ImportFrom(f) if f.level == 0 => {
                let Some(m) = &f.module else { continue };
                if m.as_str() == "opal" {
                    continue;
                }
                for a in &f.names {
                    let bound = a.asname.as_ref().unwrap_or(&a.name).to_string();
                    out.insert(bound, format!("{m}.{}", a.name));
                }
            }
            _ => {}
        }
    }
    out
}

/// `a.b.c` as the names it is made of, when it is only names and attributes.
fn dotted(e: &py::Expr) -> Option<Vec<&str>> {
    match e {
        py::Expr::Name(n) => Some(vec![n.id.as_str()]),
        py::Expr::Attribute(a) => {
            let mut v = dotted(&a.value)?;
            v.push(a.attr.as_str());
            Some(v)
        }
        _ => None,
    }
}

impl Lower {
    /// The dotted path `e` names in an imported module (`json.loads`, `os.path.join`, or
    /// `join` after `from os.path import join`), if it names one.
    pub(super) fn module_path(&self, e: &py::Expr) -> Option<String> {
        let parts = dotted(e)?;
        let (root, rest) = parts.split_first()?;
        if self.sigs.contains_key(*root) {
            return None;
        }
        let base = self.imports.get(*root)?;
        Some(
            std::iter::once(base.as_str())
                .chain(rest.iter().copied())
                .collect::<Vec<_>>()
                .join("."),
        )
    }

    /// A call of the module function at `path`: the external `path` on (positional arguments,
    /// keyword arguments), declared once at the top of the script.
    pub(super) fn module_call(&mut self, path: &str, c: Option<&py::ExprCall>, at: Span) -> Expr {
        self.modules.entry(path.to_string()).or_insert(at);
        let (args, kwargs) = match c {
            Some(c) => match self.call_arguments(c, at) {
                Some(a) => a,
                None => return Expr::new(ExprKind::Error, at),
            },
            None => (
                Expr::new(ExprKind::List(Vec::new()), at),
                Expr::new(ExprKind::Dict(Vec::new()), at),
            ),
        };
        call(
            path,
            vec![Expr::new(ExprKind::Tuple(vec![args, kwargs]), at)],
            at,
        )
    }

    /// `obj.name(args)` for a method OPAL's library does not compute: a method of an object
    /// that stays in the worker (`client.chat.completions.create(model=…, messages=…)`), the
    /// external `py.method` on (the object, the name, positional arguments, keyword
    /// arguments), sequential: an object's methods may change it.
    pub(super) fn object_method(
        &mut self,
        a: &py::ExprAttribute,
        c: &py::ExprCall,
        at: Span,
    ) -> Expr {
        let recv = self.expr(&a.value);
        let name = Expr::new(
            ExprKind::Lit(Lit::Str(a.attr.to_string())),
            span(a.attr.range),
        );
        let Some((args, kwargs)) = self.call_arguments(c, at) else {
            return Expr::new(ExprKind::Error, at);
        };
        self.modules.entry(OBJECT_METHOD.to_string()).or_insert(at);
        let arg = Expr::new(ExprKind::Tuple(vec![recv, name, args, kwargs]), at);
        call(OBJECT_METHOD, vec![arg], at)
    }

    /// `obj.attr` on an object that stays in the worker: the external `py.getattr`.
    pub(super) fn object_attribute(&mut self, a: &py::ExprAttribute, at: Span) -> Expr {
        let obj = self.expr(&a.value);
        let name = Expr::new(
            ExprKind::Lit(Lit::Str(a.attr.to_string())),
            span(a.attr.range),
        );
        self.modules
            .entry(OBJECT_ATTRIBUTE.to_string())
            .or_insert(at);
        call(
            OBJECT_ATTRIBUTE,
            vec![Expr::new(ExprKind::Tuple(vec![obj, name]), at)],
            at,
        )
    }

    /// A call's arguments as a list of the positional ones and a dictionary of the keyword
    /// ones; `None` after refusing `*` or `**` unpacking.
    fn call_arguments(&mut self, c: &py::ExprCall, at: Span) -> Option<(Expr, Expr)> {
        let mut args = Vec::new();
        for a in c.arguments.args.iter() {
            if matches!(a, py::Expr::Starred(_)) {
                self.refuse(at, "`*` unpacking", "pass the items one by one");
                return None;
            }
            args.push(self.expr(a));
        }
        let mut kwargs = Vec::new();
        for k in c.arguments.keywords.iter() {
            let Some(name) = &k.arg else {
                self.refuse(span(k.range), "`**` unpacking", "pass each keyword by name");
                return None;
            };
            let key = Expr::new(ExprKind::Lit(Lit::Str(name.to_string())), span(name.range));
            kwargs.push((key, self.expr(&k.value)));
        }
        Some((
            Expr::new(ExprKind::List(args), at),
            Expr::new(ExprKind::Dict(kwargs), at),
        ))
    }

    /// The `extern` items that declare the module functions the script called.
    pub(super) fn module_externs(&mut self) -> Vec<Item> {
        let mut paths: Vec<(String, Span)> = self.modules.drain().collect();
        paths.sort();
        paths
            .into_iter()
            .map(|(p, at)| {
                item(
                    ItemKind::Extern(vec![ident(&p, at)], Some(order_of(&p))),
                    at,
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_entry_names_the_class_and_the_rest_is_sequential() {
        assert_eq!(order_of("json.loads"), Order::Unordered);
        assert_eq!(order_of("math.sqrt"), Order::Unordered);
        assert_eq!(order_of("os.path.join"), Order::Unordered);
        assert_eq!(order_of("os.path.exists"), Order::Readonly);
        assert_eq!(order_of("random.choice"), Order::Sequential);
        assert_eq!(order_of("mathx.sqrt"), Order::Sequential);
        assert_eq!(order_of("shutil.rmtree"), Order::Sequential);
    }
}
