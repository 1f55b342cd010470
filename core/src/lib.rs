//! `opal-core`: OPAL's front end (parser, desugarer, checker, formatter) and the λ^O machine.
//! The CLI, the language server and the debugger all use this crate; see ARCHITECTURE.md.

pub mod check;
pub mod desugar;
pub mod diag;
pub mod externals;
pub mod files;
pub mod format;
pub mod framing;
pub mod ir;
pub mod lenient_json;
pub mod machine;
pub mod names;
pub mod ordering;
pub mod python;
pub mod span;
pub mod syntax;
pub mod world;

/// The prelude is loaded by the desugarer (`desugar::prelude`); its public path stays `opal_core::prelude`.
pub use desugar::prelude;

use desugar::{Desugarer, Program};
use diag::Diagnostic;
use syntax::parser::{parse, Parsed};

/// A source file taken through the front end.
pub struct Compiled {
    pub parsed: Parsed,
    pub program: Program,
    /// Parse, desugaring and well-formedness diagnostics, sorted by position.
    pub diags: Vec<Diagnostic>,
}

impl Compiled {
    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(|d| d.is_error())
    }
}

/// Parses, desugars and checks one source text. Never panics on any input.
pub fn compile(src: &str) -> Compiled {
    compile_with(src, None)
}

/// `compile` with the world file the program runs against: its `order` keys class the
/// externals the program declares without one.
pub fn compile_with(src: &str, world: Option<&world::World>) -> Compiled {
    compile_parsed(parse(src), world)
}

/// The parse of a file by the front end its name picks: Python for `.py`, OPAL otherwise.
pub fn parse_file(path: &str, src: &str) -> Parsed {
    if python::is_python(path) {
        python::parse(src)
    } else {
        parse(src)
    }
}

/// `compile_with` for a file, by the front end its name picks (`parse_file`).
pub fn compile_file(path: &str, src: &str, world: Option<&world::World>) -> Compiled {
    compile_parsed_file(path, parse_file(path, src), world)
}

/// `compile_parsed` for the parse of a file (`parse_file`): a caller that compiles it again
/// for the world file's classes keeps what its front end decides.
pub fn compile_parsed_file(path: &str, parsed: Parsed, world: Option<&world::World>) -> Compiled {
    let mut compiled = compile_parsed(parsed, world);
    // A Python script binds names it never reads as a matter of course (`for _ in`, a
    // result kept for the debugger); CPython says nothing, and neither does OPAL.
    if python::is_python(path) {
        compiled.diags.retain(|d| d.code != "W0001");
    }
    compiled
}

/// `compile_with` from the parse: a caller that compiled without the world while it loaded
/// compiles again from the parse when the world's `order` keys class the externals.
pub fn compile_parsed(parsed: Parsed, world: Option<&world::World>) -> Compiled {
    let orders = world.map(world::World::orders).unwrap_or_default();
    let (program, mut diags) = Desugarer::new(false)
        .with_world_orders(orders)
        .program(&parsed.block);
    let mut all = parsed.diags.clone();
    all.append(&mut diags);
    if !all.iter().any(|d| d.is_error()) {
        for (msg, span) in check::well_formed(&program) {
            all.push(
                Diagnostic::error(
                    "E0900",
                    span,
                    format!("internal error: desugared term is not well-formed: {msg}"),
                )
                .with_help("please report this with the program that caused it"),
            );
        }
    }
    all.sort_by_key(|d| (d.span.start, d.span.end));
    Compiled {
        parsed,
        program,
        diags: all,
    }
}

/// Warnings for `extern` names that the world file does not describe.
pub fn check_externs(program: &Program, world: Option<&world::World>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (name, span) in &program.externs {
        if world.map(|w| w.get(name).is_none()).unwrap_or(true)
            && externals::standard(name).is_none()
        {
            out.push(
                Diagnostic::warning("W0003", *span, format!("`{name}` has no entry in a world file"))
                    .with_help(format!("add a `[{name}]` table to the program's NAME.world.toml (or pass --world FILE); calls to it will fail")),
            );
        }
    }
    out
}
