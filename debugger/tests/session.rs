//! The debugger's session on bundled examples: stepping clicked statements, rounds, cbv and
//! lazy, resolving by hand (validated) and from the world file, time travel and restart.

use opal_core::machine::Rule;
use opal_debugger::session::{Instance, Order, Quiz, Session, Strategy, Until};
use opal_debugger::timeline::{critical_path, in_flight, Axis};
use std::collections::BTreeSet;

fn example(name: &str) -> Session {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/");
    let src = std::fs::read_to_string(format!("{dir}{name}.opal")).expect("example");
    let world = std::fs::read_to_string(format!("{dir}{name}.world.toml"))
        .ok()
        .map(|w| opal_core::world::parse_world(&w).expect("world"));
    Session::new(&src, world).expect("compiles")
}

#[test]
fn clicking_any_steppable_statement_steps_it_and_others_explain_why_not() {
    let mut s =
        Session::new("a := 1 + 2\nb := 3 + 4\nprint (&stdout, a * b)\n", None).expect("compiles");
    let rows = s.rows();
    assert!(
        rows.iter().any(|r| r.prelude),
        "environment rows are marked"
    );
    let user: Vec<_> = rows.iter().filter(|r| !r.prelude).collect();
    let steppable: Vec<_> = user.iter().filter(|r| r.status.is_steppable()).collect();
    assert!(steppable.len() >= 2, "{user:?}");
    let blocked = user
        .iter()
        .find(|r| !r.status.is_steppable())
        .expect("a blocked row");
    let err = s.step_stmt(blocked.id).unwrap_err();
    assert!(
        err.contains("cannot step")
            && err.contains(&blocked.status.to_string().replace("waiting: ", "")),
        "{err}"
    );
    // Step the last steppable first: order does not matter.
    let last = steppable.last().expect("one").id;
    s.step_stmt(last).expect("steps");
    assert_eq!(s.history().len(), 1);
    assert_eq!(
        user.iter()
            .filter(|r| r.text.contains("add"))
            .map(|r| r.line)
            .collect::<Vec<_>>(),
        vec![Some(1), Some(2)],
        "rows map to source lines"
    );
    while s.round().is_ok() {}
    assert_eq!(s.output(), "21\n");
}

#[test]
fn tasks_wait_for_the_user_and_hand_resolutions_are_validated() {
    let mut s = example("city_excursions");
    let mut rounds = 0;
    while s.pending().is_empty() {
        s.round().expect("the program stalled before dispatching");
        rounds += 1;
    }
    assert!(rounds > 0);
    let call = s.pending()[0].1.clone();
    let label = s.pending_labels()[0].clone();
    assert!(call.contains("get_cities_in"), "{call}");
    assert!(
        s.resolve_with(&label, "[\"Honolulu\"").is_err(),
        "a broken expression is refused"
    );
    assert!(s
        .resolve_with(&label, "fun x: y")
        .unwrap_err()
        .contains("not a closed OPAL expression"));
    s.resolve_with(&label, "[\"Lima\"]")
        .expect("a list literal is accepted");
    // Run to the end, resolving what remains from the world file.
    for _ in 0..10_000 {
        if s.round().is_err() {
            let p = s.pending_labels();
            if p.is_empty() {
                break;
            }
            for l in p {
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
        s.round().expect("a round");
    }
    let label = s.pending_labels()[0].clone();
    assert_eq!(
        s.choices(&label),
        vec!["true".to_string(), "false".to_string()]
    );
    s.resolve_with(&label, "false").expect("pick");
    while s.round().is_ok() {}
    assert_eq!(s.output(), "tails\n");
}

#[test]
fn time_travel_goes_back_and_forward_and_a_new_step_drops_the_future() {
    let mut s = example("fork_join");
    let start = s.machine().print_term(false);
    for _ in 0..3 {
        s.round().expect("a round");
    }
    let after3 = s.machine().print_term(false);
    assert!(s.back() && s.back() && s.back());
    assert!(!s.back(), "nothing before the start");
    assert_eq!(s.machine().print_term(false), start);
    assert!(s.forward() && s.forward() && s.forward());
    assert_eq!(s.machine().print_term(false), after3);
    assert!(s.back());
    s.round().expect("a round");
    assert_eq!(s.history().len(), 3, "the old third round was replaced");
    assert!(!s.forward());
    s.restart();
    assert_eq!((s.position(), s.machine().print_term(false)), (0, start));
}

#[test]
fn cbv_and_lazy_follow_their_strategies() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/diverge.opal"
    ))
    .expect("diverge");
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
        let _ = opp.round();
    }
    assert_eq!(opp.output(), "foo\n", "opportunistic prints foo");
}

