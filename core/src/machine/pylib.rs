//! The library functions the Python front end calls for Python's meaning: `str` and `repr`
//! as CPython prints them (written by `pyrepr`), true and floor division, floor modulo,
//! powers, conversions and `format` specs. Pure functions on data, like the rest of the
//! library (`machine::data`).

use super::call_error::CallError;
pub use super::pyrepr::{float_repr, repr, str_of};
use crate::ir::{PExp, Prim};

/// Is `ext` one of these functions?
/// The start of the handle `py_unbound` makes (no program can name a handle with a space).
const UNBOUND: &str = "unbound ";

/// The Python name an argument (or one of an argument tuple's components) is unbound as,
/// if it is `py_unbound`'s marker: reading it is Python's NameError.
pub fn unbound_in(arg: &PExp) -> Option<&str> {
    fn unbound(x: &PExp) -> Option<&str> {
        match x {
            PExp::Prim(Prim::Handle(h)) => h.strip_prefix(UNBOUND),
            _ => None,
        }
    }
    match arg {
        PExp::Tuple(xs) => xs.iter().find_map(unbound),
        one => unbound(one),
    }
}

pub fn is_py(ext: &str) -> bool {
    ext.starts_with("py_")
}

pub fn eval(ext: &str, arg: &PExp) -> Result<PExp, CallError> {
    Ok(match ext {
        "py_str" => PExp::str(&str_of(arg)),
        "py_repr" => PExp::str(&repr(arg)),
        "py_unbound" => match arg {
            PExp::Prim(Prim::Str(name)) => {
                PExp::Prim(Prim::Handle(format!("{UNBOUND}{name}").into()))
            }
            _ => return Err(value_error("py_unbound takes a name".into())),
        },
        "py_mul" => mul(pair(arg, ext)?)?,
        "py_method" => match arg {
            PExp::Tuple(xs) if xs.len() == 3 => match (&xs[1], &xs[2]) {
                (PExp::Prim(Prim::Str(name)), PExp::Tuple(args)) => method(&xs[0], name, args)?,
                (PExp::Prim(Prim::Str(name)), one) => {
                    method(&xs[0], name, std::slice::from_ref(one))?
                }
                _ => {
                    return Err(value_error(
                        "py_method takes (receiver, name, arguments)".into(),
                    ))
                }
            },
            _ => {
                return Err(value_error(
                    "py_method takes (receiver, name, arguments)".into(),
                ))
            }
        },
        "py_slice" => match arg {
            PExp::Tuple(xs) if xs.len() == 4 => slice(&xs[0], &xs[1], &xs[2], &xs[3])?,
            _ => {
                return Err(value_error(
                    "py_slice takes (sequence, start, stop, step)".into(),
                ))
            }
        },
        "py_truediv" | "py_floordiv" | "py_mod" | "py_pow" => arith(ext, pair(arg, ext)?)?,
        "py_int" => int(arg)?,
        "py_float" => match arg {
            PExp::Prim(Prim::Str(s)) => match s.trim().parse::<f64>() {
                Ok(f) => PExp::Prim(Prim::Float(f)),
                Err(_) => {
                    return Err(value_error(format!(
                        "could not convert string to float: {}",
                        repr(arg)
                    )))
                }
            },
            other => PExp::Prim(Prim::Float(number(other, ext)?)),
        },
        "py_abs" => match arg {
            PExp::Prim(Prim::Int(i)) => PExp::int(i.checked_abs().ok_or_else(|| overflow(ext))?),
            other => PExp::Prim(Prim::Float(number(other, ext)?.abs())),
        },
        "py_bool" => PExp::Bool(truthy(arg)),
        "py_any" | "py_all" => match arg {
            PExp::List(xs) | PExp::Tuple(xs) => PExp::Bool(if ext == "py_any" {
                xs.iter().any(truthy)
            } else {
                xs.iter().all(truthy)
            }),
            other => {
                return Err(CallError::Raised(format!(
                    "TypeError: {} is not iterable",
                    repr(other)
                )))
            }
        },
        "py_round" => round(arg)?,
        "py_setitem" => match arg {
            PExp::Tuple(xs) if xs.len() == 3 => set_item(&xs[0], &xs[1], &xs[2])?,
            _ => {
                return Err(value_error(
                    "py_setitem takes (collection, key, value)".into(),
                ))
            }
        },
        "py_tuple" => match eval("py_list", arg)? {
            PExp::List(xs) => PExp::Tuple(xs),
            other => other,
        },
        "py_isinstance" => {
            let (x, ty) = pair(arg, ext)?;
            let ty = text(ty, "isinstance")?;
            if let Some((classes, _, _)) = super::pycollections::as_exception(x) {
                let named = |c: &PExp| matches!(c, PExp::Prim(Prim::Str(c)) if **c == *ty);
                return Ok(PExp::Bool(classes.iter().any(named)));
            }
            PExp::Bool(match (ty, x) {
                ("int", PExp::Prim(Prim::Int(_)) | PExp::Bool(_)) => true,
                ("float", PExp::Prim(Prim::Float(_))) => true,
                ("str", PExp::Prim(Prim::Str(_))) => true,
                ("bool", PExp::Bool(_)) => true,
                ("list", PExp::List(_)) => true,
                ("dict", PExp::Dict(_)) => true,
                ("set", PExp::Set(_)) => true,
                ("tuple", PExp::Tuple(xs)) => !xs.is_empty(),
                ("int" | "float" | "str" | "bool" | "list" | "dict" | "set" | "tuple", _) => false,
                _ => {
                    return Err(value_error(format!(
                        "isinstance of `{ty}` is not built yet"
                    )))
                }
            })
        }
        "py_quiet" | "py_caught" | "py_exc_check" | "py_exc_matches" | "py_exc_message"
        | "py_exc_raise" | "py_try" | "py_exc_new" => super::pycollections::exception(ext, arg)?,
        "py_dict" | "py_flatten" | "py_enumerate" | "py_mutated" => {
            super::pycollections::eval(ext, arg)?
        }
        "py_set" | "py_bitor" | "py_bitand" | "py_bitxor" => super::pyset::eval(ext, arg)?,
        "py_type_name" => PExp::str(&class_name(arg)),
        "py_list" => match arg {
            PExp::Prim(Prim::Str(s)) => {
                PExp::List(s.chars().map(|c| PExp::str(&c.to_string())).collect())
            }
            PExp::List(xs) | PExp::Tuple(xs) => PExp::List(xs.clone()),
            PExp::Dict(kvs) => PExp::List(kvs.iter().map(|(k, _)| k.clone()).collect()),
            PExp::Set(xs) => PExp::List(super::pyset::order(xs).into_iter().cloned().collect()),
            other => {
                return Err(CallError::Raised(format!(
                    "TypeError: {} is not iterable",
                    repr(other)
                )))
            }
        },
        "py_format" => {
            let (x, spec) = pair(arg, ext)?;
            let PExp::Prim(Prim::Str(spec)) = spec else {
                return Err(value_error("a format spec must be a string".into()));
            };
            PExp::str(&format(x, spec)?)
        }
        other => {
            return Err(CallError::Unknown {
                name: other.to_string(),
                kind: "library",
            })
        }
    })
}

