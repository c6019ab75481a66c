//! The scan's rows as Arrow record batches (the `arrow` feature).
//!
//! A team that audits a fleet's transcripts processes them where they
//! already sit, with the engines it already runs (Spark, Ray, DuckDB,
//! Polars), and those speak Arrow. Handing them columns rather than JSON
//! text means no engine parses the scan's output again, and the rows keep
//! their types: a timestamp is a timestamp, a finding's evidence a list of
//! structs.
//!
//! Two tables come out of a scan:
//!
//! * **turns** ([`turn_schema`]): one row per turn (every turn, or those
//!   with findings), the columns of `stopgate scan --format jsonl`;
//! * **files** ([`file_schema`]): one row per file scanned, with what was
//!   read and why a file could not be, so that a file that failed stays
//!   visible in a distributed run, where no one reads each worker's
//!   stderr.
//!
//! [`TurnBatches`] and [`FileBatches`] take [`FileReport`]s as a scan hands
//! them out and give record batches when asked.
//!
//! # Example
//!
//! ```
//! use stopgate::archive::{self, arrow::TurnBatches, ScanOptions};
//! use stopgate::{config::Config, judge::Judge};
//!
//! let judge = Judge::for_bulk(&Config::default())?;
//! let line = br#"{"type":"user","sessionId":"s1","message":{"role":"user","content":"hi"}}"#;
//! let report = archive::scan_bytes(
//!     "s1.jsonl".as_ref(),
//!     line,
//!     &judge,
//!     &ScanOptions::default(),
//! );
//! let mut turns = TurnBatches::new(true);
//! turns.push(&report);
//! let batch = turns.finish();
//! assert_eq!(batch.num_rows(), 1);
//! assert_eq!(batch.schema(), archive::arrow::turn_schema());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::{Arc, OnceLock};

use arrow_array::builder::{
    BooleanBuilder, Int64Builder, ListBuilder, StringBuilder,
    TimestampMicrosecondBuilder,
};
use arrow_array::{Array, ArrayRef, ListArray, RecordBatch, StructArray};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};

use super::scan::{Evidence, FileReport, TurnReport};

/// How many rows a batch holds, for those who cut batches as rows gather
/// (`scan --format parquet`, the Python package): large enough that a
/// batch's fixed costs vanish, small enough that one is a few MB.
pub const BATCH_ROWS: usize = 8192;

/// The schema of the turns table, in column order:
///
/// | column | type | |
/// |---|---|---|
/// | `key` | utf8 | unique to the row: `session#turn`, or `session@file#turn` |
/// | `file` | utf8 | the file's path (bytes that are not UTF-8 as `\xNN`) |
/// | `session_id` | utf8 | |
/// | `project` | utf8, nullable | the folder the session ran in |
/// | `turn` | int64 | 1 for the first prompt, 0 for what comes before one |
/// | `kind` | utf8 | what started the turn |
/// | `timestamp` | timestamp (µs, UTC), nullable | the prompt's; null when missing or unreadable |
/// | `entrypoint` | utf8, nullable | |
/// | `agent` | utf8 | `claude`, `codex` or `gemini` |
/// | `changed` | bool | a tool use changed files |
/// | `audit` | utf8 | `present`, `plain`, `grounded`, `uncertain`, `absent`, `hollow:<rule>`, … |
/// | `findings` | list of struct | `finding`, `rule`: utf8; `line`: int64, nullable; `excerpt`: utf8; `matched`: list of utf8 |
/// | `subagents` | list of utf8 | |
/// | `hooks_ran` | list of utf8 | the Stop hooks that ran after the turn |
/// | `hook_blocked` | bool | |
/// | `hook_blocks` | int64 | |
/// | `changes` | list of utf8 | where the turn's changes came from |
/// | `note` | utf8, nullable | what to know about the file |
pub fn turn_schema() -> SchemaRef {
    static SCHEMA: OnceLock<SchemaRef> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            Arc::new(Schema::new(vec![
                utf8("key", false),
                utf8("file", false),
                utf8("session_id", false),
                utf8("project", true),
                Field::new("turn", DataType::Int64, false),
                utf8("kind", false),
                Field::new("timestamp", timestamp_type(), true),
                utf8("entrypoint", true),
                utf8("agent", false),
                Field::new("changed", DataType::Boolean, false),
                utf8("audit", false),
                Field::new_list("findings", finding_item(), false),
                utf8_list("subagents"),
                utf8_list("hooks_ran"),
                Field::new("hook_blocked", DataType::Boolean, false),
                Field::new("hook_blocks", DataType::Int64, false),
                utf8_list("changes"),
                utf8("note", true),
            ]))
        })
        .clone()
}

