//! Call hierarchy: who calls a function, and what it calls. λ^O programs are call graphs, so
//! this is the source-level view of the debugger's graph. A function is a binding of a `fun`
//! (`f := fun …`, `rec f := fun …`) at any depth; a call is any reference to it (passing a
//! function to `map` counts, as in rust-analyzer). Calls outside every function belong to the
//! file itself (an item of kind `FILE`).

use crate::analysis::{Analysis, Target};
use crate::cancel;
use opal_core::desugar::RefTarget;
use opal_core::span::Span;
use opal_core::syntax::ast::*;
use std::collections::BTreeMap;
use tower_lsp_server::ls_types::{CallHierarchyIncomingCall, CallHierarchyItem, CallHierarchyOutgoingCall, SymbolKind, Uri};

/// A function of the file: its definition and the span of the item that binds it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Function {
    pub def: usize,
    pub item: Span,
}

/// Every `fun` binding of the file, outer ones before the ones nested in them.
pub fn functions(a: &Analysis) -> Vec<Function> {
    fn block(a: &Analysis, b: &Block, out: &mut Vec<Function>) {
        for item in &b.items {
            cancel::check();
            match &item.kind {
                ItemKind::Bind(Pattern::Name(id), e) | ItemKind::Rec(id, e) => {
                    if let ExprKind::Fun(..) = e.kind {
                        if let Some(def) = a.def_at(id.span) {
                            out.push(Function { def, item: item.span });
                        }
                    }
                    expr(a, e, out);
                }
                ItemKind::Bind(_, e) | ItemKind::Expr(e) | ItemKind::Ret(e) | ItemKind::Aug(_, _, e) => expr(a, e, out),
                ItemKind::For(_, _, b) | ItemKind::While(_, b) | ItemKind::DoWhile(b, _) => block(a, b, out),
                ItemKind::If(bs, els) => {
                    bs.iter().for_each(|(_, b)| block(a, b, out));
                    if let Some(b) = els {
                        block(a, b, out);
                    }
                }
                _ => {}
            }
        }
    }
    fn expr(a: &Analysis, e: &Expr, out: &mut Vec<Function>) {
        match &e.kind {
            ExprKind::Fun(_, FunBody::Block(b)) => block(a, b, out),
            ExprKind::Fun(_, FunBody::Expr(x)) | ExprKind::Paren(x) => expr(a, x, out),
            ExprKind::App(x, y) | ExprKind::Binary(_, x, y) => {
                expr(a, x, out);
                expr(a, y, out);
            }
            ExprKind::Tuple(xs) | ExprKind::List(xs) => xs.iter().for_each(|x| expr(a, x, out)),
            _ => e.sugar_children().into_iter().for_each(|x| expr(a, x, out)),
        }
    }
    let mut out = Vec::new();
    block(a, a.block(), &mut out);
    out
}

fn item(a: &Analysis, uri: &Uri, f: Function) -> CallHierarchyItem {
    let d = &a.defs()[f.def];
    let line = a.lines.line_of(d.span.start);
    CallHierarchyItem {
        name: d.name.clone(),
        kind: SymbolKind::FUNCTION,
        tags: None,
        detail: Some(format!("line {}", line + 1)),
        uri: uri.clone(),
        range: a.pos().range(f.item),
        selection_range: a.pos().range(d.span),
        data: None,
    }
}

fn file_item(a: &Analysis, uri: &Uri) -> CallHierarchyItem {
    let name = uri.as_str().rsplit('/').next().unwrap_or("program").to_string();
    let whole = a.pos().range(Span::new(0, a.text.len()));
    CallHierarchyItem { name, kind: SymbolKind::FILE, tags: None, detail: None, uri: uri.clone(), range: whole, selection_range: whole, data: None }
}

/// The function named at an offset (its definition or a use).
pub fn prepare(a: &Analysis, uri: &Uri, offset: u32) -> Option<Vec<CallHierarchyItem>> {
    let Some((_, Target::Def(def))) = a.target_at(offset) else { return None };
    let f = functions(a).into_iter().find(|f| f.def == def)?;
    Some(vec![item(a, uri, f)])
}

/// The innermost function whose item contains a span, if any.
fn enclosing(fns: &[Function], s: Span) -> Option<Function> {
    fns.iter().filter(|f| f.item.start <= s.start && s.end <= f.item.end).min_by_key(|f| f.item.end - f.item.start).copied()
}

