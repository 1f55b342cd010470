//! HTTP for the live externals: sending a request with retries (`send`, shared with `llm`),
//! and the externals `http_get url | (url, headers)` (readonly, retried on 429 and 5xx) and
//! `http_post (url, body) | (url, body, headers)` (sequential, never retried: a POST may have
//! taken effect). Both answer the response body as a string and fail on an HTTP error status.

use crate::retry::{self, Log};
use crate::LlmConfig;
use opal_core::ir::{PExp, Prim};
use opal_core::machine::live::LiveCall;
use std::rc::Rc;
use std::time::Duration;
use tokio::time::Instant;

/// The largest response body `http_get`/`http_post` take: the body is one string in memory.
pub const MAX_BODY: usize = 64 << 20;

/// How a request is sent: the deadline of the whole call, the longest silence, the retries.
pub struct Policy {
    pub deadline: Instant,
    pub idle: Duration,
    pub retries: u32,
}

impl Policy {
    pub fn new(cfg: &LlmConfig, retried: bool) -> Policy {
        Policy {
            deadline: Instant::now() + cfg.timeout,
            idle: cfg.idle,
            retries: if retried { cfg.retries } else { 0 },
        }
    }

    /// The longest the next wait may take: the idle limit, or what is left of the call.
    pub fn next_wait(&self) -> Duration {
        self.idle
            .min(self.deadline.saturating_duration_since(Instant::now()))
    }

    /// Why a wait ended without an answer, naming the limit that ended it.
    pub fn timed_out(&self, what: &str, waiting_for: &str) -> String {
        if Instant::now() >= self.deadline {
            format!("{what}: the call took longer than its limit while waiting for {waiting_for} (OPAL_LLM_TIMEOUT_MS)")
        } else {
            format!(
                "{what}: nothing arrived for {} ms while waiting for {waiting_for} (OPAL_LLM_IDLE_TIMEOUT_MS)",
                self.idle.as_millis()
            )
        }
    }
}

/// Sends the request `build` makes until the server answers with a success, a status that is
/// not worth retrying, or the retries run out; returns the successful response.
pub async fn send(
    log: &Log,
    what: &str,
    url: &str,
    policy: &Policy,
    build: impl Fn() -> reqwest::RequestBuilder,
) -> Result<reqwest::Response, String> {
    let mut retry = 0;
    loop {
        log.requests.set(log.requests.get() + 1);
        let resp = match tokio::time::timeout(policy.next_wait(), build().send()).await {
            Err(_) => return Err(policy.timed_out(what, &format!("a response from {url}"))),
            Ok(Err(e)) => return Err(format!("{what}: cannot reach {url}: {}", error_chain(&e))),
            Ok(Ok(r)) => r,
        };
        let status = resp.status();
        if status.is_success() {
            return Ok(resp);
        }
        let retry_after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let text = error_body(resp, policy).await;
        let why = format!("HTTP {status} from {url}: {}", server_message(&text));
        let wait = retry::wait(retry + 1, retry_after.as_deref());
        let tried = match retry {
            0 => String::new(),
            1 => " (after 1 retry)".to_string(),
            n => format!(" (after {n} retries)"),
        };
        if wait.is_none() && retry::retryable(status) && retry < policy.retries {
            let after = retry_after.as_deref().unwrap_or_default().trim();
            return Err(format!("{what}: {why}; the server asked to retry after {after} s, longer than opal waits (120 s){tried}"));
        }
        match wait {
            Some(w) if retry::retryable(status) && retry < policy.retries => {
                if Instant::now() + w >= policy.deadline {
                    return Err(format!(
                        "{what}: {why}; no time left to retry{tried} (OPAL_LLM_TIMEOUT_MS)"
                    ));
                }
                retry += 1;
                log.retrying(what, &format!("HTTP {status}"), retry, policy.retries, w);
                tokio::time::sleep(w).await;
            }
            _ => return Err(format!("{what}: {why}{tried}")),
        }
    }
}

