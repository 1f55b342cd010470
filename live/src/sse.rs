//! Server-sent events (the `text/event-stream` format of chat-completion streams): bytes in,
//! complete events' `data` out. Events may arrive split across network chunks anywhere, even
//! inside a UTF-8 character.

#[derive(Default)]
pub struct SseParser {
    buf: Vec<u8>,
}

/// One complete event.
#[derive(Debug, PartialEq)]
pub struct SseEvent {
    /// The `event:` field, if any (`error` marks an error event on some servers).
    pub event: Option<String>,
    /// The `data:` lines joined by newlines.
    pub data: String,
}

impl SseParser {
    /// Feeds bytes; returns the events they complete. `Err` for an event that is not UTF-8.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, String> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some((end, sep)) = find_blank_line(&self.buf) {
            let raw: Vec<u8> = self.buf.drain(..end + sep).take(end).collect();
            let text =
                String::from_utf8(raw).map_err(|_| "an event is not valid UTF-8".to_string())?;
            if let Some(ev) = parse_event(&text) {
                out.push(ev);
            }
        }
        Ok(out)
    }

    /// Bytes of an event that has not been completed by a blank line.
    pub fn pending(&self) -> &[u8] {
        &self.buf
    }
}

/// The end of the first event and the length of the blank line after it (`\n\n`, `\r\n\r\n`).
fn find_blank_line(b: &[u8]) -> Option<(usize, usize)> {
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"\r\n\r\n") {
            return Some((i, 4));
        }
        if b[i..].starts_with(b"\n\n") || b[i..].starts_with(b"\r\r") {
            return Some((i, 2));
        }
        i += 1;
    }
    None
}

fn parse_event(text: &str) -> Option<SseEvent> {
    let mut data: Vec<&str> = Vec::new();
    let mut event = None;
    for line in text.lines() {
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "" => {} // a comment (`: keep-alive`)
            "data" => data.push(value),
            "event" => event = Some(value.to_string()),
            _ => {}
        }
    }
    (!data.is_empty()).then(|| SseEvent {
        event,
        data: data.join("\n"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_anywhere_come_out_whole() {
        let stream = "data: {\"a\":\"é\"}\n\n: keep-alive\n\nevent: error\r\ndata: one\r\ndata: two\r\n\r\ndata: [DONE]\n\n".as_bytes();
        let whole = SseParser::default().push(stream).unwrap();
        for cut in 0..stream.len() {
            let mut p = SseParser::default();
            let mut got = p.push(&stream[..cut]).unwrap();
            got.extend(p.push(&stream[cut..]).unwrap());
            assert_eq!(got, whole, "cut at {cut}");
        }
        let data: Vec<&str> = whole.iter().map(|e| e.data.as_str()).collect();
        assert_eq!(data, ["{\"a\":\"é\"}", "one\ntwo", "[DONE]"]);
        assert_eq!(whole[1].event.as_deref(), Some("error"));
    }

    #[test]
    fn invalid_utf8_is_an_error_not_a_panic() {
        assert!(SseParser::default().push(b"data: \xff\xfe\n\n").is_err());
    }
}
