//! The naive archive scan that `benches/scan_real.sh` measures `stopgate
//! scan` against: every line of every `.jsonl` file under the given
//! folders through `serde_json::Value`, on one thread, counting assistant
//! lines so the work is not optimised away. This is what usage scanners
//! built on a JSON library do.
//!
//! ```sh
//! cargo run --release --example naive_scan -- ~/.claude/projects
//! ```

use std::io::BufRead;
use std::path::Path;

fn scan(path: &Path, assistant: &mut u64) -> std::io::Result<()> {
    if path.is_dir() {
        let mut entries: Vec<_> =
            std::fs::read_dir(path)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            scan(&e.path(), assistant)?;
        }
    } else if path.extension().is_some_and(|e| e == "jsonl") {
        let file = std::fs::File::open(path)?;
        for line in
            std::io::BufReader::with_capacity(256 << 10, file).split(b'\n')
        {
            let line = line?;
            if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&line) {
                *assistant += u64::from(v["type"] == "assistant");
            }
        }
    }
    Ok(())
}

fn main() {
    let mut assistant = 0;
    for root in std::env::args_os().skip(1) {
        if let Err(e) = scan(Path::new(&root), &mut assistant) {
            eprintln!("naive_scan: {}: {e}", Path::new(&root).display());
            std::process::exit(1);
        }
    }
    println!("{assistant} assistant lines");
}
