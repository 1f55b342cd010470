//! Selection ranges: the syntax nodes around the cursor, outermost first.

use crate::analysis::Analysis;
use opal_core::span::Span;
use opal_core::syntax::ast::Pattern;
use opal_core::syntax::ast::*;

/// Spans of the syntax nodes containing an offset, outermost first.
pub fn enclosing_spans(a: &Analysis, offset: u32) -> Vec<Span> {
    fn pat(p: &Pattern, o: u32, out: &mut Vec<Span>) {
        if contains(p.span(), o) {
            out.push(p.span());
            if let Pattern::Tuple(ps, _) = p {
                ps.iter().for_each(|q| pat(q, o, out));
            }
        }
    }
    fn expr(e: &Expr, o: u32, out: &mut Vec<Span>) {
        if !contains(e.span, o) {
            return;
        }
        out.push(e.span);
        match &e.kind {
            ExprKind::Fun(_, FunBody::Block(b)) => block(b, o, out),
            ExprKind::Fun(_, FunBody::Expr(x))
            | ExprKind::Paren(x)
            | ExprKind::Prj(_, x)
            | ExprKind::Not(x)
            | ExprKind::Neg(x) => expr(x, o, out),
            ExprKind::App(x, y) | ExprKind::Binary(_, x, y) => {
                expr(x, o, out);
                expr(y, o, out);
            }
            ExprKind::Tuple(xs) | ExprKind::List(xs) => xs.iter().for_each(|x| expr(x, o, out)),
            _ => e.sugar_children().into_iter().for_each(|x| expr(x, o, out)),
        }
    }
    fn block(b: &Block, o: u32, out: &mut Vec<Span>) {
        if let (Some(f), Some(l)) = (b.items.first(), b.items.last()) {
            let s = f.span.to(l.span);
            if contains(s, o) && b.items.len() > 1 {
                out.push(s);
            }
        }
        for item in &b.items {
            if !contains(item.span, o) {
                continue;
            }
            out.push(item.span);
            match &item.kind {
                ItemKind::Bind(p, e) => {
                    pat(p, o, out);
                    expr(e, o, out);
                }
                ItemKind::Rec(id, e) | ItemKind::Aug(id, _, e) => {
                    if contains(id.span, o) {
                        out.push(id.span);
                    }
                    expr(e, o, out);
                }
                ItemKind::Expr(e) | ItemKind::Ret(e) => expr(e, o, out),
                ItemKind::Extern(ids, _) => ids
                    .iter()
                    .filter(|id| contains(id.span, o))
                    .for_each(|id| out.push(id.span)),
                ItemKind::For(p, e, b) => {
                    pat(p, o, out);
                    expr(e, o, out);
                    block(b, o, out);
                }
                ItemKind::While(c, b) | ItemKind::DoWhile(b, c) => {
                    expr(c, o, out);
                    block(b, o, out);
                }
                ItemKind::If(bs, els) => {
                    for (c, b) in bs {
                        expr(c, o, out);
                        block(b, o, out);
                    }
                    if let Some(b) = els {
                        block(b, o, out);
                    }
                }
                ItemKind::Error => {}
            }
        }
    }
    let mut out = vec![Span::new(0, a.text.len())];
    block(a.block(), offset, &mut out);
    out.dedup();
    out
}

fn contains(s: Span, o: u32) -> bool {
    s.start <= o && o <= s.end
}
