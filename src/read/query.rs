//! Queries that read only the bytes they need.
//!
//! Every query here walks lines from one end of the transcript and stops
//! as soon as it has its answer, so its cost depends on where the answer
//! lies, not on the size of the file. Two things keep the walk cheap:
//!
//! * a substring *prefilter* skips lines that cannot matter without
//!   parsing them (a `progress` line is about 70% of a real transcript);
//! * one [`RecordParser`] is reused, so its arena and simd-json's buffers
//!   are allocated once.
//!
//! The prefilters are sound: a line whose `type` is `"assistant"` must
//! hold the bytes `assistant`, or a `\u` escape spelling them.

use std::ops::ControlFlow;

use memchr::memmem;

use super::format::{Format, ENTRYPOINT_LINES};
use super::lines::{Line, Lines, RevLines};
use super::parsers::Parsers;
use super::record::{
    is_blank, Block, Content, Record, RecordParser, RecordType,
};
use super::sniff::{find_key, Needle};
use super::source::Transcript;

/// The head-scan never looks past this many bytes of the file.
pub const ENTRYPOINT_HEAD_BYTES: usize = 1 << 20;

/// Lines longer than this are not parsed by the head-scan, so a huge first
/// line costs nothing: only its first this-many bytes are searched for a
/// plain `"entrypoint":"…"` field. They still count towards
/// [`ENTRYPOINT_LINES`].
pub const ENTRYPOINT_MAX_LINE: usize = 64 << 10;

/// The last assistant text block of a transcript's main chain.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct FinalText {
    text: String,
    message_id: Option<String>,
    offset: u64,
    skipped_corrupt: usize,
}

impl FinalText {
    /// The text itself.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The `message.id` of the response it belongs to.
    pub fn message_id(&self) -> Option<&str> {
        self.message_id.as_deref()
    }

    /// The file offset of the line that holds it.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// How many corrupt lines the query passed over while looking.
    ///
    /// This counts only lines the query examined, not the whole file:
    /// counting the whole file would cost reading it.
    pub fn skipped_corrupt(&self) -> usize {
        self.skipped_corrupt
    }

    /// The text, taken out.
    pub fn into_text(self) -> String {
        self.text
    }
}

/// Every text block of the last assistant response of the main chain.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct FinalMessage {
    blocks: Vec<String>,
    message_id: Option<String>,
    offset: u64,
    skipped_corrupt: usize,
}

impl FinalMessage {
    /// The text blocks that share the last `message.id`, in order.
    pub fn blocks(&self) -> &[String] {
        &self.blocks
    }

    /// The blocks joined by blank lines.
    pub fn text(&self) -> String {
        self.blocks.join("\n\n")
    }

    /// The shared `message.id`, if the lines carry one.
    pub fn message_id(&self) -> Option<&str> {
        self.message_id.as_deref()
    }

    /// The file offset of the line that holds the last block.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// How many corrupt lines the query passed over while looking.
    pub fn skipped_corrupt(&self) -> usize {
        self.skipped_corrupt
    }
}

impl Transcript {
    /// How many non-empty lines [`Transcript::looks_like_transcript`] looks
    /// at.
    pub const RECORD_PROBE_LINES: usize = 64;

