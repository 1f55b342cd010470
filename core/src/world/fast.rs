//! A reader for the plain shape nearly every world file has: `[name]` and
//! `[[name.responses]]` headers, one `key = value` per line with a number, a string without
//! escapes or a one-line array of them, and comments. It gives exactly what the TOML
//! deserializer gives, values and spans (the tests check this on generated files), in a
//! fraction of the time, and `None` for anything else, which then goes to `toml`: a world file
//! with 10 000 responses loads in a few milliseconds instead of twenty.

use super::{RawExt, RawResponse};
use std::collections::BTreeMap;
use toml::Spanned;

/// One value on the right of `=`.
enum Value {
    Num(Spanned<f64>),
    Str(Spanned<String>),
    Array(Spanned<Vec<Value>>),
}

/// The table that `key = value` lines fill.
enum Open {
    Root,
    Ext(String),
    Response(String),
}

pub(super) fn read(text: &str) -> Option<BTreeMap<String, Spanned<RawExt>>> {
    let mut tables: BTreeMap<String, Spanned<RawExt>> = BTreeMap::new();
    let mut open = Open::Root;
    let mut at = 0;
    for raw_line in text.split_inclusive('\n') {
        let start = at;
        at += raw_line.len();
        let (code, lead) = line_code(raw_line)?;
        if code.is_empty() {
            continue;
        }
        let offset = start + lead;
        if let Some(table) = open_table(&mut tables, code, offset)? {
            open = table;
            continue;
        }
        let (key, value) = code.split_once('=')?;
        let key = key.trim_end_matches([' ', '\t']);
        let vtext = value.trim_start_matches([' ', '\t']);
        let vstart = offset + code.len() - vtext.len();
        let (value, rest) = parse_value(vtext, vstart)?;
        if !rest.is_empty() || !bare_key(key) {
            return None;
        }
        match &open {
            Open::Root => return None,
            Open::Ext(name) => ext_key(tables.get_mut(name)?.get_mut(), key, value)?,
            Open::Response(name) => response_key(
                tables.get_mut(name)?.get_mut().responses.last_mut()?,
                key,
                value,
            )?,
        }
    }
    // `arg` is required: a response without one goes to `toml` for its error.
    let complete = tables.values().all(|t| {
        t.get_ref()
            .responses
            .iter()
            .all(|r| !r.arg.span().is_empty())
    });
    complete.then_some(tables)
}

/// A line's code: without its line break, comment and surrounding blanks, and how many blanks
/// it started with; `None` for what only `toml` can judge (a control character, a `#` that
/// may be inside a string).
fn line_code(raw_line: &str) -> Option<(&str, usize)> {
    // `\r` only as part of `\r\n`: a lone one is an error `toml` reports.
    let line = match raw_line.strip_suffix('\n') {
        Some(l) => l.strip_suffix('\r').unwrap_or(l),
        None => raw_line,
    };
    if line.chars().any(|c| c.is_control() && c != '\t') {
        return None;
    }
    let code = match line.find('#') {
        // A `#` after a quote may be inside a string: such lines go to `toml`.
        Some(i) if line[..i].contains(['\'', '"']) => return None,
        Some(i) => &line[..i],
        None => line,
    };
    let lead = code.len() - code.trim_start_matches([' ', '\t']).len();
    Some((code.trim_matches([' ', '\t']), lead))
}

