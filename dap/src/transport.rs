//! DAP's framing (`Content-Length: N\r\n\r\n` then N bytes of JSON), read on a thread of its
//! own. Anything that is not a well-formed message is reported as `Incoming::Bad` (the adapter
//! logs it as an output event) and reading goes on at the next header.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::mpsc;

/// Messages larger than this are skipped.
const MAX_BODY: usize = 64 << 20;

#[derive(Debug)]
pub enum Incoming {
    Message(Value),
    Bad(String),
}

/// Reads framed messages from `input` on a thread; the channel closes at end of input.
pub fn spawn_reader<R: Read + Send + 'static>(input: R) -> mpsc::Receiver<Incoming> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(input);
        while let Some(m) = read_message(&mut r) {
            if tx.send(m).is_err() {
                return;
            }
        }
    });
    rx
}

/// One message, or `None` at end of input.
pub fn read_message<R: BufRead>(r: &mut R) -> Option<Incoming> {
    let mut len: Option<usize> = None;
    let mut bad = None;
    let mut saw_header = false;
    loop {
        let mut line = Vec::new();
        if r.read_until(b'\n', &mut line).ok()? == 0 {
            return None;
        }
        let text = String::from_utf8_lossy(&line);
        let t = text.trim_end_matches(['\r', '\n']);
        if t.is_empty() {
            if saw_header {
                break;
            }
            continue;
        }
        saw_header = true;
        if let Some((k, v)) = t.split_once(':') {
            if k.trim().eq_ignore_ascii_case("content-length") {
                match v.trim().parse::<usize>() {
                    Ok(n) => len = Some(n),
                    Err(_) => bad = Some(format!("bad Content-Length `{}`", v.trim())),
                }
            }
        }
    }
    let Some(n) = len else { return Some(Incoming::Bad(bad.unwrap_or_else(|| "a header without Content-Length".into()))) };
    if n > MAX_BODY {
        std::io::copy(&mut r.take(n as u64), &mut std::io::sink()).ok()?;
        return Some(Incoming::Bad(format!("a message of {n} bytes (more than {MAX_BODY}) was skipped")));
    }
    let mut body = vec![0u8; n];
    r.read_exact(&mut body).ok()?;
    Some(match serde_json::from_slice::<Value>(&body) {
        Ok(v) if v.is_object() => Incoming::Message(v),
        Ok(_) => Incoming::Bad("a message that is not a JSON object".into()),
        Err(e) => Incoming::Bad(format!("a message that is not JSON: {e}")),
    })
}

/// Writes framed messages, numbering them (`seq`).
pub struct Writer {
    out: Box<dyn Write + Send>,
    seq: i64,
    /// False once the client is gone (writes fail).
    pub alive: bool,
}

impl Writer {
    pub fn new(out: Box<dyn Write + Send>) -> Writer {
        Writer { out, seq: 0, alive: true }
    }

    pub fn send(&mut self, mut msg: Value) {
        self.seq += 1;
        if let Some(o) = msg.as_object_mut() {
            o.insert("seq".into(), Value::from(self.seq));
        }
        let body = msg.to_string();
        let ok = write!(self.out, "Content-Length: {}\r\n\r\n{body}", body.len()).is_ok() && self.out.flush().is_ok();
        self.alive &= ok;
    }
}
