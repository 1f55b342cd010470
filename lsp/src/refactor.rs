//! Refactoring code actions: extract an expression to a binding, inline a binding, and convert
//! a threaded call `f (&s, x)` to `s := f (s, x)` and back (LANGUAGE.md §2.4: the two are the
//! same program).
//!
//! λ^O runs every statement whose inputs are ready, so moving an expression between statements
//! of one block does not change what a program computes. Moving it into or out of a function,
//! a loop, a branch or the right side of `and`/`or` does (a call would run a different number of
//! times): those actions are not offered there.

use crate::analysis::Analysis;
use opal_core::desugar::{DefKind, RefTarget};
use opal_core::span::Span;
use opal_core::syntax::ast::{
    BinOp, Block, Expr, ExprKind, FPart, FunBody, Item, ItemKind, Pattern,
};
use std::collections::{HashMap, HashSet};

pub struct Refactor {
    pub title: String,
    /// `refactor.extract`, `refactor.inline` or `refactor.rewrite`.
    pub kind: &'static str,
    pub edits: Vec<(Span, String)>,
}

/// The refactors at a range. In a file with errors (a user in the middle of an edit) they
/// are offered as rust-analyzer offers assists, where every top-level item they edit is free
/// of errors: what they check (names, scopes, what runs once) is read from those items.
pub fn refactors(a: &Analysis, range: Span) -> Vec<Refactor> {
    let mut out = Vec::new();
    out.extend(extract(a, range));
    out.extend(inline(a, range.start));
    out.extend(convert_threading(a, range.start));
    if a.diags.iter().any(|d| d.is_error()) {
        // Which top-level items hold an error (items are in order, so each error finds its
        // items by binary search).
        let items = &a.block().items;
        let mut broken = vec![false; items.len()];
        for e in a.diags.iter().filter(|d| d.is_error()).map(|d| d.span) {
            let mut i = items.partition_point(|it| it.span.end < e.start);
            while i < items.len() && items[i].span.start <= e.end {
                broken[i] = true;
                i += 1;
            }
        }
        let clean = |at: u32| {
            let i = items.partition_point(|it| it.span.end < at);
            items.get(i).is_some_and(|it| it.span.start <= at) && !broken[i]
        };
        out.retain(|r| r.edits.iter().all(|(s, _)| clean(s.start)));
    }
    out
}

/// The subexpressions of `e` that are evaluated exactly when `e` is (not under `fun`, not in
/// a branch of `a if c else b`, not the right side of `and`/`or`).
fn strict_children(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Paren(x) | ExprKind::Prj(_, x) | ExprKind::Not(x) | ExprKind::Neg(x) => vec![x],
        ExprKind::App(x, y) | ExprKind::Index(x, y) => vec![x, y],
        ExprKind::Binary(BinOp::And | BinOp::Or, x, _) => vec![x],
        ExprKind::Binary(_, x, y) => vec![x, y],
        ExprKind::Tuple(xs) | ExprKind::List(xs) => xs.iter().collect(),
        ExprKind::Cond(_, c, _) => vec![c],
        ExprKind::FStr(parts) => parts
            .iter()
            .filter_map(|p| {
                if let FPart::Expr(x) = p {
                    Some(x)
                } else {
                    None
                }
            })
            .collect(),
        ExprKind::Dict(kvs) => kvs.iter().flat_map(|(k, v)| [k, v]).collect(),
        _ => vec![],
    }
}

/// Every subexpression, for finding the blocks of `fun` bodies.
fn all_children(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Fun(_, FunBody::Expr(x)) => vec![x],
        ExprKind::Binary(_, x, y) => vec![x, y],
        ExprKind::Cond(a, c, b) => vec![a, c, b],
        _ => strict_children(e),
    }
}

