//! Subcommands. Exit codes: 0 ok, 1 static errors, 2 usage, 3 runtime failure, 4 step budget.

use opal_core::diag::{render, Diagnostic, Severity};
use opal_core::span::LineIndex;
use opal_core::{compile, format};
use std::path::{Path, PathBuf};

pub const USAGE: &str = "usage: opal <command> [options]

commands:
  check FILE… [--format human|json]     parse, desugar, check well-formedness and lints
  fmt FILE… [--check]                   format files canonically
  desugar FILE [--prelude]              print the initial labeled core term
  run FILE [--strategy S] [--world W] [--record T] [--replay T [--timing] [--force]]
           [--max-steps N] [--allow-exec] [--stats] [--quiet]
  step FILE [--strategy S] [--world W] [--replay T] [--rounds N] [--max-steps N] [--format text|json]
  explore FILE [--world W] [--max-states N] [--full] [--dot FILE]
                                        normal forms of every step order (exit 0 one per choice,
                                        1 confluence violation, 4 --max-states reached)
  debug [FILE] [--world W] [--replay T] [--allow-exec]
                                        open the step debugger window (no FILE: the bundled examples)
  lsp [--stdio]                         run the language server on stdio
  dap                                   run the Debug Adapter Protocol server on stdio (docs/dap.md)

strategies: opportunistic (default), cbv, lazy";

pub struct Args {
    pub files: Vec<String>,
    flags: Vec<(String, Option<String>)>,
}

const VALUED: &[&str] = &["--format", "--strategy", "--world", "--record", "--replay", "--max-steps", "--rounds", "--max-states", "--dot"];

impl Args {
    fn parse(raw: &[String]) -> Result<Args, String> {
        let mut files = Vec::new();
        let mut flags = Vec::new();
        let mut i = 0;
        while i < raw.len() {
            let a = &raw[i];
            if let Some(stripped) = a.strip_prefix("--") {
                let (k, v) = match stripped.split_once('=') {
                    Some((k, v)) => (format!("--{k}"), Some(v.to_string())),
                    None => (a.clone(), None),
                };
                if VALUED.contains(&k.as_str()) && v.is_none() {
                    i += 1;
                    let v = raw.get(i).ok_or_else(|| format!("`{k}` needs a value"))?;
                    flags.push((k, Some(v.clone())));
                } else {
                    flags.push((k, v));
                }
            } else {
                files.push(a.clone());
            }
            i += 1;
        }
        Ok(Args { files, flags })
    }
    pub fn flag(&self, k: &str) -> bool {
        self.flags.iter().any(|(f, _)| f == k)
    }
    pub fn value(&self, k: &str) -> Option<&str> {
        self.flags.iter().rev().find(|(f, _)| f == k).and_then(|(_, v)| v.as_deref())
    }
    fn check_known(&self, known: &[&str]) -> Result<(), String> {
        for (f, _) in &self.flags {
            if !known.contains(&f.as_str()) {
                return Err(format!("unknown option `{f}`"));
            }
        }
        Ok(())
    }
    pub fn number(&self, k: &str) -> Result<Option<u64>, String> {
        match self.value(k) {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|_| format!("`{k}` needs a whole number, got `{v}`")),
        }
    }
}

pub fn usage_error(msg: &str) -> i32 {
    eprintln!("opal: {msg}\n\n{USAGE}");
    2
}

