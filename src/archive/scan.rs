//! Scanning one transcript file, turn by turn.
//!
//! The file is streamed forward ([`for_each_line`]); each line is judged
//! from its bytes ([`TurnBuilder::wants`]), and only the lines a turn needs are
//! parsed and fed to the one turn model ([`TurnBuilder`]), the same one the
//! hook and `stopgate check` use. Each finished turn gets its subagents'
//! work folded in ([`Turn::resolve_subagents`]) and is judged by the one
//! judge the hook and `stopgate check` ask ([`Judge::judge_turn`]).
//!
//! A subagent's file yields no rows: its work belongs to the turn that
//! launched it. With `gate_subagents` it is the other way round, as in the
//! hook: the main turn does not answer for its subagents' work, and each
//! subagent's file is judged as its own turn, as its SubagentStop is.
//! Compaction summarizers and prompt-suggestion helpers are never
//! launched by a turn, so they are never read.
//!
//! A background subagent's change made after the launching turn ended is
//! the first later turn's to end after it, as it is the hook's: see
//! `transcript/late.rs`.

use std::io::Read;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use crate::gates::{AuditStatus, Block, Rule};
use crate::judge::{Judge, TurnChanges};
use crate::read::{
    Chain, EntrypointSoFar, Format, HookFault, LateWork, Parsers,
    StreamReader, StreamSoFar, ToolCall, Turn, TurnKind,
};

/// A finding, from the fixed vocabulary of `stopgate scan`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Finding {
    /// Files changed and the final text holds no audit marker.
    UnauditedChange,
    /// An audit that is a stock phrase with no specifics.
    HollowAudit,
    /// The agent handed a decision back after gathering data.
    Deferral,
    /// The agent caved to a challenge without evidence.
    Capitulation,
    /// An audit claiming verification that nothing run after the last
    /// change backs.
    UnverifiedClaim,
    /// Files changed and the judge cannot tell whether the final text
    /// audits them: the hook asks again, saying what would pass.
    UncertainAudit,
}

/// One finding and its evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Evidence {
    /// The finding.
    pub finding: Finding,
    /// The gate's rule that fired, such as [`Rule::NoMarker`].
    pub rule: Rule,
    /// The keywords and patterns that fired.
    pub matched: Vec<String>,
    /// The 1-based line of the turn's final text.
    pub line: Option<u64>,
    /// A short excerpt of the final text, around the first match.
    pub excerpt: String,
}

impl Finding {
    /// Every finding, in report order.
    pub const ALL: [Finding; 6] = [
        Finding::UnauditedChange,
        Finding::UncertainAudit,
        Finding::HollowAudit,
        Finding::Deferral,
        Finding::Capitulation,
        Finding::UnverifiedClaim,
    ];

    /// The finding a gate's block stands for.
    pub fn of_block(block: &Block) -> Finding {
        match block.rule() {
            Rule::NoMarker => Finding::UnauditedChange,
            Rule::Uncertain => Finding::UncertainAudit,
            Rule::StockPhrase => Finding::HollowAudit,
            Rule::ClaimWithoutEvidence => Finding::UnverifiedClaim,
            Rule::Deferral => Finding::Deferral,
            Rule::Capitulation => Finding::Capitulation,
        }
    }

    /// The finding's name in reports.
    pub fn as_str(&self) -> &'static str {
        match self {
            Finding::UnauditedChange => "unaudited_change",
            Finding::HollowAudit => "hollow_audit",
            Finding::Deferral => "deferral",
            Finding::Capitulation => "capitulation",
            Finding::UnverifiedClaim => "unverified_claim",
            Finding::UncertainAudit => "uncertain_audit",
        }
    }
}

