//! How a statement stands (`Kind`, with the words views show) and where the whole program
//! stands (`Standing`): plain functions of the machine.

use opal_core::machine::{Machine, Rule, Status, StmtId};

/// How a statement stands, for colours and the practice check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Steppable(Rule),
    Value,
    Waiting,
    Pending,
    Stuck,
}

/// A statement's status in words (rows, the practice check, why a step is refused).
pub(crate) fn describe(s: Status) -> (String, Kind) {
    match s {
        Status::Steppable(r) => (format!("steppable by {}", r.name()), Kind::Steppable(r)),
        Status::Value => ("value (still used)".into(), Kind::Value),
        Status::Waiting { why, .. } if why.starts_with("waiting") => (why, Kind::Waiting),
        Status::Waiting { why, .. } => (format!("waiting: {why}"), Kind::Waiting),
        Status::Pending => ("pending task: resolve it by hand, from the world file or from a trace".into(), Kind::Pending),
        Status::Stuck(why) => (format!("stuck: {why}"), Kind::Stuck),
    }
}

/// The kind of a statement without building the words (allocation-free).
pub fn kind_of(m: &Machine, s: StmtId) -> Kind {
    use opal_core::machine::Blocked;
    match m.steppable(s) {
        Ok(r) => Kind::Steppable(r),
        Err(Blocked::Value) => Kind::Value,
        Err(Blocked::Pending) => Kind::Pending,
        Err(Blocked::WaitPrim(_) | Blocked::WaitTask(_) | Blocked::WaitFun(_) | Blocked::WaitTuple(_)) => Kind::Waiting,
        Err(_) => Kind::Stuck,
    }
}

/// Where the whole program stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Standing {
    /// Something can step now.
    Steppable(usize),
    /// Nothing can step until these many tasks are resolved.
    Waiting(usize),
    /// Nothing can step and no task is pending: some statements can never step.
    Stuck(usize),
    /// The term is in normal form: only values (and the result) remain.
    Finished,
}

impl Standing {
    pub fn text(&self) -> String {
        match self {
            Standing::Steppable(n) => format!("{n} steppable"),
            Standing::Waiting(n) => format!("waiting for {n} pending task{}", if *n == 1 { "" } else { "s" }),
            Standing::Stuck(n) => format!("stuck: {n} statement{} can never step", if *n == 1 { "" } else { "s" }),
            Standing::Finished => "finished: normal form".into(),
        }
    }
}

/// Where the program on `m` stands: finished, stuck, waiting for tasks, or steppable.
pub fn standing(m: &Machine) -> Standing {
    let (mut steppable, mut pending, mut stuck) = (0, 0, 0);
    for s in m.iter() {
        match kind_of(m, s) {
            Kind::Steppable(_) => steppable += 1,
            Kind::Pending => pending += 1,
            Kind::Stuck => stuck += 1,
            Kind::Waiting | Kind::Value => {}
        }
    }
    if steppable > 0 {
        Standing::Steppable(steppable)
    } else if pending > 0 {
        Standing::Waiting(pending)
    } else if stuck > 0 || m.iter().any(|s| kind_of(m, s) == Kind::Waiting) {
        Standing::Stuck(stuck.max(1))
    } else {
        Standing::Finished
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standing_counts_in_words() {
        assert_eq!(Standing::Waiting(1).text(), "waiting for 1 pending task");
        assert_eq!(Standing::Stuck(2).text(), "stuck: 2 statements can never step");
        assert_eq!(Standing::Finished.text(), "finished: normal form");
    }

    #[test]
    fn a_fresh_program_can_step_and_a_value_cannot() {
        let c = opal_core::compile_with("a := 1 + 2\nprint (&stdout, a)\n", None);
        assert!(!c.has_errors());
        let m = Machine::new(&c.program);
        assert!(matches!(standing(&m), Standing::Steppable(n) if n > 0));
        let (words, k) = describe(Status::Value);
        assert_eq!((words.as_str(), k), ("value (still used)", Kind::Value));
    }
}
