//! The tower-lsp-server front: document state, debounced diagnostics, world files, and one
//! guarded call per request.
//!
//! Handlers run concurrently (tower-lsp-server polls up to four at once), so every edit is
//! applied under the state's `std::sync::Mutex` before any `.await`; work on a snapshot happens
//! under the same lock, inside `catch_unwind`, so a bug in one feature answers that request with
//! an error and leaves the server running.

use crate::analysis::{Analysis, WorldInfo};
use crate::document::Document;
use crate::{editing, navigation};
use opal_core::span::{LineIndex, Span};
use serde::Deserialize;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService, Server};

/// How long diagnostics wait for more typing before they are computed.
const DEBOUNCE: Duration = Duration::from_millis(30);

struct Open {
    doc: Document,
    analysis: Option<Arc<Analysis>>,
    /// The last semantic tokens sent, for delta requests.
    tokens: Option<(String, Vec<SemanticToken>)>,
}

struct TokensUpdate {
    id: String,
    data: Vec<SemanticToken>,
    previous: Option<(String, Vec<SemanticToken>)>,
}

#[derive(Default)]
struct State {
    docs: HashMap<Uri, Open>,
    roots: Vec<PathBuf>,
    next_result: u64,
    shut_down: bool,
}

pub struct Backend {
    client: Client,
    state: Arc<Mutex<State>>,
    /// Set by `shutdown`: the exit code is 0 only after it (LSP `exit`).
    shut_down: Arc<AtomicBool>,
}

fn is_world(uri: &Uri) -> bool {
    uri.as_str().ends_with(".world.toml")
}

/// `dir/NAME.world.toml` → `dir/NAME.opal`.
fn program_path_of(world: &Path) -> Option<PathBuf> {
    let name = world.file_name()?.to_str()?;
    Some(world.with_file_name(format!("{}.opal", name.strip_suffix(".world.toml")?)))
}

impl State {
    /// The world file's text: the editor's copy when it is open, else the disk's.
    fn world_text(&self, path: &Path) -> Option<String> {
        let uri = Uri::from_file_path(path)?;
        match self.docs.get(&uri) {
            Some(o) => Some(o.doc.text()),
            None => std::fs::read_to_string(path).ok(),
        }
    }

    fn world_for(&self, uri: &Uri) -> WorldInfo {
        let Some(path) = uri.to_file_path().and_then(|p| opal_core::world::path_beside(&p)) else { return WorldInfo::default() };
        match self.world_text(&path) {
            Some(text) => WorldInfo { world: opal_core::world::parse_world(&text).ok(), exists: true },
            None => WorldInfo::default(),
        }
    }

    fn analysis(&mut self, uri: &Uri) -> Option<Arc<Analysis>> {
        if let Some(a) = self.docs.get(uri).and_then(|o| o.analysis.clone()) {
            return Some(a);
        }
        let world = self.world_for(uri);
        let open = self.docs.get_mut(uri)?;
        let a = Arc::new(Analysis::new(open.doc.text(), world));
        open.analysis = Some(a.clone());
        Some(a)
    }

    /// Fresh semantic tokens for a program with a new result id, and the tokens sent before.
    fn fresh_tokens(&mut self, uri: &Uri) -> Option<TokensUpdate> {
        if is_world(uri) {
            return None;
        }
        let a = self.analysis(uri)?;
        let data = editing::semantic_tokens(&a);
        self.next_result += 1;
        let id = self.next_result.to_string();
        let previous = self.docs.get_mut(uri)?.tokens.replace((id.clone(), data.clone()));
        Some(TokensUpdate { id, data, previous })
    }

    /// Forgets every program analysis (a world file changed).
    fn invalidate_programs(&mut self) {
        for o in self.docs.values_mut() {
            o.analysis = None;
            o.tokens = None;
        }
    }
}

impl Backend {
    pub fn new(client: Client) -> Backend {
        Backend::with_shutdown_flag(client, Arc::default())
    }

