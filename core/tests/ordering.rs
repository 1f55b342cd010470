//! Ordering annotations (PopPy §4–§6), as a property over generated programs: whatever order
//! the calls come back in, the sequential calls dispatch in the order the call-by-value run
//! makes them (with the same arguments), and each readonly call falls between the same two
//! sequential calls: after the one before it has resolved, and resolved before the one after
//! it dispatches.

use opal_core::compile_with;
use opal_core::machine::explore::resolve_now;
use opal_core::machine::run::Host;
use opal_core::machine::{Machine, Rule, TaskId};
use opal_core::world::parse_world;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Item {
    /// `a := u n`: an unordered call.
    Unordered,
    /// `s n`: a sequential call.
    Seq,
    /// `b := r n`: a readonly call.
    Read,
    /// `c := f n`: a function that makes a sequential and an unordered call.
    Fun,
    /// `for v in [n, n+1]: s v`.
    Loop,
    /// `if n > 2: s n else: b := r n`.
    If,
    /// `print n` (sequential too, but not a world external).
    Print,
    /// `print (&stdout, n)`: ordered by its handle, and by the token as well.
    PrintHandle,
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        Just(Item::Unordered),
        Just(Item::Seq),
        Just(Item::Read),
        Just(Item::Fun),
        Just(Item::Loop),
        Just(Item::If),
        Just(Item::Print),
        Just(Item::PrintHandle),
    ]
}

/// A program whose every call has an argument of its own (so a call is known by it).
fn render(items: &[Item]) -> String {
    let mut src = String::from("extern sequential s\nextern readonly r\nextern u\nf := fun x:\n    s (x + 1000)\n    y := u x\n    ret y\n");
    for (i, it) in items.iter().enumerate() {
        let n = (i as i64 + 1) * 10;
        let line = match it {
            Item::Unordered => format!("a{i} := u {n}"),
            Item::Seq => format!("s {n}"),
            Item::Read => format!("b{i} := r {n}"),
            Item::Fun => format!("c{i} := f {n}"),
            Item::Loop => format!("for v in [{n}, {}]:\n    s v", n + 1),
            Item::If => format!(
                "if {n} > {}:\n    s {n}\nelse:\n    b{i} := r {n}",
                n / 2 + (i as i64 % 3) * n
            ),
            Item::Print => format!("print {n}"),
            Item::PrintHandle => format!("print (&stdout, {n})"),
        };
        src.push_str(&line);
        src.push('\n');
    }
    src
}

const WORLD: &str = "[s]\ndefault = '0'\n[r]\ndefault = '1'\n[u]\ndefault = '2'\n";

/// What happened to the ordered calls, in order: (external, argument, dispatched or resolved).
#[derive(Debug, PartialEq, Clone)]
enum Ev {
    Dispatch(String, String),
    Resolve(String, String),
}

/// Runs the program, choosing with `choices` at each turn between stepping every steppable
/// statement and delivering one of the pending tasks (which one, too): any order of arrivals.
fn run(src: &str, choices: &[u8], cbv: bool) -> Vec<Ev> {
    run_in(src, WORLD, choices, cbv)
}

/// `run` with a world file of its own.
fn run_in(src: &str, world: &str, choices: &[u8], cbv: bool) -> Vec<Ev> {
    let world = parse_world(world).expect("world");
    let c = compile_with(src, Some(&world));
    assert!(!c.has_errors(), "{src}\n{:?}", c.diags);
    let mut m = Machine::new(&c.program);
    let mut host = Host::new(Some(world), false);
    let mut pending: Vec<TaskId> = Vec::new();
    let mut out = Vec::new();
    let ordered = |e: &str| e == "s" || e == "r";
    let mut idle = false;
    for k in 0..100_000usize {
        let pick = choices.get(k % choices.len().max(1)).copied().unwrap_or(0) as usize;
        // Deliver a pending task: cbv at once; otherwise when the choice says so, or when
        // nothing else can step.
        if !pending.is_empty() && (cbv || idle || pick.is_multiple_of(3)) {
            idle = false;
            let t = pending.remove(if cbv { 0 } else { pick % pending.len() });
            let (ext, arg) = (m.tasks[t].ext.to_string(), m.tasks[t].arg.to_string());
            let o = resolve_now(&mut host, &ext, &m.tasks[t].arg.clone());
            m.deliver(t, o, 0.0);
            if ordered(&ext) {
                out.push(Ev::Resolve(ext, arg));
            }
            continue;
        }
        let steps: Vec<_> = if cbv {
            m.cbv_next_mut().into_iter().collect()
        } else {
            let mut cands = Vec::new();
            m.round_candidates(&mut cands);
            cands
        };
        if steps.is_empty() {
            if pending.is_empty() {
                break;
            }
            idle = true;
            continue;
        }
        for s in steps {
            let Some(ev) = m.step(s) else { continue };
            if let (Rule::Dispatch, Some(t)) = (ev.rule, ev.task) {
                let (ext, arg) = (m.tasks[t].ext.to_string(), m.tasks[t].arg.clone());
                if host.is_pure(&ext) {
                    // `print` prints at dispatch: its dispatches are the output's order.
                    if ext == "print" {
                        out.push(Ev::Dispatch(ext.clone(), arg.to_string()));
                    }
                    let o = resolve_now(&mut host, &ext, &arg);
                    m.deliver(t, o, 0.0);
                } else {
                    if ordered(&ext) {
                        out.push(Ev::Dispatch(ext, arg.to_string()));
                    }
                    pending.push(t);
                }
            }
        }
    }
    assert!(pending.is_empty(), "tasks left pending:\n{src}");
    out
}

