//! Scanning one transcript file, turn by turn.
//!
//! The file is streamed forward ([`for_each_line`]); each line's top-level
//! `type` is read without parsing ([`top_level_type`]), and only the lines
//! a turn needs are parsed: user prompts, assistant lines and
//! `stop_hook_summary` records. Progress lines, bookkeeping and tool
//! results are skipped. At each real prompt the previous turn is finished
//! and judged by the very gate code the hook runs ([`Gates::findings`]).

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use memchr::memmem;

use super::reader::{for_each_line, ChunkLine};
use crate::changes::last_change;
use crate::gates::{AuditStatus, Facts, Gates};
use crate::transcript::{
    is_prompt_shaped, last_text_any_chain, prompt_text, quick_type, Block,
    Record, RecordParser, RecordType, ToolCall, Transcript,
};

/// A finding, from the fixed vocabulary of `stopgate scan`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Finding {
    /// Files changed and the final text holds no audit marker.
    UnauditedChange,
    /// An audit marker without substance.
    HollowAudit,
    /// The agent handed a decision back after gathering data.
    Deferral,
    /// The agent caved to a challenge without evidence.
    Capitulation,
    /// A verification claim that nothing run after the last change backs.
    UnverifiedClaim,
}

impl Finding {
    /// Every finding, in report order.
    pub const ALL: [Finding; 5] = [
        Finding::UnauditedChange,
        Finding::HollowAudit,
        Finding::Deferral,
        Finding::Capitulation,
        Finding::UnverifiedClaim,
    ];

    /// The finding's name in reports.
    pub fn as_str(&self) -> &'static str {
        match self {
            Finding::UnauditedChange => "unaudited_change",
            Finding::HollowAudit => "hollow_audit",
            Finding::Deferral => "deferral",
            Finding::Capitulation => "capitulation",
            Finding::UnverifiedClaim => "unverified_claim",
        }
    }
}

/// One turn of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnReport {
    /// The turn's number in its file: 1 for the first prompt, 0 for what
    /// comes before any prompt.
    pub turn: usize,
    /// The prompt's timestamp (else the turn's first).
    pub timestamp: Option<String>,
    /// Whether a tool use changed files.
    pub changed: bool,
    /// `present`, `absent`, `hollow:<rule>` or `escape`.
    pub audit: String,
    /// What the gates found.
    pub findings: Vec<Finding>,
    /// The commands of the Stop hooks that ran after the turn.
    pub hooks_ran: Vec<String>,
    /// Whether a Stop hook blocked (`preventedContinuation`).
    pub hook_blocked: bool,
}

/// The result of scanning one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileReport {
    /// The file.
    pub path: PathBuf,
    /// The session: the file's stem, or for a subagent file
    /// (`<session>/subagents/agent-*.jsonl`) the parent session's.
    pub session_id: String,
    /// Whether this is a subagent's file.
    pub subagent: bool,
    /// The session's entrypoint, from the file's head.
    pub entrypoint: Option<String>,
    /// Bytes read.
    pub bytes: u64,
    /// Non-empty lines seen.
    pub lines: u64,
    /// Corrupt lines skipped (among those parsed or framed badly).
    pub corrupt: u64,
    /// The turns, in file order.
    pub turns: Vec<TurnReport>,
    /// Why the file could not be read, if it could not.
    pub error: Option<String>,
}

/// Options for scanning.
#[derive(Clone, Debug)]
pub struct ScanOptions {
    /// Read this many bytes at a time.
    pub chunk_size: usize,
    /// Keep turns on or after this date (UTC, by the prompt's timestamp).
    pub since: Option<jiff::civil::Date>,
    /// Keep turns on or before this date.
    pub until: Option<jiff::civil::Date>,
}

impl Default for ScanOptions {
    fn default() -> ScanOptions {
        ScanOptions {
            chunk_size: super::reader::DEFAULT_CHUNK,
            since: None,
            until: None,
        }
    }
}

