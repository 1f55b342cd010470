//! `Content-Length` framing (`Content-Length: N\r\n\r\n` then N bytes of JSON), as the
//! language server (`lsp/src/transport.rs`, async) and the debug adapter
//! (`dap/src/transport.rs`, on threads) both read it: one sans-IO [`Framer`] that takes bytes
//! in ([`Framer::feed`]) and yields frames or framing errors ([`Framer::poll`]); the transports
//! only move bytes and tell it when input paused ([`Framer::pause`]) or ended
//! ([`Framer::end`]). Its rules:
//!
//! * every byte is framed as bytes: a non-UTF-8 header line is skipped like any unknown header,
//!   and whatever is not part of a frame is skipped (noted in [`Framer::take_skipped`]) up to
//!   the next `Content-Length` header, wherever it starts;
//! * a header block cut short (a line that is not a header, then another `Content-Length`
//!   before the blank line): refused, and reading goes on from that `Content-Length`;
//! * `Content-Length: abc`, a negative or over-64 MiB length, a block over 8 KiB: refused, the
//!   body skipped; two `Content-Length` headers that disagree: the larger is read, and the
//!   message refused;
//! * a length too small (a client counting characters, not bytes): the truncated body with the
//!   bytes after it is still read as the message it was (up to the next header), and refused;
//! * a length too large: noticed when the next header appears inside the declared body, or
//!   when input pauses with a complete JSON value read; that message is refused;
//! * a body holding a JSON value and then more bytes (or a second value): refused.
//!
//! A refused frame ([`Frame::Bad`]) carries the JSON object it still held, when one could be
//! read, so that a request there is answered with an error carrying its `seq` or `id`.

use serde_json::Value;
use std::time::Duration;

/// Bodies larger than this are skipped.
pub const MAX_BODY: usize = 64 << 20;
/// A header block longer than this is garbage.
pub const MAX_HEADER: usize = 8 << 10;
/// How long input may pause, in a body, before a complete JSON value read so far counts as the
/// message (a length declared too large).
pub const STALL: Duration = Duration::from_millis(300);
/// JSON nested deeper than this is not read as a message (serde_json's own default limit,
/// kept whatever features the build enables: a deeper parse could overflow the stack).
const MAX_JSON_DEPTH: usize = 128;
const NAME: &[u8] = b"content-length";

/// What the framer read.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    /// A frame's body, exactly the declared bytes: one JSON value, or bytes that are not JSON
    /// and cannot be read as more (the protocol judges them: text that is not Unicode, say).
    Body(Vec<u8>),
    /// Input that is not a well-formed frame: why, and the JSON object it still held, if one
    /// could be read (a request there is answered with an error).
    Bad(String, Option<Value>),
}

/// What [`Framer::poll`] asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Frame(Frame),
    /// More input is needed. With `pause_decides`, call [`Framer::pause`] when none comes
    /// within [`STALL`]; otherwise wait as long as it takes.
    NeedInput {
        pause_decides: bool,
    },
    /// The input ended and everything in it was read.
    End,
}

enum State {
    /// Looking for the next header block.
    Header,
    Body(Body),
    /// A declared body that is not JSON, read: the bytes after it may complete a message whose
    /// length was declared too small. With the length of what was last read as one (0: not
    /// yet).
    Short(Vec<u8>, Option<String>, usize),
}

/// A body being read: its declared length, why its header is wrong although a body follows,
/// and where the search for a header that ends it early stands.
struct Body {
    len: usize,
    conflict: Option<String>,
    /// Where to look for a header next: never past one that more input may still decide
    /// (a header split across reads must be seen whole, or the frame after it is lost).
    scanned: usize,
    /// A program's text may say `Content-Length:` (in a string), and a message carrying it
    /// must pass at once. So a body that is all there and a JSON value is taken without
    /// looking inside; until then a header inside what reads as a JSON string is passed over
    /// (a real header needs raw line breaks, which a JSON string cannot hold). Every header
    /// counts once the declared body is there and is not a value, or input pauses.
    thorough: bool,
    strings: JsonStrings,
}

