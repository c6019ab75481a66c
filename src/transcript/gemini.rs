//! Gemini CLI chat logs, replayed into the one turn model.
//!
//! Gemini CLI (`~/.gemini/tmp/<project>/chats/session-*.jsonl`) does not
//! write a list of messages but a log that rebuilds one:
//!
//! * a line `{"id":…,"type":…,…}` is a message; a later line with the same
//!   `id` *replaces* it (a model message is written again when its tool
//!   calls are added);
//! * `{"$set":{"messages":[…]}}` replaces the whole list (a checkpoint);
//!   a `$set` without `messages` only updates metadata;
//! * `{"$rewindTo":"<id>"}` drops that message and all after it.
//!
//! So the log is replayed first ([`Replay`]), and the surviving messages
//! are then fed, in order, to the one turn model. Each message is reduced
//! as it is read to what a turn needs ([`Msg`]), so a replay holds no
//! tool output.
//!
//! Among `user` messages, one whose parts are `functionResponse`s carries
//! tool results, the `<session_context>` message is the harness's, and
//! a Stop hook's block comes back as a plain user message holding the
//! hook's reason: stopgate's own start with `stopgate:`, and count as a
//! block, not a prompt. A `gemini` message's `toolCalls` are tool uses
//! (`write_file`, `replace`, `run_shell_command`, …), judged by the one
//! rule table, and its `content` is what the model said.
//!
//! A tail window may start after the message a `$rewindTo` names: the
//! replay then drops everything before the rewind and says so
//! ([`Replay::lost_history`]), and the reader reads a larger window.

use std::collections::HashMap;

use serde_json::Value;

use super::format::{content_text, ValueParser};
use super::sniff::{quick_type, Needle};
use super::turn::{Back, LinePos, ToolCall, Turn, TurnBuilder, TurnKind};

/// What a Stop hook's reason starts with when stopgate wrote it.
pub const OWN_REASON: &str = "stopgate:";

/// Texts of harness-written user messages.
const HARNESS_PREFIXES: &[&str] = &["<session_context>"];

/// One message, reduced to what a turn needs.
#[derive(Clone, Debug)]
struct Msg {
    id: String,
    pos: LinePos,
    timestamp: Option<String>,
    kind: MsgKind,
}

#[derive(Clone, Debug)]
enum MsgKind {
    Prompt(String),
    Feedback,
    Model { text: Option<String>, tools: Vec<ToolCall> },
    Other,
}

/// A chat log being replayed, line by line.
#[derive(Debug, Default)]
pub(super) struct Replay {
    msgs: Vec<Msg>,
    index: HashMap<String, usize>,
    lost_history: bool,
    session_id: Option<String>,
}

/// The id of a user message that only carries tool results, read from its
/// first bytes as Gemini CLI writes them (`{"id":"…","timestamp":"…",
/// "type":"user","content":[{"functionResponse":…`): such a message, often
/// the biggest of a log, needs its place in the replay, nothing else. A
/// line in another shape returns `None` and is parsed.
pub(super) fn tool_result_id(line: &[u8]) -> Option<&str> {
    let rest = line.strip_prefix(b"{\"id\":\"")?;
    let end = memchr::memchr2(b'"', b'\\', rest)?;
    if rest[end] != b'"' {
        return None;
    }
    let id = std::str::from_utf8(&rest[..end]).ok()?;
    let after = &rest[end..rest.len().min(end + 160)];
    static AFTER_TIMESTAMP: Needle = Needle::new(
        b"\",\"type\":\"user\",\"content\":[{\"functionResponse\"",
    );
    let ts_end = AFTER_TIMESTAMP.finder().find(after)?;
    // Only a plain timestamp between: no other key, no nested value.
    const TIMESTAMP: &[u8] = b"\",\"timestamp\":\"";
    let value = after[..ts_end].strip_prefix(TIMESTAMP)?;
    let plain =
        !value.iter().any(|&b| matches!(b, b'"' | b'\\' | b'{' | b'['));
    plain.then_some(id)
}

impl Replay {
    /// A user message that only carries tool results
    /// ([`tool_result_id`]).
    pub(super) fn push_tool_results(&mut self, id: &str, pos: LinePos) {
        let msg = Msg {
            id: id.to_string(),
            pos,
            timestamp: None,
            kind: MsgKind::Other,
        };
        self.put(msg);
    }

