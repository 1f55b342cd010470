//! The conversions to `lsp_types`: only the server layer speaks the protocol; the features
//! answer in their own terms.

use crate::analysis::Analysis;
use crate::call_hierarchy::{CallItem, Calls};
use crate::code_actions::{self, QuickFix};
use crate::completion::{Completion, CompletionKind, Doc, DocSource};
use crate::document_link::Link;
use crate::folding_ranges::{Fold, FoldKind};
use crate::inlay_hints::{self, HintKind};
use crate::linked_editing;
use crate::navigation::{self, FlatSymbol, HighlightKind, HoverResult, Symbol};
use crate::position::{LineCol, Positions};
use crate::refactor::Refactor;
use crate::semantic_tokens::Token;
use crate::semantic_tokens::{TOKEN_MODIFIERS, TOKEN_TYPES};
use crate::signature_help::Signature;
use crate::workspace_symbols::Entry;
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
    let href = format!("{DOCS_URL}#{}", d.code.to_ascii_lowercase())
        .parse::<Uri>()
        .ok();
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
                .map(|(s, m)| DiagnosticRelatedInformation {
                    location: Location {
                        uri: uri.clone(),
                        range: pos.range(*s),
                    },
                    message: m.clone(),
                })
                .collect()
        }),
        tags: (d.code == "W0001").then(|| vec![DiagnosticTag::UNNECESSARY]),
        data: d.fix.as_ref().map(|f| serde_json::json!({ "fix": f })),
    }
}

/// Edits in byte spans, in the client's positions.
pub fn text_edits(a: &Analysis, edits: Vec<(Span, String)>) -> Vec<TextEdit> {
    let p = a.pos();
    edits
        .into_iter()
        .map(|(s, t)| TextEdit {
            range: p.range(s),
            new_text: t,
        })
        .collect()
}

pub fn folding_range(f: &Fold) -> FoldingRange {
    let kind = match f.kind {
        FoldKind::Region => FoldingRangeKind::Region,
        FoldKind::Comment => FoldingRangeKind::Comment,
    };
    FoldingRange {
        start_line: f.start_line,
        start_character: None,
        end_line: f.end_line,
        end_character: None,
        kind: Some(kind),
        collapsed_text: None,
    }
}

/// The nested selection ranges of the spans around an offset (outermost first); the empty
/// range at the offset when there are none.
pub fn selection_range(a: &Analysis, spans: Vec<Span>, offset: u32) -> SelectionRange {
    let p = a.pos();
    let mut cur: Option<SelectionRange> = None;
    for s in spans {
        cur = Some(SelectionRange {
            range: p.range(s),
            parent: cur.map(Box::new),
        });
    }
    cur.unwrap_or(SelectionRange {
        range: p.range(Span::new(offset as usize, offset as usize)),
        parent: None,
    })
}

