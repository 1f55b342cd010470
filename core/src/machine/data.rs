//! Data that externals take and give beyond the calculus' primitive expressions: Church lists,
//! Church booleans and dictionaries, read back into `PExp` at dispatch (`Machine::data`) and
//! built back into closed core expressions at resolve. And the library externals a Python
//! user reaches for (`len`, `range`, `sorted`, `json_parse`, …), which compute on that data.
//!
//! A dictionary is the pair `(dict, entries)`: the tag is a handle no program can name, the
//! entries a Church list of `(key, value)` pairs in insertion order, a later key replacing an
//! earlier one.

use super::call_error::CallError;
use super::Outcome;
use crate::diag::Clip;
use crate::ir::{Expr, Fun, Op, PExp, Prim, Stmt, DICT_TAG, SET_TAG};
use crate::names::{Name, Sym};
use crate::span::Span;
use std::cmp::Ordering;
use std::sync::Arc;

/// The longest list `range` builds (a longer one is a failed call, not an exhausted machine).
pub const MAX_RANGE: i64 = 10_000_000;

/// An outcome that resolves to `p`: a primitive directly, anything else as a closed
/// expression building it (the text is how traces and views write it).
pub fn outcome(p: PExp) -> Outcome {
    match p {
        PExp::Prim(c) => Outcome::Value(c),
        other => {
            let text = other.to_string();
            Outcome::Expr(super::template::compile_closed(&expr(&other)).0, text)
        }
    }
}

/// A closed core expression whose value is `p`.
pub fn expr(p: &PExp) -> Expr {
    let mut b = Builder {
        stmts: Vec::new(),
        next: 0,
    };
    let r = b.value(p);
    Expr {
        stmts: b.stmts,
        ret: Some(r),
    }
}

struct Builder {
    stmts: Vec<Stmt>,
    next: u32,
}

impl Builder {
    fn name(&mut self, base: &str) -> Name {
        self.next += 1;
        Name {
            base: Sym::intern(base),
            idx: self.next,
        }
    }
    fn emit(&mut self, base: &str, op: Op) -> Name {
        let bind = self.name(base);
        self.stmts.push(Stmt {
            bind,
            op,
            span: Span::default(),
        });
        bind
    }
    fn value(&mut self, p: &PExp) -> Name {
        match p {
            PExp::Prim(c) => self.emit("v", Op::Prim(c.clone())),
            PExp::Tuple(xs) => {
                let parts = xs.iter().map(|x| self.value(x)).collect();
                self.emit("t", Op::Tuple(parts))
            }
            PExp::List(xs) => {
                let items: Vec<Name> = xs.iter().map(|x| self.value(x)).collect();
                self.list(&items)
            }
            PExp::Bool(b) => {
                // `true := fun (t, f): t ()`, `false := fun (t, f): f ()`.
                let saved = std::mem::take(&mut self.stmts);
                let p = self.name("p");
                let t = self.emit("t", Op::Prj(1, p));
                let f = self.emit("f", Op::Prj(2, p));
                let branch = if *b { t } else { f };
                let unit = self.emit("u", Op::Tuple(vec![]));
                let r = self.emit("r", Op::Call(branch, unit));
                let body = Expr {
                    stmts: std::mem::replace(&mut self.stmts, saved),
                    ret: Some(r),
                };
                self.emit(
                    if *b { "true" } else { "false" },
                    Op::Fun(Box::new(Fun { param: p, body })),
                )
            }
            PExp::Dict(kvs) => {
                let pairs: Vec<Name> = kvs
                    .iter()
                    .map(|(k, v)| {
                        let k = self.value(k);
                        let v = self.value(v);
                        self.emit("kv", Op::Tuple(vec![k, v]))
                    })
                    .collect();
                let entries = self.list(&pairs);
                let tag = self.emit("tag", Op::Prim(Prim::Handle(Arc::from(DICT_TAG))));
                self.emit("dict", Op::Tuple(vec![tag, entries]))
            }
            PExp::Set(xs) => {
                let items: Vec<Name> = xs.iter().map(|x| self.value(x)).collect();
                let elements = self.list(&items);
                let tag = self.emit("tag", Op::Prim(Prim::Handle(Arc::from(SET_TAG))));
                self.emit("set", Op::Tuple(vec![tag, elements]))
            }
        }
    }
    /// A Church list of already-built items: `fun p: append (… append (prj 1 p, x1) …, xn)`.
    fn list(&mut self, items: &[Name]) -> Name {
        let saved = std::mem::take(&mut self.stmts);
        let p = self.name("p");
        let mut state = self.emit("state", Op::Prj(1, p));
        let append = self.emit("append", Op::Prj(2, p));
        for x in items {
            let t = self.emit("t", Op::Tuple(vec![state, *x]));
            state = self.emit("state", Op::Call(append, t));
        }
        let body = Expr {
            stmts: std::mem::replace(&mut self.stmts, saved),
            ret: Some(state),
        };
        self.emit("list", Op::Fun(Box::new(Fun { param: p, body })))
    }
}