    /// The last `text` block of the main chain.
    ///
    /// Sidechain (subagent) lines are skipped, and so are the records that
    /// trail the last assistant line (`progress`, `system`, `attachment`,
    /// …). Text blocks that hold only whitespace are passed over. `None`
    /// means the transcript holds no assistant text.
    ///
    /// # Example
    ///
    /// ```
    /// use stopgate::read::Transcript;
    ///
    /// let jsonl = concat!(
    ///     r#"{"type":"user","message":{"role":"user","content":"fix it"}}"#, "\n",
    ///     r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Done."}]}}"#, "\n",
    ///     r#"{"type":"system","subtype":"turn_duration"}"#, "\n",
    /// );
    /// let t = Transcript::from_bytes(jsonl.as_bytes().to_vec());
    /// let last = t.final_assistant_text().unwrap();
    /// assert_eq!(last.text(), "Done.");
    /// assert_eq!(last.message_id(), Some("m1"));
    /// ```
    pub fn final_assistant_text(&self) -> Option<FinalText> {
        if self.format() != Format::Claude {
            return self.final_text_of_turns();
        }
        let base = self.base_offset();
        let mut parser = RecordParser::new();
        let mut found = None;
        let corrupt = walk_rev(
            self.as_bytes(),
            &mut parser,
            might_be_assistant,
            |line, rec| match last_text_of(rec) {
                Some(text) => {
                    found = Some((
                        text.to_string(),
                        message_id(rec),
                        line.offset(),
                    ));
                    ControlFlow::Break(())
                }
                None => ControlFlow::Continue(()),
            },
        );
        let (text, message_id, offset) = found?;
        Some(FinalText {
            text,
            message_id,
            offset: base + offset as u64,
            skipped_corrupt: corrupt,
        })
    }

    /// Every text block of the last assistant response of the main chain.
    ///
    /// The response is the one [`Transcript::final_assistant_text`] finds;
    /// its blocks are the text blocks of main-chain assistant lines that
    /// share its `message.id`, in file order.
    pub fn final_message(&self) -> Option<FinalMessage> {
        if self.format() != Format::Claude {
            let last = self.final_text_of_turns()?;
            return Some(FinalMessage {
                offset: last.offset,
                skipped_corrupt: last.skipped_corrupt,
                message_id: None,
                blocks: vec![last.text],
            });
        }
        let base = self.base_offset();
        let mut parser = RecordParser::new();
        let mut state: Option<FinalMessage> = None;
        let corrupt = walk_rev(
            self.as_bytes(),
            &mut parser,
            might_be_chat,
            |line, rec| {
                if rec.is_sidechain() {
                    return ControlFlow::Continue(());
                }
                match (&mut state, rec.record_type()) {
                    (None, RecordType::Assistant) => {
                        let Some(last) = last_text_index(rec) else {
                            return ControlFlow::Continue(());
                        };
                        let blocks = texts_of(rec, last + 1);
                        let message_id = message_id(rec);
                        let done = message_id.is_none();
                        state = Some(FinalMessage {
                            blocks,
                            message_id,
                            offset: base + line.offset() as u64,
                            skipped_corrupt: 0,
                        });
                        if done {
                            ControlFlow::Break(())
                        } else {
                            ControlFlow::Continue(())
                        }
                    }
                    (Some(msg), RecordType::Assistant)
                        if msg.message_id.as_deref()
                            == message_id_ref(rec) =>
                    {
                        let mut earlier = texts_of(rec, usize::MAX);
                        earlier.append(&mut msg.blocks);
                        msg.blocks = earlier;
                        ControlFlow::Continue(())
                    }
                    (Some(_), RecordType::Assistant | RecordType::User) => {
                        ControlFlow::Break(())
                    }
                    _ => ControlFlow::Continue(()),
                }
            },
        );
        let mut msg = state?;
        msg.skipped_corrupt = corrupt;
        Some(msg)
    }

    /// The final text of a Codex or Gemini transcript, read through the
    /// turn model: the current turn's, else the last turn's that has one.
    fn final_text_of_turns(&self) -> Option<FinalText> {
        let current = self.current_turn(super::turn::Chain::Main);
        let turn = match current.final_text() {
            Some(_) => current,
            None => self
                .turns(super::turn::Chain::Main)
                .into_iter()
                .rev()
                .find(|t| t.final_text().is_some())?,
        };
        Some(FinalText {
            text: turn.final_text()?.to_string(),
            message_id: None,
            offset: turn.final_text_offset()?,
            skipped_corrupt: turn.skipped_corrupt(),
        })
    }

