//! Folding ranges: every statement over several lines, and runs of comment lines.

use crate::analysis::Analysis;
use opal_core::span::Span;
use opal_core::syntax::ast::*;

/// A fold over whole lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fold {
    pub start_line: u32,
    pub end_line: u32,
    pub kind: FoldKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoldKind {
    /// A statement over several lines.
    Region,
    /// A run of comment lines.
    Comment,
}

pub fn folding_ranges(a: &Analysis) -> Vec<Fold> {
    let mut out = Vec::new();
    fold_block(a, a.block(), &mut out);
    // Runs of two or more comment lines.
    let mut run: Option<(u32, u32)> = None;
    for c in a.compiled.parsed.comments.iter().filter(|c| c.own_line) {
        let l = a.lines.line_of(c.span.start) as u32;
        run = match run {
            Some((s, e)) if e + 1 == l => Some((s, l)),
            Some((s, e)) => {
                push_fold(&mut out, s, e, FoldKind::Comment);
                Some((l, l))
            }
            None => Some((l, l)),
        };
    }
    if let Some((s, e)) = run {
        push_fold(&mut out, s, e, FoldKind::Comment);
    }
    out.sort_by_key(|f| (f.start_line, f.end_line));
    out
}

fn push_fold(out: &mut Vec<Fold>, start: u32, end: u32, kind: FoldKind) {
    if end > start {
        out.push(Fold {
            start_line: start,
            end_line: end,
            kind,
        });
    }
}

/// The line of the last character of a span that is not a blank or a line break.
fn last_line(a: &Analysis, span: Span) -> u32 {
    let text = a
        .text
        .get(span.start as usize..(span.end as usize).min(a.text.len()))
        .unwrap_or("");
    let end = span.start + text.trim_end().len() as u32;
    a.lines.line_of(end.saturating_sub(1).max(span.start)) as u32
}

fn fold_block(a: &Analysis, b: &Block, out: &mut Vec<Fold>) {
    for item in &b.items {
        crate::cancel::check();
        let (s, e) = (
            a.lines.line_of(item.span.start) as u32,
            last_line(a, item.span),
        );
        push_fold(out, s, e, FoldKind::Region);
        for_each_child_block(item, &mut |blk| fold_block(a, blk, out));
    }
}

pub(crate) fn for_each_child_block<'a>(item: &'a Item, f: &mut dyn FnMut(&'a Block)) {
    fn expr<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Block)) {
        match &e.kind {
            ExprKind::Fun(_, FunBody::Block(b)) => f(b),
            ExprKind::Fun(_, FunBody::Expr(x)) | ExprKind::Paren(x) => expr(x, f),
            ExprKind::App(x, y) | ExprKind::Binary(_, x, y) => {
                expr(x, f);
                expr(y, f);
            }
            ExprKind::Tuple(xs) | ExprKind::List(xs) => xs.iter().for_each(|x| expr(x, f)),
            _ => e.sugar_children().into_iter().for_each(|x| expr(x, f)),
        }
    }
    match &item.kind {
        ItemKind::Bind(_, e)
        | ItemKind::Rec(_, e)
        | ItemKind::Expr(e)
        | ItemKind::Ret(e)
        | ItemKind::Aug(_, _, e) => expr(e, f),
        ItemKind::For(_, _, b) | ItemKind::While(_, b) | ItemKind::DoWhile(b, _) => f(b),
        ItemKind::If(bs, els) => {
            bs.iter().for_each(|(_, b)| f(b));
            if let Some(b) = els {
                f(b);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::WorldInfo;

    fn analysis(src: &str) -> Analysis {
        Analysis::new(src.to_string(), WorldInfo::default())
    }

    #[test]
    fn folds_end_on_the_last_line_of_their_block() {
        let src = "f := fun (a, b):\n    c := a + b\n    ret c\n\ng := fun x:\n    ret x\nif f (1, 2) > 2:\n    print (&stdout, 1)\n";
        let a = analysis(src);
        let folds: Vec<(u32, u32)> = folding_ranges(&a)
            .iter()
            .map(|f| (f.start_line, f.end_line))
            .collect();
        assert_eq!(folds, vec![(0, 2), (4, 5), (6, 7)]);
        for brk in ["\r\n", "\r"] {
            let other = analysis(&src.replace('\n', brk));
            assert_eq!(
                folding_ranges(&other)
                    .iter()
                    .map(|f| (f.start_line, f.end_line))
                    .collect::<Vec<_>>(),
                folds,
                "{brk:?}"
            );
        }
    }
}