/// The expressions of an item evaluated once, when the item runs.
fn strict_roots(item: &Item) -> Vec<&Expr> {
    match &item.kind {
        ItemKind::Bind(_, e)
        | ItemKind::Aug(_, _, e)
        | ItemKind::Expr(e)
        | ItemKind::Ret(e)
        | ItemKind::For(_, e, _) => vec![e],
        ItemKind::If(arms, _) => arms.first().map(|(c, _)| vec![c]).unwrap_or_default(),
        _ => vec![],
    }
}

fn item_exprs(item: &Item) -> Vec<&Expr> {
    match &item.kind {
        ItemKind::Bind(_, e)
        | ItemKind::Aug(_, _, e)
        | ItemKind::Expr(e)
        | ItemKind::Ret(e)
        | ItemKind::Rec(_, e)
        | ItemKind::For(_, e, _) => vec![e],
        ItemKind::If(arms, _) => arms.iter().map(|(c, _)| c).collect(),
        ItemKind::While(c, _) | ItemKind::DoWhile(_, c) => vec![c],
        _ => vec![],
    }
}

fn item_blocks(item: &Item) -> Vec<&Block> {
    match &item.kind {
        ItemKind::For(_, _, b) | ItemKind::While(_, b) | ItemKind::DoWhile(b, _) => vec![b],
        ItemKind::If(arms, els) => arms.iter().map(|(_, b)| b).chain(els.iter()).collect(),
        _ => vec![],
    }
}

fn contains(outer: Span, inner: Span) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// The innermost item containing `at` (in any nested block, `fun` bodies included), with the
/// block it is in.
fn innermost_item(b: &Block, at: Span) -> Option<(&Block, &Item)> {
    fn in_expr(e: &Expr, at: Span) -> Option<(&Block, &Item)> {
        if !contains(e.span, at) {
            return None;
        }
        if let ExprKind::Fun(_, FunBody::Block(b)) = &e.kind {
            if let Some(found) = innermost_item(b, at) {
                return Some(found);
            }
        }
        all_children(e).into_iter().find_map(|x| in_expr(x, at))
    }
    let item = b.items.iter().find(|i| contains(i.span, at))?;
    let deeper = item_blocks(item)
        .into_iter()
        .find_map(|inner| innermost_item(inner, at))
        .or_else(|| item_exprs(item).into_iter().find_map(|e| in_expr(e, at)));
    Some(deeper.unwrap_or((b, item)))
}

/// Whether `target` is reached from `e` through strict subexpressions only.
fn strictly_within(e: &Expr, target: Span) -> Option<&Expr> {
    if e.span == target {
        return Some(e);
    }
    if !contains(e.span, target) {
        return None;
    }
    strict_children(e)
        .into_iter()
        .find_map(|x| strictly_within(x, target))
}

/// The text before `offset` on its line, when it is only indentation.
fn indentation_at(a: &Analysis, offset: u32) -> Option<&str> {
    let line = a.lines.line_of(offset);
    let start = a.lines.line_start(line) as usize;
    let before = a.text.get(start..offset as usize)?;
    before.trim().is_empty().then_some(before)
}

fn fresh_name(a: &Analysis, base: &str) -> String {
    // Every definition's name is in the text: a name is free when the text never has it. One
    // pass collects the numbers that follow `base` (`value2`, `value37`; none for `value`).
    let mut taken: HashSet<Option<u64>> = HashSet::new();
    for (i, _) in a.text.match_indices(base) {
        let digits: String = a.text[i + base.len()..]
            .chars()
            .take_while(char::is_ascii_digit)
            .take(18)
            .collect();
        taken.insert(digits.parse().ok());
    }
    if !taken.contains(&None) {
        return base.to_string();
    }
    (2..)
        .find(|i| !taken.contains(&Some(*i)))
        .map_or_else(|| base.to_string(), |i| format!("{base}{i}"))
}

fn shorten(s: &str) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 40 {
        format!("{}…", one_line.chars().take(39).collect::<String>())
    } else {
        one_line
    }
}

