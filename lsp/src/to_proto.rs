//! The conversions to `lsp_types`: only the server layer speaks the protocol; the features
//! answer in their own terms.

use crate::analysis::Analysis;
use crate::code_actions::{self, QuickFix};
use crate::folding_ranges::{Fold, FoldKind};
use crate::refactor::Refactor;
use crate::semantic_tokens::{TOKEN_MODIFIERS, TOKEN_TYPES};
use crate::signature_help::Signature;
use opal_core::diag::{Diagnostic as ODiag, Severity};
use opal_core::span::Span;
use tower_lsp_server::ls_types::*;

/// Where each code is explained; `docs/diagnostics.md` has an anchor per code.
pub const DOCS_URL: &str = "https://github.com/opal-lang/opal/blob/main/docs/diagnostics.md";

pub fn to_lsp_diagnostic(pos: &crate::position::Positions, uri: &Uri, d: &ODiag) -> Diagnostic {
    let mut message = d.message.clone();
    if let Some(h) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(h);
    }
    let href = format!("{DOCS_URL}#{}", d.code.to_ascii_lowercase()).parse::<Uri>().ok();
    Diagnostic {
        range: pos.range(d.span),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        code_description: href.map(|href| CodeDescription { href }),
        source: Some("opal".into()),
        message,
        related_information: (!d.related.is_empty()).then(|| {
            d.related
                .iter()
                .map(|(s, m)| DiagnosticRelatedInformation { location: Location { uri: uri.clone(), range: pos.range(*s) }, message: m.clone() })
                .collect()
        }),
        tags: (d.code == "W0001").then(|| vec![DiagnosticTag::UNNECESSARY]),
        data: d.fix.as_ref().map(|f| serde_json::json!({ "fix": f })),
    }
}

/// Edits in byte spans, in the client's positions.
pub fn text_edits(a: &Analysis, edits: Vec<(Span, String)>) -> Vec<TextEdit> {
    let p = a.pos();
    edits.into_iter().map(|(s, t)| TextEdit { range: p.range(s), new_text: t }).collect()
}

pub fn folding_range(f: &Fold) -> FoldingRange {
    let kind = match f.kind {
        FoldKind::Region => FoldingRangeKind::Region,
        FoldKind::Comment => FoldingRangeKind::Comment,
    };
    FoldingRange { start_line: f.start_line, start_character: None, end_line: f.end_line, end_character: None, kind: Some(kind), collapsed_text: None }
}

/// The nested selection ranges of the spans around an offset (outermost first); the empty
/// range at the offset when there are none.
pub fn selection_range(a: &Analysis, spans: Vec<Span>, offset: u32) -> SelectionRange {
    let p = a.pos();
    let mut cur: Option<SelectionRange> = None;
    for s in spans {
        cur = Some(SelectionRange { range: p.range(s), parent: cur.map(Box::new) });
    }
    cur.unwrap_or(SelectionRange { range: p.range(Span::new(offset as usize, offset as usize)), parent: None })
}

pub fn signature_help(s: Signature) -> SignatureHelp {
    let parameters = s.params.into_iter().map(|p| ParameterInformation { label: ParameterLabel::Simple(p), documentation: None }).collect();
    SignatureHelp {
        signatures: vec![SignatureInformation {
            label: s.label,
            documentation: s.doc.map(Documentation::String),
            parameters: Some(parameters),
            active_parameter: Some(s.active),
        }],
        active_signature: Some(0),
        active_parameter: Some(s.active),
    }
}

/// The lenses of [`code_actions::LENSES`], each a command on the document's URI.
pub fn code_lenses(uri: &Uri) -> Vec<CodeLens> {
    let arg = serde_json::Value::String(uri.to_string());
    code_actions::LENSES
        .iter()
        .map(|(title, command)| CodeLens {
            range: Range::default(),
            command: Some(Command { title: title.to_string(), command: command.to_string(), arguments: Some(vec![arg.clone()]) }),
            data: None,
        })
        .collect()
}

/// The fix as a code action: its diagnostic, its edits to the document.
pub fn quick_fix(a: &Analysis, uri: &Uri, q: QuickFix) -> CodeActionOrCommand {
    CodeActionOrCommand::CodeAction(CodeAction {
        title: q.title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![to_lsp_diagnostic(&a.pos(), uri, &q.diag)]),
        edit: Some(workspace_edit(a, uri, q.edits)),
        is_preferred: Some(q.preferred),
        ..Default::default()
    })
}

pub fn refactor(a: &Analysis, uri: &Uri, r: Refactor) -> CodeActionOrCommand {
    CodeActionOrCommand::CodeAction(CodeAction {
        title: r.title,
        kind: Some(CodeActionKind::from(r.kind.to_string())),
        edit: Some(workspace_edit(a, uri, r.edits)),
        ..Default::default()
    })
}

/// Edits to one document.
pub fn workspace_edit(a: &Analysis, uri: &Uri, edits: Vec<(Span, String)>) -> WorkspaceEdit {
    WorkspaceEdit { changes: Some(std::collections::HashMap::from([(uri.clone(), text_edits(a, edits))])), ..Default::default() }
}

/// The legend of [`TOKEN_TYPES`] and [`TOKEN_MODIFIERS`].
pub fn semantic_tokens_legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TOKEN_TYPES.iter().map(|t| SemanticTokenType::new(t)).collect(),
        token_modifiers: TOKEN_MODIFIERS.iter().map(|m| SemanticTokenModifier::new(m)).collect(),
    }
}
