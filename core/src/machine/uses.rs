//! Use lists of variables. Most variables are used once or twice, so two uses live inline in
//! the 8-byte `Uses`; longer lists spill into `Spill`, which owns them and reuses their vectors.

use super::StmtId;

/// An empty inline entry.
const EMPTY: StmtId = StmtId::from_raw(u32::MAX);
/// In `xs[0]`: the uses spilled into `Spill::lists[xs[1]]`. Statement ids stay below
/// `u32::MAX - 1` (the machine's `FREED`), so neither marker is ever a real statement.
const SPILLED: StmtId = StmtId::from_raw(u32::MAX - 1);

/// Eight bytes: up to two uses inline (empty entries are `EMPTY`), or where the spilled list is.
#[derive(Clone, Copy, Debug)]
pub struct Uses {
    xs: [StmtId; 2],
}

impl Uses {
    pub fn is_spilled(&self) -> bool {
        self.xs[0] == SPILLED
    }
}

impl Default for Uses {
    fn default() -> Self {
        Uses { xs: [EMPTY; 2] }
    }
}

#[derive(Clone, Default)]
pub struct Spill {
    lists: Vec<Vec<StmtId>>,
    free: Vec<u32>,
}

impl Spill {
    #[inline]
    pub fn slice<'a>(&'a self, u: &'a Uses) -> &'a [StmtId] {
        match u.xs {
            [SPILLED, i] => &self.lists[i.raw() as usize],
            [EMPTY, _] => &[],
            [_, EMPTY] => &u.xs[..1],
            _ => &u.xs,
        }
    }

    #[inline]
    pub fn last(&self, u: &Uses) -> Option<StmtId> {
        self.slice(u).last().copied()
    }

    /// Adds a use; when the inline uses are full, those `live` rejects make room first.
    #[inline]
    pub fn push(&mut self, u: &mut Uses, s: StmtId, live: impl Fn(StmtId) -> bool) {
        if u.xs[0] == SPILLED {
            self.lists[u.xs[1].raw() as usize].push(s);
            return;
        }
        if u.xs[1] != EMPTY {
            let kept = u.xs.map(|x| live(x).then_some(x));
            u.xs = [EMPTY; 2];
            for x in kept.into_iter().flatten() {
                let at = usize::from(u.xs[0] != EMPTY);
                u.xs[at] = x;
            }
        }
        if u.xs[0] == EMPTY {
            u.xs[0] = s;
        } else if u.xs[1] == EMPTY {
            u.xs[1] = s;
        } else {
            let first = [u.xs[0], u.xs[1], s];
            let i = match self.free.pop() {
                Some(i) => {
                    self.lists[i as usize].extend(first);
                    i
                }
                None => {
                    self.lists.push(first.to_vec());
                    self.lists.len() as u32 - 1
                }
            };
            u.xs = [SPILLED, StmtId::from_raw(i)];
        }
    }

    pub fn clear(&mut self, u: &mut Uses) {
        if u.xs[0] == SPILLED {
            let i = u.xs[1].raw();
            self.lists[i as usize].clear();
            self.free.push(i);
        }
        *u = Uses::default();
    }

    /// Keeps the uses `keep` accepts, each once.
    pub fn compact(&mut self, u: &mut Uses, keep: impl Fn(StmtId) -> bool) {
        let mut v: Vec<StmtId> = self.slice(u).to_vec();
        v.sort_unstable();
        v.dedup();
        v.retain(|s| keep(*s));
        self.clear(u);
        for s in v {
            self.push(u, s, |_| true);
        }
    }

    /// Bytes held by spilled lists.
    pub fn memory(&self) -> usize {
        self.lists.iter().map(|l| l.capacity() * 4).sum::<usize>()
            + self.lists.capacity() * 24
            + self.free.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uses_spill_reuse_lists_and_make_room_by_dropping_dead_entries() {
        let mut spill = Spill::default();
        let (mut u, mut w) = (Uses::default(), Uses::default());
        for s in 0..5 {
            spill.push(&mut u, StmtId::from_raw(s), |_| true);
        }
        assert_eq!(
            spill.slice(&u),
            &[
                StmtId::from_raw(0),
                StmtId::from_raw(1),
                StmtId::from_raw(2),
                StmtId::from_raw(3),
                StmtId::from_raw(4)
            ]
        );
        spill.clear(&mut u);
        assert!(spill.slice(&u).is_empty());
        // The freed list is reused, not leaked.
        for s in 0..3 {
            spill.push(&mut w, StmtId::from_raw(10 + s), |_| true);
        }
        assert_eq!(spill.lists.len(), 1);
        // Full inline uses whose statements are dead make room instead of spilling.
        let mut v = Uses::default();
        spill.push(&mut v, StmtId::from_raw(1), |_| true);
        spill.push(&mut v, StmtId::from_raw(2), |_| true);
        spill.push(&mut v, StmtId::from_raw(3), |s| s != StmtId::from_raw(1));
        assert_eq!(spill.slice(&v), &[StmtId::from_raw(2), StmtId::from_raw(3)]);
        spill.compact(&mut w, |s| s != StmtId::from_raw(11));
        assert_eq!(
            spill.slice(&w),
            &[StmtId::from_raw(10), StmtId::from_raw(12)]
        );
    }
}