pub(super) fn value_error(msg: String) -> CallError {
    CallError::Raised(format!("ValueError: {msg}"))
}

fn overflow(ext: &str) -> CallError {
    CallError::Overflow(ext.to_string())
}

pub(super) fn pair<'a>(arg: &'a PExp, ext: &str) -> Result<(&'a PExp, &'a PExp), CallError> {
    match arg {
        PExp::Tuple(xs) if xs.len() == 2 => Ok((&xs[0], &xs[1])),
        other => Err(CallError::Needs {
            ext: ext.to_string(),
            needs: "two values",
            got: repr(other),
        }),
    }
}

fn number(p: &PExp, ext: &str) -> Result<f64, CallError> {
    match p {
        PExp::Prim(Prim::Int(i)) => Ok(*i as f64),
        PExp::Prim(Prim::Float(f)) => Ok(*f),
        PExp::Bool(b) => Ok(f64::from(u8::from(*b))),
        other => Err(CallError::Needs {
            ext: ext.to_string(),
            needs: "a number",
            got: repr(other),
        }),
    }
}

/// Python's truth: empty strings, lists, tuples and dictionaries, zero and None are false.
fn truthy(p: &PExp) -> bool {
    match p {
        PExp::Bool(b) => *b,
        PExp::Prim(Prim::Int(i)) => *i != 0,
        PExp::Prim(Prim::Float(f)) => *f != 0.0,
        PExp::Prim(Prim::Str(s)) => !s.is_empty(),
        PExp::Prim(_) => true,
        PExp::Tuple(xs) | PExp::List(xs) => !xs.is_empty(),
        PExp::Dict(kvs) => !kvs.is_empty(),
        PExp::Set(xs) => !xs.is_empty(),
    }
}