/// How `print`, `to_str` and f-strings show a value: strings raw, everything else as a
/// literal (`[1, "a"]`, `true`, `{"k": 2}`).
pub fn display(p: &PExp) -> String {
    match p {
        PExp::Prim(Prim::Str(s)) => s.to_string(),
        other => other.to_string(),
    }
}

/// A number's value; a boolean is 0 or 1, as in Python (`True + 1`, `sum` of booleans).
fn num(p: &PExp) -> Option<f64> {
    match p {
        PExp::Prim(Prim::Float(f)) => Some(*f),
        _ => integer(p).map(|i| i as f64),
    }
}

/// An integer's exact value (a boolean's 0 or 1): compared as integers, never through `f64`
/// (`2**53 + 1 != 2**53`).
fn integer(p: &PExp) -> Option<i64> {
    match p {
        PExp::Prim(Prim::Int(i)) => Some(*i),
        PExp::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

/// `a == b` between numbers, exactly as Python compares an integer with a float (a float
/// equals an integer only when it is that integer); `None` if either is not a number.
fn num_equal(a: &PExp, b: &PExp) -> Option<bool> {
    let exact = |i: i64, f: f64| f.fract() == 0.0 && f.abs() < 9.2e18 && f as i64 == i;
    Some(match (integer(a), integer(b)) {
        (Some(i), Some(j)) => i == j,
        (Some(i), None) => exact(i, float(b)?),
        (None, Some(j)) => exact(j, float(a)?),
        (None, None) => float(a)? == float(b)?,
    })
}

fn float(p: &PExp) -> Option<f64> {
    match p {
        PExp::Prim(Prim::Float(f)) => Some(*f),
        _ => None,
    }
}

/// Python's ordering: numbers by value, strings by code points, booleans as 0 and 1, tuples
/// and lists lexicographically. `None` when the two cannot be compared.
pub fn compare(a: &PExp, b: &PExp) -> Option<Ordering> {
    use PExp::*;
    match (a, b) {
        (Prim(crate::ir::Prim::Str(x)), Prim(crate::ir::Prim::Str(y))) => Some(x.cmp(y)),
        (Prim(crate::ir::Prim::Int(_)) | Bool(_), Prim(crate::ir::Prim::Int(_)) | Bool(_)) => {
            Some(integer(a)?.cmp(&integer(b)?))
        }
        (Tuple(xs), Tuple(ys)) | (List(xs), List(ys)) => {
            for (x, y) in xs.iter().zip(ys) {
                match compare(x, y)? {
                    Ordering::Equal => {}
                    o => return Some(o),
                }
            }
            Some(xs.len().cmp(&ys.len()))
        }
        _ => num(a)?.partial_cmp(&num(b)?),
    }
}

/// Equality as `==` sees it: `2 == 2.0`, structural on tuples, lists and dictionaries.
pub fn equal(a: &PExp, b: &PExp) -> bool {
    match num_equal(a, b) {
        Some(e) => e,
        None => match (a, b) {
            (PExp::Tuple(xs), PExp::Tuple(ys)) | (PExp::List(xs), PExp::List(ys)) => {
                xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| equal(x, y))
            }
            (PExp::Dict(xs), PExp::Dict(ys)) => {
                xs.len() == ys.len()
                    && xs
                        .iter()
                        .all(|(k, v)| ys.iter().any(|(k2, v2)| equal(k, k2) && equal(v, v2)))
            }
            (PExp::Set(xs), PExp::Set(ys)) => super::pyset::equal(xs, ys),
            _ => a == b,
        },
    }
}

fn kind(p: &PExp) -> &'static str {
    match p {
        PExp::Prim(Prim::Int(_)) => "an integer",
        PExp::Prim(Prim::Float(_)) => "a float",
        PExp::Prim(Prim::Str(_)) => "a string",
        PExp::Prim(Prim::Handle(_)) => "a handle",
        PExp::Prim(Prim::Ext(_)) => "an external",
        PExp::Tuple(_) => "a tuple",
        PExp::List(_) => "a list",
        PExp::Bool(_) => "a boolean",
        PExp::Dict(_) => "a dictionary",
        PExp::Set(_) => "a set",
    }
}

