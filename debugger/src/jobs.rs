//! Work that can run long — run until, confluence, replaying a loaded or reloaded session,
//! time travel far from a checkpoint — runs as a job: the window calls `Session::poll` once a
//! frame with a few milliseconds to spend, shows the progress, and `Session::cancel` (Esc)
//! drops it. Every job has a step budget, so a divergent program ends with "did not finish
//! within N steps", never a hang.

use crate::confluence::{Confluence, ConfluenceRun, Order};
use crate::history::{parse_saved, History};
use crate::kind::{kind_of, standing, Kind};
use crate::state::{Action, Env, State};
use opal_core::machine::label::LabelKey;
use opal_core::machine::run::Strategy;
use opal_core::machine::Rule;
use std::time::Instant;

/// Stop a run when this happens.
#[derive(Clone, Debug, PartialEq)]
pub enum Until {
    Dispatch,
    Resolve,
    /// The statement with this label steps.
    Steps(LabelKey),
    /// Nothing can step any more (the program finished, or waits, or is stuck).
    End,
}

/// What to start.
#[derive(Clone, Debug, PartialEq)]
pub enum JobSpec {
    /// Advance by the strategy until the event, resolving from the trace or world when
    /// nothing else can step and `auto_resolve`.
    RunUntil {
        strategy: Strategy,
        until: Until,
        auto_resolve: bool,
    },
    /// Finish this session's term in rounds and the program from the start in `order`, with
    /// the same resolutions, and compare (`Session::take_confluence`).
    Confluence(Order),
    /// Travel to a position of the history.
    Goto(usize),
    /// Load a saved session (JSON): all of it or nothing.
    Load(String),
    /// Replay actions from the start as far as they apply (a program reloaded from disk).
    Replay(Vec<Action>),
}

/// How far a job got.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub what: String,
    pub done: usize,
    pub total: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Poll {
    Working(Progress),
    /// The job ended: what happened, or why it stopped.
    Done(Result<String, String>),
}

/// What a job works on: the session's log and what applying actions needs, and the
/// session's own actions where a job takes them (so a run until resolves as the user would).
/// `Session` implements it; this module knows nothing else of the session.
pub(crate) trait Driver {
    fn history(&self) -> &History;
    fn parts(&mut self) -> (&mut History, &mut Env);
    fn step_budget(&self) -> usize;
    /// One step or round by `strategy`, as the user's button does.
    fn advance(&mut self, strategy: Strategy) -> Result<String, String>;
    /// Resolves every pending task from the trace if loaded, else the world.
    fn resolve_all(&mut self) -> Result<usize, String>;
}

pub(crate) enum Job {
    RunUntil {
        strategy: Strategy,
        until: Until,
        auto_resolve: bool,
        steps_at_start: u64,
        actions: usize,
    },
    Confluence(Box<ConfluenceRun>),
    Goto {
        target: usize,
        st: Box<State>,
        next: usize,
    },
    /// `old`: the log before a load, put back if the load fails or is cancelled.
    Load {
        actions: Vec<Action>,
        position: usize,
        next: usize,
        strict: bool,
        old: Option<Box<History>>,
    },
}

/// How a slice of work ended.
pub(crate) enum Worked {
    /// Not done: the job to go on with.
    Going(Job),
    /// Done: what happened or why it stopped, and a confluence result if it was a check.
    Done(Result<String, String>, Option<Confluence>),
}

impl Job {
    /// The job `spec` asks for on `d`'s session.
    pub(crate) fn start(d: &mut impl Driver, spec: JobSpec) -> Result<Job, String> {
        Ok(match spec {
            JobSpec::RunUntil {
                strategy,
                until,
                auto_resolve,
            } => Job::RunUntil {
                strategy,
                until,
                auto_resolve,
                steps_at_start: d.history().current().machine.steps_total(),
                actions: 0,
            },
            JobSpec::Confluence(order) => {
                let h = d.history();
                Job::Confluence(Box::new(ConfluenceRun::new(
                    order,
                    h.current(),
                    h.initial(),
                    h.at(),
                    h.given(),
                )))
            }
            JobSpec::Goto(pos) => {
                let (target, from, st) = d.history().nearest(pos)?;
                Job::Goto {
                    target,
                    st: Box::new(st),
                    next: from,
                }
            }
            JobSpec::Load(text) => {
                let (h, env) = d.parts();
                let saved = parse_saved(&text, &env.source)?;
                let old = h.take();
                Job::Load {
                    actions: saved.actions,
                    position: saved.position,
                    next: 0,
                    strict: true,
                    old: Some(Box::new(old)),
                }
            }
            JobSpec::Replay(actions) => {
                d.parts().0.restart();
                Job::Load {
                    position: actions.len(),
                    actions,
                    next: 0,
                    strict: false,
                    old: None,
                }
            }
        })
    }

    pub(crate) fn name(&self) -> String {
        match self {
            Job::RunUntil {
                strategy, until, ..
            } => {
                let goal = match until {
                    Until::Dispatch => "the next dispatch",
                    Until::Resolve => "the next resolve",
                    Until::Steps(_) => "the selected statement steps",
                    Until::End => "the end",
                };
                format!("run ({}) until {goal}", strategy.name())
            }
            Job::Confluence(c) => format!("confluence ({})", c.order.name()),
            Job::Goto { target, .. } => format!("travel to step {target}"),
            Job::Load { strict: true, .. } => "load session".into(),
            Job::Load { .. } => "replay".into(),
        }
    }

