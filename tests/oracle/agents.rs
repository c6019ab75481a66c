//! The naive oracle for Codex CLI rollouts and Gemini CLI chat logs:
//! serde_json on every line, the whole file replayed, nothing shared with
//! the library's readers.

use serde_json::Value;

use super::queries::{parse_all, NaiveTurn};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agent {
    Codex,
    Gemini,
}

const CODEX_TYPES: &[&str] = &[
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "world_state",
    "token_usage_record",
    "compacted",
];

/// The agent of the first line that tells, when it is not Claude Code: a
/// line of at most 64 KiB that is a JSON object, by its string `type`
/// (`user` with an object `message` is Claude Code's), else by Gemini's
/// `$set`, `$rewindTo`, or `sessionId` with `projectHash`.
pub fn agent(bytes: &[u8]) -> Option<Agent> {
    let lines = super::lines::naive_lines(bytes);
    for line in lines.iter().filter(|l| !l.bytes.is_empty()).take(64) {
        if line.bytes.len() > 64 << 10 {
            continue;
        }
        let Some(v) = super::queries::parse_line(&line.bytes) else {
            continue;
        };
        match v.get("type").and_then(Value::as_str) {
            Some(t) if CODEX_TYPES.contains(&t) => return Some(Agent::Codex),
            Some("gemini" | "info" | "error" | "warning") => {
                return Some(Agent::Gemini)
            }
            Some("user") => {
                return (!v.get("message").is_some_and(Value::is_object))
                    .then_some(Agent::Gemini)
            }
            Some(_) => return None,
            None => {
                let has = |k: &str| v.get(k).is_some();
                if has("$set")
                    || has("$rewindTo")
                    || (has("sessionId") && has("projectHash"))
                {
                    return Some(Agent::Gemini);
                }
            }
        }
    }
    None
}

fn text_of(content: Option<&Value>) -> Option<String> {
    match content? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let t: Vec<&str> = parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            (!t.is_empty()).then(|| t.join("\n"))
        }
        _ => None,
    }
}

/// The shell command stopgate keeps of a tool use.
fn command(name: &str, input: &Value) -> Option<String> {
    const SHELL: &[&str] = &[
        "Bash",
        "run_shell_command",
        "exec_command",
        "shell",
        "shell_command",
        "local_shell",
    ];
    if !SHELL.contains(&name) {
        return None;
    }
    let c = input.get("command").or_else(|| input.get("cmd"))?;
    if let Some(s) = c.as_str() {
        return Some(s.to_string());
    }
    let argv: Vec<&str> =
        c.as_array()?.iter().filter_map(Value::as_str).collect();
    if argv.len() == 3 && (argv[1] == "-c" || argv[1] == "-lc") {
        return Some(argv[2].to_string());
    }
    (!argv.is_empty()).then(|| argv.join(" "))
}

/// One event of a turn, in order.
enum Ev {
    Prompt(String, usize),
    Tool(String, Option<String>),
    Said(String, usize),
}

fn codex_events(bytes: &[u8]) -> Vec<Ev> {
    let mut out = vec![];
    for p in parse_all(bytes) {
        let Some(v) = &p.object else { continue };
        if v.get("type").and_then(Value::as_str) != Some("response_item") {
            continue;
        }
        let Some(pl) = v.get("payload") else { continue };
        match pl.get("type").and_then(Value::as_str) {
            Some("message") => {
                let Some(text) = text_of(pl.get("content")) else { continue };
                match pl.get("role").and_then(Value::as_str) {
                    Some("user") => {
                        let t = text.trim_start();
                        let harness = pl
                            .pointer("/internal_chat_message_metadata_passthrough/content_item_metadata")
                            .and_then(Value::as_array)
                            .is_some_and(|a| {
                                a.iter().any(|i| {
                                    i.pointer("/provenance/type").and_then(Value::as_str)
                                        == Some("harness")
                                })
                            });
                        let wrapped = [
                            "<environment_context>",
                            "<user_instructions>",
                            "<permissions instructions>",
                            "<skills_instructions>",
                            "<user_shell_command>",
                            "<turn_aborted>",
                            "# AGENTS.md instructions",
                        ]
                        .iter()
                        .any(|w| t.starts_with(w));
                        if !t.starts_with("<hook_prompt")
                            && !harness
                            && !wrapped
                        {
                            out.push(Ev::Prompt(text, p.offset));
                        }
                    }
                    Some("assistant") if !text.trim().is_empty() => {
                        out.push(Ev::Said(text, p.offset))
                    }
                    _ => {}
                }
            }
            Some("function_call") => {
                let Some(name) = pl.get("name").and_then(Value::as_str) else {
                    continue;
                };
                let input = match pl.get("arguments") {
                    Some(Value::String(s)) => {
                        serde_json::from_str(s).unwrap_or(Value::Null)
                    }
                    Some(v) => v.clone(),
                    None => Value::Null,
                };
                out.push(Ev::Tool(name.to_string(), command(name, &input)));
            }
            Some("custom_tool_call") => {
                let Some(name) = pl.get("name").and_then(Value::as_str) else {
                    continue;
                };
                let input = serde_json::json!({"command": pl.get("input").cloned().unwrap_or(Value::Null)});
                out.push(Ev::Tool(name.to_string(), command(name, &input)));
            }
            Some("local_shell_call") => {
                let c = pl
                    .pointer("/action/command")
                    .cloned()
                    .unwrap_or(Value::Null);
                let input = serde_json::json!({ "command": c });
                out.push(Ev::Tool(
                    "local_shell".into(),
                    command("local_shell", &input),
                ));
            }
            _ => {}
        }
    }
    out
}

