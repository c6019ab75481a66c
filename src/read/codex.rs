//! Codex CLI rollouts, read into the one turn model.
//!
//! A rollout (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`) holds one
//! `{"timestamp":…,"type":…,"payload":{…}}` object per line. The model's
//! history is in the `response_item` lines, and that is all a turn needs:
//!
//! * a `message` of role `user` is a prompt, unless the harness wrote it:
//!   its content items carry `provenance: {"type": "harness"}` (older
//!   rollouts carry no provenance, so the harness's wrappers such as
//!   `<environment_context>` are recognised by their text too). A Stop
//!   hook's block comes back as a harness message wrapped in
//!   `<hook_prompt …>`, which counts as a block, not a prompt;
//! * a `message` of role `assistant` is what the agent said;
//! * `function_call` (`exec_command`, `shell`, …, with JSON `arguments`),
//!   `custom_tool_call` (the freeform `apply_patch`) and
//!   `local_shell_call` are tool uses, judged by the one rule table;
//! * an `event_msg` of type `turn_aborted` means the user interrupted.
//!
//! The `event_msg` lines repeat what `response_item` lines say, and
//! `world_state`, `turn_context` and token records are bookkeeping; none
//! of them is parsed.
//!
//! Lines are read as [`Rollout`]s, which keep the keys a turn reads and
//! skip the rest unbuilt ([`super::lenient`]).
//!
//! The session's origin is in the `session_meta` line that opens the file:
//! `payload.source` is `exec` for `codex exec`, which reads as the
//! entrypoint `codex-exec` ([`entrypoint`]).

use serde_json::Value;

use serde::de::MapAccess;

use super::builder::TurnBuilder;
use super::format::{Content, ValueParser};
use super::lenient::{deserialize_leniently, entries, Lenient, Str};
use super::lines::Lines;
use super::sniff::{escaped, quick_type, top_level_type, Needle, Sniff};
use super::turn::{Back, LinePos, ToolCall, Turn, TurnKind};

/// Texts the harness writes as user messages (older rollouts, which
/// record no provenance).
const HARNESS_PREFIXES: &[&str] = &[
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "<skills_instructions>",
    "<user_shell_command>",
    "<turn_aborted>",
    "# AGENTS.md instructions",
];

/// The wrapper of a Stop hook's block.
const HOOK_PROMPT: &str = "<hook_prompt";

/// The payload types no turn needs, whose lines carry most of a
/// rollout's bytes: tools' outputs and the model's (encrypted) reasoning.
static SKIPPED_PAYLOADS: [Needle; 3] = [
    Needle::new(b"\"payload\":{\"type\":\"function_call_output\""),
    Needle::new(b"\"payload\":{\"type\":\"custom_tool_call_output\""),
    Needle::new(b"\"payload\":{\"type\":\"reasoning\""),
];

/// Whether a rollout line is one no turn needs, judged from its first bytes
/// (Codex writes `payload` after the line's other keys, and the payload's
/// `type` first): the reader then only checks that it is a JSON object. The
/// probe's bytes cannot occur inside a string when its first quote is not
/// [`escaped`], and nothing before them may open a nested value, so a match is
/// the line's own `payload`.
pub(super) fn skippable(line: &[u8]) -> bool {
    let head = &line[..line.len().min(256)];
    SKIPPED_PAYLOADS.iter().any(|p| {
        p.finder().find(head).is_some_and(|at| {
            !escaped(head, at)
                && !head[..at]
                    .iter()
                    .skip(1)
                    .any(|&b| matches!(b, b'{' | b'['))
        })
    })
}

/// Whether a rollout line is worth parsing.
pub(super) fn wants(line: &[u8]) -> bool {
    match quick_type(line) {
        Some(b"response_item" | b"session_meta") => true,
        Some(b"event_msg") => {
            static ABORTED: Needle = Needle::new(b"\"turn_aborted\"");
            ABORTED.find(&line[..line.len().min(256)])
        }
        Some(_) => false,
        None => true,
    }
}

