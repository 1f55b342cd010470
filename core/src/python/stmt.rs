//! Python statements lowered to OPAL items. A function's `return` may stand anywhere in its
//! tail: `if c: return a` followed by more code becomes an `if` whose branches each end by
//! binding the result (the code after the `if` moves into the branches that fall through),
//! and the function returns that binding.

use super::exceptions::{After, Leaving};
use super::expr::{call, ident};
use super::{span, Lower};
use crate::span::Span;
use crate::syntax::ast::{
    AugOp, Block, Expr, ExprKind, FunBody, Ident, Item, ItemKind, Order, Pattern,
};
use ruff_python_ast as py;

/// The variable a function's branches bind its result to before it returns it: `return`, a
/// keyword, so no Python variable can be named so; the debugger shows `return#1`.
pub(super) const RESULT: &str = "return";

/// Statements a script's jumps may copy into branches (`Lower::copy_rest`): far beyond any
/// script written by hand, reached in a fraction of a second.
const COPY_BUDGET: usize = 50_000;

/// How the tail of a block ends: the module's last statement, a function's `ret`, or a
/// branch binding the function's result.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Tail {
    Module,
    Ret,
    Bind,
}

pub(super) fn item(kind: ItemKind, at: Span) -> Item {
    Item { kind, span: at }
}

/// Does `s` contain a `return` (not inside a nested function)?
pub(super) fn returns(s: &py::Stmt) -> bool {
    match s {
        py::Stmt::Return(_) => true,
        py::Stmt::If(i) => {
            i.body.iter().any(returns)
                || i.elif_else_clauses
                    .iter()
                    .any(|c| c.body.iter().any(returns))
        }
        py::Stmt::For(f) => f.body.iter().any(returns) || f.orelse.iter().any(returns),
        py::Stmt::While(w) => w.body.iter().any(returns) || w.orelse.iter().any(returns),
        py::Stmt::With(w) => w.body.iter().any(returns),
        py::Stmt::Try(t) => {
            t.body.iter().any(returns)
                || t.orelse.iter().any(returns)
                || t.finalbody.iter().any(returns)
                || t.handlers.iter().any(|h| match h {
                    py::ExceptHandler::ExceptHandler(h) => h.body.iter().any(returns),
                })
        }
        _ => false,
    }
}

/// Does a block always end in `return` (so code after it never runs)?
fn always_returns(stmts: &[py::Stmt]) -> bool {
    match stmts.last() {
        Some(py::Stmt::Return(_)) => true,
        Some(py::Stmt::If(i)) => {
            let has_else = i.elif_else_clauses.last().is_some_and(|c| c.test.is_none());
            has_else
                && always_returns(&i.body)
                && i.elif_else_clauses.iter().all(|c| always_returns(&c.body))
        }
        _ => false,
    }
}

impl Lower {
    /// The module's statements.
    pub(super) fn block(&mut self, stmts: &[py::Stmt]) -> Block {
        Block {
            items: self.tail(stmts, Tail::Module),
        }
    }

    /// A block whose end is `tail`: returns become `ret` (or the result's binding).
    pub(super) fn tail(&mut self, stmts: &[py::Stmt], tail: Tail) -> Vec<Item> {
        let mut items = Vec::new();
        for (i, s) in stmts.iter().enumerate() {
            let at = span(ruff_text_size::Ranged::range(s));
            items.extend(self.prebinding(s));
            match s {
                py::Stmt::Return(r) if tail != Tail::Module => {
                    let value = self.returned_value(r, &mut items);
                    items.push(self.result(value, tail, at));
                    // Code after a `return` never runs.
                    return items;
                }
                py::Stmt::If(x) if tail != Tail::Module && returns(s) => {
                    items.extend(self.returning_if(x, &stmts[i + 1..], tail, at));
                    return items;
                }
                py::Stmt::For(_) | py::Stmt::While(_) if tail != Tail::Module && returns(s) => {
                    items.extend(self.returning_loop(s, &stmts[i + 1..], tail, at));
                    return items;
                }
                // `try: return f(x)` `except E: return y`: each way out of the `try` binds
                // the result or goes on with the code after it.
                py::Stmt::Try(t) if tail != Tail::Module && returns(s) => {
                    let after = After {
                        rest: &stmts[i + 1..],
                        how: Leaving::Function,
                    };
                    items.extend(self.try_leaving(t, &after, at));
                    let result = Expr::new(ExprKind::Name(ident(RESULT, at)), at);
                    items.push(self.result(result, tail, at));
                    return items;
                }
                _ => items.extend(self.stmt(s)),
            }
        }
        if tail != Tail::Module {
            // Falling off the end of a function returns None.
            let at = stmts
                .last()
                .map_or(Span::new(0, 0), |s| span(ruff_text_size::Ranged::range(s)));
            items.push(self.result(Expr::new(ExprKind::Unit, at), tail, at));
        }
        items
    }

