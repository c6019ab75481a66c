/*!
stopgate reads coding-agent transcripts fast and enforces "done" discipline
at the agent's Stop hook.

This library is the scanner core under the `stopgate` binary, and the
judge above it. It comes in three layers, each a module, and each layer
uses only the ones before it:

1. **Read** ([`read`], always built): bytes, lines, records and turns, for
   Claude Code, Codex CLI and Gemini CLI transcripts (JSON Lines). It
   answers the questions a Stop hook asks, touching only the bytes each
   answer needs: the last thing the agent said
   ([`read::Transcript::final_assistant_text`]), whether a human is in the
   session ([`read::Transcript::entrypoint`]), what the agent did since the
   human spoke ([`read::Transcript::current_turn`]). [`KeywordSet`] finds
   keywords in a text with Aho-Corasick.
2. **Judge** (the `judge` feature, on by default): `config`, what the
   gates look for (`stopgate.toml`), and `judge`, the gates (audit,
   hollow audit, decision ownership, challenge reverify) and the one
   `judge::Judge` that the hook, `stopgate check` and `stopgate scan` all
   ask for a verdict.
3. **Run**: `hook`, the logic of `stopgate hook` and its state directory
   (the `hook` feature), and `archive`, the streaming, parallel archive
   scanner (the `archive` feature). The command line sits on top, in the
   binary.

No arrow points back up: the reader knows nothing of configs, gates or
hooks, and a test (`tests/structure.rs`) reads the crate's imports to
keep it so.

# Crate features

The read layer is always built, on memchr, simd-json, aho-corasick,
memmap2, bumpalo and serde alone. Everything else is behind a feature:

* **`judge`** (default): the `config` and `judge` modules. Adds no
  package.
* **`config`**: reading `stopgate.toml` (`Config::from_toml`,
  `Config::from_file`, `Config::locate`). Implies `judge`; adds `toml`.
* **`hook`**: the `hook` module, the logic of `stopgate hook` for
  authors of other hook binaries: `hook::post_tool_use`, `hook::stop`
  and the state directory. Implies `config`; adds `libc` and
  `tempfile`.
* **`archive`**: the `archive` module, the archive scanner behind
  `stopgate scan`: walking, streaming and parallel scanning. Implies
  `judge`; adds `walkdir` and `jiff`.
* **`arrow`**: `archive::arrow`, the scan's rows as Arrow record batches
  for engines that speak Arrow. Implies `archive`; adds `arrow-array`,
  `arrow-buffer` and `arrow-schema`.
* **`parquet`**: `stopgate scan --format parquet`. Implies `cli` and
  `arrow`; adds `parquet` (zstd only).
* **`cli`** (default): the `stopgate` binary. Implies `hook` and
  `archive`; adds `clap`, `indicatif`, `csv` and the rest of the command
  line's needs.

A hook author who only reads transcripts depends on
`stopgate = { version = "0.1", default-features = false }`, and adds
`features = ["judge"]` to run the gates. The runnable examples of each
feature are under `examples/`: `final_text` (the core and the judge),
`config`, `hook` and `archive` (run each with `--no-default-features
--features <name>`). `examples/core-only` is a crate of its own that
depends on the read layer alone.

# Example: the last thing the agent said

```no_run
use stopgate::read::Transcript;

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
use stopgate::read::Transcript;
use stopgate::KeywordSet;

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
#[cfg(feature = "judge")]
mod changes;
#[cfg(feature = "judge")]
pub mod config;
mod error;
#[cfg(feature = "judge")]
mod gates;
#[cfg(feature = "hook")]
pub mod hook;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals;
#[cfg(feature = "judge")]
pub mod judge;
mod keywords;
pub mod read;

pub use crate::error::{Error, ErrorKind};
pub use crate::keywords::{KeywordMatch, KeywordSet, KeywordSetBuilder};

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
