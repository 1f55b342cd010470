//! World files (`NAME.world.toml`): mock externals with latency and streaming (LANGUAGE.md §5).

use crate::diag::Diagnostic;
use crate::ir::{PExp, Prim};
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, Lit};
use crate::syntax::parser::parse_expr_source;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExt {
    latency_ms: Option<f64>,
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
    latency_ms: Option<f64>,
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
    pub default: Option<String>,
    pub choices: Vec<String>,
    pub doc: Option<String>,
    /// Where the table starts in the world file.
    pub span: Span,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct World {
    pub exts: BTreeMap<String, WorldExt>,
}

impl World {
    pub fn get(&self, name: &str) -> Option<&WorldExt> {
        self.exts.get(name)
    }
}

impl WorldExt {
    /// The reply for an argument: an exact response, else the default, else the choices.
    pub fn reply(&self, arg: &PExp) -> Option<(Reply, f64)> {
        if let Some(r) = self.responses.iter().find(|r| pexp_eq(&r.arg, arg)) {
            return Some((r.reply.clone(), r.latency_ms.unwrap_or(self.latency_ms)));
        }
        self.default.as_ref().map(|d| (Reply::Result(d.clone()), self.latency_ms))
    }
}

fn pexp_eq(a: &PExp, b: &PExp) -> bool {
    match (a, b) {
        (PExp::Prim(Prim::Int(x)), PExp::Prim(Prim::Float(y))) | (PExp::Prim(Prim::Float(y)), PExp::Prim(Prim::Int(x))) => (*x as f64) == *y,
        (PExp::Tuple(xs), PExp::Tuple(ys)) => xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| pexp_eq(x, y)),
        _ => a == b,
    }
}

/// `dir/NAME.opal` → `dir/NAME.world.toml`, the world file a program uses unless told
/// otherwise (the CLI, the language server and the debugger all look there).
pub fn path_beside(program: &std::path::Path) -> Option<std::path::PathBuf> {
    let stem = program.file_stem()?.to_str()?;
    Some(program.with_file_name(format!("{stem}.world.toml")))
}

/// Parses an OPAL primitive expression: a literal or a tuple of them (`'("a", 2)'`).
pub fn parse_pexp(src: &str) -> Result<PExp, String> {
    let e = parse_expr_source(src).map_err(|ds| ds.first().map(|d| d.message.clone()).unwrap_or_default())?;
    to_pexp(&e).ok_or_else(|| "expected a literal (number or string) or a tuple of literals".to_string())
}

fn to_pexp(e: &Expr) -> Option<PExp> {
    match &e.kind {
        ExprKind::Lit(l) | ExprKind::Prim(l) => Some(PExp::Prim(match l {
            Lit::Int(i) => Prim::Int(*i),
            Lit::Float(f) => Prim::Float(*f),
            Lit::Str(s) => Prim::Str(Arc::from(s.as_str())),
        })),
        ExprKind::Unit => Some(PExp::Tuple(vec![])),
        ExprKind::Paren(x) => to_pexp(x),
        ExprKind::Tuple(es) => es.iter().map(to_pexp).collect::<Option<Vec<_>>>().map(PExp::Tuple),
        ExprKind::Name(id) if crate::externals::handle_root(&id.name).is_some() => Some(PExp::Prim(Prim::Handle(Arc::from(id.name.as_str())))),
        _ => None,
    }
}

