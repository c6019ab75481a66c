//! Claude Code's transcript records, fed to the [`TurnBuilder`]: which
//! lines start a turn, which are worth parsing (the byte probes), and
//! what each record adds to the open turn.

use super::builder::{Need, TurnBuilder};
use super::record::{
    is_blank, Attachment, Block, Content, Record, RecordType,
};
use super::sniff::{quick_type, skip_ws, tail_type, Needle};
use super::tool_input::{EDIT_TOOLS, SHELL_TOOLS};
use super::turn::{
    Chain, HookFault, Launch, LinePos, TextAt, ToolCall, Turn, TurnKind,
    LAUNCH_TOOLS,
};

/// Prefixes of user lines that wrap command output rather than a prompt.
const OUTPUT_WRAPPERS: &[&str] = &[
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<bash-stdout>",
    "<bash-stderr>",
    "Caveat: ",
];

/// The text Claude Code writes as a user line when the user interrupts.
const INTERRUPT: &str = "[Request interrupted by user";

/// The start of the user line that carries a Stop hook's block back to the
/// model.
pub const STOP_FEEDBACK: &str = "Stop hook feedback:";

/// What a reader is to do with a line, judged from its bytes
/// ([`TurnBuilder::wants`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Want {
    /// The builder would ignore the record: leave the line unparsed.
    Skip,
    /// Parse the line and [`push`](TurnBuilder::push) it.
    Now,
    /// All the record can give is the open turn's final text: an assistant
    /// line with no tool use, in a turn that has started and has its
    /// timestamp. The reader may hold the line back unparsed and, before
    /// the turn ends ([`TurnBuilder::starts_turn`]), parse only the newest
    /// held lines, until one has text ([`TurnBuilder::push_held`]). Most
    /// of a turn's text lines are narration that a later line's text
    /// supersedes: parsing them all cost a scan of real transcripts 9% of
    /// its instructions.
    Text,
}

/// The fault an attachment records, if it records one: an error, or
/// a cancel because the hook ran out of time (a cancel the user asked
/// for is not the hook's fault).
pub(super) fn hook_fault(a: &Attachment<'_>) -> Option<HookFault> {
    let timed_out = match a.kind()? {
        "hook_non_blocking_error" | "hook_error_during_execution" => false,
        "hook_cancelled" if a.timed_out() => true,
        _ => return None,
    };
    // `hookName` is `PostToolUse:Write`; `hookEvent` is the event.
    Some(HookFault {
        event: a.hook_event().unwrap_or("").to_string(),
        command: a.command().map(str::to_string),
        timed_out,
    })
}

/// The number of blocks a client's notice says it overrode: Claude Code's
/// "A hook blocked the turn from ending N consecutive times".
fn overridden_blocks(notice: &str) -> Option<usize> {
    let rest = notice.strip_prefix(OVERRIDE_NOTICE)?;
    let digits = rest.len()
        - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    rest[..digits].parse().ok()
}

/// The start of Claude Code's notice when it ends a turn over a Stop
/// hook's blocks.
const OVERRIDE_NOTICE: &str = "A hook blocked the turn from ending ";

/// Whether a record is shaped like a prompt a human typed: a `user` line
/// that is not `isMeta`, not a compact summary, holds no `tool_result`
/// block, does not start with a command-output wrapper, and is not the
/// interrupt marker. A slash command's `<command-message>` line
/// qualifies; the `isMeta` expansion after it does not.
fn is_prompt_shaped(rec: &Record<'_>) -> bool {
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
            match first_text(blocks) {
                Some(t) => t,
                // Images only: still something the human sent.
                None => return !blocks.is_empty(),
            }
        }
        Content::Absent => return false,
    };
    let first = first.trim_start();
    !first.starts_with(INTERRUPT)
        && !OUTPUT_WRAPPERS.iter().any(|w| first.starts_with(w))
}

