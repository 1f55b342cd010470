//! OPAL's own requests and notification: `opal/desugar`, `opal/documentText`, and the
//! transport's notice that a document's text could not be decoded.

use super::document::Document;
use super::guard::invalid;
use super::state::Open;
use super::{diagnostics, Backend};
use serde::Deserialize;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

impl Backend {
    pub(super) async fn desugar(&self, p: UriParams) -> Result<String> {
        let uri = p.uri()?;
        self.with_analysis("opal/desugar", &uri, move |a| {
            if a.compiled.has_errors() {
                let n = a.compiled.diags.iter().filter(|d| d.is_error()).count();
                return Ok(Some(format!(
                    "# The program has {n} error(s); fix them to see its desugared core.\n"
                )));
            }
            Ok(Some(opal_core::machine::print_initial(
                &a.compiled.program,
                false,
            )))
        })
        .await
        .map(|t| t.unwrap_or_default())
    }

    /// The editor sent a document's text in a form that cannot be decoded (see
    /// [`crate::transport::OUT_OF_SYNC`]): the server's copy is no longer the editor's. Until
    /// the whole text comes again (`didOpen`, or a change without a range), nothing is
    /// analysed and the user is told, in the window and as the document's one diagnostic.
    pub(super) async fn out_of_sync(&self, p: OutOfSyncParams) {
        let message = format!("OPAL's copy of this document is out of sync: {}. Close and reopen the file to repair it.", p.reason);
        let version = {
            let mut st = self.lock();
            let encoding = st.caps.encoding;
            let o = st.docs.entry(p.uri.clone()).or_insert_with(|| {
                Open::new(Document::new("", p.version.unwrap_or(0), "opal".into()))
            });
            o.doc.encoding = encoding;
            o.doc.out_of_sync = Some(message.clone());
            o.doc.version = p.version.unwrap_or(o.doc.version);
            o.changed();
            o.doc.version
        };
        self.client
            .show_message(MessageType::ERROR, format!("{}: {message}", p.uri.as_str()))
            .await;
        self.client
            .publish_diagnostics(
                p.uri,
                vec![diagnostics::out_of_sync_diagnostic(message)],
                Some(version),
            )
            .await;
    }

    pub(super) async fn document_text(&self, p: UriParams) -> Result<Option<String>> {
        let uri = p.uri()?;
        self.guarded("opal/documentText", |st| {
            Ok(st.docs.get(&uri).map(|o| o.doc.text()))
        })
        .await
    }
}

/// Parameters of OPAL's custom requests: `{"uri": …}` or `{"textDocument": {"uri": …}}`.
#[derive(Deserialize)]
pub struct OutOfSyncParams {
    uri: Uri,
    version: Option<i32>,
    reason: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UriParams {
    uri: Option<Uri>,
    text_document: Option<TextDocumentIdentifier>,
}

impl UriParams {
    pub(super) fn uri(self) -> Result<Uri> {
        self.uri
            .or(self.text_document.map(|t| t.uri))
            .ok_or_else(|| {
                invalid("expected {\"uri\": …} or {\"textDocument\": {\"uri\": …}}".into())
            })
    }
}
