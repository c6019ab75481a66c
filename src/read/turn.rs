//! The turn: one model of what the agent did between two prompts.
//!
//! The gates judge what the agent did *since the human last spoke*: the
//! prompt, the tools it used, and what it said at the end. The hook and
//! `stopgate check` need the last turn of a transcript; the archive scan
//! needs every turn. If each built "the turn" its own way, the copies would
//! drift, and the same turn would get different verdicts. So there is one
//! accumulator, [`TurnBuilder`], fed records in file order:
//!
//! * the scan feeds it a whole file, and it hands back each turn as the
//!   next one starts;
//! * the hook and `check` walk back from the end to the last line that
//!   starts a turn (cheaply: only user and system lines can), then feed the
//!   builder forward from there ([`Transcript::current_turn`]).
//!
//! # What starts and ends a turn
//!
//! A turn starts at a prompt: a `user` line a human typed (not `isMeta`,
//! not a compact summary, no `tool_result`, not a command-output wrapper
//! such as `<local-command-stdout>`), or a `system` record of subtype
//! `local_command`. Its [`TurnKind`] says what kind of prompt:
//!
//! * a `<task-notification>` prompt tells the agent that a background task
//!   finished; no human typed it, and its content is the evidence for what
//!   the agent then reports;
//! * a local command (`/exit`, `/clear`, a `!` shell escape recorded as
//!   `<bash-input>`) runs no agent work;
//! * a turn in which the user interrupted the agent
//!   (`[Request interrupted by user…]`) ended without a Stop the agent
//!   chose.
//!
//! Only turns of the first two kinds end in a Stop, so only they get
//! findings ([`TurnKind::ends_in_stop`]).
//!
//! # Chains and subagents
//!
//! A builder follows one [`Chain`]. On the main chain, `isSidechain` lines
//! (subagents, kept inline by older clients) never start a turn or give its
//! final text, but the files they change count as the turn's changes: a
//! subagent's work belongs to the turn that launched it. Newer clients keep
//! a subagent in `<session>/subagents/agent-<id>.jsonl`, named by the
//! `agentId` of the Task or Agent tool's result; [`Turn::resolve_subagents`]
//! reads those files. Inside a subagent's own file every line is a
//! sidechain line, and [`Chain::Subagent`] follows them all.

use std::borrow::Cow;

use super::record::{is_blank, Block, Content, Record, RecordType};
use super::sniff::{quick_type, skip_ws, tail_type, Needle};
use crate::changes::{ChangeReason, ShellInput, EDIT_TOOLS, SHELL_TOOLS};

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

/// Which lines a turn follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chain {
    /// The main agent's: sidechain lines are a subagent's work, which
    /// counts towards the turn's changes but nothing else.
    Main,
    /// A subagent file's own chain, where every line is a sidechain line.
    Subagent,
}

/// What a reader must get out of the lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Need {
    /// Whole turns, as every query and the scan read them.
    #[default]
    Turns,
    /// Only the tool uses that change files: all a subagent's file is
    /// read for. Lines that cannot hold a tool use are not parsed.
    Changes,
}

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

/// What started a turn, and how it ended.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
#[non_exhaustive]
pub enum TurnKind {
    /// A prompt a human typed (or a slash command that expands to one).
    #[default]
    Prompt,
    /// A `<task-notification>` prompt: a background task finished.
    Notification,
    /// The user interrupted the agent: no Stop fired.
    Interrupted,
    /// A local command (`/exit`, `/clear`, `<bash-input>`): no agent work.
    LocalCommand,
    /// A prompt the user took back before any reply (Claude Code's Esc
    /// rewinds it, and the next prompt takes its place): no Stop fired.
    Rewound,
}

impl TurnKind {
    /// The kind's name in reports: `prompt`, `notification`,
    /// `interrupted`, `local_command` or `rewound`.
    pub fn as_str(&self) -> &'static str {
        match self {
            TurnKind::Prompt => "prompt",
            TurnKind::Notification => "notification",
            TurnKind::Interrupted => "interrupted",
            TurnKind::LocalCommand => "local_command",
            TurnKind::Rewound => "rewound",
        }
    }

    /// Whether a turn of this kind ends in a Stop the agent chose, so that
    /// findings apply to it.
    pub fn ends_in_stop(&self) -> bool {
        matches!(self, TurnKind::Prompt | TurnKind::Notification)
    }
}

