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

impl Candidate {
    /// A file to scan, listed by other means than a [`Walk`] (a list made
    /// on another machine, say): its size as listed, 0 if unknown. A file
    /// that has gone by the time it is scanned is a report with its error.
    pub fn new(path: PathBuf, len: u64) -> Candidate {
        Candidate { path, len }
    }
}

/// What walking the paths found: see [`walk`].
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

/// List the `*.jsonl` files under `paths`: [`Walk`], collected.
///
/// # Errors
///
/// An error of kind [`MissingPath`](crate::ErrorKind::MissingPath) when a
/// path does not exist: a scan of nothing would mislead.
pub fn walk(
    paths: &[PathBuf],
    modified_since: Option<SystemTime>,
) -> Result<Walked, Error> {
    let mut walk = Walk::new(paths, modified_since)?;
    let files = walk.by_ref().collect();
    Ok(Walked {
        files,
        skipped_by_date: walk.skipped_by_date,
        errors: walk.errors,
    })
}

/// The `*.jsonl` files under some paths (subagent files under
/// `<session>/subagents/` included), one at a time, in path order, so that
/// a scan of 100,000 sessions never lists them all.
///
/// A path that is a regular file is taken as it is, and one that is a
/// FIFO, a device or a socket is skipped with an error in
/// [`Walk::errors`]. Files last modified before `modified_since` are left
/// out without being opened. Directory symlinks are not followed. A path
/// inside another path given is walked once.
#[derive(Debug)]
pub struct Walk {
    roots: std::vec::IntoIter<PathBuf>,
    entries: Option<walkdir::IntoIter>,
    modified_since: Option<SystemTime>,
    skipped_by_date: usize,
    errors: Vec<String>,
}

impl Walk {
    /// A walk of `paths`.
    ///
    /// # Errors
    ///
    /// An error of kind [`MissingPath`](crate::ErrorKind::MissingPath) when
    /// a path does not exist: a scan of nothing would mislead.
    pub fn new(
        paths: &[PathBuf],
        modified_since: Option<SystemTime>,
    ) -> Result<Walk, Error> {
        if let Some(missing) =
            paths.iter().find(|p| std::fs::symlink_metadata(p).is_err())
        {
            return Err(Error::missing_path(missing));
        }
        // Roots in path order, each walked in name order, give every file
        // in path order. A root inside another is walked with it.
        let mut roots = paths.to_vec();
        roots.sort();
        roots.dedup();
        let wanted = |r: &Path| {
            r.is_dir() || r.extension().is_some_and(|e| e == "jsonl")
        };
        let keep: Vec<PathBuf> = roots
            .iter()
            .filter(|r| {
                !(wanted(r) && roots.iter().any(|o| walked_within(r, o)))
            })
            .cloned()
            .collect();
        Ok(Walk {
            roots: keep.into_iter(),
            entries: None,
            modified_since,
            skipped_by_date: 0,
            errors: vec![],
        })
    }

    /// Files left out so far because they were last modified before
    /// `modified_since`.
    pub fn skipped_by_date(&self) -> usize {
        self.skipped_by_date
    }

    /// Entries that could not be read so far (permissions, races), with
    /// why.
    pub fn errors(&self) -> &[String] {
        &self.errors
    }

    /// The candidate an entry stands for, if it is one.
    fn candidate(&mut self, entry: walkdir::DirEntry) -> Option<Candidate> {
        // A path named on the command line is taken as it is; under a
        // directory, only `*.jsonl` files.
        let ft = entry.file_type();
        let wanted = if entry.depth() == 0 {
            // A FIFO would hang the scan, `/dev/zero` would never end.
            if !ft.is_dir() && !ft.is_file() {
                self.errors.push(format!(
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
            return None;
        }
        let meta = match entry.metadata() {
            Ok(m) => m,
            Err(e) => {
                self.errors.push(format!("{}: {e}", entry.path().display()));
                return None;
            }
        };
        if let (Some(since), Ok(mtime)) =
            (self.modified_since, meta.modified())
        {
            if mtime < since {
                self.skipped_by_date += 1;
                return None;
            }
        }
        Some(Candidate { path: entry.into_path(), len: meta.len() })
    }
}

/// The order of a folder's entries: by name, as walkdir's
/// `sort_by_file_name`, but without finding each path's last component
/// at every comparison (a few percent of a scan of many small files).
/// Entries of one folder share their paths up to the name, so their paths'
/// bytes compare as their names' do.
fn by_name(
    a: &walkdir::DirEntry,
    b: &walkdir::DirEntry,
) -> std::cmp::Ordering {
    a.path().as_os_str().cmp(b.path().as_os_str())
}

/// Whether the walk of `outer` visits `inner`: it lies below it, and no
/// folder on the way is a symlink, since a walk follows only its root's.
fn walked_within(inner: &Path, outer: &Path) -> bool {
    inner != outer
        && inner.starts_with(outer)
        && outer.is_dir()
        && inner.ancestors().take_while(|p| *p != outer).all(|p| {
            std::fs::symlink_metadata(p).is_ok_and(|m| !m.is_symlink())
        })
}

impl Iterator for Walk {
    type Item = Candidate;

    fn next(&mut self) -> Option<Candidate> {
        loop {
            let Some(entries) = self.entries.as_mut() else {
                let root = self.roots.next()?;
                self.entries = Some(
                    walkdir::WalkDir::new(root)
                        .follow_root_links(true)
                        .sort_by(by_name)
                        .into_iter(),
                );
                continue;
            };
            match entries.next() {
                None => self.entries = None,
                Some(Err(e)) => self.errors.push(e.to_string()),
                Some(Ok(entry)) => {
                    if let Some(c) = self.candidate(entry) {
                        return Some(c);
                    }
                }
            }
        }
    }
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