    fn result(&mut self, value: Expr, tail: Tail, at: Span) -> Item {
        match tail {
            Tail::Bind => item(ItemKind::Bind(Pattern::Name(ident(RESULT, at)), value), at),
            _ => item(ItemKind::Ret(value), at),
        }
    }

    /// `if` with a `return` in a branch, followed by `rest`: each branch gets `rest` unless
    /// it always returns, binds the result, and the function returns it.
    fn returning_if(
        &mut self,
        x: &py::StmtIf,
        rest: &[py::Stmt],
        tail: Tail,
        at: Span,
    ) -> Vec<Item> {
        let mut lower = |this: &mut Lower, stmts: &[py::Stmt]| this.tail(stmts, Tail::Bind);
        let the_if = self.if_taking_rest(x, rest, always_returns, &mut lower, at);
        let result = Expr::new(ExprKind::Name(ident(RESULT, at)), at);
        vec![the_if, self.result(result, tail, at)]
    }

    /// An `if` followed by `rest`: each branch (an absent `else` too) gets `rest` after its
    /// own statements unless it always `ends` (returns, or jumps out of the loop), and is
    /// lowered by `lower`. How code after an `if` that returns, breaks or continues moves
    /// into the branches that fall through.
    pub(super) fn if_taking_rest(
        &mut self,
        x: &py::StmtIf,
        rest: &[py::Stmt],
        ends: fn(&[py::Stmt]) -> bool,
        lower: &mut dyn FnMut(&mut Lower, &[py::Stmt]) -> Vec<Item>,
        at: Span,
    ) -> Item {
        let mut branch = |this: &mut Lower, body: &[py::Stmt]| -> Block {
            let mut stmts: Vec<py::Stmt> = body.to_vec();
            if !ends(body) {
                if !this.copy_rest(rest, at) {
                    return Block::default();
                }
                stmts.extend(rest.iter().cloned());
            }
            Block {
                items: lower(this, &stmts),
            }
        };
        let mut arms = vec![(self.cond(&x.test), branch(self, &x.body))];
        let mut otherwise = None;
        for c in &x.elif_else_clauses {
            match &c.test {
                Some(t) => {
                    let cond = self.cond(t);
                    arms.push((cond, branch(self, &c.body)));
                }
                None => otherwise = Some(branch(self, &c.body)),
            }
        }
        let otherwise = otherwise.unwrap_or_else(|| branch(self, &[]));
        item(ItemKind::If(arms, Some(otherwise)), at)
    }

    /// A loop with a `return` in its body, followed by `rest`: the result is bound before
    /// the loop; a `return` binds it, sets a flag and breaks; after the loop the function
    /// returns the result if the flag is set, else goes on with `rest`.
    fn returning_loop(
        &mut self,
        s: &py::Stmt,
        rest: &[py::Stmt],
        tail: Tail,
        at: Span,
    ) -> Vec<Item> {
        let flag = ident(&self.break_flag(), at);
        let none = Expr::new(ExprKind::Unit, at);
        let no = Expr::new(ExprKind::Name(ident("false", at)), at);
        let mut items = vec![
            item(ItemKind::Bind(Pattern::Name(ident(RESULT, at)), none), at),
            item(ItemKind::Bind(Pattern::Name(flag.clone()), no), at),
        ];
        let outer = self.returning.replace(flag.clone());
        items.extend(self.stmt(s));
        self.returning = outer;
        let after = Block {
            items: self.tail(rest, Tail::Bind),
        };
        let kept = Block { items: vec![] };
        items.push(item(
            ItemKind::If(vec![(name_expr(&flag), kept)], Some(after)),
            at,
        ));
        let result = Expr::new(ExprKind::Name(ident(RESULT, at)), at);
        items.push(self.result(result, tail, at));
        items
    }

    /// Counts `rest`, about to be lowered once more inside a branch, against the script's
    /// budget of such copies: `false` (refused once, at `at`) past it. Each `if` that jumps
    /// in only some paths of a branch copies the code after it into both ways, so a loop
    /// body of many of them grows exponentially; refused beyond the budget, it is an error at
    /// its line rather than a lowering that does not end.
    pub(super) fn copy_rest(&mut self, rest: &[py::Stmt], at: Span) -> bool {
        self.copied += rest.len();
        if self.copied <= COPY_BUDGET {
            return true;
        }
        if !std::mem::replace(&mut self.over_budget, true) {
            self.refuse(
                at,
                "this many `if`s or `try`s that `break`, `continue` or `return` in one block",
                "set a variable where the code jumps, and test it once after them",
            );
        }
        false
    }