/// What the agent did in one turn.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Turn {
    index: usize,
    kind: TurnKind,
    prompt: Option<Prompt>,
    timestamp: Option<String>,
    ended: Option<String>,
    tool_uses: Vec<ToolCall>,
    subagent_changes: Vec<ToolCall>,
    carried: Vec<ToolCall>,
    /// The turns the carried changes were made in.
    carried_from: Vec<usize>,
    /// The ids of the turn's tool uses whose result is an error.
    failed: Vec<String>,
    launches: Vec<Launch>,
    final_text: Option<TextAt>,
    stop_blocks: StopBlocks,
    hooks_ran: Vec<String>,
    /// How many times stopgate's hook told the user it was not guarding.
    unguarded: usize,
    hook_faults: Vec<HookFault>,
    overridden: Option<usize>,
    any_assistant: bool,
    skipped_corrupt: usize,
}

impl Turn {
    /// The turn's number in its file: 1 for the turn of the first prompt,
    /// 0 for what comes before any prompt. A turn read from a tail window
    /// that does not reach the file's start has number 0.
    pub fn index(&self) -> usize {
        self.index
    }

    /// What started the turn, and whether the user interrupted it.
    pub fn kind(&self) -> TurnKind {
        self.kind
    }

    /// The prompt that opened the turn, or `None` if the transcript (or
    /// the window) holds no prompt; the turn then runs from the start of
    /// what was read.
    pub fn prompt(&self) -> Option<&Prompt> {
        self.prompt.as_ref()
    }

    /// The prompt's timestamp, else the turn's first.
    pub fn timestamp(&self) -> Option<&str> {
        self.timestamp.as_deref()
    }

    /// About when the turn's last Stop ran: in a Claude Code transcript,
    /// the latest timestamp of its final text, of its tool uses and of
    /// the `stop_hook_summary` records that Claude Code 2.1.332 writes
    /// after each Stop's hooks (not of the meta lines that come before
    /// the next prompt, nor of the assistant's earlier texts, which are
    /// left unparsed); in the other formats, of every record read.
    /// Timestamps are compared as text, which orders the RFC 3339 UTC
    /// times the clients write.
    pub fn ended(&self) -> Option<&str> {
        let text = self.final_text.as_ref().and_then(|t| t.at.as_deref());
        self.ended.as_deref().max(text)
    }

    /// The chain's tool uses in the turn, in order.
    pub fn tool_uses(&self) -> &[ToolCall] {
        &self.tool_uses
    }

    /// The file-changing tool uses of the subagents the turn launched:
    /// sidechain lines in the main file, and resolved subagent files.
    pub fn subagent_changes(&self) -> &[ToolCall] {
        &self.subagent_changes
    }

    /// The file changes of earlier turns that ended in no Stop (the user
    /// interrupted them), which this turn's Stop is the first to see.
    ///
    /// No Stop fires when the user interrupts Claude Code, so the flag
    /// PostToolUse raised stays up, and the next Stop judges the change,
    /// whatever its own turn did. Only tool uses that ran to the end are
    /// carried (not one the user declined, or that failed), and only in
    /// Claude Code transcripts read whole ([`Transcript::turns_with_subagents`](crate::read::Transcript::turns_with_subagents)
    /// and the archive scan); a turn read alone carries nothing.
    pub fn carried_changes(&self) -> &[ToolCall] {
        &self.carried
    }

    /// The numbers ([`Turn::index`]) of the turns the
    /// [`carried changes`](Turn::carried_changes) were made in.
    pub fn carried_from(&self) -> &[usize] {
        &self.carried_from
    }

    /// Whether any tool use of the turn, its subagents' included, changed
    /// files, or changes are carried to it ([`Turn::carried_changes`]):
    /// whether the turn has [`Turn::changes`].
    pub fn changed(&self) -> bool {
        self.changes().next().is_some()
    }

    /// The stable keys ([`ToolCall::key`]) of the turn's
    /// [`Turn::changes`]: what the hook records as audited.
    pub fn change_keys(&self) -> impl Iterator<Item = &str> {
        self.changes().map(ToolCall::key)
    }

    /// The turn's file changes that ran to the end: its file-changing tool
    /// uses (not the launches of subagents, whose changes are counted
    /// themselves), its subagents' changes, and the changes carried to it;
    /// not one whose result is an error (`is_error`: the user declined or
    /// interrupted it, or it failed). Claude Code runs no PostToolUse hook
    /// after such a tool use, so the hook's flag never sees it, and it
    /// changed nothing the agent must answer for.
    pub fn changes(&self) -> impl Iterator<Item = &ToolCall> {
        self.tool_uses
            .iter()
            .filter(|u| {
                u.change().is_some_and(|c| c != ChangeReason::Subagent)
            })
            .chain(self.subagent_changes.iter())
            .chain(self.carried.iter())
            .filter(|c| {
                c.id().is_none_or(|id| !self.failed.iter().any(|f| f == id))
            })
    }

