//! Python's collection built-ins that build or change a collection, for the Python front end:
//! `dict(pairs)`, the join of a comprehension's nested lists, `enumerate(xs, start)`, and the
//! methods that change their receiver (`xs.pop()`, `d.update(e)`, …) as a function from the
//! receiver to (the changed receiver, the method's result); and the functions on the
//! exception values a `try` body's catching calls return (`exception`). Errors are CPython's.

use super::call_error::CallError;
use super::pylib::{eval as py_eval, pair, repr, value_error};
use crate::ir::{PExp, Prim};
use std::collections::hash_map::Entry;
use std::collections::HashMap;

pub(super) fn eval(ext: &str, arg: &PExp) -> Result<PExp, CallError> {
    Ok(match ext {
        "py_dict" => dict(arg)?,
        "py_flatten" => {
            let mut out = Vec::new();
            for l in super::data::elements(arg, ext)? {
                match l {
                    PExp::List(xs) | PExp::Tuple(xs) => out.extend(xs.iter().cloned()),
                    other => return Err(value_error(format!("{} is not a list", repr(other)))),
                }
            }
            PExp::List(out)
        }
        "py_enumerate" => {
            let (l, start) = pair(arg, ext)?;
            let PExp::Prim(Prim::Int(start)) = start else {
                return Err(value_error("enumerate's start must be an integer".into()));
            };
            // What Python iterates: a string's characters, a dictionary's keys.
            let PExp::List(xs) = py_eval("py_list", l)? else {
                return Err(value_error("enumerate needs a list".into()));
            };
            PExp::List(
                (xs.into_iter().enumerate())
                    .map(|(i, x)| Ok(PExp::Tuple(vec![PExp::int(add_index(*start, i)?), x])))
                    .collect::<Result<_, CallError>>()?,
            )
        }
        _ => match arg {
            PExp::Tuple(xs) if xs.len() == 3 => {
                let PExp::Prim(Prim::Str(name)) = &xs[1] else {
                    return Err(value_error(
                        "py_mutated takes (receiver, name, arguments)".into(),
                    ));
                };
                let args = match &xs[2] {
                    PExp::Tuple(a) => a.clone(),
                    one => vec![one.clone()],
                };
                let (changed, result) = mutated(&xs[0], name, &args)?;
                PExp::Tuple(vec![changed, result])
            }
            _ => {
                return Err(value_error(
                    "py_mutated takes (receiver, name, arguments)".into(),
                ))
            }
        },
    })
}

/// What a catching call (`try.f`) returns when `f` raised: (the handle `exception`, which no
/// program can name, the class, its classes from the MRO, the message, the whole text).
pub(super) fn as_exception(v: &PExp) -> Option<(&[PExp], &str, &str)> {
    let PExp::Tuple(xs) = v else { return None };
    match &xs[..] {
        [PExp::Prim(Prim::Handle(h)), _, PExp::List(classes), PExp::Prim(Prim::Str(m)), PExp::Prim(Prim::Str(t))]
            if &**h == "exception" =>
        {
            Some((classes, m, t))
        }
        _ => None,
    }
}

/// The class of an exception value (`as_exception`): `ValueError`, or the script's own.
pub(super) fn exception_class(v: &PExp) -> &str {
    match v {
        PExp::Tuple(xs) => match xs.get(1) {
            Some(PExp::Prim(Prim::Str(c))) => c,
            _ => "Exception",
        },
        _ => "Exception",
    }
}

