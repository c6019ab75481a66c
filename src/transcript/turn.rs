//! The current turn: from the last real user prompt to the end.
//!
//! The gates judge what the agent did *since the human last spoke*: the
//! prompt, the tools it used, and what it said at the end. Finding that
//! means walking back from the end of the transcript to the last line that
//! a human typed, which is not simply the last `user` line: tool results,
//! meta lines, compact summaries and command-output wrappers are all
//! `user` lines too.

use std::ops::ControlFlow;

use super::query::{is_blank, last_text_of, might_be_chat, walk_rev};
use super::record::{Block, Content, Record, RecordParser, RecordType};
use super::source::Transcript;

/// Prefixes of user lines that wrap command output rather than a prompt.
const OUTPUT_WRAPPERS: &[&str] = &[
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<bash-stdout>",
    "<bash-stderr>",
    "Caveat: ",
];

/// What the agent did since the last real user prompt.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Turn {
    prompt: Option<Prompt>,
    tool_uses: Vec<ToolCall>,
    final_text: Option<String>,
    skipped_corrupt: usize,
}

impl Turn {
    /// The prompt that opened the turn, or `None` if the transcript (or
    /// the window) holds no real prompt; the turn then runs from the start
    /// of what was read.
    pub fn prompt(&self) -> Option<&Prompt> {
        self.prompt.as_ref()
    }

    /// The main chain's tool uses since the prompt, in order.
    pub fn tool_uses(&self) -> &[ToolCall] {
        &self.tool_uses
    }

    /// The last non-blank assistant text since the prompt.
    pub fn final_text(&self) -> Option<&str> {
        self.final_text.as_deref()
    }

    /// How many corrupt lines the walk passed over.
    pub fn skipped_corrupt(&self) -> usize {
        self.skipped_corrupt
    }
}

/// The user prompt that opens a turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    text: String,
    offset: u64,
    timestamp: Option<String>,
}

impl Prompt {
    /// The prompt's text: the content string, or its text blocks joined by
    /// newlines.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The file offset of the prompt's line.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The prompt's `timestamp`, as written.
    pub fn timestamp(&self) -> Option<&str> {
        self.timestamp.as_deref()
    }
}

/// One tool use of the turn: an owned copy of a `tool_use` block.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    id: Option<String>,
    name: String,
    input: serde_json::Value,
}

impl ToolCall {
    /// An owned tool use.
    pub fn new(
        id: Option<String>,
        name: String,
        input: serde_json::Value,
    ) -> ToolCall {
        ToolCall { id, name, input }
    }

    /// The tool use's `id`.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The tool's name, such as `Bash`; empty when the block had none.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tool's input.
    pub fn input(&self) -> &serde_json::Value {
        &self.input
    }
}

/// Whether a record is a prompt a human typed.
///
/// It must be a main-chain `user` line that is not `isMeta`, not a compact
/// summary, holds no `tool_result` block, and does not start with a
/// command-output wrapper. A slash command's `<command-message>` line
/// qualifies; the `isMeta` expansion after it does not.
pub fn is_real_prompt(rec: &Record<'_>) -> bool {
    !rec.is_sidechain() && is_prompt_shaped(rec)
}

/// [`is_real_prompt`] without the main-chain condition: a subagent file's
/// own prompts are sidechain lines.
pub(crate) fn is_prompt_shaped(rec: &Record<'_>) -> bool {
    if rec.record_type() != RecordType::User
        || rec.is_meta()
        || rec.is_compact_summary()
    {
        return false;
    }
    let first = match rec.content() {
        Content::Text(t) => *t,
        Content::Blocks(blocks) => {
            if blocks.iter().any(|b| matches!(b, Block::ToolResult(_))) {
                return false;
            }
            match blocks.iter().find_map(|b| match b {
                Block::Text(t) => Some(*t),
                _ => None,
            }) {
                Some(t) => t,
                // Images only: still something the human sent.
                None => return !blocks.is_empty(),
            }
        }
        Content::Absent => return false,
    };
    let first = first.trim_start();
    !OUTPUT_WRAPPERS.iter().any(|w| first.starts_with(w))
}