    /// The session's `entrypoint`, such as `cli` or `sdk-cli`.
    ///
    /// It is read from the first 15 lines that are not
    /// bookkeeping, within the first MiB; lines
    /// longer than 64 KiB are not parsed but only searched
    /// near their start for the field. Any line in that
    /// range that carries the field answers, `progress` lines included.
    /// Older transcripts have no entrypoint at all, and a
    /// [`Transcript::read_tail`] window without the file's head answers
    /// `None`.
    pub fn entrypoint(&self) -> Option<String> {
        if !self.has_head() {
            return None;
        }
        let parsers = &mut Parsers::default();
        match entrypoint_in_head(self.as_bytes(), self.is_head_cut(), parsers)
        {
            HeadScan::Answer(e) => e,
            HeadScan::NeedMore => None,
        }
    }

    /// Whether the bytes look like a transcript at all: one of the first
    /// [`RECORD_PROBE_LINES`](Transcript::RECORD_PROBE_LINES) non-empty lines is a JSON object with a
    /// top-level `type`, as every record of Claude Code, Codex CLI and
    /// Gemini CLI is. An empty file, a binary one or plain text is not, and
    /// `check` and `last` say so instead of judging it. Only the head is
    /// looked at, so a transcript whose head was not read says no.
    ///
    /// # Example
    ///
    /// ```
    /// use stopgate::read::Transcript;
    ///
    /// let t = Transcript::from_bytes(b"{\"type\":\"user\"}\n".to_vec());
    /// assert!(t.looks_like_transcript());
    /// assert!(!Transcript::from_bytes(b"hello\n".to_vec()).looks_like_transcript());
    /// assert!(!Transcript::from_bytes(vec![]).looks_like_transcript());
    /// ```
    pub fn looks_like_transcript(&self) -> bool {
        self.has_head()
            && Lines::new(self.as_bytes())
                .filter(|l| !l.is_empty())
                .take(Transcript::RECORD_PROBE_LINES)
                .any(|l| {
                    matches!(
                        super::sniff::top_level_type(l.as_bytes()),
                        super::sniff::Sniff::Type(_)
                    )
                })
    }

    /// The `entrypoint` of the transcript at `path`, reading only its head.
    ///
    /// It reads 16 KiB (the first fifteen lines of a real session take
    /// about 8), then 64 KiB and up to 1 MiB only if a window ends before
    /// the scan does. The answer is the one
    /// [`Transcript::entrypoint`] gives on the whole file.
    ///
    /// # Errors
    ///
    /// When `path` does not exist, cannot be read, or is not a regular
    /// file (a special file is refused at once, never waited on).
    pub fn read_entrypoint<P: AsRef<std::path::Path>>(
        path: P,
    ) -> Result<Option<String>, crate::Error> {
        let path = path.as_ref();
        let parsers = &mut Parsers::default();
        for window in ENTRYPOINT_WINDOWS {
            let head = Transcript::read_head_regular(path, window as u64)?;
            let (bytes, cut) = (head.as_bytes(), head.is_head_cut());
            if let HeadScan::Answer(e) =
                entrypoint_in_head(bytes, cut, parsers)
            {
                return Ok(e);
            }
        }
        Ok(None)
    }
}

/// The head windows [`Transcript::read_entrypoint`] reads, each only if
/// the one before ended before the scan did. Every page read is a page
/// the hook touches, so the first is small.
const ENTRYPOINT_WINDOWS: [usize; 3] =
    [16 << 10, 64 << 10, ENTRYPOINT_HEAD_BYTES];

/// The entrypoint of a file read as a stream, from the bytes as they
/// arrive: the answer [`Transcript::read_entrypoint`] gives, without
/// opening and reading the file's head a second time.
///
/// It judges the same windows, each as soon as more than its bytes have
/// arrived (the file goes on past it), and keeps no bytes once it has its
/// answer.
#[derive(Debug, Default)]
pub(crate) struct HeadEntrypoint {
    head: Vec<u8>,
    /// The next of [`ENTRYPOINT_WINDOWS`] to judge.
    window: usize,
    answer: Option<Option<String>>,
    /// The parsers the windows are judged with, lent by the caller.
    parsers: Parsers,
}

