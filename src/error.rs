//! The crate's one error type.
//!
//! Errors are opaque, in the style of `aho-corasick`'s `BuildError`: the
//! variants live in a private enum, so adding one is not a breaking change.
//! Every error that concerns a file names that file, because the first
//! thing a user needs from "no such file" is *which* file.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// An error from opening a transcript or building a keyword set.
///
/// Use [`Error::path`] to learn which file it concerns, if any, and
/// [`Error::io_error`] for the underlying I/O error, if any.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
}

#[derive(Debug)]
enum ErrorKind {
    Io { path: PathBuf, source: io::Error },
    NotAFile { path: PathBuf, what: &'static str },
    EmptyKeyword { index: usize },
    Keywords(aho_corasick::BuildError),
}

impl Error {
    pub(crate) fn io(path: &Path, source: io::Error) -> Error {
        Error { kind: ErrorKind::Io { path: path.to_path_buf(), source } }
    }

    pub(crate) fn not_a_file(path: &Path, what: &'static str) -> Error {
        Error { kind: ErrorKind::NotAFile { path: path.to_path_buf(), what } }
    }

    pub(crate) fn empty_keyword(index: usize) -> Error {
        Error { kind: ErrorKind::EmptyKeyword { index } }
    }

    pub(crate) fn keywords(err: aho_corasick::BuildError) -> Error {
        Error { kind: ErrorKind::Keywords(err) }
    }

    /// The file this error concerns, if it concerns one.
    pub fn path(&self) -> Option<&Path> {
        match self.kind {
            ErrorKind::Io { ref path, .. }
            | ErrorKind::NotAFile { ref path, .. } => Some(path),
            _ => None,
        }
    }

    /// The underlying I/O error, if this error came from one.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self.kind {
            ErrorKind::Io { ref source, .. } => Some(source),
            _ => None,
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self.kind {
            ErrorKind::Io { ref source, .. } => Some(source),
            ErrorKind::Keywords(ref err) => Some(err),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ErrorKind::Io { ref path, ref source } => {
                write!(f, "{}: {}", path.display(), source)
            }
            ErrorKind::NotAFile { ref path, what } => {
                write!(
                    f,
                    "{}: is {}, not a transcript file",
                    path.display(),
                    what
                )
            }
            ErrorKind::EmptyKeyword { index } => {
                write!(
                    f,
                    "keyword {} is empty, which would match everywhere",
                    index
                )
            }
            ErrorKind::Keywords(ref err) => {
                write!(f, "failed to build keyword set: {}", err)
            }
        }
    }
}