    pub fn with_shutdown_flag(client: Client, shut_down: Arc<AtomicBool>) -> Backend {
        Backend { client, state: Arc::new(Mutex::new(State::default())), shut_down }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs one request's work on the state, turning a panic into an error answer.
    async fn guarded<T>(&self, what: &str, f: impl FnOnce(&mut State) -> Result<T>) -> Result<T> {
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
                let msg = panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_default();
                self.client.log_message(MessageType::ERROR, format!("opal lsp: {what} failed: {msg} (the server keeps running; please report this)")).await;
                Err(Error { code: ErrorCode::InternalError, message: format!("internal error in {what}: {msg}").into(), data: None })
            }
        }
    }

    /// Runs a feature on the analysis of a program; unknown or closed documents answer `None`.
    async fn with_analysis<T>(&self, what: &str, uri: &Uri, f: impl FnOnce(&Analysis) -> Result<Option<T>>) -> Result<Option<T>> {
        self.guarded(what, |st| if is_world(uri) { Ok(None) } else { st.analysis(uri).map_or(Ok(None), |a| f(&a)) }).await
    }

    /// Publishes diagnostics for a document once typing pauses (the version must not move).
    fn schedule_diagnostics(&self, uri: Uri, version: i32) {
        let state = self.state.clone();
        let client = self.client.clone();
        tokio::spawn(async move {
            tokio::time::sleep(DEBOUNCE).await;
            let batch = {
                let mut st = state.lock().unwrap_or_else(PoisonError::into_inner);
                if st.docs.get(&uri).map(|o| o.doc.version) != Some(version) {
                    return;
                }
                catch_unwind(AssertUnwindSafe(|| diagnostics_for(&mut st, &uri)))
            };
            match batch {
                Ok(batch) => {
                    for (u, diags, v) in batch {
                        client.publish_diagnostics(u, diags, v).await;
                    }
                }
                Err(_) => client.log_message(MessageType::ERROR, format!("opal lsp: diagnostics for {} failed", uri.as_str())).await,
            }
        });
    }

    /// Asks the client to watch world files, without holding up `initialized`: a client that
    /// answers late (or never) must not delay anything else, `exit` included.
    fn register_watchers(&self) {
        let client = self.client.clone();
        let opts = DidChangeWatchedFilesRegistrationOptions {
            watchers: vec![FileSystemWatcher { glob_pattern: GlobPattern::String("**/*.world.toml".into()), kind: None }],
        };
        let reg =
            Registration { id: "opal-world-files".into(), method: "workspace/didChangeWatchedFiles".into(), register_options: serde_json::to_value(opts).ok() };
        tokio::spawn(async move {
            // Server-to-client requests get a time limit.
            if tokio::time::timeout(Duration::from_secs(5), client.register_capability(vec![reg])).await.is_err() {
                client.log_message(MessageType::WARNING, "opal lsp: the client did not answer the file-watcher registration").await;
            }
        });
    }

    pub async fn desugar(&self, p: UriParams) -> Result<String> {
        let uri = p.uri()?;
        self.with_analysis("opal/desugar", &uri, |a| {
            if a.compiled.has_errors() {
                let n = a.compiled.diags.iter().filter(|d| d.is_error()).count();
                return Ok(Some(format!("# The program has {n} error(s); fix them to see its desugared core.\n")));
            }
            Ok(Some(opal_core::machine::print_initial(&a.compiled.program, false)))
        })
        .await
        .map(|t| t.unwrap_or_default())
    }

    pub async fn document_text(&self, p: UriParams) -> Result<Option<String>> {
        let uri = p.uri()?;
        self.guarded("opal/documentText", |st| Ok(st.docs.get(&uri).map(|o| o.doc.text()))).await
    }
}

/// Parameters of OPAL's custom requests: `{"uri": …}` or `{"textDocument": {"uri": …}}`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UriParams {
    uri: Option<Uri>,
    text_document: Option<TextDocumentIdentifier>,
}

impl UriParams {
    fn uri(self) -> Result<Uri> {
        self.uri.or(self.text_document.map(|t| t.uri)).ok_or_else(|| invalid("expected {\"uri\": …} or {\"textDocument\": {\"uri\": …}}".into()))
    }
}