impl HeadEntrypoint {
    /// The entrypoint of a stream not read yet, judged with `parsers`'s
    /// parsers ([`HeadEntrypoint::into_parsers`] gives them back).
    pub(crate) fn with_parsers(parsers: Parsers) -> HeadEntrypoint {
        HeadEntrypoint { parsers, ..HeadEntrypoint::default() }
    }

    /// The parsers lent to it.
    pub(crate) fn into_parsers(self) -> Parsers {
        self.parsers
    }

    /// The file's next bytes.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        if self.answer.is_some() {
            return;
        }
        if self.head.is_empty() {
            // The first read usually holds the first window and more:
            // judge it where it lies, without a copy.
            self.judge_windows(bytes);
            if self.answer.is_some() {
                return;
            }
        }
        // One byte past the last window says the file goes on.
        let room = (ENTRYPOINT_HEAD_BYTES + 1).saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..bytes.len().min(room)]);
        let head = std::mem::take(&mut self.head);
        self.judge_windows(&head);
        if self.answer.is_none() {
            self.head = head;
        }
    }

    /// Judge each window that `head` holds and goes on past.
    fn judge_windows(&mut self, head: &[u8]) {
        while let Some(&w) = ENTRYPOINT_WINDOWS.get(self.window) {
            if head.len() <= w {
                return;
            }
            self.window += 1;
            let window = &head[..w];
            let scan = entrypoint_in_head(window, true, &mut self.parsers);
            if let HeadScan::Answer(e) = scan {
                return self.answer_with(e);
            }
        }
        self.answer_with(None);
    }

    /// The file ended: judge what is left on the whole of it.
    pub(crate) fn finish(&mut self) {
        while self.answer.is_none() {
            let Some(&w) = ENTRYPOINT_WINDOWS.get(self.window) else {
                return self.answer_with(None);
            };
            self.window += 1;
            let cut = self.head.len() > w;
            let head = &self.head[..self.head.len().min(w)];
            let scan = entrypoint_in_head(head, cut, &mut self.parsers);
            if let HeadScan::Answer(e) = scan {
                self.answer_with(e);
            }
        }
    }

    /// The answer, once the bytes so far decide it.
    pub(crate) fn answer(&self) -> Option<Option<&str>> {
        self.answer.as_ref().map(Option::as_deref)
    }

    fn answer_with(&mut self, entrypoint: Option<String>) {
        self.answer = Some(entrypoint);
        self.head = Vec::new();
    }
}

/// The result of scanning a head window for the entrypoint.
pub(crate) enum HeadScan {
    /// The answer the whole file would give.
    Answer(Option<String>),
    /// The window ended before the scan did: read more.
    NeedMore,
}

/// The entrypoint from the head of a transcript's bytes.
///
/// See [`Transcript::entrypoint`] for the rules.
pub(crate) fn entrypoint_in_head(
    whole: &[u8],
    whole_is_cut: bool,
    parsers: &mut Parsers,
) -> HeadScan {
    let head = &whole[..whole.len().min(ENTRYPOINT_HEAD_BYTES)];
    let mut values = parsers.value_parser();
    let format = Format::of_with(head, &mut values);
    // The rollout's first line says where the session came from.
    let codex = (format == Format::Codex)
        .then(|| super::codex::entrypoint(head, &mut values));
    parsers.keep_value_parser(values);
    match format {
        Format::Codex => return HeadScan::Answer(codex.flatten()),
        // Gemini CLI records no entrypoint.
        Format::Gemini => return HeadScan::Answer(None),
        Format::Claude => {}
    }
    let mut records = parsers.record_parser();
    let scan = claude_entrypoint(whole, head, whole_is_cut, &mut records);
    parsers.keep_record_parser(records);
    scan
}

