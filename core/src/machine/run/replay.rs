//! Replaying a trace (`--replay`): each dispatch takes its recorded event, a mismatch is an
//! error (a warning with `--force`), and the verdict names what the run never reached.

use super::*;
use crate::machine::trace::TraceError;

impl Runner<'_> {
    /// A dispatched call replayed from the trace: its recorded event must match the call
    /// (else an error, or with `--force` a warning), then its result arrives at its time.
    pub(super) fn start_replay(&mut self, t: TaskId, ext: &str, arg: &PExp) {
        let stmt = self.m.tasks[t].stmt;
        let label = self.m.label_of(stmt);
        let Some(mut evs) = self.replay.remove(&label).filter(|evs| !evs.is_empty()) else {
            let msg = format!(
                "the trace has no event for `{ext}` {arg} at label {label}",
                arg = Clip(arg)
            );
            return self.replay_mismatch(t, label, msg);
        };
        let recorded = crate::machine::trace::json_to_pexp(&evs[0].arg);
        if evs[0].external != *ext
            || !recorded
                .as_ref()
                .is_some_and(|a| crate::world::pexp_eq(a, arg))
        {
            let was = recorded
                .map(|a| a.to_string())
                .unwrap_or_else(|| evs[0].arg.to_string());
            let msg = format!(
                "the trace has `{}` {was} at label {label}, but the run calls `{ext}` {arg} there",
                evs[0].external,
                was = Clip(was),
                arg = Clip(arg)
            );
            if !self.opts.replay_force {
                return self.replay_mismatch(t, label, msg);
            }
            self.forced_mismatches += 1;
            if self.forced_mismatches <= NAMED_EVENTS {
                self.emit(
                    "stderr",
                    &format!("warning: {msg} (replaying the recorded result, --force)\n"),
                );
            }
        }
        if evs[0].chunk.is_some() {
            self.replay_stream(t, evs);
        } else {
            self.schedule_replay(t, evs.swap_remove(0));
        }
    }

    /// A replay that diverged from its trace, or left some of it unused, must not look like a
    /// faithful one: its errors replace a normal end (`--force` makes unused events warnings).
    pub(super) fn replay_verdict(&mut self, end: End) -> End {
        if self.forced_mismatches > NAMED_EVENTS {
            let more = self.forced_mismatches - NAMED_EVENTS;
            self.emit("stderr", &format!("warning: and {more} more calls that do not match the trace (replaying the recorded results, --force)\n"));
        }
        if !self.replaying || matches!(end, End::StepBudget | End::RoundBudget) {
            return end;
        }
        let mut unused: Vec<(String, String)> = self
            .replay
            .values()
            .flatten()
            .filter(|e| e.chunk.unwrap_or(0) == 0)
            .map(|e| (e.label.clone(), e.external.clone()))
            .collect();
        unused.sort();
        let mut errors = std::mem::take(&mut self.replay_errors);
        // Why the run stopped comes before the events it then never reached: those follow from it.
        let stopped_by = match &end {
            End::Stuck(faults) => faults
                .iter()
                .filter(|f| f.code != REPLAY)
                .cloned()
                .collect(),
            _ => Vec::new(),
        };
        let mut never = Vec::new();
        let more = unused.len().saturating_sub(NAMED_EVENTS);
        for (label, ext) in unused.into_iter().take(NAMED_EVENTS) {
            let msg = format!("replay: the trace has an event for `{ext}` at label {label} that the run never dispatched");
            if self.opts.replay_force {
                let text = format!("warning: {msg} (--force)\n");
                self.emit("stderr", &text);
            } else {
                never.push(Fault::new(label, REPLAY, msg));
            }
        }
        // A trace of another program can hold a million events: name a few, count the rest.
        if more > 0 {
            let msg = format!(
                "replay: and {more} more events in the trace that the run never dispatched"
            );
            if self.opts.replay_force {
                self.emit("stderr", &format!("warning: {msg} (--force)\n"));
            } else {
                never.push(Fault::new(String::new(), REPLAY, msg));
            }
        }
        if errors.is_empty() && never.is_empty() {
            return end;
        }
        errors.extend(stopped_by);
        errors.extend(never);
        End::Stuck(errors)
    }

    /// A replayed run diverged from its trace: an error (the task fails, and the run ends
    /// reporting it), or with `--force` a failed task alone.
    pub(super) fn replay_mismatch(&mut self, t: TaskId, label: String, msg: String) {
        if !self.opts.replay_force {
            self.replay_errors
                .push(Fault::new(label, REPLAY, format!("replay: {msg}")));
        }
        self.fail_now(t, msg)
    }

    /// Fails every task still waiting on a replay that has nothing left for it.
    pub(super) fn replay_starved(&mut self) {
        let waiting: Vec<TaskId> = (0..self.m.tasks.len() as u32)
            .map(TaskId::from_raw)
            .filter(|t| self.m.task_live(*t) && self.m.tasks[*t].outcome.is_none())
            .collect();
        for t in waiting {
            let task = &self.m.tasks[t];
            let label = self.m.label_of(task.stmt);
            let msg = format!("the trace has nothing more to deliver to `{}` at label {label} (a recording cut off?)", task.ext);
            self.replay_errors
                .push(Fault::new(label, REPLAY, format!("replay: {msg}")));
            self.in_flight = self.in_flight.saturating_sub(1);
            let now = self.now_ms();
            self.m.deliver(t, Outcome::Failed(msg), now);
        }
        self.in_flight = 0;
    }

    /// A recorded stream: its deliveries arrive at their recorded times (or at once).
    pub(super) fn replay_stream(&mut self, t: TaskId, evs: Vec<Event>) {
        let si = self.new_stream(t);
        let mut prev = evs.first().map(|e| e.dispatched_at_ms).unwrap_or(0.0);
        let mut at_latency = Instant::now();
        for ev in evs {
            at_latency += delay(ev.resolved_at_ms - prev);
            prev = ev.resolved_at_ms;
            let at = if self.opts.replay_latencies {
                at_latency
            } else if self.opts.replay_timing {
                self.started + delay(ev.resolved_at_ms)
            } else {
                Instant::now()
            };
            let outcome = match (ev.error, crate::machine::trace::list_items(&ev.result)) {
                (Some(e), _) => Outcome::Failed(e),
                (None, Some(items)) => Outcome::Partial {
                    items,
                    more: ev.partial,
                },
                (None, None) => Outcome::Failed(format!(
                    "trace result `{}` is not a list of literals",
                    ev.result
                )),
            };
            self.schedule_at(
                at,
                Arrival::Replayed {
                    stream: si,
                    outcome,
                },
            );
        }
    }

    pub(super) fn schedule_replay(&mut self, t: TaskId, ev: Event) {
        let task = &self.m.tasks[t];
        let (ext, streamed) = (task.ext.clone(), task.stream.is_some());
        let outcome =
            self.host
                .outcome_of_record(&ext, streamed, &ev.result, ev.partial, ev.error.clone());
        let delay = if self.opts.replay_latencies {
            ev.resolved_at_ms - ev.dispatched_at_ms
        } else if self.opts.replay_timing {
            ev.resolved_at_ms - self.now_ms()
        } else {
            0.0
        };
        self.schedule(t, outcome, delay);
    }
}