/// One turn of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TurnReport {
    /// The turn's number in its file: 1 for the first prompt, 0 for what
    /// comes before any prompt.
    pub turn: usize,
    /// What started the turn, and whether the user interrupted it.
    pub kind: TurnKind,
    /// The prompt's timestamp (else the turn's first).
    pub timestamp: Option<String>,
    /// Whether a tool use changed files, a launched subagent's included.
    pub changed: bool,
    /// `present`, `plain`, `grounded`, `uncertain`, `absent`,
    /// `hollow:<rule>` or `escape`; [`UNJUDGED`] for the turns of a
    /// subagent file that stands alone ([`FileReport::note`]).
    pub audit: String,
    /// What the gates found, with the evidence. Only turns that ended in a
    /// Stop the agent chose, in sessions a human attends, get findings.
    pub findings: Vec<Evidence>,
    /// The commands of the Stop hooks that ran after the turn
    /// (interactive sessions only).
    pub hooks_ran: Vec<String>,
    /// Whether a Stop hook blocked in the turn.
    pub hook_blocked: bool,
    /// How many times a Stop hook blocked.
    pub hook_blocks: usize,
    /// The commands of the hooks that blocked, where the transcript names
    /// them.
    pub blocking_hooks: Vec<String>,
    /// The subagents the turn launched.
    pub subagents: Vec<String>,
    /// Where the turn's file changes came from, one line per source: the
    /// turn's own tool uses, its subagents', and those carried from
    /// earlier turns that ended in no Stop ("carried from turn 3: Write"),
    /// so that a finding on a carried change does not read as a false
    /// alarm.
    pub changes: Vec<String>,
    /// How many times stopgate's own hook failed open in the turn and told
    /// the user so ([`Turn::unguarded`]).
    pub unguarded: usize,
    /// The hooks that failed in the turn: errors and timeouts, of every
    /// event ([`Turn::hook_faults`]).
    pub hook_faults: Vec<HookFault>,
    /// When the client ended the turn over a Stop hook's blocks: how many
    /// consecutive blocks it overrode ([`Turn::blocks_overridden`]).
    pub blocks_overridden: Option<usize>,
}

impl TurnReport {
    /// Whether the turn has this finding.
    pub fn has(&self, finding: Finding) -> bool {
        self.findings.iter().any(|e| e.finding == finding)
    }
}

/// The result of scanning one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileReport {
    /// The file.
    pub path: PathBuf,
    /// The session: the `sessionId` its records carry, else the file's
    /// stem, or for a subagent file (`<session>/subagents/agent-*.jsonl`)
    /// the parent session's.
    pub session_id: String,
    /// The folder the session ran in (the records' `cwd`), if they say.
    pub project: Option<String>,
    /// The opening words of the session's first prompt, to label it.
    pub first_prompt: Option<String>,
    /// Whether this is a subagent's file.
    pub subagent: bool,
    /// The session's entrypoint, from the file's head.
    pub entrypoint: Option<String>,
    /// The agent that wrote the file, judged from its first line.
    pub agent: Format,
    /// Bytes read.
    pub bytes: u64,
    /// Lines seen, empty ones included.
    pub lines: u64,
    /// Corrupt lines skipped: among the lines the scan needs, those that
    /// do not parse, and those framed badly or holding invalid UTF-8 or
    /// a raw control byte (lines no turn needs, and narration a later
    /// text supersedes, are not parsed).
    pub corrupt: u64,
    /// Lines longer than [`ScanOptions::max_line`], skipped unread.
    pub too_long: u64,
    /// The turns, in file order.
    pub turns: Vec<TurnReport>,
    /// Why the file could not be read, if it could not.
    pub error: Option<String>,
    /// What a reader of the rows should know: for a subagent's file whose
    /// session's main file is missing ([`ORPHAN_NOTE`]), that its work
    /// stands alone.
    pub note: Option<String>,
}

/// Options for scanning.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ScanOptions {
    /// Read this many bytes at a time.
    pub chunk_size: usize,
    /// Keep turns on or after this instant (by the prompt's timestamp; a
    /// turn without one is kept).
    pub since: Option<jiff::Timestamp>,
    /// Keep turns on or before this instant.
    pub until: Option<jiff::Timestamp>,
    /// Lines longer than this many bytes are skipped and counted in
    /// [`FileReport::too_long`], so a scan's memory stays near this much
    /// per thread.
    pub max_line: usize,
}

