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
use std::collections::{BTreeMap, HashMap};

/// A function of the file: its definition and the span of the item that binds it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Function {
    pub def: usize,
    pub item: Span,
}

/// An item of the hierarchy: a function, or the file itself (for calls outside every
/// function; the server names it after the file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallItem {
    Function {
        name: String,
        /// `line <n>`, 1-based.
        detail: String,
        /// The item that binds the function.
        range: Span,
        /// The function's name there.
        selection: Span,
    },
    File {
        /// The whole text.
        range: Span,
    },
}

impl CallItem {
    /// The function's name; `None` for the file.
    pub fn name(&self) -> Option<&str> {
        match self {
            CallItem::Function { name, .. } => Some(name),
            CallItem::File { .. } => None,
        }
    }
}

/// The calls from one caller, or to one callee: the item and the spans of the calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Calls {
    pub item: CallItem,
    pub ranges: Vec<Span>,
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
                            out.push(Function {
                                def,
                                item: item.span,
                            });
                        }
                    }
                    expr(a, e, out);
                }
                ItemKind::Bind(_, e)
                | ItemKind::Expr(e)
                | ItemKind::Ret(e)
                | ItemKind::Aug(_, _, e) => expr(a, e, out),
                ItemKind::For(_, _, b) | ItemKind::While(_, b) | ItemKind::DoWhile(b, _) => {
                    block(a, b, out)
                }
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

fn item(a: &Analysis, f: Function) -> CallItem {
    let d = &a.defs()[f.def];
    let line = a.lines.line_of(d.span.start);
    CallItem::Function {
        name: d.name.clone(),
        detail: format!("line {}", line + 1),
        range: f.item,
        selection: d.span,
    }
}

/// The function named at an offset (its definition or a use).
pub fn prepare(a: &Analysis, offset: u32) -> Option<CallItem> {
    Some(item(a, function_at(a, offset)?))
}

/// The file's functions sorted by where their items start, each with the innermost function
/// around it: items nest or are disjoint, so the function around a span is the last one that
/// starts before it or one of that one's parents (a walk as deep as the nesting, which the
/// parser caps), and a file's calls are grouped in O(calls · log functions).
struct Nesting {
    fns: Vec<Function>,
    parent: Vec<Option<usize>>,
}

impl Nesting {
    fn new(a: &Analysis) -> Nesting {
        let mut fns = functions(a);
        fns.sort_by_key(|f| (f.item.start, std::cmp::Reverse(f.item.end)));
        let mut parent = Vec::with_capacity(fns.len());
        let mut open: Vec<usize> = Vec::new();
        for (i, f) in fns.iter().enumerate() {
            while open.last().is_some_and(|&o| !contains(fns[o].item, f.item)) {
                open.pop();
            }
            parent.push(open.last().copied());
            open.push(i);
        }
        Nesting { fns, parent }
    }

    /// The innermost function whose item contains a span, if any.
    fn enclosing(&self, s: Span) -> Option<Function> {
        let mut i = self
            .fns
            .partition_point(|f| f.item.start <= s.start)
            .checked_sub(1)?;
        loop {
            if contains(self.fns[i].item, s) {
                return Some(self.fns[i]);
            }
            i = self.parent[i]?;
        }
    }
}

fn contains(outer: Span, inner: Span) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// The function named at an offset.
fn function_at(a: &Analysis, offset: u32) -> Option<Function> {
    let Some((_, Target::Def(def))) = a.target_at(offset) else {
        return None;
    };
    functions(a).into_iter().find(|f| f.def == def)
}

/// The calls from one caller (`None`: the file).
type CallerCalls = (Option<Function>, Vec<Span>);

/// Who calls the function named at `offset` (an item's selection start): grouped by the
/// enclosing function (or the file), in the order of their first call.
pub fn incoming(a: &Analysis, offset: u32) -> Vec<Calls> {
    let Some(f) = function_at(a, offset) else {
        return vec![];
    };
    let fns = Nesting::new(a);
    let mut by_caller: BTreeMap<Option<(u32, usize)>, CallerCalls> = BTreeMap::new();
    for (s, t) in a.refs() {
        cancel::check();
        if *t != RefTarget::Def(f.def) {
            continue;
        }
        let caller = fns.enclosing(*s);
        by_caller
            .entry(caller.map(|c| (c.item.start, c.def)))
            .or_insert((caller, vec![]))
            .1
            .push(*s);
    }
    let mut callers: Vec<CallerCalls> = by_caller.into_values().collect();
    callers.sort_by_key(|(_, spans)| spans.first().map(|s| s.start));
    let file = CallItem::File {
        range: Span::new(0, a.text.len()),
    };
    callers
        .into_iter()
        .map(|(caller, ranges)| Calls {
            item: caller.map_or_else(|| file.clone(), |c| item(a, c)),
            ranges,
        })
        .collect()
}

/// What the function named at `offset` calls: the functions of the file referred to inside
/// it (not inside the functions nested in it), grouped by callee.
pub fn outgoing(a: &Analysis, offset: u32) -> Vec<Calls> {
    let Some(f) = function_at(a, offset) else {
        return vec![];
    };
    let fns = Nesting::new(a);
    let by_def: HashMap<usize, Function> = fns.fns.iter().map(|g| (g.def, *g)).collect();
    let mut by_callee: BTreeMap<usize, Vec<Span>> = BTreeMap::new();
    for (s, t) in a.refs() {
        cancel::check();
        let RefTarget::Def(d) = t else { continue };
        if !contains(f.item, *s) || !by_def.contains_key(d) || fns.enclosing(*s) != Some(f) {
            continue;
        }
        by_callee.entry(*d).or_default().push(*s);
    }
    by_callee
        .into_iter()
        .filter_map(|(d, ranges)| {
            Some(Calls {
                item: item(a, *by_def.get(&d)?),
                ranges,
            })
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
        assert_eq!(
            prepare(&a, 1).as_ref().and_then(CallItem::name),
            Some("double")
        );
        let inc: Vec<(Option<String>, usize)> = incoming(&a, 1)
            .iter()
            .map(|c| (c.item.name().map(String::from), c.ranges.len()))
            .collect();
        assert_eq!(inc, vec![(Some("quad".to_string()), 2), (None, 1)]);
        let out: Vec<(Option<String>, usize)> = outgoing(&a, 24)
            .iter()
            .map(|c| (c.item.name().map(String::from), c.ranges.len()))
            .collect();
        assert_eq!(out, vec![(Some("double".to_string()), 2)]);
        assert!(
            prepare(&a, SRC.find("print").unwrap_or(0) as u32 + 1).is_none(),
            "a standard external is not in the file"
        );
    }

    /// The enclosing function by binary search and parents is the innermost one that contains
    /// the span, found by scanning every function.
    #[test]
    fn nesting_finds_the_innermost_function() {
        let src =
            "f := fun x:\n    g := fun y:\n        h := fun z: z\n        ret h y\n    k := fun w: g w\n    ret k x\nm := fun v: f v\nprint (&stdout, m 1)\n";
        let a = Analysis::new(src.into(), WorldInfo::default());
        let n = Nesting::new(&a);
        assert_eq!(n.fns.len(), 5);
        for at in 0..src.len() as u32 {
            let s = Span::new(at as usize, at as usize);
            let scan = n
                .fns
                .iter()
                .filter(|f| contains(f.item, s))
                .min_by_key(|f| f.item.end - f.item.start)
                .copied();
            assert_eq!(n.enclosing(s), scan, "at {at}");
        }
    }
}
