//! What an external's answer becomes in the term: a result's OPAL source compiled to a closed
//! template (world files, traces, live answers), and an outcome written back as a trace record.

use super::template::{TVar, Template};
use super::Outcome;
use crate::ir::Prim;
use crate::names::Name;
use crate::span::Span;
use std::sync::Arc;

/// Why an external's answer cannot enter the term. `quoted` is the answer's start.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResultError {
    /// It does not parse; `message` is the parser's first complaint.
    #[error("result `{quoted}` is not an OPAL expression{}", message.as_deref().map(|m| format!(": {m}")).unwrap_or_default())]
    Syntax {
        quoted: String,
        message: Option<String>,
    },
    /// It parses but does not compile (a name that is not the prelude's, …).
    #[error("result `{quoted}`: {message}")]
    Compile { quoted: String, message: String },
}

/// `ret e` desugared with the prelude it uses, compiled as one closed template.
pub fn compile_result_source(src: &str) -> Result<Arc<Template>, ResultError> {
    // A result may be a whole document: the message quotes its start.
    let quoted = crate::diag::clip(src).into_owned();
    let e = crate::syntax::parser::parse_expr_source(src).map_err(|ds| ResultError::Syntax {
        quoted: quoted.clone(),
        message: ds.first().map(|d| d.message.clone()),
    })?;
    let block = crate::syntax::ast::Block {
        items: vec![crate::syntax::ast::Item {
            kind: crate::syntax::ast::ItemKind::Ret(e),
            span: Span::default(),
        }],
    };
    let (p, diags) = crate::desugar::Desugarer::new(false).program(&block);
    if let Some(d) = diags.iter().find(|d| d.is_error()) {
        return Err(ResultError::Compile {
            quoted,
            message: d.message.clone(),
        });
    }
    let mut stmts = p.env;
    stmts.extend(p.body.stmts);
    Ok(super::template::compile_closed(&crate::ir::Expr {
        stmts,
        ret: p.body.ret,
    })
    .0)
}

fn prim_template(c: Prim) -> Arc<Template> {
    let mut t = Template::with_names(vec![Name::plain("_"), Name::plain("v")]);
    let op = t.prim_op(c);
    t.push(1, op);
    t.ret = TVar::Local(1);
    Arc::new(t)
}

pub(super) fn bool_outcome(b: bool) -> Outcome {
    static T: std::sync::OnceLock<(Arc<Template>, Arc<Template>)> = std::sync::OnceLock::new();
    let (t, f) = T.get_or_init(|| {
        let t = compile_result_source("true").unwrap_or_else(|_| prim_template(Prim::Int(1)));
        let f = compile_result_source("false").unwrap_or_else(|_| prim_template(Prim::Int(0)));
        (t, f)
    });
    if b {
        Outcome::Expr(t.clone(), "true".into())
    } else {
        Outcome::Expr(f.clone(), "false".into())
    }
}

/// An outcome as a trace event writes it: (result source, partial, error).
pub fn outcome_record(outcome: &Outcome) -> (String, bool, Option<String>) {
    match outcome {
        Outcome::Expr(_, src) => (src.clone(), false, None),
        Outcome::Value(c) => (c.to_string(), false, None),
        Outcome::Partial { items, more } => {
            let lits: Vec<String> = items.iter().map(|p| p.to_string()).collect();
            (format!("[{}]", lits.join(", ")), *more, None)
        }
        Outcome::Failed(e) => (String::new(), false, Some(e.clone())),
    }
}
