//! The `opal` command-line tool (LANGUAGE.md §6).

mod cmd;
mod run;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    ExitCode::from(cmd::main(args) as u8)
}