/// [`entrypoint_in_head`] of a Claude Code transcript: `head` is the
/// bound's part of `whole`.
fn claude_entrypoint(
    whole: &[u8],
    head: &[u8],
    whole_is_cut: bool,
    parser: &mut RecordParser,
) -> HeadScan {
    let head_is_cut = whole_is_cut || head.len() < whole.len();
    // A window shorter than the bound may cut a line the bound would hold.
    let short_window = whole_is_cut && head.len() < ENTRYPOINT_HEAD_BYTES;
    // Records seen that count towards the fifteen; and lines not parsed
    // yet, because they cannot name the entrypoint: they are parsed only
    // if whether they count matters.
    let mut counted = 0;
    let mut unsettled: Vec<&[u8]> = vec![];
    for line in Lines::new(head) {
        if counted + unsettled.len() >= ENTRYPOINT_LINES {
            counted += settle(&mut unsettled, parser);
            if counted >= ENTRYPOINT_LINES {
                break;
            }
        }
        let bytes = line.as_bytes();
        if line.is_empty() {
            continue;
        }
        // A line too big to parse, or cut by the byte bound: sniff its
        // start for the top-level field instead of parsing it.
        let cut = !line.is_terminated() && head_is_cut;
        if cut && short_window {
            return HeadScan::NeedMore;
        }
        if cut || bytes.len() > ENTRYPOINT_MAX_LINE {
            counted += 1;
            match sniff_entrypoint(
                &bytes[..bytes.len().min(ENTRYPOINT_MAX_LINE)],
            ) {
                Some(e) => return HeadScan::Answer(Some(e.to_string())),
                None => continue,
            }
        }
        if !may_name_entrypoint(bytes) {
            unsettled.push(bytes);
            continue;
        }
        parser.reset();
        let Ok(rec) = parser.parse(bytes) else { continue };
        if !counts_for_entrypoint(&rec) {
            continue;
        }
        counted += 1;
        if let Some(e) = rec.entrypoint() {
            return HeadScan::Answer(Some(e.to_string()));
        }
    }
    if short_window {
        counted += settle(&mut unsettled, parser);
    }
    if short_window && counted < ENTRYPOINT_LINES {
        return HeadScan::NeedMore;
    }
    HeadScan::Answer(None)
}

/// Whether a record counts towards the [`ENTRYPOINT_LINES`]: any but
/// bookkeeping and unknown ones.
fn counts_for_entrypoint(rec: &Record<'_>) -> bool {
    !matches!(rec.record_type(), RecordType::Bookkeeping | RecordType::Unknown)
}

/// Whether a line may carry an `entrypoint` field: it holds the word, or
/// a `\u` escape of one of its letters (`\u0065` for `e`, and so on),
/// with which a key may spell it. Other escapes, such as the `\u001b` of
/// terminal colours in tool output, cannot.
fn may_name_entrypoint(line: &[u8]) -> bool {
    static ENTRYPOINT: Needle = Needle::new(b"entrypoint");
    static LATIN_ESCAPE: Needle = Needle::new(b"\\u00");
    if ENTRYPOINT.find(line) {
        return true;
    }
    LATIN_ESCAPE.finder().find_iter(line).any(|at| {
        let hex = line.get(at + 4..at + 6).unwrap_or_default();
        let letters: &[&[u8]] =
            &[b"65", b"6e", b"74", b"72", b"79", b"70", b"6f", b"69"];
        letters.iter().any(|l| hex.eq_ignore_ascii_case(l))
    })
}

/// Parse the lines put aside, and say how many of them count towards the
/// [`ENTRYPOINT_LINES`].
fn settle(lines: &mut Vec<&[u8]>, parser: &mut RecordParser) -> usize {
    lines
        .drain(..)
        .filter(|line| {
            parser.reset();
            parser.parse(line).is_ok_and(|rec| counts_for_entrypoint(&rec))
        })
        .count()
}

