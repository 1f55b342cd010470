//! `llm prompt` and `llm_chat messages`: a streaming client for OpenAI-compatible
//! chat completions. Each streamed delta becomes the next element of the partial list.

use crate::http::{clip, error_chain, send, server_message, Policy};
use crate::retry::Log;
use crate::sse::SseParser;
use opal_core::ir::{PExp, Prim};
use opal_core::machine::live::LiveCall;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

#[derive(Clone, Debug)]
pub struct LlmConfig {
    /// Up to and including the API version, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: Option<String>,
    /// The longest a whole call may take, retries and streaming included (also for `http_*`).
    pub timeout: Duration,
    /// The longest wait for the response's headers or for the next streamed bytes.
    pub idle: Duration,
    /// How many times a request answered 429 or 5xx is sent again.
    pub retries: u32,
}

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

impl LlmConfig {
    /// `OPAL_LLM_BASE_URL` (default OpenAI), `OPAL_LLM_API_KEY`, `OPAL_LLM_MODEL`,
    /// `OPAL_LLM_TIMEOUT_MS` (the whole call, default 600 000), `OPAL_LLM_IDLE_TIMEOUT_MS`
    /// (silence, default 30 000), `OPAL_LLM_RETRIES` (default 3).
    pub fn from_env() -> LlmConfig {
        let var = |k: &str| {
            std::env::var(k)
                .ok()
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let ms = |k: &str, default: u64| {
            let ms = var(k)
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|&ms| ms > 0);
            Duration::from_millis(ms.unwrap_or(default))
        };
        LlmConfig {
            base_url: var("OPAL_LLM_BASE_URL").unwrap_or_else(|| DEFAULT_BASE_URL.into()),
            api_key: var("OPAL_LLM_API_KEY"),
            model: var("OPAL_LLM_MODEL"),
            timeout: ms("OPAL_LLM_TIMEOUT_MS", 600_000),
            idle: ms("OPAL_LLM_IDLE_TIMEOUT_MS", 30_000),
            retries: var("OPAL_LLM_RETRIES")
                .and_then(|v| v.parse::<u32>().ok())
                .unwrap_or(3)
                .min(20),
        }
    }

    /// Why a request cannot be made (`model`: the call's own choice, if it made one), in
    /// words that say what to set.
    fn problem(&self, model: Option<&str>) -> Option<String> {
        if model.or(self.model.as_deref()).is_none() {
            return Some(
                "set OPAL_LLM_MODEL to the model to use (or give the call a \"model\" option; OPAL_LLM_BASE_URL, OPAL_LLM_API_KEY for the endpoint), or mock `llm` in a world file".into(),
            );
        }
        if self.api_key.is_none() && self.base_url.trim_end_matches('/') == DEFAULT_BASE_URL {
            return Some("set OPAL_LLM_API_KEY to call the OpenAI API (or OPAL_LLM_BASE_URL for another endpoint)".into());
        }
        None
    }
}

/// The options a call may give (`llm (prompt, {"temperature": 0.7})`), with the request
/// field each sets.
const OPTIONS: &[&str] = &[
    "model",
    "temperature",
    "max_tokens",
    "stop",
    "json",
    "top_p",
    "seed",
];

