//! Data-driven fixtures: each `fixtures/NAME.opal` is checked and desugared, and the
//! diagnostics and core term are snapshot-tested (snapshots in `snapshots/`).

use opal_core::diag::render;
use opal_core::span::LineIndex;
use opal_core::{compile, format, machine::print_initial, syntax::parser::parse};

fn fixture_output(name: &str, text: &str) -> String {
    let compiled = compile(text);
    let idx = LineIndex::new(text);
    let mut out = String::new();
    out.push_str("== diagnostics\n");
    for d in &compiled.diags {
        out.push_str(&render(d, name, text, &idx));
    }
    if !compiled.has_errors() {
        out.push_str("== desugared\n");
        out.push_str(&print_initial(&compiled.program, false));
        // Well-formedness of every desugared program (LANGUAGE.md §3).
        assert!(
            opal_core::check::well_formed(&compiled.program).is_empty(),
            "{name}: not well-formed"
        );
        // The formatter is idempotent and keeps the meaning.
        let once = format::format(&parse(text));
        let twice = format::format(&parse(&once));
        assert_eq!(once, twice, "{name}: formatter is not idempotent");
        assert_eq!(
            print_initial(&compile(&once).program, true),
            print_initial(&compiled.program, true),
            "{name}: formatting changed the program"
        );
        out.push_str("== formatted\n");
        out.push_str(&once);
    }
    out
}

#[test]
fn fixtures() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    entries.sort();
    let mut n = 0;
    for path in entries
        .iter()
        .filter(|p| p.extension().map(|e| e == "opal").unwrap_or(false))
    {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        let text = std::fs::read_to_string(path).expect("read fixture");
        let out = fixture_output(&format!("{name}.opal"), &text);
        insta::assert_snapshot!(name, out);
        n += 1;
    }
    assert!(n >= 30, "expected the fixture set, found {n}");
}

#[test]
fn every_diagnostic_code_is_exercised_or_internal() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut seen = std::collections::HashSet::new();
    for e in std::fs::read_dir(dir).expect("fixtures").flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        for d in compile(&text).diags {
            seen.insert(d.code);
        }
    }
    // E0200, W0004, W0006 and W0007 are for world files (tests/world.rs), E0900 is an internal-error guard,
    // W0003 and W0005 need a world context, E0008/E0106 have their own tests below.
    for (code, _) in opal_core::diag::CODES {
        if [
            "E0200", "E0300", "E0900", "W0003", "W0004", "W0005", "W0006", "W0007",
        ]
        .contains(code)
        {
            continue;
        }
        assert!(seen.contains(code), "no fixture produces {code}");
    }
}

#[test]
fn inconsistent_dedent() {
    let c = compile("if 1 < 2:\n        x := 1\n    y := 2\n");
    assert!(c.diags.iter().any(|d| d.code == "E0008"), "{:?}", c.diags);
}

#[test]
fn five_mistakes_five_diagnostics_and_the_rest_is_analysed() {
    let text =
        "a := (1 +\nb = 2\nc := \"x\nfor q in [1]:\n    break\nd := undefined_name\ne := 1\ne\n";
    let c = compile(text);
    let errors: Vec<_> = c
        .diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code)
        .collect();
    assert!(errors.len() >= 5, "{errors:?}");
    assert!(
        errors.contains(&"E0100"),
        "later lines are still analysed: {errors:?}"
    );
}

#[test]
fn hostile_nesting_gives_a_diagnostic_not_a_crash() {
    let deep_parens = format!("x := {}1{}\n", "(".repeat(100_000), ")".repeat(100_000));
    let c = compile(&deep_parens);
    assert!(c.diags.iter().any(|d| d.code == "E0007"));
    let only_open = "(".repeat(100_000);
    assert!(compile(&only_open).has_errors());
    let mut funs = String::new();
    for i in 0..3000 {
        funs.push_str(&" ".repeat(i * 2));
        funs.push_str("f := fun x:\n");
    }
    funs.push_str(&" ".repeat(6000));
    funs.push_str("x\n");
    assert!(compile(&funs).diags.iter().any(|d| d.code == "E0007"));
    let long_chain = format!("x := 1{}\n", " + 1".repeat(50_000));
    assert!(compile(&long_chain).diags.iter().any(|d| d.code == "E0007"));
    let long_app = format!("x := f{}\n", " a".repeat(50_000));
    assert!(compile(&long_app).diags.iter().any(|d| d.code == "E0007"));
}

#[test]
fn arbitrary_bytes_never_panic() {
    let samples = [
        "\u{0}\u{1}",
        "<<",
        "<",
        "<\"",
        "\"\\u{110000}\"",
        "x := <-",
        "prj 0 x",
        "fun",
        "fun (",
        ":=",
        "\u{feff}x := 1",
        "x := 99999999999999999999999",
        "1e999",
        "é := 1",
        "x := [1,,2]",
    ];
    for s in samples {
        let _ = compile(s);
    }
}

#[test]
fn world_file_errors_name_the_line_and_key() {
    let bad = "[f]\nlatency_ms = 10\n[[f.responses]]\narg = '(1, '\nresult = '2'\n";
    let Err(ds) = opal_core::world::parse_world(bad) else {
        panic!("expected an error")
    };
    let idx = LineIndex::new(bad);
    let lc = idx.line_col(bad, ds[0].span.start);
    assert_eq!(ds[0].code, "E0200");
    assert_eq!(lc.line, 4, "{:?}", ds);
    let typo = "[f]\nlatency = 10\n";
    let Err(ds) = opal_core::world::parse_world(typo) else {
        panic!("expected an error")
    };
    assert!(ds[0].message.contains("latency"), "{}", ds[0].message);
    assert!(opal_core::world::parse_world("[f]\ndefault = '\"x\"'\n").is_ok());
}