/// Find `"entrypoint":"VALUE"` in the start of a line too big to parse.
///
/// Claude Code writes top-level scalar fields such as `entrypoint` before
/// `message`, so the field sits in the first bytes of even a 12 MB line. A
/// match whose first quote is escaped lies inside a string (a key that ends
/// `\"entrypoint`) and is passed over ([`find_key`]). VALUE must be a
/// short plain token, as every known entrypoint is.
pub(crate) fn sniff_entrypoint(prefix: &[u8]) -> Option<&str> {
    const KEY: &[u8] = b"\"entrypoint\":\"";
    let at = find_key(prefix, &memmem::Finder::new(KEY))? + KEY.len();
    let rest = &prefix[at..];
    let end = memchr::memchr(b'"', rest)?;
    let value = &rest[..end];
    let plain =
        |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.');
    if value.is_empty() || value.len() > 64 || !value.iter().all(plain) {
        return None;
    }
    std::str::from_utf8(value).ok()
}

/// Walk the lines of `bytes` from the last, parsing those that pass
/// `wanted`, and hand each record to `visit` until it breaks.
///
/// Returns the number of corrupt lines passed over. An unterminated last
/// line that does not parse is a line still being written: it is skipped
/// silently, per the truncated-tail rule. Empty lines are skipped
/// silently too.
pub(crate) fn walk_rev(
    bytes: &[u8],
    parser: &mut RecordParser,
    wanted: impl Fn(&[u8]) -> bool,
    mut visit: impl FnMut(Line<'_>, &Record<'_>) -> ControlFlow<()>,
) -> usize {
    let mut corrupt = 0;
    for line in RevLines::new(bytes) {
        if line.is_empty() || !wanted(line.as_bytes()) {
            continue;
        }
        parser.reset();
        match parser.parse(line.as_bytes()) {
            Ok(rec) => {
                if visit(line, &rec).is_break() {
                    break;
                }
            }
            Err(_) if line.is_terminated() => corrupt += 1,
            Err(_) => {}
        }
    }
    corrupt
}

/// Whether a line may be an assistant record.
pub(crate) fn might_be_assistant(line: &[u8]) -> bool {
    ASSISTANT.find(line) || ESCAPE.find(line)
}

/// Whether a line may be a user or an assistant record.
pub(crate) fn might_be_chat(line: &[u8]) -> bool {
    ASSISTANT.find(line) || USER.find(line) || ESCAPE.find(line)
}

static ASSISTANT: Needle = Needle::new(b"assistant");
static USER: Needle = Needle::new(b"user");
/// An escape, with which a record may spell its type.
static ESCAPE: Needle = Needle::new(b"\\u");

/// The last non-blank text of a main-chain assistant record.
pub(crate) fn last_text_of<'a>(rec: &Record<'a>) -> Option<&'a str> {
    if rec.is_sidechain() {
        return None;
    }
    last_text_any_chain(rec)
}

/// [`last_text_of`] without the main-chain condition, for subagent files.
pub(crate) fn last_text_any_chain<'a>(rec: &Record<'a>) -> Option<&'a str> {
    let i = last_text_position(rec)?;
    match rec.content() {
        Content::Text(t) => Some(*t),
        Content::Blocks(blocks) => match blocks[i] {
            Block::Text(t) => Some(t),
            _ => None,
        },
        Content::Absent => None,
    }
}

/// Where the last non-blank text of an assistant record is: the block's
/// index, or 0 for string content.
fn last_text_position(rec: &Record<'_>) -> Option<usize> {
    if rec.record_type() != RecordType::Assistant {
        return None;
    }
    match rec.content() {
        Content::Text(t) => Some(0).filter(|_| !is_blank(t)),
        Content::Blocks(blocks) => blocks
            .iter()
            .rposition(|b| matches!(b, Block::Text(t) if !is_blank(t))),
        Content::Absent => None,
    }
}