/// The elements a collection iterates over: a list's elements, a tuple's components, a
/// dictionary's keys.
pub(super) fn elements<'a>(p: &'a PExp, ext: &str) -> Result<Vec<&'a PExp>, CallError> {
    match p {
        PExp::List(xs) | PExp::Tuple(xs) => Ok(xs.iter().collect()),
        PExp::Dict(kvs) => Ok(kvs.iter().map(|(k, _)| k).collect()),
        PExp::Set(xs) => Ok(super::pyset::order(xs)),
        other => Err(CallError::Needs {
            ext: ext.to_string(),
            needs: "a list",
            got: described(other),
        }),
    }
}

fn int(p: &PExp, what: &'static str) -> Result<i64, CallError> {
    match p {
        PExp::Prim(Prim::Int(i)) => Ok(*i),
        other => Err(CallError::NotAnInteger {
            what,
            got: described(other),
        }),
    }
}

fn args<'a, const N: usize>(
    arg: &'a PExp,
    ext: &str,
    shape: &'static str,
) -> Result<[&'a PExp; N], CallError> {
    match arg {
        PExp::Tuple(xs) if xs.len() == N => {
            let v: Vec<&PExp> = xs.iter().collect();
            v.try_into().map_err(|_| CallError::Takes {
                ext: ext.to_string(),
                shape,
                got: shown(arg),
            })
        }
        other => Err(CallError::Takes {
            ext: ext.to_string(),
            shape,
            got: shown(other),
        }),
    }
}

fn bool_of(b: bool) -> PExp {
    PExp::Bool(b)
}

/// A Python index into `n` elements (negative counts from the end).
fn position(i: i64, n: usize, what: &'static str) -> Result<usize, CallError> {
    let j = if i < 0 { i + n as i64 } else { i };
    if j < 0 || j >= n as i64 {
        return Err(CallError::OutOfRange {
            index: shown(&i),
            what,
            len: n,
        });
    }
    Ok(j as usize)
}

fn sort(xs: &mut [PExp], ext: &str) -> Result<(), CallError> {
    let mut err = None;
    xs.sort_by(|a, b| {
        compare(a, b).unwrap_or_else(|| {
            err.get_or_insert_with(|| incomparable(ext, a, b));
            Ordering::Equal
        })
    });
    err.map_or(Ok(()), Err)
}

