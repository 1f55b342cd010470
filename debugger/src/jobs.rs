//! Work that can run long — run until, confluence, replaying a loaded or reloaded session,
//! time travel far from a checkpoint — runs as a job: the window calls `Session::poll` once a
//! frame with a few milliseconds to spend, shows the progress, and `Session::cancel` (Esc)
//! drops it. Every job has a step budget, so a divergent program ends with "did not finish
//! within N steps", never a hang.

use crate::session::{kind_of, Action, By, Confluence, Env, Kind, Order, Session, State, Strategy, Until};
use opal_core::machine::label::LabelKey;
use opal_core::machine::{Rule, StmtId};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// What to start.
#[derive(Clone, Debug, PartialEq)]
pub enum JobSpec {
    /// Advance by the strategy until the event, resolving from the trace or world when
    /// nothing else can step and `auto_resolve`.
    RunUntil { strategy: Strategy, until: Until, auto_resolve: bool },
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

/// The session as it was before a load, to put back if the load fails or is cancelled.
pub(crate) struct Stash {
    actions: Vec<Action>,
    history: Vec<String>,
    touched: Vec<Vec<usize>>,
    checkpoints: Vec<(usize, State)>,
    spacing: usize,
    current: State,
    at: usize,
}

pub(crate) enum Job {
    RunUntil { strategy: Strategy, until: Until, auto_resolve: bool, steps_at_start: u64, actions: usize },
    Confluence(Box<ConfluenceRun>),
    Goto { target: usize, st: Box<State>, next: usize },
    Load { actions: Vec<Action>, position: usize, next: usize, strict: bool, stash: Option<Box<Stash>> },
}

pub(crate) struct ConfluenceRun {
    order: Order,
    /// Finishing this session's term first, then the program from the start.
    theirs_turn: bool,
    mine: State,
    theirs: State,
    given: HashMap<LabelKey, Action>,
    mine_steps: usize,
    theirs_steps: usize,
    truncated: bool,
    rng: u64,
    start_at: usize,
}

/// A confluence result shows at most this many statements of each term.
const VIEW_ROWS: usize = 400;

/// What one unit of finishing work did.
enum Finish {
    Stepped(usize),
    Finished,
}

impl Session {
    /// Starts a job (refused while one runs).
    pub fn start(&mut self, spec: JobSpec) -> Result<String, String> {
        if let Some(p) = self.busy() {
            return Err(format!("{} is still running (Esc cancels it)", p.what));
        }
        let job = match spec {
            JobSpec::RunUntil { strategy, until, auto_resolve } => {
                Job::RunUntil { strategy, until, auto_resolve, steps_at_start: self.machine().steps_total(), actions: 0 }
            }
            JobSpec::Confluence(order) => {
                let mut given = HashMap::new();
                for a in &self.actions[..self.at] {
                    if let Action::Resolve { label, .. } = a {
                        if let Some(k) = LabelKey::of_text(label) {
                            given.insert(k, a.clone());
                        }
                    }
                }
                let mut mine = self.current.clone();
                let mut theirs = self.checkpoints[0].1.clone();
                mine.record = false;
                theirs.record = false;
                Job::Confluence(Box::new(ConfluenceRun {
                    order,
                    theirs_turn: false,
                    mine,
                    theirs,
                    given,
                    mine_steps: 0,
                    theirs_steps: 0,
                    truncated: false,
                    rng: match order {
                        Order::Random(seed) => seed | 1,
                        _ => 1,
                    },
                    start_at: self.at,
                }))
            }
            JobSpec::Goto(pos) => {
                let pos = pos.min(self.actions.len());
                let (from, st) = self.checkpoints.iter().rev().find(|(p, _)| *p <= pos).map(|(p, s)| (*p, s.clone())).ok_or("no checkpoint")?;
                Job::Goto { target: pos, st: Box::new(st), next: from }
            }
            JobSpec::Load(text) => {
                let saved = self.parse_saved(&text)?;
                let stash = self.stash();
                Job::Load { actions: saved.actions, position: saved.position, next: 0, strict: true, stash: Some(Box::new(stash)) }
            }
            JobSpec::Replay(actions) => {
                self.restart();
                Job::Load { position: actions.len(), actions, next: 0, strict: false, stash: None }
            }
        };
        let what = job_name(&job);
        self.job = Some(job);
        Ok(format!("{what}… (Esc cancels)"))
    }

    /// The running job's progress, if one runs.
    pub fn busy(&self) -> Option<Progress> {
        self.job.as_ref().map(|j| self.progress(j))
    }

    fn progress(&self, j: &Job) -> Progress {
        let what = job_name(j);
        match j {
            Job::RunUntil { steps_at_start, .. } => Progress { what, done: (self.machine().steps_total() - steps_at_start) as usize, total: self.step_budget },
            Job::Confluence(c) => Progress { what, done: c.mine_steps + c.theirs_steps, total: 2 * self.step_budget },
            Job::Goto { target, next, .. } => Progress { what, done: *next, total: *target },
            Job::Load { actions, next, .. } => Progress { what, done: *next, total: actions.len() },
        }
    }

