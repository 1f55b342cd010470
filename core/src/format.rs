//! The canonical formatter: idempotent, keeps comments, 4-space indentation.

use crate::syntax::ast::*;
use crate::syntax::lexer::Comment;
use crate::syntax::parser::Parsed;
use std::fmt::Write;

/// Formats a parsed file. Callers must not format a file with syntax errors.
pub fn format(parsed: &Parsed) -> String {
    let mut f = Formatter {
        out: String::new(),
        comments: &parsed.comments,
        next: 0,
        blank: &parsed.blank_before,
    };
    f.block(&parsed.block, 0, u32::MAX, true);
    while f.next < f.comments.len() {
        let c = &f.comments[f.next];
        f.out.push_str(&c.text);
        f.out.push('\n');
        f.next += 1;
    }
    f.out
}

struct Formatter<'a> {
    out: String,
    comments: &'a [Comment],
    next: usize,
    blank: &'a [u32],
}

impl Formatter<'_> {
    fn own_line_comments_before(&mut self, pos: u32, indent: usize) {
        while self.next < self.comments.len() && self.comments[self.next].span.start < pos {
            let c = &self.comments[self.next];
            self.out.push_str(&" ".repeat(indent));
            self.out.push_str(&c.text);
            self.out.push('\n');
            self.next += 1;
        }
    }

    fn trailing_comments_before(&mut self, pos: u32) {
        while self.next < self.comments.len()
            && !self.comments[self.next].own_line
            && self.comments[self.next].span.start < pos
        {
            if self.out.ends_with('\n') {
                self.out.pop();
            }
            let c = &self.comments[self.next];
            self.out.push_str("  ");
            self.out.push_str(&c.text);
            self.out.push('\n');
            self.next += 1;
        }
    }

    fn block(&mut self, b: &Block, indent: usize, limit: u32, top: bool) {
        for (i, item) in b.items.iter().enumerate() {
            let next_start = b.items.get(i + 1).map(|n| n.span.start).unwrap_or(limit);
            let blank = self.blank.binary_search(&item.span.start).is_ok();
            if blank && (i > 0 || (top && self.next > 0)) {
                self.out.push('\n');
            }
            self.own_line_comments_before(item.span.start, indent);
            self.item(item, indent, next_start);
        }
    }

    fn body(&mut self, b: &Block, indent: usize, limit: u32) {
        let first = b.items.first().map(|i| i.span.start).unwrap_or(limit);
        self.trailing_comments_before(first);
        self.block(b, indent + 4, limit, false);
    }

    fn item(&mut self, item: &Item, indent: usize, next_start: u32) {
        let pad = " ".repeat(indent);
        self.out.push_str(&pad);
        match &item.kind {
            ItemKind::Bind(p, e) => {
                pattern(&mut self.out, p);
                self.out.push_str(" := ");
                self.expr(e, indent);
            }
            ItemKind::Aug(id, op, e) => {
                let _ = write!(self.out, "{} {} ", id.name, op.as_str());
                self.expr(e, indent);
            }
            ItemKind::Rec(id, e) => {
                let _ = write!(self.out, "rec {} := ", id.name);
                self.expr(e, indent);
            }
            ItemKind::Extern(ids, order) => {
                let names: Vec<&str> = ids.iter().map(|i| i.name.as_str()).collect();
                let class = order
                    .map(|o| format!("{} ", o.as_str()))
                    .unwrap_or_default();
                let _ = write!(self.out, "extern {class}{}", names.join(", "));
            }
            ItemKind::Ret(e) => {
                self.out.push_str("ret ");
                self.expr(e, indent);
            }
            ItemKind::Expr(e) => self.expr(e, indent),
            ItemKind::For(p, e, b) => {
                self.out.push_str("for ");
                pattern(&mut self.out, p);
                self.out.push_str(" in ");
                self.expr(e, indent);
                self.out.push_str(":\n");
                self.body(b, indent, next_start);
                return;
            }
            ItemKind::If(arms, els) => {
                for (i, (c, b)) in arms.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(&pad);
                        self.out.push_str("elif ");
                    } else {
                        self.out.push_str("if ");
                    }
                    self.expr(c, indent);
                    self.out.push_str(":\n");
                    let lim = arms
                        .get(i + 1)
                        .map(|a| a.0.span.start)
                        .or(els
                            .as_ref()
                            .and_then(|e| e.items.first().map(|i| i.span.start)))
                        .unwrap_or(next_start);
                    self.body(b, indent, lim);
                }
                if let Some(b) = els {
                    self.out.push_str(&pad);
                    self.out.push_str("else:\n");
                    self.body(b, indent, next_start);
                }
                return;
            }
            ItemKind::While(c, b) => {
                self.out.push_str("while ");
                self.expr(c, indent);
                self.out.push_str(":\n");
                self.body(b, indent, next_start);
                return;
            }
            ItemKind::DoWhile(b, c) => {
                self.out.push_str("do:\n");
                self.body(b, indent, c.span.start);
                self.out.push_str(&pad);
                self.out.push_str("while ");
                self.expr(c, indent);
            }
            ItemKind::Error => {}
        }
        if !self.out.ends_with('\n') {
            self.out.push('\n');
        }
        self.trailing_comments_before(next_start);
    }

    fn expr(&mut self, e: &Expr, indent: usize) {
        match &e.kind {
            ExprKind::Name(id) => self.out.push_str(&id.name),
            ExprKind::Lit(l) => lit(&mut self.out, l),
            ExprKind::Prim(l) => {
                self.out.push('<');
                lit(&mut self.out, l);
                self.out.push('>');
            }
            ExprKind::PrimName(id) => {
                let _ = write!(self.out, "<{}>", id.name);
            }
            ExprKind::Unit => self.out.push_str("()"),
            ExprKind::Paren(x) => {
                self.out.push('(');
                self.expr(x, indent);
                self.out.push(')');
            }
            ExprKind::Tuple(es) => {
                self.out.push('(');
                self.list(es, indent);
                if es.len() == 1 {
                    self.out.push(',');
                }
                self.out.push(')');
            }
            ExprKind::List(es) => {
                self.out.push('[');
                self.list(es, indent);
                self.out.push(']');
            }
            ExprKind::Prj(i, x) => {
                let _ = write!(self.out, "prj {i} ");
                self.expr(x, indent);
            }
            ExprKind::Amp(id) => {
                let _ = write!(self.out, "&{}", id.name);
            }
            ExprKind::Fun(params, body) => self.fun(params, body, e.span.end, indent),
            ExprKind::Binary(op, a, b) => {
                self.expr(a, indent);
                let _ = write!(self.out, " {} ", op.as_str());
                self.expr(b, indent);
            }
            ExprKind::Not(x) => {
                self.out.push_str("not ");
                self.expr(x, indent);
            }
            ExprKind::Neg(x) => {
                self.out.push('-');
                self.expr(x, indent);
            }
            ExprKind::App(f, x) => self.app(f, x, indent),
            ExprKind::Index(x, i) => {
                self.expr(x, indent);
                self.out.push('[');
                self.expr(i, indent);
                self.out.push(']');
            }
            ExprKind::Cond(a, c, b) => {
                self.expr(a, indent);
                self.out.push_str(" if ");
                self.expr(c, indent);
                self.out.push_str(" else ");
                self.expr(b, indent);
            }
            ExprKind::FStr(parts) => self.fstring(parts, indent),
            ExprKind::Dict(kvs) => self.dict(kvs, indent),
            ExprKind::Error => {}
        }
    }

    /// `fun params: body`; `end` is where the lambda ends, the limit for
    /// comments when the body is a block with no items.
    fn fun(&mut self, params: &Params, body: &FunBody, end: u32, indent: usize) {
        self.out.push_str("fun ");
        match params {
            Params::Name(id) => self.out.push_str(&id.name),
            Params::Unit(_) => self.out.push_str("()"),
            Params::List(ps, _) => {
                self.out.push('(');
                for (i, p) in ps.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    match p {
                        Param::Amp(id) => {
                            let _ = write!(self.out, "&{}", id.name);
                        }
                        Param::Pat(p) => pattern(&mut self.out, p),
                    }
                }
                self.out.push(')');
            }
        }
        match body {
            FunBody::Expr(x) => {
                self.out.push_str(": ");
                self.expr(x, indent);
            }
            FunBody::Block(b) => {
                self.out.push_str(":\n");
                let limit = b.items.last().map(|i| i.span.end + 1).unwrap_or(end);
                self.body(b, indent, limit);
            }
        }
    }

    fn app(&mut self, f: &Expr, x: &Expr, indent: usize) {
        self.expr(f, indent);
        self.out.push(' ');
        // A single threaded handle is written `f (&h)`, as in the paper.
        let amp = matches!(x.kind, ExprKind::Amp(_));
        if amp {
            self.out.push('(');
        }
        self.expr(x, indent);
        if amp {
            self.out.push(')');
        }
    }

    fn fstring(&mut self, parts: &[FPart], indent: usize) {
        self.out.push_str("f\"");
        for part in parts {
            match part {
                FPart::Lit(s) => {
                    let mut quoted = String::new();
                    let _ = crate::ir::write_str_lit(&mut quoted, s);
                    let inner = &quoted[1..quoted.len() - 1];
                    // Literal braces are doubled so they do not open a hole.
                    self.out
                        .push_str(&inner.replace('{', "{{").replace('}', "}}"));
                }
                FPart::Expr(x) => {
                    self.out.push('{');
                    self.expr(x, indent);
                    self.out.push('}');
                }
            }
        }
        self.out.push('"');
    }

    fn dict(&mut self, kvs: &[(Expr, Expr)], indent: usize) {
        self.out.push('{');
        for (i, (k, v)) in kvs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.expr(k, indent);
            self.out.push_str(": ");
            self.expr(v, indent);
        }
        self.out.push('}');
    }

    fn list(&mut self, es: &[Expr], indent: usize) {
        for (i, x) in es.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.expr(x, indent);
        }
    }
}

fn pattern(out: &mut String, p: &Pattern) {
    match p {
        Pattern::Name(id) => out.push_str(&id.name),
        Pattern::Wild(_) => out.push('_'),
        Pattern::Unit(_) => out.push_str("()"),
        Pattern::Tuple(ps, _) => {
            out.push('(');
            for (i, p) in ps.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                pattern(out, p);
            }
            if ps.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
    }
}

fn lit(out: &mut String, l: &Lit) {
    match l {
        Lit::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Lit::Float(f) => {
            let _ = crate::ir::write_float(out, *f);
        }
        Lit::Str(s) => {
            let _ = crate::ir::write_str_lit(out, s);
        }
    }
}
