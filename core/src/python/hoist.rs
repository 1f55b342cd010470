//! A method that changes its receiver, inside an expression (`print(xs.pop())`, `return
//! stack.pop()`, `done.append(queue.pop(0))`): the call is made first, on a line of its own
//! (`Lower::mutation`), and the expression reads its result. Python makes the call where it
//! stands; making it first changes nothing a script can see when the call is made every time
//! the statement runs (not in the right operand of `and`/`or`, a branch of `x if c else y`, a
//! later link of a chained comparison, a comprehension or a lambda) and nothing before it in
//! the statement reads the receiver (`f(len(xs), xs.pop())` reads it first). Those stay
//! refused, saying to call it on a line of its own.

use super::mutation::is_mutation;
use super::{span, Lower};
use crate::syntax::ast::{Expr, ExprKind, Item};
use ruff_python_ast as py;
use ruff_python_ast::visitor::{walk_expr, Visitor};
use std::collections::HashSet;

impl Lower {
    /// `s` with the changing calls it makes every time moved before it, or `None` when it has
    /// none (the statement is lowered as it is).
    pub(super) fn hoisted(&mut self, s: &py::Stmt) -> Option<Vec<Item>> {
        let (mut items, rewritten) = self.hoist(s)?;
        items.extend(self.stmt(&rewritten));
        Some(items)
    }

    /// The value a `return` returns, its changing calls made first (into `items`).
    pub(super) fn returned_value(&mut self, r: &py::StmtReturn, items: &mut Vec<Item>) -> Expr {
        let at = span(r.range);
        // Only a `return` that holds a changing call is copied to be rewritten.
        let hoisted = match r.value.as_deref() {
            Some(v) if holds_mutation(v) => self.hoist(&py::Stmt::Return(r.clone())),
            _ => None,
        };
        let value = match &hoisted {
            Some((pre, py::Stmt::Return(r))) => {
                items.extend(pre.iter().cloned());
                r.value.as_deref()
            }
            _ => r.value.as_deref(),
        };
        match value {
            Some(v) => self.expr(v),
            None => Expr::new(ExprKind::Unit, at),
        }
    }

    /// The changing calls `s` makes every time, lowered, and `s` reading their results.
    fn hoist(&mut self, s: &py::Stmt) -> Option<(Vec<Item>, py::Stmt)> {
        let value = match s {
            py::Stmt::Expr(e) if !is_mutation(&e.value) => &*e.value,
            py::Stmt::Assign(a) if !is_mutation(&a.value) => &*a.value,
            py::Stmt::Return(r) => r.value.as_deref()?,
            py::Stmt::AugAssign(a) => &*a.value,
            py::Stmt::If(i) => &*i.test,
            _ => return None,
        };
        if !holds_mutation(value) {
            return None;
        }
        let mut rewritten = s.clone();
        let value = match &mut rewritten {
            py::Stmt::Expr(e) => &mut *e.value,
            py::Stmt::Assign(a) => &mut *a.value,
            py::Stmt::Return(r) => r.value.as_deref_mut()?,
            py::Stmt::AugAssign(a) => &mut *a.value,
            py::Stmt::If(i) => &mut *i.test,
            _ => return None,
        };
        let mut walk = Hoist {
            read: HashSet::new(),
            calls: Vec::new(),
            names: &self.names,
            count: &mut self.catches,
        };
        walk.expr(value);
        let calls = walk.calls;
        if calls.is_empty() {
            return None;
        }
        let mut items = Vec::new();
        for (call, name) in calls {
            let at = span(ruff_text_size::Ranged::range(&call));
            let target = result_name(&call, &name, py::ExprContext::Store);
            items.extend(self.mutation(&call, Some(&target), at));
        }
        Some((items, rewritten))
    }
}

/// The name `name` where `call` stood.
fn result_name(call: &py::Expr, name: &str, ctx: py::ExprContext) -> py::Expr {
    py::Expr::Name(py::ExprName {
        range: ruff_text_size::Ranged::range(call),
        node_index: Default::default(),
        id: py::name::Name::new(name),
        ctx,
    })
}

/// The calls to move, in the order Python makes them, each replaced by the name of its
/// result (`pop_result1`, a name the script does not use).
struct Hoist<'l> {
    /// Names read so far, in the order Python evaluates the statement.
    read: HashSet<String>,
    calls: Vec<(py::Expr, String)>,
    names: &'l HashSet<String>,
    count: &'l mut usize,
}

