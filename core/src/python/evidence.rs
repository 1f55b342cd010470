//! Which names hold dictionaries and sets. Walking one (`for k in d`, `[x for x in s]`)
//! walks its keys or elements, as Python does; a list is a function in the machine and a
//! dictionary or set is not, so walking one as a list would fail. A name qualifies where the
//! script builds it as one every time it binds it (`names_bound_to`) or shows what it is
//! (`evidence`: an annotation, a function annotated to return one, a method only it has).

use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{Expr, Stmt};
use std::collections::HashSet;

/// A collection that is data in the machine, not a function.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    Dict,
    Set,
}

impl Shape {
    /// The type's names in annotations (`dict`, `typing.Dict[str, int]`).
    fn is_type(self, e: &Expr) -> bool {
        let names: &[&str] = match self {
            Shape::Dict => &["dict", "Dict"],
            Shape::Set => &["set", "Set"],
        };
        match e {
            Expr::Name(n) => names.contains(&n.id.as_str()),
            Expr::Subscript(s) => self.is_type(&s.value),
            Expr::Attribute(a) => names[1..].contains(&a.attr.as_str()),
            _ => false,
        }
    }
    /// Methods that, called on a name, show it holds this shape (lists have none of them).
    fn methods(self) -> &'static [&'static str] {
        match self {
            Shape::Dict => &["items", "keys", "values", "get", "setdefault", "update"],
            Shape::Set => &[
                "add",
                "discard",
                "union",
                "intersection",
                "difference",
                "symmetric_difference",
                "issubset",
                "issuperset",
                "isdisjoint",
            ],
        }
    }
    /// Does `op` applied to one give one again (`s | t`, `s - t`; `d | e`)?
    fn keeps(self, op: ruff_python_ast::Operator) -> bool {
        use ruff_python_ast::Operator as O;
        match self {
            Shape::Dict => op == O::BitOr,
            Shape::Set => matches!(op, O::BitOr | O::BitAnd | O::BitXor | O::Sub),
        }
    }
    /// Is `e` the name `target` combined with something by an operator that keeps the shape
    /// (`s = s | t`): a binding that neither makes `target` one nor something else.
    fn combines(self, e: &Expr, target: &str) -> bool {
        let named = |x: &Expr| matches!(x, Expr::Name(n) if n.id.as_str() == target);
        matches!(e, Expr::BinOp(b) if self.keeps(b.op) && (named(&b.left) || named(&b.right)))
    }
    /// Does `e` build one: a display, a comprehension, `dict(…)` / `set(…)`?
    fn builds(self, e: &Expr) -> bool {
        let (display, call) = match self {
            Shape::Dict => (matches!(e, Expr::Dict(_) | Expr::DictComp(_)), "dict"),
            Shape::Set => (matches!(e, Expr::Set(_) | Expr::SetComp(_)), "set"),
        };
        display
            || matches!(e, Expr::Call(c) if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == call))
    }
}

/// The names of `shape` in the script: those it builds as one every time and those it shows.
pub(super) fn names(body: &[Stmt], shape: Shape) -> HashSet<String> {
    &names_bound_to(body, shape) | &evidence(body, shape)
}

/// The names the script shows are of `shape` where it does not build them: a parameter
/// annotated `dict` (`set`), a name bound to what a function annotated `-> dict` returns (an
/// external's answer), a name the script calls one of `Shape::methods` on.
fn evidence(body: &[Stmt], shape: Shape) -> HashSet<String> {
    struct Evidence {
        shape: Shape,
        found: HashSet<String>,
        returning: HashSet<String>,
        calls: Vec<(String, String)>,
    }
    impl<'a> Visitor<'a> for Evidence {
        fn visit_stmt(&mut self, s: &'a Stmt) {
            match s {
                Stmt::FunctionDef(f) => {
                    if f.returns.as_deref().is_some_and(|r| self.shape.is_type(r)) {
                        self.returning.insert(f.name.to_string());
                    }
                    let p = &f.parameters;
                    for a in p.posonlyargs.iter().chain(&p.args).chain(&p.kwonlyargs) {
                        if (a.parameter.annotation.as_deref())
                            .is_some_and(|t| self.shape.is_type(t))
                        {
                            self.found.insert(a.parameter.name.to_string());
                        }
                    }
                }
                Stmt::AnnAssign(a) if self.shape.is_type(&a.annotation) => {
                    if let Expr::Name(n) = &*a.target {
                        self.found.insert(n.id.to_string());
                    }
                }
                Stmt::Assign(a) => {
                    if let (Expr::Call(c), [Expr::Name(t)]) = (&*a.value, &a.targets[..]) {
                        if let Expr::Name(f) = &*c.func {
                            self.calls.push((t.id.to_string(), f.id.to_string()));
                        }
                    }
                }
                _ => {}
            }
            walk_stmt(self, s);
        }
        fn visit_expr(&mut self, e: &'a Expr) {
            if let Expr::Call(c) = e {
                if let Expr::Attribute(a) = &*c.func {
                    let shows = self.shape.methods().contains(&a.attr.as_str());
                    if let (Expr::Name(n), true) = (&*a.value, shows) {
                        self.found.insert(n.id.to_string());
                    }
                }
            }
            walk_expr(self, e);
        }
    }
    let mut v = Evidence {
        shape,
        found: HashSet::new(),
        returning: HashSet::new(),
        calls: Vec::new(),
    };
    body.iter().for_each(|s| v.visit_stmt(s));
    for (target, f) in &v.calls {
        if v.returning.contains(f) {
            v.found.insert(target.clone());
        }
    }
    v.found
}

/// The names every binding of which builds a `shape` (`Shape::builds`).
fn names_bound_to(body: &[Stmt], shape: Shape) -> HashSet<String> {
    struct Bindings {
        shape: Shape,
        built: HashSet<String>,
        other: HashSet<String>,
    }
    impl<'a> Visitor<'a> for Bindings {
        fn visit_stmt(&mut self, s: &'a Stmt) {
            if let Stmt::AugAssign(a) = s {
                // `s |= t` keeps a set a set (and `d |= e` a dictionary).
                if matches!(&*a.target, Expr::Name(_)) && self.shape.keeps(a.op) {
                    self.visit_expr(&a.value);
                    return;
                }
            }
            if let Stmt::Assign(a) = s {
                for t in &a.targets {
                    match t {
                        Expr::Name(n) if self.shape.combines(&a.value, n.id.as_str()) => {}
                        Expr::Name(n) => {
                            let set = if self.shape.builds(&a.value) {
                                &mut self.built
                            } else {
                                &mut self.other
                            };
                            set.insert(n.id.to_string());
                        }
                        t => self.visit_expr(t),
                    }
                }
                self.visit_expr(&a.value);
                return;
            }
            if let Stmt::FunctionDef(f) = s {
                let p = &f.parameters;
                for a in p.posonlyargs.iter().chain(&p.args).chain(&p.kwonlyargs) {
                    self.other.insert(a.parameter.name.to_string());
                }
            }
            walk_stmt(self, s);
        }
        fn visit_expr(&mut self, e: &'a Expr) {
            // Any other binding (a `for` target, an unpacking, `:=`) may bind something else.
            if let Expr::Name(n) = e {
                if n.ctx == ruff_python_ast::ExprContext::Store {
                    self.other.insert(n.id.to_string());
                }
            }
            walk_expr(self, e);
        }
    }
    let mut b = Bindings {
        shape,
        built: HashSet::new(),
        other: HashSet::new(),
    };
    body.iter().for_each(|s| b.visit_stmt(s));
    b.built.difference(&b.other).cloned().collect()
}
