//! What a lecturer needs of the engine (issue 16): long work in slices with a budget and
//! cancellation, streams and partial answers delivered chunk by chunk, the call graph growing
//! and collapsing, cheap labels however deep they grow, values read back, a clear standing.

use opal_debugger::graph::CallState;
use opal_debugger::session::{Order, RowStatus, Session, Standing, Strategy, Until};
use opal_debugger::{JobSpec, Poll};
use std::collections::HashSet;
use std::time::{Duration, Instant};

fn example(name: &str) -> Session {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/");
    let src = std::fs::read_to_string(format!("{dir}{name}.opal")).expect("example");
    let world = std::fs::read_to_string(format!("{dir}{name}.world.toml"))
        .ok()
        .map(|w| opal_core::world::parse_world(&w).expect("world"));
    Session::new(&src, world).expect("compiles")
}

/// Rounds until a task is pending.
fn until_pending(s: &mut Session) {
    for _ in 0..100 {
        if !s.pending().is_empty() {
            return;
        }
        s.round().expect("a round");
    }
    panic!("nothing was dispatched");
}

#[test]
fn a_streamed_world_response_arrives_one_chunk_at_a_time_and_the_call_graph_follows() {
    let mut s = example("city_excursions");
    until_pending(&mut s);
    let g = s.call_graph(false);
    assert_eq!(g.nodes.len(), 1, "{g:?}");
    assert_eq!(g.nodes[0].call, Some(CallState::Pending));
    assert!(
        g.nodes[0].title.starts_with("get_cities_in \"Oceania\""),
        "{}",
        g.nodes[0].title
    );
    let cities = g.nodes[0].key;
    let label = s.pending_labels()[0].clone();
    let msg = s.resolve_from_world(&label).expect("the world answers");
    assert!(msg.contains("[\"Honolulu\"] + …"), "{msg}");
    // The first chunk arrived: the rest is a new pending task of the same call.
    s.round().expect("resolve");
    let g = s.call_graph(false);
    let node = g
        .nodes
        .iter()
        .find(|n| n.key == cities)
        .expect("the stream's node stays");
    assert_eq!(node.call, Some(CallState::Streaming), "{node:?}");
    assert!(node.detail.contains("Honolulu"), "{}", node.detail);
    // Rounds until the excursion for Honolulu is dispatched, while the cities still stream.
    let mut dispatched = false;
    for _ in 0..40 {
        if s.round().is_err() {
            break;
        }
        let g = s.call_graph(false);
        if let Some(i) = g.nodes.iter().position(|n| {
            n.title.starts_with("get_excursions_in \"Honolulu\"")
                && n.call == Some(CallState::Pending)
        }) {
            let from = g
                .nodes
                .iter()
                .position(|n| n.key == cities)
                .expect("cities still streaming");
            assert!(
                g.edges.contains(&(from, i)),
                "the excursion's argument came from the cities call: {:?}",
                g.edges
            );
            dispatched = true;
            break;
        }
    }
    assert!(
        dispatched,
        "an excursion is dispatched while the cities are still streaming (Fig. 1)"
    );
    // Everything resolved from the world, one delivery at a time: the graph collapses to
    // nothing and the output is what `opal run` prints.
    while s
        .run_until(Strategy::Opportunistic, &Until::End, true)
        .is_ok()
        && s.standing() != Standing::Finished
    {}
    assert_eq!(
        s.standing(),
        Standing::Finished,
        "{}",
        s.machine().print_term(false)
    );
    assert!(s.call_graph(false).nodes.is_empty());
    assert_eq!(
        s.output(),
        "Honolulu\nLocated in the US state of Hawaii: surf at Waikiki.\nJakarta\nIn Jakarta, you can find the National Monument.\nAuckland\nWalk around.\nSuva\nWalk around.\n"
    );
    let call = s
        .calls()
        .iter()
        .find(|c| c.ext == "get_cities_in")
        .expect("recorded");
    assert_eq!(call.chunks.len(), 4, "{:?}", call.chunks);
}

