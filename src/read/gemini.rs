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
//! Lines are read as [`Record`]s, which keep only the keys a replay
//! needs: a model message's tool calls carry each tool's whole output,
//! and its token counts and thoughts, none of which a turn needs.
//!
//! A tail window may start after the message a `$rewindTo` names: the
//! replay then drops everything before the rewind and says so
//! ([`Replay::lost_history`]), and the reader reads a larger window.

use std::collections::HashMap;

use serde::de::{MapAccess, SeqAccess};
use serde_json::Value;

use super::builder::TurnBuilder;
use super::format::{Content, ValueParser};
use super::lenient::{deserialize_leniently, entries, Lenient, Str};
use super::sniff::{quick_type, Needle};
use super::turn::{Back, LinePos, ToolCall, Turn, TurnKind};

/// What a Stop hook's reason starts with when stopgate wrote it.
pub const OWN_REASON: &str = "stopgate:";

/// Texts of harness-written user messages.
const HARNESS_PREFIXES: &[&str] = &["<session_context>"];

/// One message, reduced to what a turn needs.
#[derive(Clone, Debug, PartialEq)]
struct Msg {
    id: String,
    pos: LinePos,
    timestamp: Option<String>,
    kind: MsgKind,
}

#[derive(Clone, Debug, PartialEq)]
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

/// A line of a chat log, or a message of a `$set` of the messages: the
/// keys a replay reads, as leniently as a parsed value
/// ([`super::lenient`]). Every other key is skipped unbuilt.
#[derive(Debug, Default)]
pub(super) struct Record {
    id: Option<String>,
    kind: Option<String>,
    timestamp: Option<String>,
    content: Content,
    /// `toolCalls`, when a list; each call in its place.
    calls: Vec<Call>,
    /// `$set`, when the key is there.
    set: Option<Set>,
    /// `$rewindTo`, when the key is there: the id, when a string.
    rewind: Option<Option<String>>,
    session_id: Option<String>,
}

/// One of a model message's `toolCalls`; its `result` is skipped.
#[derive(Debug, Default)]
struct Call {
    id: Option<String>,
    name: Option<String>,
    args: Option<Value>,
}

/// The calls of a `toolCalls` list; anything else holds none.
#[derive(Debug, Default)]
struct Calls(Vec<Call>);

/// A `$set`: whether it names `messages`, and the messages when they are
/// a list.
#[derive(Debug, Default)]
struct Set {
    names_messages: bool,
    messages: Option<Vec<Record>>,
}

/// A `$set`'s `messages`, when a list.
#[derive(Debug, Default)]
struct Messages(Option<Vec<Record>>);

