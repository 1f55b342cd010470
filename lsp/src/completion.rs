//! Completion: bindings in scope, prelude functions, externals, handles, keywords and snippets,
//! filtered by the typed prefix.

use crate::analysis::{describe_known, prelude_signature, Analysis};
use crate::formatting::{line_break, with_breaks};
use opal_core::desugar::{DefKind, Known};
use opal_core::syntax::lexer::{lex, Tok, KEYWORDS};
use opal_core::{externals, prelude};
use std::collections::HashSet;

const SNIPPETS: &[(&str, &str, &str)] = &[
    ("fun", "fun ${1:x}: ${0:x}", "function"),
    (
        "for",
        "for ${1:x} in ${2:list}:\n    ${0:pass}",
        "fold a list, threading rebound variables",
    ),
    (
        "if",
        "if ${1:cond}:\n    ${2}\nelse:\n    ${0}",
        "if / else on a Church boolean",
    ),
    (
        "while",
        "while ${1:cond}:\n    ${0}",
        "loop while a condition holds",
    ),
    (
        "rec",
        "rec ${1:f} := fun ${2:x}:\n    ${0}",
        "recursive function",
    ),
    ("do", "do:\n    ${1}\nwhile ${0:cond}", "loop at least once"),
];

/// What a completion is, for its icon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    Variable,
    Function,
    /// An `extern` of the file.
    Interface,
    Keyword,
    Snippet,
}

/// Where a completion's documentation comes from (looked up when the client resolves it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DocSource {
    /// A binding of the file, defined at this offset.
    Def(u32),
    /// A standard external.
    External(String),
    /// A standard handle.
    Handle(String),
}

/// Documentation text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Doc {
    Markdown(String),
    Plain(String),
}

/// One completion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: Option<String>,
    pub sort_text: String,
    /// A snippet's body (LSP snippet syntax), inserted instead of the label.
    pub snippet: Option<String>,
    pub doc: Option<DocSource>,
}

impl Completion {
    fn new(label: &str, kind: CompletionKind, sort_group: char) -> Completion {
        Completion {
            label: label.to_string(),
            kind,
            detail: None,
            sort_text: format!("{sort_group}{label}"),
            snippet: None,
            doc: None,
        }
    }
}

/// True when the offset is inside a comment or a string literal, where completion is noise.
fn in_comment_or_string(a: &Analysis, offset: u32) -> bool {
    a.compiled
        .parsed
        .comments
        .iter()
        .any(|c| c.span.start < offset && offset <= c.span.end)
        || lex(&a.text)
            .tokens
            .iter()
            .any(|t| matches!(t.tok, Tok::Str(_)) && t.span.start < offset && offset < t.span.end)
}

/// Completions at most; a longer list is cut (best first) and marked incomplete.
pub const MAX_COMPLETIONS: usize = 200;

/// The identifier characters right before an offset: what the user is typing.
pub fn typed_prefix(text: &str, offset: u32) -> &str {
    let before = text.get(..(offset as usize).min(text.len())).unwrap_or("");
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
        .last()
        .map_or(before.len(), |(i, _)| i);
    &before[start..]
}

/// Completion items matching the typed prefix (its characters in order, ignoring case),
/// best first, at most [`MAX_COMPLETIONS`]; `true` when some were cut.
pub fn completion_list(a: &Analysis, offset: u32) -> (Vec<Completion>, bool) {
    let prefix = typed_prefix(&a.text, offset);
    let mut items: Vec<Completion> = completion(a, offset)
        .into_iter()
        .filter(|i| crate::navigation::fuzzy_match(prefix, &i.label))
        .collect();
    // Names that start with the prefix come before ones that only contain its letters; else
    // the order stays (scope innermost first, prelude, externals, handles, keywords, snippets).
    let lower = prefix.to_lowercase();
    items.sort_by_cached_key(|i| !i.label.to_lowercase().starts_with(&lower));
    let cut = items.len() > MAX_COMPLETIONS;
    items.truncate(MAX_COMPLETIONS);
    (items, cut)
}

