//! Values read back as the paper writes them (`Machine::readback`): Church booleans and lists,
//! partial lists with their pending tasks, tuples; functions that are neither stay `<fun>`.

use opal_core::compile;
use opal_core::machine::readback::Budget;
use opal_core::machine::run::{run, End, Options, Strategy};
use opal_core::machine::{MOp, Machine, Outcome};

/// The printed result of running `src` under every strategy (they must agree).
fn result(src: &str) -> String {
    let c = compile(src);
    assert!(!c.has_errors(), "{:?}", c.diags);
    let mut out = Vec::new();
    for s in [Strategy::Opportunistic, Strategy::Cbv] {
        let mut m = Machine::new(&c.program);
        let r = run(&mut m, Options::new(s), Box::new(|_, _| {}), None);
        match r.end {
            End::Done(v) => out.push(v.unwrap_or_else(|| "()".into())),
            other => panic!("{s:?}: {other:?}"),
        }
    }
    assert_eq!(out[0], out[1]);
    out.remove(0)
}

#[test]
fn lists_booleans_and_tuples() {
    assert_eq!(
        result("[\"Honolulu\", \"Jakarta\"]"),
        "[\"Honolulu\", \"Jakarta\"]"
    );
    assert_eq!(result("[]"), "[]");
    assert_eq!(result("1 < 2"), "true");
    assert_eq!(result("not (1 < 2)"), "false");
    assert_eq!(
        result("(1, \"x\", [true, false])"),
        "(1, \"x\", [true, false])"
    );
    assert_eq!(result("([1],)"), "([1],)");
    assert_eq!(result("[[1, 2], [], [3]]"), "[[1, 2], [], [3]]");
    assert_eq!(result("fun x: x"), "<fun>");
}

#[test]
fn lists_built_by_the_prelude() {
    assert_eq!(result("cons (1, cons (2, nil))"), "[1, 2]");
    assert_eq!(result("concat ([1, 2], [3])"), "[1, 2, 3]");
    assert_eq!(result("reverse [1, 2, 3]"), "[3, 2, 1]");
    assert_eq!(result("map ([1, 2], fun x: (x, x))"), "[(1, 1), (2, 2)]");
    assert_eq!(result("l := [1, 2]\nl ++ [3]"), "[1, 2, 3]");
    // A long list built by recursion reads back without deep recursion in the reader.
    let src = "rec build := fun n:\n    if n == 0:\n        ret nil\n    else:\n        ret cons (n, build (n - 1))\nbuild 300\n";
    let r = result(src);
    assert!(
        r.starts_with("[300, 299, ") && r.ends_with(", 2, 1]"),
        "{}",
        &r[..40.min(r.len())]
    );
}

#[test]
fn a_function_that_needs_an_external_is_a_function() {
    // A hand-written list whose element is computed by `add` cannot be read back without
    // running it.
    assert_eq!(result("fun (s, a): a (s, 1 + 1)"), "<fun>");
    // `map` runs its function when it is called (as a comprehension does), so its list reads
    // back.
    assert_eq!(result("map ([1, 2], fun x: x + 1)"), "[2, 3]");
    assert_eq!(result("filter ([1, 2, 3], fun x: x > 1)"), "[2, 3]");
}

/// A streaming resolution leaves a partial list whose hole is the pending task (paper Fig. 10).
#[test]
fn partial_lists_show_their_pending_task() {
    let c = compile("extern get_cities_in\ncities := get_cities_in \"Oceania\"\ncities\n");
    assert!(!c.has_errors(), "{:?}", c.diags);
    let mut m = Machine::new(&c.program);
    let mut budget = 100;
    // Step until the call is dispatched, deliver one chunk, and step the resolve.
    loop {
        budget -= 1;
        assert!(budget > 0);
        let Some(s) = m.iter().find(|s| m.steppable(*s).is_ok()) else {
            break;
        };
        let ev = m.step(s).expect("steppable");
        if let Some(t) = ev.task {
            let items = vec![opal_core::ir::Prim::Str("Ho".into())];
            m.deliver(t, Outcome::Partial { items, more: true }, 0.0);
        }
    }
    let ret = m.ret;
    let b = m.binder(ret).expect("bound");
    assert!(
        matches!(m.stmt(b).op, MOp::Fun(_)),
        "{}",
        m.print_term(false)
    );
    assert_eq!(
        m.readback_text(ret, Budget::VIEW),
        "[\"Ho\"] + <<get_cities_in \"Oceania\">>"
    );
}

#[test]
fn budget_bounds_the_work() {
    let c = compile("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]");
    let mut m = Machine::new(&c.program);
    let r = run(
        &mut m,
        Options::new(Strategy::Opportunistic),
        Box::new(|_, _| {}),
        None,
    );
    assert!(matches!(r.end, End::Done(_)));
    assert_eq!(
        m.readback_text(m.ret, Budget { steps: 5, depth: 8 }),
        "<fun>"
    );
}
