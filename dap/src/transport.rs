//! DAP's framing (`Content-Length: N\r\n\r\n` then N bytes of JSON), read on threads of its
//! own, resynchronising after any malformed frame as the language server's transport does
//! (`lsp/src/transport.rs`, whose rules this follows, synchronously):
//!
//! * every byte of stdin is framed as bytes: a non-UTF-8 header line is skipped like any
//!   unknown header, and whatever is not part of a frame is skipped (with a line on stderr) up
//!   to the next `Content-Length` header, wherever it starts;
//! * `Content-Length: abc`, a negative or over-64 MiB length: reported, and the body skipped;
//!   two `Content-Length` headers that disagree: the larger is read, and the message refused;
//! * a length too small (a client counting characters, not bytes): the truncated body with the
//!   bytes after it, up to the next header, is still read as the request it was, and refused
//!   with a message that says so; if that is not a message either, the tail is skipped;
//! * a length too large: noticed when the next header appears inside the declared body, or
//!   when input pauses with a complete JSON value read; that request is refused.
//!
//! A refused request comes as [`Incoming::Bad`] with the request, so the adapter answers it
//! with an error response: a client waiting for an answer gets one.

use serde_json::Value;
use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::Duration;

/// Bodies larger than this are skipped.
const MAX_BODY: usize = 64 << 20;
/// A header block longer than this is garbage.
const MAX_HEADER: usize = 8 << 10;
/// How long a body may stall before a complete JSON value read so far counts as the message.
pub const STALL: Duration = Duration::from_millis(300);
const NAME: &[u8] = b"content-length";

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

fn find_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if hay.len() < needle.len() {
        return None;
    }
    (0..=hay.len() - needle.len()).find(|&i| hay[i..i + needle.len()].eq_ignore_ascii_case(needle))
}

/// Where a `Content-Length:` header starts (the name, optional blanks, a colon), from `from`.
fn find_header(hay: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(i) = find_ci(hay.get(at..)?, NAME) {
        let start = at + i;
        let rest = &hay[start + NAME.len()..];
        let blanks = rest.iter().take_while(|b| **b == b' ' || **b == b'\t').count();
        match rest.get(blanks) {
            Some(b':') => return Some(start),
            // Not enough input yet to tell: report it, the caller reads more.
            None => return Some(start),
            Some(_) => at = start + 1,
        }
    }
    None
}

/// The end of a header block: where its blank line starts, and where the body starts.
fn header_end(hay: &[u8]) -> Option<(usize, usize)> {
    let mut i = 0;
    while i < hay.len() {
        if hay[i] == b'\n' {
            if hay.get(i + 1) == Some(&b'\n') {
                return Some((i, i + 2));
            }
            if hay.get(i + 1) == Some(&b'\r') && hay.get(i + 2) == Some(&b'\n') {
                return Some((i, i + 3));
            }
        }
        i += 1;
    }
    None
}

/// The `Content-Length` values of a header block, as written (other headers, and lines that
/// are not text, are ignored).
fn lengths(head: &[u8]) -> Vec<String> {
    head.split(|b| *b == b'\n')
        .filter_map(|line| {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let colon = line.iter().position(|b| *b == b':')?;
            let name = line[..colon].trim_ascii();
            name.eq_ignore_ascii_case(NAME).then(|| String::from_utf8_lossy(line[colon + 1..].trim_ascii()).into_owned())
        })
        .collect()
}

/// Whether skipped bytes deserve a log line: anything but blanks and well-formed headers.
fn is_noise(skipped: &[u8]) -> bool {
    skipped.split(|b| *b == b'\n').any(|line| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let header_like = line.is_ascii() && line.contains(&b':') && !line.contains(&b'{');
        !line.is_empty() && !header_like
    })
}

fn log_skip(skipped: &[u8]) {
    let shown: String = String::from_utf8_lossy(&skipped[..skipped.len().min(80)]).escape_debug().collect();
    eprintln!("opal dap: skipped {} byte(s) that are not a message: \"{shown}\"", skipped.len());
}

/// The bytes as one JSON value (surrounding blanks allowed).
fn complete_value(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice(bytes).ok()
}

/// A message read whole whose framing was wrong: refused, with the message for the answer.
fn refused(why: String, v: Value) -> Incoming {
    Incoming::Bad(why, Some(v).filter(Value::is_object))
}

