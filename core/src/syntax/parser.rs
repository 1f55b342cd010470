//! Recursive-descent parser with error recovery and bounded nesting.
//!
//! Nesting (parentheses, blocks, expression height) is capped at [`MAX_DEPTH`]: deeper input
//! gets one E0007 diagnostic instead of a stack overflow, here or in any later pass.

use super::ast::*;
use super::lexer::{lex, Comment, FTok, Kw, PrimTok, Tok, Token};
use crate::diag::Diagnostic;
use crate::span::Span;

pub const MAX_DEPTH: u32 = 200;

pub struct Parsed {
    pub block: Block,
    pub comments: Vec<Comment>,
    pub blank_before: Vec<u32>,
    pub diags: Vec<Diagnostic>,
}

pub fn parse(src: &str) -> Parsed {
    let lexed = lex(src);
    let mut p = Parser {
        src,
        toks: lexed.tokens,
        pos: 0,
        diags: lexed.diags,
        depth: 0,
        too_deep_reported: false,
    };
    let block = p.block(true);
    Parsed {
        block,
        comments: lexed.comments,
        blank_before: lexed.blank_before,
        diags: p.diags,
    }
}

/// Parses one expression (used for world-file results and typed-in resolutions).
pub fn parse_expr_source(src: &str) -> Result<Expr, Vec<Diagnostic>> {
    let lexed = lex(src);
    let mut p = Parser {
        src,
        toks: lexed.tokens,
        pos: 0,
        diags: lexed.diags,
        depth: 0,
        too_deep_reported: false,
    };
    while p.at(&Tok::Newline) {
        p.pos += 1;
    }
    let e = p.expr(0);
    while p.at(&Tok::Newline) || p.at(&Tok::Dedent) || p.at(&Tok::Indent) {
        p.pos += 1;
    }
    if !p.at(&Tok::Eof) {
        let sp = p.span();
        p.diags.push(Diagnostic::error(
            "E0001",
            sp,
            "unexpected text after the expression",
        ));
    }
    match e {
        Ok(e) if !p.diags.iter().any(|d| d.is_error()) => Ok(e),
        _ => Err(p.diags),
    }
}

struct Parser<'s> {
    src: &'s str,
    toks: Vec<Token>,
    pos: usize,
    diags: Vec<Diagnostic>,
    depth: u32,
    too_deep_reported: bool,
}

type PResult<T> = Result<T, ()>;

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => format!("name `{s}`"),
        Tok::Int(i) => format!("number `{i}`"),
        Tok::Float(f) => format!("number `{f}`"),
        Tok::Str(_) => "a string".into(),
        Tok::FStr(_) => "an f-string".into(),
        Tok::Prim(_) | Tok::PrimName(_) => "a primitive literal".into(),
        Tok::Kw(k) => format!("keyword `{}`", k.as_str()),
        Tok::Punct(p) => format!("`{p}`"),
        Tok::Newline => "end of line".into(),
        Tok::Indent => "an indented block".into(),
        Tok::Dedent => "end of block".into(),
        Tok::Eof => "end of file".into(),
    }
}