/// Runs to the end by rounds, resolving from the world (or trace) whenever nothing can step.
fn finish(s: &mut Session) {
    for _ in 0..100_000 {
        if s.round().is_err() {
            if s.pending().is_empty() {
                return;
            }
            s.resolve_all().expect("resolves");
        }
    }
    panic!("did not finish");
}

#[test]
fn a_saved_session_loads_back_to_the_same_state_and_refuses_another_program() {
    let mut s = example("city_excursions");
    s.round().expect("round");
    s.round().expect("round");
    while s.pending().is_empty() {
        s.round().expect("round");
    }
    let label = s.pending_labels()[0].clone();
    s.resolve_with(&label, "[\"Lima\", \"Quito\"]")
        .expect("by hand");
    s.round().expect("round");
    s.back();
    let json = s.to_json();
    let (term, pos, total) = (
        s.machine().print_term(false),
        s.position(),
        s.actions().len(),
    );
    let mut t = example("city_excursions");
    t.load_json(&json).expect("loads");
    assert_eq!(
        (
            t.machine().print_term(false),
            t.position(),
            t.actions().len()
        ),
        (term, pos, total)
    );
    assert!(t.forward(), "the future after the position is kept");
    let mut other = example("fork_join");
    let err = other.load_json(&json).unwrap_err();
    assert!(err.contains("different text"), "{err}");
    assert!(
        other
            .load_json("{ not json")
            .unwrap_err()
            .contains("line 1"),
        "a broken file names where"
    );
    assert_eq!(other.position(), 0, "a refused session changes nothing");
}

#[test]
fn time_travel_across_checkpoints_replays_exactly() {
    let mut s = example("tree_of_thoughts");
    let mut terms = vec![s.machine().print_term(false)];
    for _ in 0..60 {
        let r = s
            .step_cbv()
            .or_else(|_| s.resolve_all().map(|n| n.to_string()));
        if r.is_err() {
            break;
        }
        terms.push(s.machine().print_term(false));
    }
    assert!(terms.len() > 40, "{}", terms.len());
    for i in (0..terms.len()).rev().step_by(7) {
        s.goto(i).expect("goto");
        assert_eq!(s.machine().print_term(false), terms[i], "state {i}");
    }
}

#[test]
fn confluence_every_order_reaches_the_same_final_term() {
    for name in [
        "city_excursions",
        "fork_join",
        "tree_of_thoughts",
        "fig2b_core",
    ] {
        let mut s = example(name);
        for _ in 0..5 {
            if s.round().is_err() {
                break;
            }
        }
        for order in [
            Order::Reversed,
            Order::Random(3),
            Order::Random(11),
            Order::Cbv,
            Order::Rounds,
        ] {
            let c = s.confluence(order);
            assert!(!c.truncated, "{name}");
            assert!(
                c.identical(),
                "{name} under {}:\n{}\n---\n{}",
                c.order,
                c.mine,
                c.theirs
            );
            assert!(!c.mine_output.is_empty(), "{name} printed something");
        }
    }
}

