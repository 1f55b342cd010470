//! The Python front end (issue 32): a `.py` script parsed by ruff's parser and lowered to the
//! same syntax tree the OPAL parser builds, spans into the `.py` file, so the desugarer, the
//! checker, the machine, the debugger and the adapter take it as they take OPAL.
//!
//! What is lowered is PopPy's internal fragment (its §4.1) as far as it is built: functions,
//! `return` in tail position, `if`/`elif`/`else`, `for` and `while`, assignment with tuple
//! unpacking, augmented assignment, calls, literals, f-strings, `print` with `sep`, and the
//! built-ins OPAL's library has. Functions decorated `@unordered`, `@readonly` or `@sequential`
//! are externals (answered by a world file, a trace or a live external). Anything else is an
//! error E0401 at its line and column that says what to do. docs/python.md has the table.

mod alias;
mod calls;
mod evidence;
mod exceptions;
mod expr;
mod hoist;
mod modules;
mod mutation;
mod prebind;
mod stmt;

use crate::diag::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{Block, Ident};
use crate::syntax::parser::Parsed;
use std::collections::HashMap;

/// Is `path` a Python script (read by this front end)?
pub fn is_python(path: &str) -> bool {
    path.ends_with(".py")
}

/// Parses a Python script and lowers it to OPAL's syntax tree; never panics.
pub fn parse(src: &str) -> Parsed {
    let module = match ruff_python_parser::parse_module(src) {
        Ok(parsed) => parsed.into_syntax(),
        Err(e) => {
            let at = Span::new(e.location.start().into(), e.location.end().into());
            let d = Diagnostic::error("E0400", at, format!("Python syntax error: {}", e.error))
                .with_help("the script must be valid Python 3 (CPython would refuse it too)");
            return Parsed {
                block: Block::default(),
                comments: Vec::new(),
                blank_before: Vec::new(),
                diags: vec![d],
            };
        }
    };
    let mut lower = Lower {
        shared: alias::shared_names(&module.body),
        sigs: signatures(&module.body),
        worker_only: worker_only(&module.body),
        names: all_names(&module.body),
        imports: modules::imported(&module.body),
        dicts: evidence::names(&module.body, evidence::Shape::Dict),
        sets: evidence::names(&module.body, evidence::Shape::Set),
        decorated: exceptions::decorated(&module.body),
        prebind: prebind::plan(&module.body),
        classes: exceptions::defined_classes(&module.body),
        lines: Some(crate::span::LineIndex::new(src)),
        ..Lower::default()
    };
    let mut block = lower.block(&module.body);
    let mut items = lower.module_externs();
    items.extend(lower.catching_externs());
    items.append(&mut block.items);
    // A script's result is what it prints. The lazy strategy computes only a program's result
    // (SEMANTICS.md §5), so the program ends with a print of nothing, which waits for every
    // print before it. Written nowhere: no stop or line of its own.
    if !lower.names.contains("print_raw") && !lower.sigs.contains_key("print_raw") {
        let nowhere = Span::default();
        let nothing = expr::str_lit("", nowhere);
        let wait = expr::call("print_raw", vec![nothing], nowhere);
        items.push(stmt::item(
            crate::syntax::ast::ItemKind::Expr(wait),
            nowhere,
        ));
    }
    block.items = items;
    Parsed {
        block,
        comments: Vec::new(),
        blank_before: Vec::new(),
        diags: lower.diags,
    }
}

/// The script's external functions (decorated `@unordered`, `@readonly` or `@sequential` at
/// module level), each with whether it streams (a generator: what it yields is a list that
/// arrives item by item). Empty if the script does not parse.
pub fn externals(src: &str) -> HashMap<String, bool> {
    use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
    /// Does a function body yield (not counting the functions and lambdas inside it)?
    #[derive(Default)]
    struct Yields(bool);
    impl<'a> Visitor<'a> for Yields {
        fn visit_stmt(&mut self, s: &'a ruff_python_ast::Stmt) {
            if !matches!(
                s,
                ruff_python_ast::Stmt::FunctionDef(_) | ruff_python_ast::Stmt::ClassDef(_)
            ) {
                walk_stmt(self, s);
            }
        }
        fn visit_expr(&mut self, e: &'a ruff_python_ast::Expr) {
            match e {
                ruff_python_ast::Expr::Yield(_) | ruff_python_ast::Expr::YieldFrom(_) => {
                    self.0 = true
                }
                ruff_python_ast::Expr::Lambda(_) => {}
                _ => walk_expr(self, e),
            }
        }
    }
    let Ok(module) = ruff_python_parser::parse_module(src) else {
        return HashMap::new();
    };
    let mut out = HashMap::new();
    for s in &module.syntax().body {
        let ruff_python_ast::Stmt::FunctionDef(f) = s else {
            continue;
        };
        let ordered = f.decorator_list.first().is_some_and(|d| {
            let name = match &d.expression {
                ruff_python_ast::Expr::Name(n) => n.id.as_str(),
                ruff_python_ast::Expr::Attribute(a) => a.attr.as_str(),
                _ => "",
            };
            crate::syntax::ast::Order::parse(name).is_some()
        });
        if ordered {
            let mut y = Yields::default();
            f.body.iter().for_each(|s| y.visit_stmt(s));
            out.insert(f.name.to_string(), y.0);
        }
    }
    out
}

