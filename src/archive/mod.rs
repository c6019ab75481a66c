//! The archive scanner: every turn of every session, judged by the gates.
//!
//! `stopgate scan` answers, across months of sessions, how often agents
//! changed files and never audited, how often the audits were hollow, how
//! often an agent deferred or caved, and whether the Stop hooks ran and
//! blocked. It must work where usage scanners fall over (500 MB sessions,
//! multi-GB archives), so:
//!
//! * files are streamed in chunks ([`StreamReader`](crate::read::StreamReader)),
//!   never mapped and never read whole, and lines over a cap
//!   ([`DEFAULT_MAX_LINE`](crate::read::DEFAULT_MAX_LINE)) are
//!   skipped as they stream: memory is bounded by the cap and the thread
//!   count;
//! * lines are classified by their top-level `type` without parsing, and
//!   only user prompts, assistant lines and stop-hook summaries are parsed;
//! * files are scanned in parallel, each thread taking the next file
//!   itself and the calling thread writing the reports in order (see
//!   `ordered.rs` for why not a pool), and a date filter skips files
//!   by modification time before opening them.
//!
//! The judgments are the one [`Judge`]'s ([`Judge::judge_turn`]): the
//! scan, the hook and `stopgate check` ask the same judge, built from the
//! same configuration.

#[cfg(feature = "arrow")]
pub mod arrow;
mod ordered;
mod scan;
mod walk;

use crate::error::Error;
use crate::judge::Judge;

pub use self::scan::{
    change_sources, is_stopgate_command, path_text, report_turn, scan_bytes,
    scan_file, scan_reader, Evidence, FileReport, Finding, ScanOptions,
    TurnReport, ORPHAN_NOTE, UNJUDGED,
};
use self::scan::{scan_file_in, ScanSpace};
pub use self::walk::{default_root, walk, Candidate, Walk, Walked};

/// How many files may be scanned or wait to be handed out, per thread:
/// enough that a long file does not hold the others up, few enough that
/// the reports held are small.
const IN_FLIGHT_PER_THREAD: usize = 64;

/// The most files in flight, whatever the number of threads.
const MAX_IN_FLIGHT: usize = 1 << 12;

