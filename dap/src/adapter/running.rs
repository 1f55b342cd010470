//! Running: continue, source-level stepping (a stop is always where a run of a source
//! statement begins: a line of the program, once per loop iteration), rule-by-rule stepping
//! (the `instruction` granularity), breakpoints, exceptions, pending tasks, time travel.

use super::*;

impl Adapter {
    /// `next`, `stepIn`, `stepOut` (`kind`): by source statement, or one action or rule step
    /// with the `instruction` granularity (for the lecture on the calculus).
    pub(super) fn step(&mut self, kind: StepKind, args: &Value) -> Result<Value, String> {
        self.session()?;
        let rule_by_rule = args.get("granularity").and_then(Value::as_str) == Some("instruction");
        match (kind, rule_by_rule) {
            (StepKind::Over, true) => self.step_once(None),
            (StepKind::In, true) => {
                let first = self
                    .session
                    .as_ref()
                    .and_then(|s| s.next_steps(Strategy::Opportunistic).first().copied());
                match self.strategy {
                    Strategy::Opportunistic => self.step_once(Some(first)),
                    _ => self.step_once(None),
                }
            }
            _ => {
                let step = self.source_step(kind)?;
                self.start(Run::Step(step));
            }
        }
        Ok(json!({}))
    }

    /// What a source-level step from the focus stops at: Over and Out know the call of a
    /// function the focus runs inside (its frame; `None` at the top level).
    fn source_step(&mut self, kind: StepKind) -> Result<Step, String> {
        let focus = self.focus;
        let s = self.session()?;
        let frame = focus
            .and_then(|k| s.find(k))
            .and_then(|st| s.enclosing_call(st));
        Ok(Step { kind, frame })
    }

    /// Does a source-level step stop before `st` begins a run? In: any run. Over: a run in
    /// the same frame or outside it (a caller's), not in a call it makes. Out: a run outside
    /// the frame. (Under opportunistic evaluation the caller's next statements may run
    /// before the call returns: a step stops at what runs next, as it runs.)
    fn step_stops_at(&self, step: &Step, st: StmtId) -> bool {
        let Some(s) = &self.session else { return true };
        let outside = |k: LabelKey| !s.under(st, k);
        match (step.kind, step.frame) {
            (StepKind::In, _) => true,
            (StepKind::Over, frame) => s.enclosing_call(st) == frame || frame.is_some_and(outside),
            (StepKind::Out, Some(k)) => outside(k),
            // Out of the top level: on to a breakpoint or the end, as continue.
            (StepKind::Out, None) => false,
        }
    }

    /// A source-level step: the statement beginning the run it stops at, if any (a run the
    /// next action begins that was not stopped at yet).
    fn step_done(&self) -> Option<(StmtId, Instance)> {
        let Some(Run::Step(step)) = self.run else {
            return None;
        };
        let s = self.session.as_ref()?;
        s.beginning(self.strategy)
            .into_iter()
            .find(|(st, run)| !self.skip_runs.contains(run) && self.step_stops_at(&step, *st))
    }

    /// `stepBack`: to just before the action that began the run before this one (mirroring
    /// `stepIn`), or one action back with the `instruction` granularity.
    pub(super) fn step_back(&mut self, args: &Value) -> Result<Value, String> {
        let rule_by_rule = args.get("granularity").and_then(Value::as_str) == Some("instruction");
        let position = self.session()?.position();
        // Several runs the next action begins were stopped at: back to the one before.
        if !rule_by_rule && self.skip_runs.len() > 1 && self.skip_at == position {
            self.skip_runs.pop();
            let run = self.skip_runs.pop();
            let s = self.session()?;
            let at = run.and_then(|r| {
                s.statements()
                    .into_iter()
                    .find(|st| s.instance(*st) == Some(r))
            });
            self.stopped_at("step", "stepped back", Vec::new(), at);
            return Ok(json!({}));
        }
        if position == 0 {
            return Err("at the initial term: nothing to step back to".into());
        }
        let s = self.session()?;
        if rule_by_rule {
            s.back();
            let len = s.output().len();
            self.undo_output(len);
            self.stopped("step", "stepped back one action");
            return Ok(json!({}));
        }
        let pos = s.before_last_begun(&|_| true);
        self.travel_to(pos, &|_| true, "step", "stepped back")?;
        Ok(json!({}))
    }

