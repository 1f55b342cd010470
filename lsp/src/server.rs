//! The tower-lsp-server front: one guarded call per request ([`guard`]), on the documents
//! [`state`] keeps; diagnostics ([`diagnostics`], pushed and pulled), OPAL's own requests
//! ([`custom`]), the [`capabilities`] offered and the [`session`] on stdio are their own modules.
//!
//! Handlers run concurrently, so every edit is applied under the state's `std::sync::Mutex`
//! before any `.await`; a request takes a snapshot under that lock and works on it off the lock,
//! on a blocking thread, inside `catch_unwind` (and `cancel::run`), so a bug in one feature
//! answers that request with an error and leaves the server running.

mod capabilities;
mod custom;
mod diagnostics;
pub mod document;
mod guard;
pub mod index;
mod run_command;
mod session;
mod state;

pub use custom::{OutOfSyncParams, UriParams};
pub use session::{run_stdio, serve};

use crate::analysis::Analysis;
use crate::cancel::{self, CancelOnDrop, Cancelled};
use crate::splice::{Splices, Written};
use crate::{
    call_hierarchy, code_actions, completion, document_link, folding_ranges, formatting,
    inlay_hints, navigation, on_type, refactor,
};
use crate::{selection_ranges, semantic_tokens, signature_help, to_proto};
use document::{Document, Refused};
use guard::{content_modified, internal, invalid};
use state::{is_world, ClientCaps, Open, Snapshot, State, TokensUpdate};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

/// The commands `workspace/executeCommand` runs (prefixed: the VS Code extension's own commands
/// are `opal.…`, and a client registers every server command under its name).
const COMMANDS: &[&str] = &[DESUGAR_COMMAND, run_command::RUN_COMMAND];
const DESUGAR_COMMAND: &str = "opal.server.desugar";

pub struct Backend {
    client: Client,
    state: Arc<Mutex<State>>,
    /// Set by `shutdown`: the exit code is 0 only after it (LSP `exit`).
    shut_down: Arc<AtomicBool>,
    /// Whole-file results written here, not through tower-lsp-server's `Value`.
    splices: Arc<Splices>,
}

impl Backend {
    pub(super) fn new(
        client: Client,
        shut_down: Arc<AtomicBool>,
        splices: Arc<Splices>,
    ) -> Backend {
        Backend {
            client,
            state: Arc::new(Mutex::new(State::default())),
            shut_down,
            splices,
        }
    }

