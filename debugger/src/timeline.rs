//! External calls from dispatch to resolve: the record the timeline, the call graph and the
//! critical path read.

use opal_core::machine::label::LabelKey;

/// One external call from dispatch to resolve.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The label of the call's statement, abbreviated (`5.6.…6.6`).
    pub label: String,
    /// The whole label (recorded traces name a stream by it); empty for pure externals.
    pub full_label: String,
    pub key: LabelKey,
    pub ext: String,
    pub arg: String,
    pub line: Option<usize>,
    /// Positions in the action list (the step axis).
    pub dispatched_step: usize,
    pub resolved_step: Option<usize>,
    /// Milliseconds since the session started (the wall-clock axis).
    pub dispatched_ms: f64,
    pub resolved_ms: Option<f64>,
    pub failed: bool,
    /// Resolved at dispatch (a pure external such as `print`).
    pub pure: bool,
    /// What a stream delivered so far, one list literal per delivery (`["Honolulu"]`).
    pub chunks: Vec<String>,
    /// The calls whose results its argument was computed from (their keys).
    pub deps: Vec<LabelKey>,
    /// The ordered calls it waits for by program order alone (the sequencing token).
    pub order: Vec<LabelKey>,
}

impl Call {
    /// The streamed elements so far, joined (`"Honolulu", "Jakarta"`).
    pub fn streamed(&self) -> String {
        self.elements().collect::<Vec<_>>().join(", ")
    }

    /// How many chunks with elements have arrived.
    pub fn chunks_arrived(&self) -> usize {
        self.elements().count()
    }

    /// How views label the stream's pending rest: the call's label and the chunks arrived
    /// (`2+3`, beside the call graph's node `2`).
    pub fn rest_label(&self) -> String {
        format!("{}+{}", self.label, self.chunks_arrived())
    }

    fn elements(&self) -> impl Iterator<Item = &str> {
        self.chunks
            .iter()
            .map(|c| {
                c.trim()
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .trim()
            })
            .filter(|c| !c.is_empty())
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Axis {
    Steps,
    WallClock,
}

/// When a call was in flight on `axis`; a pending call runs to `end`.
pub fn span(c: &Call, axis: Axis, end: f64) -> (f64, f64) {
    match axis {
        Axis::Steps => (
            c.dispatched_step as f64,
            c.resolved_step.map(|s| s as f64 + 1.0).unwrap_or(end),
        ),
        Axis::WallClock => (c.dispatched_ms, c.resolved_ms.unwrap_or(end)),
    }
}

/// How many calls are in flight over time: (time, count) at every change.
pub fn in_flight(calls: &[&Call], axis: Axis, end: f64) -> Vec<(f64, usize)> {
    let mut ev: Vec<(f64, i32)> = Vec::new();
    for c in calls {
        let (a, b) = span(c, axis, end);
        ev.push((a, 1));
        ev.push((b, -1));
    }
    ev.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
    let mut n = 0i32;
    ev.into_iter()
        .map(|(t, d)| {
            n += d;
            (t, n.max(0) as usize)
        })
        .collect()
}

/// The calls on the critical path of the schedule shown: starting from the call that resolved
/// last, each earlier one is the call that resolved last before it was dispatched (what it
/// waited for). Indices into `calls`.
pub fn critical_path(calls: &[&Call]) -> Vec<usize> {
    let end = |c: &Call| c.resolved_step.unwrap_or(usize::MAX);
    let real: Vec<usize> = (0..calls.len()).filter(|&i| !calls[i].pure).collect();
    let Some(mut cur) = real.iter().copied().max_by_key(|&i| (end(calls[i]), i)) else {
        return vec![];
    };
    let mut path = vec![cur];
    // Each link resolved before the previous one was dispatched, so the chain is at most as
    // long as the calls; the bound keeps a malformed history from looping.
    while path.len() < real.len() {
        let before = real.iter().copied().filter(|&j| {
            calls[j]
                .resolved_step
                .is_some_and(|r| r <= calls[cur].dispatched_step)
                && j != cur
        });
        let Some(prev) = before.max_by_key(|&j| (end(calls[j]), j)) else {
            break;
        };
        path.push(prev);
        cur = prev;
    }
    path.reverse();
    path
}

/// The calls as CSV, one per line.
pub fn csv(calls: &[Call]) -> String {
    let mut out = String::from(
        "label,external,argument,dispatched_step,resolved_step,dispatched_ms,resolved_ms,failed\n",
    );
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    for c in calls {
        let opt = |x: Option<String>| x.unwrap_or_default();
        out.push_str(&format!(
            "{},{},{},{},{},{:.1},{},{}\n",
            q(&c.label),
            q(&c.ext),
            q(&c.arg),
            c.dispatched_step,
            opt(c.resolved_step.map(|s| s.to_string())),
            c.dispatched_ms,
            opt(c.resolved_ms.map(|m| format!("{m:.1}"))),
            c.failed
        ));
    }
    out
}