/// Reads `Content-Length`-framed messages from bytes fed to it, resynchronising after garbage.
pub struct Framer {
    buf: Vec<u8>,
    state: State,
    /// No input came for [`STALL`] since the last bytes (cleared by more bytes).
    paused: bool,
    ended: bool,
    skipped: Vec<String>,
}

impl Default for Framer {
    fn default() -> Self {
        Framer::new()
    }
}

enum Header {
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

impl Framer {
    pub fn new() -> Framer {
        Framer {
            buf: Vec::new(),
            state: State::Header,
            paused: false,
            ended: false,
            skipped: Vec::new(),
        }
    }

    /// Bytes as they arrived.
    pub fn feed(&mut self, bytes: &[u8]) {
        if !bytes.is_empty() {
            self.buf.extend_from_slice(bytes);
            self.paused = false;
        }
    }

    /// No input came within [`STALL`] after [`Step::NeedInput`] with `pause_decides`.
    pub fn pause(&mut self) {
        self.paused = true;
    }

    /// The input ended (for good).
    pub fn end(&mut self) {
        self.ended = true;
    }

    /// Lines for the log about bytes skipped that were not part of a frame (blanks and
    /// well-formed headers are skipped silently).
    pub fn take_skipped(&mut self) -> Vec<String> {
        std::mem::take(&mut self.skipped)
    }

    /// The next frame, or what the framer waits for.
    pub fn poll(&mut self) -> Step {
        let step = self.step();
        if matches!(step, Step::Frame(_)) {
            // A pause decides the frame it happened in, not the next one.
            self.paused = false;
        }
        step
    }

    fn step(&mut self) -> Step {
        loop {
            match std::mem::replace(&mut self.state, State::Header) {
                State::Header => match self.header() {
                    Some(Header::Garbage) => {}
                    Some(Header::Bad(why)) => return Step::Frame(Frame::Bad(why, None)),
                    Some(Header::Length(len, conflict)) => {
                        let strings = JsonStrings::default();
                        self.state = State::Body(Body {
                            len,
                            conflict,
                            scanned: 0,
                            thorough: false,
                            strings,
                        });
                    }
                    None if self.ended => return Step::End,
                    None => {
                        return Step::NeedInput {
                            pause_decides: false,
                        }
                    }
                },
                State::Body(mut b) => match self.body(&mut b) {
                    Ok(Some(Frame::Body(body))) => match complete_value(&body) {
                        Some(v) => return Step::Frame(accepted(body, v, b.conflict)),
                        None => self.state = State::Short(body, b.conflict, 0),
                    },
                    Ok(Some(Frame::Bad(why, v))) => {
                        let why = b.conflict.map(|c| format!("{c}; {why}")).unwrap_or(why);
                        return Step::Frame(Frame::Bad(why, v));
                    }
                    Ok(None) => return Step::End,
                    Err(pause_decides) => {
                        self.state = State::Body(b);
                        return Step::NeedInput { pause_decides };
                    }
                },
                State::Short(body, conflict, mut tried) => match self.short(&body, &mut tried) {
                    Some(f) => {
                        return Step::Frame(match (f, conflict) {
                            (Frame::Bad(why, v), Some(c)) => Frame::Bad(format!("{c}; {why}"), v),
                            (Frame::Body(b), Some(c)) => Frame::Bad(c, lenient_object(&b)),
                            (f, None) => f,
                        })
                    }
                    None => {
                        self.state = State::Short(body, conflict, tried);
                        return Step::NeedInput {
                            pause_decides: true,
                        };
                    }
                },
            }
        }
    }

