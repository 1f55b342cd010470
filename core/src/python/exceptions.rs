//! `try`/`except`/`else`/`finally` around calls that may raise: the script's external
//! functions and the module functions it calls (they run in CPython, where the exception is
//! raised). Each such call in a `try` body is a line of its own (`x = f(…)` or `f(…)`) and
//! calls the external's catching twin `try.f`, whose result is the value or, when the
//! function raised, an exception value (`py_caught`). The code after the call moves into the
//! branch where it did not raise; the `except` clauses match the exception's classes (its
//! Python MRO) in order, `except E as e` binds the message (what `str(e)` gives), and an
//! exception no clause matches fails the run with it (without the `finally` block: the run
//! ends there).
//!
//! A line of the `try` body that is a library operation that may raise (`x = d[k]`,
//! `int(s)`, `a / b`, `del d[k]`, `v = xs.pop()`) calls it through `py_try`, which returns the exception CPython raises
//! there instead of failing, and is caught the same way.
//!
//! A call in the `try` body that raises runs as Python runs it; the calls after it in the
//! body are dispatched only once it returned (they are in the branch where it did not
//! raise), so a `try` around several calls runs them one after another. Put the `try`
//! around each call (in the loop) to keep them overlapping.

use super::expr::{call, ident};
use super::modules::order_of;
use super::stmt::{always_jumps, item, jumps, returns, Tail};
use super::{span, Lower};
use crate::span::Span;
use crate::syntax::ast::{Block, Expr, ExprKind, Ident, Item, ItemKind, Lit, Order, Pattern};
use ruff_python_ast as py;
use ruff_python_ast::visitor::{walk_expr, Visitor};
use std::collections::HashMap;

/// An `except` clause: the class names it names (`None`: any exception), the name it binds,
/// its body.
struct Handler<'a> {
    classes: Option<Vec<String>>,
    name: Option<String>,
    body: &'a [py::Stmt],
}

/// What a caught line binds where it did not raise: its Python target (`x = d[k]`), or the
/// pattern a collection's change binds (`(xs, v) = py_mutated(…)` for `v = xs.pop()`).
enum Bound<'a> {
    Py(Option<&'a py::Expr>),
    Pattern(Pattern),
}

/// `x = f(…)` or `f(…)` in a `try` body, `f` an external that may raise: what it binds, the
/// call's expression and call, the external and its class.
struct CatchPoint<'a> {
    target: Option<&'a py::Expr>,
    value: &'a py::Expr,
    call: &'a py::ExprCall,
    ext: String,
    order: Order,
}

/// Where the ways out of a `try` that `break`s, `continue`s or `return`s go: each way that
/// falls through goes on with `rest`, the statements after the `try`, and all of them are
/// lowered as the enclosing loop's body (`Stmt::jump_tail`) or the function's tail.
pub(super) struct After<'a> {
    pub(super) rest: &'a [py::Stmt],
    pub(super) how: Leaving,
}

/// What encloses a `try` that jumps: a loop (with its `break` flag, if it breaks) or the
/// tail of a function (a `return` binds the result).
pub(super) enum Leaving {
    Loop(Option<Ident>),
    Function,
}

/// Python's built-in exception classes a script raises, each with its base.
const BUILT_IN: &[(&str, &str)] = &[
    ("Exception", "BaseException"),
    ("ArithmeticError", "Exception"),
    ("ZeroDivisionError", "ArithmeticError"),
    ("OverflowError", "ArithmeticError"),
    ("AssertionError", "Exception"),
    ("AttributeError", "Exception"),
    ("LookupError", "Exception"),
    ("KeyError", "LookupError"),
    ("IndexError", "LookupError"),
    ("NameError", "Exception"),
    ("OSError", "Exception"),
    ("ConnectionError", "OSError"),
    ("TimeoutError", "OSError"),
    ("FileNotFoundError", "OSError"),
    ("RuntimeError", "Exception"),
    ("NotImplementedError", "RuntimeError"),
    ("RecursionError", "RuntimeError"),
    ("TypeError", "Exception"),
    ("ValueError", "Exception"),
    ("UnicodeError", "ValueError"),
];

