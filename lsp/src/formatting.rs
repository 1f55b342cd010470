//! Document and range formatting: the formatter's output as one minimal edit, in the
//! document's own line breaks.

use crate::analysis::Analysis;
use opal_core::span::Span;
use opal_core::syntax::ast::*;

/// Where the line holding byte `i` starts: after a `\n` or a lone `\r` (never between the two
/// bytes of a `\r\n`).
fn line_start_at(s: &str, i: usize) -> usize {
    let b = s.as_bytes();
    (1..=i.min(b.len()))
        .rev()
        .find(|&j| b[j - 1] == b'\n' || (b[j - 1] == b'\r' && b.get(j) != Some(&b'\n')))
        .unwrap_or(0)
}

/// One edit that turns `old` into `new`, covering only the lines that differ.
pub fn minimal_edit(old: &str, new: &str) -> Option<(Span, String)> {
    if old == new {
        return None;
    }
    let prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let prefix = line_start_at(old, prefix);
    let max_suffix = (old.len() - prefix).min(new.len() - prefix);
    let suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    // Keep the edit on whole lines so clients show a clean change (and on a character boundary:
    // `é` and `ĩ` share their last byte).
    let mut suffix = suffix;
    while suffix > 0
        && (!old.is_char_boundary(old.len() - suffix)
            || !old[old.len() - suffix..].starts_with(['\n', '\r']))
        && old.len() - suffix != prefix
    {
        suffix -= 1;
    }
    // A `\r\n` break is in or out of the edit whole: no position may count the `\r`. Out of it
    // when both texts have the `\r` (the edit ends before it), else in it (after the `\n`).
    let end = old.len() - suffix;
    if suffix > 0 && old[..end].ends_with('\r') && old[end..].starts_with('\n') {
        if new[..new.len() - suffix].ends_with('\r') && end > prefix && new.len() - suffix > prefix
        {
            suffix += 1;
        } else {
            suffix -= 1;
        }
    }
    Some((
        Span::new(prefix, old.len() - suffix),
        new[prefix..new.len() - suffix].to_string(),
    ))
}

/// The line break a text uses: its first line's (`\n` when it has one line).
pub fn line_break(text: &str) -> &'static str {
    match text.find(['\n', '\r']).map(|i| &text[i..]) {
        Some(rest) if rest.starts_with("\r\n") => "\r\n",
        Some(rest) if rest.starts_with('\r') => "\r",
        _ => "\n",
    }
}

/// Formatter output (always `\n`) with the document's line breaks.
pub(crate) fn with_breaks(formatted: String, brk: &str) -> String {
    if brk == "\n" {
        formatted
    } else {
        formatted.replace('\n', brk)
    }
}

/// The edit that formats the whole document; `Err` (with the reason) when it has syntax
/// errors, which the server answers with no edits.
pub fn format_document(a: &Analysis) -> Result<Option<(Span, String)>, String> {
    if let Some(d) = a.compiled.parsed.diags.iter().find(|d| d.is_error()) {
        let at = a.lines.line_col(&a.text, d.span.start);
        return Err(format!(
            "line {}:{}: {} (error[{}]); fix the syntax error to format the file",
            at.line, at.col, d.message, d.code
        ));
    }
    Ok(minimal_edit(
        &a.text,
        &with_breaks(
            opal_core::format::format(&a.compiled.parsed),
            line_break(&a.text),
        ),
    ))
}