#[test]
fn a_partial_answer_typed_by_hand_leaves_the_rest_pending() {
    let mut s = example("city_excursions");
    until_pending(&mut s);
    let label = s.pending_labels()[0].clone();
    assert!(s
        .resolve_with(&label, "[x, ...]")
        .unwrap_err()
        .contains("list of literals"));
    s.resolve_with(&label, "[\"Ho\", ...]")
        .expect("a partial answer");
    s.round().expect("resolve");
    let rows = s.rows();
    assert!(
        rows.iter()
            .any(|r| r.text.contains("[\"Ho\"] + <<get_cities_in \"Oceania\">>")),
        "the partial list reads as in the paper's Fig. 10: {:#?}",
        rows.iter().map(|r| &r.text).collect::<Vec<_>>()
    );
    let rest = s.pending_labels();
    assert_eq!(rest.len(), 1, "the rest is a new pending task");
    s.resolve_with(&rest[0], "[\"Lima\"]").expect("the rest");
    while s
        .run_until(Strategy::Opportunistic, &Until::End, true)
        .is_ok()
        && s.standing() != Standing::Finished
    {}
    assert_eq!(s.output(), "Ho\nWalk around.\nLima\nWalk around.\n");
}

/// §3.4's program never finishes: every long job ends at its step budget, works in slices
/// that return within a frame, and Esc (cancel) stops it.
#[test]
fn long_jobs_on_a_divergent_program_run_in_slices_within_a_budget() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/diverge.opal"
    ))
    .expect("diverge");
    let mut s = Session::new(&src, None).expect("compiles");
    s.step_budget = 20_000;
    s.start(JobSpec::Confluence(Order::Reversed))
        .expect("starts");
    assert!(
        s.start(JobSpec::Confluence(Order::Cbv))
            .unwrap_err()
            .contains("Esc"),
        "one job at a time"
    );
    let mut slices = 0;
    let mut longest = Duration::ZERO;
    let end = loop {
        let t = Instant::now();
        let p = s.poll(Duration::from_millis(8)).expect("a job");
        longest = longest.max(t.elapsed());
        slices += 1;
        if let Poll::Done(r) = p {
            break r;
        }
    };
    assert!(slices > 1, "the work was sliced");
    // A slice overruns its 8 ms only by one unit of work (generous: debug build, noisy host).
    assert!(longest < Duration::from_millis(500), "{longest:?}");
    let msg = end.expect("a confluence that gives up is still an answer");
    assert!(msg.contains("did not finish within 20000 steps"), "{msg}");
    let c = s.take_confluence().expect("a result");
    assert!(c.truncated);
    assert!(
        c.mine_output.contains("foo"),
        "opportunistic rounds print foo"
    );
    // Cancelled run until: the actions taken so far stay.
    s.start(JobSpec::RunUntil {
        strategy: Strategy::Cbv,
        until: Until::Dispatch,
        auto_resolve: false,
    })
    .expect("starts");
    s.poll(Duration::from_millis(5));
    let at = s.position();
    assert!(s
        .cancel()
        .expect("a job")
        .starts_with("cancelled run (cbv)"));
    assert!(s.busy().is_none());
    assert_eq!(s.position(), at);
}

/// Labels deepen one level per iteration of §3.4's loop; views stay O(1) per label.
#[test]
fn deep_labels_are_abbreviated_and_history_stays_small() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/diverge.opal"
    ))
    .expect("diverge");
    let mut s = Session::new(&src, None).expect("compiles");
    s.step_budget = 6_000;
    let _ = s.run_until(Strategy::Cbv, &Until::Dispatch, false);
    assert_eq!(s.position(), 6_000);
    let deepest = s
        .statements()
        .into_iter()
        .max_by_key(|x| s.full_label(*x).len())
        .expect("statements");
    let row = s.row(deepest);
    assert!(
        s.full_label(deepest).len() > 1000,
        "labels deepened: {}",
        s.full_label(deepest).len()
    );
    // A deep label shows as its session mark (`ℓ5983`), the whole label on hover.
    assert!(
        row.label.len() < 12 && row.label.starts_with('ℓ'),
        "{}",
        row.label
    );
    assert!(s.label_tip(deepest).contains("levels deep"));
    assert_eq!(
        s.parse_label(&row.label).map(|l| l.key()),
        Ok(s.key_of(deepest))
    );
    assert!(
        row.text.len() < 200,
        "names are abbreviated too: {}",
        row.text
    );
    let history: usize = s.history().iter().map(|h| h.len()).sum();
    assert!(
        history < 6_000 * 60,
        "history holds short labels: {history} bytes"
    );
    assert!(
        s.checkpoints() <= 40,
        "checkpoints thin out: {}",
        s.checkpoints()
    );
    // Time travel across thinned checkpoints is still exact.
    let term = s.machine().print_term(false);
    s.goto(1234).expect("goto");
    s.goto(6_000).expect("goto");
    assert_eq!(s.machine().print_term(false), term);
}

