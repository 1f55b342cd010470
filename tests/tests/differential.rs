//! Differential testing of the machine (issue 28): generated programs of the kind users write
//! (externals answering numbers, strings, lists, dictionaries, tuples and chunked streams from
//! a generated world file with latencies; `++`, `+=`, the library, dictionaries, conditional
//! expressions, `if`/`for`/`while`, functions, recursion, higher-order functions, both kinds
//! of print; handles: `(stdout, h) := fork stdout` with prints on both branches and a `join`,
//! `&h` passed to a sequential external (`stamp`), to a function (`tell`) and to a recursive
//! one (`ticks`); nondeterminism: `coin ()` as a value and as an `if` condition, externals
//! answering one of their `choices` (`choose`, `pick`)) run under call-by-value, opportunistic
//! and lazy evaluation, on the virtual clock.
//!
//! The oracle is call-by-value, the paper's sequential baseline: opportunistic evaluation must
//! print the same text and give the same result (confluence); lazy evaluation must give the
//! same result and may leave out prints nothing needs (its lines are a subsequence of
//! call-by-value's), but never fails where call-by-value succeeds. A nondeterministic program
//! has no one answer: call-by-value runs it recording a trace (`--record`), and opportunistic
//! and lazy evaluation replay that trace (`--replay`, each call keeping its recorded latency;
//! lazy evaluation may leave recorded calls undispatched, nothing else), so all three take the
//! same path and are compared as above. Call-by-value's path follows the round's seed (its
//! world fixes what `coin ()` and the `choices` answer). Small programs are also
//! explored (`opal explore`): every interleaving reaches one normal form per choice sequence.
//!
//! CI runs `OPAL_DIFF_CASES` cases (default 160); `OPAL_DIFF_SECONDS=3600` runs new cases for
//! an hour (`OPAL_DIFF_SEED=N` starts at round N's programs). A failure is shrunk by proptest
//! to a minimal program, printed with its world file; keep it in `tests/agree/` (`NAME.opal`
//! and `NAME.world.toml`), which this test also runs.

use opal_core::compile_with;
use opal_core::machine::explore::{explore, Mode, Options as ExploreOptions};
use opal_core::machine::run::{run, End, Options, Strategy as Eval};
use opal_core::machine::trace::Trace;
use opal_core::machine::Machine;
use opal_core::world::{parse_world, World};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::cell::RefCell;
use std::fmt::Write;
use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The types generated values have; every variable of the program holds one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Int,
    Str,
    Ints,
    Strs,
    Dict,
}

const TYPES: [Ty; 5] = [Ty::Int, Ty::Str, Ty::Ints, Ty::Strs, Ty::Dict];

/// One item of a generated program: `op` picks the form (modulo the forms the type has), the
/// `args` pick earlier variables (modulo how many of the needed type there are).
#[derive(Clone, Debug)]
struct Item {
    ty: usize,
    op: usize,
    args: [usize; 3],
    lit: i64,
}

/// What the externals answer, and when.
#[derive(Clone, Debug)]
struct WorldSpec {
    num: i64,
    word: String,
    nums: Vec<i64>,
    words: Vec<String>,
    stream: Vec<String>,
    chunk_ms: Vec<u32>,
    table: (i64, i64),
    latency: [u32; 6],
    /// What `coin ()`, `choose` and `pick` answer in call-by-value's run (the oracle's path).
    draws: [bool; 3],
}

fn word() -> impl proptest::strategy::Strategy<Value = String> {
    prop::sample::select(vec!["a", "b", "Ho", "x y", "é", ""]).prop_map(str::to_string)
}

fn world_spec() -> impl proptest::strategy::Strategy<Value = WorldSpec> {
    (
        (
            0i64..9,
            word(),
            prop::collection::vec(0i64..9, 1..4),
            prop::collection::vec(word(), 1..4),
        ),
        prop::collection::vec((word(), 0u32..30), 1..4),
        (0i64..9, 0i64..9),
        prop::array::uniform6(0u32..60),
        prop::array::uniform3(any::<bool>()),
    )
        .prop_map(
            |((num, word, nums, words), chunks, table, latency, draws)| WorldSpec {
                num,
                word,
                nums,
                words,
                stream: chunks.iter().map(|c| c.0.clone()).collect(),
                chunk_ms: chunks.iter().map(|c| c.1).collect(),
                table,
                latency,
                draws,
            },
        )
}

