//! A typed, borrowed view of one transcript line.
//!
//! # Why a hand-written visitor
//!
//! The transcript format is internal to Claude Code and changes between
//! versions: every field is optional, unknown fields and types are normal,
//! and a field may one day change type. A `#[derive(Deserialize)]` struct
//! would reject a whole line because one field it does not even need has
//! an unexpected type. So the visitors here are *lenient*: a known field of
//! the wrong type reads as absent, and unknown fields are skipped. A line
//! is corrupt only when it is not a JSON object at all.
//!
//! # Why simd-json through serde, and never simd-json's `Value`
//!
//! simd-json parses in place and needs `&mut [u8]`, so each line is copied
//! into a scratch arena ([`RecordParser`], a `bumpalo` arena) and parsed
//! from there. Strings in the resulting [`Record`] borrow from the arena,
//! with escapes already undone. simd-json's own `Value` types assume
//! unique object keys, and duplicate keys in untrusted input are undefined
//! behaviour there, so this module only ever reads simd-json's tape, through
//! serde: the visitors here see every key, and the last of duplicates wins,
//! for every field, just as in `serde_json`. The deserializer over the tape
//! is this crate's own ([`TapeDe`]), which skips an ignored value in one
//! step where simd-json's visits every node under it.
//!
//! # Invalid UTF-8 and control bytes
//!
//! JSON text must be UTF-8 and may not hold raw control bytes inside
//! strings. simd-json checks both, so a line with invalid UTF-8 or a raw
//! NUL in a string is a *corrupt line*: it is skipped and counted, never
//! replaced lossily and never a panic.

use std::cell::RefCell;
use std::fmt;

use bumpalo::collections::Vec as BumpVec;
use bumpalo::Bump;
use serde::de::{
    self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess,
    Visitor,
};
use serde::Deserialize;
use simd_json::{fill_tape_padded, Tape, INPUT_PADDING};

use super::tape::TapeDe;
use super::tool_input::{CommandField, ToolInput};

/// A reusable parser for transcript lines.
///
/// It owns a scratch arena that parsed lines are copied into, and
/// simd-json's working buffers. Records borrow from the parser, so several
/// can be alive at once; [`RecordParser::reset`] frees them all and keeps
/// the memory for the next line.
///
/// # Example
///
/// ```
/// use stopgate::internals::{Content, RecordParser, RecordType};
///
/// let parser = RecordParser::new();
/// let line = br#"{"type":"user","message":{"role":"user","content":"hi"}}"#;
/// let record = parser.parse(line).unwrap();
/// assert_eq!(record.record_type(), RecordType::User);
/// assert!(matches!(record.content(), Content::Text("hi")));
/// ```
pub struct RecordParser {
    arena: Bump,
    buffers: RefCell<simd_json::Buffers>,
    /// simd-json's tape, empty between lines, kept for its allocation.
    tape: RefCell<Option<Tape<'static>>>,
    /// The longest line parsed, which the scratch space has grown to.
    longest: std::cell::Cell<usize>,
}

impl fmt::Debug for RecordParser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordParser")
            .field("arena_bytes", &self.arena.allocated_bytes())
            .finish()
    }
}

impl Default for RecordParser {
    fn default() -> RecordParser {
        RecordParser::new()
    }
}

impl RecordParser {
    /// A parser with empty scratch space.
    pub fn new() -> RecordParser {
        RecordParser {
            arena: Bump::new(),
            buffers: RefCell::new(simd_json::Buffers::default()),
            tape: RefCell::new(None),
            longest: std::cell::Cell::new(0),
        }
    }