/// Scan `files` on `threads` threads, calling `progress` with each file's
/// size as it finishes. Reports come back in the order of `files`.
///
/// This holds every report; [`scan_files_each`] hands them out as they
/// are ready instead, so that memory does not grow with the archive.
///
/// # Errors
///
/// An error of kind [`ThreadPool`](crate::ErrorKind::ThreadPool) when the
/// scan's threads cannot be started.
pub fn scan_files(
    files: &[Candidate],
    judge: &Judge,
    options: &ScanOptions,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<FileReport>, Error> {
    let mut reports = Vec::with_capacity(files.len());
    let each = &mut |r: &mut FileReport| reports.push(std::mem::take(r));
    scan_files_each(
        files.iter().cloned(),
        judge,
        options,
        threads,
        progress,
        each,
    )?;
    Ok(reports)
}

/// Scan `files` on `threads` threads and hand each file's report to
/// `each`, in the order of `files`, calling `progress` with each file's
/// size as it finishes.
///
/// Files are taken from `files` (a [`Walk`], say) as long as fewer than a
/// few dozen per thread are scanned or waiting to be handed out (small
/// ones a few at a time, big ones one by one); a report waits only for
/// those of the files before it. A scan of 100,000 sessions so holds a
/// window of files and reports, never all of them, and no thread idles at
/// the end while another finishes a batch of long files. The output is
/// the same on every thread count.
///
/// `each` gets each report to read, or to take from
/// (`std::mem::take(report)` keeps the whole of it). What it leaves is
/// freed by the thread that scanned the file: freeing many small
/// allocations made on another thread contends for that thread's
/// allocator, and on an archive of small files cost more than the second
/// thread gained.
///
/// # Errors
///
/// An error of kind [`ThreadPool`](crate::ErrorKind::ThreadPool) when the
/// scan's threads cannot be started.
pub fn scan_files_each<I>(
    files: I,
    judge: &Judge,
    options: &ScanOptions,
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
    each: &mut dyn FnMut(&mut FileReport),
) -> Result<(), Error>
where
    I: IntoIterator<Item = Candidate>,
    I::IntoIter: Send,
{
    let threads = threads.max(1);
    let window =
        threads.saturating_mul(IN_FLIGHT_PER_THREAD).min(MAX_IN_FLIGHT);
    // Each thread keeps its parsers and buffer from one file to the next.
    let work = |space: &mut ScanSpace, c: Candidate| {
        let report = scan_file_in(&c.path, judge, options, space);
        progress(c.len);
        report
    };
    let files = files.into_iter();
    let space = &|| ScanSpace::new(options);
    ordered::for_each_ordered(files, (threads, window), space, work, each)
        .map_err(|e| Error::thread_pool(&e))
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::config::Config;

    /// 300 small sessions in three folders, named so that name order and
    /// creation order differ.
    fn archive() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/transcripts/turn_kinds.jsonl");
        let text = std::fs::read_to_string(fixture).unwrap();
        for i in (0..300).rev() {
            let sub = dir.path().join(["b", "a", "c"][i % 3]);
            std::fs::create_dir_all(&sub).unwrap();
            let name = sub.join(format!("s{:03}.jsonl", (i * 7) % 300));
            std::fs::write(name, &text).unwrap();
        }
        dir
    }

    #[test]
    fn reports_come_in_path_order_past_the_window() {
        let dir = archive();
        let roots = vec![dir.path().to_path_buf()];
        let gates = Judge::for_bulk(&Config::default()).unwrap();
        let options = ScanOptions::default();
        let mut listed: Vec<PathBuf> = walkdir::WalkDir::new(dir.path())
            .into_iter()
            .map(|e| e.unwrap().into_path())
            .filter(|p| p.is_file())
            .collect();
        listed.sort();
        // Two threads: at most 128 files in flight, of 300.
        let mut got = vec![];
        let walk = Walk::new(&roots, None).unwrap();
        scan_files_each(walk, &gates, &options, 2, &|_| {}, &mut |r| {
            got.push(std::mem::take(r))
        })
        .unwrap();
        let paths: Vec<&PathBuf> = got.iter().map(|r| &r.path).collect();
        assert_eq!(paths, listed.iter().collect::<Vec<_>>());
        let one_by_one: Vec<FileReport> =
            listed.iter().map(|p| scan_file(p, &gates, &options)).collect();
        assert_eq!(got, one_by_one);
    }

    #[test]
    fn roots_are_walked_in_order_and_once() {
        let dir = archive();
        let a = dir.path().join("a");
        let whole = dir.path().to_path_buf();
        let file = std::fs::read_dir(dir.path().join("c"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        // Out of order, repeated, nested: every file once, in path order.
        let roots = vec![file.clone(), a.clone(), whole.clone(), a];
        let walked = walk(&roots, None).unwrap();
        let paths: Vec<PathBuf> =
            walked.files.into_iter().map(|c| c.path).collect();
        let mut want = paths.clone();
        want.sort();
        want.dedup();
        assert_eq!(paths, want);
        assert_eq!(paths.len(), 300);
    }

    #[test]
    fn a_root_reached_through_a_link_inside_another_is_walked() {
        let dir = archive();
        let elsewhere = tempfile::tempdir().unwrap();
        let text = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/transcripts/turn_kinds.jsonl"),
        )
        .unwrap();
        std::fs::write(elsewhere.path().join("x.jsonl"), text).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(elsewhere.path(), &link).unwrap();
        // The walk of the whole folder does not follow `link`; naming it
        // walks it.
        let roots = vec![dir.path().to_path_buf(), link.clone()];
        let walked = walk(&roots, None).unwrap();
        assert_eq!(walked.files.len(), 301);
        assert!(walked.files.iter().any(|c| c.path == link.join("x.jsonl")));
    }
}
