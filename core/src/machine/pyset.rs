//! Python's sets, for the Python front end. A set is the pair `(set, elements)`: the tag a
//! handle no program can name, the elements a Church list in insertion order, no two equal as
//! `==` sees them (`1`, `1.0` and `True` are one element, as in CPython). `py_set` builds one,
//! `py_mutated` changes one (`add`, `discard`, …), `py_bitor`, `py_bitand`, `py_bitxor` and
//! `sub` combine two.
//!
//! Order: CPython iterates a set in the order of its hash table. Where CPython's hashes are
//! fixed (integers, floats, booleans and tuples of them) `order` replays CPython's table
//! (`Objects/setobject.c`: linear probes, then perturbation; resized at 60 % fill) for the
//! elements added in order, so `print({10, 3})` gives `{10, 3}` as CPython does; a set that
//! holds a string (whose hash CPython seeds at random per process, so its order changes from
//! run to run) or `None` keeps insertion order.

use super::call_error::CallError;
use super::pyrepr::repr;
use crate::ir::{PExp, Prim};
use std::collections::HashSet;

pub(super) fn eval(ext: &str, arg: &PExp) -> Result<PExp, CallError> {
    match ext {
        "py_set" => Ok(PExp::Set(from(arg)?)),
        "py_bitor" | "py_bitand" | "py_bitxor" => {
            let PExp::Tuple(ab) = arg else {
                return Err(super::pylib::value_error(format!("{ext} takes (a, b)")));
            };
            let [a, b] = &ab[..] else {
                return Err(super::pylib::value_error(format!("{ext} takes (a, b)")));
            };
            bitwise(ext, a, b)
        }
        _ => Err(super::pylib::value_error(format!(
            "unknown set function {ext}"
        ))),
    }
}

/// `set(xs)`: the distinct elements of what Python iterates (a list's or tuple's elements, a
/// string's characters, a dictionary's keys, a set's elements), in order of first sight; an
/// element that cannot be in a set is CPython's TypeError (also for a worker's answer).
pub fn from(arg: &PExp) -> Result<Vec<PExp>, CallError> {
    let chars;
    let items: Vec<&PExp> = match arg {
        PExp::Tuple(xs) | PExp::List(xs) | PExp::Set(xs) => xs.iter().collect(),
        PExp::Dict(kvs) => kvs.iter().map(|(k, _)| k).collect(),
        PExp::Prim(Prim::Str(s)) => {
            chars = s
                .chars()
                .map(|c| PExp::str(&c.to_string()))
                .collect::<Vec<_>>();
            chars.iter().collect()
        }
        other => {
            return Err(CallError::Raised(format!(
                "TypeError: '{}' object is not iterable",
                super::pylib::type_name(other)
            )))
        }
    };
    let mut out = Elements::default();
    for x in items {
        out.add(x)?;
    }
    Ok(out.xs)
}

/// A set being built: its elements and their keys.
#[derive(Default)]
pub(super) struct Elements {
    pub(super) xs: Vec<PExp>,
    keys: HashSet<String>,
}

impl Elements {
    pub(super) fn of(xs: &[PExp]) -> Elements {
        let mut e = Elements::default();
        for x in xs {
            e.keys.insert(key(x).unwrap_or_default());
            e.xs.push(x.clone());
        }
        e
    }
    /// Adds `x` unless an equal element is there; `Ok(false)` if it was.
    pub(super) fn add(&mut self, x: &PExp) -> Result<bool, CallError> {
        let fresh = self.keys.insert(hashable(x)?);
        if fresh {
            self.xs.push(x.clone());
        }
        Ok(fresh)
    }
    pub(super) fn contains(&self, x: &PExp) -> bool {
        key(x).is_some_and(|k| self.keys.contains(&k))
    }
    /// Removes `x`; `false` if it was not there.
    pub(super) fn remove(&mut self, x: &PExp) -> bool {
        let Some(k) = key(x) else { return false };
        if !self.keys.remove(&k) {
            return false;
        }
        self.xs.retain(|y| key(y).as_deref() != Some(k.as_str()));
        true
    }
}