    /// The loop (after its `break` flag), then its `else:` block, which runs when the loop
    /// did not break.
    fn with_else(
        &mut self,
        flag: Option<Ident>,
        the_loop: Item,
        orelse: &[py::Stmt],
        at: Span,
    ) -> Vec<Item> {
        if orelse.iter().any(|s| returns(s) || leaves(s)) {
            let todo = "set a variable in the loop and test it after the loop";
            return self.refused_item(
                at,
                "`return`, `break` or `continue` in a loop's `else`",
                todo,
            );
        }
        let broken = flag.clone();
        let mut items = with_flag(flag, the_loop, at);
        let otherwise = self.block(orelse).items;
        match broken {
            _ if otherwise.is_empty() => {}
            None => items.extend(otherwise),
            Some(f) => {
                let not_broken = Expr::new(ExprKind::Not(Box::new(name_expr(&f))), at);
                let block = Block { items: otherwise };
                items.push(item(ItemKind::If(vec![(not_broken, block)], None), at));
            }
        }
        items
    }

    /// A statement that is not a `return`.
    pub(super) fn stmt(&mut self, s: &py::Stmt) -> Vec<Item> {
        if let Some(items) = self.hoisted(s) {
            return items;
        }
        let at = span(ruff_text_size::Ranged::range(s));
        let kind = match s {
            py::Stmt::Expr(e) => match &*e.value {
                py::Expr::Call(c) if matches!(&*c.func, py::Expr::Name(n) if n.id.as_str() == "print") => {
                    ItemKind::Expr(self.print(c, at))
                }
                py::Expr::Call(c) if is_append(c) => return self.append(c, at),
                call if super::mutation::is_mutation(call) => return self.mutation(call, None, at),
                // A docstring or a bare literal does nothing.
                py::Expr::StringLiteral(_)
                | py::Expr::NumberLiteral(_)
                | py::Expr::EllipsisLiteral(_) => return vec![],
                other => ItemKind::Expr(self.expr(other)),
            },
            // A constant only external functions read lives on their side.
            py::Stmt::Assign(a) if a.targets.iter().all(|t| self.for_worker(t)) => return vec![],
            py::Stmt::Assign(a) => return self.assign(&a.targets, &a.value, at),
            py::Stmt::AnnAssign(a) => match &a.value {
                Some(v) => return self.assign(std::slice::from_ref(&*a.target), v, at),
                None => return vec![],
            },
            py::Stmt::AugAssign(a) => return self.aug_assign(a, at),
            py::Stmt::FunctionDef(f) => return self.function(f, at),
            py::Stmt::If(x) => {
                let mut arms = vec![(self.cond(&x.test), self.block(&x.body))];
                let mut otherwise = None;
                for c in &x.elif_else_clauses {
                    let body = self.block(&c.body);
                    match &c.test {
                        Some(t) => arms.push((self.cond(t), body)),
                        None => otherwise = Some(body),
                    }
                }
                ItemKind::If(arms, otherwise)
            }
            py::Stmt::For(f) => {
                if f.is_async {
                    return self.refused_item(at, "`async for`", "write a plain `for` loop");
                }
                let Some(target) = self.pattern(&f.target) else {
                    return vec![];
                };
                let walked = match &*f.iter {
                    py::Expr::Name(n) => Some(n.id.to_string()),
                    _ => None,
                };
                self.view_ok = true;
                let iter = self.iterated(&f.iter);
                self.view_ok = false;
                self.walking.extend(walked.clone());
                let carried = self.carried_targets(f);
                let target = super::prebind::rename(target, &carried);
                let at_target = ruff_text_size::Ranged::range(&*f.target);
                let (body, flag) = if carried.is_empty() {
                    self.loop_body(&f.body)
                } else {
                    let assigns = (carried.iter())
                        .map(|(n, fresh)| super::prebind::assign_from(n, fresh, at_target));
                    let stmts: Vec<py::Stmt> = assigns.chain(f.body.iter().cloned()).collect();
                    self.loop_body(&stmts)
                };
                if walked.is_some() {
                    self.walking.pop();
                }
                let the_loop = item(ItemKind::For(target, iter, body), at);
                return self.with_else(flag, the_loop, &f.orelse, at);
            }
            py::Stmt::While(w) => {
                let (body, flag) = self.loop_body(&w.body);
                let mut test = self.cond(&w.test);
                if let Some(f) = &flag {
                    let not_broken = Expr::new(ExprKind::Not(Box::new(name_expr(f))), at);
                    test = Expr::new(
                        ExprKind::Binary(
                            crate::syntax::ast::BinOp::And,
                            Box::new(not_broken),
                            Box::new(test),
                        ),
                        at,
                    );
                }
                return self.with_else(flag, item(ItemKind::While(test, body), at), &w.orelse, at);
            }
            py::Stmt::Assert(a) => {
                // `assert c, msg` fails the program with msg when c is false.
                let msg = match &a.msg {
                    Some(m) => call("py_str", vec![self.expr(m)], at),
                    None => Expr::new(
                        ExprKind::Lit(crate::syntax::ast::Lit::Str("AssertionError".into())),
                        at,
                    ),
                };
                let cond = Expr::new(ExprKind::Not(Box::new(self.cond(&a.test))), at);
                let fail = item(ItemKind::Expr(call("error", vec![msg], at)), at);
                ItemKind::If(vec![(cond, Block { items: vec![fail] })], None)
            }
            py::Stmt::Pass(_) => return vec![],
            py::Stmt::Delete(d) => return self.delete(d, at),
            // Imports serve external functions; `from opal import unordered` gives the
            // decorators. What internal code uses of a module is refused where it is used.
            py::Stmt::Import(_) | py::Stmt::ImportFrom(_) => return vec![],
            py::Stmt::Try(t) => return self.try_stmt(t, at),
            py::Stmt::Raise(r) => return self.raise(r, at),
            // A class only external functions use (a client, an exception they raise) is
            // theirs: it loads in the CPython worker. One internal code uses is refused below.
            py::Stmt::ClassDef(c) if self.worker_only.contains(c.name.as_str()) => return vec![],
            // The rest is outside the fragment: refused, saying what to do.
            other => {
                let (what, todo) = outside_fragment(other);
                return self.refused_item(at, what, todo);
            }
        };
        vec![item(kind, at)]
    }

