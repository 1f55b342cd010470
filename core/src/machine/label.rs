//! Statement labels ℓ, interned as (parent, index) so a new label costs O(1) space.
//!
//! A label deepens a level per loop iteration or stream chunk, so a long run holds labels
//! millions of levels deep whose ancestors nobody holds. `compact` folds such ancestor chains
//! into runs (a periodic segment of indices stored once with its length), which keeps the table
//! bounded however deep labels get (§3.4's divergent program, 10^6 steps). Runs are made only
//! deep inside chains: the top `Plain::top` levels and the `Plain::bottom` levels above every
//! held label stay one node per level, so `parent` is exact wherever views walk (a debugger shows
//! a label's nearest call sites and groups labels by their first levels).

use std::cmp::Ordering;
use std::fmt;

/// `remap` of a label `compact` drops.
const DROP: u32 = u32::MAX;
/// In a label's first fact byte: a root of `compact` holds it.
const HELD: u8 = 0x80;

/// An interned label. The raw index is private: ids are made by `Labels` and renumbered only
/// through `Relabel` after a compaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LabelId(u32);

/// How `Labels::compact` renumbered the labels it kept.
pub struct Relabel<'a>(&'a [u32]);

impl Relabel<'_> {
    /// The new id of `l`, or `None` if the compaction dropped it (nothing live held it).
    pub fn get(&self, l: LabelId) -> Option<LabelId> {
        self.0
            .get(l.0 as usize)
            .copied()
            .filter(|&n| n != u32::MAX)
            .map(LabelId)
    }
}

pub const ROOT: LabelId = LabelId(0);

/// Marks a node's index as a run id.
const RUN: u32 = 1 << 31;
/// A run keeps its indices literally up to this many, then only a period of at most half.
const LITERAL: usize = 64;

/// A segment of a label folded into one node: `pat` repeated to `len` indices.
#[derive(Clone, Debug)]
struct Run {
    pat: Vec<u32>,
    len: u32,
    /// The segment stopped being periodic: it takes no more indices.
    closed: bool,
}

impl Run {
    fn at(&self, i: u32) -> u32 {
        self.pat[i as usize % self.pat.len()]
    }
    /// Appends `c` if the segment stays short to describe; `false` closes the run.
    fn push(&mut self, c: u32) -> bool {
        if self.closed {
            return false;
        }
        if self.pat.len() == self.len as usize {
            if self.pat.len() < LITERAL {
                self.pat.push(c);
                self.len += 1;
                return true;
            }
            let p = smallest_period(&self.pat);
            if p > LITERAL / 2 {
                self.closed = true;
                return false;
            }
            self.pat.truncate(p);
        }
        if self.at(self.len) == c && self.len < u32::MAX {
            self.len += 1;
            true
        } else {
            self.closed = true;
            false
        }
    }
}

/// The smallest `p` with `s[i] == s[i + p]` for every `i` (KMP's failure function).
fn smallest_period(s: &[u32]) -> usize {
    let mut fail = vec![0usize; s.len()];
    let mut k = 0;
    for i in 1..s.len() {
        while k > 0 && s[i] != s[k] {
            k = fail[k - 1];
        }
        if s[i] == s[k] {
            k += 1;
        }
        fail[i] = k;
    }
    s.len() - fail.last().copied().unwrap_or(0)
}

/// How many levels stay one node each: the first `top` of every label and the `bottom` above
/// every held label.
#[derive(Clone, Copy, Debug)]
pub struct Plain {
    pub top: u8,
    pub bottom: u8,
}

impl Default for Plain {
    fn default() -> Self {
        Plain { top: 64, bottom: 8 }
    }
}

#[derive(Clone, Debug)]
pub struct Labels {
    /// (parent, index) of each label, or (parent, `RUN | run`) for a folded chain: one cache
    /// line holds both.
    nodes: Vec<(u32, u32)>,
    runs: Vec<Run>,
    /// Scratch for `compact`: old id → new id.
    remap: Vec<u32>,
    /// Scratch for `compact`, per old id: [held and child count, levels to the nearest held
    /// label or branch below, depth], each saturating.
    facts: Vec<[u8; 3]>,
    /// Counts compactions: a `LabelMemo` made before one is stale.
    generation: u32,
    plain: Plain,
}

