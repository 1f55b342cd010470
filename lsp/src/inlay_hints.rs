//! Inlay hints: the labels of the core statements each top-level statement desugars to, and
//! the variables loops and `if`s thread.

use crate::analysis::Analysis;
use opal_core::desugar::assigned;
use opal_core::externals;
use opal_core::names::FastMap;
use opal_core::span::Span;
use opal_core::syntax::ast::Pattern;
use opal_core::syntax::ast::*;

/// What a hint shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HintKind {
    /// The initial labels of the core statements a top-level statement desugars to.
    Labels,
    /// The variables a loop or an `if` threads.
    Threads,
}

impl HintKind {
    /// The name the server puts in a hint's `data`, for `inlayHint/resolve`.
    pub fn as_str(self) -> &'static str {
        match self {
            HintKind::Labels => "labels",
            HintKind::Threads => "threads",
        }
    }

    pub fn from_name(s: &str) -> Option<HintKind> {
        [HintKind::Labels, HintKind::Threads]
            .into_iter()
            .find(|k| k.as_str() == s)
    }

    /// The hint's tooltip (left out of the first answer to keep big answers small).
    pub fn tooltip(self) -> &'static str {
        match self {
            HintKind::Labels => "initial label(s) of the core statements this line desugars to (SEMANTICS.md §2)",
            HintKind::Threads => "variables bound before and rebound inside: passed in and returned by the desugared function (LANGUAGE.md §3.6)",
        }
    }
}

/// A hint: a label shown at an offset (after the text there).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlayHint {
    pub offset: u32,
    pub label: String,
    pub kind: HintKind,
}

/// Label hints after each top-level statement and `threads …` hints after loop and `if`
/// headers, for the items that overlap `range`. One walk of the syntax tree with the names in
/// scope kept on a stack, and one pass over the core statements: linear in the file.
pub fn inlay_hints(a: &Analysis, range: Span) -> Vec<InlayHint> {
    let mut out = Vec::new();
    let items = &a.block().items;
    // A range costs what it touches: the items before it are skipped by binary search, and
    // the names they bind are looked up in a per-analysis table instead of walked.
    let from = items.partition_point(|it| it.span.end < range.start);
    let labels = a.label_ranges();
    let mut scope = Scope {
        earlier: Some((a.top_binders.get_or_init(|| top_binders(items)), from)),
        ..Scope::default()
    };
    for (item, labels) in items[from..].iter().zip(&labels[from..]) {
        crate::cancel::check();
        if item.span.start > range.end {
            break;
        }
        let line = a.lines.line_of(item.span.start);
        let eol = a.lines.line_start(line) + line_len(a, line);
        if let Some(labels) = labels {
            // The tooltip comes with `inlayHint/resolve` (50 000 lines make 28 000 hints).
            out.push(InlayHint {
                offset: eol,
                label: format!("@{labels}"),
                kind: HintKind::Labels,
            });
        }
        threaded_hints(a, item, &mut scope, &mut out);
        scope.bind_item(item);
    }
    out
}

/// For each name a top-level item binds, the index of the first such item.
fn top_binders(items: &[Item]) -> FastMap<String, usize> {
    let mut first = FastMap::default();
    for (k, item) in items.iter().enumerate() {
        let mut scope = Scope::default();
        scope.bind_item(item);
        for n in scope.names {
            first.entry(n).or_insert(k);
        }
    }
    first
}

/// A line's length in bytes without its line break (`\n` or `\r\n`).
pub fn line_len(a: &Analysis, line: usize) -> u32 {
    let t = a.lines.line_text(&a.text, line);
    t.strip_suffix('\r').unwrap_or(t).len() as u32
}

/// The names in scope during a walk: a stack, with counts for lookups, over the names that
/// the top-level items before the walk's first item bind.
#[derive(Default)]
struct Scope<'a> {
    names: Vec<String>,
    count: FastMap<String, u32>,
    earlier: Option<(&'a FastMap<String, usize>, usize)>,
}