    /// Apply one parsed line.
    pub(super) fn push(&mut self, v: &Value, pos: LinePos) {
        if let Some(set) = v.get("$set") {
            if let Some(list) = set.get("messages").and_then(Value::as_array) {
                self.msgs.clear();
                self.index.clear();
                for m in list {
                    self.upsert(m, pos);
                }
            }
            return;
        }
        if let Some(to) = v.get("$rewindTo") {
            match to.as_str().and_then(|id| self.index.get(id)) {
                Some(&at) => {
                    for m in self.msgs.drain(at..) {
                        self.index.remove(&m.id);
                    }
                }
                None => {
                    self.msgs.clear();
                    self.index.clear();
                    self.lost_history = true;
                }
            }
            return;
        }
        if self.session_id.is_none() {
            if let Some(id) = v.get("sessionId").and_then(Value::as_str) {
                self.session_id = Some(id.to_string());
                return;
            }
        }
        self.upsert(v, pos);
    }

    /// Add a message, or replace the one with its id.
    fn upsert(&mut self, v: &Value, pos: LinePos) {
        let Some(id) = v.get("id").and_then(Value::as_str) else {
            return;
        };
        let Some(kind) = v.get("type").and_then(Value::as_str) else {
            return;
        };
        let msg = Msg {
            id: id.to_string(),
            pos,
            timestamp: v
                .get("timestamp")
                .and_then(Value::as_str)
                .map(str::to_string),
            kind: reduce(kind, v, pos),
        };
        self.put(msg);
    }

    /// Add a message, or replace the one with its id in its place.
    fn put(&mut self, msg: Msg) {
        match self.index.get(&msg.id) {
            Some(&at) => self.msgs[at] = msg,
            None => {
                self.index.insert(msg.id.clone(), self.msgs.len());
                self.msgs.push(msg);
            }
        }
    }

    /// Whether a `$rewindTo` named a message the replay never saw: what
    /// came before it in the file is unknown.
    pub(super) fn lost_history(&self) -> bool {
        self.lost_history
    }

    #[cfg_attr(not(feature = "archive"), allow(dead_code))]
    /// The session id of the log's metadata line.
    pub(super) fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// Feed the surviving messages to `builder`, handing each finished
    /// turn to `each`.
    pub(super) fn feed(
        self,
        builder: &mut TurnBuilder,
        mut each: impl FnMut(Turn),
    ) {
        for msg in self.msgs {
            let ts = msg.timestamp.as_deref();
            match msg.kind {
                MsgKind::Prompt(text) => {
                    if let Some(done) =
                        builder.begin(TurnKind::Prompt, text, ts, msg.pos)
                    {
                        each(done);
                    }
                }
                MsgKind::Feedback => builder.stop_feedback(),
                MsgKind::Model { text, tools } => {
                    builder.note(ts);
                    for call in tools {
                        builder.tool(call);
                    }
                    if let Some(text) = text {
                        builder.said(&text, msg.pos);
                    }
                }
                MsgKind::Other => {}
            }
        }
    }
}

/// A line met walking back to the current turn's start: only prompts and
/// history rewrites matter, so only `user` lines that are not tool results
/// and lines without a top-level `type` (`$set`, `$rewindTo`) are parsed.
pub(super) fn back(line: &[u8], values: &mut ValueParser) -> Back {
    let kind = quick_type(line);
    if !matches!(kind, Some(b"user") | None)
        || (kind.is_some() && tool_result_id(line).is_some())
    {
        return Back::Pass;
    }
    match values.parse(line) {
        Some(v) if rewrites_history(&v) => Back::Rewritten,
        Some(v) if starts_turn(&v) => Back::Start,
        _ => Back::Pass,
    }
}

/// Whether a log line is a prompt, which starts a turn.
fn starts_turn(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("user")
        && v.get("id").and_then(Value::as_str).is_some()
        && matches!(
            reduce("user", v, LinePos { offset: 0, line: None }),
            MsgKind::Prompt(_)
        )
}

/// Whether a log line rewrites history: a `$rewindTo`, or a `$set` that
/// replaces the messages. Walking back past one would be wrong.
fn rewrites_history(v: &Value) -> bool {
    v.get("$rewindTo").is_some()
        || v.get("$set").is_some_and(|s| s.get("messages").is_some())
}

