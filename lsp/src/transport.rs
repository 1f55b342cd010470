//! A guard in front of tower-lsp-server's transport. Its framed reader stops for good at the
//! first message it cannot decode (tokio-util ends a stream after an error), so one malformed
//! message would end the session. Here every byte of stdin is framed and checked first:
//!
//! * a well-formed JSON-RPC message goes to the server, re-framed with a clean header;
//! * a malformed one is answered with a parse error (-32700, with the id of the message the
//!   frame still held when one can be read) or an invalid-request error (-32600, with the
//!   request's id when it has one);
//! * bytes that are not part of a frame are skipped with a log line on stderr, up to the next
//!   `Content-Length` header (the reader resynchronises there).
//!
//! The framing decisions (headers as bytes, a length that is not a number, too small or too
//! large, two that disagree, a header block without its blank line, a body holding more than
//! one value, the limits, the pause of [`opal_core::framing::STALL`]) are
//! [`opal_core::framing`]'s, shared with the debug adapter; [`FrameReader`] is the async I/O
//! around it.

use crate::splice::Splices;
use opal_core::framing::{Framer, Step, STALL};
use serde_json::{json, Value};
use std::sync::Arc;
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt,
};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

const NAME: &[u8] = b"content-length";

pub enum Frame {
    Body(Vec<u8>),
    /// A frame that cannot be delivered, with the error to answer.
    Bad(Value),
}

/// Reads `Content-Length`-framed messages from bytes, resynchronising after garbage.
pub struct FrameReader<R> {
    input: R,
    framer: Framer,
}

fn parse_error(message: String, id: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32700, "message": message}})
}

/// The id of a message a refused frame still held, as a client can match it.
fn id_of(v: Option<&Value>) -> Value {
    v.and_then(|v| v.get("id"))
        .filter(|id| id.is_string() || id.is_number())
        .cloned()
        .unwrap_or(Value::Null)
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    pub fn new(input: R) -> FrameReader<R> {
        FrameReader {
            input,
            framer: Framer::new(),
        }
    }

    /// Reads more input into the framer (its end, at end of input).
    async fn fill(&mut self) {
        let mut chunk = [0u8; 1 << 16];
        match self.input.read(&mut chunk).await {
            Ok(0) | Err(_) => self.framer.end(),
            Ok(n) => self.framer.feed(&chunk[..n]),
        }
    }

    /// The next frame; `None` at end of input.
    pub async fn read_frame(&mut self) -> Option<Frame> {
        loop {
            let step = self.framer.poll();
            for line in self.framer.take_skipped() {
                eprintln!("opal lsp: {line}");
            }
            match step {
                Step::Frame(opal_core::framing::Frame::Body(body)) => {
                    return Some(Frame::Body(body))
                }
                Step::Frame(opal_core::framing::Frame::Bad(why, v)) => {
                    return Some(Frame::Bad(parse_error(
                        format!("parse error: {why}"),
                        id_of(v.as_ref()),
                    )))
                }
                Step::End => return None,
                Step::NeedInput {
                    pause_decides: false,
                } => self.fill().await,
                // A read cancelled by the timeout loses nothing (tokio's `read` is cancel-safe).
                Step::NeedInput {
                    pause_decides: true,
                } => {
                    if tokio::time::timeout(STALL, self.fill()).await.is_err() {
                        self.framer.pause();
                    }
                }
            }
        }
    }
}

/// Writes one framed body; false when the other side is gone.
async fn write_frame<W: AsyncWrite + Unpin>(out: &mut W, body: &[u8]) -> bool {
    let head = format!("Content-Length: {}\r\n\r\n", body.len());
    out.write_all(head.as_bytes()).await.is_ok()
        && out.write_all(body).await.is_ok()
        && out.flush().await.is_ok()
}

