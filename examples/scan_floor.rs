//! The floor under `stopgate scan` on one thread: what reading every line
//! of an archive costs when nothing is parsed and nothing is judged.
//!
//! `benches/scan_real.sh` runs it in the same hyperfine runs as the scan,
//! `rg` and the naive scan (`examples/naive_scan.rs`), so that the naive
//! target (`stopgate scan` at least 10 times faster than the naive scan)
//! can be set beside the most any scan that reads every line could reach.
//! Each file the scan's walker lists is read one line at a time, and each
//! line's top-level `type` is read by the same byte probes the scan uses
//! first (`quick_type`, then `tail_type`): the work the scan does on every
//! line before it decides to parse one. The count of assistant lines is
//! printed, so none of it is optimised away.
//!
//! Two ways of reading:
//!
//! - by default, the scan's own reader: 256 KiB chunks read into one
//!   buffer, lines handed out in place;
//! - `--mmap`: each file memory-mapped and split in place, which spares
//!   the kernel's copy. The scan does not map files, because a file
//!   truncated under a map kills the process; this shows what that copy
//!   costs.
//!
//! ```sh
//! cargo run --release --example scan_floor --features internals -- ~/.claude/projects
//! cargo run --release --example scan_floor --features internals -- --mmap ~/.claude/projects
//! ```

use std::fs::File;
use std::path::PathBuf;
use std::process::ExitCode;

use stopgate::archive;
use stopgate::internals::{for_each_streamed_line, quick_type, tail_type};
use stopgate::read::DEFAULT_CHUNK;

/// How each file's bytes reach the line splitter.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Read {
    /// Chunks read into a buffer, as the scan reads.
    Streamed,
    /// The file mapped.
    Mapped,
}

/// Lines seen, and those typed `assistant`.
#[derive(Default)]
struct Counts {
    lines: u64,
    assistant: u64,
}

impl Counts {
    fn line(&mut self, line: &[u8]) {
        self.lines += 1;
        let kind = quick_type(line).or_else(|| tail_type(line));
        self.assistant += u64::from(kind == Some(b"assistant"));
    }
}

fn main() -> ExitCode {
    let mut read = Read::Streamed;
    let mut paths = vec![];
    for arg in std::env::args_os().skip(1) {
        if arg == "--mmap" {
            read = Read::Mapped;
        } else {
            paths.push(PathBuf::from(arg));
        }
    }
    if paths.is_empty() {
        eprintln!("usage: scan_floor [--mmap] PATH...");
        return ExitCode::from(2);
    }
    match run(&paths, read) {
        Ok(counts) => {
            println!(
                "{} lines, {} assistant lines",
                counts.lines, counts.assistant
            );
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("scan_floor: {err}");
            ExitCode::from(2)
        }
    }
}

fn run(
    paths: &[PathBuf],
    read: Read,
) -> Result<Counts, Box<dyn std::error::Error>> {
    let mut counts = Counts::default();
    for file in archive::walk(paths, None)?.files {
        let path = &file.path;
        let named = |e: std::io::Error| format!("{}: {e}", path.display());
        let f = File::open(path).map_err(named)?;
        match read {
            Read::Streamed => {
                for_each_streamed_line(f, DEFAULT_CHUNK, |l| counts.line(l))
                    .map_err(named)?;
            }
            Read::Mapped => {
                // SAFETY: a benchmark's own copy of the archive, which
                // nothing truncates while it runs.
                let map = unsafe { memmap2::Mmap::map(&f) }.map_err(named)?;
                let bytes: &[u8] = &map;
                let mut start = 0;
                for nl in memchr::memchr_iter(b'\n', bytes) {
                    counts.line(&bytes[start..nl]);
                    start = nl + 1;
                }
                if start < bytes.len() {
                    counts.line(&bytes[start..]);
                }
            }
        }
    }
    Ok(counts)
}