/// The schema of the files table, in column order: `file`, `session_id`,
/// `agent`: utf8; `subagent`: bool; `bytes`, `lines`, `corrupt`
/// (corrupt lines skipped), `too_long` (lines over the cap, skipped),
/// `turns`: int64; `error` (why the file could not be read) and `note`:
/// utf8, nullable.
pub fn file_schema() -> SchemaRef {
    static SCHEMA: OnceLock<SchemaRef> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let count = |name| Field::new(name, DataType::Int64, false);
            Arc::new(Schema::new(vec![
                utf8("file", false),
                utf8("session_id", false),
                utf8("agent", false),
                Field::new("subagent", DataType::Boolean, false),
                count("bytes"),
                count("lines"),
                count("corrupt"),
                count("too_long"),
                count("turns"),
                utf8("error", true),
                utf8("note", true),
            ]))
        })
        .clone()
}

fn utf8(name: &str, nullable: bool) -> Field {
    Field::new(name, DataType::Utf8, nullable)
}

/// A list of strings, as [`ListBuilder`] makes it.
fn utf8_list(name: &str) -> Field {
    Field::new_list(name, Field::new_list_field(DataType::Utf8, true), false)
}

fn timestamp_type() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
}

/// The fields of one finding's struct.
fn finding_fields() -> Fields {
    Fields::from(vec![
        utf8("finding", false),
        utf8("rule", false),
        Field::new("line", DataType::Int64, true),
        utf8("excerpt", false),
        utf8_list("matched"),
    ])
}

/// The item of the `findings` list.
fn finding_item() -> Field {
    Field::new_list_field(DataType::Struct(finding_fields()), false)
}

/// Turn rows gathered from file reports, given out as record batches of
/// [`turn_schema`].
#[derive(Debug)]
pub struct TurnBatches {
    all_turns: bool,
    rows: usize,
    key: StringBuilder,
    file: StringBuilder,
    session_id: StringBuilder,
    project: StringBuilder,
    turn: Int64Builder,
    kind: StringBuilder,
    timestamp: TimestampMicrosecondBuilder,
    entrypoint: StringBuilder,
    agent: StringBuilder,
    changed: BooleanBuilder,
    audit: StringBuilder,
    findings: FindingColumns,
    subagents: ListBuilder<StringBuilder>,
    hooks_ran: ListBuilder<StringBuilder>,
    hook_blocked: BooleanBuilder,
    hook_blocks: Int64Builder,
    changes: ListBuilder<StringBuilder>,
    note: StringBuilder,
}

impl TurnBatches {
    /// Rows of every turn when `all_turns` (as `scan --all-turns`), else of
    /// the turns with findings.
    pub fn new(all_turns: bool) -> TurnBatches {
        TurnBatches {
            all_turns,
            rows: 0,
            key: StringBuilder::new(),
            file: StringBuilder::new(),
            session_id: StringBuilder::new(),
            project: StringBuilder::new(),
            turn: Int64Builder::new(),
            kind: StringBuilder::new(),
            timestamp: TimestampMicrosecondBuilder::new().with_timezone("UTC"),
            entrypoint: StringBuilder::new(),
            agent: StringBuilder::new(),
            changed: BooleanBuilder::new(),
            audit: StringBuilder::new(),
            findings: FindingColumns::default(),
            subagents: ListBuilder::new(StringBuilder::new()),
            hooks_ran: ListBuilder::new(StringBuilder::new()),
            hook_blocked: BooleanBuilder::new(),
            hook_blocks: Int64Builder::new(),
            changes: ListBuilder::new(StringBuilder::new()),
            note: StringBuilder::new(),
        }
    }

    /// Add the rows of one file's turns.
    pub fn push(&mut self, report: &FileReport) {
        let file = report.path_text();
        for turn in &report.turns {
            if self.all_turns || !turn.findings.is_empty() {
                self.push_turn(report, &file, turn);
            }
        }
    }

    fn push_turn(&mut self, report: &FileReport, file: &str, t: &TurnReport) {
        self.rows += 1;
        self.key.append_value(report.turn_key(t));
        self.file.append_value(file);
        self.session_id.append_value(&report.session_id);
        self.project.append_option(report.project.as_deref());
        self.turn.append_value(count(t.turn));
        self.kind.append_value(t.kind.as_str());
        self.timestamp.append_option(t.timestamp.as_deref().and_then(micros));
        self.entrypoint.append_option(report.entrypoint.as_deref());
        self.agent.append_value(report.agent.as_str());
        self.changed.append_value(t.changed);
        self.audit.append_value(&t.audit);
        self.findings.push(&t.findings);
        append_strings(&mut self.subagents, &t.subagents);
        append_strings(&mut self.hooks_ran, &t.hooks_ran);
        self.hook_blocked.append_value(t.hook_blocked);
        self.hook_blocks.append_value(count(t.hook_blocks));
        append_strings(&mut self.changes, &t.changes);
        self.note.append_option(report.note.as_deref());
    }