fn first_text<'a>(blocks: &[Block<'a>]) -> Option<&'a str> {
    blocks.iter().find_map(|b| match b {
        Block::Text(t) => Some(*t),
        _ => None,
    })
}

/// The text of a user record: its content string, or its text blocks
/// joined by newlines.
fn user_text(rec: &Record<'_>) -> String {
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

/// The kind of turn a record starts, if it starts one.
pub(super) fn turn_start(rec: &Record<'_>) -> Option<TurnKind> {
    match rec.record_type() {
        RecordType::System if rec.subtype() == Some("local_command") => {
            Some(TurnKind::LocalCommand)
        }
        RecordType::User if is_prompt_shaped(rec) => {
            let text = match rec.content() {
                Content::Text(t) => *t,
                Content::Blocks(b) => first_text(b).unwrap_or(""),
                Content::Absent => "",
            };
            let text = text.trim_start();
            Some(if text.starts_with("<task-notification>") {
                TurnKind::Notification
            } else if text.starts_with("<bash-input>") {
                TurnKind::LocalCommand
            } else {
                TurnKind::Prompt
            })
        }
        _ => None,
    }
}

/// A block typed `tool_result`, as Claude Code writes it: the key and the
/// value together, so that a bare `"tool_result"` string (a prompt that is
/// just that word, the value of a misspelt key) does not make a prompt
/// look like a tool result. (An object typed `tool_result` nested off the
/// block level still would; Claude Code writes none.)
static TOOL_RESULT: Needle = Needle::new(b"\"type\":\"tool_result\"");

/// The key and opening quote of a tool result's `tool_use_id`.
const RESULT_ID_KEY: &[u8] = b"\"tool_use_id\":\"";

static RESULT_ID: Needle = Needle::new(RESULT_ID_KEY);

/// Whether a tool result line says its tool failed: `"is_error":true`,
/// as Claude Code writes it, in its `message`. Claude Code writes the
/// `toolUseResult` after the message, and it holds the bulk of a change's
/// result (an Edit's whole file), so the search stops there.
fn failed(line: &[u8]) -> bool {
    static DETAILS: Needle = Needle::new(b"\"toolUseResult\"");
    static FAILED: Needle = Needle::new(b"\"is_error\":true");
    let message = match DETAILS.finder().find(line) {
        Some(at) => &line[..at],
        None => line,
    };
    FAILED.find(message)
}

static SUMMARY: Needle = Needle::new(b"\"stop_hook_summary\"");

static LOCAL_COMMAND: Needle = Needle::new(b"\"local_command\"");

static BLOCKING: Needle = Needle::new(b"\"hook_blocking_error\"");

/// The start of every message stopgate's hook shows when it fails open
/// (`hook::Fault`).
pub(crate) const UNGUARDED_PREFIX: &str = "stopgate is not guarding";

static UNGUARDED: Needle = Needle::new(UNGUARDED_PREFIX.as_bytes());

static OVERRIDE: Needle = Needle::new(OVERRIDE_NOTICE.as_bytes());

/// Whether a line may record a hook's fault ([`HookFault`]): it spells one
/// of the attachment types that do.
fn holds_hook_fault(line: &[u8]) -> bool {
    static ERROR: Needle = Needle::new(b"\"hook_non_blocking_error\"");
    static FAILED: Needle = Needle::new(b"\"hook_error_during_execution\"");
    static CANCELLED: Needle = Needle::new(b"\"hook_cancelled\"");
    ERROR.find(line) || FAILED.find(line) || CANCELLED.find(line)
}

static TOOL_USE: Needle = Needle::new(b"tool_use");

static ESCAPE: Needle = Needle::new(b"\\u");

/// A record's type spelt in its bytes, as a user or a system record must.
static USER: Needle = Needle::new(b"\"user\"");

static SYSTEM: Needle = Needle::new(b"\"system\"");

/// Whether a line may hold a tool use that changes files: one that may
/// hold a tool use ([`may_hold_tool_use`]) and has a `"name"` key whose
/// string value is the name of a tool that can change files
/// ([`EDIT_TOOLS`], [`SHELL_TOOLS`]), or escapes a letter (`\u`), as a key
/// or a name spelt otherwise must. Most of a subagent's tool uses read
/// (`Read`, `Grep`, `Glob`): their lines, the dearest to parse, are left
/// unparsed. A `"name"` inside a string only makes the answer `true`
/// more often.
pub(super) fn may_hold_change(line: &[u8]) -> bool {
    static NAME: Needle = Needle::new(b"\"name\"");
    if !may_hold_tool_use(line) {
        return false;
    }
    if ESCAPE.find(line) {
        return true;
    }
    NAME.finder().find_iter(line).any(|at| {
        let colon = skip_ws(line, at + NAME.needle.len());
        if line.get(colon) != Some(&b':') {
            return false;
        }
        let open = skip_ws(line, colon + 1);
        if line.get(open) != Some(&b'"') {
            return false;
        }
        let value = &line[open + 1..];
        let Some(end) = memchr::memchr2(b'"', b'\\', value) else {
            return false;
        };
        value[end] == b'"'
            && EDIT_TOOLS
                .iter()
                .chain(SHELL_TOOLS)
                .any(|n| n.as_bytes() == &value[..end])
    })
}

/// Whether a line may hold a tool use. Only assistant records do, and a
/// tool-use block spells `tool_use` in the line's bytes, or escapes one of
/// its letters (`\u0074`); a line of another type, when its bytes tell the
/// type, does not.
pub(super) fn may_hold_tool_use(line: &[u8]) -> bool {
    match quick_type(line) {
        Some(t) if t != b"assistant" => false,
        _ => TOOL_USE.find(line) || ESCAPE.find(line),
    }
}

/// Whether a line's bytes told its type as `assistant`, or did not tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sure {
    Assistant,
    Unsure,
}