/// `type(v).__name__`: an exception's class, a worker object's class (its handle carries it:
/// `py#3:Client`), else the type's name.
fn class_name(v: &PExp) -> String {
    if super::pycollections::as_exception(v).is_some() {
        return super::pycollections::exception_class(v).to_string();
    }
    match v {
        PExp::Prim(Prim::Handle(h)) if h.starts_with("py#") => {
            h.split_once(':').map_or("object", |(_, c)| c).to_string()
        }
        other => type_name(other).to_string(),
    }
}

/// The name of `p`'s Python type, as CPython's errors write it.
pub(super) fn type_name(p: &PExp) -> &'static str {
    match p {
        PExp::Prim(Prim::Int(_)) => "int",
        PExp::Prim(Prim::Float(_)) => "float",
        PExp::Prim(Prim::Str(_)) => "str",
        PExp::Bool(_) => "bool",
        PExp::Tuple(xs) if xs.is_empty() => "NoneType",
        PExp::Tuple(_) => "tuple",
        PExp::List(_) => "list",
        PExp::Dict(_) => "dict",
        PExp::Set(_) => "set",
        PExp::Prim(_) => "object",
    }
}

fn int(arg: &PExp) -> Result<PExp, CallError> {
    Ok(PExp::int(match arg {
        PExp::Prim(Prim::Int(i)) => *i,
        PExp::Bool(b) => i64::from(*b),
        PExp::Prim(Prim::Float(f)) if f.is_finite() && f.abs() < 9.2e18 => f.trunc() as i64,
        PExp::Prim(Prim::Float(_)) => return Err(overflow("py_int")),
        PExp::Prim(Prim::Str(s)) => match s.trim().replace('_', "").parse::<i64>() {
            Ok(i) => i,
            // Digits Python would read: beyond OPAL's 64 bits, not invalid.
            Err(e)
                if matches!(
                    e.kind(),
                    std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow
                ) =>
            {
                return Err(overflow("py_int"))
            }
            Err(_) => {
                return Err(value_error(format!(
                    "invalid literal for int() with base 10: {}",
                    repr(arg)
                )))
            }
        },
        other => {
            return Err(CallError::Needs {
                ext: "int".into(),
                needs: "a number or a string",
                got: repr(other),
            })
        }
    }))
}

fn text<'a>(p: &'a PExp, what: &str) -> Result<&'a str, CallError> {
    match p {
        PExp::Prim(Prim::Str(s)) => Ok(s),
        other => Err(CallError::Raised(format!(
            "TypeError: {what} needs a string, not {}",
            repr(other)
        ))),
    }
}

fn strings(xs: Vec<&str>) -> PExp {
    PExp::List(xs.into_iter().map(PExp::str).collect())
}

/// A new dictionary with `k` set to `v` (a new key goes last, as Python keeps insertion
/// order), or a new list with item `k` replaced.
fn set_item(d: &PExp, k: &PExp, v: &PExp) -> Result<PExp, CallError> {
    match d {
        PExp::Dict(kvs) => {
            let mut kvs = kvs.clone();
            match kvs.iter_mut().find(|(key, _)| super::data::equal(key, k)) {
                Some(entry) => entry.1 = v.clone(),
                None => kvs.push((k.clone(), v.clone())),
            }
            Ok(PExp::Dict(kvs))
        }
        PExp::List(xs) => {
            let PExp::Prim(Prim::Int(i)) = k else {
                return Err(CallError::Raised(format!(
                    "TypeError: list indices must be integers, not {}",
                    repr(k)
                )));
            };
            let len = xs.len() as i64;
            let at = if *i < 0 { i + len } else { *i };
            if !(0..len).contains(&at) {
                return Err(CallError::Raised(
                    "IndexError: list assignment index out of range".into(),
                ));
            }
            let mut xs = xs.clone();
            xs[at as usize] = v.clone();
            Ok(PExp::List(xs))
        }
        other => Err(CallError::Raised(format!(
            "TypeError: {} does not support item assignment",
            repr(other)
        ))),
    }
}