/// A table header, `[ext]` or `[[ext.responses]]`, at `offset`: `Some(table)` it opens, or
/// `Some(None)` for a line that is no header; `None` (to `toml`) for a name that is not a bare
/// key, responses of an unknown external, or a table opened twice.
fn open_table(
    tables: &mut BTreeMap<String, Spanned<RawExt>>,
    code: &str,
    offset: usize,
) -> Option<Option<Open>> {
    if let Some(name) = code.strip_prefix("[[").and_then(|c| c.strip_suffix("]]")) {
        let ext = name.strip_suffix(".responses").filter(|n| bare_key(n))?;
        let empty = RawResponse {
            arg: Spanned::new(0..0, String::new()),
            latency_ms: None,
            result: None,
            stream: None,
            chunk_ms: None,
        };
        tables.get_mut(ext)?.get_mut().responses.push(empty);
        return Some(Some(Open::Response(ext.to_string())));
    }
    if let Some(name) = code.strip_prefix('[').and_then(|c| c.strip_suffix(']')) {
        if !bare_key(name) || tables.contains_key(name) {
            return None;
        }
        let ext = RawExt {
            latency_ms: None,
            order: None,
            default: None,
            choices: None,
            responses: Vec::new(),
            doc: None,
        };
        tables.insert(
            name.to_string(),
            Spanned::new(offset..offset + code.len(), ext),
        );
        return Some(Some(Open::Ext(name.to_string())));
    }
    Some(None)
}

/// Sets `key = value` in an `[ext]` table; `None` for an unknown or repeated key, or a value of
/// the wrong type, which `toml` then reports.
fn ext_key(ext: &mut RawExt, key: &str, value: Value) -> Option<()> {
    match (key, value) {
        ("latency_ms", Value::Num(n)) if ext.latency_ms.is_none() => ext.latency_ms = Some(n),
        ("order", Value::Str(s)) if ext.order.is_none() => ext.order = Some(s),
        ("default", Value::Str(s)) if ext.default.is_none() => ext.default = Some(s),
        ("doc", Value::Str(s)) if ext.doc.is_none() => ext.doc = Some(s.into_inner()),
        ("choices", Value::Array(a)) if ext.choices.is_none() => {
            ext.choices = Some(strings(a.into_inner())?)
        }
        _ => return None,
    }
    Some(())
}

/// Sets `key = value` in an `[[ext.responses]]` entry; `None` as for [`ext_key`].
fn response_key(r: &mut RawResponse, key: &str, value: Value) -> Option<()> {
    match (key, value) {
        ("arg", Value::Str(s)) if r.arg.span().is_empty() => r.arg = s,
        ("latency_ms", Value::Num(n)) if r.latency_ms.is_none() => r.latency_ms = Some(n),
        ("result", Value::Str(s)) if r.result.is_none() => r.result = Some(s),
        ("stream", Value::Array(a)) if r.stream.is_none() => {
            r.stream = Some(
                strings(a.into_inner())?
                    .into_iter()
                    .map(Spanned::into_inner)
                    .collect(),
            )
        }
        ("chunk_ms", Value::Array(a)) if r.chunk_ms.is_none() => {
            let span = a.span();
            let ms = a
                .into_inner()
                .into_iter()
                .map(|v| {
                    if let Value::Num(n) = v {
                        Some(n.into_inner())
                    } else {
                        None
                    }
                })
                .collect::<Option<Vec<f64>>>()?;
            r.chunk_ms = Some(Spanned::new(span, ms));
        }
        _ => return None,
    }
    Some(())
}

