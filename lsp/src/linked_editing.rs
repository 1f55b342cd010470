//! Linked editing: typing in a binder renames its uses as you type (and the reverse). Only
//! for bindings and parameters of the file; one binding, as in rename (rebinding makes a new
//! binding).

use crate::analysis::{Analysis, Target};
use opal_core::desugar::DefKind;
use opal_core::span::Span;

/// What a name may be typed into while linked (OPAL identifiers).
pub const WORD_PATTERN: &str = "[A-Za-z_][A-Za-z0-9_]*";

/// The spans typed into together (the binder and its uses), when there are at least two.
pub fn ranges(a: &Analysis, offset: u32) -> Option<Vec<Span>> {
    let (_, Target::Def(i)) = a.target_at(offset)? else {
        return None;
    };
    if a.defs()[i].kind == DefKind::Extern {
        return None;
    }
    let occ = a.occurrences(&Target::Def(i));
    if occ.len() < 2 {
        return None;
    }
    Some(occ.into_iter().map(|(s, _)| s).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::WorldInfo;

    #[test]
    fn a_binding_and_its_uses_are_linked() {
        let src =
            "extern ask\ncount := 1\nprint (&stdout, count + count)\nprint (&stdout, ask 1)\n";
        let a = Analysis::new(src.into(), WorldInfo::default());
        let r = ranges(&a, 12).map(|r| {
            r.iter()
                .map(|x| {
                    (
                        a.pos().line_col(x.start).line,
                        a.pos().line_col(x.start).col,
                    )
                })
                .collect::<Vec<_>>()
        });
        assert_eq!(r, Some(vec![(1, 0), (2, 16), (2, 24)]));
        assert!(
            ranges(&a, 8).is_none(),
            "externs are world-file keys: not linked"
        );
        assert!(ranges(&a, src.find("print").unwrap_or(0) as u32).is_none());
    }
}
