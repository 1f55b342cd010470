//! The core calculus term (SEMANTICS.md §1) as produced by desugaring, before evaluation.

use crate::names::Name;
use crate::span::Span;
use std::fmt::{self, Write};
use std::sync::Arc;

/// A primitive value `c`.
#[derive(Clone, Debug, PartialEq)]
pub enum Prim {
    Int(i64),
    Float(f64),
    Str(Arc<str>),
    /// A handle (`stdout`, `stderr`, or one made by `fork`): a name and a generation.
    Handle(Arc<str>),
    /// An external function, by name.
    Ext(Arc<str>),
}

/// A primitive expression `c̄`: a primitive or a tuple of them; and, beyond the calculus, the
/// data an external may receive or return (`docs/language.md`, "Data"): a Church list, a
/// Church boolean or a dictionary read back (`machine::readback`) into a value.
#[derive(Clone, Debug, PartialEq)]
pub enum PExp {
    Prim(Prim),
    Tuple(Vec<PExp>),
    List(Vec<PExp>),
    Bool(bool),
    /// Keys and values in insertion order.
    Dict(Vec<(PExp, PExp)>),
    /// A Python set: its elements in insertion order, no two equal (`pyset::order` gives the
    /// order CPython iterates them in).
    Set(Vec<PExp>),
}

/// The tag of a dictionary value `(dict, entries)`: a handle no program can name.
pub const DICT_TAG: &str = "dict";
/// The tag of a set value `(set, elements)`: a handle no program can name.
pub const SET_TAG: &str = "set";
/// The sequencing token ordered calls thread (PopPy's `S`): a handle no program can name.
pub const SEQ_TOKEN: &str = "seq";

impl PExp {
    /// Is this a primitive expression of the calculus (no list, boolean or dictionary)?
    pub fn is_primitive(&self) -> bool {
        match self {
            PExp::Prim(_) => true,
            PExp::Tuple(xs) => xs.iter().all(PExp::is_primitive),
            _ => false,
        }
    }
    pub fn str(s: &str) -> PExp {
        PExp::Prim(Prim::Str(Arc::from(s)))
    }
    pub fn int(i: i64) -> PExp {
        PExp::Prim(Prim::Int(i))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Alias(Name),
    Fun(Box<Fun>),
    Call(Name, Name),
    Tuple(Vec<Name>),
    Prj(u32, Name),
    Prim(Prim),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Fun {
    pub param: Name,
    pub body: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub bind: Name,
    pub op: Op,
    /// Where in the source this statement came from.
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Expr {
    pub stmts: Vec<Stmt>,
    pub ret: Option<Name>,
}

impl Expr {
    /// Statements in this expression, nested function bodies included.
    pub fn size(&self) -> usize {
        self.stmts
            .iter()
            .map(|s| {
                1 + if let Op::Fun(f) = &s.op {
                    f.body.size()
                } else {
                    0
                }
            })
            .sum()
    }
    pub fn ret_name(&self) -> Name {
        self.ret.unwrap_or_else(|| Name::plain("?"))
    }
}

pub fn write_str_lit(out: &mut impl Write, s: &str) -> fmt::Result {
    out.write_char('"')?;
    for c in s.chars() {
        match c {
            '"' => out.write_str("\\\"")?,
            '\\' => out.write_str("\\\\")?,
            '\n' => out.write_str("\\n")?,
            '\t' => out.write_str("\\t")?,
            c if (c as u32) < 0x20 || c == '\u{7f}' => write!(out, "\\u{{{:x}}}", c as u32)?,
            c => out.write_char(c)?,
        }
    }
    out.write_char('"')
}

/// Writes a float so that it reads back as the same float (`1.0`, not `1`; `1e16`, not the
/// integer `10000000000000000`; `1.5e-7`).
pub fn write_float(out: &mut impl Write, f: f64) -> fmt::Result {
    if !f.is_finite() {
        write!(out, "{f}")
    } else if f != 0.0 && (f.abs() >= 1e15 || f.abs() < 1e-4) {
        write!(out, "{f:e}")
    } else if f == f.trunc() {
        write!(out, "{f:.1}")
    } else {
        write!(out, "{f}")
    }
}

impl fmt::Display for Prim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Prim::Int(i) => write!(f, "{i}"),
            Prim::Float(x) => write_float(f, *x),
            Prim::Str(s) => write_str_lit(f, s),
            Prim::Handle(h) => f.write_str(h),
            Prim::Ext(e) => f.write_str(e),
        }
    }
}

impl fmt::Display for PExp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PExp::Prim(p) => write!(f, "{p}"),
            PExp::Tuple(ps) => {
                f.write_char('(')?;
                for (i, p) in ps.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{p}")?;
                }
                if ps.len() == 1 {
                    f.write_char(',')?;
                }
                f.write_char(')')
            }
            PExp::List(ps) => {
                f.write_char('[')?;
                for (i, p) in ps.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{p}")?;
                }
                f.write_char(']')
            }
            PExp::Bool(b) => write!(f, "{b}"),
            PExp::Dict(kvs) => {
                f.write_char('{')?;
                for (i, (k, v)) in kvs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_char('}')
            }
            PExp::Set(xs) if xs.is_empty() => f.write_str("set()"),
            PExp::Set(xs) => {
                f.write_char('{')?;
                for (i, x) in crate::machine::pyset::order(xs).into_iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_char('}')
            }
        }
    }
}

/// Prints an operation in the textual core form; nested bodies indented by two spaces.
pub fn write_op(out: &mut String, op: &Op, indent: usize) {
    match op {
        Op::Alias(y) => {
            let _ = write!(out, "{y}");
        }
        Op::Fun(fun) => {
            let _ = writeln!(out, "fun {}:", fun.param);
            write_expr(out, &fun.body, indent + 2);
            // write_expr ends with a newline; callers add their own.
            out.pop();
        }
        Op::Call(f, x) => {
            let _ = write!(out, "{f} {x}");
        }
        Op::Tuple(xs) => {
            out.push('(');
            for (i, x) in xs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{x}");
            }
            if xs.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        Op::Prj(i, x) => {
            let _ = write!(out, "prj {i} {x}");
        }
        Op::Prim(p) => {
            let _ = write!(out, "<{p}>");
        }
    }
}

pub fn write_expr(out: &mut String, e: &Expr, indent: usize) {
    for s in &e.stmts {
        out.push_str(&" ".repeat(indent));
        let _ = write!(out, "{} := ", s.bind);
        write_op(out, &s.op, indent);
        out.push('\n');
    }
    out.push_str(&" ".repeat(indent));
    let _ = writeln!(out, "ret {}", e.ret_name());
}
