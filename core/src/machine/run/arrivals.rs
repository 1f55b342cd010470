//! Arrivals: results, stream chunks and replayed deliveries reaching the runner, from the
//! channel (live externals) or the queue of timed arrivals (world files, `sleep`, replay);
//! how a stream's buffer becomes a task's outcome, and how each delivery is recorded.

use super::*;
use crate::machine::trace::pexp_to_json;

pub(super) enum Arrival {
    Done(TaskId, Outcome),
    Chunk {
        stream: usize,
        item: Option<Prim>,
        last: bool,
    },
    /// A stream broke: the task waiting for its rest fails (after what was buffered).
    StreamFailed {
        stream: usize,
        error: String,
    },
    /// A live external printed (a Python external's `print`).
    Output {
        handle: String,
        text: String,
    },
    /// One recorded delivery of a replayed stream, delivered as it was recorded.
    Replayed {
        stream: usize,
        outcome: Outcome,
    },
}

/// An arrival due at a time: world and replay latencies wait here instead of in a spawned
/// timer each, so the runner can wake for the earliest one precisely (tokio's timers round
/// up to whole milliseconds, which adds up over a chain of short calls).
pub(super) struct Due {
    pub(super) at: Instant,
    pub(super) seq: u64,
    pub(super) arrival: Arrival,
}

impl PartialEq for Due {
    fn eq(&self, o: &Due) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for Due {}
impl PartialOrd for Due {
    fn partial_cmp(&self, o: &Due) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Due {
    /// Reversed, so `BinaryHeap` pops the earliest (ties in scheduling order).
    fn cmp(&self, o: &Due) -> std::cmp::Ordering {
        (o.at, o.seq).cmp(&(self.at, self.seq))
    }
}

pub(super) struct StreamState {
    pub(super) current: TaskId,
    /// The label of the call that started the stream (when recording) and the
    /// number of deliveries so far: a delivery's trace event is (origin, chunk).
    pub(super) origin: Option<String>,
    pub(super) delivered: u32,
    /// Replayed deliveries not yet taken: each goes to one task, as recorded, because how a
    /// stream was split into deliveries shapes the labels of everything downstream.
    pub(super) replayed: std::collections::VecDeque<Outcome>,
    pub(super) buffer: Vec<Prim>,
    pub(super) done: bool,
    pub(super) error: Option<String>,
}

impl Runner<'_> {
    /// Starts a stream whose first delivery task `t` is; when recording, the call's label
    /// names all its deliveries in the trace.
    pub(super) fn new_stream(&mut self, t: TaskId) -> usize {
        let origin = self
            .opts
            .record
            .then(|| self.m.label_of(self.m.tasks[t].stmt));
        let si = self.streams.len();
        self.streams.push(StreamState {
            current: t,
            origin,
            delivered: 0,
            replayed: Default::default(),
            buffer: Vec::new(),
            done: false,
            error: None,
        });
        self.m.tasks[t].stream = Some(si as u32);
        si
    }

    pub(super) fn fail_now(&mut self, t: TaskId, msg: String) {
        self.schedule(t, Outcome::Failed(msg), 0.0);
    }

    pub(super) fn schedule(&mut self, t: TaskId, outcome: Outcome, ms: f64) {
        let at = Instant::now() + delay(ms);
        self.schedule_at(at, Arrival::Done(t, outcome));
    }

    pub(super) fn schedule_at(&mut self, at: Instant, arrival: Arrival) {
        self.timer_seq += 1;
        self.timers.push(Due {
            at,
            seq: self.timer_seq,
            arrival,
        });
    }

    /// Delivers every timed arrival that is due.
    pub(super) fn fire_due(&mut self) {
        if self.timers.is_empty() {
            return;
        }
        let now = Instant::now();
        while self.timers.peek().is_some_and(|d| d.at <= now) {
            if let Some(d) = self.timers.pop() {
                self.arrive(d.arrival);
            }
        }
    }