/// `round(x)` (half to even, an int) and `round(x, n)` (a float, correctly rounded).
fn round(arg: &PExp) -> Result<PExp, CallError> {
    let (x, digits) = match arg {
        PExp::Tuple(xs) if xs.len() == 2 => (&xs[0], Some(&xs[1])),
        x => (x, None),
    };
    match (x, digits) {
        // Negative digits round to tens, hundreds, …, ties to even, as Python does.
        (PExp::Prim(Prim::Int(i)), Some(PExp::Prim(Prim::Int(n)))) if *n < 0 => {
            let Some(m) = 10i64.checked_pow(n.unsigned_abs().min(19) as u32) else {
                return Ok(PExp::int(0));
            };
            let (q, r) = (i.div_euclid(m), i.rem_euclid(m));
            let up = 2 * (r as i128) > m as i128 || (2 * (r as i128) == m as i128 && q % 2 != 0);
            let q = if up { q + 1 } else { q };
            q.checked_mul(m)
                .map(PExp::int)
                .ok_or_else(|| overflow("round"))
        }
        (PExp::Prim(Prim::Int(i)), _) => Ok(PExp::int(*i)),
        (x, Some(PExp::Prim(Prim::Int(n)))) if (-308..0).contains(n) => {
            let m = 10f64.powi(-*n as i32);
            let f = number(x, "round")?;
            Ok(PExp::Prim(Prim::Float((f / m).round_ties_even() * m)))
        }
        (x, None) => {
            let f = number(x, "round")?.round_ties_even();
            if !f.is_finite() || f.abs() >= 9.2e18 {
                return Err(overflow("round"));
            }
            Ok(PExp::int(f as i64))
        }
        (x, Some(PExp::Prim(Prim::Int(n)))) if (0..=17).contains(n) => {
            let f = number(x, "round")?;
            let s = format!("{f:.*}", *n as usize);
            Ok(PExp::Prim(Prim::Float(s.parse().unwrap_or(f))))
        }
        _ => Err(value_error("round(x, n) is built for n up to 17".into())),
    }
}

/// `s.name(args)` for the methods of `str`; `None` when `str` has no such method.
fn str_method(s: &str, name: &str, args: &[PExp]) -> Result<Option<PExp>, CallError> {
    let arg = |i: usize| {
        args.get(i)
            .ok_or_else(|| value_error(format!("{name}() takes more arguments")))
    };
    Ok(Some(match (name, args.len()) {
        ("upper", 0) => PExp::str(&s.to_uppercase()),
        ("lower", 0) => PExp::str(&s.to_lowercase()),
        ("strip", 0) => PExp::str(s.trim()),
        ("lstrip", 0) => PExp::str(s.trim_start()),
        ("rstrip", 0) => PExp::str(s.trim_end()),
        ("strip" | "lstrip" | "rstrip", 1) => {
            let cs: Vec<char> = text(arg(0)?, name)?.chars().collect();
            let t: &str = match name {
                "strip" => s.trim_matches(&cs[..]),
                "lstrip" => s.trim_start_matches(&cs[..]),
                _ => s.trim_end_matches(&cs[..]),
            };
            PExp::str(t)
        }
        ("split", 0) => strings(s.split_whitespace().collect()),
        ("split", 1) => {
            let sep = text(arg(0)?, "split")?;
            if sep.is_empty() {
                return Err(value_error("empty separator".into()));
            }
            strings(s.split(sep).collect())
        }
        ("splitlines", 0) => strings(s.lines().collect()),
        ("join", 1) => match arg(0)? {
            PExp::List(xs) | PExp::Tuple(xs) => {
                let parts: Result<Vec<&str>, CallError> =
                    xs.iter().map(|x| text(x, "join")).collect();
                PExp::str(&parts?.join(s))
            }
            other => {
                return Err(CallError::Raised(format!(
                    "TypeError: can only join a list, not {}",
                    repr(other)
                )))
            }
        },
        ("replace", 2) => {
            PExp::str(&s.replace(text(arg(0)?, "replace")?, text(arg(1)?, "replace")?))
        }
        ("partition" | "rpartition", 1) => {
            let sep = text(arg(0)?, name)?;
            if sep.is_empty() {
                return Err(value_error("empty separator".into()));
            }
            let found = if name == "partition" {
                s.split_once(sep)
            } else {
                s.rsplit_once(sep)
            };
            let (a, b, c) = match found {
                Some((a, c)) => (a, sep, c),
                None if name == "partition" => (s, "", ""),
                None => ("", "", s),
            };
            PExp::Tuple(vec![PExp::str(a), PExp::str(b), PExp::str(c)])
        }
        ("isspace", 0) => PExp::Bool(!s.is_empty() && s.chars().all(char::is_whitespace)),
        ("isalnum", 0) => PExp::Bool(!s.is_empty() && s.chars().all(char::is_alphanumeric)),
        ("isupper" | "islower", 0) => {
            let cased: Vec<char> = s
                .chars()
                .filter(|c| c.is_uppercase() || c.is_lowercase())
                .collect();
            let want_upper = name == "isupper";
            PExp::Bool(!cased.is_empty() && cased.iter().all(|c| c.is_uppercase() == want_upper))
        }
        ("istitle", 0) => PExp::Bool(is_title(s)),
        ("startswith", 1) => PExp::Bool(s.starts_with(text(arg(0)?, "startswith")?)),
        ("endswith", 1) => PExp::Bool(s.ends_with(text(arg(0)?, "endswith")?)),
        ("count", 1) => {
            let sub = text(arg(0)?, "count")?;
            PExp::int(if sub.is_empty() {
                s.chars().count() as i64 + 1
            } else {
                s.matches(sub).count() as i64
            })
        }
        ("find", 1) => {
            let sub = text(arg(0)?, "find")?;
            PExp::int(s.find(sub).map_or(-1, |b| s[..b].chars().count() as i64))
        }
        ("isdigit", 0) => PExp::Bool(!s.is_empty() && s.chars().all(|c| c.is_numeric())),
        ("isalpha", 0) => PExp::Bool(!s.is_empty() && s.chars().all(char::is_alphabetic)),
        ("capitalize", 0) => {
            let mut cs = s.chars();
            PExp::str(&match cs.next() {
                Some(c) => c
                    .to_uppercase()
                    .chain(cs.flat_map(char::to_lowercase))
                    .collect::<String>(),
                None => String::new(),
            })
        }
        ("title", 0) => {
            let mut out = String::new();
            let mut start = true;
            for c in s.chars() {
                if c.is_alphabetic() {
                    if start {
                        out.extend(c.to_uppercase());
                    } else {
                        out.extend(c.to_lowercase());
                    }
                    start = false;
                } else {
                    out.push(c);
                    start = true;
                }
            }
            PExp::str(&out)
        }
        ("format", _) => {
            return Err(value_error(
                "str.format is not built yet; use an f-string".into(),
            ))
        }
        _ => return Ok(None),
    }))
}

