//! The crate's one error type.
//!
//! Errors are opaque, in the style of `aho-corasick`'s `BuildError` and the
//! `ignore` crate's `Error`: the details live in a private enum, so adding
//! one is not a breaking change, and [`Error::kind`] tells a caller what
//! went wrong without matching on them. Every error that concerns a file
//! names that file, because the first thing a user needs from "no such
//! file" is *which* file.
//!
//! The cause is given once. [`Display`](fmt::Display) writes the whole
//! message, the underlying I/O error included, and [`source`] returns
//! nothing, so that a chain of errors printed by a caller does not repeat
//! it. The I/O error itself is still at hand through [`Error::io_error`].
//!
//! [`source`]: std::error::Error::source

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// An error from opening a transcript, building a keyword set, loading a
/// configuration, or scanning an archive.
///
/// # Example
///
/// ```
/// use stopgate::ErrorKind;
/// use stopgate::read::Transcript;
///
/// let err = Transcript::read("/no/such/transcript.jsonl").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::Io);
/// assert_eq!(
///     err.path(),
///     Some(std::path::Path::new("/no/such/transcript.jsonl")),
/// );
/// assert!(err.to_string().starts_with("/no/such/transcript.jsonl: "));
/// ```
#[derive(Debug)]
pub struct Error {
    kind: Inner,
}

/// What kind of error an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading a file failed: [`Error::path`] names it, and
    /// [`Error::io_error`] gives the cause.
    Io,
    /// The path names something that is not a file, such as a directory.
    NotAFile,
    /// A keyword set could not be built: an empty keyword, or a set too
    /// large for the automaton.
    Keywords,
    /// A configuration file is malformed or invalid: [`Error::path`],
    /// [`Error::line`] and [`Error::column`] say where, when known.
    Config,
    /// An input path given to the archive scanner does not exist.
    MissingPath,
    /// The archive scanner's threads could not be started.
    ThreadPool,
}

#[derive(Debug)]
enum Inner {
    Io {
        path: PathBuf,
        source: io::Error,
    },
    NotAFile {
        path: PathBuf,
        what: &'static str,
    },
    Special {
        path: PathBuf,
        what: &'static str,
    },
    EmptyKeyword {
        index: usize,
    },
    Keywords(aho_corasick::BuildError),
    Config {
        path: Option<PathBuf>,
        position: Option<Position>,
        message: String,
    },
    MissingPath {
        path: PathBuf,
    },
    ThreadPool {
        message: String,
    },
}

/// A 1-based line and column in a text file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Position {
    pub(crate) line: usize,
    pub(crate) column: usize,
}

impl Error {
    pub(crate) fn io(path: &Path, source: io::Error) -> Error {
        Error { kind: Inner::Io { path: path.to_path_buf(), source } }
    }

    pub(crate) fn not_a_file(path: &Path, what: &'static str) -> Error {
        Error { kind: Inner::NotAFile { path: path.to_path_buf(), what } }
    }

    /// A FIFO, a device or a socket where a file to read was expected:
    /// refused, since it could block or never end.
    pub(crate) fn special(path: &Path, what: &'static str) -> Error {
        Error { kind: Inner::Special { path: path.to_path_buf(), what } }
    }

    pub(crate) fn empty_keyword(index: usize) -> Error {
        Error { kind: Inner::EmptyKeyword { index } }
    }

    pub(crate) fn keywords(err: aho_corasick::BuildError) -> Error {
        Error { kind: Inner::Keywords(err) }
    }

    #[cfg_attr(not(feature = "config"), allow(dead_code))]
    pub(crate) fn config(
        message: String,
        position: Option<Position>,
    ) -> Error {
        Error { kind: Inner::Config { path: None, position, message } }
    }

    #[cfg_attr(not(feature = "archive"), allow(dead_code))]
    pub(crate) fn missing_path(path: &Path) -> Error {
        Error { kind: Inner::MissingPath { path: path.to_path_buf() } }
    }

    #[cfg_attr(not(feature = "archive"), allow(dead_code))]
    pub(crate) fn thread_pool(err: &dyn std::error::Error) -> Error {
        Error { kind: Inner::ThreadPool { message: err.to_string() } }
    }