impl Hoist<'_> {
    /// Walks what Python evaluates every time, in its order.
    fn expr(&mut self, e: &mut py::Expr) {
        if is_mutation(e) {
            return self.call(e);
        }
        match e {
            py::Expr::Name(n) => {
                self.read.insert(n.id.to_string());
            }
            py::Expr::BoolOp(b) => {
                if let Some(first) = b.values.first_mut() {
                    self.expr(first);
                }
            }
            py::Expr::If(i) => self.expr(&mut i.test),
            py::Expr::Compare(c) => {
                self.expr(&mut c.left);
                if let Some(first) = c.comparators.first_mut() {
                    self.expr(first);
                }
            }
            py::Expr::Lambda(_)
            | py::Expr::ListComp(_)
            | py::Expr::SetComp(_)
            | py::Expr::DictComp(_)
            | py::Expr::Generator(_) => {}
            _ => for_each_child(e, &mut |c| self.expr(c)),
        }
    }

    /// `recv.m(args)`: its arguments first (a call among them is made before it), then the
    /// call itself, moved unless the statement read `recv` before.
    fn call(&mut self, e: &mut py::Expr) {
        let py::Expr::Call(c) = e else { return };
        let py::Expr::Attribute(a) = &*c.func else {
            return;
        };
        let py::Expr::Name(recv) = &*a.value else {
            return;
        };
        let recv = recv.id.to_string();
        let method = a.attr.to_string();
        if self.read.contains(&recv) {
            return;
        }
        for arg in c.arguments.args.iter_mut() {
            self.expr(arg);
        }
        for k in c.arguments.keywords.iter_mut() {
            self.expr(&mut k.value);
        }
        let name = loop {
            *self.count += 1;
            let name = format!("{method}_result{}", self.count);
            if !self.names.contains(&name) {
                break name;
            }
        };
        let read = result_name(e, &name, py::ExprContext::Load);
        let call = std::mem::replace(e, read);
        self.calls.push((call, name));
    }
}

/// `f` on each expression directly inside `e`, in the order Python evaluates them (an
/// f-string's format specifications are not visited).
fn for_each_child(e: &mut py::Expr, f: &mut dyn FnMut(&mut py::Expr)) {
    match e {
        py::Expr::Call(c) => {
            f(&mut c.func);
            c.arguments.args.iter_mut().for_each(&mut *f);
            c.arguments
                .keywords
                .iter_mut()
                .for_each(|k| f(&mut k.value));
        }
        py::Expr::BinOp(b) => {
            f(&mut b.left);
            f(&mut b.right);
        }
        py::Expr::UnaryOp(u) => f(&mut u.operand),
        py::Expr::Attribute(a) => f(&mut a.value),
        py::Expr::Subscript(x) => {
            f(&mut x.value);
            f(&mut x.slice);
        }
        py::Expr::Starred(x) => f(&mut x.value),
        py::Expr::Tuple(t) => t.elts.iter_mut().for_each(f),
        py::Expr::List(t) => t.elts.iter_mut().for_each(f),
        py::Expr::Set(t) => t.elts.iter_mut().for_each(f),
        py::Expr::Dict(d) => {
            for item in d.items.iter_mut() {
                if let Some(k) = &mut item.key {
                    f(k);
                }
                f(&mut item.value);
            }
        }
        py::Expr::Slice(x) => {
            for b in [&mut x.lower, &mut x.upper, &mut x.step]
                .into_iter()
                .flatten()
            {
                f(b);
            }
        }
        py::Expr::BoolOp(b) => b.values.iter_mut().for_each(f),
        py::Expr::If(i) => {
            f(&mut i.test);
            f(&mut i.body);
            f(&mut i.orelse);
        }
        py::Expr::Compare(c) => {
            f(&mut c.left);
            c.comparators.iter_mut().for_each(f);
        }
        py::Expr::FString(s) => {
            for part in s.value.iter_mut() {
                let py::FStringPart::FString(fs) = part else {
                    continue;
                };
                for element in fs.elements.iter_mut() {
                    if let py::InterpolatedStringElement::Interpolation(x) = element {
                        f(&mut x.expression);
                    }
                }
            }
        }
        _ => {}
    }
}

/// Does `e` call a method that changes its receiver anywhere?
fn holds_mutation(e: &py::Expr) -> bool {
    struct Find(bool);
    impl<'a> Visitor<'a> for Find {
        fn visit_expr(&mut self, e: &'a py::Expr) {
            self.0 |= is_mutation(e);
            walk_expr(self, e);
        }
    }
    let mut f = Find(false);
    f.visit_expr(e);
    f.0
}