    /// How many rows are waiting for [`TurnBatches::finish`].
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether no row is waiting.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The rows gathered since the last batch, as one batch; the builder
    /// is then empty.
    pub fn finish(&mut self) -> RecordBatch {
        self.rows = 0;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.key.finish()),
            Arc::new(self.file.finish()),
            Arc::new(self.session_id.finish()),
            Arc::new(self.project.finish()),
            Arc::new(self.turn.finish()),
            Arc::new(self.kind.finish()),
            Arc::new(self.timestamp.finish()),
            Arc::new(self.entrypoint.finish()),
            Arc::new(self.agent.finish()),
            Arc::new(self.changed.finish()),
            Arc::new(self.audit.finish()),
            Arc::new(self.findings.finish()),
            Arc::new(self.subagents.finish()),
            Arc::new(self.hooks_ran.finish()),
            Arc::new(self.hook_blocked.finish()),
            Arc::new(self.hook_blocks.finish()),
            Arc::new(self.changes.finish()),
            Arc::new(self.note.finish()),
        ];
        RecordBatch::try_new(turn_schema(), columns)
            .expect("the builders make the schema's columns")
    }
}

/// The `findings` column: a list per row of structs, built as flat child
/// columns (one entry per finding) and the list's offsets.
#[derive(Debug, Default)]
struct FindingColumns {
    per_row: Vec<usize>,
    finding: StringBuilder,
    rule: StringBuilder,
    line: Int64Builder,
    excerpt: StringBuilder,
    matched: ListBuilder<StringBuilder>,
}

impl FindingColumns {
    fn push(&mut self, findings: &[Evidence]) {
        self.per_row.push(findings.len());
        for e in findings {
            self.finding.append_value(e.finding.as_str());
            self.rule.append_value(e.rule.as_str());
            self.line.append_option(e.line.map(count));
            self.excerpt.append_value(&e.excerpt);
            append_strings(&mut self.matched, &e.matched);
        }
    }

    fn finish(&mut self) -> ListArray {
        let children: Vec<ArrayRef> = vec![
            Arc::new(self.finding.finish()),
            Arc::new(self.rule.finish()),
            Arc::new(self.line.finish()),
            Arc::new(self.excerpt.finish()),
            Arc::new(self.matched.finish()),
        ];
        let structs = StructArray::new(finding_fields(), children, None);
        let lengths = std::mem::take(&mut self.per_row);
        let offsets = OffsetBuffer::from_lengths(lengths);
        let list = ListArray::new(
            Arc::new(finding_item()),
            offsets,
            Arc::new(structs) as ArrayRef,
            None,
        );
        debug_assert_eq!(list.null_count(), 0);
        list
    }
}

/// File rows gathered from file reports, given out as record batches of
/// [`file_schema`].
#[derive(Debug, Default)]
pub struct FileBatches {
    rows: usize,
    file: StringBuilder,
    session_id: StringBuilder,
    agent: StringBuilder,
    subagent: BooleanBuilder,
    bytes: Int64Builder,
    lines: Int64Builder,
    corrupt: Int64Builder,
    too_long: Int64Builder,
    turns: Int64Builder,
    error: StringBuilder,
    note: StringBuilder,
}

impl FileBatches {
    /// No rows yet.
    pub fn new() -> FileBatches {
        FileBatches::default()
    }

    /// Add one file's row.
    pub fn push(&mut self, r: &FileReport) {
        self.rows += 1;
        self.file.append_value(r.path_text());
        self.session_id.append_value(&r.session_id);
        self.agent.append_value(r.agent.as_str());
        self.subagent.append_value(r.subagent);
        self.bytes.append_value(count(r.bytes));
        self.lines.append_value(count(r.lines));
        self.corrupt.append_value(count(r.corrupt));
        self.too_long.append_value(count(r.too_long));
        self.turns.append_value(count(r.turns.len()));
        self.error.append_option(r.error.as_deref());
        self.note.append_option(r.note.as_deref());
    }

