//! `llm prompt` and `llm_chat messages`: a streaming client for OpenAI-compatible
//! chat completions. Each streamed delta becomes the next element of the partial list.

use crate::sse::SseParser;
use opal_core::ir::{PExp, Prim};
use opal_core::machine::live::LiveCall;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

#[derive(Clone, Debug)]
pub struct LlmConfig {
    /// Up to and including the API version, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: Option<String>,
    /// Longest wait for the connection, the response headers, or the next streamed bytes.
    pub timeout: Duration,
}

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

impl LlmConfig {
    /// `OPAL_LLM_BASE_URL` (default OpenAI), `OPAL_LLM_API_KEY`, `OPAL_LLM_MODEL`,
    /// `OPAL_LLM_TIMEOUT_MS` (default 60 000).
    pub fn from_env() -> LlmConfig {
        let var = |k: &str| {
            std::env::var(k)
                .ok()
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let timeout_ms = var("OPAL_LLM_TIMEOUT_MS")
            .and_then(|v| v.parse::<u64>().ok())
            .filter(|&ms| ms > 0)
            .unwrap_or(60_000);
        LlmConfig {
            base_url: var("OPAL_LLM_BASE_URL").unwrap_or_else(|| DEFAULT_BASE_URL.into()),
            api_key: var("OPAL_LLM_API_KEY"),
            model: var("OPAL_LLM_MODEL"),
            timeout: Duration::from_millis(timeout_ms),
        }
    }

    /// Why a request cannot be made, in words that say what to set.
    fn problem(&self) -> Option<String> {
        if self.model.is_none() {
            return Some(
                "set OPAL_LLM_MODEL to the model to use (and OPAL_LLM_BASE_URL, OPAL_LLM_API_KEY for the endpoint), or mock `llm` in a world file".into(),
            );
        }
        if self.api_key.is_none() && self.base_url.trim_end_matches('/') == DEFAULT_BASE_URL {
            return Some("set OPAL_LLM_API_KEY to call the OpenAI API (or OPAL_LLM_BASE_URL for another endpoint)".into());
        }
        None
    }
}

/// The chat messages of a call: `llm "prompt"` is one user message; `llm_chat` takes a
/// `(role, content)` pair, or a list or a tuple of pairs (a bare string in it is a user
/// message). A list is what `[m1, m2]` or a list the program built reaches an external as.
pub fn messages(ext: &str, arg: &PExp) -> Result<Vec<(String, String)>, String> {
    let s = |e: &PExp| match e {
        PExp::Prim(Prim::Str(s)) => Some(s.to_string()),
        _ => None,
    };
    let pair = |e: &PExp| match e {
        PExp::Tuple(xs) if xs.len() == 2 => match (s(&xs[0]), s(&xs[1])) {
            (Some(r), Some(c))
                if ["system", "user", "assistant", "developer", "tool"].contains(&r.as_str()) =>
            {
                Some((r, c))
            }
            _ => None,
        },
        _ => s(e).map(|c| ("user".to_string(), c)),
    };
    if ext == "llm" {
        return s(arg)
            .map(|p| vec![("user".into(), p)])
            .ok_or_else(|| format!("llm needs a string prompt, got {arg}"));
    }
    if let Some(m) = pair(arg) {
        return Ok(vec![m]);
    }
    match arg {
        PExp::Tuple(xs) | PExp::List(xs) if !xs.is_empty() => {
            xs.iter().map(|x| pair(x).ok_or_else(|| format!("llm_chat: {x} is not a (role, content) message"))).collect()
        }
        _ => Err(format!("llm_chat needs (role, content) messages, e.g. [(\"system\", \"Be brief.\"), (\"user\", \"Hi\")]; got {arg}")),
    }
}

pub fn start(client: reqwest::Client, cfg: &LlmConfig, ext: &str, arg: &PExp) -> LiveCall {
    let (tx, rx) = unbounded_channel();
    let request = match (cfg.problem(), messages(ext, arg)) {
        (Some(p), _) => Err(format!("{ext}: {p}")),
        (None, Err(e)) => Err(e),
        (None, Ok(m)) => Ok(m),
    };
    let cfg = cfg.clone();
    tokio::task::spawn_local(async move {
        let r = match request {
            Ok(messages) => stream(&client, &cfg, &messages, &tx).await,
            Err(e) => Err(e),
        };
        if let Err(e) = r {
            let _ = tx.send(Err(e));
        }
    });
    LiveCall::Stream(rx)
}

/// Sends the request and waits for a successful status: the response whose body streams the
/// events, or why not (no answer in time, no connection, an HTTP error with the server's words).
async fn open_stream(
    client: &reqwest::Client,
    cfg: &LlmConfig,
    url: &str,
    messages: &[(String, String)],
) -> Result<reqwest::Response, String> {
    let body = serde_json::json!({
        "model": cfg.model,
        "stream": true,
        "messages": messages.iter().map(|(r, c)| serde_json::json!({"role": r, "content": c})).collect::<Vec<_>>(),
    });
    let mut req = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(body.to_string());
    if let Some(k) = &cfg.api_key {
        req = req.bearer_auth(k);
    }
    let ms = cfg.timeout.as_millis();
    let resp = match tokio::time::timeout(cfg.timeout, req.send()).await {
        Err(_) => {
            return Err(format!(
                "llm: no response from {url} within {ms} ms (OPAL_LLM_TIMEOUT_MS)"
            ))
        }
        Ok(Err(e)) => return Err(format!("llm: cannot reach {url}: {}", error_chain(&e))),
        Ok(Ok(r)) => r,
    };
    let status = resp.status();
    if !status.is_success() {
        let text = tokio::time::timeout(cfg.timeout, resp.text())
            .await
            .ok()
            .and_then(|r| r.ok())
            .unwrap_or_default();
        return Err(format!(
            "llm: HTTP {status} from {url}: {}",
            server_message(&text)
        ));
    }
    Ok(resp)
}

async fn stream(
    client: &reqwest::Client,
    cfg: &LlmConfig,
    messages: &[(String, String)],
    tx: &UnboundedSender<Result<Prim, String>>,
) -> Result<(), String> {
    let url = format!("{}/chat/completions", cfg.base_url.trim_end_matches('/'));
    let ms = cfg.timeout.as_millis();
    let mut resp = open_stream(client, cfg, &url, messages).await?;
    let mut parser = SseParser::default();
    let mut finished = false;
    let mut chunks = 0usize;
    loop {
        let bytes = match tokio::time::timeout(cfg.timeout, resp.chunk()).await {
            Err(_) => return Err(format!("llm: the stream stalled: nothing arrived for {ms} ms after {chunks} chunk(s) (OPAL_LLM_TIMEOUT_MS)")),
            Ok(Err(e)) => return Err(format!("llm: the connection broke after {chunks} chunk(s): {}", error_chain(&e))),
            Ok(Ok(None)) => break,
            Ok(Ok(Some(b))) => b,
        };
        for ev in parser
            .push(&bytes)
            .map_err(|e| format!("llm: malformed event from {url}: {e}"))?
        {
            if ev.data.trim() == "[DONE]" {
                return Ok(());
            }
            let v = event_json(&ev.data, &url)?;
            if ev.event.as_deref() == Some("error") || v.get("error").is_some() {
                return Err(format!(
                    "llm: the server reported an error: {}",
                    server_message(&ev.data)
                ));
            }
            let choice = v.get("choices").and_then(|c| c.get(0));
            let Some(choice) = choice else {
                return Err(format!(
                    "llm: malformed event from {url} (no `choices`): `{}`",
                    clip(&ev.data, 120)
                ));
            };
            if let Some(text) = choice
                .pointer("/delta/content")
                .and_then(|c| c.as_str())
                .filter(|t| !t.is_empty())
            {
                chunks += 1;
                if tx.send(Ok(Prim::Str(Arc::from(text)))).is_err() {
                    return Ok(()); // the run is over
                }
            }
            finished |= choice.get("finish_reason").is_some_and(|f| !f.is_null());
        }
    }
    if finished && parser.pending().iter().all(|b| b.is_ascii_whitespace()) {
        return Ok(());
    }
    Err(format!(
        "llm: the connection closed before the stream finished, after {chunks} chunk(s)"
    ))
}

/// One event's JSON. `serde_json` stops at 128 levels of nesting, so a server's deeply nested
/// event is a malformed event, not a stack overflow; only its text becomes an OPAL value.
fn event_json(data: &str, url: &str) -> Result<serde_json::Value, String> {
    serde_json::from_str(data)
        .map_err(|_| format!("llm: malformed event from {url}: `{}`", clip(data, 120)))
}

/// The `error.message` of an OpenAI-style error body, else the body itself, shortened.
fn server_message(body: &str) -> String {
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

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    format!("{}…", s.chars().take(n).collect::<String>())
}

fn error_chain(e: &dyn std::error::Error) -> String {
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
        PExp::Prim(Prim::Str(Arc::from(s)))
    }