    /// Count `changes`, made in earlier turns that ended in no Stop the
    /// agent chose, as this turn's too ([`Turn::carried_changes`]).
    ///
    /// No Stop fires when the user interrupts the agent, so a change made
    /// in an interrupted turn is still unaudited when the next turn
    /// begins; the hook sees it at the first Stop after it (PostToolUse's
    /// flag stays raised), whatever that turn itself does. The interrupted
    /// turn keeps its changes: it made them, though no finding applies
    /// to it ([`TurnKind::ends_in_stop`]).
    pub(crate) fn carry(
        &mut self,
        changes: impl IntoIterator<Item = ToolCall>,
        from: impl IntoIterator<Item = usize>,
    ) {
        self.carried.extend(changes);
        self.carried_from.extend(from);
    }

    /// The subagents the turn launched, by `agentId`.
    pub fn launched_agents(&self) -> impl Iterator<Item = &str> {
        self.launches.iter().map(|l| l.agent_id.as_str())
    }

    /// For a turn a `<task-notification>` started, the task it reports
    /// (its `<task-id>`): for a subagent, its `agentId`.
    pub fn notified_agent(&self) -> Option<&str> {
        if self.kind != TurnKind::Notification {
            return None;
        }
        let text = self.prompt.as_ref()?.text();
        let start = text.find("<task-id>")? + "<task-id>".len();
        let len = text[start..].find("</task-id>")?;
        Some(text[start..start + len].trim())
    }

    /// The last non-blank assistant text of the turn.
    pub fn final_text(&self) -> Option<&str> {
        self.final_text.as_ref().map(|t| t.text.as_str())
    }

    /// Where the final text is: its line's file offset.
    pub fn final_text_offset(&self) -> Option<u64> {
        self.final_text.as_ref().map(|t| t.offset)
    }

    /// The 1-based line number of the final text, when the reader counted
    /// lines from the file's start.
    pub fn final_text_line(&self) -> Option<u64> {
        self.final_text.as_ref().and_then(|t| t.line)
    }

    /// The Stop hook blocks the transcript records in this turn.
    pub fn stop_blocks(&self) -> &StopBlocks {
        &self.stop_blocks
    }

    /// The commands of the Stop hooks that ran (from `stop_hook_summary`
    /// records, which only interactive sessions write).
    pub fn hooks_ran(&self) -> &[String] {
        &self.hooks_ran
    }

    /// How many times, in this turn, stopgate's hook told the user it was
    /// not guarding ("stopgate is not guarding …", the hook's
    /// `systemMessage`, which Claude Code keeps as a `hook_system_message`
    /// attachment): a Stop let through by the hook's own fault. The hook
    /// says it once per session for most faults, so later Stops let
    /// through go uncounted; "not guarding as configured" (the defaults
    /// guard instead) is not counted.
    pub fn unguarded(&self) -> usize {
        self.unguarded
    }

    /// The hooks that failed in this turn, as the client recorded them
    /// (Claude Code's `hook_non_blocking_error`,
    /// `hook_error_during_execution` and timed-out `hook_cancelled`
    /// attachments): hooks of every event, in file order.
    pub fn hook_faults(&self) -> &[HookFault] {
        &self.hook_faults
    }

    /// When the client ended the turn over a Stop hook's blocks: how many
    /// consecutive blocks it overrode. Claude Code (2.1.143 and later)
    /// ends a turn after 8 (`CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`), writes a
    /// notice ("A hook blocked the turn from ending 8 consecutive times…")
    /// and does not tell the hook.
    pub fn blocks_overridden(&self) -> Option<usize> {
        self.overridden
    }

    /// How many corrupt lines the reader passed over.
    pub fn skipped_corrupt(&self) -> usize {
        self.skipped_corrupt
    }

    /// This turn with no corrupt lines counted, for tests comparing turns
    /// read two ways.
    #[cfg(test)]
    pub(super) fn clear_corrupt(&mut self) {
        self.skipped_corrupt = 0;
    }

    /// The turn's tool uses, taken.
    pub(super) fn into_tool_uses(self) -> impl Iterator<Item = ToolCall> {
        self.tool_uses.into_iter()
    }

    pub(super) fn add_corrupt(&mut self, n: usize) {
        self.skipped_corrupt += n;
    }

    /// A record of `timestamp` was read: the turn ended no earlier.
    fn saw(&mut self, timestamp: Option<&str>) {
        let Some(t) = timestamp else { return };
        match &mut self.ended {
            Some(ended) if ended.as_str() < t => {
                ended.clear();
                ended.push_str(t);
            }
            Some(_) => {}
            None => self.ended = Some(t.to_string()),
        }
    }