    /// Idle: waits for the next channel arrival or the earliest timer, whichever comes first.
    pub(super) async fn wait(&mut self) -> bool {
        let Some(next) = self.timers.peek().map(|d| d.at) else {
            // Replaying, nothing but the timers delivers: an empty queue with tasks in flight
            // would wait for ever.
            if self.replaying {
                self.replay_starved();
                return true;
            }
            return match self.rx.recv().await {
                Some(a) => {
                    self.arrive(a);
                    true
                }
                None => false,
            };
        };
        // A paused (virtual) clock jumps exactly to the deadline once local tasks have run:
        // its own timers would round up to whole milliseconds, which adds up over a chain of
        // recorded sub-millisecond latencies. (A live external's own timers that fall before the
        // deadline then fire at it; only the benchmarks mix the two.)
        #[cfg(feature = "virtual-clock")]
        if self.opts.virtual_clock {
            tokio::task::yield_now().await;
            if let Ok(a) = self.rx.try_recv() {
                self.arrive(a);
                return true;
            }
            tokio::time::advance(next.saturating_duration_since(Instant::now())).await;
            self.fire_due();
            return true;
        }
        // Sleep on tokio's millisecond timer to just before the deadline, then the rest precisely.
        let early = next
            .checked_sub(Duration::from_micros(1500))
            .unwrap_or(next);
        tokio::select! {
            a = self.rx.recv() => {
                if let Some(a) = a {
                    self.arrive(a);
                }
                return true;
            }
            _ = tokio::time::sleep_until(early) => {}
        }
        let left = next.saturating_duration_since(Instant::now());
        if !left.is_zero() {
            std::thread::sleep(left);
        }
        self.fire_due();
        true
    }

    pub(super) fn arrive(&mut self, a: Arrival) {
        match a {
            Arrival::Done(t, outcome) => self.resolve_task(t, outcome),
            Arrival::Chunk { stream, item, last } => {
                let st = &mut self.streams[stream];
                if let Some(i) = item {
                    st.buffer.push(i);
                }
                st.done |= last;
                self.flush_stream(stream);
            }
            Arrival::Replayed { stream, outcome } => {
                self.streams[stream].replayed.push_back(outcome);
                self.flush_stream(stream);
            }
            Arrival::StreamFailed { stream, error } => {
                let st = &mut self.streams[stream];
                st.error = Some(error);
                self.flush_stream(stream);
            }
            Arrival::Output { handle, text } => self.emit(&handle, &text),
        }
    }

    /// Delivers what a stream has buffered to its current task.
    pub(super) fn flush_stream(&mut self, si: usize) {
        let st = &mut self.streams[si];
        let t = st.current;
        if self.m.tasks[t].outcome.is_some() {
            return;
        }
        if let Some(outcome) = st.replayed.pop_front() {
            return self.resolve_task(t, outcome);
        }
        if st.buffer.is_empty() && !st.done && st.error.is_none() {
            return;
        }
        let items = std::mem::take(&mut st.buffer);
        let outcome = match &st.error {
            // What arrived before the break is delivered; its continuation carries the error.
            Some(_) if !items.is_empty() => Outcome::Partial { items, more: true },
            Some(e) => Outcome::Failed(e.clone()),
            None => Outcome::Partial {
                items,
                more: !st.done,
            },
        };
        self.resolve_task(t, outcome);
    }

    /// A task in flight has its result: record it and make its statement resolvable.
    pub(super) fn resolve_task(&mut self, t: TaskId, outcome: Outcome) {
        self.in_flight = self.in_flight.saturating_sub(1);
        self.record(t, &outcome);
        let now = self.now_ms();
        self.m.deliver(t, outcome, now);
    }

    pub(super) fn record(&mut self, t: TaskId, outcome: &Outcome) {
        if !self.opts.record {
            return;
        }
        let task = &self.m.tasks[t];
        let (label, chunk) = match task.stream.map(|si| &mut self.streams[si as usize]) {
            Some(st) => {
                st.delivered += 1;
                (
                    st.origin.clone().unwrap_or_default(),
                    Some(st.delivered - 1),
                )
            }
            None => (self.m.labels.show(task.label), None),
        };
        let task = &self.m.tasks[t];
        let (result, partial, error) = outcome_record(outcome);
        self.events.push(Event {
            label,
            chunk,
            external: task.ext.to_string(),
            arg: pexp_to_json(&task.arg),
            dispatched_at_ms: task.dispatched_at_ms,
            resolved_at_ms: self.started.elapsed().as_secs_f64() * 1000.0,
            result,
            partial,
            error,
        });
    }
}

/// A delay in milliseconds as a timer duration; world and trace files are range-checked at
/// load, and anything else (a program's `sleep`) is clamped to [0, a day] so no timer overflows.
pub(super) fn delay(ms: f64) -> Duration {
    let ms = if ms.is_nan() {
        0.0
    } else {
        ms.clamp(0.0, crate::world::MAX_MS)
    };
    Duration::from_secs_f64(ms / 1000.0)
}
