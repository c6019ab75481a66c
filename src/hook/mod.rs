//! The Claude Code hook: PostToolUse raises a flag, Stop runs the gates.
//!
//! This module holds the hook's logic and its state; the `stopgate hook`
//! binary adds the edges (stdin, configuration files, exit codes) and the
//! fail-open wrapper. Authors of other hook binaries can call
//! [`post_tool_use`] and [`stop`] directly.
//!
//! # The Stop sequence
//!
//! 1. a sanitised `session_id` ([`safe_id`]), or allow;
//! 2. unattended entrypoints (`CLAUDE_CODE_ENTRYPOINT`, else the
//!    transcript's head) allow every gate, and clear the flag;
//! 3. the current turn is read from the transcript's tail;
//! 4. under the session's lock: whether files changed (the flag, or, unless
//!    switched off, a file-changing tool use in the turn that no earlier
//!    Stop consumed), the prompt count and the nag hashes;
//! 5. the gates run in the configured order ([`Gates::evaluate`]): the
//!    ownership and reverify gates nag once per identical final text; the
//!    audit and hollow gates need a change and a session under its cap;
//! 6. the change is consumed (flag deleted, tool use recorded) whatever the
//!    audit decides, unless an earlier gate blocked first, in which case
//!    it waits for the next Stop, so it is still audited;
//! 7. a block by the audit or hollow gate counts towards the cap; a block
//!    by the others records the text's hash.
//!
//! The final text is `last_assistant_message` when the client sends it
//! (the transcript may lag), else the turn's. SubagentStop allows and
//! leaves the flag alone, unless `gate_subagents` is on: then the gates run
//! on `agent_transcript_path` with state keyed by `agent_id`.

mod input;
mod state;

use crate::changes::{self, tool_changes_files};
use crate::config::{Config, GateName};
use crate::gates::{text_hash, Facts, Gates, SessionView, Verdict};
use crate::transcript::Transcript;

pub use self::input::{safe_id, Event, HookInput, MAX_INPUT};
pub use self::state::{
    default_dir, SessionLock, StateDir, CLEANUP_BUDGET, MAX_AGE,
};

/// What the hook decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Exit 0, silently.
    Allow,
    /// Keep the agent working.
    Block {
        /// The gate that blocked.
        gate: GateName,
        /// The rule within the gate.
        rule: &'static str,
        /// The message for the agent.
        message: String,
    },
}

/// A decision, with notes for the debug log on how it was reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The decision.
    pub decision: Decision,
    /// Why, step by step; written to the debug log when it is on.
    pub notes: Vec<String>,
}

impl Outcome {
    fn allow(note: impl Into<String>) -> Outcome {
        Outcome { decision: Decision::Allow, notes: vec![note.into()] }
    }
}

/// What the hook reads from its environment.
#[derive(Clone, Debug, Default)]
pub struct HookEnv {
    /// `CLAUDE_CODE_ENTRYPOINT`, when set.
    pub entrypoint: Option<String>,
}

/// PostToolUse: raise the session's change flag if the tool changed files.
pub fn post_tool_use(input: &HookInput, state: &StateDir) -> Outcome {
    let Some(key) = input.session_id.as_deref().and_then(safe_id) else {
        return Outcome::allow("post: no usable session_id");
    };
    let name = input.tool_name.as_deref().unwrap_or("");
    let tool_input =
        input.tool_input.clone().unwrap_or(serde_json::Value::Null);
    match tool_changes_files(name, &tool_input) {
        Some(reason) => match state.raise_flag(key) {
            Ok(()) => Outcome::allow(format!(
                "post: {name} changes files ({reason:?}): flag raised"
            )),
            Err(e) => {
                Outcome::allow(format!("post: raising flag failed: {e}"))
            }
        },
        None => Outcome::allow(format!("post: {name} changes nothing")),
    }
}