#[test]
fn the_standing_says_finished_waiting_or_stuck() {
    let mut s = Session::new("x := 1 + 2\nx\n", None).expect("compiles");
    assert!(matches!(s.standing(), Standing::Steppable(_)));
    while s.round().is_ok() {}
    assert_eq!(s.standing(), Standing::Finished);
    assert_eq!(
        s.round().unwrap_err(),
        "finished: the term is in normal form"
    );
    let mut w = example("fork_join");
    until_pending(&mut w);
    while w.round().is_ok() {}
    assert!(
        matches!(w.standing(), Standing::Waiting(_)),
        "{:?}",
        w.standing()
    );
    assert!(
        w.round().unwrap_err().contains("pending task"),
        "a round says what it waits for"
    );
    let mut stuck = Session::new("f := fun x: prj 1 x\nf 3\n", None).expect("compiles");
    while stuck.round().is_ok() {}
    assert!(
        matches!(stuck.standing(), Standing::Stuck(_)),
        "{:?}",
        stuck.standing()
    );
}

#[test]
fn the_stepper_shows_the_redex_before_and_what_replaced_it_after() {
    let mut s = Session::new("f := fun x: x + 1\ny := f 2\ny\n", None).expect("compiles");
    assert!(s.before_last().is_none());
    let call = s
        .rows()
        .into_iter()
        .find(|r| r.status == RowStatus::Steppable(opal_core::machine::Rule::ReduceCall))
        .expect("a call to inline");
    s.step_stmt(call.id).expect("steps");
    let v = s.before_last().expect("a last step");
    assert!(v.what.starts_with("reduce-call"), "{}", v.what);
    let before: Vec<_> = v.before.iter().filter(|r| r.marked).collect();
    assert_eq!(before.len(), 1, "{v:?}");
    assert!(
        before[0].text.contains("f 2") || before[0].text.contains(":= f "),
        "{before:?}"
    );
    let after: Vec<_> = v.after.iter().filter(|r| r.marked).collect();
    assert!(after.len() >= 2, "the inlined body is highlighted: {v:?}");
    assert!(
        after
            .iter()
            .all(|r| r.label.starts_with(&format!("{}.", call.label))),
        "{after:?}"
    );
}

#[test]
fn loading_a_session_is_a_job_that_restores_on_failure_or_cancel() {
    let mut s = example("fork_join");
    for _ in 0..6 {
        if s.round().is_err() {
            s.resolve_all().expect("resolves");
        }
    }
    let json = s.to_json();
    let term = s.machine().print_term(false);
    let mut t = example("fork_join");
    t.round().expect("a round");
    t.start(JobSpec::Load(json.clone())).expect("starts");
    assert!(t.cancel().is_some());
    assert_eq!(
        t.position(),
        1,
        "a cancelled load leaves the session as it was"
    );
    t.run_job(JobSpec::Load(json)).expect("loads");
    assert_eq!(t.machine().print_term(false), term);
}

#[test]
fn a_big_fan_out_groups_into_a_readable_number_of_nodes() {
    let mut src = String::from("extern slow\nl := [");
    for i in 0..300 {
        src.push_str(&format!("{}{i}", if i > 0 { ", " } else { "" }));
    }
    src.push_str("]\nfor x in l:\n    y := slow x\n    print (&stdout, y)\n");
    let mut s = Session::new(&src, None).expect("compiles");
    let _ = s.run_until(Strategy::Opportunistic, &Until::End, false);
    let g = s.call_graph(false);
    assert_eq!(g.nodes.len(), 300, "one node per dispatched call");
    assert!(g.nodes.iter().all(|n| n.call == Some(CallState::Pending)));
    let stmts = s.statement_graph(false);
    let grouped = s.grouped(&stmts, 60, &HashSet::new(), &HashSet::new());
    assert!(grouped.nodes.len() <= 60, "{}", grouped.nodes.len());
    let total: usize = grouped.nodes.iter().map(|n| n.members).sum();
    assert_eq!(
        total,
        stmts.nodes.len(),
        "groups account for every statement"
    );
    // Opening a group shows its members (or smaller groups).
    let group = grouped
        .nodes
        .iter()
        .find(|n| n.stmt.is_none() && n.members > 1)
        .expect("a group");
    let open = HashSet::from([group.key]);
    let again = s.grouped(&stmts, 60, &open, &HashSet::new());
    assert!(
        !again.nodes.iter().any(|n| n.key == group.key),
        "the opened group is no longer one node"
    );
}

