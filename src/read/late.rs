//! Whose turn a file change is, when the Stop that first sees it is not
//! its own turn's: a background subagent's change, and an interrupted
//! turn's.
//!
//! A subagent's work belongs to the turn that launched it
//! ([`Turn::resolve_subagents`]). That is the whole answer when the
//! subagent runs in the foreground, as Claude Code 2.1.197 runs it: the
//! Agent tool returns only when the subagent is done, so every change it
//! makes comes before the launching turn's Stop.
//!
//! Claude Code 2.1.332 runs every subagent in the background. The main
//! agent may end its turn, and its Stop may pass, before the subagent
//! changes a file. The hook audits such a change at the first Stop after
//! it, which PostToolUse's flag brings it to: usually the Stop of the turn
//! that the subagent's `<task-notification>` prompt starts, or of a turn
//! the user started meanwhile. A report that put the change on the
//! launching turn would call that turn an unaudited change (its final
//! text was written before the change), and show the block and the audit
//! it brought on a turn that changed nothing.
//!
//! So a change made after the launching turn ended ([`Turn::ended`],
//! [`ToolCall::at`]) waits for the first turn that ends after it, and is
//! that turn's. A change that no turn ends after (the session stopped
//! first) was seen by no Stop: it stays the launching turn's, which gets
//! it back once the file has ended. A change or a turn whose time is not in the form
//! Claude Code writes stays where it was launched, as before.
//!
//! No Stop fires when the user interrupts Claude Code (nor for a local
//! command), so PostToolUse's flag stays raised over an interrupted turn,
//! and the next Stop blocks for its changes, whatever that turn itself
//! did. So an interrupted turn's changes are carried to the next turn that
//! ends in a Stop ([`Turn::carry`]); the interrupted turn keeps them too,
//! though no finding applies to it. Only tool uses that ran to the end
//! are carried: Claude Code runs no PostToolUse for one the user declined
//! or that failed (`is_error`). Codex CLI's aborted turns are not carried:
//! whether its flag outlives an abort has not been seen.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use super::builder::Need;
use super::current::TURN_MAX_BYTES;
use super::format::Format;
use super::parsers::Parsers;
use super::source::Transcript;
use super::turn::{safe_id, Chain, HeldChange, ToolCall, Turn};

impl Transcript {
    /// The turns on `chain` ([`Transcript::turns`]), each with the work of
    /// the subagents it launched folded in ([`Turn::resolve_subagents`])
    /// as the hook sees it: a change that a background subagent made after
    /// the turn that launched it ended is the first later turn's to end
    /// after it. `path` is this transcript's path, beside which the
    /// subagents' files are.
    pub fn turns_with_subagents(
        &self,
        chain: Chain,
        path: &Path,
    ) -> Vec<Turn> {
        self.turns_folded(chain, Some(path))
    }

    /// The turns on `chain`, with the changes of interrupted turns carried
    /// to the next Stop as in [`Transcript::turns_with_subagents`], but
    /// with no subagent's file read: for a main agent whose subagents are
    /// judged at their own Stop (`gate_subagents`), or a subagent's own
    /// file.
    pub fn turns_carried(&self, chain: Chain) -> Vec<Turn> {
        self.turns_folded(chain, None)
    }

    fn turns_folded(&self, chain: Chain, path: Option<&Path>) -> Vec<Turn> {
        let mut turns = self.turns(chain);
        let mut work = LateWork::new(self.format());
        let parsers = &mut Parsers::default();
        for (row, turn) in turns.iter_mut().enumerate() {
            work.fold(turn, path, row, parsers);
        }
        for (row, back) in work.finish() {
            turns[row].add_held(back);
        }
        turns
    }
}

/// Whether `path` is a subagent's own file,
/// `<session>/subagents/agent-<id>.jsonl`, as Claude Code lays them out.
#[cfg(feature = "judge")]
pub(crate) fn is_subagent_file(path: &Path) -> bool {
    let stem_is_agent = path
        .file_stem()
        .is_some_and(|s| s.to_string_lossy().starts_with("agent-"));
    let parent = path.parent();
    let in_subagents =
        parent.and_then(|p| p.file_name()).is_some_and(|n| n == "subagents");
    let under_session =
        parent.and_then(|p| p.parent()).and_then(|p| p.file_name()).is_some();
    stem_is_agent && in_subagents && under_session
}