/// Reduce a message record to what a turn needs.
fn reduce(kind: &str, v: &Value, pos: LinePos) -> MsgKind {
    let content = v.get("content");
    match kind {
        "user" => {
            let parts = content.and_then(Value::as_array);
            if parts.is_some_and(|p| {
                p.iter().any(|part| part.get("functionResponse").is_some())
            }) {
                return MsgKind::Other;
            }
            let Some(text) = content.and_then(content_text) else {
                return MsgKind::Other;
            };
            let t = text.trim_start();
            if t.starts_with(OWN_REASON) {
                MsgKind::Feedback
            } else if HARNESS_PREFIXES.iter().any(|p| t.starts_with(p)) {
                MsgKind::Other
            } else {
                MsgKind::Prompt(text)
            }
        }
        "gemini" => {
            let tools = v
                .get("toolCalls")
                .and_then(Value::as_array)
                .map(|calls| {
                    calls
                        .iter()
                        .enumerate()
                        .filter_map(|(i, c)| {
                            let name = c.get("name")?.as_str()?;
                            let id = c.get("id").and_then(Value::as_str);
                            let args = c.get("args").unwrap_or(&Value::Null);
                            Some(ToolCall::new(id, name, args, pos.offset, i))
                        })
                        .collect()
                })
                .unwrap_or_default();
            MsgKind::Model { text: content.and_then(content_text), tools }
        }
        _ => MsgKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::Chain;

    fn replay(lines: &[&str]) -> Vec<Turn> {
        let mut r = Replay::default();
        for (i, l) in lines.iter().enumerate() {
            let v: Value = serde_json::from_str(l).unwrap();
            r.push(&v, LinePos { offset: i as u64, line: Some(i as u64 + 1) });
        }
        let mut b = TurnBuilder::numbered_from(Chain::Main, 1);
        let mut out = vec![];
        r.feed(&mut b, |t| out.push(t));
        out.extend(b.finish());
        out
    }

    #[test]
    fn tool_result_lines_are_read_by_their_head() {
        let line = br#"{"id":"r1","timestamp":"2026-11-30T08:18:33.168Z","type":"user","content":[{"functionResponse":{"id":"w","name":"write_file","response":{"output":"ok"}}}]}"#;
        assert_eq!(tool_result_id(line), Some("r1"));
        let prompt = br#"{"id":"p","timestamp":"t","type":"user","content":[{"text":"hi"}]}"#;
        assert_eq!(tool_result_id(prompt), None);
        let escaped = br#"{"id":"r\"1","timestamp":"t","type":"user","content":[{"functionResponse":{}}]}"#;
        assert_eq!(tool_result_id(escaped), None);
        let other_key = br#"{"id":"r1","x":"y","type":"user","content":[{"functionResponse":{}}]}"#;
        assert_eq!(tool_result_id(other_key), None);
    }

    #[test]
    fn upserts_checkpoints_and_rewinds() {
        let turns = replay(&[
            r#"{"sessionId":"s","projectHash":"h"}"#,
            r#"{"id":"c","type":"user","content":[{"text":"<session_context>x"}]}"#,
            r#"{"id":"p","type":"user","content":[{"text":"write it"}]}"#,
            r#"{"id":"m","type":"gemini","content":""}"#,
            r#"{"id":"m","type":"gemini","content":"","toolCalls":[{"id":"w","name":"write_file","args":{"file_path":"a"}}]}"#,
            r#"{"id":"r","type":"user","content":[{"functionResponse":{"id":"w"}}]}"#,
            r#"{"id":"d","type":"gemini","content":"Done."}"#,
            r#"{"id":"f","type":"user","content":[{"text":"stopgate: add an audit"}]}"#,
            r#"{"id":"e","type":"gemini","content":"Done. Audit: a"}"#,
            r#"{"$set":{"lastUpdated":"t"}}"#,
        ]);
        assert_eq!(turns.len(), 1);
        let t = &turns[0];
        assert_eq!(t.prompt().unwrap().text(), "write it");
        assert_eq!(t.tool_uses().len(), 1);
        assert!(t.changed());
        assert_eq!(t.final_text(), Some("Done. Audit: a"));
        assert_eq!(t.stop_blocks().count(), 1);

        let rewound = replay(&[
            r#"{"id":"p","type":"user","content":"first"}"#,
            r#"{"id":"a","type":"gemini","content":"one"}"#,
            r#"{"id":"q","type":"user","content":"second"}"#,
            r#"{"id":"b","type":"gemini","content":"two"}"#,
            r#"{"$rewindTo":"q"}"#,
        ]);
        assert_eq!(rewound.len(), 1);
        assert_eq!(rewound[0].final_text(), Some("one"));

        let checkpoint = replay(&[
            r#"{"id":"p","type":"user","content":"first"}"#,
            r#"{"$set":{"messages":[{"id":"z","type":"user","content":"new"},{"id":"y","type":"gemini","content":"fresh"}]}}"#,
        ]);
        assert_eq!(checkpoint.len(), 1);
        assert_eq!(checkpoint[0].prompt().unwrap().text(), "new");
        assert_eq!(checkpoint[0].final_text(), Some("fresh"));
    }
}
