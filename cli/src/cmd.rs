//! Subcommands. Exit codes: 0 ok, 1 static errors, 2 usage, 3 runtime failure, 4 step budget.

use clap::builder::NonEmptyStringValueParser;
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use opal_core::diag::{render, Diagnostic, Severity};
use opal_core::span::LineIndex;
use opal_core::{compile, format};
use std::path::{Path, PathBuf};

/// What each exit code means; printed at the end of `opal --help` and every command's help.
pub const EXIT_CODES: &str = "Exit codes:
  0  success (the program finished; for explore: one normal form per choice sequence)
  1  static errors (syntax, well-formedness, world or trace file), or a file that cannot be read
  2  usage error (unknown command or option, bad value)
  3  runtime failure (a stuck statement, a failed external call, a replay that does not match)
  4  budget reached (--max-steps for run and step, --max-states for explore)";

#[derive(Parser)]
#[command(
    name = "opal",
    version,
    about = "OPAL: a toolchain for the opportunistically parallel lambda calculus (λ^O)",
    long_about = "OPAL: a toolchain for λ^O, the opportunistically parallel lambda calculus. External \
calls (LLM requests, web APIs, processes) are dispatched as soon as their arguments are known and \
everything else keeps reducing meanwhile. LANGUAGE.md and SEMANTICS.md are the contract.",
    after_help = EXIT_CODES,
    propagate_version = true,
    subcommand_required = true,
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Parse, desugar, check well-formedness and lints (with the world file beside each FILE).
    #[command(after_help = EXIT_CODES)]
    Check {
        /// OPAL programs (`.opal`) or world files (`.world.toml`).
        #[arg(required = true, value_name = "FILE")]
        files: Vec<String>,
        /// Diagnostics as text (`file:line:col: error[E…]: …`) or as a JSON array.
        #[arg(long, value_enum, default_value = "human")]
        format: CheckFormat,
    },
    /// Format files canonically, in place.
    #[command(after_help = EXIT_CODES)]
    Fmt {
        /// OPAL programs to rewrite.
        #[arg(required = true, value_name = "FILE", value_parser = NonEmptyStringValueParser::new())]
        files: Vec<String>,
        /// Change nothing; exit 1 if a file would be reformatted.
        #[arg(long)]
        check: bool,
    },
    /// Print the initial labeled core term (SEMANTICS.md notation).
    #[command(after_help = EXIT_CODES)]
    Desugar {
        /// The OPAL program.
        #[arg(value_name = "FILE")]
        file: String,
        /// Also print the prelude definitions the program uses.
        #[arg(long)]
        prelude: bool,
    },
    /// Run a program; print its output as it happens and its result at the end.
    #[command(after_help = EXIT_CODES)]
    Run(RunArgs),
    /// Print the labeled term after every step.
    #[command(after_help = EXIT_CODES)]
    Step(StepArgs),
    /// Explore the step orders of a small program: its normal forms, one order per
    /// equivalence class (partial-order reduction) unless --full.
    #[command(after_help = EXIT_CODES)]
    Explore {
        /// The OPAL program (small: exploration is exponential in the worst case).
        #[arg(value_name = "FILE")]
        file: String,
        /// World file mocking the externals (default: NAME.world.toml beside NAME.opal).
        #[arg(long, value_name = "W")]
        world: Option<String>,
        /// Stop after this many states (exit 4, reporting what was found).
        #[arg(long, value_name = "N", default_value_t = 10_000)]
        max_states: usize,
        /// Every interleaving, without partial-order reduction.
        #[arg(long)]
        full: bool,
        /// Write the reduction graph (Graphviz) to this file.
        #[arg(long, value_name = "FILE", value_parser = NonEmptyStringValueParser::new())]
        dot: Option<String>,
    },
    /// Open the step debugger window (no FILE: the bundled examples).
    #[command(after_help = EXIT_CODES)]
    Debug {
        /// The OPAL program to open.
        #[arg(value_name = "FILE")]
        file: Option<String>,
        /// World file mocking the externals (default: NAME.world.toml beside NAME.opal).
        #[arg(long, value_name = "W")]
        world: Option<String>,
        /// Resolve calls from this recorded trace.
        #[arg(long, value_name = "T")]
        replay: Option<String>,
        /// Allow externals that run programs (create_process …).
        #[arg(long)]
        allow_exec: bool,
    },
    /// Run the language server on stdio.
    Lsp {
        /// Accepted for editors that pass it; stdio is the only transport.
        #[arg(long)]
        stdio: bool,
    },
    /// Run the Debug Adapter Protocol server on stdio (docs/dap.md).
    Dap,
    /// Print a shell completion script: `opal completions bash > /etc/bash_completion.d/opal`.
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print a man page (roff): `opal man > opal.1 && man ./opal.1`, `opal man run` for
    /// opal-run(1), or write every page with `--out-dir`.
    #[command(after_help = EXIT_CODES)]
    Man {
        /// The command whose page to print (opal-run(1) for `run`); none: opal(1).
        #[arg(value_name = "COMMAND")]
        command: Option<String>,
        /// Write opal.1 and one page per command (opal-run.1, …) into this directory.
        #[arg(long, value_name = "DIR", conflicts_with = "command")]
        out_dir: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum CheckFormat {
    Human,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum StrategyArg {
    /// Every steppable statement steps each round (λ^O).
    Opportunistic,
    /// Call-by-value: the leftmost statement that is not a value, one at a time.
    Cbv,
    /// Only what the result needs.
    Lazy,
}

impl From<StrategyArg> for opal_core::machine::run::Strategy {
    fn from(s: StrategyArg) -> Self {
        use opal_core::machine::run::Strategy;
        match s {
            StrategyArg::Opportunistic => Strategy::Opportunistic,
            StrategyArg::Cbv => Strategy::Cbv,
            StrategyArg::Lazy => Strategy::Lazy,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum StepFormat {
    Text,
    Json,
}

/// How a run resolves and bounds its externals and steps (run and step share them).
#[derive(Args)]
pub struct EvalArgs {
    /// Evaluation strategy (SEMANTICS.md §5).
    #[arg(long, value_enum, default_value = "opportunistic")]
    pub strategy: StrategyArg,
    /// World file mocking the externals (default: NAME.world.toml beside NAME.opal).
    #[arg(long, value_name = "W")]
    pub world: Option<String>,
    /// Resolve calls from a recorded trace instead of calling them.
    #[arg(long, value_name = "T")]
    pub replay: Option<String>,
    /// Replay a trace recorded from another version of the program; mismatches are warnings.
    #[arg(long)]
    pub force: bool,
    /// Stop after N steps (exit 4); a run that needs exactly N steps finishes. `opal run` has no
    /// budget of its own; `opal step` stops at 10 000 unless told otherwise.
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u64>,
}

#[derive(Args)]
pub struct RunArgs {
    /// The OPAL program.
    #[arg(value_name = "FILE")]
    pub file: String,
    #[command(flatten)]
    pub eval: EvalArgs,
    /// Record every resolution to a trace file.
    #[arg(long, value_name = "T", value_parser = NonEmptyStringValueParser::new())]
    pub record: Option<String>,
    /// Replaying, reproduce the recorded resolve times.
    #[arg(long, requires = "replay")]
    pub timing: bool,
    /// Allow externals that run programs (create_process …).
    #[arg(long)]
    pub allow_exec: bool,
    /// Print step counts per rule, tasks and times to stderr.
    #[arg(long)]
    pub stats: bool,
    /// Do not print the result (output still prints).
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Args)]
pub struct StepArgs {
    /// The OPAL program.
    #[arg(value_name = "FILE")]
    pub file: String,
    #[command(flatten)]
    pub eval: EvalArgs,
    /// Stop after N opportunistic rounds.
    #[arg(long, value_name = "N")]
    pub rounds: Option<u64>,
    /// Each step as text (rule, label, term) or as one JSON object per line.
    #[arg(long, value_enum, default_value = "text")]
    pub format: StepFormat,
}

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
        Command::Run(a) => crate::run::run(&a),
        Command::Step(a) => crate::run::step(&a),
        Command::Explore { file, world, max_states, full, dot } => crate::run::explore(&file, world.as_deref(), max_states, full, dot.as_deref()),
        Command::Debug { file, world, replay, allow_exec } => debug(file.as_deref(), world.as_deref(), replay.as_deref(), allow_exec),
        Command::Lsp { stdio: _ } => {
            crate::return_idle_memory();
            opal_lsp::run_stdio()
        }
        Command::Dap => opal_dap::run_stdio(Some(Box::new(|allow_exec| {
            Box::new(move || std::rc::Rc::new(opal_live::LiveExternals::from_env(allow_exec)) as std::rc::Rc<dyn opal_core::machine::live::Live>)
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
            eprintln!("opal: cannot create the directory {} for the man pages: {e}", dir.display());
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
                eprintln!("opal: no command `{name}`; man pages exist for: {}", names.join(", "));
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
    man.render(&mut page).map_err(|e| format!("cannot render the man page {}: {e}", man.get_filename()))?;
    opal_core::files::write_file_safely(&dir.join(man.get_filename()), &page).map_err(|e| e.to_string())
}

pub fn read_file(path: &str) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
    String::from_utf8(bytes).map_err(|e| format!("`{path}` is not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
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

/// Loads and checks a program with its world file; prints diagnostics. `Err(code)` to exit.
pub fn load(file: &str, world: Option<&str>) -> Result<(String, opal_core::Compiled, Option<opal_core::world::World>), i32> {
    let text = read_file(file).map_err(|e| {
        eprintln!("opal: {e}");
        1
    })?;
    // A large world file (thousands of responses) takes as long to load as the program takes
    // to compile: do both at once. The world's `order` keys change the desugaring of externs
    // declared without a class; the few world files that have them compile the program again.
    let (compiled, (w, wdiags)) = if world_path(file, world).is_none() {
        (opal_core::compile(&text), (None, None))
    } else {
        std::thread::scope(|s| {
            let loading = s.spawn(|| load_world(file, world));
            let compiled = opal_core::compile(&text);
            let failed = || (None, Some((world.unwrap_or(file).to_string(), String::new(), vec![world_loader_failed()])));
            (compiled, loading.join().unwrap_or_else(|_| failed()))
        })
    };
    let compiled = match &w {
        Some(w) if !w.orders().is_empty() => opal_core::compile_parsed(compiled.parsed, Some(w)),
        _ => compiled,
    };
    let mut diags = compiled.diags.clone();
    if w.is_some() || wdiags.is_none() {
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
    Diagnostic::error("E0900", Default::default(), "internal error while loading the world file").with_help("please report this with the world file")
}

/// A world file's diagnostics: its path, its text, and what is wrong with it (or worth a warning).
type WorldDiags = (String, String, Vec<Diagnostic>);

pub fn load_world(file: &str, explicit: Option<&str>) -> (Option<opal_core::world::World>, Option<WorldDiags>) {
    let Some(p) = world_path(file, explicit) else { return (None, None) };
    let ps = p.display().to_string();
    let text = match read_file(&ps) {
        Ok(t) => t,
        Err(e) => return (None, Some((ps, String::new(), vec![Diagnostic::error("E0200", Default::default(), e)]))),
    };
    match opal_core::world::parse_world(&text) {
        Ok(w) => {
            let warnings = w.warnings.clone();
            (Some(w), (!warnings.is_empty()).then_some((ps, text, warnings)))
        }
        Err(ds) => (None, Some((ps, text, ds))),
    }
}

/// `opal check` of a world file itself.
fn check_world(text: &str) -> Vec<Diagnostic> {
    match opal_core::world::parse_world(text) {
        Ok(w) => w.warnings,
        Err(ds) => ds,
    }
}

/// Prints one file's diagnostics (one line index for all of them), or adds them to `all`.
fn emit(diags: &[Diagnostic], file: &str, text: &str, json: bool, all: &mut Vec<serde_json::Value>) {
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
                    all.push(json_diag(&Diagnostic::error("E0300", Default::default(), e), file, "", &LineIndex::new("")));
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
        let compiled = opal_core::compile_with(&text, w.as_ref());
        let mut diags = compiled.diags.clone();
        // A world file that did not load has its own errors; "no entry" would be noise.
        if w.is_some() || wdiags.is_none() {
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
        // What cannot be written back (a FIFO, a directory) is refused before it is read: reading
        // a FIFO would wait for a writer forever.
        if let Err(e) = (!check).then(|| opal_core::files::check_writable(Path::new(file))).transpose() {
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
            } else if let Err(e) = opal_core::files::write_file_safely(Path::new(file), out.as_bytes()) {
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
    let compiled = compile(&text);
    print_diags(&compiled.diags, file, &text);
    if compiled.has_errors() {
        return 1;
    }
    print!("{}", opal_core::machine::print_initial(&compiled.program, prelude));
    0
}

/// `opal debug [FILE]`: the step debugger window (`opal-debugger-gui`).
fn debug(file: Option<&str>, world: Option<&str>, trace: Option<&str>, allow_exec: bool) -> i32 {
    let (file, world, trace) = (file.map(Path::new), world.map(Path::new), trace.map(Path::new));
    let live: opal_debugger_gui::live::LiveFactory = Box::new(move || std::rc::Rc::new(opal_live::LiveExternals::from_env(allow_exec)));
    match opal_debugger_gui::run_native(file, world, trace, Some(live)) {
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