fn item() -> impl proptest::strategy::Strategy<Value = Item> {
    (
        0usize..5,
        0usize..64,
        prop::array::uniform3(0usize..64),
        0i64..5,
    )
        .prop_map(|(ty, op, args, lit)| Item { ty, op, args, lit })
}

fn str_lit(s: &str) -> String {
    format!("{s:?}")
}

/// The world file; `drawn`: with the nondeterministic answers fixed by `draws` (`coin ()` too:
/// a world table overrides the builtin), so call-by-value's path follows the round's seed.
fn render_world(w: &WorldSpec, drawn: bool) -> String {
    let ints: Vec<String> = w.nums.iter().map(|n| n.to_string()).collect();
    let words: Vec<String> = w.words.iter().map(|s| str_lit(s)).collect();
    let pairs: Vec<String> = w
        .nums
        .iter()
        .zip(&w.words)
        .map(|(n, s)| format!("({n}, {})", str_lit(s)))
        .collect();
    // Each a single default answer after a latency: (name, latency in ms, default).
    let values = [
        ("num", w.latency[0], toml_str(&w.num.to_string())),
        ("word", w.latency[1], toml_str(&str_lit(&w.word))),
        ("nums", w.latency[2], toml_str(&list(&ints))),
        ("words", w.latency[3], toml_str(&list(&words))),
        (
            "table",
            w.latency[4],
            toml_str(&format!("{{\"a\": {}, \"b\": {}}}", w.table.0, w.table.1)),
        ),
        (
            "groups",
            w.latency[3] / 2,
            toml_str(&format!(
                "{{\"a\": {}, \"b\": {}}}",
                list(&words),
                list(&words[1..])
            )),
        ),
        (
            "pair",
            w.latency[5],
            toml_str(&format!("({}, {})", w.num, str_lit(&w.word))),
        ),
    ];
    let more_values = [
        ("pairs", w.latency[2] / 2, toml_str(&list(&pairs))),
        (
            "doc",
            w.latency[4] / 2,
            toml_str(&str_lit(&format!("[{}]", ints.join(", ")))),
        ),
    ];
    let mut out = String::new();
    for (name, ms, default) in &values {
        let _ = writeln!(out, "[{name}]\nlatency_ms = {ms}\ndefault = {default}");
    }
    // Streams are keyed by their argument; `stream` is always called with 1.
    let chunks: Vec<String> = w.stream.iter().map(|s| format!("{s:?}")).collect();
    let ms: Vec<String> = w.chunk_ms.iter().map(|m| m.to_string()).collect();
    let _ = writeln!(
        out,
        "[stream]\n[[stream.responses]]\narg = '1'\nstream = [{}]\nchunk_ms = [{}]",
        chunks.join(", "),
        ms.join(", ")
    );
    let _ = writeln!(
        out,
        "[log]\norder = \"sequential\"\nlatency_ms = {}\ndefault = '0'",
        w.latency[0] / 2
    );
    let _ = writeln!(
        out,
        "[peek]\norder = \"readonly\"\nlatency_ms = {}\ndefault = '1'",
        w.latency[1] / 2
    );
    for (name, ms, default) in &more_values {
        let _ = writeln!(out, "[{name}]\nlatency_ms = {ms}\ndefault = {default}");
    }
    // Takes a handle and gives one back (the world cannot name the argument's, so `stdout`).
    let _ = writeln!(
        out,
        "[stamp]\norder = \"sequential\"\nlatency_ms = {}\ndefault = '(stdout, {})'",
        w.latency[5] / 2,
        w.num
    );
    render_choices(w, drawn, &mut out);
    out
}

fn list(xs: &[String]) -> String {
    format!("[{}]", xs.join(", "))
}

fn toml_str(s: &str) -> String {
    format!("'{s}'")
}

/// The nondeterministic externals: their choices, or (`drawn`) the one each answers.
fn render_choices(w: &WorldSpec, drawn: bool, out: &mut String) {
    // Nondeterministic: each call answers one of its choices.
    let choose = ["'\"a\"'".to_string(), toml_str(&str_lit(&w.word))];
    let pick = ["'1'".to_string(), format!("'{}'", w.num)];
    if drawn {
        let [coin, c, p] = w.draws;
        let _ = writeln!(out, "[coin]\ndefault = '{coin}'");
        let _ = writeln!(
            out,
            "[choose]\nlatency_ms = {}\ndefault = {}",
            w.latency[3] / 3,
            choose[usize::from(c)]
        );
        let _ = writeln!(
            out,
            "[pick]\nlatency_ms = {}\ndefault = {}",
            w.latency[2] / 3,
            pick[usize::from(p)]
        );
    } else {
        let _ = writeln!(
            out,
            "[choose]\nlatency_ms = {}\nchoices = [{}]",
            w.latency[3] / 3,
            choose.join(", ")
        );
        let _ = writeln!(
            out,
            "[pick]\nlatency_ms = {}\nchoices = [{}]",
            w.latency[2] / 3,
            pick.join(", ")
        );
    }
}

