//! The Stop hook of Claude Code, Codex CLI and Gemini CLI: PostToolUse
//! (Gemini: AfterTool) raises a flag, Stop (Gemini: AfterAgent) runs the
//! gates.
//!
//! The three clients' hook contracts are close enough for one logic: the
//! same input fields (Gemini's `prompt_response` stands in for
//! `last_assistant_message`), the same block, `{"decision":"block",
//! "reason":…}` on stdout, and the same transcript facts through the one
//! turn model. Loops are bounded by the state here, never by
//! `stop_hook_active` alone: Codex CLI and Gemini CLI do not cap repeated
//! blocks, and Gemini resets the flag after a retry that used a tool.
//!
//! This module holds the hook's logic and its state; the `stopgate hook`
//! binary adds the edges (stdin, configuration files, exit codes) and the
//! fail-open wrapper. Authors of other hook binaries can call
//! [`post_tool_use`] and [`stop`] directly.
//!
//! # The Stop sequence
//!
//! 1. whose Stop: the session (`session_id`, sanitised by [`safe_id`]) and
//!    its transcript, or with `gate_subagents` at SubagentStop the
//!    subagent (`agent_id`) and its own file; else allow;
//! 2. unattended entrypoints (`CLAUDE_CODE_ENTRYPOINT`, else the
//!    transcript's head) allow every gate, and consume the pending
//!    changes;
//! 3. the turn is read from the transcript's tail by the one turn model
//!    ([`Transcript::read_current_turn`]), with the work of the subagents
//!    it launched folded in (unless they are gated on their own), and of
//!    the background subagents launched before it that its
//!    `<task-notification>` reports or `background_tasks` lists as
//!    running ([`Turn::resolve_background`]);
//! 4. under the session's lock: whether files changed, that is a pending
//!    change (the flag PostToolUse raised, with the `tool_use_id`s it
//!    recorded) or, unless switched off, a file-changing tool use of the
//!    turn whose key no earlier Stop consumed; the prompt count and the
//!    nag hashes;
//! 5. the gates run in the configured order ([`Judge::evaluate`]): the
//!    ownership and reverify gates block under their own per-session caps,
//!    never twice on an identical final text, and not while the agent is
//!    already replying to a block (`stop_hook_active`, or a `prompt_id`
//!    the session's last block was given in);
//!    the audit and hollow gates need a change and a session under its
//!    cap;
//! 6. **a change stays pending until it is audited**: it is consumed
//!    (its ids and the turn's change keys recorded as seen, the flag
//!    lowered) only when the Stop is allowed, because the audit and hollow
//!    gates passed or the cap was reached, and there was a final text to
//!    judge (an empty one judges nothing). A block leaves it pending, so
//!    the agent's reply to the block is judged at the next Stop, and a
//!    tool use that reaches the transcript late (its id already consumed)
//!    cannot count as a second change;
//! 7. a block by the audit or hollow gate counts towards the cap, which
//!    bounds every loop; a block by the others records the gate and the
//!    text's hash, which count towards that gate's cap. A block that
//!    cannot be recorded is not given: the Stop is allowed, with
//!    [`Outcome::fault`] set for the user to be told.
//!
//! The state directory's hourly sweep is not part of a Stop: the caller
//! runs [`StateDir::cleanup`] after it has delivered the verdict.
//!
//! The final text is `last_assistant_message` when the client sends it
//! (the transcript may lag), else the turn's; for Gemini CLI, whose
//! `prompt_response` joins every reply of the prompt, the turn's last
//! message comes first. SubagentStop allows and
//! leaves the changes to the main agent's Stop, unless `gate_subagents` is
//! on: then PostToolUse inside a subagent (its input carries `agent_id`)
//! raises the subagent's flag, and SubagentStop runs the gates on
//! `agent_transcript_path`, whose every line is a sidechain line, with
//! state keyed by `agent_id`.

mod fault;
mod input;
mod state;

use crate::changes::json_input_changes_files;
use crate::config::Gate;
use crate::gates::{text_hash, Facts, Nag, Rule, SessionView, Verdict};
use crate::judge::{Judge, TurnChanges};
use crate::read::{Chain, Format, Transcript, Turn};

use self::state::SessionLock;

pub use self::fault::Fault;
pub use self::input::{Event, HookInput};
pub use self::state::{default_dir, StateDir};
pub use crate::read::turn::safe_id;

