//! `stopgate last FILE [--json]`: print the final assistant text.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use stopgate::read::Transcript;

/// Arguments of `stopgate last`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The transcript file (JSON Lines), such as
    /// ~/.claude/projects/<project>/<session>.jsonl.
    file: PathBuf,

    /// Print one JSON object: text, message_id, entrypoint, line (1-based)
    /// and skipped_corrupt (corrupt lines passed over while looking).
    #[arg(long)]
    json: bool,
}

/// Run `stopgate last`.
pub fn run(args: &Args) -> ExitCode {
    let name = args.file.display().to_string();
    super::signals::install(
        &format!("stopgate: {name}: file was truncated while being read\n"),
        2,
    );
    // SAFETY: if another process truncates the file while we read it, the
    // handler installed above turns the SIGBUS into a one-line error and
    // exit status 2. Appends are harmless. A special file (a FIFO,
    // `/dev/zero`) is refused, never waited on or read without end.
    let transcript = match unsafe { Transcript::open_mmap_regular(&args.file) }
    {
        Ok(t) => t,
        Err(err) => {
            eprintln!("stopgate: {err}");
            return ExitCode::from(2);
        }
    };
    if !transcript.looks_like_transcript() {
        eprintln!("stopgate: {}", super::check::not_a_transcript(&args.file));
        return ExitCode::from(2);
    }
    let mut out = std::io::stdout().lock();
    let Some(last) = transcript.final_assistant_text() else {
        eprintln!("stopgate: {name}: no assistant text");
        if args.json {
            // A script reads one object either way.
            let obj = serde_json::json!({
                "text": null,
                "message_id": null,
                "entrypoint": transcript.entrypoint(),
                "line": null,
                "skipped_corrupt": 0,
            });
            let _ = writeln!(out, "{obj}").and_then(|()| out.flush());
        }
        return ExitCode::from(1);
    };
    let written = if args.json {
        let obj = serde_json::json!({
            "text": last.text(),
            "message_id": last.message_id(),
            "entrypoint": transcript.entrypoint(),
            "line": transcript.line_number(last.offset()),
            "skipped_corrupt": last.skipped_corrupt(),
        });
        writeln!(out, "{obj}")
    } else {
        writeln!(out, "{}", last.text())
    };
    match written.and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`stopgate last f | head -1`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("stopgate: writing output: {e}");
            ExitCode::from(2)
        }
    }
}