/// The variables of each type bound so far, and the program text.
struct Render {
    vars: [Vec<String>; 5],
    src: String,
    n: usize,
}

impl Render {
    fn pick(&self, ty: Ty, k: usize) -> String {
        let pool = &self.vars[ty as usize];
        pool[k % pool.len()].clone()
    }
    fn fresh(&mut self, ty: Ty) -> String {
        self.n += 1;
        let prefix = ["i", "s", "li", "ls", "d"][ty as usize];
        format!("{prefix}{}", self.n)
    }
    fn line(&mut self, l: &str) {
        self.src.push_str(l);
        self.src.push('\n');
    }
}

/// The forms of a type: each a line (or lines) binding `v`, from picked variables.
fn form(r: &Render, ty: Ty, it: &Item, v: &str) -> String {
    match ty {
        Ty::Int => int_form(r, it, v),
        Ty::Str => str_form(r, it, v),
        Ty::Ints => ints_form(r, it, v),
        Ty::Strs => strs_form(r, it, v),
        Ty::Dict => dict_form(r, it, v),
    }
}

/// An `Int` bound to `v`.
fn int_form(r: &Render, it: &Item, v: &str) -> String {
    let [a, b, c] = it.args;
    let i = |k| r.pick(Ty::Int, k);
    let s = |k| r.pick(Ty::Str, k);
    let li = |k| r.pick(Ty::Ints, k);
    let ls = |k| r.pick(Ty::Strs, k);
    let d = |k| r.pick(Ty::Dict, k);
    let lit = it.lit;
    let forms = [
        format!("{v} := num {}", i(a)),
        format!("{v} := {} + {} * {lit}", i(a), i(b)),
        format!("{v} := len {}", li(a)),
        format!("{v} := len ({} ++ {})", ls(a), ls(b)),
        format!("{v} := sum ({} ++ [{}])", li(a), i(b)),
        format!("{v} := max ({} + [{}])", li(a), i(b)),
        format!("{v} := min ([{}] ++ {})", i(b), li(a)),
        format!("{v} := {}[\"a\"] + get ({}, \"z\", {lit})", d(a), d(b)),
        format!("{v} := ({} ++ [{lit}])[0]", li(a)),
        format!("{v} := {} if {} < {} else {lit}", i(a), i(b), i(c)),
        format!("{v} := 1 if {} in {} else 0", s(a), ls(b)),
        format!("{v} := 1 if \"a\" in {} else 2", d(a)),
        format!("{v} := 0\nfor x in {}:\n    {v} += x", li(a)),
        format!(
            "{v} := 0\nfor (k, w) in enumerate {}:\n    {v} += k + len w",
            ls(a)
        ),
        format!(
            "{v} := {}\nif {} > {lit}:\n    {v} += num {}\nelse:\n    {v} -= 1",
            i(a),
            i(b),
            i(c)
        ),
        format!("{v} := 0\nwhile {v} < {} % 4:\n    {v} += 1", i(a)),
        format!("{v} := count ({} % 5)", i(a)),
        format!("{v} := twice (inc, {})", i(a)),
        format!("{v} := fold ({}, {lit}, fun (acc, x): acc + x)", li(a)),
        format!("({v}, _) := pair {}", i(a)),
        format!("{v} := json_parse (json_dump {})", i(a)),
        format!("{v} := len (keys {})", d(a)),
        format!("{v} := sum (values {})", d(a)),
        format!("{v} := len (zip ({}, {}))", li(a), ls(b)),
        format!("{v} := len (range ({} % 6))", i(a)),
        format!("{v} := sum (topk ({}, {}, 2))", li(a), li(a)),
        format!("{v} := len (items {})", d(a)),
        format!("{v} := len {}", s(a)),
        format!("{v} := peek {}", i(a)),
        format!("{v} := fold ({}, 0, fun (acc, x): acc + num x)", li(a)),
        format!("{v} := apply (bump, {})", i(a)),
        format!("{v} := walk ({} % 3)", i(a)),
        format!("{v} := 0\nwhile {v} < len (nums {}):\n    {v} += 1", i(a)),
        format!("{v} := len (pairs {})", i(a)),
        format!(
            "{v} := 0\nfor (k, w) in pairs {}:\n    {v} += k + len w",
            i(a)
        ),
        format!("{v} := len (stream 1)"),
        format!("{v} := sum (map ({}, noisy))", li(a)),
        format!("{v} := {} + log {}", i(a), i(b)),
    ];
    forms[it.op % forms.len()].clone()
}