/// The Python front end's exception functions: `py_caught v` (did the call raise?),
/// `py_exc_matches (v, classes)` (does an `except` naming them catch it?), `py_exc_message v`
/// (`str(e)`) and `py_exc_raise v` (fail the run with it).
pub(super) fn exception(ext: &str, arg: &PExp) -> Result<PExp, CallError> {
    if ext == "py_quiet" {
        return Ok(PExp::str(""));
    }
    if ext == "py_try" {
        return library_try(arg);
    }
    if ext == "py_exc_new" {
        return match arg {
            PExp::Tuple(xs) => match &xs[..] {
                [PExp::Prim(Prim::Str(class)), PExp::List(classes), PExp::Prim(Prim::Str(m))] => {
                    let text = match &**m {
                        "" => class.to_string(),
                        m => format!("{class}: {m}"),
                    };
                    Ok(PExp::Tuple(vec![
                        PExp::Prim(Prim::Handle("exception".into())),
                        PExp::str(class),
                        PExp::List(classes.clone()),
                        PExp::str(m),
                        PExp::str(&text),
                    ]))
                }
                _ => Err(value_error(
                    "py_exc_new takes (class, [classes], message)".into(),
                )),
            },
            _ => Err(value_error(
                "py_exc_new takes (class, [classes], message)".into(),
            )),
        };
    }
    if ext == "py_caught" {
        return Ok(PExp::Bool(as_exception(arg).is_some()));
    }
    if ext == "py_exc_check" {
        let (v, names) = pair(arg, ext)?;
        let PExp::List(names) = names else {
            return Err(value_error("py_exc_check takes (value, [classes])".into()));
        };
        return match as_exception(v) {
            Some((classes, _, text)) if !names.iter().any(|n| classes.contains(n)) => {
                Err(CallError::Raised(text.to_string()))
            }
            _ => Ok(v.clone()),
        };
    }
    let v = match (ext, arg) {
        ("py_exc_matches", PExp::Tuple(xs)) if xs.len() == 2 => &xs[0],
        _ => arg,
    };
    let Some((classes, message, text)) = as_exception(v) else {
        return Err(value_error(format!("{ext} needs an exception")));
    };
    Ok(match ext {
        "py_exc_matches" => {
            let names = match arg {
                PExp::Tuple(xs) => match xs.get(1) {
                    Some(PExp::List(names)) => names,
                    _ => {
                        return Err(value_error(
                            "py_exc_matches takes (exception, [classes])".into(),
                        ))
                    }
                },
                _ => {
                    return Err(value_error(
                        "py_exc_matches takes (exception, [classes])".into(),
                    ))
                }
            };
            PExp::Bool(names.iter().any(|n| classes.contains(n)))
        }
        "py_exc_message" => PExp::str(message),
        _ => return Err(CallError::Raised(text.to_string())),
    })
}

/// The library functions a `try` body may call and catch (`d[k]`, `int(s)`, `a / b`).
const CATCHABLE: &[&str] = &[
    "index",
    "py_int",
    "py_float",
    "py_truediv",
    "py_floordiv",
    "py_mod",
    "py_mutated",
];

/// `py_try (name, arg)`: the library function `name` on `arg`, or, when it fails, the
/// exception Python would raise there, as a catching twin returns it: `d[k]` a `KeyError`
/// whose message is `repr(k)`, an index out of range an `IndexError`, `int("x")` a
/// `ValueError`, `1 / 0` a `ZeroDivisionError`.
fn library_try(arg: &PExp) -> Result<PExp, CallError> {
    let (name, inner) = pair(arg, "py_try")?;
    let name = match name {
        PExp::Prim(Prim::Str(n)) if CATCHABLE.contains(&&**n) => n,
        other => return Err(value_error(format!("py_try cannot catch {}", repr(other)))),
    };
    let e = match super::data::eval(name, inner) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    // Only what CPython raises there: OPAL's own limits (64-bit integers, a kind it does not
    // take) end the run, never an `except` branch CPython would not take.
    let (class, message) = match &e {
        CallError::MissingKey { .. } => {
            let key = match inner {
                PExp::Tuple(xs) if xs.len() == 2 => repr(&xs[1]),
                other => repr(other),
            };
            ("KeyError".to_string(), key)
        }
        CallError::OutOfRange { what, .. } => {
            let of = what.strip_prefix("a ").unwrap_or(what);
            ("IndexError".to_string(), format!("{of} index out of range"))
        }
        CallError::Raised(text) => match text.split_once(": ") {
            Some((c @ ("ValueError" | "ZeroDivisionError" | "KeyError" | "IndexError"), m)) => {
                (c.to_string(), m.to_string())
            }
            _ => return Err(e),
        },
        _ => return Err(e),
    };
    let parent = match class.as_str() {
        "KeyError" | "IndexError" => Some("LookupError"),
        "ZeroDivisionError" | "OverflowError" => Some("ArithmeticError"),
        _ => None,
    };
    let classes = std::iter::once(class.as_str())
        .chain(parent)
        .chain((class != "Exception").then_some("Exception"))
        .chain(["BaseException"])
        .map(PExp::str)
        .collect();
    Ok(PExp::Tuple(vec![
        PExp::Prim(Prim::Handle("exception".into())),
        PExp::str(&class),
        PExp::List(classes),
        PExp::str(&message),
        PExp::str(&format!("{class}: {message}")),
    ]))
}