/// What the hook decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Exit 0, silently.
    Allow,
    /// Keep the agent working.
    Block {
        /// The gate that blocked.
        gate: Gate,
        /// The rule within the gate.
        rule: Rule,
        /// The message for the agent.
        message: String,
    },
}

/// A decision, with notes for the debug log on how it was reached.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Outcome {
    /// The decision.
    pub decision: Decision,
    /// Why, step by step; written to the debug log when it is on.
    pub notes: Vec<String>,
    /// The hook's own fault that made it allow, if one did: the user is
    /// to be told ([`Fault::message`]).
    pub fault: Option<Fault>,
}

impl Outcome {
    fn allow(note: impl Into<String>) -> Outcome {
        Outcome {
            decision: Decision::Allow,
            notes: vec![note.into()],
            fault: None,
        }
    }
}

/// What the hook knows besides its input: the agent that runs it, and
/// what it reads from its environment.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct HookEnv {
    /// The agent whose hook this is (`stopgate hook --agent`, else
    /// [`HookInput::agent`]).
    pub agent: Format,
    /// `CLAUDE_CODE_ENTRYPOINT`, when set and the agent is Claude Code.
    pub entrypoint: Option<String>,
}

impl HookEnv {
    /// What the hook knows of `agent`, with the entrypoint its environment
    /// names, if any (`CLAUDE_CODE_ENTRYPOINT`, for Claude Code only).
    pub fn new(agent: Format, entrypoint: Option<String>) -> HookEnv {
        HookEnv { agent, entrypoint }
    }
}

/// PostToolUse: raise the change flag if the tool changed files.
///
/// The flag belongs to the session, so the main agent's Stop audits the
/// change, whoever made it. With `gate_subagents`, a tool use inside a
/// subagent (its input carries `agent_id`) raises the subagent's flag
/// instead, which its own SubagentStop audits.
pub fn post_tool_use(
    input: &HookInput,
    state: &StateDir,
    gate_subagents: bool,
) -> Outcome {
    let key = match input.agent_id.as_deref().filter(|_| gate_subagents) {
        Some(agent) => safe_id(agent).map(agent_key),
        None => {
            input.session_id.as_deref().and_then(safe_id).map(str::to_string)
        }
    };
    let Some(key) = key else {
        return Outcome::allow("post: no usable session_id or agent_id");
    };
    let name = input.tool_name.as_deref().unwrap_or("");
    let null = serde_json::Value::Null;
    let tool_input = input.tool_input.as_ref().unwrap_or(&null);
    match json_input_changes_files(name, tool_input) {
        Some(reason) => {
            match state.raise_flag(&key, input.tool_use_id.as_deref()) {
                Ok(()) => Outcome::allow(format!(
                    "post: {name} changes files ({reason:?}): flag {key} raised"
                )),
                Err(e) => {
                    Outcome::allow(format!("post: raising flag failed: {e}"))
                }
            }
        }
        None => Outcome::allow(format!("post: {name} changes nothing")),
    }
}

/// The state key of a subagent.
fn agent_key(agent: &str) -> String {
    format!("agent-{agent}")
}

/// Stop or SubagentStop: run the gates.
///
/// See the [module docs](self) for the sequence; each numbered step is one
/// function below.
pub fn stop(
    input: &HookInput,
    event: Event,
    judge: &Judge,
    state: &StateDir,
    env: &HookEnv,
) -> Outcome {
    let target = match whose_stop(input, event, judge) {
        Ok(target) => target,
        Err(outcome) => return outcome,
    };
    if let Some(outcome) = allow_unattended(&target, env, judge, state) {
        return outcome;
    }
    let turn = read_turn(&target, input, judge);
    let lock = match state.lock(&target.key) {
        Ok(lock) => lock,
        Err(e) => {
            let mut o = Outcome::allow(format!(
                "stop: cannot lock session state: {e}"
            ));
            o.fault = Some(Fault::StateDir(format!("its lock failed: {e}")));
            return o;
        }
    };
    let turn_changes = TurnChanges::of(&turn);
    let changes = Changes::under_lock(&lock, &turn_changes, judge);
    let mut notes = vec![changes.note()];
    // 5. The gates, on the final text, with what the session remembers.
    let final_text = final_text(input, env.agent, turn.final_text());
    let facts = Facts::of_changes(&turn, &turn_changes)
        .with_final_text(final_text)
        .with_changed(changes.changed())
        .with_stop_hook_active(replying_to_a_block(input, &lock));
    let nags = lock.nags();
    let session = SessionView::new(lock.prompted(), &nags);
    let verdict = judge.evaluate(&facts, &session);
    if final_text.trim().is_empty() {
        notes
            .push("stop: no final text to judge: changes stay pending".into());
    } else {
        consume_if_allowed(
            &lock, &changes, &verdict, judge, &session, &mut notes,
        );
    }
    // The nag is keyed on the text as judged, as the gates look it up.
    let (decision, fault) =
        record_block(&lock, verdict, facts.final_text(), &mut notes);
    if let (Decision::Block { .. }, Some(id)) = (&decision, input.prompt_id())
    {
        if let Err(e) = lock.record_blocked_prompt(id) {
            notes.push(format!("stop: recording the prompt id failed: {e}"));
        }
    }
    drop(lock);
    notes.push(format!("stop: {decision:?}"));
    Outcome { decision, notes, fault }
}

