//! Call hierarchy: the item at `$0`, and its incoming and outgoing calls, one caller or
//! callee per line with the calls' positions.

use crate::fixture::{check_text, fixture, line_col, Fixture};
use opal_lsp::call_hierarchy::{self, CallItem, Calls};

fn lines(f: &Fixture, calls: &[Calls]) -> String {
    calls
        .iter()
        .map(|c| {
            let at: Vec<String> = c
                .ranges
                .iter()
                .map(|s| line_col(&f.text, s.start))
                .collect();
            format!("{} {}", c.item.name().unwrap_or("<file>"), at.join(" "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

const SRC: &str = "double := fun x: x * 2\nquad := fun x:\n    y := double x\n    ret double y\nprint (&stdout, quad 3)\nz := map ([1], double)\n";

#[test]
fn prepare_marks_the_function_and_its_item() {
    let src = "«d$0ouble := fun x: x * 2»\nprint (&stdout, double 1)\n";
    let f = fixture(src);
    let Some(CallItem::Function {
        name,
        detail,
        range,
        selection,
    }) = call_hierarchy::prepare(&f.analysis, f.cursor())
    else {
        panic!("no function")
    };
    check_text(&f.marked(&[range]), src);
    check_text(
        &format!("{name} {detail} {}", line_col(&f.text, selection.start)),
        "double line 1 0:0",
    );
}

#[test]
fn incoming_calls_grouped_by_caller() {
    let f = fixture(&SRC.replacen("double", "dou$0ble", 1));
    check_text(
        &lines(&f, &call_hierarchy::incoming(&f.analysis, f.cursor())),
        "quad 2:9 3:8\n<file> 5:15",
    );
}

#[test]
fn outgoing_calls_grouped_by_callee() {
    let f = fixture(&SRC.replacen("quad", "qu$0ad", 1));
    check_text(
        &lines(&f, &call_hierarchy::outgoing(&f.analysis, f.cursor())),
        "double 2:9 3:8",
    );
}

#[test]
fn a_value_is_not_in_the_hierarchy() {
    let f = fixture("x$0 := 1\nprint (&stdout, x)\n");
    assert_eq!(call_hierarchy::prepare(&f.analysis, f.cursor()), None);
}