/// Whether a user line holds a tool result, judged from its first 4 KiB.
fn holds_tool_result(line: &[u8]) -> bool {
    TOOL_RESULT.find_key(&line[..line.len().min(4096)])
}

/// Whether a line may start a turn: a user or system record.
pub(super) fn might_start_turn(line: &[u8]) -> bool {
    match quick_type(line) {
        Some(b"user") => !holds_tool_result(line),
        Some(b"system") => LOCAL_COMMAND.find(line),
        Some(_) => false,
        // Not cheaply classified (assistant lines put `type` last): a user
        // or system line would have to spell its type.
        None => USER.find(line) || SYSTEM.find(line) || ESCAPE.find(line),
    }
}

impl TurnBuilder {
    /// Whether a line is worth parsing, judged from its bytes: the
    /// top-level type where it can be read cheaply, and a substring probe
    /// for the few records of those types that matter.
    ///
    /// It is sound: it says `false` only for lines that
    /// [`TurnBuilder::push`] would ignore. Tool results, which carry most
    /// of a transcript's bytes, matter only while a Task or Agent tool use
    /// waits for the result that names its subagent. A builder that needs
    /// only changes (a subagent's file) wants only the lines that may hold
    /// a tool use: the others would change its turns, never its changes.
    ///
    /// [`Want::Text`] is sound too: for such a line, `push` would only
    /// note a timestamp the turn already has, and, if it is the main
    /// chain's assistant line, mark the turn as answered and take its text.
    /// A line that spells no `tool_use` (nor escapes a letter, `\u`) holds
    /// no tool use. A record whose type the bytes do not tell cheaply is
    /// taken for an assistant's only if it spells no `"user"`, `"system"`
    /// and `"hook_blocking_error"`: the records that start turns or count
    /// blocks must spell them.
    pub(super) fn wants(&mut self, line: &[u8]) -> Want {
        if self.need == Need::Changes {
            return if may_hold_change(line) { Want::Now } else { Want::Skip };
        }
        let yes = |b: bool| if b { Want::Now } else { Want::Skip };
        match quick_type(line) {
            // Claude Code writes the block's type within a line's first
            // few hundred bytes; a line where it comes later is parsed,
            // which is slower but gives the same answer.
            Some(b"user") => yes(self.unanswered_launches > 0
                || !holds_tool_result(line)
                || self.answers_change_failed(line)),
            // A value spelt with `\u` escapes is parsed, to be sure.
            Some(b"system") => yes(SUMMARY.find(line)
                || LOCAL_COMMAND.find(line)
                || OVERRIDE.find(line)
                || ESCAPE.find(line)),
            Some(b"attachment") => yes(BLOCKING.find(line)
                || UNGUARDED.find(line)
                || holds_hook_fault(line)
                || ESCAPE.find(line)),
            Some(b"assistant") => self.text_only(line, Sure::Assistant),
            // Claude Code writes an assistant line's `type` last.
            None if tail_type(line) == Some(b"assistant") => {
                self.text_only(line, Sure::Assistant)
            }
            None => self.text_only(line, Sure::Unsure),
            Some(_) => Want::Skip,
        }
    }

