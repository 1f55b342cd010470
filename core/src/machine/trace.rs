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
        Value::Object(o) => {
            if let Some(f) = o.get("float") {
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
        Ok(t)
    }
}
