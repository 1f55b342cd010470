//! Workspace symbols from an index: the `.opal` files under the workspace roots are read and
//! analysed once, on the first `workspace/symbol` request; afterwards only the files that
//! `workspace/didChangeWatchedFiles` reports (created, changed, deleted) are read again. Open
//! documents answer from their own analysis, so unsaved edits show.

use crate::analysis::{Analysis, WorldInfo};
use crate::position::Encoding;
use crate::{cancel, navigation};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_lsp_server::ls_types::{Location, OneOf, Range, SymbolKind, Uri, WorkspaceSymbol};

/// One symbol: name, kind, where, container.
pub type Entry = (String, SymbolKind, Range, Option<String>);

/// The symbols of files on disk.
#[derive(Default, Clone)]
pub struct Index {
    pub built: bool,
    pub files: HashMap<Uri, Arc<Vec<Entry>>>,
    /// Files reported changed since they were last read.
    pub dirty: HashSet<Uri>,
}

impl Index {
    /// A watched-file event for a `.opal` file.
    pub fn changed(&mut self, uri: Uri, deleted: bool) {
        if deleted {
            self.files.remove(&uri);
            self.dirty.remove(&uri);
        } else if self.built {
            self.dirty.insert(uri);
        }
    }

    /// Brings the index up to date (reads every file the first time, then the dirty ones).
    pub fn refresh(&mut self, roots: &[PathBuf], enc: Encoding) {
        if !self.built {
            let mut files = Vec::new();
            let mut budget = 2000usize;
            for root in roots {
                collect_opal_files(root, 0, &mut budget, &mut files);
            }
            for uri in files {
                cancel::check();
                if let Some(entries) = read_symbols(&uri, enc) {
                    self.files.insert(uri, Arc::new(entries));
                }
            }
            self.built = true;
            self.dirty.clear();
        }
        for uri in std::mem::take(&mut self.dirty) {
            cancel::check();
            match read_symbols(&uri, enc) {
                Some(entries) => self.files.insert(uri, Arc::new(entries)),
                None => self.files.remove(&uri),
            };
        }
    }
}

fn read_symbols(uri: &Uri, enc: Encoding) -> Option<Vec<Entry>> {
    let text = std::fs::read_to_string(uri.to_file_path()?).ok()?;
    Some(navigation::flat_symbols(&Analysis::with_encoding(text, WorldInfo::default(), enc)))
}

/// The symbols matching a query: open documents from their analyses, other files from the
/// index; sorted by file.
pub fn query(index: &Index, open: &[(Uri, Arc<Analysis>)], q: &str) -> Vec<WorkspaceSymbol> {
    let open_uris: HashSet<&Uri> = open.iter().map(|(u, _)| u).collect();
    let mut sources: Vec<(&Uri, Vec<Entry>)> = Vec::new();
    for (u, a) in open {
        sources.push((u, navigation::flat_symbols(a)));
    }
    for (u, entries) in &index.files {
        if !open_uris.contains(u) {
            sources.push((u, entries.to_vec()));
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