/// The classes the script defines, each with its one base (`class RateLimit(Exception)`).
pub(super) fn defined_classes(body: &[py::Stmt]) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for s in body {
        if let py::Stmt::ClassDef(c) = s {
            let bases = c.arguments.as_deref().map_or(&[][..], |a| &a.args[..]);
            if let [base] = bases {
                if let Some(b) = class_name(base) {
                    out.insert(c.name.to_string(), b);
                }
            }
        }
    }
    out
}

/// The decorated externals' classes, by name (for their catching twins).
pub(super) fn decorated(body: &[py::Stmt]) -> HashMap<String, Order> {
    let mut out = HashMap::new();
    for s in body {
        let py::Stmt::FunctionDef(f) = s else {
            continue;
        };
        let order = f.decorator_list.first().and_then(|d| match &d.expression {
            py::Expr::Name(n) => Order::parse(n.id.as_str()),
            py::Expr::Attribute(a) => Order::parse(a.attr.as_str()),
            _ => None,
        });
        if let Some(o) = order {
            out.insert(f.name.to_string(), o);
        }
    }
    out
}

impl Lower {
    /// The external a call calls, if it may raise in CPython: a decorated function or a
    /// module function (by its dotted path).
    fn raising_callee(&self, c: &py::ExprCall) -> Option<(String, Order)> {
        if let py::Expr::Name(n) = &*c.func {
            if let Some(o) = self.decorated.get(n.id.as_str()) {
                return Some((n.id.to_string(), *o));
            }
        }
        let path = self.module_path(&c.func)?;
        let order = order_of(&path);
        Some((path, order))
    }

