//! `stopgate check FILE`: run the gates offline, as if a Stop happened now.
//!
//! It reads the transcript's current turn and runs the configured gates on
//! it, with a fresh session (no prompts counted, nothing nagged). It never
//! touches the state directory, so it is safe to run on any transcript.

use std::path::PathBuf;
use std::process::ExitCode;

use stopgate::changes::last_change;
use stopgate::gates::{Facts, Gates, SessionView, Verdict};
use stopgate::Transcript;

/// Arguments of `stopgate check`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The transcript file (JSON Lines).
    file: PathBuf,

    /// Print one JSON object: verdict, gate, rule, message and matched
    /// (the keywords and patterns that fired).
    #[arg(long)]
    json: bool,

    /// Count the change flag as present, as if a PostToolUse had raised it.
    #[arg(long)]
    prompt_changed: bool,

    /// Use this stopgate.toml instead of searching for one.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

/// Run `stopgate check`.
pub fn run(args: &Args) -> ExitCode {
    let config = match super::config::load_strict(args.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("stopgate: {e}");
            return ExitCode::from(2);
        }
    };
    let gates = match Gates::new(&config) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("stopgate: {e}");
            return ExitCode::from(2);
        }
    };
    let turn = match Transcript::read_current_turn(&args.file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("stopgate: {e}");
            return ExitCode::from(2);
        }
    };
    let changed = args.prompt_changed
        || (config.transcript_changes
            && last_change(turn.tool_uses()).is_some());
    let facts = Facts {
        final_text: turn.final_text().unwrap_or(""),
        prompt: turn.prompt().map(|p| p.text()),
        tool_uses: turn.tool_uses(),
        changed,
        stop_hook_active: false,
    };
    let verdict = gates.evaluate(&facts, &SessionView::default());
    let matched = gates.matched(&facts);
    if args.json {
        let obj = match &verdict {
            Verdict::Allow => serde_json::json!({
                "verdict": "allow", "gate": null, "rule": null, "message": null, "matched": matched,
            }),
            Verdict::Block(b) => serde_json::json!({
                "verdict": "block", "gate": b.gate().as_str(), "rule": b.rule(),
                "message": b.message(), "matched": matched,
            }),
        };
        println!("{obj}");
    } else {
        match &verdict {
            Verdict::Allow => println!("allow"),
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
    ExitCode::SUCCESS
}