/// A prompt's text: its content string, or its text blocks joined.
pub(crate) fn prompt_text(rec: &Record<'_>) -> String {
    match rec.content() {
        Content::Text(t) => t.to_string(),
        Content::Blocks(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter_map(|b| match b {
                    Block::Text(t) => Some(*t),
                    _ => None,
                })
                .collect();
            texts.join("\n")
        }
        Content::Absent => String::new(),
    }
}

/// The first tail window [`Transcript::read_current_turn`] reads.
const TURN_WINDOW: u64 = 64 << 10;

/// The most [`Transcript::read_current_turn`] reads of one turn.
pub const TURN_MAX_BYTES: u64 = 64 << 20;

impl Transcript {
    /// The current turn of the transcript at `path`, reading only its end.
    ///
    /// Tail windows of 64 KiB, 128 KiB, … are read until one holds the
    /// turn's prompt (or the whole file), so the cost is that of the turn,
    /// not of the file, and a concurrent truncation cannot raise `SIGBUS`.
    /// A turn longer than [`TURN_MAX_BYTES`] is cut there: its prompt is
    /// then `None` and its tool uses are the last ones, which bounds the
    /// time and memory a hook can spend on one pathological turn.
    ///
    /// # Errors
    ///
    /// When `path` does not exist, cannot be read, or is a directory.
    pub fn read_current_turn<P: AsRef<std::path::Path>>(
        path: P,
    ) -> Result<Turn, crate::Error> {
        let turn = Transcript::read_tail_until(path, TURN_WINDOW, |t| {
            let turn = t.current_turn();
            // Windows double, so the one that reaches half the cap (less
            // the partial line it starts with) is the last.
            let enough = t.as_bytes().len() as u64 >= TURN_MAX_BYTES / 2;
            (turn.prompt().is_some() || t.has_head() || enough).then_some(turn)
        })?;
        Ok(turn.unwrap_or_default())
    }

    /// The current turn: from the last real user prompt of the main chain
    /// to the end.
    ///
    /// It walks back from the end and stops at the prompt, so it costs
    /// what the turn costs, not what the file does.
    ///
    /// # Example
    ///
    /// ```
    /// use stopgate::Transcript;
    ///
    /// let jsonl = concat!(
    ///     r#"{"type":"user","message":{"content":"add a test"}}"#, "\n",
    ///     r#"{"type":"assistant","message":{"id":"a","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"x.rs"}}]}}"#, "\n",
    ///     r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1"}]}}"#, "\n",
    ///     r#"{"type":"assistant","message":{"id":"b","content":[{"type":"text","text":"Added."}]}}"#, "\n",
    /// );
    /// let turn = Transcript::from_bytes(jsonl.as_bytes().to_vec()).current_turn();
    /// assert_eq!(turn.prompt().unwrap().text(), "add a test");
    /// assert_eq!(turn.tool_uses()[0].name(), "Write");
    /// assert_eq!(turn.final_text(), Some("Added."));
    /// ```
    pub fn current_turn(&self) -> Turn {
        let base = self.base_offset();
        let mut parser = RecordParser::new();
        let mut turn = Turn::default();
        turn.skipped_corrupt = walk_rev(
            self.as_bytes(),
            &mut parser,
            might_be_chat,
            |line, rec| {
                if rec.is_sidechain() {
                    return ControlFlow::Continue(());
                }
                if is_real_prompt(rec) {
                    turn.prompt = Some(Prompt {
                        text: prompt_text(rec),
                        offset: base + line.offset() as u64,
                        timestamp: rec.timestamp().map(str::to_string),
                    });
                    return ControlFlow::Break(());
                }
                if rec.record_type() == RecordType::Assistant {
                    if turn.final_text.is_none() {
                        turn.final_text =
                            last_text_of(rec).map(str::to_string);
                    }
                    for block in rec.content().blocks().iter().rev() {
                        if let Block::ToolUse(u) = block {
                            turn.tool_uses.push(ToolCall {
                                id: u.id().map(str::to_string),
                                name: u.name().unwrap_or("").to_string(),
                                input: u.input().clone(),
                            });
                        }
                    }
                }
                ControlFlow::Continue(())
            },
        );
        turn.tool_uses.reverse();
        debug_assert!(turn.final_text.as_deref().is_none_or(|t| !is_blank(t)));
        turn
    }
}
