//! Python's printing for the Python front end: `str` and `repr` as CPython prints them
//! (`['b', 'a']`, `{'k': 1}`, `(1,)`, `None`, `True`) and floats as CPython's shortest repr
//! (`0.30000000000000004`, `1e+16`, `inf`).

use crate::ir::{PExp, Prim};
use std::fmt::Write;

/// `str(v)`: a string as it is, anything else as `repr`.
pub fn str_of(p: &PExp) -> String {
    match p {
        PExp::Prim(Prim::Str(s)) => s.to_string(),
        // An exception caught by `except E as e`: `str(e)` is its message.
        other => match super::pycollections::as_exception(other) {
            Some((_, message, _)) => message.to_string(),
            None => repr(other),
        },
    }
}

/// `repr(v)` as CPython writes it. None is OPAL's unit `()`.
pub fn repr(p: &PExp) -> String {
    let mut out = String::new();
    write_repr(&mut out, p);
    out
}

fn write_repr(out: &mut String, p: &PExp) {
    if let Some((classes, message, _)) = super::pycollections::as_exception(p) {
        // `ValueError('bad 1')`; a `KeyError`'s message is already its key's repr.
        let class = match classes.first() {
            Some(PExp::Prim(Prim::Str(c))) => c.to_string(),
            _ => "Exception".to_string(),
        };
        out.push_str(&class);
        out.push('(');
        if classes
            .iter()
            .any(|c| matches!(c, PExp::Prim(Prim::Str(c)) if &**c == "KeyError"))
        {
            out.push_str(message);
        } else if !message.is_empty() {
            str_repr(out, message);
        }
        out.push(')');
        return;
    }
    match p {
        PExp::Prim(Prim::Int(i)) => {
            let _ = write!(out, "{i}");
        }
        PExp::Prim(Prim::Float(f)) => out.push_str(&float_repr(*f)),
        PExp::Prim(Prim::Str(s)) => str_repr(out, s),
        PExp::Prim(Prim::Handle(h)) => {
            let _ = write!(out, "<{h}>");
        }
        PExp::Prim(Prim::Ext(e)) => {
            let _ = write!(out, "<function {e}>");
        }
        PExp::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        PExp::Tuple(xs) if xs.is_empty() => out.push_str("None"),
        PExp::Tuple(xs) => {
            out.push('(');
            seq(out, xs);
            if xs.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        PExp::List(xs) => {
            out.push('[');
            seq(out, xs);
            out.push(']');
        }
        PExp::Dict(kvs) => {
            out.push('{');
            for (i, (k, v)) in kvs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(out, k);
                out.push_str(": ");
                write_repr(out, v);
            }
            out.push('}');
        }
        PExp::Set(xs) => out.push_str(&super::pyset::write(xs, &repr)),
    }
}

fn seq(out: &mut String, xs: &[PExp]) {
    for (i, x) in xs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_repr(out, x);
    }
}

/// A string literal as CPython's `repr`: single quotes unless the text has a single quote
/// and no double one; backslash escapes for the quote, `\\`, `\n`, `\r`, `\t` and other
/// control characters.
fn str_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// A float as CPython's `repr`: the shortest digits that read back the same, positional
/// for exponents from -4 to 15, else `1e+16` style.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    // Rust's `{:e}` gives the shortest round-trip digits: `d.ddde±x`.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if negative { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let n = digits.len() as i32;
        let body = if exp >= n - 1 {
            // All digits before the point: pad with zeros, then `.0`.
            format!("{digits}{}.0", "0".repeat((exp - (n - 1)) as usize))
        } else if exp >= 0 {
            let (a, b) = digits.split_at((exp + 1) as usize);
            format!("{a}.{b}")
        } else {
            format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
        };
        format!("{sign}{body}")
    } else {
        let (a, b) = digits.split_at(1);
        let frac = if b.is_empty() {
            String::new()
        } else {
            format!(".{b}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{a}{frac}e{esign}{:02}", exp.abs())
    }
}