    /// Whether a tool result line answers, with an error, one of the open
    /// turn's editing tool uses: then it is worth parsing. Its result's
    /// `tool_use_id`, which Claude Code writes in the line's head, one
    /// result to a line, is looked for among the tool uses that may
    /// change files, each until met. A shell command's failure is noted
    /// from the bytes alone, unparsed: whether the command changed files
    /// is the judge's to say, and parsing the output of every failed test
    /// run to learn it would cost more than it tells.
    fn answers_change_failed(&mut self, line: &[u8]) -> bool {
        if self.unanswered_changes.is_empty() {
            return false;
        }
        let head = &line[..line.len().min(4096)];
        let Some(at) = RESULT_ID.finder().find(head) else { return false };
        let rest = &head[at + RESULT_ID_KEY.len()..];
        let Some(end) = memchr::memchr(b'"', rest) else { return false };
        let id = &rest[..end];
        let Some(i) = self
            .unanswered_changes
            .iter()
            .position(|(u, _)| u.as_bytes() == id)
        else {
            return false;
        };
        let (id, edits) = self.unanswered_changes.swap_remove(i);
        match (edits, failed(line)) {
            (true, failed) => failed,
            (false, true) => {
                self.open.failed.push(id);
                false
            }
            (false, false) => false,
        }
    }

    /// [`Want::Text`] when the assistant line (or, `Unsure`, a line of a
    /// type its bytes did not tell) can give the open turn nothing but its
    /// final text; else [`Want::Now`].
    fn text_only(&self, line: &[u8], sure: Sure) -> Want {
        let settled = self.started && self.open.timestamp.is_some();
        let text_only = settled
            && !TOOL_USE.find(line)
            && !ESCAPE.find(line)
            && (sure == Sure::Assistant
                || !(USER.find(line)
                    || SYSTEM.find(line)
                    || BLOCKING.find(line)
                    || UNGUARDED.find(line)
                    || holds_hook_fault(line)));
        if text_only {
            Want::Text
        } else {
            Want::Now
        }
    }

    /// Whether `rec`, pushed, would end the open turn and start another.
    pub(super) fn starts_turn(&self, rec: &Record<'_>) -> bool {
        self.owns(rec) && turn_start(rec).is_some()
    }

    /// Whether `rec` is on the chain this builder follows.
    fn owns(&self, rec: &Record<'_>) -> bool {
        match self.chain {
            Chain::Main => !rec.is_sidechain(),
            Chain::Subagent => true,
        }
    }