#[test]
fn confluence_keeps_the_users_hand_resolutions() {
    let mut s = example("city_excursions");
    while s.pending().is_empty() {
        s.round().expect("round");
    }
    let label = s.pending_labels()[0].clone();
    s.resolve_with(&label, "[\"Lima\"]").expect("by hand");
    let c = s.confluence(Order::Reversed);
    assert!(c.identical());
    assert_eq!(
        c.theirs_output, "Lima\nWalk around.\n",
        "the other order used the hand resolution"
    );
}

#[test]
fn practice_checks_predictions_and_explains() {
    let s =
        Session::new("a := 1 + 2\nb := 3 + 4\nprint (&stdout, a * b)\n", None).expect("compiles");
    let rows = s.rows();
    let steppable: BTreeSet<_> = rows
        .iter()
        .filter(|r| r.status.is_steppable())
        .map(|r| r.key)
        .collect();
    assert!(s.check(Quiz::Steppable, &steppable).correct());
    let blocked = rows
        .iter()
        .find(|r| !r.status.is_steppable() && !r.prelude)
        .expect("blocked");
    let mut guess = steppable.clone();
    let missed = guess.pop_first().expect("one");
    let missed = rows
        .iter()
        .find(|r| r.key == missed)
        .expect("row")
        .label
        .clone();
    guess.insert(blocked.key);
    let v = s.check(Quiz::Steppable, &guess);
    assert!(!v.correct());
    assert_eq!(
        v.missed.iter().map(|m| m.0.clone()).collect::<Vec<_>>(),
        vec![missed]
    );
    assert_eq!(v.wrong[0].0, blocked.label);
    assert!(
        v.wrong[0].1.starts_with("waiting") || v.wrong[0].1.starts_with("value"),
        "{:?}",
        v.wrong
    );
    // Nothing dispatches yet: ticking a reduce-call as a dispatch is wrong, with the rule named.
    let v = s.check(Quiz::Dispatch, &steppable);
    assert!(
        v.wrong.iter().all(|(_, why)| why.contains("not dispatch")),
        "{v:?}"
    );
}

#[test]
fn run_until_stops_at_the_event() {
    let mut s = example("fork_join");
    let r = s
        .run_until(Strategy::Opportunistic, &Until::Dispatch, false)
        .expect("dispatches");
    assert!(r.contains("dispatch"), "{r}");
    assert!(s.last_steps().iter().any(|t| t.rule == Rule::Dispatch));
    let err = s.run_until(Strategy::Opportunistic, &Until::Resolve, false);
    assert!(s.last_steps().iter().any(|t| t.rule == Rule::Resolve) || err.is_err());
    s.restart();
    let row = s
        .rows()
        .into_iter()
        .rev()
        .find(|r| !r.prelude)
        .expect("a row");
    let target = row.label.clone();
    let r = s.run_until(Strategy::Cbv, &Until::Steps(row.key), true);
    assert!(
        s.history()
            .iter()
            .any(|h| h.contains(&format!("at {target}")))
            || r.is_err(),
        "{r:?}"
    );
    let calls = s.calls().to_vec();
    assert!(
        calls.iter().all(|c| c.dispatched_step < s.position()),
        "{calls:?}"
    );
}

#[test]
fn a_recorded_trace_resolves_tasks_and_streams_deliver_chunk_by_chunk() {
    use opal_core::machine::run::{run, Options, Strategy as RunStrategy};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/");
    let src = std::fs::read_to_string(format!("{dir}streaming.opal")).expect("example");
    let world = opal_core::world::parse_world(
        &std::fs::read_to_string(format!("{dir}streaming.world.toml")).expect("world"),
    )
    .expect("parses");
    let c = opal_core::compile(&src);
    let mut m = opal_core::machine::Machine::new(&c.program);
    let mut o = Options::new(RunStrategy::Opportunistic);
    o.world = Some(world);
    o.record = true;
    o.source_sha256 = opal_core::machine::trace::sha256_hex(&src);
    let report = run(&mut m, o, Box::new(|_, _| {}), None);
    assert!(report.trace.events.len() >= 3, "{:?}", report.trace.events);
    let mut s = Session::new(&src, None).expect("compiles");
    s.set_trace(report.trace.clone()).expect("same program");
    finish(&mut s);
    assert_eq!(s.output(), "a\nm\nz\n");
    let streamed = s
        .calls()
        .iter()
        .find(|c| c.ext == "cf")
        .expect("the stream's call");
    assert!(
        streamed.resolved_step.is_some(),
        "the stream's last chunk closes its call"
    );
    let mut other = Session::new("x := 1\n", None).expect("compiles");
    assert!(other
        .set_trace(report.trace)
        .unwrap_err()
        .contains("different program"));
}

