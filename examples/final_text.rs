//! The read layer and the judge (the `judge` feature, on by default): the final text of a
//! transcript, and what the gates would say if the agent stopped now after
//! changing files.
//!
//! ```sh
//! cargo run --example final_text -- fixtures/transcripts/gate_findings.jsonl
//! ```
//!
//! It reads only the last 64 KiB, however large the file, and takes the
//! turn and the gates' verdict from there: what a hook binary of your own
//! would do at Stop.

use std::process::ExitCode;

use stopgate::config::Config;
use stopgate::judge::{Facts, Gates, SessionView, Verdict};
use stopgate::read::{Chain, Transcript};

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: final_text TRANSCRIPT");
        return ExitCode::from(2);
    };
    match run(std::path::Path::new(&path)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("final_text: {err}");
            ExitCode::from(2)
        }
    }
}

fn run(path: &std::path::Path) -> Result<(), stopgate::Error> {
    let tail = Transcript::read_tail(path, 64 << 10)?;
    match tail.final_assistant_text() {
        Some(last) => println!("final text: {}", last.text()),
        None => println!("final text: (none)"),
    }
    println!("format: {}", tail.format());

    let turn = Transcript::read_current_turn(path, Chain::Main)?;
    let gates = Gates::new(&Config::default())?;
    let facts = Facts::of_turn(&turn).with_changed(true);
    match gates.evaluate(&facts, &SessionView::default()) {
        Verdict::Allow => println!("verdict: allow"),
        Verdict::Block(block) => {
            println!(
                "verdict: block {} {}",
                block.gate().as_str(),
                block.rule()
            );
            println!("{}", block.message());
        }
    }
    Ok(())
}
