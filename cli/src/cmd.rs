//! Subcommands. Exit codes: 0 ok, 1 static errors, 2 usage, 3 runtime failure, 4 step budget.
//! The arguments are in `args`, loading in `load`; run, step and explore in `run`.

use crate::args::{CheckFormat, Cli, Command};
use crate::load::{load_world, print_diags, read_file};
use crate::run;
use clap::{CommandFactory, Parser};
use opal_core::diag::{Diagnostic, Severity};
use opal_core::format;
use opal_core::span::LineIndex;
use std::path::Path;

/// Parses the command line (clap prints help, versions and usage errors, exit 0 or 2) and runs
/// the command.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match cli.command {
        Command::Check { files, format } => check(&files, matches!(format, CheckFormat::Json)),
        Command::Fmt { files, check } => fmt(&files, check),
        Command::Desugar { file, prelude } => desugar(&file, prelude),
        Command::Run(a) => run::run(&a),
        Command::Step(a) => run::step(&a),
        Command::Explore {
            file,
            world,
            max_states,
            full,
            dot,
        } => run::explore(&file, world.as_deref(), max_states, full, dot.as_deref()),
        Command::Debug {
            file,
            world,
            replay,
            allow_exec,
            max_steps,
        } => debug(
            file.as_deref(),
            world.as_deref(),
            replay.as_deref(),
            allow_exec,
            max_steps,
        ),
        Command::Lsp { stdio: _ } => {
            return_idle_memory();
            opal_lsp::run_stdio()
        }
        Command::Dap => opal_dap::run_stdio(Some(Box::new(|allow_exec, program| {
            Box::new(move || {
                std::rc::Rc::new(opal_live::LiveExternals::for_program(
                    allow_exec,
                    program.as_deref(),
                )) as std::rc::Rc<dyn opal_core::machine::live::Live>
            })
        }))),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "opal", &mut std::io::stdout());
            0
        }
        Command::Man { command, out_dir } => man(command.as_deref(), out_dir.as_deref()),
    }
}

/// `opal man`: opal(1), one command's page, or every page into a directory.
fn man(command: Option<&str>, out_dir: Option<&Path>) -> i32 {
    let mut cli = Cli::command().disable_help_subcommand(true);
    // Building names each subcommand `opal-run` etc., the pages' titles.
    cli.build();
    if let Some(dir) = out_dir {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!(
                "opal: cannot create the directory {} for the man pages: {e}",
                dir.display()
            );
            return 1;
        }
        return match write_man_pages(cli, dir) {
            Ok(()) => {
                println!("wrote the man pages to {}", dir.display());
                0
            }
            Err(e) => {
                eprintln!("opal: {e}");
                1
            }
        };
    }
    let page = match command {
        None => cli,
        Some(name) => match cli.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => {
                let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
                eprintln!(
                    "opal: no command `{name}`; man pages exist for: {}",
                    names.join(", ")
                );
                return 2;
            }
        },
    };
    match clap_mangen::Man::new(page).render(&mut std::io::stdout()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("opal: cannot write the man page: {e}");
            1
        }
    }
}

/// What `clap_mangen::generate_to` writes (`opal.1` and a page per visible command, named by
/// `Man::get_filename`), but through `write_file_safely`, as every file opal writes.
fn write_man_pages(cmd: clap::Command, dir: &Path) -> Result<(), String> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_man_pages(sub.clone(), dir)?;
    }
    let man = clap_mangen::Man::new(cmd);
    let mut page = Vec::new();
    man.render(&mut page)
        .map_err(|e| format!("cannot render the man page {}: {e}", man.get_filename()))?;
    opal_core::files::write_file_safely(&dir.join(man.get_filename()), &page)
        .map_err(|e| e.to_string())
}

fn json_diag(d: &Diagnostic, file: &str, text: &str, idx: &LineIndex) -> serde_json::Value {
    let s = idx.line_col(text, d.span.start);
    let e = idx.line_col(text, d.span.end);
    serde_json::json!({
        "file": file,
        "range": {"start": {"line": s.line, "col": s.col}, "end": {"line": e.line, "col": e.col}},
        "severity": match d.severity { Severity::Error => "error", Severity::Warning => "warning" },
        "code": d.code,
        "message": d.message,
        "help": d.help,
    })
}

/// `opal check` of a world file itself.
fn check_world(text: &str) -> Vec<Diagnostic> {
    match opal_core::world::parse_world(text) {
        Ok(w) => w.warnings,
        Err(ds) => ds,
    }
}

/// Prints one file's diagnostics (one line index for all of them), or adds them to `all`.
fn emit(
    diags: &[Diagnostic],
    file: &str,
    text: &str,
    json: bool,
    all: &mut Vec<serde_json::Value>,
) {
    if json {
        let idx = LineIndex::new(text);
        all.extend(diags.iter().map(|d| json_diag(d, file, text, &idx)));
    } else {
        print_diags(diags, file, text);
    }
}

