//! What the server keeps: the open documents (each with its analysis, computed once per
//! version off the lock), the client's capabilities, and the snapshots requests work on.

use super::document::Document;
use super::index::{self, Index};
use crate::analysis::{Analysis, WorldInfo};
use crate::cancel;
use crate::position::Encoding;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use tower_lsp_server::ls_types::*;

pub(super) struct Open {
    pub(super) doc: Document,
    /// The analysis of the current version, computed once, off the lock, by whichever request
    /// needs it first.
    pub(super) analysis: Arc<OnceLock<Arc<Analysis>>>,
    /// Set (and replaced) when the document changes: work on the old version stops.
    pub(super) stale: Arc<AtomicBool>,
    /// Held while an analysis of the document runs (kept across versions): see
    /// [`Snapshot::analysis`].
    pub(super) gate: Arc<Mutex<()>>,
    /// The last semantic tokens sent, for delta requests.
    pub(super) tokens: Option<(String, Vec<SemanticToken>)>,
}

impl Open {
    pub(super) fn new(doc: Document) -> Open {
        Open {
            doc,
            analysis: Arc::default(),
            stale: Arc::default(),
            gate: Arc::default(),
            tokens: None,
        }
    }

    /// The text or its world changed: forget the analysis, stop work on the old one.
    pub(super) fn changed(&mut self) {
        self.stale.store(true, Ordering::Relaxed);
        self.stale = Arc::default();
        let old = std::mem::take(&mut self.analysis);
        // Freeing a big file's analysis takes a tenth of computing it: not under the lock,
        // not before the next version's diagnostics.
        if old.get().is_some() {
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                rt.spawn_blocking(move || drop(old));
            }
        }
    }
}

/// What a request needs to work on a document without the lock.
pub(super) struct Snapshot {
    pub(super) version: i32,
    pub(super) cell: Arc<OnceLock<Arc<Analysis>>>,
    pub(super) stale: Arc<AtomicBool>,
    pub(super) gate: Arc<Mutex<()>>,
    /// The text, world and position encoding to analyse, when the analysis is not there yet.
    pub(super) source: Option<(String, WorldSource, Encoding)>,
}

/// The world file of a program, as the snapshot finds it.
pub(super) enum WorldSource {
    None,
    /// Open in the editor: its text.
    Text(PathBuf, String),
    Disk(PathBuf),
}

impl WorldSource {
    pub(super) fn text(self) -> Option<(PathBuf, String)> {
        match self {
            WorldSource::None => None,
            WorldSource::Text(p, t) => Some((p, t)),
            // A FIFO or device named like a world file would hang or fill the server: only a
            // regular file is read.
            WorldSource::Disk(p) => {
                opal_core::files::read_text(&p, "the world file", opal_core::files::MAX_READ)
                    .ok()
                    .map(|t| (p, t))
            }
        }
    }

    pub(super) fn read(self) -> WorldInfo {
        // A world file that is there but cannot be read counts as one with errors, not as none.
        let exists = match &self {
            WorldSource::None => false,
            WorldSource::Text(..) => true,
            WorldSource::Disk(p) => p.symlink_metadata().is_ok(),
        };
        match self.text() {
            Some((_, text)) => WorldInfo {
                world: opal_core::world::parse_world(&text).ok(),
                exists: true,
            },
            None => WorldInfo {
                world: None,
                exists,
            },
        }
    }
}

impl Snapshot {
    /// The analysis of the snapshot's version, computed here if no one has yet. One analysis
    /// of a document runs at a time: a key held down on a big file would otherwise start one
    /// per keystroke side by side, faster than they finish. Work whose version was replaced
    /// while it waited stops before it starts (inside [`cancel::run`]).
    pub(super) fn analysis(&mut self) -> Arc<Analysis> {
        if let Some(a) = self.cell.get() {
            return a.clone();
        }
        let gate = self.gate.clone();
        let _one_at_a_time = gate.lock().unwrap_or_else(PoisonError::into_inner);
        cancel::check();
        let a = self.compute();
        cancel::check();
        a
    }

    /// Computes the analysis (once per version). Other requests may wait for it, so a
    /// cancelled request lets it finish (and stops after it); only a replaced version stops it.
    pub(super) fn compute(&mut self) -> Arc<Analysis> {
        let (source, cell) = (&mut self.source, &self.cell);
        let only_replaced = cancel::Token {
            request: Arc::default(),
            stale: self.stale.clone(),
        };
        let computed = cancel::run(only_replaced, || {
            cell.get_or_init(|| {
                let (text, world, enc) =
                    source
                        .take()
                        .unwrap_or((String::new(), WorldSource::None, Encoding::Utf16));
                Arc::new(Analysis::with_encoding(text, world.read(), enc))
            })
            .clone()
        });
        computed.unwrap_or_else(|p| std::panic::resume_unwind(p))
    }
}