/// A `Str` bound to `v`.
fn str_form(r: &Render, it: &Item, v: &str) -> String {
    let [a, b, c] = it.args;
    let i = |k| r.pick(Ty::Int, k);
    let s = |k| r.pick(Ty::Str, k);
    let li = |k| r.pick(Ty::Ints, k);
    let ls = |k| r.pick(Ty::Strs, k);
    let d = |k| r.pick(Ty::Dict, k);
    let forms = [
        format!("{v} := word {}", s(a)),
        format!("{v} := {} + {}", s(a), s(b)),
        format!("{v} := f\"{{{}}}-{{{}}}:{{{}}}\"", s(a), i(b), li(c)),
        format!("{v} := to_str {}", i(a)),
        format!("{v} := json_dump {}", ls(a)),
        format!("{v} := json_dump ({} ++ {})", li(a), li(b)),
        format!("{v} := json_dump {}", d(a)),
        format!("{v} := {}[0] if len {} > 0 else \"none\"", ls(a), ls(a)),
        format!("(_, {v}) := pair {}", i(a)),
        format!("{v} := \"\"\nfor w in {}:\n    {v} := {v} + w", ls(a)),
        format!("{v} := to_str (sorted {})", ls(a)),
        format!("{v} := f\"{{{}}}\"", d(a)),
        format!("{v} := to_str (zip ({}, {}))", li(a), ls(b)),
        format!("{v} := to_str (items {})", d(a)),
        format!("{v} := to_str (enumerate {})", ls(a)),
        format!("{v} := to_str (sorted (zip ({}, {})))", li(a), ls(b)),
        format!("{v} := json_dump (stream 1)"),
        format!("{v} := to_str (pairs {})", i(a)),
        format!("{v} := to_str [{}, [{}]]", li(a), i(b)),
    ];
    forms[it.op % forms.len()].clone()
}

/// A list of `Int`s bound to `v`.
fn ints_form(r: &Render, it: &Item, v: &str) -> String {
    let [a, b, _] = it.args;
    let i = |k| r.pick(Ty::Int, k);
    let s = |k| r.pick(Ty::Str, k);
    let li = |k| r.pick(Ty::Ints, k);
    let ls = |k| r.pick(Ty::Strs, k);
    let d = |k| r.pick(Ty::Dict, k);
    let lit = it.lit;
    let forms = [
        format!("{v} := nums {}", i(a)),
        format!("{v} := {} ++ {}", li(a), li(b)),
        format!("{v} := {} ++ [{}, {lit}]", li(a), i(b)),
        format!("{v} := [{}] ++ nums {}", i(a), i(b)),
        format!("{v} := {} + {}", li(a), li(b)),
        format!("{v} := {}\n{v} += [{}]", li(a), i(b)),
        format!("{v} := sorted ({} ++ [num {}])", li(a), i(b)),
        format!("{v} := reversed {}", li(a)),
        format!("{v} := map ({}, inc)", li(a)),
        format!("{v} := map ({}, bump)", li(a)),
        format!("{v} := filter ({}, fun x: x > {lit})", li(a)),
        format!("{v} := sort_by ({}, fun x: 0 - x)", li(a)),
        format!(
            "{v} := []\nfor x in {}:\n    {v} := {v} ++ [x + {}]",
            li(a),
            i(b)
        ),
        format!("{v} := []\nfor w in {}:\n    {v} += [len w]", ls(a)),
        format!("{v} := range ({} % 5)", i(a)),
        format!("{v} := values {}", d(a)),
        format!("{v} := json_parse (json_dump {})", li(a)),
        format!("{v} := topk ({}, {}, 2)", li(a), li(b)),
        format!("{v} := [{}, {}]", i(a), i(b)),
        format!("{v} := nums {} ++ nums {}", i(a), i(b)),
        format!("{v} := map ({}, fun w: len w)", ls(a)),
        format!("{v} := build ({} % 4)", i(a)),
        format!("{v} := json_parse (doc {})", s(a)),
        format!("{v} := filter ({}, fun x: num x > x)", li(a)),
        format!("{v} := filter ({}, fun x: log x == 0)", li(a)),
        format!("{v} := map ({}, noisy)", li(a)),
        format!("{v} := map ({}, fun x: apply (inc, x))", li(a)),
    ];
    forms[it.op % forms.len()].clone()
}

