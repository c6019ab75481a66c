//! The hook's input: one JSON object on stdin.

use std::io::Read;

use serde::Deserialize;

use crate::read::Format;

/// The most stdin the hook reads. Anything bigger is not a hook input the
/// client would send, and the hook allows without parsing it.
pub(crate) const MAX_INPUT: u64 = 16 << 20;

/// The fields of a hook input that stopgate uses. Unknown fields are
/// ignored; every field is optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct HookInput {
    /// The session's id, used to name state files once sanitised.
    pub session_id: Option<String>,
    /// The main transcript's path.
    pub transcript_path: Option<String>,
    /// The hook's working directory.
    pub cwd: Option<String>,
    /// `PostToolUse`, `Stop`, `SubagentStop`, …
    pub hook_event_name: Option<String>,
    /// PostToolUse: the tool's name.
    pub tool_name: Option<String>,
    /// PostToolUse: the tool's input.
    pub tool_input: Option<serde_json::Value>,
    /// PostToolUse: the tool use's id, as the transcript records it.
    pub tool_use_id: Option<String>,
    /// Stop: whether Claude Code already continues because of a hook.
    pub stop_hook_active: Option<bool>,
    /// Claude Code (2.1.196 and later): the prompt's id, new for each
    /// prompt (a `<task-notification>` included) and the same for the
    /// Stops of a block's replies. Kept as a value, so that no shape of it
    /// can fail the input ([`HookInput::prompt_id`]).
    pub prompt_id: Option<serde_json::Value>,
    /// Stop: the final assistant message (v2.1.47 and later).
    pub last_assistant_message: Option<String>,
    /// Stop: the session's background tasks (seen in 2.1.197 and 2.1.332),
    /// such as `{"id": …, "type": "subagent", "status": "running"}`; kept
    /// as a value, so that no shape of it can fail the input.
    pub background_tasks: Option<serde_json::Value>,
    /// SubagentStop, and any event inside a subagent: the subagent's id.
    pub agent_id: Option<String>,
    /// SubagentStop: the subagent's transcript.
    pub agent_transcript_path: Option<String>,
    /// Codex CLI: the turn's id (every turn-scoped event).
    pub turn_id: Option<String>,
    /// Codex CLI: the model's name (every event).
    pub model: Option<String>,
    /// Gemini CLI, AfterAgent: all the model's text for the prompt, the
    /// retries' included, joined by newlines.
    pub prompt_response: Option<String>,
}

/// The events stopgate acts on, by their Claude Code names: Codex CLI uses
/// the same names, and Gemini CLI's `AfterTool` is [`Event::PostToolUse`]
/// and its `AfterAgent` is [`Event::Stop`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A tool ran: maybe raise the change flag.
    PostToolUse,
    /// The main agent wants to stop: run the gates.
    Stop,
    /// A subagent wants to stop.
    SubagentStop,
}

impl HookInput {
    /// Read and parse stdin, bounded at 16 MiB. `None` for input
    /// that is too big, unreadable or not a JSON object.
    pub fn read(reader: impl Read) -> Option<HookInput> {
        let mut buf = Vec::new();
        reader.take(MAX_INPUT + 1).read_to_end(&mut buf).ok()?;
        if buf.len() as u64 > MAX_INPUT {
            return None;
        }
        serde_json::from_slice(&buf).ok()
    }

    /// The `prompt_id`, when it is a string that can be kept: 1 to 128
    /// bytes, no whitespace or control character.
    pub fn prompt_id(&self) -> Option<&str> {
        self.prompt_id.as_ref()?.as_str().filter(|id| {
            (1..=128).contains(&id.len())
                && !id.chars().any(|c| c.is_whitespace() || c.is_control())
        })
    }

    /// The ids of the subagents that [`HookInput::background_tasks`] lists
    /// as running.
    pub fn running_subagents(&self) -> Vec<&str> {
        let Some(serde_json::Value::Array(tasks)) = &self.background_tasks
        else {
            return vec![];
        };
        tasks
            .iter()
            .filter(|t| t["type"] == "subagent" && t["status"] == "running")
            .filter_map(|t| t["id"].as_str())
            .collect()
    }

    /// The event, if it is one stopgate acts on.
    pub fn event(&self) -> Option<Event> {
        match self.hook_event_name.as_deref()? {
            "PostToolUse" | "AfterTool" => Some(Event::PostToolUse),
            "Stop" | "AfterAgent" => Some(Event::Stop),
            "SubagentStop" => Some(Event::SubagentStop),
            _ => None,
        }
    }

    /// The agent that sent the input, judged from its shape: Gemini CLI's
    /// events are named `AfterTool`, `AfterAgent`, `BeforeAgent`, …;
    /// Codex CLI sends `turn_id` and `model`, which Claude Code does not.
    /// (Gemini CLI sets `CLAUDE_PROJECT_DIR` for its hooks, so the
    /// environment proves nothing.) `stopgate hook --agent` says it
    /// outright, and wins.
    ///
    /// ```
    /// use stopgate::hook::HookInput;
    /// use stopgate::read::Format;
    ///
    /// let codex: HookInput = serde_json::from_str(
    ///     r#"{"hook_event_name":"Stop","turn_id":"t","model":"gpt-5"}"#,
    /// ).unwrap();
    /// assert_eq!(codex.agent(), Format::Codex);
    /// let gemini: HookInput =
    ///     serde_json::from_str(r#"{"hook_event_name":"AfterAgent"}"#).unwrap();
    /// assert_eq!(gemini.agent(), Format::Gemini);
    /// ```
    pub fn agent(&self) -> Format {
        let event = self.hook_event_name.as_deref().unwrap_or("");
        if matches!(
            event,
            "AfterTool" | "AfterAgent" | "BeforeAgent" | "BeforeTool"
        ) {
            Format::Gemini
        } else if self.turn_id.is_some() && self.model.is_some() {
            Format::Codex
        } else {
            Format::Claude
        }
    }
}
