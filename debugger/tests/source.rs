//! The source map on the bundled examples: a breakpoint's line stops once per run of its
//! statement, the locals are the program's names with their values, and the console
//! evaluates expressions over them.

use opal_debugger::session::{Instance, Session, Strategy};

fn example(name: &str) -> Session {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/");
    let src = std::fs::read_to_string(format!("{dir}{name}.opal")).expect("example");
    let world = std::fs::read_to_string(format!("{dir}{name}.world.toml"))
        .ok()
        .map(|w| opal_core::world::parse_world(&w).expect("world"));
    Session::new(&src, world).expect("compiles")
}

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
