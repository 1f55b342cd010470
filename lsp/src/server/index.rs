//! The index of workspace symbols (the server's: it follows file events): the `.opal` files
//! under the workspace roots are read and analysed once, on the first `workspace/symbol`
//! request. Afterwards a file is read again only when it is known to have changed: reported by
//! `workspace/didChangeWatchedFiles` (created, changed, deleted), saved or closed in the
//! editor, or, for a client that cannot watch files for the server, found with a new
//! modification time by a walk of the roots (a listing and a `stat` per file, not a read).
//! Open documents answer from their own analysis, so unsaved edits show. What a file's symbols
//! are and which match a query is the feature [`crate::workspace_symbols`].

use crate::analysis::{Analysis, WorldInfo};
use crate::cancel;
use crate::position::Encoding;
use crate::workspace_symbols::{entries, matching, Entry};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};
// The index is keyed by the documents' URIs, as the server names documents (and file events).
use tower_lsp_server::ls_types::Uri;

/// The symbols of one file on disk, what its metadata said when they were read, and when.
#[derive(Clone)]
pub struct Indexed {
    pub stamp: Stamp,
    pub read_at: SystemTime,
    pub symbols: Arc<Vec<Entry>>,
}

/// A file's modification time and length: a file written in the same tick as its read
/// (coarse file-system clocks) is read again until its time is two seconds older than the
/// read, as git treats racily clean files.
#[derive(Clone, Copy, PartialEq)]
pub struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
}

impl Stamp {
    fn of(path: &Path) -> Stamp {
        let meta = std::fs::metadata(path).ok();
        Stamp {
            modified: meta.as_ref().and_then(|m| m.modified().ok()),
            len: meta.map_or(0, |m| m.len()),
        }
    }

    /// Whether a file with this stamp must be read again, given its last read.
    fn differs(&self, read: &Indexed) -> bool {
        let racy = self.modified.is_none_or(|m| {
            read.read_at
                .duration_since(m)
                .map_or(true, |d| d < Duration::from_secs(2))
        });
        *self != read.stamp || racy
    }
}

