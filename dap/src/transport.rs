//! DAP's framing (`Content-Length: N\r\n\r\n` then N bytes of JSON), read on threads of its
//! own. The framing decisions (resynchronising after any malformed frame, the limits, a length
//! too small or too large, a pause of [`STALL`]) are [`opal_core::framing`]'s, shared with the
//! language server; this is the I/O around it, and what a body means to DAP: a JSON object is
//! a message, anything else is refused. A refused frame comes as [`Incoming::Bad`] with the
//! request it still held, so the adapter answers it with an error response: a client waiting
//! for an answer gets one.

use opal_core::framing::{Frame, Framer, Step};
use serde_json::Value;
use std::io::{Read, Write};
use std::sync::mpsc;

pub use opal_core::framing::STALL;

#[derive(Debug)]
pub enum Incoming {
    Message(Value),
    /// Input that is not a well-formed message: why, and the message it still held, if one
    /// could be read (a request there is answered with an error).
    Bad(String, Option<Value>),
}

/// Reads framed messages from `input` on a thread; the channel closes at end of input.
pub fn spawn_reader<R: Read + Send + 'static>(input: R) -> mpsc::Receiver<Incoming> {
    let chunks = spawn_chunks(input);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut r = FrameReader::new(chunks);
        while let Some(m) = r.read_message() {
            if tx.send(m).is_err() {
                return;
            }
        }
    });
    rx
}

/// The bytes of `input` as they arrive, on a thread of their own: the framing waits on the
/// channel with a timeout (a pause decides a length that was declared too large), which a
/// blocking read cannot do.
pub fn spawn_chunks<R: Read + Send + 'static>(mut input: R) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || loop {
        let mut chunk = vec![0u8; 1 << 16];
        match input.read(&mut chunk) {
            Ok(0) => return,
            Ok(n) => {
                chunk.truncate(n);
                if tx.send(chunk).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    });
    rx
}

/// Reads `Content-Length`-framed messages from chunks of bytes, resynchronising after garbage.
pub struct FrameReader {
    chunks: mpsc::Receiver<Vec<u8>>,
    framer: Framer,
}

impl FrameReader {
    pub fn new(chunks: mpsc::Receiver<Vec<u8>>) -> FrameReader {
        FrameReader {
            chunks,
            framer: Framer::new(),
        }
    }

    /// The next message, or what was wrong with the next frame; `None` at end of input.
    pub fn read_message(&mut self) -> Option<Incoming> {
        loop {
            // Whatever has arrived counts (the rest of a message whose length was too small).
            while let Ok(c) = self.chunks.try_recv() {
                self.framer.feed(&c);
            }
            let step = self.framer.poll();
            for line in self.framer.take_skipped() {
                eprintln!("opal dap: {line}");
            }
            match step {
                Step::Frame(Frame::Body(body)) => return Some(message(&body)),
                Step::Frame(Frame::Bad(why, v)) => return Some(Incoming::Bad(why, v)),
                Step::End => return None,
                Step::NeedInput {
                    pause_decides: true,
                } => match self.chunks.recv_timeout(STALL) {
                    Ok(c) => self.framer.feed(&c),
                    Err(mpsc::RecvTimeoutError::Timeout) => self.framer.pause(),
                    Err(mpsc::RecvTimeoutError::Disconnected) => self.framer.end(),
                },
                Step::NeedInput {
                    pause_decides: false,
                } => match self.chunks.recv() {
                    Ok(c) => self.framer.feed(&c),
                    Err(_) => self.framer.end(),
                },
            }
        }
    }
}

/// What a well-framed body is to DAP: a JSON object is a message; a request whose strings are
/// not Unicode (a lone surrogate escape, bytes that are not UTF-8) cannot be carried out, but
/// its seq and command can be read, so it is answered.
fn message(body: &[u8]) -> Incoming {
    match opal_core::framing::parse_value(body) {
        Ok(v) if v.is_object() => Incoming::Message(v),
        Ok(_) => Incoming::Bad("a message that is not a JSON object".into(), None),
        Err(e) => match opal_core::framing::lenient_object(body) {
            Some(v) => Incoming::Bad(format!("the message is not valid JSON text ({e}): strings must be Unicode and the body UTF-8"), Some(v)),
            None => Incoming::Bad(format!("a message of {} bytes that is not JSON: {e}", body.len()), None),
        },
    }
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
        Writer {
            out,
            seq: 0,
            alive: true,
        }
    }

    pub fn send(&mut self, mut msg: Value) {
        self.seq += 1;
        if let Some(o) = msg.as_object_mut() {
            o.insert("seq".into(), Value::from(self.seq));
        }
        let body = msg.to_string();
        let ok = write!(self.out, "Content-Length: {}\r\n\r\n{body}", body.len()).is_ok()
            && self.out.flush().is_ok();
        self.alive &= ok;
    }
}

#[cfg(test)]
mod tests;