/// [`last_text_position`] on the main chain only.
fn last_text_index(rec: &Record<'_>) -> Option<usize> {
    if rec.is_sidechain() {
        return None;
    }
    last_text_position(rec)
}

/// The non-blank texts among the first `upto` blocks of a record.
fn texts_of(rec: &Record<'_>, upto: usize) -> Vec<String> {
    match rec.content() {
        Content::Text(t) if !is_blank(t) => vec![t.to_string()],
        Content::Blocks(blocks) => blocks
            .iter()
            .take(upto)
            .filter_map(|b| match b {
                Block::Text(t) if !is_blank(t) => Some(t.to_string()),
                _ => None,
            })
            .collect(),
        _ => vec![],
    }
}

fn message_id(rec: &Record<'_>) -> Option<String> {
    message_id_ref(rec).map(str::to_string)
}

fn message_id_ref<'a>(rec: &Record<'a>) -> Option<&'a str> {
    rec.message().and_then(|m| m.id())
}

#[cfg(test)]
mod head_tests {
    use super::*;
    use crate::read::format::ValueParser;

    /// The head-scan as first written, parsing every line: the oracle for
    /// the one that parses only lines that may name the entrypoint.
    fn naive(head: &[u8]) -> Option<String> {
        match Format::of(head) {
            Format::Codex => {
                return super::super::codex::entrypoint(
                    head,
                    &mut ValueParser::default(),
                )
            }
            Format::Gemini => return None,
            Format::Claude => {}
        }
        let mut parser = RecordParser::new();
        let mut counted = 0;
        for line in Lines::new(head) {
            if counted >= ENTRYPOINT_LINES {
                break;
            }
            if line.is_empty() {
                continue;
            }
            parser.reset();
            let Ok(rec) = parser.parse(line.as_bytes()) else { continue };
            if !counts_for_entrypoint(&rec) {
                continue;
            }
            counted += 1;
            if let Some(e) = rec.entrypoint() {
                return Some(e.to_string());
            }
        }
        None
    }

    const LINES: &[&str] = &[
        r#"{"type":"queue-operation","operation":"dequeue"}"#,
        r#"{"type":"file-history-snapshot","snapshot":{}}"#,
        r#"{"type":"user","message":{"role":"user","content":"hi"}}"#,
        r#"{"type":"user","entrypoint":"cli","message":{"content":"x"}}"#,
        r#"{"type":"progress","entrypoint":"sdk-cli"}"#,
        r#"{"type":"user","\u0065ntrypoint":"sdk-ts"}"#,
        r#"{"type":"user","entrypoi\u006Et":"sdk-py"}"#,
        r#"{"type":"user","message":{"content":"\u001b[31mred"}}"#,
        r#"{"type":"user","message":{"content":"what is an entrypoint?"}}"#,
        r#"{"type":"mystery","entrypoint":"other"}"#,
        r#"{"type":"assistant","message":{"content":[]}}"#,
        r#"{"type":"user","#,
        "not json",
        "",
    ];

