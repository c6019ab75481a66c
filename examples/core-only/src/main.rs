//! A hook author's program that links stopgate's read layer alone
//! (`default-features = false`): no gates, no command line, no hook state,
//! no archive walker.
//!
//! It prints the final assistant text of a transcript.
//!
//! ```sh
//! cargo run --manifest-path examples/core-only/Cargo.toml -- fixtures/audited.jsonl
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: stopgate-core-only TRANSCRIPT");
        return ExitCode::from(2);
    };
    let transcript = match stopgate::read::Transcript::read_tail(&path, 64 << 10) {
        Ok(t) => t,
        Err(err) => {
            eprintln!("stopgate-core-only: {err}");
            return ExitCode::from(2);
        }
    };
    let Some(last) = transcript.final_assistant_text() else {
        println!("no final text");
        return ExitCode::from(1);
    };
    println!("{}", last.text());
    ExitCode::SUCCESS
}