/// `recv.name(args)` for the methods of `str`, `list` and `dict` that do not change their
/// receiver (those that do are refused by the front end).
fn method(recv: &PExp, name: &str, args: &[PExp]) -> Result<PExp, CallError> {
    let no_method = || {
        // An object of the CPython worker (`py#3:Client`): its methods run there.
        if let PExp::Prim(Prim::Handle(h)) = recv {
            if let Some(class) = h.strip_prefix("py#").and_then(|t| t.split_once(':')) {
                return CallError::Raised(format!(
                    "`.{name}(…)` on a {} object, which stays in the CPython worker: call its \
                     methods inside an external function",
                    class.1
                ));
            }
        }
        let kind = type_name(recv);
        CallError::Raised(format!(
            "AttributeError: '{kind}' object has no attribute '{name}'"
        ))
    };
    let arg = |i: usize| {
        args.get(i)
            .ok_or_else(|| value_error(format!("{name}() takes more arguments")))
    };
    Ok(match (recv, name) {
        (PExp::Prim(Prim::Str(s)), _) => match str_method(s, name, args)? {
            Some(v) => v,
            None => return Err(no_method()),
        },
        (PExp::List(xs) | PExp::Tuple(xs), "index") => {
            let x = arg(0)?;
            match xs.iter().position(|y| super::data::equal(x, y)) {
                Some(i) => PExp::int(i as i64),
                None => return Err(value_error(format!("{} is not in list", repr(x)))),
            }
        }
        (PExp::List(xs) | PExp::Tuple(xs), "count") => {
            let x = arg(0)?;
            PExp::int(xs.iter().filter(|y| super::data::equal(x, y)).count() as i64)
        }
        (PExp::List(xs), "copy") => PExp::List(xs.clone()),
        (PExp::Dict(kvs), "get") => {
            let k = arg(0)?;
            let found = kvs.iter().rev().find(|(key, _)| super::data::equal(key, k));
            match (found, args.get(1)) {
                (Some((_, v)), _) => v.clone(),
                (None, Some(default)) => default.clone(),
                (None, None) => PExp::Tuple(vec![]),
            }
        }
        (PExp::Dict(kvs), "keys") => PExp::List(kvs.iter().map(|(k, _)| k.clone()).collect()),
        (PExp::Dict(kvs), "values") => PExp::List(kvs.iter().map(|(_, v)| v.clone()).collect()),
        (PExp::Dict(kvs), "items") => PExp::List(
            kvs.iter()
                .map(|(k, v)| PExp::Tuple(vec![k.clone(), v.clone()]))
                .collect(),
        ),
        (PExp::Dict(_), "copy") => recv.clone(),
        (PExp::Set(xs), _) => match super::pyset::method(xs, name, args)? {
            Some(v) => v,
            None => return Err(no_method()),
        },
        _ => return Err(no_method()),
    })
}