impl Default for ScanOptions {
    fn default() -> ScanOptions {
        ScanOptions {
            chunk_size: crate::read::DEFAULT_CHUNK,
            since: None,
            until: None,
            max_line: crate::read::DEFAULT_MAX_LINE,
        }
    }
}

/// The session a file belongs to, and whether it is a subagent's.
pub(crate) fn session_of(path: &Path) -> (String, bool) {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parent = path.parent();
    let in_subagents =
        parent.and_then(|p| p.file_name()).is_some_and(|n| n == "subagents");
    if in_subagents && stem.starts_with("agent-") {
        if let Some(session) =
            parent.and_then(|p| p.parent()).and_then(|p| p.file_name())
        {
            return (session.to_string_lossy().into_owned(), true);
        }
    }
    (stem, false)
}

/// The main file of a subagent's session: `<dir>/<session>.jsonl` for
/// `<dir>/<session>/subagents/agent-<id>.jsonl`.
fn main_file_of(path: &Path) -> Option<PathBuf> {
    let session_dir = path.parent()?.parent()?;
    let mut name = session_dir.file_name()?.to_os_string();
    name.push(".jsonl");
    Some(session_dir.with_file_name(name))
}

impl FileReport {
    /// This subagent file's report, for a session whose main file is
    /// missing: its turns stay, so its work is not lost, with a note
    /// saying why they stand alone. Where subagents are folded into the
    /// turns that launched them (the default), no gate judged the
    /// subagent's own Stop, so its turns carry no findings.
    fn orphan(&mut self, judge: &Judge) {
        self.note = Some(ORPHAN_NOTE.to_string());
        if judge.folds_subagents() {
            for t in &mut self.turns {
                t.findings.clear();
                t.audit = UNJUDGED.to_string();
            }
        }
    }
}

impl FileReport {
    /// The file's path as text, faithfully ([`path_text`]).
    pub fn path_text(&self) -> String {
        path_text(&self.path)
    }

    /// A key unique to one of this file's turns in a scan's rows: the
    /// session, the file's stem when it is not the session's (two files of
    /// one session), and the turn (`s1#3`, `s1@agent-a1#2`).
    pub fn turn_key(&self, turn: &TurnReport) -> String {
        let stem = self.path.file_stem().map(|s| s.to_string_lossy());
        match stem {
            Some(stem) if stem != self.session_id.as_str() => {
                format!("{}@{stem}#{}", self.session_id, turn.turn)
            }
            _ => format!("{}#{}", self.session_id, turn.turn),
        }
    }
}

