//! How a statement stands (`Kind`, with the words views show) and where the whole program
//! stands (`Standing`): plain functions of the machine.

use opal_core::machine::{Blocked, Machine, Rule, Status, StmtId, VarId};

/// How a statement stands, for colours and the practice check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Steppable(Rule),
    Value,
    Waiting,
    Pending,
    Stuck,
}

/// How one statement stands, with the rule it steps by or why it cannot: what a row shows
/// (its `Display` is the words), what the practice check and a refused step say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowStatus {
    /// Steppable now, by this rule.
    Steppable(Rule),
    /// A value (function, tuple or primitive) that is still used.
    Value,
    /// Cannot step yet, and why, in the machine's words.
    Waiting(String),
    /// A dispatched external call whose result has not arrived.
    Pending,
    /// Can never step: the program is wrong here.
    Stuck(String),
    /// Can never step: its external call failed (the why names the call and the error).
    Failed(String),
}

impl RowStatus {
    /// How statement `s` of `m` stands, and the variable it waits on, if it waits.
    pub fn of(m: &Machine, s: StmtId) -> (RowStatus, Option<VarId>) {
        RowStatus::of_named(m, s, &|v| m.shown_name(v))
    }

    /// `of`, naming variables in the why by `name` (a view's names: `states#2`).
    pub fn of_named(
        m: &Machine,
        s: StmtId,
        name: &dyn Fn(VarId) -> String,
    ) -> (RowStatus, Option<VarId>) {
        let failed = matches!(m.steppable(s), Err(Blocked::Failed(_)));
        match m.status_named(s, name) {
            Status::Steppable(r) => (RowStatus::Steppable(r), None),
            Status::Value => (RowStatus::Value, None),
            Status::Waiting { on, why } => (RowStatus::Waiting(why), on),
            Status::Pending => (RowStatus::Pending, None),
            Status::Stuck(why) if failed => (RowStatus::Failed(why), None),
            Status::Stuck(why) => (RowStatus::Stuck(why), None),
        }
    }

    /// The kind, for colours (a failed call is stuck).
    pub fn kind(&self) -> Kind {
        match self {
            RowStatus::Steppable(r) => Kind::Steppable(*r),
            RowStatus::Value => Kind::Value,
            RowStatus::Waiting(_) => Kind::Waiting,
            RowStatus::Pending => Kind::Pending,
            RowStatus::Stuck(_) | RowStatus::Failed(_) => Kind::Stuck,
        }
    }

    pub fn is_steppable(&self) -> bool {
        matches!(self, RowStatus::Steppable(_))
    }

    /// Stuck because its external call failed (exception breakpoints stop on it).
    pub fn is_failed(&self) -> bool {
        matches!(self, RowStatus::Failed(_))
    }
}

impl std::fmt::Display for RowStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RowStatus::Steppable(r) => write!(f, "steppable by {}", r.name()),
            RowStatus::Value => f.write_str("value (still used)"),
            RowStatus::Waiting(why) if why.starts_with("waiting") => f.write_str(why),
            RowStatus::Waiting(why) => write!(f, "waiting: {why}"),
            RowStatus::Pending => {
                f.write_str("pending task: resolve it by hand, from the world file or from a trace")
            }
            RowStatus::Stuck(why) | RowStatus::Failed(why) => write!(f, "stuck: {why}"),
        }
    }
}

/// The kind of a statement without building the words (allocation-free).
pub fn kind_of(m: &Machine, s: StmtId) -> Kind {
    match m.steppable(s) {
        Ok(r) => Kind::Steppable(r),
        Err(Blocked::Value) => Kind::Value,
        Err(Blocked::Pending) => Kind::Pending,
        Err(
            Blocked::WaitPrim(_)
            | Blocked::WaitTask(_)
            | Blocked::WaitFun(_)
            | Blocked::WaitTuple(_),
        ) => Kind::Waiting,
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
            Standing::Waiting(n) => format!(
                "waiting for {n} pending task{}",
                if *n == 1 { "" } else { "s" }
            ),
            Standing::Stuck(n) => format!(
                "stuck: {n} statement{} can never step",
                if *n == 1 { "" } else { "s" }
            ),
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
        assert_eq!(
            Standing::Stuck(2).text(),
            "stuck: 2 statements can never step"
        );
        assert_eq!(Standing::Finished.text(), "finished: normal form");
    }

    #[test]
    fn a_fresh_program_can_step_and_a_value_cannot() {
        let c = opal_core::compile_with("a := 1 + 2\nprint (&stdout, a)\n", None);
        assert!(!c.has_errors());
        let m = Machine::new(&c.program);
        assert!(matches!(standing(&m), Standing::Steppable(n) if n > 0));
        assert_eq!(RowStatus::Value.to_string(), "value (still used)");
    }

    #[test]
    fn row_statuses_say_todays_words() {
        assert_eq!(
            RowStatus::Steppable(Rule::ReduceCall).to_string(),
            "steppable by reduce-call"
        );
        assert_eq!(RowStatus::Waiting("1".into()).to_string(), "waiting: 1");
        assert_eq!(
            RowStatus::Waiting("waiting for `x` to become a tuple".into()).to_string(),
            "waiting for `x` to become a tuple"
        );
        assert_eq!(
            RowStatus::Pending.to_string(),
            "pending task: resolve it by hand, from the world file or from a trace"
        );
        let failed = RowStatus::Failed("the external call `llm` failed: 401".into());
        assert_eq!(
            failed.to_string(),
            "stuck: the external call `llm` failed: 401"
        );
        assert!(failed.is_failed() && failed.kind() == Kind::Stuck && !failed.is_steppable());
        assert!(!RowStatus::Stuck("`x` is not bound".into()).is_failed());
    }
}