/// `seq[start:stop:step]` of a string, list or tuple; `()` (None) for a bound left out.
fn slice(seq: &PExp, start: &PExp, stop: &PExp, step: &PExp) -> Result<PExp, CallError> {
    let bound = |p: &PExp| -> Result<Option<i64>, CallError> {
        match p {
            PExp::Tuple(xs) if xs.is_empty() => Ok(None),
            PExp::Prim(Prim::Int(i)) => Ok(Some(*i)),
            other => Err(CallError::Raised(format!(
                "TypeError: slice indices must be integers or None, not {}",
                repr(other)
            ))),
        }
    };
    let step = bound(step)?.unwrap_or(1);
    if step == 0 {
        return Err(value_error("slice step cannot be zero".into()));
    }
    let pick = |len: usize| -> Result<Vec<usize>, CallError> {
        let len = len as i64;
        let clamp = |i: i64, lo: i64, hi: i64| if i < 0 { (i + len).max(lo) } else { i.min(hi) };
        let mut out = Vec::new();
        if step > 0 {
            let a = bound(start)?.map_or(0, |i| clamp(i, 0, len));
            let b = bound(stop)?.map_or(len, |i| clamp(i, 0, len));
            let mut i = a;
            while i < b {
                out.push(i as usize);
                i += step;
            }
        } else {
            let a = bound(start)?.map_or(len - 1, |i| clamp(i, -1, len - 1));
            let b = bound(stop)?.map_or(-1, |i| clamp(i, -1, len - 1));
            let mut i = a;
            while i > b {
                out.push(i as usize);
                i += step;
            }
        }
        Ok(out)
    };
    Ok(match seq {
        PExp::Prim(Prim::Str(s)) => {
            let cs: Vec<char> = s.chars().collect();
            PExp::str(
                &pick(cs.len())?
                    .into_iter()
                    .map(|i| cs[i])
                    .collect::<String>(),
            )
        }
        PExp::List(xs) => PExp::List(pick(xs.len())?.into_iter().map(|i| xs[i].clone()).collect()),
        PExp::Tuple(xs) => {
            PExp::Tuple(pick(xs.len())?.into_iter().map(|i| xs[i].clone()).collect())
        }
        other => {
            return Err(CallError::Raised(format!(
                "TypeError: {} is not subscriptable by a slice",
                repr(other)
            )))
        }
    })
}

/// `a * b`: numbers multiplied, a string or list repeated by an integer.
fn mul((a, b): (&PExp, &PExp)) -> Result<PExp, CallError> {
    /// Repeats of more than this many items or characters fail (as a memory error would).
    const MAX: usize = 1 << 26;
    let times = |n: i64, len: usize| -> Result<usize, CallError> {
        let n = usize::try_from(n.max(0)).map_err(|_| overflow("py_mul"))?;
        match n.checked_mul(len) {
            Some(t) if t <= MAX => Ok(n),
            _ => Err(overflow("py_mul")),
        }
    };
    Ok(match (a, b) {
        (PExp::Prim(Prim::Int(x)), PExp::Prim(Prim::Int(y))) => {
            PExp::int(x.checked_mul(*y).ok_or_else(|| overflow("py_mul"))?)
        }
        (PExp::Prim(Prim::Str(s)), PExp::Prim(Prim::Int(n)))
        | (PExp::Prim(Prim::Int(n)), PExp::Prim(Prim::Str(s))) => {
            PExp::str(&s.repeat(times(*n, s.len())?))
        }
        (PExp::List(xs), PExp::Prim(Prim::Int(n))) | (PExp::Prim(Prim::Int(n)), PExp::List(xs)) => {
            let k = times(*n, xs.len())?;
            PExp::List(xs.iter().cycle().take(k * xs.len()).cloned().collect())
        }
        _ => PExp::Prim(Prim::Float(number(a, "py_mul")? * number(b, "py_mul")?)),
    })
}

