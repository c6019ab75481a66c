//! The turn: one model of what the agent did between two prompts.
//!
//! The gates judge what the agent did *since the human last spoke*: the
//! prompt, the tools it used, and what it said at the end. The hook and
//! `stopgate check` need the last turn of a transcript; the archive scan
//! needs every turn. If each built "the turn" its own way, the copies would
//! drift, and the same turn would get different verdicts. So this file
//! holds the model alone (data, no parsing), and there is one accumulator,
//! `TurnBuilder` (`builder.rs`), fed in file order by one file per agent
//! format (`claude.rs`, `codex.rs`, `gemini.rs`):
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

use super::tool_input::{ToolInput, EDIT_TOOLS, SHELL_TOOLS};

/// Which lines a turn follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chain {
    /// The main agent's: sidechain lines are a subagent's work, which
    /// counts towards the turn's changes but nothing else.
    Main,
    /// A subagent file's own chain, where every line is a sidechain line.
    Subagent,
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
    pub(super) index: usize,
    pub(super) kind: TurnKind,
    pub(super) prompt: Option<Prompt>,
    pub(super) timestamp: Option<String>,
    pub(super) ended: Option<String>,
    pub(super) tool_uses: Vec<ToolCall>,
    pub(super) subagent_tool_uses: Vec<ToolCall>,
    pub(super) carried: Vec<ToolCall>,
    /// The ids of the turn's tool uses whose result is an error.
    pub(super) failed: Vec<String>,
    pub(super) launches: Vec<Launch>,
    pub(super) final_text: Option<TextAt>,
    pub(super) stop_blocks: StopBlocks,
    pub(super) hooks_ran: Vec<String>,
    /// How many times stopgate's hook told the user it was not guarding.
    pub(super) unguarded: usize,
    pub(super) hook_faults: Vec<HookFault>,
    pub(super) overridden: Option<usize>,
    pub(super) any_assistant: bool,
    pub(super) skipped_corrupt: usize,
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

    /// The tool uses of the subagents the turn launched that may have
    /// changed files ([`ToolCall::may_change`]): sidechain lines in the
    /// main file, and resolved subagent files.
    pub fn subagent_tool_uses(&self) -> &[ToolCall] {
        &self.subagent_tool_uses
    }

    /// The tool uses of earlier turns that ended in no Stop (the user
    /// interrupted them) that may have changed files, which this turn's
    /// Stop is the first to see ([`ToolCall::carried_from`] says which
    /// turn made each).
    ///
    /// No Stop fires when the user interrupts Claude Code, so the flag
    /// PostToolUse raised stays up, and the next Stop judges the change,
    /// whatever its own turn did. Only tool uses that ran to the end are
    /// carried (not one the user declined, or that failed), and only in
    /// Claude Code transcripts read whole ([`Transcript::turns_with_subagents`](crate::read::Transcript::turns_with_subagents)
    /// and the archive scan); a turn read alone carries nothing.
    pub fn carried_tool_uses(&self) -> &[ToolCall] {
        &self.carried
    }

    /// The tool uses that may have changed files for this turn's Stop to
    /// answer for ([`ToolCall::may_change`]): its own, its subagents' and
    /// those carried to it, in that order; not one whose result is an
    /// error (`is_error`: the user declined or interrupted it, or it
    /// failed). Claude Code runs no PostToolUse hook after such a tool
    /// use, so the hook's flag never sees it, and it changed nothing the
    /// agent must answer for. Which of them did change files is the
    /// judge's to say.
    pub fn possible_changes(&self) -> impl Iterator<Item = &ToolCall> {
        self.tool_uses
            .iter()
            .filter(|u| u.may_change())
            .chain(self.subagent_tool_uses.iter())
            .chain(self.carried.iter())
            .filter(|c| self.ran_to_end(c))
    }

    /// Whether `call` ran to the end: no result of the turn with its id is
    /// an error.
    pub fn ran_to_end(&self, call: &ToolCall) -> bool {
        call.id().is_none_or(|id| !self.failed.iter().any(|f| f == id))
    }

    /// Count `calls`, made in earlier turns that ended in no Stop the
    /// agent chose, as this turn's too ([`Turn::carried_tool_uses`]).
    ///
    /// No Stop fires when the user interrupts the agent, so a change made
    /// in an interrupted turn is still unaudited when the next turn
    /// begins; the hook sees it at the first Stop after it (PostToolUse's
    /// flag stays raised), whatever that turn itself does. The interrupted
    /// turn keeps its tool uses: it made them, though no finding applies
    /// to it ([`TurnKind::ends_in_stop`]).
    pub(crate) fn carry(&mut self, calls: impl IntoIterator<Item = ToolCall>) {
        self.carried.extend(calls);
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
    pub(super) fn saw(&mut self, timestamp: Option<&str>) {
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

    /// Count `changes`, subagents' tool uses that may change files, as
    /// this turn's, each marked with the tool use that launched its
    /// subagent ([`ToolCall::launched_by`]).
    pub(crate) fn add_held(
        &mut self,
        changes: impl IntoIterator<Item = HeldChange>,
    ) {
        self.subagent_tool_uses.extend(changes.into_iter().map(
            |HeldChange { launch, call }| {
                call.by_subagent_of(launch.as_deref())
            },
        ));
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
            if let Some(calls) = read(agent) {
                self.subagent_tool_uses
                    .extend(calls.into_iter().map(|c| c.by_subagent_of(None)));
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
    pub(super) feedback: usize,
    pub(super) other_traces: usize,
    pub(super) commands: Vec<String>,
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

    pub(super) fn name(&mut self, command: &str) {
        if !command.is_empty() && !self.commands.iter().any(|c| c == command) {
            self.commands.push(command.to_string());
        }
    }
}

/// A hook that failed, as the client recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookFault {
    pub(super) event: String,
    pub(super) command: Option<String>,
    pub(super) timed_out: bool,
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
}

/// A subagent launch: the Task or Agent tool use and the `agentId` its
/// result names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Launch {
    pub(super) tool_use_id: Option<String>,
    pub(super) agent_id: String,
}

/// A text and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct TextAt {
    pub(super) text: String,
    pub(super) offset: u64,
    pub(super) line: Option<u64>,
    /// Its line's timestamp.
    pub(super) at: Option<String>,
}