    /// Asks the client to watch world files, without holding up `initialized`: a client that
    /// answers late (or never) must not delay anything else, `exit` included.
    fn register_watchers(&self) {
        let client = self.client.clone();
        let opts = DidChangeWatchedFilesRegistrationOptions {
            watchers: vec![
                FileSystemWatcher {
                    glob_pattern: GlobPattern::String("**/*.world.toml".into()),
                    kind: None,
                },
                FileSystemWatcher {
                    glob_pattern: GlobPattern::String("**/*.opal".into()),
                    kind: None,
                },
            ],
        };
        let reg = Registration {
            id: "opal-world-files".into(),
            method: "workspace/didChangeWatchedFiles".into(),
            register_options: serde_json::to_value(opts).ok(),
        };
        tokio::spawn(async move {
            // Server-to-client requests get a time limit.
            if tokio::time::timeout(
                Duration::from_secs(5),
                client.register_capability(vec![reg]),
            )
            .await
            .is_err()
            {
                client
                    .log_message(
                        MessageType::WARNING,
                        "opal lsp: the client did not answer the file-watcher registration",
                    )
                    .await;
            }
        });
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        {
            let mut st = self.lock();
            #[allow(deprecated)] // root_uri is still what many clients send.
            let roots: Vec<PathBuf> = params
                .workspace_folders
                .unwrap_or_default()
                .into_iter()
                .filter_map(|f| f.uri.to_file_path().map(|p| p.into_owned()))
                .chain(
                    params
                        .root_uri
                        .and_then(|u| u.to_file_path().map(|p| p.into_owned())),
                )
                .collect();
            st.roots = roots;
            st.caps = ClientCaps::from(
                &params.capabilities,
                params.client_info.as_ref().map(|c| c.name.as_str()),
            );
            // The VS Code extension runs the Run and Debug lenses' commands itself.
            st.caps.client_lenses = params
                .initialization_options
                .as_ref()
                .and_then(|o| o.get("clientLenses"))
                .and_then(|v| v.as_bool())
                == Some(true);
        }
        let (encoding, pull) = {
            let st = self.lock();
            (st.caps.encoding, st.caps.pull_diagnostics)
        };
        Ok(InitializeResult {
            server_info: Some(ServerInfo {
                name: "opal-lsp".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            capabilities: capabilities::server_capabilities(encoding, pull),
            ..Default::default()
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        self.client
            .log_message(
                MessageType::INFO,
                format!("opal lsp {} ready", env!("CARGO_PKG_VERSION")),
            )
            .await;
        // Only clients that declared dynamic registration are asked to watch files.
        if self.lock().caps.watch_registration {
            self.register_watchers();
        }
    }

    async fn shutdown(&self) -> Result<()> {
        self.lock().shut_down = true;
        self.shut_down.store(true, Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, p: DidOpenTextDocumentParams) {
        let uri = p.text_document.uri;
        let version = p.text_document.version;
        {
            let mut st = self.lock();
            if let Some(old) = st.docs.get_mut(&uri) {
                old.changed();
            }
            let mut doc =
                Document::new(&p.text_document.text, version, p.text_document.language_id);
            doc.encoding = st.caps.encoding;
            st.docs.insert(uri.clone(), Open::new(doc));
            if is_world(&uri) {
                st.invalidate_programs();
            }
        }
        diagnostics::schedule(self.state.clone(), self.client.clone(), uri, version);
    }

    async fn did_change(&self, p: DidChangeTextDocumentParams) {
        let uri = p.text_document.uri;
        let version = p.text_document.version;
        let applied = {
            let mut st = self.lock();
            let applied = catch_unwind(AssertUnwindSafe(|| match st.docs.get_mut(&uri) {
                Some(o) => {
                    let applied = o.doc.apply_changes(&p.content_changes);
                    o.doc.version = version;
                    o.changed();
                    Some(applied)
                }
                None => None,
            }));
            applied.unwrap_or(None)
        };
        match applied {
            Some(Ok(())) => {
                diagnostics::schedule(self.state.clone(), self.client.clone(), uri, version)
            }
            Some(Err(Refused)) => {
                let msg = format!(
                    "opal lsp: refused an edit of {}: the document is out of sync (reopen it)",
                    uri.as_str()
                );
                self.client.log_message(MessageType::WARNING, msg).await;
            }
            None => {
                self.client
                    .log_message(
                        MessageType::WARNING,
                        format!(
                            "opal lsp: change for a document that is not open: {}",
                            uri.as_str()
                        ),
                    )
                    .await
            }
        }
    }

    async fn did_save(&self, p: DidSaveTextDocumentParams) {
        let uri = p.text_document.uri;
        if is_world(&uri) {
            self.lock().invalidate_programs();
        } else {
            // Clients that send no file events still say when they write a file.
            self.lock().disk_changed(uri, false);
        }
    }

    async fn did_close(&self, p: DidCloseTextDocumentParams) {
        let uri = p.text_document.uri;
        let was_world = {
            let mut st = self.lock();
            if let Some(mut old) = st.docs.remove(&uri) {
                old.changed();
            }
            let w = is_world(&uri);
            if w {
                st.invalidate_programs();
            } else {
                // The index answers for the file again; it may have been written or discarded.
                st.disk_changed(uri.clone(), false);
            }
            w
        };
        // Closed files keep no diagnostics in the editor: only open files are checked.
        self.client.publish_diagnostics(uri, vec![], None).await;
        if was_world {
            self.republish_all().await;
        }
    }

    async fn did_change_watched_files(&self, p: DidChangeWatchedFilesParams) {
        let mut worlds = false;
        {
            let mut st = self.lock();
            for c in p.changes {
                if is_world(&c.uri) {
                    worlds = true;
                } else {
                    st.disk_changed(c.uri, c.typ == FileChangeType::DELETED);
                }
            }
            if worlds {
                st.invalidate_programs();
            }
        }
        if worlds {
            self.republish_all().await;
        }
    }

    async fn hover(&self, p: HoverParams) -> Result<Option<Hover>> {
        let uri = p.text_document_position_params.text_document.uri;
        let pos = p.text_document_position_params.position;
        let markdown = self.lock().caps.hover_markdown;
        self.with_analysis("hover", &uri, move |a| {
            Ok(navigation::hover(a, a.pos().offset(pos)).map(|h| to_proto::hover(a, h, markdown)))
        })
        .await
    }

    async fn goto_definition(
        &self,
        p: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let uri = p.text_document_position_params.text_document.uri;
        let pos = p.text_document_position_params.position;
        let u = uri.clone();
        self.with_analysis("definition", &uri, move |a| {
            Ok(navigation::definition(a, a.pos().offset(pos)).map(|s| {
                GotoDefinitionResponse::Scalar(Location {
                    uri: u,
                    range: a.pos().range(s),
                })
            }))
        })
        .await
    }

    async fn references(&self, p: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let uri = p.text_document_position.text_document.uri;
        let pos = p.text_document_position.position;
        let u = uri.clone();
        self.with_analysis("references", &uri, move |a| {
            let spans =
                navigation::references(a, a.pos().offset(pos), p.context.include_declaration);
            let p = a.pos();
            Ok(Some(
                spans
                    .into_iter()
                    .map(|s| {
                        cancel::check();
                        Location {
                            uri: u.clone(),
                            range: p.range(s),
                        }
                    })
                    .collect(),
            ))
        })
        .await
    }

    async fn document_highlight(
        &self,
        p: DocumentHighlightParams,
    ) -> Result<Option<Vec<DocumentHighlight>>> {
        let uri = p.text_document_position_params.text_document.uri;
        let pos = p.text_document_position_params.position;
        self.with_analysis("documentHighlight", &uri, move |a| {
            Ok(Some(to_proto::highlights(
                a,
                navigation::highlights(a, a.pos().offset(pos)),
            )))
        })
        .await
    }

    async fn prepare_rename(
        &self,
        p: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        let uri = p.text_document.uri;
        let pos = p.position;
        self.with_analysis(
            "prepareRename",
            &uri,
            move |a| match navigation::prepare_rename(a, a.pos().offset(pos)) {
                Ok(s) => Ok(Some(PrepareRenameResponse::RangeWithPlaceholder {
                    range: a.pos().range(s),
                    placeholder: a.slice(s).to_string(),
                })),
                Err(e) => Err(invalid(e)),
            },
        )
        .await
    }

    async fn rename(&self, p: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let uri = p.text_document_position.text_document.uri;
        let pos = p.text_document_position.position;
        let u = uri.clone();
        let new_name = p.new_name;
        self.with_analysis("rename", &uri, move |a| {
            let edits = navigation::rename(a, a.pos().offset(pos), &new_name).map_err(invalid)?;
            Ok(Some(to_proto::workspace_edit(a, &u, edits)))
        })
        .await
    }

    async fn document_symbol(
        &self,
        p: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        let hierarchical = self.lock().caps.hierarchical_symbols;
        let uri = p.text_document.uri;
        let u = uri.clone();
        let stand_in = |marker: String, uri: &Uri| {
            #[allow(deprecated)] // `SymbolInformation::deprecated` must still be written out.
            // The marker in `containerName`, the key written first.
            let s = SymbolInformation {
                name: marker.clone(),
                kind: SymbolKind::NULL,
                tags: None,
                deprecated: None,
                location: Location {
                    uri: uri.clone(),
                    range: Range::default(),
                },
                container_name: Some(marker),
            };
            DocumentSymbolResponse::Flat(vec![s])
        };
        let written = self
            .with_analysis("documentSymbol", &uri, move |a| {
                if hierarchical {
                    return Ok(Some(Written::new(DocumentSymbolResponse::Nested(
                        navigation::document_symbols(a)
                            .into_iter()
                            .map(|s| to_proto::document_symbol(a, s))
                            .collect(),
                    ))));
                }
                let flat = navigation::flat_symbols(a)
                    .into_iter()
                    .map(|s| to_proto::symbol_information(a, &u, s))
                    .collect();
                Ok(Some(Written::new(DocumentSymbolResponse::Flat(flat))))
            })
            .await?;
        Ok(written.map(|w| self.splices.answer(w, |m| stand_in(m, &uri))))
    }

    async fn symbol(&self, p: WorkspaceSymbolParams) -> Result<Option<WorkspaceSymbolResponse>> {
        // The search reads the files that changed on a copy of the index; when it is done, the
        // files it read leave the dirty set (unless marked again meanwhile).
        let (mut index, read, roots, open, enc, watched) = {
            let st = self.lock();
            let open: Vec<(Uri, Snapshot)> = st
                .docs
                .keys()
                .filter(|u| !is_world(u))
                .filter_map(|u| Some((u.clone(), st.snapshot(u)?)))
                .collect();
            (
                st.index.clone(),
                st.index.dirty.clone(),
                st.roots.clone(),
                open,
                st.caps.encoding,
                st.caps.watch_registration,
            )
        };
        let token = cancel::Token::default();
        let _cancel_on_drop = CancelOnDrop(token.request.clone());
        let request = token.request.clone();
        let query = p.query;
        let job = tokio::task::spawn_blocking(move || {
            cancel::run(token, move || {
                index.refresh(&roots, enc, watched);
                // A document that changes meanwhile is left out of this answer (its analysis
                // stops, so the new version's is not held up); a cancelled search stops.
                let open: Vec<(Uri, Arc<Analysis>)> = open
                    .into_iter()
                    .filter_map(|(u, mut s)| {
                        match cancel::run(
                            cancel::Token {
                                request: request.clone(),
                                stale: s.stale.clone(),
                            },
                            || s.analysis(),
                        ) {
                            Ok(a) => Some((u, a)),
                            Err(p) if p.is::<Cancelled>() && !request.load(Ordering::Relaxed) => {
                                None
                            }
                            Err(p) => std::panic::resume_unwind(p),
                        }
                    })
                    .collect();
                let found = index::query(&index, &open, &query);
                (index, found)
            })
        });
        match job.await {
            Ok(Ok((index, found))) => {
                self.lock().index.take_read(index, &read);
                Ok(Some(WorkspaceSymbolResponse::Nested(
                    found
                        .into_iter()
                        .map(|(u, e)| to_proto::workspace_symbol(u, e))
                        .collect(),
                )))
            }
            Ok(Err(p)) if p.is::<Cancelled>() => Err(Error::request_cancelled()),
            _ => Err(internal("workspace/symbol", "the symbol search failed")),
        }
    }

    async fn completion(&self, p: CompletionParams) -> Result<Option<CompletionResponse>> {
        let uri = p.text_document_position.text_document.uri;
        let pos = p.text_document_position.position;
        let caps = self.lock().caps;
        let u = uri.clone();
        self.with_analysis("completion", &uri, move |a| {
            let (mut completions, cut) = completion::completion_list(a, a.pos().offset(pos));
            if !caps.snippets {
                completions.retain(|c| c.snippet.is_none());
            }
            // Documentation comes with `completionItem/resolve` when the client asks for it
            // that way (a list of 200 items stays small); the item's `data` says where from.
            let items = completions
                .into_iter()
                .map(|c| {
                    let doc = if caps.resolve_documentation {
                        None
                    } else {
                        c.doc
                            .as_ref()
                            .and_then(|d| completion::completion_documentation(a, d))
                    };
                    let mut i = to_proto::completion_item(c);
                    if let Some(d) = &mut i.data {
                        d["uri"] = serde_json::Value::String(u.to_string());
                    }
                    i.documentation =
                        doc.map(|d| to_proto::documentation(d, caps.completion_markdown));
                    i
                })
                .collect();
            Ok(Some(if cut {
                CompletionResponse::List(CompletionList {
                    is_incomplete: true,
                    items,
                })
            } else {
                CompletionResponse::Array(items)
            }))
        })
        .await
    }

    async fn completion_resolve(&self, mut item: CompletionItem) -> Result<CompletionItem> {
        if item.documentation.is_some() {
            return Ok(item);
        }
        let Some(uri) = item
            .data
            .as_ref()
            .and_then(|d| d["uri"].as_str())
            .and_then(|u| u.parse::<Uri>().ok())
        else {
            return Ok(item);
        };
        let markdown = self.lock().caps.completion_markdown;
        let Some(source) = to_proto::completion_doc_source(item.data.as_ref()) else {
            return Ok(item);
        };
        let doc = self
            .with_analysis("completionItem/resolve", &uri, move |a| {
                Ok(completion::completion_documentation(a, &source))
            })
            .await?;
        item.documentation = doc.map(|d| to_proto::documentation(d, markdown));
        Ok(item)
    }

    async fn signature_help(&self, p: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        let uri = p.text_document_position_params.text_document.uri;
        let pos = p.text_document_position_params.position;
        self.with_analysis("signatureHelp", &uri, move |a| {
            Ok(
                signature_help::signature_help(a, a.pos().offset(pos))
                    .map(to_proto::signature_help),
            )
        })
        .await
    }

    async fn formatting(&self, p: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        let r = self
            .off_lock("formatting", &p.text_document.uri, |a| {
                Ok(formatting::format_document(a)
                    .map(|e| to_proto::text_edits(a, e.into_iter().collect())))
            })
            .await?;
        self.edits_or_null(r.map(|(_, r)| r)).await
    }

    async fn range_formatting(
        &self,
        p: DocumentRangeFormattingParams,
    ) -> Result<Option<Vec<TextEdit>>> {
        let range = p.range;
        let r = self
            .off_lock("rangeFormatting", &p.text_document.uri, move |a| {
                Ok(formatting::format_range(a, a.pos().span(range))
                    .map(|e| to_proto::text_edits(a, e.into_iter().collect())))
            })
            .await?;
        self.edits_or_null(r.map(|(_, r)| r)).await
    }

    async fn folding_range(&self, p: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        self.with_analysis("foldingRange", &p.text_document.uri, |a| {
            Ok(Some(
                folding_ranges::folding_ranges(a)
                    .iter()
                    .map(to_proto::folding_range)
                    .collect(),
            ))
        })
        .await
    }

    async fn selection_range(
        &self,
        p: SelectionRangeParams,
    ) -> Result<Option<Vec<SelectionRange>>> {
        let positions = p.positions;
        self.with_analysis("selectionRange", &p.text_document.uri, move |a| {
            let at = |o| to_proto::selection_range(a, selection_ranges::enclosing_spans(a, o), o);
            Ok(Some(
                positions.iter().map(|&x| at(a.pos().offset(x))).collect(),
            ))
        })
        .await
    }

    async fn semantic_tokens_full(
        &self,
        p: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        let uri = p.text_document.uri;
        let Some(t) = self.fresh_tokens("semanticTokens/full", &uri).await? else {
            return Ok(None);
        };
        let tokens = SemanticTokensResult::Tokens(SemanticTokens {
            result_id: Some(t.id),
            data: t.data,
        });
        // Written on a blocking thread: 6 ms for a 50 000-line file would hold up a hover.
        let written = tokio::task::spawn_blocking(move || Written::new(tokens))
            .await
            .map_err(|e| internal("semanticTokens/full", &e.to_string()))?;
        let stand_in = |marker| {
            SemanticTokensResult::Tokens(SemanticTokens {
                result_id: Some(marker),
                data: vec![],
            })
        };
        Ok(Some(self.splices.answer(written, stand_in)))
    }

    async fn semantic_tokens_full_delta(
        &self,
        p: SemanticTokensDeltaParams,
    ) -> Result<Option<SemanticTokensFullDeltaResult>> {
        let uri = p.text_document.uri;
        let Some(t) = self.fresh_tokens("semanticTokens/full/delta", &uri).await? else {
            return Ok(None);
        };
        Ok(Some(match t.previous {
            Some((old_id, old)) if old_id == p.previous_result_id => {
                SemanticTokensFullDeltaResult::TokensDelta(SemanticTokensDelta {
                    result_id: Some(t.id),
                    edits: to_proto::token_delta(&old, &t.data),
                })
            }
            _ => SemanticTokensFullDeltaResult::Tokens(SemanticTokens {
                result_id: Some(t.id),
                data: t.data,
            }),
        }))
    }

    async fn inlay_hint(&self, p: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        let range = p.range;
        // A screenful costs what it touches (inlay_hints::inlay_hints): no wait for cancellation.
        let what = if range.end.line.saturating_sub(range.start.line) > 1000 {
            "inlayHint"
        } else {
            "inlayHint (range)"
        };
        let written = self
            .with_analysis(what, &p.text_document.uri, move |a| {
                let p = a.pos();
                Ok(Some(Written::new(
                    inlay_hints::inlay_hints(a, p.span(range))
                        .into_iter()
                        .map(|h| to_proto::inlay_hint(&p, h))
                        .collect::<Vec<_>>(),
                )))
            })
            .await?;
        let stand_in = |marker| {
            vec![InlayHint {
                label: InlayHintLabel::String(marker),
                ..to_proto::STAND_IN_HINT
            }]
        };
        Ok(written.map(|w| self.splices.answer(w, stand_in)))
    }

    async fn inlay_hint_resolve(&self, h: InlayHint) -> Result<InlayHint> {
        Ok(to_proto::resolve_inlay_hint(h))
    }

    async fn code_action(&self, p: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = p.text_document.uri;
        let u = uri.clone();
        let range = p.range;
        // `only`: the kinds the client asked for (a kind covers its sub-kinds).
        let only = p.context.only;
        let wanted = move |kind: &str| {
            only.as_ref().is_none_or(|o| {
                o.iter().any(|k| {
                    kind == k.as_str()
                        || kind
                            .strip_prefix(k.as_str())
                            .is_some_and(|r| r.starts_with('.'))
                })
            })
        };
        self.with_analysis("codeAction", &uri, move |a| {
            let span = a.pos().span(range);
            let mut actions: Vec<CodeActionOrCommand> = Vec::new();
            if wanted(CodeActionKind::QUICKFIX.as_str()) {
                actions.extend(
                    code_actions::quick_fixes(a, span)
                        .into_iter()
                        .map(|q| to_proto::quick_fix(a, &u, q)),
                );
            }
            actions.extend(
                refactor::refactors(a, span)
                    .into_iter()
                    .filter(|r| wanted(r.kind))
                    .map(|r| to_proto::refactor(a, &u, r)),
            );
            Ok(Some(actions))
        })
        .await
    }

    async fn document_link(&self, p: DocumentLinkParams) -> Result<Option<Vec<DocumentLink>>> {
        let uri = p.text_document.uri;
        let Some(dir) = uri
            .to_file_path()
            .and_then(|f| f.parent().map(Path::to_path_buf))
        else {
            return Ok(None);
        };
        let (world, fragments) = {
            let st = self.lock();
            (st.world_for(&uri), st.caps.line_fragments)
        };
        self.with_analysis("documentLink", &uri, move |a| {
            let world = world.text();
            let links = document_link::document_links(
                a,
                &dir,
                world.as_ref().map(|(p, t)| (p.as_path(), t.as_str())),
            );
            Ok(Some(
                links
                    .into_iter()
                    .filter_map(|l| to_proto::document_link(a, l, fragments))
                    .collect(),
            ))
        })
        .await
    }

    async fn on_type_formatting(
        &self,
        p: DocumentOnTypeFormattingParams,
    ) -> Result<Option<Vec<TextEdit>>> {
        if p.ch != "\n" {
            return Ok(None);
        }
        let line = p.text_document_position.position.line;
        let unit = on_type::indent_unit(p.options.tab_size, p.options.insert_spaces);
        self.with_analysis(
            "onTypeFormatting",
            &p.text_document_position.text_document.uri,
            move |a| Ok(on_type::after_newline(a, line, &unit).map(|e| to_proto::text_edits(a, e))),
        )
        .await
    }

    async fn execute_command(&self, p: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        match p.command.as_str() {
            DESUGAR_COMMAND => {
                // Arguments: the document's URI, as a string or as `{"uri": …}`.
                let arg = p.arguments.into_iter().next().unwrap_or_default();
                let params = match arg {
                    serde_json::Value::String(uri) => serde_json::json!({ "uri": uri }),
                    other => other,
                };
                let params: UriParams = serde_json::from_value(params).map_err(|e| {
                    invalid(format!("{DESUGAR_COMMAND}: expected a document URI: {e}"))
                })?;
                Ok(Some(serde_json::Value::String(self.desugar(params).await?)))
            }
            run_command::RUN_COMMAND => self.run_command(p.arguments).await,
            other => Err(invalid(format!(
                "unknown command `{other}`; this server runs {}",
                COMMANDS.join(", ")
            ))),
        }
    }

    async fn goto_declaration(
        &self,
        p: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        // A binding is declared where it is defined (there are no separate declarations; an
        // `extern` line is both).
        self.goto_definition(p).await
    }

    async fn linked_editing_range(
        &self,
        p: LinkedEditingRangeParams,
    ) -> Result<Option<LinkedEditingRanges>> {
        let uri = p.text_document_position_params.text_document.uri;
        let pos = p.text_document_position_params.position;
        self.with_analysis("linkedEditingRange", &uri, move |a| {
            Ok(crate::linked_editing::ranges(a, a.pos().offset(pos))
                .map(|r| to_proto::linked_editing_ranges(a, r)))
        })
        .await
    }

    async fn prepare_call_hierarchy(
        &self,
        p: CallHierarchyPrepareParams,
    ) -> Result<Option<Vec<CallHierarchyItem>>> {
        let uri = p.text_document_position_params.text_document.uri;
        let pos = p.text_document_position_params.position;
        let u = uri.clone();
        self.with_analysis("prepareCallHierarchy", &uri, move |a| {
            Ok(call_hierarchy::prepare(a, a.pos().offset(pos))
                .map(|it| vec![to_proto::call_item(a, &u, it)]))
        })
        .await
    }

    async fn incoming_calls(
        &self,
        p: CallHierarchyIncomingCallsParams,
    ) -> Result<Option<Vec<CallHierarchyIncomingCall>>> {
        let uri = p.item.uri.clone();
        let u = uri.clone();
        self.with_analysis("callHierarchy/incomingCalls", &uri, move |a| {
            Ok(Some(to_proto::incoming_calls(
                a,
                &u,
                call_hierarchy::incoming(a, a.pos().offset(p.item.selection_range.start)),
            )))
        })
        .await
    }

    async fn outgoing_calls(
        &self,
        p: CallHierarchyOutgoingCallsParams,
    ) -> Result<Option<Vec<CallHierarchyOutgoingCall>>> {
        let uri = p.item.uri.clone();
        let u = uri.clone();
        self.with_analysis("callHierarchy/outgoingCalls", &uri, move |a| {
            Ok(Some(to_proto::outgoing_calls(
                a,
                &u,
                call_hierarchy::outgoing(a, a.pos().offset(p.item.selection_range.start)),
            )))
        })
        .await
    }

    async fn diagnostic(
        &self,
        p: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        self.pull_document(p).await
    }

    async fn workspace_diagnostic(
        &self,
        p: WorkspaceDiagnosticParams,
    ) -> Result<WorkspaceDiagnosticReportResult> {
        self.pull_workspace(p).await
    }

    async fn semantic_tokens_range(
        &self,
        p: SemanticTokensRangeParams,
    ) -> Result<Option<SemanticTokensRangeResult>> {
        let range = p.range;
        self.with_analysis("semanticTokens/range", &p.text_document.uri, move |a| {
            Ok(Some(SemanticTokensRangeResult::Tokens(SemanticTokens {
                result_id: None,
                data: to_proto::semantic_tokens(
                    a,
                    &semantic_tokens::semantic_tokens_in(a, a.pos().span(range)),
                ),
            })))
        })
        .await
    }

    async fn code_lens(&self, p: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let uri = p.text_document.uri;
        let u = uri.clone();
        let client_lenses = self.lock().caps.client_lenses;
        self.with_analysis("codeLens", &uri, move |_| {
            Ok(Some(to_proto::code_lenses(&u, client_lenses)))
        })
        .await
    }
}

impl Backend {
    /// Formatting edits; a file that cannot be formatted answers `null` (no edits) and the
    /// reason goes to the log, as rust-analyzer does (an error would be shown on every save).
    async fn edits_or_null(
        &self,
        r: Option<std::result::Result<Vec<TextEdit>, String>>,
    ) -> Result<Option<Vec<TextEdit>>> {
        match r {
            Some(Ok(edits)) => Ok(Some(edits)),
            // Said where a person sees it: a format that does nothing and says nothing
            // looks like a broken formatter.
            Some(Err(why)) => {
                self.client
                    .show_message(MessageType::WARNING, format!("OPAL: not formatted: {why}"))
                    .await;
                Ok(None)
            }
            None => Ok(None),
        }
    }

    /// Semantic tokens computed off the lock, recorded with a new result id.
    async fn fresh_tokens(&self, what: &'static str, uri: &Uri) -> Result<Option<TokensUpdate>> {
        let Some((version, data)) = self
            .off_lock(what, uri, |a| {
                Ok(to_proto::semantic_tokens(
                    a,
                    &semantic_tokens::semantic_tokens(a),
                ))
            })
            .await?
        else {
            return Ok(None);
        };
        self.lock()
            .record_tokens(uri, version, data)
            .map(Some)
            .ok_or_else(content_modified)
    }

    async fn republish_all(&self) {
        let open: Vec<(Uri, i32)> = self
            .lock()
            .docs
            .iter()
            .map(|(u, o)| (u.clone(), o.doc.version))
            .collect();
        for (u, v) in open {
            diagnostics::schedule(self.state.clone(), self.client.clone(), u, v);
        }
    }
}