/// `/`, `//`, `%` and `**` with Python's results: `/` always a float, `//` and `%` floored
/// (the remainder takes the divisor's sign).
fn arith(ext: &str, (a, b): (&PExp, &PExp)) -> Result<PExp, CallError> {
    // CPython's words for each (3.11).
    let by_zero = |what: &str| CallError::Raised(format!("ZeroDivisionError: {what}"));
    // Booleans are integers here, as in Python (`True // 2`).
    let int = |p: &PExp| match p {
        PExp::Prim(Prim::Int(x)) => Some(*x),
        PExp::Bool(b) => Some(i64::from(*b)),
        _ => None,
    };
    if let (Some(x), Some(y)) = (int(a), int(b)) {
        match ext {
            "py_floordiv" if y == 0 => return Err(by_zero("integer division or modulo by zero")),
            "py_mod" if y == 0 => return Err(by_zero("integer modulo by zero")),
            "py_floordiv" => {
                let q = x.checked_div(y).ok_or_else(|| overflow(ext))?;
                let q = if (x % y != 0) && ((x < 0) != (y < 0)) {
                    q - 1
                } else {
                    q
                };
                return Ok(PExp::int(q));
            }
            "py_mod" => {
                let r = x.checked_rem(y).ok_or_else(|| overflow(ext))?;
                return Ok(PExp::int(if r != 0 && ((r < 0) != (y < 0)) {
                    r + y
                } else {
                    r
                }));
            }
            "py_pow" if y >= 0 => {
                let e = u32::try_from(y).map_err(|_| overflow(ext))?;
                return x.checked_pow(e).map(PExp::int).ok_or_else(|| overflow(ext));
            }
            _ => {}
        }
    }
    let (x, y) = (number(a, ext)?, number(b, ext)?);
    let r = match ext {
        "py_truediv" if y == 0.0 => {
            let ints = |p: &PExp| matches!(p, PExp::Prim(Prim::Int(_)) | PExp::Bool(_));
            let what = if ints(a) && ints(b) {
                "division by zero"
            } else {
                "float division by zero"
            };
            return Err(by_zero(what));
        }
        "py_truediv" => x / y,
        "py_floordiv" if y == 0.0 => return Err(by_zero("float floor division by zero")),
        "py_floordiv" => (x / y).floor(),
        "py_mod" if y == 0.0 => return Err(by_zero("float modulo")),
        "py_mod" => {
            let r = x % y;
            if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
                r + y
            } else {
                r
            }
        }
        _ => x.powf(y),
    };
    Ok(PExp::Prim(Prim::Float(r)))
}

/// `format(x, spec)` for the specs scripts use: `[[fill]align][sign][width][,][.precision]
/// [type]` with types `f`, `e`, `%`, `d`, `s` and none.
fn format(x: &PExp, spec: &str) -> Result<String, CallError> {
    let bad = || value_error(format!("unsupported format spec '{spec}'"));
    let chars: Vec<char> = spec.chars().collect();
    let mut i = 0;
    let (mut fill, mut align) = (' ', None);
    if chars.len() >= 2 && matches!(chars[1], '<' | '>' | '^') {
        (fill, align) = (chars[0], Some(chars[1]));
        i = 2;
    } else if chars.first().is_some_and(|c| matches!(c, '<' | '>' | '^')) {
        align = chars.first().copied();
        i = 1;
    }
    let mut plus = false;
    if chars.get(i) == Some(&'+') {
        plus = true;
        i += 1;
    }
    // `0` before the width pads with zeros after the sign (`{-42:05d}` is `-0042`).
    let zero = align.is_none() && chars.get(i) == Some(&'0');
    if zero {
        i += 1;
    }
    let mut width = 0usize;
    while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
        width = width * 10 + d as usize;
        i += 1;
    }
    let mut commas = false;
    if chars.get(i) == Some(&',') {
        commas = true;
        i += 1;
    }
    let mut precision = None;
    if chars.get(i) == Some(&'.') {
        i += 1;
        let mut p = 0usize;
        let start = i;
        while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
            p = p * 10 + d as usize;
            i += 1;
        }
        if i == start {
            return Err(bad());
        }
        precision = Some(p);
    }
    let ty = chars.get(i).copied();
    if i + usize::from(ty.is_some()) != chars.len() {
        return Err(bad());
    }
    let mut body = match (ty, x) {
        (Some('f' | 'F'), _) => format!("{:.*}", precision.unwrap_or(6), number(x, "format")?),
        (Some('e'), _) => {
            let s = format!("{:.*e}", precision.unwrap_or(6), number(x, "format")?);
            // Rust writes `1.5e3`; Python `1.5e+03`.
            match s.split_once('e') {
                Some((m, e)) => {
                    let e: i32 = e.parse().unwrap_or(0);
                    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
                }
                None => s,
            }
        }
        (Some('%'), _) => format!(
            "{:.*}%",
            precision.unwrap_or(6),
            number(x, "format")? * 100.0
        ),
        (Some('d'), PExp::Prim(Prim::Int(n))) => n.to_string(),
        (Some('s') | None, PExp::Prim(Prim::Str(s))) => match precision {
            Some(p) => s.chars().take(p).collect(),
            None => s.to_string(),
        },
        (None, PExp::Prim(Prim::Float(f))) if precision.is_some() => {
            // `.3` without a type: significant digits, as `g` but keeping a `.0`-less form.
            let p = precision.unwrap_or(6).max(1);
            let s = format!("{:.*e}", p - 1, f);
            let v: f64 = s.parse().unwrap_or(*f);
            float_repr(v)
        }
        (None, other) => str_of(other),
        _ => return Err(bad()),
    };
    if commas {
        body = group_thousands(&body);
    }
    if plus && !body.starts_with('-') {
        body.insert(0, '+');
    }
    let len = body.chars().count();
    if len >= width {
        return Ok(body);
    }
    let pad = width - len;
    let numeric = matches!(x, PExp::Prim(Prim::Int(_) | Prim::Float(_)));
    if zero && numeric {
        let sign_len = usize::from(body.starts_with(['-', '+']));
        let (sign, digits) = body.split_at(sign_len);
        return Ok(format!("{sign}{}{digits}", "0".repeat(pad)));
    }
    let fill_str = |n: usize| fill.to_string().repeat(n);
    Ok(match align.unwrap_or(if numeric { '>' } else { '<' }) {
        '<' => format!("{body}{}", fill_str(pad)),
        '^' => format!("{}{body}{}", fill_str(pad / 2), fill_str(pad - pad / 2)),
        _ => format!("{}{body}", fill_str(pad)),
    })
}

