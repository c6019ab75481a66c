//! Finding transcript files under the paths a user names.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::error::Error;

/// A file to scan, with its size.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Candidate {
    /// The file.
    pub path: PathBuf,
    /// Its size when listed.
    pub len: u64,
}

/// What walking the paths found.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Walked {
    /// The files, sorted by path.
    pub files: Vec<Candidate>,
    /// Files left out because they were last modified before `since`.
    pub skipped_by_date: usize,
    /// Entries that could not be read (permissions, races), with why.
    pub errors: Vec<String>,
}

/// List the `*.jsonl` files under `paths` (subagent files under
/// `<session>/subagents/` included); a path that is a regular file is
/// taken as it is, and one that is a FIFO, a device or a socket is skipped
/// with an error in [`Walked::errors`]. Files last modified before
/// `modified_since` are left out without being opened. Directory symlinks
/// are not followed.
///
/// # Errors
///
/// An error of kind [`MissingPath`](crate::ErrorKind::MissingPath) when a
/// path does not exist: a scan of nothing would mislead.
pub fn walk(
    paths: &[PathBuf],
    modified_since: Option<SystemTime>,
) -> Result<Walked, Error> {
    let mut out = Walked::default();
    for root in paths {
        if std::fs::symlink_metadata(root).is_err() {
            return Err(Error::missing_path(root));
        }
        for entry in walkdir::WalkDir::new(root).follow_root_links(true) {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    out.errors.push(e.to_string());
                    continue;
                }
            };
            // A path named on the command line is taken as it is; under a
            // directory, only `*.jsonl` files.
            let ft = entry.file_type();
            let wanted = if entry.depth() == 0 {
                // A FIFO would hang the scan, `/dev/zero` would never end.
                if !ft.is_dir() && !ft.is_file() {
                    out.errors.push(format!(
                        "{}: not a regular file, skipped",
                        entry.path().display()
                    ));
                }
                ft.is_file()
            } else {
                ft.is_file()
                    && entry.path().extension().is_some_and(|e| e == "jsonl")
            };
            if !wanted {
                continue;
            }
            let meta = match entry.metadata() {
                Ok(m) => m,
                Err(e) => {
                    out.errors
                        .push(format!("{}: {e}", entry.path().display()));
                    continue;
                }
            };
            if let (Some(since), Ok(mtime)) = (modified_since, meta.modified())
            {
                if mtime < since {
                    out.skipped_by_date += 1;
                    continue;
                }
            }
            out.files.push(Candidate {
                path: entry.path().to_path_buf(),
                len: meta.len(),
            });
        }
    }
    out.files.sort_by(|a, b| a.path.cmp(&b.path));
    out.files.dedup_by(|a, b| a.path == b.path);
    Ok(out)
}

/// The default archive: `$CLAUDE_CONFIG_DIR/projects`, else
/// `~/.claude/projects`.
pub fn default_root(var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(dir) = var("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Some(Path::new(&dir).join("projects"));
    }
    var("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| Path::new(&h).join(".claude/projects"))
}