    #[test]
    fn messages_from_arguments() {
        assert_eq!(
            messages("llm", &st("hi")).unwrap(),
            vec![("user".to_string(), "hi".to_string())]
        );
        assert!(messages("llm", &PExp::Prim(Prim::Int(3)))
            .unwrap_err()
            .contains("string prompt"));
        let one = PExp::Tuple(vec![st("system"), st("be brief")]);
        assert_eq!(
            messages("llm_chat", &one).unwrap(),
            vec![("system".to_string(), "be brief".to_string())]
        );
        let two = PExp::Tuple(vec![one.clone(), st("hello")]);
        assert_eq!(messages("llm_chat", &two).unwrap().len(), 2);
        assert!(messages("llm_chat", &PExp::Tuple(vec![])).is_err());
        assert!(messages(
            "llm_chat",
            &PExp::Tuple(vec![one, PExp::Prim(Prim::Int(1))])
        )
        .unwrap_err()
        .contains("not a (role, content)"));
    }

    /// Issue 28: `llm_chat [m1, m2]` (the machine hands a Church list over as `PExp::List`),
    /// as docs/language.md says, in the order of the list.
    #[test]
    fn messages_from_a_list() {
        let m = |r: &str, c: &str| PExp::Tuple(vec![st(r), st(c)]);
        let owned = |v: &[(&str, &str)]| {
            v.iter()
                .map(|(r, c)| (r.to_string(), c.to_string()))
                .collect::<Vec<_>>()
        };
        let list = PExp::List(vec![
            m("system", "Be brief."),
            m("user", "Hi"),
            m("assistant", "Hello."),
            st("And you?"),
        ]);
        assert_eq!(
            messages("llm_chat", &list),
            Ok(owned(&[
                ("system", "Be brief."),
                ("user", "Hi"),
                ("assistant", "Hello."),
                ("user", "And you?")
            ]))
        );
        // A list of one message is that message, a list of strings user messages.
        assert_eq!(
            messages("llm_chat", &PExp::List(vec![m("user", "Hi")])),
            Ok(owned(&[("user", "Hi")]))
        );
        assert_eq!(
            messages("llm_chat", &PExp::List(vec![st("a"), st("b")])),
            Ok(owned(&[("user", "a"), ("user", "b")]))
        );
        // The tuple forms are unchanged, and a list says what is wrong with it.
        assert_eq!(
            messages(
                "llm_chat",
                &PExp::Tuple(vec![m("system", "s"), m("user", "u")])
            ),
            Ok(owned(&[("system", "s"), ("user", "u")]))
        );
        assert!(messages("llm_chat", &PExp::List(vec![]))
            .unwrap_err()
            .contains("needs (role, content) messages"));
        let bad_role = PExp::List(vec![m("user", "Hi"), m("wizard", "x")]);
        assert!(messages("llm_chat", &bad_role)
            .unwrap_err()
            .contains("(\"wizard\", \"x\") is not a (role, content) message"));
        let nested = PExp::List(vec![PExp::List(vec![st("user"), st("Hi")])]);
        assert!(messages("llm_chat", &nested).is_err());
        // `llm` still takes a prompt only.
        assert!(messages("llm", &list)
            .unwrap_err()
            .contains("string prompt"));
    }