/// A list of `Str`s bound to `v`.
fn strs_form(r: &Render, it: &Item, v: &str) -> String {
    let [a, b, _] = it.args;
    let i = |k| r.pick(Ty::Int, k);
    let s = |k| r.pick(Ty::Str, k);
    let ls = |k| r.pick(Ty::Strs, k);
    let d = |k| r.pick(Ty::Dict, k);
    let lit = it.lit;
    let forms = [
        format!("{v} := words {}", s(a)),
        format!("{v} := stream 1"),
        format!("{v} := stream 1 ++ [{}]", s(a)),
        format!("{v} := [{}] ++ words {}", s(a), s(b)),
        format!("{v} := {} ++ {}", ls(a), ls(b)),
        format!("{v} := {}\n{v} += [{}]", ls(a), s(b)),
        format!("{v} := sorted {}", ls(a)),
        format!("{v} := keys {}", d(a)),
        format!("{v} := []\nfor w in {}:\n    {v} := {v} ++ stream 1", ls(a)),
        format!("{v} := map ({}, fun w: w + {})", ls(a), s(b)),
        format!("{v} := map ({}, fun w: word w)", ls(a)),
        format!("{v} := filter ({}, fun w: len w > {})", ls(a), lit % 2),
        format!(
            "{v} := []\nfor (k, w) in enumerate {}:\n    {v} += [f\"{{k}}{{w}}\"]",
            ls(a)
        ),
        format!("{v} := sort_by ({}, fun w: len w)", ls(a)),
        format!("{v} := reversed ({} ++ stream 1)", ls(a)),
        format!("g{v} := groups {}\n{v} := g{v}[\"a\"] ++ g{v}[\"b\"]", s(a)),
        format!("{v} := sorted (stream 1)"),
        format!("{v} := sort_by ({}, fun w: len (word w))", ls(a)),
        format!("{v} := map (pairs {}, fun (k, w): w)", i(a)),
    ];
    forms[it.op % forms.len()].clone()
}

/// A dictionary bound to `v`.
fn dict_form(r: &Render, it: &Item, v: &str) -> String {
    let [a, b, _] = it.args;
    let i = |k| r.pick(Ty::Int, k);
    let s = |k| r.pick(Ty::Str, k);
    let ls = |k| r.pick(Ty::Strs, k);
    let d = |k| r.pick(Ty::Dict, k);
    let forms = [
        format!("{v} := table {}", s(a)),
        format!("{v} := {{\"a\": {}, \"b\": len {}}}", i(a), ls(b)),
        format!("{v} := json_parse (json_dump {})", d(a)),
    ];
    forms[it.op % forms.len()].clone()
}

/// Handles and nondeterminism: a fork with prints on both branches and a join, `&h` passed
/// to an external, to a function and to a recursive function, `coin ()` as a value and as a
/// condition, and externals answering one of their `choices`.
fn handles_and_choices(r: &mut Render, it: &Item) {
    let [a, b, c] = it.args;
    let ty = TYPES[it.ty % 5];
    let x = r.pick(ty, a);
    let y = r.pick(TYPES[(it.ty + 1) % 5], c);
    let n = r.pick(Ty::Int, c);
    match b % 7 {
        0 => {
            r.line("(stdout, h) := fork stdout");
            r.line(&format!("print (&h, {x})"));
            r.line(&format!("print (&stdout, {y})"));
            match c % 4 {
                0 => {
                    let v = r.fresh(Ty::Int);
                    r.line(&format!("{v} := stamp (&h, {n})\nprint (&h, {v})"));
                    r.vars[Ty::Int as usize].push(v);
                }
                1 => r.line(&format!("tell (&h, {y})")),
                2 => r.line(&format!("ticks (&h, {n} % 3)")),
                _ => r.line(&format!("print (&stdout, {x})")),
            }
            r.line("stdout := join (stdout, h)");
        }
        1 => r.line(&format!("tell (&stdout, {x})")),
        2 => r.line(&format!("ticks (&stdout, {n} % 4)")),
        3 => {
            let v = r.fresh(Ty::Int);
            r.line(&format!("{v} := stamp (&stdout, {n})"));
            r.vars[Ty::Int as usize].push(v);
        }
        4 => {
            let v = r.fresh(Ty::Int);
            r.line(&format!("{v} := {n} if coin () else {}", it.lit));
            r.vars[Ty::Int as usize].push(v);
        }
        5 => r.line(&format!(
            "if coin ():\n    print {x}\nelse:\n    print (&stdout, {y})"
        )),
        _ if c % 2 == 0 => {
            let v = r.fresh(Ty::Str);
            r.line(&format!("{v} := choose {n}"));
            r.vars[Ty::Str as usize].push(v);
        }
        _ => {
            let v = r.fresh(Ty::Int);
            r.line(&format!("{v} := pick {} + {n}", r.pick(Ty::Str, a)));
            r.vars[Ty::Int as usize].push(v);
        }
    }
}