pub fn main(raw: Vec<String>) -> i32 {
    let Some(cmd) = raw.first() else { return usage_error("no command given") };
    let args = match Args::parse(&raw[1..]) {
        Ok(a) => a,
        Err(e) => return usage_error(&e),
    };
    let known: &[&str] = match cmd.as_str() {
        "check" => &["--format"],
        "fmt" => &["--check"],
        "desugar" => &["--prelude"],
        "run" => &["--strategy", "--world", "--record", "--replay", "--timing", "--force", "--max-steps", "--allow-exec", "--stats", "--quiet"],
        "step" => &["--strategy", "--world", "--replay", "--rounds", "--max-steps", "--format", "--force"],
        "explore" => &["--world", "--max-states", "--full", "--dot"],
        "debug" => &["--world", "--replay", "--allow-exec"],
        "lsp" => &["--stdio"],
        "dap" => &[],
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            return 0;
        }
        "--version" | "version" => {
            println!("opal {}", env!("CARGO_PKG_VERSION"));
            return 0;
        }
        other => return usage_error(&format!("unknown command `{other}`")),
    };
    if let Err(e) = args.check_known(known) {
        return usage_error(&e);
    }
    match cmd.as_str() {
        "check" => check(&args),
        "fmt" => fmt(&args),
        "desugar" => desugar(&args),
        "run" => crate::run::run(&args),
        "step" => crate::run::step(&args),
        "explore" => crate::run::explore(&args),
        "debug" => debug(&args),
        "dap" => opal_dap::run_stdio(Some(Box::new(|allow_exec| {
            Box::new(move || std::rc::Rc::new(opal_live::LiveExternals::from_env(allow_exec)) as std::rc::Rc<dyn opal_core::machine::live::Live>)
        }))),
        _ => opal_lsp::run_stdio(),
    }
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
    let compiled = compile(&text);
    let (w, mut wdiags) = load_world(file, world);
    let mut diags = compiled.diags.clone();
    diags.extend(opal_core::check_externs(&compiled.program, w.as_ref()));
    print_diags(&diags, file, &text);
    for (wf, wt, d) in wdiags.drain(..) {
        print_diags(&[d], &wf, &wt);
    }
    if diags.iter().any(|d| d.is_error()) || (w.is_none() && world_path(file, world).is_some()) {
        return Err(1);
    }
    Ok((text, compiled, w))
}

type WorldDiag = (String, String, Diagnostic);

pub fn load_world(file: &str, explicit: Option<&str>) -> (Option<opal_core::world::World>, Vec<WorldDiag>) {
    let Some(p) = world_path(file, explicit) else { return (None, vec![]) };
    let ps = p.display().to_string();
    let text = match read_file(&ps) {
        Ok(t) => t,
        Err(e) => return (None, vec![(ps.clone(), String::new(), Diagnostic::error("E0200", Default::default(), e))]),
    };
    match opal_core::world::parse_world(&text) {
        Ok(w) => (Some(w), vec![]),
        Err(ds) => (None, ds.into_iter().map(|d| (ps.clone(), text.clone(), d)).collect()),
    }
}

fn check(args: &Args) -> i32 {
    if args.files.is_empty() {
        return usage_error("`check` needs at least one FILE");
    }
    let json = match args.value("--format") {
        None | Some("human") => false,
        Some("json") => true,
        Some(other) => return usage_error(&format!("unknown format `{other}` (use human or json)")),
    };
    let mut any_error = false;
    let mut all = Vec::new();
    for file in &args.files {
        let text = match read_file(file) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("opal: {e}");
                any_error = true;
                continue;
            }
        };
        let compiled = compile(&text);
        let (w, wdiags) = load_world(file, None);
        let mut diags = compiled.diags.clone();
        diags.extend(opal_core::check_externs(&compiled.program, w.as_ref()));
        let mut per_file: Vec<(String, String, Diagnostic)> = diags.into_iter().map(|d| (file.clone(), text.clone(), d)).collect();
        per_file.extend(wdiags);
        for (f, t, d) in per_file {
            any_error |= d.is_error();
            if json {
                all.push(json_diag(&d, &f, &t, &LineIndex::new(&t)));
            } else {
                print_diags(&[d], &f, &t);
            }
        }
    }
    if json {
        println!("{}", serde_json::Value::Array(all));
    }
    i32::from(any_error)
}

fn fmt(args: &Args) -> i32 {
    if args.files.is_empty() {
        return usage_error("`fmt` needs at least one FILE");
    }
    let mut code = 0;
    for file in &args.files {
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
            if args.flag("--check") {
                eprintln!("{file}: would be reformatted");
                code = 1;
            } else if let Err(e) = write_atomic(file, &out) {
                eprintln!("opal: cannot write `{file}`: {e}");
                code = 1;
            }
        }
    }
    code
}

/// Writes via a temporary file and a rename, so a crash never leaves half a file.
pub fn write_atomic(path: &str, text: &str) -> std::io::Result<()> {
    let tmp = format!("{path}.opal-tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

fn desugar(args: &Args) -> i32 {
    let [file] = args.files.as_slice() else { return usage_error("`desugar` needs exactly one FILE") };
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
    print!("{}", opal_core::machine::print_initial(&compiled.program, args.flag("--prelude")));
    0
}

/// `opal debug [FILE]`: the step debugger window (`opal-debugger-gui`).
fn debug(args: &Args) -> i32 {
    if args.files.len() > 1 {
        return usage_error("`opal debug` takes one program");
    }
    let file = args.files.first().map(Path::new);
    let world = args.value("--world").map(Path::new);
    let trace = args.value("--replay").map(Path::new);
    let allow_exec = args.flag("--allow-exec");
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