/// The lowering's state.
#[derive(Default)]
struct Lower {
    /// What it refused so far.
    diags: Vec<Diagnostic>,
    /// Names whose list another name, a container or a function may also hold
    /// (`alias::shared_names`): `xs.append(v)` on them is refused.
    shared: HashMap<String, Span>,
    /// The names the `for` loops being lowered walk (appending to one changes the walk).
    walking: Vec<String>,
    /// The parameters (with their defaults) of each function the script defines, by name:
    /// how a call's keyword arguments and defaults are bound. A name defined twice is left
    /// out (its calls then take positional arguments only).
    sigs: HashMap<String, Signature>,
    /// Module-level names only the external functions read (their constants): they belong
    /// to the externals' side, so internal code does not bind them.
    worker_only: std::collections::HashSet<String>,
    /// Every name the script uses (a `break` flag must be none of them).
    names: std::collections::HashSet<String>,
    /// `break` flags handed out.
    flags: usize,
    /// Inside a loop of a function whose body returns from it: the flag a `return` there sets
    /// (with the result bound and the loop broken), tested after the loop.
    returning: Option<Ident>,
    /// The expression being lowered is walked or converted (a `for`'s list, a comprehension's,
    /// an argument of `list`, `sorted`, …): a dictionary view may be a list there.
    view_ok: bool,
    /// The names the script shows hold dictionaries (`evidence`): walking one walks its keys.
    dicts: std::collections::HashSet<String>,
    /// The names the script shows hold sets (`evidence`): walking one walks its elements.
    sets: std::collections::HashSet<String>,
    /// What each imported name stands for (`modules::imported`).
    imports: HashMap<String, String>,
    /// The module functions internal code calls, with the first call's place.
    modules: HashMap<String, Span>,
    /// The decorated externals' ordering classes (`exceptions::decorated`).
    decorated: HashMap<String, crate::syntax::ast::Order>,
    /// The catching twins (`try.f`) `try` bodies call, with their class and first place.
    catching: HashMap<String, (crate::syntax::ast::Order, Span)>,
    /// Caught results named so far (`caught1`, …).
    catches: usize,
    /// How many `try` bodies the statement being lowered is in.
    in_try: usize,
    /// Statements copied into branches so far, and whether that passed the budget
    /// (`Lower::copy_rest`).
    copied: usize,
    over_budget: bool,
    /// The classes the script defines, with their bases (`exceptions::defined_classes`).
    classes: HashMap<String, String>,
    /// The names bound before compound statements (`prebind::plan`).
    prebind: prebind::Prebind,
    /// Inside an `except` clause: the exception it caught, which a bare `raise` re-raises.
    reraise: Option<crate::syntax::ast::Expr>,
    /// The script's lines, to name a line in a message.
    lines: Option<crate::span::LineIndex>,
}

impl Lower {
    /// Refuses a construct outside the fragment, saying what to do.
    fn refuse(&mut self, at: Span, what: &str, todo: &str) {
        self.diags.push(
            Diagnostic::error(
                "E0401",
                at,
                format!("{what} is not supported in OPAL's Python"),
            )
            .with_help(todo.to_string()),
        );
    }
}

/// A function's parameters with their defaults, and the names of its `*args` and
/// `**kwargs`; whether it is an external (decorated: it runs in CPython).
#[derive(Clone)]
struct Signature {
    params: Vec<(String, Option<ruff_python_ast::Expr>)>,
    star: Option<String>,
    kwargs: Option<String>,
    external: bool,
}

