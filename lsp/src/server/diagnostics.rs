//! Pushed diagnostics: scheduled after each change, computed off the lock, dropped when the
//! version moved on; and the diagnostics of world files and of documents out of sync.

use super::state::{is_world, program_path_of, State};
use super::Backend;
use crate::cancel::{self, Cancelled};
use crate::to_proto;
use opal_core::span::LineIndex;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::Client;

/// How long diagnostics wait for changes sent together (one editor action may arrive as
/// several notifications). Typing is not waited for: one analysis of a document runs at a
/// time and the versions replaced meanwhile are skipped (`Snapshot::analysis`), so an edit
/// after a pause gets its diagnostics one analysis later, as in rust-analyzer.
const DEBOUNCE: Duration = Duration::from_millis(5);

/// Publishes diagnostics for a document once typing pauses (the version must not move).
/// The analysis runs off the lock; diagnostics of a version that was replaced meanwhile
/// are dropped.
pub(super) fn schedule(state: Arc<Mutex<State>>, client: Client, uri: Uri, version: i32) {
    tokio::spawn(async move {
        tokio::time::sleep(DEBOUNCE).await;
        let (world_batch, snap, pull, refresh) = {
            let mut st = state.lock().unwrap_or_else(PoisonError::into_inner);
            if st.docs.get(&uri).map(|o| o.doc.version) != Some(version) {
                return;
            }
            let (pull, refresh) = (st.caps.pull_diagnostics, st.caps.diagnostic_refresh);
            if is_world(&uri) {
                let batch = catch_unwind(AssertUnwindSafe(|| world_diagnostics(&mut st, &uri)));
                let prog = uri
                    .to_file_path()
                    .and_then(|p| program_path_of(&p))
                    .and_then(Uri::from_file_path);
                let snap = prog.and_then(|p| Some((p.clone(), st.snapshot(&p)?)));
                (batch.ok(), snap, pull, refresh)
            } else {
                (
                    Some(vec![]),
                    st.snapshot(&uri).map(|s| (uri.clone(), s)),
                    pull,
                    refresh,
                )
            }
        };
        let world_changed = world_batch.as_ref().is_some_and(|b| !b.is_empty());
        for (u, diags, v) in world_batch.unwrap_or_default() {
            // World files are pushed whatever the client: it pulls only for programs.
            if !pull || is_world(&u) {
                client.publish_diagnostics(u, diags, v).await;
            }
        }
        if pull {
            // The client asks for programs' diagnostics itself; a world file that changed
            // theirs makes it ask again.
            if world_changed && refresh {
                let _ = client.workspace_diagnostic_refresh().await;
            }
            return;
        }
        let Some((target, mut snap)) = snap else {
            return;
        };
        let stale = snap.stale.clone();
        let v = snap.version;
        let u = target.clone();
        let token = cancel::Token {
            request: Arc::default(),
            stale: stale.clone(),
        };
        let job = tokio::task::spawn_blocking(move || {
            cancel::run(token, || {
                let a = snap.analysis();
                let pos = a.pos();
                a.diags
                    .iter()
                    .map(|d| to_proto::to_lsp_diagnostic(&pos, &u, d))
                    .collect::<Vec<_>>()
            })
        });
        match job.await {
            Ok(Ok(diags)) if !stale.load(Ordering::Relaxed) => {
                client.publish_diagnostics(target, diags, Some(v)).await
            }
            Ok(Ok(_)) => {}
            Ok(Err(p)) if p.is::<Cancelled>() => {}
            _ => {
                client
                    .log_message(
                        MessageType::ERROR,
                        format!("opal lsp: diagnostics for {} failed", target.as_str()),
                    )
                    .await
            }
        }
    });
}