/// The subagents' work of one file's turns, folded in as the hook sees it.
///
/// Feed it the file's turns in order ([`LateWork::fold`]), then
/// [`LateWork::finish`]. Each turn is named by the caller's `row`, which
/// `finish` gives back with the changes that turn keeps after all.
#[derive(Debug)]
pub(crate) struct LateWork {
    /// Changes made after their launching turn ended, waiting for the
    /// first turn that ends after them, with the launching turn's row.
    waiting: Vec<(usize, HeldChange)>,
    /// Changes of turns that ended in no Stop the agent chose, owed at
    /// the next turn that does ([`Turn::carry`]).
    owed: Vec<ToolCall>,
    /// Whether changes are carried: for Claude Code, whose clients were
    /// seen to keep PostToolUse's flag raised across an interrupt.
    carries: bool,
}

impl Default for LateWork {
    /// The work of a file in the default format.
    fn default() -> LateWork {
        LateWork::new(Format::default())
    }
}

impl LateWork {
    /// The work of a file in `format`.
    pub(crate) fn new(format: Format) -> LateWork {
        LateWork {
            waiting: vec![],
            owed: vec![],
            carries: format == Format::Claude,
        }
    }

    /// Fold into `turn`, the file's next, the work of the subagents it
    /// launched made before it ended, and the waiting changes of earlier
    /// turns' subagents made before it ended. `transcript` is the main
    /// transcript's path, beside which the subagents' files are; with
    /// none, no subagent's file is read, and only the changes of
    /// interrupted turns are carried. The subagents' files are read with
    /// parsers from `parsers`. Whether changes were held back from `turn`:
    /// only then may [`LateWork::finish`] give it some back.
    pub(crate) fn fold(
        &mut self,
        turn: &mut Turn,
        transcript: Option<&Path>,
        row: usize,
        parsers: &mut Parsers,
    ) -> bool {
        let ended = turn.ended().and_then(Instant::of);
        let due = self.due(ended);
        let late = match transcript {
            Some(path) => turn.resolve_subagents_by(
                path,
                |c| made_after(c, ended),
                parsers,
            ),
            None => vec![],
        };
        turn.add_held(due);
        if let Some(owed) = self.owed_at(turn) {
            turn.carry(owed);
        }
        let held = !late.is_empty();
        self.waiting.extend(late.into_iter().map(|c| (row, c)));
        held
    }

    /// A turn that is not read (outside a scan's dates): the waiting
    /// changes made before it ended are its, and go unreported; so are
    /// the owed ones, if it ends in a Stop.
    #[cfg(feature = "archive")]
    pub(crate) fn pass(&mut self, turn: &Turn) {
        let _ = self.due(turn.ended().and_then(Instant::of));
        let _ = self.owed_at(turn);
    }

    /// The changes owed at `turn`'s Stop, if it ends in one the agent
    /// chose; if not, its own possible changes are owed at the next
    /// turn's that does, each marked with the turn it was made in.
    fn owed_at(&mut self, turn: &Turn) -> Option<Vec<ToolCall>> {
        if turn.kind().ends_in_stop() {
            return Some(std::mem::take(&mut self.owed));
        }
        if self.carries {
            let from = turn.index();
            self.owed.extend(
                turn.possible_changes()
                    .map(|c| c.clone().carried_from_turn(from)),
            );
        }
        None
    }

    /// The file ended: the changes no later turn ended after, which their
    /// launching turns keep ([`Turn::add_held`]), by the launching
    /// turn's row.
    pub(crate) fn finish(&mut self) -> Vec<(usize, Vec<HeldChange>)> {
        let mut back: Vec<(usize, Vec<HeldChange>)> = vec![];
        for (row, change) in std::mem::take(&mut self.waiting) {
            match back.iter_mut().find(|(r, _)| *r == row) {
                Some((_, changes)) => changes.push(change),
                None => back.push((row, vec![change])),
            }
        }
        back
    }

    /// Take the waiting changes made before a turn that `ended`: all of
    /// them when its end is unknown.
    fn due(&mut self, ended: Option<Instant>) -> Vec<HeldChange> {
        let (due, waiting): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.waiting).into_iter().partition(
                |(_, c)| {
                    let at = c.call().at().and_then(Instant::of);
                    ended.is_none_or(|e| at.is_some_and(|at| at <= e))
                },
            );
        self.waiting = waiting;
        due.into_iter().map(|(_, c)| c).collect()
    }
}