pub fn encode(msg: &Value) -> Vec<u8> {
    let body = msg.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// What to do with one body.
#[derive(Debug, PartialEq)]
pub enum Checked {
    /// Pass it on unchanged.
    Pass,
    /// Pass on this rewritten body instead.
    Rewrite(Vec<u8>),
    /// Answer with this error.
    Reject(Value),
}

/// Whether a body is a JSON-RPC message tower-lsp-server will accept, and if not, the error.
///
/// Ids must be strings or integers that fit an `i64` (tower-lsp-server's `Id`); another number
/// (`1.5`, `1e300`, `18446744073709551616`) gets -32600 with that id echoed. `shutdown` and
/// `exit` take no parameters, but clients send `{}` or `[]`: those are dropped.
pub fn check_message(body: &[u8]) -> Checked {
    // JSON nested too deep is refused before it is parsed (it could overflow the stack).
    let mut v: Value = match opal_core::framing::parse_value(body) {
        Ok(v) => v,
        Err(e) => {
            return match out_of_sync_notice(body, &e.to_string()) {
                Some(notice) => Checked::Rewrite(notice.to_string().into_bytes()),
                None => reject(
                    -32700,
                    format!("parse error: {e}"),
                    id_of(opal_core::framing::lenient_object(body).as_ref()),
                ),
            }
        }
    };
    let Some(obj) = v.as_object_mut() else {
        return reject(
            -32600,
            "invalid request: not a JSON object".into(),
            Value::Null,
        );
    };
    let id = obj.get("id").cloned().unwrap_or(Value::Null);
    let id_ok = match obj.get("id") {
        None | Some(Value::String(_)) | Some(Value::Null) => true,
        Some(Value::Number(n)) => n.as_i64().is_some(),
        Some(_) => false,
    };
    // Echo a number we could not use (clients compare ids as numbers); anything else is null.
    let echo = if matches!(id, Value::Number(_) | Value::String(_)) {
        id.clone()
    } else {
        Value::Null
    };
    if obj.get("jsonrpc") != Some(&json!("2.0")) {
        return reject(
            -32600,
            "invalid request: `jsonrpc` must be \"2.0\"".into(),
            echo,
        );
    }
    if !id_ok {
        return reject(
            -32600,
            format!(
                "invalid request: the id {id} is not a string or an integer in the 64-bit range"
            ),
            echo,
        );
    }
    let checked = check_method(obj, echo.clone());
    if let Checked::Reject(_) = checked {
        return checked;
    }
    // The last word is tower-lsp-server's own decoder: what it cannot decode would end its input.
    let final_body = match &checked {
        Checked::Rewrite(b) => b.as_slice(),
        _ => body,
    };
    let tower_ok = serde_json::from_slice::<tower_lsp_server::jsonrpc::Response>(final_body)
        .is_ok()
        || serde_json::from_slice::<tower_lsp_server::jsonrpc::Request>(final_body).is_ok();
    if !tower_ok {
        return reject(
            -32600,
            "invalid request: not a JSON-RPC request, notification or response".into(),
            echo,
        );
    }
    checked
}

/// An error answer with this code, message and id.
fn reject(code: i64, msg: String, id: Value) -> Checked {
    Checked::Reject(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": msg}}))
}

/// A message's `method` and `params` (a response has neither): passed, the parameters of
/// `shutdown` and `exit` dropped, or refused with the id `echo`.
fn check_method(obj: &mut serde_json::Map<String, Value>, echo: Value) -> Checked {
    match obj.get("method") {
        Some(Value::String(m)) => {
            let m = m.clone();
            // `shutdown` and `exit` take no parameters; whatever a client sends is dropped (as
            // rust-analyzer ignores them), so the session can always end.
            if (m == "shutdown" || m == "exit") && obj.get("params").is_some_and(|p| !p.is_null()) {
                obj.remove("params");
                Checked::Rewrite(Value::Object(obj.clone()).to_string().into_bytes())
            } else {
                match obj.get("params") {
                    None | Some(Value::Null) | Some(Value::Object(_)) | Some(Value::Array(_)) => {
                        Checked::Pass
                    }
                    Some(p) => reject(
                        -32600,
                        format!("invalid request: `params` must be an object or an array, not {p}"),
                        echo,
                    ),
                }
            }
        }
        Some(_) => reject(
            -32600,
            "invalid request: `method` must be a string".into(),
            echo,
        ),
        None if obj.contains_key("id")
            && (obj.contains_key("result") || obj.contains_key("error")) =>
        {
            Checked::Pass
        }
        None => reject(-32600, "invalid request: no `method`".into(), echo),
    }
}

/// The method the server gets instead of a document's text it cannot decode.
pub const OUT_OF_SYNC: &str = "opal/outOfSync";

/// A `didOpen` or `didChange` whose text cannot be decoded (a lone surrogate escape such as
/// `\ud800`, bytes that are not UTF-8) cannot be applied, and dropping it alone would leave
/// the server editing text the editor does not have. It becomes an `opal/outOfSync`
/// notification naming the document, so the server refuses edits until the whole text comes
/// again and tells the user. `None` for any other message.
fn out_of_sync_notice(body: &[u8], cause: &str) -> Option<Value> {
    let v = opal_core::framing::lenient_object(body)?;
    let method = v.get("method")?.as_str()?;
    if method != "textDocument/didChange" && method != "textDocument/didOpen" {
        return None;
    }
    let doc = v.get("params")?.get("textDocument")?;
    let uri = doc.get("uri")?.as_str()?;
    let reason = format!("{method} for this document could not be decoded ({cause})");
    Some(
        json!({"jsonrpc": "2.0", "method": OUT_OF_SYNC, "params": {"uri": uri, "version": doc.get("version"), "reason": reason}}),
    )
}

/// Copies frames from the editor to the server, answering malformed ones through `inject`.
pub async fn pump_input<R, W>(input: R, mut to_server: W, inject: UnboundedSender<Vec<u8>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut r = FrameReader::new(input);
    while let Some(frame) = r.read_frame().await {
        let answer = match frame {
            Frame::Body(body) => match check_message(&body) {
                Checked::Pass => {
                    if !write_frame(&mut to_server, &body).await {
                        return;
                    }
                    continue;
                }
                Checked::Rewrite(body) => {
                    if !write_frame(&mut to_server, &body).await {
                        return;
                    }
                    continue;
                }
                Checked::Reject(e) => e,
            },
            Frame::Bad(e) => e,
        };
        eprintln!(
            "opal lsp: rejected a malformed message: {}",
            answer["error"]["message"]
        );
        if inject.send(encode(&answer)).is_err() {
            return;
        }
    }
}

/// One frame as tower-lsp-server writes it (`Content-Length: N`, a blank line, N bytes): the
/// server's own output needs none of [`FrameReader`]'s checks, and a body read in one piece costs
/// nothing per byte (scanning a 2 MB semantic-tokens answer for headers did). `None` at the end.
async fn read_own_frame<R: AsyncBufRead + Unpin>(r: &mut R) -> Option<Vec<u8>> {
    let mut len = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        if r.read_until(b'\n', &mut line).await.ok()? == 0 {
            return None;
        }
        let l = line.trim_ascii();
        if l.is_empty() {
            break;
        }
        if l.len() > NAME.len() && l[..NAME.len()].eq_ignore_ascii_case(NAME) {
            len = std::str::from_utf8(&l[NAME.len()..])
                .ok()?
                .trim_start_matches([' ', ':'])
                .trim()
                .parse::<usize>()
                .ok();
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).await.ok()?;
    Some(body)
}

/// Copies whole frames from the server to the editor, with injected answers between frames and
/// the results of [`Splices`] in place of their stand-ins.
pub async fn pump_output<R, W>(
    from_server: R,
    mut out: W,
    mut injected: UnboundedReceiver<Vec<u8>>,
    splices: Arc<Splices>,
) where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin,
{
    // Frames are read in a task of their own: a read cancelled by an injected answer (in the
    // `select!` below) would lose a frame whose header was read and whose body was not.
    let (frames, mut from_frames) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut r = tokio::io::BufReader::with_capacity(1 << 16, from_server);
        while let Some(body) = read_own_frame(&mut r).await {
            if frames.send(body).is_err() {
                return;
            }
        }
    });
    loop {
        tokio::select! {
            body = from_frames.recv() => match body {
                Some(body) => {
                    if !write_frame(&mut out, &splices.splice(body)).await {
                        return;
                    }
                }
                None => break,
            },
            Some(bytes) = injected.recv() => {
                if out.write_all(&bytes).await.is_err() || out.flush().await.is_err() {
                    return;
                }
            }
        }
    }
    // Answers injected just before the server stopped still go out.
    while let Ok(bytes) = injected.try_recv() {
        if out.write_all(&bytes).await.is_err() {
            break;
        }
    }
    let _ = out.flush().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(b: &[u8]) -> Option<i64> {
        match check_message(b) {
            Checked::Reject(e) => Some(e["error"]["code"].as_i64().unwrap_or(0)),
            _ => None,
        }
    }

    #[test]
    fn only_undecodable_document_text_becomes_an_out_of_sync_notice() {
        let change = r#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a.opal","version":7},"contentChanges":[{"text":"\ud800"}]}}"#;
        let Checked::Rewrite(b) = check_message(change.as_bytes()) else {
            panic!("not rewritten")
        };
        let v: Value = serde_json::from_slice(&b).unwrap_or_default();
        assert_eq!(
            (
                v["method"].as_str(),
                v["params"]["uri"].as_str(),
                v["params"]["version"].as_i64()
            ),
            (Some(OUT_OF_SYNC), Some("file:///a.opal"), Some(7))
        );
        let hover =
            r#"{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"x":"\ud800"}}"#;
        assert!(matches!(
            check_message(hover.as_bytes()),
            Checked::Reject(_)
        ));
    }

    #[test]
    fn malformed_messages_get_the_right_errors() {
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":1,"method":"x"}"#), None);
        assert_eq!(code(br#"{"jsonrpc":"2.0","method":"x"}"#), None);
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":1,"result":null}"#), None);
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":1,"method":"#), Some(-32700));
        assert_eq!(code(b"\xff\xfe"), Some(-32700));
        assert_eq!(code(br#"[1,2]"#), Some(-32600));
        assert_eq!(code(br#"{"id":1,"method":"x"}"#), Some(-32600));
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":{},"method":"x"}"#),
            Some(-32600)
        );
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":3}"#), Some(-32600));
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":3,"method":"x","params":5}"#),
            Some(-32600)
        );
    }

    #[test]
    fn odd_ids_are_rejected_with_the_id_echoed() {
        for (raw, echoed) in [
            ("1.5", json!(1.5)),
            ("1e300", json!(1e300)),
            ("18446744073709551616", json!(18446744073709551616.0)),
            ("-0.0", json!(-0.0)),
        ] {
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{raw},"method":"textDocument/hover","params":{{}}}}"#
            );
            match check_message(body.as_bytes()) {
                Checked::Reject(e) => {
                    assert_eq!(e["error"]["code"], json!(-32600), "{raw}");
                    assert_eq!(e["id"], echoed, "{raw}");
                }
                other => panic!("{raw}: {other:?}"),
            }
        }
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"x"}"#),
            None
        );
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":-5,"method":"x"}"#), None);
    }

    #[test]
    fn shutdown_and_exit_params_are_dropped() {
        let got = check_message(br#"{"jsonrpc":"2.0","id":1,"method":"shutdown","params":{}}"#);
        assert_eq!(
            got,
            Checked::Rewrite(br#"{"id":1,"jsonrpc":"2.0","method":"shutdown"}"#.to_vec())
        );
        assert_eq!(
            check_message(br#"{"jsonrpc":"2.0","id":1,"method":"shutdown","params":null}"#),
            Checked::Pass
        );
        assert!(matches!(
            check_message(br#"{"jsonrpc":"2.0","method":"exit","params":[]}"#),
            Checked::Rewrite(_)
        ));
        let got = check_message(br#"{"jsonrpc":"2.0","id":2,"method":"shutdown","params":5}"#);
        assert_eq!(
            got,
            Checked::Rewrite(br#"{"id":2,"jsonrpc":"2.0","method":"shutdown"}"#.to_vec())
        );
        assert!(matches!(
            check_message(br#"{"jsonrpc":"2.0","method":"exit","params":"x"}"#),
            Checked::Rewrite(_)
        ));
    }

    /// Every frame (as its body text, or `!` and the error code) read from a byte stream.
    fn frames(input: &[u8]) -> Vec<String> {
        read_all(input)
    }

    fn read_all(input: impl AsyncRead + Unpin) -> Vec<String> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async {
            let mut r = FrameReader::new(input);
            let mut out = Vec::new();
            while let Some(f) = r.read_frame().await {
                out.push(match f {
                    Frame::Body(b) => String::from_utf8_lossy(&b).into_owned(),
                    Frame::Bad(e) => format!("!{} {}", e["error"]["code"], e["id"]),
                });
            }
            out
        })
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    /// Input that arrives one byte per read, as a slow pipe may deliver it.
    struct Trickle<'a>(&'a [u8]);

    impl AsyncRead for Trickle<'_> {
        fn poll_read(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            if let Some((first, rest)) = self.0.split_first() {
                buf.put_slice(&[*first]);
                self.0 = rest;
            }
            std::task::Poll::Ready(Ok(()))
        }
    }

    /// [`frames`], with the input arriving a byte at a time.
    fn frames_trickled(input: &[u8]) -> Vec<String> {
        read_all(Trickle(input))
    }

    fn fragment() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        prop_oneof![
            prop::sample::select(vec![
                "Content-Length: ",
                "content-length:",
                "Content-Length: 5",
                "\r\n",
                "\n",
                "\r\n\r\n",
                "{",
                "}",
                "\"",
                "99",
                "abc",
                ":"
            ])
            .prop_map(|s| s.as_bytes().to_vec()),
            prop::collection::vec(any::<u8>(), 0..8),
        ]
    }

    proptest::proptest! {
        /// Any bytes, then two well-formed messages: the second is always read intact.
        #[test]
        fn any_garbage_is_followed_by_a_working_session(garbage in proptest::collection::vec(fragment(), 0..12)) {
            let ok = r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#;
            let input = [garbage.concat(), frame(ok).into_bytes(), frame(ok).into_bytes()].concat();
            for got in [frames(&input), frames_trickled(&input)] {
                proptest::prop_assert_eq!(got.last().map(String::as_str), Some(ok), "{:?}", String::from_utf8_lossy(&input));
            }
        }
    }

    /// A message whose text says `Content-Length:` (a program about HTTP, say) is read as soon
    /// as it is all there, and a length declared too large is still found by the next header:
    /// neither waits for input to pause (on a paused clock, any wait shows as elapsed time).
    #[test]
    fn a_header_inside_a_string_does_not_hold_the_message() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .expect("runtime");
        let ok = r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#;
        let text = r#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"text":"s := \"Content-Length: 5\r\n\r\n{}\"\n}Content-Length:12"}}"#;
        let too_large = format!("Content-Length: {}\r\n\r\n{ok}", ok.len() + 200);
        // Garbage with a header of its own, then a whole message: read at once, as before.
        let garbage = format!("Content-Length: 500\r\n\r\nxyz{}", frame(ok));
        let cases = [
            (frame(text), vec![text.to_string()]),
            (
                too_large + &frame(ok),
                vec!["!-32700 7".to_string(), ok.to_string()],
            ),
            (garbage, vec!["!-32700 null".to_string(), ok.to_string()]),
        ];
        for (input, want) in cases {
            let got = rt.block_on(async {
                // The writer stays open: no end of input, and no more input, follows.
                let (mut tx, rx) = tokio::io::duplex(1 << 16);
                tx.write_all(input.as_bytes()).await.expect("write");
                let mut r = FrameReader::new(rx);
                let start = tokio::time::Instant::now();
                let mut out = Vec::new();
                while out.len() < want.len() {
                    match r.read_frame().await {
                        Some(Frame::Body(b)) => out.push(String::from_utf8_lossy(&b).into_owned()),
                        Some(Frame::Bad(e)) => {
                            out.push(format!("!{} {}", e["error"]["code"], e["id"]))
                        }
                        None => break,
                    }
                }
                assert!(
                    start.elapsed() < STALL,
                    "waited {:?} for {input:?}",
                    start.elapsed()
                );
                drop(tx);
                out
            });
            assert_eq!(got, want);
        }
    }

    #[test]
    fn the_reader_resynchronises_after_any_garbage() {
        let ok = r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#;
        let in_string = r#"{"jsonrpc":"2.0","method":"x","params":{"t":"a \"}Content-Length: 5\r\n\r\n{}\" b"}}"#;
        let cases: Vec<(Vec<u8>, Vec<&str>)> = vec![
            ([frame(ok), frame(ok)].concat().into_bytes(), vec![ok, ok]),
            // A header inside a JSON string is text.
            (frame(in_string).into_bytes(), vec![in_string]),
            // Non-UTF-8 header lines, before or after Content-Length.
            ([b"\xff\r\n".to_vec(), frame(ok).into_bytes()].concat(), vec![ok]),
            ([format!("Content-Length: {}\r\nX-Name: caf\u{e9}\r\n\r\n{ok}", ok.len()).into_bytes()].concat(), vec![ok]),
            ([format!("Content-Length: {}\r\nX-Name: caf", ok.len()).into_bytes(), b"\xe9\r\n\r\n".to_vec(), ok.as_bytes().to_vec()].concat(), vec![ok]),
            // A bad length: an error, the body is skipped, the next message is read.
            ([format!("Content-Length: abc\r\n\r\n{ok}"), frame(ok)].concat().into_bytes(), vec!["!-32700 null", ok]),
            ([format!("Content-Length: -3\r\n\r\n{ok}"), frame(ok)].concat().into_bytes(), vec!["!-32700 null", ok]),
            ([format!("Content-Length: 99999999999999999999999\r\n\r\n{ok}"), frame(ok)].concat().into_bytes(), vec!["!-32700 null", ok]),
            // Too small: the message is still read, up to the next header, and refused with its id.
            ([format!("Content-Length: 10\r\n\r\n{ok}"), frame(ok)].concat().into_bytes(), vec!["!-32700 7", ok]),
            // Issue 29: a header block without its blank line; a value and more in one body; two
            // lengths that disagree (the first was taken).
            (["Content-Length: 2\r\n{}".to_string(), frame(ok)].concat().into_bytes(), vec!["!-32700 null", ok]),
            ([frame(&format!("{ok} {ok}")), frame(ok)].concat().into_bytes(), vec!["!-32700 7", ok]),
            ([format!("Content-Length: {}\r\nContent-Length: 5\r\n\r\n{ok}", ok.len()), frame(ok)].concat().into_bytes(), vec!["!-32700 7", ok]),
            // Too large: the next header inside the declared body ends it.
            ([format!("Content-Length: {}\r\n\r\n{ok}", ok.len() + 20), frame(ok), frame(ok)].concat().into_bytes(), vec!["!-32700 7", ok, ok]),
            // … also when the next message is shorter than the excess (an editor's answer to a
            // server request, written while the server waits for the rest of the body).
            ([format!("Content-Length: {}\r\n\r\n{ok}", ok.len() + 100), frame(ok)].concat().into_bytes(), vec!["!-32700 7", ok]),
            // Too large and nothing after it: the pause ends it.
            (format!("Content-Length: {}\r\n\r\n{ok}", ok.len() + 20).into_bytes(), vec!["!-32700 7"]),
            // Garbage between frames, lowercase header name, LF-only headers, other headers.
            ([frame(ok), "garbage\r\n\r\n".into(), format!("content-length:{}\n\n{ok}", ok.len())].concat().into_bytes(), vec![ok, ok]),
            ([format!("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: {}\r\n\r\n{ok}", ok.len())].concat().into_bytes(), vec![ok]),
            (b"\r\n\r\n\xff\xfe\x00".to_vec(), vec![]),
            (b"Content-Length".to_vec(), vec![]),
        ];
        for (input, want) in cases {
            assert_eq!(
                frames(&input),
                want,
                "{:?}",
                String::from_utf8_lossy(&input)
            );
            // A header split across reads is still seen (it was missed, and the session hung).
            assert_eq!(
                frames_trickled(&input),
                want,
                "trickled: {:?}",
                String::from_utf8_lossy(&input)
            );
        }
    }
}
