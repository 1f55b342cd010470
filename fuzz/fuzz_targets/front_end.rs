//! Any text through both front ends (OPAL and Python): parse, desugar, check, format (and the
//! OPAL formatter's output must parse to the same diagnostics-free state), plus printing the
//! initial term.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    // The same text as a Python script: parsed by ruff's parser, lowered, desugared, checked.
    let py = opal_core::compile_file("fuzz.py", &src, None);
    let _ = opal_core::machine::print_initial(&py.program, false);
    let c = opal_core::compile(&src);
    let _ = opal_core::machine::print_initial(&c.program, true);
    let _ = opal_core::check_externs(&c.program, None);
    if !c.parsed.diags.iter().any(|d| d.is_error()) {
        let once = opal_core::format::format(&c.parsed);
        let again = opal_core::format::format(&opal_core::syntax::parser::parse(&once));
        assert_eq!(once, again, "the formatter is not idempotent");
    }
});