pub fn completion(a: &Analysis, offset: u32) -> Vec<Completion> {
    if in_comment_or_string(a, offset) {
        return vec![];
    }
    let mut seen: HashSet<String> = HashSet::new();
    let mut items = Vec::new();
    // Innermost bindings first: a name shadows the prelude and the externals.
    for v in a.scope_at(offset).into_iter().rev() {
        if !seen.insert(v.name.clone()) || v.name.starts_with('_') && v.name.len() == 1 {
            continue;
        }
        let def = a.def_at(v.span).map(|i| &a.defs()[i]);
        let known = def.map(|d| d.known.clone()).unwrap_or(Known::Unknown);
        let is_extern = def.is_some_and(|d| d.kind == DefKind::Extern);
        let kind = match (&known, is_extern) {
            (_, true) => CompletionKind::Interface,
            (Known::Fun(_), _) => CompletionKind::Function,
            _ => CompletionKind::Variable,
        };
        let detail = if is_extern {
            "extern".to_string()
        } else if v.param {
            format!("parameter · {}", describe_known(&known))
        } else {
            describe_known(&known)
        };
        items.push(Completion {
            detail: Some(detail),
            doc: Some(DocSource::Def(v.span.start)),
            ..Completion::new(&v.name, kind, '0')
        });
    }
    for p in prelude::names() {
        if seen.insert(p.to_string()) && !p.ends_with('_') && !p.starts_with("fix_") {
            items.push(Completion {
                detail: prelude_signature(p).map(|s| format!("prelude: {s}")),
                ..Completion::new(p, CompletionKind::Function, '1')
            });
        }
    }
    for e in externals::STANDARD {
        if seen.insert(e.name.to_string()) {
            let doc = Some(DocSource::External(e.name.to_string()));
            items.push(Completion {
                detail: Some(e.sig.to_string()),
                doc,
                ..Completion::new(e.name, CompletionKind::Function, '2')
            });
        }
    }
    for (h, _) in externals::HANDLES {
        if seen.insert(h.to_string()) {
            let doc = Some(DocSource::Handle(h.to_string()));
            items.push(Completion {
                detail: Some("handle".into()),
                doc,
                ..Completion::new(h, CompletionKind::Variable, '2')
            });
        }
    }
    for (k, _) in KEYWORDS {
        items.push(Completion::new(k, CompletionKind::Keyword, '3'));
    }
    for (label, body, detail) in SNIPPETS {
        items.push(Completion {
            detail: Some(detail.to_string()),
            snippet: Some(with_breaks(body.to_string(), line_break(&a.text))),
            ..Completion::new(label, CompletionKind::Snippet, '4')
        });
    }
    items
}

/// The documentation of a completion: a standard external's or a handle's doc, or the doc
/// comment above a binding of the file.
pub fn completion_documentation(a: &Analysis, source: &DocSource) -> Option<Doc> {
    match source {
        DocSource::External(name) => {
            let e = externals::STANDARD.iter().find(|e| e.name == name)?;
            Some(Doc::Markdown(format!(
                "{} ({} external)",
                e.doc,
                e.kind.as_str()
            )))
        }
        DocSource::Handle(name) => {
            let (_, doc) = externals::HANDLES.iter().find(|(h, _)| h == name)?;
            Some(Doc::Plain(doc.to_string()))
        }
        DocSource::Def(at) => {
            if *at as usize > a.text.len() {
                return None;
            }
            a.doc_above(*at).map(Doc::Markdown)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::WorldInfo;

    fn analysis(src: &str) -> Analysis {
        Analysis::new(src.to_string(), WorldInfo::default())
    }

    #[test]
    fn completion_is_filtered_by_the_typed_prefix() {
        let src = "printer := 1\nprogress := 2\nx := pr";
        let a = analysis(src);
        let (items, cut) = completion_list(&a, src.len() as u32);
        let labels: Vec<&str> = items.iter().map(|i| i.label.as_str()).collect();
        assert!(!cut);
        assert!(
            labels
                .iter()
                .all(|l| crate::navigation::fuzzy_match("pr", l)),
            "{labels:?}"
        );
        assert_eq!(
            &labels[..2],
            &["progress", "printer"],
            "bindings in scope first, innermost first: {labels:?}"
        );
        assert!(labels.contains(&"print"));
        // 300 bindings that match: the best 200 go out, marked as cut (the server then answers an
        // incomplete list, so the client asks again as the user types).
        let many: String = (0..300)
            .map(|i| format!("item{i} := {i}\n"))
            .collect::<String>()
            + "x := it";
        let (items, cut) = completion_list(&analysis(&many), many.len() as u32);
        assert!(
            cut && items.len() == MAX_COMPLETIONS,
            "{} items, cut {cut}",
            items.len()
        );
        assert_eq!(
            items[0].label, "item299",
            "innermost (latest) binding first"
        );
    }

    #[test]
    fn snippets_use_the_files_line_break() {
        for brk in ["\r\n", "\r", "\n"] {
            let src = format!("x := 1{brk}fo");
            let (items, _) = completion_list(&analysis(&src), src.len() as u32);
            let body = items
                .iter()
                .find(|i| i.label == "for" && i.kind == CompletionKind::Snippet)
                .and_then(|i| i.snippet.clone())
                .unwrap_or_default();
            assert_eq!(
                body,
                format!("for ${{1:x}} in ${{2:list}}:{brk}    ${{0:pass}}"),
                "{brk:?}"
            );
        }
    }

    #[test]
    fn completion_inside_unclosed_calls() {
        for src in [
            "shout := fun (s, n): s\nx := shout (sh",
            "shout := 1\nprint (&stdout, sh",
        ] {
            let (items, _) = completion_list(&analysis(src), src.len() as u32);
            assert!(
                items.iter().any(|i| i.label == "shout"),
                "{src:?}: {:?}",
                items.iter().map(|i| &i.label).collect::<Vec<_>>()
            );
        }
    }
}
