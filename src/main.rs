//! The `stopgate` command line.
//!
//! This file only parses arguments and dispatches; each subcommand lives in
//! its own file under `src/cmd/`. All I/O of the binary happens there, at
//! the edge, and the library stays free of it.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;

/// Reads coding-agent transcripts fast and enforces "done" discipline at
/// the agent's Stop hook.
#[derive(Parser, Debug)]
#[command(name = "stopgate", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the final assistant text of a transcript.
    ///
    /// The text is the last `text` block of the main chain: subagent
    /// (sidechain) lines and the records that trail the last assistant line
    /// are skipped. Only the end of the file is read, however big it is.
    ///
    /// Exit status: 0 when a text was found, 1 when the transcript holds
    /// none, 2 on an error.
    Last(cmd::last::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Last(args) => cmd::last::run(&args),
    }
}
