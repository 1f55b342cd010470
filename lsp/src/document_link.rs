//! Document links: a string literal naming a file beside the program (a path given to
//! `create_process`, a file a script reads) opens that file, and an `extern` declaration opens
//! its mock in the world file beside the program (at its `[name]` table).

use crate::analysis::Analysis;
use opal_core::desugar::DefKind;
use opal_core::span::Span;
use opal_core::syntax::lexer::{lex, Tok};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Longer strings are text, not paths (and are not looked up on disk).
const MAX_PATH: usize = 1024;

/// A link: the span it covers, the file it opens and, for a mock, the 0-based line of its table.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub span: Span,
    pub target: PathBuf,
    pub line: Option<usize>,
    pub tooltip: String,
}

/// `dir`: the program's folder; `world`: the world file beside it and its text, if any.
pub fn document_links(a: &Analysis, dir: &Path, world: Option<(&Path, &str)>) -> Vec<Link> {
    let mut links = Vec::new();
    for (k, t) in lex(&a.text).tokens.into_iter().enumerate() {
        if k % 1024 == 0 {
            crate::cancel::check();
        }
        let Tok::Str(s) = &t.tok else { continue };
        if s.is_empty()
            || s.len() > MAX_PATH
            || s.contains(['\n', '\0'])
            || !(s.contains('/') || s.contains('.'))
        {
            continue;
        }
        let target = dir.join(s);
        if !target.is_file() {
            continue;
        }
        // Inside the quotes.
        let mut span = t.span;
        span.start += 1;
        span.end = span.end.saturating_sub(1).max(span.start);
        links.push(Link {
            span,
            target,
            line: None,
            tooltip: format!("open {s}"),
        });
    }
    if let Some((path, text)) = world {
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tables = Tables::new(text);
        for d in a.defs().iter().filter(|d| d.kind == DefKind::Extern) {
            let Some(line) = tables.line(&d.name) else {
                continue;
            };
            links.push(Link {
                span: d.span,
                target: path.to_path_buf(),
                line: Some(line),
                tooltip: format!("the mock of `{}` in {file}", d.name),
            });
        }
    }
    links
}

/// Where a world file's tables start, read once (a program may declare many externs).
struct Tables {
    /// `[name]`: its 0-based line.
    exact: HashMap<String, usize>,
    /// `[[name.responses]]` and other `name.…` tables: the first one's line.
    dotted: HashMap<String, usize>,
}

impl Tables {
    fn new(text: &str) -> Tables {
        let header = |l: &str| {
            let l = l.trim();
            let inner = l
                .strip_prefix("[[")
                .and_then(|r| r.strip_suffix("]]"))
                .or_else(|| l.strip_prefix('[').and_then(|r| r.strip_suffix(']')))?;
            Some(inner.trim().trim_matches('"').to_string())
        };
        let (mut exact, mut dotted) = (HashMap::new(), HashMap::new());
        for (i, l) in text.lines().enumerate() {
            let Some(h) = header(l) else { continue };
            if let Some((base, _)) = h.split_once('.') {
                dotted.entry(base.to_string()).or_insert(i);
            }
            exact.entry(h).or_insert(i);
        }
        Tables { exact, dotted }
    }

    /// The line of `[name]`, or else of the first `[[name.responses]]`.
    fn line(&self, name: &str) -> Option<usize> {
        self.exact
            .get(name)
            .or_else(|| self.dotted.get(name))
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::WorldInfo;

    #[test]
    fn files_beside_the_program_and_externs_in_the_world_file_are_links() {
        let dir = std::env::temp_dir().join(format!("opal-links-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("data")).unwrap_or_default();
        std::fs::write(dir.join("data/in.txt"), "hello").unwrap_or_default();
        let src = "extern fetch, ask\nx := fetch \"data/in.txt\"\ny := fetch \"data/missing.txt\"\nz := ask \"a question.\"\n";
        let a = Analysis::new(src.into(), WorldInfo::default());
        let world_path = dir.join("p.world.toml");
        let world = "# mocks\n[ask]\ndefault = '1'\n\n[[fetch.responses]]\narg = '\"data/in.txt\"'\nresult = '\"hello\"'\n";
        let p = a.pos();
        let shown: Vec<String> = document_links(&a, &dir, Some((&world_path, world)))
            .iter()
            .map(|l| {
                let target = l
                    .target
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let (start, end) = (p.line_col(l.span.start), p.line_col(l.span.end));
                format!(
                    "{}:{}-{} {target}{}",
                    start.line,
                    start.col,
                    end.col,
                    l.line.map(|n| format!(" line {n}")).unwrap_or_default()
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                "1:12-23 in.txt",
                "0:7-12 p.world.toml line 4",
                "0:14-17 p.world.toml line 1"
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn no_world_file_and_no_paths_means_no_links() {
        let a = Analysis::new(
            "x := \"not a file.\"\nprint (&stdout, x)\n".into(),
            WorldInfo::default(),
        );
        assert!(document_links(&a, &std::env::temp_dir(), None).is_empty());
    }
}
