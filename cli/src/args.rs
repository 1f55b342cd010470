//! The command line: what `opal` and each of its commands accept (clap derive), and the exit
//! codes every help page ends with.

use clap::builder::NonEmptyStringValueParser;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

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
        /// Step budget of run until and the confluence check (More ▸ step budget; remembered).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        max_steps: Option<u64>,
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
