//! The judge layer: the gates, and one judge for the hook, `stopgate check`
//! and `stopgate scan`.
//!
//! The gates ([`Gates`]) are pure judgments of a turn's [`Facts`]: the
//! audit gate, the hollow-audit check, decision ownership and challenge
//! reverify, each giving a [`Verdict`]. They read words (keyword sets, the
//! tables of each language, a small learned model for plain-language
//! audits) and the turn's tool uses, and nothing else: no files, no state.
//!
//! A verdict depends on more than the gates' patterns: on whether the
//! session is attended (`skip_entrypoints`), on how a change is known
//! (`transcript_changes`), and on whose turn a subagent's work is
//! (`gate_subagents`). When each caller read those switches itself, the
//! three answered differently on the same turn: `check` ignored the change
//! flag that the hook saw, and folded subagent work into the main turn that
//! the hook, with `gate_subagents`, leaves to the subagent's own Stop. So
//! every switch that changes a verdict is read here, once, when the
//! [`Judge`] is built from a [`Config`], and the callers only ask.
//!
//! The hook knows things a transcript does not (the change flag, the
//! session's block count and nags), and asks [`Judge::evaluate`] with them.
//! `check` and the scan read a transcript after the fact and ask
//! [`Judge::judge_turn`], which infers the flag as PostToolUse would have
//! raised it and judges a fresh session: its verdict is the hook's at that
//! Stop, and its findings every block the gates would give.

use std::path::Path;

use crate::config::{Config, Gate};
use crate::error::Error;
use crate::read::{is_subagent_file, Chain, Transcript, Turn};

pub use crate::changes::{
    change_of, tool_changes_files, ChangeReason, TurnChanges,
};
pub use crate::gates::{
    judged_window, text_hash, AuditStatus, Block, Facts, Gates, Nag,
    PlainAudit, Rule, SessionView, Verdict, JUDGED_TAIL_BYTES,
};

/// The gates and every switch of the configuration that changes a verdict,
/// built once from a [`Config`].
///
/// # Example
///
/// ```
/// use stopgate::config::Config;
/// use stopgate::judge::Judge;
///
/// let judge = Judge::new(&Config::default()).unwrap();
/// assert!(judge.skips(Some("sdk-cli")));
/// assert!(!judge.skips(Some("cli")));
/// assert!(judge.folds_subagents());
/// ```
#[derive(Clone, Debug)]
pub struct Judge {
    gates: Gates,
    skip_entrypoints: Vec<String>,
    transcript_changes: bool,
    gate_subagents: bool,
}

impl Judge {
    /// The judge of `config`, built for one Stop: its keyword sets are
    /// cheap to build.
    ///
    /// # Errors
    ///
    /// When a configured keyword is empty.
    pub fn new(config: &Config) -> Result<Judge, Error> {
        Judge::with_gates(config, Gates::new(config)?)
    }

    /// The judge of `config`, built for judging many turns, as an archive
    /// scan does ([`Gates::new_for_bulk`]).
    ///
    /// # Errors
    ///
    /// When a configured keyword is empty.
    pub fn for_bulk(config: &Config) -> Result<Judge, Error> {
        Judge::with_gates(config, Gates::new_for_bulk(config)?)
    }

    fn with_gates(config: &Config, gates: Gates) -> Result<Judge, Error> {
        Ok(Judge {
            gates,
            skip_entrypoints: config.skip_entrypoints.clone(),
            transcript_changes: config.transcript_changes,
            gate_subagents: config.gate_subagents,
        })
    }

    /// The gates themselves.
    pub fn gates(&self) -> &Gates {
        &self.gates
    }

    /// Whether a session with this entrypoint is unattended: nobody reads
    /// a block, so every gate allows it (`skip_entrypoints`).
    pub fn skips(&self, entrypoint: Option<&str>) -> bool {
        entrypoint
            .is_some_and(|e| self.skip_entrypoints.iter().any(|s| s == e))
    }

    /// Whether the main agent's turn answers for the work of the subagents
    /// it launched. With `gate_subagents` it does not: each subagent is
    /// judged at its own SubagentStop, and PostToolUse inside it raises
    /// its own flag, not the session's.
    pub fn folds_subagents(&self) -> bool {
        !self.gate_subagents
    }

    /// Whether SubagentStop is judged (`gate_subagents`).
    pub fn gates_subagents(&self) -> bool {
        self.gate_subagents
    }

    /// Every turn of `transcript` (read from `path`), as the judge reads a
    /// session after the fact: the work of the subagents each turn launched
    /// folded in ([`Transcript::turns_with_subagents`]) unless they are
    /// judged at their own Stop, and an interrupted turn's changes carried
    /// to the next Stop. With `gate_subagents`, a subagent's own file is
    /// read as the subagent's turns.
    pub fn turns(&self, transcript: &Transcript, path: &Path) -> Vec<Turn> {
        if is_subagent_file(path) && self.gate_subagents {
            transcript.turns_carried(Chain::Subagent)
        } else if self.folds_subagents() {
            transcript.turns_with_subagents(Chain::Main, path)
        } else {
            transcript.turns_carried(Chain::Main)
        }
    }

