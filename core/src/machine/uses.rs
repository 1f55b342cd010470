//! A variable's use list: most variables are used once or twice, so up to four uses live
//! inline in the variable node and need no allocation.

use super::StmtId;

const INLINE: usize = 4;

#[derive(Clone, Debug)]
pub enum Uses {
    Few(u8, [StmtId; INLINE]),
    Many(Vec<StmtId>),
}

impl Default for Uses {
    fn default() -> Self {
        Uses::Few(0, [StmtId(0); INLINE])
    }
}

impl Uses {
    pub fn as_slice(&self) -> &[StmtId] {
        match self {
            Uses::Few(n, xs) => &xs[..*n as usize],
            Uses::Many(v) => v,
        }
    }
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }
    pub fn last(&self) -> Option<&StmtId> {
        self.as_slice().last()
    }
    pub fn contains(&self, s: &StmtId) -> bool {
        self.as_slice().contains(s)
    }
    pub fn push(&mut self, s: StmtId) {
        match self {
            Uses::Few(n, xs) if (*n as usize) < INLINE => {
                xs[*n as usize] = s;
                *n += 1;
            }
            Uses::Few(_, xs) => {
                let mut v = Vec::with_capacity(2 * INLINE);
                v.extend_from_slice(xs);
                v.push(s);
                *self = Uses::Many(v);
            }
            Uses::Many(v) => v.push(s),
        }
    }
    pub fn clear(&mut self) {
        match self {
            Uses::Few(n, _) => *n = 0,
            Uses::Many(v) => v.clear(),
        }
    }
    /// Keeps the uses `keep` accepts, each once.
    pub fn compact(&mut self, keep: impl Fn(StmtId) -> bool) {
        let mut v: Vec<StmtId> = self.as_slice().to_vec();
        v.sort_unstable();
        v.dedup();
        v.retain(|s| keep(*s));
        *self = if v.len() <= INLINE {
            let mut xs = [StmtId(0); INLINE];
            xs[..v.len()].copy_from_slice(&v);
            Uses::Few(v.len() as u8, xs)
        } else {
            Uses::Many(v)
        };
    }
}