    fn skip(&mut self, n: usize) {
        if is_noise(&self.buf[..n]) {
            let shown: String = String::from_utf8_lossy(&self.buf[..n.min(80)])
                .escape_debug()
                .collect();
            self.skipped.push(format!(
                "skipped {n} byte(s) that are not a message: \"{shown}\""
            ));
        }
        self.buf.drain(..n);
    }

    fn skip_all(&mut self) {
        self.skip(self.buf.len());
    }

    /// The next header block, everything before it skipped; `None` until input decides.
    fn header(&mut self) -> Option<Header> {
        // 1. Find a header name, skipping whatever comes before it.
        let Some(start) = find_header(&self.buf, 0) else {
            if self.ended {
                self.skip_all();
            } else {
                // Keep a tail that may be the start of a split header name.
                let keep = self.buf.len().min(NAME.len() + 16);
                self.skip(self.buf.len() - keep);
            }
            return None;
        };
        self.skip(start);
        // 2. The header block up to its blank line.
        let Some((blank, body_start)) = header_end(&self.buf) else {
            if self.buf.len() > MAX_HEADER {
                self.skip(NAME.len());
                return Some(Header::Bad("a header block without an end".into()));
            }
            if self.ended {
                self.skip_all();
            }
            return None;
        };
        // The name may have been found before the bytes after it arrived: check it again.
        if find_header(&self.buf[..blank], 0) != Some(0) {
            self.skip(1);
            return Some(Header::Garbage);
        }
        // A line that is not a header, then another `Content-Length`: the block had no blank
        // line (`Content-Length: 2\r\n{}` then a message); read on from the next one.
        if let Some(next) = cut_short(&self.buf[..blank]) {
            self.buf.drain(..next);
            return Some(Header::Bad(
                "a header block without its blank line, cut short by the next Content-Length"
                    .into(),
            ));
        }
        let values = lengths(&self.buf[..blank]);
        self.buf.drain(..body_start);
        let mut parsed = Vec::new();
        for v in &values {
            match v.parse::<usize>() {
                Ok(n) if n <= MAX_BODY => parsed.push(n),
                Ok(n) => {
                    return Some(Header::Bad(format!(
                        "a message of {n} bytes is over the {MAX_BODY}-byte limit; skipped"
                    )))
                }
                Err(_) => {
                    return Some(Header::Bad(format!(
                        "bad Content-Length `{}`; its body is skipped",
                        v.escape_debug()
                    )))
                }
            }
        }
        let Some(&len) = parsed.iter().max() else {
            return Some(Header::Bad("a header block without Content-Length".into()));
        };
        // Two lengths that disagree: the larger one, so that neither message is cut, and then
        // a frame that is too large is found like any other.
        let conflict = parsed.iter().any(|n| *n != len).then(|| {
            format!(
                "Content-Length given {} times with different values ({})",
                parsed.len(),
                values.join(", ")
            )
        });
        Some(Header::Length(len, conflict))
    }