pub fn signature_help(s: Signature) -> SignatureHelp {
    let parameters = s
        .params
        .into_iter()
        .map(|p| ParameterInformation {
            label: ParameterLabel::Simple(p),
            documentation: None,
        })
        .collect();
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

/// The lenses of [`code_actions::LENSES`], each a command on the document's URI, for a client
/// that runs them itself (`client_lenses`); for any other, the one lens the server runs.
pub fn code_lenses(uri: &Uri, client_lenses: bool) -> Vec<CodeLens> {
    let arg = serde_json::Value::String(uri.to_string());
    let server_lens = [code_actions::SERVER_LENS];
    let lenses: &[(&str, &str)] = if client_lenses {
        code_actions::LENSES
    } else {
        &server_lens
    };
    lenses
        .iter()
        .map(|(title, command)| CodeLens {
            range: Range::default(),
            command: Some(Command {
                title: title.to_string(),
                command: command.to_string(),
                arguments: Some(vec![arg.clone()]),
            }),
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
    WorkspaceEdit {
        changes: Some(std::collections::HashMap::from([(
            uri.clone(),
            text_edits(a, edits),
        )])),
        ..Default::default()
    }
}

/// The legend of [`TOKEN_TYPES`] and [`TOKEN_MODIFIERS`].
pub fn semantic_tokens_legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TOKEN_TYPES
            .iter()
            .map(|t| SemanticTokenType::new(t))
            .collect(),
        token_modifiers: TOKEN_MODIFIERS
            .iter()
            .map(|m| SemanticTokenModifier::new(m))
            .collect(),
    }
}

/// A completion item; its `data` says where its documentation comes from (read back by
/// [`completion_doc_source`] on `completionItem/resolve`).
pub fn completion_item(c: Completion) -> CompletionItem {
    let kind = match c.kind {
        CompletionKind::Variable => CompletionItemKind::VARIABLE,
        CompletionKind::Function => CompletionItemKind::FUNCTION,
        CompletionKind::Interface => CompletionItemKind::INTERFACE,
        CompletionKind::Keyword => CompletionItemKind::KEYWORD,
        CompletionKind::Snippet => CompletionItemKind::SNIPPET,
    };
    let data = c.doc.map(|d| match d {
        DocSource::Def(at) => serde_json::json!({ "def": at }),
        DocSource::External(e) => serde_json::json!({ "external": e }),
        DocSource::Handle(h) => serde_json::json!({ "handle": h }),
    });
    CompletionItem {
        label: c.label,
        kind: Some(kind),
        detail: c.detail,
        insert_text_format: c.snippet.is_some().then_some(InsertTextFormat::SNIPPET),
        insert_text: c.snippet,
        sort_text: Some(c.sort_text),
        data,
        ..Default::default()
    }
}

/// Where a completion item's documentation comes from, read from its `data`.
pub fn completion_doc_source(data: Option<&serde_json::Value>) -> Option<DocSource> {
    let data = data?;
    if let Some(name) = data["external"].as_str() {
        return Some(DocSource::External(name.to_string()));
    }
    if let Some(name) = data["handle"].as_str() {
        return Some(DocSource::Handle(name.to_string()));
    }
    Some(DocSource::Def(u32::try_from(data["def"].as_u64()?).ok()?))
}

/// Documentation, as Markdown when the client shows it, else as plain text.
pub fn documentation(d: Doc, markdown: bool) -> Documentation {
    match d {
        Doc::Markdown(m) if markdown => Documentation::MarkupContent(MarkupContent {
            kind: MarkupKind::Markdown,
            value: m,
        }),
        Doc::Markdown(m) => Documentation::String(navigation::plain_text(&m)),
        Doc::Plain(s) => Documentation::String(s),
    }
}

/// A hover, as Markdown or (for a client that asked for plain text) as plain text.
pub fn hover(a: &Analysis, h: HoverResult, markdown: bool) -> Hover {
    let (kind, value) = if markdown {
        (MarkupKind::Markdown, h.markdown)
    } else {
        (MarkupKind::PlainText, navigation::plain_text(&h.markdown))
    };
    Hover {
        contents: HoverContents::Markup(MarkupContent { kind, value }),
        range: Some(a.pos().range(h.span)),
    }
}

pub fn highlights(a: &Analysis, hs: Vec<(Span, HighlightKind)>) -> Vec<DocumentHighlight> {
    let p = a.pos();
    hs.into_iter()
        .map(|(s, k)| DocumentHighlight {
            range: p.range(s),
            kind: Some(match k {
                HighlightKind::Write => DocumentHighlightKind::WRITE,
                HighlightKind::Read => DocumentHighlightKind::READ,
            }),
        })
        .collect()
}

pub fn symbol_kind(k: navigation::SymbolKind) -> SymbolKind {
    match k {
        navigation::SymbolKind::Function => SymbolKind::FUNCTION,
        navigation::SymbolKind::Variable => SymbolKind::VARIABLE,
        navigation::SymbolKind::Array => SymbolKind::ARRAY,
        navigation::SymbolKind::Interface => SymbolKind::INTERFACE,
    }
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` must still be written out.
pub fn document_symbol(a: &Analysis, s: Symbol) -> DocumentSymbol {
    let p = a.pos();
    let children: Vec<DocumentSymbol> = s
        .children
        .into_iter()
        .map(|c| document_symbol(a, c))
        .collect();
    DocumentSymbol {
        name: s.name,
        detail: s.detail,
        kind: symbol_kind(s.kind),
        tags: None,
        deprecated: None,
        range: p.range(s.range),
        selection_range: p.range(s.selection),
        children: (!children.is_empty()).then_some(children),
    }
}

#[allow(deprecated)] // `SymbolInformation::deprecated` must still be written out.
pub fn symbol_information(a: &Analysis, uri: &Uri, s: FlatSymbol) -> SymbolInformation {
    SymbolInformation {
        name: s.name,
        kind: symbol_kind(s.kind),
        tags: None,
        deprecated: None,
        location: Location {
            uri: uri.clone(),
            range: a.pos().range(s.selection),
        },
        container_name: s.container,
    }
}

pub fn workspace_symbol(uri: Uri, e: Entry) -> WorkspaceSymbol {
    let at = |p: LineCol| Position {
        line: p.line,
        character: p.col,
    };
    let range = Range {
        start: at(e.start),
        end: at(e.end),
    };
    WorkspaceSymbol {
        name: e.name,
        kind: symbol_kind(e.kind),
        tags: None,
        container_name: e.container,
        location: OneOf::Left(Location { uri, range }),
        data: None,
    }
}

/// A call hierarchy item of the document `uri`; the file's item is named after the file.
pub fn call_item(a: &Analysis, uri: &Uri, it: CallItem) -> CallHierarchyItem {
    let p = a.pos();
    let (name, kind, detail, range, selection) = match it {
        CallItem::Function {
            name,
            detail,
            range,
            selection,
        } => (name, SymbolKind::FUNCTION, Some(detail), range, selection),
        CallItem::File { range } => (
            uri.as_str()
                .rsplit('/')
                .next()
                .unwrap_or("program")
                .to_string(),
            SymbolKind::FILE,
            None,
            range,
            range,
        ),
    };
    CallHierarchyItem {
        name,
        kind,
        tags: None,
        detail,
        uri: uri.clone(),
        range: p.range(range),
        selection_range: p.range(selection),
        data: None,
    }
}

pub fn incoming_calls(
    a: &Analysis,
    uri: &Uri,
    calls: Vec<Calls>,
) -> Vec<CallHierarchyIncomingCall> {
    let p = a.pos();
    calls
        .into_iter()
        .map(|c| CallHierarchyIncomingCall {
            from_ranges: c.ranges.iter().map(|s| p.range(*s)).collect(),
            from: call_item(a, uri, c.item),
        })
        .collect()
}

pub fn outgoing_calls(
    a: &Analysis,
    uri: &Uri,
    calls: Vec<Calls>,
) -> Vec<CallHierarchyOutgoingCall> {
    let p = a.pos();
    calls
        .into_iter()
        .map(|c| CallHierarchyOutgoingCall {
            from_ranges: c.ranges.iter().map(|s| p.range(*s)).collect(),
            to: call_item(a, uri, c.item),
        })
        .collect()
}

/// A document link; `line_fragments`: the client opens `#L<n>` at line n (else a mock's link
/// names the file). A path that is not a URI is left out.
pub fn document_link(a: &Analysis, l: Link, line_fragments: bool) -> Option<DocumentLink> {
    let base = Uri::from_file_path(&l.target)?;
    let target = match l.line {
        // VS Code and code-server open `#L<n>` at line n (1-based).
        Some(line) if line_fragments => format!("{}#L{}", base.as_str(), line + 1)
            .parse::<Uri>()
            .unwrap_or(base),
        _ => base,
    };
    Some(DocumentLink {
        range: a.pos().range(l.span),
        target: Some(target),
        tooltip: Some(l.tooltip),
        data: None,
    })
}

pub fn linked_editing_ranges(a: &Analysis, spans: Vec<Span>) -> LinkedEditingRanges {
    let p = a.pos();
    LinkedEditingRanges {
        ranges: spans.into_iter().map(|s| p.range(s)).collect(),
        word_pattern: Some(linked_editing::WORD_PATTERN.into()),
    }
}

/// The fields of a stand-in for a whole answer of inlay hints ([`crate::splice`]) but its label.
pub const STAND_IN_HINT: InlayHint = InlayHint {
    position: Position {
        line: 0,
        character: 0,
    },
    label: InlayHintLabel::String(String::new()),
    kind: None,
    text_edits: None,
    tooltip: None,
    padding_left: None,
    padding_right: None,
    data: None,
};

/// An inlay hint without its tooltip (which comes with `inlayHint/resolve`: 50 000 lines make
/// 28 000 hints); its `data` names its kind.
pub fn inlay_hint(p: &Positions, h: inlay_hints::InlayHint) -> InlayHint {
    InlayHint {
        position: p.position(h.offset),
        label: InlayHintLabel::String(h.label),
        kind: None,
        text_edits: None,
        tooltip: None,
        padding_left: Some(true),
        padding_right: None,
        data: Some(serde_json::json!(h.kind.as_str())),
    }
}

/// Fills in a hint's tooltip, by the kind in its `data`.
pub fn resolve_inlay_hint(mut h: InlayHint) -> InlayHint {
    if let Some(kind) = h
        .data
        .as_ref()
        .and_then(|d| d.as_str())
        .and_then(HintKind::from_name)
    {
        h.tooltip = Some(InlayHintTooltip::String(kind.tooltip().into()));
    }
    h
}

/// Tokens in the protocol's relative encoding (deltas from the document's start); a token
/// that crosses a line or is empty in the client's columns is left out.
pub fn semantic_tokens(a: &Analysis, tokens: &[Token]) -> Vec<SemanticToken> {
    let p = a.pos();
    let mut cursor = p.cursor();
    let mut out = Vec::with_capacity(tokens.len());
    let (mut pl, mut pc) = (0u32, 0u32);
    for (i, t) in tokens.iter().enumerate() {
        if i % 1024 == 0 {
            crate::cancel::check();
        }
        let (start, end) = (cursor.position(t.span.start), cursor.position(t.span.end));
        if start.line != end.line || end.character <= start.character {
            continue;
        }
        let dl = start.line - pl;
        let dc = if dl == 0 {
            start.character - pc
        } else {
            start.character
        };
        out.push(SemanticToken {
            delta_line: dl,
            delta_start: dc,
            length: end.character - start.character,
            token_type: t.ty,
            token_modifiers_bitset: t.mods,
        });
        (pl, pc) = (start.line, start.character);
    }
    out
}

/// The single edit between two token arrays (in units of u32, as the protocol counts).
pub fn token_delta(old: &[SemanticToken], new: &[SemanticToken]) -> Vec<SemanticTokensEdit> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    if prefix == old.len() && prefix == new.len() {
        return vec![];
    }
    vec![SemanticTokensEdit {
        start: 5 * prefix as u32,
        delete_count: 5 * (old.len() - prefix - suffix) as u32,
        data: Some(new[prefix..new.len() - suffix].to_vec()),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::WorldInfo;

    /// A mock's link opens its table's line (`#L<n>`, 1-based) only for clients that open such
    /// fragments; a file's link is the file.
    #[test]
    fn document_links_name_a_line_only_for_clients_that_open_it() {
        let a = Analysis::new(
            "extern ask\nx := ask \"data/in.txt\"\n".into(),
            WorldInfo::default(),
        );
        let world = std::path::PathBuf::from("/w/p.world.toml");
        let mock = Link {
            span: Span::new(7, 10),
            target: world.clone(),
            line: Some(4),
            tooltip: "the mock".into(),
        };
        let file = Link {
            span: Span::new(20, 31),
            target: "/w/data/in.txt".into(),
            line: None,
            tooltip: "open".into(),
        };
        let target = |l: &Link, fragments: bool| {
            document_link(&a, l.clone(), fragments)
                .and_then(|d| d.target)
                .map(|t| t.as_str().to_string())
        };
        assert_eq!(
            target(&mock, true).as_deref(),
            Some("file:///w/p.world.toml#L5")
        );
        assert_eq!(
            target(&mock, false).as_deref(),
            Some("file:///w/p.world.toml")
        );
        assert_eq!(
            target(&file, true).as_deref(),
            Some("file:///w/data/in.txt")
        );
        let range = document_link(&a, mock, true).map(|d| d.range);
        assert_eq!(
            range,
            Some(Range {
                start: Position {
                    line: 0,
                    character: 7
                },
                end: Position {
                    line: 0,
                    character: 10
                }
            })
        );
    }
}