/// Whether an expression prints as one operand (no parentheses needed around it anywhere).
fn atomic(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Name(_)
            | ExprKind::Lit(_)
            | ExprKind::Prim(_)
            | ExprKind::PrimName(_)
            | ExprKind::Unit
            | ExprKind::Paren(_)
            | ExprKind::Tuple(_)
            | ExprKind::List(_)
            | ExprKind::FStr(_)
            | ExprKind::Dict(_)
    )
}

/// Extract the selected expression to `value := …` on a line of its own before its statement.
fn extract(a: &Analysis, range: Span) -> Option<Refactor> {
    let text = a.slice(range);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return None;
    }
    let lead = (text.len() - text.trim_start().len()) as u32;
    let sel = Span::new(
        (range.start + lead) as usize,
        (range.start + lead) as usize + trimmed.len(),
    );
    let (_, item) = innermost_item(a.block(), sel)?;
    let e = strict_roots(item)
        .into_iter()
        .find_map(|r| strictly_within(r, sel))?;
    // Already a binding's whole right side, or a bare name: nothing to extract.
    if matches!(&item.kind, ItemKind::Bind(_, rhs) if rhs.span == e.span)
        || matches!(
            e.kind,
            ExprKind::Name(_) | ExprKind::Amp(_) | ExprKind::Error
        )
    {
        return None;
    }
    // Every name it uses must already be bound where the new line goes.
    let uses_later =
        a.refs().iter().filter(|(s, _)| contains(e.span, *s)).any(
            |(_, t)| matches!(t, RefTarget::Def(i) if a.defs()[*i].span.start >= item.span.start),
        );
    if uses_later || a.text[e.span.start as usize..e.span.end as usize].contains('&') {
        return None;
    }
    let indent = indentation_at(a, item.span.start)?.to_string();
    let name = fresh_name(a, "value");
    let nl = crate::formatting::line_break(&a.text);
    let body = a.slice(e.span).to_string();
    let at = Span::new(item.span.start as usize, item.span.start as usize);
    Some(Refactor {
        title: format!("Extract `{}` to a binding", shorten(&body)),
        kind: "refactor.extract",
        edits: vec![
            (at, format!("{name} := {body}{nl}{indent}")),
            (e.span, name),
        ],
    })
}

/// Inline `x := e` into its uses and delete it: when `e` is a name or a literal (any number of
/// uses), or when `x` is used once, later in the same block, where that use is evaluated once.
fn inline(a: &Analysis, offset: u32) -> Option<Refactor> {
    let (_, crate::analysis::Target::Def(d)) = a.target_at(offset)? else {
        return None;
    };
    let def = &a.defs()[d];
    if def.kind != DefKind::Binding {
        return None;
    }
    let (block, item) = innermost_item(a.block(), def.span)?;
    let ItemKind::Bind(Pattern::Name(id), e) = &item.kind else {
        return None;
    };
    if id.span != def.span || matches!(e.kind, ExprKind::Fun(..) | ExprKind::Error) {
        return None;
    }
    let uses: Vec<Span> = a
        .occurrences(&crate::analysis::Target::Def(d))
        .into_iter()
        .filter(|(s, _)| *s != def.span)
        .map(|(s, _)| s)
        .collect();
    if uses.is_empty()
        || a.text
            .get(uses[0].start as usize..)
            .is_some_and(|t| t.starts_with('&'))
    {
        return None;
    }
    let trivial = matches!(
        e.kind,
        ExprKind::Name(_) | ExprKind::Lit(_) | ExprKind::Prim(_) | ExprKind::Unit
    );
    if !trivial {
        let [u] = uses[..] else { return None };
        let (ublock, uitem) = innermost_item(a.block(), u)?;
        let same_block = std::ptr::eq(ublock, block) && uitem.span.start > item.span.end;
        if !same_block
            || !strict_roots(uitem)
                .into_iter()
                .any(|r| strictly_within(r, u).is_some())
        {
            return None;
        }
    }
    if rebound_between(a, e, &uses) {
        return None;
    }
    let value = a.slice(e.span);
    let value = if atomic(e) {
        value.to_string()
    } else {
        format!("({value})")
    };
    let delete = binding_lines(a, item);
    let mut edits = vec![(delete, String::new())];
    edits.extend(uses.iter().map(|u| (*u, value.clone())));
    Some(Refactor {
        title: format!("Inline `{}`", def.name),
        kind: "refactor.inline",
        edits,
    })
}