fn too_large(declared: usize, got: usize, v: Value) -> Incoming {
    refused(format!("Content-Length {declared} is larger than the message ({got} bytes)"), v)
}

enum Frame {
    Body(Vec<u8>),
    Bad(Incoming),
}

enum Header {
    /// The declared length, and why the header block is wrong although a body follows.
    Length(usize, Option<String>),
    Bad(String),
    /// Not a header after all (skipped).
    Garbage,
}

enum Split {
    Frame(Frame),
    /// More input decides.
    Undecided,
    No,
}

/// Reads `Content-Length`-framed messages from chunks of bytes, resynchronising after garbage.
pub struct FrameReader {
    chunks: mpsc::Receiver<Vec<u8>>,
    buf: Vec<u8>,
    eof: bool,
}

impl FrameReader {
    pub fn new(chunks: mpsc::Receiver<Vec<u8>>) -> FrameReader {
        FrameReader { chunks, buf: Vec::new(), eof: false }
    }

    /// Waits for more input; false at end of input.
    fn fill(&mut self) -> bool {
        if self.eof {
            return false;
        }
        match self.chunks.recv() {
            Ok(c) => {
                self.buf.extend_from_slice(&c);
                true
            }
            Err(_) => {
                self.eof = true;
                false
            }
        }
    }