    /// Count the file changes of the subagents this turn launched, as
    /// `read` gives them by agent id, as this turn's, holding back the
    /// changes `later` picks: they are returned, not counted. The reading
    /// of the files is [`Turn::resolve_subagents`]'s.
    pub(crate) fn resolve_subagents_with(
        &mut self,
        mut read: impl FnMut(&str) -> Vec<ToolCall>,
        later: impl Fn(&ToolCall) -> bool,
    ) -> Vec<HeldChange> {
        let mut held = vec![];
        for launch in std::mem::take(&mut self.launches) {
            let changes = read(&launch.agent_id);
            let (late, now): (Vec<ToolCall>, Vec<ToolCall>) =
                changes.into_iter().partition(|c| later(c));
            held.extend(late.into_iter().map(|call| HeldChange {
                launch: launch.tool_use_id.clone(),
                call,
            }));
            self.add_held(now.into_iter().map(|call| HeldChange {
                launch: launch.tool_use_id.clone(),
                call,
            }));
            self.launches.push(launch);
        }
        held
    }

    /// Count `changes`, subagents' file changes, as this turn's; the Task
    /// or Agent tool use of this turn that launched one is marked
    /// [`ChangeReason::Subagent`] (a later turn that takes a change made
    /// after its launching turn ended has no such tool use).
    pub(crate) fn add_held(
        &mut self,
        changes: impl IntoIterator<Item = HeldChange>,
    ) {
        for HeldChange { launch, call } in changes {
            if let Some(u) = self
                .tool_uses
                .iter_mut()
                .find(|u| u.id().is_some() && u.id() == launch.as_deref())
            {
                u.change = Some(ChangeReason::Subagent);
            }
            self.subagent_changes.push(call);
        }
    }

    /// Count the file changes of `agents`, background subagents launched
    /// in earlier turns, as `read` gives them by agent id, as this turn's;
    /// an agent this turn launched, or one named twice, is read once. The
    /// reading of the files is [`Turn::resolve_background`]'s.
    pub(crate) fn add_background_with<'a>(
        &mut self,
        agents: impl IntoIterator<Item = &'a str>,
        mut read: impl FnMut(&str) -> Option<Vec<ToolCall>>,
    ) {
        let mut seen: Vec<&str> = vec![];
        for agent in agents {
            if seen.contains(&agent)
                || self.launched_agents().any(|a| a == agent)
            {
                continue;
            }
            seen.push(agent);
            if let Some(changes) = read(agent) {
                self.subagent_changes.extend(changes);
            }
        }
    }
}

/// A subagent's file change held back from the turn that launched it
/// ([`Turn::resolve_subagents_by`]), with the id of the tool use that
/// launched the subagent.
#[derive(Clone, Debug)]
pub(crate) struct HeldChange {
    launch: Option<String>,
    call: ToolCall,
}

impl HeldChange {
    /// The change.
    pub(crate) fn call(&self) -> &ToolCall {
        &self.call
    }
}

/// The Stop hook blocks recorded in a turn.
///
/// A block leaves a `user` record with `isMeta: true` whose text starts
/// `Stop hook feedback:`, in headless and interactive sessions alike; with
/// JSON output also an `attachment` of type `hook_blocking_error`, and in
/// interactive sessions a `stop_hook_summary` with `hookErrors`. Any of
/// them counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StopBlocks {
    feedback: usize,
    other_traces: usize,
    commands: Vec<String>,
}

impl StopBlocks {
    /// How many times a Stop hook blocked in the turn (at least one if any
    /// trace of a block is there).
    pub fn count(&self) -> usize {
        self.feedback.max(usize::from(self.other_traces > 0))
    }

    /// Whether a Stop hook blocked in the turn.
    pub fn any(&self) -> bool {
        self.count() > 0
    }

    /// The commands of the hooks that blocked, where the transcript names
    /// them, in order of first appearance.
    pub fn commands(&self) -> &[String] {
        &self.commands
    }

    fn name(&mut self, command: &str) {
        if !command.is_empty() && !self.commands.iter().any(|c| c == command) {
            self.commands.push(command.to_string());
        }
    }
}

/// A hook that failed, as the client recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookFault {
    event: String,
    command: Option<String>,
    timed_out: bool,
}

impl HookFault {
    /// The event the hook ran on, such as `Stop` or `PostToolUse`; empty
    /// when the client did not say.
    pub fn event(&self) -> &str {
        &self.event
    }

    /// The hook's command, where the client names it.
    pub fn command(&self) -> Option<&str> {
        self.command.as_deref()
    }

    /// Whether the hook ran out of time (else it ended in an error).
    pub fn timed_out(&self) -> bool {
        self.timed_out
    }

    /// The fault an attachment records, if it records one: an error, or
    /// a cancel because the hook ran out of time (a cancel the user asked
    /// for is not the hook's fault).
    fn of(a: &super::record::Attachment<'_>) -> Option<HookFault> {
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

/// A subagent launch: the Task or Agent tool use and the `agentId` its
/// result names.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Launch {
    tool_use_id: Option<String>,
    agent_id: String,
}

/// A text and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
struct TextAt {
    text: String,
    offset: u64,
    line: Option<u64>,
    /// Its line's timestamp.
    at: Option<String>,
}

/// The user prompt that opens a turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    text: String,
    offset: u64,
    line: Option<u64>,
    timestamp: Option<String>,
}

