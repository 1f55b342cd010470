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
        PExp::Dict(kvs) => json!({"dict": kvs.iter().map(|(k, v)| json!([pexp_to_json(k), pexp_to_json(v)])).collect::<Vec<_>>()}),
    }
}

pub fn json_to_pexp(v: &serde_json::Value) -> Option<PExp> {
    use serde_json::Value;
    Some(match v {
        Value::Number(n) => match n.as_i64() {
            Some(i) => PExp::Prim(Prim::Int(i)),
            None => PExp::Prim(Prim::Float(n.as_f64()?)),
        },
        Value::String(s) => PExp::Prim(Prim::Str(Arc::from(s.as_str()))),
        Value::Array(xs) => PExp::Tuple(xs.iter().map(json_to_pexp).collect::<Option<Vec<_>>>()?),
        Value::Bool(b) => PExp::Bool(*b),
        Value::Object(o) => {
            if let Some(Value::Array(xs)) = o.get("list") {
                PExp::List(xs.iter().map(json_to_pexp).collect::<Option<Vec<_>>>()?)
            } else if let Some(Value::Array(kvs)) = o.get("dict") {
                let pair = |kv: &Value| match kv {
                    Value::Array(p) if p.len() == 2 => Some((json_to_pexp(&p[0])?, json_to_pexp(&p[1])?)),
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

impl Trace {
    pub fn parse(text: &str) -> Result<Trace, String> {
        let t: Trace = serde_json::from_str(text).map_err(|e| format!("invalid trace file at line {}, column {}: {e}", e.line(), e.column()))?;
        if t.version != 1 {
            return Err(format!("trace version {} is not supported (this opal reads version 1)", t.version));
        }
        t.validate()?;
        Ok(t)
    }

    /// What can be checked without the program: every time is a number of milliseconds within
    /// a day, every argument a primitive expression, no event is there twice, and each stream's
    /// chunks run 0, 1, … with `partial` on all but the last (a stream without its end would
    /// leave its task waiting for ever).
    pub fn validate(&self) -> Result<(), String> {
        let mut by_label: std::collections::HashMap<&str, Vec<(usize, &Event)>> = Default::default();
        for (i, e) in self.events.iter().enumerate() {
            let at = || format!("trace event {} (label {}, `{}`)", i + 1, e.label, e.external);
            for (key, ms) in [("dispatched_at_ms", e.dispatched_at_ms), ("resolved_at_ms", e.resolved_at_ms)] {
                if !(0.0..=crate::world::MAX_MS).contains(&ms) {
                    return Err(format!("{}: `{key}` is {ms}: a time must be a number of milliseconds from 0 to 86400000 (a day)", at()));
                }
            }
            if json_to_pexp(&e.arg).is_none() {
                return Err(format!("{}: `arg` is not a primitive expression (a number, string, handle or a list of them)", at()));
            }
            by_label.entry(e.label.as_str()).or_default().push((i, e));
        }
        for (label, evs) in by_label {
            if evs.len() == 1 && evs[0].1.chunk.is_none() {
                continue;
            }
            if let Some((i, _)) = evs.iter().find(|(_, e)| e.chunk.is_none()) {
                return Err(format!(
                    "trace event {}: label {label} has another event; a call resolves once (only a stream's chunks share a label, numbered by `chunk`)",
                    i + 1
                ));
            }
            let mut chunks: Vec<(u32, usize, &Event)> = evs.iter().map(|(i, e)| (e.chunk.unwrap_or(0), *i, *e)).collect();
            chunks.sort_by_key(|c| (c.0, c.1));
            if let Some(w) = chunks.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(format!("trace event {}: chunk {} of the stream at label {label} is there twice (chunks run 0, 1, 2, …)", w[1].1 + 1, w[1].0));
            }
            for (want, (chunk, i, e)) in chunks.iter().enumerate() {
                let want = want as u32;
                if *chunk != want {
                    return Err(format!(
                        "trace event {}: chunk {chunk} of the stream at label {label} comes after a missing chunk {want} (chunks run 0, 1, 2, …)",
                        i + 1
                    ));
                }
                if let Some((_, _, prev)) = want.checked_sub(1).and_then(|w| chunks.get(w as usize)) {
                    if e.resolved_at_ms < prev.resolved_at_ms {
                        return Err(format!(
                            "trace event {}: chunk {chunk} of the stream at label {label} arrives at {} ms, before chunk {} ({} ms); a stream's chunks arrive in order",
                            i + 1,
                            e.resolved_at_ms,
                            chunk - 1,
                            prev.resolved_at_ms
                        ));
                    }
                }
                if e.external != chunks[0].2.external {
                    return Err(format!(
                        "trace event {}: chunk {chunk} of the stream at label {label} is from `{}`, chunk 0 from `{}`",
                        i + 1,
                        e.external,
                        chunks[0].2.external
                    ));
                }
                let last = want as usize + 1 == chunks.len();
                if last && e.partial && e.error.is_none() {
                    return Err(format!(
                        "trace event {}: the stream at label {label} stops after chunk {chunk}, which is marked `partial` (the recording was cut off?); the replay would wait for ever",
                        i + 1
                    ));
                }
                if !last && !e.partial {
                    return Err(format!(
                        "trace event {}: chunk {chunk} of the stream at label {label} is not `partial`, but chunk {} follows it",
                        i + 1,
                        chunk + 1
                    ));
                }
            }
        }
        Ok(())
    }
}