    /// Like [`Self::fill`], but gives up after `wait` (`None`: timed out).
    fn fill_within(&mut self, wait: Duration) -> Option<bool> {
        if self.eof {
            return Some(false);
        }
        match self.chunks.recv_timeout(wait) {
            Ok(c) => {
                self.buf.extend_from_slice(&c);
                Some(true)
            }
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                self.eof = true;
                Some(false)
            }
        }
    }

    /// Takes whatever input has already arrived, without waiting.
    fn fill_ready(&mut self) {
        while let Ok(c) = self.chunks.try_recv() {
            self.buf.extend_from_slice(&c);
        }
    }

    fn skip(&mut self, n: usize) {
        if is_noise(&self.buf[..n]) {
            log_skip(&self.buf[..n]);
        }
        self.buf.drain(..n);
    }

    /// The next message, or what was wrong with the next frame; `None` at end of input.
    pub fn read_message(&mut self) -> Option<Incoming> {
        let (body, conflict) = loop {
            match self.read_header()? {
                Header::Garbage => continue,
                Header::Bad(why) => return Some(Incoming::Bad(why, None)),
                Header::Length(len, conflict) => match self.read_body(len)? {
                    Frame::Body(body) => break (body, conflict),
                    Frame::Bad(Incoming::Bad(why, v)) => {
                        let why = conflict.map(|c| format!("{c}; {why}")).unwrap_or(why);
                        return Some(Incoming::Bad(why, v));
                    }
                    Frame::Bad(m) => return Some(m),
                },
            }
        };
        let Some(v) = complete_value(&body) else { return Some(self.not_json(&body)) };
        Some(match conflict {
            Some(why) => refused(why, v),
            None if v.is_object() => Incoming::Message(v),
            None => Incoming::Bad("a message that is not a JSON object".into(), None),
        })
    }

    /// A body that is not JSON. If the declared length was too small, the message goes on
    /// after it, up to the next header: read it whole (from what has arrived) to answer it.
    fn not_json(&mut self, body: &[u8]) -> Incoming {
        self.fill_ready();
        let end = find_header(&self.buf, 0).unwrap_or(self.buf.len());
        // A length counted in characters is short by at most three bytes per character.
        if end > 0 && end <= 3 * body.len() + 64 {
            let whole = [body, &self.buf[..end]].concat();
            if let Some(v) = complete_value(&whole).filter(Value::is_object) {
                self.buf.drain(..end);
                let n = whole.trim_ascii_end().len();
                return refused(
                    format!("Content-Length {} is smaller than the message ({n} bytes): it counts the bytes of the UTF-8 body, not characters", body.len()),
                    v,
                );
            }
        }
        let e = serde_json::from_slice::<Value>(body).err().map(|e| e.to_string()).unwrap_or_default();
        // A request whose strings are not Unicode (a lone surrogate escape, bytes that are not
        // UTF-8) cannot be carried out, but its seq and command can be read: it is answered.
        if let Some(v) = opal_core::lenient_json::parse(body).filter(Value::is_object) {
            return refused(format!("the message is not valid JSON text ({e}): strings must be Unicode and the body UTF-8"), v);
        }
        Incoming::Bad(format!("a message of {} bytes that is not JSON: {e}", body.len()), None)
    }

    /// The next header block, everything before it skipped; `None` at end of input.
    fn read_header(&mut self) -> Option<Header> {
        // 1. Find a header name, skipping whatever comes before it.
        let start = loop {
            if let Some(i) = find_header(&self.buf, 0) {
                break i;
            }
            // Keep a tail that may be the start of a split header name.
            let keep = self.buf.len().min(NAME.len() + 16);
            self.skip(self.buf.len() - keep);
            if !self.fill() {
                let n = self.buf.len();
                self.skip(n);
                return None;
            }
        };
        self.skip(start);
        // 2. The header block up to its blank line.
        let (blank, body_start) = loop {
            if let Some(e) = header_end(&self.buf) {
                break e;
            }
            if self.buf.len() > MAX_HEADER {
                self.skip(NAME.len());
                return Some(Header::Bad("a header block without an end".into()));
            }
            if !self.fill() {
                let n = self.buf.len();
                self.skip(n);
                return None;
            }
        };
        // The name may have been found before the bytes after it arrived: check it again.
        if find_header(&self.buf[..blank], 0) != Some(0) {
            self.skip(1);
            return Some(Header::Garbage);
        }
        let values = lengths(&self.buf[..blank]);
        self.buf.drain(..body_start);
        let mut parsed = Vec::new();
        for v in &values {
            match v.parse::<usize>() {
                Ok(n) if n <= MAX_BODY => parsed.push(n),
                Ok(n) => return Some(Header::Bad(format!("a message of {n} bytes is over the {MAX_BODY}-byte limit; skipped"))),
                Err(_) => return Some(Header::Bad(format!("bad Content-Length `{}`; its body is skipped", v.escape_debug()))),
            }
        }
        let Some(&len) = parsed.iter().max() else { return Some(Header::Bad("a header block without Content-Length".into())) };
        // Two lengths that disagree: the larger one, so that neither message is cut, and then
        // a frame that is too large is found like any other.
        let conflict =
            parsed.iter().any(|n| *n != len).then(|| format!("Content-Length given {} times with different values ({})", parsed.len(), values.join(", ")));
        Some(Header::Length(len, conflict))
    }

    /// A body of `len` bytes. A header inside it, or a pause (or the end of input) after a
    /// complete JSON value, means the declared length was too large.
    fn read_body(&mut self, len: usize) -> Option<Frame> {
        // Where to look for a header next: never past one that more input may still decide
        // (a header split across reads must be seen whole, or the frame after it is lost).
        let mut scanned = 0usize;
        // A program's text may say `Content-Length:` (an `evaluate` expression, say), and a
        // message carrying it must pass at once: a body that is all there and a JSON value is
        // taken without looking inside, and until then a header inside what reads as a JSON
        // string is passed over (a real header needs raw line breaks, which a JSON string
        // cannot hold). Every header counts once the declared body is there and is not a
        // value, or input pauses.
        let mut thorough = false;
        let mut strings = JsonStrings::default();
        // What the last read gave, when a pause made the scan thorough and it runs again
        // before the pause is acted on.
        let mut paused: Option<Option<bool>> = None;
        loop {
            if !thorough && self.buf.len() >= len {
                if complete_value(&self.buf[..len]).is_some() {
                    break;
                }
                thorough = true;
                scanned = 0;
            }
            // A header that starts inside the declared body counts even when it runs past its
            // end (a body declared a few bytes too long ends in the middle of the next header).
            let upto = self.buf.len().min(len.saturating_add(NAME.len() + 1));
            let mut at = scanned;
            let mut first_undecided = None;
            while let Some(i) = find_header(&self.buf[..upto], at).filter(|&i| i < len) {
                if !thorough && strings.inside(&self.buf, i) {
                    at = i + 1;
                    continue;
                }
                match self.split_at(i, len) {
                    Split::Frame(f) => return Some(f),
                    // A later header may still hold a whole message (a garbage header can
                    // declare more than will ever come): look on, and come back here.
                    Split::Undecided => {
                        first_undecided.get_or_insert(i);
                        at = i + 1;
                    }
                    Split::No => at = i + 1,
                }
            }
            let undecided = first_undecided.is_some();
            scanned = first_undecided.unwrap_or(at.max(upto.saturating_sub(NAME.len())));
            if self.buf.len() >= len && !undecided && !self.header_may_start_in_tail(len) {
                break;
            }
            let more = match paused.take() {
                Some(more) => more,
                None => self.fill_within(STALL),
            };
            if more != Some(true) && !thorough {
                thorough = true;
                scanned = 0;
                paused = Some(more);
                continue;
            }
            if self.buf.len() >= len && more != Some(true) {
                break;
            }
            if more != Some(true) {
                if let Some(v) = complete_value(&self.buf) {
                    let n = self.buf.len();
                    self.buf.clear();
                    return Some(Frame::Bad(too_large(len, n, v)));
                }
                if more == Some(false) {
                    let n = self.buf.len();
                    self.skip(n);
                    return None;
                }
            }
        }
        let body: Vec<u8> = self.buf.drain(..len).collect();
        Some(Frame::Body(body))
    }

    /// Whether the bytes read so far end, before `len` or across it, with the start of a header
    /// name, in a declared body of `len` bytes that is not a JSON value: more input decides.
    fn header_may_start_in_tail(&self, len: usize) -> bool {
        let from = len.saturating_sub(NAME.len() - 1);
        let tail_starts_name = (from..len).any(|s| {
            let tail = &self.buf[s..self.buf.len().min(s + NAME.len())];
            tail.len() < NAME.len() && tail.eq_ignore_ascii_case(&NAME[..tail.len()])
        });
        tail_starts_name && complete_value(&self.buf[..len]).is_none()
    }

    /// Whether a header at `i`, inside a declared body of `len` bytes, ends that body.
    fn split_at(&mut self, i: usize, len: usize) -> Split {
        // The declared body holds a complete value and then a header: too large. (Bytes after a
        // value make the body malformed whatever follows, so the header need not be whole.)
        if let Some(v) = complete_value(&self.buf[..i]) {
            self.buf.drain(..i);
            return Split::Frame(Frame::Bad(too_large(len, i, v)));
        }
        let Some((_, body_start)) = header_end(&self.buf[i..]) else { return Split::Undecided };
        // Or it holds garbage and then a whole well-formed message: the garbage had a header
        // of its own; read on from the message.
        match embedded_message(&self.buf[i..], body_start) {
            Some(true) => {
                self.skip(i);
                Split::Frame(Frame::Bad(Incoming::Bad(format!("a message of {len} bytes cut short by the next header"), None)))
            }
            Some(false) => Split::No,
            None => Split::Undecided,
        }
    }
}