fn gemini_events(bytes: &[u8]) -> Vec<Ev> {
    // The replay: the surviving messages, each with its last line.
    let mut msgs: Vec<(String, Value, usize)> = vec![];
    let mut meta_seen = false;
    for p in parse_all(bytes) {
        let Some(v) = &p.object else { continue };
        if let Some(set) = v.get("$set") {
            if let Some(list) = set.get("messages").and_then(Value::as_array) {
                msgs.clear();
                for m in list {
                    upsert(&mut msgs, m, p.offset);
                }
            }
            continue;
        }
        if let Some(to) = v.get("$rewindTo") {
            match to
                .as_str()
                .and_then(|id| msgs.iter().position(|m| m.0 == id))
            {
                Some(at) => msgs.truncate(at),
                None => msgs.clear(),
            }
            continue;
        }
        if !meta_seen && v.get("sessionId").and_then(Value::as_str).is_some() {
            meta_seen = true;
            continue;
        }
        upsert(&mut msgs, v, p.offset);
    }
    let mut out = vec![];
    for (_, m, offset) in msgs {
        match m.get("type").and_then(Value::as_str) {
            Some("user") => {
                let parts = m.get("content").and_then(Value::as_array);
                if parts.is_some_and(|ps| {
                    ps.iter().any(|x| x.get("functionResponse").is_some())
                }) {
                    continue;
                }
                let Some(text) = text_of(m.get("content")) else { continue };
                let t = text.trim_start();
                if !t.starts_with("stopgate:")
                    && !t.starts_with("<session_context>")
                {
                    out.push(Ev::Prompt(text, offset));
                }
            }
            Some("gemini") => {
                for c in m
                    .get("toolCalls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let Some(name) = c.get("name").and_then(Value::as_str)
                    else {
                        continue;
                    };
                    let args = c.get("args").cloned().unwrap_or(Value::Null);
                    out.push(Ev::Tool(name.to_string(), command(name, &args)));
                }
                if let Some(t) =
                    text_of(m.get("content")).filter(|t| !t.trim().is_empty())
                {
                    out.push(Ev::Said(t, offset));
                }
            }
            _ => {}
        }
    }
    out
}

fn upsert(msgs: &mut Vec<(String, Value, usize)>, v: &Value, offset: usize) {
    let (Some(id), Some(_)) = (
        v.get("id").and_then(Value::as_str),
        v.get("type").and_then(Value::as_str),
    ) else {
        return;
    };
    match msgs.iter_mut().find(|m| m.0 == id) {
        Some(m) => *m = (id.to_string(), v.clone(), offset),
        None => msgs.push((id.to_string(), v.clone(), offset)),
    }
}

fn events(agent: Agent, bytes: &[u8]) -> Vec<Ev> {
    match agent {
        Agent::Codex => codex_events(bytes),
        Agent::Gemini => gemini_events(bytes),
    }
}

/// The last thing the agent said: (text, offset).
pub fn final_text(agent: Agent, bytes: &[u8]) -> Option<(String, usize)> {
    events(agent, bytes).into_iter().rev().find_map(|e| match e {
        Ev::Said(t, o) => Some((t, o)),
        _ => None,
    })
}

/// The current turn: from the last prompt on.
pub fn current_turn(agent: Agent, bytes: &[u8]) -> NaiveTurn {
    let evs = events(agent, bytes);
    let start = evs.iter().rposition(|e| matches!(e, Ev::Prompt(..)));
    let mut turn =
        NaiveTurn { prompt: None, tool_uses: vec![], final_text: None };
    for e in &evs[start.unwrap_or(0)..] {
        match e {
            Ev::Prompt(t, o) => turn.prompt = Some((t.clone(), *o)),
            Ev::Tool(n, c) => turn.tool_uses.push((n.clone(), c.clone())),
            Ev::Said(t, _) => turn.final_text = Some(t.clone()),
        }
    }
    turn
}

/// A Codex rollout's entrypoint: `codex-<source>` of its `session_meta`.
pub fn entrypoint(agent: Agent, bytes: &[u8]) -> Option<String> {
    if agent != Agent::Codex {
        return None;
    }
    let meta = parse_all(bytes).into_iter().take(15).find_map(|p| {
        p.object.filter(|v| {
            v.get("type").and_then(Value::as_str) == Some("session_meta")
        })
    })?;
    let source = meta.pointer("/payload/source")?;
    Some(match source.as_str() {
        Some(s) => format!("codex-{s}"),
        None => "codex-subagent".to_string(),
    })
}