impl Prompt {
    /// The prompt's text: the content string, or its text blocks joined by
    /// newlines.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The file offset of the prompt's line.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The prompt's 1-based line number, when known.
    pub fn line(&self) -> Option<u64> {
        self.line
    }

    /// The prompt's `timestamp`, as written.
    pub fn timestamp(&self) -> Option<&str> {
        self.timestamp.as_deref()
    }
}

/// One tool use of a turn: what the gates need of a `tool_use` block.
///
/// Only the name, the id, the shell command (for tools that run one) and
/// whether and why the tool use changes files are kept: a `Write`'s
/// content would make memory grow with the turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCall {
    /// The id, or for a tool use without one its place in the file.
    key: String,
    id: IdForm,
    /// Borrowed for the tools every session uses: a scan meets tens of
    /// thousands of tool uses, and their names need no allocation each.
    name: Cow<'static, str>,
    command: Option<String>,
    change: Option<ChangeReason>,
    /// For a tool use that changes files, its line's timestamp.
    at: Option<Box<str>>,
}

/// What a tool use's `id` was: the key holds it when it was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IdForm {
    /// The key is the id.
    Key,
    /// The id was the empty string.
    Empty,
    /// There was no id.
    Absent,
}

/// The tool names kept without an allocation: the ones the rules know,
/// and the agents' other everyday tools.
const COMMON_TOOLS: &[&[&str]] = &[
    crate::changes::EDIT_TOOLS,
    crate::changes::SHELL_TOOLS,
    LAUNCH_TOOLS,
    &[
        "Read",
        "Grep",
        "Glob",
        "TodoWrite",
        "WebFetch",
        "WebSearch",
        "TaskOutput",
        "Skill",
        "AskUserQuestion",
        "ExitPlanMode",
    ],
];

fn tool_name(name: &str) -> Cow<'static, str> {
    COMMON_TOOLS
        .iter()
        .flat_map(|names| names.iter())
        .find(|&&n| n == name)
        .map_or_else(|| Cow::Owned(name.to_string()), |&n| Cow::Borrowed(n))
}

impl ToolCall {
    /// A tool use, judged once by the rule table
    /// ([`tool_changes_files`](crate::read::tool_changes_files)).
    /// `command` is the shell command of a tool that runs one (`Bash`; it
    /// is ignored for other tools). `offset` (its line's) and `block` (its
    /// index in the line's content) place it in the file, which keys a
    /// tool use without an id.
    ///
    /// # Example
    ///
    /// ```
    /// use stopgate::read::ToolCall;
    ///
    /// let edit = ToolCall::new(Some("t1"), "Edit", None, 0, 0);
    /// let grep = ToolCall::new(Some("t2"), "Bash", Some("grep -i todo f"), 0, 1);
    /// assert!(edit.change().is_some());
    /// assert!(grep.change().is_none() && grep.runs_command());
    /// ```
    pub fn new(
        id: Option<&str>,
        name: &str,
        command: Option<&str>,
        offset: u64,
        block: usize,
    ) -> ToolCall {
        let input = ShellInput::of_command(command);
        ToolCall::from_input(id, name, &input, offset, block)
    }

    /// [`ToolCall::new`], from a tool's JSON input (Codex CLI's and
    /// Gemini CLI's records).
    pub(crate) fn of_json(
        id: Option<&str>,
        name: &str,
        input: &serde_json::Value,
        offset: u64,
        block: usize,
    ) -> ToolCall {
        let input = ShellInput::of_value(input);
        ToolCall::from_input(id, name, &input, offset, block)
    }

    /// [`ToolCall::new`], from the fields of the input the rules read.
    pub(crate) fn from_input(
        id: Option<&str>,
        name: &str,
        input: &ShellInput<'_>,
        offset: u64,
        block: usize,
    ) -> ToolCall {
        let (key, id) = match id {
            Some(id) if !id.is_empty() => (id.to_string(), IdForm::Key),
            _ => (
                format!("noid:{offset}:{block}"),
                if id.is_some() { IdForm::Empty } else { IdForm::Absent },
            ),
        };
        ToolCall {
            key,
            id,
            name: tool_name(name),
            command: input.shell_command(name).map(|c| c.into_owned()),
            change: input.changes_files(name),
            at: None,
        }
    }

