//! The read layer: bytes, lines, records and turns, and no policy.
//!
//! A Stop hook runs on every turn of a session that grows for hours, so
//! this layer answers its questions from the bytes each answer needs, and
//! a 1 GB transcript costs what a 1 KB one does. Data flows one way through
//! its files:
//!
//! * `source.rs`: a transcript's bytes, memory-mapped or read
//!   ([`Transcript`]);
//! * `lines.rs`: line iteration, forward and backward, with the
//!   truncated-tail rule;
//! * `record.rs`: a lenient, borrowed, lazily parsed view of one line;
//! * `query.rs`: the queries ([`Transcript::final_assistant_text`],
//!   [`Transcript::entrypoint`]);
//! * `turn.rs`: the turn model ([`Turn`], [`ToolCall`]), data only;
//! * `tool_input.rs`: what the reader keeps of a tool's input, and which
//!   of the agents' tools edit files or run a shell command;
//! * `builder.rs`: the one accumulator of turns, which every format feeds;
//! * one file per agent format: `claude.rs` (Claude Code's records, and
//!   the byte probes that leave most lines unparsed), `codex.rs` (Codex
//!   CLI's rollouts) and `gemini.rs` (Gemini CLI's chat logs);
//! * `reader.rs`: lines in, turns out, whichever format wrote them;
//! * `chunks.rs` and `stream.rs`: a stream's lines, read in chunks, and
//!   the reader of many streams into turns ([`StreamReader`]);
//! * `parsers.rs`: parsers' space, kept by a reader of many files and
//!   lent to each file's readers in turn.
//!
//! Whether a tool use changed files is the judge's to say (a shell
//! command must be lexed): the reader keeps every tool use that may have
//! ([`ToolCall::may_change`]), the subagents' and those an interrupted
//! turn carries to the next included ([`Turn::possible_changes`]), and
//! nothing more of the others.
//!
//! Nothing here knows about configs, gates, hooks, settings files or the
//! command line, so another tool can link this module alone.

mod builder;
pub(crate) mod chunks;
mod claude;
mod codex;
mod current;
mod format;
mod gemini;
mod late;
mod lenient;
pub(crate) mod lines;
mod parsers;
mod query;
mod reader;
pub(crate) mod record;
pub(crate) mod sniff;
mod source;
mod stream;
mod tape;
pub(crate) mod tool_input;
pub(crate) mod turn;

pub use self::chunks::{DEFAULT_CHUNK, DEFAULT_MAX_LINE};
#[cfg(all(test, feature = "hook"))]
pub(crate) use self::claude::UNGUARDED_PREFIX;
pub use self::format::Format;
#[cfg(feature = "judge")]
pub(crate) use self::late::is_subagent_file;
pub use self::query::{FinalMessage, FinalText};
#[cfg(feature = "archive")]
pub(crate) use self::source::open_regular;
pub use self::source::Transcript;
pub use self::stream::{
    EntrypointSoFar, StreamReader, StreamSoFar, StreamSummary,
};
#[cfg(feature = "judge")]
pub(crate) use self::tool_input::{ToolInput, EDIT_TOOLS};
pub use self::turn::{
    Chain, HookFault, Prompt, StopBlocks, ToolCall, Turn, TurnKind,
};
#[cfg(feature = "archive")]
pub(crate) use self::{late::LateWork, parsers::Parsers};

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