/// The function at a call hierarchy item (found again by its selection range).
fn function_at(a: &Analysis, it: &CallHierarchyItem) -> Option<Function> {
    let offset = a.pos().offset(it.selection_range.start);
    let Some((_, Target::Def(def))) = a.target_at(offset) else { return None };
    functions(a).into_iter().find(|f| f.def == def)
}

/// The calls from one caller (`None`: the file).
type Calls = (Option<Function>, Vec<Span>);

/// Who calls the function: grouped by the enclosing function (or the file), in the order of
/// their first call.
pub fn incoming(a: &Analysis, uri: &Uri, it: &CallHierarchyItem) -> Vec<CallHierarchyIncomingCall> {
    let Some(f) = function_at(a, it) else { return vec![] };
    let fns = functions(a);
    let mut by_caller: BTreeMap<Option<(u32, usize)>, Calls> = BTreeMap::new();
    for (s, t) in a.refs() {
        cancel::check();
        if *t != RefTarget::Def(f.def) {
            continue;
        }
        let caller = enclosing(&fns, *s);
        by_caller.entry(caller.map(|c| (c.item.start, c.def))).or_insert((caller, vec![])).1.push(*s);
    }
    let p = a.pos();
    let mut callers: Vec<Calls> = by_caller.into_values().collect();
    callers.sort_by_key(|(_, spans)| spans.first().map(|s| s.start));
    callers
        .into_iter()
        .map(|(caller, spans)| CallHierarchyIncomingCall {
            from: caller.map_or_else(|| file_item(a, uri), |c| item(a, uri, c)),
            from_ranges: spans.into_iter().map(|s| p.range(s)).collect(),
        })
        .collect()
}

/// What the function calls: the functions of the file referred to inside it (not inside the
/// functions nested in it), grouped by callee.
pub fn outgoing(a: &Analysis, uri: &Uri, it: &CallHierarchyItem) -> Vec<CallHierarchyOutgoingCall> {
    let Some(f) = function_at(a, it) else { return vec![] };
    let fns = functions(a);
    let mut by_callee: BTreeMap<usize, Vec<Span>> = BTreeMap::new();
    for (s, t) in a.refs() {
        cancel::check();
        let RefTarget::Def(d) = t else { continue };
        if !(f.item.start <= s.start && s.end <= f.item.end) || enclosing(&fns, *s) != Some(f) {
            continue;
        }
        if fns.iter().any(|g| g.def == *d) {
            by_callee.entry(*d).or_default().push(*s);
        }
    }
    let p = a.pos();
    by_callee
        .into_iter()
        .filter_map(|(d, spans)| {
            let g = fns.iter().find(|g| g.def == d)?;
            Some(CallHierarchyOutgoingCall { to: item(a, uri, *g), from_ranges: spans.into_iter().map(|s| p.range(s)).collect() })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::WorldInfo;

    const SRC: &str = "double := fun x: x * 2\nquad := fun x:\n    y := double x\n    ret double y\nprint (&stdout, quad 3)\nz := map ([1], double)\n";

    #[test]
    fn incoming_and_outgoing_calls() {
        let a = Analysis::new(SRC.into(), WorldInfo::default());
        let uri: Uri = "file:///t/calls.opal".parse().unwrap_or_else(|_| panic!("uri"));
        let items = prepare(&a, &uri, 1).unwrap_or_default();
        assert_eq!(items.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(), vec!["double"]);
        let inc: Vec<(String, usize)> = incoming(&a, &uri, &items[0]).into_iter().map(|c| (c.from.name, c.from_ranges.len())).collect();
        assert_eq!(inc, vec![("quad".to_string(), 2), ("calls.opal".to_string(), 1)]);
        let quad = prepare(&a, &uri, 24).unwrap_or_default();
        let out: Vec<(String, usize)> = outgoing(&a, &uri, &quad[0]).into_iter().map(|c| (c.to.name, c.from_ranges.len())).collect();
        assert_eq!(out, vec![("double".to_string(), 2)]);
        assert!(prepare(&a, &uri, SRC.find("print").unwrap_or(0) as u32 + 1).is_none(), "a standard external is not in the file");
    }
}