/// Evaluates a library external on its (data) argument.
pub fn eval(ext: &str, arg: &PExp) -> Result<PExp, CallError> {
    Ok(match ext {
        "range" => range(arg)?,
        "len" => len(arg)?,
        "contains" => contains(arg)?,
        "index" => index(arg)?,
        "get" => get(arg)?,
        "keys" | "values" | "items" => dict_view(ext, arg)?,
        "sum" => sum(arg)?,
        "max" | "min" => extreme(ext, arg)?,
        "sorted" => {
            let mut xs: Vec<PExp> = elements(arg, ext)?.into_iter().cloned().collect();
            sort(&mut xs, ext)?;
            PExp::List(xs)
        }
        "reversed" => PExp::List(elements(arg, ext)?.into_iter().rev().cloned().collect()),
        "order_by" => order_by(arg)?,
        "topk" => topk(arg)?,
        "zip" => zip(arg)?,
        "enumerate" => PExp::List(
            elements(arg, ext)?
                .into_iter()
                .enumerate()
                .map(|(i, x)| PExp::Tuple(vec![PExp::int(i as i64), x.clone()]))
                .collect(),
        ),
        "json_parse" => json_parse(arg)?,
        "json_dump" => PExp::str(&to_json(arg)?.to_string()),
        "error" => return Err(CallError::Raised(display(arg))),
        "to_str" => PExp::str(&display(arg)),
        py if super::pylib::is_py(py) => super::pylib::eval(py, arg)?,
        other => {
            return Err(CallError::Unknown {
                name: shown(&other),
                kind: "library",
            })
        }
    })
}

/// `get (d, k, default)`: the dictionary's value for k (the last written), else default.
fn get(arg: &PExp) -> Result<PExp, CallError> {
    let [d, k, default] = args::<3>(arg, "get", "(dictionary, key, default)")?;
    match d {
        PExp::Dict(kvs) => Ok(kvs
            .iter()
            .rev()
            .find(|(key, _)| equal(key, k))
            .map_or_else(|| default.clone(), |(_, v)| v.clone())),
        other => Err(CallError::Needs {
            ext: "get".into(),
            needs: "a dictionary",
            got: described(other),
        }),
    }
}

/// `order_by (items, keys)`: `sort_by (l, key)` in the prelude computes the keys, then calls
/// this stable sort.
fn order_by(arg: &PExp) -> Result<PExp, CallError> {
    let [items, keys] = args::<2>(arg, "order_by", "(items, keys)")?;
    let (items, keys) = (elements(items, "sort_by")?, elements(keys, "sort_by")?);
    let idx = ranked(
        &keys[..items.len().min(keys.len())],
        false,
        "sort_by",
        "the keys",
    )?;
    Ok(PExp::List(
        idx.into_iter().map(|i| items[i].clone()).collect(),
    ))
}

/// `zip (a, b)`: pairs, as long as the shorter.
/// `zip (a, b, …)`: tuples of the elements at the same position of two or more lists, as long
/// as the shortest (Python's `zip(a, b, c)`).
fn zip(arg: &PExp) -> Result<PExp, CallError> {
    let lists = match arg {
        PExp::Tuple(xs) if xs.len() >= 2 => xs
            .iter()
            .map(|x| elements(x, "zip"))
            .collect::<Result<Vec<_>, _>>()?,
        _ => {
            return Err(CallError::Takes {
                ext: "zip".into(),
                shape: "(list, list, …)",
                got: described(arg),
            })
        }
    };
    let n = lists.iter().map(Vec::len).min().unwrap_or(0);
    let rows = (0..n).map(|i| PExp::Tuple(lists.iter().map(|l| l[i].clone()).collect()));
    Ok(PExp::List(rows.collect()))
}

/// `json_parse s`: JSON text as data (`null` is `()`).
fn json_parse(arg: &PExp) -> Result<PExp, CallError> {
    let PExp::Prim(Prim::Str(s)) = arg else {
        return Err(CallError::Needs {
            ext: "json_parse".into(),
            needs: "a string",
            got: described(arg),
        });
    };
    let v: serde_json::Value =
        serde_json::from_str(s).map_err(|e| CallError::Invalid(format!("json_parse: {e}")))?;
    from_json(&v, 0)
}