/// A path as text, faithfully: as it is when it is UTF-8; else with each
/// byte that is not UTF-8 written `\xNN` and each backslash doubled, so
/// the bytes can be recovered.
pub fn path_text(path: &Path) -> String {
    if let Some(s) = path.to_str() {
        return s.to_string();
    }
    let mut out = String::new();
    for chunk in path.as_os_str().as_encoded_bytes().utf8_chunks() {
        out.push_str(&chunk.valid().replace('\\', "\\\\"));
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// The audit of a turn no gate judged ([`TurnReport::audit`]).
pub const UNJUDGED: &str = "unjudged";

/// The note on a subagent file whose session's main file is missing.
pub const ORPHAN_NOTE: &str =
    "the session's main file is missing: this subagent's work stands alone";

/// What a thread of the scan keeps from one file to the next: the
/// stream reader, with its buffer and parsers, and the parsers of the
/// subagents' files (see `read/parsers.rs` for why).
#[derive(Debug)]
pub(crate) struct ScanSpace {
    reader: StreamReader,
    subagents: Parsers,
}

impl ScanSpace {
    /// The space of a thread scanning with `options`.
    pub(crate) fn new(options: &ScanOptions) -> ScanSpace {
        let reader = StreamReader::new()
            .chunk_size(options.chunk_size)
            .max_line(options.max_line);
        ScanSpace { reader, subagents: Parsers::default() }
    }
}

/// Scan one file. Errors are reported in [`FileReport::error`], never
/// raised: a scan goes on past a bad file.
pub fn scan_file(
    path: &Path,
    judge: &Judge,
    options: &ScanOptions,
) -> FileReport {
    scan_file_in(path, judge, options, &mut ScanSpace::new(options))
}

/// [`scan_file`], with the space of a reader of many files.
pub(crate) fn scan_file_in(
    path: &Path,
    judge: &Judge,
    options: &ScanOptions,
    space: &mut ScanSpace,
) -> FileReport {
    let (session_id, subagent) = session_of(path);
    let orphan = subagent && !main_file_of(path).is_some_and(|m| m.is_file());
    if subagent && judge.folds_subagents() && !orphan {
        // Its work is read with the turn that launched it.
        return FileReport {
            path: path.to_path_buf(),
            session_id,
            subagent,
            ..FileReport::default()
        };
    }
    // Listed as a file, it may be a FIFO by now: the open never waits, and
    // what it opened must be a regular file.
    match crate::read::open_regular(path) {
        Ok((file, _)) => {
            // The entrypoint is learnt from the head as it streams past.
            let mut report =
                scan_stream((path, file), None, (judge, options), space);
            if orphan {
                report.orphan(judge);
            }
            report
        }
        Err(e) => FileReport {
            path: path.to_path_buf(),
            session_id,
            subagent,
            error: Some(without_path(&e.to_string(), path)),
            ..FileReport::default()
        },
    }
}

/// An error message without the path it starts with: the report names
/// the file already.
fn without_path(message: &str, path: &Path) -> String {
    let prefix = format!("{}: ", path.display());
    message.strip_prefix(&prefix).unwrap_or(message).to_string()
}

/// Scan a transcript from any reader; `path` names it in the report and
/// decides its session. Read errors end the scan of this reader and are
/// reported in [`FileReport::error`], with the turns read so far.
pub fn scan_reader<R: Read>(
    path: &Path,
    reader: R,
    entrypoint: Option<String>,
    judge: &Judge,
    options: &ScanOptions,
) -> FileReport {
    let space = &mut ScanSpace::new(options);
    scan_stream((path, reader), Some(entrypoint), (judge, options), space)
}

/// Scan a transcript held in memory; `name` names it in the report and
/// decides its session, and its entrypoint is read from its head, as
/// [`scan_file`] reads a file's. The subagents it launched are looked for
/// on disk beside `name`, as a file's are (none is found when `name` is
/// no real path), and a subagent's own file (by its name) is judged as a
/// session of its own.
pub fn scan_bytes(
    name: &Path,
    data: &[u8],
    judge: &Judge,
    options: &ScanOptions,
) -> FileReport {
    let space = &mut ScanSpace::new(options);
    scan_stream((name, data), None, (judge, options), space)
}

/// Scan the transcript `reader` streams, named by `path`; its entrypoint
/// is `given`, or with none, what its head says.
fn scan_stream<R: Read>(
    (path, reader): (&Path, R),
    given: Option<Option<String>>,
    (judge, options): (&Judge, &ScanOptions),
    space: &mut ScanSpace,
) -> FileReport {
    let (session_id, subagent) = session_of(path);
    let chain = if subagent { Chain::Subagent } else { Chain::Main };
    let mut scan = FileScan {
        path,
        judge,
        options,
        given: given.clone(),
        unattended: None,
        waiting: vec![],
        first_prompt: None,
        turns: vec![],
        late: None,
        launchers: vec![],
        parsers: &mut space.subagents,
    };
    let read = space.reader.read_stream(reader, chain, &mut |turn, so_far| {
        scan.done(turn, so_far);
        ControlFlow::Continue(())
    });
    let entrypoint =
        given.unwrap_or_else(|| read.entrypoint().map(str::to_string));
    scan.learn(EntrypointSoFar::Known(entrypoint.as_deref()));
    scan.settle_late();
    FileReport {
        path: path.to_path_buf(),
        session_id: read.session_id().map_or(session_id, str::to_string),
        subagent,
        agent: read.format(),
        project: read
            .cwd()
            .map(str::to_string)
            .or_else(|| gemini_project(path)),
        entrypoint,
        first_prompt: scan.first_prompt.take(),
        bytes: read.bytes(),
        lines: read.lines(),
        corrupt: read.corrupt(),
        too_long: read.too_long(),
        turns: std::mem::take(&mut scan.turns),
        error: read.error().map(ToString::to_string),
        ..FileReport::default()
    }
}

/// The project of a Gemini CLI chat log, which records no folder: the
/// folder its client named after the project
/// (`~/.gemini/tmp/<project>/chats/session-*.jsonl`).
fn gemini_project(path: &Path) -> Option<String> {
    let chats = path.parent()?;
    if chats.file_name()? != "chats" {
        return None;
    }
    Some(chats.parent()?.file_name()?.to_string_lossy().into_owned())
}

/// One file's scan in progress: the turns the reader hands out, judged.
struct FileScan<'a> {
    path: &'a Path,
    judge: &'a Judge,
    options: &'a ScanOptions,
    /// The entrypoint the caller gave, if it gave one.
    given: Option<Option<String>>,
    /// Whether the session is unattended, once its entrypoint is known.
    unattended: Option<bool>,
    /// Turns that ended before the entrypoint was known, in order.
    waiting: Vec<Turn>,
    first_prompt: Option<String>,
    turns: Vec<TurnReport>,
    /// The subagents' work, folded into each turn as the hook sees it;
    /// made at the first turn, when the format is known.
    late: Option<LateWork>,
    /// The turns the subagents' late changes were held back from, with
    /// their rows: each gets back those no later turn takes.
    launchers: Vec<(usize, Turn)>,
    /// The parsers the subagents' files are read with.
    parsers: &'a mut Parsers,
}

impl FileScan<'_> {
    fn done(&mut self, turn: Turn, so_far: StreamSoFar<'_>) {
        self.late.get_or_insert_with(|| LateWork::new(so_far.format()));
        if self.unattended.is_none() {
            self.learn(so_far.entrypoint());
        }
        match self.unattended {
            Some(unattended) if self.waiting.is_empty() => {
                self.judge(turn, unattended)
            }
            _ => self.waiting.push(turn),
        }
    }

    /// The entrypoint as far as it is known: once it is, whether the
    /// session is unattended is known, and the turns that wait for it are
    /// judged.
    fn learn(&mut self, so_far: EntrypointSoFar<'_>) {
        let entrypoint = match (&self.given, so_far) {
            (Some(given), _) => given.as_deref(),
            (None, EntrypointSoFar::Known(e)) => e,
            (None, EntrypointSoFar::Pending) => return,
        };
        let unattended = self.judge.skips(entrypoint);
        self.unattended = Some(unattended);
        for turn in std::mem::take(&mut self.waiting) {
            self.judge(turn, unattended);
        }
    }

    /// Judge a finished turn and keep its row.
    fn judge(&mut self, mut turn: Turn, unattended: bool) {
        if self.first_prompt.is_none()
            && matches!(turn.kind(), TurnKind::Prompt | TurnKind::Interrupted)
        {
            self.first_prompt = turn.prompt().map(|p| opening_words(p.text()));
        }
        // Made at the first turn the reader handed out ([`FileScan::done`]).
        let late = self.late.get_or_insert_with(LateWork::default);
        if !in_range(turn.timestamp(), self.options) {
            late.pass(&turn);
            return;
        }
        let row = self.turns.len();
        let subagents = self.judge.folds_subagents().then_some(self.path);
        let held = late.fold(&mut turn, subagents, row, self.parsers);
        self.turns.push(report_turn(&turn, self.judge, unattended));
        if held {
            self.launchers.push((row, turn));
        }
    }

    /// The file ended: the launching turns that keep changes no later turn
    /// took are judged again with them.
    fn settle_late(&mut self) {
        let unattended = self.unattended.unwrap_or(false);
        let Some(late) = self.late.as_mut() else { return };
        for (row, back) in late.finish() {
            let Some((_, turn)) =
                self.launchers.iter_mut().find(|(r, _)| *r == row)
            else {
                continue;
            };
            turn.add_held(back);
            self.turns[row] = report_turn(turn, self.judge, unattended);
        }
    }
}

