//! `stopgate check FILE`: run the gates offline, as the hook would.
//!
//! It reads the transcript, takes its last turn (or turn `--turn N`, as
//! `stopgate scan` numbers them) with the work of the subagents it
//! launched folded in as the scan folds it (a background subagent's change
//! made after the launching turn ended is a later turn's; with
//! `gate_subagents`, none: a subagent's file is then judged on its own),
//! and asks the one [`Judge`] the hook and the scan ask, built from the
//! same configuration. The change flag is inferred from the turn's tool
//! uses as PostToolUse would have raised it, whatever
//! `transcript_changes` says (that switch only tells the hook whether to
//! trust the transcript when no flag was raised). A turn that ended in
//! no Stop (the user interrupted it, or a local command) is allowed, as
//! no hook judged it; its file changes count at the next turn's Stop, as
//! the hook counts them. Sessions with an unattended entrypoint
//! (`skip_entrypoints`, `sdk-cli` by default) are allowed, as the hook
//! allows them. It uses a fresh session (no prompts counted,
//! nothing nagged) and never touches the state directory, so it is safe to
//! run on any transcript: what it prints of the transcript (an entrypoint,
//! what matched) goes through [`super::inert::terminal`].

use std::path::PathBuf;
use std::process::ExitCode;

use stopgate::archive::change_sources;
use stopgate::judge::Skipped;
use stopgate::judge::{
    AuditStatus, Facts, Judge, SessionView, TurnChanges, Verdict,
};
use stopgate::read::Transcript;
use stopgate::read::Turn;

use super::inert::{terminal, terminal_lines};

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
        stopgate::read::Transcript::RECORD_PROBE_LINES
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
    let judge = Judge::new(&config).map_err(|e| e.to_string())?;
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
    let turn = pick_turn(&transcript, &judge, args)?;
    let entrypoint = transcript.entrypoint();
    let unattended = entrypoint.filter(|e| judge.skips(Some(e)));
    let changes = TurnChanges::of(&turn);
    let judged = judge.judge_changes(&turn, &changes, unattended.is_some());
    let facts = Facts::of_changes(&turn, &changes);
    // `--prompt-changed`: the flag is up whatever the transcript shows.
    let verdict = if args.prompt_changed && judged.skipped().is_none() {
        judge.evaluate(&facts.with_changed(true), &SessionView::default())
    } else {
        judged.verdict()
    };
    let matched = judge.matched(&facts);
    let audit = if args.prompt_changed {
        let facts = facts.with_changed(true);
        Some(audit_reading(&judge.gates().audit_status_of(&facts)))
    } else {
        judged.changed().then(|| audit_reading(judged.audit()))
    };
    if args.json {
        let mut out = json(&verdict, &turn, unattended.as_deref(), &matched);
        out["audit"] = serde_json::json!(audit);
        out["changes"] = serde_json::json!(change_sources(&turn, &changes));
        println!("{out}");
        return Ok(ExitCode::SUCCESS);
    }
    match (&verdict, judged.skipped()) {
        (Verdict::Block(b), _) => println!(
            "block {} {}\n{}",
            b.gate().as_str(),
            b.rule(),
            terminal_lines(b.message())
        ),
        (Verdict::Allow, Some(Skipped::Unattended)) => println!(
            "allow (entrypoint {} is unattended)",
            terminal(unattended.as_deref().unwrap_or_default())
        ),
        (Verdict::Allow, Some(Skipped::NoStop)) => println!(
            "allow (a turn of kind {} ends in no Stop)",
            turn.kind().as_str()
        ),
        (Verdict::Allow, None) => println!("allow"),
    }
    if let Some(audit) = &audit {
        println!("audit: {}", terminal(&audit.to_string()));
    }
    for source in change_sources(&turn, &changes) {
        println!("changes: {}", terminal(&source));
    }
    if !matched.is_empty() {
        println!("matched: {}", terminal(&matched.join(", ")));
    }
    Ok(ExitCode::SUCCESS)
}

/// How the judge read a change turn's audit, and on what: the marker,
/// the plain-language lead and its referent, the learned model, or the
/// check the turn ran and the sentence that reports it.
#[derive(Debug, serde::Serialize)]
struct AuditReading {
    /// `marker`, `plain`, `grounded`, `escape`, `uncertain` or `none`.
    status: &'static str,
    /// What decided it, in a few words.
    by: String,
}

impl std::fmt::Display for AuditReading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.by.as_str() {
            "" => write!(f, "{}", self.status),
            by => write!(f, "{} ({by})", self.status),
        }
    }
}

fn audit_reading(status: &AuditStatus) -> AuditReading {
    let (status, by) = match status {
        AuditStatus::Present(markers) => {
            ("marker", format!("markers: {}", markers.join(", ")))
        }
        AuditStatus::Plain(p) if p.is_learned() => (
            "plain",
            "the learned model reads a check; the grammar names no lead"
                .to_string(),
        ),
        AuditStatus::Plain(p) => (
            "plain",
            format!("lead {:?}, naming {:?}", p.lead(), p.referent()),
        ),
        AuditStatus::Grounded { command, sentence } => {
            let ran = match command.as_str() {
                "" => "a re-read or search".to_string(),
                c => format!("`{c}`"),
            };
            (
                "grounded",
                format!("{ran} ran after the last change: {sentence:?}"),
            )
        }
        AuditStatus::Escape(hatch) => ("escape", format!("hatch {hatch:?}")),
        AuditStatus::Uncertain(p) => (
            "uncertain",
            format!(
                "the learned model doubts the check the grammar reads: lead \
                 {:?}, naming {:?}",
                p.lead(),
                p.referent()
            ),
        ),
        _ => (
            "none",
            "no marker, no plain-language audit, no reported check run \
             after the last change"
                .to_string(),
        ),
    };
    AuditReading { status, by }
}

/// The turn to judge: the last, or `--turn N`, read as the judge reads a
/// session ([`Judge::turns`]).
fn pick_turn(
    transcript: &Transcript,
    judge: &Judge,
    args: &Args,
) -> Result<Turn, String> {
    let mut turns = judge.turns(transcript, &args.file);
    let Some(n) = args.turn else {
        return Ok(turns.pop().unwrap_or_default());
    };
    let count = turns.len();
    turns.into_iter().find(|t| t.index() == n).ok_or_else(|| {
        format!(
            "{}: no turn {n} (the file has turns 1 to {})",
            args.file.display(),
            count.saturating_sub(1).max(1)
        )
    })
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
