//! The scanner core: bytes, lines, records and the current turn.
//!
//! Each layer is one file, and data flows one way through them:
//!
//! * [`source`](Transcript): a transcript's bytes, memory-mapped or read;
//! * [`Lines`] / [`RevLines`]: line iteration with the truncated-tail rule;
//! * [`Record`]: a lenient, borrowed, lazily parsed view of one line;
//! * the queries ([`Transcript::final_assistant_text`],
//!   [`Transcript::entrypoint`]) and the [`Turn`].
//!
//! Codex CLI rollouts and Gemini CLI chat logs (`codex.rs`, `gemini.rs`)
//! are read into the same turn model, through typed reads that take only
//! the keys they need and are as lenient as a parsed value (`lenient.rs`).
//!
//! Nothing here knows about hooks, settings files or the command line, so
//! another tool can link this module alone.

mod codex;
mod format;
mod gemini;
mod late;
mod lenient;
pub(crate) mod lines;
mod query;
mod reader;
mod record;
mod sniff;
mod source;
mod tape;
mod turn;

pub use self::format::Format;
pub(crate) use self::late::is_subagent_file;
pub use self::query::{FinalMessage, FinalText};
#[cfg(feature = "archive")]
pub(crate) use self::source::open_regular;
pub use self::source::Transcript;
#[cfg(all(test, feature = "hook"))]
pub(crate) use self::turn::UNGUARDED_PREFIX;
pub use self::turn::{Chain, Prompt, StopBlocks, ToolCall, Turn, TurnKind};

#[cfg(feature = "archive")]
pub(crate) use self::{
    format::PROBE_LINES, late::LateWork, query::HeadEntrypoint,
    reader::TurnReader, record::recycle_parsers, turn::LinePos,
};
// Public, for the hook module's re-export.
pub use self::turn::safe_id;

#[cfg(feature = "internals")]
pub use self::{
    lines::{Line, Lines, RevLines},
    record::{Block, Content, Record, RecordParser, RecordType},
    sniff::{quick_type, tail_type, top_level_type, Sniff},
};

/// The `.jsonl` files under `fixtures/` and, when it is there,
/// `../shared/corpus/`, for tests that check a fast path against a slow one
/// on every real file. Without the corpus a notice is printed.
#[cfg(test)]
pub(crate) fn fixture_and_corpus_files() -> Vec<std::path::PathBuf> {
    use std::path::{Path, PathBuf};
    fn jsonl_under(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                jsonl_under(&path, out);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![];
    jsonl_under(&root.join("fixtures"), &mut files);
    let corpus = root.join("../shared/corpus");
    if corpus.is_dir() {
        jsonl_under(&corpus, &mut files);
    } else {
        eprintln!("../shared/corpus is missing: fixtures only");
    }
    files
}