/// `range n`, `range (a, b)`, `range (a, b, step)`, as Python's.
fn range(arg: &PExp) -> Result<PExp, CallError> {
    let (a, b, step) = match arg {
        PExp::Tuple(xs) if xs.len() == 2 => (
            int(&xs[0], "range's start")?,
            int(&xs[1], "range's end")?,
            1,
        ),
        PExp::Tuple(xs) if xs.len() == 3 => (
            int(&xs[0], "range's start")?,
            int(&xs[1], "range's end")?,
            int(&xs[2], "range's step")?,
        ),
        other => (0, int(other, "range's argument")?, 1),
    };
    if step == 0 {
        return Err(CallError::Invalid("range's step must not be zero".into()));
    }
    let (span, stride) = if step > 0 {
        (b as i128 - a as i128, step as i128)
    } else {
        (a as i128 - b as i128, -(step as i128))
    };
    let n = (span.max(0) + stride - 1) / stride;
    if n > MAX_RANGE as i128 {
        return Err(CallError::Invalid(format!(
            "range of {n} elements is too long (at most {MAX_RANGE})"
        )));
    }
    Ok(PExp::List(
        (0..n as i64).map(|k| PExp::int(a + k * step)).collect(),
    ))
}

fn len(arg: &PExp) -> Result<PExp, CallError> {
    Ok(PExp::int(match arg {
        PExp::Prim(Prim::Str(s)) => s.chars().count(),
        PExp::List(xs) | PExp::Tuple(xs) => xs.len(),
        PExp::Dict(kvs) => kvs.len(),
        PExp::Set(xs) => xs.len(),
        other => {
            return Err(CallError::Needs {
                ext: "len".into(),
                needs: "a string, list, tuple, dictionary or set",
                got: described(other),
            })
        }
    } as i64))
}

/// `x in c`: an element of a list or tuple, a key of a dictionary, a substring of a string.
fn contains(arg: &PExp) -> Result<PExp, CallError> {
    let [coll, x] = args::<2>(arg, "contains", "(collection, value)")?;
    Ok(bool_of(match (coll, x) {
        (PExp::Prim(Prim::Str(s)), PExp::Prim(Prim::Str(sub))) => s.contains(&**sub),
        (PExp::Prim(Prim::Str(_)), other) => {
            return Err(CallError::Needs {
                ext: "`in` a string".into(),
                needs: "a string on its left",
                got: described(other),
            })
        }
        (PExp::Set(xs), x) => super::pyset::contains(xs, x),
        _ => elements(coll, "`in`")?.into_iter().any(|e| equal(e, x)),
    }))
}

/// `c[i]`: element i of a list, tuple or string (negative counts from the end), or a
/// dictionary's value for key i (the last one written).
fn index(arg: &PExp) -> Result<PExp, CallError> {
    let [coll, i] = args::<2>(arg, "index", "(collection, index)")?;
    Ok(match coll {
        PExp::List(xs) | PExp::Tuple(xs) => {
            let what = if matches!(coll, PExp::List(_)) {
                "a list"
            } else {
                "a tuple"
            };
            xs[position(int(i, "a list index")?, xs.len(), what)?].clone()
        }
        PExp::Prim(Prim::Str(s)) => {
            let chars: Vec<char> = s.chars().collect();
            PExp::str(
                &chars[position(int(i, "a string index")?, chars.len(), "a string")?].to_string(),
            )
        }
        PExp::Dict(kvs) => match kvs.iter().rev().find(|(k, _)| equal(k, i)) {
            Some((_, v)) => v.clone(),
            None => {
                return Err(CallError::MissingKey {
                    key: shown(i),
                    keys: keys_text(kvs),
                })
            }
        },
        other => {
            return Err(CallError::CannotIndex {
                got: described(other),
            })
        }
    })
}

