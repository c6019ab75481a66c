//! The real corpus in `../shared/corpus`, when it is there.
//!
//! Its files may not be copied into this repository, so this test reads
//! them in place and prints a notice when the folder is absent.

mod oracle;

use std::io::Write;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}

fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let p = entry.path();
        if p.is_dir() {
            jsonl_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "jsonl") {
            out.push(p);
        }
    }
}

#[test]
fn corpus_matches_oracle() {
    let dir = corpus_dir();
    if !dir.is_dir() {
        // Written past the test harness's capture, so CI logs show it.
        let _ = writeln!(
            std::io::stderr(),
            "corpus test skipped: {} does not exist",
            dir.display()
        );
        return;
    }
    let mut files = vec![];
    jsonl_files(&dir, &mut files);
    files.sort();
    assert!(!files.is_empty(), "no .jsonl files under {}", dir.display());
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        oracle::harness::check_against_oracle(path, &bytes);
    }
    eprintln!("corpus: {} files match the oracle", files.len());
}