    /// Feed a record of a line held back as [`Want::Text`], parsed after
    /// later lines were pushed: its text becomes the final text only if no
    /// later line's did. Returns whether it had text to give, after which
    /// the older held lines cannot matter and are left unparsed.
    pub(super) fn push_held(
        &mut self,
        rec: &Record<'_>,
        pos: LinePos,
    ) -> bool {
        if !self.owns(rec) || rec.record_type() != RecordType::Assistant {
            return false;
        }
        debug_assert!(
            !rec.content()
                .blocks()
                .iter()
                .any(|b| matches!(b, Block::ToolUse(_))),
            "a line held as text-only holds a tool use",
        );
        let t = &mut self.open;
        t.any_assistant = true;
        let Some(text) = last_text(rec) else {
            return false;
        };
        if t.final_text.as_ref().is_none_or(|f| f.offset < pos.offset) {
            t.final_text = Some(TextAt {
                text: text.to_string(),
                offset: pos.offset,
                line: pos.line,
                at: rec.timestamp().map(str::to_string),
            });
        }
        true
    }

    /// Feed the next record. When it starts a new turn, the previous one
    /// is returned, finished.
    pub fn push(&mut self, rec: &Record<'_>, pos: LinePos) -> Option<Turn> {
        if !self.owns(rec) {
            self.sidechain_work(rec, pos);
            return None;
        }
        if let Some(kind) = turn_start(rec) {
            return self.begin(kind, user_text(rec), rec.timestamp(), pos);
        }
        self.start(rec.timestamp());
        match rec.record_type() {
            RecordType::Assistant => self.assistant(rec, pos),
            RecordType::User => self.user(rec, pos),
            RecordType::System => {
                if let Some(summary) = rec.stop_hook_summary() {
                    let t = &mut self.open;
                    t.saw(rec.timestamp());
                    t.hooks_ran.extend(
                        summary.commands.iter().map(|c| c.to_string()),
                    );
                    if summary.errors > 0 {
                        t.stop_blocks.other_traces += 1;
                    }
                } else if let Some(n) =
                    rec.notice().and_then(overridden_blocks)
                {
                    self.open.overridden = Some(n);
                }
            }
            RecordType::Attachment => {
                if let Some(a) = rec.attachment() {
                    if a.kind() == Some("hook_blocking_error") {
                        let blocks = &mut self.open.stop_blocks;
                        blocks.other_traces += 1;
                        blocks.name(a.blocking_command().unwrap_or(""));
                    }
                    self.open.hook_faults.extend(hook_fault(&a));
                    // Not "… not guarding as configured": the defaults guard.
                    if a.kind() == Some("hook_system_message")
                        && a.content().is_some_and(|c| {
                            c.starts_with(UNGUARDED_PREFIX)
                                && !c[UNGUARDED_PREFIX.len()..]
                                    .starts_with(" as configured")
                        })
                    {
                        self.open.unguarded += 1;
                    }
                }
            }
            _ => {}
        }
        None
    }

    fn assistant(&mut self, rec: &Record<'_>, pos: LinePos) {
        let t = &mut self.open;
        t.any_assistant = true;
        let tools = t.tool_uses.len();
        for (i, block) in rec.content().blocks().iter().enumerate() {
            if let Block::ToolUse(u) = block {
                let name = u.name().unwrap_or("");
                if LAUNCH_TOOLS.contains(&name) {
                    self.unanswered_launches += 1;
                }
                let call = ToolCall::from_input(
                    u.id(),
                    name,
                    u.input(),
                    pos.offset,
                    i,
                )
                .made_at(rec.timestamp())
                .on_line(pos.line);
                if let (true, Some(id)) = (call.may_change(), call.id()) {
                    self.unanswered_changes
                        .push((id.to_string(), call.edits()));
                }
                t.tool_uses.push(call);
            }
        }
        if t.tool_uses.len() > tools {
            t.saw(rec.timestamp());
            self.last_tool_at = Some(pos.offset);
            self.blocks_since_tool = 0;
        }
        if let Some(text) = last_text(rec) {
            t.final_text = Some(TextAt {
                text: text.to_string(),
                offset: pos.offset,
                line: pos.line,
                at: rec.timestamp().map(str::to_string),
            });
        }
    }