/// Where `turn`'s changes came from ([`TurnReport::changes`]): each source,
/// and why it counts here, with its tool uses: the file each names (or
/// its command), and the line it is on in the transcript
/// ("this turn: Edit src/lib.rs ×2 (lines 14, 20), Bash `sed -i …` (line
/// 31)"; "carried from turn 3, which the user interrupted: Write a.txt
/// (line 7)").
pub fn change_sources(turn: &Turn, changes: &TurnChanges<'_>) -> Vec<String> {
    let mut own = vec![];
    let mut subs = vec![];
    let mut late = vec![];
    for c in changes.iter() {
        if c.carried_from().is_some() {
            late.push(c);
        } else if c.by_subagent() {
            subs.push(c);
        } else {
            own.push(c);
        }
    }
    let from: Vec<String> =
        changes.carried_from().iter().map(usize::to_string).collect();
    let carried_label = match from.len() {
        0 => "carried from an earlier turn the user interrupted".to_string(),
        1 => format!(
            "carried from turn {}, which the user interrupted",
            from[0]
        ),
        _ => format!(
            "carried from turns {}, which the user interrupted",
            from.join(", ")
        ),
    };
    let subs_label = if turn.launched_agents().next().is_some() {
        "its subagents"
    } else {
        "background subagents launched earlier"
    };
    [
        ("this turn".to_string(), own, true),
        (subs_label.to_string(), subs, false),
        (carried_label, late, true),
    ]
    .into_iter()
    .filter(|(_, calls, _)| !calls.is_empty())
    .map(|(source, calls, lines)| {
        format!("{source}: {}", listed(&calls, lines))
    })
    .collect()
}

