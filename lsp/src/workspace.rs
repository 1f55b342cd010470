//! Workspace symbols from an index: the `.opal` files under the workspace roots are read and
//! analysed once, on the first `workspace/symbol` request. Afterwards a file is read again only
//! when it is known to have changed: reported by `workspace/didChangeWatchedFiles` (created,
//! changed, deleted), saved or closed in the editor, or, for a client that cannot watch files
//! for the server, found with a new modification time by a walk of the roots (a listing and a
//! `stat` per file, not a read). Open documents answer from their own analysis, so unsaved
//! edits show.

use crate::analysis::{Analysis, WorldInfo};
use crate::position::Encoding;
use crate::{cancel, navigation};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;
use tower_lsp_server::ls_types::{Location, OneOf, Range, SymbolKind, Uri, WorkspaceSymbol};

/// One symbol: name, kind, where, container.
pub type Entry = (String, SymbolKind, Range, Option<String>);

/// The symbols of one file on disk, and its modification time when they were read.
#[derive(Clone)]
pub struct Indexed {
    pub modified: Option<SystemTime>,
    pub symbols: Arc<Vec<Entry>>,
}

/// The symbols of files on disk.
#[derive(Default, Clone)]
pub struct Index {
    pub built: bool,
    pub files: HashMap<Uri, Indexed>,
    /// Files reported changed (or deleted) since they were last read.
    pub dirty: HashSet<Uri>,
}

impl Index {
    /// A `.opal` file changed on disk (a watched-file event, a save, a close). A deleted file
    /// leaves the index at once and stays dirty too, so a refresh running meanwhile (on a copy
    /// that still holds it) cannot bring it back.
    pub fn changed(&mut self, uri: Uri, deleted: bool) {
        if deleted {
            self.files.remove(&uri);
        }
        if self.built {
            self.dirty.insert(uri);
        }
    }

    /// Brings the index up to date: reads every file the first time, then the dirty ones.
    /// Without `watched` (the client sends no file events) the roots are walked for files whose
    /// modification time changed, and for new and removed files.
    pub fn refresh(&mut self, roots: &[PathBuf], enc: Encoding, watched: bool) {
        if !self.built || !watched {
            let mut files = Vec::new();
            let mut budget = 2000usize;
            for root in roots {
                collect_opal_files(root, 0, &mut budget, &mut files);
            }
            let on_disk: HashSet<&Uri> = files.iter().map(|(u, _)| u).collect();
            self.files.retain(|u, _| on_disk.contains(u));
            for (uri, modified) in &files {
                if self.files.get(uri).is_none_or(|f| f.modified != *modified || modified.is_none()) {
                    self.dirty.insert(uri.clone());
                }
            }
            self.built = true;
        }
        for uri in std::mem::take(&mut self.dirty) {
            cancel::check();
            match read_symbols(&uri, enc) {
                Some(f) => self.files.insert(uri, f),
                None => self.files.remove(&uri),
            };
        }
    }
}

fn read_symbols(uri: &Uri, enc: Encoding) -> Option<Indexed> {
    let path = uri.to_file_path()?;
    // The time before the read: a write during the read shows as a change next time.
    let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
    let text = std::fs::read_to_string(&path).ok()?;
    let symbols = Arc::new(navigation::flat_symbols(&Analysis::with_encoding(text, WorldInfo::default(), enc)));
    Some(Indexed { modified, symbols })
}

/// The symbols matching a query: open documents from their analyses, other files from the
/// index; sorted by file.
pub fn query(index: &Index, open: &[(Uri, Arc<Analysis>)], q: &str) -> Vec<WorkspaceSymbol> {
    let open_uris: HashSet<&Uri> = open.iter().map(|(u, _)| u).collect();
    let mut sources: Vec<(&Uri, Vec<Entry>)> = Vec::new();
    for (u, a) in open {
        sources.push((u, navigation::flat_symbols(a)));
    }
    for (u, f) in &index.files {
        if !open_uris.contains(u) {
            sources.push((u, f.symbols.to_vec()));
        }
    }
    sources.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    let mut out = Vec::new();
    for (uri, entries) in sources {
        cancel::check();
        for (name, kind, range, container) in entries {
            if navigation::fuzzy_match(q, &name) {
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

fn collect_opal_files(dir: &Path, depth: usize, budget: &mut usize, out: &mut Vec<(Uri, Option<SystemTime>)>) {
    if depth > 8 || *budget == 0 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        cancel::check();
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if p.is_dir() {
            if !name.starts_with('.') && name != "target" && name != "node_modules" {
                collect_opal_files(&p, depth + 1, budget, out);
            }
        } else if name.ends_with(".opal") {
            if let Some(u) = Uri::from_file_path(&p) {
                out.push((u, std::fs::metadata(&p).and_then(|m| m.modified()).ok()));
            }
        }
    }
}