    /// Parse one line (without its terminator) into a record.
    ///
    /// The line is copied into the parser's arena first, because simd-json
    /// rewrites its input. An error means the line is not a JSON object:
    /// it is invalid JSON, invalid UTF-8, or a JSON value of another kind.
    pub fn parse<'p>(&'p self, line: &[u8]) -> Result<Record<'p>, ParseError> {
        self.longest.set(self.longest.get().max(line.len()));
        let scratch = self.padded_copy(line);
        let mut buffers = self.buffers.borrow_mut();
        let mut tape: Tape<'p> =
            self.tape.take().map_or_else(Tape::null, Tape::reset);
        fill_tape_padded(scratch, line.len(), &mut buffers, &mut tape)
            .map_err(ParseError::of)?;
        let record = Record::deserialize(&mut TapeDe::new(&tape.0))
            .map_err(ParseError::of);
        self.tape.replace(Some(tape.reset()));
        record
    }

    /// `line` copied into the arena, followed by the padding simd-json
    /// reads past the end: which spares simd-json a padded copy of its own.
    /// Each byte is written once, the line copied and only the padding
    /// zeroed, through a bump-allocated vector, without `unsafe` here.
    /// (Zeroing the whole copy first cost 1.9% of a scan's instructions.)
    // Each call gets fresh arena memory, as `Bump::alloc_slice_copy` does.
    #[allow(clippy::mut_from_ref)]
    fn padded_copy<'p>(&'p self, line: &[u8]) -> &'p mut [u8] {
        let len = line.len() + INPUT_PADDING;
        let mut scratch = BumpVec::with_capacity_in(len, &self.arena);
        scratch.extend_from_slice_copy(line);
        scratch.resize(len, 0);
        scratch.into_bump_slice_mut()
    }

    /// Free every record parsed so far, keeping the arena's memory.
    pub fn reset(&mut self) {
        self.arena.reset();
    }
}

impl RecordParser {
    /// The longest line parsed, which the scratch space has grown to.
    pub(super) fn longest(&self) -> usize {
        self.longest.get()
    }
}

/// The error for a line that is not a JSON object.
///
/// The transcript queries skip such lines and count them, so this error
/// rarely reaches a caller.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct ParseError {
    _priv: (),
}

impl ParseError {
    /// The error for a line that simd-json or the record's visitors
    /// refused, for whatever reason.
    fn of<E>(_: E) -> ParseError {
        ParseError { _priv: () }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line is not a JSON object")
    }
}

impl std::error::Error for ParseError {}

/// The top-level `type` of a record.
///
/// Unknown types are normal: the format grows new ones. They are reported
/// as [`RecordType::Unknown`] and skipped by every query.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
#[non_exhaustive]
pub enum RecordType {
    /// A user line: a prompt, a tool result, or a meta line.
    User,
    /// An assistant line: usually one content block of a response.
    Assistant,
    /// A system line; see `Record::subtype`.
    System,
    /// Progress of a hook, a tool or a subagent.
    Progress,
    /// An attachment record.
    Attachment,
    /// A record that only keeps the client's books: `summary`,
    /// `file-history-snapshot`, `queue-operation`, `last-prompt`,
    /// `ai-title`, `custom-title`, `agent-setting`, `mode`, and similar.
    Bookkeeping,
    /// No `type`, or one this crate does not know.
    Unknown,
}

impl RecordType {
    fn from_name(name: Option<&str>) -> RecordType {
        match name {
            Some("user") => RecordType::User,
            Some("assistant") => RecordType::Assistant,
            Some("system") => RecordType::System,
            Some("progress") => RecordType::Progress,
            Some("attachment") => RecordType::Attachment,
            Some(
                "summary"
                | "file-history-snapshot"
                | "queue-operation"
                | "last-prompt"
                | "ai-title"
                | "custom-title"
                | "agent-setting"
                | "mode"
                | "pr-link"
                | "continued-in",
            ) => RecordType::Bookkeeping,
            _ => RecordType::Unknown,
        }
    }
}

/// One parsed transcript line.
///
/// Every field is optional in the format, so every accessor may return
/// `None` (or `false`, for the flags).
#[derive(Clone, Debug, Default)]
pub struct Record<'a> {
    type_name: Option<&'a str>,
    subtype: Option<&'a str>,
    is_sidechain: bool,
    is_meta: bool,
    is_compact_summary: bool,
    session_id: Option<&'a str>,
    cwd: Option<&'a str>,
    entrypoint: Option<&'a str>,
    uuid: Option<&'a str>,
    timestamp: Option<&'a str>,
    message: Option<Message<'a>>,
    hook_commands: Vec<&'a str>,
    prevented_continuation: bool,
    hook_errors: usize,
    launched_agent: Option<&'a str>,
    attachment: Option<Attachment<'a>>,
    notice: Option<&'a str>,
}

/// The `attachment` object of an `attachment` record.
///
/// Claude Code writes one for each thing it attaches to the conversation:
/// agent and skill listings, task reminders, and, when a hook blocked with
/// JSON output, a `hook_blocking_error`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Attachment<'a> {
    kind: Option<&'a str>,
    blocking_command: Option<&'a str>,
    content: Option<&'a str>,
    hook_event: Option<&'a str>,
    command: Option<&'a str>,
    timed_out: bool,
}

