//! The machine's storage: typed ids of statements, variables and tasks, the operand arena of
//! tuples and environments, slabs for primitives and closures, and the node types.

use super::label::LabelId;
use super::template::Template;
use super::uses;
use super::{INHERITED, LIBRARY_CALL, NONE};
use crate::names::{FastMap, Name};
use std::sync::Arc;

/// Typed ids, as la-arena's `Idx<T>`: the raw index is private, so a `VarId` cannot index the
/// statements, and ids are made only by the `Store` that holds their slots.
macro_rules! typed_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u32);

        impl $name {
            /// The slot this id names, for tables kept beside the machine's (a debugger's
            /// per-statement cache).
            pub fn index(self) -> usize {
                self.0 as usize
            }

            /// The id of slot `i`. Slots are numbered by `Store::push`; a table kept beside a
            /// store may name its slots back.
            pub fn from_index(i: usize) -> Self {
                $name(u32::try_from(i).unwrap_or(u32::MAX))
            }
        }

        impl $name {
            /// The raw slot number, for the machine's own links (`NONE` marks no slot).
            pub(crate) const fn raw(self) -> u32 {
                self.0
            }
            pub(crate) const fn from_raw(raw: u32) -> Self {
                $name(raw)
            }
        }

        impl Id for $name {
            fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

/// What a `Store` is indexed by.
pub trait Id: Copy {
    fn index(self) -> usize;
}

typed_id!(
    /// A variable of the term (a binder and its uses).
    VarId
);
typed_id!(
    /// A statement of the term (`label x := o`).
    StmtId
);
typed_id!(
    /// A task: a dispatched external call, pending or resolved.
    TaskId
);

/// A vector indexed by one kind of id.
#[derive(Clone, Debug)]
pub struct Store<I, T> {
    items: Vec<T>,
    _id: std::marker::PhantomData<fn() -> I>,
}

impl<I, T> Default for Store<I, T> {
    fn default() -> Self {
        Store {
            items: Vec::new(),
            _id: std::marker::PhantomData,
        }
    }
}

impl<I, T> From<Vec<T>> for Store<I, T> {
    fn from(items: Vec<T>) -> Self {
        Store {
            items,
            _id: std::marker::PhantomData,
        }
    }
}

impl<I: Id, T> Store<I, T> {
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    pub fn get(&self, i: I) -> Option<&T> {
        self.items.get(i.index())
    }
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }
    /// Bytes the slots take (for the memory benchmark).
    pub fn memory(&self) -> usize {
        self.items.capacity() * std::mem::size_of::<T>()
    }
    pub(super) fn push(&mut self, t: T) {
        self.items.push(t);
    }
    pub(super) fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.items.iter_mut()
    }
}

impl<I: Id, T> std::ops::Index<I> for Store<I, T> {
    type Output = T;
    fn index(&self, i: I) -> &T {
        &self.items[i.index()]
    }
}

impl<I: Id, T> std::ops::IndexMut<I> for Store<I, T> {
    fn index_mut(&mut self, i: I) -> &mut T {
        &mut self.items[i.index()]
    }
}

/// A run of the machine's operand arena: a tuple's components or a closure's environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operands {
    pub(super) start: u32,
    pub(super) len: u32,
}

impl Operands {
    const EMPTY: Operands = Operands { start: 0, len: 0 };
    pub fn len(self) -> usize {
        self.len as usize
    }
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
    pub(super) fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

/// Tuples and closure environments of the running term, in one arena with free lists by
/// length, so a statement node stays small and a tuple costs no allocation of its own.
#[derive(Clone, Default)]
pub(super) struct Arena {
    pub(super) data: Vec<VarId>,
    pub(super) free: Vec<Vec<u32>>,
    /// Where each variable sits in a long slice (at least `LONG` operands), by the slice's
    /// start: built at the first rename in it, so that renaming each of the 10 000 captures
    /// of a list literal's closure costs O(1), not a scan of all of them (O(n²) in all).
    long: FastMap<u32, FastMap<VarId, Vec<u32>>>,
}

/// Slices at least this long are renamed through `Arena::long`.
const LONG: u32 = 32;

impl Arena {
    /// Does slice `o` hold `v`? O(1) for a long slice renamed in before.
    pub(super) fn contains(&self, o: Operands, v: VarId) -> bool {
        match self.long.get(&o.start) {
            Some(at) if o.len >= LONG => at.get(&v).is_some_and(|p| !p.is_empty()),
            _ => self.get(o).contains(&v),
        }
    }