#[test]
fn the_timeline_shows_parallel_calls_and_a_critical_path() {
    let mut s = example("fork_join");
    finish(&mut s);
    let calls: Vec<_> = s.calls().iter().filter(|c| !c.pure).collect();
    assert!(calls.len() >= 2, "{calls:?}");
    let path = critical_path(&calls);
    assert!(!path.is_empty() && path.len() <= calls.len());
    let flight = in_flight(&calls, Axis::Steps, s.position() as f64);
    assert!(
        flight.iter().map(|f| f.1).max().unwrap_or(0) >= 2,
        "fork_join runs calls in parallel: {flight:?}"
    );
    let csv = opal_debugger::timeline::csv(s.calls());
    assert_eq!(csv.lines().count(), s.calls().len() + 1, "{csv}");
}

#[test]
fn run_until_gives_up_on_a_diverging_program_and_keeps_what_it_did() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/diverge.opal"
    ))
    .expect("diverge");
    let mut s = Session::new(&src, None).expect("compiles");
    s.step_budget = 500;
    let err = s
        .run_until(Strategy::Cbv, &Until::Dispatch, true)
        .unwrap_err();
    assert!(
        err.contains("did not reach the goal within 500 steps"),
        "{err}"
    );
    assert_eq!(s.position(), 500, "cbv takes one step per action");
    assert!(s.back(), "the run is in the history");
}

/// Issue 31: resolving every pending task (W) is one step of the history, which Back undoes
/// whole and a saved session keeps (W on 999 pending tasks made 999 steps).
#[test]
fn resolving_all_pending_tasks_is_one_history_step() {
    let mut s = example("city_excursions");
    for _ in 0..200 {
        if s.pending().len() >= 2 {
            break;
        }
        if s.round().is_err() {
            s.resolve_all().expect("resolves");
        }
    }
    let pending = s.pending_labels();
    assert!(pending.len() >= 2, "{pending:?}");
    let (at, rows) = (s.position(), s.rows().len());
    assert_eq!(s.resolve_all(), Ok(pending.len()));
    assert_eq!(s.position(), at + 1, "{:?}", s.history());
    let said = s.history().last().cloned().unwrap_or_default();
    assert_eq!(said, format!("resolved {} pending tasks", pending.len()));
    let after = s.to_json();
    assert!(s.back());
    assert_eq!(
        (s.pending_labels(), s.rows().len()),
        (pending.clone(), rows)
    );
    assert!(s.forward());
    assert!(s.pending_labels().iter().all(|l| !pending.contains(l)));
    let mut loaded = example("city_excursions");
    loaded.load_json(&after).expect("loads");
    assert_eq!(loaded.position(), s.position());
    assert_eq!(
        (loaded.history(), loaded.pending_labels()),
        (s.history(), s.pending_labels())
    );
    finish(&mut s);
    assert!(s.output().contains("Honolulu"), "{}", s.output());
}

/// Issue 31: lazy said "done" at step 0 with nothing shown, and no reason. It says why: the
/// result is already a value, and prints that nothing needs do not run.
#[test]
fn lazy_done_at_once_says_why_nothing_ran() {
    let mut s = example("city_excursions");
    let e = s.step_lazy().expect_err("nothing to compute");
    assert!(e.contains("the result, (), is a value"), "{e}");
    assert!(e.contains("prints that nothing needs do not run"), "{e}");
    assert_eq!(s.position(), 0);
}