/// Whether a program may take more than one path: it tosses a coin or calls an external
/// that answers one of its `choices`.
fn nondeterministic(src: &str) -> bool {
    src.contains("coin ()") || src.contains("choose ") || src.contains("pick ")
}

/// Renders a generated program. Dictionaries always have the integer keys "a" and "b".
fn render(items: &[Item]) -> String {
    let mut r = Render {
        vars: Default::default(),
        src: String::new(),
        n: 0,
    };
    r.line("extern num, word, nums, words, stream, table, pair, groups, pairs, doc");
    r.line("extern sequential log, stamp");
    r.line("extern choose, pick");
    r.line("tell := fun (&h, x): print (&h, x)");
    r.line("rec ticks := fun (&h, n):\n    if n > 0:\n        print (&h, f\"t{n}\")\n        ticks (&h, n - 1)");
    r.line("extern readonly peek");
    r.line("noisy := fun x:\n    print f\"n{x}\"\n    x * 2");
    r.line("apply := fun (g, x): g x");
    r.line("rec walk := fun n: 0 if n < 1 else num n + walk (n - 1)");
    r.line("inc := fun x: x + 1");
    r.line("bump := fun x: x + num x");
    r.line("twice := fun (g, x): g (g x)");
    r.line("rec count := fun n: 0 if n < 1 else n + count (n - 1)");
    r.line("rec build := fun n:\n    if n < 1:\n        ret []\n    else:\n        ret [n] ++ build (n - 1)");
    r.line(
        "i0 := 1\ns0 := \"a\"\nli0 := [2, 1]\nls0 := [\"b\", \"a\"]\nd0 := {\"a\": 1, \"b\": 2}",
    );
    for (k, name) in ["i0", "s0", "li0", "ls0", "d0"].iter().enumerate() {
        r.vars[k].push(name.to_string());
    }
    for it in items {
        // Prints and effects take a quarter of the items.
        if it.op % 8 == 7 {
            let ty = TYPES[it.ty % 5];
            let x = r.pick(ty, it.args[0]);
            let line = match it.args[1] % 4 {
                0 => format!("print {x}"),
                1 => format!("print (&stdout, {x})"),
                2 => format!("_ := log {x}"),
                _ => format!("print f\"{{{x}}}!\""),
            };
            r.line(&line);
            continue;
        }
        if it.op % 8 == 6 {
            handles_and_choices(&mut r, it);
            continue;
        }
        let ty = TYPES[it.ty % 5];
        let v = r.fresh(ty);
        let text = form(&r, ty, it, &v);
        r.line(&text);
        r.vars[ty as usize].push(v);
    }
    let last: Vec<String> = r.vars.iter().map(|p| p[p.len() - 1].clone()).collect();
    // Sometimes the program ends in a print, so lazy evaluation must print what it needs.
    match items.first().map_or(0, |it| it.lit % 3) {
        0 => r.line(&format!("print ({})", last.join(", "))),
        _ => r.line(&format!("({})", last.join(", "))),
    }
    r.src
}

/// What one strategy did: the printed text, how the run ended, what it wrote on stderr (a
/// forced replay's warnings) and its trace of external calls.
struct Outcome {
    out: String,
    err: String,
    end: End,
    trace: Trace,
}

/// How a run resolves its external calls: from the world file (recording them), or from a
/// trace (`force`: events the run never dispatches are warnings, as lazy evaluation may skip
/// calls nothing needs).
enum Calls<'a> {
    World,
    Replay { trace: &'a Trace, force: bool },
}

