//! A runtime error inside a call of a prelude list function the program wrote names that call
//! (`Fault::inside`), under every strategy; calls the program did not write (a `for` loop's
//! `fold`, the prelude's own calls) do not count. The shapes are the ones E0108 uses.

use opal_core::desugar::prelude::SHAPES;
use opal_core::machine::run::{run, End, Fault, Options, Strategy};
use opal_core::machine::Machine;

fn faults(src: &str, strategy: Strategy) -> Vec<Fault> {
    let c = opal_core::compile(src);
    assert!(!c.has_errors(), "{:?}", c.diags);
    let mut m = Machine::new(&c.program);
    let mut opts = Options::new(strategy);
    opts.max_steps = Some(20_000);
    match run(&mut m, opts, Box::new(|_, _| {}), None).end {
        End::Stuck(f) => f,
        other => panic!("{src}: expected a runtime error, got {other:?}"),
    }
}

fn shape(name: &str) -> &'static str {
    SHAPES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| *s)
        .unwrap_or_default()
}

#[test]
fn a_function_through_a_parameter_in_pythons_order_names_the_call() {
    let src = "g := fun (a, b): map (a, b)\nprint (g (fun x: x + 1, [1, 2, 3]))\n";
    let at = src.find("map (a").unwrap_or_default() as u32;
    for strategy in Strategy::ALL {
        let fs = faults(src, strategy);
        assert!(!fs.is_empty());
        for f in &fs {
            let c = f
                .inside
                .unwrap_or_else(|| panic!("{strategy:?}: no library call on {f:?}"));
            assert_eq!(
                (c.offset, c.name, c.shape),
                (at, "map", shape("map")),
                "{strategy:?}"
            );
        }
    }
}

#[test]
fn the_innermost_call_the_program_wrote_is_named_not_the_preludes_own() {
    // `sort_by` calls `map` inside the prelude: the note names `sort_by`, the call written.
    let src = "by := fun (k, xs): sort_by (k, xs)\nprint (by (fun x: 0 - x, [3, 1, 2]))\n";
    let at = src.find("sort_by (k").unwrap_or_default() as u32;
    for strategy in Strategy::ALL {
        for f in faults(src, strategy) {
            let c = f
                .inside
                .unwrap_or_else(|| panic!("{strategy:?}: no library call on {f:?}"));
            assert_eq!((c.offset, c.name), (at, "sort_by"), "{strategy:?}");
        }
    }
}

#[test]
fn a_for_loop_and_errors_outside_library_calls_have_no_note() {
    // A `for` loop desugars to `fold`: it is no call of `fold` the program wrote.
    let looped = "l := [1, 2]\ns := 0\nfor x in l:\n    s := s + x ()\nprint s\n";
    // A program's own `map` is not the prelude's.
    let own = "map := fun (a, b): a b\nprint (map (1, 2))\n";
    for src in [looped, own] {
        for strategy in Strategy::ALL {
            for f in faults(src, strategy) {
                assert_eq!(f.inside, None, "{strategy:?} {src}");
            }
        }
    }
}

#[test]
fn e0108_and_the_runtime_note_read_one_table() {
    let c = opal_core::compile("l := [1, 2]\nprint (map (fun x: x + 1, l))\n");
    let e = c
        .diags
        .iter()
        .find(|d| d.code == "E0108")
        .map(|d| d.message.clone())
        .unwrap_or_default();
    assert!(e.contains(&format!("`map` takes {}", shape("map"))), "{e}");
}