    /// This error, about the file at `path`: a configuration error learns
    /// which file it was read from.
    #[cfg_attr(not(feature = "config"), allow(dead_code))]
    pub(crate) fn in_file(mut self, file: &Path) -> Error {
        if let Inner::Config { ref mut path, .. } = self.kind {
            *path = Some(file.to_path_buf());
        }
        self
    }

    /// What kind of error this is.
    pub fn kind(&self) -> ErrorKind {
        match self.kind {
            Inner::Io { .. } => ErrorKind::Io,
            Inner::NotAFile { .. } | Inner::Special { .. } => {
                ErrorKind::NotAFile
            }
            Inner::EmptyKeyword { .. } | Inner::Keywords(_) => {
                ErrorKind::Keywords
            }
            Inner::Config { .. } => ErrorKind::Config,
            Inner::MissingPath { .. } => ErrorKind::MissingPath,
            Inner::ThreadPool { .. } => ErrorKind::ThreadPool,
        }
    }

    /// The file this error concerns, if it concerns one.
    pub fn path(&self) -> Option<&Path> {
        match self.kind {
            Inner::Io { ref path, .. }
            | Inner::NotAFile { ref path, .. }
            | Inner::Special { ref path, .. }
            | Inner::MissingPath { ref path } => Some(path),
            Inner::Config { ref path, .. } => path.as_deref(),
            _ => None,
        }
    }

    /// The 1-based line of a configuration error, when known.
    pub fn line(&self) -> Option<usize> {
        self.position().map(|p| p.line)
    }

    /// The 1-based column (in characters) of a configuration error, when
    /// known.
    pub fn column(&self) -> Option<usize> {
        self.position().map(|p| p.column)
    }

    fn position(&self) -> Option<Position> {
        match self.kind {
            Inner::Config { position, .. } => position,
            _ => None,
        }
    }

    /// The underlying I/O error, if this error came from one.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self.kind {
            Inner::Io { ref source, .. } => Some(source),
            _ => None,
        }
    }
}

impl std::error::Error for Error {}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            Inner::Io { ref path, ref source } => {
                write!(f, "{}: {}", path.display(), source)
            }
            Inner::NotAFile { ref path, what } => {
                write!(
                    f,
                    "{}: is {}, not a transcript file",
                    path.display(),
                    what
                )
            }
            Inner::Special { ref path, what } => {
                write!(f, "{}: not a regular file ({what})", path.display())
            }
            Inner::EmptyKeyword { index } => {
                write!(
                    f,
                    "keyword {} is empty, which would match everywhere",
                    index
                )
            }
            Inner::Keywords(ref err) => {
                write!(f, "failed to build keyword set: {}", err)
            }
            Inner::Config { ref path, position, ref message } => {
                if let Some(path) = path {
                    write!(f, "{}: ", path.display())?;
                }
                if let Some(Position { line, column }) = position {
                    write!(f, "line {line}, column {column}: ")?;
                }
                f.write_str(message)
            }
            Inner::MissingPath { ref path } => {
                write!(f, "{}: no such file or directory", path.display())
            }
            Inner::ThreadPool { ref message } => {
                write!(f, "cannot start the scan's threads: {message}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cause_is_given_once() {
        let cause = io::Error::new(io::ErrorKind::NotFound, "gone");
        let err = Error::io(Path::new("/t.jsonl"), cause);
        assert_eq!(err.to_string(), "/t.jsonl: gone");
        assert!(std::error::Error::source(&err).is_none());
        assert_eq!(
            err.io_error().map(|e| e.kind()),
            Some(io::ErrorKind::NotFound)
        );
    }

    #[test]
    fn a_config_error_names_file_line_and_column() {
        let err = Error::config(
            "unknown field `capp`".into(),
            Some(Position { line: 2, column: 1 }),
        )
        .in_file(Path::new("/p/.claude/stopgate.toml"));
        assert_eq!(err.kind(), ErrorKind::Config);
        assert_eq!((err.line(), err.column()), (Some(2), Some(1)));
        assert_eq!(
            err.to_string(),
            "/p/.claude/stopgate.toml: line 2, column 1: unknown field `capp`"
        );
    }
}