    /// A body of `len` bytes (`Ok(None)`: input ended), or `Err(pause_decides)` until input
    /// decides. A header inside it, or a pause (or the end of input) after a complete JSON
    /// value, means the declared length was too large.
    fn body(&mut self, b: &mut Body) -> Result<Option<Frame>, bool> {
        let len = b.len;
        loop {
            if !b.thorough && self.buf.len() >= len {
                if complete_value(&self.buf[..len]).is_some() {
                    return Ok(Some(Frame::Body(self.buf.drain(..len).collect())));
                }
                b.thorough = true;
                b.scanned = 0;
            }
            // A header that starts inside the declared body counts even when it runs past its
            // end (a body declared a few bytes too long ends in the middle of the next header).
            let upto = self.buf.len().min(len.saturating_add(NAME.len() + 1));
            let mut at = b.scanned;
            let mut first_undecided = None;
            while let Some(i) = find_header(&self.buf[..upto], at).filter(|&i| i < len) {
                if !b.thorough && b.strings.inside(&self.buf, i) {
                    at = i + 1;
                    continue;
                }
                match self.split_at(i, len) {
                    Split::Frame(f) => return Ok(Some(f)),
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
            b.scanned = first_undecided.unwrap_or(at.max(upto.saturating_sub(NAME.len())));
            if self.buf.len() >= len && !undecided && !self.header_may_start_in_tail(len) {
                return Ok(Some(Frame::Body(self.buf.drain(..len).collect())));
            }
            if !self.paused && !self.ended {
                return Err(true);
            }
            // Input paused or ended: every header counts now; scan again before deciding.
            if !b.thorough {
                b.thorough = true;
                b.scanned = 0;
                continue;
            }
            if self.buf.len() >= len {
                return Ok(Some(Frame::Body(self.buf.drain(..len).collect())));
            }
            if let Some(v) = complete_value(&self.buf) {
                let n = self.buf.len();
                self.buf.clear();
                return Ok(Some(too_large(len, n, v)));
            }
            if self.ended {
                self.skip_all();
                return Ok(None);
            }
            // A pause that decided nothing: wait for the next one.
            self.paused = false;
            return Err(true);
        }
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
            return Split::Frame(too_large(len, i, v));
        }
        let Some((_, body_start)) = header_end(&self.buf[i..]) else {
            return Split::Undecided;
        };
        // Or it holds garbage and then a whole well-formed message: the garbage had a header
        // of its own; read on from the message.
        match embedded_message(&self.buf[i..], body_start) {
            Some(true) => {
                self.skip(i);
                Split::Frame(Frame::Bad(
                    format!("a message of {len} bytes cut short by the next header"),
                    None,
                ))
            }
            Some(false) => Split::No,
            None => Split::Undecided,
        }
    }

    /// A declared body that is not one JSON value: a value and then more bytes (refused with
    /// the value), the start of a message whose length was counted too small (read on up to
    /// the next header, and refused with it), or bytes the protocol judges. `None` until input
    /// decides.
    fn short(&mut self, body: &[u8], tried: &mut usize) -> Option<Frame> {
        // A length counted in characters is short by at most three bytes per character.
        let limit = body.len().saturating_mul(3).saturating_add(64);
        let end = find_header(&self.buf, 0).unwrap_or(self.buf.len());
        let tail = &self.buf[..end.min(limit)];
        let undecided = end == self.buf.len() && end < limit && !self.paused && !self.ended;
        // A large body whose rest trickles in is read again only when it has grown by a
        // quarter (or input decides), not once per read: that would be quadratic.
        let whole_len = body.len() + tail.len();
        if undecided && *tried > 0 && whole_len > 4096 && whole_len < *tried + *tried / 4 {
            return None;
        }
        *tried = whole_len;
        let whole = [body, tail].concat();
        match first_value(&whole) {
            First::Value(v, used) if used <= body.len() => {
                let extra = body[used..].trim_ascii().len();
                let why = format!("the body holds a JSON value and then {extra} more byte(s) (one message per frame)");
                Some(Frame::Bad(why, Some(v).filter(Value::is_object)))
            }
            First::Value(v, used) if v.is_object() => {
                self.buf.drain(..used - body.len());
                let why =
                    format!("Content-Length {} is smaller than the message ({used} bytes): it counts the bytes of the UTF-8 body, not characters", body.len());
                Some(Frame::Bad(why, Some(v)))
            }
            First::Incomplete if undecided => None,
            _ => Some(Frame::Body(body.to_vec())),
        }
    }
}

/// A body that is one JSON value: a message, unless its header was wrong.
fn accepted(body: Vec<u8>, v: Value, conflict: Option<String>) -> Frame {
    match conflict {
        Some(why) => Frame::Bad(why, Some(v).filter(Value::is_object)),
        None => Frame::Body(body),
    }
}

fn too_large(declared: usize, got: usize, v: Value) -> Frame {
    Frame::Bad(
        format!("Content-Length {declared} is larger than the message ({got} bytes)"),
        Some(v).filter(Value::is_object),
    )
}

/// The JSON object a body holds, read leniently (strings that are not Unicode, bytes after
/// the value): what a refused request's answer is matched with.
pub fn lenient_object(body: &[u8]) -> Option<Value> {
    if !depth_within(body) {
        return None;
    }
    let v = complete_value(body)
        .or_else(|| crate::lenient_json::parse(body))
        .or_else(|| match first_value(body) {
            First::Value(v, _) => Some(v),
            _ => None,
        });
    v.filter(Value::is_object)
}

enum First {
    /// The first value, and the bytes it and the blanks before it take.
    Value(Value, usize),
    /// The bytes end inside the first value (or hold only blanks).
    Incomplete,
    Invalid,
}

fn first_value(bytes: &[u8]) -> First {
    if !depth_within(bytes) {
        return First::Invalid;
    }
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>();
    match values.next() {
        Some(Ok(v)) => First::Value(v, values.byte_offset()),
        Some(Err(e)) if e.is_eof() => First::Incomplete,
        None => First::Incomplete,
        Some(Err(_)) => First::Invalid,
    }
}

/// Why a message's body is not one JSON value.
#[derive(Debug, thiserror::Error)]
pub enum JsonError {
    /// Refused before parsing: it could overflow the stack.
    #[error("JSON nested more than {MAX_JSON_DEPTH} levels deep")]
    TooDeep,
    /// What `serde_json` says, with its line and column.
    #[error(transparent)]
    Syntax(#[from] serde_json::Error),
}

/// The bytes as one JSON value (surrounding blanks allowed), or why not. JSON nested too deep
/// is refused before it is parsed.
pub fn parse_value(bytes: &[u8]) -> Result<Value, JsonError> {
    if !depth_within(bytes) {
        return Err(JsonError::TooDeep);
    }
    Ok(serde_json::from_slice(bytes)?)
}

fn complete_value(bytes: &[u8]) -> Option<Value> {
    parse_value(bytes).ok()
}

/// Whether brackets outside strings nest at most [`MAX_JSON_DEPTH`] deep.
fn depth_within(bytes: &[u8]) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in bytes {
        if escaped {
            escaped = false;
        } else if in_string {
            match b {
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > MAX_JSON_DEPTH {
                        return false;
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    true
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
        let blanks = rest
            .iter()
            .take_while(|b| **b == b' ' || **b == b'\t')
            .count();
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

/// In a header block (without its blank line), where a `Content-Length` header starts after a
/// line that is not a header (`name: value`, the name a token): the block was cut short there.
fn cut_short(head: &[u8]) -> Option<usize> {
    let first_line = head.iter().position(|b| *b == b'\n')? + 1;
    let mut at = first_line;
    for line in head[first_line..].split(|b| *b == b'\n') {
        let text = line.strip_suffix(b"\r").unwrap_or(line);
        let name = text
            .iter()
            .position(|b| *b == b':')
            .map(|c| text[..c].trim_ascii_end());
        let is_header = name.is_some_and(|n| {
            !n.is_empty()
                && n.iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_')
        });
        if !is_header {
            return find_header(head, at);
        }
        at += line.len() + 1;
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
            name.eq_ignore_ascii_case(NAME)
                .then(|| String::from_utf8_lossy(line[colon + 1..].trim_ascii()).into_owned())
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

/// Whether bytes start with a header block (its body at `body`) and a complete body that is a
/// JSON value; `None` while the body has not all arrived.
fn embedded_message(bytes: &[u8], body: usize) -> Option<bool> {
    let head = String::from_utf8_lossy(&bytes[..body]);
    let Some(n) = head
        .lines()
        .next()
        .and_then(|l| l.split_once(':'))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
    else {
        return Some(false);
    };
    let Some(end) = body.checked_add(n) else {
        return Some(false);
    };
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

#[cfg(test)]
mod tests;