/// Whether the change `c` was made after a turn that `ended`.
fn made_after(c: &ToolCall, ended: Option<Instant>) -> bool {
    match (c.at().and_then(Instant::of), ended) {
        (Some(at), Some(ended)) => at > ended,
        _ => false,
    }
}

/// A time in the one form Claude Code writes, `2026-12-04T06:54:23.062Z`
/// (JavaScript's `toISOString`): fixed width, UTC, so that its text orders
/// as its instant does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Instant([u8; 24]);

impl Instant {
    fn of(text: &str) -> Option<Instant> {
        let b = text.as_bytes();
        let digits =
            |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
        let shaped = b.len() == 24
            && digits(0..4)
            && b[4] == b'-'
            && digits(5..7)
            && b[7] == b'-'
            && digits(8..10)
            && b[10] == b'T'
            && digits(11..13)
            && b[13] == b':'
            && digits(14..16)
            && b[16] == b':'
            && digits(17..19)
            && b[19] == b'.'
            && digits(20..23)
            && b[23] == b'Z';
        shaped.then(|| Instant(b.try_into().expect("24 bytes")))
    }
}

impl Turn {
    /// Read the files of the subagents this turn launched, and count their
    /// tool uses that may change files as the turn's
    /// ([`Turn::subagent_tool_uses`]), each marked with the tool use that
    /// launched its subagent ([`ToolCall::launched_by`]).
    ///
    /// `transcript` is the main transcript's path; a subagent's file is
    /// `<dir>/<session>/subagents/agent-<id>.jsonl` (or, for clients of
    /// late 2025, `<dir>/agent-<id>.jsonl`). A missing or unreadable file
    /// adds nothing.
    pub fn resolve_subagents(&mut self, transcript: &Path) {
        let parsers = &mut Parsers::default();
        let none = self.resolve_subagents_by(transcript, |_| false, parsers);
        debug_assert!(none.is_empty());
    }

    /// [`Turn::resolve_subagents`], holding back the changes `later`
    /// picks: they are returned, not counted as this turn's, and a launch
    /// whose every change is held back is not marked. The archive scan
    /// holds back what a background subagent changed after this turn
    /// ended, which only a later Stop could see.
    pub(crate) fn resolve_subagents_by(
        &mut self,
        transcript: &Path,
        later: impl Fn(&ToolCall) -> bool,
        parsers: &mut Parsers,
    ) -> Vec<HeldChange> {
        self.resolve_subagents_with(
            |agent| {
                subagent_file(transcript, agent)
                    .and_then(|p| read_subagent_changes(&p, parsers))
                    .unwrap_or_default()
            },
            later,
        )
    }

    /// Read the files of `agents`, background subagents launched in
    /// earlier turns, and count their tool uses that may change files as
    /// this turn's (those of a subagent this turn launched are
    /// [`Turn::resolve_subagents`]'s). For the hook, which reads only the
    /// current turn: the changes an earlier Stop consumed it leaves aside
    /// by their keys.
    pub fn resolve_background<'a>(
        &mut self,
        transcript: &Path,
        agents: impl IntoIterator<Item = &'a str>,
    ) {
        let parsers = &mut Parsers::default();
        self.add_background_with(agents, |agent| {
            subagent_file(transcript, agent)
                .and_then(|p| read_subagent_changes(&p, parsers))
        });
    }
}

/// Where the file of subagent `agent` of the session at `transcript` is.
fn subagent_file(transcript: &Path, agent: &str) -> Option<PathBuf> {
    // The id names a file: it must not climb out of the folder.
    safe_id(agent)?;
    let dir = transcript.parent()?;
    let stem = transcript.file_stem()?;
    let name = format!("agent-{agent}.jsonl");
    [dir.join(stem).join("subagents").join(&name), dir.join(&name)]
        .into_iter()
        .find(|p| p.is_file())
}