    /// `xs.append(v)` and `xs.extend(vs)` as statements: `xs += [v]`, `xs += vs`, when no other
    /// holder can see the difference (`alias`); refused otherwise, saying where `xs` is shared.
    fn append(&mut self, c: &py::ExprCall, at: Span) -> Vec<Item> {
        let py::Expr::Attribute(a) = &*c.func else {
            return vec![];
        };
        let method = a.attr.as_str();
        let py::Expr::Name(n) = &*a.value else {
            return self.refused_item(
                at,
                &format!("`.{method}(…)` on this expression"),
                "append to a list bound to a name",
            );
        };
        let name = n.id.to_string();
        if let Some(why) = self.sharing(&name) {
            let what = format!("`{name}.{method}(…)` where `{name}` {why}");
            let todo = format!("build a new list instead: `{name} = {name} + [v]` (every holder then sees its own list)");
            return self.refused_item(at, &what, &todo);
        }
        let [arg] = &*c.arguments.args else {
            return self.refused_item(
                at,
                &format!("`{method}` without exactly one argument"),
                "pass one argument",
            );
        };
        let value = self.expr(arg);
        let added = if method == "append" {
            Expr::new(ExprKind::List(vec![value]), at)
        } else {
            value
        };
        let target = ident(&name, span(n.range));
        vec![item(ItemKind::Aug(target, AugOp::Add, added), at)]
    }

    pub(super) fn refused_item(&mut self, at: Span, what: &str, todo: &str) -> Vec<Item> {
        self.refuse(at, what, todo);
        vec![]
    }

    /// A loop's body. `break` and `continue` become a flag and branches: the code after a
    /// `continue` runs only in the branches that do not continue; after a `break` the flag is
    /// set, and the rest of the iterations (and a `while`'s condition) see it. The flag, if
    /// the body breaks, is returned to be bound before the loop.
    fn loop_body(&mut self, stmts: &[py::Stmt]) -> (Block, Option<Ident>) {
        // A `return` in this loop's body (in a function, `returning_loop`) jumps as `break`
        // does, also from a loop nested in it (`jump_tail`); outside a function it is refused.
        if self.returning.is_none() {
            if let Some(r) = stmts.iter().find(|s| returns(s)) {
                let at = span(ruff_text_size::Ranged::range(r));
                self.refuse(
                    at,
                    "`return` inside a loop here",
                    "keep the result in a variable, `break`, and return it after the loop",
                );
            }
        }
        if !stmts.iter().any(jumps) {
            return (self.block(stmts), None);
        }
        let at = stmts
            .first()
            .map_or(Span::new(0, 0), |s| span(ruff_text_size::Ranged::range(s)));
        let flag = stmts
            .iter()
            .any(breaks)
            .then(|| ident(&self.break_flag(), at));
        let items = self.jump_tail(stmts, flag.as_ref());
        let Some(flag) = flag else {
            return (Block { items }, None);
        };
        let not_broken = Expr::new(ExprKind::Not(Box::new(name_expr(&flag))), at);
        let body = item(ItemKind::If(vec![(not_broken, Block { items })], None), at);
        (Block { items: vec![body] }, Some(flag))
    }

    /// A flag name no Python variable can have (`break` is a keyword; nested loops that
    /// break get `break2`, … unless the script uses that name).
    fn break_flag(&mut self) -> String {
        self.flags += 1;
        let mut n = self.flags;
        loop {
            let name = if n == 1 {
                "break".to_string()
            } else {
                format!("break{n}")
            };
            if !self.names.contains(&name) {
                return name;
            }
            n += 1;
        }
    }