/// §3.4 under call-by-value: a call stack thousands of frames deep, labels thousands of levels
/// deep. Its statement graph folds to a readable size (grouping used to give up once the
/// labels' total length passed a limit, and the window drew all the statements).
#[test]
fn a_deep_call_stack_folds_into_a_readable_number_of_nodes() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/diverge.opal"
    ))
    .expect("diverge");
    let mut s = Session::new(&src, None).expect("compiles");
    s.step_budget = 20_000;
    let _ = s.run_until(Strategy::Cbv, &Until::Dispatch, false);
    // Every statement (most are `fix`'s machinery, which the default view leaves out).
    let stmts = s.statement_graph(true);
    assert!(stmts.nodes.len() > 5_000, "{}", stmts.nodes.len());
    let hot: HashSet<_> = s.last_steps().iter().map(|t| t.key).collect();
    let grouped = s.grouped(&stmts, 80, &HashSet::new(), &hot);
    assert!(grouped.nodes.len() <= 160, "{}", grouped.nodes.len());
    let total: usize = grouped.nodes.iter().map(|n| n.members).sum();
    assert_eq!(
        total,
        stmts.nodes.len(),
        "groups account for every statement"
    );
}

/// Before anything is dispatched, queued calls already show what they wait for (§4.3's
/// fork/join: both reads wait for the open, the write for both reads).
#[test]
fn queued_calls_have_edges_from_the_calls_they_wait_for() {
    let s = example("fork_join");
    let g = s.call_graph(false);
    let find = |p: &str| {
        g.nodes
            .iter()
            .position(|n| n.title.starts_with(p))
            .unwrap_or_else(|| panic!("{p}: {g:?}"))
    };
    assert!(
        g.nodes.iter().all(|n| n.call.is_some_and(|c| c.queued())),
        "nothing dispatched yet"
    );
    let (open, read, write) = (find("open (stdout"), find("read (thread2"), find("write"));
    assert!(g.edges.contains(&(open, read)), "{:?}", g.edges);
    assert!(g.edges.contains(&(read, write)), "{:?}", g.edges);
}

/// An edge through a hidden pure call: in fork_join, `open (thread'1, "bar.txt")` depends on
/// the first `open` through `fork`, which the call graph hides unless pure calls are shown.
#[test]
fn call_graph_edges_go_through_hidden_pure_calls() {
    let mut s = example("fork_join");
    until_pending(&mut s);
    s.round().expect("a round");
    let g = s.call_graph(false);
    let find = |t: &str| {
        g.nodes
            .iter()
            .position(|n| n.title.starts_with(t))
            .unwrap_or_else(|| panic!("{t} in {g:?}"))
    };
    let (first, bar) = (find("open (stdout"), find("open (thread"));
    assert!(
        g.edges.contains(&(first, bar)),
        "the second open depends on the first through fork: {:?}",
        g.edges
    );
    assert!(
        g.nodes.iter().all(|n| !n.title.starts_with("fork")),
        "fork stays hidden"
    );
}

/// CityExcursions: each excursion depends on its city, not on the previous excursion (the
/// loop threads `stdout` through a tuple; a projection follows its own component only).
#[test]
fn excursions_do_not_depend_on_each_other() {
    let mut s = example("city_excursions");
    for _ in 0..200 {
        let g = s.call_graph(false);
        let excursions: Vec<usize> = (0..g.nodes.len())
            .filter(|&i| g.nodes[i].title.starts_with("get_excursions_in"))
            .collect();
        if excursions.len() >= 2 {
            for &a in &excursions {
                for &b in &excursions {
                    assert!(
                        !g.edges.contains(&(a, b)),
                        "{} -> {}: {g:?}",
                        g.nodes[a].title,
                        g.nodes[b].title
                    );
                }
            }
            let cities =
                (0..g.nodes.len()).find(|&i| g.nodes[i].title.starts_with("get_cities_in"));
            if let Some(c) = cities {
                assert!(
                    excursions.iter().all(|&e| g.edges.contains(&(c, e))),
                    "each excursion depends on the cities: {:?}",
                    g.edges
                );
            }
            return;
        }
        if let Some(l) = s
            .pending_labels()
            .iter()
            .find(|l| {
                s.pending().iter().any(|(st, c)| {
                    s.machine().label_path(*st) == **l && c.contains("get_cities_in")
                })
            })
            .cloned()
        {
            let _ = s.resolve_from_world(&l);
        }
        s.round().expect("a round");
    }
    panic!("two excursion calls never showed up");
}