/// Diagnostics to publish after a change of `uri`: the program's own, or for a world file, its
/// errors plus the programs beside it that use it.
fn diagnostics_for(st: &mut State, uri: &Uri) -> Vec<(Uri, Vec<Diagnostic>, Option<i32>)> {
    let mut out = Vec::new();
    if is_world(uri) {
        let Some(open) = st.docs.get(uri) else { return out };
        let text = open.doc.text();
        let version = open.doc.version;
        let lines = LineIndex::new(&text);
        let pos = crate::position::Positions::new(&text, &lines);
        let diags = match opal_core::world::parse_world(&text) {
            Ok(_) => vec![],
            Err(ds) => ds.iter().map(|d| editing::to_lsp_diagnostic(&pos, uri, d)).collect(),
        };
        out.push((uri.clone(), diags, Some(version)));
        st.invalidate_programs();
        if let Some(prog) = uri.to_file_path().and_then(|p| program_path_of(&p)).and_then(Uri::from_file_path) {
            if st.docs.contains_key(&prog) {
                out.extend(diagnostics_for(st, &prog));
            }
        }
        return out;
    }
    let Some(a) = st.analysis(uri) else { return out };
    let version = st.docs.get(uri).map(|o| o.doc.version);
    let pos = a.pos();
    out.push((uri.clone(), a.diags.iter().map(|d| editing::to_lsp_diagnostic(&pos, uri, d)).collect(), version));
    out
}

fn edits_to_lsp(a: &Analysis, edits: Vec<(Span, String)>) -> Vec<TextEdit> {
    let p = a.pos();
    edits.into_iter().map(|(s, t)| TextEdit { range: p.range(s), new_text: t }).collect()
}