fn sequential(evs: &[Ev]) -> Vec<(String, String)> {
    evs.iter()
        .filter_map(|e| match e {
            Ev::Dispatch(x, a) if x == "s" => Some((x.clone(), a.clone())),
            _ => None,
        })
        .collect()
}

/// What `print` printed, in order (its arguments: `(stdout, 20)` for a handle print).
fn printed(evs: &[Ev]) -> Vec<String> {
    evs.iter()
        .filter_map(|e| match e {
            Ev::Dispatch(x, a) if x == "print" => Some(a.clone()),
            _ => None,
        })
        .collect()
}

/// For each readonly call: how many sequential calls had resolved when it dispatched, and
/// how many had dispatched when it resolved.
fn windows(evs: &[Ev]) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    for (i, e) in evs.iter().enumerate() {
        let Ev::Dispatch(x, a) = e else { continue };
        if x != "r" {
            continue;
        }
        let resolved_before = evs[..i]
            .iter()
            .filter(|e| matches!(e, Ev::Resolve(x, _) if x == "s"))
            .count();
        let done = evs
            .iter()
            .position(|e| *e == Ev::Resolve(x.clone(), a.clone()))
            .unwrap_or(evs.len());
        let dispatched_before_done = evs[..done]
            .iter()
            .filter(|e| matches!(e, Ev::Dispatch(x, _) if x == "s"))
            .count();
        out.push((a.clone(), resolved_before, dispatched_before_done));
    }
    out.sort();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn ordered_calls_keep_program_order_whatever_the_arrival_order(
        items in prop::collection::vec(item(), 1..9),
        choices in prop::collection::vec(any::<u8>(), 1..40),
    ) {
        let src = render(&items);
        let reference = run(&src, &[0], true);
        let any_order = run(&src, &choices, false);
        prop_assert_eq!(sequential(&any_order), sequential(&reference), "{}", src);
        // `print v` and `print (&stdout, v)` share one order: stdout's lines in cbv order.
        prop_assert_eq!(printed(&any_order), printed(&reference), "{}", src);
        // A readonly call dispatches once every sequential call before it resolved, and
        // resolves before the next one dispatches: the same window as in the cbv run.
        let (w, wr) = (windows(&any_order), windows(&reference));
        for ((a, resolved, dispatched), (b, r_ref, d_ref)) in w.iter().zip(&wr) {
            prop_assert_eq!(a, b);
            prop_assert!(*resolved >= *r_ref, "{}: readonly {} dispatched before a sequential call before it resolved\n{:?}", src, a, any_order);
            prop_assert!(*dispatched <= *d_ref, "{}: readonly {} resolved after a later sequential call dispatched\n{:?}", src, a, any_order);
        }
    }
}

#[test]
fn prints_come_out_in_program_order_and_unordered_calls_overlap() {
    let src = "extern slow\na := slow 1\nb := slow 2\nprint a\nprint b\nprint \"x\"\n";
    let world = parse_world("[slow]\ndefault = '\"r\"'\n").expect("world");
    let c = compile_with(src, Some(&world));
    let mut m = Machine::new(&c.program);
    let mut host = Host::new(Some(world), false);
    // Both slow calls dispatch in the first rounds, before either resolves.
    let mut pending = Vec::new();
    for _ in 0..10 {
        let mut cands = Vec::new();
        m.round_candidates(&mut cands);
        for s in cands {
            if let Some(ev) = m.step(s) {
                if let (Rule::Dispatch, Some(t)) = (ev.rule, ev.task) {
                    if host.is_pure(&m.tasks[t].ext) {
                        let arg = m.tasks[t].arg.clone();
                        let o = resolve_now(&mut host, &m.tasks[t].ext.clone(), &arg);
                        m.deliver(t, o, 0.0);
                    } else {
                        pending.push(t);
                    }
                }
            }
        }
    }
    assert_eq!(
        pending.len(),
        2,
        "both unordered calls are in flight at once"
    );
}

/// Issue 28: `print v` (the token) and `print (&stdout, v)` (the handle) print in one order.
/// Deliveries wait until nothing else can step, so without the token on the handle prints
/// `after` and the loop's lines would print before `slow` resolves and `streamed` before the
/// stream's elements.
#[test]
fn handle_prints_and_sequential_prints_share_one_order() {
    let src = "extern slow\nextern words\nprint \"start\"\nfor w in words 0:\n    print (&stdout, w)\nprint \"streamed\"\nx := slow 1\nprint x\nprint (&stdout, \"after\")\nprint (stdout, \"plain\")\nprint \"done\"\n";
    let world = "[slow]\ndefault = '\"slow\"'\n[words]\n[[words.responses]]\narg = '0'\nstream = [\"w1\", \"w2\"]\n";
    let expected = [
        "\"start\"",
        "(stdout, \"w1\")",
        "(stdout, \"w2\")",
        "\"streamed\"",
        "\"slow\"",
        "(stdout, \"after\")",
        "(stdout, \"plain\")",
        "\"done\"",
    ];
    for (choices, cbv) in [
        (&[1u8][..], false),
        (&[0u8][..], true),
        (&[0u8, 1, 2, 5][..], false),
    ] {
        let evs = run_in(src, world, choices, cbv);
        assert_eq!(printed(&evs), expected, "choices {choices:?}");
    }
}