/// `start + i`, refused past 64 bits.
fn add_index(start: i64, i: usize) -> Result<i64, CallError> {
    i64::try_from(i)
        .ok()
        .and_then(|i| start.checked_add(i))
        .ok_or_else(|| value_error("enumerate's count does not fit in 64 bits".into()))
}

/// A dictionary being built or changed: its entries in order and an index by key
/// (`key_text`), so each change is O(1).
struct Entries {
    out: Vec<(PExp, PExp)>,
    at: HashMap<String, usize>,
}

impl Entries {
    fn new(kvs: &[(PExp, PExp)]) -> Entries {
        let mut e = Entries {
            out: Vec::with_capacity(kvs.len()),
            at: HashMap::new(),
        };
        for (k, v) in kvs {
            e.set(k.clone(), v.clone());
        }
        e
    }
    /// A later key replaces an earlier one's value, in its place.
    fn set(&mut self, k: PExp, v: PExp) {
        match self.at.entry(key_text(&k)) {
            Entry::Occupied(e) => self.out[*e.get()].1 = v,
            Entry::Vacant(e) => {
                e.insert(self.out.len());
                self.out.push((k, v));
            }
        }
    }
    fn add_pairs(&mut self, pairs: &PExp) -> Result<(), CallError> {
        let pairs = match pairs {
            PExp::Dict(kvs) => {
                kvs.iter().for_each(|(k, v)| self.set(k.clone(), v.clone()));
                return Ok(());
            }
            PExp::Tuple(xs) if xs.is_empty() => return Ok(()),
            PExp::List(xs) | PExp::Tuple(xs) => xs,
            other => {
                return Err(CallError::Raised(format!(
                    "TypeError: cannot convert {} to a dictionary",
                    repr(other)
                )))
            }
        };
        for p in pairs {
            let (PExp::Tuple(kv) | PExp::List(kv)) = p else {
                let what = format!(
                    "dictionary update sequence element {} is not a pair",
                    repr(p)
                );
                return Err(value_error(what));
            };
            let [k, v] = &kv[..] else {
                return Err(value_error(format!(
                    "dictionary update sequence element has length {}; 2 is required",
                    kv.len()
                )));
            };
            self.set(k.clone(), v.clone());
        }
        Ok(())
    }
}

/// `dict(pairs)`: a dictionary from (key, value) pairs, a copy of a dictionary, or `{}`.
fn dict(arg: &PExp) -> Result<PExp, CallError> {
    let mut e = Entries::new(&[]);
    e.add_pairs(arg)?;
    Ok(PExp::Dict(e.out))
}

/// What two keys share exactly when `==` holds between them (`1`, `1.0` and `True` are one
/// key, as in Python); the value's text for what Python could not hash.
fn key_text(k: &PExp) -> String {
    super::pyset::key(k).unwrap_or_else(|| format!("{k:?}"))
}

fn key_error(k: &PExp) -> CallError {
    CallError::Raised(format!("KeyError: {}", repr(k)))
}

/// `recv.name(*args)` for a method that changes its receiver: (the changed receiver, what
/// the method returns).
fn mutated(recv: &PExp, name: &str, args: &[PExp]) -> Result<(PExp, PExp), CallError> {
    if name == "__delitem__" && !matches!(recv, PExp::List(_) | PExp::Dict(_)) {
        return Err(CallError::Raised(format!(
            "TypeError: '{}' object doesn't support item deletion",
            super::pylib::type_name(recv)
        )));
    }
    match recv {
        PExp::List(xs) => list_mutated(xs, name, args),
        PExp::Dict(kvs) => dict_mutated(kvs, name, args),
        PExp::Set(xs) => super::pyset::mutated(xs, name, args),
        other => {
            let kind = match other {
                PExp::Prim(Prim::Str(_)) => "str",
                PExp::Tuple(_) => "tuple",
                _ => "value",
            };
            Err(no_method(kind, name))
        }
    }
}