    /// Drops the running job; what was cancelled. A run until keeps the actions it took; a
    /// load or a far time travel leaves the session as it was.
    pub fn cancel(&mut self) -> Option<String> {
        let job = self.job.take()?;
        let p = self.progress(&job);
        if let Job::Load { stash: Some(stash), .. } = job {
            self.unstash(*stash);
        }
        Some(format!("cancelled {} after {} of {}", p.what, p.done, p.total))
    }

    /// Works on the running job for about `slice`; `None` if no job runs.
    pub fn poll(&mut self, slice: Duration) -> Option<Poll> {
        let deadline = Instant::now() + slice;
        let job = self.job.take()?;
        match self.work(job, deadline) {
            Err(r) => Some(Poll::Done(r)),
            Ok(job) => {
                let p = self.progress(&job);
                self.job = Some(job);
                Some(Poll::Working(p))
            }
        }
    }

    /// Runs a job to its end (tests and scripts; a window polls instead).
    pub fn run_job(&mut self, spec: JobSpec) -> Result<String, String> {
        self.start(spec)?;
        loop {
            match self.poll(Duration::from_secs(3600)) {
                Some(Poll::Done(r)) => return r,
                Some(Poll::Working(_)) => {}
                None => return Err("the job vanished".into()),
            }
        }
    }

    /// Advances by `strategy` until `until` happens (see `JobSpec::RunUntil`), at once.
    pub fn run_until(&mut self, strategy: Strategy, until: &Until, auto_resolve: bool) -> Result<String, String> {
        self.run_job(JobSpec::RunUntil { strategy, until: until.clone(), auto_resolve })
    }

    /// Runs the confluence check to its end at once.
    pub fn confluence(&mut self, order: Order) -> Confluence {
        let r = self.run_job(JobSpec::Confluence(order));
        self.take_confluence().unwrap_or_else(|| Confluence {
            order: order.name(),
            mine_steps: 0,
            theirs_steps: 0,
            mine: String::new(),
            theirs: r.err().unwrap_or_default(),
            mine_view: String::new(),
            theirs_view: String::new(),
            mine_output: String::new(),
            theirs_output: String::new(),
            truncated: true,
            budget: self.step_budget,
        })
    }

    /// The result of the last confluence job, once.
    pub fn take_confluence(&mut self) -> Option<Confluence> {
        self.confluence_result.take()
    }

    fn stash(&mut self) -> Stash {
        let start = self.checkpoints[0].1.clone();
        Stash {
            actions: std::mem::take(&mut self.actions),
            history: std::mem::take(&mut self.history),
            touched: std::mem::take(&mut self.touched),
            checkpoints: std::mem::replace(&mut self.checkpoints, vec![(0, start.clone())]),
            spacing: std::mem::replace(&mut self.spacing, 16),
            current: std::mem::replace(&mut self.current, start),
            at: std::mem::take(&mut self.at),
        }
    }

    fn unstash(&mut self, s: Stash) {
        self.actions = s.actions;
        self.history = s.history;
        self.touched = s.touched;
        self.checkpoints = s.checkpoints;
        self.spacing = s.spacing;
        self.current = s.current;
        self.at = s.at;
        self.revision += 1;
    }