    pub(crate) fn progress(&self, d: &impl Driver) -> Progress {
        let what = self.name();
        let budget = d.step_budget();
        match self {
            Job::RunUntil { steps_at_start, .. } => Progress {
                what,
                done: (d.history().current().machine.steps_total() - steps_at_start) as usize,
                total: budget,
            },
            Job::Confluence(c) => Progress {
                what,
                done: c.steps(),
                total: 2 * budget,
            },
            Job::Goto { target, next, .. } => Progress {
                what,
                done: *next,
                total: *target,
            },
            Job::Load { actions, next, .. } => Progress {
                what,
                done: *next,
                total: actions.len(),
            },
        }
    }

    /// Drops the job: what was cancelled. A run until keeps the actions it took; a load or a
    /// far time travel leaves the session as it was.
    pub(crate) fn cancel(self, d: &mut impl Driver) -> String {
        let p = self.progress(d);
        if let Job::Load { old: Some(old), .. } = self {
            d.parts().0.restore(*old);
        }
        format!("cancelled {} after {} of {}", p.what, p.done, p.total)
    }

    /// Works until `deadline`.
    pub(crate) fn work(self, d: &mut impl Driver, deadline: Instant) -> Worked {
        match self {
            Job::RunUntil {
                strategy,
                until,
                auto_resolve,
                steps_at_start,
                actions,
            } => run_until(
                d,
                strategy,
                until,
                auto_resolve,
                steps_at_start,
                actions,
                deadline,
            ),
            Job::Confluence(mut c) => {
                let budget = d.step_budget();
                match c.work(d.parts().1, budget, deadline) {
                    Some((result, msg)) => Worked::Done(Ok(msg), Some(result)),
                    None => Worked::Going(Job::Confluence(c)),
                }
            }
            Job::Goto { target, st, next } => goto(d, target, st, next, deadline),
            Job::Load {
                actions,
                position,
                next,
                strict,
                old,
            } => load(d, actions, position, next, strict, old, deadline),
        }
    }
}

/// A slice of a jump to step `target`: the log replayed from `next` on `st` until the deadline.
fn goto(
    d: &mut impl Driver,
    target: usize,
    mut st: Box<State>,
    mut next: usize,
    deadline: Instant,
) -> Worked {
    let done = |r| Worked::Done(r, None);
    let (h, env) = d.parts();
    while next < target {
        if let Err(e) = h.replay_one(env, &mut st, next) {
            return done(Err(e));
        }
        next += 1;
        if Instant::now() >= deadline {
            return Worked::Going(Job::Goto { target, st, next });
        }
    }
    h.arrive(target, *st);
    done(Ok(format!("at step {target}")))
}

/// A slice of loading a session: its actions applied from `next` until the deadline, then the
/// step it was at gone to. `strict`: an action that no longer applies puts `old` back.
fn load(
    d: &mut impl Driver,
    actions: Vec<Action>,
    position: usize,
    mut next: usize,
    strict: bool,
    mut old: Option<Box<History>>,
    deadline: Instant,
) -> Worked {
    let done = |r| Worked::Done(r, None);
    let (h, env) = d.parts();
    while next < actions.len() {
        if let Err(e) = h.act(env, actions[next].clone()) {
            let n = next;
            let r = if strict {
                if let Some(s) = old.take() {
                    h.restore(*s);
                }
                Err(format!("the session does not replay: action {} no longer applies: {e} (after {n} actions); nothing was changed", n + 1))
            } else {
                Err(format!(
                    "replayed {n} of {} actions; action {} no longer applies: {e}",
                    actions.len(),
                    n + 1
                ))
            };
            return done(r);
        }
        next += 1;
        if Instant::now() >= deadline {
            return Worked::Going(Job::Load {
                actions,
                position,
                next,
                strict,
                old,
            });
        }
    }
    done(
        h.goto(env, position)
            .map(|_| format!("replayed {} actions, at step {}", actions.len(), h.at())),
    )
}

/// A slice of a run until: advances by `strategy` until `until` happens, the budget is spent
/// or the deadline passes.
fn run_until(
    d: &mut impl Driver,
    strategy: Strategy,
    until: Until,
    auto_resolve: bool,
    steps_at_start: u64,
    mut actions: usize,
    deadline: Instant,
) -> Worked {
    let r = loop {
        let steps = (d.history().current().machine.steps_total() - steps_at_start) as usize;
        let budget = d.step_budget();
        if steps >= budget {
            break Err(Err(format!(
                "did not reach the goal within {budget} steps ({actions} actions; the program may diverge): raise the step budget or run until again to go on"
            )));
        }
        match d.advance(strategy) {
            Ok(what) => {
                actions += 1;
                let hit = d.history().current().last.iter().any(|t| match &until {
                    // What the call graph shows: a call that takes time.
                    Until::Dispatch => t.rule == Rule::Dispatch && !t.pure,
                    Until::Resolve => t.rule == Rule::Resolve,
                    Until::Steps(k) => t.key == *k,
                    Until::End => false,
                });
                if hit {
                    break Err(Ok(format!("stopped after {what}")));
                }
            }
            Err(e) => {
                let m = &d.history().current().machine;
                if auto_resolve && m.iter().any(|s| kind_of(m, s) == Kind::Pending) {
                    if let Err(e) = d.resolve_all() {
                        break Err(Err(format!("stopped: {e}")));
                    }
                    actions += 1;
                    if matches!(until, Until::Resolve) {
                        break Err(Ok("stopped: tasks were resolved".into()));
                    }
                    continue;
                }
                break Err(match until {
                    Until::End => Ok(format!("ran to the end: {}", standing(m).text())),
                    _ => Err(format!("stopped: {e}")),
                });
            }
        }
        if Instant::now() >= deadline {
            break Ok(());
        }
    };
    match r {
        Ok(()) => Worked::Going(Job::RunUntil {
            strategy,
            until,
            auto_resolve,
            steps_at_start,
            actions,
        }),
        Err(r) => Worked::Done(r, None),
    }
}
