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
}

impl Default for Labels {
    fn default() -> Self {
        Labels { nodes: vec![(0, 0)], remap: Vec::new() }
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
        &self.remap
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
