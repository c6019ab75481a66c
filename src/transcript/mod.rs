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
//! Nothing here knows about hooks, settings files or the command line, so
//! another tool can link this module alone.

mod codex;
mod format;
mod gemini;
mod lines;
mod query;
mod reader;
mod record;
mod sniff;
mod source;
mod turn;

pub use self::format::{Format, DECIDING_LINE_MAX, PROBE_LINES};
pub use self::gemini::OWN_REASON;
pub use self::lines::{Line, Lines, RevLines};
pub use self::query::{
    FinalMessage, FinalText, ENTRYPOINT_HEAD_BYTES, ENTRYPOINT_LINES,
    ENTRYPOINT_MAX_LINE, RECORD_PROBE_LINES,
};
pub use self::reader::TurnReader;
pub use self::record::{
    Attachment, Block, Content, Message, ParseError, Record, RecordParser,
    RecordType, StopHookSummary, ToolResult, ToolUse,
};
pub use self::sniff::{quick_type, top_level_type, Sniff};
pub use self::source::Transcript;
pub use self::turn::{
    is_real_prompt, safe_id, Chain, LinePos, Prompt, StopBlocks, ToolCall,
    Turn, TurnBuilder, TurnKind, STOP_FEEDBACK, TURN_MAX_BYTES,
};
