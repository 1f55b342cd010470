//! How a request runs: on the state under its lock ([`Backend::guarded`]) or on a snapshot off
//! the lock ([`Backend::off_lock`]), a panic answering that request with an error and leaving
//! the server running, a cancellation or a change of the document stopping the work.

use super::state::is_world;
use super::{Backend, State};
use crate::analysis::Analysis;
use crate::cancel::{self, CancelOnDrop, Cancelled};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};
use std::time::Duration;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::Client;

/// Requests whose work grows with the whole file.
const HEAVY: &[&str] = &[
    "semanticTokens/full",
    "semanticTokens/full/delta",
    "inlayHint",
    "documentSymbol",
    "references",
    "formatting",
    "foldingRange",
    "documentLink",
];
/// How long heavy requests wait for a cancellation before they start.
const GRACE: Duration = Duration::from_millis(2);

impl Backend {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs one request's work on the state, turning a panic into an error answer.
    pub(super) async fn guarded<T>(
        &self,
        what: &str,
        f: impl FnOnce(&mut State) -> Result<T>,
    ) -> Result<T> {
        let outcome = {
            let mut st = self.lock();
            catch_unwind(AssertUnwindSafe(|| {
                // The protocol tests make one feature panic to check that the server survives.
                if std::env::var("OPAL_LSP_TEST_PANIC").is_ok_and(|v| v == what) {
                    panic!("OPAL_LSP_TEST_PANIC={what}");
                }
                f(&mut st)
            }))
        };
        match outcome {
            Ok(r) => r,
            Err(panic) => {
                let msg = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                self.client.log_message(MessageType::ERROR, format!("opal lsp: {what} failed: {msg} (the server keeps running; please report this)")).await;
                Err(Error {
                    code: ErrorCode::InternalError,
                    message: format!("internal error in {what}: {msg}").into(),
                    data: None,
                })
            }
        }
    }

    /// Runs a feature on the analysis of a program; unknown or closed documents answer `None`.
    pub(super) async fn with_analysis<T: Send + 'static>(
        &self,
        what: &'static str,
        uri: &Uri,
        f: impl FnOnce(&Analysis) -> Result<Option<T>> + Send + 'static,
    ) -> Result<Option<T>> {
        Ok(self.off_lock(what, uri, f).await?.and_then(|(_, r)| r))
    }

    /// Runs `f` on a snapshot of a program on a blocking thread, off the document lock, so
    /// other requests are answered meanwhile. When the client cancels the request, its future
    /// is dropped and the work stops at its next [`cancel::check`] (-32800); when the document
    /// changes first, the answer is ContentModified (-32801). A panic answers -32603.
    /// `None` for world files and documents that are not open; else the snapshot's version.
    pub(super) async fn off_lock<T: Send + 'static>(
        &self,
        what: &'static str,
        uri: &Uri,
        f: impl FnOnce(&Analysis) -> Result<T> + Send + 'static,
    ) -> Result<Option<(i32, T)>> {
        if is_world(uri) {
            return Ok(None);
        }
        if HEAVY.contains(&what) {
            // Whole-file work waits a moment, so a `$/cancelRequest` sent right after the
            // request (editors cancel superseded requests in bursts) drops it before it starts.
            tokio::time::sleep(GRACE).await;
        }
        let Some(mut snap) = self.lock().snapshot(uri) else {
            return Ok(None);
        };
        let token = cancel::Token {
            request: Arc::default(),
            stale: snap.stale.clone(),
        };
        let _cancel_on_drop = CancelOnDrop(token.request.clone());
        // The protocol tests make one feature panic to check that the server survives, or stall
        // (until cancelled or superseded) to change the document while it works.
        let test_panic = std::env::var("OPAL_LSP_TEST_PANIC").is_ok_and(|v| v == what);
        let test_stall =
            std::env::var("OPAL_LSP_TEST_STALL").is_ok_and(|v| v.split(',').any(|w| w == what));
        let version = snap.version;
        let client = self.client.clone();
        let job = tokio::task::spawn_blocking({
            let token = token.clone();
            move || {
                cancel::run(token, move || {
                    if test_panic {
                        panic!("OPAL_LSP_TEST_PANIC={what}");
                    }
                    let a = snap.analysis();
                    cancel::check();
                    if test_stall {
                        stall(what, &client);
                    }
                    f(&a)
                })
            }
        });
        let outcome = match job.await {
            Ok(r) => r,
            Err(e) => return Err(internal(what, &e.to_string())),
        };
        match outcome {
            Ok(_) if token.stale.load(Ordering::Relaxed) => Err(content_modified()),
            Ok(r) => r.map(|r| Some((version, r))),
            Err(p) if p.is::<Cancelled>() => Err(if token.request.load(Ordering::Relaxed) {
                Error::request_cancelled()
            } else {
                content_modified()
            }),
            Err(panic) => {
                let msg = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                self.client.log_message(MessageType::ERROR, format!("opal lsp: {what} failed: {msg} (the server keeps running; please report this)")).await;
                Err(internal(what, &msg))
            }
        }
    }
}

pub(super) fn content_modified() -> Error {
    Error {
        code: ErrorCode::ContentModified,
        message: "the document changed; ask again".into(),
        data: None,
    }
}

pub(super) fn internal(what: &str, msg: &str) -> Error {
    Error {
        code: ErrorCode::InternalError,
        message: format!("internal error in {what}: {msg}").into(),
        data: None,
    }
}

pub(super) fn invalid(msg: String) -> Error {
    Error {
        code: ErrorCode::InvalidParams,
        message: msg.into(),
        data: None,
    }
}

/// A feature stalled by the protocol tests (`OPAL_LSP_TEST_STALL`): a minute of checking for
/// cancellation, so a test can change or cancel the request while it works. It logs when
/// the work stops, which a test can see only if the cancellation reached it.
fn stall(what: &str, client: &Client) {
    let stopped = catch_unwind(|| {
        for _ in 0..12_000 {
            std::thread::sleep(Duration::from_millis(5));
            cancel::check();
        }
    });
    if let Err(unwind) = stopped {
        let (client, message) = (client.clone(), format!("opal lsp: stalled {what} stopped"));
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move { client.log_message(MessageType::INFO, message).await });
        }
        std::panic::resume_unwind(unwind);
    }
}