    /// Every `from` in slice `o` becomes `to`; how many there were.
    pub(super) fn rename(&mut self, o: Operands, from: VarId, to: VarId) -> u32 {
        let data = &mut self.data[o.range()];
        if o.len < LONG {
            let mut n = 0;
            for v in data.iter_mut().filter(|v| **v == from) {
                *v = to;
                n += 1;
            }
            return n;
        }
        let at = self.long.entry(o.start).or_insert_with(|| {
            let mut at: FastMap<VarId, Vec<u32>> = FastMap::default();
            for (i, v) in data.iter().enumerate() {
                at.entry(*v).or_default().push(i as u32);
            }
            at
        });
        let Some(places) = at.remove(&from) else {
            return 0;
        };
        for &i in &places {
            data[i as usize] = to;
        }
        let n = places.len() as u32;
        at.entry(to).or_default().extend(places);
        n
    }

    pub(super) fn alloc(&mut self, xs: impl ExactSizeIterator<Item = VarId>) -> Operands {
        let len = xs.len();
        if len == 0 {
            return Operands::EMPTY;
        }
        match self.free.get_mut(len).and_then(|f| f.pop()) {
            Some(start) => {
                for (slot, x) in self.data[start as usize..start as usize + len]
                    .iter_mut()
                    .zip(xs)
                {
                    *slot = x;
                }
                Operands {
                    start,
                    len: len as u32,
                }
            }
            None => {
                let start = self.data.len() as u32;
                self.data.extend(xs);
                Operands {
                    start,
                    len: len as u32,
                }
            }
        }
    }
    pub(super) fn release(&mut self, o: Operands) {
        if o.len == 0 {
            return;
        }
        if o.len >= LONG {
            self.long.remove(&o.start);
        }
        let len = o.len as usize;
        if self.free.len() <= len {
            self.free.resize_with(len + 1, Vec::new);
        }
        self.free[len].push(o.start);
    }
    pub(super) fn get(&self, o: Operands) -> &[VarId] {
        &self.data[o.range()]
    }
}

/// Slots for values too big for a statement node (primitives, closures), reused once freed.
#[derive(Clone)]
pub(super) struct Slab<T> {
    pub(super) items: Vec<Option<T>>,
    pub(super) free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab {
            items: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> Slab<T> {
    pub(super) fn insert(&mut self, x: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.items[i as usize] = Some(x);
                i
            }
            None => {
                self.items.push(Some(x));
                self.items.len() as u32 - 1
            }
        }
    }
    pub(super) fn remove(&mut self, i: u32) -> Option<T> {
        let x = self.items.get_mut(i as usize)?.take();
        if x.is_some() {
            self.free.push(i);
        }
        x
    }
    pub(super) fn get(&self, i: u32) -> Option<&T> {
        self.items.get(i as usize).and_then(|x| x.as_ref())
    }
}

/// A function value: its body and the variables its free names denote.
#[derive(Clone, Debug)]
pub struct Closure {
    pub tpl: Arc<Template>,
    pub env: Operands,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClosureId(pub(super) u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PrimId(pub(super) u32);

/// A top-level operation `o` of the running term. Twelve bytes: tuples and environments
/// live in the machine's arena, primitives and closures in slabs (`Machine::tuple`,
/// `Machine::prim`, `Machine::closure` read them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MOp {
    Alias(VarId),
    Fun(ClosureId),
    Call(VarId, VarId),
    Tuple(Operands),
    Prj(u32, VarId),
    Prim(PrimId),
    Task(TaskId),
    /// The operation of a statement that has left the term.
    Gone,
}

impl MOp {
    pub fn is_value(self) -> bool {
        matches!(self, MOp::Fun(_) | MOp::Tuple(_) | MOp::Prim(_))
    }
}

/// The variables of one operation, without allocating.
pub(super) enum OpVars<'a> {
    Two([VarId; 2], usize),
    Slice(&'a [VarId]),
}

impl OpVars<'_> {
    pub(super) fn as_slice(&self) -> &[VarId] {
        match self {
            OpVars::Two(xs, n) => &xs[..*n],
            OpVars::Slice(xs) => xs,
        }
    }
}

#[derive(Clone, Debug)]
pub struct StmtNode {
    pub label: LabelId,
    pub bind: VarId,
    pub op: MOp,
    /// Where the statement was written: the start of its source span (`NONE` if nowhere).
    /// Only the debugger's current line reads it, so the end is not kept.
    pub(super) at: u32,
    pub(super) prev: u32,
    pub(super) next: u32,
}

impl StmtNode {
    pub fn is_alive(&self) -> bool {
        self.op != MOp::Gone
    }
    /// The source offset the statement was written at, if it comes from the source; what
    /// replaced a statement (a call's inlined prelude body, a resolved result) has the
    /// replaced statement's.
    pub fn source_offset(&self) -> Option<u32> {
        (self.at != NONE).then_some(self.at & !(LIBRARY_CALL | INHERITED))
    }
    /// The source offset, only if the program wrote this statement there (not inherited
    /// from a statement it replaced): where a run of a source statement begins.
    pub fn written_at(&self) -> Option<u32> {
        (self.at != NONE && self.at & INHERITED == 0).then_some(self.at & !LIBRARY_CALL)
    }
}

/// Does statement `s` (still) use variable `v`? Its slot may be free or hold another statement.
pub(super) fn still_uses(
    stmts: &Store<StmtId, StmtNode>,
    operands: &Arena,
    closures: &Slab<Closure>,
    s: StmtId,
    v: VarId,
) -> bool {
    let Some(n) = stmts.get(s) else { return false };
    match n.op {
        MOp::Alias(y) | MOp::Prj(_, y) => y == v,
        MOp::Call(a, b) => a == v || b == v,
        MOp::Tuple(o) => operands.contains(o, v),
        MOp::Fun(c) => closures
            .get(c.0)
            .is_some_and(|c| operands.contains(c.env, v)),
        MOp::Prim(_) | MOp::Task(_) | MOp::Gone => false,
    }
}

#[derive(Clone, Debug)]
pub struct VarNode {
    pub name: Name,
    /// The label of the step that freshened this binder (`y@3.2`); `ROOT` if none.
    pub(super) fresh: LabelId,
    pub binder: u32,
    pub(super) uses: uses::Uses,
    pub(super) count: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Renaming through the index of a long slice agrees with renaming by a scan, through
    /// chains of renames, repeated operands, and a slice released and allocated again.
    #[test]
    fn long_slices_rename_as_a_scan_does() {
        let mut x: u64 = 3;
        let mut rand = |n: u32| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) % u64::from(n)) as u32
        };
        let mut arena = Arena::default();
        for round in 0..4 {
            let len = [5, 40, 100, 40][round];
            let start: Vec<VarId> = (0..len).map(|_| VarId::from_raw(rand(20))).collect();
            let o = arena.alloc(start.clone().into_iter());
            let mut naive = start;
            for _ in 0..200 {
                let (from, to) = (VarId::from_raw(rand(30)), VarId::from_raw(rand(30)));
                let expect = naive.iter().filter(|v| **v == from).count() as u32;
                naive
                    .iter_mut()
                    .filter(|v| **v == from)
                    .for_each(|v| *v = to);
                assert_eq!(arena.rename(o, from, to), expect);
                assert_eq!(arena.get(o), &naive[..]);
                let probe = VarId::from_raw(rand(30));
                assert_eq!(arena.contains(o, probe), naive.contains(&probe));
            }
            arena.release(o);
        }
    }
}
