//! Any bytes on the debug adapter's stdin, then a valid request: the adapter answers that
//! request (the transport resynchronises after any malformed frame and every request is
//! answered), never crashes and never hangs (`.ci/run` gives each input `-timeout=20`). Only a
//! `disconnect` among the bytes may end the session first.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::io::Write;
use std::sync::{mpsc, Arc, Mutex};

const PROBE: &[u8] = br#"{"seq":424242,"type":"request","command":"threads"}"#;
const ANSWER: &[u8] = br#""request_seq":424242"#;

/// The adapter's stdout, kept to look for the probe's answer.
#[derive(Clone, Default)]
struct Out(Arc<Mutex<Vec<u8>>>);

impl Write for Out {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        match self.0.lock() {
            Ok(mut v) => v.extend_from_slice(b),
            Err(p) => p.into_inner().extend_from_slice(b),
        }
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = data.to_vec();
    // End whatever header block the bytes left open, then the probe.
    input.extend_from_slice(b"\r\n\r\n");
    input.extend_from_slice(format!("Content-Length: {}\r\n\r\n", PROBE.len()).as_bytes());
    input.extend_from_slice(PROBE);
    let may_exit = data.windows(10).any(|w| w == b"disconnect");
    // All on this thread, so nothing outlives the input (a detached reader thread still
    // exiting when the input ends reads as a leak to the sanitizer): the bytes arrive in
    // chunks of a size the input picks (headers split across reads), then end of input,
    // which also stands for the pause that decides a length declared too large. A hang is
    // libFuzzer's `-timeout`.
    let size = data.first().map_or(1, |b| usize::from(*b % 64) + 1);
    let (chunks, arrived) = mpsc::channel();
    for c in input.chunks(size) {
        let _ = chunks.send(c.to_vec());
    }
    drop(chunks);
    let mut frames = opal_dap::transport::FrameReader::new(arrived);
    let (messages, rx) = mpsc::channel();
    while let Some(m) = frames.read_message() {
        let _ = messages.send(m);
    }
    drop(messages);
    let out = Out::default();
    let writer = opal_dap::transport::Writer::new(Box::new(out.clone()));
    // No live externals: the bytes must not start programs.
    opal_dap::adapter::Adapter::new(writer, None).serve(rx);
    let written = match out.0.lock() {
        Ok(v) => v.clone(),
        Err(p) => p.into_inner().clone(),
    };
    let answered = written.windows(ANSWER.len()).any(|w| w == ANSWER);
    assert!(
        answered || may_exit,
        "a valid request after these bytes got no answer"
    );
});
