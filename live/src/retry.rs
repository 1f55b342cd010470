//! Retrying HTTP requests a server refused for now (429 Too Many Requests, 5xx): exponential
//! backoff with jitter, or the server's `Retry-After`, at most `OPAL_LLM_RETRIES` times. Each
//! retry is said on stderr as it happens and counted for `--stats` (`Log`).

use opal_core::machine::live::Printer;
use std::cell::{Cell, RefCell};
use std::time::Duration;

/// The first wait; each retry doubles it, up to `MAX_BACKOFF`.
const BASE_BACKOFF: Duration = Duration::from_millis(500);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// The longest `Retry-After` honoured: a server asking for more fails the call instead.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);

/// Should a response with this status be tried again?
pub fn retryable(status: reqwest::StatusCode) -> bool {
    status == reqwest::StatusCode::TOO_MANY_REQUESTS || status.is_server_error()
}

/// How long to wait before retry number `retry` (1 for the first): the server's
/// `Retry-After` seconds when it sent them, else `BASE_BACKOFF · 2^(retry-1)` (capped) times
/// a jitter in [0.5, 1), so clients refused together do not come back together. `None`: the
/// server asked for longer than `MAX_RETRY_AFTER`.
pub fn wait(retry: u32, retry_after: Option<&str>) -> Option<Duration> {
    if let Some(secs) = retry_after.and_then(|v| v.trim().parse::<u64>().ok()) {
        let d = Duration::from_secs(secs);
        return (d <= MAX_RETRY_AFTER).then_some(d);
    }
    let backoff = BASE_BACKOFF
        .saturating_mul(1 << retry.saturating_sub(1).min(16))
        .min(MAX_BACKOFF);
    Some(backoff.mul_f64(0.5 + 0.5 * unit_random()))
}

/// A number in [0, 1) that differs between calls and processes (std's hasher keys are random
/// per process; the counter makes successive calls differ).
fn unit_random() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    thread_local! {
        static STATE: (std::collections::hash_map::RandomState, Cell<u64>) = Default::default();
    }
    STATE.with(|(keys, n)| {
        n.set(n.get() + 1);
        let mut h = keys.build_hasher();
        h.write_u64(n.get());
        (h.finish() >> 11) as f64 / (1u64 << 53) as f64
    })
}

/// What the live externals say while they run (retries, on the run's stderr) and count for
/// `--stats`.
#[derive(Default)]
pub struct Log {
    printer: RefCell<Option<Printer>>,
    /// HTTP requests sent (by `llm`, `llm_chat`, `http_get`, `http_post`), retries included.
    pub requests: Cell<u64>,
    pub retries: Cell<u64>,
}

impl Log {
    pub fn attach(&self, printer: Printer) {
        *self.printer.borrow_mut() = Some(printer);
    }

    /// Says a retry on stderr (the run's, or the debugger's output) and counts it.
    pub fn retrying(&self, what: &str, why: &str, retry: u32, of: u32, wait: Duration) {
        self.retries.set(self.retries.get() + 1);
        let text = format!(
            "opal: {what}: {why}; retry {retry} of {of} in {:.1} s\n",
            wait.as_secs_f64()
        );
        match &*self.printer.borrow() {
            Some(p) => p.print("stderr", &text),
            None => eprint!("{text}"),
        }
    }

    /// `--stats` lines.
    pub fn stats(&self) -> Vec<String> {
        if self.requests.get() == 0 {
            return Vec::new();
        }
        vec![format!(
            "http requests: {} ({} retried)",
            self.requests.get(),
            self.retries.get()
        )]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_jitter_and_honours_retry_after() {
        for retry in 1..=4 {
            let full = BASE_BACKOFF * (1 << (retry - 1));
            for _ in 0..50 {
                let w = wait(retry, None).expect("a wait");
                assert!(w >= full / 2 && w < full, "retry {retry}: {w:?}");
            }
        }
        assert_eq!(wait(30, None).map(|w| w < MAX_BACKOFF), Some(true));
        assert_eq!(wait(1, Some("3")), Some(Duration::from_secs(3)));
        assert_eq!(wait(1, Some(" 0 ")), Some(Duration::ZERO));
        assert_eq!(wait(1, Some("100000")), None, "too long: fail instead");
        // An HTTP date is not read: the backoff applies.
        assert!(wait(1, Some("Wed, 21 Oct 2015 07:28:00 GMT")).is_some_and(|w| w < BASE_BACKOFF));
    }

    #[test]
    fn only_429_and_server_errors_are_retried() {
        use reqwest::StatusCode as S;
        assert!(retryable(S::TOO_MANY_REQUESTS) && retryable(S::SERVICE_UNAVAILABLE));
        assert!(retryable(S::INTERNAL_SERVER_ERROR) && retryable(S::BAD_GATEWAY));
        assert!(!retryable(S::UNAUTHORIZED) && !retryable(S::BAD_REQUEST) && !retryable(S::OK));
    }
}