impl<'a> Attachment<'a> {
    /// The attachment's `type`, such as `hook_blocking_error`.
    pub fn kind(&self) -> Option<&'a str> {
        self.kind
    }

    /// For a `hook_blocking_error`: the command of the hook that blocked
    /// (`blockingError.command`).
    pub fn blocking_command(&self) -> Option<&'a str> {
        self.blocking_command
    }

    /// The attachment's `content` when it is a string: for a
    /// `hook_system_message`, the message a hook showed the user.
    pub fn content(&self) -> Option<&'a str> {
        self.content
    }

    /// For a hook's attachment (`hook_non_blocking_error`,
    /// `hook_cancelled`, …): the event it ran on (`hookEvent`), such as
    /// `Stop` or `PostToolUse`.
    pub fn hook_event(&self) -> Option<&'a str> {
        self.hook_event
    }

    /// For a hook's attachment: the hook's `command`, where the client
    /// names it.
    pub fn command(&self) -> Option<&'a str> {
        self.command
    }

    /// For a `hook_cancelled`: whether the hook ran out of time
    /// (`timedOut`).
    pub fn timed_out(&self) -> bool {
        self.timed_out
    }
}

/// What a `system` record of subtype `stop_hook_summary` says about the
/// Stop hooks that ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopHookSummary<'a> {
    /// The commands of the hooks that ran (`hookInfos[].command`).
    pub commands: Vec<&'a str>,
    /// `preventedContinuation`: whether a hook returned `continue: false`.
    /// A block does not set it.
    pub prevented_continuation: bool,
    /// How many entries `hookErrors` lists: a blocking hook is one.
    pub errors: usize,
}

impl<'a> Record<'a> {
    /// The record's `type`, classified.
    pub fn record_type(&self) -> RecordType {
        RecordType::from_name(self.type_name)
    }

    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    /// The record's `type`, as written.
    pub fn type_name(&self) -> Option<&'a str> {
        self.type_name
    }

    /// The `subtype` of a system record, such as `stop_hook_summary`.
    pub fn subtype(&self) -> Option<&'a str> {
        self.subtype
    }

    /// Whether `isSidechain` is `true`: the line belongs to a subagent.
    pub fn is_sidechain(&self) -> bool {
        self.is_sidechain
    }

    /// Whether `isMeta` is `true`: a line the client wrote, not the user.
    pub fn is_meta(&self) -> bool {
        self.is_meta
    }

    /// Whether `isCompactSummary` is `true`.
    pub fn is_compact_summary(&self) -> bool {
        self.is_compact_summary
    }

    /// The `sessionId`.
    pub fn session_id(&self) -> Option<&'a str> {
        self.session_id
    }

    /// The `cwd`: the folder the session ran in (its project).
    pub fn cwd(&self) -> Option<&'a str> {
        self.cwd
    }

    /// The `entrypoint`, such as `cli` or `sdk-cli`.
    pub fn entrypoint(&self) -> Option<&'a str> {
        self.entrypoint
    }

    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    /// The line's `uuid`.
    pub fn uuid(&self) -> Option<&'a str> {
        self.uuid
    }

    /// The line's `timestamp`, as written (RFC 3339 in practice).
    pub fn timestamp(&self) -> Option<&'a str> {
        self.timestamp
    }

    /// The `message` object, if there is one.
    pub fn message(&self) -> Option<&Message<'a>> {
        self.message.as_ref()
    }

    /// The Stop hooks' summary, for a `system` record of subtype
    /// `stop_hook_summary`.
    pub fn stop_hook_summary(&self) -> Option<StopHookSummary<'a>> {
        (self.record_type() == RecordType::System
            && self.subtype == Some("stop_hook_summary"))
        .then(|| StopHookSummary {
            commands: self.hook_commands.clone(),
            prevented_continuation: self.prevented_continuation,
            errors: self.hook_errors,
        })
    }

    /// The subagent a Task or Agent tool result names: its
    /// `toolUseResult.agentId`, which names the subagent's transcript
    /// (`<session>/subagents/agent-<id>.jsonl`).
    pub fn launched_agent(&self) -> Option<&'a str> {
        self.launched_agent
    }

    /// The `attachment` of an `attachment` record.
    pub fn attachment(&self) -> Option<Attachment<'a>> {
        self.attachment
    }

    /// A `system` record's own `content` string: the notice the client
    /// showed, such as Claude Code's "A hook blocked the turn from ending
    /// 8 consecutive times…".
    pub fn notice(&self) -> Option<&'a str> {
        self.notice
    }

    /// The `message.content`, or [`Content::Absent`].
    pub fn content(&self) -> &Content<'a> {
        const ABSENT: &Content<'static> = &Content::Absent;
        self.message.as_ref().map_or(ABSENT, |m| &m.content)
    }
}