    fn user(&mut self, rec: &Record<'_>, pos: LinePos) {
        let t = &mut self.open;
        for block in rec.content().blocks() {
            if let Block::ToolResult(r) = block {
                if let (true, Some(id)) = (r.is_error(), r.tool_use_id()) {
                    t.failed.push(id.to_string());
                }
            }
        }
        if let Some(agent) = rec.launched_agent() {
            let tool_use_id =
                rec.content().blocks().iter().find_map(|b| match b {
                    Block::ToolResult(r) => {
                        r.tool_use_id().map(str::to_string)
                    }
                    _ => None,
                });
            t.launches
                .push(Launch { tool_use_id, agent_id: agent.to_string() });
            self.unanswered_launches =
                self.unanswered_launches.saturating_sub(1);
            return;
        }
        let text = match rec.content() {
            Content::Text(s) => *s,
            Content::Blocks(b) => first_text(b).unwrap_or(""),
            Content::Absent => "",
        };
        let text = text.trim_start();
        if text.starts_with(INTERRUPT) && !rec.is_meta() {
            t.kind = TurnKind::Interrupted;
        } else if rec.is_meta() {
            if let Some(rest) = text.strip_prefix(STOP_FEEDBACK) {
                t.stop_blocks.feedback += 1;
                self.last_block_at = Some(pos.offset);
                self.blocks_since_tool += 1;
                // Exit-2 blocks read `[<command>]: <stderr>`.
                let rest = rest.trim_start();
                if let Some(end) =
                    rest.strip_prefix('[').and_then(|r| r.find("]: "))
                {
                    t.stop_blocks.name(&rest[1..end + 1]);
                }
            }
        }
    }

    /// A sidechain line on the main chain: a subagent's file changes count
    /// as the turn's.
    fn sidechain_work(&mut self, rec: &Record<'_>, pos: LinePos) {
        if rec.record_type() != RecordType::Assistant {
            return;
        }
        for (i, block) in rec.content().blocks().iter().enumerate() {
            if let Block::ToolUse(u) = block {
                let call = ToolCall::from_input(
                    u.id(),
                    u.name().unwrap_or(""),
                    u.input(),
                    pos.offset,
                    i,
                )
                .made_at(rec.timestamp())
                .on_line(pos.line);
                if call.may_change() {
                    self.started = true;
                    self.open
                        .subagent_tool_uses
                        .push(call.by_subagent_of(None));
                }
            }
        }
    }
}

/// The last non-blank text of an assistant record.
fn last_text<'a>(rec: &Record<'a>) -> Option<&'a str> {
    match rec.content() {
        Content::Text(t) => Some(*t).filter(|t| !is_blank(t)),
        Content::Blocks(blocks) => blocks.iter().rev().find_map(|b| match b {
            Block::Text(t) if !is_blank(t) => Some(*t),
            _ => None,
        }),
        Content::Absent => None,
    }
}

#[cfg(test)]
mod turn_builder_example {
    #[test]
    fn turn_builder() {
        use crate::read::builder::TurnBuilder;
        use crate::read::record::RecordParser;
        use crate::read::turn::{Chain, LinePos};

        let lines = [
            r#"{"type":"user","message":{"content":"add a test"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Write","input":{}}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Added."}]}}"#,
            r#"{"type":"user","message":{"content":"thanks"}}"#,
        ];
        let mut parser = RecordParser::new();
        let mut builder = TurnBuilder::numbered_from(Chain::Main, 1);
        let mut turns = vec![];
        for (i, line) in lines.iter().enumerate() {
            parser.reset();
            let rec = parser.parse(line.as_bytes()).unwrap();
            let pos = LinePos { offset: 0, line: Some(i as u64 + 1) };
            turns.extend(builder.push(&rec, pos));
        }
        turns.extend(builder.finish());
        assert_eq!(turns.len(), 2);
        assert!(turns[0].possible_changes().next().is_some());
        assert_eq!(turns[0].final_text(), Some("Added."));
        assert_eq!(turns[0].final_text_line(), Some(3));
        assert_eq!(turns[1].index(), 2);
    }
}

