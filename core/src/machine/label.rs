//! Statement labels ℓ, interned as (parent, index) so a new label costs O(1) space.

use std::cmp::Ordering;
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LabelId(pub u32);

pub const ROOT: LabelId = LabelId(0);

#[derive(Clone, Debug)]
pub struct Labels {
    /// (parent, index) of each label: one cache line holds both.
    nodes: Vec<(u32, u32)>,
    /// Scratch for `compact`: old id → new id.
    remap: Vec<u32>,
    /// Counts compactions: a `LabelMemo` made before one is stale.
    generation: u32,
}

impl Default for Labels {
    fn default() -> Self {
        Labels { nodes: vec![(0, 0)], remap: Vec::new(), generation: 0 }
    }
}

impl Labels {
    pub fn child(&mut self, parent: LabelId, i: u32) -> LabelId {
        self.nodes.push((parent.0, i));
        LabelId(self.nodes.len() as u32 - 1)
    }
    /// Labels interned so far.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    /// Bytes held.
    pub fn memory(&self) -> usize {
        self.nodes.capacity() * 8 + self.remap.capacity() * 4
    }
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
    /// Keeps the labels in `roots` and their ancestors, drops the rest, and returns the new id
    /// of each old one (`u32::MAX` if dropped). Labels never free themselves (that would cost
    /// every step); the machine compacts when the table outgrows the live term, which keeps a
    /// long stream's ever-deeper labels from growing memory. In place, with a reused buffer,
    /// so repeated compactions do not churn the allocator.
    pub fn compact(&mut self, roots: impl Iterator<Item = LabelId>) -> &[u32] {
        const DROP: u32 = u32::MAX;
        let n = self.nodes.len();
        let map = &mut self.remap;
        map.clear();
        map.resize(n, DROP);
        map[0] = 0;
        for l in roots {
            let mut i = l.0 as usize;
            while map[i] == DROP {
                map[i] = 0; // kept; numbered below
                i = self.nodes[i].0 as usize;
            }
        }
        // A parent is always older than its children, so one pass in order renumbers both.
        let mut j = 0;
        for i in 0..n {
            if map[i] != DROP {
                map[i] = j as u32;
                let (p, ix) = self.nodes[i];
                self.nodes[j] = (if i == 0 { 0 } else { map[p as usize] }, ix);
                j += 1;
            }
        }
        self.nodes.truncate(j);
        self.generation = self.generation.wrapping_add(1);
        &self.remap
    }
    /// The label `ℓ` that `ℓ.i` extends; `None` for a top-level label.
    pub fn parent(&self, l: LabelId) -> Option<LabelId> {
        let p = LabelId(self.nodes[l.0 as usize].0);
        (p != ROOT && l != ROOT).then_some(p)
    }
    pub fn path(&self, mut l: LabelId) -> Vec<u32> {
        let mut out = Vec::new();
        while l != ROOT {
            let (parent, index) = self.nodes[l.0 as usize];
            out.push(index);
            l = LabelId(parent);
        }
        out.reverse();
        out
    }
    pub fn show(&self, l: LabelId) -> String {
        let mut s = String::new();
        for (i, n) in self.path(l).iter().enumerate() {
            if i > 0 {
                s.push('.');
            }
            let _ = write!(s, "{n}");
        }
        s
    }
    pub fn cmp(&self, a: LabelId, b: LabelId) -> Ordering {
        self.path(a).cmp(&self.path(b))
    }
    /// Is `a` a proper prefix of `b`?
    pub fn is_prefix(&self, a: LabelId, b: LabelId) -> bool {
        let (pa, pb) = (self.path(a), self.path(b));
        pa.len() < pb.len() && pb.starts_with(&pa)
    }
}

/// A label's identity for views: a 64-bit hash of its path, the same in every copy of the
/// machine and after a compaction (which renumbers `LabelId`s), and O(1) to get from a memo.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LabelKey(pub u64);