/// The user prompt that opens a turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    pub(super) text: String,
    pub(super) offset: u64,
    pub(super) line: Option<u64>,
    pub(super) timestamp: Option<String>,
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
    /// For a tool use that may change files, its line's timestamp.
    at: Option<Box<str>>,
    /// For a tool use that may change files, the file its input names.
    path: Option<Box<str>>,
    /// Its line's number in its file, when the reader counted lines.
    line: Option<u64>,
    origin: Origin,
}

/// Where a tool use that a turn counts was made, when not in the turn's
/// own chain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum Origin {
    /// In the turn's own chain.
    #[default]
    Own,
    /// By a subagent, launched by the tool use of this id when known.
    Subagent(Option<Box<str>>),
    /// In the earlier turn of this number, which ended in no Stop.
    Carried(usize),
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
    EDIT_TOOLS,
    SHELL_TOOLS,
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
    /// A tool use. `command` is the shell command of a tool that runs one
    /// (`Bash`; it is ignored for other tools). `offset` (its line's) and
    /// `block` (its index in the line's content) place it in the file,
    /// which keys a tool use without an id.
    ///
    /// # Example
    ///
    /// ```
    /// use stopgate::read::ToolCall;
    ///
    /// let edit = ToolCall::new(Some("t1"), "Edit", None, 0, 0);
    /// let grep = ToolCall::new(Some("t2"), "Bash", Some("grep -i todo f"), 0, 1);
    /// let read = ToolCall::new(Some("t3"), "Read", None, 0, 2);
    /// assert!(edit.edits() && edit.may_change());
    /// assert!(grep.runs_command() && grep.may_change());
    /// assert!(!read.may_change());
    /// ```
    pub fn new(
        id: Option<&str>,
        name: &str,
        command: Option<&str>,
        offset: u64,
        block: usize,
    ) -> ToolCall {
        let input = ToolInput::of_command(command);
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
        let input = ToolInput::of_value(input);
        ToolCall::from_input(id, name, &input, offset, block)
    }

    /// [`ToolCall::new`], from the fields of the input the reader keeps.
    pub(crate) fn from_input(
        id: Option<&str>,
        name: &str,
        input: &ToolInput<'_>,
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
        let command = input.shell_command(name).map(|c| c.into_owned());
        let edits = EDIT_TOOLS.contains(&name);
        let may_change = edits || command.is_some();
        ToolCall {
            key,
            id,
            name: tool_name(name),
            command,
            path: input.file_path.filter(|_| may_change).map(Box::from),
            at: None,
            line: None,
            origin: Origin::Own,
        }
    }

    /// This tool use, made on a line of `timestamp`: kept if it may change
    /// files ([`ToolCall::at`]).
    pub(crate) fn made_at(mut self, timestamp: Option<&str>) -> ToolCall {
        if self.may_change() {
            self.at = timestamp.map(Box::from);
        }
        self
    }

    /// This tool use, on line `line` of its file.
    pub(crate) fn on_line(self, line: Option<u64>) -> ToolCall {
        ToolCall { line, ..self }
    }

    /// For a tool use that may change files, the file its input names
    /// (`file_path`; the first file of an `apply_patch`), when it names
    /// one.
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// The number of the tool use's line in its file, when the reader
    /// counted lines from the file's start (a scan does; the hook, which
    /// reads from the end, does not).
    pub fn line(&self) -> Option<u64> {
        self.line
    }

    /// For a tool use that may change files, the timestamp of its line, when
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

    /// Whether the tool is one that changes files whatever its input
    /// (`Write`, `Edit`, `MultiEdit`, `NotebookEdit`, `apply_patch`,
    /// `write_file`, `replace`).
    pub fn edits(&self) -> bool {
        EDIT_TOOLS.contains(&&*self.name)
    }

    /// Whether the tool use could have verified something: it ran a
    /// command (`Bash`, `run_shell_command`, `exec_command`, `shell`,
    /// `shell_command`, `local_shell`).
    pub fn runs_command(&self) -> bool {
        SHELL_TOOLS.contains(&&*self.name)
    }

    /// Whether the tool use may have changed files: an editing tool, or a
    /// shell command (which the judge reads to tell). The reader keeps
    /// these wherever a turn's changes may come from.
    pub fn may_change(&self) -> bool {
        self.edits() || self.command.is_some()
    }

    /// Whether a subagent made the tool use (in its own file, or on the
    /// sidechain lines of older clients), for the turn that launched it.
    /// A subagent's tool use carried to a later turn is that turn's
    /// carried one ([`ToolCall::carried_from`]), no longer the
    /// subagent's.
    pub fn by_subagent(&self) -> bool {
        matches!(self.origin, Origin::Subagent(_))
    }

    /// For a subagent's tool use, the id of the Task or Agent tool use that
    /// launched the subagent, when the reader knows it.
    pub fn launched_by(&self) -> Option<&str> {
        match &self.origin {
            Origin::Subagent(launch) => launch.as_deref(),
            _ => None,
        }
    }

    /// For a tool use carried to a later turn
    /// ([`Turn::carried_tool_uses`]), the number of the turn it was made
    /// in.
    pub fn carried_from(&self) -> Option<usize> {
        match self.origin {
            Origin::Carried(turn) => Some(turn),
            _ => None,
        }
    }

    /// This tool use, made by a subagent that the tool use `launch`
    /// launched.
    pub(crate) fn by_subagent_of(self, launch: Option<&str>) -> ToolCall {
        ToolCall { origin: Origin::Subagent(launch.map(Box::from)), ..self }
    }

    /// This tool use, carried from turn `turn`.
    pub(crate) fn carried_from_turn(self, turn: usize) -> ToolCall {
        ToolCall { origin: Origin::Carried(turn), ..self }
    }
}

/// The tools whose result may name a subagent (`toolUseResult.agentId`).
pub(super) const LAUNCH_TOOLS: &[&str] = &["Task", "Agent"];

/// Where a line is in its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinePos {
    /// The line's byte offset in the file.
    pub offset: u64,
    /// Its 1-based line number, when the reader counts from the start.
    pub line: Option<u64>,
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
        assert!(given.runs_command() && given.may_change());
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