/// `keys`, `values` or `items` of a dictionary, in insertion order.
fn dict_view(ext: &str, arg: &PExp) -> Result<PExp, CallError> {
    let PExp::Dict(kvs) = arg else {
        return Err(CallError::Needs {
            ext: ext.to_string(),
            needs: "a dictionary",
            got: described(arg),
        });
    };
    Ok(PExp::List(
        kvs.iter()
            .map(|(k, v)| match ext {
                "keys" => k.clone(),
                "values" => v.clone(),
                _ => PExp::Tuple(vec![k.clone(), v.clone()]),
            })
            .collect(),
    ))
}

/// The sum of integers (checked), or of numbers as a float.
fn sum(arg: &PExp) -> Result<PExp, CallError> {
    let xs = elements(arg, "sum")?;
    // Integers (booleans count as 0 and 1, as in Python) sum to an integer.
    if let Some(ints) = xs.iter().map(|x| integer(x)).collect::<Option<Vec<i64>>>() {
        let mut total: i64 = 0;
        for i in ints {
            total = total
                .checked_add(i)
                .ok_or_else(|| CallError::Overflow("sum".into()))?;
        }
        return Ok(PExp::int(total));
    }
    let mut total = 0.0;
    for x in xs {
        total += num(x).ok_or_else(|| CallError::Needs {
            ext: "sum".into(),
            needs: "numbers",
            got: described(x),
        })?;
    }
    Ok(PExp::Prim(Prim::Float(total)))
}

/// `max` or `min` of a list, or of a tuple of two or more; the first of equals, as in Python.
fn extreme(ext: &str, arg: &PExp) -> Result<PExp, CallError> {
    let xs = match arg {
        PExp::Tuple(xs) if xs.len() >= 2 => xs.iter().collect(),
        other => elements(other, ext)?,
    };
    let wanted = if ext == "max" {
        Ordering::Greater
    } else {
        Ordering::Less
    };
    let mut best: Option<&PExp> = None;
    for x in xs {
        best = Some(match best {
            None => x,
            Some(b) => {
                let o = compare(x, b).ok_or_else(|| incomparable(ext, x, b))?;
                if o == wanted {
                    x
                } else {
                    b
                }
            }
        });
    }
    best.cloned()
        .ok_or_else(|| CallError::Empty(ext.to_string()))
}

/// The k items with the highest scores, highest first; earlier items first on ties.
fn topk(arg: &PExp) -> Result<PExp, CallError> {
    let [items, scores, k] = args::<3>(arg, "topk", "(items, scores, k)")?;
    let (items, scores) = (elements(items, "topk")?, elements(scores, "topk")?);
    if items.len() != scores.len() {
        return Err(CallError::Invalid(format!(
            "topk has {} items but {} scores",
            items.len(),
            scores.len()
        )));
    }
    let k = int(k, "topk's k")?.max(0) as usize;
    let idx = ranked(&scores, true, "topk", "the scores")?;
    Ok(PExp::List(
        idx.into_iter().take(k).map(|i| items[i].clone()).collect(),
    ))
}

/// The positions of `keys` in ascending (or, `descending`, descending) order of their keys,
/// stable: equal keys keep their order. `ext` and `what` ("the keys") name them in the error
/// for keys that do not compare.
fn ranked(
    keys: &[&PExp],
    descending: bool,
    ext: &str,
    what: &str,
) -> Result<Vec<usize>, CallError> {
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    let mut err = None;
    idx.sort_by(|&a, &b| {
        let o = if descending {
            compare(keys[b], keys[a])
        } else {
            compare(keys[a], keys[b])
        };
        o.unwrap_or_else(|| {
            err.get_or_insert_with(|| CallError::Incomparable {
                ext: ext.to_string(),
                a: format!("{what} {}", Clip(keys[a])),
                with: "and",
                b: shown(keys[b]),
            });
            Ordering::Equal
        })
    });
    err.map_or(Ok(idx), Err)
}

