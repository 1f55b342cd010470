//! The surface syntax tree of OPAL: core notation and sugar in one tree, every node spanned.

use crate::span::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Block {
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub kind: ItemKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AugOp {
    Add,
    Sub,
    Concat,
}

impl AugOp {
    pub fn as_str(self) -> &'static str {
        match self {
            AugOp::Add => "+=",
            AugOp::Sub => "-=",
            AugOp::Concat => "++=",
        }
    }
    pub fn binop(self) -> BinOp {
        match self {
            AugOp::Add => BinOp::Add,
            AugOp::Sub => BinOp::Sub,
            AugOp::Concat => BinOp::Concat,
        }
    }
}

/// How an external's calls may be reordered (PopPy §4.2): `sequential` calls run in program
/// order, `readonly` calls may overlap each other but not a sequential call, `unordered`
/// calls run as soon as their arguments exist.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    Sequential,
    Readonly,
    #[default]
    Unordered,
}

impl Order {
    pub fn as_str(self) -> &'static str {
        match self {
            Order::Sequential => "sequential",
            Order::Readonly => "readonly",
            Order::Unordered => "unordered",
        }
    }
    pub fn parse(s: &str) -> Option<Order> {
        Some(match s {
            "sequential" => Order::Sequential,
            "readonly" => Order::Readonly,
            "unordered" => Order::Unordered,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ItemKind {
    Bind(Pattern, Expr),
    Aug(Ident, AugOp, Expr),
    Rec(Ident, Expr),
    /// `extern [sequential|readonly|unordered] a, b`: the class as written, if any.
    Extern(Vec<Ident>, Option<Order>),
    For(Pattern, Expr, Block),
    If(Vec<(Expr, Block)>, Option<Block>),
    While(Expr, Block),
    DoWhile(Block, Expr),
    Ret(Expr),
    Expr(Expr),
    /// An item that failed to parse; its diagnostics were reported.
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    Name(Ident),
    Wild(Span),
    Unit(Span),
    Tuple(Vec<Pattern>, Span),
}

impl Pattern {
    pub fn span(&self) -> Span {
        match self {
            Pattern::Name(i) => i.span,
            Pattern::Wild(s) | Pattern::Unit(s) | Pattern::Tuple(_, s) => *s,
        }
    }
    /// Every name the pattern binds, in order.
    pub fn names<'a>(&'a self, out: &mut Vec<&'a Ident>) {
        match self {
            Pattern::Name(i) => out.push(i),
            Pattern::Tuple(ps, _) => ps.iter().for_each(|p| p.names(out)),
            _ => {}
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    Pat(Pattern),
    Amp(Ident),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Params {
    Name(Ident),
    Unit(Span),
    /// `(p1, …, pn)`; with one element it is that parameter itself, not a one-tuple.
    List(Vec<Param>, Span),
}

#[derive(Clone, Debug, PartialEq)]
pub enum FunBody {
    Expr(Box<Expr>),
    Block(Block),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Concat,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    /// `x in l` (membership in a list, a dictionary's keys or a string).
    In,
    /// `x not in l`.
    NotIn,
}

impl BinOp {
    pub fn prec(self) -> u8 {
        use BinOp::*;
        match self {
            Or => 1,
            And => 2,
            Eq | Ne | Lt | Le | Gt | Ge | In | NotIn => 4,
            Concat => 5,
            Add | Sub => 6,
            Mul | Div | Mod => 7,
        }
    }
    pub fn as_str(self) -> &'static str {
        use BinOp::*;
        match self {
            Or => "or",
            And => "and",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Concat => "++",
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Mod => "%",
            In => "in",
            NotIn => "not in",
        }
    }
    pub fn from_token(s: &str) -> Option<BinOp> {
        use BinOp::*;
        Some(match s {
            "or" => Or,
            "and" => And,
            "==" => Eq,
            "!=" => Ne,
            "<" => Lt,
            "<=" => Le,
            ">" => Gt,
            ">=" => Ge,
            "++" => Concat,
            "+" => Add,
            "-" => Sub,
            "*" => Mul,
            "/" => Div,
            "%" => Mod,
            _ => return None,
        })
    }
    /// The function an operator calls: an external or a prelude function.
    pub fn callee(self) -> &'static str {
        use BinOp::*;
        match self {
            Or => "or",
            And => "and",
            Eq => "eq",
            Ne => "ne",
            Lt => "lt",
            Le => "le",
            Gt => "gt",
            Ge => "ge",
            Concat => "concat",
            Add => "add",
            Sub => "sub",
            Mul => "mul",
            Div => "div",
            Mod => "mod",
            In | NotIn => "contains",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    Int(i64),
    Float(f64),
    Str(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    /// Height of the tree below; bounded by the parser so later passes cannot overflow.
    pub height: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Name(Ident),
    Lit(Lit),
    /// `<lit>` in core notation.
    Prim(Lit),
    /// `<name>`: an external function or handle.
    PrimName(Ident),
    Unit,
    Paren(Box<Expr>),
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    Prj(u32, Box<Expr>),
    Amp(Ident),
    Fun(Params, FunBody),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    App(Box<Expr>, Box<Expr>),
    /// `l[i]` (no space before `[`): a list element or a dictionary's value.
    Index(Box<Expr>, Box<Expr>),
    /// `a if c else b`, stored as (a, c, b).
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `f"text {expr} text"`.
    FStr(Vec<FPart>),
    /// `{"k": v, …}`: a dictionary with string keys.
    Dict(Vec<(Expr, Expr)>),
    Error,
}

impl Expr {
    /// The subexpressions of the Python-style forms (`l[i]`, `a if c else b`, f-strings,
    /// dictionaries), in source order, for passes that only walk into them.
    pub fn sugar_children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Index(a, b) => vec![a, b],
            ExprKind::Cond(a, c, b) => vec![a, c, b],
            ExprKind::FStr(parts) => parts
                .iter()
                .filter_map(|p| {
                    if let FPart::Expr(e) = p {
                        Some(e)
                    } else {
                        None
                    }
                })
                .collect(),
            ExprKind::Dict(kvs) => kvs.iter().flat_map(|(k, v)| [k, v]).collect(),
            _ => vec![],
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum FPart {
    Lit(String),
    Expr(Expr),
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        let height = 1 + match &kind {
            ExprKind::Paren(e) | ExprKind::Prj(_, e) | ExprKind::Not(e) | ExprKind::Neg(e) => {
                e.height
            }
            ExprKind::Tuple(es) | ExprKind::List(es) => {
                es.iter().map(|e| e.height).max().unwrap_or(0)
            }
            ExprKind::Binary(_, a, b) | ExprKind::App(a, b) | ExprKind::Index(a, b) => {
                a.height.max(b.height)
            }
            ExprKind::Cond(a, c, b) => a.height.max(c.height).max(b.height),
            ExprKind::FStr(parts) => parts
                .iter()
                .map(|p| if let FPart::Expr(e) = p { e.height } else { 0 })
                .max()
                .unwrap_or(0),
            ExprKind::Dict(kvs) => kvs
                .iter()
                .map(|(k, v)| k.height.max(v.height))
                .max()
                .unwrap_or(0),
            ExprKind::Fun(_, FunBody::Expr(e)) => e.height,
            _ => 0,
        };
        Expr { kind, span, height }
    }
}
