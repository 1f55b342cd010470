//! Any bytes on the language server's stdin, then a valid request: the server answers that
//! request (the transport resynchronises after garbage and the session goes on), never crashes
//! and never hangs. Only an `exit` among the bytes may end the session first.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const PROBE: &[u8] =
    br#"{"jsonrpc":"2.0","id":"fuzz-probe","method":"workspace/symbol","params":{"query":""}}"#;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a tokio runtime")
    })
}

fuzz_target!(|data: &[u8]| {
    let mut input = data.to_vec();
    // End whatever header block the bytes left open, then the probe.
    input.extend_from_slice(b"\r\n\r\n");
    input.extend_from_slice(format!("Content-Length: {}\r\n\r\n", PROBE.len()).as_bytes());
    input.extend_from_slice(PROBE);
    let may_exit = data.windows(4).any(|w| w == b"exit");
    runtime().block_on(async move {
        let (mut to_server, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, mut from_server) = tokio::io::duplex(1 << 16);
        let session = tokio::spawn(opal_lsp::server::serve(server_in, server_out));
        let writer = tokio::spawn(async move {
            let _ = to_server.write_all(&input).await;
            to_server
        });
        let mut out = Vec::new();
        let answered = tokio::time::timeout(Duration::from_secs(10), async {
            let mut chunk = [0u8; 1 << 16];
            loop {
                if out.windows(12).any(|w| w == b"\"fuzz-probe\"") {
                    return true;
                }
                match from_server.read(&mut chunk).await {
                    Ok(0) | Err(_) => return false,
                    Ok(n) => out.extend_from_slice(&chunk[..n]),
                }
            }
        })
        .await;
        // Close the input: the session must end by itself.
        drop(writer.await);
        let drain = tokio::spawn(async move {
            let mut sink = Vec::new();
            let _ = from_server.read_to_end(&mut sink).await;
        });
        let ended = tokio::time::timeout(Duration::from_secs(10), session).await;
        drain.abort();
        assert!(
            ended.is_ok(),
            "the session did not end after its input closed"
        );
        match answered {
            Ok(true) => {}
            Ok(false) => assert!(
                may_exit,
                "the session ended without answering a valid request"
            ),
            Err(_) => panic!("a valid request after these bytes got no answer within 10 s"),
        }
    });
});