    /// How many rows are waiting for [`FileBatches::finish`].
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether no row is waiting.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The rows gathered since the last batch, as one batch; the builder
    /// is then empty.
    pub fn finish(&mut self) -> RecordBatch {
        self.rows = 0;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.file.finish()),
            Arc::new(self.session_id.finish()),
            Arc::new(self.agent.finish()),
            Arc::new(self.subagent.finish()),
            Arc::new(self.bytes.finish()),
            Arc::new(self.lines.finish()),
            Arc::new(self.corrupt.finish()),
            Arc::new(self.too_long.finish()),
            Arc::new(self.turns.finish()),
            Arc::new(self.error.finish()),
            Arc::new(self.note.finish()),
        ];
        RecordBatch::try_new(file_schema(), columns)
            .expect("the builders make the schema's columns")
    }
}

/// Append one row's list of strings.
fn append_strings(list: &mut ListBuilder<StringBuilder>, items: &[String]) {
    for s in items {
        list.values().append_value(s);
    }
    list.append(true);
}

/// A count as Arrow's int64 (no count here comes near `i64::MAX`).
fn count<N: TryInto<i64>>(n: N) -> i64 {
    n.try_into().unwrap_or(i64::MAX)
}

/// A transcript's timestamp (RFC 3339) as microseconds since the epoch,
/// if it reads as one.
fn micros(s: &str) -> Option<i64> {
    let t: jiff::Timestamp = s.parse().ok()?;
    Some(t.as_microsecond())
}

#[cfg(test)]
mod tests {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int64Type, TimestampMicrosecondType};

    use super::*;
    use crate::archive::{scan_file, ScanOptions};
    use crate::config::Config;
    use crate::judge::Judge;

    fn fixture(name: &str) -> FileReport {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/transcripts")
            .join(name);
        let judge = Judge::for_bulk(&Config::default()).unwrap();
        scan_file(&path, &judge, &ScanOptions::default())
    }

    #[test]
    fn every_turn_is_a_row_with_its_findings() {
        let report = fixture("gate_findings.jsonl");
        assert!(report.turns.iter().any(|t| !t.findings.is_empty()));
        let mut all = TurnBatches::new(true);
        all.push(&report);
        assert_eq!(all.len(), report.turns.len());
        let batch = all.finish();
        assert!(all.is_empty());
        assert_eq!(batch.num_rows(), report.turns.len());
        let findings = batch.column(11).as_list::<i32>();
        let turns = batch.column(4).as_primitive::<Int64Type>();
        for (i, t) in report.turns.iter().enumerate() {
            assert_eq!(turns.value(i), t.turn as i64);
            let row = findings.value(i);
            let row = row.as_struct();
            assert_eq!(row.len(), t.findings.len());
            let names = row.column(0).as_string::<i32>();
            for (j, e) in t.findings.iter().enumerate() {
                assert_eq!(names.value(j), e.finding.as_str());
            }
        }
        let mut flagged = TurnBatches::new(false);
        flagged.push(&report);
        let want = report.turns.iter().filter(|t| !t.findings.is_empty());
        assert_eq!(flagged.finish().num_rows(), want.count());
    }

    #[test]
    fn timestamps_are_utc_microseconds() {
        assert_eq!(micros("1970-01-01T00:00:01.5Z"), Some(1_500_000));
        assert_eq!(
            micros("2026-03-20T10:00:00+09:00"),
            Some(1_773_968_400_000_000)
        );
        assert_eq!(micros("yesterday"), None);
        let report = fixture("gate_findings.jsonl");
        let mut all = TurnBatches::new(true);
        all.push(&report);
        let batch = all.finish();
        let ts = batch.column(6).as_primitive::<TimestampMicrosecondType>();
        for (i, t) in report.turns.iter().enumerate() {
            let want = t.timestamp.as_deref().and_then(micros);
            assert_eq!(ts.is_valid(i).then(|| ts.value(i)), want);
        }
    }

    #[test]
    fn a_file_that_cannot_be_read_is_a_row_with_its_error() {
        let judge = Judge::for_bulk(&Config::default()).unwrap();
        let missing = std::path::Path::new("/nonexistent/x.jsonl");
        let report = scan_file(missing, &judge, &ScanOptions::default());
        let mut files = FileBatches::new();
        files.push(&report);
        files.push(&fixture("gate_findings.jsonl"));
        let batch = files.finish();
        assert_eq!(batch.schema(), file_schema());
        let errors = batch.column(9).as_string::<i32>();
        assert!(errors.is_valid(0) && !errors.value(0).is_empty());
        assert!(errors.is_null(1));
        let empty = TurnBatches::new(true).finish();
        assert_eq!((empty.num_rows(), empty.schema()), (0, turn_schema()));
    }
}
