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
}

impl Default for Labels {
    fn default() -> Self {
        Labels { nodes: vec![(0, 0)] }
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
        self.nodes.capacity() * 8
    }
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
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