    /// Issue 29: an event nested 100 000 deep is refused on a thread with little stack.
    #[test]
    fn a_deeply_nested_event_is_malformed_not_a_stack_overflow() {
        let deep = format!("{{\"choices\": [{{\"delta\": {}", "[".repeat(100_000));
        let worker = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || event_json(&deep, "http://x").map(|_| ()));
        let got = worker.expect("spawn").join().expect("no panic");
        assert!(got.is_err_and(|e| e.starts_with("llm: malformed event from http://x")));
    }

    #[test]
    fn error_bodies_become_short_messages() {
        assert_eq!(
            server_message(r#"{"error": {"message": "Invalid API key", "type": "auth"}}"#),
            "Invalid API key"
        );
        assert_eq!(server_message("  upstream timeout \n"), "upstream timeout");
        assert!(server_message(&"x".repeat(1000)).chars().count() <= 301);
    }

    #[test]
    fn missing_configuration_says_what_to_set() {
        let mut c = LlmConfig {
            base_url: DEFAULT_BASE_URL.into(),
            api_key: None,
            model: None,
            timeout: Duration::from_secs(1),
        };
        assert!(c.problem().unwrap().contains("OPAL_LLM_MODEL"));
        c.model = Some("m".into());
        assert!(c.problem().unwrap().contains("OPAL_LLM_API_KEY"));
        c.base_url = "http://127.0.0.1:9/v1".into();
        assert!(c.problem().is_none());
    }
}
