//! The `tidings` binary: parses the command line, resolves the configuration once, and runs
//! the command. The only place that reads config files, environment variables and the clock
//! for the libraries.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::main() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