/// `max cannot compare a string ("x") with an integer (1)`.
fn incomparable(ext: &str, a: &PExp, b: &PExp) -> CallError {
    CallError::Incomparable {
        ext: ext.to_string(),
        a: described(a),
        with: "with",
        b: described(b),
    }
}

fn keys_text(kvs: &[(PExp, PExp)]) -> String {
    let ks: Vec<String> = kvs
        .iter()
        .take(8)
        .map(|(k, _)| crate::diag::clip_display(k))
        .collect();
    let more = if kvs.len() > 8 {
        format!(", … ({} keys in all)", kvs.len())
    } else {
        String::new()
    };
    format!("{}{more}", ks.join(", "))
}

/// JSON nests at most this deep in `json_parse` (deeper is an error, never a stack overflow):
/// the parser's limit, which every reader of nested data shares (docs/cli.md, "Nesting limits").
const MAX_JSON_DEPTH: usize = crate::syntax::parser::MAX_DEPTH as usize;

fn from_json(v: &serde_json::Value, depth: usize) -> Result<PExp, CallError> {
    use serde_json::Value;
    if depth > MAX_JSON_DEPTH {
        return Err(CallError::Invalid(format!(
            "json_parse: nested deeper than {MAX_JSON_DEPTH} levels"
        )));
    }
    Ok(match v {
        Value::Null => PExp::Tuple(vec![]),
        Value::Bool(b) => PExp::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => PExp::int(i),
            None => PExp::Prim(Prim::Float(n.as_f64().unwrap_or(f64::NAN))),
        },
        Value::String(s) => PExp::str(s),
        Value::Array(xs) => PExp::List(
            xs.iter()
                .map(|x| from_json(x, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(o) => PExp::Dict(
            o.iter()
                .map(|(k, v)| Ok((PExp::str(k), from_json(v, depth + 1)?)))
                .collect::<Result<_, CallError>>()?,
        ),
    })
}

/// A value as JSON (`json_dump`): dictionaries as objects, lists and tuples as arrays, `()` as null.
pub fn to_json(p: &PExp) -> Result<serde_json::Value, CallError> {
    use serde_json::Value;
    Ok(match p {
        PExp::Prim(Prim::Int(i)) => Value::from(*i),
        PExp::Prim(Prim::Float(f)) => serde_json::Number::from_f64(*f)
            .map(Value::Number)
            .ok_or_else(|| CallError::Invalid(format!("json_dump: {f} is not a JSON number")))?,
        PExp::Prim(Prim::Str(s)) => Value::String(s.to_string()),
        PExp::Tuple(xs) if xs.is_empty() => Value::Null,
        PExp::Tuple(xs) | PExp::List(xs) => {
            Value::Array(xs.iter().map(to_json).collect::<Result<_, _>>()?)
        }
        PExp::Bool(b) => Value::Bool(*b),
        PExp::Dict(kvs) => {
            let mut o = serde_json::Map::new();
            for (k, v) in kvs {
                let PExp::Prim(Prim::Str(k)) = k else {
                    return Err(CallError::Invalid(format!(
                        "json_dump: a JSON object's keys are strings, not {}",
                        described(k)
                    )));
                };
                o.insert(k.to_string(), to_json(v)?);
            }
            Value::Object(o)
        }
        other => {
            return Err(CallError::Invalid(format!(
                "json_dump cannot write {}",
                described(other)
            )))
        }
    })
}

/// The value as an error shows it: at most 200 characters.
pub(crate) fn shown(p: &impl std::fmt::Display) -> String {
    crate::diag::clip_display(p)
}

/// The value with its kind first: `a string ("x")`.
pub(crate) fn described(p: &PExp) -> String {
    format!("{} ({})", kind(p), Clip(p))
}