    /// Does `e` call an external that may raise, anywhere inside it?
    fn calls_raising(&self, e: &py::Expr) -> bool {
        struct Find<'l> {
            lower: &'l Lower,
            found: bool,
        }
        impl<'a> Visitor<'a> for Find<'_> {
            fn visit_expr(&mut self, e: &'a py::Expr) {
                if let py::Expr::Call(c) = e {
                    self.found |= self.lower.raising_callee(c).is_some();
                }
                walk_expr(self, e);
            }
        }
        let mut f = Find {
            lower: self,
            found: false,
        };
        f.visit_expr(e);
        f.found
    }

    pub(super) fn try_stmt(&mut self, t: &py::StmtTry, at: Span) -> Vec<Item> {
        let handler_bodies = t.handlers.iter().flat_map(|h| {
            let py::ExceptHandler::ExceptHandler(h) = h;
            h.body.iter()
        });
        let mut all = t
            .body
            .iter()
            .chain(&t.orelse)
            .chain(&t.finalbody)
            .chain(handler_bodies);
        if all.any(returns) {
            let todo = "bind the result in the `try` and its `except` clauses, return after it";
            return self.refused_item(at, "`return` inside a `try` statement here", todo);
        }
        let Some(handlers) = self.handlers_of(t, at) else {
            return vec![];
        };
        let mut items = self.try_body(&t.body, &handlers, &t.orelse, None);
        items.extend(self.block(&t.finalbody).items);
        items
    }

    /// A `try` in a loop's body or a function's tail that `break`s, `continue`s or `return`s
    /// (a retry loop: `try: return ask(q)` / `except RateLimitError: continue`): lowered as
    /// `try_stmt` lowers it, each way out of it going on as `after` says.
    pub(super) fn try_leaving(&mut self, t: &py::StmtTry, after: &After, at: Span) -> Vec<Item> {
        if !t.finalbody.is_empty() {
            let todo = "move the `finally` block's statements after the `try` and before each jump";
            return self.refused_item(
                at,
                "`break`, `continue` or `return` in a `try` that has a `finally` block",
                todo,
            );
        }
        let Some(handlers) = self.handlers_of(t, at) else {
            return vec![];
        };
        self.try_body(&t.body, &handlers, &t.orelse, Some(after))
    }

    /// The statements `stmts` lowered as the way out of a `try` `after` says: followed by the
    /// code after the `try`, as the rest of a loop's body or of a function.
    fn leave(&mut self, after: &After, stmts: &[py::Stmt]) -> Vec<Item> {
        let at =
            (stmts.first()).map_or(Span::new(0, 0), |s| span(ruff_text_size::Ranged::range(s)));
        if !self.copy_rest(after.rest, at) {
            return Vec::new();
        }
        let all: Vec<py::Stmt> = stmts.iter().chain(after.rest).cloned().collect();
        match &after.how {
            Leaving::Loop(flag) => self.jump_tail(&all, flag.as_ref()),
            Leaving::Function => self.tail(&all, Tail::Bind),
        }
    }

    /// The `except` clauses of `t` (refused, saying why, if one names something other than
    /// classes, or `t` is `try`/`except*`).
    fn handlers_of<'a>(&mut self, t: &'a py::StmtTry, at: Span) -> Option<Vec<Handler<'a>>> {
        if t.is_star {
            self.refuse(
                at,
                "`except*`",
                "catch the group's exceptions in an external",
            );
            return None;
        }
        let mut handlers = Vec::new();
        for h in &t.handlers {
            let py::ExceptHandler::ExceptHandler(h) = h;
            let classes = match h.type_.as_deref() {
                None => None,
                Some(py::Expr::Tuple(tu)) => Some(tu.elts.iter().map(class_name).collect()),
                Some(e) => Some(class_name(e).map(|n| vec![n])),
            };
            let classes = match classes {
                None => None,
                Some(Some(c)) => Some(c),
                Some(None) => {
                    self.refuse(
                        span(h.range),
                        "this `except` clause",
                        "name exception classes",
                    );
                    return None;
                }
            };
            // `except BaseException` catches everything, as a bare `except:` does.
            let classes = classes.filter(|c: &Vec<String>| !c.iter().any(|n| n == "BaseException"));
            let name = h.name.as_ref().map(|n| n.to_string());
            handlers.push(Handler {
                classes,
                name,
                body: &h.body,
            });
        }
        Some(handlers)
    }

    /// A statement of a `try` body that is a call that may raise, on a line of its own.
    fn catch_point<'a>(&self, s: &'a py::Stmt) -> Option<CatchPoint<'a>> {
        let (target, value) = match s {
            py::Stmt::Assign(a) if a.targets.len() == 1 => (Some(&a.targets[0]), &*a.value),
            py::Stmt::Expr(e) => (None, &*e.value),
            // `return f(x)`: the value is returned where the call did not raise.
            py::Stmt::Return(r) => (None, r.value.as_deref()?),
            _ => return None,
        };
        let py::Expr::Call(call) = value else {
            return None;
        };
        let (ext, order) = self.raising_callee(call)?;
        Some(CatchPoint {
            target,
            value,
            call,
            ext,
            order,
        })
    }

    /// The `try` body from its first statement on: statements up to a call that may raise
    /// as they are; that call, then the `except` clauses in the branch where it raised and
    /// the rest of the body (and the `else` block) in the branch where it did not. With
    /// `after`, each of these ways ends by going on as it says.
    fn try_body(
        &mut self,
        stmts: &[py::Stmt],
        handlers: &[Handler],
        orelse: &[py::Stmt],
        after: Option<&After>,
    ) -> Vec<Item> {
        self.in_try += 1;
        let items = self.try_body_items(stmts, handlers, orelse, after);
        self.in_try -= 1;
        items
    }

    fn try_body_items(
        &mut self,
        stmts: &[py::Stmt],
        handlers: &[Handler],
        orelse: &[py::Stmt],
        after: Option<&After>,
    ) -> Vec<Item> {
        let mut items = Vec::new();
        for (i, s) in stmts.iter().enumerate() {
            let s_at = span(ruff_text_size::Ranged::range(s));
            items.extend(self.prebinding(s));
            let caught = match self.catch_point(s) {
                Some(p) => {
                    let inner = (p.call.arguments.args.iter())
                        .chain(p.call.arguments.keywords.iter().map(|k| &k.value));
                    if inner.into_iter().any(|a| self.calls_raising(a)) {
                        return self.refuse_nested(s_at, items);
                    }
                    Some((Bound::Py(p.target), self.catching_call(&p, s_at)))
                }
                None => self.library_catch(s),
            };
            let caught = match (caught, s) {
                (None, py::Stmt::Raise(r)) if r.exc.is_some() => {
                    self.raised(r, s_at).map(|e| (Bound::Py(None), e))
                }
                (caught, _) => caught,
            };
            let Some((target, lowered)) = caught else {
                let jump = matches!(
                    s,
                    py::Stmt::Break(_) | py::Stmt::Continue(_) | py::Stmt::Return(_)
                );
                if let Some(a) = after.filter(|_| jump) {
                    // Nothing after the jump runs; what it leaves to is outside the `try`.
                    self.in_try -= 1;
                    items.extend(self.leave(a, std::slice::from_ref(s)));
                    self.in_try += 1;
                    return items;
                }
                if let py::Stmt::If(x) = s {
                    if self.branches_in_try(s, after.is_some()) {
                        if self.calls_raising(&x.test)
                            || x.elif_else_clauses
                                .iter()
                                .flat_map(|c| &c.test)
                                .any(|t| self.calls_raising(t))
                        {
                            return self.refuse_nested(s_at, items);
                        }
                        // The code after the `if` moves into its branches, which stay in the
                        // `try`: a call, a `raise` or a jump there is caught or leaves as here.
                        let rest = &stmts[i + 1..];
                        let mut lower = |this: &mut Lower, all: &[py::Stmt]| {
                            this.try_body_items(all, handlers, orelse, after)
                        };
                        items.push(self.if_taking_rest(x, rest, always_jumps, &mut lower, s_at));
                        return items;
                    }
                }
                if stmt_calls_raising(self, s) {
                    return self.refuse_nested(s_at, items);
                }
                items.extend(self.stmt(s));
                continue;
            };
            let got = ident(&format!("caught{}", self.next_catch()), s_at);
            items.push(item(
                ItemKind::Bind(Pattern::Name(got.clone()), lowered),
                s_at,
            ));
            let got_expr = || Expr::new(ExprKind::Name(got.clone()), s_at);
            let checked = self.check(handlers, got_expr(), s_at);
            let catches_all = matches!(checked.kind, ExprKind::Name(_));
            items.push(item(
                ItemKind::Bind(Pattern::Name(got.clone()), checked),
                s_at,
            ));
            if !catches_all {
                // An exception no clause catches ends the output here, as it ends the script.
                items.push(stop_output(call("py_quiet", vec![got_expr()], s_at), s_at));
            }
            // The clauses and the `else` block are outside the `try` body.
            self.in_try -= 1;
            let raised = self.handlers(handlers, got_expr(), after, s_at);
            self.in_try += 1;
            let mut fine = Vec::new();
            match target {
                // `d[k] = f(x)`: the item set from the value, as outside a `try`.
                Bound::Py(Some(py::Expr::Subscript(t))) => {
                    fine.extend(self.set_item(t, got_expr(), s_at))
                }
                Bound::Py(Some(t)) => {
                    if let Some(p) = self.pattern(t) {
                        fine.push(item(ItemKind::Bind(p, got_expr()), s_at));
                    }
                }
                Bound::Py(None) => {}
                Bound::Pattern(p) => fine.push(item(ItemKind::Bind(p, got_expr()), s_at)),
            }
            match (s, after) {
                // `return f(x)` (only with `after`: `try_stmt` refuses a `return`).
                (py::Stmt::Return(_), Some(a)) => fine.extend(self.returned(a, got_expr(), s_at)),
                // A `raise` never goes on; the branch goes where the `try`'s end does.
                (py::Stmt::Raise(_), _) => {
                    fine.extend(self.try_body_items(&[], handlers, orelse, after))
                }
                _ => fine.extend(self.try_body_items(&stmts[i + 1..], handlers, orelse, after)),
            }
            let test = call("py_caught", vec![got_expr()], s_at);
            items.push(item(
                ItemKind::If(vec![(test, raised)], Some(Block { items: fine })),
                s_at,
            ));
            return items;
        }
        self.in_try -= 1;
        match after {
            Some(a) => items.extend(self.leave(a, orelse)),
            None => items.extend(self.block(orelse).items),
        }
        self.in_try += 1;
        items
    }

    /// Must an `if` in a `try` body take the code after it into its branches, lowered as
    /// the `try` body: does it hold a call or a library operation that may raise, a `raise`,
    /// or (`jumping`: the `try` leaves a loop or function) a `break`, `continue` or `return`?
    fn branches_in_try(&self, s: &py::Stmt, jumping: bool) -> bool {
        stmt_calls_raising(self, s)
            || super::stmt::holds(s, library_shaped)
            || super::stmt::raises(s)
            || (jumping && (jumps(s) || returns(s)))
    }

    /// `raise E(message)` in a `try` body: the exception as a catching call returns it, for
    /// the `except` clauses (`None`, refused, if `E` is not a class the script defines or a
    /// built-in one).
    fn raised(&mut self, r: &py::StmtRaise, at: Span) -> Option<Expr> {
        let (class, message) = match r.exc.as_deref()? {
            py::Expr::Call(c) if c.arguments.keywords.is_empty() && c.arguments.args.len() <= 1 => {
                (class_name(&c.func)?, c.arguments.args.first())
            }
            e => (class_name(e)?, None),
        };
        let Some(classes) = self.classes_of(&class) else {
            let todo = "raise a built-in exception class or one the script defines";
            self.refuse(at, &format!("`raise {class}` in a `try` body"), todo);
            // Refused once: an error in place of the exception, not the `raise` again.
            return Some(Expr::new(ExprKind::Error, at));
        };
        // `str(KeyError(k))` is `repr(k)`.
        let show = if classes.iter().any(|c| c == "KeyError") {
            "py_repr"
        } else {
            "py_str"
        };
        let message = match message {
            Some(m) => call(show, vec![self.expr(m)], at),
            None => super::expr::str_lit("", at),
        };
        let args = vec![
            super::expr::str_lit(&class, at),
            class_list(&classes, at),
            message,
        ];
        let tuple = Expr::new(ExprKind::Tuple(args), at);
        Some(call("py_exc_new", vec![tuple], at))
    }

    /// `class` and its bases up to `BaseException` (its MRO), if the script defines it or it is
    /// built in.
    fn classes_of(&self, class: &str) -> Option<Vec<String>> {
        let mut out = vec![class.to_string()];
        let mut at = class;
        while at != "BaseException" {
            let base = match self.classes.get(at) {
                Some(b) => b.as_str(),
                None => BUILT_IN.iter().find(|(c, _)| *c == at)?.1,
            };
            if out.iter().any(|c| c == base) || out.len() > 64 {
                return None;
            }
            out.push(base.to_string());
            at = base;
        }
        Some(out)
    }

    /// `return value` as a way out of a `try` that `after` says where it goes.
    fn returned(&mut self, after: &After, value: Expr, at: Span) -> Vec<Item> {
        match &after.how {
            Leaving::Loop(flag) => self.return_from_loop(value, flag.as_ref(), at),
            Leaving::Function => vec![item(
                ItemKind::Bind(Pattern::Name(ident(super::stmt::RESULT, at)), value),
                at,
            )],
        }
    }

    /// The call of a catch point as it would be lowered, its callee swapped for the
    /// external's catching twin `try.f`.
    fn catching_call(&mut self, p: &CatchPoint, at: Span) -> Expr {
        let twin = format!("try.{}", p.ext);
        self.catching.entry(twin.clone()).or_insert((p.order, at));
        // Only the twin is called here: a module function is declared only if called
        // outside a `try` too.
        let declared = self.modules.contains_key(&p.ext);
        let mut lowered = self.expr(p.value);
        if !declared {
            self.modules.remove(&p.ext);
        }
        if let ExprKind::App(f, _) = &mut lowered.kind {
            if let ExprKind::Name(n) = &mut f.kind {
                n.name = twin;
            }
        }
        lowered
    }

    /// `x = d[k]`, `x = int(s)`, `x = a / b` (or without `x =`) in a `try` body: the library
    /// operation through `py_try`, which returns the exception Python raises there (a
    /// `KeyError`, an `IndexError`, a `ValueError`, a `ZeroDivisionError`) instead of failing.
    fn library_catch<'a>(&mut self, s: &'a py::Stmt) -> Option<(Bound<'a>, Expr)> {
        if let Some((changed, arg)) = self.catchable_mutation(s) {
            let at = span(ruff_text_size::Ranged::range(s));
            let lowered = call(
                "py_try",
                vec![super::expr::str_lit("py_mutated", at), arg],
                at,
            );
            return Some((Bound::Pattern(changed), lowered));
        }
        let (target, value) = match s {
            // Bound to names, or an item (`d[k] = a / b`, set once the value is known).
            py::Stmt::Assign(a) if a.targets.len() == 1 && is_target(&a.targets[0]) => {
                (Some(&a.targets[0]), &*a.value)
            }
            py::Stmt::Expr(e) => (None, &*e.value),
            py::Stmt::Return(r) => (None, r.value.as_deref()?),
            _ => return None,
        };
        if self.calls_raising(value) {
            return None;
        }
        let at = span(ruff_text_size::Ranged::range(value));
        let pair = |l: &mut Self, a: &py::Expr, b: &py::Expr| {
            Expr::new(ExprKind::Tuple(vec![l.expr(a), l.expr(b)]), at)
        };
        let (name, arg) = match value {
            py::Expr::Subscript(x) if !matches!(&*x.slice, py::Expr::Slice(_)) => {
                ("index", pair(self, &x.value, &x.slice))
            }
            py::Expr::Call(c) if c.arguments.keywords.is_empty() && c.arguments.args.len() == 1 => {
                let name = match &*c.func {
                    py::Expr::Name(n) if n.id.as_str() == "int" => "py_int",
                    py::Expr::Name(n) if n.id.as_str() == "float" => "py_float",
                    _ => return None,
                };
                // A script's own `int` or `float` is its own.
                if self.sigs.contains_key(&name[3..])
                    || matches!(&c.arguments.args[0], py::Expr::Starred(_))
                {
                    return None;
                }
                (name, self.expr(&c.arguments.args[0]))
            }
            py::Expr::BinOp(b) => match b.op {
                py::Operator::Div => ("py_truediv", pair(self, &b.left, &b.right)),
                py::Operator::FloorDiv => ("py_floordiv", pair(self, &b.left, &b.right)),
                py::Operator::Mod => ("py_mod", pair(self, &b.left, &b.right)),
                _ => return None,
            },
            _ => return None,
        };
        let lowered = call("py_try", vec![super::expr::str_lit(name, at), arg], at);
        Some((Bound::Py(target), lowered))
    }

    /// The `except` clauses as a chain of `if`s on the exception's classes, the last clause
    /// the chain's `else` (so each branch binds what the others bind): `check` has already
    /// failed the run with an exception no clause catches.
    fn handlers(
        &mut self,
        handlers: &[Handler],
        got: Expr,
        after: Option<&After>,
        at: Span,
    ) -> Block {
        let mut arms = Vec::new();
        for (i, h) in handlers.iter().enumerate() {
            let mut body = Vec::new();
            // `e` is the exception: `str(e)` its message, `repr(e)` `ValueError('…')`.
            if let Some(n) = &h.name {
                body.push(item(
                    ItemKind::Bind(Pattern::Name(ident(n, at)), got.clone()),
                    at,
                ));
            }
            // A bare `raise` anywhere in the clause re-raises what it caught.
            let outer = self.reraise.replace(got.clone());
            match after {
                Some(a) => body.extend(self.leave(a, h.body)),
                None => body.extend(self.handler_body(h.body)),
            }
            self.reraise = outer;
            let block = Block { items: body };
            match &h.classes {
                Some(classes) if i + 1 < handlers.len() => {
                    let test = call(
                        "py_exc_matches",
                        vec![got.clone(), class_list(classes, at)],
                        at,
                    );
                    arms.push((test, block));
                }
                _ if arms.is_empty() => return block,
                _ => {
                    return Block {
                        items: vec![item(ItemKind::If(arms, Some(block)), at)],
                    }
                }
            }
        }
        Block::default()
    }

    /// `got` again, after failing the run if it is an exception no clause catches (the
    /// `finally` block does not run then: the run ends).
    fn check(&mut self, handlers: &[Handler], got: Expr, at: Span) -> Expr {
        let mut classes = Vec::new();
        for h in handlers {
            match &h.classes {
                None => return got,
                Some(c) => classes.extend(c.iter().cloned()),
            }
        }
        call("py_exc_check", vec![got, class_list(&classes, at)], at)
    }

    /// An `except` clause's body: nothing after a `raise` at its top level runs.
    fn handler_body(&mut self, body: &[py::Stmt]) -> Vec<Item> {
        let mut items = Vec::new();
        for s in body {
            items.extend(self.prebinding(s));
            items.extend(self.stmt(s));
            if matches!(s, py::Stmt::Raise(_)) {
                break;
            }
        }
        items
    }

    /// `raise E(message)` outside a `try` body: the run ends with the exception, as an
    /// uncaught one ends a Python script (`ValueError: message`). In a `try` body it is
    /// refused (the `except` clauses could not see it).
    pub(super) fn raise(&mut self, r: &py::StmtRaise, at: Span) -> Vec<Item> {
        if let (None, Some(got)) = (&r.exc, &self.reraise) {
            let raise = call("py_exc_raise", vec![got.clone()], at);
            return vec![stop_output(raise, at)];
        }
        if self.in_try > 0 {
            let todo = "raise inside an external function, or handle the case with an `if`";
            return self.refused_item(at, "`raise` inside a `try` body", todo);
        }
        let (class, message) = match r.exc.as_deref() {
            Some(py::Expr::Call(c)) if c.arguments.keywords.is_empty() => {
                match (class_name(&c.func), &c.arguments.args[..]) {
                    (Some(n), []) => (n, None),
                    (Some(n), [m]) => (n, Some(m)),
                    _ => return self.refused_item(at, "this `raise`", "raise `E(message)`"),
                }
            }
            Some(e) => match class_name(e) {
                Some(n) => (n, None),
                None => return self.refused_item(at, "this `raise`", "raise `E(message)`"),
            },
            None => {
                let todo = "a bare `raise` re-raises inside an `except` clause only";
                return self.refused_item(at, "a bare `raise` outside an `except` clause", todo);
            }
        };
        let head = Expr::new(ExprKind::Lit(Lit::Str(class.clone())), at);
        let text = match message {
            None => head,
            Some(m) => {
                let sep = Expr::new(ExprKind::Lit(Lit::Str(format!("{class}: "))), at);
                let m = call("py_str", vec![self.expr(m)], at);
                Expr::new(
                    ExprKind::Binary(crate::syntax::ast::BinOp::Add, Box::new(sep), Box::new(m)),
                    at,
                )
            }
        };
        vec![stop_output(call("error", vec![text], at), at)]
    }

    fn refuse_nested(&mut self, at: Span, items: Vec<Item>) -> Vec<Item> {
        self.refuse(
            at,
            "a call that may raise inside an expression, a loop or an `if` in a `try` body",
            "bind its result on a line of its own directly in the `try`: `x = f(…)`",
        );
        items
    }

    /// A number for the next caught result's name, `caughtN`, that the script does not use.
    fn next_catch(&mut self) -> usize {
        loop {
            self.catches += 1;
            if !self.names.contains(&format!("caught{}", self.catches)) {
                return self.catches;
            }
        }
    }

    /// The `extern` items that declare the catching twins the script called.
    pub(super) fn catching_externs(&mut self) -> Vec<Item> {
        let mut twins: Vec<(String, (Order, Span))> = self.catching.drain().collect();
        twins.sort_by(|a, b| a.0.cmp(&b.0));
        (twins.into_iter())
            .map(|(t, (o, at))| item(ItemKind::Extern(vec![ident(&t, at)], Some(o)), at))
            .collect()
    }
}