impl Default for Labels {
    fn default() -> Self {
        Labels {
            nodes: vec![(0, 0)],
            runs: Vec::new(),
            remap: Vec::new(),
            facts: Vec::new(),
            generation: 0,
            plain: Plain::default(),
        }
    }
}

impl Labels {
    pub fn child(&mut self, parent: LabelId, i: u32) -> LabelId {
        debug_assert!(i < RUN);
        self.nodes.push((parent.0, i));
        LabelId(self.nodes.len() as u32 - 1)
    }
    /// Nodes in the table (a run counts once).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    /// Bytes held.
    pub fn memory(&self) -> usize {
        self.nodes.capacity() * 8
            + self.remap.capacity() * 4
            + self.facts.capacity() * 3
            + self.runs.capacity() * std::mem::size_of::<Run>()
            + self
                .runs
                .iter()
                .map(|r| r.pat.capacity() * 4)
                .sum::<usize>()
    }
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
    /// Sets which levels `compact` keeps one node each (tests use small numbers).
    #[doc(hidden)]
    pub fn set_plain(&mut self, plain: Plain) {
        self.plain = plain;
    }
    /// Runs in the table (for tests).
    #[doc(hidden)]
    pub fn runs(&self) -> usize {
        self.runs.len()
    }
    /// The indices node `l` adds to its parent's label, in order.
    fn segment(&self, l: LabelId) -> impl DoubleEndedIterator<Item = u32> + '_ {
        let ix = self.nodes[l.0 as usize].1;
        let run = (ix & RUN != 0).then(|| &self.runs[(ix & !RUN) as usize]);
        let len = run.map_or(1, |r| r.len);
        (0..len).map(move |i| run.map_or(ix, |r| r.at(i)))
    }
    /// Keeps the labels in `roots` and their ancestors, drops the rest, and returns the new id
    /// of each old one (`u32::MAX` if dropped). Labels never free themselves (that would cost
    /// every step); the machine compacts when the table outgrows the live term, which keeps a
    /// long stream's ever-deeper labels from growing memory. Chains of ancestors nobody holds
    /// fold into runs (see the module's doc); the labels in `roots` keep their ids' meaning.
    /// O(table), in place, with reused buffers, so repeated compactions do not churn the
    /// allocator.
    pub fn compact(&mut self, roots: impl Iterator<Item = LabelId>) -> Relabel<'_> {
        self.mark(roots);
        let (n, map, facts) = (self.nodes.len(), &mut self.remap, &mut self.facts);
        let Plain { top, bottom } = self.plain;
        let mut runs: Vec<Run> = Vec::new();
        let mut old_runs = std::mem::take(&mut self.runs);
        // A parent is always older than its children, so one pass in order renumbers both.
        let mut j = 1;
        for i in 1..n {
            if map[i] == DROP {
                continue;
            }
            let (p, ix) = self.nodes[i];
            let len = if ix & RUN != 0 {
                old_runs[(ix & !RUN) as usize].len
            } else {
                1
            };
            let depth = u32::from(facts[p as usize][2]).saturating_add(len).min(255) as u8;
            facts[i][2] = depth;
            let folds = |f: [u8; 3]| f[2] > top && f[1] > bottom;
            let to = map[p as usize];
            if ix & RUN == 0 && p != 0 && folds(facts[p as usize]) && folds(facts[i]) {
                let (pp, pix) = self.nodes[to as usize];
                let grown = if pix & RUN != 0 {
                    runs[(pix & !RUN) as usize].push(ix).then_some(None)
                } else {
                    let mut r = Run {
                        pat: vec![pix],
                        len: 1,
                        closed: false,
                    };
                    r.push(ix).then_some(Some(r))
                };
                match grown {
                    Some(None) => {
                        map[i] = to;
                        continue;
                    }
                    Some(Some(r)) => {
                        self.nodes[to as usize] = (pp, RUN | runs.len() as u32);
                        runs.push(r);
                        map[i] = to;
                        continue;
                    }
                    None => {}
                }
            }
            let ix = if ix & RUN != 0 {
                runs.push(std::mem::replace(
                    &mut old_runs[(ix & !RUN) as usize],
                    Run {
                        pat: Vec::new(),
                        len: 0,
                        closed: true,
                    },
                ));
                RUN | (runs.len() as u32 - 1)
            } else {
                ix
            };
            map[i] = j as u32;
            self.nodes[j] = (to, ix);
            j += 1;
        }
        self.nodes.truncate(j);
        self.runs = runs;
        self.generation = self.generation.wrapping_add(1);
        Relabel(&self.remap)
    }

    /// The first pass of `compact`: which labels are kept (`remap` not `DROP`: the roots and
    /// their ancestors), and for each its facts: held, children kept (0, 1, 2 or more), and
    /// distance to the nearest held label or branch below.
    fn mark(&mut self, roots: impl Iterator<Item = LabelId>) {
        let n = self.nodes.len();
        let map = &mut self.remap;
        map.clear();
        map.resize(n, DROP);
        map[0] = 0;
        let facts = &mut self.facts;
        facts.clear();
        facts.resize(n, [0; 3]);
        for l in roots {
            let mut i = l.0 as usize;
            facts[i][0] |= HELD;
            while map[i] == DROP {
                map[i] = 0; // kept; numbered below
                i = self.nodes[i].0 as usize;
            }
        }
        for i in 1..n {
            if map[i] != DROP {
                let p = &mut facts[self.nodes[i].0 as usize][0];
                if *p & 3 < 2 {
                    *p += 1;
                }
            }
        }
        // Children are younger than their parents: in reverse order, each node's distance to
        // the nearest held label or branch below is known before its parent's.
        for i in (1..n).rev() {
            if map[i] != DROP {
                let f = facts[i];
                let d = if f[0] & HELD != 0 || f[0] & 3 != 1 {
                    0
                } else {
                    f[1]
                };
                facts[i][1] = d;
                facts[self.nodes[i].0 as usize][1] = d.saturating_add(1);
            }
        }
    }
    /// Does node `l` stand for a folded chain of levels (`compact`)?
    pub fn is_run(&self, l: LabelId) -> bool {
        self.nodes.get(l.0 as usize).is_some_and(|n| n.1 & RUN != 0)
    }
    /// The label `ℓ` that `ℓ.i` extends; `None` for a top-level label. For a label folded into
    /// a run (which nobody holds) this is where the run starts, skipping levels.
    pub fn parent(&self, l: LabelId) -> Option<LabelId> {
        let p = LabelId(self.nodes[l.0 as usize].0);
        (p != ROOT && l != ROOT).then_some(p)
    }
    pub fn path(&self, mut l: LabelId) -> Vec<u32> {
        let mut out = Vec::new();
        while l != ROOT {
            out.extend(self.segment(l).rev());
            l = LabelId(self.nodes[l.0 as usize].0);
        }
        out.reverse();
        out
    }
    /// The first `k` indices of each label, in O(k) per distinct ancestor shallower than `k`
    /// (deeper ones share their ancestor's prefix), so a chain of labels thousands deep costs
    /// its length, not its length times its depth as `path` would.
    pub fn prefixes(
        &self,
        labels: impl Iterator<Item = LabelId>,
        k: usize,
    ) -> Vec<std::rc::Rc<[u32]>> {
        let mut memo: std::collections::HashMap<u32, std::rc::Rc<[u32]>> =
            std::collections::HashMap::new();
        memo.insert(ROOT.0, std::rc::Rc::from(Vec::new()));
        let mut out = Vec::new();
        let mut stack = Vec::new();
        for l in labels {
            let mut cur = l.0;
            while !memo.contains_key(&cur) {
                stack.push(cur);
                cur = self.nodes[cur as usize].0;
            }
            while let Some(n) = stack.pop() {
                let parent = &memo[&self.nodes[n as usize].0];
                let p = if parent.len() >= k {
                    parent.clone()
                } else {
                    let mut v = parent.to_vec();
                    v.extend(self.segment(LabelId(n)).take(k - parent.len()));
                    std::rc::Rc::from(v)
                };
                memo.insert(n, p);
            }
            out.push(memo[&l.0].clone());
        }
        out
    }
    pub fn show(&self, l: LabelId) -> String {
        LabelPath::new(self.path(l)).to_string()
    }
    /// The last two indices of a label at least two deep.
    fn last_two(&self, l: LabelId) -> (u32, u32) {
        let mut back = self.segment(l).rev();
        let last = back.next().unwrap_or(0);
        let before = back
            .next()
            .or_else(|| {
                self.segment(LabelId(self.nodes[l.0 as usize].0))
                    .next_back()
            })
            .unwrap_or(0);
        (before, last)
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
    const ROOT: LabelKey = LabelKey(0x9e37_79b9_7f4a_7c15);
    fn child(self, i: u32) -> LabelKey {
        // splitmix64 of the parent's key and the index.
        let mut z = self.0 ^ (u64::from(i).wrapping_add(1)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        LabelKey(z ^ (z >> 31))
    }
}

/// A label as people and session files write it (`5.6.2`): parsed once where text comes in
/// (a session file, a console command), written out where it is shown, so no one in between
/// passes labels around as strings. Its [`LabelKey`] finds the statement.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct LabelPath(Vec<u32>);

impl LabelPath {
    pub fn new(parts: Vec<u32>) -> LabelPath {
        LabelPath(parts)
    }
    pub fn parts(&self) -> &[u32] {
        &self.0
    }
    /// The same key [`LabelMemo::key`] gives the label.
    pub fn key(&self) -> LabelKey {
        self.0.iter().fold(LabelKey::ROOT, |k, &i| k.child(i))
    }
}

impl std::str::FromStr for LabelPath {
    type Err = String;
    fn from_str(text: &str) -> Result<LabelPath, String> {
        let parts: Option<Vec<u32>> = text.split('.').map(|p| p.parse().ok()).collect();
        parts
            .filter(|p| !p.is_empty())
            .map(LabelPath)
            .ok_or_else(|| format!("`{text}` is not a label (e.g. 5.2)"))
    }
}

impl TryFrom<String> for LabelPath {
    type Error = String;
    fn try_from(text: String) -> Result<LabelPath, String> {
        text.parse()
    }
}

impl From<LabelPath> for String {
    fn from(p: LabelPath) -> String {
        p.to_string()
    }
}

impl fmt::Display for LabelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, n) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            write!(f, "{n}")?;
        }
        Ok(())
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
            self.facts.push(Facts {
                depth: 0,
                first: [0, 0],
                key: LabelKey::ROOT,
            });
        }
        for i in self.facts.len()..labels.nodes.len() {
            let mut f = self.facts[labels.nodes[i].0 as usize];
            for index in labels.segment(LabelId(i as u32)) {
                if f.depth < 2 {
                    f.first[f.depth as usize] = index;
                }
                f.depth += 1;
                f.key = f.key.child(index);
            }
            self.facts.push(f);
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
        let (before, last) = labels.last_two(l);
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
            assert_eq!(
                labels.show(l).parse::<LabelPath>().map(|p| p.key()),
                Ok(memo.key(&labels, l))
            );
            assert_eq!(memo.depth(&labels, l), labels.path(l).len());
        }
        assert_eq!(memo.short(&labels, chain[3]), "5.6.6.7");
        let full = labels.show(deep);
        let short = memo.short(&labels, deep);
        assert!(
            short.starts_with("5.6.…") && full.ends_with(short.trim_start_matches("5.6.…")),
            "{short} of {full}"
        );
        // A compaction renumbers labels: the memo notices and keys stay the same.
        let key = memo.key(&labels, deep);
        let deep = labels
            .compact([deep].into_iter())
            .get(deep)
            .expect("a held label is kept");
        assert_eq!(memo.key(&labels, deep), key);
        assert_eq!(labels.show(deep), full);
        let key = |t: &str| t.parse::<LabelPath>().map(|p| p.key());
        assert_ne!(key("1.2"), key("2.1"));
    }

    #[test]
    fn label_paths_read_back_what_they_write() {
        let p: LabelPath = "5.6.12".parse().expect("a label");
        assert_eq!(
            (p.parts(), p.to_string()),
            (&[5, 6, 12][..], "5.6.12".to_string())
        );
        for bad in ["", "5.", ".5", "5..6", "x", "5.-1", "4294967296"] {
            assert!(bad.parse::<LabelPath>().is_err(), "{bad:?}");
        }
        let json = serde_json::to_string(&p).expect("a path serializes");
        assert_eq!(json, "\"5.6.12\"");
        assert_eq!(serde_json::from_str::<LabelPath>(&json).ok(), Some(p));
        assert!(serde_json::from_str::<LabelPath>("\"5.x\"").is_err());
    }

    /// Held labels keep their paths, keys and short forms through any number of compactions
    /// that fold chains into runs; ancestors within `Plain` stay exact.
    fn check_held(
        labels: &Labels,
        memo: &mut LabelMemo,
        held: &[(LabelId, Vec<u32>)],
        plain: Plain,
    ) {
        for (l, want) in held {
            assert_eq!(&labels.path(*l), want);
            let text = want
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(".");
            assert_eq!(labels.show(*l), text);
            assert_eq!(
                text.parse::<LabelPath>().map(|p| p.key()),
                Ok(memo.key(labels, *l))
            );
            assert_eq!(memo.depth(labels, *l), want.len());
            if want.len() > SHORT_DEPTH {
                let [a, b] = [want[want.len() - 2], want[want.len() - 1]];
                assert_eq!(
                    memo.short(labels, *l),
                    format!("{}.{}.…{a}.{b}", want[0], want[1])
                );
            }
            // The nearest `bottom` ancestors are exact.
            let mut a = *l;
            for up in 1..=usize::from(plain.bottom).min(want.len() - 1) {
                a = labels.parent(a).expect("an ancestor");
                assert_eq!(labels.path(a), want[..want.len() - up]);
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn compaction_into_runs_keeps_every_held_label(
            ops in proptest::collection::vec((0usize..8, 0u32..4, 0u8..6), 1..400),
            top in 0u8..4,
            bottom in 0u8..3,
        ) {
            let plain = Plain { top, bottom };
            let mut labels = Labels::default();
            labels.set_plain(plain);
            let mut memo = LabelMemo::default();
            let first = labels.child(ROOT, 1);
            let mut held: Vec<(LabelId, Vec<u32>)> = vec![(first, vec![1])];
            for (pick, ix, what) in ops {
                let k = pick % held.len();
                match what {
                    // A statement reduces: its label gets one or two children.
                    0..=2 => {
                        let (l, path) = held.swap_remove(k);
                        for c in 0..1 + u32::from(what == 2) {
                            let child = labels.child(l, ix + c);
                            let mut p = path.clone();
                            p.push(ix + c);
                            held.push((child, p));
                        }
                    }
                    3 if held.len() > 1 => {
                        held.swap_remove(k);
                    }
                    _ => {
                        let roots: Vec<LabelId> = held.iter().map(|h| h.0).collect();
                        let map = labels.compact(roots.into_iter());
                        let kept: Vec<Option<LabelId>> = held.iter().map(|h| map.get(h.0)).collect();
                        for (h, k) in held.iter_mut().zip(kept) {
                            h.0 = k.expect("a held label is kept");
                        }
                    }
                }
                check_held(&labels, &mut memo, &held, plain);
            }
        }
    }

    /// §3.4's loop: one label deepens forever by a repeating pattern; compaction keeps the
    /// table bounded (the machine's memory bound rests on this).
    #[test]
    fn a_label_deepening_forever_takes_bounded_room() {
        let plain = Plain::default();
        let mut labels = Labels::default();
        let mut memo = LabelMemo::default();
        let mut deep = labels.child(ROOT, 2);
        let mut path = vec![2];
        let mut most = 0;
        for round in 0..50 {
            for _ in 0..1000 {
                // Like a call's body: a sibling that finishes and the recursive call.
                let _done = labels.child(deep, 1);
                deep = labels.child(deep, 3);
                deep = labels.child(deep, 2);
                path.extend([3, 2]);
            }
            deep = labels
                .compact([deep].into_iter())
                .get(deep)
                .expect("a held label is kept");
            most = most.max(labels.len());
            if round % 10 == 0 {
                check_held(&labels, &mut memo, &[(deep, path.clone())], plain);
            }
        }
        assert_eq!(path.len(), 100_001);
        assert!(
            most <= 1 + usize::from(plain.top) + usize::from(plain.bottom) + 2,
            "{most} nodes"
        );
        assert_eq!(labels.runs(), 1);
    }
}