// The source map (issue 31): a breakpoint's line stops once per run of its statement, the
// locals are the program's names with their values, and the console evaluates over them.

/// Runs `s` to the end under `strategy`, resolving from the world file; calls `stop` before
/// each action that begins a run on `line`, with the statement it begins with.
fn run_with_breakpoint(
    s: &mut Session,
    strategy: Strategy,
    line: usize,
    stop: &mut dyn FnMut(&Session, opal_core::machine::StmtId, Instance),
) {
    for _ in 0..100_000 {
        for (st, run) in s.beginning(strategy) {
            if run.line == line {
                stop(s, st, run);
            }
        }
        if s.advance(strategy).is_err() && s.resolve_all().map_or(true, |n| n == 0) {
            return;
        }
    }
    panic!("did not end");
}

#[test]
fn a_breakpoint_line_stops_once_per_loop_iteration_with_the_loop_variable_by_name() {
    // (Lazy evaluation runs no loop body here: the result is `()` and nothing needs the
    // prints, docs/debugger.md.)
    for strategy in [Strategy::Opportunistic, Strategy::Cbv] {
        let mut s = example("city_excursions");
        let mut cities = Vec::new();
        run_with_breakpoint(&mut s, strategy, 8, &mut |s, st, _| {
            let locals = s.locals(st);
            let names: Vec<&str> = locals.iter().map(|l| l.name.as_str()).collect();
            assert_eq!(names, ["city", "excursions"], "{strategy:?}");
            let city = locals
                .iter()
                .find(|l| l.name == "city")
                .expect("city in scope");
            cities.push(city.value.clone());
            assert_eq!(
                s.evaluate(Some(st), "city").as_deref(),
                Ok(city.value.as_str())
            );
        });
        assert_eq!(
            cities,
            ["\"Honolulu\"", "\"Jakarta\"", "\"Auckland\"", "\"Suva\""],
            "{strategy:?}"
        );
    }
}

/// All paths (the window's graph of every reduction order) shows the program's names: a
/// state's term reads `c@…` where the core has the prelude's variable that replaced `c`.
#[test]
fn every_paths_states_read_the_programs_names() {
    use opal_core::machine::explore::{explore, Mode, Options};
    let src = "for c in [\"a\", \"b\"]:\n    print (&stdout, c)\n";
    let compiled = opal_core::compile_with(src, None);
    let mut m = opal_core::machine::Machine::new(&compiled.program);
    m.keep_source_names(&compiled.program);
    let opts = Options {
        mode: Mode::Full,
        max_states: 5_000,
        graph: true,
    };
    let r = explore(&m, None, opts);
    // The same exploration without the names: the same states; once reduce-alias replaced
    // `c` by the list's element variable, only the named terms still read `c@…`.
    let plain = explore(
        &opal_core::machine::Machine::new(&compiled.program),
        None,
        opts,
    );
    assert_eq!(plain.graph.len(), r.graph.len(), "the same states");
    let with_c = |g: &[opal_core::machine::explore::StateNode]| {
        g.iter().filter(|s| s.term.contains(" c@")).count()
    };
    assert!(
        with_c(&r.graph) > with_c(&plain.graph),
        "{} named states read c, {} core ones",
        with_c(&r.graph),
        with_c(&plain.graph)
    );
    // As the window shows them: marks, not label paths (`c#1`, `c#2` for the two iterations).
    let terms: Vec<String> = r.graph.iter().map(|s| s.term.clone()).collect();
    let shown = opal_debugger::marked_terms(&terms);
    assert!(shown.iter().all(|t| !has_label_path(t)), "{shown:?}");
    assert!(shown.iter().any(|t| t.contains(" c#2")), "{shown:?}");
}

/// Does `text` hold a name with a label path (`city@5.6.6`, `t'2@7.9`)?
fn has_label_path(text: &str) -> bool {
    text.match_indices('@').any(|(i, _)| {
        let after = text[i + 1..].chars().next();
        let before = text[..i].chars().last();
        after.is_some_and(|c| c.is_ascii_digit())
            && before.is_some_and(|c| c.is_alphanumeric() || c == '\'' || c == '_')
    })
}