/// The most tool uses a source lists before "… and N more".
const LISTED: usize = 6;

/// Tool uses by name and what they touched, in order of first use, each
/// with its count when over one and, with `lines`, the lines they are on
/// (a subagent's are on its own file's lines, which are left out).
fn listed(calls: &[&ToolCall], lines: bool) -> String {
    let mut seen: Vec<(String, Vec<u64>, usize)> = vec![];
    for c in calls {
        let what = match (c.path(), c.command()) {
            (Some(path), _) => format!("{} {path}", c.name()),
            (None, Some(cmd)) => {
                format!("{} `{}`", c.name(), clipped(cmd, 48))
            }
            (None, None) => c.name().to_string(),
        };
        match seen.iter_mut().find(|(w, _, _)| *w == what) {
            Some((_, at, k)) => {
                *k += 1;
                at.extend(c.line());
            }
            None => seen.push((what, c.line().into_iter().collect(), 1)),
        }
    }
    let mut out: Vec<String> = seen
        .iter()
        .take(LISTED)
        .map(|(what, at, k)| {
            let mut s = what.clone();
            if *k > 1 {
                s.push_str(&format!(" ×{k}"));
            }
            let at: Vec<String> = at.iter().map(u64::to_string).collect();
            match (lines, at.len()) {
                (false, _) | (_, 0) => {}
                (true, 1) => s.push_str(&format!(" (line {})", at[0])),
                (true, _) => {
                    s.push_str(&format!(" (lines {})", at.join(", ")))
                }
            }
            s
        })
        .collect();
    if seen.len() > LISTED {
        out.push(format!("… and {} more", seen.len() - LISTED));
    }
    out.join(", ")
}

/// `s` on one line, cut to `max` characters with an ellipsis.
fn clipped(s: &str, max: usize) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match one.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &one[..at]),
        None => one,
    }
}