/// A record's `message` object.
#[derive(Clone, Debug, Default)]
pub struct Message<'a> {
    id: Option<&'a str>,
    content: Content<'a>,
}

impl<'a> Message<'a> {
    /// `message.id`, shared by every line of one assistant response.
    pub fn id(&self) -> Option<&'a str> {
        self.id
    }
}

/// The shapes of `message.content`.
#[derive(Clone, Debug, Default)]
pub enum Content<'a> {
    /// Absent, `null`, or a value of another JSON kind.
    #[default]
    Absent,
    /// A plain string: how typed prompts are stored.
    Text(&'a str),
    /// An array of content blocks. Elements that are not objects are
    /// dropped.
    Blocks(Vec<Block<'a>>),
}

impl<'a> Content<'a> {
    /// The content blocks, or an empty slice when the content is not an
    /// array.
    pub fn blocks(&self) -> &[Block<'a>] {
        match self {
            Content::Blocks(blocks) => blocks,
            _ => &[],
        }
    }
}

/// One content block.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Block<'a> {
    /// A `text` block. A missing `text` field reads as empty.
    Text(&'a str),
    /// A `thinking` block.
    Thinking,
    /// A `tool_use` block.
    ToolUse(ToolUse<'a>),
    /// A `tool_result` block.
    ToolResult(ToolResult<'a>),
    /// An `image` block.
    Image,
    /// A block of another type, or with none.
    Unknown,
}

/// A `tool_use` block: the agent calls a tool.
#[derive(Clone, Debug)]
pub struct ToolUse<'a> {
    id: Option<&'a str>,
    name: Option<&'a str>,
    input: ToolInput<'a>,
}

impl<'a> ToolUse<'a> {
    /// The tool use's `id`, which its `tool_result` refers to.
    pub fn id(&self) -> Option<&'a str> {
        self.id
    }

    /// The tool's `name`, such as `Bash` or `Edit`.
    pub fn name(&self) -> Option<&'a str> {
        self.name
    }

    /// What the file-change rules read of the tool's `input`: its
    /// `command` and `cmd` fields.
    pub fn input(&self) -> &ToolInput<'a> {
        &self.input
    }
}

/// A `tool_result` block: a tool's answer, carried on a user line.
#[derive(Clone, Debug)]
pub struct ToolResult<'a> {
    tool_use_id: Option<&'a str>,
    is_error: bool,
}

impl<'a> ToolResult<'a> {
    /// The `tool_use_id` this result answers.
    pub fn tool_use_id(&self) -> Option<&'a str> {
        self.tool_use_id
    }

    /// Whether the tool failed or did not run (`is_error`): the user
    /// declined it, interrupted it, or it ended in an error. Claude Code
    /// runs no PostToolUse hook for such a tool use.
    pub fn is_error(&self) -> bool {
        self.is_error
    }
}

// ---------------------------------------------------------------------
// Lenient deserialization. Every value visitor accepts any JSON value and
// drains what it does not want, so a wrong type never fails the line.

/// Consume the rest of a sequence.
fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Consume the rest of a map.
fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Implements the visitor methods for every JSON kind a lenient visitor
/// does not want, making each of them produce `$none`.
macro_rules! lenient_rest {
    ($none:expr; $($skip:ident),*) => {
        lenient_rest!(@one $none; $($skip),*);
    };
    (@one $none:expr; $($skip:ident),*) => {
        $(lenient_rest!(@method $skip, $none);)*
    };
    (@method bool, $none:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($none)
        }
    };
    (@method num, $none:expr) => {
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($none)
        }
    };
    (@method unit, $none:expr) => {
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($none)
        }
    };
    (@method str, $none:expr) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($none)
        }
    };
    (@method seq, $none:expr) => {
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            drain_seq(seq)?;
            Ok($none)
        }
    };
    (@method map, $none:expr) => {
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            drain_map(map)?;
            Ok($none)
        }
    };
}