    /// Statements up to a `break` (which sets `flag`) or a `continue`; an `if` that jumps in
    /// a branch takes the statements after it into the branches that fall through.
    pub(super) fn jump_tail(&mut self, stmts: &[py::Stmt], flag: Option<&Ident>) -> Vec<Item> {
        let mut items = Vec::new();
        for (i, s) in stmts.iter().enumerate() {
            let at = span(ruff_text_size::Ranged::range(s));
            items.extend(self.prebinding(s));
            match s {
                py::Stmt::Break(_) => {
                    if let Some(f) = flag {
                        let yes = Expr::new(ExprKind::Name(ident("true", at)), at);
                        items.push(item(ItemKind::Bind(Pattern::Name(f.clone()), yes), at));
                    }
                    return items;
                }
                py::Stmt::Continue(_) => return items,
                py::Stmt::Return(r) => {
                    let value = self.returned_value(r, &mut items);
                    items.extend(self.return_from_loop(value, flag, at));
                    return items;
                }
                // A nested loop that may `return`: once it has, this loop is left too
                // (its `break` flag set), else the code after it runs.
                py::Stmt::For(_) | py::Stmt::While(_) if returns(s) => {
                    items.extend(self.stmt(s));
                    let Some(returned) = self.returning.clone() else {
                        return items;
                    };
                    let mut leave = Vec::new();
                    if let Some(f) = flag {
                        let yes = Expr::new(ExprKind::Name(ident("true", at)), at);
                        leave.push(item(ItemKind::Bind(Pattern::Name(f.clone()), yes), at));
                    }
                    let rest = self.jump_tail(&stmts[i + 1..], flag);
                    let arms = vec![(name_expr(&returned), Block { items: leave })];
                    items.push(item(ItemKind::If(arms, Some(Block { items: rest })), at));
                    return items;
                }
                // Nothing after a `raise` runs, nor do the loop's later iterations.
                py::Stmt::Raise(r) => {
                    items.extend(self.raise(r, at));
                    if let Some(f) = flag {
                        let yes = Expr::new(ExprKind::Name(ident("true", at)), at);
                        items.push(item(ItemKind::Bind(Pattern::Name(f.clone()), yes), at));
                    }
                    return items;
                }
                // A `try` whose clauses only `raise` needs no way out (`try_stmt` lowers it).
                py::Stmt::Try(t) if leaves(s) => {
                    let after = After {
                        rest: &stmts[i + 1..],
                        how: Leaving::Loop(flag.cloned()),
                    };
                    items.extend(self.try_leaving(t, &after, at));
                    return items;
                }
                py::Stmt::If(x) if jumps(s) => {
                    let mut lower = |this: &mut Lower, all: &[py::Stmt]| this.jump_tail(all, flag);
                    let rest = &stmts[i + 1..];
                    items.push(self.if_taking_rest(x, rest, always_jumps, &mut lower, at));
                    return items;
                }
                _ => items.extend(self.stmt(s)),
            }
        }
        items
    }

    /// `return value` inside a loop: the result bound, the function's returning flag and
    /// the loop's `break` flag set.
    pub(super) fn return_from_loop(
        &mut self,
        value: Expr,
        flag: Option<&Ident>,
        at: Span,
    ) -> Vec<Item> {
        let yes = || Expr::new(ExprKind::Name(ident("true", at)), at);
        let mut items = vec![item(
            ItemKind::Bind(Pattern::Name(ident(RESULT, at)), value),
            at,
        )];
        if let Some(rf) = self.returning.clone() {
            items.push(item(ItemKind::Bind(Pattern::Name(rf), yes()), at));
        }
        if let Some(f) = flag {
            items.push(item(ItemKind::Bind(Pattern::Name(f.clone()), yes()), at));
        }
        items
    }

    /// An assignment target: a name, or a tuple or list of targets.
    pub(super) fn pattern(&mut self, e: &py::Expr) -> Option<Pattern> {
        let at = span(ruff_text_size::Ranged::range(e));
        match e {
            py::Expr::Name(n) => Some(Pattern::Name(ident(n.id.as_str(), at))),
            py::Expr::Tuple(py::ExprTuple { elts, .. })
            | py::Expr::List(py::ExprList { elts, .. }) => {
                let ps: Option<Vec<Pattern>> = elts.iter().map(|x| self.pattern(x)).collect();
                Some(Pattern::Tuple(ps?, at))
            }
            py::Expr::Subscript(_) => {
                self.refuse(
                    at,
                    "assigning to an item",
                    "item assignment is not built yet; build a new list or dictionary",
                );
                None
            }
            _ => {
                self.refuse(
                    at,
                    "assigning to this target",
                    "assign to a name or a tuple of names",
                );
                None
            }
        }
    }