impl Host {
    /// The outcome a recorded event stands for (`outcome_record` read back). `streamed`: the
    /// task continues a stream, so a list result is a delivery of its elements.
    pub fn outcome_of_record(
        &mut self,
        ext: &str,
        streamed: bool,
        result: &str,
        partial: bool,
        error: Option<String>,
    ) -> Outcome {
        if let Some(e) = error {
            Outcome::Failed(e)
        } else if partial || result.trim_start().starts_with('[') && streamed {
            match crate::machine::trace::list_items(result) {
                Some(items) => Outcome::Partial {
                    items,
                    more: partial,
                },
                None => Outcome::Failed(format!(
                    "trace result `{result}` is not a list of literals",
                    result = Clip(result)
                )),
            }
        } else if is_stream_ext(ext, self) {
            match crate::machine::trace::list_items(result) {
                Some(items) => Outcome::Partial { items, more: false },
                None => self
                    .compile_result(result)
                    .unwrap_or_else(|e| Outcome::Failed(e.to_string())),
            }
        } else {
            self.compile_result(result)
                .unwrap_or_else(|e| Outcome::Failed(e.to_string()))
        }
    }
}

/// Checks a trace against a source before replaying it.
pub fn check_trace(trace: &Trace, source: &str, force: bool) -> Result<(), TraceError> {
    let sha = sha256_hex(source);
    if trace.source_sha256 != sha && !force {
        let recorded = trace
            .source_sha256
            .get(..12)
            .unwrap_or(&trace.source_sha256)
            .to_string();
        return Err(TraceError::OtherSource {
            recorded,
            actual: sha[..12].to_string(),
        });
    }
    trace.validate()
}