/// The session a file belongs to, and whether it is a subagent's.
pub fn session_of(path: &Path) -> (String, bool) {
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

/// Scan one file. Errors are reported in [`FileReport::error`], never
/// raised: a scan goes on past a bad file.
pub fn scan_file(
    path: &Path,
    gates: &Gates,
    options: &ScanOptions,
) -> FileReport {
    match File::open(path) {
        Ok(file) => {
            let entrypoint = Transcript::read_entrypoint(path).ok().flatten();
            scan_reader(path, file, entrypoint, gates, options)
        }
        Err(e) => {
            let (session_id, subagent) = session_of(path);
            FileReport {
                path: path.to_path_buf(),
                session_id,
                subagent,
                error: Some(e.to_string()),
                ..FileReport::default()
            }
        }
    }
}

/// Scan a transcript from any reader; `path` names it in the report and
/// decides its session. Read errors end the scan of this reader and are
/// reported in [`FileReport::error`], with the turns read so far.
pub fn scan_reader<R: Read>(
    path: &Path,
    reader: R,
    entrypoint: Option<String>,
    gates: &Gates,
    options: &ScanOptions,
) -> FileReport {
    let (session_id, subagent) = session_of(path);
    let mut report = FileReport {
        path: path.to_path_buf(),
        session_id,
        subagent,
        entrypoint,
        ..FileReport::default()
    };
    let mut builder = TurnBuilder::new(gates, subagent, options);
    match for_each_line(reader, options.chunk_size, |line| builder.line(line))
    {
        Ok(n) => report.bytes = n,
        Err(e) => report.error = Some(e.to_string()),
    }
    builder.finish_turn();
    report.lines = builder.lines;
    report.corrupt = builder.corrupt;
    report.turns = builder.turns;
    report
}

/// The turn being built.
#[derive(Default)]
struct Open {
    index: usize,
    timestamp: Option<String>,
    prompt: Option<String>,
    tool_uses: Vec<ToolCall>,
    final_text: Option<String>,
    hooks_ran: Vec<String>,
    hook_blocked: bool,
    any: bool,
}

struct TurnBuilder<'g> {
    gates: &'g Gates,
    /// In a subagent file, sidechain lines are the file's own chain.
    own_sidechain: bool,
    options: &'g ScanOptions,
    parser: RecordParser,
    open: Open,
    next_index: usize,
    turns: Vec<TurnReport>,
    lines: u64,
    corrupt: u64,
}

impl<'g> TurnBuilder<'g> {
    fn new(
        gates: &'g Gates,
        own_sidechain: bool,
        options: &'g ScanOptions,
    ) -> TurnBuilder<'g> {
        TurnBuilder {
            gates,
            own_sidechain,
            options,
            parser: RecordParser::new(),
            open: Open::default(),
            next_index: 1,
            turns: vec![],
            lines: 0,
            corrupt: 0,
        }
    }

    fn line(&mut self, line: ChunkLine<'_>) {
        let bytes = line.bytes;
        if bytes.is_empty() {
            return;
        }
        self.lines += 1;
        // Classify by the top-level type where that is cheap (every
        // record but assistant lines, which are parsed anyway).
        match quick_type(bytes) {
            // A tool result is never a prompt, and nothing else in it
            // matters. Claude Code writes the block's type within the
            // line's first few hundred bytes; a line where it comes later
            // is parsed, which is slower but gives the same answer.
            Some(b"user")
                if tool_result_finder()
                    .find(&bytes[..bytes.len().min(4096)])
                    .is_some() =>
            {
                return
            }
            // Of the system records, only the Stop hooks' summary matters.
            Some(b"system") if summary_finder().find(bytes).is_none() => {
                return
            }
            Some(b"user" | b"assistant" | b"system") | None => {}
            Some(_) => return,
        }
        self.parser.reset();
        let parser = &self.parser;
        match parser.parse(bytes) {
            Ok(rec) => {
                let rec: Record<'_> = rec;
                Self::record(
                    &mut self.open,
                    &mut self.next_index,
                    &mut self.turns,
                    self.gates,
                    self.own_sidechain,
                    self.options,
                    &rec,
                )
            }
            Err(_) if line.terminated => self.corrupt += 1,
            Err(_) => {}
        }
    }

    fn record(
        open: &mut Open,
        next_index: &mut usize,
        turns: &mut Vec<TurnReport>,
        gates: &Gates,
        own_sidechain: bool,
        options: &ScanOptions,
        rec: &Record<'_>,
    ) {
        if rec.is_sidechain() && !own_sidechain {
            return;
        }
        match rec.record_type() {
            RecordType::User if is_prompt_shaped(rec) => {
                finish(open, turns, gates, options);
                *open = Open {
                    index: *next_index,
                    timestamp: rec.timestamp().map(str::to_string),
                    prompt: Some(prompt_text(rec)),
                    any: true,
                    ..Open::default()
                };
                *next_index += 1;
            }
            RecordType::Assistant => {
                open.any = true;
                if open.timestamp.is_none() {
                    open.timestamp = rec.timestamp().map(str::to_string);
                }
                for block in rec.content().blocks() {
                    if let Block::ToolUse(u) = block {
                        open.tool_uses.push(light_tool_call(
                            u.name().unwrap_or(""),
                            u.input(),
                        ));
                    }
                }
                if let Some(t) = last_text_any_chain(rec) {
                    open.final_text = Some(t.to_string());
                }
            }
            RecordType::System => {
                if let Some(summary) = rec.stop_hook_summary() {
                    open.hooks_ran.extend(
                        summary.commands.iter().map(|c| c.to_string()),
                    );
                    open.hook_blocked |= summary.prevented_continuation;
                }
            }
            _ => {}
        }
    }

    fn finish_turn(&mut self) {
        finish(&mut self.open, &mut self.turns, self.gates, self.options);
    }
}

