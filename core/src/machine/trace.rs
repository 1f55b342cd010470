//! Record/replay trace files (LANGUAGE.md §7).

use crate::ir::{PExp, Prim};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::sync::Arc;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Trace {
    pub version: u32,
    pub source_sha256: String,
    pub strategy: String,
    pub events: Vec<Event>,
}

/// One resolved external call. A streamed list is a run of events under the label of the
/// call that started it, numbered by `chunk`: each `result` is the list literal of the
/// elements one task of the chain delivered, with `partial` set when a further task continues
/// the list. (The continuation tasks' own labels grow one level per chunk, so naming them
/// would make a long stream's trace quadratic in its length.)
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Event {
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk: Option<u32>,
    pub external: String,
    #[serde(deserialize_with = "bounded_arg")]
    pub arg: serde_json::Value,
    pub dispatched_at_ms: f64,
    pub resolved_at_ms: f64,
    pub result: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

pub fn sha256_hex(text: &str) -> String {
    let d = Sha256::digest(text.as_bytes());
    d.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn pexp_to_json(p: &PExp) -> serde_json::Value {
    use serde_json::json;
    match p {
        PExp::Prim(Prim::Int(i)) => json!(i),
        PExp::Prim(Prim::Float(f)) => json!({"float": f}),
        PExp::Prim(Prim::Str(s)) => json!(s.as_ref()),
        PExp::Prim(Prim::Handle(h)) => json!({"handle": h.as_ref()}),
        PExp::Prim(Prim::Ext(e)) => json!({"external": e.as_ref()}),
        PExp::Tuple(xs) => serde_json::Value::Array(xs.iter().map(pexp_to_json).collect()),
        PExp::List(xs) => json!({"list": xs.iter().map(pexp_to_json).collect::<Vec<_>>()}),
        PExp::Bool(b) => json!(b),
        PExp::Dict(kvs) => {
            json!({"dict": kvs.iter().map(|(k, v)| json!([pexp_to_json(k), pexp_to_json(v)])).collect::<Vec<_>>()})
        }
        PExp::Set(xs) => json!({"set": xs.iter().map(pexp_to_json).collect::<Vec<_>>()}),
    }
}

/// The deepest argument a trace holds: an argument is data only while every part of it is less
/// than the parser's [`MAX_DEPTH`](crate::syntax::parser::MAX_DEPTH) levels in (a tuple nested
/// 199 deep around a number), the limit the program's own literals have. `--record` refuses a
/// deeper one rather than write a trace `--replay` would refuse.
pub const MAX_ARG_DEPTH: usize = crate::syntax::parser::MAX_DEPTH as usize - 1;

/// JSON levels the reader enters in an argument: each level of an OPAL list is two in JSON
/// (`{"list": [..]}`), so every argument [`json_to_pexp`] takes fits, with one to spare for a
/// `{"float": ..}` at the bottom. Checked before each level, so deeper input is an error at
/// its line and column, never a deep recursion.
const MAX_ARG_JSON_DEPTH: usize = 2 * (MAX_ARG_DEPTH + 1);

/// How deep an argument nests, counted as [`json_to_pexp`] counts (a tuple or list one level, a
/// dictionary's keys and values two): the deepest part's level, 0 for a number. Iterative.
pub fn arg_depth(v: &serde_json::Value) -> usize {
    use serde_json::Value;
    let (mut deepest, mut todo) = (0, vec![(v, 0usize)]);
    while let Some((v, d)) = todo.pop() {
        deepest = deepest.max(d);
        match v {
            Value::Array(xs) => todo.extend(xs.iter().map(|x| (x, d + 1))),
            Value::Object(o) => match (o.get("list"), o.get("dict")) {
                (Some(Value::Array(xs)), _) => todo.extend(xs.iter().map(|x| (x, d + 1))),
                (_, Some(Value::Array(kvs))) => {
                    for kv in kvs {
                        match kv {
                            Value::Array(p) => todo.extend(p.iter().map(|x| (x, d + 2))),
                            other => todo.push((other, d + 1)),
                        }
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    deepest
}

/// An argument as a trace must hold it: data [`json_to_pexp`] takes back. The error says why
/// not; its depth first, the usual cause.
fn check_arg(arg: &serde_json::Value) -> Result<(), String> {
    let depth = arg_depth(arg);
    if depth > MAX_ARG_DEPTH {
        return Err(format!(
            "the argument nests {depth} deep; a trace holds arguments at most {MAX_ARG_DEPTH} deep"
        ));
    }
    match json_to_pexp(arg) {
        Some(_) => Ok(()),
        None => Err(
            "`arg` is not a primitive expression (a number, string, handle or a list of them)"
                .into(),
        ),
    }
}

/// `Event::arg` read with a depth bound of its own: the trace is read with `serde_json`'s
/// limit of 128 levels lifted (an argument 199 deep is more than that in JSON), and this is the
/// only part of a trace that nests (unknown keys are skipped without recursing).
fn bounded_arg<'de, D: serde::Deserializer<'de>>(d: D) -> Result<serde_json::Value, D::Error> {
    serde::de::DeserializeSeed::deserialize(Bounded(MAX_ARG_JSON_DEPTH), d)
}

/// A JSON value of at most `.0` more levels of arrays and objects.
struct Bounded(usize);

impl Bounded {
    /// The bound inside an array or object this one opens.
    fn enter<E: serde::de::Error>(&self) -> Result<usize, E> {
        match self.0.checked_sub(1) {
            Some(left) => Ok(left),
            None => {
                Err(E::custom(format!("`arg` nests deeper than {MAX_ARG_JSON_DEPTH} levels of JSON; a trace holds arguments at most {MAX_ARG_DEPTH} deep")))
            }
        }
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Bounded {
    type Value = serde_json::Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<serde_json::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Bounded {
    type Value = serde_json::Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<serde_json::Value, E> {
        Ok(b.into())
    }
    fn visit_i64<E>(self, n: i64) -> Result<serde_json::Value, E> {
        Ok(n.into())
    }
    fn visit_u64<E>(self, n: u64) -> Result<serde_json::Value, E> {
        Ok(n.into())
    }
    fn visit_f64<E>(self, n: f64) -> Result<serde_json::Value, E> {
        Ok(n.into())
    }
    fn visit_str<E>(self, s: &str) -> Result<serde_json::Value, E> {
        Ok(s.into())
    }
    fn visit_string<E>(self, s: String) -> Result<serde_json::Value, E> {
        Ok(s.into())
    }
    fn visit_unit<E>(self) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> Result<serde_json::Value, A::Error> {
        let left = self.enter()?;
        let mut xs = Vec::new();
        while let Some(x) = seq.next_element_seed(Bounded(left))? {
            xs.push(x);
        }
        Ok(serde_json::Value::Array(xs))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> Result<serde_json::Value, A::Error> {
        let left = self.enter()?;
        let mut o = serde_json::Map::new();
        while let Some(k) = map.next_key::<String>()? {
            let v = map.next_value_seed(Bounded(left))?;
            o.insert(k, v);
        }
        Ok(serde_json::Value::Object(o))
    }
}

/// A trace argument as data. `None` for JSON that is no OPAL primitive expression, or that nests
/// deeper than the parser's [`MAX_DEPTH`](crate::syntax::parser::MAX_DEPTH), checked before each
/// level is entered: a trace's reader stops at [`MAX_ARG_JSON_DEPTH`], but a `Value` built in
/// code (a debugger request, a session file) has no such bound.
pub fn json_to_pexp(v: &serde_json::Value) -> Option<PExp> {
    json_to_pexp_within(v, 0)
}

fn json_to_pexp_within(v: &serde_json::Value, depth: u32) -> Option<PExp> {
    use serde_json::Value;
    if depth >= crate::syntax::parser::MAX_DEPTH {
        return None;
    }
    let each = |xs: &[Value]| {
        xs.iter()
            .map(|x| json_to_pexp_within(x, depth + 1))
            .collect::<Option<Vec<_>>>()
    };
    Some(match v {
        Value::Number(n) => match n.as_i64() {
            Some(i) => PExp::Prim(Prim::Int(i)),
            None => PExp::Prim(Prim::Float(n.as_f64()?)),
        },
        Value::String(s) => PExp::Prim(Prim::Str(Arc::from(s.as_str()))),
        Value::Array(xs) => PExp::Tuple(each(xs)?),
        Value::Bool(b) => PExp::Bool(*b),
        Value::Object(o) => {
            if let Some(Value::Array(xs)) = o.get("list") {
                PExp::List(each(xs)?)
            } else if let Some(Value::Array(xs)) = o.get("set") {
                PExp::Set(each(xs)?)
            } else if let Some(Value::Array(kvs)) = o.get("dict") {
                let pair = |kv: &Value| match kv {
                    Value::Array(p) if p.len() == 2 => Some((
                        json_to_pexp_within(&p[0], depth + 2)?,
                        json_to_pexp_within(&p[1], depth + 2)?,
                    )),
                    _ => None,
                };
                PExp::Dict(kvs.iter().map(pair).collect::<Option<Vec<_>>>()?)
            } else if let Some(f) = o.get("float") {
                PExp::Prim(Prim::Float(f.as_f64()?))
            } else if let Some(h) = o.get("handle") {
                PExp::Prim(Prim::Handle(Arc::from(h.as_str()?)))
            } else {
                PExp::Prim(Prim::Ext(Arc::from(o.get("external")?.as_str()?)))
            }
        }
        _ => return None,
    })
}

/// Why a trace is refused: where, and what is wrong.
type Invalid = (Part, String);

/// Why a trace cannot be replayed. Every message names the place in the trace file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TraceError {
    /// Not JSON, or not the shape of a trace.
    #[error("invalid trace file at line {line}, column {column}: {msg}")]
    Json {
        line: usize,
        column: usize,
        msg: String,
    },
    /// A version this opal does not read.
    #[error("trace version {0} is not supported (this opal reads version 1)")]
    Version(u32),
    /// An event or the strategy breaks a rule; `at` names it: "trace event 5 (line 42, label
    /// 5.6.6.6, `ask`)" or "trace (line 4)".
    #[error("{at}: {msg}")]
    Invalid { at: String, msg: String },
    /// Recorded from another program text (the hashes' first 12 digits).
    #[error("this trace was recorded from a different source (sha256 {recorded}…, this file is {actual}…); pass --force to replay it anyway")]
    OtherSource { recorded: String, actual: String },
    /// The reader's own thread could not start or stopped.
    #[error("{0}")]
    Reader(String),
}

/// The part of a trace an error is about.
#[derive(Clone, Copy)]
enum Part {
    Strategy,
    /// An index into `events`.
    Event(usize),
}

impl Trace {
    /// Reads a trace and checks it ([`Trace::check`]). On a thread of its own with a 16 MiB
    /// stack: an argument is read up to [`MAX_ARG_JSON_DEPTH`] levels deep by recursion (and
    /// converted up to `MAX_DEPTH`), which needs more than the 2 MiB of a spawned thread in a
    /// debug build, whatever thread the caller is on.
    pub fn parse(text: &str) -> Result<Trace, TraceError> {
        const STACK: usize = 16 << 20;
        std::thread::scope(|s| {
            let reader = std::thread::Builder::new()
                .name("trace reader".into())
                .stack_size(STACK)
                .spawn_scoped(s, || Trace::parse_here(text));
            match reader {
                Ok(r) => r.join().unwrap_or_else(|_| {
                    Err(TraceError::Reader(
                        "the trace reader stopped unexpectedly (a bug in opal: please report it)"
                            .into(),
                    ))
                }),
                Err(e) => Err(TraceError::Reader(format!(
                    "cannot start a thread to read the trace: {e}"
                ))),
            }
        })
    }

    fn parse_here(text: &str) -> Result<Trace, TraceError> {
        use serde::Deserialize;
        let place = |e: serde_json::Error| {
            // `serde_json` ends its message with the place; it is said first here.
            let msg = e.to_string();
            let msg = msg
                .strip_suffix(&format!(" at line {} column {}", e.line(), e.column()))
                .unwrap_or(&msg);
            TraceError::Json {
                line: e.line(),
                column: e.column(),
                msg: msg.to_string(),
            }
        };
        let mut de = serde_json::Deserializer::from_str(text);
        de.disable_recursion_limit();
        let t = Trace::deserialize(&mut de).map_err(place)?;
        de.end().map_err(place)?;
        if t.version != 1 {
            return Err(TraceError::Version(t.version));
        }
        t.check().map_err(|(part, msg)| TraceError::Invalid {
            at: t.at(part, Some(&Lines::of(text))),
            msg,
        })?;
        Ok(t)
    }

    /// Whether `--replay` will read every argument back: the first that it will not, by its
    /// index in `events`, and why. Run before a recording is written, so a trace is refused when
    /// it is made, naming the call, not when it is replayed.
    pub fn check_recordable(&self) -> Result<(), (usize, String)> {
        self.events
            .iter()
            .enumerate()
            .try_for_each(|(i, e)| check_arg(&e.arg).map_err(|msg| (i, msg)))
    }

    /// What can be checked without the program (see [`Trace::check`]); the error names the
    /// event by its number.
    pub fn validate(&self) -> Result<(), TraceError> {
        self.check().map_err(|(part, msg)| TraceError::Invalid {
            at: self.at(part, None),
            msg,
        })
    }

    /// `trace event 5 (line 42, label 5.6.6.6, `ask`)`, or `trace (line 4)`; the lines when the
    /// text is at hand.
    fn at(&self, part: Part, lines: Option<&Lines>) -> String {
        match part {
            Part::Event(i) => {
                let line = lines
                    .and_then(|l| l.events.get(i))
                    .map(|l| format!("line {l}, "))
                    .unwrap_or_default();
                match self.events.get(i) {
                    Some(e) => format!(
                        "trace event {} ({line}label {}, `{}`)",
                        i + 1,
                        e.label,
                        e.external
                    ),
                    None => format!("trace event {}", i + 1),
                }
            }
            Part::Strategy => match lines.and_then(|l| l.strategy) {
                Some(l) => format!("trace (line {l})"),
                None => "trace".to_string(),
            },
        }
    }

    /// The strategy is one this opal has; every time is a number of milliseconds within a day and
    /// no call resolves before it is dispatched; every argument is a primitive expression and
    /// every result an OPAL expression (a list of literals for a stream's chunk), unless the event
    /// records an error; no event is there twice, and each stream's chunks run 0, 1, … with
    /// `partial` on all but the last (a stream without its end would leave its task waiting for
    /// ever). Checked at load, so a broken event is reported as itself, not as the events a
    /// failed run never reached.
    fn check(&self) -> Result<(), Invalid> {
        if crate::machine::strategy::Strategy::parse(&self.strategy).is_none() {
            let msg = format!("`strategy` is \"{}\"; a trace is recorded under \"opportunistic\", \"cbv\" or \"lazy\"", self.strategy);
            return Err((Part::Strategy, msg));
        }
        let mut by_label: std::collections::HashMap<&str, Vec<(usize, &Event)>> =
            Default::default();
        for (i, e) in self.events.iter().enumerate() {
            check_event(e).map_err(|msg| (Part::Event(i), msg))?;
            by_label.entry(e.label.as_str()).or_default().push((i, e));
        }
        // In file order, so the first broken event is the one reported.
        let mut labels: Vec<(&str, Vec<(usize, &Event)>)> = by_label.into_iter().collect();
        labels.sort_by_key(|(_, evs)| evs.first().map(|(i, _)| *i));
        for (label, evs) in labels {
            check_stream(label, &evs)?;
        }
        Ok(())
    }
}

const TIME_RULE: &str = "a time must be a number of milliseconds from 0 to 86400000 (a day)";

/// One event on its own: times, argument, result.
fn check_event(e: &Event) -> Result<(), String> {
    use crate::world::number_text;
    for (key, ms) in [
        ("dispatched_at_ms", e.dispatched_at_ms),
        ("resolved_at_ms", e.resolved_at_ms),
    ] {
        if !(0.0..=crate::world::MAX_MS).contains(&ms) {
            return Err(format!("`{key}` is {}: {TIME_RULE}", number_text(ms)));
        }
    }
    if e.resolved_at_ms < e.dispatched_at_ms {
        return Err(format!(
            "resolved at {} ms, before it was dispatched at {} ms (`resolved_at_ms` < `dispatched_at_ms`); a call resolves after its dispatch",
            number_text(e.resolved_at_ms),
            number_text(e.dispatched_at_ms)
        ));
    }
    check_arg(&e.arg)?;
    if e.error.is_some() {
        return Ok(());
    }
    // A stream's chunk (or a partial result) is replayed as the literals of a list; anything
    // else as an OPAL expression, compiled as a world file's result is.
    if e.chunk.is_some() || e.partial {
        if list_items(&e.result).is_none() {
            let why = crate::syntax::parser::parse_expr_source(&e.result)
                .err()
                .and_then(|ds| ds.first().map(|d| format!(" ({})", d.message)));
            return Err(format!(
                "`result` `{}` of a stream's chunk is not a list of literals{}; write e.g. [\"a\", \"b\"]",
                crate::diag::clip(&e.result),
                why.unwrap_or_default()
            ));
        }
    } else if crate::world::parse_pexp(&e.result).is_err() {
        crate::machine::results::compile_result_source(&e.result).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The events of one label: one call, or the chunks of one stream.
fn check_stream(label: &str, evs: &[(usize, &Event)]) -> Result<(), Invalid> {
    if evs.len() == 1 && evs[0].1.chunk.is_none() {
        return Ok(());
    }
    if let Some((i, _)) = evs
        .iter()
        .skip(1)
        .find(|(_, e)| e.chunk.is_none())
        .or_else(|| evs.iter().find(|(_, e)| e.chunk.is_none()))
    {
        return Err((
            Part::Event(*i),
            format!("label {label} has another event; a call resolves once (only a stream's chunks share a label, numbered by `chunk`)"),
        ));
    }
    let mut chunks: Vec<(u32, usize, &Event)> = evs
        .iter()
        .map(|(i, e)| (e.chunk.unwrap_or(0), *i, *e))
        .collect();
    chunks.sort_by_key(|c| (c.0, c.1));
    if let Some(w) = chunks.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err((
            Part::Event(w[1].1),
            format!(
                "chunk {} of the stream at label {label} is there twice (chunks run 0, 1, 2, …)",
                w[1].0
            ),
        ));
    }
    for (want, (chunk, i, e)) in chunks.iter().enumerate() {
        let (want, i) = (want as u32, *i);
        if *chunk != want {
            return Err((Part::Event(i), format!("chunk {chunk} of the stream at label {label} comes after a missing chunk {want} (chunks run 0, 1, 2, …)")));
        }
        if let Some((_, _, prev)) = want.checked_sub(1).and_then(|w| chunks.get(w as usize)) {
            if e.resolved_at_ms < prev.resolved_at_ms {
                let msg = format!(
                    "chunk {chunk} of the stream at label {label} arrives at {} ms, before chunk {} ({} ms); a stream's chunks arrive in order",
                    e.resolved_at_ms,
                    chunk - 1,
                    prev.resolved_at_ms
                );
                return Err((Part::Event(i), msg));
            }
        }
        if e.external != chunks[0].2.external {
            return Err((
                Part::Event(i),
                format!(
                    "chunk {chunk} of the stream at label {label} is from `{}`, chunk 0 from `{}`",
                    e.external, chunks[0].2.external
                ),
            ));
        }
        let last = want as usize + 1 == chunks.len();
        if last && e.partial && e.error.is_none() {
            let msg = format!(
                "the stream at label {label} stops after chunk {chunk}, which is marked `partial` (the recording was cut off?); the replay would wait for ever"
            );
            return Err((Part::Event(i), msg));
        }
        if !last && !e.partial {
            return Err((Part::Event(i), format!("chunk {chunk} of the stream at label {label} is not `partial`, but chunk {} follows it", chunk + 1)));
        }
    }
    Ok(())
}

/// `["a", "b"]` → its literal elements: what a recorded stream chunk delivers (a negative
/// number or a handle too, as the recorder prints them).
pub(crate) fn list_items(src: &str) -> Option<Vec<Prim>> {
    let e = crate::syntax::parser::parse_expr_source(src).ok()?;
    let crate::syntax::ast::ExprKind::List(es) = e.kind else {
        return None;
    };
    es.iter()
        .map(|x| match crate::world::to_pexp(x)? {
            PExp::Prim(p) => Some(p),
            _ => None,
        })
        .collect()
}

/// Where the parts of a trace's text are, as lines from 1.
struct Lines {
    /// The line on which each element of the top-level `events` array starts.
    events: Vec<usize>,
    /// The line of the top-level `strategy` key.
    strategy: Option<usize>,
}

impl Lines {
    /// The text is JSON that already parsed; this scan keeps a depth counter instead of
    /// recursing, so it costs one pass and no stack whatever the nesting.
    fn of(text: &str) -> Lines {
        let b = text.as_bytes();
        let (mut depth, mut line, mut i) = (0usize, 1usize, 0usize);
        let (mut key_events, mut in_events) = (false, false);
        let mut lines = Lines {
            events: Vec::new(),
            strategy: None,
        };
        while i < b.len() {
            match b[i] {
                b'\n' => line += 1,
                b'"' => {
                    let start = i + 1;
                    i += 1;
                    while i < b.len() && b[i] != b'"' {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                    // A string of the top-level object: a key, or a value after its key (so
                    // the last `"strategy"` is the key, or on the key's line).
                    if depth == 1 {
                        let s = text.get(start..i);
                        key_events = s == Some("events");
                        if s == Some("strategy") {
                            lines.strategy = Some(line);
                        }
                    }
                }
                b'{' | b'[' => {
                    if in_events && depth == 2 {
                        lines.events.push(line);
                    }
                    depth += 1;
                    in_events |= depth == 2 && b[i] == b'[' && key_events;
                }
                b'}' | b']' => {
                    depth = depth.saturating_sub(1);
                    in_events &= depth >= 2;
                }
                _ => {}
            }
            i += 1;
        }
        lines
    }
}