    /// Works until `deadline`: the job back if it goes on, else its result.
    fn work(&mut self, job: Job, deadline: Instant) -> Result<Job, Result<String, String>> {
        match job {
            Job::RunUntil { strategy, until, auto_resolve, steps_at_start, mut actions } => {
                let r = loop {
                    let steps = (self.machine().steps_total() - steps_at_start) as usize;
                    if steps >= self.step_budget {
                        break Err(Err(format!(
                            "did not reach the goal within {} steps ({actions} actions; the program may diverge): raise the step budget or run until again to go on",
                            self.step_budget
                        )));
                    }
                    match self.advance(strategy) {
                        Ok(what) => {
                            actions += 1;
                            let hit = self.last_steps().iter().any(|t| match &until {
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
                            if auto_resolve && !self.pending().is_empty() {
                                if let Err(e) = self.resolve_all() {
                                    break Err(Err(format!("stopped: {e}")));
                                }
                                actions += 1;
                                if matches!(until, Until::Resolve) {
                                    break Err(Ok("stopped: tasks were resolved".into()));
                                }
                                continue;
                            }
                            break Err(match until {
                                Until::End => Ok(format!("ran to the end: {}", self.standing().text())),
                                _ => Err(format!("stopped: {e}")),
                            });
                        }
                    }
                    if Instant::now() >= deadline {
                        break Ok(());
                    }
                };
                r.map(|()| Job::RunUntil { strategy, until, auto_resolve, steps_at_start, actions })
            }
            Job::Confluence(mut c) => match self.work_confluence(&mut c, deadline) {
                Some(r) => Err(r),
                None => Ok(Job::Confluence(c)),
            },
            Job::Goto { target, mut st, mut next } => {
                while next < target {
                    let a = self.actions[next].clone();
                    if let Err(e) = self.env.apply(&mut st, &a, next) {
                        return Err(Err(format!("replaying action {}: {e}", next + 1)));
                    }
                    next += 1;
                    if Instant::now() >= deadline {
                        return Ok(Job::Goto { target, st, next });
                    }
                }
                self.current = *st;
                self.at = target;
                self.revision += 1;
                Err(Ok(format!("at step {target}")))
            }
            Job::Load { actions, position, mut next, strict, mut stash } => {
                while next < actions.len() {
                    if let Err(e) = self.act(actions[next].clone()) {
                        let n = next;
                        let r = if strict {
                            if let Some(s) = stash.take() {
                                self.unstash(*s);
                            }
                            Err(format!("the session does not replay: action {} no longer applies: {e} (after {n} actions); nothing was changed", n + 1))
                        } else {
                            Err(format!("replayed {n} of {} actions; action {} no longer applies: {e}", actions.len(), n + 1))
                        };
                        return Err(r);
                    }
                    next += 1;
                    if Instant::now() >= deadline {
                        return Ok(Job::Load { actions, position, next, strict, stash });
                    }
                }
                Err(self.goto(position).map(|_| format!("replayed {} actions, at step {}", actions.len(), self.at)))
            }
        }
    }

    fn work_confluence(&mut self, c: &mut ConfluenceRun, deadline: Instant) -> Option<Result<String, String>> {
        let budget = self.step_budget;
        loop {
            let (st, steps, order) =
                if c.theirs_turn { (&mut c.theirs, &mut c.theirs_steps, c.order) } else { (&mut c.mine, &mut c.mine_steps, Order::Rounds) };
            let done = if *steps >= budget {
                c.truncated = true;
                true
            } else {
                match finish_step(&mut self.env, st, order, &c.given, &mut c.rng) {
                    Finish::Stepped(n) => {
                        *steps += n;
                        false
                    }
                    Finish::Finished => true,
                }
            };
            if done {
                if c.theirs_turn {
                    // Unfinished terms are not compared (they are not final) and may be huge
                    // with deep labels (garbage a reversed order never collects): only the
                    // first statements are shown.
                    let exact = |st: &State| if c.truncated { String::new() } else { st.machine.print_term(false) };
                    let result = Confluence {
                        order: c.order.name(),
                        mine_steps: c.start_at + c.mine_steps,
                        theirs_steps: c.theirs_steps,
                        mine: exact(&c.mine),
                        theirs: exact(&c.theirs),
                        mine_view: c.mine.view(VIEW_ROWS),
                        theirs_view: c.theirs.view(VIEW_ROWS),
                        mine_output: c.mine.output.clone(),
                        theirs_output: c.theirs.output.clone(),
                        truncated: c.truncated,
                        budget,
                    };
                    let msg = if result.truncated {
                        format!("confluence: did not finish within {budget} steps (the program may diverge); raise the step budget to go further")
                    } else if result.identical() {
                        format!("confluence: {} gives the identical final term", result.order)
                    } else {
                        format!("confluence: {} gives a different final term", result.order)
                    };
                    self.confluence_result = Some(result);
                    return Some(Ok(msg));
                }
                c.theirs_turn = true;
            }
            if Instant::now() >= deadline {
                return None;
            }
        }
    }
}

fn job_name(j: &Job) -> String {
    match j {
        Job::RunUntil { strategy, until, .. } => {
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

/// One unit of work finishing `st` under `order`: a round, one step, or resolving what is
/// pending (as the session did, else as the world file answers, a stream chunk by chunk).
fn finish_step(env: &mut Env, st: &mut State, order: Order, given: &HashMap<LabelKey, Action>, rng: &mut u64) -> Finish {
    let m = &st.machine;
    let all: Vec<StmtId> = m.iter().filter(|s| m.steppable(*s).is_ok()).collect();
    if all.is_empty() {
        let pending: Vec<StmtId> = m.iter().filter(|s| kind_of(m, *s) == Kind::Pending).collect();
        if pending.is_empty() {
            return Finish::Finished;
        }
        for s in pending {
            let key = st.key(s);
            let label = st.machine.label_of(s);
            let a = match given.get(&key) {
                Some(a) => Ok(a.clone()),
                None => env.world_action(st, &label, By::World),
            };
            if a.and_then(|a| env.apply(st, &a, 0)).is_err() {
                return Finish::Finished;
            }
        }
        return Finish::Stepped(0);
    }
    let pick: Vec<StmtId> = match order {
        Order::Rounds => all,
        Order::Reversed => all.last().copied().into_iter().collect(),
        Order::Random(_) => {
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            vec![all[(*rng % all.len() as u64) as usize]]
        }
        Order::Cbv => vec![m.cbv_next().unwrap_or(all[0])],
    };
    let mut n = 0;
    for s in pick {
        if env.step_in(st, s, 0, 0.0).is_some() {
            n += 1;
        }
    }
    Finish::Stepped(n.max(1))
}
