//! The `archive` feature: scan a folder of transcripts on every core and
//! count the findings, as `stopgate scan` does without its report.
//!
//! ```sh
//! cargo run --example archive --no-default-features --features archive -- fixtures/
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use stopgate::archive::{self, ScanOptions};
use stopgate::config::Config;
use stopgate::judge::Judge;

fn main() -> ExitCode {
    let paths: Vec<PathBuf> =
        std::env::args_os().skip(1).map(PathBuf::from).collect();
    if paths.is_empty() {
        eprintln!("usage: archive PATH...");
        return ExitCode::from(2);
    }
    match run(&paths) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("archive: {err}");
            ExitCode::from(2)
        }
    }
}

fn run(paths: &[PathBuf]) -> Result<(), stopgate::Error> {
    let config = Config::default();
    let judge = Judge::for_bulk(&config)?;
    let options = ScanOptions::default();
    let walked = archive::walk(paths, None)?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let reports = archive::scan_files(
        &walked.files,
        &judge,
        &options,
        threads,
        &|_| {},
    )?;
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut turns = 0;
    for report in &reports {
        turns += report.turns.len();
        for turn in &report.turns {
            for evidence in &turn.findings {
                *counts.entry(evidence.finding.as_str()).or_default() += 1;
            }
        }
    }
    println!("{} files, {turns} turns", reports.len());
    for (finding, n) in counts {
        println!("{finding}: {n}");
    }
    Ok(())
}
