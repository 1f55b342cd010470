//! Any bytes on the debug adapter's stdin, then a valid request: the adapter answers that
//! request (the transport resynchronises after any malformed frame and every request is
//! answered), never crashes and never hangs. Only a `disconnect` among the bytes may end the
//! session first.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::io::Write;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

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
    let out = Out::default();
    let rx = opal_dap::transport::spawn_reader(std::io::Cursor::new(input));
    let writer = opal_dap::transport::Writer::new(Box::new(out.clone()));
    let (done_tx, done) = mpsc::channel();
    // No live externals: the bytes must not start programs.
    std::thread::spawn(move || {
        let code = opal_dap::adapter::Adapter::new(writer, None).serve(rx);
        let _ = done_tx.send(code);
    });
    // The input ends after the probe: the session must end by itself.
    assert!(done.recv_timeout(Duration::from_secs(10)).is_ok(), "the session did not end within 10 s of its input's end");
    let written = match out.0.lock() {
        Ok(v) => v.clone(),
        Err(p) => p.into_inner().clone(),
    };
    let answered = written.windows(ANSWER.len()).any(|w| w == ANSWER);
    assert!(answered || may_exit, "a valid request after these bytes got no answer");
});
