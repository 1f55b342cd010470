//! Static checks that need scopes: unused bindings (W0001), handles used twice without
//! threading (W0002), calls against what a name is known to be, argument order (E0108), `++`.

use super::*;

impl Desugarer {
    pub(super) fn check_unused(&mut self, vi: usize) {
        let v = &self.vars[vi];
        if v.lint_unused && !v.used && !self.prelude_mode && !self.core_mode {
            let Some(d) = self.symbols.defs.get(v.def) else {
                return;
            };
            if !d.name.starts_with('_') && !v.handle {
                let span = d.span;
                let name = d.name.clone();
                self.diags.push(
                    Diagnostic::warning("W0001", span, format!("`{name}` is bound but never used"))
                        .with_help(format!(
                            "remove the binding, or name it `_{name}` if it is bound on purpose"
                        )),
                );
            }
        }
    }

    pub(super) fn check_call(
        &mut self,
        f: &Expr,
        known: &Known,
        arg_shape: Option<Option<usize>>,
        span: Span,
    ) {
        let fname = match &f.kind {
            ExprKind::Name(id) => id.name.clone(),
            _ => "this function".into(),
        };
        let expected: Option<Option<usize>> = match known {
            Known::Fun(k) => k.map(Some),
            Known::Ext(e) => externals::standard(e)
                .filter(|_| !self.externs.iter().any(|(x, _)| x == e))
                .map(|d: &ExtDecl| d.arity),
            Known::Tuple(_) | Known::Prim | Known::Handle | Known::List | Known::Dict => {
                let what = match known {
                    Known::Tuple(_) => "a tuple",
                    Known::Handle => "a handle",
                    Known::List => "a list",
                    Known::Dict => "a dictionary",
                    _ => "a primitive value",
                };
                self.diags.push(
                    Diagnostic::error(
                        "E0105",
                        f.span,
                        format!("`{fname}` is {what}, not a function, so it cannot be called"),
                    )
                    .with_help("call a function (`fun …`), a prelude function or an external"),
                );
                return;
            }
            Known::Unknown => None,
        };
        let (Some(exp), Some(got)) = (expected, arg_shape) else {
            return;
        };
        let show = |s: Option<usize>| match s {
            None => "one value".to_string(),
            Some(0) => "`()`".to_string(),
            Some(n) => format!("a {n}-tuple"),
        };
        let mismatch = match (exp, got) {
            (Some(a), Some(b)) => a != b,
            (Some(_), None) => true,
            (None, Some(_)) => false, // a single parameter may receive a tuple
            (None, None) => false,
        };
        if mismatch {
            self.diags.push(
                Diagnostic::error(
                    "E0103",
                    span,
                    format!("`{fname}` takes {} but is given {}", show(exp), show(got)),
                )
                .with_help("pass arguments of the shape the function's parameter pattern expects"),
            );
        }
    }

    /// The prelude's higher-order functions take the list first (`map (l, f)`), the reverse of
    /// Python's `map(f, l)`: a function where the list goes is a clear error here, not a
    /// stuck `add` deep inside `map` at run time.
    pub(super) fn check_argument_order(&mut self, f: &Expr, a: &Expr) {
        let ExprKind::Name(id) = &f.kind else { return };
        // The functions that take a function after their list.
        if !matches!(id.name.as_str(), "map" | "filter" | "sort_by" | "fold") {
            return;
        }
        let Some(shape) = prelude::shape(&id.name) else {
            return;
        };
        // A program's own `map` may take anything.
        if self.find_var(&id.name).is_some() {
            return;
        }
        let ExprKind::Tuple(es) = &a.kind else { return };
        let Some(first) = es.first() else { return };
        // A function of a pair may be a hand-written Church list (`fold (fun (s, a): …, …)`):
        // only a list where the function goes gives it away.
        let list_second = es
            .get(1)
            .is_some_and(|e| matches!(self.known_of_expr(e, Name::plain("?")), Known::List));
        let is_function = match (self.known_of_expr(first, Name::plain("?")), &first.kind) {
            (Known::Fun(Some(2)), _) => list_second,
            (Known::Fun(_), _) => true,
            (Known::Ext(e), _) => externals::standard(&e).is_some(),
            // An external or prelude function used as a value (`map (len, l)`).
            (Known::Unknown, ExprKind::Name(n)) => {
                self.find_var(&n.name).is_none() && externals::standard(&n.name).is_some()
            }
            _ => false,
        };
        if is_function {
            self.diags.push(
                Diagnostic::error("E0108", first.span, format!("`{}` takes {shape}: this function is where the list goes", id.name))
                    .with_help(format!("put the list first, as in `{} (items, fun x: …)` (Python's `map(f, l)` order is reversed here)", id.name)),
            );
        }
    }

    /// A call of a prelude list function written in the program (not one the desugaring makes,
    /// such as a `for` loop's `fold`): a runtime error inside it is reported with a note at
    /// this call naming the shape the function takes (`Program::library_calls`).
    pub(super) fn note_library_call(&mut self, f: &Expr, span: Span) {
        let ExprKind::Name(id) = &f.kind else { return };
        if self.prelude_mode || self.core_mode || self.find_var(&id.name).is_some() {
            return;
        }
        if let Some(i) = prelude::SHAPES.iter().position(|(n, _)| *n == id.name) {
            self.library_calls.push((span.start, i as u32));
        }
    }

    /// `y := f (&h, x)` binds what `f` returns after its handles, but a `fun (&h, …)` whose
    /// body ends in a threaded call returns only the handles (LANGUAGE.md §4): nothing to bind,
    /// which at run time is a projection out of a handle far from the cause.
    pub(super) fn check_value_of_handles_only(&mut self, f: &Expr, span: Span) {
        let ExprKind::Name(id) = &f.kind else { return };
        let Some((vi, _)) = self.find_var(&id.name) else {
            return;
        };
        if !self.vars[vi].handles_only {
            return;
        }
        let name = &id.name;
        self.diags.push(
            Diagnostic::error("E0109", span, format!("`{name}` returns only its `&` handle: its body ends in a threaded call, so it has no value to bind"))
                .with_help(format!("call it as an item (`{name} (&…, …)` on its own line), or end its body with the value it should return")),
        );
    }

    /// `++` joins lists: a tuple or a string on either side is a mistake worth a clear error.
    pub(super) fn check_concat(&mut self, e: &Expr) {
        let what = match self.known_of_expr(e, Name::plain("?")) {
            Known::Tuple(_) => "a tuple",
            Known::Prim if matches!(e.kind, ExprKind::Lit(Lit::Str(_)) | ExprKind::FStr(_)) => {
                "a string"
            }
            Known::Prim => "a primitive value",
            Known::Dict => "a dictionary",
            _ => return,
        };
        self.diags.push(
            Diagnostic::error(
                "E0107",
                e.span,
                format!("`++` joins lists, and this is {what}"),
            )
            .with_help(
                "join strings and tuples with `+` (`(1, 2) + (3,)`), lists with `++` or `+`",
            ),
        );
    }
}

/// W0002: a handle used again without threading (the order of its effects is open).
pub(super) fn handle_twice(name: &str, span: Span, first: Span) -> Diagnostic {
    Diagnostic::warning("W0002", span, format!("handle `{name}` is used again without threading"))
        .with_related(first, "first used here")
        .with_help(format!(
            "write `&{name}` so each call returns the next `{name}` (e.g. `print (&{name}, x)`); otherwise the order of these effects is not determined (paper §4.3)"
        ))
        .with_fix(format!("&{name}"))
}
