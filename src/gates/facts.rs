//! What the gates judge: a turn's final text (its last 64 KiB), its prompt,
//! its tool uses and whether it changed files.
//!
//! Every gate reads a turn through [`Facts`], and every way of building
//! one cuts the text to the same window, so the hook, `check` and the scan
//! judge the same words.

use crate::changes::{last_change, TurnChanges};
use crate::read::{ToolCall, Turn, TurnKind};

use super::sentence;

/// How much of a final text the gates judge: its last 64 KiB (less up to
/// three bytes, to start on a character). Every constructor of [`Facts`]
/// cuts the text to this window, so the hook, `check` and the scan judge
/// the same text.
///
/// A final text is bounded only by the transcript's line: a 40 MB one
/// took 1.7 s to judge, long enough for the hook to run into its timer.
/// An audit, a claim or a hand-back ends the message, so the tail is what
/// matters; 64 KiB is some 10,000 words, over ten times the longest
/// final text of the labelled corpus, so no real message is cut.
pub const JUDGED_TAIL_BYTES: usize = 64 << 10;

/// The part of `text` the gates judge: all of it, or, when it is longer
/// than [`JUDGED_TAIL_BYTES`], the last of them from a character
/// boundary, trailing white space left out (a tail of padding would
/// otherwise judge as an empty text).
///
/// # Example
///
/// ```
/// use stopgate::judge::{JUDGED_TAIL_BYTES, judged_window};
///
/// assert_eq!(judged_window("Done."), "Done.");
/// let long = format!("{}Self-audit: ok.", "é".repeat(JUDGED_TAIL_BYTES));
/// let w = judged_window(&long);
/// assert!(w.len() <= JUDGED_TAIL_BYTES && w.ends_with("Self-audit: ok."));
/// ```
pub fn judged_window(text: &str) -> &str {
    if text.len() <= JUDGED_TAIL_BYTES {
        return text;
    }
    let text = text.trim_end();
    let from = text.len().saturating_sub(JUDGED_TAIL_BYTES);
    &text[sentence::ceil_boundary(text, from)..]
}

/// What the gates judge: one turn, as the hook or a scan sees it.
///
/// [`Facts::of_turn`] builds it from a [`Turn`], and [`Facts::new`] from a
/// final text alone; the `with_*` methods then replace what the caller
/// knows better, such as the client's final message or the session's
/// pending changes.
///
/// # Example
///
/// ```
/// use stopgate::config::Config;
/// use stopgate::judge::{Facts, Gates, Rule, SessionView};
///
/// let gates = Gates::new(&Config::default()).unwrap();
/// let facts = Facts::new("Done.").with_changed(true);
/// let verdict = gates.evaluate(&facts, &SessionView::default());
/// assert_eq!(verdict.block().map(|b| b.rule()), Some(Rule::NoMarker));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Facts<'a> {
    pub(crate) kind: TurnKind,
    pub(crate) final_text: &'a str,
    pub(crate) prompt: Option<&'a str>,
    pub(crate) tool_uses: &'a [ToolCall],
    /// The index in `tool_uses` of the last that changed files, or
    /// launched a subagent that did ([`TurnChanges::last_own`]).
    pub(crate) last_change: Option<usize>,
    pub(crate) changed: bool,
    pub(crate) stop_hook_active: bool,
}

impl<'a> Facts<'a> {
    /// The facts of a turn known only by its final text (its
    /// [`judged_window`]): started by a prompt whose text is unknown, no
    /// tool uses, no change.
    pub fn new(final_text: &'a str) -> Facts<'a> {
        Facts {
            kind: TurnKind::Prompt,
            final_text: judged_window(final_text),
            prompt: None,
            tool_uses: &[],
            last_change: None,
            changed: false,
            stop_hook_active: false,
        }
    }

    /// The facts of a turn as its transcript records them: its final text,
    /// prompt, tool uses, and whether it (or a subagent it launched)
    /// changed files.
    pub fn of_turn(turn: &'a Turn) -> Facts<'a> {
        Facts::of_changes(turn, &TurnChanges::of(turn))
    }

    /// [`Facts::of_turn`], with the turn's changes already judged.
    pub fn of_changes(turn: &'a Turn, changes: &TurnChanges<'_>) -> Facts<'a> {
        Facts {
            kind: turn.kind(),
            final_text: judged_window(turn.final_text().unwrap_or("")),
            prompt: turn.prompt().map(|p| p.text()),
            tool_uses: turn.tool_uses(),
            last_change: changes.last_own(),
            changed: changes.any(),
            stop_hook_active: false,
        }
    }

    /// These facts, started by `kind`.
    pub fn with_kind(self, kind: TurnKind) -> Facts<'a> {
        Facts { kind, ..self }
    }

    /// These facts, with this final assistant text (empty when unknown),
    /// cut to its [`judged_window`].
    pub fn with_final_text(self, final_text: &'a str) -> Facts<'a> {
        Facts { final_text: judged_window(final_text), ..self }
    }

    /// These facts, with the turn's prompt.
    pub fn with_prompt(self, prompt: Option<&'a str>) -> Facts<'a> {
        Facts { prompt, ..self }
    }

    /// These facts, with the main chain's tool uses this turn, in order.
    /// Where the last change among them is, is read from them alone: a
    /// launch of a subagent that changed files is not one
    /// ([`Facts::of_turn`] knows it from the turn).
    pub fn with_tool_uses(self, tool_uses: &'a [ToolCall]) -> Facts<'a> {
        Facts { tool_uses, last_change: last_change(tool_uses), ..self }
    }

    /// These facts, with whether files changed this turn.
    pub fn with_changed(self, changed: bool) -> Facts<'a> {
        Facts { changed, ..self }
    }

    /// These facts, with whether the client is already continuing because
    /// a Stop hook blocked this turn (`stop_hook_active`).
    pub fn with_stop_hook_active(self, active: bool) -> Facts<'a> {
        Facts { stop_hook_active: active, ..self }
    }

    /// What started the turn.
    pub fn kind(&self) -> TurnKind {
        self.kind
    }

    /// The final assistant text as judged (its [`judged_window`]); empty
    /// when unknown.
    pub fn final_text(&self) -> &'a str {
        self.final_text
    }

    /// The turn's prompt, when known.
    pub fn prompt(&self) -> Option<&'a str> {
        self.prompt
    }

    /// The main chain's tool uses this turn, in order.
    pub fn tool_uses(&self) -> &'a [ToolCall] {
        self.tool_uses
    }

    /// Whether files changed this turn.
    pub fn changed(&self) -> bool {
        self.changed
    }

    /// Whether the client is already continuing because of a Stop hook.
    pub fn stop_hook_active(&self) -> bool {
        self.stop_hook_active
    }
}