/// Whether bytes start with a header block (its body at `body`) and a complete body that is a
/// JSON value; `None` while the body has not all arrived.
fn embedded_message(bytes: &[u8], body: usize) -> Option<bool> {
    let head = String::from_utf8_lossy(&bytes[..body]);
    let Some(n) = head.lines().next().and_then(|l| l.split_once(':')).and_then(|(_, v)| v.trim().parse::<usize>().ok()) else { return Some(false) };
    let Some(end) = body.checked_add(n) else { return Some(false) };
    bytes.get(body..end).map(|b| complete_value(b).is_some())
}

/// Whether offsets of a body fall inside a JSON string, read once from the body's start as it
/// arrives (offsets are asked in increasing order, and again for ones already asked).
#[derive(Default)]
struct JsonStrings {
    /// How far the body has been read, and the state there.
    read: usize,
    in_string: bool,
    escaped: bool,
    asked: std::collections::HashMap<usize, bool>,
}

impl JsonStrings {
    fn inside(&mut self, body: &[u8], at: usize) -> bool {
        if let Some(&inside) = self.asked.get(&at) {
            return inside;
        }
        if at < self.read {
            // Not asked before: count it as outside, as every header was counted before.
            return false;
        }
        for &b in &body[self.read..at] {
            if self.escaped {
                self.escaped = false;
            } else if self.in_string {
                match b {
                    b'\\' => self.escaped = true,
                    b'"' => self.in_string = false,
                    _ => {}
                }
            } else if b == b'"' {
                self.in_string = true;
            }
        }
        self.read = at;
        self.asked.insert(at, self.in_string);
        self.in_string
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

#[cfg(test)]
mod tests;