/// Formats the top-level items that overlap a range (each one parses on its own).
pub fn format_range(a: &Analysis, range: Span) -> Result<Option<(Span, String)>, String> {
    let items: Vec<&Item> = a
        .block()
        .items
        .iter()
        .filter(|i| i.span.start <= range.end && i.span.end >= range.start)
        .collect();
    let (Some(first), Some(last)) = (items.first(), items.last()) else {
        return Ok(None);
    };
    let start = a.lines.line_start(a.lines.line_of(first.span.start)) as usize;
    let end_line = a.lines.line_of(last.span.end) + 1;
    let end = (a.lines.line_start(end_line) as usize).min(a.text.len());
    let slice = &a.text[start..end];
    let parsed = opal_core::syntax::parser::parse(slice);
    if parsed.diags.iter().any(|d| d.is_error()) {
        return Err(
            "the selected statements have syntax errors; fix them before formatting".into(),
        );
    }
    let mut out = with_breaks(opal_core::format::format(&parsed), line_break(&a.text));
    if !slice.ends_with(['\n', '\r']) {
        out.truncate(out.trim_end_matches(['\r', '\n']).len());
    }
    Ok(minimal_edit(slice, &out).map(|(s, t)| {
        (
            Span::new(start + s.start as usize, start + s.end as usize),
            t,
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::WorldInfo;

    fn analysis(src: &str) -> Analysis {
        Analysis::new(src.to_string(), WorldInfo::default())
    }

    #[test]
    fn formatting_keeps_crlf_and_lone_cr() {
        let a = analysis("x:=1\r\nf := fun (a,b):   a+b\r\nprint (&stdout,f (x,x))\r\n");
        let (_, text) = format_document(&a).ok().flatten().unwrap_or_default();
        assert!(
            !text.is_empty() && text.matches('\n').count() == text.matches("\r\n").count(),
            "{text:?}"
        );
        for brk in ["\r\n", "\r", "\n"] {
            for end in [brk, ""] {
                // The second line, then the last (with and without a final break).
                let src =
                    format!("x:=1{brk}f := fun (a,b):   a+b{brk}print (&stdout,f (x,x)){end}");
                let a = analysis(&src);
                let at = src.find('f').unwrap_or_default();
                let (span, new) = format_range(&a, Span::new(at, at + 2))
                    .ok()
                    .flatten()
                    .unwrap_or_default();
                let after = format!(
                    "{}{new}{}",
                    &a.text[..span.start as usize],
                    &a.text[span.end as usize..]
                );
                assert_eq!(
                    after,
                    format!("x:=1{brk}f := fun (a, b): a + b{brk}print (&stdout,f (x,x)){end}"),
                    "{brk:?} {end:?}"
                );
                let at = src.find("print").unwrap_or_default();
                let (span, new) = format_range(&a, Span::new(at, at + 2))
                    .ok()
                    .flatten()
                    .unwrap_or_default();
                let after = format!(
                    "{}{new}{}",
                    &a.text[..span.start as usize],
                    &a.text[span.end as usize..]
                );
                assert_eq!(
                    after,
                    format!("x:=1{brk}f := fun (a,b):   a+b{brk}print (&stdout, f (x, x)){end}"),
                    "{brk:?} {end:?}"
                );
            }
        }
        let cr = analysis("x:=1\rf := fun (a,b):   a+b\rprint (&stdout,f (x,x))\r");
        let (span, new) = format_document(&cr).ok().flatten().unwrap_or_default();
        let after = format!(
            "{}{new}{}",
            &cr.text[..span.start as usize],
            &cr.text[span.end as usize..]
        );
        assert_eq!(
            after,
            "x := 1\rf := fun (a, b): a + b\rprint (&stdout, f (x, x))\r"
        );
        assert!(
            format_document(&analysis("x := (\n")).is_err(),
            "a broken file is not formatted"
        );
    }

    proptest::proptest! {
        /// The edit turns the old text into the new one, starts at a line start, and never
        /// starts or ends between the `\r` and the `\n` of a line break.
        #[test]
        fn minimal_edits_are_exact_and_keep_line_breaks_whole(
            old in "(a|b|é| |\r\n|\r|\n){0,24}",
            new in "(a|b|é| |\r\n|\r|\n){0,24}",
        ) {
            if let Some((span, text)) = minimal_edit(&old, &new) {
                let (a, b) = (span.start as usize, span.end as usize);
                proptest::prop_assert_eq!(format!("{}{text}{}", &old[..a], &old[b..]), new.clone());
                proptest::prop_assert_eq!(line_start_at(&old, a), a);
                for i in [a, b] {
                    proptest::prop_assert!(!(old[..i].ends_with('\r') && old[i..].starts_with('\n')), "{:?} at {}", old, i);
                }
            } else {
                proptest::prop_assert_eq!(old, new);
            }
        }
    }
}