/// The symbols of files on disk.
#[derive(Default, Clone)]
pub struct Index {
    pub built: bool,
    pub files: HashMap<Uri, Indexed>,
    /// Files reported changed (or deleted) since they were last read, each with the number of
    /// its mark, so a search on a copy of the index clears only the marks it saw.
    pub dirty: HashMap<Uri, u64>,
    marks: u64,
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
            self.marks += 1;
            self.dirty.insert(uri, self.marks);
        }
    }

    /// Takes the result of a search that ran on a copy of the index taken when the dirty set
    /// was `read`: its files, and the marks made since.
    pub fn take_read(&mut self, copy: Index, read: &HashMap<Uri, u64>) {
        let dirty = std::mem::take(&mut self.dirty)
            .into_iter()
            .filter(|(u, mark)| read.get(u) != Some(mark))
            .collect();
        *self = Index {
            dirty,
            marks: self.marks,
            ..copy
        };
    }

    /// Brings the index up to date: reads every file the first time, then the dirty ones.
    /// Without `watched` (the client sends no file events) the roots are walked for files whose
    /// modification time changed, and for new and removed files.
    pub fn refresh(&mut self, roots: &[PathBuf], enc: Encoding, watched: bool) {
        let mut stale = HashSet::new();
        if !self.built || !watched {
            let mut files = Vec::new();
            let mut budget = 2000usize;
            for root in roots {
                collect_opal_files(root, 0, &mut budget, &mut files);
            }
            let on_disk: HashSet<&Uri> = files.iter().map(|(u, _)| u).collect();
            self.files.retain(|u, _| on_disk.contains(u));
            for (uri, stamp) in &files {
                if self.files.get(uri).is_none_or(|f| stamp.differs(f)) {
                    stale.insert(uri.clone());
                }
            }
            self.built = true;
        }
        stale.extend(std::mem::take(&mut self.dirty).into_keys());
        for uri in stale {
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
    // The stamp before the read: a write during the read shows as a change next time.
    let (stamp, read_at) = (Stamp::of(&path), SystemTime::now());
    // Only a regular file: a FIFO named `x.opal` in the workspace would hold the index for ever.
    let text =
        opal_core::files::read_text(&path, "the program", opal_core::files::MAX_READ).ok()?;
    let symbols = Arc::new(entries(&Analysis::with_encoding(
        text,
        WorldInfo::default(),
        enc,
    )));
    Some(Indexed {
        stamp,
        read_at,
        symbols,
    })
}

/// The symbols matching a query: open documents from their analyses, other files from the
/// index; sorted by file.
pub fn query(index: &Index, open: &[(Uri, Arc<Analysis>)], q: &str) -> Vec<(Uri, Entry)> {
    let open_uris: HashSet<&Uri> = open.iter().map(|(u, _)| u).collect();
    let mut sources: Vec<(&Uri, Vec<Entry>)> = Vec::new();
    for (u, a) in open {
        sources.push((u, entries(a)));
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
        out.extend(matching(entries, q).into_iter().map(|e| (uri.clone(), e)));
    }
    out
}

/// How many folders below a root the walk goes.
const MAX_DEPTH: usize = 8;

/// Whether the walk enters a folder: not hidden, not a build or package folder.
fn walks_into(name: &str) -> bool {
    !name.starts_with('.') && name != "target" && name != "node_modules"
}

/// Whether the walk of the roots reaches a file (saves and closes of other files are not
/// indexed).
pub fn walked(roots: &[PathBuf], uri: &Uri) -> bool {
    let Some(path) = uri.to_file_path() else {
        return false;
    };
    roots.iter().any(|root| {
        path.strip_prefix(root).is_ok_and(|rel| {
            let dirs: Vec<_> = rel
                .parent()
                .map(|p| p.components().collect())
                .unwrap_or_default();
            dirs.len() <= MAX_DEPTH
                && dirs
                    .iter()
                    .all(|c| walks_into(&c.as_os_str().to_string_lossy()))
        })
    })
}

fn collect_opal_files(dir: &Path, depth: usize, budget: &mut usize, out: &mut Vec<(Uri, Stamp)>) {
    if depth > MAX_DEPTH || *budget == 0 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
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
            if walks_into(&name) {
                collect_opal_files(&p, depth + 1, budget, out);
            }
        } else if name.ends_with(".opal") {
            if let Some(u) = Uri::from_file_path(&p) {
                out.push((u, Stamp::of(&p)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_files_the_walk_reaches_are_indexed() {
        let roots = [PathBuf::from("/w/proj")];
        let walked = |p: &str| Uri::from_file_path(p).is_some_and(|u| walked(&roots, &u));
        assert!(walked("/w/proj/a.opal") && walked("/w/proj/src/deep/b.opal"));
        assert!(!walked("/w/other/a.opal"), "outside the roots");
        assert!(
            !walked("/w/proj/.git/a.opal")
                && !walked("/w/proj/target/a.opal")
                && !walked("/w/proj/x/node_modules/a.opal")
        );
        assert!(
            !walked("/w/proj/1/2/3/4/5/6/7/8/9/a.opal"),
            "deeper than the walk goes"
        );
    }

    /// A search on a copy clears the marks it saw, and keeps those made meanwhile.
    #[test]
    fn a_search_clears_only_the_marks_it_read() {
        let u =
            |n: &str| Uri::from_file_path(format!("/w/{n}.opal")).unwrap_or_else(|| panic!("uri"));
        let mut live = Index {
            built: true,
            ..Index::default()
        };
        live.changed(u("a"), false);
        live.changed(u("b"), false);
        let read = live.dirty.clone();
        let mut copy = live.clone();
        copy.dirty.clear(); // what `refresh` leaves
        live.changed(u("b"), false); // marked again during the search
        live.changed(u("c"), true);
        live.take_read(copy, &read);
        let mut left: Vec<&str> = live.dirty.keys().map(|k| k.as_str()).collect();
        left.sort();
        assert_eq!(left, ["file:///w/b.opal", "file:///w/c.opal"]);
    }
}
