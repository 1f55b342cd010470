//! A session: the transport's pumps around tower-lsp-server, on stdio or on any byte streams.

use super::Backend;
use crate::splice::Splices;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tower_lsp_server::{LspService, Server};

/// Serves the language server on stdin/stdout until the client sends `exit` or closes stdin.
/// The exit code is 0 after a `shutdown` request, 1 otherwise (LSP `exit`).
pub fn run_stdio() -> i32 {
    // Analyses run on blocking threads; one idle for a second ends, and its allocator heap's
    // free memory goes back to the system with it (tokio's default keeps it ten seconds).
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder
        .worker_threads(2)
        .thread_keep_alive(std::time::Duration::from_secs(1))
        .enable_all();
    let rt = match builder.build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("opal lsp: cannot start the async runtime: {e}");
            return 1;
        }
    };
    let shut_down = rt.block_on(serve(tokio::io::stdin(), tokio::io::stdout()));
    // Reading stdin occupies a blocking thread that may never return: do not wait for it.
    rt.shutdown_timeout(Duration::from_millis(100));
    if shut_down {
        0
    } else {
        eprintln!("opal lsp: exiting without a `shutdown` request first (exit code 1)");
        1
    }
}

/// Serves one session on any byte streams (stdio, or the protocol fuzz target's buffers), every
/// byte of `input` through the checking [`crate::transport`] layer. Returns whether the client
/// sent `shutdown` before the session ended.
pub async fn serve<I, O>(input: I, output: O) -> bool
where
    I: tokio::io::AsyncRead + Unpin + Send + 'static,
    O: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let shut_down = Arc::new(AtomicBool::new(false));
    let (server_in, feed) = tokio::io::duplex(1 << 16);
    let (server_out, drain) = tokio::io::duplex(1 << 20);
    let (inject, injected) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(crate::transport::pump_input(input, feed, inject));
    let splices = Arc::new(Splices::default());
    let output = tokio::spawn(crate::transport::pump_output(
        drain,
        output,
        injected,
        splices.clone(),
    ));
    let (service, socket) =
        LspService::build(|client| Backend::new(client, shut_down.clone(), splices))
            .custom_method("opal/desugar", Backend::desugar)
            .custom_method("opal/documentText", Backend::document_text)
            .custom_method(crate::transport::OUT_OF_SYNC, Backend::out_of_sync)
            .finish();
    // Requests wait on blocking threads, not on each other: let many be in flight.
    Server::new(server_in, server_out, socket)
        .concurrency_level(64)
        .serve(service)
        .await;
    let _ = output.await;
    shut_down.load(Ordering::SeqCst)
}