#[cfg(test)]
mod failed_result_tests {
    use super::failed;

    #[test]
    fn only_the_messages_is_error_counts() {
        let cases: [(&str, bool); 5] = [
            (
                r#"{"message":{"content":[{"tool_use_id":"a","type":"tool_result","content":"no","is_error":true}]},"toolUseResult":"Error: no"}"#,
                true,
            ),
            (
                r#"{"message":{"content":[{"tool_use_id":"a","type":"tool_result","content":"no","is_error":true}]}}"#,
                true,
            ),
            (
                r#"{"message":{"content":[{"tool_use_id":"a","type":"tool_result","content":"ok","is_error":false}]},"toolUseResult":{}}"#,
                false,
            ),
            // What comes after the message is the tool's own output.
            (
                r#"{"message":{"content":[{"tool_use_id":"a","type":"tool_result","content":"ok"}]},"toolUseResult":{"x":{"is_error":true}}}"#,
                false,
            ),
            // Inside a string, the key's quotes are escaped.
            (
                r#"{"message":{"content":[{"tool_use_id":"a","type":"tool_result","content":"grep \"is_error\":true"}]}}"#,
                false,
            ),
        ];
        for (line, want) in cases {
            assert_eq!(failed(line.as_bytes()), want, "{line}");
        }
    }
}

#[cfg(test)]
mod probe_tests {
    use super::holds_tool_result;

    /// A prompt whose block has a key that ends `\"type`, followed by
    /// `"tool_result"`: the probe's bytes, but no tool result.
    #[test]
    fn a_key_ending_in_an_escaped_quote_holds_no_tool_result() {
        let result = br#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t"}]}}"#;
        assert!(holds_tool_result(result));
        let prompt = br#"{"type":"user","message":{"content":[{"x\"type":"tool_result","type":"text","text":"hi"}]}}"#;
        assert!(!holds_tool_result(prompt));
    }
}

#[cfg(test)]
mod override_tests {
    use super::Chain;
    use crate::read::Transcript;

    /// A block no line answers is one the client overrode: counted since
    /// the last tool use; an answered block, or a turn the user
    /// interrupted, is not.
    #[test]
    fn an_unanswered_block_was_overridden() {
        let user = |text: &str, meta: bool| serde_json::json!({"type": "user", "isMeta": meta, "message": {"role": "user", "content": text}});
        let said = |blocks: serde_json::Value| serde_json::json!({"type": "assistant", "message": {"role": "assistant", "content": blocks}});
        let text =
            |t: &str| said(serde_json::json!([{"type": "text", "text": t}]));
        let tool = said(
            serde_json::json!([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]),
        );
        let block = user("Stop hook feedback:\n[stopgate hook]: audit", true);
        let overridden = |lines: &[serde_json::Value]| {
            let body: String =
                lines.iter().map(|l| format!("{l}\n")).collect();
            let t = Transcript::from_bytes(body.into_bytes());
            t.turns(Chain::Main).pop().unwrap().blocks_overridden()
        };
        let prompt = user("go", false);
        let cases = [
            (
                vec![
                    prompt.clone(),
                    text("Done."),
                    block.clone(),
                    text("Audit: ok."),
                ],
                None,
            ),
            (
                vec![
                    prompt.clone(),
                    text("Done."),
                    block.clone(),
                    tool.clone(),
                ],
                None,
            ),
            (
                vec![
                    prompt.clone(),
                    text("Done."),
                    block.clone(),
                    tool,
                    text("Done."),
                    block.clone(),
                    text("Done."),
                    block.clone(),
                ],
                Some(2),
            ),
            (
                vec![
                    prompt,
                    text("Done."),
                    block,
                    user("[Request interrupted by user]", false),
                ],
                None,
            ),
        ];
        for (lines, want) in cases {
            assert_eq!(overridden(&lines), want, "{lines:#?}");
        }
    }
}
