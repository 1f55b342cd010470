//! The debugger's session on bundled examples: stepping clicked statements, rounds, cbv and
//! lazy, resolving by hand (validated) and from the world file, time travel and restart.

use opal_debugger_gui::session::Session;

fn example(name: &str) -> Session {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/");
    let src = std::fs::read_to_string(format!("{dir}{name}.opal")).expect("example");
    let world = std::fs::read_to_string(format!("{dir}{name}.world.toml")).ok().map(|w| opal_core::world::parse_world(&w).expect("world"));
    Session::new(&src, world).expect("compiles")
}

#[test]
fn clicking_any_steppable_statement_steps_it_and_others_explain_why_not() {
    let mut s = Session::new("a := 1 + 2\nb := 3 + 4\nprint (&stdout, a * b)\n", None).expect("compiles");
    let rows = s.rows();
    assert!(rows.iter().any(|r| r.prelude), "environment rows are marked");
    let user: Vec<_> = rows.iter().filter(|r| !r.prelude).collect();
    let steppable: Vec<_> = user.iter().filter(|r| r.steppable).collect();
    assert!(steppable.len() >= 2, "{user:?}");
    let blocked = user.iter().find(|r| !r.steppable).expect("a blocked row");
    let err = s.step(&blocked.label.clone()).unwrap_err();
    assert!(err.contains("cannot step") && err.contains(&blocked.status.replace("waiting: ", "")), "{err}");
    // Step the last steppable first: order does not matter.
    let last = steppable.last().expect("one").label.clone();
    s.step(&last).expect("steps");
    assert_eq!(s.history.len(), 1);
    assert_eq!(user.iter().filter(|r| r.text.contains("add")).map(|r| r.line).collect::<Vec<_>>(), vec![Some(1), Some(2)], "rows map to source lines");
    while s.round() > 0 {}
    assert_eq!(s.output(), "21\n");
}

#[test]
fn tasks_wait_for_the_user_and_hand_resolutions_are_validated() {
    let mut s = example("city_excursions");
    let mut rounds = 0;
    while s.pending().is_empty() {
        assert!(s.round() > 0, "the program stalled before dispatching");
        rounds += 1;
    }
    assert!(rounds > 0);
    let (label, call) = s.pending()[0].clone();
    assert!(call.contains("get_cities_in"), "{call}");
    assert!(s.resolve_with(&label, "[\"Honolulu\"").is_err(), "a broken expression is refused");
    assert!(s.resolve_with(&label, "fun x: y").unwrap_err().contains("not a closed OPAL expression"));
    s.resolve_with(&label, "[\"Lima\"]").expect("a list literal is accepted");
    // Run to the end, resolving what remains from the world file.
    for _ in 0..10_000 {
        if s.round() == 0 {
            let p = s.pending();
            if p.is_empty() {
                break;
            }
            for (l, _) in p {
                s.resolve_from_world(&l).expect("world resolves");
            }
        }
    }
    assert_eq!(s.output(), "Lima\nWalk around.\n");
}

#[test]
fn coin_offers_its_results_to_pick_from() {
    let mut s = Session::new("b := coin ()\nprint (&stdout, if b: \"heads\" else: \"tails\")\n", None)
        .or_else(|_| Session::new("b := coin ()\nif b:\n    print (&stdout, \"heads\")\nelse:\n    print (&stdout, \"tails\")\n", None))
        .expect("compiles");
    while s.pending().is_empty() {
        assert!(s.round() > 0);
    }
    let (label, _) = s.pending()[0].clone();
    assert_eq!(s.choices(&label), vec!["true".to_string(), "false".to_string()]);
    s.resolve_with(&label, "false").expect("pick");
    while s.round() > 0 {}
    assert_eq!(s.output(), "tails\n");
}

#[test]
fn time_travel_goes_back_and_forward_and_a_new_step_drops_the_future() {
    let mut s = example("fork_join");
    let start = s.machine().print_term(false);
    for _ in 0..3 {
        assert!(s.round() > 0);
    }
    let after3 = s.machine().print_term(false);
    assert!(s.back() && s.back() && s.back());
    assert!(!s.back(), "nothing before the start");
    assert_eq!(s.machine().print_term(false), start);
    assert!(s.forward() && s.forward() && s.forward());
    assert_eq!(s.machine().print_term(false), after3);
    assert!(s.back());
    assert!(s.round() > 0);
    assert_eq!(s.history.len(), 3, "the old third round was replaced");
    assert!(!s.forward());
    s.restart();
    assert_eq!((s.position(), s.machine().print_term(false)), (0, start));
}

#[test]
fn cbv_and_lazy_follow_their_strategies() {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/diverge.opal")).expect("diverge");
    let mut lazy = Session::new(&src, None).expect("compiles");
    for _ in 0..200 {
        if lazy.step_lazy().is_err() {
            break;
        }
    }
    assert_eq!(lazy.output(), "", "lazy never prints (paper §3.4)");
    assert!(lazy.step_lazy().unwrap_err().contains("done"));
    let mut cbv = Session::new(&src, None).expect("compiles");
    for _ in 0..200 {
        cbv.step_cbv().expect("cbv keeps stepping diverge");
    }
    assert_eq!(cbv.output(), "", "cbv never prints");
    let mut opp = Session::new(&src, None).expect("compiles");
    for _ in 0..50 {
        opp.round();
    }
    assert_eq!(opp.output(), "foo\n", "opportunistic prints foo");
}