    #[test]
    fn what_may_name_the_entrypoint() {
        assert!(may_name_entrypoint(br#"{"entrypoint":"cli"}"#));
        assert!(may_name_entrypoint(br#"{"\u0065ntrypoint":"cli"}"#));
        assert!(may_name_entrypoint(br#"{"entrypoi\u006Et":"cli"}"#));
        assert!(!may_name_entrypoint(br#"{"text":"\u001b[31mred"}"#));
        assert!(!may_name_entrypoint(br#"{"type":"user","cwd":"/w"}"#));
        assert!(!may_name_entrypoint(br"\u00"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        #[test]
        fn same_answer_as_parsing_every_line(
            picks in proptest::collection::vec(0..LINES.len(), 0..40),
        ) {
            let head: String =
                picks.iter().map(|&i| format!("{}\n", LINES[i])).collect();
            let parsers = &mut Parsers::default();
            let got = match entrypoint_in_head(head.as_bytes(), false, parsers)
            {
                HeadScan::Answer(e) => e,
                HeadScan::NeedMore => panic!("a whole file needs no more"),
            };
            proptest::prop_assert_eq!(got, naive(head.as_bytes()));
        }
    }
}

#[cfg(all(test, feature = "archive"))]
mod tests {
    use super::*;

    #[test]
    fn sniffed_entrypoints_pass_over_keys_that_end_in_an_escaped_quote() {
        let line = br#"{"x\"entrypoint":"sdk-cli","entrypoint":"cli"}"#;
        assert_eq!(sniff_entrypoint(line), Some("cli"));
        assert_eq!(sniff_entrypoint(br#"{"x\"entrypoint":"sdk-cli"}"#), None);
        assert_eq!(
            sniff_entrypoint(br#"{"entrypoint":"sdk-cli"}"#),
            Some("sdk-cli")
        );
    }

    /// What the stream learns, fed `chunk` bytes at a time.
    fn streamed(bytes: &[u8], chunk: usize) -> Option<String> {
        let mut head = HeadEntrypoint::default();
        for piece in bytes.chunks(chunk) {
            head.feed(piece);
        }
        head.finish();
        head.answer().expect("answered at the end").map(str::to_string)
    }

    fn user(entrypoint: Option<&str>) -> String {
        let mut v = serde_json::json!({"type": "user", "sessionId": "s",
            "message": {"role": "user", "content": "hi"}});
        if let Some(e) = entrypoint {
            v["entrypoint"] = e.into();
        }
        format!("{v}\n")
    }

    fn snapshot(pad: usize) -> String {
        let v = serde_json::json!({"type": "file-history-snapshot",
            "snapshot": {"pad": "x".repeat(pad)}});
        format!("{v}\n")
    }

    /// Heads that end each window's judgement a different way.
    fn cases() -> Vec<(String, Vec<u8>)> {
        let mut cases = vec![];
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/transcripts");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                let name = path.display().to_string();
                cases.push((name, std::fs::read(&path).unwrap()));
            }
        }
        // The answer past each window, and just inside the next.
        for pad in
            [1_000, 15_000, 16_300, 60_000, 70_000, 1_000_000, 1_100_000]
        {
            let text = format!("{}{}", snapshot(pad), user(Some("sdk-cli")));
            cases.push((format!("after {pad} bytes"), text.into_bytes()));
        }
        // Fifteen lines that say nothing, then one that does: too late.
        let quiet: String = (0..15).map(|_| user(None)).collect();
        cases.push((
            "too late".into(),
            format!("{quiet}{}", user(Some("cli"))).into(),
        ));
        // A first line too big to parse, which names it near its start.
        let big = format!(
            "{{\"type\":\"user\",\"entrypoint\":\"cli\",\"pad\":\"{}\"}}\n",
            "y".repeat(200_000)
        );
        cases.push(("big first line".into(), big.into_bytes()));
        // Exactly one window long, and CRLF endings.
        let mut exact = snapshot(16 << 10).into_bytes();
        exact.truncate(16 << 10);
        cases.push(("exactly 16 KiB".into(), exact));
        let crlf = format!("{}{}", snapshot(16_370), user(Some("sdk-ts")))
            .replace('\n', "\r\n");
        cases.push(("crlf".into(), crlf.into_bytes()));
        cases
    }

    #[test]
    fn the_stream_learns_what_the_head_read_says() {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in cases() {
            let path = dir.path().join("t.jsonl");
            std::fs::write(&path, &bytes).unwrap();
            let want = Transcript::read_entrypoint(&path).unwrap();
            for chunk in [1 << 20, 256 << 10, 65_537, 4096, 999] {
                assert_eq!(
                    streamed(&bytes, chunk),
                    want,
                    "{name}, {chunk}-byte chunks"
                );
            }
        }
    }
}