/// A turn's row: what the gates find in it, with the evidence.
pub fn report_turn(
    turn: &Turn,
    judge: &Judge,
    unattended: bool,
) -> TurnReport {
    let changes = TurnChanges::of(turn);
    let judged = judge.judge_changes(turn, &changes, unattended);
    let text = turn.final_text().unwrap_or("");
    let findings: Vec<Evidence> = judged
        .findings()
        .iter()
        .map(|b| Evidence {
            finding: Finding::of_block(b),
            rule: b.rule(),
            matched: b.matched().to_vec(),
            line: turn.final_text_line(),
            excerpt: excerpt(text, b.matched()),
        })
        .collect();
    let audit = match (judged.hollow(), judged.audit()) {
        (Some(b), _) => format!("hollow:{}", b.rule()),
        (None, AuditStatus::Present(_)) => "present".to_string(),
        (None, AuditStatus::Plain(_)) => "plain".to_string(),
        (None, AuditStatus::Escape(_)) => "escape".to_string(),
        (None, AuditStatus::Grounded { .. }) => "grounded".to_string(),
        (None, AuditStatus::Uncertain(_)) => "uncertain".to_string(),
        (None, AuditStatus::Absent) => "absent".to_string(),
    };
    let blocked = turn.stop_blocks();
    TurnReport {
        turn: turn.index(),
        kind: turn.kind(),
        timestamp: turn.timestamp().map(str::to_string),
        changed: judged.changed(),
        audit,
        findings,
        hooks_ran: turn.hooks_ran().to_vec(),
        hook_blocked: blocked.any(),
        hook_blocks: blocked.count(),
        blocking_hooks: blocked.commands().to_vec(),
        subagents: turn.launched_agents().map(str::to_string).collect(),
        changes: change_sources(turn, &changes),
        unguarded: turn.unguarded(),
        hook_faults: turn.hook_faults().to_vec(),
        blocks_overridden: turn.blocks_overridden(),
    }
}

/// Whether a hook's command runs stopgate: one of its words names the
/// `stopgate` binary (`/home/me/.cargo/bin/stopgate hook`,
/// `"stopgate" hook --agent codex`).
pub fn is_stopgate_command(command: &str) -> bool {
    command.split_whitespace().any(|word| {
        let word = word.trim_matches(['"', '\'']);
        let name = word.rsplit(['/', '\\']).next().unwrap_or(word);
        name == "stopgate" || name == "stopgate.exe"
    })
}

/// The most characters an excerpt holds.
const EXCERPT_CHARS: usize = 120;

/// A one-line excerpt of `text` around the first of `matched` found in it
/// (a pattern `a…b` is looked up by `a`), else its start.
fn excerpt(text: &str, matched: &[String]) -> String {
    let at = if matched.is_empty() {
        0
    } else {
        let lower = text.to_ascii_lowercase();
        matched
            .iter()
            .filter_map(|m| {
                let head = m.split('…').next().unwrap_or(m);
                lower.find(&head.to_ascii_lowercase())
            })
            .min()
            .unwrap_or(0)
    };
    // Start a little before the match, on a character boundary, and look
    // no further than the excerpt can reach: the work is bounded, however
    // long the text.
    let start = text[..at].char_indices().rev().nth(30).map_or(0, |(i, _)| i);
    let mut out = String::with_capacity(EXCERPT_CHARS * 3);
    let mut chars = 0;
    for word in text[start..].split_whitespace() {
        if chars >= EXCERPT_CHARS {
            break;
        }
        if chars > 0 {
            out.push(' ');
            chars += 1;
        }
        for c in word.chars().take(EXCERPT_CHARS.saturating_sub(chars)) {
            out.push(c);
            chars += 1;
        }
    }
    if start > 0 {
        out.insert(0, '…');
    }
    out
}

/// The opening words of a prompt, on one line, at most 60 characters.
fn opening_words(prompt: &str) -> String {
    const MAX: usize = 60;
    // A slash command is written in the client's tags
    // (`<command-message>…</command-message><command-name>/review</command-name>`):
    // its name and arguments say what the session was.
    let prompt = match tagged(prompt, "command-name") {
        Some(name) => {
            format!("{name} {}", tagged(prompt, "command-args").unwrap_or(""))
        }
        None => without_tags(prompt),
    };
    let flat: String = prompt.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= MAX {
        return flat;
    }
    let mut out: String = flat.chars().take(MAX - 1).collect();
    out.push('…');
    out
}