    fn assign(&mut self, targets: &[py::Expr], value: &py::Expr, at: Span) -> Vec<Item> {
        if let [t] = targets {
            if super::mutation::is_mutation(value) {
                return self.mutation(value, Some(t), at);
            }
        }
        if let [py::Expr::Subscript(t)] = targets {
            let v = self.expr(value);
            return self.set_item(t, v, at);
        }
        let value = self.expr(value);
        let mut items = Vec::new();
        // `a = b = v` binds the first, then each other from it.
        let mut from: Option<Expr> = None;
        for t in targets {
            let Some(p) = self.pattern(t) else {
                continue;
            };
            let v = from.clone().unwrap_or_else(|| value.clone());
            if from.is_none() {
                if let Pattern::Name(n) = &p {
                    from = Some(Expr::new(ExprKind::Name(n.clone()), n.span));
                }
            }
            items.push(item(ItemKind::Bind(p, v), at));
        }
        items
    }

    /// `d[k] = v` (and `xs[i] = v`): `d` bound to a new dictionary (list) with the item set,
    /// when nothing else holds `d` (`alias`); refused otherwise, as `append` is.
    pub(super) fn set_item(&mut self, t: &py::ExprSubscript, v: Expr, at: Span) -> Vec<Item> {
        let py::Expr::Name(n) = &*t.value else {
            let todo = "set items of a dictionary or list bound to a name";
            return self.refused_item(at, "assigning to an item of this expression", todo);
        };
        let name = n.id.to_string();
        if let Some(why) = self.sharing(&name) {
            let todo = format!("build a new value instead: `{name} = {{**{name}, k: v}}` is not built either, so use a `for` loop that builds it");
            return self.refused_item(
                at,
                &format!("assigning to an item of `{name}`, which {why}"),
                &todo,
            );
        }
        if matches!(&*t.slice, py::Expr::Slice(_)) {
            return self.refused_item(
                at,
                "assigning to a slice",
                "build the new list from slices: `xs = xs[:i] + ys + xs[j:]`",
            );
        }
        let key = self.expr(&t.slice);
        let d = Expr::new(ExprKind::Name(ident(&name, span(n.range))), at);
        let new = call("py_setitem", vec![d, key, v], at);
        let target = Pattern::Name(ident(&name, span(n.range)));
        vec![item(ItemKind::Bind(target, new), at)]
    }

    /// Is `target` a name only external functions read (`Lower::worker_only`)?
    fn for_worker(&self, target: &py::Expr) -> bool {
        matches!(target, py::Expr::Name(n) if self.worker_only.contains(n.id.as_str()))
    }

    /// Why appending to or setting an item of `name` would be seen by another holder, if it
    /// would.
    pub(super) fn sharing(&self, name: &str) -> Option<String> {
        if let Some(&shared) = self.shared.get(name) {
            return Some(match &self.lines {
                Some(l) => format!(
                    "is shared with another holder on line {}",
                    l.line_of(shared.start) + 1
                ),
                None => "is shared with another holder".into(),
            });
        }
        if self.walking.iter().any(|w| w == name) {
            return Some(
                "is walked by a `for` loop (collect the changes, apply them after the loop)".into(),
            );
        }
        None
    }

    /// Does `name op= value` change a collection in place in Python (a list's `+=`, a set's
    /// `|=`, `&=`, `^=`, `-=`, a dictionary's `|=`), as far as the script shows the type? The
    /// front end rebinds the name instead, which another holder of the object would see.
    fn in_place(&self, name: &str, a: &py::StmtAugAssign) -> bool {
        let builds = |e: &py::Expr, call: &str| match e {
            py::Expr::Call(c) => matches!(&*c.func, py::Expr::Name(f) if f.id.as_str() == call),
            _ => false,
        };
        let v = &*a.value;
        let list = matches!(v, py::Expr::List(_) | py::Expr::ListComp(_)) || builds(v, "list");
        let set = self.sets.contains(name)
            || matches!(v, py::Expr::Set(_) | py::Expr::SetComp(_))
            || builds(v, "set");
        let dict = self.dicts.contains(name) || matches!(v, py::Expr::Dict(_)) || builds(v, "dict");
        match a.op {
            py::Operator::Add | py::Operator::Mult => list,
            py::Operator::Sub | py::Operator::BitAnd | py::Operator::BitXor => set,
            py::Operator::BitOr => set || dict,
            _ => false,
        }
    }