impl<'s> Parser<'s> {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos.min(self.toks.len() - 1)].tok
    }
    fn peek_at(&self, n: usize) -> &Tok {
        &self.toks[(self.pos + n).min(self.toks.len() - 1)].tok
    }
    fn span(&self) -> Span {
        self.toks[self.pos.min(self.toks.len() - 1)].span
    }
    fn prev_span(&self) -> Span {
        self.toks[self.pos.saturating_sub(1).min(self.toks.len() - 1)].span
    }
    fn at(&self, t: &Tok) -> bool {
        self.peek() == t
    }
    fn at_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }
    fn at_kw(&self, k: Kw) -> bool {
        matches!(self.peek(), Tok::Kw(q) if *q == k)
    }
    fn bump(&mut self) -> Token {
        let t = self.toks[self.pos.min(self.toks.len() - 1)].clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    fn eat_punct(&mut self, p: &str) -> bool {
        if self.at_punct(p) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn error_here(&mut self, what: &str) {
        let sp = self.span();
        let found = describe(self.peek());
        self.diags.push(Diagnostic::error(
            "E0001",
            sp,
            format!("expected {what}, found {found}"),
        ));
    }
    fn expect_punct(&mut self, p: &'static str) -> PResult<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            self.error_here(&format!("`{p}`"));
            Err(())
        }
    }
    fn ident(&mut self) -> PResult<Ident> {
        if let Tok::Ident(name) = self.peek().clone() {
            let span = self.bump().span;
            Ok(Ident { name, span })
        } else {
            self.error_here("a name");
            Err(())
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            if !self.too_deep_reported {
                self.too_deep_reported = true;
                let sp = self.span();
                self.diags.push(
                    Diagnostic::error(
                        "E0007",
                        sp,
                        format!("nesting deeper than {MAX_DEPTH} levels"),
                    )
                    .with_help("bind inner parts to names with `:=` to flatten the program"),
                );
            }
            return Err(());
        }
        Ok(())
    }

    /// Skips to the end of the current line (and any block that hangs off it).
    fn recover_line(&mut self) {
        let mut depth = 0i32;
        loop {
            match self.peek() {
                Tok::Eof => return,
                Tok::Newline if depth == 0 => {
                    // A block may hang off this line: skip it too.
                    if matches!(self.peek_at(1), Tok::Indent) {
                        self.bump();
                        continue;
                    }
                    return;
                }
                Tok::Indent => depth += 1,
                Tok::Dedent => {
                    if depth == 0 {
                        return;
                    }
                    depth -= 1;
                    if depth == 0 {
                        self.bump();
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    fn block(&mut self, top: bool) -> Block {
        let mut items = Vec::new();
        loop {
            match self.peek() {
                Tok::Eof => break,
                Tok::Dedent if !top => break,
                Tok::Dedent | Tok::Newline | Tok::Punct(";") => {
                    self.bump();
                    continue;
                }
                Tok::Indent => {
                    let sp = self.span();
                    self.diags.push(
                        Diagnostic::error("E0008", sp, "unexpected indentation")
                            .with_help("indent a line only after a line ending in `:`"),
                    );
                    self.bump();
                    continue;
                }
                _ => {}
            }
            let start = self.span();
            let before = self.pos;
            let kind = match self.item() {
                Ok(k) => k,
                Err(()) => {
                    self.recover_line();
                    ItemKind::Error
                }
            };
            let span = start.to(self.prev_span());
            let compound = matches!(self.toks[self.pos.saturating_sub(1)].tok, Tok::Dedent);
            items.push(Item { kind, span });
            match self.peek() {
                Tok::Newline | Tok::Punct(";") => {
                    self.bump();
                }
                Tok::Eof => {}
                Tok::Dedent if !top => {}
                _ if compound => {}
                _ => {
                    self.error_here("end of line");
                    self.recover_line();
                }
            }
            if self.pos == before {
                self.bump();
            }
        }
        Block { items }
    }

    /// `:` then either an indented block or a one-line item.
    fn body(&mut self) -> PResult<Block> {
        self.expect_punct(":")?;
        if self.at(&Tok::Newline) {
            self.bump();
            if !self.at(&Tok::Indent) {
                self.error_here("an indented block");
                return Err(());
            }
            self.bump();
            self.enter()?;
            let b = self.block(false);
            self.depth -= 1;
            if self.at(&Tok::Dedent) {
                self.bump();
            }
            Ok(b)
        } else {
            let start = self.span();
            self.enter()?;
            let kind = self.item();
            self.depth -= 1;
            let kind = kind?;
            Ok(Block {
                items: vec![Item {
                    kind,
                    span: start.to(self.prev_span()),
                }],
            })
        }
    }

    /// After a one-line body, `elif`/`else`/`while` may follow on the next line.
    fn continues_with(&mut self, k: Kw) -> bool {
        if self.at_kw(k) {
            return true;
        }
        if self.at(&Tok::Newline) && matches!(self.peek_at(1), Tok::Kw(q) if *q == k) {
            self.bump();
            return true;
        }
        false
    }

    fn item(&mut self) -> PResult<ItemKind> {
        match self.peek().clone() {
            Tok::Kw(Kw::Extern) => self.extern_item(),
            Tok::Kw(Kw::Rec) => self.rec_item(),
            Tok::Kw(Kw::For) => self.for_item(),
            Tok::Kw(Kw::If) => self.if_item(),
            Tok::Kw(Kw::While) => {
                self.bump();
                let c = self.expr(0)?;
                let b = self.body()?;
                Ok(ItemKind::While(c, b))
            }
            Tok::Kw(Kw::Do) => self.do_while_item(),
            Tok::Kw(Kw::Ret) => {
                self.bump();
                Ok(ItemKind::Ret(self.expr(0)?))
            }
            Tok::Ident(ref w)
                if (w == "break" || w == "continue")
                    && matches!(self.peek_at(1), Tok::Newline | Tok::Eof | Tok::Dedent) =>
            {
                self.loop_jump(w)
            }
            _ => self.expr_item(),
        }
    }

    /// `extern [ORDER] NAME, ...`.
    fn extern_item(&mut self) -> PResult<ItemKind> {
        self.bump();
        // `extern sequential f` declares f's class; `extern sequential` alone (or
        // followed by `,`) still declares an external named `sequential`.
        let order = match (self.peek(), self.peek_at(1)) {
            (Tok::Ident(w), Tok::Ident(_)) => Order::parse(w),
            _ => None,
        };
        if order.is_some() {
            self.bump();
        }
        let mut names = vec![self.ident()?];
        while self.eat_punct(",") {
            names.push(self.ident()?);
        }
        Ok(ItemKind::Extern(names, order))
    }

    /// `rec NAME := fun ...`.
    fn rec_item(&mut self) -> PResult<ItemKind> {
        self.bump();
        let name = self.ident()?;
        if !self.eat_punct(":=") {
            self.error_here("`:=` after `rec NAME`");
            return Err(());
        }
        if !self.at_kw(Kw::Fun) {
            self.error_here("`fun` (a `rec` binding defines a recursive function)");
            return Err(());
        }
        let f = self.expr(0)?;
        Ok(ItemKind::Rec(name, f))
    }

    /// `for PATTERN in EXPR: BODY`.
    fn for_item(&mut self) -> PResult<ItemKind> {
        self.bump();
        let pat = self.pattern()?;
        if !self.at_kw(Kw::In) {
            self.error_here("`in`");
            return Err(());
        }
        self.bump();
        let iter = self.expr(0)?;
        let body = self.body()?;
        Ok(ItemKind::For(pat, iter, body))
    }

    /// `if C: B`, then any number of `elif C: B` and at most one `else: B`.
    fn if_item(&mut self) -> PResult<ItemKind> {
        self.bump();
        let c = self.expr(0)?;
        let b = self.body()?;
        let mut arms = vec![(c, b)];
        let mut els = None;
        loop {
            if self.continues_with(Kw::Elif) {
                self.bump();
                let c = self.expr(0)?;
                let b = self.body()?;
                arms.push((c, b));
            } else if self.continues_with(Kw::Else) {
                self.bump();
                els = Some(self.body()?);
                break;
            } else {
                break;
            }
        }
        Ok(ItemKind::If(arms, els))
    }

    /// `do: BODY` followed by `while CONDITION`.
    fn do_while_item(&mut self) -> PResult<ItemKind> {
        self.bump();
        let b = self.body()?;
        if !self.continues_with(Kw::While) {
            self.error_here("`while CONDITION` after the `do` block");
            return Err(());
        }
        self.bump();
        let c = self.expr(0)?;
        Ok(ItemKind::DoWhile(b, c))
    }

    /// A bare `break` or `continue`: OPAL has neither, so say what to write instead.
    fn loop_jump(&mut self, w: &str) -> PResult<ItemKind> {
        let sp = self.bump().span;
        self.diags.push(
            Diagnostic::error("E0006", sp, format!("`{w}` does not exist in OPAL"))
                .with_help("loops are folds over lists; use `while CONDITION:` or `do: … while CONDITION` to stop early"),
        );
        Ok(ItemKind::Error)
    }

    /// An item that starts with an expression: the expression itself, a binding
    /// `PAT := EXPR` (or the mistaken `PAT = EXPR`), or an update `NAME += EXPR`.
    fn expr_item(&mut self) -> PResult<ItemKind> {
        let e = self.expr(0)?;
        match self.peek().clone() {
            Tok::Punct(":=") => {
                self.bump();
                let pat = self.expr_to_pattern(&e)?;
                let rhs = self.expr(0)?;
                Ok(ItemKind::Bind(pat, rhs))
            }
            Tok::Punct("=") => {
                let sp = self.bump().span;
                self.diags.push(
                    Diagnostic::error("E0005", sp, "`=` is not a binding in OPAL")
                        .with_help("bind with `:=`, e.g. `x := 1`; compare with `==`")
                        .with_fix(":="),
                );
                let pat = self.expr_to_pattern(&e)?;
                let rhs = self.expr(0)?;
                Ok(ItemKind::Bind(pat, rhs))
            }
            Tok::Punct(p @ ("+=" | "-=" | "++=")) => {
                self.bump();
                let op = match p {
                    "+=" => AugOp::Add,
                    "-=" => AugOp::Sub,
                    _ => AugOp::Concat,
                };
                let ExprKind::Name(id) = e.kind else {
                    self.diags.push(Diagnostic::error(
                        "E0001",
                        e.span,
                        format!("`{p}` needs a name on its left"),
                    ));
                    return Err(());
                };
                let rhs = self.expr(0)?;
                Ok(ItemKind::Aug(id, op, rhs))
            }
            _ => Ok(ItemKind::Expr(e)),
        }
    }

    fn expr_to_pattern(&mut self, e: &Expr) -> PResult<Pattern> {
        match &e.kind {
            ExprKind::Name(id) if id.name == "_" => Ok(Pattern::Wild(id.span)),
            ExprKind::Name(id) => Ok(Pattern::Name(id.clone())),
            ExprKind::Unit => Ok(Pattern::Unit(e.span)),
            ExprKind::Paren(inner) => self.expr_to_pattern(inner),
            ExprKind::Tuple(es) => {
                let mut ps = Vec::new();
                for x in es {
                    ps.push(self.expr_to_pattern(x)?);
                }
                Ok(Pattern::Tuple(ps, e.span))
            }
            _ => {
                self.diags.push(
                    Diagnostic::error("E0001", e.span, "cannot bind to this expression")
                        .with_help("the left of `:=` is a name, `_`, `()` or a tuple of those"),
                );
                Err(())
            }
        }
    }

    fn pattern(&mut self) -> PResult<Pattern> {
        self.enter()?;
        let r = self.pattern_inner();
        self.depth -= 1;
        r
    }

    fn pattern_inner(&mut self) -> PResult<Pattern> {
        match self.peek().clone() {
            Tok::Ident(n) => {
                let span = self.bump().span;
                if n == "_" {
                    Ok(Pattern::Wild(span))
                } else {
                    Ok(Pattern::Name(Ident { name: n, span }))
                }
            }
            Tok::Punct("(") => {
                let start = self.bump().span;
                if self.eat_punct(")") {
                    return Ok(Pattern::Unit(start.to(self.prev_span())));
                }
                let mut ps = vec![self.pattern()?];
                let mut trailing = false;
                while self.eat_punct(",") {
                    if self.at_punct(")") {
                        trailing = true;
                        break;
                    }
                    ps.push(self.pattern()?);
                }
                self.expect_punct(")")?;
                let sp = start.to(self.prev_span());
                if ps.len() == 1 && !trailing {
                    Ok(ps.pop().unwrap_or(Pattern::Unit(sp)))
                } else {
                    Ok(Pattern::Tuple(ps, sp))
                }
            }
            _ => {
                self.error_here("a pattern (a name, `_`, `()` or a tuple)");
                Err(())
            }
        }
    }

    fn params(&mut self) -> PResult<Params> {
        match self.peek().clone() {
            Tok::Ident(_) => Ok(Params::Name(self.ident()?)),
            Tok::Punct("(") => {
                let start = self.bump().span;
                if self.eat_punct(")") {
                    return Ok(Params::Unit(start.to(self.prev_span())));
                }
                let mut ps = Vec::new();
                loop {
                    if self.eat_punct("&") {
                        ps.push(Param::Amp(self.ident()?));
                    } else {
                        ps.push(Param::Pat(self.pattern()?));
                    }
                    if !self.eat_punct(",") || self.at_punct(")") {
                        break;
                    }
                }
                self.expect_punct(")")?;
                Ok(Params::List(ps, start.to(self.prev_span())))
            }
            _ => {
                self.error_here("function parameters: a name, `()` or `(a, b, …)`");
                Err(())
            }
        }
    }

    fn expr(&mut self, min_prec: u8) -> PResult<Expr> {
        self.enter()?;
        let r = self.expr_inner(min_prec);
        self.depth -= 1;
        r
    }

    fn too_high(&mut self, e: &Expr) -> PResult<()> {
        if e.height > MAX_DEPTH {
            if !self.too_deep_reported {
                self.too_deep_reported = true;
                self.diags.push(
                    Diagnostic::error(
                        "E0007",
                        e.span,
                        format!("expression nested deeper than {MAX_DEPTH} levels"),
                    )
                    .with_help("bind parts of it to names with `:=` and combine those"),
                );
            }
            return Err(());
        }
        Ok(())
    }

    fn expr_inner(&mut self, min_prec: u8) -> PResult<Expr> {
        let mut lhs = match self.peek().clone() {
            Tok::Kw(Kw::Fun) => return self.fun(),
            Tok::Kw(Kw::Not) => {
                let start = self.bump().span;
                let e = self.expr(3)?;
                let sp = start.to(e.span);
                Expr::new(ExprKind::Not(Box::new(e)), sp)
            }
            Tok::Punct("-") => {
                let start = self.bump().span;
                // Binds tighter than every operator (`-a * b` is `(-a) * b`); `- - 1` nests.
                let e = self.expr(8)?;
                let sp = start.to(e.span);
                match e.kind {
                    ExprKind::Lit(Lit::Int(i)) => {
                        Expr::new(ExprKind::Lit(Lit::Int(i.wrapping_neg())), sp)
                    }
                    ExprKind::Lit(Lit::Float(f)) => Expr::new(ExprKind::Lit(Lit::Float(-f)), sp),
                    _ => Expr::new(ExprKind::Neg(Box::new(e)), sp),
                }
            }
            _ => self.app()?,
        };
        loop {
            let op = match self.peek() {
                Tok::Punct(p) => BinOp::from_token(p),
                Tok::Kw(Kw::And) => Some(BinOp::And),
                Tok::Kw(Kw::Or) => Some(BinOp::Or),
                Tok::Kw(Kw::In) => Some(BinOp::In),
                Tok::Kw(Kw::Not) if matches!(self.peek_at(1), Tok::Kw(Kw::In)) => {
                    Some(BinOp::NotIn)
                }
                _ => None,
            };
            let Some(op) = op else { break };
            if op.prec() < min_prec {
                break;
            }
            self.bump();
            if op == BinOp::NotIn {
                self.bump();
            }
            let rhs = self.expr(op.prec() + 1)?;
            let sp = lhs.span.to(rhs.span);
            lhs = Expr::new(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), sp);
            self.too_high(&lhs)?;
        }
        // `a if c else b`, Python's conditional expression: below every operator.
        if min_prec == 0 && self.at_kw(Kw::If) {
            self.bump();
            let c = self.expr(1)?;
            if !self.at_kw(Kw::Else) {
                self.error_here("`else` (a conditional expression is `A if CONDITION else B`)");
                return Err(());
            }
            self.bump();
            let b = self.expr(0)?;
            let sp = lhs.span.to(b.span);
            lhs = Expr::new(ExprKind::Cond(Box::new(lhs), Box::new(c), Box::new(b)), sp);
            self.too_high(&lhs)?;
        }
        Ok(lhs)
    }

    fn starts_atom(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Ident(_)
                | Tok::Int(_)
                | Tok::Float(_)
                | Tok::Str(_)
                | Tok::FStr(_)
                | Tok::Prim(_)
                | Tok::PrimName(_)
                | Tok::Kw(Kw::Prj)
                | Tok::Punct("(" | "[" | "&" | "{")
        )
    }

    fn app(&mut self) -> PResult<Expr> {
        let mut f = self.postfix()?;
        while self.starts_atom() {
            let a = self.postfix()?;
            let sp = f.span.to(a.span);
            f = Expr::new(ExprKind::App(Box::new(f), Box::new(a)), sp);
            self.too_high(&f)?;
        }
        Ok(f)
    }

    /// An atom followed by indexes `l[i][j]`. The `[` must touch what it indexes: `f [1, 2]`
    /// calls f with a list, `l[1]` is an element.
    fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.atom()?;
        while self.at_punct("[") && self.span().start == self.prev_span().end {
            self.bump();
            let i = self.expr(0)?;
            self.expect_punct("]")?;
            let sp = e.span.to(self.prev_span());
            e = Expr::new(ExprKind::Index(Box::new(e), Box::new(i)), sp);
            self.too_high(&e)?;
        }
        Ok(e)
    }

    /// The holes of an f-string, parsed where they stand in the source.
    fn fstring(&mut self, parts: Vec<FTok>) -> Vec<FPart> {
        let mut out = Vec::with_capacity(parts.len());
        for part in parts {
            match part {
                FTok::Lit(s) => out.push(FPart::Lit(s)),
                FTok::Expr(start, end) => {
                    let Some(text) = self.src.get(start..end) else {
                        continue;
                    };
                    let mut lexed = lex(text);
                    for t in &mut lexed.tokens {
                        t.span =
                            Span::new(t.span.start as usize + start, t.span.end as usize + start);
                    }
                    // A hole is one line: drop the layout tokens the lexer adds at the end.
                    lexed
                        .tokens
                        .retain(|t| !matches!(t.tok, Tok::Newline | Tok::Indent | Tok::Dedent));
                    let diags = lexed.diags.into_iter().map(|mut d| {
                        d.span =
                            Span::new(d.span.start as usize + start, d.span.end as usize + start);
                        d
                    });
                    self.diags.extend(diags);
                    let mut sub = Parser {
                        src: self.src,
                        toks: lexed.tokens,
                        pos: 0,
                        diags: Vec::new(),
                        depth: self.depth,
                        too_deep_reported: self.too_deep_reported,
                    };
                    let e = sub.expr(0);
                    if e.is_ok() && !sub.at(&Tok::Eof) {
                        sub.error_here("`}` (one expression per `{…}` in an f-string)");
                    }
                    self.diags.append(&mut sub.diags);
                    match e {
                        Ok(e) => out.push(FPart::Expr(e)),
                        Err(()) => out.push(FPart::Expr(Expr::new(
                            ExprKind::Error,
                            Span::new(start, end),
                        ))),
                    }
                }
            }
        }
        out
    }

    fn atom(&mut self) -> PResult<Expr> {
        let t = self.peek().clone();
        let span = self.span();
        let kind = match t {
            Tok::Ident(name) => {
                self.bump();
                ExprKind::Name(Ident { name, span })
            }
            // The prelude's `if` called as a function, as the paper writes it: `if (c, a, b)`.
            Tok::Kw(Kw::If) if matches!(self.peek_at(1), Tok::Punct("(")) => {
                self.bump();
                ExprKind::Name(Ident {
                    name: "if".into(),
                    span,
                })
            }
            Tok::Int(i) => {
                self.bump();
                ExprKind::Lit(Lit::Int(i))
            }
            Tok::Float(f) => {
                self.bump();
                ExprKind::Lit(Lit::Float(f))
            }
            Tok::Str(s) => {
                self.bump();
                ExprKind::Lit(Lit::Str(s))
            }
            Tok::FStr(parts) => {
                self.bump();
                ExprKind::FStr(self.fstring(parts))
            }
            Tok::Prim(p) => {
                self.bump();
                ExprKind::Prim(match p {
                    PrimTok::Int(i) => Lit::Int(i),
                    PrimTok::Float(f) => Lit::Float(f),
                    PrimTok::Str(s) => Lit::Str(s),
                })
            }
            Tok::PrimName(name) => {
                self.bump();
                ExprKind::PrimName(Ident { name, span })
            }
            Tok::Kw(Kw::Prj) => return self.prj(span),
            Tok::Punct("&") => {
                self.bump();
                let id = self.ident()?;
                let sp = span.to(id.span);
                return Ok(Expr::new(ExprKind::Amp(id), sp));
            }
            Tok::Punct("(") => return self.paren_or_tuple(span),
            Tok::Punct("[") => return self.list(span),
            Tok::Punct("{") => return self.dict(span),
            _ => {
                self.error_here("an expression");
                return Err(());
            }
        };
        Ok(Expr::new(kind, span))
    }

    /// `prj I ATOM`, the I-th component of a tuple (counted from 1); `span` is the `prj`.
    fn prj(&mut self, span: Span) -> PResult<Expr> {
        self.bump();
        let i = match self.peek() {
            Tok::Int(i) if *i >= 1 && *i <= u32::MAX as i64 => *i as u32,
            _ => {
                self.error_here("a component number 1, 2, … after `prj`");
                return Err(());
            }
        };
        self.bump();
        self.enter()?;
        let a = self.atom();
        self.depth -= 1;
        let a = a?;
        let sp = span.to(a.span);
        Ok(Expr::new(ExprKind::Prj(i, Box::new(a)), sp))
    }

    /// After `(`: the unit `()`, a parenthesised expression or a tuple
    /// (`(a,)` is a one-element tuple); `span` is the `(`.
    fn paren_or_tuple(&mut self, span: Span) -> PResult<Expr> {
        self.bump();
        if self.eat_punct(")") {
            return Ok(Expr::new(ExprKind::Unit, span.to(self.prev_span())));
        }
        let first = self.expr(0)?;
        if self.eat_punct(")") {
            // `f (&h)` threads h: parentheses around `&h` only group.
            if let ExprKind::Amp(_) = first.kind {
                return Ok(first);
            }
            let sp = span.to(self.prev_span());
            return Ok(Expr::new(ExprKind::Paren(Box::new(first)), sp));
        }
        let mut es = vec![first];
        while self.eat_punct(",") {
            if self.at_punct(")") {
                break;
            }
            es.push(self.expr(0)?);
        }
        self.expect_punct(")")?;
        Ok(Expr::new(ExprKind::Tuple(es), span.to(self.prev_span())))
    }

    /// `[a, b, ...]`, a trailing comma allowed; `span` is the `[`.
    fn list(&mut self, span: Span) -> PResult<Expr> {
        self.bump();
        let mut es = Vec::new();
        while !self.at_punct("]") {
            es.push(self.expr(0)?);
            if !self.eat_punct(",") {
                break;
            }
        }
        self.expect_punct("]")?;
        Ok(Expr::new(ExprKind::List(es), span.to(self.prev_span())))
    }

    /// `{k: v, ...}`, a trailing comma allowed; `span` is the `{`.
    fn dict(&mut self, span: Span) -> PResult<Expr> {
        self.bump();
        let mut kvs = Vec::new();
        while !self.at_punct("}") {
            let k = self.expr(0)?;
            self.expect_punct(":")?;
            let v = self.expr(0)?;
            kvs.push((k, v));
            if !self.eat_punct(",") {
                break;
            }
        }
        self.expect_punct("}")?;
        Ok(Expr::new(ExprKind::Dict(kvs), span.to(self.prev_span())))
    }

    fn fun(&mut self) -> PResult<Expr> {
        let start = self.bump().span; // fun
        let params = self.params()?;
        self.expect_punct(":")?;
        let body = if self.at(&Tok::Newline) {
            self.bump();
            if !self.at(&Tok::Indent) {
                self.error_here("an indented function body");
                return Err(());
            }
            self.bump();
            self.enter()?;
            let b = self.block(false);
            self.depth -= 1;
            if self.at(&Tok::Dedent) {
                self.bump();
            }
            FunBody::Block(b)
        } else {
            FunBody::Expr(Box::new(self.expr(0)?))
        };
        Ok(Expr::new(
            ExprKind::Fun(params, body),
            start.to(self.prev_span()),
        ))
    }
}