impl Scope<'_> {
    fn push(&mut self, n: &str) {
        self.names.push(n.to_string());
        *self.count.entry(n.to_string()).or_default() += 1;
    }

    fn mark(&self) -> usize {
        self.names.len()
    }

    fn pop_to(&mut self, mark: usize) {
        for n in self.names.drain(mark..) {
            if let Some(c) = self.count.get_mut(&n) {
                *c -= 1;
                if *c == 0 {
                    self.count.remove(&n);
                }
            }
        }
    }

    fn has(&self, n: &str) -> bool {
        self.count.contains_key(n)
            || self
                .earlier
                .is_some_and(|(first, from)| first.get(n).is_some_and(|&k| k < from))
    }

    fn pattern(&mut self, p: &Pattern) {
        let mut names = Vec::new();
        p.names(&mut names);
        names.iter().for_each(|id| self.push(&id.name));
    }

    /// What an item binds for the items after it in its block.
    fn bind_item(&mut self, item: &Item) {
        match &item.kind {
            ItemKind::Bind(p, _) => self.pattern(p),
            ItemKind::Aug(id, _, _) | ItemKind::Rec(id, _) => self.push(&id.name),
            ItemKind::Extern(ids, _) => ids.iter().for_each(|id| self.push(&id.name)),
            _ => {}
        }
    }

    fn params(&mut self, ps: &Params) {
        match ps {
            Params::Name(id) => self.push(&id.name),
            Params::Unit(_) => {}
            Params::List(list, _) => {
                for p in list {
                    match p {
                        Param::Pat(p) => self.pattern(p),
                        Param::Amp(id) => self.push(&id.name),
                    }
                }
            }
        }
    }
}

/// For a loop or an `if`: the variables it threads (bound before it, rebound inside); then
/// the same for the items nested in it, with `scope` the names visible at the item.
fn threaded_hints(a: &Analysis, item: &Item, scope: &mut Scope, out: &mut Vec<InlayHint>) {
    let blocks: Vec<&Block> = match &item.kind {
        ItemKind::For(_, _, b) | ItemKind::While(_, b) | ItemKind::DoWhile(b, _) => vec![b],
        ItemKind::If(bs, els) => bs.iter().map(|(_, b)| b).chain(els.iter()).collect(),
        ItemKind::Rec(id, e) => {
            let m = scope.mark();
            scope.push(&id.name);
            expr_hints(a, e, scope, out);
            scope.pop_to(m);
            return;
        }
        ItemKind::Bind(_, e) | ItemKind::Ret(e) | ItemKind::Expr(e) | ItemKind::Aug(_, _, e) => {
            expr_hints(a, e, scope, out);
            return;
        }
        _ => return,
    };
    let mut names = Vec::new();
    for b in &blocks {
        assigned(b, &mut names);
    }
    let threaded: Vec<String> = names
        .into_iter()
        .filter(|n| scope.has(n) || externals::handle_root(n).is_some())
        .collect();
    if !threaded.is_empty() {
        let line = a.lines.line_of(item.span.start);
        let header = &a.lines.line_text(&a.text, line)[..line_len(a, line) as usize];
        let col = header.rfind(':').map(|c| c + 1).unwrap_or(header.len()) as u32;
        out.push(InlayHint {
            offset: a.lines.line_start(line) + col,
            label: format!("threads {}", threaded.join(", ")),
            kind: HintKind::Threads,
        });
    }
    let m = scope.mark();
    if let ItemKind::For(p, _, _) = &item.kind {
        scope.pattern(p);
    }
    for b in blocks {
        block_hints(a, b, scope, out);
    }
    scope.pop_to(m);
}

fn block_hints(a: &Analysis, b: &Block, scope: &mut Scope, out: &mut Vec<InlayHint>) {
    let m = scope.mark();
    for i in &b.items {
        threaded_hints(a, i, scope, out);
        scope.bind_item(i);
    }
    scope.pop_to(m);
}