impl LabelKey {
    /// The key of a label given as text (`"5.6.2"`); `None` if it is not one.
    pub fn of_text(text: &str) -> Option<LabelKey> {
        let mut k = LabelKey::ROOT;
        for part in text.split('.') {
            k = k.child(part.parse().ok()?);
        }
        Some(k)
    }
    const ROOT: LabelKey = LabelKey(0x9e37_79b9_7f4a_7c15);
    fn child(self, i: u32) -> LabelKey {
        // splitmix64 of the parent's key and the index.
        let mut z = self.0 ^ (u64::from(i).wrapping_add(1)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        LabelKey(z ^ (z >> 31))
    }
}

/// What views need of a label, per label: its depth, its first two indices and its key.
#[derive(Clone, Copy, Debug)]
struct Facts {
    depth: u32,
    first: [u32; 2],
    key: LabelKey,
}

/// Facts about labels for views, memoised: filling in a new label costs O(1) (its parent is
/// older, so already known), so showing or keying any label costs O(1) however deep labels
/// grow. A debugger shows labels that a divergent recursion deepens by one per iteration;
/// `Labels::show` walks the whole path.
#[derive(Clone, Debug, Default)]
pub struct LabelMemo {
    generation: u32,
    facts: Vec<Facts>,
}

/// Labels deeper than this are shown abbreviated (`5.6.…6.6`).
pub const SHORT_DEPTH: usize = 6;

impl LabelMemo {
    fn sync(&mut self, labels: &Labels) {
        if self.generation != labels.generation || self.facts.len() > labels.nodes.len() {
            self.facts.clear();
            self.generation = labels.generation;
        }
        if self.facts.is_empty() {
            self.facts.push(Facts { depth: 0, first: [0, 0], key: LabelKey::ROOT });
        }
        for i in self.facts.len()..labels.nodes.len() {
            let (parent, index) = labels.nodes[i];
            let p = self.facts[parent as usize];
            let mut first = p.first;
            if p.depth < 2 {
                first[p.depth as usize] = index;
            }
            self.facts.push(Facts { depth: p.depth + 1, first, key: p.key.child(index) });
        }
    }

    pub fn key(&mut self, labels: &Labels, l: LabelId) -> LabelKey {
        self.sync(labels);
        self.facts[l.0 as usize].key
    }

    /// The label's first index (`0` for the environment's `0.k`).
    pub fn top(&mut self, labels: &Labels, l: LabelId) -> u32 {
        self.sync(labels);
        self.facts[l.0 as usize].first[0]
    }

    pub fn depth(&mut self, labels: &Labels, l: LabelId) -> usize {
        self.sync(labels);
        self.facts[l.0 as usize].depth as usize
    }

    /// The label as text, abbreviated past `SHORT_DEPTH` levels to its first two and last two
    /// indices (`5.6.…6.6`); `Labels::show` gives the whole label (for a tooltip).
    pub fn short(&mut self, labels: &Labels, l: LabelId) -> String {
        self.sync(labels);
        let f = self.facts[l.0 as usize];
        if (f.depth as usize) <= SHORT_DEPTH {
            return labels.show(l);
        }
        let (p, last) = labels.nodes[l.0 as usize];
        let before = labels.nodes[p as usize].1;
        format!("{}.{}.…{before}.{last}", f.first[0], f.first[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memo_keys_and_short_labels_match_the_full_labels_across_compaction() {
        let mut labels = Labels::default();
        let top = labels.child(ROOT, 5);
        let mut deep = labels.child(top, 6);
        let mut chain = vec![top, deep];
        for i in 0..40 {
            deep = labels.child(deep, 6 + (i % 3));
            chain.push(deep);
        }
        let mut memo = LabelMemo::default();
        for &l in &chain {
            assert_eq!(Some(memo.key(&labels, l)), LabelKey::of_text(&labels.show(l)));
            assert_eq!(memo.depth(&labels, l), labels.path(l).len());
        }
        assert_eq!(memo.short(&labels, chain[3]), "5.6.6.7");
        let full = labels.show(deep);
        let short = memo.short(&labels, deep);
        assert!(short.starts_with("5.6.…") && full.ends_with(short.trim_start_matches("5.6.…")), "{short} of {full}");
        // A compaction renumbers labels: the memo notices and keys stay the same.
        let key = memo.key(&labels, deep);
        let map = labels.compact([deep].into_iter()).to_vec();
        let deep = LabelId(map[deep.0 as usize]);
        assert_eq!(memo.key(&labels, deep), key);
        assert_eq!(labels.show(deep), full);
        assert_ne!(LabelKey::of_text("1.2"), LabelKey::of_text("2.1"));
        assert_eq!(LabelKey::of_text("1.x"), None);
    }
}