/// Parses a world file. Errors carry the span of the offending key or value.
pub fn parse_world(text: &str) -> Result<World, Vec<Diagnostic>> {
    let raw: BTreeMap<String, Spanned<RawExt>> = match toml::from_str(text) {
        Ok(r) => r,
        Err(e) => {
            let span = e.span().map(|r| Span::new(r.start, r.end)).unwrap_or_default();
            let msg = e.message().to_string();
            return Err(vec![Diagnostic::error("E0200", span, format!("invalid world file: {msg}"))
                .with_help("each external is a table `[name]` with `latency_ms`, `default`, `choices` or `[[name.responses]]` entries (LANGUAGE.md §5)")]);
        }
    };
    let mut diags = Vec::new();
    let mut exts = BTreeMap::new();
    let expr_ok = |s: &Spanned<String>, key: &str, diags: &mut Vec<Diagnostic>| {
        if let Err(ds) = parse_expr_source(s.get_ref()) {
            let m = ds.first().map(|d| d.message.clone()).unwrap_or_default();
            let r = s.span();
            diags.push(
                Diagnostic::error("E0200", Span::new(r.start, r.end), format!("`{key}` is not an OPAL expression: {m}"))
                    .with_help("write OPAL source in single quotes, e.g. '[\"Honolulu\", \"Jakarta\"]' or '\"text\"'"),
            );
        }
    };
    for (name, raw) in raw {
        let r = raw.span();
        let span = Span::new(r.start, r.end);
        let raw = raw.into_inner();
        let mut responses = Vec::new();
        for resp in raw.responses {
            let ar = resp.arg.span();
            let arg = match parse_pexp(resp.arg.get_ref()) {
                Ok(a) => a,
                Err(m) => {
                    diags.push(
                        Diagnostic::error("E0200", Span::new(ar.start, ar.end), format!("`arg` of `{name}`: {m}"))
                            .with_help("write the argument as an OPAL primitive expression, e.g. '\"Oceania\"', '300' or '(\"a\", 2)'"),
                    );
                    continue;
                }
            };
            let reply = match (resp.result, resp.stream) {
                (Some(res), None) => {
                    expr_ok(&res, "result", &mut diags);
                    Reply::Result(res.into_inner())
                }
                (None, Some(chunks)) => {
                    let ms = match resp.chunk_ms {
                        Some(ms) => {
                            let cr = ms.span();
                            let ms = ms.into_inner();
                            if ms.len() != chunks.len() {
                                diags.push(
                                    Diagnostic::error(
                                        "E0200",
                                        Span::new(cr.start, cr.end),
                                        format!("`chunk_ms` of `{name}` has {} entries but `stream` has {}", ms.len(), chunks.len()),
                                    )
                                    .with_help("give one delay per chunk"),
                                );
                            }
                            ms
                        }
                        None => vec![0.0; chunks.len()],
                    };
                    Reply::Stream(chunks, ms)
                }
                _ => {
                    diags.push(
                        Diagnostic::error("E0200", Span::new(ar.start, ar.end), format!("a response of `{name}` needs exactly one of `result` or `stream`"))
                            .with_help("add `result = '…'` or `stream = [\"chunk\", …]`"),
                    );
                    continue;
                }
            };
            let bad_latency = resp.latency_ms.map(|l| !(l.is_finite() && l >= 0.0)).unwrap_or(false);
            if bad_latency {
                diags.push(Diagnostic::error(
                    "E0200",
                    Span::new(ar.start, ar.end),
                    format!("`latency_ms` of a `{name}` response must be a non-negative number"),
                ));
            }
            responses.push(Response { arg, latency_ms: resp.latency_ms, reply });
        }
        if let Some(d) = &raw.default {
            expr_ok(d, "default", &mut diags);
        }
        for c in raw.choices.iter().flatten() {
            expr_ok(c, "choices", &mut diags);
        }
        let latency_ms = raw.latency_ms.unwrap_or(0.0);
        if !(latency_ms.is_finite() && latency_ms >= 0.0) {
            diags.push(Diagnostic::error("E0200", span, format!("`latency_ms` of `{name}` must be a non-negative number")));
        }
        exts.insert(
            name.clone(),
            WorldExt {
                name,
                latency_ms,
                responses,
                default: raw.default.map(|d| d.into_inner()),
                choices: raw.choices.unwrap_or_default().into_iter().map(|c| c.into_inner()).collect(),
                doc: raw.doc,
                span,
            },
        );
    }
    if diags.is_empty() {
        Ok(World { exts })
    } else {
        Err(diags)
    }
}
