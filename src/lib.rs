/*!
stopgate reads coding-agent transcripts fast and enforces "done" discipline
at the agent's Stop hook.

This library is the scanner core under the `stopgate` binary. It reads
the transcripts of Claude Code, Codex CLI and Gemini CLI (JSON Lines; see
[`Format`]) and answers the questions a Stop hook asks, touching only the
bytes each answer needs:

* [`Transcript::final_assistant_text`]: what did the agent say last?
* [`Transcript::entrypoint`]: is a human in this session, or is it `sdk-cli`?
* [`Transcript::current_turn`]: what did the agent do since the human spoke?
* [`KeywordSet`]: which of these keywords does a text hold, and where?

Above the core, in the order data flows:

* [`tool_changes_files`], which tool uses change files (the one rule
  table);
* [`Gates`], pure judgments of a turn's [`Facts`] (audit, hollow audit,
  decision ownership, challenge reverify), giving a [`Verdict`];
* [`Config`], what the gates look for (`stopgate.toml`);
* `hook`, the hook's logic and its state directory;
* `archive`, the streaming, parallel archive scanner.

The core knows nothing of the layers above it, so a tool can link the
transcript reader and the gates alone.

# Crate features

The scanner core and the gates are always built, on memchr, simd-json,
aho-corasick, memmap2, bumpalo and serde alone. Everything else is behind
a feature:

* **`config`**: reading `stopgate.toml` (`Config::from_toml`,
  `Config::from_file`, `Config::locate`). Adds `toml`.
* **`hook`**: the `hook` module, the logic of `stopgate hook` for
  authors of other hook binaries: `hook::post_tool_use`, `hook::stop`
  and the state directory. Implies `config`; adds `libc` and
  `tempfile`.
* **`archive`**: the `archive` module, the archive scanner behind
  `stopgate scan`: walking, streaming and parallel scanning. Adds
  `walkdir` and `jiff`.
* **`cli`** (default): the `stopgate` binary. Implies `hook` and
  `archive`; adds `clap`, `indicatif`, `csv` and the rest of the command
  line's needs.

A hook author who only reads transcripts and runs the gates depends on
`stopgate = { version = "0.1", default-features = false }`. The runnable
examples of each feature are under `examples/`: `final_text` (the core),
`config`, `hook` and `archive` (run each with `--no-default-features
--features <name>`). `examples/core-only` is a crate of its own that
depends on the core alone.

# Example: the last thing the agent said

```no_run
use stopgate::Transcript;

# fn main() -> Result<(), stopgate::Error> {
let path = "/home/me/.claude/projects/p/session.jsonl";
// SAFETY: nothing truncates the transcript while we read it; if something
// did, the process would receive SIGBUS.
let transcript = unsafe { Transcript::open_mmap(path)? };
if let Some(last) = transcript.final_assistant_text() {
    println!("{}", last.text());
}
# Ok(()) }
```

# Example: matching audit markers

```
use stopgate::{KeywordSet, Transcript};

let jsonl = r#"{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"監査: 境界を潰した"}]}}
"#;
let t = Transcript::from_bytes(jsonl.as_bytes().to_vec());
let text = t.final_assistant_text().unwrap();
let markers = KeywordSet::new(&["監査", "潰した", "確認済み"]).unwrap();
assert_eq!(markers.matched(text.text()), vec!["監査", "潰した"]);
```

# Why it is fast

A transcript grows for hours and reaches hundreds of megabytes, yet a Stop
hook runs on every turn. So the queries never read the file forward: they
walk lines backwards from the end with `memrchr`, skip lines that cannot
matter with a substring prefilter, and parse only the few lines that can
with simd-json. On a memory-mapped file, the final text of a 1 GB session
costs what that of a 1 KB session does.

# Robustness

The transcript format is internal to Claude Code and changes between
versions. Every field is optional, unknown fields and record types are
skipped, a field of an unexpected type reads as absent, and a corrupt line
(invalid JSON or invalid UTF-8) is skipped and counted, never an error and
never a panic. An unfinished last line is ignored unless it is already a
complete JSON object.
*/

#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(rustdoc::broken_intra_doc_links)]
#![warn(missing_debug_implementations)]
#![cfg_attr(not(feature = "internals"), warn(unnameable_types))]

#[cfg(feature = "archive")]
pub mod archive;
mod changes;
pub mod config;
mod error;
mod gates;
#[cfg(feature = "hook")]
pub mod hook;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals;
pub mod judge;
mod keywords;
mod transcript;

pub use crate::changes::{tool_changes_files, ChangeReason};
pub use crate::config::{Config, Gate};
pub use crate::error::{Error, ErrorKind};
pub use crate::gates::{
    judged_window, text_hash, AuditStatus, Block, Facts, Gates, Nag,
    PlainAudit, Rule, SessionView, Verdict, JUDGED_TAIL_BYTES,
};
pub use crate::judge::Judge;
pub use crate::keywords::{KeywordMatch, KeywordSet, KeywordSetBuilder};
pub use crate::transcript::{
    Chain, FinalMessage, FinalText, Format, Prompt, StopBlocks, ToolCall,
    Transcript, Turn, TurnKind,
};

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
