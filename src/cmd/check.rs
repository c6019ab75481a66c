//! `stopgate check FILE`: run the gates offline, as the hook would.
//!
//! It reads the transcript, takes its last turn (or turn `--turn N`, as
//! `stopgate scan` numbers them) with the work of the subagents it
//! launched folded in as the scan folds it (a background subagent's change
//! made after the launching turn ended is a later turn's), and runs the
//! configured gates on facts built the one way the hook and the scan build
//! them. A turn that ended in no Stop (the user interrupted it, or a local
//! command) is allowed, as no hook judged it; its file changes count at
//! the next turn's Stop, as the hook counts them. Sessions with an unattended
//! entrypoint (`skip_entrypoints`, `sdk-cli` by default) are allowed, as
//! the hook allows them. It uses a fresh session (no prompts counted,
//! nothing nagged) and never touches the state directory, so it is safe to
//! run on any transcript.

use std::path::PathBuf;
use std::process::ExitCode;

use stopgate::Transcript;
use stopgate::{Chain, Turn};
use stopgate::{Facts, Gates, SessionView, Verdict};

/// Arguments of `stopgate check`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The transcript file (JSON Lines).
    file: PathBuf,

    /// Judge turn N (1 for the first prompt's, as `stopgate scan` numbers
    /// them) instead of the last.
    #[arg(long, value_name = "N")]
    turn: Option<usize>,

    /// Print one JSON object: verdict, gate, rule, message, matched (the
    /// keywords and patterns that fired), turn, kind and the final text's
    /// line.
    #[arg(long)]
    json: bool,

    /// Count the change flag as present, as if a PostToolUse had raised it.
    #[arg(long)]
    prompt_changed: bool,

    /// Use this stopgate.toml instead of searching for one.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

/// The one-line error for a file that is no transcript.
pub fn not_a_transcript(file: &std::path::Path) -> String {
    format!(
        "{}: not a transcript (no JSON record with a \"type\" in its first \
         {} lines)",
        file.display(),
        stopgate::Transcript::RECORD_PROBE_LINES
    )
}

/// Run `stopgate check`.
pub fn run(args: &Args) -> ExitCode {
    match run_inner(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("stopgate: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_inner(args: &Args) -> Result<ExitCode, String> {
    let config = super::config::load_strict(args.config.as_deref())?;
    let gates = Gates::new(&config).map_err(|e| e.to_string())?;
    let name = args.file.display().to_string();
    super::signals::install(
        &format!("stopgate: {name}: file was truncated while being read\n"),
        2,
    );
    // SAFETY: a truncation while the file is mapped raises SIGBUS, which
    // the handler above turns into a one-line error and exit status 2.
    // Mapped rather than read, memory is bounded by the page cache, not a
    // copy of the whole file; a special file (a FIFO, `/dev/zero`) is
    // refused, never waited on or read without end.
    let transcript = unsafe { Transcript::open_mmap_regular(&args.file) }
        .map_err(|e| e.to_string())?;
    if !transcript.looks_like_transcript() {
        return Err(not_a_transcript(&args.file));
    }
    let mut turns = transcript.turns_with_subagents(Chain::Main, &args.file);
    let turn = match args.turn {
        None => turns.pop().unwrap_or_default(),
        Some(n) => {
            let count = turns.len();
            turns.into_iter().find(|t| t.index() == n).ok_or_else(|| {
                format!(
                    "{}: no turn {n} (the file has turns 1 to {})",
                    args.file.display(),
                    count.saturating_sub(1).max(1)
                )
            })?
        }
    };
    let unattended =
        transcript.entrypoint().filter(|e| config.skips_entrypoint(e));
    let facts = Facts::of_turn(&turn).with_changed(
        args.prompt_changed || (config.transcript_changes && turn.changed()),
    );
    // No Stop fires for an interrupted turn or a local command: nothing
    // is judged, as the scan gives such a turn no findings.
    let stops = turn.kind().ends_in_stop();
    let verdict = match &unattended {
        None if stops => gates.evaluate(&facts, &SessionView::default()),
        _ => Verdict::Allow,
    };
    let matched = gates.matched(&facts);
    if args.json {
        println!("{}", json(&verdict, &turn, unattended.as_deref(), &matched));
    } else {
        match &verdict {
            Verdict::Allow => match &unattended {
                Some(e) => println!("allow (entrypoint {e} is unattended)"),
                None if !stops => println!(
                    "allow (a turn of kind {} ends in no Stop)",
                    turn.kind().as_str()
                ),
                None => println!("allow"),
            },
            Verdict::Block(b) => println!(
                "block {} {}\n{}",
                b.gate().as_str(),
                b.rule(),
                b.message()
            ),
        }
        if !matched.is_empty() {
            println!("matched: {}", matched.join(", "));
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn json(
    verdict: &Verdict,
    turn: &Turn,
    unattended: Option<&str>,
    matched: &[String],
) -> serde_json::Value {
    let block = verdict.block();
    serde_json::json!({
        "verdict": if block.is_some() { "block" } else { "allow" },
        "gate": block.map(|b| b.gate().as_str()),
        "rule": block.map(|b| b.rule().as_str()),
        "message": block.map(|b| b.message()),
        "matched": matched,
        "turn": turn.index(),
        "kind": turn.kind().as_str(),
        "line": turn.final_text_line(),
        "unattended": unattended,
    })
}
