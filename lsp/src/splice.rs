//! Big answers written without tower-lsp-server's `serde_json::Value`.
//!
//! tower-lsp-server turns every result into a `Value` before it writes it: a map per object and
//! 32 bytes per number, built, written and freed. For the whole-file answers of a 50 000-line
//! file that costs more than computing them (28 572 inlay hints: 18 ms to compute, 30–46 ms
//! through a `Value`, 4–6 ms written directly; `opal-bench lsp`). So a handler has the result
//! written on the worker thread that computed it ([`Written::new`]) and answers
//! ([`Splices::answer`]) with a small stand-in that carries a marker; the output pump
//! ([`crate::transport::pump_output`]) puts the written result in place of the stand-in's.
//!
//! The marker holds a number drawn when the server starts and a serial number: text a user
//! typed cannot forge one, and each written result is taken once, by the answer that carries
//! its marker. Every stand-in has its marker in the field it writes first (tower-lsp-server
//! sorts keys), so only the start of an answer is searched. Results whose answer never comes
//! (the session ended, the client stopped reading) are dropped after a minute; a stand-in
//! whose result is gone is answered with an error, never sent as it is.

use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A stand-in's marker is within this many bytes of its answer's start.
const MARKER_WITHIN: usize = 256;
const UNCLAIMED: Duration = Duration::from_secs(60);

/// A result written as JSON on a worker thread (or, if it could not be, the result itself).
pub enum Written<T> {
    Bytes(Vec<u8>),
    Result(T),
}

impl<T: Serialize> Written<T> {
    pub fn new(result: T) -> Written<T> {
        match serde_json::to_vec(&result) {
            Ok(bytes) => Written::Bytes(bytes),
            Err(_) => Written::Result(result),
        }
    }
}

pub struct Splices {
    /// `opal-splice-<random>-`: what every marker of this server starts with.
    prefix: String,
    next: AtomicU64,
    filed: Mutex<HashMap<u64, (Instant, Vec<u8>)>>,
}

impl Default for Splices {
    fn default() -> Splices {
        // A random number from the standard library's per-process hash keys.
        let random = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        Splices {
            prefix: format!("opal-splice-{random:016x}-"),
            next: AtomicU64::new(0),
            filed: Mutex::default(),
        }
    }
}

impl Splices {
    /// The answer for a written result: a stand-in made by `make` from the marker it is filed
    /// under, or the result itself when it could not be written. The handler calls this last,
    /// with nothing awaited after it, so a request cancelled or superseded before files
    /// nothing.
    pub fn answer<T>(&self, written: Written<T>, make: impl FnOnce(String) -> T) -> T {
        match written {
            Written::Bytes(bytes) => make(self.file(bytes)),
            Written::Result(result) => result,
        }
    }

    fn file(&self, bytes: Vec<u8>) -> String {
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        let now = Instant::now();
        let mut filed = self.filed.lock().unwrap_or_else(PoisonError::into_inner);
        filed.retain(|_, (at, _)| now.duration_since(*at) < UNCLAIMED);
        filed.insert(k, (now, bytes));
        format!("{}{k}.", self.prefix)
    }

    /// The body to send for a frame the server wrote: the frame itself, or, for the answer to a
    /// request whose result was filed, that answer with the filed result.
    pub fn splice(&self, body: Vec<u8>) -> Vec<u8> {
        let Some(k) = self.marker_in(&body[..body.len().min(MARKER_WITHIN)]) else {
            return body;
        };
        let Ok(answer) = serde_json::from_slice::<Value>(&body) else {
            return body;
        };
        let Some(id) = answer.get("id").filter(|_| answer.get("result").is_some()) else {
            return body;
        };
        let filed = self
            .filed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&k);
        let mut out = format!(r#"{{"jsonrpc":"2.0","id":{id},"#).into_bytes();
        match filed {
            Some((_, result)) => {
                out.extend_from_slice(br#""result":"#);
                out.extend_from_slice(&result);
            }
            // RequestFailed: the editor may ask again.
            None => {
                out.extend_from_slice(br#""error":{"code":-32803,"message":"opal lsp: the answer waited over a minute to be sent and was dropped; ask again"}"#)
            }
        }
        out.push(b'}');
        out
    }

    fn marker_in(&self, body: &[u8]) -> Option<u64> {
        let p = self.prefix.as_bytes();
        let at = body.windows(p.len()).position(|w| w == p)? + p.len();
        let digits = body[at..].iter().take_while(|b| b.is_ascii_digit()).count();
        (body.get(at + digits) == Some(&b'.')).then_some(())?;
        std::str::from_utf8(&body[at..at + digits])
            .ok()?
            .parse()
            .ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(id: Value, result: Value) -> Vec<u8> {
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "result": result, "id": id}))
            .unwrap_or_default()
    }

    #[test]
    fn a_stand_in_is_replaced_by_its_filed_result_once() {
        let s = Splices::default();
        let big = json!([{"label": "@1", "position": {"line": 2, "character": 17}}]);
        let marker = s
            .answer(Written::new(big.clone()), |m| json!(m))
            .to_string()
            .trim_matches('"')
            .to_string();
        let stand_in = answer(
            json!(7),
            json!([{"label": marker, "position": {"line": 0, "character": 0}}]),
        );
        let sent: Value = serde_json::from_slice(&s.splice(stand_in.clone())).unwrap_or_default();
        assert_eq!(sent, json!({"jsonrpc": "2.0", "id": 7, "result": big}));
        // Taken once: the same stand-in again is an error, not a wrong answer.
        let again: Value = serde_json::from_slice(&s.splice(stand_in)).unwrap_or_default();
        assert_eq!(
            (&again["id"], &again["error"]["code"], again.get("result")),
            (&json!(7), &json!(-32803), None)
        );
    }

    #[test]
    fn other_frames_pass_unchanged() {
        let s = Splices::default();
        let marker = s.file(br#"{"data":[1,2,3]}"#.to_vec());
        // Another server's marker (another random number), a notification, an error answer,
        // and a marker past the start of an answer (text a hover quotes, say).
        let other = Splices::default().file(b"1".to_vec());
        for body in [
            answer(json!(1), json!(other)),
            serde_json::to_vec(&json!({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"message": marker}})).unwrap_or_default(),
            serde_json::to_vec(&json!({"jsonrpc": "2.0", "error": {"code": -32800, "message": marker}, "id": 3})).unwrap_or_default(),
            answer(json!(4), json!(["x".repeat(MARKER_WITHIN), marker])),
        ] {
            assert_eq!(s.splice(body.clone()), body);
        }
        // The filed result is still there for its own stand-in.
        let sent: Value =
            serde_json::from_slice(&s.splice(answer(json!("a"), json!({"resultId": marker}))))
                .unwrap_or_default();
        assert_eq!(
            sent,
            json!({"jsonrpc": "2.0", "id": "a", "result": {"data": [1, 2, 3]}})
        );
    }
}