/// A rollout line: the keys a turn reads, as leniently as a parsed value
/// ([`super::lenient`]).
#[derive(Debug, Default)]
pub(super) struct Rollout {
    timestamp: Option<String>,
    kind: Option<String>,
    /// `payload`, when the key is there.
    payload: Option<Payload>,
}

/// The keys of a `payload` that a turn reads. A tool's `arguments`,
/// `input` and `action` are kept as parsed values: the rule table reads
/// them so.
#[derive(Debug, Default)]
struct Payload {
    kind: Option<String>,
    call_id: Option<String>,
    role: Option<String>,
    content: Content,
    name: Option<String>,
    arguments: Option<Value>,
    input: Option<Value>,
    action: Option<Value>,
    /// `internal_chat_message_metadata_passthrough`, where a message's
    /// provenance is.
    passthrough: Option<Value>,
}

impl Lenient for Rollout {
    fn other() -> Rollout {
        Rollout::default()
    }
    fn object<'de, A: MapAccess<'de>>(map: A) -> Result<Rollout, A::Error> {
        let mut r = Rollout::default();
        entries(map, |key, map| {
            match key {
                "timestamp" => r.timestamp = map.next_value::<Str>()?.0,
                "type" => r.kind = map.next_value::<Str>()?.0,
                "payload" => r.payload = Some(map.next_value()?),
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(r)
    }
}

impl Lenient for Payload {
    fn other() -> Payload {
        Payload::default()
    }
    fn object<'de, A: MapAccess<'de>>(map: A) -> Result<Payload, A::Error> {
        let mut p = Payload::default();
        entries(map, |key, map| {
            match key {
                "type" => p.kind = map.next_value::<Str>()?.0,
                "call_id" => p.call_id = map.next_value::<Str>()?.0,
                "role" => p.role = map.next_value::<Str>()?.0,
                "content" => p.content = map.next_value()?,
                "name" => p.name = map.next_value::<Str>()?.0,
                "arguments" => p.arguments = Some(map.next_value()?),
                "input" => p.input = Some(map.next_value()?),
                "action" => p.action = Some(map.next_value()?),
                "internal_chat_message_metadata_passthrough" => {
                    p.passthrough = Some(map.next_value()?)
                }
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(p)
    }
}

deserialize_leniently!(Rollout, Payload);

impl Rollout {
    /// Whether the line is a `session_meta` record.
    pub(super) fn is_session_meta(&self) -> bool {
        self.kind.as_deref() == Some("session_meta")
    }

    /// Whether the line starts a turn: a prompt's `response_item`.
    fn starts_turn(&self) -> bool {
        self.kind.as_deref() == Some("response_item")
            && self.payload.as_ref().is_some_and(|p| {
                p.kind.as_deref() == Some("message") && p.prompt().is_some()
            })
    }
}

impl Payload {
    /// The text of a `message` payload that is a prompt: a user message
    /// that neither the harness nor a Stop hook wrote.
    fn prompt(&self) -> Option<&str> {
        if self.role.as_deref() != Some("user") {
            return None;
        }
        let text = self.content.text.as_deref()?;
        let t = text.trim_start();
        (!t.starts_with(HOOK_PROMPT) && !self.is_harness(t)).then_some(text)
    }

    /// Whether a user message with text `text` was written by the
    /// harness, not the human.
    fn is_harness(&self, text: &str) -> bool {
        let provenance = self
            .passthrough
            .as_ref()
            .and_then(|m| m.get("content_item_metadata"))
            .and_then(Value::as_array)
            .map(|items| {
                items.iter().any(|i| {
                    i.get("provenance")
                        .and_then(|p| p.get("type"))
                        .and_then(Value::as_str)
                        == Some("harness")
                })
            });
        provenance.unwrap_or(false)
            || HARNESS_PREFIXES.iter().any(|p| text.starts_with(p))
    }
}

/// Feed one rollout line to `builder`; a finished turn is returned when
/// the line starts the next.
pub(super) fn push(
    builder: &mut TurnBuilder,
    r: Rollout,
    pos: LinePos,
) -> Option<Turn> {
    let timestamp = r.timestamp.as_deref();
    let payload = r.payload?;
    let kind = payload.kind.as_deref();
    match r.kind.as_deref()? {
        "response_item" => {}
        "event_msg" if kind == Some("turn_aborted") => {
            builder.interrupted();
            return None;
        }
        _ => return None,
    }
    let id = payload.call_id.as_deref();
    match kind? {
        "message" => {
            if let Some(text) = payload.prompt() {
                let text = text.to_string();
                return builder.begin(TurnKind::Prompt, text, timestamp, pos);
            }
            match (payload.role.as_deref(), payload.content.text) {
                (Some("user"), Some(text))
                    if text.trim_start().starts_with(HOOK_PROMPT) =>
                {
                    builder.stop_feedback();
                }
                (Some("assistant"), Some(text)) => {
                    builder.note(timestamp);
                    builder.said(&text, pos);
                }
                _ => {}
            }
        }
        "function_call" => {
            let name = payload.name.as_deref()?;
            let input = match payload.arguments {
                Some(Value::String(s)) => {
                    serde_json::from_str(&s).unwrap_or(Value::Null)
                }
                Some(args) => args,
                None => Value::Null,
            };
            builder.note(timestamp);
            builder.tool_on(
                pos.line,
                ToolCall::of_json(id, name, &input, pos.offset, 0),
            );
        }
        "custom_tool_call" => {
            let name = payload.name.as_deref()?;
            let input = payload.input.unwrap_or(Value::Null);
            let input = serde_json::json!({ "command": input });
            builder.note(timestamp);
            builder.tool_on(
                pos.line,
                ToolCall::of_json(id, name, &input, pos.offset, 0),
            );
        }
        "local_shell_call" => {
            let command = payload
                .action
                .as_ref()
                .and_then(|a| a.get("command"))
                .cloned()
                .unwrap_or(Value::Null);
            let input = serde_json::json!({ "command": command });
            builder.note(timestamp);
            builder.tool_on(
                pos.line,
                ToolCall::of_json(id, "local_shell", &input, pos.offset, 0),
            );
        }
        _ => {}
    }
    None
}

/// A line met walking back to the current turn's start: only the lines
/// that may start a turn ([`might_start_turn`]) are read.
pub(super) fn back(line: &[u8], values: &mut ValueParser) -> Back {
    if might_start_turn(line)
        && values.object::<Rollout>(line).is_some_and(|r| r.starts_turn())
    {
        Back::Start
    } else {
        Back::Pass
    }
}

/// Whether a rollout line may start a turn, judged from its bytes: a
/// `response_item` holding a user-role message (the role's bytes cannot
/// occur inside a string, where quotes are escaped).
fn might_start_turn(line: &[u8]) -> bool {
    match quick_type(line) {
        Some(b"response_item") | None => {
            static USER_ROLE: Needle = Needle::new(b"\"role\":\"user\"");
            USER_ROLE.find(line)
        }
        Some(_) => false,
    }
}

/// The entrypoint of a rollout whose head is `head`: `codex-<source>` from
/// the `session_meta` line (`codex-exec` for `codex exec`, `codex-cli` for
/// the TUI), `codex-subagent` for a subagent's rollout. `None` when the
/// head holds no `session_meta` line that parses (a corrupt one is passed
/// over).
pub(super) fn entrypoint(
    head: &[u8],
    parser: &mut ValueParser,
) -> Option<String> {
    Lines::new(head)
        .filter(|l| !l.is_empty())
        .take(super::format::ENTRYPOINT_LINES)
        .filter(|l| {
            top_level_type(l.as_bytes()) == Sniff::Type(b"session_meta")
        })
        .find_map(|l| parser.object::<SessionMeta>(l.as_bytes()))?
        .entrypoint()
}

/// What the reader and [`entrypoint`] need of a `session_meta` line, read
/// without building the line's value: the line carries the model's base
/// instructions, tens of kilobytes that no turn needs, which a
/// `serde_json::Value` copied into an ordered map of every key only for
/// three strings to be read. It is as lenient as a parsed value: a field
/// of another type reads as absent, unknown keys are skipped, and of
/// duplicate keys the last wins.
#[derive(Debug, Default)]
pub(super) struct SessionMeta {
    /// The line's top-level `type`, when a string.
    kind: Option<String>,
    payload: MetaPayload,
}

/// The fields of a `session_meta` payload that are read.
#[derive(Debug, Default)]
struct MetaPayload {
    id: Option<String>,
    session_id: Option<String>,
    cwd: Option<String>,
    source: Source,
}

/// A payload's `source`: where the session came from.
#[derive(Debug, Default)]
enum Source {
    /// No `source` key.
    #[default]
    Absent,
    /// `exec`, `cli`, …
    Named(String),
    /// A value that is not a string: a subagent's rollout names its
    /// parent there.
    Other,
}

impl SessionMeta {
    /// Whether the line is a `session_meta` record.
    pub(super) fn is_session_meta(&self) -> bool {
        self.kind.as_deref() == Some("session_meta")
    }

    /// The session's id: the payload's `id`, or else its `session_id`.
    pub(super) fn session_id(&self) -> Option<String> {
        let p = &self.payload;
        p.id.clone().or_else(|| p.session_id.clone())
    }

    /// The session's working directory.
    pub(super) fn cwd(&self) -> Option<String> {
        self.payload.cwd.clone()
    }

    /// See [`entrypoint`].
    fn entrypoint(self) -> Option<String> {
        match self.payload.source {
            Source::Absent => None,
            Source::Named(s) => Some(format!("codex-{s}")),
            Source::Other => Some("codex-subagent".to_string()),
        }
    }
}

impl Lenient for SessionMeta {
    fn other() -> SessionMeta {
        SessionMeta::default()
    }
    fn object<'de, A: MapAccess<'de>>(
        map: A,
    ) -> Result<SessionMeta, A::Error> {
        let mut meta = SessionMeta::default();
        entries(map, |key, map| {
            match key {
                "type" => meta.kind = map.next_value::<Str>()?.0,
                "payload" => meta.payload = map.next_value()?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(meta)
    }
}

/// A payload that is not an object has none of the fields.
impl Lenient for MetaPayload {
    fn other() -> MetaPayload {
        MetaPayload::default()
    }
    fn object<'de, A: MapAccess<'de>>(
        map: A,
    ) -> Result<MetaPayload, A::Error> {
        let mut p = MetaPayload::default();
        entries(map, |key, map| {
            match key {
                "id" => p.id = map.next_value::<Str>()?.0,
                "session_id" => p.session_id = map.next_value::<Str>()?.0,
                "cwd" => p.cwd = map.next_value::<Str>()?.0,
                "source" => p.source = map.next_value()?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(p)
    }
}

/// A `source` key that is there reads as [`Source::Other`] unless it is a
/// string.
impl Lenient for Source {
    fn other() -> Source {
        Source::Other
    }
    fn string(s: &str) -> Source {
        Source::Named(s.to_string())
    }
}

deserialize_leniently!(SessionMeta, MetaPayload, Source);

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    /// The reading as it was before [`Rollout`]: every line parsed into a
    /// `serde_json::Value` and looked up. The oracle of the typed read.
    mod by_value {
        use super::super::*;
        use crate::read::format::content_text;

        pub(super) fn push(
            builder: &mut TurnBuilder,
            v: &Value,
            pos: LinePos,
        ) -> Option<Turn> {
            let timestamp = v.get("timestamp").and_then(Value::as_str);
            let payload = v.get("payload")?;
            let kind = payload.get("type").and_then(Value::as_str);
            match v.get("type").and_then(Value::as_str)? {
                "response_item" => {}
                "event_msg" if kind == Some("turn_aborted") => {
                    builder.interrupted();
                    return None;
                }
                _ => return None,
            }
            let id = payload.get("call_id").and_then(Value::as_str);
            match kind? {
                "message" => {
                    if let Some(text) = prompt_text(payload) {
                        return builder.begin(
                            TurnKind::Prompt,
                            text,
                            timestamp,
                            pos,
                        );
                    }
                    let role = payload.get("role").and_then(Value::as_str);
                    let text = payload.get("content").and_then(content_text);
                    match (role, text) {
                        (Some("user"), Some(text))
                            if text.trim_start().starts_with(HOOK_PROMPT) =>
                        {
                            builder.stop_feedback();
                        }
                        (Some("assistant"), Some(text)) => {
                            builder.note(timestamp);
                            builder.said(&text, pos);
                        }
                        _ => {}
                    }
                }
                "function_call" => {
                    let name = payload.get("name").and_then(Value::as_str)?;
                    let args = payload.get("arguments");
                    let input = match args.and_then(Value::as_str) {
                        Some(s) => {
                            serde_json::from_str(s).unwrap_or(Value::Null)
                        }
                        None => args.cloned().unwrap_or(Value::Null),
                    };
                    builder.note(timestamp);
                    builder.tool_on(
                        pos.line,
                        ToolCall::of_json(id, name, &input, pos.offset, 0),
                    );
                }
                "custom_tool_call" => {
                    let name = payload.get("name").and_then(Value::as_str)?;
                    let input =
                        payload.get("input").cloned().unwrap_or(Value::Null);
                    let input = serde_json::json!({ "command": input });
                    builder.note(timestamp);
                    builder.tool_on(
                        pos.line,
                        ToolCall::of_json(id, name, &input, pos.offset, 0),
                    );
                }
                "local_shell_call" => {
                    let command = payload
                        .get("action")
                        .and_then(|a| a.get("command"))
                        .cloned()
                        .unwrap_or(Value::Null);
                    let input = serde_json::json!({ "command": command });
                    builder.note(timestamp);
                    builder.tool_on(
                        pos.line,
                        ToolCall::of_json(
                            id,
                            "local_shell",
                            &input,
                            pos.offset,
                            0,
                        ),
                    );
                }
                _ => {}
            }
            None
        }

        fn prompt_text(payload: &Value) -> Option<String> {
            if payload.get("role").and_then(Value::as_str) != Some("user") {
                return None;
            }
            let text = payload.get("content").and_then(content_text)?;
            let t = text.trim_start();
            (!t.starts_with(HOOK_PROMPT) && !is_harness(payload, t))
                .then_some(text)
        }

        pub(super) fn starts_turn(v: &Value) -> bool {
            v.get("type").and_then(Value::as_str) == Some("response_item")
                && v.get("payload").is_some_and(|p| {
                    p.get("type").and_then(Value::as_str) == Some("message")
                        && prompt_text(p).is_some()
                })
        }

        fn is_harness(payload: &Value, text: &str) -> bool {
            let provenance = payload
                .get("internal_chat_message_metadata_passthrough")
                .and_then(|m| m.get("content_item_metadata"))
                .and_then(Value::as_array)
                .map(|items| {
                    items.iter().any(|i| {
                        i.get("provenance")
                            .and_then(|p| p.get("type"))
                            .and_then(Value::as_str)
                            == Some("harness")
                    })
                });
            provenance.unwrap_or(false)
                || HARNESS_PREFIXES.iter().any(|p| text.starts_with(p))
        }
    }

    /// Reads `lines` typed and by value, every line (no fast path); the
    /// turns, and the walk back's reading of each line, must agree.
    fn assert_readings_agree(lines: &[&[u8]], what: &str) {
        use crate::read::Chain;
        let mut typed = TurnBuilder::numbered_from(Chain::Main, 1);
        let mut valued = TurnBuilder::numbered_from(Chain::Main, 1);
        let (mut got, mut want) = (vec![], vec![]);
        let mut values = ValueParser::default();
        for (i, &line) in lines.iter().enumerate() {
            let text = String::from_utf8_lossy(line);
            let pos = LinePos { offset: i as u64, line: Some(i as u64 + 1) };
            let rollout = values.object::<Rollout>(line);
            let value = values.parse(line);
            assert_eq!(rollout.is_some(), value.is_some(), "{what}: {text}");
            let (Some(rollout), Some(value)) = (rollout, value) else {
                continue;
            };
            assert_eq!(
                rollout.starts_turn(),
                by_value::starts_turn(&value),
                "{what}: {text}"
            );
            assert_eq!(
                rollout.is_session_meta(),
                value.get("type").and_then(Value::as_str)
                    == Some("session_meta"),
                "{what}: {text}"
            );
            got.extend(push(&mut typed, rollout, pos));
            want.extend(by_value::push(&mut valued, &value, pos));
        }
        got.extend(typed.finish());
        want.extend(valued.finish());
        assert_eq!(got, want, "{what}");
    }

    /// The typed read against the value on odd shapes: repeated keys,
    /// keys of the wrong type, arguments as a string, an object or
    /// neither, harness provenance.
    #[test]
    fn typed_rollouts_read_as_parsed_values_on_odd_shapes() {
        let lines: &[&str] = &[
            r#"{"timestamp":"t0","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"write a"},{"text":5},"x"]}}"#,
            r#"{"timestamp":"t1","type":"response_item","payload":{"type":"function_call","name":"exec_command","call_id":"c1","arguments":"{"cmd":"touch a"}"}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":{"command":["bash","-lc","echo > b"]},"arguments":{"command":["ls"]}}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"not json"}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call","name":5,"arguments":"{}"}}"#,
            r#"{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch
*** Add File: c
+x
*** End Patch"}}"#,
            r#"{"type":"response_item","payload":{"type":"local_shell_call","action":{"command":["touch","d"]}}}"#,
            r#"{"type":"response_item","payload":{"type":"local_shell_call","action":"none"}}"#,
            r#"{"type":"response_item","payload":{"type":"message","role":"assistant","content":"Done.","content":[{"text":"Done, last."}]}}"#,
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"text":"<hook_prompt>stopgate: audit</hook_prompt>"}]}}"#,
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"text":"from the harness"}],"internal_chat_message_metadata_passthrough":{"content_item_metadata":[{"provenance":{"type":"harness"}}]}}}"#,
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":"  <environment_context>x"}}"#,
            r#"{"type":"event_msg","payload":{"type":"turn_aborted"}}"#,
            r#"{"type":"event_msg","payload":"turn_aborted"}"#,
            r#"{"type":"response_item","payload":[{"type":"message"}]}"#,
            r#"{"type":"response_item"}"#,
            r#"{"type":5,"payload":{"type":"message","role":"user","content":"no type"}}"#,
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":"escaped key"}}"#,
            r#"{"type":"session_meta","payload":{"id":"s"}}"#,
            r#"{"type":"response_item","payload":{"type":"message","role":"user","role":"assistant","content":"last role wins"}}"#,
            r#"[1]"#,
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":"cut"#,
        ];
        let lines: Vec<&[u8]> = lines.iter().map(|l| l.as_bytes()).collect();
        assert_readings_agree(&lines, "odd shapes");
    }

    /// The typed read against the value on every Codex CLI rollout of the
    /// fixtures and the corpus, every line read.
    #[test]
    fn typed_rollouts_read_as_parsed_values_on_every_rollout() {
        let mut rollouts = 0;
        for path in crate::read::fixture_and_corpus_files() {
            let bytes = std::fs::read(&path).unwrap();
            if crate::read::Format::of(&bytes) != crate::read::Format::Codex {
                continue;
            }
            let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
            assert_readings_agree(&lines, &path.display().to_string());
            rollouts += 1;
        }
        assert!(rollouts >= 3, "only {rollouts} Codex rollouts");
    }

    #[test]
    fn outputs_and_reasoning_are_skipped_by_their_head() {
        let out = br#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"x"}}"#;
        assert!(skippable(out));
        let call = br#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command"}}"#;
        assert!(!skippable(call));
        let later = br#"{"timestamp":"t","type":"response_item","payload":{"call_id":"c","type":"function_call_output"}}"#;
        assert!(
            !skippable(later),
            "a payload whose type is not first is parsed"
        );
        // A key that ends `\"payload` holds the probe's bytes, and is no
        // payload.
        let key = br#"{"x\"payload":{"type":"reasoning"},"type":"response_item","payload":{"type":"message"}}"#;
        assert!(!skippable(key));
    }

    #[test]
    fn sources_name_the_entrypoint() {
        let entrypoint =
            |head: &[u8]| entrypoint(head, &mut ValueParser::default());
        let exec = br#"{"timestamp":"t","type":"session_meta","payload":{"source":"exec"}}"#;
        assert_eq!(entrypoint(exec).as_deref(), Some("codex-exec"));
        let cli = br#"{"type":"session_meta","payload":{"source":"cli"}}"#;
        assert_eq!(entrypoint(cli).as_deref(), Some("codex-cli"));
        let sub =
            br#"{"type":"session_meta","payload":{"source":{"subagent":{}}}}"#;
        assert_eq!(entrypoint(sub).as_deref(), Some("codex-subagent"));
        assert_eq!(entrypoint(b"{\"type\":\"event_msg\"}"), None);
    }

    /// The lean read of a `session_meta` line against the same fields
    /// read from the line parsed as a `serde_json::Value`, as the reader
    /// read them before: the same answers on odd shapes too.
    #[test]
    fn session_meta_reads_as_the_parsed_value() {
        let lines: &[&[u8]] = &[
            br#"{"type":"session_meta","payload":{"id":"a","cwd":"/w","source":"exec"}}"#,
            br#"{"type":"session_meta","payload":{"session_id":"b","cwd":7}}"#,
            br#"{"type":"session_meta","payload":{"id":null,"session_id":"c","source":null}}"#,
            br#"{"type":"session_meta","payload":{"id":"a","id":"d","source":{"x":1},"source":"cli"}}"#,
            br#"{"type":"session_meta","payload":"x"}"#,
            br#"{"type":"session_meta","payload":[1,{"id":"e"}]}"#,
            br#"{"type":"session_meta","payload":{"id":"f"},"payload":{"cwd":"/g"}}"#,
            br#"{"type":"session_meta","type":"event_msg","payload":{"id":"h"}}"#,
            br#"{"type":"session_meta"}"#,
            br#"{"payload":{"base_instructions":{"text":"long"},"id":"i","cwd":"/i"},"type":"session_meta"}"#,
        ];
        let mut values = ValueParser::default();
        for line in lines {
            let v = values.parse(line).unwrap();
            let meta = values.object::<SessionMeta>(line).unwrap();
            let text = String::from_utf8_lossy(line);
            let is_meta =
                v.get("type").and_then(Value::as_str) == Some("session_meta");
            assert_eq!(meta.is_session_meta(), is_meta, "{text}");
            let field = |k: &str| {
                v.get("payload")
                    .and_then(|p| p.get(k))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            };
            let id = field("id").or_else(|| field("session_id"));
            assert_eq!(meta.session_id(), id, "{text}");
            assert_eq!(meta.cwd(), field("cwd"), "{text}");
            let entry = v.get("payload").and_then(|p| p.get("source")).map(
                |s| match s.as_str() {
                    Some(s) => format!("codex-{s}"),
                    None => "codex-subagent".to_string(),
                },
            );
            assert_eq!(meta.entrypoint(), entry, "{text}");
            // And read through the parsed value, as the reader does when
            // the line's type is not where the sniff reads it.
            let from_value = SessionMeta::deserialize(&v).unwrap();
            assert_eq!(from_value.session_id(), id, "{text}");
        }
        assert!(values.object::<SessionMeta>(b"{\"type\":").is_none());
    }
}