    /// Goes to position `pos` and stops on the statement beginning a run `wanted` accepts that
    /// the action there began.
    pub(super) fn travel_to(
        &mut self,
        pos: usize,
        wanted: &dyn Fn(&Instance) -> bool,
        reason: &str,
        description: &str,
    ) -> Result<(), String> {
        let strategy = self.strategy;
        let s = self.session()?;
        s.goto(pos)?;
        // The runs the action there began, in label order; stepping back stops on the last
        // (as stepping forward stopped on each in turn), reversing on the first it wants.
        let mut runs: Vec<(StmtId, Instance)> = s
            .beginning(strategy)
            .into_iter()
            .filter(|(_, r)| s.touched(pos).contains(r))
            .collect();
        if let Some(i) = runs.iter().position(|(_, r)| wanted(r)) {
            if reason == "breakpoint" {
                runs.truncate(i + 1);
            }
        }
        let at = runs.last().map(|(st, _)| *st);
        let (len, at_start) = (s.output().len(), s.position() == 0 && at.is_none());
        self.undo_output(len);
        self.skip_runs = runs.iter().map(|(_, r)| *r).collect();
        self.skip_at = pos;
        if at_start {
            self.stopped_at("entry", "back at the initial term", Vec::new(), None);
        } else {
            self.stopped_at(reason, description, Vec::new(), at);
        }
        Ok(())
    }

    /// Why the next action must not happen yet: a breakpoint's line where a run of a source
    /// statement begins (once per run), or a function breakpoint's external about to be
    /// dispatched.
    pub(super) fn breakpoint_hit(&self) -> Option<(&'static str, String, Vec<i64>, StmtId)> {
        let s = self.session.as_ref()?;
        let lines = if self.breakpoints.is_empty() {
            Vec::new()
        } else {
            s.beginning(self.strategy)
        };
        for (st, run) in lines {
            if self.skip_runs.contains(&run) {
                continue;
            }
            let ids: Vec<i64> = self
                .breakpoints
                .iter()
                .filter(|b| b.line == run.line)
                .map(|b| b.id)
                .collect();
            if !ids.is_empty() {
                let line = run.line;
                return Some(("breakpoint", format!("breakpoint on line {line}"), ids, st));
            }
        }
        if self.function_breakpoints.is_empty() {
            return None;
        }
        let m = s.machine();
        for st in s.next_steps(self.strategy) {
            if self.skip.contains(&s.key_of(st)) {
                continue;
            }
            if let (MOp::Call(f, _), Ok(Rule::Dispatch)) = (m.stmt(st).op, m.steppable(st)) {
                if let Some(MOp::Prim(p)) = m.binder(f).map(|b| m.stmt(b).op) {
                    if let opal_core::ir::Prim::Ext(name) = m.prim(p) {
                        let ids: Vec<i64> = self
                            .function_breakpoints
                            .iter()
                            .filter(|(_, n)| **n == **name)
                            .map(|(id, _)| *id)
                            .collect();
                        if !ids.is_empty() {
                            return Some((
                                "function breakpoint",
                                format!("`{name}` is about to be dispatched"),
                                ids,
                                st,
                            ));
                        }
                    }
                }
            }
        }
        None
    }

    /// After an action: a statement that became stuck or a task that failed (exception
    /// breakpoints).
    pub(super) fn exception(&mut self) -> Option<String> {
        let s = self.session.as_ref()?;
        let m = s.machine();
        let stuck: Vec<StmtId> = m
            .iter()
            .filter(|st| opal_debugger::session::kind_of(m, *st) == Kind::Stuck)
            .collect();
        let before = std::mem::replace(&mut self.stuck, stuck.len());
        if stuck.len() <= before {
            return None;
        }
        let row = s.row(*stuck.last()?);
        let failed = row.status.is_failed();
        if self.break_on_stuck || failed && self.break_on_failed {
            return Some(format!("{}: {}", row.label, row.status));
        }
        None
    }