/// Stop or SubagentStop: run the gates.
pub fn stop(
    input: &HookInput,
    event: Event,
    config: &Config,
    gates: &Gates,
    state: &StateDir,
    env: &HookEnv,
) -> Outcome {
    let mut notes = vec![];
    let (key, path) = match event {
        Event::SubagentStop if !config.gate_subagents => {
            return Outcome::allow(
                "subagent stop: not gated (gate_subagents = false)",
            );
        }
        Event::SubagentStop => {
            let Some(agent) = input.agent_id.as_deref().and_then(safe_id)
            else {
                return Outcome::allow("subagent stop: no usable agent_id");
            };
            (format!("agent-{agent}"), input.agent_transcript_path.as_deref())
        }
        _ => {
            let Some(sid) = input.session_id.as_deref().and_then(safe_id)
            else {
                return Outcome::allow("stop: no usable session_id");
            };
            (sid.to_string(), input.transcript_path.as_deref())
        }
    };

    // 2. Unattended sessions: nobody reads a block.
    let entrypoint = env
        .entrypoint
        .clone()
        .filter(|e| !e.is_empty())
        .or_else(|| Transcript::read_entrypoint(path?).ok().flatten());
    if let Some(e) = &entrypoint {
        if config.skip_entrypoints.iter().any(|s| s == e) {
            state.take_flag(&key);
            return Outcome::allow(format!(
                "stop: entrypoint {e} is unattended: flag cleared"
            ));
        }
    }

    // 3. The current turn, from the transcript's tail.
    let turn = path
        .and_then(|p| Transcript::read_current_turn(p).ok())
        .unwrap_or_default();
    let lock = match state.lock(&key) {
        Ok(lock) => lock,
        Err(e) => {
            return Outcome::allow(format!(
                "stop: cannot lock session state: {e}"
            ))
        }
    };

    // 4. Under the lock: did files change, and what does the session
    // remember?
    let flag = state.flag_present(&key);
    let last_change = changes::last_change(turn.tool_uses())
        .map(|i| turn.tool_uses()[i].id().unwrap_or("").to_string());
    let transcript_change = config.transcript_changes
        && last_change
            .as_ref()
            .is_some_and(|id| lock.seen_change().as_ref() != Some(id));
    let changed = flag || transcript_change;
    notes.push(format!(
        "stop: flag={flag} transcript_change={transcript_change}"
    ));

    // 5. The gates, on the final text: the client's, else the turn's.
    let final_text = input
        .last_assistant_message
        .as_deref()
        .filter(|t| !t.trim().is_empty())
        .or(turn.final_text())
        .unwrap_or("");
    let facts = Facts {
        final_text,
        prompt: turn.prompt().map(|p| p.text()),
        tool_uses: turn.tool_uses(),
        changed,
        stop_hook_active: input.stop_hook_active.unwrap_or(false),
    };
    let nagged = lock.nag_hashes();
    let session = SessionView { prompted: lock.prompted(), nagged: &nagged };
    let verdict = gates.evaluate(&facts, &session);

    // 6. The change is consumed unless an earlier gate blocked first: then
    // it stays for the next Stop, so it is still audited.
    let earlier_gate_blocked = verdict.block().is_some_and(|b| !b.is_audit());
    if changed && !earlier_gate_blocked {
        state.take_flag(&key);
        if let Some(id) = &last_change {
            if let Err(e) = lock.set_seen_change(id) {
                notes.push(format!(
                    "stop: recording the consumed change failed: {e}"
                ));
            }
        }
        if !gates.under_cap(&session) {
            notes.push(format!(
                "stop: cap reached ({} prompts)",
                session.prompted
            ));
        }
    }

    // 7. Record the block.
    let decision = match verdict {
        Verdict::Allow => Decision::Allow,
        Verdict::Block(block) => {
            // The audit gates count towards the cap; the others nag once
            // per identical final text.
            let recorded = if block.is_audit() {
                lock.increment_prompted().map(drop)
            } else {
                lock.record_nag(text_hash(final_text))
            };
            if let Err(e) = recorded {
                notes.push(format!("stop: recording the block failed: {e}"));
            }
            Decision::Block {
                gate: block.gate(),
                rule: block.rule(),
                message: block.message().to_string(),
            }
        }
    };
    drop(lock);
    state.cleanup();
    notes.push(format!("stop: {decision:?}"));
    Outcome { decision, notes }
}