/// `x`'s key, or CPython's error for an element that cannot be in a set.
fn hashable(x: &PExp) -> Result<String, CallError> {
    key(x).ok_or_else(|| {
        CallError::Raised(format!(
            "TypeError: unhashable type: '{}'",
            super::pylib::type_name(unhashable(x))
        ))
    })
}

fn unhashable(x: &PExp) -> &PExp {
    match x {
        PExp::Tuple(xs) => xs.iter().find(|y| key(y).is_none()).map_or(x, unhashable),
        _ => x,
    }
}

/// What two elements share exactly when `==` holds between them: numbers by value (`1`,
/// `1.0`, `True`), tuples component by component; `None` for what CPython cannot hash (a
/// list, a dictionary, a set).
pub(super) fn key(x: &PExp) -> Option<String> {
    Some(match x {
        PExp::Prim(Prim::Int(i)) => format!("n{i}"),
        PExp::Bool(b) => format!("n{}", i64::from(*b)),
        PExp::Prim(Prim::Float(f)) if f.fract() == 0.0 && f.abs() < 9.2e18 => {
            format!("n{}", *f as i64)
        }
        PExp::Prim(p) => format!("{p:?}"),
        PExp::Tuple(xs) => {
            let parts: Option<Vec<String>> = xs.iter().map(key).collect();
            format!("({})", parts?.join(","))
        }
        PExp::List(_) | PExp::Dict(_) | PExp::Set(_) => return None,
    })
}

/// Is `x` an element of the set `xs`?
pub(super) fn contains(xs: &[PExp], x: &PExp) -> bool {
    Elements::of(xs).contains(x)
}

/// Do two sets hold the same elements?
pub(super) fn equal(xs: &[PExp], ys: &[PExp]) -> bool {
    xs.len() == ys.len() && {
        let e = Elements::of(ys);
        xs.iter().all(|x| e.contains(x))
    }
}

/// `a - b` on sets: `a`'s elements not in `b`, in `a`'s order.
pub(super) fn difference(a: &[PExp], b: &[PExp]) -> Vec<PExp> {
    let b = Elements::of(b);
    a.iter().filter(|x| !b.contains(x)).cloned().collect()
}

/// `a | b` on sets: `a`'s elements, then `b`'s not in `a`.
fn union(a: &[PExp], b: &[PExp]) -> Result<Vec<PExp>, CallError> {
    let mut e = Elements::of(a);
    for y in b {
        e.add(y)?;
    }
    Ok(e.xs)
}

/// `a & b` on sets: `a`'s elements in `b`, in `a`'s order.
fn intersection(a: &[PExp], b: &[PExp]) -> Vec<PExp> {
    let b = Elements::of(b);
    a.iter().filter(|x| b.contains(x)).cloned().collect()
}

/// `a ^ b` on sets: `a`'s elements not in `b`, then `b`'s not in `a`.
fn symmetric_difference(a: &[PExp], b: &[PExp]) -> Vec<PExp> {
    let mut out = difference(a, b);
    out.extend(difference(b, a));
    out
}

/// `a | b`, `a & b`, `a ^ b`: on sets, union, intersection and symmetric difference; on
/// integers (and booleans), bitwise; other operands are CPython's TypeError.
fn bitwise(ext: &str, a: &PExp, b: &PExp) -> Result<PExp, CallError> {
    let int = |p: &PExp| match p {
        PExp::Prim(Prim::Int(i)) => Some(*i),
        PExp::Bool(b) => Some(i64::from(*b)),
        _ => None,
    };
    if let (Some(x), Some(y)) = (int(a), int(b)) {
        let v = match ext {
            "py_bitor" => x | y,
            "py_bitand" => x & y,
            _ => x ^ y,
        };
        return Ok(match (a, b) {
            (PExp::Bool(_), PExp::Bool(_)) => PExp::Bool(v != 0),
            _ => PExp::int(v),
        });
    }
    let (PExp::Set(xs), PExp::Set(ys)) = (a, b) else {
        let op = match ext {
            "py_bitor" => "|",
            "py_bitand" => "&",
            _ => "^",
        };
        return Err(CallError::Raised(format!(
            "TypeError: unsupported operand type(s) for {op}: '{}' and '{}'",
            super::pylib::type_name(a),
            super::pylib::type_name(b)
        )));
    };
    Ok(PExp::Set(match ext {
        "py_bitor" => union(xs, ys)?,
        "py_bitand" => intersection(xs, ys),
        _ => symmetric_difference(xs, ys),
    }))
}