/// Does a compound statement (a loop, an `if`, a `with`) call an external that may raise?
/// Is `t` a name, a tuple or list of names (what `pattern` binds) or an item (`d[k]`, not a
/// slice)?
fn is_target(t: &py::Expr) -> bool {
    match t {
        py::Expr::Name(_) => true,
        py::Expr::Subscript(s) => !matches!(&*s.slice, py::Expr::Slice(_)),
        py::Expr::Tuple(x) => x.elts.iter().all(|e| matches!(e, py::Expr::Name(_))),
        py::Expr::List(x) => x.elts.iter().all(|e| matches!(e, py::Expr::Name(_))),
        _ => false,
    }
}

/// Is `s` a line `library_catch` would catch in a `try` body (`x = d[k]`, `int(s)`, `a / b`)?
fn library_shaped(s: &py::Stmt) -> bool {
    let value = match s {
        py::Stmt::Delete(_) => return true,
        py::Stmt::Expr(e) if super::mutation::is_mutation(&e.value) => return true,
        py::Stmt::Assign(a) if super::mutation::is_mutation(&a.value) => return true,
        py::Stmt::Assign(a) if a.targets.len() == 1 => &*a.value,
        py::Stmt::Expr(e) => &*e.value,
        py::Stmt::Return(r) => match r.value.as_deref() {
            Some(v) => v,
            None => return false,
        },
        _ => return false,
    };
    match value {
        py::Expr::Subscript(x) => !matches!(&*x.slice, py::Expr::Slice(_)),
        py::Expr::Call(c) => {
            matches!(&*c.func, py::Expr::Name(n) if matches!(n.id.as_str(), "int" | "float"))
        }
        py::Expr::BinOp(b) => matches!(
            b.op,
            py::Operator::Div | py::Operator::FloorDiv | py::Operator::Mod
        ),
        _ => false,
    }
}