/// A string field, or `None` for a value of any other kind.
struct Str<'a>(Option<&'a str>);

impl<'de> Deserialize<'de> for Str<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(
                self,
                s: &'de str,
            ) -> Result<Str<'de>, E> {
                Ok(Str(Some(s)))
            }
            // A string that cannot be borrowed. simd-json always lends
            // its strings from the scratch buffer, so this is unreachable
            // in practice; reading it as absent keeps the view borrowed.
            lenient_rest!(Str(None); bool, num, unit, str, seq, map);
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for ToolInput<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ToolInput<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut input = ToolInput::default();
                while let Some(key) = map.next_key::<InputKey>()? {
                    match key {
                        InputKey::Command => {
                            input.command = map.next_value()?
                        }
                        InputKey::Cmd => input.cmd = map.next_value()?,
                        InputKey::FilePath | InputKey::NotebookPath => {
                            let path = map.next_value::<Str>()?.0;
                            input.file_path = input.file_path.or(path);
                        }
                        InputKey::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(input)
            }
            lenient_rest!(ToolInput::default(); bool, num, unit, str, seq);
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for CommandField<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CommandField<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(
                self,
                s: &'de str,
            ) -> Result<Self::Value, E> {
                Ok(CommandField::Text(s))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut argv = vec![];
                while let Some(Str(word)) = seq.next_element::<Str>()? {
                    argv.extend(word);
                }
                Ok(CommandField::Argv(argv))
            }
            // A string that cannot be borrowed: unreachable with simd-json,
            // as for `Str`.
            lenient_rest!(CommandField::Other; bool, num, unit, str, map);
        }
        d.deserialize_any(V)
    }
}

/// A boolean field: `true` only for JSON `true`.
struct Flag(bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Flag;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<Flag, E> {
                Ok(Flag(b))
            }
            lenient_rest!(Flag(false); num, unit, str, seq, map);
        }
        d.deserialize_any(V)
    }
}

/// Reads an object key into a known-field enum without allocating.
macro_rules! keys {
    ($name:ident { $($variant:ident = $key:literal),* $(,)? }) => {
        enum $name { $($variant,)* Other }
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("an object key")
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$name, E> {
                        Ok(match s {
                            $($key => $name::$variant,)*
                            _ => $name::Other,
                        })
                    }
                }
                d.deserialize_str(V)
            }
        }
    };
}

keys!(RecordKey {
    Type = "type",
    Subtype = "subtype",
    IsSidechain = "isSidechain",
    IsMeta = "isMeta",
    IsCompactSummary = "isCompactSummary",
    SessionId = "sessionId",
    Cwd = "cwd",
    Entrypoint = "entrypoint",
    Uuid = "uuid",
    Timestamp = "timestamp",
    Message = "message",
    HookInfos = "hookInfos",
    PreventedContinuation = "preventedContinuation",
    HookErrors = "hookErrors",
    ToolUseResult = "toolUseResult",
    Attachment = "attachment",
    Content = "content",
});

keys!(AgentResultKey { AgentId = "agentId" });

keys!(AttachmentKey {
    Type = "type",
    BlockingError = "blockingError",
    Content = "content",
    HookEvent = "hookEvent",
    Command = "command",
    TimedOut = "timedOut",
});

keys!(HookInfoKey { Command = "command" });

keys!(InputKey {
    Command = "command",
    Cmd = "cmd",
    FilePath = "file_path",
    NotebookPath = "notebook_path",
});

keys!(MessageKey { Id = "id", Content = "content" });

keys!(BlockKey {
    Type = "type",
    Text = "text",
    Id = "id",
    Name = "name",
    Input = "input",
    ToolUseId = "tool_use_id",
    IsError = "is_error",
});