fn check(files: &[String], json: bool) -> i32 {
    let mut any_error = false;
    let mut all = Vec::new();
    for file in files {
        let text = match read_file(file) {
            Ok(t) => t,
            Err(e) => {
                any_error = true;
                if json {
                    all.push(json_diag(
                        &Diagnostic::error("E0300", Default::default(), e),
                        file,
                        "",
                        &LineIndex::new(""),
                    ));
                } else {
                    eprintln!("opal: {e}");
                }
                continue;
            }
        };
        // A world file checks as a world file (its TOML is not OPAL).
        if file.ends_with(".toml") {
            let diags = check_world(&text);
            any_error |= diags.iter().any(Diagnostic::is_error);
            emit(&diags, file, &text, json, &mut all);
            continue;
        }
        let (w, wdiags) = load_world(file, None);
        let compiled = opal_core::compile_file(file, &text, w.as_ref());
        let mut diags = compiled.diags.clone();
        // A world file that did not load has its own errors; "no entry" would be noise.
        // A Python script's externals run in CPython: none needs a world file.
        if (w.is_some() || wdiags.is_none()) && !opal_core::python::is_python(file) {
            diags.extend(opal_core::check_externs(&compiled.program, w.as_ref()));
        }
        any_error |= diags.iter().any(Diagnostic::is_error);
        emit(&diags, file, &text, json, &mut all);
        if let Some((wf, wt, ds)) = &wdiags {
            any_error |= ds.iter().any(Diagnostic::is_error);
            emit(ds, wf, wt, json, &mut all);
        }
    }
    if json {
        println!("{}", serde_json::Value::Array(all));
    }
    i32::from(any_error)
}

fn fmt(files: &[String], check: bool) -> i32 {
    let mut code = 0;
    for file in files {
        if opal_core::python::is_python(file) {
            eprintln!("opal: {file}: `opal fmt` formats OPAL; format a Python script with its own tools (`ruff format`, `black`)");
            code = 1;
            continue;
        }
        // What cannot be written back (a FIFO, a directory) is refused before it is read: reading
        // a FIFO would wait for a writer forever.
        if let Err(e) = (!check)
            .then(|| opal_core::files::check_writable(Path::new(file)))
            .transpose()
        {
            eprintln!("opal: {e}");
            code = 1;
            continue;
        }
        let text = match read_file(file) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("opal: {e}");
                code = 1;
                continue;
            }
        };
        let parsed = opal_core::syntax::parser::parse(&text);
        if parsed.diags.iter().any(|d| d.is_error()) {
            print_diags(&parsed.diags, file, &text);
            eprintln!("opal: not formatting `{file}`: fix the syntax errors first");
            code = 1;
            continue;
        }
        let out = format::format(&parsed);
        if out != text {
            if check {
                eprintln!("{file}: would be reformatted");
                code = 1;
            } else if let Err(e) =
                opal_core::files::write_file_safely(Path::new(file), out.as_bytes())
            {
                eprintln!("opal: {e}");
                code = 1;
            }
        }
    }
    code
}

fn desugar(file: &str, prelude: bool) -> i32 {
    let text = match read_file(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("opal: {e}");
            return 1;
        }
    };
    let compiled = opal_core::compile_file(file, &text, None);
    print_diags(&compiled.diags, file, &text);
    if compiled.has_errors() {
        return 1;
    }
    print!(
        "{}",
        opal_core::machine::print_initial(&compiled.program, prelude)
    );
    0
}

/// `opal debug [FILE]`: the step debugger window (`opal-debugger-gui`).
fn debug(
    file: Option<&str>,
    world: Option<&str>,
    trace: Option<&str>,
    allow_exec: bool,
    max_steps: Option<u64>,
) -> i32 {
    let (file, world, trace) = (
        file.map(Path::new),
        world.map(Path::new),
        trace.map(Path::new),
    );
    let program = file.map(Path::to_path_buf);
    let live: opal_debugger_gui::live::LiveFactory = Box::new(move || {
        std::rc::Rc::new(opal_live::LiveExternals::for_program(
            allow_exec,
            program.as_deref(),
        ))
    });
    match opal_debugger_gui::run_native(
        file,
        world,
        trace,
        max_steps.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        Some(live),
    ) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("opal: {e}");
            if e.contains("cannot open a window") {
                eprintln!("  = help: the debugger needs a display (X11 or Wayland); on a headless machine run it under `xvfb-run`");
            }
            1
        }
    }
}

/// For long-lived servers (`opal lsp`): mimalloc returns freed memory to the system only when
/// it is next called and the memory has been free a while, so an idle server kept its peak (RSS
/// after 10 000 edits about 2.3× the RSS after opening 50 000 lines). A thread that asks it to
/// every second, as jemalloc's background thread does, gives the memory back once the editor
/// goes quiet (1.3–1.4×, `opal-bench lsp`); purging at every free instead cost each analysis
/// 45 ms of page faults.
fn return_idle_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    let _ = std::thread::Builder::new()
        .name("return-idle-memory".into())
        .spawn(|| loop {
            std::thread::sleep(std::time::Duration::from_secs(1));
            // SAFETY: mi_collect only releases memory the allocator holds free; `true` releases it
            // whatever its age (mimalloc waits up to ten seconds for arenas otherwise).
            unsafe { libmimalloc_sys::mi_collect(true) }
        });
}
