//! A guard in front of tower-lsp-server's transport. Its framed reader stops for good at the
//! first message it cannot decode (tokio-util ends a stream after an error), so one malformed
//! message would end the session. Here every frame is read and checked first: well-formed
//! JSON-RPC goes to the server; anything else is answered with a parse error (-32700) or an
//! invalid-request error (-32600) and the session goes on.

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc::UnboundedSender;

/// Bodies larger than this are discarded unread (and answered with an error).
const MAX_BODY: usize = 64 << 20;

pub enum Frame {
    Body(Vec<u8>),
    /// A header block without a usable Content-Length.
    BadHeader(String),
    /// A body over [`MAX_BODY`], already skipped.
    TooLarge(usize),
}

/// Reads one `Content-Length`-framed message; `None` at end of input.
pub async fn read_frame<R: AsyncRead + Unpin>(r: &mut BufReader<R>) -> Option<Frame> {
    let mut len: Option<Result<usize, String>> = None;
    let mut saw_header = false;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        let t = line.trim_end_matches(['\r', '\n']);
        if t.is_empty() {
            if saw_header {
                break;
            }
            continue;
        }
        saw_header = true;
        if let Some((k, v)) = t.split_once(':') {
            if k.trim().eq_ignore_ascii_case("content-length") {
                len = Some(v.trim().parse::<usize>().map_err(|_| format!("bad Content-Length `{}`", v.trim())));
            }
        }
    }
    match len {
        Some(Ok(n)) if n > MAX_BODY => {
            let mut left = n;
            let mut buf = vec![0u8; 1 << 16];
            while left > 0 {
                let k = left.min(buf.len());
                r.read_exact(&mut buf[..k]).await.ok()?;
                left -= k;
            }
            Some(Frame::TooLarge(n))
        }
        Some(Ok(n)) => {
            let mut body = vec![0u8; n];
            r.read_exact(&mut body).await.ok()?;
            Some(Frame::Body(body))
        }
        Some(Err(e)) => Some(Frame::BadHeader(e)),
        None => Some(Frame::BadHeader("a header block without Content-Length".into())),
    }
}

/// Writes one framed body; false when the other side is gone.
async fn write_frame<W: AsyncWrite + Unpin>(out: &mut W, body: &[u8]) -> bool {
    let head = format!("Content-Length: {}\r\n\r\n", body.len());
    out.write_all(head.as_bytes()).await.is_ok() && out.write_all(body).await.is_ok() && out.flush().await.is_ok()
}

pub fn encode(msg: &Value) -> Vec<u8> {
    let body = msg.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// Why a body is not a JSON-RPC message, as the error to answer with; `None` if it is one.
pub fn check_message(body: &[u8]) -> Option<Value> {
    let err = |code: i64, msg: String, id: Value| Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": msg}}));
    let v: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return err(-32700, format!("parse error: {e}"), Value::Null),
    };
    let id = v.get("id").cloned().unwrap_or(Value::Null);
    let Some(obj) = v.as_object() else { return err(-32600, "invalid request: not a JSON object".into(), Value::Null) };
    if obj.get("jsonrpc") != Some(&json!("2.0")) {
        return err(-32600, "invalid request: `jsonrpc` must be \"2.0\"".into(), id);
    }
    let id_ok = matches!(obj.get("id"), None | Some(Value::Number(_)) | Some(Value::String(_)) | Some(Value::Null));
    match obj.get("method") {
        Some(Value::String(_)) if id_ok => None,
        Some(_) => err(-32600, "invalid request: `method` must be a string and `id` a number or string".into(), if id_ok { id } else { Value::Null }),
        None if obj.contains_key("id") && (obj.contains_key("result") || obj.contains_key("error")) => None,
        None => err(-32600, "invalid request: no `method`".into(), id),
    }
}

/// Copies frames from the editor to the server, answering malformed ones through `inject`.
pub async fn pump_input<R, W>(input: R, mut to_server: W, inject: UnboundedSender<Vec<u8>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut r = BufReader::new(input);
    while let Some(frame) = read_frame(&mut r).await {
        let answer = match frame {
            Frame::Body(body) => match check_message(&body) {
                None => {
                    if !write_frame(&mut to_server, &body).await {
                        return;
                    }
                    continue;
                }
                Some(e) => e,
            },
            Frame::BadHeader(why) => json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": format!("parse error: {why}")}}),
            Frame::TooLarge(n) => {
                json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": format!("message of {n} bytes is over the {MAX_BODY}-byte limit")}})
            }
        };
        eprintln!("opal lsp: rejected a malformed message: {}", answer["error"]["message"]);
        if inject.send(encode(&answer)).is_err() {
            return;
        }
    }
}

/// Copies whole frames from the server to the editor, with injected answers between frames.
pub async fn pump_output<R, W>(from_server: R, mut out: W, mut injected: tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut r = BufReader::new(from_server);
    loop {
        tokio::select! {
            frame = read_frame(&mut r) => match frame {
                Some(Frame::Body(body)) => {
                    if !write_frame(&mut out, &body).await {
                        return;
                    }
                }
                Some(_) => {}
                None => break,
            },
            Some(bytes) = injected.recv() => {
                if out.write_all(&bytes).await.is_err() || out.flush().await.is_err() {
                    return;
                }
            }
        }
    }
    let _ = out.flush().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_messages_get_the_right_errors() {
        let code = |b: &[u8]| check_message(b).map(|e| e["error"]["code"].as_i64().unwrap_or(0));
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":1,"method":"x"}"#), None);
        assert_eq!(code(br#"{"jsonrpc":"2.0","method":"x"}"#), None);
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":1,"result":null}"#), None);
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":1,"method":"#), Some(-32700));
        assert_eq!(code(b"\xff\xfe"), Some(-32700));
        assert_eq!(code(br#"[1,2]"#), Some(-32600));
        assert_eq!(code(br#"{"id":1,"method":"x"}"#), Some(-32600));
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":{},"method":"x"}"#), Some(-32600));
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":3}"#), Some(-32600));
    }
}