/// Does the method get as many arguments as it takes?
fn takes(name: &str, args: &[PExp], n: std::ops::RangeInclusive<usize>) -> Result<(), CallError> {
    if n.contains(&args.len()) {
        return Ok(());
    }
    let count = if n.start() == n.end() {
        n.start().to_string()
    } else {
        format!("{n:?}")
    };
    Err(CallError::Raised(format!(
        "TypeError: {name}() takes {count} arguments ({} given)",
        args.len()
    )))
}

/// A list method that changes the list.
fn list_mutated(xs: &[PExp], name: &str, args: &[PExp]) -> Result<(PExp, PExp), CallError> {
    let none = PExp::Tuple(Vec::new());
    let takes = |n| takes(name, args, n);
    let mut xs = xs.to_vec();
    let result = match name {
        "insert" => {
            takes(2..=2)?;
            let PExp::Prim(Prim::Int(i)) = args[0] else {
                return Err(value_error("insert's index must be an integer".into()));
            };
            let n = xs.len() as i64;
            let at = if i < 0 { (i + n).max(0) } else { i.min(n) };
            xs.insert(at as usize, args[1].clone());
            none
        }
        "pop" => {
            takes(0..=1)?;
            if xs.is_empty() {
                return Err(CallError::Raised("IndexError: pop from empty list".into()));
            }
            let n = xs.len() as i64;
            let i = match args.first() {
                None => n - 1,
                Some(PExp::Prim(Prim::Int(i))) if *i < 0 => i + n,
                Some(PExp::Prim(Prim::Int(i))) => *i,
                Some(_) => return Err(value_error("pop's index must be an integer".into())),
            };
            if !(0..n).contains(&i) {
                return Err(CallError::Raised(
                    "IndexError: pop index out of range".into(),
                ));
            }
            xs.remove(i as usize)
        }
        "remove" => {
            takes(1..=1)?;
            let Some(i) = xs.iter().position(|x| super::data::equal(x, &args[0])) else {
                let msg = "ValueError: list.remove(x): x not in list";
                return Err(CallError::Raised(msg.into()));
            };
            xs.remove(i);
            none
        }
        "clear" => {
            takes(0..=0)?;
            xs.clear();
            none
        }
        // `del xs[i]`.
        "__delitem__" => {
            takes(1..=1)?;
            let n = xs.len() as i64;
            let i = match &args[0] {
                PExp::Prim(Prim::Int(i)) if *i < 0 => i + n,
                PExp::Prim(Prim::Int(i)) => *i,
                PExp::Bool(b) => i64::from(*b),
                other => {
                    return Err(CallError::Raised(format!(
                        "TypeError: list indices must be integers or slices, not {}",
                        super::pylib::type_name(other)
                    )))
                }
            };
            if !(0..n).contains(&i) {
                let msg = "IndexError: list assignment index out of range";
                return Err(CallError::Raised(msg.into()));
            }
            xs.remove(i as usize);
            none
        }
        "reverse" => {
            takes(0..=0)?;
            xs.reverse();
            none
        }
        "sort" => {
            takes(0..=0)?;
            xs = match super::data::eval("sorted", &PExp::List(xs))? {
                PExp::List(s) => s,
                _ => return Err(value_error("sort needs a list".into())),
            };
            none
        }
        "append" => {
            takes(1..=1)?;
            xs.push(args[0].clone());
            none
        }
        "extend" => {
            takes(1..=1)?;
            let PExp::List(more) = py_eval("py_list", &args[0])? else {
                return Err(value_error("extend needs a list".into()));
            };
            xs.extend(more);
            none
        }
        _ => return Err(no_method("list", name)),
    };
    Ok((PExp::List(xs), result))
}

