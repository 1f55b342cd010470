//! Interned symbols and core names.
//!
//! A core `Name` is a base symbol plus a desugaring index: `x`, `x'2`. The `'` cannot appear
//! in source identifiers, so invented names never collide with the user's (LANGUAGE.md §3).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(u32);

struct Interner {
    map: FastMap<&'static str, Sym>,
    strs: Vec<&'static str>,
}

fn interner() -> &'static Mutex<Interner> {
    static I: OnceLock<Mutex<Interner>> = OnceLock::new();
    I.get_or_init(|| {
        Mutex::new(Interner {
            map: FastMap::default(),
            strs: Vec::new(),
        })
    })
}

impl Sym {
    pub fn intern(s: &str) -> Sym {
        let mut i = interner().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&sym) = i.map.get(s) {
            return sym;
        }
        let leaked: &'static str = Box::leak(s.to_owned().into_boxed_str());
        let sym = Sym(i.strs.len() as u32);
        i.strs.push(leaked);
        i.map.insert(leaked, sym);
        sym
    }
    /// The symbol's number (symbols are numbered densely as they are interned).
    pub fn index(self) -> usize {
        self.0 as usize
    }
    pub fn as_str(self) -> &'static str {
        let i = interner().lock().unwrap_or_else(|e| e.into_inner());
        i.strs[self.0 as usize]
    }
}

impl fmt::Debug for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A variable of a core term before evaluation: base name and desugaring index.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name {
    pub base: Sym,
    pub idx: u32,
}

impl Name {
    pub fn plain(s: &str) -> Name {
        Name {
            base: Sym::intern(s),
            idx: 0,
        }
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.idx == 0 {
            write!(f, "{}", self.base)
        } else {
            write!(f, "{}'{}", self.base, self.idx)
        }
    }
}
impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A fast, non-cryptographic hasher (the Fx hash of rustc) for maps keyed by names and
/// small integers: the front end and the machine hash millions of them on large inputs,
/// and no key comes from an adversary who could aim for collisions worth more than a slowdown.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64)
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64)
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64)
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub type FxBuild = std::hash::BuildHasherDefault<FxHasher>;
pub type FastMap<K, V> = HashMap<K, V, FxBuild>;
pub type FastSet<K> = std::collections::HashSet<K, FxBuild>;

/// A map from core names to small values for passes over a whole term (well-formedness,
/// compiling function bodies). The desugarer numbers each base's binders in order (`t'84`,
/// `t'85`, …), so per base a vector indexed from its first binder is filled in order, where a
/// hash map would miss the cache on nearly every binder of a long program. The vectors may
/// hold at most `budget` slots in all, the index of runs by symbol included (a caller passes a
/// multiple of the term's size); names
/// beyond that, or before their base's first binder, go to a hash map. The runs are found by
/// the base's symbol number (symbols are few and numbered densely), not by hashing.
pub struct NameTable<V: Copy> {
    runs: Vec<Option<Run<V>>>,
    budget: usize,
    sparse: FastMap<Name, V>,
}

/// Bases with a symbol number at or past this keep their names in the hash map (a process
/// that interned very many symbols, such as a long-lived language server, stays bounded).
const DENSE_SYMS: usize = 1 << 16;

struct Run<V> {
    start: u32,
    vals: Vec<Option<V>>,
}

impl<V: Copy> NameTable<V> {
    pub fn new(budget: usize) -> NameTable<V> {
        NameTable {
            runs: Vec::new(),
            budget,
            sparse: FastMap::default(),
        }
    }

    pub fn get(&self, n: Name) -> Option<V> {
        if let Some(Some(r)) = self.runs.get(n.base.index()) {
            if let Some(Some(v)) = n
                .idx
                .checked_sub(r.start)
                .and_then(|off| r.vals.get(off as usize))
            {
                return Some(*v);
            }
        }
        if self.sparse.is_empty() {
            return None;
        }
        self.sparse.get(&n).copied()
    }

    pub fn insert(&mut self, n: Name, v: V) {
        let i = n.base.index();
        // The runs' index costs slots too: a small table (a resolution's result, compiled
        // once per call) must not zero a slot per symbol the process ever interned.
        let grow = (i + 1).saturating_sub(self.runs.len());
        if i >= DENSE_SYMS || grow > self.budget {
            self.sparse.insert(n, v);
            return;
        }
        if grow > 0 {
            self.budget -= grow;
            self.runs.resize_with(i + 1, || None);
        }
        let r = self.runs[i].get_or_insert_with(|| Run {
            start: n.idx,
            vals: Vec::new(),
        });
        if let Some(off) = n.idx.checked_sub(r.start) {
            let off = off as usize;
            let need = (off + 1).saturating_sub(r.vals.len());
            if need <= self.budget {
                self.budget -= need;
                if need > 0 {
                    r.vals.resize(off + 1, None);
                }
                r.vals[off] = Some(v);
                return;
            }
        }
        self.sparse.insert(n, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_table_agrees_with_a_hash_map_past_its_budget_and_before_a_base_starts() {
        let (a, b) = (Sym::intern("a"), Sym::intern("b"));
        let mut t = NameTable::new(10);
        let mut reference = HashMap::new();
        // In order, out of order (before the base's first binder), far beyond the budget.
        for (i, idx) in [5u32, 6, 7, 2, 1000, 8, 3_000_000, 6]
            .into_iter()
            .enumerate()
        {
            for base in [a, b] {
                let n = Name { base, idx };
                t.insert(n, i);
                reference.insert(n, i);
            }
        }
        for idx in 0..12 {
            for base in [a, b] {
                let n = Name { base, idx };
                assert_eq!(t.get(n), reference.get(&n).copied(), "{n}");
            }
        }
        for idx in [1000, 3_000_000, 999, 4_000_000] {
            let n = Name { base: a, idx };
            assert_eq!(t.get(n), reference.get(&n).copied(), "{n}");
        }
        assert!(t.budget <= 10);
    }
}