/// The signatures of the functions defined anywhere in the script (`Lower::sigs`); a name
/// defined more than once is left out.
fn signatures(body: &[ruff_python_ast::Stmt]) -> HashMap<String, Signature> {
    use ruff_python_ast::visitor::{walk_stmt, Visitor};
    #[derive(Default)]
    struct Defs(Vec<(String, Signature)>);
    impl<'a> Visitor<'a> for Defs {
        fn visit_stmt(&mut self, s: &'a ruff_python_ast::Stmt) {
            if let ruff_python_ast::Stmt::FunctionDef(f) = s {
                let p = &f.parameters;
                let params = (p.posonlyargs.iter().chain(&p.args))
                    .map(|a| (a.parameter.name.to_string(), a.default.as_deref().cloned()))
                    .collect();
                let name = |v: &Option<Box<ruff_python_ast::Parameter>>| {
                    v.as_ref().map(|v| v.name.to_string())
                };
                let sig = Signature {
                    params,
                    star: name(&p.vararg),
                    kwargs: name(&p.kwarg),
                    external: !f.decorator_list.is_empty(),
                };
                self.0.push((f.name.to_string(), sig));
            }
            walk_stmt(self, s);
        }
    }
    let mut defs = Defs::default();
    body.iter().for_each(|s| defs.visit_stmt(s));
    let mut count: HashMap<String, usize> = HashMap::new();
    for (n, _) in &defs.0 {
        *count.entry(n.clone()).or_default() += 1;
    }
    (defs.0.into_iter())
        .filter(|(n, _)| count.get(n) == Some(&1))
        .collect()
}

/// Every name the script reads or binds.
fn all_names(body: &[ruff_python_ast::Stmt]) -> std::collections::HashSet<String> {
    use ruff_python_ast::visitor::{walk_expr, Visitor};
    #[derive(Default)]
    struct Names(std::collections::HashSet<String>);
    impl<'a> Visitor<'a> for Names {
        fn visit_expr(&mut self, e: &'a ruff_python_ast::Expr) {
            if let ruff_python_ast::Expr::Name(n) = e {
                self.0.insert(n.id.to_string());
            }
            walk_expr(self, e);
        }
    }
    let mut n = Names::default();
    body.iter().for_each(|s| n.visit_stmt(s));
    n.0
}

/// The names external functions (decorated `def`s) read that internal code never reads.
fn worker_only(body: &[ruff_python_ast::Stmt]) -> std::collections::HashSet<String> {
    use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
    use std::collections::HashSet;
    #[derive(Default)]
    struct Reads {
        internal: HashSet<String>,
        external: HashSet<String>,
        in_external: bool,
    }
    impl<'a> Visitor<'a> for Reads {
        fn visit_stmt(&mut self, s: &'a ruff_python_ast::Stmt) {
            let was = self.in_external;
            match s {
                ruff_python_ast::Stmt::FunctionDef(f) => {
                    self.in_external |= !f.decorator_list.is_empty()
                }
                // A class's body runs in the worker (or the class is refused).
                ruff_python_ast::Stmt::ClassDef(_) => self.in_external = true,
                _ => {}
            }
            walk_stmt(self, s);
            self.in_external = was;
        }
        fn visit_except_handler(&mut self, h: &'a ruff_python_ast::ExceptHandler) {
            // The classes an `except` names are matched by name against what the worker
            // raised: they belong to the externals' side (a class defined for them loads there).
            let ruff_python_ast::ExceptHandler::ExceptHandler(h) = h;
            let was = std::mem::replace(&mut self.in_external, true);
            if let Some(t) = &h.type_ {
                self.visit_expr(t);
            }
            self.in_external = was;
            h.body.iter().for_each(|s| self.visit_stmt(s));
        }
        fn visit_expr(&mut self, e: &'a ruff_python_ast::Expr) {
            // `isinstance(e, RateLimitError)` names the class as an `except` does (matched by
            // name against the exception's classes).
            if let ruff_python_ast::Expr::Call(c) = e {
                if let (ruff_python_ast::Expr::Name(f), [x, class]) =
                    (&*c.func, &c.arguments.args[..])
                {
                    if f.id.as_str() == "isinstance" {
                        self.visit_expr(x);
                        let was = std::mem::replace(&mut self.in_external, true);
                        self.visit_expr(class);
                        self.in_external = was;
                        return;
                    }
                }
            }
            if let ruff_python_ast::Expr::Name(n) = e {
                if n.ctx == ruff_python_ast::ExprContext::Load {
                    let set = if self.in_external {
                        &mut self.external
                    } else {
                        &mut self.internal
                    };
                    set.insert(n.id.to_string());
                }
            }
            walk_expr(self, e);
        }
    }
    let mut r = Reads::default();
    body.iter().for_each(|s| r.visit_stmt(s));
    r.external.difference(&r.internal).cloned().collect()
}

fn span(r: ruff_text_size::TextRange) -> Span {
    Span::new(r.start().into(), r.end().into())
}

#[cfg(test)]
mod tests;
