//! The `tidings` binary: parses the command line, resolves the configuration once, and runs
//! the command. The only place that reads config files, environment variables and the clock
//! for the libraries.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    // A bug must still end in one clear line, not a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let one_line = payload.split_whitespace().collect::<Vec<_>>().join(" ");
        eprintln!(
            "error: internal error, please report it: {}",
            cli::terminal::visible(&one_line)
        );
    }));
    match cli::main() {
        Ok(code) => code,
        // The reader went away (`tidings feeds | head`): nothing more to say, like any
        // command-line tool.
        Err(e)
            if e.chain().any(|cause| {
                cause
                    .downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            // Errors echo URLs, titles and file contents: shown, never obeyed.
            let chain = cli::terminal::error_chain(e.chain().map(ToString::to_string));
            eprintln!("error: {}", cli::terminal::lines(&chain));
            ExitCode::FAILURE
        }
    }
}