fn run_one(src: &str, world: &World, strategy: Eval, calls: Calls) -> Outcome {
    let c = compile_with(src, Some(world));
    assert!(
        !c.has_errors(),
        "generated program does not compile:\n{src}\n{:?}",
        c.diags
    );
    let mut m = Machine::new(&c.program);
    let out = Rc::new(RefCell::new(String::new()));
    let err = Rc::new(RefCell::new(String::new()));
    let (sink, err_sink) = (out.clone(), err.clone());
    let mut opts = Options::new(strategy);
    opts.world = Some(world.clone());
    opts.virtual_clock = true;
    opts.max_steps = Some(2_000_000);
    match calls {
        Calls::World => opts.record = true,
        Calls::Replay { trace, force } => {
            opts.replay = Some(trace.clone());
            // Each call keeps its recorded latency, whatever the schedule.
            opts.replay_latencies = true;
            opts.replay_force = force;
        }
    }
    let sink = move |handle: &str, t: &str| {
        if handle == "stderr" {
            err_sink.borrow_mut().push_str(t)
        } else {
            sink.borrow_mut().push_str(t)
        }
    };
    let report = run(&mut m, opts, Box::new(sink), None);
    let (out, err) = (out.borrow().clone(), err.borrow().clone());
    Outcome {
        out,
        err,
        end: report.end,
        trace: report.trace,
    }
}

fn is_subsequence(part: &str, whole: &str) -> bool {
    let mut lines = whole.lines();
    part.lines().all(|p| lines.any(|w| w == p))
}