/// Issue 31: a library call the desugarer bound to a temporary, waiting for its argument,
/// reads inside the row that uses it (`print (…, "got: " + to_str v)`), as do the lists a
/// program writes; once it can step it has its own row again.
#[test]
fn waiting_library_calls_and_lists_fold_into_their_uses() {
    let src = "extern fetch\nv := fetch \"x\"\nprint f\"got: {v}\"\nn := len [v, v]\nprint n\n";
    let mut s = Session::new(src, None).expect("compiles");
    until_pending(&mut s);
    for _ in 0..20 {
        if s.round().is_err() {
            break;
        }
    }
    let rows = s.rows();
    let hidden =
        |s: &Session, r: &opal_debugger::view::Row| s.is_folded(r.id) || s.is_machinery(r.id);
    let shown: Vec<&str> = rows
        .iter()
        .filter(|r| !hidden(&s, r))
        .map(|r| r.text.as_str())
        .collect();
    assert!(
        shown
            .iter()
            .any(|t| t.contains("to_str v") && t.contains("got: ")),
        "the call reads in its use: {shown:#?}"
    );
    assert!(
        !shown
            .iter()
            .any(|t| t.starts_with("t") && t.contains(":= to_str v")),
        "no row of its own while it waits: {shown:#?}"
    );
    assert!(
        shown.iter().any(|t| t.starts_with("n := len [")),
        "the list reads in its use: {shown:#?}"
    );
    // Resolved, the call can step: it is a row again until it has.
    let label = s.pending_labels()[0].clone();
    s.resolve_with(&label, "\"y\"").expect("resolve");
    let mut seen = false;
    for _ in 0..40 {
        if s.round().is_err() {
            break;
        }
        let rows = s.rows();
        seen |= rows
            .iter()
            .any(|r| !hidden(&s, r) && r.text.contains(":= to_str "));
    }
    assert!(seen, "the call got its row back when it could step");
    assert_eq!(s.output(), "got: y\n2\n");
}

/// Issue 31: a function the desugarer bound to a temporary (the body `rec` hands to `fix`, an
/// `if`'s branches) is written where it is used, `fix (fun p'1: …)`, not as a row of its own
/// (`t'3 := fun p'1: …`); a loop's body keeps its row and its name.
#[test]
fn temporary_functions_fold_into_their_uses() {
    let s = example("diverge");
    let hidden = |r: &opal_debugger::view::Row| s.is_folded(r.id) || s.is_machinery(r.id);
    let rows = s.rows();
    let shown: Vec<&str> = rows
        .iter()
        .filter(|r| !hidden(r))
        .map(|r| r.text.as_str())
        .collect();
    assert!(
        shown.iter().any(|t| t.contains("fix (fun p'1: …)")),
        "{shown:#?}"
    );
    assert!(
        !shown.iter().any(|t| t.contains(":= fun p'1")),
        "{shown:#?}"
    );
    let s = example("city_excursions");
    let rows = s.rows();
    let shown = rows
        .iter()
        .filter(|r| !s.is_folded(r.id) && !s.is_machinery(r.id));
    let texts: Vec<&str> = shown.map(|r| r.text.as_str()).collect();
    // The paper's Figure 2 writes the desugared loop as `cities := get_cities_in
    // <"Oceania">`, `for_body := fun (stdout, city): …`, `stdout := fold (cities, stdout,
    // for_body)` and an unnamed `()`; the rows read the same, the list named `for_list`.
    assert_eq!(
        texts,
        [
            "for_list := get_cities_in \"Oceania\"",
            "for_body := fun (stdout, city): …",
            "stdout := fold (for_list, stdout, for_body)",
            "result := ()",
        ],
        "the loop body keeps its row"
    );
}
