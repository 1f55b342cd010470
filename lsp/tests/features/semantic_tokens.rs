//! Semantic tokens, one per line: the text, its type and its modifiers.

use crate::fixture::{check_text, fixture};
use opal_lsp::semantic_tokens::{self, TOKEN_MODIFIERS, TOKEN_TYPES};

#[track_caller]
fn check(src: &str, expect: &str) {
    let f = fixture(src);
    let tokens = match f.ranges.first() {
        Some(r) => semantic_tokens::semantic_tokens_in(&f.analysis, *r),
        None => semantic_tokens::semantic_tokens(&f.analysis),
    };
    let lines: Vec<String> = tokens
        .iter()
        .map(|t| {
            let mods: Vec<&str> = TOKEN_MODIFIERS
                .iter()
                .enumerate()
                .filter(|(i, _)| t.mods & (1 << i) != 0)
                .map(|(_, m)| *m)
                .collect();
            let text = &f.text[t.span.start as usize..t.span.end as usize];
            format!(
                "{text} {}{}",
                TOKEN_TYPES[t.ty as usize],
                mods.iter().map(|m| format!(" +{m}")).collect::<String>()
            )
        })
        .collect();
    check_text(&lines.join("\n"), expect);
}

#[test]
fn names_are_classified_by_what_they_refer_to() {
    check(
        "extern ask\nf := fun x: x + 1\nprint (&stdout, f (ask 2)) # done\n",
        "extern keyword
ask external +declaration
f function +declaration
:= operator
fun keyword
x parameter +declaration
x parameter
+ operator
1 number
print external +defaultLibrary
& operator
stdout variable +defaultLibrary
f function
ask external
2 number
# done comment",
    );
}

#[test]
fn a_range_gets_the_tokens_of_its_lines() {
    check(
        "a := 1\n«b := a»\nc := \"s\"\n",
        "b variable +declaration\n:= operator\na variable",
    );
}