fn bare_key(k: &str) -> bool {
    !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn strings(values: Vec<Value>) -> Option<Vec<Spanned<String>>> {
    values
        .into_iter()
        .map(|v| if let Value::Str(s) = v { Some(s) } else { None })
        .collect()
}

fn skip_blank(t: &str) -> &str {
    t.trim_start_matches([' ', '\t'])
}

/// The value at the start of `t` (which starts at byte `at` of the file), and what follows it.
fn parse_value(t: &str, at: usize) -> Option<(Value, &str)> {
    match t.as_bytes().first()? {
        &q @ (b'\'' | b'"') => {
            let q = q as char;
            let end = t[1..].find(q)? + 1;
            let body = &t[1..end];
            // Multi-line strings (`'''`, `"""`) and escapes go to `toml`.
            if body.is_empty() && t[end + 1..].starts_with(q) || q == '"' && body.contains('\\') {
                return None;
            }
            Some((
                Value::Str(Spanned::new(at..at + end + 1, body.to_string())),
                skip_blank(&t[end + 1..]),
            ))
        }
        b'[' => {
            let mut items = Vec::new();
            let mut rest = skip_blank(&t[1..]);
            loop {
                if let Some(r) = rest.strip_prefix(']') {
                    let end = t.len() - r.len();
                    return Some((
                        Value::Array(Spanned::new(at..at + end, items)),
                        skip_blank(r),
                    ));
                }
                // Arrays inside arrays go to `toml` before they are read: reading them here
                // would recurse once per `[`, and 10 000 of them overflow a thread's stack.
                if rest.starts_with('[') {
                    return None;
                }
                let (v, r) = parse_value(rest, at + t.len() - rest.len())?;
                items.push(v);
                rest = match r.strip_prefix(',') {
                    Some(r) => skip_blank(r),
                    None if r.starts_with(']') => r,
                    None => return None,
                };
            }
        }
        _ => {
            let end = t.find([' ', '\t', ',', ']']).unwrap_or(t.len());
            let n = &t[..end];
            let digits = n.strip_prefix('-').unwrap_or(n);
            let (int, frac) = digits
                .split_once('.')
                .map_or((digits, None), |(i, f)| (i, Some(f)));
            let ok_int = !int.is_empty()
                && int.bytes().all(|b| b.is_ascii_digit())
                && (int == "0" || !int.starts_with('0'));
            let ok_frac =
                frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()));
            if !ok_int || !ok_frac {
                return None;
            }
            // An integer is an i64 first (`-0` is 0); one beyond i64, or a float too large to be
            // finite, is declined: `toml` reads or refuses those in its own way.
            let value = if frac.is_none() {
                n.parse::<i64>().ok()? as f64
            } else {
                n.parse::<f64>().ok().filter(|f| f.is_finite())?
            };
            Some((
                Value::Num(Spanned::new(at..at + end, value)),
                skip_blank(&t[end..]),
            ))
        }
    }
}

/// Whether the fast reader and `toml` agree on `text` (the fast reader may decline): for the
/// fuzz target and the tests.
pub fn agrees_with_toml(text: &str) -> Result<(), String> {
    let Some(fast) = read(text) else {
        return Ok(());
    };
    let slow: Tables =
        toml::from_str(text).map_err(|e| format!("toml refuses what the fast reader took: {e}"))?;
    let (f, t) = (describe(&fast), describe(&slow));
    if f == t {
        Ok(())
    } else {
        Err(format!("fast reader:\n{f}toml:\n{t}"))
    }
}

type Tables = BTreeMap<String, Spanned<RawExt>>;