/// Diagnostics of a world file after it changed (its program is re-checked separately).
fn world_diagnostics(st: &mut State, uri: &Uri) -> Vec<(Uri, Vec<Diagnostic>, Option<i32>)> {
    let Some(open) = st.docs.get(uri) else {
        return vec![];
    };
    let text = open.doc.text();
    let version = open.doc.version;
    let lines = LineIndex::new(&text);
    let pos = crate::position::Positions::with_encoding(&text, &lines, st.caps.encoding);
    let diags = match opal_core::world::parse_world(&text) {
        Ok(w) => w
            .warnings
            .iter()
            .map(|d| to_proto::to_lsp_diagnostic(&pos, uri, d))
            .collect(),
        Err(ds) => ds
            .iter()
            .map(|d| to_proto::to_lsp_diagnostic(&pos, uri, d))
            .collect(),
    };
    st.invalidate_programs();
    vec![(uri.clone(), diags, Some(version))]
}

/// The one diagnostic of a document whose text the server no longer has.
pub(super) fn out_of_sync_diagnostic(message: String) -> Diagnostic {
    let start = Position::new(0, 0);
    Diagnostic {
        range: Range::new(start, start),
        severity: Some(DiagnosticSeverity::ERROR),
        source: Some("opal".into()),
        message,
        ..Default::default()
    }
}

/// Pull diagnostics (`textDocument/diagnostic`, `workspace/diagnostic`): the same lists as the
/// pushed ones, with the document's version as result id.
impl Backend {
    pub(super) async fn pull_document(
        &self,
        p: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        // Pull diagnostics: the same list as the pushed one, with the version as result id.
        let uri = p.text_document.uri;
        if let Some(message) = self
            .lock()
            .docs
            .get(&uri)
            .and_then(|o| o.doc.out_of_sync.clone())
        {
            let items = vec![out_of_sync_diagnostic(message)];
            let report = FullDocumentDiagnosticReport {
                result_id: None,
                items,
            };
            let report = RelatedFullDocumentDiagnosticReport {
                related_documents: None,
                full_document_diagnostic_report: report,
            };
            return Ok(DocumentDiagnosticReportResult::Report(
                DocumentDiagnosticReport::Full(report),
            ));
        }
        let u = uri.clone();
        let r = self
            .off_lock("diagnostic", &uri, move |a| {
                Ok(a.diags
                    .iter()
                    .map(|d| to_proto::to_lsp_diagnostic(&a.pos(), &u, d))
                    .collect::<Vec<_>>())
            })
            .await?;
        let (result_id, items) = match r {
            Some((v, items)) => (Some(v.to_string()), items),
            None => (None, vec![]),
        };
        Ok(DocumentDiagnosticReportResult::Report(
            DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
                related_documents: None,
                full_document_diagnostic_report: FullDocumentDiagnosticReport { result_id, items },
            }),
        ))
    }

    pub(super) async fn pull_workspace(
        &self,
        _: WorkspaceDiagnosticParams,
    ) -> Result<WorkspaceDiagnosticReportResult> {
        // Every open program's diagnostics (files on disk are analysed when opened).
        let uris: Vec<Uri> = self
            .lock()
            .docs
            .keys()
            .filter(|u| !is_world(u))
            .cloned()
            .collect();
        let mut items = Vec::new();
        for uri in uris {
            let u = uri.clone();
            let r = self
                .off_lock("workspace/diagnostic", &uri, move |a| {
                    Ok(a.diags
                        .iter()
                        .map(|d| to_proto::to_lsp_diagnostic(&a.pos(), &u, d))
                        .collect::<Vec<_>>())
                })
                .await?;
            if let Some((v, diags)) = r {
                items.push(WorkspaceDocumentDiagnosticReport::Full(
                    WorkspaceFullDocumentDiagnosticReport {
                        uri,
                        version: Some(v as i64),
                        full_document_diagnostic_report: FullDocumentDiagnosticReport {
                            result_id: Some(v.to_string()),
                            items: diags,
                        },
                    },
                ));
            }
        }
        Ok(WorkspaceDiagnosticReportResult::Report(
            WorkspaceDiagnosticReport { items },
        ))
    }
}