/// A dictionary method that changes the dictionary.
fn dict_mutated(
    kvs: &[(PExp, PExp)],
    name: &str,
    args: &[PExp],
) -> Result<(PExp, PExp), CallError> {
    let none = PExp::Tuple(Vec::new());
    let takes = |n| takes(name, args, n);
    let mut e = Entries::new(kvs);
    let result = match name {
        "update" => {
            takes(1..=1)?;
            e.add_pairs(&args[0])?;
            none
        }
        "setdefault" => {
            takes(1..=2)?;
            let k = &args[0];
            match e.at.get(&key_text(k)) {
                Some(&i) => e.out[i].1.clone(),
                None => {
                    let v = args.get(1).cloned().unwrap_or(none);
                    e.set(k.clone(), v.clone());
                    v
                }
            }
        }
        "pop" => {
            takes(1..=2)?;
            let k = &args[0];
            match e.at.get(&key_text(k)) {
                Some(&i) => {
                    let (_, v) = e.out.remove(i);
                    return Ok((PExp::Dict(e.out), v));
                }
                None => args.get(1).cloned().ok_or_else(|| key_error(k))?,
            }
        }
        // `del d[k]`.
        "__delitem__" => {
            takes(1..=1)?;
            let k = &args[0];
            let Some(&i) = e.at.get(&key_text(k)) else {
                return Err(key_error(k));
            };
            e.out.remove(i);
            return Ok((PExp::Dict(e.out), none));
        }
        "popitem" => {
            takes(0..=0)?;
            let Some((k, v)) = e.out.pop() else {
                let msg = "KeyError: 'popitem(): dictionary is empty'";
                return Err(CallError::Raised(msg.into()));
            };
            PExp::Tuple(vec![k, v])
        }
        "clear" => {
            takes(0..=0)?;
            e.out.clear();
            none
        }
        _ => return Err(no_method("dict", name)),
    };
    Ok((PExp::Dict(e.out), result))
}

fn no_method(kind: &str, name: &str) -> CallError {
    CallError::Raised(format!(
        "AttributeError: '{kind}' object has no attribute '{name}'"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(xs: &[i64]) -> PExp {
        PExp::List(xs.iter().map(|&i| PExp::int(i)).collect())
    }

    #[test]
    fn list_methods_change_the_receiver_as_cpython_does() {
        let m = |r: &PExp, n: &str, a: &[PExp]| mutated(r, n, a).map_err(|e| e.to_string());
        assert_eq!(
            m(&list(&[1, 2]), "insert", &[PExp::int(-9), PExp::int(0)]),
            Ok((list(&[0, 1, 2]), PExp::Tuple(vec![])))
        );
        assert_eq!(
            m(&list(&[1, 2]), "insert", &[PExp::int(9), PExp::int(3)]),
            Ok((list(&[1, 2, 3]), PExp::Tuple(vec![])))
        );
        assert_eq!(
            m(&list(&[1, 2, 3]), "pop", &[]),
            Ok((list(&[1, 2]), PExp::int(3)))
        );
        assert_eq!(
            m(&list(&[1, 2, 3]), "pop", &[PExp::int(-3)]),
            Ok((list(&[2, 3]), PExp::int(1)))
        );
        assert!(m(&list(&[]), "pop", &[]).is_err_and(|e| e.contains("pop from empty list")));
        assert!(m(&list(&[1]), "pop", &[PExp::int(1)])
            .is_err_and(|e| e.contains("pop index out of range")));
        assert!(
            m(&list(&[1]), "remove", &[PExp::int(2)]).is_err_and(|e| e.contains("x not in list"))
        );
        assert_eq!(
            m(&list(&[3, 1, 2]), "sort", &[]),
            Ok((list(&[1, 2, 3]), PExp::Tuple(vec![])))
        );
    }

    #[test]
    fn dict_methods_keep_the_order_and_raise_key_errors() {
        let d = PExp::Dict(vec![
            (PExp::str("a"), PExp::int(1)),
            (PExp::str("b"), PExp::int(2)),
        ]);
        let m = |r: &PExp, n: &str, a: &[PExp]| mutated(r, n, a).map_err(|e| e.to_string());
        let (d2, v) = m(&d, "pop", &[PExp::str("a")]).unwrap();
        assert_eq!(
            (d2, v),
            (
                PExp::Dict(vec![(PExp::str("b"), PExp::int(2))]),
                PExp::int(1)
            )
        );
        assert!(m(&d, "pop", &[PExp::str("z")]).is_err_and(|e| e.contains("KeyError: 'z'")));
        let upd = PExp::Dict(vec![
            (PExp::str("a"), PExp::int(9)),
            (PExp::str("c"), PExp::int(3)),
        ]);
        let (d3, _) = m(&d, "update", &[upd]).unwrap();
        let want = [("a", 9), ("b", 2), ("c", 3)].map(|(k, v)| (PExp::str(k), PExp::int(v)));
        assert_eq!(d3, PExp::Dict(want.to_vec()));
        let (_, got) = m(&d, "setdefault", &[PExp::str("b"), PExp::int(7)]).unwrap();
        assert_eq!(got, PExp::int(2));
    }
}