pub(super) struct TokensUpdate {
    pub(super) id: String,
    pub(super) data: Vec<SemanticToken>,
    pub(super) previous: Option<(String, Vec<SemanticToken>)>,
}

/// What the client said it supports (`initialize`), as far as the server's answers change.
#[derive(Clone, Copy, Debug)]
pub(super) struct ClientCaps {
    pub(super) encoding: Encoding,
    /// Hover contents as markdown (else plain text).
    pub(super) hover_markdown: bool,
    /// Completion documentation as markdown.
    pub(super) completion_markdown: bool,
    pub(super) snippets: bool,
    /// `completionItem/resolve` may fill in `documentation` (the list is sent without it).
    pub(super) resolve_documentation: bool,
    pub(super) hierarchical_symbols: bool,
    /// `client/registerCapability` for file watchers.
    pub(super) watch_registration: bool,
    /// The client pulls diagnostics (`textDocument/diagnostic`): the server answers those
    /// requests and pushes nothing for programs, so a client that does both (VS Code's
    /// languageclient) does not list every diagnostic twice.
    pub(super) pull_diagnostics: bool,
    /// It takes `workspace/diagnostic/refresh` (a world file changed what a program's
    /// diagnostics are).
    pub(super) diagnostic_refresh: bool,
    /// Document links may point at a line (`#L<n>`): see [`opens_line_fragments`].
    pub(super) line_fragments: bool,
    /// The client runs the lenses' own commands (`opal.runFile`, `opal.debugFile`: the VS Code
    /// extension); other clients get the Run lens the server runs (`run_command.rs`).
    pub(super) client_lenses: bool,
}

impl Default for ClientCaps {
    /// A client that says nothing gets the protocol's defaults: UTF-16, plain text, no
    /// snippets, flat symbols, no dynamic registration.
    fn default() -> ClientCaps {
        ClientCaps {
            encoding: Encoding::Utf16,
            hover_markdown: false,
            completion_markdown: false,
            snippets: false,
            resolve_documentation: false,
            hierarchical_symbols: false,
            watch_registration: false,
            pull_diagnostics: false,
            diagnostic_refresh: false,
            line_fragments: false,
            client_lenses: false,
        }
    }
}

impl ClientCaps {
    /// From `initialize`: the capabilities and the client's name (`clientInfo.name`).
    pub(super) fn from(c: &ClientCapabilities, client: Option<&str>) -> ClientCaps {
        let td = c.text_document.as_ref();
        // A format list names the client's preference first: markdown only when it leads.
        let markdown = |formats: Option<&Vec<MarkupKind>>| {
            formats.is_some_and(|f| f.first() == Some(&MarkupKind::Markdown))
        };
        let item = td
            .and_then(|t| t.completion.as_ref())
            .and_then(|c| c.completion_item.as_ref());
        ClientCaps {
            encoding: Encoding::choose(
                c.general
                    .as_ref()
                    .and_then(|g| g.position_encodings.as_deref())
                    .unwrap_or(&[]),
            ),
            hover_markdown: markdown(
                td.and_then(|t| t.hover.as_ref())
                    .and_then(|h| h.content_format.as_ref()),
            ),
            completion_markdown: markdown(item.and_then(|i| i.documentation_format.as_ref())),
            snippets: item.and_then(|i| i.snippet_support) == Some(true),
            resolve_documentation: item
                .and_then(|i| i.resolve_support.as_ref())
                .is_some_and(|r| r.properties.iter().any(|p| p == "documentation")),
            hierarchical_symbols: td
                .and_then(|t| t.document_symbol.as_ref())
                .and_then(|d| d.hierarchical_document_symbol_support)
                == Some(true),
            watch_registration: c
                .workspace
                .as_ref()
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|d| d.dynamic_registration)
                == Some(true),
            pull_diagnostics: td.and_then(|t| t.diagnostic.as_ref()).is_some(),
            diagnostic_refresh: c
                .workspace
                .as_ref()
                .and_then(|w| w.diagnostics.as_ref())
                .and_then(|d| d.refresh_support)
                == Some(true),
            line_fragments: client.is_some_and(opens_line_fragments),
            client_lenses: false,
        }
    }
}

/// Whether a client (by its `clientInfo.name`) opens `file:…#L<n>` at line n: VS Code and its
/// builds do (their application names); other clients may take the fragment for part of the
/// file name, so their links name the file alone.
pub(super) fn opens_line_fragments(client: &str) -> bool {
    [
        "Visual Studio Code",
        "VSCodium",
        "Code - OSS",
        "code-server",
        "Cursor",
        "Windsurf",
    ]
    .iter()
    .any(|n| client.contains(n))
}

