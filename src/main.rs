//! The `stopgate` command line.
//!
//! This file only parses arguments and dispatches; each subcommand lives in
//! its own file under `src/cmd/`. All I/O of the binary happens there, at
//! the edge, and the library stays free of it.

use std::process::ExitCode;

use clap::error::ErrorKind;
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

    /// Run as the hook of Claude Code, Codex CLI or Gemini CLI (--agent):
    /// reads one JSON object on stdin (see `stopgate hook --help`).
    Hook(cmd::hook::Args),

    /// Scan transcript archives for unaudited changes, hollow audits,
    /// deferrals, capitulations and unverified claims, turn by turn.
    ///
    /// Streams every file in chunks (memory stays bounded by the longest
    /// line), in parallel, with a progress bar on a terminal. Exit status:
    /// 0, or 1 with --fail-on-findings when anything was found, 2 on an
    /// error such as a missing PATH.
    // Boxed: the largest of the arguments, and the command is a value.
    Scan(Box<cmd::scan::Args>),

    /// Run the gates offline on a transcript, as if a Stop happened now.
    ///
    /// Prints `allow`, or `block <gate> <rule>` and the message, then the
    /// keywords and patterns that fired. Never touches the hook's state.
    /// Exit status: 0 for either verdict, 2 on an error.
    Check(cmd::check::Args),

    /// Show or check the configuration (stopgate.toml).
    Config(cmd::config::Args),

    /// Add stopgate's hooks to an agent's settings: Claude Code's
    /// settings.json by default, Codex CLI's or Gemini CLI's with --agent.
    ///
    /// For Claude Code, merges a PostToolUse entry (matcher Write|Edit|MultiEdit|NotebookEdit|Bash)
    /// and Stop and SubagentStop entries, using this binary's absolute path
    /// (for the project's shared file, `stopgate` from PATH or a path from
    /// $CLAUDE_PROJECT_DIR). Every other key, byte and hook is kept, a
    /// backup is written first, and running it twice changes nothing.
    Install(cmd::install::Args),

    /// Undo `stopgate install`.
    ///
    /// Puts back the file as it was before install, byte for byte (or
    /// removes it if install created it) when nothing changed it since;
    /// otherwise removes exactly stopgate's entries.
    Uninstall(cmd::install::Args),

    /// Check the installation and run a self-test of the hook.
    Doctor(cmd::doctor::Args),

    /// Print a shell completion script.
    ///
    /// For example `stopgate completions bash >
    /// ~/.local/share/bash-completion/completions/stopgate`, or
    /// `stopgate completions zsh > ~/.zfunc/_stopgate`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },

    /// Print the manual page (roff), or a subcommand's.
    ///
    /// For example `stopgate man > ~/.local/share/man/man1/stopgate.1`,
    /// then `man stopgate`; `stopgate man scan > …/stopgate-scan.1` for
    /// the page the main one names as stopgate-scan(1).
    Man {
        /// The subcommand whose page to print (scan, hook, check, …).
        subcommand: Option<String>,
    },
}

/// `stopgate hook` alone: parsed without building the whole command line,
/// because the hook's start-up time is paid on every tool use and turn.
#[derive(Parser, Debug)]
#[command(
    name = "stopgate hook",
    about = "Run as the hook of Claude Code, Codex CLI or Gemini CLI: reads one JSON object on stdin.",
    long_about = "Run as the hook of Claude Code, Codex CLI or Gemini CLI (--agent): reads one \
        JSON object on stdin.\n\n\
        PostToolUse raises the session's change flag when a tool changed files. Stop runs \
        the gates and blocks (exit 2, message on stderr, or JSON on stdout with \
        output = \"json\") when the agent says it is done without auditing its change. \
        Any internal problem exits 0: the hook never blocks an agent by its own fault, and \
        tells the user once per session (the client's systemMessage) that it is not \
        guarding. Set STOPGATE_DEBUG=1 to log to debug.log in the state directory."
)]
struct HookCli {
    #[command(flatten)]
    args: cmd::hook::Args,
}

fn main() -> ExitCode {
    if std::env::args_os().nth(1).is_some_and(|a| a == "hook") {
        return match HookCli::try_parse_from(std::env::args_os().skip(1)) {
            Ok(cli) => cmd::hook::run(&cli.args),
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
                ) =>
            {
                let _ = e.print();
                ExitCode::SUCCESS
            }
            // A hook must never fail loudly: a misconfigured command line
            // in settings.json still exits 0 with nothing on stderr.
            Err(_) => ExitCode::SUCCESS,
        };
    }
    // Outside the hook, a closed pipe (`stopgate check f | head -1`) ends
    // the process quietly, as for any Unix filter, instead of a panic in
    // `println!`. The hook keeps Rust's default (SIGPIPE ignored): it must
    // never die by a signal.
    // SAFETY: setting a signal's disposition to the default has no
    // preconditions; no handler of ours is replaced.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    match cli.command {
        Command::Last(args) => cmd::last::run(&args),
        Command::Hook(args) => cmd::hook::run(&args),
        Command::Check(args) => cmd::check::run(&args),
        Command::Scan(args) => cmd::scan::run(&args),
        Command::Config(args) => cmd::config::run(&args),
        Command::Install(args) => cmd::install::run(&args, false),
        Command::Uninstall(args) => cmd::install::run(&args, true),
        Command::Doctor(args) => cmd::doctor::run(&args),
        Command::Completions { shell } => {
            let mut cli = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(
                shell,
                &mut cli,
                "stopgate",
                &mut std::io::stdout(),
            );
            ExitCode::SUCCESS
        }
        Command::Man { subcommand } => {
            let Some(page) = man_page(subcommand.as_deref()) else {
                eprintln!(
                    "stopgate: no subcommand {:?}; see `stopgate --help`",
                    subcommand.unwrap_or_default()
                );
                return ExitCode::from(2);
            };
            match clap_mangen::Man::new(page).render(&mut std::io::stdout()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("stopgate: writing the manual page: {e}");
                    ExitCode::from(2)
                }
            }
        }
    }
}

/// The command whose manual page `stopgate man [SUBCOMMAND]` prints: the
/// whole command line, or one subcommand, named `stopgate-<name>` as the
/// main page's SUBCOMMANDS section names it.
fn man_page(subcommand: Option<&str>) -> Option<clap::Command> {
    let mut cli = <Cli as clap::CommandFactory>::command();
    let Some(name) = subcommand else { return Some(cli) };
    // Built, the command holds the `help` subcommand the page names too.
    cli.build();
    let sub = cli.find_subcommand(name)?.clone();
    let full = format!("stopgate-{name}");
    Some(sub.name(full.clone()).bin_name(full))
}