    /// This tool use, made on a line of `timestamp`: kept if it changes
    /// files ([`ToolCall::at`]).
    pub(crate) fn made_at(mut self, timestamp: Option<&str>) -> ToolCall {
        if self.change.is_some() {
            self.at = timestamp.map(Box::from);
        }
        self
    }

    /// For a tool use that changes files, the timestamp of its line, when
    /// the reader had one: when the agent asked for the change. A change
    /// that a background subagent made after the turn that launched it
    /// ended is a later turn's.
    pub fn at(&self) -> Option<&str> {
        self.at.as_deref()
    }

    /// The tool use's `id`.
    pub fn id(&self) -> Option<&str> {
        match self.id {
            IdForm::Key => Some(&self.key),
            IdForm::Empty => Some(""),
            IdForm::Absent => None,
        }
    }

    /// A stable key: the id, or for a tool use without one, its place in
    /// the file (`noid:<offset>:<block>`), so that the hook can record it
    /// as audited.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The tool's name, such as `Bash`; empty when the block had none.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The shell command, for a tool that runs one (`Bash`).
    pub fn command(&self) -> Option<&str> {
        self.command.as_deref()
    }

    /// Whether and why the tool use changes files.
    pub fn change(&self) -> Option<ChangeReason> {
        self.change
    }

    /// Whether the tool use could have verified something: it ran a
    /// command.
    pub fn runs_command(&self) -> bool {
        crate::changes::SHELL_TOOLS.contains(&&*self.name)
    }
}

/// The index of the last tool use in `uses` that changes files.
///
/// The hook keys "this change was already audited" on it, the hollow-audit
/// gate looks for verification after it, and the archive scanner marks a
/// turn as changed when there is one.
#[cfg(feature = "judge")]
pub(crate) fn last_change(uses: &[ToolCall]) -> Option<usize> {
    uses.iter().rposition(|u| u.change().is_some())
}

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

/// Whether a slash command's prompt text names a command: the turn is a
/// local command unless the agent then works.
fn is_command_prompt(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("<command-name>") || t.starts_with("<command-message>")
}

/// The tools whose result may name a subagent (`toolUseResult.agentId`).
const LAUNCH_TOOLS: &[&str] = &["Task", "Agent"];
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

/// Where a line is in its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinePos {
    /// The line's byte offset in the file.
    pub offset: u64,
    /// Its 1-based line number, when the reader counts from the start.
    pub line: Option<u64>,
}

/// The one accumulator of turns, fed records in file order.
#[derive(Debug)]
pub struct TurnBuilder {
    chain: Chain,
    open: Turn,
    started: bool,
    next_index: usize,
    /// Task or Agent tool uses of the open turn whose result has not named
    /// a subagent yet: only then are tool results worth parsing.
    unanswered_launches: usize,
    /// The ids of the open turn's file-changing tool uses whose result
    /// has not been met: only their results are worth a look for an error
    /// ([`Turn::changes`]).
    unanswered_changes: Vec<String>,
    /// Where the open turn's last Stop block and last tool use are, and
    /// the blocks since that tool use: a block no line answers is one the
    /// client overrode ([`Turn::blocks_overridden`]).
    last_block_at: Option<u64>,
    last_tool_at: Option<u64>,
    blocks_since_tool: usize,
    need: Need,
}

impl TurnBuilder {
    /// A builder whose first turn gets number `first` (0 when the reader
    /// does not start at the file's start, so numbers are unknown).
    pub(super) fn numbered_from(chain: Chain, first: usize) -> TurnBuilder {
        TurnBuilder {
            chain,
            open: Turn::default(),
            started: false,
            next_index: first,
            unanswered_launches: 0,
            unanswered_changes: vec![],
            last_block_at: None,
            last_tool_at: None,
            blocks_since_tool: 0,
            need: Need::Turns,
        }
    }