    fn aug_assign(&mut self, a: &py::StmtAugAssign, at: Span) -> Vec<Item> {
        if let py::Expr::Subscript(t) = &*a.target {
            // `d[k] += v` is `d[k] = d[k] + v`.
            let current = self.expr(&a.target);
            let value = self.expr(&a.value);
            let new = match a.op {
                py::Operator::Add => Expr::new(
                    ExprKind::Binary(
                        crate::syntax::ast::BinOp::Add,
                        Box::new(current),
                        Box::new(value),
                    ),
                    at,
                ),
                py::Operator::Sub => Expr::new(
                    ExprKind::Binary(
                        crate::syntax::ast::BinOp::Sub,
                        Box::new(current),
                        Box::new(value),
                    ),
                    at,
                ),
                py::Operator::Mult => call("py_mul", vec![current, value], at),
                _ => {
                    return self.refused_item(
                        at,
                        "this augmented assignment to an item",
                        "write `d[k] = d[k] op v`",
                    )
                }
            };
            return self.set_item(t, new, at);
        }
        let py::Expr::Name(n) = &*a.target else {
            return self.refused_item(
                at,
                "augmented assignment to an item",
                "assign the new value to a name",
            );
        };
        let shared = if self.in_place(n.id.as_str(), a) {
            self.sharing(&n.id)
        } else {
            None
        };
        if let Some(why) = shared {
            let op = a.op.as_str();
            let what = format!(
                "`{} {op}= …` on a collection that {why}, which Python changes in place",
                n.id
            );
            let todo = format!("write `{0} = {0} {op} …` to make a new one", n.id);
            return self.refused_item(at, &what, &todo);
        }
        let name = ident(n.id.as_str(), span(n.range));
        let value = self.expr(&a.value);
        let kind = match a.op {
            py::Operator::Add => ItemKind::Aug(name, AugOp::Add, value),
            py::Operator::Sub => ItemKind::Aug(name, AugOp::Sub, value),
            op => {
                let current = Expr::new(ExprKind::Name(name.clone()), name.span);
                let new = match op {
                    py::Operator::Mult => call("py_mul", vec![current, value], at),
                    py::Operator::Div => call("py_truediv", vec![current, value], at),
                    py::Operator::FloorDiv => call("py_floordiv", vec![current, value], at),
                    py::Operator::Mod => call("py_mod", vec![current, value], at),
                    py::Operator::Pow => call("py_pow", vec![current, value], at),
                    py::Operator::BitOr => call("py_bitor", vec![current, value], at),
                    py::Operator::BitAnd => call("py_bitand", vec![current, value], at),
                    py::Operator::BitXor => call("py_bitxor", vec![current, value], at),
                    _ => {
                        return self.refused_item(
                            at,
                            "this operator",
                            "compute bit operations in an external function",
                        )
                    }
                };
                ItemKind::Bind(Pattern::Name(name), new)
            }
        };
        vec![item(kind, at)]
    }

    /// `def`: a function (recursive ones through `rec`), or with `@unordered`, `@readonly` or
    /// `@sequential` an external.
    fn function(&mut self, f: &py::StmtFunctionDef, at: Span) -> Vec<Item> {
        let name = ident(f.name.as_str(), span(f.name.range));
        if let Some(d) = f.decorator_list.first() {
            let deco = match &d.expression {
                py::Expr::Name(n) => n.id.as_str(),
                py::Expr::Attribute(a) => a.attr.as_str(),
                _ => "",
            };
            let Some(order) = Order::parse(deco) else {
                return self.refused_item(span(d.range), "this decorator", "decorate external functions with `@unordered`, `@readonly` or `@sequential` from `opal`");
            };
            return vec![item(ItemKind::Extern(vec![name], Some(order)), at)];
        }
        if f.is_async {
            return self.refused_item(
                at,
                "`async def` without an ordering decorator",
                "decorate it `@unordered` (or `@readonly`, `@sequential`): it is an external",
            );
        }
        let params = self.params(&f.parameters, at);
        let body = Block {
            items: self.tail(&f.body, Tail::Ret),
        };
        let fun = Expr::new(ExprKind::Fun(params, FunBody::Block(body)), at);
        let recursive = f.body.iter().any(|s| mentions(s, f.name.as_str()));
        let kind = if recursive {
            ItemKind::Rec(name, fun)
        } else {
            ItemKind::Bind(Pattern::Name(name), fun)
        };
        vec![item(kind, at)]
    }
}

/// Does statement `s` mention the name `n` (a recursive function calls itself)?
fn mentions(s: &py::Stmt, n: &str) -> bool {
    use ruff_python_ast::visitor::{walk_expr, Visitor};
    struct Finder<'a> {
        name: &'a str,
        found: bool,
    }
    impl<'a> Visitor<'a> for Finder<'_> {
        fn visit_expr(&mut self, e: &'a py::Expr) {
            if let py::Expr::Name(x) = e {
                self.found |= x.id.as_str() == self.name;
            }
            walk_expr(self, e);
        }
    }
    let mut f = Finder {
        name: n,
        found: false,
    };
    f.visit_stmt(s);
    f.found
}