/// Everything a world file says, spans included, as text to compare.
fn describe(t: &Tables) -> String {
    let s = |x: &Spanned<String>| format!("{:?}@{:?}", x.get_ref(), x.span());
    let mut out = String::new();
    for (name, ext) in t {
        let e = ext.get_ref();
        let lat = |l: &Option<Spanned<f64>>| l.as_ref().map(|l| (*l.get_ref(), l.span()));
        out += &format!(
            "[{name}]@{:?} lat={:?} order={:?} default={:?} doc={:?}",
            ext.span(),
            lat(&e.latency_ms),
            e.order.as_ref().map(s),
            e.default.as_ref().map(s),
            e.doc
        );
        out += &format!(
            " choices={:?}\n",
            e.choices
                .as_ref()
                .map(|c| c.iter().map(s).collect::<Vec<_>>())
        );
        for r in &e.responses {
            let ms = r.chunk_ms.as_ref().map(|c| (c.get_ref().clone(), c.span()));
            out += &format!(
                "  arg={} lat={:?} result={:?} stream={:?} chunk_ms={ms:?}\n",
                s(&r.arg),
                lat(&r.latency_ms),
                r.result.as_ref().map(s),
                r.stream
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Lines a world file may have, plain and not.
    fn line() -> impl Strategy<Value = String> {
        let pieces = [
            "[ask]",
            "[llm]",
            "[ask] # c",
            " [ask]",
            "[ ask ]",
            "[a.b]",
            "[[ask.responses]]",
            "[[llm.responses]]",
            "[[ask.responses]] # r",
            "[[ask.other]]",
            "arg = '\"q\"'",
            "arg = '1'",
            "arg=\"x\"",
            "arg = '(\"a\", 2)'",
            "arg = \"a\\\"b\"",
            "result = '2'",
            "result = \"\"",
            "result = ''''''",
            "result = '''x'''",
            "latency_ms = 300",
            "latency_ms = 1.5",
            "latency_ms = -0",
            "latency_ms = 007",
            "latency_ms = 1e3",
            "latency_ms = +1",
            "latency_ms = 1_0",
            "latency_ms = 99999999999999999999",
            "latency_ms = 1e400",
            "chunk_ms = [1.5, 100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000.0]",
            "latency_ms = '3'",
            "latency_ms = 3 # ms",
            "default = 'x' # c",
            "default = 'a # b'",
            "default = \"é\"",
            "default = 'x'",
            "doc = \"d\"",
            "order = \"sequential\"",
            "choices = ['a', \"b\"]",
            "choices = []",
            "choices = ['a',]",
            "choices = [ 'a' , 'b' ]",
            "choices = ['a' 'b']",
            "choices = [['a']]",
            "choices = [1]",
            "stream = ['x', 'y']",
            "chunk_ms = [1, 2.5]",
            "chunk_ms = ['1']",
            "chunk_ms = [1,2,]",
            "responses = []",
            "x = 1",
            "\"arg\" = 'x'",
            "arg.x = 1",
            "",
            "   ",
            "# comment",
            "\t# tab",
            "arg = 'tab\there'",
            "bad",
            "=",
            "arg =",
            "\u{feff}[ask]",
            "default = 'x'\r",
        ];
        prop::sample::select(pieces.to_vec()).prop_map(str::to_string)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]
        /// Whatever the fast reader accepts, `toml` reads the same, spans included; and a file
        /// in the plain shape takes the fast path.
        #[test]
        fn same_as_toml(lines in prop::collection::vec(line(), 0..12), crlf in any::<bool>()) {
            let text = lines.join(if crlf { "\r\n" } else { "\n" });
            if let Err(e) = agrees_with_toml(&text) {
                prop_assert!(false, "{e}\n{text}");
            }
        }
    }

    /// Inputs at the edges of what the fast reader takes, each read as `toml` reads it.
    #[test]
    fn edge_cases_agree_with_toml() {
        let huge = format!("1{}.0", "0".repeat(320));
        let cases = [
            format!("[ask]\nlatency_ms = {huge}\n"),
            format!("[ask]\n[[ask.responses]]\narg = '1'\nresult = '2'\nchunk_ms = [{huge}]\n"),
            "[ask]\nlatency_ms = 9223372036854775808\n".into(),
            "[ask]\nlatency_ms = -0\n".into(),
            "[ask]\nlatency_ms = 1.\n".into(),
            "[ask]\nlatency_ms = .5\n".into(),
            "[ask]\ndefault = 'x'\r".into(),
            "[ask]\r\r\ndefault = 'x'\n".into(),
            "[[ask.responses]]\narg = '1'\n[ask]\n".into(),
            "[ask]\n[b]\n[[ask.responses]]\narg = '1'\nresult = '2'\n".into(),
            "[ask]\ndefault = 'x\u{7f}'\n".into(),
            "[ask] x\n".into(),
            "[ask]\nchoices = [,]\n".into(),
        ];
        for text in &cases {
            assert_eq!(agrees_with_toml(text), Ok(()), "{text:?}");
        }
    }

    #[test]
    fn the_plain_shape_takes_the_fast_path() {
        let text = "# mock\n[ask]\nlatency_ms = 300\ndefault = '\"?\"'\n\n[[ask.responses]]\narg = '\"q1\"'\nresult = '1'\n[[ask.responses]]\narg = '2'\nstream = ['a', 'b']\nchunk_ms = [10, 20]\n";
        assert_eq!(agrees_with_toml(text), Ok(()));
        assert!(read(text).is_some());
        assert!(
            read("[ask]\ndefault = 'x'\n").is_some()
                && read("[ask]\r\ndefault = 'x'\r\n").is_some()
        );
    }
}