fn summary_finder() -> &'static memmem::Finder<'static> {
    static FINDER: std::sync::OnceLock<memmem::Finder<'static>> =
        std::sync::OnceLock::new();
    FINDER.get_or_init(|| memmem::Finder::new(b"\"stop_hook_summary\""))
}

fn tool_result_finder() -> &'static memmem::Finder<'static> {
    static FINDER: std::sync::OnceLock<memmem::Finder<'static>> =
        std::sync::OnceLock::new();
    FINDER.get_or_init(|| memmem::Finder::new(b"\"tool_result\""))
}

/// A tool use with only what the gates read: the name, and a `Bash`
/// command. Keeping whole inputs (a `Write`'s content) would make memory
/// grow with the turn.
fn light_tool_call(name: &str, input: &serde_json::Value) -> ToolCall {
    let input = match input.get("command") {
        Some(c) if name == "Bash" => serde_json::json!({ "command": c }),
        _ => serde_json::Value::Null,
    };
    ToolCall::new(None, name.to_string(), input)
}

fn in_range(timestamp: Option<&str>, options: &ScanOptions) -> bool {
    let Some(date) = timestamp
        .and_then(|t| t.get(..10))
        .and_then(|d| d.parse::<jiff::civil::Date>().ok())
    else {
        return true;
    };
    options.since.is_none_or(|s| date >= s)
        && options.until.is_none_or(|u| date <= u)
}

fn finish(
    open: &mut Open,
    turns: &mut Vec<TurnReport>,
    gates: &Gates,
    options: &ScanOptions,
) {
    let t = std::mem::take(open);
    if !t.any || !in_range(t.timestamp.as_deref(), options) {
        return;
    }
    let changed = last_change(&t.tool_uses).is_some();
    let facts = Facts {
        final_text: t.final_text.as_deref().unwrap_or(""),
        prompt: t.prompt.as_deref(),
        tool_uses: &t.tool_uses,
        changed,
        stop_hook_active: false,
    };
    let found = gates.findings(&facts);
    let audit = match (&found.audit, found.hollow) {
        (_, Some(rule)) => format!("hollow:{}", rule.as_str()),
        (Some(AuditStatus::Present(_)), None) => "present".to_string(),
        (Some(AuditStatus::Escape(_)), None) => "escape".to_string(),
        _ => "absent".to_string(),
    };
    let mut findings = vec![];
    if changed && audit == "absent" {
        findings.push(Finding::UnauditedChange);
    }
    if found.hollow.is_some() {
        findings.push(Finding::HollowAudit);
    }
    if !found.deferral.is_empty() {
        findings.push(Finding::Deferral);
    }
    if !found.capitulation.is_empty() {
        findings.push(Finding::Capitulation);
    }
    if !found.unverified_claim.is_empty() {
        findings.push(Finding::UnverifiedClaim);
    }
    turns.push(TurnReport {
        turn: t.index,
        timestamp: t.timestamp,
        changed,
        audit,
        findings,
        hooks_ran: t.hooks_ran,
        hook_blocked: t.hook_blocked,
    });
}
