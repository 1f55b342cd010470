//! Practice mode: the student predicts which statements are steppable now, or which calls
//! dispatch together in the next round, and the debugger answers with reasons.

use crate::kind::RowStatus;
use crate::view::Row;
use opal_core::machine::label::LabelKey;
use opal_core::machine::Rule;
use std::collections::BTreeSet;

/// What the student is asked to predict in practice mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quiz {
    /// Which statements are steppable now?
    Steppable,
    /// Which calls dispatch together in the next round?
    Dispatch,
}

/// The debugger's answer to a prediction: labels as shown, with reasons.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdict {
    pub right: Vec<String>,
    /// Ticked, but not: (label, why not).
    pub wrong: Vec<(String, String)>,
    /// Not ticked, but should have been: (label, which rule).
    pub missed: Vec<(String, String)>,
}

impl Verdict {
    pub fn correct(&self) -> bool {
        self.wrong.is_empty() && self.missed.is_empty()
    }
}

/// Checks a prediction (the statements the student ticked) against the rows of the machine.
pub fn check(rows: Vec<Row>, quiz: Quiz, ticked: &BTreeSet<LabelKey>) -> Verdict {
    let mut v = Verdict::default();
    for row in rows {
        let should = match quiz {
            Quiz::Steppable => row.status.is_steppable(),
            Quiz::Dispatch => row.status == RowStatus::Steppable(Rule::Dispatch),
        };
        match (ticked.contains(&row.key), should) {
            (true, true) => v.right.push(row.label),
            (true, false) => {
                let why = match (quiz, &row.status) {
                    (Quiz::Dispatch, RowStatus::Steppable(r)) => {
                        format!("it steps by {}, not dispatch", r.name())
                    }
                    _ => row.status.to_string(),
                };
                v.wrong.push((row.label, why));
            }
            (false, true) => v.missed.push((row.label, row.status.to_string())),
            (false, false) => {}
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use opal_core::machine::StmtId;

    fn row(label: &str, status: RowStatus) -> Row {
        Row {
            id: StmtId::default(),
            key: key(label),
            label: label.into(),
            text: String::new(),
            core: String::new(),
            status,
            line: None,
            prelude: false,
            waits_on: None,
        }
    }

    fn key(label: &str) -> LabelKey {
        label
            .parse::<opal_core::machine::label::LabelPath>()
            .expect("a label")
            .key()
    }

    #[test]
    fn right_wrong_and_missed_with_reasons() {
        let rows = || {
            vec![
                row("1", RowStatus::Steppable(Rule::Dispatch)),
                row("2", RowStatus::Steppable(Rule::ReduceCall)),
                row("3", RowStatus::Waiting("1".into())),
            ]
        };
        let v = check(
            rows(),
            Quiz::Steppable,
            &[key("1"), key("3")].into_iter().collect(),
        );
        assert_eq!(v.right, vec!["1".to_string()]);
        assert_eq!(v.wrong, vec![("3".to_string(), "waiting: 1".to_string())]);
        assert_eq!(
            v.missed,
            vec![("2".to_string(), "steppable by reduce-call".to_string())]
        );
        assert!(!v.correct());
        let v = check(
            rows(),
            Quiz::Dispatch,
            &[key("1"), key("2")].into_iter().collect(),
        );
        assert_eq!(
            v.wrong,
            vec![(
                "2".to_string(),
                "it steps by reduce-call, not dispatch".to_string()
            )]
        );
        assert!(check(rows(), Quiz::Dispatch, &[key("1")].into_iter().collect()).correct());
    }
}