/// What the lecturer projects (issue 31): at every step of CityExcursions and Tree of Thoughts,
/// every row, its status and the before/after view name variables as the program did or with a
/// short mark, never with a label path, and labels are at most three levels or a mark `ℓk`.
#[test]
fn views_never_show_a_label_path() {
    for name in ["city_excursions", "poppy_tree_of_thoughts"] {
        let mut s = example(name);
        let mut marked = 0;
        for _ in 0..400 {
            for r in s.rows() {
                let status = r.status.to_string();
                assert!(!has_label_path(&r.text), "{name}: {}", r.text);
                assert!(!has_label_path(&status), "{name}: {status}");
                // What the core view alone shows may carry its (abbreviated) label.
                if s.is_machinery(r.id) || s.is_folded(r.id) {
                    continue;
                }
                // A stream's rest reads as its call (`2+1`), as the graph's node does.
                let call = r.label.split_once('+').map_or(r.label.as_str(), |(c, _)| c);
                let short = call.starts_with('ℓ') || call.matches('.').count() <= 2;
                assert!(short, "{name}: label {}", r.label);
                marked += usize::from(r.label.starts_with('ℓ'));
            }
            if let Some(v) = s.before_last() {
                for r in v.before.iter().chain(&v.after) {
                    assert!(!has_label_path(&r.text), "{name}: {}", r.text);
                }
            }
            if s.round().is_err() && s.resolve_all().map_or(true, |n| n == 0) {
                break;
            }
        }
        assert_eq!(
            s.standing(),
            opal_debugger::Standing::Finished,
            "{name} finished"
        );
        assert!(marked > 0, "{name} has deep labels, shown by marks");
    }
}

/// A stream's pending rest is the same call in every view (issue 31): the labeled term shows
/// it by its call's label and the chunks arrived (`2+1`), the call graph's node by the call's
/// label; the label typed back finds it.
#[test]
fn a_streams_rest_reads_as_its_call() {
    let mut s = example("streaming");
    let mut seen = Vec::new();
    for _ in 0..60 {
        let nodes = s.call_graph(false).nodes;
        for r in s.rows() {
            let Some((call, chunks)) = r.label.split_once('+') else {
                continue;
            };
            assert!(
                nodes.iter().any(|n| n.label == call),
                "{}: {:?}",
                r.label,
                nodes.iter().map(|n| &n.label).collect::<Vec<_>>()
            );
            assert_eq!(s.parse_label(&r.label).map(|l| l.key()), Ok(r.key));
            seen.push(chunks.parse::<usize>().expect("a count"));
        }
        if s.round().is_err() && s.resolve_all().map_or(true, |n| n == 0) {
            break;
        }
    }
    seen.dedup();
    assert!(
        seen.len() >= 2 && seen.windows(2).all(|w| w[0] < w[1]),
        "{seen:?}"
    );
}

/// Marks go only to statements the labeled term shows: a whole run of CityExcursions gives
/// ℓ87 at most, where hidden temporaries and the prelude's steps took marks up to ℓ106.
#[test]
fn label_marks_stay_few() {
    let mut s = example("city_excursions");
    let mut most = 0;
    for _ in 0..400 {
        for r in s.rows() {
            if let Some(k) = r
                .label
                .strip_prefix('ℓ')
                .and_then(|k| k.parse::<usize>().ok())
            {
                most = most.max(k);
            }
        }
        if s.round().is_err() && s.resolve_all().map_or(true, |n| n == 0) {
            break;
        }
    }
    assert_eq!(s.standing(), opal_debugger::Standing::Finished);
    assert!((1..=90).contains(&most), "the highest mark: ℓ{most}");
}