    /// The turn a Stop judges, read from the tail of the transcript at
    /// `path` ([`Transcript::read_current_turn`]) on `chain`; for the main
    /// agent whose subagents are not judged on their own, with the work of
    /// the subagents it launched folded in, and of the background
    /// subagents launched before it that its `<task-notification>` reports
    /// or that `running` names. An unreadable transcript gives an empty
    /// turn: the client's final message and the flag are judged.
    pub fn stop_turn<'a>(
        &self,
        path: &Path,
        chain: Chain,
        running: impl IntoIterator<Item = &'a str>,
    ) -> Turn {
        let mut turn =
            Transcript::read_current_turn(path, chain).unwrap_or_default();
        if chain == Chain::Main && self.folds_subagents() {
            turn.resolve_subagents(path);
            // What they changed since the last Stop consumed it is this
            // Stop's to see, flag or none.
            let notified = turn.notified_agent().map(str::to_string);
            let others: Vec<String> = notified
                .into_iter()
                .chain(running.into_iter().map(str::to_string))
                .collect();
            turn.resolve_background(path, others.iter().map(String::as_str));
        }
        turn
    }

    /// Whether files changed, as the hook knows it at a Stop: a pending
    /// change (the flag PostToolUse raised), or, unless
    /// `transcript_changes` is off, a file-changing tool use of the turn
    /// that no earlier Stop consumed.
    pub fn changed_at_stop(&self, pending: bool, unseen: bool) -> bool {
        pending || (self.transcript_changes && unseen)
    }

    /// The hook's verdict on one Stop: the enabled gates in order, under
    /// the session's caps and nags ([`Gates::evaluate`]).
    pub fn evaluate(
        &self,
        facts: &Facts<'_>,
        session: &SessionView<'_>,
    ) -> Verdict {
        self.gates.evaluate(facts, session)
    }

    /// The judgement of a turn read from its transcript, as the hook would
    /// have given it at the turn's Stop in a fresh session.
    ///
    /// The change flag is inferred as PostToolUse would have raised it:
    /// from the turn's completed file-changing tool uses, those of the
    /// subagents folded into it, and those carried to it from a turn the
    /// user interrupted ([`TurnChanges`]). A turn that ended in no Stop
    /// and a turn of an unattended session are allowed, with no findings.
    pub fn judge_turn(&self, turn: &Turn, unattended: bool) -> TurnJudgement {
        self.judge_changes(turn, &TurnChanges::of(turn), unattended)
    }

    /// [`Judge::judge_turn`], with the turn's changes already judged
    /// ([`TurnChanges::of`]), for a caller that shows them too.
    pub fn judge_changes(
        &self,
        turn: &Turn,
        changes: &TurnChanges<'_>,
        unattended: bool,
    ) -> TurnJudgement {
        let facts = Facts::of_changes(turn, changes);
        let skipped = if unattended {
            Some(Skipped::Unattended)
        } else if !turn.kind().ends_in_stop() {
            Some(Skipped::NoStop)
        } else {
            None
        };
        let mut status = None;
        let findings = match skipped {
            Some(_) => vec![],
            None => self.findings(&facts, &mut status),
        };
        let audit =
            status.unwrap_or_else(|| self.gates.audit_status_of(&facts));
        TurnJudgement { changed: facts.changed(), skipped, findings, audit }
    }

    /// Every block the gates would give the facts in a fresh session, in
    /// the configured order: the gates whose cap is 0 never block, so they
    /// find nothing either.
    fn findings(
        &self,
        facts: &Facts<'_>,
        status: &mut Option<AuditStatus>,
    ) -> Vec<Block> {
        let mut blocks = self.gates.findings_sharing(facts, status);
        blocks.retain(|b| self.gates.may_block(b.gate()));
        blocks
    }

    /// The keywords and patterns that fire anywhere in the facts, labelled
    /// by category ([`Gates::matched`]).
    pub fn matched(&self, facts: &Facts<'_>) -> Vec<String> {
        self.gates.matched(facts)
    }
}

/// Why a turn read from a transcript was not judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skipped {
    /// The session is unattended (`skip_entrypoints`).
    Unattended,
    /// The turn ended in no Stop the agent chose: the user interrupted
    /// it, or it was a local command.
    NoStop,
}

/// What the [`Judge`] says of one turn read from a transcript.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnJudgement {
    changed: bool,
    skipped: Option<Skipped>,
    findings: Vec<Block>,
    audit: AuditStatus,
}

impl TurnJudgement {
    /// The hook's verdict at the turn's Stop, in a fresh session: the first
    /// finding, or allow.
    pub fn verdict(&self) -> Verdict {
        match self.findings.first() {
            Some(b) => Verdict::Block(b.clone()),
            None => Verdict::Allow,
        }
    }

    /// Every block the enabled gates give the turn, ignoring the cap and
    /// nag-once: what `stopgate scan` reports.
    pub fn findings(&self) -> &[Block] {
        &self.findings
    }

    /// Why the turn was not judged, if it was not.
    pub fn skipped(&self) -> Option<Skipped> {
        self.skipped
    }

    /// Whether files changed, as the hook's flag would have said.
    pub fn changed(&self) -> bool {
        self.changed
    }

    /// The audit matcher's reading of the final text.
    pub fn audit(&self) -> &AuditStatus {
        &self.audit
    }

    /// The block of the hollow-audit gate, if it found one.
    pub fn hollow(&self) -> Option<&Block> {
        self.findings.iter().find(|b| b.gate() == Gate::Hollow)
    }
}
