//! The pure standard externals (arithmetic, comparison, strings, handles, the data library):
//! evaluated at dispatch, resolved at once.

use super::super::results::bool_outcome;
use super::super::Outcome;
use crate::diag::Clip;
use crate::ir::{PExp, Prim};
use crate::machine::call_error::CallError;
use crate::machine::data::shown;
use std::sync::Arc;
use tokio::time::Instant;

fn pair(arg: &PExp) -> Result<(&PExp, &PExp), CallError> {
    match arg {
        PExp::Tuple(xs) if xs.len() == 2 => Ok((&xs[0], &xs[1])),
        other => Err(CallError::Expected {
            expected: "a pair (a, b)",
            got: shown(other),
        }),
    }
}

/// Evaluates a pure standard external. `print` output goes to `sink`.
pub fn eval_pure(
    ext: &str,
    arg: &PExp,
    sink: &mut dyn FnMut(&str, &str),
    started: Instant,
) -> Result<Outcome, CallError> {
    use crate::machine::data::{self, compare};
    if let Some(name) = crate::machine::pylib::unbound_in(arg) {
        return Err(CallError::Raised(format!(
            "NameError: name '{name}' is not defined"
        )));
    }
    Ok(match ext {
        "add" => match pair(arg)? {
            // `+` concatenates lists and tuples, as in Python.
            (PExp::List(a), PExp::List(b)) => {
                data::outcome(PExp::List(a.iter().chain(b).cloned().collect()))
            }
            (PExp::Tuple(a), PExp::Tuple(b)) => {
                data::outcome(PExp::Tuple(a.iter().chain(b).cloned().collect()))
            }
            (a, b) => Outcome::Value(arith(ext, a, b)?),
        },
        // `-` of two sets (from the Python front end) is their difference.
        "sub" => match pair(arg)? {
            (PExp::Set(a), PExp::Set(b)) => {
                data::outcome(PExp::Set(crate::machine::pyset::difference(a, b)))
            }
            (a, b) => Outcome::Value(arith(ext, a, b)?),
        },
        "mul" | "div" | "mod" => {
            let (a, b) = pair(arg)?;
            Outcome::Value(arith(ext, a, b)?)
        }
        "neg" => match arg {
            P(Prim::Int(i)) => Outcome::Value(Prim::Int(
                i.checked_neg()
                    .ok_or_else(|| CallError::Overflow("neg".into()))?,
            )),
            P(Prim::Float(f)) => Outcome::Value(Prim::Float(-f)),
            other => {
                return Err(CallError::Needs {
                    ext: ext.to_string(),
                    needs: "a number",
                    got: shown(other),
                })
            }
        },
        "eq" | "ne" => {
            let (a, b) = pair(arg)?;
            bool_outcome(data::equal(a, b) == (ext == "eq"))
        }
        "lt" | "le" | "gt" | "ge" => {
            let (a, b) = pair(arg)?;
            let o = compare(a, b).ok_or_else(|| CallError::Incomparable {
                ext: ext.to_string(),
                a: shown(a),
                with: "and",
                b: shown(b),
            })?;
            bool_outcome(match ext {
                "lt" => o.is_lt(),
                "le" => o.is_le(),
                "gt" => o.is_gt(),
                _ => o.is_ge(),
            })
        }
        "concat_str" | "parse_int" | "split_lines" | "split_words" => text(ext, arg)?,
        "print" | "print_raw" => print(arg, ext == "print", sink)?,
        "now" => Outcome::Value(Prim::Float(started.elapsed().as_secs_f64() * 1000.0)),
        "fork" | "join" => handles(ext, arg)?,
        lib if crate::externals::standard(lib).is_some_and(|d| d.data) => {
            data::outcome(data::eval(lib, arg)?)
        }
        other => {
            return Err(CallError::Unknown {
                name: shown(&other),
                kind: "pure",
            })
        }
    })
}

use PExp::Prim as P;

fn num(p: &PExp) -> Option<f64> {
    match p {
        P(Prim::Int(i)) => Some(*i as f64),
        P(Prim::Float(f)) => Some(*f),
        _ => None,
    }
}

/// `add`, `sub`, `mul`, `div`, `mod` of two primitives: checked on integers, floats if either
/// is one, strings concatenated by `add`.
fn arith(op: &str, a: &PExp, b: &PExp) -> Result<Prim, CallError> {
    match (a, b) {
        (P(Prim::Int(x)), P(Prim::Int(y))) => {
            let (x, y) = (*x, *y);
            let r = match op {
                "add" => x.checked_add(y),
                "sub" => x.checked_sub(y),
                "mul" => x.checked_mul(y),
                "div" if y == 0 => return Err(CallError::ByZero("division")),
                "div" => x.checked_div(y),
                "mod" if y == 0 => return Err(CallError::ByZero("remainder")),
                _ => x.checked_rem(y),
            };
            r.map(Prim::Int).ok_or_else(|| {
                CallError::Overflow(format!("{op} ({x}, {y})", x = Clip(x), y = Clip(y)))
            })
        }
        (P(Prim::Str(x)), P(Prim::Str(y))) if op == "add" => {
            Ok(Prim::Str(Arc::from(format!("{x}{y}"))))
        }
        _ => {
            let (Some(x), Some(y)) = (num(a), num(b)) else {
                return Err(CallError::Needs {
                    ext: op.to_string(),
                    needs: "two numbers",
                    got: format!("({a}, {b})", a = Clip(a), b = Clip(b)),
                });
            };
            Ok(Prim::Float(match op {
                "add" => x + y,
                "sub" => x - y,
                "mul" => x * y,
                "div" => x / y,
                _ => x % y,
            }))
        }
    }
}