/// A program variable a prelude function is still computing reads as the call the program
/// made (`cands#1 := fold (front#2, cand#1, for_body#1) [running]`), never as the prelude's
/// insides (`l#3 (init#4, each#3)`), in every row the labeled term shows by default (issue 31).
#[test]
fn rows_show_the_programs_calls_not_the_preludes_insides() {
    // Names only the prelude gives (fold's list and function, a cons cell's parts).
    let prelude_names = ["l#", "each#", "tl#", "hd#"];
    let mut running = 0;
    for name in [
        "tree_of_thoughts",
        "poppy_tree_of_thoughts",
        "city_excursions",
    ] {
        let mut s = example(name);
        for _ in 0..400 {
            for r in s.rows() {
                if r.prelude || s.is_machinery(r.id) || s.is_folded(r.id) {
                    continue;
                }
                let insides = prelude_names.iter().any(|p| {
                    r.text.match_indices(p).any(|(i, _)| {
                        !r.text[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_')
                    })
                });
                assert!(!insides, "{name}: {}", r.text);
                running += usize::from(r.text.ends_with("[running]"));
            }
            if s.round().is_err() && s.resolve_all().map_or(true, |n| n == 0) {
                break;
            }
        }
        assert_eq!(s.standing(), opal_debugger::Standing::Finished, "{name}");
    }
    assert!(running > 0, "some rows read as a running call");
}

/// A loop's body reads with the paper's pattern for its parameter (`fun (stdout, city): …`,
/// as §2 writes it), not the desugarer's `fun p'1:` and its projections; through a whole run.
#[test]
fn a_loop_body_reads_with_its_parameters_pattern() {
    let mut s = example("city_excursions");
    let mut seen = false;
    for _ in 0..400 {
        for r in s.rows() {
            if r.prelude || s.is_machinery(r.id) || s.is_folded(r.id) {
                continue;
            }
            assert!(!r.text.contains("fun p'"), "{}", r.text);
            seen |= r.text.contains("for_body := fun (stdout, city): …");
        }
        if s.round().is_err() && s.resolve_all().map_or(true, |n| n == 0) {
            break;
        }
    }
    assert!(seen, "the loop body's row was shown");
}

/// A loop iteration's variable that the calculus made a copy of the loop's machinery
/// (`city@5.6.6 := x'1@5.6`) reads as its value, never as the loop's call running.
#[test]
fn an_iterations_variable_reads_as_its_value_not_the_loop() {
    let mut s = example("city_excursions");
    let mut seen = Vec::new();
    for _ in 0..400 {
        for r in s.rows() {
            if r.prelude || s.is_machinery(r.id) || s.is_folded(r.id) {
                continue;
            }
            let program_var = r.text.starts_with("city#") || r.text.starts_with("excursions#");
            assert!(!(program_var && r.text.contains("fold")), "{}", r.text);
            seen.push(r.text);
        }
        if s.round().is_err() && s.resolve_all().map_or(true, |n| n == 0) {
            break;
        }
    }
    // In Tree of Thoughts, a loop iteration's `states := prj 2 acc'2` is not the loop's
    // result: only a call reads `[running]`.
    let mut s = example("poppy_tree_of_thoughts");
    let mut inside = 0;
    for _ in 0..400 {
        for r in s.rows() {
            if r.prelude || s.is_machinery(r.id) || s.is_folded(r.id) {
                continue;
            }
            let rhs = r.core.lines().next().and_then(|l| l.split_once(" := "));
            let rhs = rhs.map_or("", |(_, o)| o);
            if r.text.ends_with("[running]") {
                assert!(
                    rhs.contains(' ') && !rhs.starts_with("prj "),
                    "{} ({rhs})",
                    r.text
                );
            }
            inside += usize::from(r.text.ends_with("[inside fold]"));
        }
        if s.round().is_err() && s.resolve_all().map_or(true, |n| n == 0) {
            break;
        }
    }
    assert!(inside > 0);
    for want in [
        "city#1 := <\"Honolulu\">",
        "excursions#1 := <\"Located in the US state of Hawaii: surf at Waikiki.\">",
    ] {
        assert!(seen.iter().any(|t| t == want), "{want}");
    }
}