/// Is `c` a call `name.append(x)` or `name.extend(x)`?
fn is_append(c: &py::ExprCall) -> bool {
    matches!(&*c.func, py::Expr::Attribute(a) if matches!(a.attr.as_str(), "append" | "extend"))
        && c.arguments.keywords.is_empty()
}

/// Does `s` hold a statement `leaf` picks at its own level: itself, or inside an `if`'s
/// branches or a `try`'s body, clauses and blocks (not inside a nested loop or function)?
pub(super) fn holds(s: &py::Stmt, leaf: fn(&py::Stmt) -> bool) -> bool {
    leaf(s)
        || match s {
            py::Stmt::If(i) => {
                i.body.iter().any(|s| holds(s, leaf))
                    || (i.elif_else_clauses.iter()).any(|c| c.body.iter().any(|s| holds(s, leaf)))
            }
            py::Stmt::Try(t) => {
                let handlers = t.handlers.iter().flat_map(|h| match h {
                    py::ExceptHandler::ExceptHandler(h) => h.body.iter(),
                });
                (t.body
                    .iter()
                    .chain(&t.orelse)
                    .chain(&t.finalbody)
                    .chain(handlers))
                .any(|s| holds(s, leaf))
            }
            _ => false,
        }
}

/// Does `s` hold a `break`, `continue`, `return` or `raise` that leaves the loop it is in,
/// or a nested loop that may `return`? (A `return` is allowed only in `returning_loop`.)
pub(super) fn jumps(s: &py::Stmt) -> bool {
    holds(s, |s| {
        matches!(
            s,
            py::Stmt::Break(_) | py::Stmt::Continue(_) | py::Stmt::Return(_) | py::Stmt::Raise(_)
        ) || loop_returns(s)
    })
}

/// Is `s` a loop with a `return` in it (which leaves every loop around it too)?
fn loop_returns(s: &py::Stmt) -> bool {
    matches!(s, py::Stmt::For(_) | py::Stmt::While(_)) && returns(s)
}

/// Does `s` hold a `raise` at its own level?
pub(super) fn raises(s: &py::Stmt) -> bool {
    holds(s, |s| matches!(s, py::Stmt::Raise(_)))
}

/// Does `s` hold a `break` (or a `return`, also in a nested loop) of the loop it is in?
fn breaks(s: &py::Stmt) -> bool {
    holds(s, |s| {
        matches!(s, py::Stmt::Break(_) | py::Stmt::Return(_)) || loop_returns(s)
    })
}

/// Does `s` hold a `break`, `continue` or `return` (not counting a `raise`)?
fn leaves(s: &py::Stmt) -> bool {
    holds(s, |s| {
        matches!(
            s,
            py::Stmt::Break(_) | py::Stmt::Continue(_) | py::Stmt::Return(_)
        )
    })
}

/// Does a block always end in `break` or `continue` (so the code after it never runs)?
pub(super) fn always_jumps(stmts: &[py::Stmt]) -> bool {
    match stmts.last() {
        Some(
            py::Stmt::Break(_) | py::Stmt::Continue(_) | py::Stmt::Return(_) | py::Stmt::Raise(_),
        ) => true,
        Some(py::Stmt::If(i)) => {
            let has_else = i.elif_else_clauses.last().is_some_and(|c| c.test.is_none());
            has_else
                && always_jumps(&i.body)
                && i.elif_else_clauses.iter().all(|c| always_jumps(&c.body))
        }
        _ => false,
    }
}

fn name_expr(i: &Ident) -> Expr {
    Expr::new(ExprKind::Name(i.clone()), i.span)
}

/// The loop, preceded by `flag = False` when its body breaks.
fn with_flag(flag: Option<Ident>, the_loop: Item, at: Span) -> Vec<Item> {
    match flag {
        Some(f) => {
            let no = Expr::new(ExprKind::Name(ident("false", at)), at);
            vec![item(ItemKind::Bind(Pattern::Name(f), no), at), the_loop]
        }
        None => vec![the_loop],
    }
}

/// What a statement outside the fragment is, and what to do instead.
fn outside_fragment(s: &py::Stmt) -> (&'static str, &'static str) {
    match s {
        py::Stmt::Return(_) => ("`return` outside a function", "return from a function"),
        py::Stmt::Break(_) | py::Stmt::Continue(_) => (
            "`break` or `continue` inside a `with` or outside a loop",
            "break directly in the loop's body, or in an `if` or `try` there",
        ),
        py::Stmt::ClassDef(_) => (
            "a class in internal code",
            "move the class into an external function's module (it runs in CPython)",
        ),
        py::Stmt::Global(_) | py::Stmt::Nonlocal(_) => (
            "`global` and `nonlocal`",
            "pass the value in and return the new one",
        ),
        py::Stmt::With(_) => (
            "`with`",
            "open and use the resource inside an external function",
        ),
        _ => ("this statement", "move it into an external function"),
    }
}