/// The nondeterministic answers of a trace, to say which path a failing run took.
fn choices_taken(t: &Trace) -> String {
    let picks = t
        .events
        .iter()
        .filter(|e| matches!(&*e.external, "coin" | "choose" | "pick"));
    picks
        .map(|e| format!("{} {} → {}", e.label, e.external, e.result))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs `src` under every strategy against the oracle; `Err` says how they disagree.
///
/// A nondeterministic program has no single answer: call-by-value runs it recording its
/// calls (against `drawn`, the world with its answers fixed, when given), and opportunistic
/// and lazy evaluation replay that trace, so all three take the same path and must agree as
/// a deterministic program's runs do.
fn check(
    src: &str,
    world_text: &str,
    drawn: Option<&str>,
    explore_too: bool,
) -> Result<(), String> {
    let world = parse_world(world_text).map_err(|e| format!("world: {e:?}"))?;
    let nondet = nondeterministic(src);
    let cbv = match drawn {
        Some(text) if nondet => run_one(
            src,
            &parse_world(text).map_err(|e| format!("world: {e:?}"))?,
            Eval::Cbv,
            Calls::World,
        ),
        _ => run_one(src, &world, Eval::Cbv, Calls::World),
    };
    let (opp, lazy) = opportunistic_and_lazy(src, &world, nondet, &cbv);
    let path = if nondet {
        format!("\ncbv's choices: {}", choices_taken(&cbv.trace))
    } else {
        String::new()
    };
    let show = |o: &Outcome| format!("{:?} after printing {:?}", o.end, o.out);
    COUNTS[0].fetch_add(1, Ordering::Relaxed);
    if !matches!(cbv.end, End::Done(_)) {
        // No oracle for the output; opportunistic evaluation must not succeed where
        // call-by-value cannot (the same statement fails or sticks in every order).
        if matches!(opp.end, End::Done(_)) {
            return Err(format!(
                "cbv: {}\nopportunistic: {}{path}",
                show(&cbv),
                show(&opp)
            ));
        }
        return Ok(());
    }
    if opp.out != cbv.out || opp.end != cbv.end || !opp.err.is_empty() {
        return Err(format!(
            "cbv: {}\nopportunistic: {} {}{path}",
            show(&cbv),
            show(&opp),
            opp.err
        ));
    }
    // Lazy evaluation may skip recorded calls nothing needs, but must make no other call.
    let skipped_only = lazy
        .err
        .lines()
        .all(|l| l.contains("that the run never dispatched"));
    if lazy.end != cbv.end || !is_subsequence(&lazy.out, &cbv.out) || !skipped_only {
        return Err(format!(
            "cbv: {}\nlazy: {} {}{path}",
            show(&cbv),
            show(&lazy),
            lazy.err
        ));
    }
    COUNTS[1].fetch_add(1, Ordering::Relaxed);
    if std::env::var_os("OPAL_DIFF_SHOW").is_some() {
        eprintln!(
            "--- program\n{src}--- printed\n{}--- result {:?}",
            cbv.out, cbv.end
        );
    }
    if explore_too {
        explore_finds_no_violation(src, world)?;
    }
    Ok(())
}

/// The opportunistic and lazy runs: on the world, or, when the program is nondeterministic,
/// replaying cbv's trace (its choices).
fn opportunistic_and_lazy(
    src: &str,
    world: &World,
    nondet: bool,
    cbv: &Outcome,
) -> (Outcome, Outcome) {
    if nondet {
        COUNTS[3].fetch_add(1, Ordering::Relaxed);
        let opp = run_one(
            src,
            world,
            Eval::Opportunistic,
            Calls::Replay {
                trace: &cbv.trace,
                force: false,
            },
        );
        (
            opp,
            run_one(
                src,
                world,
                Eval::Lazy,
                Calls::Replay {
                    trace: &cbv.trace,
                    force: true,
                },
            ),
        )
    } else {
        (
            run_one(src, world, Eval::Opportunistic, Calls::World),
            run_one(src, world, Eval::Lazy, Calls::World),
        )
    }
}

/// Small programs are explored too: no normal form may violate the ordering guarantees.
fn explore_finds_no_violation(src: &str, world: World) -> Result<(), String> {
    let c = compile_with(src, Some(&world));
    let m = Machine::new(&c.program);
    let e = explore(
        &m,
        Some(world),
        ExploreOptions {
            mode: Mode::Reduced,
            max_states: 3_000,
            graph: false,
        },
    );
    if !e.truncated {
        COUNTS[2].fetch_add(1, Ordering::Relaxed);
    }
    if !e.truncated && !e.violations().is_empty() {
        return Err(format!(
            "explore: {} normal forms, violations {:?}",
            e.normal_forms.len(),
            e.violations()
        ));
    }
    Ok(())
}

/// Programs checked, programs call-by-value ran to the end, programs explored completely,
/// nondeterministic programs (checked by replaying call-by-value's trace).
static COUNTS: [AtomicU64; 4] = [
    AtomicU64::new(0),
    AtomicU64::new(0),
    AtomicU64::new(0),
    AtomicU64::new(0),
];

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn every_strategy_prints_what_call_by_value_prints() {
    let cases = env_number("OPAL_DIFF_CASES", 160) as u32;
    let seconds = env_number("OPAL_DIFF_SECONDS", 0);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let strategy = (prop::collection::vec(item(), 1..9), world_spec());
    // `OPAL_DIFF_SEED` starts a long run at other programs than CI's.
    let first = env_number("OPAL_DIFF_SEED", 0);
    let mut round = first;
    let mut total = 0u64;
    loop {
        // A fixed seed per round: CI sees the same programs every run; a long run moves on.
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&round.to_le_bytes());
        let config = Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        };
        let mut runner =
            TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
        let result = runner.run(&strategy, |(items, w)| {
            let src = render(&items);
            let world = render_world(&w, false);
            let drawn = render_world(&w, true);
            let small = items.len() <= 3;
            check(&src, &world, Some(&drawn), small).map_err(|e| {
                TestCaseError::fail(format!("{e}\n--- program\n{src}--- world\n{world}"))
            })
        });
        total += u64::from(cases);
        if let Err(e) = result {
            panic!("round {round} (rerun with OPAL_DIFF_SEED={round}) after {total} cases: {e}");
        }
        round += 1;
        if Instant::now() >= deadline {
            break;
        }
    }
    let [checked, done, explored, nondet] = COUNTS.each_ref().map(|c| c.load(Ordering::Relaxed));
    let rounds = round - first;
    eprintln!("differential: {total} programs in {rounds} rounds agreed ({checked} checked, {done} ran to the end under cbv, {explored} explored completely, {nondet} nondeterministic)");
    // A generator whose programs mostly fail under call-by-value tests nothing.
    assert!(
        done * 4 >= checked * 3,
        "only {done} of {checked} generated programs ran under cbv"
    );
}

/// The programs kept in `tests/agree/`: issue 28's reports and what the generator found.
#[test]
fn kept_programs_agree() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("agree");
    let mut n = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/agree")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "opal"))
    {
        let src = std::fs::read_to_string(path).expect("read");
        let world = std::fs::read_to_string(path.with_extension("world.toml")).unwrap_or_default();
        if let Err(e) = check(&src, &world, None, false) {
            panic!("{}: {e}", path.display());
        }
        let cbv = run_one(
            &src,
            &parse_world(&world).expect("world"),
            Eval::Cbv,
            Calls::World,
        );
        assert!(
            matches!(cbv.end, End::Done(_)),
            "{}: cbv {:?}",
            path.display(),
            cbv.end
        );
        n += 1;
    }
    assert!(n >= 10, "only {n} kept programs");
}