/// Step 1: Whose Stop, and which transcript: the target, or the allowing
/// outcome when there is none to gate.
fn whose_stop<'a>(
    input: &'a HookInput,
    event: Event,
    judge: &Judge,
) -> Result<StopTarget<'a>, Outcome> {
    let Some(target) = StopTarget::of(input, event, judge) else {
        return Err(Outcome::allow(match event {
            Event::SubagentStop if !judge.gates_subagents() => {
                "subagent stop: not gated (gate_subagents = false)"
            }
            _ => "stop: no usable session_id or agent_id",
        }));
    };
    if let Some(p) = target.path.filter(|p| is_special_file(p)) {
        // A FIFO would hold the hook, `/dev/zero` would fill memory.
        return Err(Outcome::allow(format!(
            "stop: transcript {p} is not a regular file"
        )));
    }
    Ok(target)
}

/// Step 2: Unattended sessions: nobody reads a block, so every gate allows, and
/// the pending changes are consumed.
fn allow_unattended(
    target: &StopTarget<'_>,
    env: &HookEnv,
    judge: &Judge,
    state: &StateDir,
) -> Option<Outcome> {
    let e = unattended(env, target.path, judge)?;
    let consumed = state.lock(&target.key).and_then(|l| l.consume([]));
    Some(Outcome::allow(format!(
        "stop: entrypoint {e} is unattended: changes consumed ({consumed:?})"
    )))
}

/// Step 3: The turn, from the transcript's tail; with subagents' work folded
/// in, unless they are gated on their own.
fn read_turn(
    target: &StopTarget<'_>,
    input: &HookInput,
    judge: &Judge,
) -> Turn {
    let Some(path) = target.path else { return Turn::default() };
    let path = std::path::Path::new(path);
    judge.stop_turn(path, target.chain, input.running_subagents())
}

/// Step 4: Under the lock: the pending change (the flag PostToolUse raised),
/// and the turn's file-changing tool uses that no earlier Stop consumed.
struct Changes<'t> {
    pending: Option<Vec<String>>,
    unseen: Vec<&'t str>,
    /// Whether files changed, by the judge's rule.
    changed: bool,
}

impl<'t> Changes<'t> {
    fn under_lock(
        lock: &SessionLock,
        turn: &TurnChanges<'t>,
        judge: &Judge,
    ) -> Changes<'t> {
        let seen = lock.seen();
        let unseen: Vec<&str> =
            turn.keys().filter(|k| !seen.iter().any(|s| s == k)).collect();
        let pending = lock.pending();
        let changed =
            judge.changed_at_stop(pending.is_some(), !unseen.is_empty());
        Changes { pending, unseen, changed }
    }

    fn changed(&self) -> bool {
        self.changed
    }

    fn note(&self) -> String {
        format!(
            "stop: pending={:?} unseen={:?} changed={}",
            self.pending,
            self.unseen,
            self.changed()
        )
    }
}

/// Step 6: A change is consumed only when the Stop is allowed: the audit and
/// hollow gates passed (or the cap was reached). A block leaves it
/// pending, so the reply to the block is judged at the next Stop.
fn consume_if_allowed(
    lock: &SessionLock,
    changes: &Changes<'_>,
    verdict: &Verdict,
    judge: &Judge,
    session: &SessionView<'_>,
    notes: &mut Vec<String>,
) {
    if !changes.changed() || verdict.block().is_some() {
        return;
    }
    if let Err(e) = lock.consume(changes.unseen.iter().copied()) {
        notes.push(format!("stop: consuming the change failed: {e}"));
    }
    if !judge.gates().under_cap(session) {
        notes
            .push(format!("stop: cap reached ({} prompts)", session.prompted));
    }
}