/// A method that reads a set (`s.union(t)`, `s.issubset(t)`, …; the arguments any iterable),
/// `None` if sets have no such method; the methods that change a set are `mutated`'s.
pub(super) fn method(xs: &[PExp], name: &str, args: &[PExp]) -> Result<Option<PExp>, CallError> {
    let others = args.iter().map(from).collect::<Result<Vec<_>, _>>()?;
    let one = || -> Result<&Vec<PExp>, CallError> {
        match &others[..] {
            [o] => Ok(o),
            _ => Err(CallError::Raised(format!(
                "TypeError: {name}() takes exactly one argument ({} given)",
                others.len()
            ))),
        }
    };
    let set = |e: Vec<PExp>| Ok(Some(PExp::Set(e)));
    match name {
        "copy" if others.is_empty() => set(xs.to_vec()),
        "union" => others
            .iter()
            .try_fold(xs.to_vec(), |acc, o| union(&acc, o))
            .and_then(set),
        "intersection" => set(others
            .iter()
            .fold(xs.to_vec(), |acc, o| intersection(&acc, o))),
        "difference" => set(others
            .iter()
            .fold(xs.to_vec(), |acc, o| difference(&acc, o))),
        "symmetric_difference" => set(symmetric_difference(xs, one()?)),
        "issubset" => Ok(Some(PExp::Bool(difference(xs, one()?).is_empty()))),
        "issuperset" => Ok(Some(PExp::Bool(difference(one()?, xs).is_empty()))),
        "isdisjoint" => {
            let e = Elements::of(one()?);
            Ok(Some(PExp::Bool(!xs.iter().any(|x| e.contains(x)))))
        }
        _ => Ok(None),
    }
}

/// A method that changes a set: (the changed set, what the method returns).
pub(super) fn mutated(xs: &[PExp], name: &str, args: &[PExp]) -> Result<(PExp, PExp), CallError> {
    let none = PExp::Tuple(Vec::new());
    let arg = || -> Result<&PExp, CallError> {
        match args {
            [x] => Ok(x),
            _ => Err(CallError::Raised(format!(
                "TypeError: set.{name}() takes exactly one argument ({} given)",
                args.len()
            ))),
        }
    };
    let mut e = Elements::of(xs);
    let result = match name {
        "add" => {
            e.add(arg()?)?;
            none
        }
        "discard" => {
            e.remove(arg()?);
            none
        }
        "remove" => {
            let x = arg()?;
            if !e.remove(x) {
                return Err(CallError::Raised(format!("KeyError: {}", repr(x))));
            }
            none
        }
        "update" => {
            for o in args {
                for y in from(o)? {
                    e.add(&y)?;
                }
            }
            none
        }
        "clear" if args.is_empty() => return Ok((PExp::Set(Vec::new()), none)),
        // CPython pops the first element of its table.
        "pop" if args.is_empty() => {
            let Some(first) = order(xs).first().map(|x| (*x).clone()) else {
                return Err(CallError::Raised(
                    "KeyError: 'pop from an empty set'".into(),
                ));
            };
            e.remove(&first);
            first
        }
        _ => {
            return Err(CallError::Raised(format!(
                "AttributeError: 'set' object has no attribute '{name}'"
            )))
        }
    };
    Ok((PExp::Set(e.xs), result))
}

/// The elements in the order CPython iterates them (see the module's comment).
pub fn order(xs: &[PExp]) -> Vec<&PExp> {
    let Some(hashes) = xs.iter().map(hash).collect::<Option<Vec<u64>>>() else {
        return xs.iter().collect();
    };
    let mut table = Table::new();
    for (i, h) in hashes.iter().enumerate() {
        table.add(i, *h);
    }
    table.slots.iter().flatten().map(|&(i, _)| &xs[i]).collect()
}

