use super::*;

/// Every message read from chunks of input: its `seq` (or the whole body when it has none), or
/// `!` and the `seq` of the request a bad frame still held (`!-` when none).
fn read_chunks(chunks: Vec<Vec<u8>>) -> Vec<String> {
    let (tx, rx) = mpsc::channel();
    for c in chunks {
        let _ = tx.send(c);
    }
    drop(tx);
    let mut r = FrameReader::new(rx);
    let mut out = Vec::new();
    while let Some(m) = r.read_message() {
        out.push(match m {
            Incoming::Message(v) => v
                .get("seq")
                .map(Value::to_string)
                .unwrap_or_else(|| v.to_string()),
            Incoming::Bad(_, Some(v)) => format!("!{}", v["seq"]),
            Incoming::Bad(_, None) => "!-".into(),
        });
    }
    out
}

fn frames(input: &[u8]) -> Vec<String> {
    read_chunks(vec![input.to_vec()])
}

/// [`frames`], with the input arriving a byte at a time, as a slow pipe may deliver it.
fn frames_trickled(input: &[u8]) -> Vec<String> {
    read_chunks(input.iter().map(|b| vec![*b]).collect())
}

fn frame(body: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{body}", body.len())
}

fn request(seq: i64) -> String {
    format!(r#"{{"seq":{seq},"type":"request","command":"threads"}}"#)
}

/// Input bytes and the frames read from them (`!seq`: refused; `?text`: a truncated body).
type Cases = Vec<(Vec<u8>, Vec<&'static str>)>;

#[test]
fn the_reader_resynchronises_after_any_malformed_frame() {
    let ok = request(7);
    let cases = [
        odd_header_cases(&ok),
        bad_and_short_length_cases(&ok),
        missing_blank_line_and_too_large_cases(&ok),
        duplicate_length_and_other_cases(&ok),
    ]
    .concat();
    for (input, want) in cases {
        assert_eq!(
            frames(&input),
            want,
            "{:?}",
            String::from_utf8_lossy(&input)
        );
        // A header split across reads is still seen.
        assert_eq!(
            frames_trickled(&input),
            want,
            "trickled: {:?}",
            String::from_utf8_lossy(&input)
        );
    }
}

/// Well-formed frames and non-UTF-8 header lines.
fn odd_header_cases(ok: &str) -> Cases {
    vec![
        ([frame(ok), frame(ok)].concat().into_bytes(), vec!["7", "7"]),
        // Non-UTF-8 header lines, before or after Content-Length.
        (
            [b"\xff\r\n".to_vec(), frame(ok).into_bytes()].concat(),
            vec!["7"],
        ),
        (
            [
                format!("Content-Length: {}\r\nX-Name: caf", ok.len()).into_bytes(),
                b"\xe9\r\n\r\n".to_vec(),
                ok.as_bytes().to_vec(),
            ]
            .concat(),
            vec!["7"],
        ),
    ]
}

/// A length that is not a number, or too small.
fn bad_and_short_length_cases(ok: &str) -> Cases {
    let e = r#"{"seq":3,"type":"request","command":"evaluate","arguments":{"expression":"café"}}"#;
    vec![
        // A bad length: reported, its body is skipped, the next message is read.
        (
            [format!("Content-Length: abc\r\n\r\n{ok}"), frame(ok)]
                .concat()
                .into_bytes(),
            vec!["!-", "7"],
        ),
        (
            [format!("Content-Length: -3\r\n\r\n{ok}"), frame(ok)]
                .concat()
                .into_bytes(),
            vec!["!-", "7"],
        ),
        (
            [
                format!("Content-Length: 99999999999999999999999\r\n\r\n{ok}"),
                frame(ok),
            ]
            .concat()
            .into_bytes(),
            vec!["!-", "7"],
        ),
        // One byte short (characters counted, not bytes): the request is still read, refused.
        (
            [
                format!("Content-Length: {}\r\n\r\n{e}", e.chars().count()),
                frame(ok),
            ]
            .concat()
            .into_bytes(),
            vec!["!3", "7"],
        ),
        // Much too small: still read whole up to the next header, and refused …
        (
            [format!("Content-Length: 10\r\n\r\n{ok}"), frame(ok)]
                .concat()
                .into_bytes(),
            vec!["!7", "7"],
        ),
        // … also when more follows the value (one message per frame; the rest is skipped) …
        (
            [format!("Content-Length: 10\r\n\r\n{ok}}}"), frame(ok)]
                .concat()
                .into_bytes(),
            vec!["!7", "7"],
        ),
        // … unless what follows does not complete it: a truncated body, its tail skipped.
        (
            [
                format!("Content-Length: 10\r\n\r\n{}]", &ok[..20]),
                frame(ok),
            ]
            .concat()
            .into_bytes(),
            vec!["!-", "7"],
        ),
    ]
}

/// A header block without its blank line, a body holding more than one value, a length too large.
fn missing_blank_line_and_too_large_cases(ok: &str) -> Cases {
    vec![
        // A header block without its blank line: the message after it is read (issue 29).
        (
            [
                "Content-Length: 2\r\n{}".to_string(),
                frame(&request(8)),
                frame(ok),
            ]
            .concat()
            .into_bytes(),
            vec!["!-", "8", "7"],
        ),
        // A value and more bytes in one body: refused with the value's seq (issue 29).
        (
            [frame(&format!("{ok}{}", request(8))), frame(ok)]
                .concat()
                .into_bytes(),
            vec!["!7", "7"],
        ),
        // Too large: the next header inside the declared body ends it.
        (
            [
                format!("Content-Length: {}\r\n\r\n{ok}", ok.len() + 20),
                frame(&request(8)),
                frame(ok),
            ]
            .concat()
            .into_bytes(),
            vec!["!7", "8", "7"],
        ),
        (
            [
                format!("Content-Length: {}\r\n\r\n{ok}", ok.len() + 100),
                frame(&request(8)),
            ]
            .concat()
            .into_bytes(),
            vec!["!7", "8"],
        ),
        // Too large and nothing after it: the end of input ends it.
        (
            format!("Content-Length: {}\r\n\r\n{ok}", ok.len() + 20).into_bytes(),
            vec!["!7"],
        ),
    ]
}

/// Two lengths, garbage between frames, other header spellings, not an object.
fn duplicate_length_and_other_cases(ok: &str) -> Cases {
    vec![
        // Duplicate lengths: the same twice is fine; different ones are refused either way.
        (
            [
                format!(
                    "Content-Length: {0}\r\nContent-Length: {0}\r\n\r\n{ok}",
                    ok.len()
                ),
                frame(&request(8)),
            ]
            .concat()
            .into_bytes(),
            vec!["7", "8"],
        ),
        (
            [
                format!(
                    "Content-Length: {}\r\nContent-Length: {}\r\n\r\n{ok}",
                    ok.len(),
                    ok.len() + 5
                ),
                frame(&request(8)),
            ]
            .concat()
            .into_bytes(),
            vec!["!7", "8"],
        ),
        (
            [
                format!(
                    "Content-Length: {}\r\nContent-Length: {}\r\n\r\n{ok}",
                    ok.len() - 5,
                    ok.len()
                ),
                frame(&request(8)),
            ]
            .concat()
            .into_bytes(),
            vec!["!7", "8"],
        ),
        // Garbage between frames, lowercase header name, LF-only headers, other headers.
        (
            [
                frame(ok),
                "garbage\r\n\r\n".into(),
                format!("content-length:{}\n\n{ok}", ok.len()),
            ]
            .concat()
            .into_bytes(),
            vec!["7", "7"],
        ),
        (
            [format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{ok}",
                ok.len()
            )]
            .concat()
            .into_bytes(),
            vec!["7"],
        ),
        // Not an object.
        (
            [frame("[1, 2]"), frame(ok)].concat().into_bytes(),
            vec!["!-", "7"],
        ),
        (b"\r\n\r\n\xff\xfe\x00".to_vec(), vec![]),
        (b"Content-Length".to_vec(), vec![]),
    ]
}

#[test]
fn a_header_inside_a_string_is_text() {
    let body = r#"{"seq":4,"type":"request","command":"evaluate","arguments":{"expression":"a \"}Content-Length: 5\r\n\r\n{}\" b"}}"#;
    assert_eq!(frames(frame(body).as_bytes()), ["4"]);
    assert_eq!(frames_trickled(frame(body).as_bytes()), ["4"]);
}

/// A length declared too large, with the client waiting for the answer (input stays open): the
/// pause decides it, and the request is refused with its `seq`.
#[test]
fn a_pause_ends_a_body_declared_too_large() {
    let ok = request(9);
    let (tx, rx) = mpsc::channel();
    let _ = tx.send(format!("Content-Length: {}\r\n\r\n{ok}", ok.len() + 50).into_bytes());
    let mut r = FrameReader::new(rx);
    let start = std::time::Instant::now();
    let m = r.read_message();
    assert!(
        matches!(&m, Some(Incoming::Bad(why, Some(v))) if v["seq"] == 9 && why.contains("larger")),
        "{m:?}"
    );
    assert!(start.elapsed() < STALL * 5, "{:?}", start.elapsed());
    drop(tx);
}

/// One mebibyte of noise (deterministic, with line breaks and colons), then a request.
#[test]
fn a_mebibyte_of_noise_is_skipped() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let noise: Vec<u8> = (0..1 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    let input = [noise, b"\r\n\r\n".to_vec(), frame(&request(5)).into_bytes()].concat();
    assert_eq!(frames(&input).last().map(String::as_str), Some("5"));
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
            ":",
            "é"
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        prop::collection::vec(any::<u8>(), 0..8),
    ]
}

proptest::proptest! {
    /// Any bytes, then two well-formed messages: the second is always read intact.
    #[test]
    fn any_garbage_is_followed_by_a_working_session(garbage in proptest::collection::vec(fragment(), 0..12)) {
        let ok = request(77);
        let input = [garbage.concat(), b"\r\n\r\n".to_vec(), frame(&ok).into_bytes(), frame(&ok).into_bytes()].concat();
        for got in [frames(&input), frames_trickled(&input)] {
            proptest::prop_assert_eq!(got.last().map(String::as_str), Some("77"), "{:?}", String::from_utf8_lossy(&input));
        }
    }
}