    /// One action (`step`: a single statement to step, if given; else the strategy's next);
    /// when nothing can step, the pending tasks resolve from the trace or the world file.
    pub(super) fn step_once(&mut self, step: Option<Option<StmtId>>) {
        self.run = None;
        let strategy = self.strategy;
        let Some(s) = self.session.as_mut() else {
            return;
        };
        let r = match step {
            Some(Some(st)) => s.step_stmt(st),
            _ => s.advance(strategy),
        };
        match r {
            Ok(what) => {
                if let Some(e) = self.exception() {
                    self.stopped("exception", &e);
                } else {
                    self.stopped("step", &what);
                }
            }
            Err(why) => self.stalled(&why),
        }
    }

    /// Resolves the pending tasks from the trace, else the world file, else by calling the
    /// live external; how many were resolved now, or why one cannot be.
    pub(super) fn resolve_pending(&mut self) -> Result<usize, String> {
        let Some(s) = self.session.as_mut() else {
            return Ok(0);
        };
        let mut n = 0;
        let mut why = None;
        for label in s.pending_labels() {
            if self.live.as_ref().is_some_and(|l| l.calling(s, &label)) {
                continue;
            }
            let r = if s.has_trace() {
                s.resolve_from_trace(&label)
            } else {
                s.resolve_from_world(&label)
            };
            match r {
                Ok(_) => n += 1,
                Err(e) => match &mut self.live {
                    Some(live) => match live.call(s, &label) {
                        Ok(m) => self.queue.push(event(
                            "output",
                            json!({"category": "console", "output": format!("{m}\n")}),
                        )),
                        Err(e2) => why = Some(format!("{e}; live: {e2}")),
                    },
                    None => why = Some(e),
                },
            }
        }
        match why {
            Some(e) if n == 0 && self.live.as_ref().is_none_or(|l| l.in_flight() == 0) => Err(e),
            _ => Ok(n),
        }
    }

    /// Delivers what live externals answered; `announce` stops (so the client shows it) when
    /// something arrived while stopped.
    pub(super) fn pump_live(&mut self, announce: bool) {
        let (Some(live), Some(s)) = (self.live.as_mut(), self.session.as_mut()) else {
            return;
        };
        let p = live.pump(s);
        for m in p.messages {
            self.queue.push(event(
                "output",
                json!({"category": "console", "output": format!("{m}\n")}),
            ));
        }
        // What the externals printed or said (a retry), on its own stream.
        for (handle, text) in p.output {
            let category = if handle == "stderr" {
                "stderr"
            } else {
                "stdout"
            };
            self.queue.push(event(
                "output",
                json!({"category": category, "output": text}),
            ));
        }
        if p.changed && announce {
            self.stopped("step", "a live external answered");
        }
    }

    /// Nothing can step: resolve what is pending, or say why not, or end.
    pub(super) fn stalled(&mut self, why: &str) {
        let Some(s) = self.session.as_mut() else {
            return;
        };
        match effective_standing(s) {
            Standing::Waiting(n) => match self.resolve_pending() {
                Ok(0) => self.stopped("pause", &format!("waiting for {n} pending task(s): a live external is answering")),
                Ok(k) => self.stopped("step", &format!("resolved {k} pending task(s)")),
                Err(e) => self
                    .stopped("pause", &format!("waiting for {n} pending task(s) that nothing resolves ({e}); in the Debug Console: :resolve LABEL EXPRESSION")),
            },
            Standing::Finished | Standing::Stuck(_) => self.ended(),
            Standing::Steppable(_) => self.stopped("pause", why),
        }
    }