/// CPython's set table, as far as the order goes: slots of (element, hash).
struct Table {
    slots: Vec<Option<(usize, u64)>>,
    fill: usize,
}

const LINEAR_PROBES: usize = 9;
const PERTURB_SHIFT: u32 = 5;

impl Table {
    fn new() -> Table {
        Table {
            slots: vec![None; 8],
            fill: 0,
        }
    }
    /// `set_add_entry` for an element not in the table (the caller's elements are distinct).
    fn add(&mut self, i: usize, h: u64) {
        let slot = self.free_slot(h);
        self.slots[slot] = Some((i, h));
        self.fill += 1;
        let mask = self.slots.len() - 1;
        if self.fill * 5 >= mask * 3 {
            let used = self.fill;
            self.resize(if used > 50_000 { used * 2 } else { used * 4 });
        }
    }
    /// `set_insert_clean`'s probe sequence: the first empty slot for `h`.
    fn free_slot(&self, h: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut perturb = h;
        let mut i = (h as usize) & mask;
        loop {
            if self.slots[i].is_none() {
                return i;
            }
            if i + LINEAR_PROBES <= mask {
                for j in 1..=LINEAR_PROBES {
                    if self.slots[i + j].is_none() {
                        return i + j;
                    }
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = (i
                .wrapping_mul(5)
                .wrapping_add(1)
                .wrapping_add(perturb as usize))
                & mask;
        }
    }
    /// `set_table_resize`: the smallest power of two above `minused` (at least 8), the old
    /// entries reinserted in table order.
    fn resize(&mut self, minused: usize) {
        let mut size = 8;
        while size <= minused {
            size <<= 1;
        }
        let old = std::mem::replace(&mut self.slots, vec![None; size]);
        for (i, h) in old.into_iter().flatten() {
            let slot = self.free_slot(h);
            self.slots[slot] = Some((i, h));
        }
    }
}

/// The modulus of CPython's numeric hash: 2^61 - 1.
const MODULUS: u64 = (1 << 61) - 1;

/// CPython's `hash(x)` where it does not change from run to run (as an unsigned word, as
/// the table uses it); `None` for strings, `None` and handles.
fn hash(x: &PExp) -> Option<u64> {
    let h: i64 = match x {
        PExp::Prim(Prim::Int(i)) => int_hash(*i),
        PExp::Bool(b) => i64::from(*b),
        PExp::Prim(Prim::Float(f)) => float_hash(*f)?,
        // The empty tuple is the front end's `None`, hashed by its address in CPython.
        PExp::Tuple(xs) if xs.is_empty() => return None,
        PExp::Tuple(xs) => tuple_hash(xs)?,
        _ => return None,
    };
    Some(h as u64)
}

fn int_hash(i: i64) -> i64 {
    let m = (i.unsigned_abs() % MODULUS) as i64;
    let h = if i < 0 { -m } else { m };
    if h == -1 {
        -2
    } else {
        h
    }
}

/// `_Py_HashDouble` for finite floats (a NaN's hash is its address in CPython).
fn float_hash(v: f64) -> Option<i64> {
    if v.is_nan() {
        return None;
    }
    if v.is_infinite() {
        return Some(if v > 0.0 { 314_159 } else { -314_159 });
    }
    let (mut m, mut e) = frexp(v);
    let sign: i64 = if m < 0.0 {
        m = -m;
        -1
    } else {
        1
    };
    let mut x: u64 = 0;
    while m != 0.0 {
        x = ((x << 28) & MODULUS) | (x >> (61 - 28));
        m *= 268_435_456.0;
        e -= 28;
        let y = m as u64;
        m -= y as f64;
        x += y;
        if x >= MODULUS {
            x -= MODULUS;
        }
    }
    let e = if e >= 0 {
        e % 61
    } else {
        61 - 1 - ((-1 - e) % 61)
    } as u32;
    x = ((x << e) & MODULUS) | (x >> (61 - e));
    let h = (x as i64) * sign;
    Some(if h == -1 { -2 } else { h })
}

/// `frexp`: `v = m · 2^e` with `0.5 <= |m| < 1` (`v` finite, not zero; zero gives (0, 0)).
fn frexp(v: f64) -> (f64, i32) {
    if v == 0.0 {
        return (0.0, 0);
    }
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // Subnormal: scale into the normal range first.
        let (m, e) = frexp(v * f64::powi(2.0, 64));
        return (m, e - 64);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, exp - 1022)
}

/// CPython 3.8+'s tuple hash (xxHash's mixing of the components' hashes).
fn tuple_hash(xs: &[PExp]) -> Option<i64> {
    const P1: u64 = 11_400_714_785_074_694_791;
    const P2: u64 = 14_029_467_366_897_019_727;
    const P5: u64 = 2_870_177_450_012_600_261;
    let mut acc = P5;
    for x in xs {
        let lane = hash(x)?;
        acc = acc.wrapping_add(lane.wrapping_mul(P2));
        acc = acc.rotate_left(31);
        acc = acc.wrapping_mul(P1);
    }
    acc = acc.wrapping_add((xs.len() as u64) ^ (P5 ^ 3_527_539));
    Some(if acc == u64::MAX {
        1_546_275_796
    } else {
        acc as i64
    })
}

/// `{1, 2}` as CPython writes a set (`set()` when empty), each element by `show`.
pub(super) fn write(xs: &[PExp], show: &dyn Fn(&PExp) -> String) -> String {
    if xs.is_empty() {
        return "set()".into();
    }
    let parts: Vec<String> = order(xs).into_iter().map(show).collect();
    format!("{{{}}}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(xs: &[i64]) -> Vec<PExp> {
        xs.iter().map(|i| PExp::int(*i)).collect()
    }

    fn shown(xs: &[PExp]) -> String {
        write(xs, &|x| repr(x))
    }

    /// Each line as CPython 3.11 prints it (`python3 -c 'print({…})'`).
    #[test]
    fn sets_print_in_cpythons_order() {
        assert_eq!(shown(&ints(&[10, 3])), "{10, 3}");
        assert_eq!(shown(&ints(&[3, 1, 2])), "{1, 2, 3}");
        assert_eq!(shown(&ints(&[-1, -2, 5])), "{5, -1, -2}");
        assert_eq!(shown(&ints(&[100, 7, 33, 8, 64])), "{64, 33, 100, 7, 8}");
        let many: Vec<i64> = (0..20).rev().map(|i| i * 7).collect();
        assert_eq!(
            shown(&ints(&many)),
            "{0, 133, 7, 14, 21, 28, 35, 42, 49, 56, 63, 70, 77, 84, 91, 98, 105, 112, 119, 126}"
        );
        let floats = [
            PExp::Prim(Prim::Float(1.5)),
            PExp::Prim(Prim::Float(0.1)),
            PExp::int(2),
        ];
        assert_eq!(shown(&floats), "{0.1, 1.5, 2}");
        assert_eq!(shown(&[]), "set()");
        let pair = |a, b| PExp::Tuple(vec![PExp::int(a), PExp::int(b)]);
        assert_eq!(
            shown(&[pair(1, 2), pair(3, 4), pair(0, 0)]),
            "{(1, 2), (3, 4), (0, 0)}"
        );
        let f = |x| PExp::Prim(Prim::Float(x));
        let mixed = [f(2.5), f(-0.75), f(1e100), PExp::int(3)];
        assert_eq!(shown(&mixed), "{-0.75, 2.5, 3, 1e+100}");
    }

    #[test]
    fn equal_numbers_are_one_element_and_lists_cannot_be_elements() {
        let xs = PExp::List(vec![
            PExp::int(1),
            PExp::Prim(Prim::Float(1.0)),
            PExp::Bool(true),
        ]);
        assert_eq!(from(&xs).map(|s| s.len()), Ok(1));
        let bad = PExp::List(vec![PExp::List(vec![])]);
        assert!(
            matches!(from(&bad), Err(CallError::Raised(m)) if m == "TypeError: unhashable type: 'list'")
        );
    }
}
