use super::*;

/// Every frame read from chunks of input, then the end of input: a body's `seq` (or the whole
/// body when it has none, or `?` and its text when it is not JSON), or `!` and the `seq` of the
/// message a bad frame still held (`!-` when none).
fn read_chunks(chunks: &[&[u8]]) -> Vec<String> {
    let mut f = Framer::new();
    let mut chunks = chunks.iter();
    let mut out = Vec::new();
    loop {
        match f.poll() {
            Step::Frame(frame) => out.push(show(&frame)),
            Step::NeedInput { .. } => match chunks.next() {
                Some(c) => f.feed(c),
                None => f.end(),
            },
            Step::End => return out,
        }
    }
}

fn show(frame: &Frame) -> String {
    match frame {
        Frame::Body(b) => match serde_json::from_slice::<Value>(b) {
            Ok(v) => v
                .get("seq")
                .map(Value::to_string)
                .unwrap_or_else(|| v.to_string()),
            Err(_) => format!("?{}", String::from_utf8_lossy(b)),
        },
        Frame::Bad(_, Some(v)) => format!("!{}", v["seq"]),
        Frame::Bad(_, None) => "!-".into(),
    }
}

fn frames(input: &[u8]) -> Vec<String> {
    read_chunks(&[input])
}

/// [`frames`], with the input arriving a byte at a time, as a slow pipe may deliver it.
fn frames_trickled(input: &[u8]) -> Vec<String> {
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    read_chunks(&bytes)
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
fn the_framer_resynchronises_after_any_malformed_frame() {
    let ok = request(7);
    let cases = [
        odd_header_cases(&ok),
        too_small_length_cases(&ok),
        too_large_length_cases(&ok),
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

/// Well-formed frames, a header inside a JSON string, non-UTF-8 header lines.
fn odd_header_cases(ok: &str) -> Cases {
    let in_string = r#"{"seq":4,"arguments":{"t":"a \"}Content-Length: 5\r\n\r\n{}\" b"}}"#;
    vec![
        ([frame(ok), frame(ok)].concat().into_bytes(), vec!["7", "7"]),
        // A header inside a JSON string is text.
        (frame(in_string).into_bytes(), vec!["4"]),
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
fn too_small_length_cases(ok: &str) -> Cases {
    let e = r#"{"seq":3,"type":"request","command":"evaluate","arguments":{"expression":"café"}}"#;
    vec![
        // A bad length: refused, its body is skipped, the next message is read.
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
        // Much too small: still read whole up to the next header, and refused (what follows
        // the value, up to the next header, is skipped).
        (
            [format!("Content-Length: 10\r\n\r\n{ok}"), frame(ok)]
                .concat()
                .into_bytes(),
            vec!["!7", "7"],
        ),
        (
            [format!("Content-Length: 10\r\n\r\n{ok}}}"), frame(ok)]
                .concat()
                .into_bytes(),
            vec!["!7", "7"],
        ),
        // … unless what follows does not complete it: the truncated body, its tail skipped.
        (
            [
                format!("Content-Length: 10\r\n\r\n{}]", &ok[..20]),
                frame(ok),
            ]
            .concat()
            .into_bytes(),
            vec![r#"?{"seq":7,""#, "7"],
        ),
    ]
}

/// A length too large: the next header, or the end of input, ends the body.
fn too_large_length_cases(ok: &str) -> Cases {
    vec![
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

/// Two lengths, garbage between frames, other header spellings, not an object, no frame at all.
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
        // Not an object: the protocol judges it.
        (
            [frame("[1, 2]"), frame(ok)].concat().into_bytes(),
            vec!["[1,2]", "7"],
        ),
        (b"\r\n\r\n\xff\xfe\x00".to_vec(), vec![]),
        (b"Content-Length".to_vec(), vec![]),
    ]
}

/// Issue 29: a header block without its blank line swallowed the next message.
#[test]
fn a_header_block_without_its_blank_line_does_not_hide_the_next_message() {
    for garbage in [
        "Content-Length: 2\r\n{}",
        "Content-Length: 2\n{}\r\n",
        "Content-Length: 40\r\nX: y\r\n[1]",
    ] {
        let input = [garbage.to_string(), frame(&request(8)), frame(&request(9))].concat();
        assert_eq!(frames(input.as_bytes()), ["!-", "8", "9"], "{garbage:?}");
        assert_eq!(
            frames_trickled(input.as_bytes()),
            ["!-", "8", "9"],
            "trickled: {garbage:?}"
        );
    }
}

/// Issue 29: one frame, one message; a value and more bytes is refused with the value's `seq`.
#[test]
fn a_body_with_bytes_after_its_value_is_refused_with_the_value() {
    let (a, b) = (request(5), request(6));
    for body in [
        format!("{a}{b}"),
        format!("{a} x"),
        format!("{a}\r\n{b}\r\n"),
        format!("{a}]"),
    ] {
        let input = [frame(&body), frame(&request(8))].concat();
        assert_eq!(frames(input.as_bytes()), ["!5", "8"], "{body:?}");
        assert_eq!(
            frames_trickled(input.as_bytes()),
            ["!5", "8"],
            "trickled: {body:?}"
        );
    }
    // Blanks after the value are not more bytes.
    assert_eq!(frames(frame(&format!(" {a}\r\n")).as_bytes()), ["5"]);
}

/// A length declared too large, with input open: the pause decides it (and only then).
#[test]
fn a_pause_ends_a_body_declared_too_large() {
    let ok = request(9);
    let mut f = Framer::new();
    f.feed(format!("Content-Length: {}\r\n\r\n{ok}", ok.len() + 50).as_bytes());
    assert_eq!(
        f.poll(),
        Step::NeedInput {
            pause_decides: true
        }
    );
    f.pause();
    let Step::Frame(Frame::Bad(why, Some(v))) = f.poll() else {
        panic!("not refused")
    };
    assert!(why.contains("larger") && v["seq"] == 9, "{why} {v}");
    assert_eq!(
        f.poll(),
        Step::NeedInput {
            pause_decides: false
        }
    );
    // Between frames, a pause decides nothing.
    f.feed(b"Content-Le");
    assert_eq!(
        f.poll(),
        Step::NeedInput {
            pause_decides: false
        }
    );
}

/// A length declared far too small, the rest of a large message trickling in: still read
/// whole and refused with its `seq` (read again as it grows by a quarter, not once per read).
#[test]
fn a_large_message_declared_too_small_is_read_whole() {
    let body = format!(r#"{{"seq":5,"x":"{}"}}"#, "a".repeat(600_000));
    let input = format!("Content-Length: 250000\r\n\r\n{body}");
    let chunks: Vec<&[u8]> = input.as_bytes().chunks(1024).collect();
    assert_eq!(read_chunks(&chunks), ["!5"]);
}

/// JSON nested too deep for a parser is not read as a value, whatever serde_json's features.
#[test]
fn deep_nesting_is_not_parsed() {
    let deep = "[".repeat(100_000) + &"]".repeat(100_000);
    assert_eq!(
        frames([frame(&deep), frame(&request(1))].concat().as_bytes())
            .last()
            .map(String::as_str),
        Some("1")
    );
    assert!(lenient_object(deep.as_bytes()).is_none());
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

fn message() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    (0i64..1000, "[a-zé\"\\\\:{} \\r\\n-]{0,24}", any::<bool>()).prop_map(|(seq, text, lf)| {
        let body = serde_json::json!({"seq": seq, "type": "request", "command": "evaluate", "arguments": {"expression": format!("Content-Length: {text}")}})
            .to_string();
        let eol = if lf { "\n" } else { "\r\n" };
        format!("Content-Type: application/json{eol}Content-Length: {}{eol}{eol}{body}", body.len())
    })
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

    /// Any split of a valid stream into chunks yields the same frames: every message, whole.
    #[test]
    fn any_split_of_a_valid_stream_yields_the_same_frames(
        messages in proptest::collection::vec(message(), 1..6),
        cuts in proptest::collection::vec(proptest::prelude::any::<proptest::sample::Index>(), 0..12),
    ) {
        let input = messages.concat().into_bytes();
        let mut at: Vec<usize> = cuts.iter().map(|c| c.index(input.len() + 1)).collect();
        at.sort_unstable();
        let mut chunks = Vec::new();
        let mut from = 0;
        for cut in at.into_iter().chain([input.len()]) {
            chunks.push(&input[from..cut]);
            from = cut;
        }
        let want = frames(&input);
        proptest::prop_assert_eq!(want.len(), messages.len());
        proptest::prop_assert!(want.iter().all(|f| !f.starts_with('!') && !f.starts_with('?')), "{:?}", want);
        proptest::prop_assert_eq!(read_chunks(&chunks), want);
    }
}