fn invalid(msg: String) -> Error {
    Error { code: ErrorCode::InvalidParams, message: msg.into(), data: None }
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
                .chain(params.root_uri.and_then(|u| u.to_file_path().map(|p| p.into_owned())))
                .collect();
            st.roots = roots;
        }
        Ok(InitializeResult {
            server_info: Some(ServerInfo { name: "opal-lsp".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
            capabilities: ServerCapabilities {
                position_encoding: Some(PositionEncodingKind::UTF16),
                text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                    ..Default::default()
                })),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                definition_provider: Some(OneOf::Left(true)),
                references_provider: Some(OneOf::Left(true)),
                document_highlight_provider: Some(OneOf::Left(true)),
                rename_provider: Some(OneOf::Right(RenameOptions { prepare_provider: Some(true), work_done_progress_options: Default::default() })),
                document_symbol_provider: Some(OneOf::Left(true)),
                workspace_symbol_provider: Some(OneOf::Left(true)),
                completion_provider: Some(CompletionOptions { trigger_characters: Some(vec!["&".into()]), ..Default::default() }),
                signature_help_provider: Some(SignatureHelpOptions {
                    trigger_characters: Some(vec!["(".into(), ",".into()]),
                    retrigger_characters: None,
                    work_done_progress_options: Default::default(),
                }),
                document_formatting_provider: Some(OneOf::Left(true)),
                document_range_formatting_provider: Some(OneOf::Left(true)),
                folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
                selection_range_provider: Some(SelectionRangeProviderCapability::Simple(true)),
                semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(SemanticTokensOptions {
                    legend: editing::legend(),
                    full: Some(SemanticTokensFullOptions::Delta { delta: Some(true) }),
                    range: None,
                    work_done_progress_options: Default::default(),
                })),
                inlay_hint_provider: Some(OneOf::Left(true)),
                code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                    code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                    ..Default::default()
                })),
                code_lens_provider: Some(CodeLensOptions { resolve_provider: Some(false) }),
                ..Default::default()
            },
            ..Default::default()
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        self.client.log_message(MessageType::INFO, format!("opal lsp {} ready", env!("CARGO_PKG_VERSION"))).await;
        self.register_watchers();
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
            st.docs.insert(uri.clone(), Open { doc: Document::new(&p.text_document.text, version, p.text_document.language_id), analysis: None, tokens: None });
            if is_world(&uri) {
                st.invalidate_programs();
            }
        }
        self.schedule_diagnostics(uri, version);
    }

    async fn did_change(&self, p: DidChangeTextDocumentParams) {
        let uri = p.text_document.uri;
        let version = p.text_document.version;
        let applied = {
            let mut st = self.lock();
            let applied = catch_unwind(AssertUnwindSafe(|| match st.docs.get_mut(&uri) {
                Some(o) => {
                    for c in &p.content_changes {
                        o.doc.apply(c);
                    }
                    o.doc.version = version;
                    o.analysis = None;
                    true
                }
                None => false,
            }));
            applied.unwrap_or(false)
        };
        if applied {
            self.schedule_diagnostics(uri, version);
        } else {
            self.client.log_message(MessageType::WARNING, format!("opal lsp: change for a document that is not open: {}", uri.as_str())).await;
        }
    }

    async fn did_save(&self, p: DidSaveTextDocumentParams) {
        if is_world(&p.text_document.uri) {
            self.lock().invalidate_programs();
        }
    }

    async fn did_close(&self, p: DidCloseTextDocumentParams) {
        let uri = p.text_document.uri;
        let was_world = {
            let mut st = self.lock();
            st.docs.remove(&uri);
            let w = is_world(&uri);
            if w {
                st.invalidate_programs();
            }
            w
        };
        // Closed files keep no diagnostics in the editor: only open files are checked.
        self.client.publish_diagnostics(uri, vec![], None).await;
        if was_world {
            self.republish_all().await;
        }
    }

    async fn did_change_watched_files(&self, _: DidChangeWatchedFilesParams) {
        self.lock().invalidate_programs();
        self.republish_all().await;
    }

    async fn hover(&self, p: HoverParams) -> Result<Option<Hover>> {
        let uri = p.text_document_position_params.text_document.uri;
        let pos = p.text_document_position_params.position;
        self.with_analysis("hover", &uri, |a| Ok(navigation::hover(a, a.pos().offset(pos)))).await
    }

    async fn goto_definition(&self, p: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        let uri = p.text_document_position_params.text_document.uri;
        let pos = p.text_document_position_params.position;
        self.with_analysis("definition", &uri, |a| {
            Ok(navigation::definition(a, a.pos().offset(pos)).map(|s| GotoDefinitionResponse::Scalar(Location { uri: uri.clone(), range: a.pos().range(s) })))
        })
        .await
    }

    async fn references(&self, p: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let uri = p.text_document_position.text_document.uri;
        let pos = p.text_document_position.position;
        self.with_analysis("references", &uri, |a| {
            let spans = navigation::references(a, a.pos().offset(pos), p.context.include_declaration);
            Ok(Some(spans.into_iter().map(|s| Location { uri: uri.clone(), range: a.pos().range(s) }).collect()))
        })
        .await
    }

    async fn document_highlight(&self, p: DocumentHighlightParams) -> Result<Option<Vec<DocumentHighlight>>> {
        let uri = p.text_document_position_params.text_document.uri;
        let pos = p.text_document_position_params.position;
        self.with_analysis("documentHighlight", &uri, |a| Ok(Some(navigation::highlights(a, a.pos().offset(pos))))).await
    }

    async fn prepare_rename(&self, p: TextDocumentPositionParams) -> Result<Option<PrepareRenameResponse>> {
        let uri = p.text_document.uri;
        self.with_analysis("prepareRename", &uri, |a| match navigation::prepare_rename(a, a.pos().offset(p.position)) {
            Ok(s) => Ok(Some(PrepareRenameResponse::RangeWithPlaceholder { range: a.pos().range(s), placeholder: a.slice(s).to_string() })),
            Err(e) => Err(invalid(e)),
        })
        .await
    }

    async fn rename(&self, p: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let uri = p.text_document_position.text_document.uri;
        let pos = p.text_document_position.position;
        self.with_analysis("rename", &uri, |a| {
            let edits = navigation::rename(a, a.pos().offset(pos), &p.new_name).map_err(invalid)?;
            Ok(Some(WorkspaceEdit { changes: Some(HashMap::from([(uri.clone(), edits_to_lsp(a, edits))])), ..Default::default() }))
        })
        .await
    }

    async fn document_symbol(&self, p: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        self.with_analysis("documentSymbol", &p.text_document.uri, |a| Ok(Some(DocumentSymbolResponse::Nested(navigation::document_symbols(a))))).await
    }

    async fn symbol(&self, p: WorkspaceSymbolParams) -> Result<Option<WorkspaceSymbolResponse>> {
        self.guarded("workspace/symbol", |st| Ok(Some(WorkspaceSymbolResponse::Nested(workspace_symbols(st, &p.query))))).await
    }

    async fn completion(&self, p: CompletionParams) -> Result<Option<CompletionResponse>> {
        let uri = p.text_document_position.text_document.uri;
        let pos = p.text_document_position.position;
        self.with_analysis("completion", &uri, |a| Ok(Some(CompletionResponse::Array(editing::completion(a, a.pos().offset(pos)))))).await
    }

    async fn signature_help(&self, p: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        let uri = p.text_document_position_params.text_document.uri;
        let pos = p.text_document_position_params.position;
        self.with_analysis("signatureHelp", &uri, |a| Ok(editing::signature_help(a, a.pos().offset(pos)))).await
    }

    async fn formatting(&self, p: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        self.with_analysis("formatting", &p.text_document.uri, |a| {
            let edit = editing::format_document(a).map_err(invalid)?;
            Ok(Some(edits_to_lsp(a, edit.into_iter().collect())))
        })
        .await
    }

    async fn range_formatting(&self, p: DocumentRangeFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        self.with_analysis("rangeFormatting", &p.text_document.uri, |a| {
            let edit = editing::format_range(a, a.pos().span(p.range)).map_err(invalid)?;
            Ok(Some(edits_to_lsp(a, edit.into_iter().collect())))
        })
        .await
    }

    async fn folding_range(&self, p: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        self.with_analysis("foldingRange", &p.text_document.uri, |a| Ok(Some(editing::folding_ranges(a)))).await
    }

    async fn selection_range(&self, p: SelectionRangeParams) -> Result<Option<Vec<SelectionRange>>> {
        self.with_analysis("selectionRange", &p.text_document.uri, |a| {
            Ok(Some(p.positions.iter().map(|&x| editing::selection_range(a, a.pos().offset(x))).collect()))
        })
        .await
    }

    async fn semantic_tokens_full(&self, p: SemanticTokensParams) -> Result<Option<SemanticTokensResult>> {
        let uri = p.text_document.uri;
        self.guarded("semanticTokens/full", |st| {
            Ok(st.fresh_tokens(&uri).map(|t| SemanticTokensResult::Tokens(SemanticTokens { result_id: Some(t.id), data: t.data })))
        })
        .await
    }

    async fn semantic_tokens_full_delta(&self, p: SemanticTokensDeltaParams) -> Result<Option<SemanticTokensFullDeltaResult>> {
        let uri = p.text_document.uri;
        self.guarded("semanticTokens/full/delta", |st| {
            Ok(st.fresh_tokens(&uri).map(|t| match t.previous {
                Some((old_id, old)) if old_id == p.previous_result_id => {
                    SemanticTokensFullDeltaResult::TokensDelta(SemanticTokensDelta { result_id: Some(t.id), edits: editing::token_delta(&old, &t.data) })
                }
                _ => SemanticTokensFullDeltaResult::Tokens(SemanticTokens { result_id: Some(t.id), data: t.data }),
            }))
        })
        .await
    }

    async fn inlay_hint(&self, p: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        self.with_analysis("inlayHint", &p.text_document.uri, |a| Ok(Some(editing::inlay_hints(a, a.pos().span(p.range))))).await
    }

    async fn code_action(&self, p: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = p.text_document.uri;
        self.with_analysis("codeAction", &uri, |a| {
            let pos = a.pos();
            let actions = editing::quick_fixes(a, pos.span(p.range))
                .into_iter()
                .map(|q| {
                    CodeActionOrCommand::CodeAction(CodeAction {
                        title: q.title,
                        kind: Some(CodeActionKind::QUICKFIX),
                        diagnostics: Some(vec![editing::to_lsp_diagnostic(&pos, &uri, &q.diag)]),
                        edit: Some(WorkspaceEdit { changes: Some(HashMap::from([(uri.clone(), edits_to_lsp(a, q.edits))])), ..Default::default() }),
                        is_preferred: Some(q.preferred),
                        ..Default::default()
                    })
                })
                .collect();
            Ok(Some(actions))
        })
        .await
    }

    async fn code_lens(&self, p: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let uri = p.text_document.uri;
        self.with_analysis("codeLens", &uri, |_| Ok(Some(editing::code_lenses(&uri)))).await
    }
}