fn string(p: &PExp) -> Result<Arc<str>, CallError> {
    match p {
        P(Prim::Str(s)) => Ok(s.clone()),
        other => Err(CallError::Expected {
            expected: "a string",
            got: shown(other),
        }),
    }
}

/// The string externals: `concat_str`, `parse_int`, `split_lines`, `split_words`.
fn text(ext: &str, arg: &PExp) -> Result<Outcome, CallError> {
    Ok(match ext {
        "concat_str" => {
            let (a, b) = pair(arg)?;
            Outcome::Value(Prim::Str(Arc::from(format!(
                "{}{}",
                string(a)?,
                string(b)?
            ))))
        }
        "parse_int" => {
            let s = string(arg)?;
            Outcome::Value(Prim::Int(s.trim().parse().map_err(|_| {
                CallError::Invalid(format!("parse_int: `{s}` is not an integer", s = Clip(s)))
            })?))
        }
        "split_lines" => Outcome::Partial {
            items: string(arg)?
                .lines()
                .map(|l| Prim::Str(Arc::from(l)))
                .collect(),
            more: false,
        },
        _ => Outcome::Partial {
            items: string(arg)?
                .split_whitespace()
                .map(|l| Prim::Str(Arc::from(l)))
                .collect(),
            more: false,
        },
    })
}

/// `print (&h, v)` writes v to h's root and returns h; `print v` (§3.4's form) writes to
/// stdout and returns (). `print_raw` is the same without the line end.
fn print(arg: &PExp, line: bool, sink: &mut dyn FnMut(&str, &str)) -> Result<Outcome, CallError> {
    use crate::machine::data;
    Ok(match arg {
        PExp::Tuple(xs) if xs.len() == 2 && matches!(xs[0], P(Prim::Handle(_))) => {
            let P(Prim::Handle(name)) = &xs[0] else {
                return Err(CallError::Expected {
                    expected: "a handle",
                    got: shown(&xs[0]),
                });
            };
            let root = crate::externals::handle_root(name).unwrap_or("stdout");
            let mut text = data::display(&xs[1]);
            if line {
                text.push('\n');
            }
            sink(root, &text);
            Outcome::Value(Prim::Handle(name.clone()))
        }
        v => {
            let mut text = data::display(v);
            if line {
                text.push('\n');
            }
            sink("stdout", &text);
            data::outcome(PExp::Tuple(vec![]))
        }
    })
}

/// `fork h` splits a handle into `h_1` and `h_2`; `join (h_1, h_2)` gives back `h`.
fn handles(ext: &str, arg: &PExp) -> Result<Outcome, CallError> {
    if ext == "fork" {
        let P(Prim::Handle(h)) = arg else {
            return Err(CallError::Needs {
                ext: ext.to_string(),
                needs: "a handle",
                got: shown(arg),
            });
        };
        let a = Prim::Handle(Arc::from(format!("{h}_1")));
        let b = Prim::Handle(Arc::from(format!("{h}_2")));
        return Ok(crate::machine::data::outcome(PExp::Tuple(vec![P(a), P(b)])));
    }
    let (a, _) = pair(arg)?;
    let P(Prim::Handle(h)) = a else {
        return Err(CallError::Needs {
            ext: ext.to_string(),
            needs: "two handles",
            got: shown(arg),
        });
    };
    let parent = h
        .rsplit_once('_')
        .filter(|(_, k)| k.bytes().all(|b| b.is_ascii_digit()))
        .map(|(p, _)| p)
        .unwrap_or(h);
    Ok(Outcome::Value(Prim::Handle(Arc::from(parent))))
}

#[cfg(test)]
mod tests {
    use crate::externals::{ExtKind, STANDARD};
    use crate::ir::PExp;
    use crate::machine::CallError;

    /// The table and the implementations agree: every pure external of `STANDARD` is computed
    /// here (an argument of the wrong shape is an error about the argument, never "not a pure
    /// external"), and only library functions are computed by `machine::data`.
    #[test]
    fn every_pure_standard_external_has_an_implementation() {
        let started = tokio::time::Instant::now();
        for d in STANDARD {
            let r = super::eval_pure(d.name, &PExp::Tuple(vec![]), &mut |_, _| {}, started);
            let unknown = matches!(&r, Err(CallError::Unknown { .. }));
            assert_eq!(unknown, d.kind != ExtKind::Pure, "{}: {r:?}", d.name);
            if d.data {
                assert_eq!(d.kind, ExtKind::Pure, "{}", d.name);
                let r = crate::machine::data::eval(d.name, &PExp::Tuple(vec![]));
                assert!(
                    !matches!(&r, Err(CallError::Unknown { .. })),
                    "{}: {r:?}",
                    d.name
                );
            }
        }
    }
}
