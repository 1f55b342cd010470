//! The action log: everything the user did, as `Action`s, and the state shown as a function
//! of it. Time travel restores the nearest checkpoint and replays; a saved session is the log
//! with the program's hash. Jobs use the same interface (`nearest`, `arrive`, `fresh`,
//! `restore`) to travel and load in slices.

use crate::state::{pending_in, Action, Env, Instance, State};
use opal_core::machine::label::LabelKey;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Keep at most this many checkpoints; past it, every other one is dropped (their spacing
/// doubles), so a long history costs O(log) copies of the state, not one per 16 actions.
const MAX_CHECKPOINTS: usize = 40;
/// Actions between checkpoints at the start.
const SPACING: usize = 16;

/// A saved session: the program's hash and what the user did.
#[derive(Serialize, Deserialize)]
pub(crate) struct Saved {
    pub version: u32,
    pub program_sha256: String,
    pub position: usize,
    pub actions: Vec<Action>,
}

pub(crate) struct History {
    actions: Vec<Action>,
    /// `said[i]` describes `actions[i]` in words (rule names, labels).
    said: Vec<String>,
    /// `touched[i]`: the runs of source statements action `i` stepped (a breakpoint stops
    /// once per run; reverse continue goes back to the action that began one).
    touched: Vec<Vec<Instance>>,
    /// The first action of this branch that stepped each run.
    began: HashMap<Instance, usize>,
    /// (position, the state after that many actions), sorted; the first is the initial term.
    checkpoints: Vec<(usize, State)>,
    /// Actions between checkpoints (doubles when there are too many).
    spacing: usize,
    current: State,
    at: usize,
    /// Counts changes of the state shown, so a window redraws only after one.
    revision: u64,
}

impl History {
    pub(crate) fn new(start: State) -> History {
        History {
            actions: Vec::new(),
            said: Vec::new(),
            touched: Vec::new(),
            began: HashMap::new(),
            checkpoints: vec![(0, start.clone())],
            spacing: SPACING,
            current: start,
            at: 0,
            revision: 0,
        }
    }

    pub(crate) fn current(&self) -> &State {
        &self.current
    }
    pub(crate) fn initial(&self) -> &State {
        &self.checkpoints[0].1
    }
    pub(crate) fn at(&self) -> usize {
        self.at
    }
    pub(crate) fn revision(&self) -> u64 {
        self.revision
    }
    pub(crate) fn actions(&self) -> &[Action] {
        &self.actions
    }
    pub(crate) fn said(&self) -> &[String] {
        &self.said
    }
    pub(crate) fn touched(&self, i: usize) -> &[Instance] {
        self.touched.get(i).map(Vec::as_slice).unwrap_or(&[])
    }
    /// Has an action before the position stepped a statement of this run?
    pub(crate) fn has_begun(&self, run: &Instance) -> bool {
        self.began.get(run).is_some_and(|&i| i < self.at)
    }
    /// Did action `i` begin this run (step its first statement)?
    pub(crate) fn began_at(&self, run: &Instance, i: usize) -> bool {
        self.began.get(run) == Some(&i)
    }
    pub(crate) fn checkpoints(&self) -> usize {
        self.checkpoints.len()
    }

    /// The resolutions given before the position, by the task's label (a confluence run
    /// gives the other order the same answers).
    pub(crate) fn given(&self) -> HashMap<LabelKey, Action> {
        let mut given = HashMap::new();
        for a in &self.actions[..self.at] {
            for a in a.answers() {
                if let Action::Resolve { label, .. } = a {
                    given.insert(label.key(), a.clone());
                }
            }
        }
        given
    }

    /// Does `a` at the position shown: later actions of this branch are dropped.
    pub(crate) fn act(&mut self, env: &mut Env, mut a: Action) -> Result<String, String> {
        for a in a.answers_mut() {
            if let Action::Resolve {
                label,
                call: call @ None,
                ..
            } = a
            {
                *call = pending_in(&self.current, label)
                    .ok()
                    .map(|t| self.current.machine.tasks[t].text());
            }
        }
        // In place, not on a copy (a copy per action made long runs quadratic): `apply` checks
        // everything before it changes anything, so an error leaves the state as it was.
        let last = std::mem::take(&mut self.current.last);
        let what = match env.apply(&mut self.current, &a, self.at) {
            Ok(w) => w,
            Err(e) => {
                self.current.last = last;
                return Err(e);
            }
        };
        let at = self.at;
        if self.actions.len() > at {
            self.began.retain(|_, i| *i < at);
        }
        self.actions.truncate(self.at);
        self.said.truncate(self.at);
        self.touched.truncate(self.at);
        self.checkpoints.retain(|(p, _)| *p <= at);
        self.actions.push(a);
        self.said.push(what.clone());
        let mut runs: Vec<Instance> = Vec::new();
        for t in &self.current.last {
            // Reduce-gc only tidies up after a statement's last use: it begins no run.
            if let Some(run) = t
                .run
                .filter(|_| t.rule != opal_core::machine::Rule::ReduceGc)
            {
                if !runs.contains(&run) {
                    runs.push(run);
                }
                self.began.entry(run).or_insert(at);
            }
        }
        self.touched.push(runs);
        self.at += 1;
        self.revision += 1;
        self.checkpoint_if_due();
        Ok(what)
    }

    /// Keeps a copy of the state every `spacing` actions; too many copies thin out.
    fn checkpoint_if_due(&mut self) {
        let last = self.checkpoints.last().map(|c| c.0).unwrap_or(0);
        if self.at < last + self.spacing {
            return;
        }
        self.checkpoints.push((self.at, self.current.clone()));
        if self.checkpoints.len() > MAX_CHECKPOINTS {
            self.spacing *= 2;
            let spacing = self.spacing;
            // Keep the initial term, the newest, and those on the new spacing.
            let n = self.checkpoints.len();
            let mut i = 0;
            self.checkpoints.retain(|(p, _)| {
                i += 1;
                *p == 0 || i == n || p.is_multiple_of(spacing)
            });
        }
    }

    /// The checkpoint nearest before `pos` (clamped to the log): its position and a copy of
    /// its state, to replay from.
    pub(crate) fn nearest(&self, pos: usize) -> Result<(usize, usize, State), String> {
        let pos = pos.min(self.actions.len());
        let (from, st) = self
            .checkpoints
            .iter()
            .rev()
            .find(|(p, _)| *p <= pos)
            .ok_or("no checkpoint")?;
        Ok((pos, *from, st.clone()))
    }

    /// Applies action `i` of the log to `st` (replaying toward a position).
    pub(crate) fn replay_one(&self, env: &mut Env, st: &mut State, i: usize) -> Result<(), String> {
        let a = self
            .actions
            .get(i)
            .ok_or_else(|| format!("replaying action {}: there is no such action", i + 1))?;
        env.apply(st, a, i)
            .map(|_| ())
            .map_err(|e| format!("replaying action {}: {e}", i + 1))
    }

    /// The state after `pos` actions of this branch: the nearest checkpoint, replayed.
    pub(crate) fn state_at(&self, env: &mut Env, pos: usize) -> Result<State, String> {
        let (pos, from, mut st) = self.nearest(pos)?;
        for i in from..pos {
            self.replay_one(env, &mut st, i)?;
        }
        Ok(st)
    }

    /// How many actions going to `pos` replays (0 when a checkpoint is there).
    pub(crate) fn replay_cost(&self, pos: usize) -> usize {
        let pos = pos.min(self.actions.len());
        self.checkpoints
            .iter()
            .rev()
            .find(|(p, _)| *p <= pos)
            .map(|(p, _)| pos - p)
            .unwrap_or(pos)
    }

    /// Shows `st`, the state after `pos` actions (computed by `state_at` or a job).
    pub(crate) fn arrive(&mut self, pos: usize, st: State) {
        self.current = st;
        self.at = pos.min(self.actions.len());
        self.revision += 1;
    }

    /// Shows the state after `pos` actions of this branch (restores a checkpoint, replays).
    pub(crate) fn goto(&mut self, env: &mut Env, pos: usize) -> Result<(), String> {
        let st = self.state_at(env, pos)?;
        self.arrive(pos, st);
        Ok(())
    }

    pub(crate) fn restart(&mut self) {
        self.actions.clear();
        self.said.clear();
        self.touched.clear();
        self.began.clear();
        self.checkpoints.truncate(1);
        self.spacing = SPACING;
        self.current = self.checkpoints[0].1.clone();
        self.at = 0;
        self.revision += 1;
    }

    /// Replays `actions` from the start as far as they apply; how many did, and the first
    /// error. (A reloaded program keeps the user's work up to where it changed.)
    pub(crate) fn replay(&mut self, env: &mut Env, actions: &[Action]) -> (usize, Option<String>) {
        self.restart();
        for (i, a) in actions.iter().enumerate() {
            if let Err(e) = self.act(env, a.clone()) {
                return (i, Some(format!("action {} no longer applies: {e}", i + 1)));
            }
        }
        (actions.len(), None)
    }

    /// Swaps in an empty log from the same initial state; the old one comes back (to put back
    /// with `restore` if a load fails or is cancelled).
    pub(crate) fn take(&mut self) -> History {
        let mut fresh = History::new(self.initial().clone());
        fresh.revision = self.revision;
        std::mem::replace(self, fresh)
    }

    /// Puts back a log `take` returned; the revision still counts up (views redraw).
    pub(crate) fn restore(&mut self, old: History) {
        let revision = self.revision.max(old.revision) + 1;
        *self = old;
        self.revision = revision;
    }

    /// The log as a session file: the program's hash, the actions and the position.
    pub(crate) fn to_json(&self, source: &str) -> String {
        let saved = Saved {
            version: 1,
            program_sha256: opal_core::machine::trace::sha256_hex(source),
            position: self.at,
            actions: self.actions.clone(),
        };
        serde_json::to_string_pretty(&saved).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

/// Reads a session file: its actions and position, and whether it was saved for `source`.
pub(crate) fn read_saved(text: &str, source: &str) -> Result<(Saved, bool), String> {
    let saved: Saved = serde_json::from_str(text).map_err(|e| {
        format!(
            "not a session file: line {}, column {}: {e}",
            e.line(),
            e.column()
        )
    })?;
    let same = saved.program_sha256 == opal_core::machine::trace::sha256_hex(source);
    Ok((saved, same))
}

/// Reads a session file saved for `source` (checked, not applied).
pub(crate) fn parse_saved(text: &str, source: &str) -> Result<Saved, String> {
    let (saved, same) = read_saved(text, source)?;
    if saved.version != 1 {
        return Err(format!(
            "session version {} is not supported (this opal reads version 1)",
            saved.version
        ));
    }
    if !same {
        return Err("the session was saved for a different text of this program (its program_sha256 differs); open the program it was saved with".into());
    }
    Ok(saved)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(src: &str) -> (Env, History) {
        let (env, st) = crate::state::start("t.opal", src, None).expect("compiles");
        (env, History::new(st))
    }

    fn round() -> Action {
        Action::Round { at_ms: 0.0 }
    }

    #[test]
    fn going_back_and_acting_drops_the_later_actions() {
        let (mut env, mut h) = history("a := 1 + 2\nb := a + 3\nprint (&stdout, b)\n");
        for _ in 0..3 {
            h.act(&mut env, round()).expect("a round");
        }
        let after3 = h.current().machine.print_term(false);
        h.goto(&mut env, 1).expect("back");
        assert_eq!(
            (h.at(), h.actions().len()),
            (1, 3),
            "going back keeps the later actions"
        );
        h.goto(&mut env, 3).expect("forward");
        assert_eq!(
            h.current().machine.print_term(false),
            after3,
            "replaying gives the same state"
        );
        h.goto(&mut env, 1).expect("back");
        h.act(&mut env, Action::Cbv { at_ms: 0.0 }).expect("cbv");
        assert_eq!(
            (h.at(), h.actions().len(), h.said().len()),
            (2, 2, 2),
            "a new action drops the branch after it"
        );
    }

    #[test]
    fn a_refused_action_changes_nothing() {
        let (mut env, mut h) = history("a := 1 + 2\n");
        let rev = h.revision();
        let e = h
            .act(
                &mut env,
                Action::Step {
                    label: "9.9".parse().expect("a label"),
                    strategy: None,
                    at_ms: 0.0,
                },
            )
            .unwrap_err();
        assert!(e.contains("no statement has label 9.9"), "{e}");
        assert_eq!((h.revision(), h.actions().len()), (rev, 0));
    }

    #[test]
    fn checkpoints_thin_out_as_the_log_grows() {
        // A long loop: each round takes a few steps, so hundreds of actions are possible.
        let items: Vec<String> = (1..=120).map(|i| i.to_string()).collect();
        let src = format!(
            "total := 0\nfor n in [{}]:\n    total += n\nprint (&stdout, total)\n",
            items.join(", ")
        );
        let (mut env, mut h) = history(&src);
        while h.act(&mut env, Action::Cbv { at_ms: 0.0 }).is_ok() {}
        assert!(
            h.actions().len() > SPACING * MAX_CHECKPOINTS,
            "{} actions",
            h.actions().len()
        );
        assert!(
            h.checkpoints() <= MAX_CHECKPOINTS + 1,
            "{} checkpoints",
            h.checkpoints()
        );
        assert!(h.replay_cost(h.actions().len() / 2) < h.actions().len() / 2);
    }

    #[test]
    fn take_and_restore_put_the_log_back_with_a_newer_revision() {
        let (mut env, mut h) = history("a := 1 + 2\nprint (&stdout, a)\n");
        h.act(&mut env, round()).expect("a round");
        let rev = h.revision();
        let old = h.take();
        assert_eq!((h.at(), h.actions().len()), (0, 0));
        h.act(&mut env, round()).expect("a round");
        h.restore(old);
        assert_eq!((h.at(), h.actions().len()), (1, 1));
        assert!(h.revision() > rev + 1);
    }

    #[test]
    fn session_files_round_trip_and_are_checked_against_the_program() {
        let src = "a := 1 + 2\nprint (&stdout, a)\n";
        let (mut env, mut h) = history(src);
        h.act(&mut env, round()).expect("a round");
        let json = h.to_json(src);
        let saved = parse_saved(&json, src).expect("reads back");
        assert_eq!((saved.position, saved.actions.len()), (1, 1));
        let e = parse_saved(&json, "a := 2\n").err().unwrap_or_default();
        assert!(e.contains("program_sha256 differs"), "{e}");
        let e = parse_saved("{", src).err().unwrap_or_default();
        assert!(e.starts_with("not a session file: line 1"), "{e}");
    }
}
