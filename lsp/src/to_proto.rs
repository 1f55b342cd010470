//! The conversions to `lsp_types`: only the server layer speaks the protocol; the features
//! answer in their own terms.

use opal_core::diag::{Diagnostic as ODiag, Severity};
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