    /// A builder like this one, for a reader that needs only `need`.
    pub(super) fn needing(self, need: Need) -> TurnBuilder {
        TurnBuilder { need, ..self }
    }

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
                || (self.answers_change(line) && failed(line))),
            Some(b"system") => yes(SUMMARY.find(line)
                || LOCAL_COMMAND.find(line)
                || OVERRIDE.find(line)),
            Some(b"attachment") => yes(BLOCKING.find(line)
                || UNGUARDED.find(line)
                || holds_hook_fault(line)),
            Some(b"assistant") => self.text_only(line, Sure::Assistant),
            // Claude Code writes an assistant line's `type` last.
            None if tail_type(line) == Some(b"assistant") => {
                self.text_only(line, Sure::Assistant)
            }
            None => self.text_only(line, Sure::Unsure),
            Some(_) => Want::Skip,
        }
    }

    /// Whether a tool result line answers one of the open turn's
    /// file-changing tool uses: its result's `tool_use_id`, which Claude
    /// Code writes in the line's head, one result to a line, is one of
    /// theirs. Each is looked for until met.
    fn answers_change(&mut self, line: &[u8]) -> bool {
        if self.unanswered_changes.is_empty() {
            return false;
        }
        let head = &line[..line.len().min(4096)];
        let Some(at) = RESULT_ID.finder().find(head) else { return false };
        let rest = &head[at + RESULT_ID_KEY.len()..];
        let Some(end) = memchr::memchr(b'"', rest) else { return false };
        let id = &rest[..end];
        match self.unanswered_changes.iter().position(|u| u.as_bytes() == id) {
            Some(i) => {
                self.unanswered_changes.swap_remove(i);
                true
            }
            None => false,
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
                    self.open.hook_faults.extend(HookFault::of(&a));
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

    /// The turn being built, finished: what follows the last prompt.
    pub fn finish(mut self) -> Option<Turn> {
        self.take(false)
    }

    /// A prompt of `kind` starts a turn; the previous one is returned,
    /// finished. The other formats' readers feed the builder through this
    /// and the methods below, so every format builds the same [`Turn`].
    pub(super) fn begin(
        &mut self,
        kind: TurnKind,
        text: String,
        timestamp: Option<&str>,
        pos: LinePos,
    ) -> Option<Turn> {
        let done = self.take(true);
        self.unanswered_launches = 0;
        self.unanswered_changes.clear();
        self.started = true;
        self.open.kind = kind;
        self.open.index = self.next_index;
        self.next_index += usize::from(self.next_index > 0);
        self.open.timestamp = timestamp.map(str::to_string);
        self.open.prompt = Some(Prompt {
            text,
            offset: pos.offset,
            line: pos.line,
            timestamp: timestamp.map(str::to_string),
        });
        done
    }

    /// A record of the open turn was read: the turn has started, its
    /// first timestamp is kept, and it ended no earlier than this record.
    /// (The other formats' readers call this for every record.)
    pub(super) fn note(&mut self, timestamp: Option<&str>) {
        self.start(timestamp);
        self.open.saw(timestamp);
    }

    /// A record of the open turn was read: the turn has started, and its
    /// first timestamp is kept.
    fn start(&mut self, timestamp: Option<&str>) {
        self.started = true;
        if self.open.timestamp.is_none() {
            self.open.timestamp = timestamp.map(str::to_string);
        }
    }

    /// The agent used a tool.
    pub(super) fn tool(&mut self, call: ToolCall) {
        self.started = true;
        self.open.any_assistant = true;
        self.open.tool_uses.push(call);
    }

    /// The agent said `text`, at `pos`; blank text is passed over.
    pub(super) fn said(&mut self, text: &str, pos: LinePos) {
        self.started = true;
        self.open.any_assistant = true;
        if !is_blank(text) {
            self.open.final_text = Some(TextAt {
                text: text.to_string(),
                offset: pos.offset,
                line: pos.line,
                at: None,
            });
        }
    }

    /// A Stop hook blocked, and its reason came back as a message.
    pub(super) fn stop_feedback(&mut self) {
        self.started = true;
        self.open.stop_blocks.feedback += 1;
    }

    /// The user interrupted the agent.
    pub(super) fn interrupted(&mut self) {
        self.started = true;
        self.open.kind = TurnKind::Interrupted;
    }

    /// The open turn, finished; `followed` when another prompt starts
    /// after it.
    fn take(&mut self, followed: bool) -> Option<Turn> {
        let mut turn = std::mem::take(&mut self.open);
        if !self.started {
            return None;
        }
        self.started = false;
        let block = self.last_block_at.take();
        let tool = self.last_tool_at.take();
        let since_tool = std::mem::take(&mut self.blocks_since_tool);
        let answered = turn.final_text.as_ref().map(|f| f.offset).max(tool);
        if turn.overridden.is_none()
            && turn.kind != TurnKind::Interrupted
            && block.is_some_and(|b| answered.is_none_or(|a| a < b))
        {
            // The client ended the turn on a block: its notice, which
            // gives the count, is not written by every version.
            turn.overridden = Some(since_tool);
        }
        if turn.kind == TurnKind::Prompt && !turn.any_assistant {
            if turn.prompt.as_ref().is_some_and(|p| is_command_prompt(&p.text))
            {
                turn.kind = TurnKind::LocalCommand;
            } else if followed {
                // No reply, and the next prompt came: the last turn of a
                // file may still be waiting for its reply.
                turn.kind = TurnKind::Rewound;
            }
        }
        Some(turn)
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
                .made_at(rec.timestamp());
                if let (Some(_), Some(id)) = (call.change(), call.id()) {
                    self.unanswered_changes.push(id.to_string());
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
                .made_at(rec.timestamp());
                if call.change().is_some() {
                    self.started = true;
                    self.open.subagent_changes.push(call);
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

/// A session or agent id that is safe in a file name.
///
/// It must match `^[A-Za-z0-9._-]{1,128}$` and not be only dots, which
/// guards against path traversal (`../../x`) in the file names built from
/// it: the hook's state files, and a subagent's transcript
/// (`agent-<id>.jsonl`).
pub fn safe_id(id: &str) -> Option<&str> {
    let ok = (1..=128).contains(&id.len())
        && id.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')
        })
        && !id.bytes().all(|b| b == b'.');
    ok.then_some(id)
}

/// What a line met walking back from a transcript's end means.
pub(super) enum Back {
    /// Walk on.
    Pass,
    /// It starts a turn: the current one.
    Start,
    /// It rewrites the history before it (a Gemini `$rewindTo`): walking
    /// further back would be wrong.
    Rewritten,
}

#[cfg(test)]
mod turn_builder_example {
    #[test]
    fn turn_builder() {
        use crate::read::record::RecordParser;
        use crate::read::turn::{Chain, LinePos, TurnBuilder};

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
        assert!(turns[0].changed());
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
mod safe_id_example {
    #[test]
    fn safe_id() {
        use crate::read::turn::safe_id;

        assert_eq!(safe_id("3f2a-b.c_d"), Some("3f2a-b.c_d"));
        assert_eq!(safe_id("../../x"), None);
        assert_eq!(safe_id(".."), None);
        assert_eq!(safe_id(""), None);
    }
}

#[cfg(test)]
mod tool_call_tests {
    use super::*;

    #[test]
    fn ids_and_keys() {
        let input = Some("rm a");
        let given = ToolCall::new(Some("t1"), "Bash", input, 7, 0);
        assert_eq!((given.id(), given.key()), (Some("t1"), "t1"));
        let empty = ToolCall::new(Some(""), "Bash", input, 7, 1);
        assert_eq!((empty.id(), empty.key()), (Some(""), "noid:7:1"));
        let absent = ToolCall::new(None, "Bash", input, 8, 0);
        assert_eq!((absent.id(), absent.key()), (None, "noid:8:0"));
        assert_ne!(empty, absent);
        assert_eq!(given.command(), Some("rm a"));
        assert!(given.runs_command() && given.change().is_some());
    }

    #[test]
    fn names_known_or_not() {
        let input = None;
        for name in ["Write", "Read", "mcp__db__query", "", "bash"] {
            let call = ToolCall::new(None, name, input, 0, 0);
            assert_eq!(call.name(), name);
        }
        let call = ToolCall::new(None, "Write", input, 0, 0);
        assert!(matches!(call.name, Cow::Borrowed(_)));
        let call = ToolCall::new(None, "mcp__db__query", input, 0, 0);
        assert!(matches!(call.name, Cow::Owned(_)));
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
mod notification_tests {
    use super::Chain;
    use crate::read::Transcript;

    /// The task a `<task-notification>` turn reports; none for a prompt
    /// that only quotes one, or a notification without a whole task id.
    #[test]
    fn a_notification_names_its_task() {
        let turn = |prompt: &str| {
            let line = serde_json::json!({"type": "user", "message": {"role": "user", "content": prompt}});
            let t = Transcript::from_bytes(format!("{line}\n").into_bytes());
            t.turns(Chain::Main).pop().unwrap()
        };
        let cases = [
            ("<task-notification>\n<task-id> a1 </task-id>\n</task-notification>", Some("a1")),
            ("<task-notification><status>done</status></task-notification>", None),
            ("<task-notification><task-id>a1", None),
            ("See <task-notification><task-id>a1</task-id>", None),
        ];
        for (prompt, want) in cases {
            assert_eq!(turn(prompt).notified_agent(), want, "{prompt}");
        }
    }
}

#[cfg(test)]
mod rewound_tests {
    use super::{Chain, TurnKind};
    use crate::read::Transcript;

    /// A prompt with no reply before the next prompt was taken back: no
    /// Stop ran for it. The last prompt of a file may still be waiting for
    /// its reply, and stays a prompt.
    #[test]
    fn a_prompt_with_no_reply_before_the_next_was_rewound() {
        let prompt = |text: &str| serde_json::json!({"type": "user", "parentUuid": null, "message": {"role": "user", "content": text}});
        let said = serde_json::json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}});
        let lines = [prompt("a"), prompt("b"), said, prompt("c")];
        let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let t = Transcript::from_bytes(body.into_bytes());
        let kinds: Vec<TurnKind> =
            t.turns(Chain::Main).iter().map(|t| t.kind()).collect();
        assert_eq!(
            kinds,
            [TurnKind::Rewound, TurnKind::Prompt, TurnKind::Prompt]
        );
        assert!(!TurnKind::Rewound.ends_in_stop());
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