/// The start of an error response's body (for its message), within the idle limit.
async fn error_body(mut resp: reqwest::Response, policy: &Policy) -> String {
    const KEPT: usize = 64 << 10;
    let mut bytes = Vec::new();
    while bytes.len() < KEPT {
        match tokio::time::timeout(policy.next_wait(), resp.chunk()).await {
            Ok(Ok(Some(b))) => bytes.extend_from_slice(&b),
            _ => break,
        }
    }
    bytes.truncate(KEPT);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Starts `http_get` or `http_post`.
pub fn start(
    client: reqwest::Client,
    cfg: &LlmConfig,
    log: Rc<Log>,
    ext: &str,
    arg: &PExp,
) -> LiveCall {
    let request = request(ext, arg);
    let policy = Policy::new(cfg, ext == "http_get");
    let what = ext.to_string();
    LiveCall::Value(Box::pin(async move {
        let (url, body, headers) = request?;
        let resp = send(&log, &what, &url, &policy, || {
            let mut r = match &body {
                None => client.get(&url),
                Some((b, json)) => {
                    let r = client.post(&url).body(b.clone());
                    if *json {
                        r.header("content-type", "application/json")
                    } else {
                        r
                    }
                }
            };
            for (k, v) in &headers {
                r = r.header(k, v);
            }
            r
        })
        .await?;
        read_body(resp, &what, &url, &policy)
            .await
            .map(|s| PExp::str(&s))
    }))
}

/// A response's body as text, within the limits: `MAX_BODY` bytes, UTF-8.
async fn read_body(
    mut resp: reqwest::Response,
    what: &str,
    url: &str,
    policy: &Policy,
) -> Result<String, String> {
    let mut bytes = Vec::new();
    loop {
        match tokio::time::timeout(policy.next_wait(), resp.chunk()).await {
            Err(_) => return Err(policy.timed_out(what, &format!("the body from {url}"))),
            Ok(Err(e)) => {
                return Err(format!(
                    "{what}: the connection to {url} broke: {}",
                    error_chain(&e)
                ))
            }
            Ok(Ok(None)) => break,
            Ok(Ok(Some(b))) => bytes.extend_from_slice(&b),
        }
        if bytes.len() > MAX_BODY {
            return Err(format!(
                "{what}: the body from {url} is over {} MiB",
                MAX_BODY >> 20
            ));
        }
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{what}: the body from {url} is not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        )
    })
}

type Request = (String, Option<(String, bool)>, Vec<(String, String)>);

/// The URL, the body (with whether it is JSON) and the headers of a call, or why not.
fn request(ext: &str, arg: &PExp) -> Result<Request, String> {
    let usage = if ext == "http_get" {
        "http_get url, or http_get (url, headers) with headers a dictionary of strings"
    } else {
        "http_post (url, body), or http_post (url, body, headers) with headers a dictionary of strings"
    };
    let parts: Vec<&PExp> = match arg {
        PExp::Tuple(xs) => xs.iter().collect(),
        one => vec![one],
    };
    let (url, body, headers) = match (ext, parts.as_slice()) {
        ("http_get", [u]) => (*u, None, None),
        ("http_get", [u, h]) => (*u, None, Some(*h)),
        ("http_post", [u, b]) => (*u, Some(*b), None),
        ("http_post", [u, b, h]) => (*u, Some(*b), Some(*h)),
        _ => return Err(format!("{ext} needs {usage}; got {arg}")),
    };
    let url = match url {
        PExp::Prim(Prim::Str(s)) if s.starts_with("http://") || s.starts_with("https://") => {
            s.to_string()
        }
        _ => return Err(format!("{ext} needs an http:// or https:// URL; got {url}")),
    };
    let body = match body {
        None => None,
        Some(PExp::Prim(Prim::Str(s))) => Some((s.to_string(), false)),
        Some(v) => Some((
            opal_core::machine::data::to_json(v)
                .map_err(|e| format!("{ext}: the body cannot be sent as JSON: {e}"))?
                .to_string(),
            true,
        )),
    };
    let headers = match headers {
        None => Vec::new(),
        Some(PExp::Dict(kvs)) => kvs
            .iter()
            .map(|(k, v)| match (k, v) {
                (PExp::Prim(Prim::Str(k)), PExp::Prim(Prim::Str(v)))
                    if reqwest::header::HeaderName::from_bytes(k.as_bytes()).is_ok()
                        && reqwest::header::HeaderValue::from_str(v).is_ok() =>
                {
                    Ok((k.to_string(), v.to_string()))
                }
                (PExp::Prim(Prim::Str(k)), PExp::Prim(Prim::Str(_))) => Err(format!(
                    "{ext}: the header {k:?} is not a valid HTTP header name with a value of visible characters"
                )),
                _ => Err(format!(
                    "{ext}: a header is a string key and a string value; got {k}: {v}"
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(h) => return Err(format!("{ext} needs {usage}; the headers are {h}")),
    };
    Ok((url, body, headers))
}

/// The `error.message` of an OpenAI-style error body, else the body itself, shortened.
pub fn server_message(body: &str) -> String {
    let v: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let msg = v
        .as_ref()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("error"))
                .or_else(|| v.get("message"))
        })
        .and_then(|m| m.as_str().map(str::to_string));
    clip(msg.as_deref().unwrap_or(body.trim()), 300)
}

pub fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    format!("{}…", s.chars().take(n).collect::<String>())
}

pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(s: &str) -> PExp {
        PExp::str(s)
    }

    #[test]
    fn requests_from_arguments() {
        let (url, body, headers) = request("http_get", &st("https://x.test/a")).expect("get");
        assert_eq!(
            (url.as_str(), body, headers.len()),
            ("https://x.test/a", None, 0)
        );
        let dict = PExp::Dict(vec![(st("Authorization"), st("Bearer k"))]);
        let (_, _, headers) = request(
            "http_get",
            &PExp::Tuple(vec![st("http://x.test"), dict.clone()]),
        )
        .expect("headers");
        assert_eq!(headers, vec![("Authorization".into(), "Bearer k".into())]);
        let json = PExp::Dict(vec![(st("n"), PExp::Prim(Prim::Int(2)))]);
        let (_, body, _) = request(
            "http_post",
            &PExp::Tuple(vec![st("http://x.test"), json, dict]),
        )
        .expect("post");
        assert_eq!(body, Some((r#"{"n":2}"#.into(), true)));
        let (_, body, _) = request(
            "http_post",
            &PExp::Tuple(vec![st("http://x.test"), st("raw")]),
        )
        .expect("post");
        assert_eq!(body, Some(("raw".into(), false)));
    }

    #[test]
    fn bad_arguments_say_what_is_expected() {
        let e = request("http_get", &st("file:///etc/passwd")).unwrap_err();
        assert!(e.contains("http:// or https:// URL"), "{e}");
        let e = request("http_post", &st("http://x.test")).unwrap_err();
        assert!(e.contains("http_post (url, body)"), "{e}");
        let bad = PExp::Dict(vec![(st("k"), PExp::Prim(Prim::Int(1)))]);
        let e = request("http_get", &PExp::Tuple(vec![st("http://x.test"), bad])).unwrap_err();
        assert!(
            e.contains("a header is a string key and a string value"),
            "{e}"
        );
        let bad = PExp::Dict(vec![(st("a b"), st("x"))]);
        let e = request("http_get", &PExp::Tuple(vec![st("http://x.test"), bad])).unwrap_err();
        assert!(e.contains("not a valid HTTP header name"), "{e}");
    }

    #[test]
    fn error_bodies_become_short_messages() {
        assert_eq!(
            server_message(r#"{"error": {"message": "Bad key"}}"#),
            "Bad key"
        );
        assert_eq!(server_message("  plain text \n"), "plain text");
        assert!(server_message(&"x".repeat(1000)).ends_with('…'));
    }
}
