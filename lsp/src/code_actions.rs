//! Code actions: quick fixes for the diagnostics in a range; and the code lenses that run
//! or debug the file.

use crate::analysis::Analysis;
use crate::folding_ranges::for_each_child_block;
use crate::formatting::line_break;
use opal_core::diag::Diagnostic as ODiag;
use opal_core::span::Span;
use opal_core::syntax::ast::Pattern;
use opal_core::syntax::ast::*;

/// A quick fix for one diagnostic.
pub struct QuickFix {
    pub title: String,
    pub diag: ODiag,
    pub edits: Vec<(Span, String)>,
    pub preferred: bool,
}

/// Quick fixes for the diagnostics that overlap a range.
pub fn quick_fixes(a: &Analysis, range: Span) -> Vec<QuickFix> {
    let mut out = Vec::new();
    for d in a
        .diags
        .iter()
        .filter(|d| d.span.start <= range.end && d.span.end >= range.start)
    {
        match (d.code, &d.fix) {
            ("E0005", _) => out.push(fix(
                "Use `:=` to bind".into(),
                d,
                vec![(d.span, ":=".into())],
                true,
            )),
            ("E0002", _) => out.push(tabs_to_spaces(a, d)),
            ("E0100", suggestion) => unknown_name(a, d, suggestion.as_deref(), &mut out),
            ("W0001", _) => unused_binding(a, d, &mut out),
            ("W0002", Some(threaded)) => out.push(fix(
                format!("Thread the handle: `{threaded}`"),
                d,
                vec![(d.span, threaded.clone())],
                true,
            )),
            _ => {}
        }
    }
    out
}

fn fix(title: String, d: &ODiag, edits: Vec<(Span, String)>, preferred: bool) -> QuickFix {
    QuickFix {
        title,
        diag: d.clone(),
        edits,
        preferred,
    }
}

/// E0002 (a tab in the indentation): the line's indentation with each tab as four spaces.
fn tabs_to_spaces(a: &Analysis, d: &ODiag) -> QuickFix {
    let line = a.lines.line_of(d.span.start);
    let text = a.lines.line_text(&a.text, line);
    let ws = text.len() - text.trim_start().len();
    let indent: String = text[..ws]
        .chars()
        .map(|c| {
            if c == '\t' {
                "    ".to_string()
            } else {
                c.to_string()
            }
        })
        .collect();
    let start = a.lines.line_start(line) as usize;
    fix(
        "Replace tabs with spaces".into(),
        d,
        vec![(Span::new(start, start + ws), indent)],
        true,
    )
}

/// E0100 (an unknown name): the suggested name, and declaring it as an external.
fn unknown_name(a: &Analysis, d: &ODiag, suggestion: Option<&str>, out: &mut Vec<QuickFix>) {
    let name = a.slice(d.span).to_string();
    if let Some(s) = suggestion {
        out.push(fix(
            format!("Change to `{s}`"),
            d,
            vec![(d.span, s.to_string())],
            true,
        ));
    }
    if crate::navigation::valid_ident(&name) {
        let at = extern_insertion_point(a);
        out.push(fix(
            format!("Declare `extern {name}`"),
            d,
            vec![(
                Span::new(at, at),
                format!("extern {name}{}", line_break(&a.text)),
            )],
            false,
        ));
    }
}

/// W0001 (an unused binding): an underscore before its name, or removing a simple binding's
/// lines.
fn unused_binding(a: &Analysis, d: &ODiag, out: &mut Vec<QuickFix>) {
    let name = a.slice(d.span).to_string();
    out.push(fix(
        format!("Rename to `_{name}`"),
        d,
        vec![(
            Span::new(d.span.start as usize, d.span.start as usize),
            "_".into(),
        )],
        false,
    ));
    if let Some(item) = simple_binding_item(a.block(), d.span) {
        let l0 = a.lines.line_of(item.start);
        let end = (a.lines.line_start(a.lines.line_of(item.end) + 1) as usize).min(a.text.len());
        out.push(fix(
            format!("Remove the unused binding `{name}`"),
            d,
            vec![(
                Span::new(a.lines.line_start(l0) as usize, end),
                String::new(),
            )],
            true,
        ));
    }
}

/// After the leading comments and `extern` lines: where a new `extern` goes.
fn extern_insertion_point(a: &Analysis) -> usize {
    let lines = &a.lines;
    let line = (0..lines.line_count()).find(|&l| {
        let t = lines.line_text(&a.text, l).trim();
        !(t.starts_with('#') || t.starts_with("extern "))
    });
    line.map_or(a.text.len(), |l| {
        (lines.line_start(l) as usize).min(a.text.len())
    })
}

/// The item `name := expr` whose binder is at `span`, at any depth, if it stands alone.
fn simple_binding_item(b: &Block, span: Span) -> Option<Span> {
    for item in &b.items {
        if let ItemKind::Bind(Pattern::Name(id), _) = &item.kind {
            if id.span == span {
                return Some(item.span);
            }
        }
        let mut found = None;
        for_each_child_block(item, &mut |blk| {
            if found.is_none() {
                found = simple_binding_item(blk, span);
            }
        });
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The code lenses at the top of every program: (title, the client command that takes the
/// file's URI).
pub const LENSES: &[(&str, &str)] = &[("▶ Run", "opal.runFile"), ("Debug", "opal.debugFile")];
/// The lens of a client that does not run `LENSES`' commands: the server runs it.
pub const SERVER_LENS: (&str, &str) = ("▶ Run", "opal.server.run");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::WorldInfo;

    fn analysis(src: &str) -> Analysis {
        Analysis::new(src.to_string(), WorldInfo::default())
    }

    #[test]
    fn quick_fixes_keep_crlf_and_lone_cr() {
        for brk in ["\r\n", "\r", "\n"] {
            let src = format!("# c{brk}print (&stdout, nope){brk}");
            let a = analysis(&src);
            let fixes = quick_fixes(&a, Span::new(0, src.len()));
            let declare = fixes
                .iter()
                .find(|q| q.title.starts_with("Declare"))
                .map(|q| (q.edits[0].0, q.edits[0].1.clone()));
            // After the leading comment, with the file's line break.
            assert_eq!(
                declare,
                Some((
                    Span::new(3 + brk.len(), 3 + brk.len()),
                    format!("extern nope{brk}")
                )),
                "{brk:?}"
            );
        }
    }
}