impl Backend {
    async fn republish_all(&self) {
        let open: Vec<(Uri, i32)> = self.lock().docs.iter().map(|(u, o)| (u.clone(), o.doc.version)).collect();
        for (u, v) in open {
            self.schedule_diagnostics(u, v);
        }
    }
}

/// Symbols of every open program and of the `.opal` files under the workspace roots.
fn workspace_symbols(st: &mut State, query: &str) -> Vec<WorkspaceSymbol> {
    let mut files: Vec<Uri> = st.docs.keys().filter(|u| !is_world(u)).cloned().collect();
    let mut budget = 2000usize;
    let roots = st.roots.clone();
    for root in &roots {
        collect_opal_files(root, 0, &mut budget, &mut files);
    }
    files.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    files.dedup();
    let mut out = Vec::new();
    for uri in files {
        let a = match st.analysis(&uri) {
            Some(a) => a,
            None => match uri.to_file_path().and_then(|p| std::fs::read_to_string(p).ok()) {
                Some(text) => Arc::new(Analysis::new(text, WorldInfo::default())),
                None => continue,
            },
        };
        for (name, kind, range, container) in navigation::flat_symbols(&a) {
            if navigation::fuzzy_match(query, &name) {
                out.push(WorkspaceSymbol {
                    name,
                    kind,
                    tags: None,
                    container_name: container,
                    location: OneOf::Left(Location { uri: uri.clone(), range }),
                    data: None,
                });
            }
        }
    }
    out
}