/// Python's `str.istitle`: cased runs start upper case and continue lower case, and there is one.
fn is_title(s: &str) -> bool {
    let (mut cased, mut prev_cased) = (false, false);
    for c in s.chars() {
        if c.is_uppercase() {
            if prev_cased {
                return false;
            }
            (cased, prev_cased) = (true, true);
        } else if c.is_lowercase() {
            if !prev_cased {
                return false;
            }
            (cased, prev_cased) = (true, true);
        } else {
            prev_cased = false;
        }
    }
    cased
}

/// `1234567.5` → `1,234,567.5`.
fn group_thousands(s: &str) -> String {
    let (sign, rest) = s.strip_prefix('-').map_or(("", s), |r| ("-", r));
    let (int_part, frac) = rest
        .split_once('.')
        .map_or((rest, None), |(a, b)| (a, Some(b)));
    let mut grouped = String::new();
    for (i, c) in int_part.chars().enumerate() {
        if i > 0 && (int_part.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_cpython_prints_them() {
        for (f, want) in [
            (0.1 + 0.2, "0.30000000000000004"),
            (1.0, "1.0"),
            (2.5, "2.5"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-3.0, "-3.0"),
            (123456.789, "123456.789"),
            (1.5e-7, "1.5e-07"),
            (f64::INFINITY, "inf"),
        ] {
            assert_eq!(float_repr(f), want, "{f}");
        }
    }

    #[test]
    fn reprs_and_formats_match_cpython() {
        let l = PExp::List(vec![
            PExp::str("b"),
            PExp::str("it's"),
            PExp::int(1),
            PExp::Bool(true),
        ]);
        assert_eq!(repr(&l), r#"['b', "it's", 1, True]"#);
        let d = PExp::Dict(vec![(PExp::str("k"), PExp::Tuple(vec![PExp::int(1)]))]);
        assert_eq!(repr(&d), "{'k': (1,)}");
        assert_eq!(repr(&PExp::Tuple(vec![])), "None");
        let f = |x: PExp, s: &str| format(&x, s).unwrap_or_else(|e| e.to_string());
        assert_eq!(f(PExp::Prim(Prim::Float(12.3456)), ".2f"), "12.35");
        assert_eq!(f(PExp::int(7), ">3"), "  7");
        assert_eq!(f(PExp::str("ab"), "*^6"), "**ab**");
        assert_eq!(f(PExp::int(1234567), ","), "1,234,567");
        assert_eq!(f(PExp::Prim(Prim::Float(0.25)), ".1%"), "25.0%");
        assert_eq!(f(PExp::Prim(Prim::Float(12345.678)), "e"), "1.234568e+04");
    }

    #[test]
    fn division_and_modulo_floor_as_python() {
        let ev =
            |op: &str, a: i64, b: i64| eval(op, &PExp::Tuple(vec![PExp::int(a), PExp::int(b)]));
        assert_eq!(ev("py_floordiv", -7, 2), Ok(PExp::int(-4)));
        assert_eq!(ev("py_mod", -7, 2), Ok(PExp::int(1)));
        assert_eq!(ev("py_mod", 7, -2), Ok(PExp::int(-1)));
        assert_eq!(ev("py_truediv", 4, 2), Ok(PExp::Prim(Prim::Float(2.0))));
        assert!(ev("py_truediv", 1, 0).is_err());
    }
}