/// The text between `<tag>` and `</tag>` in `s`, when there is one.
fn tagged<'s>(s: &'s str, tag: &str) -> Option<&'s str> {
    let open = format!("<{tag}>");
    let start = s.find(&open)? + open.len();
    let end = start + s[start..].find(&format!("</{tag}>"))?;
    Some(s[start..end].trim())
}

/// `s` without the client's markup tags (`<command-message>`,
/// `</local-command-stdout>`): a tag is `<`, an optional `/`, lowercase
/// letters and hyphens, `>`.
fn without_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let name = after.strip_prefix('/').unwrap_or(after);
        let len = name
            .bytes()
            .take_while(|b| b.is_ascii_lowercase() || *b == b'-')
            .count();
        if len > 0 && name[len..].starts_with('>') {
            out.push(' ');
            rest = &name[len + 1..];
        } else {
            out.push('<');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn in_range(timestamp: Option<&str>, options: &ScanOptions) -> bool {
    let Some(t) = timestamp.and_then(|t| t.parse::<jiff::Timestamp>().ok())
    else {
        return true;
    };
    options.since.is_none_or(|s| t >= s)
        && options.until.is_none_or(|u| t <= u)
}

#[cfg(test)]
mod tests {
    /// A change is listed by where it was made, not by its id: a tool use
    /// id a later turn uses again is that turn's own change, and the
    /// carried one stays carried.
    #[test]
    fn a_change_is_listed_by_its_origin_not_its_id() {
        use crate::judge::TurnChanges;
        use crate::read::{Chain, Transcript};

        let user = |text: &str| {
            format!(
                r#"{{"type":"user","message":{{"role":"user","content":{text:?}}}}}"#
            )
        };
        let write = r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"w1","name":"Write","input":{"file_path":"a.txt"}}]}}"#;
        let done = r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]}}"#;
        let lines = [
            user("a"),
            write.to_string(),
            user("[Request interrupted by user]"),
            user("b"),
            write.to_string(),
            done.to_string(),
        ];
        let bytes = lines.join("\n") + "\n";
        let turns = Transcript::from_bytes(bytes.into_bytes())
            .turns_with_subagents(Chain::Main, std::path::Path::new("/none"));
        let turn = turns.last().unwrap();
        assert_eq!(
            super::change_sources(turn, &TurnChanges::of(turn)),
            [
                "this turn: Write a.txt (line 5)",
                "carried from turn 1, which the user interrupted: Write a.txt (line 2)",
            ]
        );
    }

    #[test]
    fn session_labels_leave_the_clients_tags_out() {
        let slash =
            "<command-message>orchestrator is running…</command-message>\n\
                     <command-name>/orchestrator</command-name>\n\
                     <command-args>ship it</command-args>";
        assert_eq!(super::opening_words(slash), "/orchestrator ship it");
        assert_eq!(
            super::opening_words(
                "<local-command-stdout>ok</local-command-stdout> Fix a < b"
            ),
            "ok Fix a < b"
        );
    }

    use super::*;

    #[test]
    fn excerpts_are_one_line_and_bounded() {
        let text =
            format!("{}\nWhich one should I go with?", "x ".repeat(100));
        let e = excerpt(&text, &["which…should i".to_string()]);
        assert!(e.starts_with('…'), "{e}");
        assert!(e.contains("Which one should I go with?"), "{e}");
        assert!(!e.contains('\n'));
        assert!(e.chars().count() <= EXCERPT_CHARS + 1);
        assert_eq!(excerpt("Done.", &[]), "Done.");
        assert_eq!(
            excerpt("日本語のテキスト", &["テキ".to_string()]),
            "日本語のテキスト"
        );
    }
}