fn collect_opal_files(dir: &Path, depth: usize, budget: &mut usize, out: &mut Vec<Uri>) {
    if depth > 8 || *budget == 0 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if p.is_dir() {
            if !name.starts_with('.') && name != "target" && name != "node_modules" {
                collect_opal_files(&p, depth + 1, budget, out);
            }
        } else if name.ends_with(".opal") {
            if let Some(u) = Uri::from_file_path(&p) {
                out.push(u);
            }
        }
    }
}

/// Serves the language server on stdin/stdout until the client sends `exit` or closes stdin.
/// The exit code is 0 after a `shutdown` request, 1 otherwise (LSP `exit`).
pub fn run_stdio() -> i32 {
    let shut_down = Arc::new(AtomicBool::new(false));
    let rt = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("opal lsp: cannot start the async runtime: {e}");
            return 1;
        }
    };
    rt.block_on(async {
        let (server_in, feed) = tokio::io::duplex(1 << 16);
        let (server_out, drain) = tokio::io::duplex(1 << 16);
        let (inject, injected) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(crate::transport::pump_input(tokio::io::stdin(), feed, inject));
        let output = tokio::spawn(crate::transport::pump_output(drain, tokio::io::stdout(), injected));
        let (service, socket) =
            LspService::build(|client| Backend::with_shutdown_flag(client, shut_down.clone())).custom_method("opal/desugar", Backend::desugar).custom_method("opal/documentText", Backend::document_text).finish();
        Server::new(server_in, server_out, socket).serve(service).await;
        let _ = output.await;
    });
    // Reading stdin occupies a blocking thread that may never return: do not wait for it.
    rt.shutdown_timeout(Duration::from_millis(100));
    if shut_down.load(Ordering::SeqCst) {
        0
    } else {
        eprintln!("opal lsp: exiting without a `shutdown` request first (exit code 1)");
        1
    }
}