/// Whether a name `e` uses is bound again before the last of `uses`, so it would mean something
/// else there.
fn rebound_between(a: &Analysis, e: &Expr, uses: &[Span]) -> bool {
    // What `e` names must mean the same at every use (no rebinding in between).
    let names: HashSet<(&str, usize)> = a
        .refs()
        .iter()
        .filter(|(s, _)| contains(e.span, *s))
        .filter_map(|(s, t)| {
            if let RefTarget::Def(i) = t {
                Some((a.slice(*s), *i))
            } else {
                None
            }
        })
        .collect();
    // Once per name, not per use, and one pass over the definitions: code actions are asked
    // for at every cursor move, and a trivial binding may have thousands of uses.
    let last_use = uses.iter().map(|u| u.start).max().unwrap_or(0);
    let wanted: HashSet<&str> = names.iter().map(|(n, _)| *n).collect();
    let mut bound_at: HashMap<&str, Vec<u32>> = HashMap::new();
    for d in a.defs().iter().filter(|d| wanted.contains(d.name.as_str())) {
        bound_at
            .entry(d.name.as_str())
            .or_default()
            .push(d.span.start);
    }
    bound_at.values_mut().for_each(|v| v.sort_unstable());
    names.iter().any(|(n, i)| {
        let since = a.defs()[*i].span.start;
        let starts = bound_at.get(n).map(Vec::as_slice).unwrap_or_default();
        starts
            .get(starts.partition_point(|&s| s <= since))
            .is_some_and(|&r| r < last_use)
    })
}

/// What deleting a binding removes: its whole line(s) when it stands alone on them.
fn binding_lines(a: &Analysis, item: &Item) -> Span {
    let line = a.lines.line_of(item.span.start);
    let start = a.lines.line_start(line);
    let end_line = a.lines.line_of(item.span.end);
    let end = if end_line + 1 < a.lines.line_count() {
        a.lines.line_start(end_line + 1)
    } else {
        a.text.len() as u32
    };
    let alone = a.text[start as usize..item.span.start as usize]
        .trim()
        .is_empty()
        && a.text[item.span.end as usize..end as usize]
            .trim()
            .is_empty();
    if alone {
        Span::new(start as usize, end as usize)
    } else {
        item.span
    }
}