fn stmt_calls_raising(lower: &Lower, s: &py::Stmt) -> bool {
    use ruff_python_ast::visitor::walk_stmt;
    struct Find<'l> {
        lower: &'l Lower,
        found: bool,
    }
    impl<'a> Visitor<'a> for Find<'_> {
        fn visit_stmt(&mut self, s: &'a py::Stmt) {
            if !matches!(s, py::Stmt::FunctionDef(_)) {
                walk_stmt(self, s);
            }
        }
        fn visit_expr(&mut self, e: &'a py::Expr) {
            self.found |= self.lower.calls_raising(e);
        }
    }
    let mut f = Find {
        lower,
        found: false,
    };
    f.visit_stmt(s);
    f.found
}

/// `print_raw (failing)`: prints nothing when `failing` has a value (`py_quiet`), and when
/// it fails (a `raise`) nothing printed after it in the script's order comes out, since the
/// output's order waits for this write for ever, as a Python script's output stops where it
/// raised. Other statements may still run; what they would print does not appear.
fn stop_output(failing: Expr, at: Span) -> Item {
    item(ItemKind::Expr(call("print_raw", vec![failing], at)), at)
}

fn class_list(classes: &[String], at: Span) -> Expr {
    let names = (classes.iter())
        .map(|c| Expr::new(ExprKind::Lit(Lit::Str(c.clone())), at))
        .collect();
    Expr::new(ExprKind::List(names), at)
}

/// The class an `except` names: `ValueError`, or the last part of `json.JSONDecodeError`.
fn class_name(e: &py::Expr) -> Option<String> {
    match e {
        py::Expr::Name(n) => Some(n.id.to_string()),
        py::Expr::Attribute(a) => Some(a.attr.to_string()),
        _ => None,
    }
}