impl<'de> Deserialize<'de> for Record<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Record<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Record<'de>, A::Error> {
                let mut r = Record::default();
                while let Some(key) = map.next_key::<RecordKey>()? {
                    match key {
                        RecordKey::Type => {
                            r.type_name = map.next_value::<Str>()?.0
                        }
                        RecordKey::Subtype => {
                            r.subtype = map.next_value::<Str>()?.0
                        }
                        RecordKey::IsSidechain => {
                            r.is_sidechain = map.next_value::<Flag>()?.0
                        }
                        RecordKey::IsMeta => {
                            r.is_meta = map.next_value::<Flag>()?.0
                        }
                        RecordKey::IsCompactSummary => {
                            r.is_compact_summary = map.next_value::<Flag>()?.0
                        }
                        RecordKey::SessionId => {
                            r.session_id = map.next_value::<Str>()?.0
                        }
                        RecordKey::Cwd => r.cwd = map.next_value::<Str>()?.0,
                        RecordKey::Entrypoint => {
                            r.entrypoint = map.next_value::<Str>()?.0
                        }
                        RecordKey::Uuid => r.uuid = map.next_value::<Str>()?.0,
                        RecordKey::Timestamp => {
                            r.timestamp = map.next_value::<Str>()?.0
                        }
                        RecordKey::Message => {
                            r.message = map.next_value::<MaybeMessage>()?.0
                        }
                        RecordKey::HookInfos => {
                            r.hook_commands =
                                map.next_value::<HookCommands>()?.0
                        }
                        RecordKey::PreventedContinuation => {
                            r.prevented_continuation =
                                map.next_value::<Flag>()?.0
                        }
                        RecordKey::HookErrors => {
                            r.hook_errors = map.next_value::<Count>()?.0
                        }
                        RecordKey::ToolUseResult => {
                            r.launched_agent =
                                map.next_value::<StrIn<AgentResultKey>>()?.0
                        }
                        RecordKey::Attachment => {
                            r.attachment =
                                map.next_value::<MaybeAttachment>()?.0
                        }
                        RecordKey::Content => {
                            r.notice = map.next_value::<Str>()?.0
                        }
                        RecordKey::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(r)
            }
        }
        d.deserialize_map(V)
    }
}

/// `hookInfos`: the `command` of each object in the array.
struct HookCommands<'a>(Vec<&'a str>);

impl<'de> Deserialize<'de> for HookCommands<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Info<'a>(Option<&'a str>);
        impl<'de> Deserialize<'de> for Info<'de> {
            fn deserialize<D: Deserializer<'de>>(
                d: D,
            ) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Info<'de>;
                    fn expecting(
                        &self,
                        f: &mut fmt::Formatter<'_>,
                    ) -> fmt::Result {
                        f.write_str("any JSON value")
                    }
                    fn visit_map<A: MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<Info<'de>, A::Error> {
                        let mut command = None;
                        while let Some(key) = map.next_key::<HookInfoKey>()? {
                            match key {
                                HookInfoKey::Command => {
                                    command = map.next_value::<Str>()?.0
                                }
                                HookInfoKey::Other => {
                                    map.next_value::<IgnoredAny>()?;
                                }
                            }
                        }
                        Ok(Info(command))
                    }
                    lenient_rest!(Info(None); bool, num, unit, str, seq);
                }
                d.deserialize_any(V)
            }
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HookCommands<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut out = vec![];
                while let Some(Info(c)) = seq.next_element::<Info>()? {
                    out.extend(c);
                }
                Ok(HookCommands(out))
            }
            lenient_rest!(HookCommands(vec![]); bool, num, unit, str, map);
        }
        d.deserialize_any(V)
    }
}

/// The length of an array; 0 for a value of any other kind.
struct Count(usize);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Count, A::Error> {
                let mut n = 0;
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    n += 1;
                }
                Ok(Count(n))
            }
            lenient_rest!(Count(0); bool, num, unit, str, map);
        }
        d.deserialize_any(V)
    }
}

/// A key set with one string field of interest, for [`StrIn`].
trait OneKey {
    /// Whether this key is the field.
    fn is_wanted(&self) -> bool;
}

impl OneKey for AgentResultKey {
    fn is_wanted(&self) -> bool {
        matches!(self, AgentResultKey::AgentId)
    }
}

impl OneKey for BlockingErrorKey {
    fn is_wanted(&self) -> bool {
        matches!(self, BlockingErrorKey::Command)
    }
}

keys!(BlockingErrorKey { Command = "command" });

/// One string field of an object (the key `K` picks it), or `None` for a
/// value of any other kind.
struct StrIn<'a, K>(Option<&'a str>, std::marker::PhantomData<K>);

