//! A turn's file changes, judged once.
//!
//! The reader keeps every tool use of a turn that may have changed files
//! ([`ToolCall::may_change`]): its own, its subagents' and those an
//! interrupted turn carried to it. Which of them did is a question for
//! the rule table, and the hook, `check`, the scan and the hollow-audit
//! gate all ask it through [`TurnChanges`], built once per turn, so that a
//! shell command is lexed once and judged the same way everywhere.

use crate::read::{ToolCall, Turn};

use super::rules::change_of;

/// The tool uses that changed files for one turn's Stop to answer for.
///
/// # Example
///
/// ```
/// use stopgate::judge::TurnChanges;
/// use stopgate::read::{Chain, Transcript};
///
/// let jsonl = concat!(
///     r#"{"type":"user","message":{"role":"user","content":"tidy up"}}"#, "\n",
///     r#"{"type":"assistant","message":{"role":"assistant","content":["#,
///     r#"{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}},"#,
///     r#"{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"rm junk"}}]}}"#, "\n",
/// );
/// let turn = Transcript::from_bytes(jsonl.into()).current_turn(Chain::Main);
/// let changes = TurnChanges::of(&turn);
/// assert!(changes.any());
/// assert_eq!(changes.keys().collect::<Vec<_>>(), ["t2"]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct TurnChanges<'t> {
    changes: Vec<&'t ToolCall>,
    /// The index of the last of the turn's own tool uses that changed
    /// files, or launched a subagent that did.
    last_own: Option<usize>,
}

impl<'t> TurnChanges<'t> {
    /// The changes of `turn`: its own file-changing tool uses (not the
    /// launches of subagents, whose changes are counted themselves), its
    /// subagents' and those carried to it, in that order, each of which
    /// ran to the end ([`Turn::ran_to_end`]).
    pub fn of(turn: &'t Turn) -> TurnChanges<'t> {
        let own: Vec<bool> =
            turn.tool_uses().iter().map(changes_files).collect();
        let subagents: Vec<&ToolCall> = turn
            .subagent_tool_uses()
            .iter()
            .filter(|c| changes_files(c))
            .collect();
        let launched = |u: &ToolCall| {
            u.id().is_some()
                && subagents.iter().any(|c| c.launched_by() == u.id())
        };
        let last_own = turn
            .tool_uses()
            .iter()
            .zip(&own)
            .rposition(|(u, &changed)| changed || launched(u));
        let changes = turn
            .tool_uses()
            .iter()
            .zip(&own)
            .filter(|&(_, &changed)| changed)
            .map(|(u, _)| u)
            .chain(subagents.iter().copied())
            .chain(
                turn.carried_tool_uses().iter().filter(|c| changes_files(c)),
            )
            .filter(|c| turn.ran_to_end(c))
            .collect();
        TurnChanges { changes, last_own }
    }

    /// Whether files changed: whether there is any change.
    pub fn any(&self) -> bool {
        !self.changes.is_empty()
    }

    /// The changes, in order: the turn's own, its subagents', the carried.
    pub fn iter(&self) -> impl Iterator<Item = &'t ToolCall> + '_ {
        self.changes.iter().copied()
    }

    /// The stable keys ([`ToolCall::key`]) of the changes: what the hook
    /// records as audited.
    pub fn keys(&self) -> impl Iterator<Item = &'t str> + '_ {
        self.iter().map(ToolCall::key)
    }

    /// The index in [`Turn::tool_uses`] of the last tool use that changed
    /// files or launched a subagent that did: a check must run after it to
    /// back an audit.
    pub fn last_own(&self) -> Option<usize> {
        self.last_own
    }

    /// The numbers of the turns the carried changes were made in, in
    /// order, each once.
    pub fn carried_from(&self) -> Vec<usize> {
        let mut from: Vec<usize> = vec![];
        for t in self.iter().filter_map(ToolCall::carried_from) {
            if !from.contains(&t) {
                from.push(t);
            }
        }
        from
    }
}

/// Whether the tool use changed files by itself.
fn changes_files(call: &ToolCall) -> bool {
    change_of(call).is_some()
}

/// The index of the last of `uses` that changed files by itself: for
/// tool uses given without their turn.
pub(crate) fn last_change(uses: &[ToolCall]) -> Option<usize> {
    uses.iter().rposition(changes_files)
}