impl Lenient for Record {
    fn other() -> Record {
        Record::default()
    }
    fn object<'de, A: MapAccess<'de>>(map: A) -> Result<Record, A::Error> {
        let mut r = Record::default();
        entries(map, |key, map| {
            match key {
                "id" => r.id = map.next_value::<Str>()?.0,
                "type" => r.kind = map.next_value::<Str>()?.0,
                "timestamp" => r.timestamp = map.next_value::<Str>()?.0,
                "content" => r.content = map.next_value()?,
                "toolCalls" => r.calls = map.next_value::<Calls>()?.0,
                "$set" => r.set = Some(map.next_value()?),
                "$rewindTo" => r.rewind = Some(map.next_value::<Str>()?.0),
                "sessionId" => r.session_id = map.next_value::<Str>()?.0,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(r)
    }
}

/// Who wrote a user message that is not a tool's response.
enum Author {
    /// The user: a prompt.
    User,
    /// A Stop hook of stopgate's, whose block comes back as a message.
    Stopgate,
    /// The harness.
    Harness,
}

/// Who wrote a user message with this content; `None` for tools'
/// responses and messages without text.
fn author(content: &Content) -> Option<Author> {
    let t = content.text.as_deref().filter(|_| !content.replies)?.trim_start();
    Some(if t.starts_with(OWN_REASON) {
        Author::Stopgate
    } else if HARNESS_PREFIXES.iter().any(|p| t.starts_with(p)) {
        Author::Harness
    } else {
        Author::User
    })
}

impl Lenient for Call {
    fn other() -> Call {
        Call::default()
    }
    fn object<'de, A: MapAccess<'de>>(map: A) -> Result<Call, A::Error> {
        let mut c = Call::default();
        entries(map, |key, map| {
            match key {
                "id" => c.id = map.next_value::<Str>()?.0,
                "name" => c.name = map.next_value::<Str>()?.0,
                "args" => c.args = Some(map.next_value()?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(c)
    }
}

impl Lenient for Calls {
    fn other() -> Calls {
        Calls::default()
    }
    fn list<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Calls, A::Error> {
        let mut calls = vec![];
        while let Some(call) = seq.next_element::<Call>()? {
            calls.push(call);
        }
        Ok(Calls(calls))
    }
}

impl Lenient for Set {
    fn other() -> Set {
        Set::default()
    }
    fn object<'de, A: MapAccess<'de>>(map: A) -> Result<Set, A::Error> {
        let mut set = Set::default();
        entries(map, |key, map| {
            match key {
                "messages" => {
                    set.names_messages = true;
                    set.messages = map.next_value::<Messages>()?.0;
                }
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(set)
    }
}

impl Lenient for Messages {
    fn other() -> Messages {
        Messages(None)
    }
    fn list<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Messages, A::Error> {
        let mut list = vec![];
        while let Some(m) = seq.next_element::<Record>()? {
            list.push(m);
        }
        Ok(Messages(Some(list)))
    }
}

deserialize_leniently!(Record, Call, Calls, Set, Messages);

impl Record {
    /// Whether the line rewrites history: a `$rewindTo`, or a `$set` that
    /// replaces the messages. Walking back past one would be wrong.
    fn rewrites_history(&self) -> bool {
        self.rewind.is_some()
            || self.set.as_ref().is_some_and(|s| s.names_messages)
    }

    /// Whether the line is a prompt, which starts a turn.
    fn starts_turn(&self) -> bool {
        self.kind.as_deref() == Some("user")
            && self.id.is_some()
            && matches!(author(&self.content), Some(Author::User))
    }
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

    /// Apply one line.
    pub(super) fn push(&mut self, mut r: Record, pos: LinePos) {
        if let Some(set) = r.set {
            if let Some(list) = set.messages {
                self.msgs.clear();
                self.index.clear();
                for m in list {
                    self.upsert(m, pos);
                }
            }
            return;
        }
        if let Some(to) = r.rewind {
            match to.as_deref().and_then(|id| self.index.get(id)) {
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
            if let Some(id) = r.session_id.take() {
                self.session_id = Some(id);
                return;
            }
        }
        self.upsert(r, pos);
    }

    /// Add a message, or replace the one with its id.
    fn upsert(&mut self, mut r: Record, pos: LinePos) {
        let (Some(id), Some(kind)) = (r.id.take(), r.kind.take()) else {
            return;
        };
        let msg = Msg {
            id,
            pos,
            timestamp: r.timestamp.take(),
            kind: reduce(&kind, r, pos),
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
                        builder.tool_on(msg.pos.line, call);
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
/// and lines without a top-level `type` (`$set`, `$rewindTo`) are read.
pub(super) fn back(line: &[u8], values: &mut ValueParser) -> Back {
    let kind = quick_type(line);
    if !matches!(kind, Some(b"user") | None)
        || (kind.is_some() && tool_result_id(line).is_some())
    {
        return Back::Pass;
    }
    match values.object::<Record>(line) {
        Some(r) if r.rewrites_history() => Back::Rewritten,
        Some(r) if r.starts_turn() => Back::Start,
        _ => Back::Pass,
    }
}

/// Reduce a message of type `kind` to what a turn needs.
fn reduce(kind: &str, r: Record, pos: LinePos) -> MsgKind {
    match kind {
        "user" => match author(&r.content) {
            Some(Author::User) => {
                MsgKind::Prompt(r.content.text.unwrap_or_default())
            }
            Some(Author::Stopgate) => MsgKind::Feedback,
            Some(Author::Harness) | None => MsgKind::Other,
        },
        "gemini" => {
            let tools = r
                .calls
                .iter()
                .enumerate()
                .filter_map(|(i, c)| {
                    let args = c.args.as_ref().unwrap_or(&Value::Null);
                    let name = c.name.as_deref()?;
                    Some(ToolCall::of_json(
                        c.id.as_deref(),
                        name,
                        args,
                        pos.offset,
                        i,
                    ))
                })
                .collect();
            MsgKind::Model { text: r.content.text, tools }
        }
        _ => MsgKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::Chain;

    fn replay(lines: &[&str]) -> Vec<Turn> {
        let mut r = Replay::default();
        for (i, l) in lines.iter().enumerate() {
            let record: Record = serde_json::from_str(l).unwrap();
            let pos = LinePos { offset: i as u64, line: Some(i as u64 + 1) };
            r.push(record, pos);
        }
        let mut b = TurnBuilder::numbered_from(Chain::Main, 1);
        let mut out = vec![];
        r.feed(&mut b, |t| out.push(t));
        out.extend(b.finish());
        out
    }

    /// The replay as it was before [`Record`]: every line parsed into a
    /// `serde_json::Value` and looked up. The oracle of the typed read.
    mod by_value {
        use super::super::*;
        use crate::read::format::content_text;

        pub(super) fn push(r: &mut Replay, v: &Value, pos: LinePos) {
            if let Some(set) = v.get("$set") {
                if let Some(list) =
                    set.get("messages").and_then(Value::as_array)
                {
                    r.msgs.clear();
                    r.index.clear();
                    for m in list {
                        upsert(r, m, pos);
                    }
                }
                return;
            }
            if let Some(to) = v.get("$rewindTo") {
                match to.as_str().and_then(|id| r.index.get(id)) {
                    Some(&at) => {
                        for m in r.msgs.drain(at..) {
                            r.index.remove(&m.id);
                        }
                    }
                    None => {
                        r.msgs.clear();
                        r.index.clear();
                        r.lost_history = true;
                    }
                }
                return;
            }
            if r.session_id.is_none() {
                if let Some(id) = v.get("sessionId").and_then(Value::as_str) {
                    r.session_id = Some(id.to_string());
                    return;
                }
            }
            upsert(r, v, pos);
        }

        fn upsert(r: &mut Replay, v: &Value, pos: LinePos) {
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
            r.put(msg);
        }

        pub(super) fn starts_turn(v: &Value) -> bool {
            v.get("type").and_then(Value::as_str) == Some("user")
                && v.get("id").and_then(Value::as_str).is_some()
                && matches!(
                    reduce("user", v, LinePos { offset: 0, line: None }),
                    MsgKind::Prompt(_)
                )
        }

        pub(super) fn rewrites_history(v: &Value) -> bool {
            v.get("$rewindTo").is_some()
                || v.get("$set").is_some_and(|s| s.get("messages").is_some())
        }

        fn reduce(kind: &str, v: &Value, pos: LinePos) -> MsgKind {
            let content = v.get("content");
            match kind {
                "user" => {
                    let parts = content.and_then(Value::as_array);
                    if parts.is_some_and(|p| {
                        p.iter()
                            .any(|part| part.get("functionResponse").is_some())
                    }) {
                        return MsgKind::Other;
                    }
                    let Some(text) = content.and_then(content_text) else {
                        return MsgKind::Other;
                    };
                    let t = text.trim_start();
                    if t.starts_with(OWN_REASON) {
                        MsgKind::Feedback
                    } else if HARNESS_PREFIXES.iter().any(|p| t.starts_with(p))
                    {
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
                                    let id =
                                        c.get("id").and_then(Value::as_str);
                                    let args =
                                        c.get("args").unwrap_or(&Value::Null);
                                    Some(ToolCall::of_json(
                                        id, name, args, pos.offset, i,
                                    ))
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    MsgKind::Model {
                        text: content.and_then(content_text),
                        tools,
                    }
                }
                _ => MsgKind::Other,
            }
        }
    }

    /// Replays `lines` typed and by value; both must agree, and so must
    /// the walk back's reading of each line.
    fn assert_replays_agree(lines: &[&[u8]], what: &str) {
        let (mut typed, mut valued) = (Replay::default(), Replay::default());
        let mut values = ValueParser::default();
        for (i, &line) in lines.iter().enumerate() {
            let text = String::from_utf8_lossy(line);
            let pos = LinePos { offset: i as u64, line: Some(i as u64 + 1) };
            let record = values.object::<Record>(line);
            let value = values.parse(line);
            assert_eq!(record.is_some(), value.is_some(), "{what}: {text}");
            let (Some(record), Some(value)) = (record, value) else {
                continue;
            };
            assert_eq!(
                (record.rewrites_history(), record.starts_turn()),
                (
                    by_value::rewrites_history(&value),
                    by_value::starts_turn(&value)
                ),
                "{what}: {text}"
            );
            typed.push(record, pos);
            by_value::push(&mut valued, &value, pos);
        }
        assert_eq!(typed.msgs, valued.msgs, "{what}");
        assert_eq!(typed.session_id, valued.session_id, "{what}");
        assert_eq!(typed.lost_history, valued.lost_history, "{what}");
    }

    /// The typed read against the value on odd shapes: repeated keys,
    /// keys of the wrong type, lists and objects where they do not
    /// belong, escaped keys.
    #[test]
    fn typed_records_replay_as_parsed_values_on_odd_shapes() {
        let lines: &[&str] = &[
            r#"{"sessionId":5,"projectHash":"h"}"#,
            r#"{"sessionId":"s","id":"x","type":"user","content":"meta"}"#,
            r#"{"id":"p","type":"user","content":"first","content":[{"text":"a"},{"text":5},"x",{"text":"b","text":"c"}]}"#,
            r#"{"id":"q","type":"user","content":[{"text":"t"},{"functionResponse":null}]}"#,
            r#"{"id":"m","type":"gemini","content":{"text":"no"},"toolCalls":[{"name":"write_file","args":{"file_path":"a"}},5,{"id":"x"},{"name":"run_shell_command","id":"r","args":{"command":"touch b"},"result":[{"functionResponse":{"response":{"output":"big"}}}]}]}"#,
            r#"{"id":"m2","type":"gemini","toolCalls":{"name":"x"},"toolCalls":[{"name":"replace","args":"not an object"}]}"#,
            r#"{"id":5,"type":"gemini","content":"no id"}"#,
            r#"{"id":"t","type":["gemini"],"content":"no type"}"#,
            r#"{"id":"esc","type":"user","content":"escaped key"}"#,
            r#"{"id":"h","type":"user","content":"  <session_context> harness"}"#,
            r#"{"id":"f","type":"user","content":[{"text":"stopgate: add an audit"}]}"#,
            r#"{"id":"o","type":"other","content":"x"}"#,
            r#"{"$set":{"lastUpdated":"t","messages":"not a list"}}"#,
            r#"{"$set":5,"id":"s1","type":"user","content":"set wins"}"#,
            r#"{"$set":{"messages":[{"id":"z","type":"user","content":"new"},7,{"id":"y","type":"gemini","content":"fresh","$set":{"messages":[]}}],"messages":[{"id":"w","type":"user","content":"last messages win"}]}}"#,
            r#"{"id":"after","type":"gemini","content":"one"}"#,
            r#"{"$rewindTo":5}"#,
            r#"{"id":"a","type":"user","content":"again"}"#,
            r#"{"id":"b","type":"gemini","content":"two"}"#,
            r#"{"$rewindTo":"b","$rewindTo":"a"}"#,
            r#"{"$rewindTo":null}"#,
            r#"[1,2]"#,
            r#"{"id":"c","type":"user","content":"cut"#,
        ];
        let lines: Vec<&[u8]> = lines.iter().map(|l| l.as_bytes()).collect();
        assert_replays_agree(&lines, "odd shapes");
    }

    /// The typed read against the value on every Gemini CLI log of the
    /// fixtures and the corpus, every line parsed (no fast path).
    #[test]
    fn typed_records_replay_as_parsed_values_on_every_log() {
        let mut logs = 0;
        for path in crate::read::fixture_and_corpus_files() {
            let bytes = std::fs::read(&path).unwrap();
            if crate::read::Format::of(&bytes) != crate::read::Format::Gemini {
                continue;
            }
            let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
            assert_replays_agree(&lines, &path.display().to_string());
            logs += 1;
        }
        assert!(logs >= 3, "only {logs} Gemini logs");
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
        assert!(t.possible_changes().next().is_some());
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