impl<'de, K: Deserialize<'de> + OneKey> Deserialize<'de> for StrIn<'de, K> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<K>(std::marker::PhantomData<K>);
        impl<'de, K: Deserialize<'de> + OneKey> Visitor<'de> for V<K> {
            type Value = StrIn<'de, K>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut found = None;
                while let Some(key) = map.next_key::<K>()? {
                    if key.is_wanted() {
                        found = map.next_value::<Str>()?.0;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(StrIn(found, std::marker::PhantomData))
            }
            lenient_rest!(StrIn(None, std::marker::PhantomData); bool, num, unit, str, seq);
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// An `attachment` field: an object, or `None` for any other value.
struct MaybeAttachment<'a>(Option<Attachment<'a>>);

impl<'de> Deserialize<'de> for MaybeAttachment<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MaybeAttachment<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut a = Attachment::default();
                while let Some(key) = map.next_key::<AttachmentKey>()? {
                    match key {
                        AttachmentKey::Type => {
                            a.kind = map.next_value::<Str>()?.0
                        }
                        AttachmentKey::BlockingError => {
                            a.blocking_command =
                                map.next_value::<StrIn<BlockingErrorKey>>()?.0
                        }
                        AttachmentKey::Content => {
                            a.content = map.next_value::<Str>()?.0
                        }
                        AttachmentKey::HookEvent => {
                            a.hook_event = map.next_value::<Str>()?.0
                        }
                        AttachmentKey::Command => {
                            a.command = map.next_value::<Str>()?.0
                        }
                        AttachmentKey::TimedOut => {
                            a.timed_out = map.next_value::<Flag>()?.0
                        }
                        AttachmentKey::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(MaybeAttachment(Some(a)))
            }
            lenient_rest!(MaybeAttachment(None); bool, num, unit, str, seq);
        }
        d.deserialize_any(V)
    }
}

struct MaybeMessage<'a>(Option<Message<'a>>);

impl<'de> Deserialize<'de> for MaybeMessage<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MaybeMessage<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<MaybeMessage<'de>, A::Error> {
                let mut m = Message::default();
                while let Some(key) = map.next_key::<MessageKey>()? {
                    match key {
                        MessageKey::Id => m.id = map.next_value::<Str>()?.0,
                        MessageKey::Content => {
                            m.content = map.next_value::<ContentField>()?.0
                        }
                        MessageKey::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(MaybeMessage(Some(m)))
            }
            lenient_rest!(MaybeMessage(None); bool, num, unit, str, seq);
        }
        d.deserialize_any(V)
    }
}

/// The `content` field, in any of its shapes.
struct ContentField<'a>(Content<'a>);

impl<'de> Deserialize<'de> for ContentField<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ContentField<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(
                self,
                s: &'de str,
            ) -> Result<Self::Value, E> {
                Ok(ContentField(Content::Text(s)))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(block) = seq.next_element_seed(BlockSeed)? {
                    blocks.extend(block);
                }
                Ok(ContentField(Content::Blocks(blocks)))
            }
            lenient_rest!(ContentField(Content::Absent); bool, num, unit, str, map);
        }
        d.deserialize_any(V)
    }
}

/// One element of a content array: a block, or `None` if not an object.
struct BlockSeed;

impl<'de> DeserializeSeed<'de> for BlockSeed {
    type Value = Option<Block<'de>>;

    fn deserialize<D: Deserializer<'de>>(
        self,
        d: D,
    ) -> Result<Self::Value, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Option<Block<'de>>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let (mut kind, mut text) = (None, None);
                let (mut id, mut name, mut input) = (None, None, None);
                let (mut tool_use_id, mut is_error) = (None, false);
                while let Some(key) = map.next_key::<BlockKey>()? {
                    match key {
                        BlockKey::Type => kind = map.next_value::<Str>()?.0,
                        BlockKey::Text => text = map.next_value::<Str>()?.0,
                        BlockKey::Id => id = map.next_value::<Str>()?.0,
                        BlockKey::Name => name = map.next_value::<Str>()?.0,
                        BlockKey::Input => {
                            input = Some(map.next_value::<ToolInput>()?)
                        }
                        BlockKey::ToolUseId => {
                            tool_use_id = map.next_value::<Str>()?.0
                        }
                        BlockKey::IsError => {
                            is_error = map.next_value::<Flag>()?.0
                        }
                        BlockKey::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Some(match kind {
                    Some("text") => Block::Text(text.unwrap_or("")),
                    Some("thinking") => Block::Thinking,
                    Some("tool_use") => Block::ToolUse(ToolUse {
                        id,
                        name,
                        input: input.unwrap_or_default(),
                    }),
                    Some("tool_result") => {
                        Block::ToolResult(ToolResult { tool_use_id, is_error })
                    }
                    Some("image") => Block::Image,
                    _ => Block::Unknown,
                }))
            }
            lenient_rest!(None; bool, num, unit, str, seq);
        }
        d.deserialize_any(V)
    }
}

