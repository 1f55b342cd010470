//! Reading a program and its world file, compiling it, and printing what is wrong with them
//! (shared by check, fmt, desugar, run, step and explore).

use opal_core::diag::{render, Diagnostic};
use opal_core::span::LineIndex;
use std::path::{Path, PathBuf};

/// A program, world file or trace the command line names: a regular file of at most
/// `opal_core::files::MAX_READ` bytes (`/dev/zero` and FIFOs are refused, not read for ever).
pub fn read_file(path: &str) -> Result<String, String> {
    opal_core::files::read_text(Path::new(path), "file", opal_core::files::MAX_READ)
        .map_err(|e| e.to_string())
}

/// The world file for a program: `--world W`, else `NAME.world.toml` beside `NAME.opal`.
pub fn world_path(file: &str, explicit: Option<&str>) -> Option<PathBuf> {
    if let Some(w) = explicit {
        return Some(PathBuf::from(w));
    }
    opal_core::world::path_beside(Path::new(file)).filter(|w| w.exists())
}

pub fn print_diags(diags: &[Diagnostic], file: &str, text: &str) {
    let idx = LineIndex::new(text);
    for d in diags {
        eprint!("{}", render(d, file, text, &idx));
    }
}

/// Loads and checks a program with its world file; prints diagnostics. `Err(code)` to exit.
pub fn load(
    file: &str,
    world: Option<&str>,
) -> Result<(String, opal_core::Compiled, Option<opal_core::world::World>), i32> {
    let text = read_file(file).map_err(|e| {
        eprintln!("opal: {e}");
        1
    })?;
    // A large world file (thousands of responses) takes as long to load as the program takes
    // to compile: do both at once. The world's `order` keys change the desugaring of externs
    // declared without a class; the few world files that have them compile the program again.
    let (compiled, (w, wdiags)) = if world_path(file, world).is_none() {
        (opal_core::compile_file(file, &text, None), (None, None))
    } else {
        std::thread::scope(|s| {
            let loading = s.spawn(|| load_world(file, world));
            let compiled = opal_core::compile_file(file, &text, None);
            let failed = || {
                (
                    None,
                    Some((
                        world.unwrap_or(file).to_string(),
                        String::new(),
                        vec![world_loader_failed()],
                    )),
                )
            };
            (compiled, loading.join().unwrap_or_else(|_| failed()))
        })
    };
    let compiled = match &w {
        Some(w) if !w.orders().is_empty() => {
            opal_core::compile_parsed_file(file, compiled.parsed, Some(w))
        }
        _ => compiled,
    };
    let mut diags = compiled.diags.clone();
    // A Python script's externals run in CPython: none needs a world file.
    if (w.is_some() || wdiags.is_none()) && !opal_core::python::is_python(file) {
        diags.extend(opal_core::check_externs(&compiled.program, w.as_ref()));
    }
    print_diags(&diags, file, &text);
    if let Some((wf, wt, ds)) = &wdiags {
        print_diags(ds, wf, wt);
    }
    if diags.iter().any(|d| d.is_error()) || (w.is_none() && world_path(file, world).is_some()) {
        return Err(1);
    }
    Ok((text, compiled, w))
}

/// The world loader never panics; should it, the run stops with this rather than without a world.
fn world_loader_failed() -> Diagnostic {
    Diagnostic::error(
        "E0900",
        Default::default(),
        "internal error while loading the world file",
    )
    .with_help("please report this with the world file")
}

/// A world file's diagnostics: its path, its text, and what is wrong with it (or worth a warning).
type WorldDiags = (String, String, Vec<Diagnostic>);

pub fn load_world(
    file: &str,
    explicit: Option<&str>,
) -> (Option<opal_core::world::World>, Option<WorldDiags>) {
    let Some(p) = world_path(file, explicit) else {
        return (None, None);
    };
    let ps = p.display().to_string();
    let text = match read_file(&ps) {
        Ok(t) => t,
        Err(e) => {
            return (
                None,
                Some((
                    ps,
                    String::new(),
                    vec![Diagnostic::error("E0200", Default::default(), e)],
                )),
            )
        }
    };
    match opal_core::world::parse_world(&text) {
        Ok(w) => {
            let warnings = w.warnings.clone();
            (
                Some(w),
                (!warnings.is_empty()).then_some((ps, text, warnings)),
            )
        }
        Err(ds) => (None, Some((ps, text, ds))),
    }
}