/// `f (&s, x)` ↔ `s := f (s, x)`, and `y := f (&s, x)` ↔ `(s, y) := f (s, x)`.
fn convert_threading(a: &Analysis, offset: u32) -> Option<Refactor> {
    let at = Span::new(offset as usize, offset as usize);
    let (_, item) = innermost_item(a.block(), at)?;
    let args = |e: &Expr| -> Option<Vec<Expr>> {
        let ExprKind::App(_, arg) = &e.kind else {
            return None;
        };
        Some(match &arg.kind {
            ExprKind::Tuple(xs) => xs.clone(),
            ExprKind::Paren(x) => vec![(**x).clone()],
            _ => vec![(**arg).clone()],
        })
    };
    let amps = |xs: &[Expr]| -> Vec<(String, Span)> {
        xs.iter()
            .filter_map(|x| {
                if let ExprKind::Amp(id) = &x.kind {
                    Some((id.name.clone(), x.span))
                } else {
                    None
                }
            })
            .collect()
    };
    match &item.kind {
        // Threaded → explicit.
        ItemKind::Expr(e) | ItemKind::Bind(Pattern::Name(_), e) if amps(&args(e)?).len() == 1 => {
            let (s, amp) = amps(&args(e)?).pop()?;
            let lhs = match &item.kind {
                ItemKind::Bind(Pattern::Name(y), _) => format!("({s}, {})", y.name),
                _ => s.clone(),
            };
            let mut edits = vec![(amp, s.clone())];
            match &item.kind {
                ItemKind::Bind(p, _) => edits.push((p.span(), lhs.clone())),
                _ => edits.push((
                    Span::new(item.span.start as usize, item.span.start as usize),
                    format!("{lhs} := "),
                )),
            }
            Some(Refactor {
                title: format!("Write `&{s}` as `{lhs} := …`"),
                kind: "refactor.rewrite",
                edits,
            })
        }
        // Explicit → threaded.
        ItemKind::Bind(p, e) => {
            let (s, y) = match p {
                Pattern::Name(s) => (s, None),
                Pattern::Tuple(ps, _) => match &ps[..] {
                    [Pattern::Name(s), Pattern::Name(y)] => (s, Some(y)),
                    _ => return None,
                },
                _ => return None,
            };
            let xs = args(e)?;
            if !amps(&xs).is_empty() {
                return None;
            }
            let arg = xs
                .iter()
                .find(|x| matches!(&x.kind, ExprKind::Name(id) if id.name == s.name))?;
            let mut edits = vec![(arg.span, format!("&{}", s.name))];
            match y {
                Some(y) => edits.push((p.span(), y.name.clone())),
                None => edits.push((
                    Span::new(item.span.start as usize, e.span.start as usize),
                    String::new(),
                )),
            }
            Some(Refactor {
                title: format!("Thread `{}` with `&{}`", s.name, s.name),
                kind: "refactor.rewrite",
                edits,
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::WorldInfo;

    /// The program after applying the action titled `title` at the `|` (or `[`…`]` selection).
    fn apply(marked: &str, title: &str) -> Option<String> {
        let (start, end) = match (marked.find('['), marked.find(']')) {
            (Some(s), Some(e)) if marked.contains("[|") => (s, e - 3),
            _ => {
                let p = marked.find('|')?;
                (p, p)
            }
        };
        let src = marked
            .replacen("[|", "", 1)
            .replacen("|]", "", 1)
            .replacen('|', "", 1);
        let a = Analysis::new(src.clone(), WorldInfo::default());
        assert!(!a.compiled.has_errors(), "{src}: {:?}", a.compiled.diags);
        let r = refactors(&a, Span::new(start, end))
            .into_iter()
            .find(|r| r.title.starts_with(title))?;
        let mut edits = r.edits;
        edits.sort_by_key(|(s, _)| std::cmp::Reverse(s.start));
        let mut out = src;
        for (s, t) in edits {
            out.replace_range(s.start as usize..s.end as usize, &t);
        }
        let after = Analysis::new(out.clone(), WorldInfo::default());
        assert!(
            !after.compiled.has_errors(),
            "the result compiles:\n{out}\n{:?}",
            after.compiled.diags
        );
        Some(out)
    }

    /// An error elsewhere (a user in the middle of an edit) does not hide a refactor; an error
    /// in an item it edits does.
    #[test]
    fn refactors_skip_only_items_with_errors() {
        let titles = |src: &str, at: &str| -> Vec<String> {
            let a = Analysis::new(src.into(), WorldInfo::default());
            assert!(a.compiled.has_errors(), "{src}");
            let at = src.find(at).unwrap_or_default() as u32;
            refactors(&a, Span::new(at as usize, at as usize))
                .into_iter()
                .map(|r| r.title)
                .collect()
        };
        let elsewhere = "n := 3\nprint (&stdout, n + n)\ny := (1 +\nz := nope\n";
        assert_eq!(titles(elsewhere, "n :="), ["Inline `n`"]);
        assert_eq!(
            titles(elsewhere, "stdout"),
            ["Write `&stdout` as `stdout := …`"]
        );
        // The use is in a broken item: inlining would edit it.
        assert_eq!(
            titles("n := 3\nprint (&stdout, n + nope)\n", "n :="),
            Vec::<String>::new()
        );
        assert_eq!(
            titles("n := 3 + nope\nprint (&stdout, n)\n", "n :="),
            Vec::<String>::new()
        );
    }

    #[test]
    fn extract_a_call_to_a_binding() {
        let src = "extern ask\nx := 1\nprint (&stdout, [|ask (x + 1)|])\n";
        assert_eq!(
            apply(src, "Extract").as_deref(),
            Some("extern ask\nx := 1\nvalue := ask (x + 1)\nprint (&stdout, value)\n")
        );
        // Inside a function body, the new line goes inside it, indented.
        let src = "extern ask\nf := fun x:\n    ret [|ask x|] + 1\nprint (&stdout, f 1)\n";
        assert_eq!(apply(src, "Extract").as_deref(), Some("extern ask\nf := fun x:\n    value := ask x\n    ret value + 1\nprint (&stdout, f 1)\n"));
    }

    #[test]
    fn extract_is_not_offered_where_it_would_change_how_often_a_call_runs() {
        for src in [
            "extern ask\nf := fun x: [|ask 1|]\nprint (&stdout, f 1)\n",
            "extern ask\nb := true\nprint (&stdout, b or [|ask 1|])\n",
            "extern ask\nb := 1\nwhile [|ask b|]:\n    b := 2\n",
            "extern ask\nx := [|ask 1|]\n",
        ] {
            assert_eq!(apply(src, "Extract"), None, "{src}");
        }
    }

    #[test]
    fn inline_a_binding_used_once_or_a_literal() {
        let src = "extern ask\nq| := ask 1\nprint (&stdout, q + 1)\n";
        assert_eq!(
            apply(src, "Inline").as_deref(),
            Some("extern ask\nprint (&stdout, (ask 1) + 1)\n")
        );
        let src = "n| := 3\nprint (&stdout, n + n)\n";
        assert_eq!(
            apply(src, "Inline").as_deref(),
            Some("print (&stdout, 3 + 3)\n")
        );
    }

    #[test]
    fn inline_is_not_offered_into_a_function_or_twice_for_a_call() {
        for src in [
            "extern ask\nq| := ask 1\nprint (&stdout, q + q)\n",
            "extern ask\nq| := ask 1\nf := fun x: q + x\nprint (&stdout, f 1)\n",
        ] {
            assert_eq!(apply(src, "Inline"), None, "{src}");
        }
    }

    #[test]
    fn refactors_keep_the_documents_line_breaks() {
        for brk in ["\r\n", "\r"] {
            let nl = |s: &str| s.replace('\n', brk);
            let src = nl("extern ask\nf := fun x:\n    ret [|ask x|] + 1\nprint (&stdout, f 1)\n");
            let want = nl("extern ask\nf := fun x:\n    value := ask x\n    ret value + 1\nprint (&stdout, f 1)\n");
            assert_eq!(apply(&src, "Extract"), Some(want), "{brk:?}");
            let src = nl("extern ask\nq| := ask 1\nprint (&stdout, q + 1)\n");
            assert_eq!(
                apply(&src, "Inline"),
                Some(nl("extern ask\nprint (&stdout, (ask 1) + 1)\n")),
                "{brk:?}"
            );
        }
    }

    #[test]
    fn threading_converts_both_ways() {
        let src = "x := 1\npr|int (&stdout, x)\n";
        assert_eq!(
            apply(src, "Write").as_deref(),
            Some("x := 1\nstdout := print (stdout, x)\n")
        );
        let src = "x := 1\nstd|out := print (stdout, x)\n";
        assert_eq!(
            apply(src, "Thread").as_deref(),
            Some("x := 1\nprint (&stdout, x)\n")
        );
    }
}