    /// Runs for about `slice`; stops when a stop condition holds.
    pub(super) fn work(&mut self, slice: Duration) {
        let deadline = Instant::now() + slice;
        let strategy = self.strategy;
        while self.run.is_some() {
            self.pump_live(false);
            if let Some((reason, what, ids, at)) = self.breakpoint_hit() {
                // A function breakpoint's statement steps in the next action: not again.
                let keys: Vec<LabelKey> = match &self.session {
                    Some(s) => s
                        .next_steps(strategy)
                        .into_iter()
                        .map(|st| s.key_of(st))
                        .collect(),
                    None => vec![],
                };
                self.stopped_at(reason, &what, ids, Some(at));
                if reason != "breakpoint" {
                    self.skip = keys;
                }
                return;
            }
            if let Some((at, run)) = self.step_done() {
                let line = run.line;
                self.stopped_at("step", &format!("line {line}"), Vec::new(), Some(at));
                return;
            }
            self.skip.clear();
            self.skip_runs.clear();
            let Some(s) = self.session.as_mut() else {
                return;
            };
            if s.machine().steps_total() - self.run_from >= self.max_steps {
                let budget = self.max_steps;
                self.stopped(
                    "pause",
                    &format!("did not finish within {budget} steps (maxSteps); continue to go on"),
                );
                return;
            }
            match s.advance(strategy) {
                Ok(_) => {
                    if let Some(e) = self.exception() {
                        self.stopped("exception", &e);
                        return;
                    }
                    self.send_output();
                }
                Err(why) => {
                    match effective_standing(s) {
                        Standing::Waiting(n) => {
                            match self.resolve_pending() {
                                Err(e) => {
                                    self.stopped(
                                        "pause",
                                        &format!("waiting for {n} pending task(s) that nothing resolves ({e}); in the Debug Console: :resolve LABEL EXPRESSION"),
                                    );
                                    return;
                                }
                                // A live external is answering: wait for it, reading messages.
                                Ok(0) => {
                                    self.pump_live(false);
                                    std::thread::sleep(Duration::from_millis(5));
                                }
                                Ok(_) => {}
                            }
                            self.send_output();
                        }
                        Standing::Finished | Standing::Stuck(_) => {
                            self.ended();
                            return;
                        }
                        // What is left is garbage cbv and lazy never step (the values
                        // nothing uses): collected as `opal run` does at the end.
                        Standing::Steppable(_) if only_garbage(s) => {
                            if let Err(e) = s.round() {
                                self.stopped("pause", &e);
                                return;
                            }
                        }
                        Standing::Steppable(_) => {
                            self.stopped("pause", &why);
                            return;
                        }
                    }
                }
            }
            if Instant::now() >= deadline {
                return;
            }
        }
    }

    /// `reverseContinue`: back to just before the last action that began a run on a
    /// breakpoint's line (or to the start).
    pub(super) fn reverse_continue(&mut self) -> Result<(), String> {
        let lines: Vec<usize> = self.breakpoints.iter().map(|b| b.line).collect();
        let s = self.session()?;
        let on_breakpoint = |r: &Instance| lines.contains(&r.line);
        let pos = s.before_last_begun(&on_breakpoint);
        self.travel_to(
            pos,
            &on_breakpoint,
            "breakpoint",
            "reversed to a breakpoint",
        )
    }
}

/// How the program stands for a run that cannot take the strategy's next action: cbv or lazy
/// may wait on a pending task while statements they would not step could, and then the
/// pending tasks resolve as when nothing can step.
fn effective_standing(s: &Session) -> Standing {
    match s.standing() {
        Standing::Steppable(_) if !s.pending_labels().is_empty() => {
            Standing::Waiting(s.pending_labels().len())
        }
        other => other,
    }
}

/// Is everything that can step garbage (reduce-gc of a value nothing uses)?
fn only_garbage(s: &Session) -> bool {
    let m = s.machine();
    s.next_steps(Strategy::Opportunistic)
        .iter()
        .all(|st| m.steppable(*st) == Ok(Rule::ReduceGc))
}
