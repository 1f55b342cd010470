//! World files (`NAME.world.toml`): mock externals with latency and streaming (LANGUAGE.md §5).

use crate::diag::Diagnostic;
use crate::ir::{PExp, Prim};
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, Lit};
use crate::syntax::parser::parse_expr_source;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use toml::Spanned;

mod fast;
mod scan;
pub use fast::agrees_with_toml;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExt {
    latency_ms: Option<Spanned<f64>>,
    order: Option<Spanned<String>>,
    default: Option<Spanned<String>>,
    choices: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    responses: Vec<RawResponse>,
    doc: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawResponse {
    arg: Spanned<String>,
    latency_ms: Option<Spanned<f64>>,
    result: Option<Spanned<String>>,
    stream: Option<Vec<String>>,
    chunk_ms: Option<Spanned<Vec<f64>>>,
}

/// What a mock external returns for one argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// OPAL source of the result expression.
    Result(String),
    /// Elements of a streamed Church list, with the delay before each.
    Stream(Vec<String>, Vec<f64>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    pub arg: PExp,
    pub latency_ms: Option<f64>,
    pub reply: Reply,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WorldExt {
    pub name: String,
    pub latency_ms: f64,
    pub responses: Vec<Response>,
    /// The hash of each argument's key (`arg_key`) → its first response; `same_hash` chains the
    /// rest in file order. A dispatch finds its reply in O(size of the argument) however many
    /// responses the world file has, and loading allocates nothing per response.
    index: HashMap<u64, u32>,
    same_hash: Vec<u32>,
    pub default: Option<String>,
    pub choices: Vec<String>,
    pub doc: Option<String>,
    /// `order = "sequential" | "readonly" | "unordered"`: the class for a program that
    /// declares the external without one.
    pub order: Option<crate::syntax::ast::Order>,
    /// Where the table starts in the world file.
    pub span: Span,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct World {
    /// Shared, so a run takes an external's description per dispatch without copying it.
    pub exts: BTreeMap<String, Arc<WorldExt>>,
    /// Entries that load but are probably mistakes (a table that shadows a standard external).
    pub warnings: Vec<Diagnostic>,
}

impl World {
    pub fn get(&self, name: &str) -> Option<&WorldExt> {
        self.exts.get(name).map(|w| &**w)
    }

    pub fn get_shared(&self, name: &str) -> Option<Arc<WorldExt>> {
        self.exts.get(name).cloned()
    }

    /// The ordering classes the world file gives.
    pub fn orders(&self) -> HashMap<String, crate::syntax::ast::Order> {
        self.exts
            .iter()
            .filter_map(|(n, e)| Some((n.clone(), e.order?)))
            .collect()
    }
}

/// The longest delay a world file may give (a day, in milliseconds): larger numbers are typos
/// and would overflow the timers.
pub const MAX_MS: f64 = 86_400_000.0;

const DELAY_RULE: &str = "a delay must be a number of milliseconds from 0 to 86400000 (a day)";

fn delay_ok(ms: f64) -> bool {
    (0.0..=MAX_MS).contains(&ms)
}

/// A number as a person reads it in an error: `1e308`, not its 309 digits; `nan` and `inf` as
/// TOML writes them.
pub fn number_text(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.into()
    } else if x != 0.0 && !(1e-3..1e9).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// The span from `key` to the end of its value. `toml` spans only the value; in TOML only blanks
/// and `=` stand between a key and its value, on one line, so the last `key` on the value's line
/// before it is the key (bare, quoted or the end of a dotted key alike). Errors then point at the
/// line and column of the key, as E0200 promises, not at the table's header.
fn entry_span(text: &str, key: &str, value: std::ops::Range<usize>) -> Span {
    let before = text.get(..value.start).unwrap_or("");
    let line = before.rfind('\n').map_or(0, |i| i + 1);
    let start = before[line..].rfind(key).map_or(value.start, |i| line + i);
    Span::new(start, value.end)
}

/// A hashable key equal for every two arguments `pexp_eq` equates: numbers by their `f64` value
/// (`2` and `2.0` alike; two large integers may share a key, so a lookup still compares),
/// strings and handles by content, tuples element-wise.
fn arg_key(p: &PExp, out: &mut String) {
    use std::fmt::Write;
    match p {
        PExp::Prim(Prim::Int(i)) => {
            let _ = write!(out, "n{:x};", (*i as f64).to_bits());
        }
        PExp::Prim(Prim::Float(f)) => {
            let f = if *f == 0.0 { 0.0 } else { *f };
            let _ = write!(out, "n{:x};", f.to_bits());
        }
        PExp::Prim(Prim::Str(s)) => {
            let _ = write!(out, "s{}:{s}", s.len());
        }
        PExp::Prim(Prim::Handle(h)) => {
            let _ = write!(out, "h{}:{h}", h.len());
        }
        PExp::Prim(Prim::Ext(e)) => {
            let _ = write!(out, "e{}:{e}", e.len());
        }
        PExp::Tuple(xs) | PExp::List(xs) => {
            let tag = if matches!(p, PExp::Tuple(_)) {
                't'
            } else {
                'l'
            };
            let _ = write!(out, "{tag}{}(", xs.len());
            for x in xs {
                arg_key(x, out);
            }
            out.push(')');
        }
        PExp::Bool(b) => {
            let _ = write!(out, "b{};", u8::from(*b));
        }
        PExp::Dict(kvs) => {
            let _ = write!(out, "d{}(", kvs.len());
            for (k, v) in kvs {
                arg_key(k, out);
                arg_key(v, out);
            }
            out.push(')');
        }
        // Equal sets hold their elements in any order: their keys sorted.
        PExp::Set(xs) => {
            let mut keys: Vec<String> = xs
                .iter()
                .map(|x| {
                    let mut k = String::new();
                    arg_key(x, &mut k);
                    k
                })
                .collect();
            keys.sort_unstable();
            let _ = write!(out, "S{}(", xs.len());
            keys.iter().for_each(|k| out.push_str(k));
            out.push(')');
        }
    }
}

/// `arg_key` hashed, with `buf` as scratch space.
fn arg_hash(p: &PExp, buf: &mut String) -> u64 {
    use std::hash::Hasher;
    buf.clear();
    arg_key(p, buf);
    let mut h = crate::names::FxHasher::default();
    h.write(buf.as_bytes());
    // Fx leaves the low bits blind to the key's last bytes (`"q1"`…`"q9"` differ only there):
    // mix them in (MurmurHash3's finalizer) so keys that differ late still spread.
    let mut x = h.finish();
    x = (x ^ (x >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    x = (x ^ (x >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// No further response in a `same_hash` chain.
const CHAIN_END: u32 = u32::MAX;

impl WorldExt {
    /// The responses whose argument hashes like `arg`'s, in file order.
    fn candidates(&self, hash: u64) -> impl Iterator<Item = &Response> {
        let first = self.index.get(&hash).copied().unwrap_or(CHAIN_END);
        std::iter::successors(Some(first).filter(|&i| i != CHAIN_END), |&i| {
            Some(self.same_hash[i as usize]).filter(|&n| n != CHAIN_END)
        })
        .map(|i| &self.responses[i as usize])
    }

    /// The reply for an argument: an exact response, else the default, else the choices.
    pub fn reply(&self, arg: &PExp) -> Option<(Reply, f64)> {
        let hash = arg_hash(arg, &mut String::new());
        if let Some(r) = self.candidates(hash).find(|r| pexp_eq(&r.arg, arg)) {
            return Some((r.reply.clone(), r.latency_ms.unwrap_or(self.latency_ms)));
        }
        self.default
            .as_ref()
            .map(|d| (Reply::Result(d.clone()), self.latency_ms))
    }
}

/// Equality of arguments as a world file and a trace match them (`2` equals `2.0`).
pub fn pexp_eq(a: &PExp, b: &PExp) -> bool {
    match (a, b) {
        (PExp::Prim(Prim::Int(x)), PExp::Prim(Prim::Float(y)))
        | (PExp::Prim(Prim::Float(y)), PExp::Prim(Prim::Int(x))) => (*x as f64) == *y,
        (PExp::Tuple(xs), PExp::Tuple(ys)) | (PExp::List(xs), PExp::List(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| pexp_eq(x, y))
        }
        (PExp::Dict(xs), PExp::Dict(ys)) => {
            xs.len() == ys.len()
                && xs
                    .iter()
                    .zip(ys)
                    .all(|((a, b), (c, d))| pexp_eq(a, c) && pexp_eq(b, d))
        }
        (PExp::Set(xs), PExp::Set(ys)) => {
            xs.len() == ys.len() && xs.iter().all(|x| ys.iter().any(|y| pexp_eq(x, y)))
        }
        _ => a == b,
    }
}

/// `dir/NAME.opal` → `dir/NAME.world.toml`, the world file a program uses unless told
/// otherwise (the CLI, the language server and the debugger all look there).
pub fn path_beside(program: &std::path::Path) -> Option<std::path::PathBuf> {
    let stem = program.file_stem()?.to_str()?;
    Some(program.with_file_name(format!("{stem}.world.toml")))
}

/// Parses an OPAL data literal: a number, string, tuple, list, `true`/`false` or dictionary
/// of them (`'("a", 2)'`, `'["x", "y"]'`).
pub fn parse_pexp(src: &str) -> Result<PExp, String> {
    if let Some(p) = plain_literal(src) {
        return Ok(p);
    }
    let e = parse_expr_source(src)
        .map_err(|ds| ds.first().map(|d| d.message.clone()).unwrap_or_default())?;
    to_pexp(&e).ok_or_else(|| {
        "expected a literal (number or string), or a tuple, list or dictionary of literals"
            .to_string()
    })
}

/// A string without escapes or a decimal integer, read without the parser: world files and
/// traces hold thousands of them. Anything else (`None`) goes through the parser, so this only
/// answers where the parser would give the same value.
fn plain_literal(src: &str) -> Option<PExp> {
    if let Some(body) = src.strip_prefix('"').and_then(|b| b.strip_suffix('"')) {
        let plain = body
            .bytes()
            .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\');
        return plain.then(|| PExp::Prim(Prim::Str(Arc::from(body))));
    }
    let (neg, digits) = src.strip_prefix('-').map_or((false, src), |d| (true, d));
    let decimal = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    let n: i64 = if decimal {
        digits.parse().ok()?
    } else {
        return None;
    };
    Some(PExp::Prim(Prim::Int(if neg {
        n.checked_neg()?
    } else {
        n
    })))
}

/// An expression that is a data literal, as data.
pub fn to_pexp(e: &Expr) -> Option<PExp> {
    match &e.kind {
        ExprKind::Lit(l) | ExprKind::Prim(l) => Some(PExp::Prim(match l {
            Lit::Int(i) => Prim::Int(*i),
            Lit::Float(f) => Prim::Float(*f),
            Lit::Str(s) => Prim::Str(Arc::from(s.as_str())),
        })),
        ExprKind::Unit => Some(PExp::Tuple(vec![])),
        ExprKind::Paren(x) => to_pexp(x),
        ExprKind::Tuple(es) => es
            .iter()
            .map(to_pexp)
            .collect::<Option<Vec<_>>>()
            .map(PExp::Tuple),
        ExprKind::List(es) => es
            .iter()
            .map(to_pexp)
            .collect::<Option<Vec<_>>>()
            .map(PExp::List),
        ExprKind::Dict(kvs) => kvs
            .iter()
            .map(|(k, v)| Some((to_pexp(k)?, to_pexp(v)?)))
            .collect::<Option<Vec<_>>>()
            .map(PExp::Dict),
        ExprKind::Name(id) if id.name == "true" || id.name == "false" => {
            Some(PExp::Bool(id.name == "true"))
        }
        ExprKind::Neg(x) => match to_pexp(x)? {
            PExp::Prim(Prim::Int(i)) => Some(PExp::Prim(Prim::Int(i.checked_neg()?))),
            PExp::Prim(Prim::Float(f)) => Some(PExp::Prim(Prim::Float(-f))),
            _ => None,
        },
        ExprKind::Name(id) if crate::externals::is_handle_literal(&id.name) => {
            Some(PExp::Prim(Prim::Handle(Arc::from(id.name.as_str()))))
        }
        _ => None,
    }
}

/// Why a table name can never be an external a program calls, if it cannot.
fn never_an_external(name: &str) -> Option<String> {
    let mut chars = name.chars();
    let ident = chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_');
    if !ident {
        return Some(format!("`{name}` is not a name a program can declare"));
    }
    if crate::syntax::lexer::KEYWORDS
        .iter()
        .any(|(k, _)| *k == name)
    {
        return Some(format!("`{name}` is a keyword, not an external"));
    }
    if crate::externals::handle_root(name).is_some() {
        return Some(format!("`{name}` is a handle, not an external"));
    }
    if crate::prelude::names().contains(&name) && crate::externals::standard(name).is_none() {
        return Some(format!("`{name}` is a prelude function, not an external, unless a program declares `extern {name}`"));
    }
    None
}

/// An E0200 unless `s` is an OPAL expression (its parse error, at the string).
fn expr_ok(s: &Spanned<String>, key: &str, diags: &mut Vec<Diagnostic>) {
    if plain_literal(s.get_ref()).is_some() {
        return;
    }
    if let Err(ds) = parse_expr_source(s.get_ref()) {
        let m = ds.first().map(|d| d.message.clone()).unwrap_or_default();
        let r = s.span();
        diags.push(
            Diagnostic::error("E0200", Span::new(r.start, r.end), format!("`{key}` is not an OPAL expression: {m}"))
                .with_help("write OPAL source in single quotes, e.g. '[\"Honolulu\", \"Jakarta\"]' or '\"text\"'"),
        );
    }
}

/// One `[[name.responses]]` entry, or `None` (with its errors in `diags`) when it has no usable
/// argument or reply.
fn read_response(
    text: &str,
    name: &str,
    resp: RawResponse,
    diags: &mut Vec<Diagnostic>,
) -> Option<Response> {
    let ar = resp.arg.span();
    let arg = match parse_pexp(resp.arg.get_ref()) {
        Ok(a) => a,
        Err(m) => {
            diags.push(
                Diagnostic::error("E0200", Span::new(ar.start, ar.end), format!("`arg` of `{name}`: {m}"))
                    .with_help("write the argument as an OPAL primitive expression, e.g. '\"Oceania\"', '300' or '(\"a\", 2)'"),
            );
            return None;
        }
    };
    let reply = match (resp.result, resp.stream) {
        (Some(res), None) => {
            expr_ok(&res, "result", diags);
            Reply::Result(res.into_inner())
        }
        (None, Some(chunks)) => {
            let ms = stream_delays(text, name, resp.chunk_ms, chunks.len(), diags);
            Reply::Stream(chunks, ms)
        }
        _ => {
            diags.push(
                Diagnostic::error(
                    "E0200",
                    Span::new(ar.start, ar.end),
                    format!("a response of `{name}` needs exactly one of `result` or `stream`"),
                )
                .with_help("add `result = '…'` or `stream = [\"chunk\", …]`"),
            );
            return None;
        }
    };
    if let Some(l) = resp.latency_ms.as_ref().filter(|l| !delay_ok(*l.get_ref())) {
        let at = entry_span(text, "latency_ms", l.span());
        diags.push(
            Diagnostic::error(
                "E0200",
                at,
                format!(
                    "`latency_ms` of a `{name}` response is {}: {DELAY_RULE}",
                    number_text(*l.get_ref())
                ),
            )
            .with_help("give the delay in milliseconds, e.g. `latency_ms = 300`"),
        );
    }
    Some(Response {
        arg,
        latency_ms: resp.latency_ms.map(Spanned::into_inner),
        reply,
    })
}

/// A stream's `chunk_ms`, checked against its `n` chunks (one valid delay each; errors into
/// `diags`); without it, every chunk comes at once.
fn stream_delays(
    text: &str,
    name: &str,
    chunk_ms: Option<Spanned<Vec<f64>>>,
    n: usize,
    diags: &mut Vec<Diagnostic>,
) -> Vec<f64> {
    let Some(ms) = chunk_ms else {
        return vec![0.0; n];
    };
    let at = entry_span(text, "chunk_ms", ms.span());
    let ms = ms.into_inner();
    if ms.len() != n {
        let msg = format!(
            "`chunk_ms` of `{name}` has {} entries but `stream` has {n}",
            ms.len(),
        );
        diags.push(Diagnostic::error("E0200", at, msg).with_help("give one delay per chunk"));
    }
    if let Some(bad) = ms.iter().find(|m| !delay_ok(**m)) {
        diags.push(
            Diagnostic::error(
                "E0200",
                at,
                format!(
                    "`chunk_ms` of `{name}` has {}: {DELAY_RULE}",
                    number_text(*bad)
                ),
            )
            .with_help("give each delay in milliseconds, e.g. `chunk_ms = [50, 50]`"),
        );
    }
    ms
}

/// The error for what `scan` refuses before `toml` reads the file.
fn refused(r: scan::Refusal) -> Diagnostic {
    let (at, msg, help) = match r {
        scan::Refusal::DeepKey(at, parts) => (
            at,
            format!("invalid world file: a key of {parts} dotted parts (at most {})", scan::MAX_KEY_PARTS),
            "each external is a table `[name]` with a few keys (LANGUAGE.md §5); write nested data as OPAL source in a string, e.g. `result = '[[1, 2], [3]]'`",
        ),
        scan::Refusal::TooManyTokens(at) => (
            at,
            format!("invalid world file: more than {} keys, values and punctuation marks from here on", scan::MAX_TOKENS),
            "split the world file, or write it in the plain shape (`[name]`, `[[name.responses]]`, one `key = value` per line), which is read without this limit (docs/cli.md)",
        ),
    };
    Diagnostic::error("E0200", Span::new(at, at + 1), msg).with_help(help)
}

/// Parses a world file. Errors carry the span of the offending key or value.
pub fn parse_world(text: &str) -> Result<World, Vec<Diagnostic>> {
    let parsed = match fast::read(text) {
        Some(r) => Ok(r),
        None => {
            if let Some(refusal) = scan::find(text) {
                return Err(vec![refused(refusal)]);
            }
            toml::from_str(text)
        }
    };
    let raw: BTreeMap<String, Spanned<RawExt>> = match parsed {
        Ok(r) => r,
        Err(e) => {
            let span = e
                .span()
                .map(|r| Span::new(r.start, r.end))
                .unwrap_or_default();
            let msg = e.message().to_string();
            // `toml` stops at 80 levels of arrays and inline tables, before it recurses further.
            let help = if msg.contains("recursion") {
                "a world file's arrays and inline tables nest at most 80 deep; write nested data as OPAL source in a string, e.g. `result = '[[1, 2], [3]]'`"
            } else {
                "each external is a table `[name]` with `latency_ms`, `default`, `choices` or `[[name.responses]]` entries (LANGUAGE.md §5)"
            };
            return Err(vec![Diagnostic::error(
                "E0200",
                span,
                format!("invalid world file: {msg}"),
            )
            .with_help(help)]);
        }
    };
    let mut diags = Vec::new();
    let mut warnings = Vec::new();
    let mut exts = BTreeMap::new();
    for (name, raw) in raw {
        let ext = read_ext(text, name.clone(), raw, &mut diags, &mut warnings);
        exts.insert(name, Arc::new(ext));
    }
    if diags.is_empty() {
        Ok(World { exts, warnings })
    } else {
        Err(diags)
    }
}

/// One external's table: its entries checked (errors into `diags`, warnings into
/// `warnings`) and its responses indexed by their argument.
fn read_ext(
    text: &str,
    name: String,
    raw: Spanned<RawExt>,
    diags: &mut Vec<Diagnostic>,
    warnings: &mut Vec<Diagnostic>,
) -> WorldExt {
    let r = raw.span();
    let span = Span::new(r.start, r.end);
    let raw = raw.into_inner();
    let mut responses = Vec::new();
    let mut arg_spans = Vec::new();
    for resp in raw.responses {
        let at = resp.arg.span();
        if let Some(r) = read_response(text, &name, resp, diags) {
            responses.push(r);
            arg_spans.push(Span::new(at.start, at.end));
        }
    }
    if let Some(d) = &raw.default {
        expr_ok(d, "default", diags);
    }
    for c in raw.choices.iter().flatten() {
        expr_ok(c, "choices", diags);
    }
    let order = raw.order.as_ref().and_then(|o| read_order(&name, o, diags));
    let latency_ms = raw.latency_ms.as_ref().map_or(0.0, |l| *l.get_ref());
    if let Some(l) = raw.latency_ms.as_ref().filter(|l| !delay_ok(*l.get_ref())) {
        let at = entry_span(text, "latency_ms", l.span());
        diags.push(
            Diagnostic::error(
                "E0200",
                at,
                format!(
                    "`latency_ms` of `{name}` is {}: {DELAY_RULE}",
                    number_text(latency_ms)
                ),
            )
            .with_help("give the delay in milliseconds, e.g. `latency_ms = 300`"),
        );
    }
    table_warnings(&name, span, warnings);
    let mut ext = WorldExt {
        name: name.clone(),
        latency_ms,
        index: HashMap::with_capacity(responses.len()),
        same_hash: vec![CHAIN_END; responses.len()],
        responses: Vec::new(),
        default: raw.default.map(|d| d.into_inner()),
        choices: raw
            .choices
            .unwrap_or_default()
            .into_iter()
            .map(|c| c.into_inner())
            .collect(),
        doc: raw.doc,
        order,
        span,
    };
    index_responses(&mut ext, responses, &arg_spans, warnings);
    ext
}

/// An external's `order` (its class for the sequencing token), or `None` with an error.
fn read_order(
    name: &str,
    o: &Spanned<String>,
    diags: &mut Vec<Diagnostic>,
) -> Option<crate::syntax::ast::Order> {
    let parsed = crate::syntax::ast::Order::parse(o.get_ref());
    if parsed.is_none() {
        let r = o.span();
        diags.push(
            Diagnostic::error("E0200", Span::new(r.start, r.end), format!("`order` of `{name}` is \"{}\"", o.get_ref()))
                .with_help("write \"sequential\", \"readonly\" or \"unordered\" (PopPy's classes; docs/language.md)"),
        );
    }
    parsed
}

/// Warnings about a table that names no external (W0007) or replaces a pure standard one
/// (W0004).
fn table_warnings(name: &str, span: Span, warnings: &mut Vec<Diagnostic>) {
    if let Some(why) = never_an_external(name) {
        warnings.push(
            Diagnostic::warning("W0007", span, format!("the world file's `[{name}]` is never read: {why}"))
                .with_help("name each table after an external: one the program declares with `extern`, or a standard one such as `llm` or `sleep`"),
        );
    }
    // Mocking what reaches outside (`llm`, `sleep`, processes, `coin`) is what world files
    // are for; replacing a built-in computation (`print`, `add`) is almost always a mistake.
    if crate::externals::standard(name).is_some_and(|d| d.kind == crate::externals::ExtKind::Pure) {
        let what = if name == "print" {
            "so `print` writes nothing"
        } else {
            "instead of computing them"
        };
        warnings.push(
            Diagnostic::warning("W0004", span, format!("the world file's `[{name}]` replaces the standard external `{name}`"))
                .with_help(format!("calls to `{name}` now answer from this table, {what}; rename the table if that was not meant")),
        );
    }
}

/// Indexes `responses` by a hash of their argument, warning about a second response for the
/// same argument (W0006: the first one always answers).
fn index_responses(
    ext: &mut WorldExt,
    responses: Vec<Response>,
    arg_spans: &[Span],
    warnings: &mut Vec<Diagnostic>,
) {
    let name = &ext.name;
    // Chains are built back to front so each runs in file order.
    let mut buf = String::new();
    let hashes: Vec<u64> = responses
        .iter()
        .map(|r| arg_hash(&r.arg, &mut buf))
        .collect();
    for (i, &h) in hashes.iter().enumerate().rev() {
        if let Some(next) = ext.index.insert(h, i as u32) {
            ext.same_hash[i] = next;
        }
    }
    ext.responses = responses;
    for (i, r) in ext.responses.iter().enumerate() {
        if ext
            .candidates(hashes[i])
            .take_while(|c| !std::ptr::eq(*c, r))
            .any(|c| pexp_eq(&c.arg, &r.arg))
        {
            warnings.push(
                Diagnostic::warning("W0006", arg_spans[i], format!("a second response of `{name}` for the argument {}", r.arg))
                    .with_help("the first one answers every call with this argument; remove or change this one"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcut answers only where the parser gives the same value.
    #[test]
    fn plain_literals_read_as_the_parser_reads_them() {
        let cases = [
            "\"q1\"",
            "\"\"",
            " \"a b\" ",
            "0",
            "7",
            "-7",
            "123456",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "007",
            "-0",
            "1.5",
            "\"a\\nb\"",
            "\"tab\there\"",
            "\"é\"",
            "\"{x}\"",
            "-",
            "\"",
            "x",
            "1e3",
            "+1",
            "(1, 2)",
        ];
        for src in cases {
            let by_parser = parse_expr_source(src).ok().and_then(|e| to_pexp(&e));
            if let Some(fast) = plain_literal(src) {
                assert_eq!(Some(&fast), by_parser.as_ref(), "{src:?}");
            }
            assert_eq!(parse_pexp(src).ok(), by_parser, "{src:?}");
        }
        assert!(
            plain_literal("\"q1\"").is_some() && plain_literal("-42").is_some(),
            "the common cases take the shortcut"
        );
    }

    /// Every handle a run can make prints as a name that reads back as the same handle, so a
    /// trace can hold results and arguments with handles (issue 28: `create_process`).
    #[test]
    fn handles_print_as_names_that_read_back_as_the_same_handles() {
        let (i, o) = crate::externals::process_handles(12);
        for name in [
            "stdout",
            "stderr",
            "stdout_1",
            "stderr_2_1",
            i.as_str(),
            o.as_str(),
            "proc1_stdin",
        ] {
            let h = PExp::Prim(Prim::Handle(Arc::from(name)));
            assert_eq!(parse_pexp(&h.to_string()), Ok(h.clone()), "{name}");
            let pair = PExp::Tuple(vec![h.clone(), PExp::Prim(Prim::Str(Arc::from("x")))]);
            assert_eq!(parse_pexp(&pair.to_string()), Ok(pair), "{name}");
        }
        for not_a_handle in [
            "proc_stdin",
            "proc0_stdin",
            "proc01_stdout",
            "proc1_stderr",
            "proc1_stdin_1",
            "procx_stdout",
            "process_stdin",
        ] {
            assert!(
                !crate::externals::is_handle_literal(not_a_handle),
                "{not_a_handle}"
            );
            assert!(parse_pexp(not_a_handle).is_err(), "{not_a_handle}");
        }
    }
}