#[derive(Default)]
pub(super) struct State {
    pub(super) caps: ClientCaps,
    pub(super) docs: HashMap<Uri, Open>,
    pub(super) roots: Vec<PathBuf>,
    /// Workspace symbols of the files on disk.
    pub(super) index: Index,
    pub(super) next_result: u64,
    pub(super) shut_down: bool,
}

pub(super) fn is_world(uri: &Uri) -> bool {
    uri.as_str().ends_with(".world.toml")
}

/// `dir/NAME.world.toml` → `dir/NAME.opal`.
pub(super) fn program_path_of(world: &Path) -> Option<PathBuf> {
    let name = world.file_name()?.to_str()?;
    Some(world.with_file_name(format!("{}.opal", name.strip_suffix(".world.toml")?)))
}

impl State {
    /// Where the world file beside a program is read from: the editor's copy is taken now,
    /// the disk is read (and the file parsed) by the work that needs it, off the lock.
    pub(super) fn world_for(&self, uri: &Uri) -> WorldSource {
        let Some(path) = uri
            .to_file_path()
            .and_then(|p| opal_core::world::path_beside(&p))
        else {
            return WorldSource::None;
        };
        match Uri::from_file_path(&path).and_then(|u| self.docs.get(&u)) {
            Some(o) => WorldSource::Text(path, o.doc.text()),
            None => WorldSource::Disk(path),
        }
    }

    /// A snapshot of an open program (cheap when its analysis is already there).
    pub(super) fn snapshot(&self, uri: &Uri) -> Option<Snapshot> {
        // Out of sync, any answer would be about text the editor does not have.
        let o = self.docs.get(uri).filter(|o| o.doc.out_of_sync.is_none())?;
        let source = if o.analysis.get().is_none() {
            Some((o.doc.text(), self.world_for(uri), self.caps.encoding))
        } else {
            None
        };
        Some(Snapshot {
            version: o.doc.version,
            cell: o.analysis.clone(),
            stale: o.stale.clone(),
            gate: o.gate.clone(),
            source,
        })
    }

    /// Records semantic tokens computed for `version` under a new result id, returning the
    /// tokens sent before; `None` if the document moved on meanwhile.
    pub(super) fn record_tokens(
        &mut self,
        uri: &Uri,
        version: i32,
        data: Vec<SemanticToken>,
    ) -> Option<TokensUpdate> {
        self.next_result += 1;
        let id = self.next_result.to_string();
        let open = self
            .docs
            .get_mut(uri)
            .filter(|o| o.doc.version == version)?;
        let previous = open.tokens.replace((id.clone(), data.clone()));
        Some(TokensUpdate { id, data, previous })
    }

    /// A program file on disk may have changed: the symbol index reads it again, if the walk
    /// of the workspace reaches it.
    pub(super) fn disk_changed(&mut self, uri: Uri, deleted: bool) {
        if uri.as_str().ends_with(".opal") && index::walked(&self.roots, &uri) {
            self.index.changed(uri, deleted);
        }
    }

    /// Forgets every program analysis (a world file changed).
    pub(super) fn invalidate_programs(&mut self) {
        for o in self.docs.values_mut() {
            o.changed();
            o.tokens = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::Cancelled;

    fn snapshot(text: &str) -> Snapshot {
        let source = Some((text.to_string(), WorldSource::None, Encoding::Utf16));
        Snapshot {
            version: 1,
            cell: Arc::default(),
            stale: Arc::default(),
            gate: Arc::default(),
            source,
        }
    }

    /// A request cancelled while its analysis runs stops, but the analysis is kept for the
    /// requests waiting for it; a replaced version's analysis stops and is not kept.
    #[test]
    fn a_cancelled_request_keeps_the_analysis_a_replaced_version_does_not() {
        let mut s = snapshot("x := 1\nprint (&stdout, x)\n");
        let cell = s.cell.clone();
        let cancelled = cancel::Token::default();
        cancelled.request.store(true, Ordering::Relaxed);
        assert!(
            cancel::run(cancelled, || s.compute()).is_ok(),
            "the request's flag does not stop the analysis"
        );
        assert!(cell.get().is_some());
        let mut s = snapshot("x := 1\n");
        s.stale.store(true, Ordering::Relaxed);
        let cell = s.cell.clone();
        assert!(cancel::run(cancel::Token::default(), || s.compute())
            .is_err_and(|p| p.is::<Cancelled>()));
        assert!(cell.get().is_none(), "a replaced version is not analysed");
    }
}