/// A call's argument without its options, and the options as request fields: the last part
/// of a tuple when it is a dictionary (`(prompt, options)`, `(messages, options)`).
pub fn options(
    ext: &str,
    arg: &PExp,
) -> Result<(PExp, serde_json::Map<String, serde_json::Value>), String> {
    use serde_json::Value;
    let (rest, dict) = match arg {
        PExp::Tuple(xs) if xs.len() >= 2 => match xs.last() {
            Some(PExp::Dict(kvs)) => {
                let rest = match &xs[..xs.len() - 1] {
                    [one] => one.clone(),
                    more => PExp::Tuple(more.to_vec()),
                };
                (rest, kvs.as_slice())
            }
            _ => return Ok((arg.clone(), Default::default())),
        },
        _ => return Ok((arg.clone(), Default::default())),
    };
    let mut fields = serde_json::Map::new();
    for (k, v) in dict {
        let key = match k {
            PExp::Prim(Prim::Str(k)) if OPTIONS.contains(&&**k) => k.to_string(),
            _ => {
                return Err(format!(
                    "{ext}: unknown option {k}; the options are {}",
                    OPTIONS.join(", ")
                ))
            }
        };
        let number = |v: &PExp| match v {
            PExp::Prim(Prim::Int(i)) => Some(Value::from(*i)),
            PExp::Prim(Prim::Float(f)) => serde_json::Number::from_f64(*f).map(Value::Number),
            _ => None,
        };
        let text = |v: &PExp| match v {
            PExp::Prim(Prim::Str(s)) => Some(Value::from(s.to_string())),
            _ => None,
        };
        let (field, value) = match (key.as_str(), v) {
            ("model", v) => ("model", text(v)),
            ("temperature" | "top_p", v) => (key.as_str(), number(v)),
            ("max_tokens" | "seed", PExp::Prim(Prim::Int(i))) => {
                (key.as_str(), Some(Value::from(*i)))
            }
            ("stop", PExp::List(xs) | PExp::Tuple(xs)) => (
                "stop",
                xs.iter()
                    .map(text)
                    .collect::<Option<Vec<_>>>()
                    .map(Value::Array),
            ),
            ("stop", v) => ("stop", text(v)),
            ("json", PExp::Bool(true)) => (
                "response_format",
                Some(serde_json::json!({"type": "json_object"})),
            ),
            ("json", PExp::Bool(false)) => continue,
            _ => (key.as_str(), None),
        };
        let Some(value) = value else {
            let wants = match key.as_str() {
                "model" => "a string",
                "temperature" | "top_p" => "a number",
                "max_tokens" | "seed" => "an integer",
                "stop" => "a string or a list of strings",
                _ => "true or false",
            };
            return Err(format!(
                "{ext}: the option \"{key}\" needs {wants}; got {v}"
            ));
        };
        fields.insert(field.to_string(), value);
    }
    Ok((rest, fields))
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

pub fn start(
    client: reqwest::Client,
    cfg: &LlmConfig,
    log: Rc<Log>,
    ext: &str,
    arg: &PExp,
) -> LiveCall {
    let (tx, rx) = unbounded_channel();
    let request = options(ext, arg).and_then(|(rest, fields)| {
        let model = fields.get("model").and_then(|m| m.as_str());
        if let Some(p) = cfg.problem(model) {
            return Err(format!("{ext}: {p}"));
        }
        Ok((messages(ext, &rest)?, fields))
    });
    let cfg = cfg.clone();
    let what = ext.to_string();
    tokio::task::spawn_local(async move {
        let r = match request {
            Ok((messages, fields)) => {
                stream(&client, &cfg, &log, &what, &messages, fields, &tx).await
            }
            Err(e) => Err(e),
        };
        if let Err(e) = r {
            let _ = tx.send(Err(e));
        }
    });
    LiveCall::Stream(rx)
}

/// The request's body: the model, streaming, the messages and the call's options.
fn body(
    cfg: &LlmConfig,
    messages: &[(String, String)],
    mut fields: serde_json::Map<String, serde_json::Value>,
) -> String {
    use serde_json::{json, Value};
    if !fields.contains_key("model") {
        fields.insert("model".into(), json!(cfg.model));
    }
    fields.insert("stream".into(), Value::Bool(true));
    let messages = messages
        .iter()
        .map(|(r, c)| json!({"role": r, "content": c}));
    fields.insert("messages".into(), Value::Array(messages.collect()));
    Value::Object(fields).to_string()
}

async fn stream(
    client: &reqwest::Client,
    cfg: &LlmConfig,
    log: &Log,
    what: &str,
    messages: &[(String, String)],
    fields: serde_json::Map<String, serde_json::Value>,
    tx: &UnboundedSender<Result<Prim, String>>,
) -> Result<(), String> {
    let url = format!("{}/chat/completions", cfg.base_url.trim_end_matches('/'));
    let policy = Policy::new(cfg, true);
    let body = body(cfg, messages, fields);
    let mut resp = send(log, what, &url, &policy, || {
        let req = client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "text/event-stream")
            .body(body.clone());
        match &cfg.api_key {
            Some(k) => req.bearer_auth(k),
            None => req,
        }
    })
    .await?;
    let mut parser = SseParser::default();
    let mut finished = false;
    let mut chunks = 0usize;
    loop {
        let bytes = match tokio::time::timeout(policy.next_wait(), resp.chunk()).await {
            Err(_) => {
                let waiting = format!("the next chunk after {chunks} chunk(s)");
                return Err(format!(
                    "{}, the stream stalled",
                    policy.timed_out(what, &waiting)
                ));
            }
            Ok(Err(e)) => {
                return Err(format!(
                    "{what}: the connection broke after {chunks} chunk(s): {}",
                    error_chain(&e)
                ))
            }
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
    fn missing_configuration_says_what_to_set() {
        let mut c = LlmConfig {
            base_url: DEFAULT_BASE_URL.into(),
            api_key: None,
            model: None,
            timeout: Duration::from_secs(1),
            idle: Duration::from_secs(1),
            retries: 0,
        };
        assert!(c.problem(None).unwrap().contains("OPAL_LLM_MODEL"));
        assert!(c.problem(Some("m")).unwrap().contains("OPAL_LLM_API_KEY"));
        c.model = Some("m".into());
        assert!(c.problem(None).unwrap().contains("OPAL_LLM_API_KEY"));
        c.base_url = "http://127.0.0.1:9/v1".into();
        assert!(c.problem(None).is_none());
    }

    #[test]
    fn options_become_request_fields() {
        let opts = PExp::Dict(vec![
            (st("temperature"), PExp::Prim(Prim::Float(0.7))),
            (st("max_tokens"), PExp::Prim(Prim::Int(64))),
            (st("stop"), PExp::List(vec![st("\n\n")])),
            (st("json"), PExp::Bool(true)),
            (st("model"), st("small")),
        ]);
        let (rest, fields) = options("llm", &PExp::Tuple(vec![st("hi"), opts])).expect("options");
        assert_eq!(rest, st("hi"));
        let cfg = LlmConfig {
            base_url: "http://x".into(),
            api_key: None,
            model: Some("default".into()),
            timeout: Duration::from_secs(1),
            idle: Duration::from_secs(1),
            retries: 0,
        };
        let sent: serde_json::Value =
            serde_json::from_str(&body(&cfg, &[("user".into(), "hi".into())], fields))
                .expect("json");
        assert_eq!(
            sent,
            serde_json::json!({"model": "small", "stream": true, "temperature": 0.7,
                "max_tokens": 64, "stop": ["\n\n"], "response_format": {"type": "json_object"},
                "messages": [{"role": "user", "content": "hi"}]})
        );
        // Messages and options: the options are the last part.
        let m = |r: &str, c: &str| PExp::Tuple(vec![st(r), st(c)]);
        let chat = PExp::Tuple(vec![PExp::List(vec![m("user", "a")]), PExp::Dict(vec![])]);
        let (rest, fields) = options("llm_chat", &chat).expect("chat");
        assert_eq!((rest, fields.len()), (PExp::List(vec![m("user", "a")]), 0));
        // A pair of messages is not taken for options.
        let pair = PExp::Tuple(vec![m("system", "s"), m("user", "u")]);
        assert_eq!(options("llm_chat", &pair).expect("pair").0, pair);
    }

    #[test]
    fn bad_options_say_what_they_need() {
        let call = |k: &str, v: PExp| {
            options(
                "llm",
                &PExp::Tuple(vec![st("hi"), PExp::Dict(vec![(st(k), v)])]),
            )
            .unwrap_err()
        };
        assert!(call("temprature", PExp::Prim(Prim::Int(1)))
            .contains("unknown option \"temprature\"; the options are model, temperature"));
        assert!(call("temperature", st("hot")).contains("\"temperature\" needs a number"));
        assert!(call("max_tokens", PExp::Prim(Prim::Float(1.5))).contains("needs an integer"));
        assert!(call("json", st("yes")).contains("needs true or false"));
    }
}