/// The tool uses of a subagent's file that may change files
/// ([`ToolCall::may_change`]), all its turns together, reading at most
/// [`TURN_MAX_BYTES`] from its end.
fn read_subagent_changes(
    path: &Path,
    parsers: &mut Parsers,
) -> Option<Vec<ToolCall>> {
    let t = Transcript::read_tail_regular(path, TURN_MAX_BYTES).ok()?;
    let mut out = vec![];
    let mut keep = |turn: Turn| {
        out.extend(turn.into_tool_uses().filter(ToolCall::may_change));
        ControlFlow::Continue(())
    };
    let last = t.turns_from_tracking(
        Chain::Subagent,
        (Need::Changes, 0),
        &mut false,
        parsers,
        &mut keep,
    );
    if let Some(turn) = last {
        let _ = keep(turn);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::Instant;

    #[test]
    fn only_the_written_form_is_an_instant() {
        let a = Instant::of("2026-12-04T06:54:23.062Z").unwrap();
        let b = Instant::of("2026-12-04T06:54:23.070Z").unwrap();
        assert!(a < b);
        for odd in [
            "2026-12-04T06:54:23Z",
            "2026-12-04T06:54:23.062+00:00",
            "2026-12-04 06:54:23.062Z",
            "2026-12-04T06:54:23.06aZ",
            "",
        ] {
            assert_eq!(Instant::of(odd), None, "{odd}");
        }
    }
}

#[cfg(test)]
mod carry_tests {
    use std::path::Path;

    use super::*;
    use crate::read::turn::TurnKind;

    fn prompt(text: &str) -> String {
        format!(
            r#"{{"type":"user","sessionId":"s","message":{{"role":"user","content":"{text}"}}}}"#
        )
    }

    fn write(id: &str) -> String {
        format!(
            r#"{{"type":"assistant","sessionId":"s","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"Write","input":{{"file_path":"a.txt","content":"x"}}}}]}}}}"#
        )
    }

    fn result(id: &str, is_error: bool) -> String {
        format!(
            r#"{{"type":"user","sessionId":"s","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","is_error":{is_error},"content":"x"}}]}}}}"#
        )
    }

    fn said(text: &str) -> String {
        format!(
            r#"{{"type":"assistant","sessionId":"s","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}]}}}}"#
        )
    }

    const INTERRUPTED: &str = r#"{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#;

    const LOCAL_COMMAND: &str = r#"{"type":"system","subtype":"local_command","sessionId":"s","content":"<command-name>/model</command-name>"}"#;

    /// The turns of `lines`, folded as the scan and `check` fold them:
    /// (kind, whether changed, the keys carried to it) per turn.
    fn turns(lines: &[String]) -> Vec<(TurnKind, bool, Vec<String>)> {
        let bytes = lines.join("\n") + "\n";
        Transcript::from_bytes(bytes.into_bytes())
            .turns_with_subagents(Chain::Main, Path::new("/nonexistent.jsonl"))
            .iter()
            .filter(|t| t.index() > 0)
            .map(|t| {
                let carried = t
                    .carried_tool_uses()
                    .iter()
                    .map(|c| c.key().to_string())
                    .collect();
                (t.kind(), t.possible_changes().next().is_some(), carried)
            })
            .collect()
    }

    #[test]
    fn an_interrupted_turns_change_is_owed_at_the_next_stop() {
        let got = turns(&[
            prompt("write a.txt"),
            write("w1"),
            result("w1", false),
            INTERRUPTED.to_string(),
            LOCAL_COMMAND.to_string(),
            prompt("what is in a.txt?"),
            said("It holds x."),
            prompt("thanks"),
            said("You are welcome."),
        ]);
        assert_eq!(
            got,
            [
                (TurnKind::Interrupted, true, vec![]),
                (TurnKind::LocalCommand, false, vec![]),
                (TurnKind::Prompt, true, vec!["w1".to_string()]),
                (TurnKind::Prompt, false, vec![]),
            ]
        );
    }

    #[test]
    fn a_declined_or_failed_tool_use_is_not_carried() {
        let got = turns(&[
            prompt("write a.txt"),
            write("w1"),
            result("w1", true),
            INTERRUPTED.to_string(),
            prompt("never mind"),
            said("OK."),
        ]);
        // The declined Write changed nothing, not even in its own turn.
        assert_eq!(
            got,
            [
                (TurnKind::Interrupted, false, vec![]),
                (TurnKind::Prompt, false, vec![]),
            ]
        );
    }

    #[test]
    fn changes_of_interrupted_turns_add_up_and_an_unanswered_one_stays() {
        let got = turns(&[
            prompt("one"),
            write("w1"),
            result("w1", false),
            INTERRUPTED.to_string(),
            prompt("two"),
            write("w2"),
            result("w2", false),
            INTERRUPTED.to_string(),
            prompt("three"),
            write("w3"),
            result("w3", false),
            said("Done."),
            prompt("four"),
            write("w4"),
            INTERRUPTED.to_string(),
        ]);
        assert_eq!(
            got,
            [
                (TurnKind::Interrupted, true, vec![]),
                (TurnKind::Interrupted, true, vec![]),
                (TurnKind::Prompt, true, vec!["w1".into(), "w2".into()]),
                (TurnKind::Interrupted, true, vec![]),
            ]
        );
    }

    #[test]
    fn only_claude_code_transcripts_carry() {
        let bytes = [
            prompt("one"),
            write("w1"),
            result("w1", false),
            INTERRUPTED.to_string(),
            prompt("two"),
            said("OK."),
        ]
        .join("\n");
        let t = Transcript::from_bytes(bytes.into_bytes());
        let path = Path::new("/nonexistent.jsonl");
        for (format, carried) in
            [(Format::Claude, 1), (Format::Codex, 0), (Format::Gemini, 0)]
        {
            let mut work = LateWork::new(format);
            let mut turns = t.turns(Chain::Main);
            for (row, turn) in turns.iter_mut().enumerate() {
                work.fold(turn, Some(path), row, &mut Parsers::default());
            }
            let last = turns.last().unwrap();
            assert_eq!(last.carried_tool_uses().len(), carried, "{format:?}");
        }
    }
}

#[cfg(test)]
mod subagent_tests {
    use std::path::Path;

    use super::*;
    use crate::read::claude::{may_hold_change, may_hold_tool_use};

    /// What a subagent's file was read for before lines were skipped:
    /// every turn, whole, then its changing tool uses (and its subagents'
    /// changes, which a subagent's own chain never has).
    fn whole_turns_changes(path: &Path) -> Option<Vec<ToolCall>> {
        let t = Transcript::read_tail(path, TURN_MAX_BYTES).ok()?;
        let mut out = vec![];
        for turn in t.turns(Chain::Subagent) {
            out.extend(
                turn.tool_uses().iter().filter(|u| u.may_change()).cloned(),
            );
            out.extend_from_slice(turn.subagent_tool_uses());
        }
        Some(out)
    }

    #[test]
    fn skipping_lines_without_tool_uses_finds_the_same_changes() {
        let files = crate::read::fixture_and_corpus_files();
        assert!(files.len() > 20, "{} files", files.len());
        let mut changes = 0;
        for path in &files {
            let want = whole_turns_changes(path);
            changes += want.as_ref().map_or(0, Vec::len);
            assert_eq!(
                read_subagent_changes(path, &mut Parsers::default()),
                want,
                "{}",
                path.display()
            );
        }
        assert!(changes > 0);
    }

    #[test]
    fn a_tool_use_spelt_with_escapes_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agent-x.jsonl");
        let lines = [
            r#"{"type":"user","message":{"content":"go"},"isSidechain":true}"#,
            r#"{"message":{"content":[{"type":"text","text":"Looking."}]},"type":"assistant"}"#,
            r#"{"message":{"content":[{"type":"\u0074ool_use","id":"t1","name":"Write","input":{}}]},"type":"assistant"}"#,
            r#"{"message":{"content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"rm a"}}]},"type":"assistant"}"#,
            r#"{"type":"system","message":{"content":[{"type":"tool_use","id":"t3","name":"Write","input":{}}]}}"#,
            r#"{"message":{"content":[{"type":"tool_use","id":"t4","name":"\u0045dit","input":{}}]},"type":"assistant"}"#,
            r#"{"message":{"content":[{"type":"tool_use","id":"t5","name":"Read","input":{"file_path":"Edit"}}]},"type":"assistant"}"#,
        ];
        std::fs::write(&path, lines.join("\n")).unwrap();
        let found =
            read_subagent_changes(&path, &mut Parsers::default()).unwrap();
        let ids: Vec<_> = found.iter().filter_map(ToolCall::id).collect();
        assert_eq!(ids, ["t1", "t2", "t4"]);
        // A line of reading tools alone is not parsed at all.
        let read = br#"{"message":{"content":[{"type":"tool_use","id":"r","name":"Read","input":{"file_path":"a.rs"}}]},"type":"assistant"}"#;
        assert!(may_hold_tool_use(read) && !may_hold_change(read));
        assert!(may_hold_change(lines[3].as_bytes()));
        let spaced = br#"{"message":{"content":[{"type":"tool_use","name" :  "Write","input":{}}]},"type":"assistant"}"#;
        assert!(may_hold_change(spaced));
        let named = br#"{"message":{"content":[{"type":"tool_use","name":"Writer","input":{"name":"Bash\n"}}]},"type":"assistant"}"#;
        assert!(!may_hold_change(named));
        assert_eq!(Some(found), whole_turns_changes(&path));
    }
}