fn expr_hints(a: &Analysis, e: &Expr, scope: &mut Scope, out: &mut Vec<InlayHint>) {
    match &e.kind {
        ExprKind::Fun(ps, body) => {
            let m = scope.mark();
            scope.params(ps);
            match body {
                FunBody::Block(b) => block_hints(a, b, scope, out),
                FunBody::Expr(x) => expr_hints(a, x, scope, out),
            }
            scope.pop_to(m);
        }
        ExprKind::Paren(x) | ExprKind::Prj(_, x) | ExprKind::Not(x) | ExprKind::Neg(x) => {
            expr_hints(a, x, scope, out)
        }
        ExprKind::App(x, y) | ExprKind::Binary(_, x, y) => {
            expr_hints(a, x, scope, out);
            expr_hints(a, y, scope, out);
        }
        ExprKind::Tuple(xs) | ExprKind::List(xs) => {
            xs.iter().for_each(|x| expr_hints(a, x, scope, out))
        }
        _ => e
            .sugar_children()
            .into_iter()
            .for_each(|x| expr_hints(a, x, scope, out)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::WorldInfo;

    fn analysis(src: &str) -> Analysis {
        Analysis::new(src.to_string(), WorldInfo::default())
    }

    const NESTED: &str = "total := 0\nf := fun (n, h):\n    acc := n\n    for x in [1, 2]:\n        acc += x\n        if acc > 2:\n            h := h\n    ret acc\nfor y in [1, 2]:\n    total += y\nprint (&stdout, total)\n";

    fn hints(src: &str) -> String {
        let a = Analysis::new(src.to_string(), WorldInfo::default());
        inlay_hints(&a, Span::new(0, src.len()))
            .iter()
            .map(|h| {
                let at = a.pos().line_col(h.offset);
                format!("{}:{} {}", at.line, at.col, h.label)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn inlay_hints_follow_nested_scopes() {
        insta::assert_snapshot!("inlay_hints_nested", hints(NESTED));
    }

    #[test]
    fn range_hints_are_the_whole_file_hints_of_the_items_it_touches() {
        // Names bound by items before the range must still count as threaded inside it.
        let src =
            format!("{NESTED}count := 0\nwhile count < 3:\n    count += 1\n    total += count\n");
        let a = analysis(&src);
        let all: Vec<(u32, u32, String)> = inlay_hints(&a, Span::new(0, src.len()))
            .into_iter()
            .map(|h| (a.pos().line_col(h.offset), h.label))
            .map(|(p, l)| (p.line, p.col, l))
            .collect();
        assert!(
            all.iter().any(|h| h.2.contains("threads count, total")),
            "{all:?}"
        );
        let lines = src.lines().count();
        for first in 0..lines {
            for last in first..lines {
                let range = Span::new(
                    a.lines.line_start(first) as usize,
                    (a.lines.line_start(last) + line_len(&a, last)) as usize,
                );
                let items: Vec<&Item> = a
                    .block()
                    .items
                    .iter()
                    .filter(|it| it.span.end >= range.start && it.span.start <= range.end)
                    .collect();
                let expect: Vec<_> = match (items.first(), items.last()) {
                    (Some(f), Some(l)) => {
                        let (lo, hi) = (
                            a.lines.line_of(f.span.start) as u32,
                            a.lines.line_of(l.span.end.saturating_sub(1)) as u32,
                        );
                        all.iter()
                            .filter(|h| lo <= h.0 && h.0 <= hi)
                            .cloned()
                            .collect()
                    }
                    _ => vec![],
                };
                let got: Vec<_> = inlay_hints(&a, range)
                    .into_iter()
                    .map(|h| (a.pos().line_col(h.offset), h.label))
                    .map(|(p, l)| (p.line, p.col, l))
                    .collect();
                assert_eq!(got, expect, "lines {first}..={last}");
            }
        }
    }

    #[test]
    fn inlay_hints_sit_before_a_crlf_or_a_lone_cr() {
        assert_eq!(hints(&NESTED.replace('\n', "\r\n")), hints(NESTED));
        assert_eq!(hints(&NESTED.replace('\n', "\r")), hints(NESTED));
    }
}