/// Whether a text is empty or only whitespace.
pub(crate) fn is_blank(text: &str) -> bool {
    text.trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_types_read_as_absent() {
        let p = RecordParser::new();
        let r = p
            .parse(br#"{"type":5,"isMeta":"yes","message":[1],"sessionId":{"a":[1,{}]}}"#)
            .unwrap();
        assert_eq!(r.record_type(), RecordType::Unknown);
        assert!(!r.is_meta());
        assert!(r.message().is_none());
        assert!(r.session_id().is_none());
    }

    #[test]
    fn not_an_object_is_corrupt() {
        let p = RecordParser::new();
        for line in [
            &b"[1]"[..],
            b"3",
            b"\"s\"",
            b"",
            b"{",
            b"{\"a\":1} x",
            b"{\"a\":\"\xff\"}",
        ] {
            assert!(p.parse(line).is_err(), "{:?}", line);
        }
    }

    #[test]
    fn blocks_of_every_kind() {
        let p = RecordParser::new();
        let line = br#"{"type":"assistant","message":{"id":"m1","role":"assistant","content":[
            {"type":"text","text":"a\"b"},{"type":"thinking","thinking":"t"},
            {"type":"tool_use","id":"u1","name":"Bash","input":{"command":"ls","command":"rm x"}},
            {"type":"tool_result","tool_use_id":"u1","is_error":true,"content":[{"type":"text","text":"x"}]},
            {"type":"image"},{"type":"future"},{"text":"no type"},7,null]}}"#;
        let r = p.parse(line).unwrap();
        let blocks = r.content().blocks();
        assert_eq!(blocks.len(), 7);
        assert!(matches!(blocks[0], Block::Text("a\"b")));
        assert!(matches!(blocks[1], Block::Thinking));
        match &blocks[2] {
            Block::ToolUse(u) => {
                assert_eq!(u.name(), Some("Bash"));
                assert_eq!(u.id(), Some("u1"));
                // Duplicate keys: the last wins, as in serde_json.
                assert_eq!(u.input().command, CommandField::Text("rm x"));
            }
            b => panic!("{:?}", b),
        }
        match &blocks[3] {
            Block::ToolResult(t) => {
                assert_eq!(t.tool_use_id(), Some("u1"));
                assert!(t.is_error());
            }
            b => panic!("{:?}", b),
        }
        assert!(matches!(blocks[4], Block::Image));
        assert!(matches!(blocks[5], Block::Unknown));
        assert!(matches!(blocks[6], Block::Unknown));
        assert_eq!(r.message().unwrap().id(), Some("m1"));
    }

    #[test]
    fn numbers_agree_with_serde_json() {
        let p = RecordParser::new();
        for n in [
            "77777777777777777777777777777",
            "-99999999999999999999999",
            "1e400",
            "-1e400",
            "1e-400",
            "-0",
            "1.7976931348623157e309",
            "18446744073709551616",
            "0.1e1",
            "1E+2",
            "01",
            "1.",
            ".5",
        ] {
            let line = format!("{{\"type\":\"user\",\"n\":{n}}}");
            let want =
                serde_json::from_str::<serde_json::Value>(&line).is_ok();
            assert_eq!(p.parse(line.as_bytes()).is_ok(), want, "{line}");
        }
    }

    #[test]
    fn nul_and_invalid_utf8_are_corrupt_not_panics() {
        let p = RecordParser::new();
        assert!(p.parse(b"{\"type\":\"user\",\"x\":\"a\x00b\"}").is_err());
        assert!(p.parse(b"{\"type\":\"us\xc3\x28er\"}").is_err());
        // An escaped NUL is fine.
        assert!(p.parse(br#"{"type":"user","x":"a\u0000b"}"#).is_ok());
    }
}