/// Whether the agent is replying to a block: the client says so
/// (`stop_hook_active`), or, where it sends a `prompt_id` (Claude Code
/// 2.1.196 and later), the session's last block was given in this same
/// prompt. A new prompt, a `<task-notification>` included, has a new id.
fn replying_to_a_block(input: &HookInput, lock: &SessionLock) -> bool {
    input.stop_hook_active.unwrap_or(false)
        || input.prompt_id().is_some_and(|id| {
            lock.blocked_prompt().is_some_and(|blocked| blocked == id)
        })
}

/// Step 7: Record the block: the audit gates count towards the cap; the others
/// record the nag, which counts towards theirs. A block that cannot be
/// recorded (a full disk) is not given: it would not count towards any
/// cap, so the hook fails open, with the fault to tell.
fn record_block(
    lock: &SessionLock,
    verdict: Verdict,
    final_text: &str,
    notes: &mut Vec<String>,
) -> (Decision, Option<Fault>) {
    let Verdict::Block(block) = verdict else {
        return (Decision::Allow, None);
    };
    let recorded = if block.is_audit() {
        lock.increment_prompted().map(drop)
    } else {
        lock.record_nag(Nag::new(block.gate(), text_hash(final_text)))
    };
    if let Err(e) = recorded {
        notes.push(format!("stop: recording the block failed: {e}; allowed"));
        return (Decision::Allow, Some(Fault::Record(e.to_string())));
    }
    let decision = Decision::Block {
        gate: block.gate(),
        rule: block.rule(),
        message: block.message().to_string(),
    };
    (decision, None)
}

/// The final text the gates judge. Claude Code and Codex CLI send it
/// (`last_assistant_message`; the transcript may lag, and Codex may send
/// `null`), else the turn's is taken. Gemini CLI's `prompt_response` joins
/// all the prompt's text, a reply to a block after the text that was
/// blocked, so the turn's last message comes first and the whole response
/// only when the transcript gave none.
fn final_text<'a>(
    input: &'a HookInput,
    agent: Format,
    turn: Option<&'a str>,
) -> &'a str {
    let sent = match agent {
        Format::Gemini => input.prompt_response.as_deref(),
        _ => input.last_assistant_message.as_deref(),
    };
    let sent = sent.filter(|t| !t.trim().is_empty());
    match agent {
        Format::Gemini => turn.or(sent),
        _ => sent.or(turn),
    }
    .unwrap_or("")
}

/// Whose Stop it is: the state key, the transcript, and the chain to
/// follow in it.
struct StopTarget<'a> {
    key: String,
    path: Option<&'a str>,
    chain: Chain,
}

impl<'a> StopTarget<'a> {
    fn of(
        input: &'a HookInput,
        event: Event,
        judge: &Judge,
    ) -> Option<StopTarget<'a>> {
        match event {
            Event::SubagentStop if !judge.gates_subagents() => None,
            Event::SubagentStop => Some(StopTarget {
                key: agent_key(input.agent_id.as_deref().and_then(safe_id)?),
                path: input.agent_transcript_path.as_deref(),
                chain: Chain::Subagent,
            }),
            _ => Some(StopTarget {
                key: input
                    .session_id
                    .as_deref()
                    .and_then(safe_id)?
                    .to_string(),
                path: input.transcript_path.as_deref(),
                chain: Chain::Main,
            }),
        }
    }
}

/// Whether `path` names something that is there but is not a regular
/// file (after following links): a FIFO, a device, a socket, a directory.
/// A missing transcript is not special: the turn is then unknown, and the
/// client's final message and the pending changes are judged.
fn is_special_file(path: &str) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file())
}

/// The entrypoint, when it is one of `skip_entrypoints`: from
/// `CLAUDE_CODE_ENTRYPOINT`, else from the transcript's head.
fn unattended(
    env: &HookEnv,
    path: Option<&str>,
    judge: &Judge,
) -> Option<String> {
    let entrypoint = env
        .entrypoint
        .clone()
        .filter(|e| !e.is_empty())
        .or_else(|| Transcript::read_entrypoint(path?).ok().flatten())?;
    judge.skips(Some(&entrypoint)).then_some(entrypoint)
}
