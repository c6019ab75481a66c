//! Lines in, turns out, whichever agent wrote the lines.
//!
//! [`TurnReader`] is the one place that knows how each [`Format`] turns a
//! line into what the [`TurnBuilder`] is fed: Claude Code's records through
//! the lenient record parser, Codex CLI's rollout lines through
//! [`super::codex`], and Gemini CLI's log through [`super::gemini`]'s
//! replay, which hands its turns over at the end. The transcript's queries
//! and the archive scan both read through it, so a turn is built the same
//! way wherever it is read.

use super::codex;
use super::format::{Format, ValueParser};
use super::gemini::{self, Replay};
use super::record::RecordParser;
use super::turn::{Chain, LinePos, Need, Turn, TurnBuilder};
use crate::transcript::safe_id;

/// Reads one transcript's lines, in file order, into turns.
#[derive(Debug)]
pub struct TurnReader {
    format: Format,
    builder: TurnBuilder,
    records: RecordParser,
    values: ValueParser,
    replay: Replay,
    corrupt: usize,
    session_id: Option<String>,
    cwd: Option<String>,
}

impl TurnReader {
    #[cfg_attr(not(feature = "archive"), allow(dead_code))]
    /// A reader of lines in `format`, following `chain`, numbering turns
    /// from 1.
    pub fn new(format: Format, chain: Chain) -> TurnReader {
        TurnReader::numbered_from(format, chain, 1)
    }

    /// A reader whose first turn gets number `first` (0 when the lines do
    /// not start at the file's start).
    pub(super) fn numbered_from(
        format: Format,
        chain: Chain,
        first: usize,
    ) -> TurnReader {
        TurnReader {
            format,
            builder: TurnBuilder::numbered_from(chain, first),
            records: RecordParser::new(),
            values: ValueParser::default(),
            replay: Replay::default(),
            corrupt: 0,
            session_id: None,
            cwd: None,
        }
    }

    /// This reader, reading only what `need` asks of the lines.
    pub(super) fn needing(mut self, need: Need) -> TurnReader {
        self.builder = self.builder.needing(need);
        self
    }

    #[cfg_attr(not(feature = "archive"), allow(dead_code))]
    /// The format the reader reads.
    pub fn format(&self) -> Format {
        self.format
    }

    #[cfg_attr(not(feature = "archive"), allow(dead_code))]
    /// The session id the records carry (the first one), sanitised by
    /// [`safe_id`].
    pub fn session_id(&self) -> Option<&str> {
        self.session_id
            .as_deref()
            .or_else(|| self.replay.session_id())
            .and_then(safe_id)
    }

    #[cfg_attr(not(feature = "archive"), allow(dead_code))]
    /// The working directory the records carry (the first one); Gemini CLI
    /// records none.
    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref()
    }

    /// Whether the lines started after history they refer to (a Gemini
    /// `$rewindTo` to a message before them): the turns may be wrong, and
    /// a caller that read a window should read a larger one.
    pub fn lost_history(&self) -> bool {
        self.replay.lost_history()
    }

    /// Feed the next line (without its terminator). `terminated` says
    /// whether a newline ended it: an unterminated line that does not
    /// parse is an unfinished write, not a corrupt line. A turn the line
    /// finished is returned (never for Gemini CLI's log, whose turns are
    /// known only once it has been replayed to the end).
    pub fn line(
        &mut self,
        line: &[u8],
        terminated: bool,
        pos: LinePos,
    ) -> Option<Turn> {
        if line.is_empty() {
            return None;
        }
        let done = match self.format {
            Format::Claude => self.claude(line, terminated, pos),
            Format::Codex => self.codex(line, terminated, pos),
            Format::Gemini => self.gemini(line, terminated, pos),
        };
        done.map(|mut t| {
            t.add_corrupt(std::mem::take(&mut self.corrupt));
            t
        })
    }

    /// The turns not handed out yet, in order; the last is the one the
    /// lines ended in.
    pub fn finish(mut self) -> Vec<Turn> {
        let mut out = vec![];
        let replay = std::mem::take(&mut self.replay);
        replay.feed(&mut self.builder, |t| out.push(t));
        out.extend(self.builder.finish());
        if let Some(last) = out.last_mut() {
            last.add_corrupt(self.corrupt);
        }
        out
    }

    fn claude(
        &mut self,
        line: &[u8],
        terminated: bool,
        pos: LinePos,
    ) -> Option<Turn> {
        if !self.builder.wants(line) {
            return None;
        }
        self.records.reset();
        match self.records.parse(line) {
            Ok(rec) => {
                if self.session_id.is_none() {
                    self.session_id = rec.session_id().map(str::to_string);
                }
                if self.cwd.is_none() {
                    self.cwd = rec.cwd().map(str::to_string);
                }
                self.builder.push(&rec, pos)
            }
            Err(_) => {
                self.corrupt += usize::from(terminated);
                None
            }
        }
    }

    fn codex(
        &mut self,
        line: &[u8],
        terminated: bool,
        pos: LinePos,
    ) -> Option<Turn> {
        if !codex::wants(line) {
            return None;
        }
        if codex::skippable(line) {
            self.corrupt +=
                usize::from(terminated && !self.values.is_object(line));
            return None;
        }
        let Some(v) = self.values.parse(line) else {
            self.corrupt += usize::from(terminated);
            return None;
        };
        if v.get("type").and_then(|t| t.as_str()) == Some("session_meta") {
            if self.session_id.is_none() {
                let payload = v.get("payload");
                let field = |k: &str| {
                    payload
                        .and_then(|p| p.get(k))
                        .and_then(|s| s.as_str())
                        .map(str::to_string)
                };
                self.session_id = field("id").or_else(|| field("session_id"));
                self.cwd = field("cwd");
            }
            return None;
        }
        codex::push(&mut self.builder, &v, pos)
    }

    fn gemini(
        &mut self,
        line: &[u8],
        terminated: bool,
        pos: LinePos,
    ) -> Option<Turn> {
        if let Some(id) = gemini::tool_result_id(line) {
            if self.values.is_object(line) {
                self.replay.push_tool_results(id, pos);
            } else {
                self.corrupt += usize::from(terminated);
            }
            return None;
        }
        match self.values.parse(line) {
            Some(v) => self.replay.push(&v, pos),
            None => self.corrupt += usize::from(terminated),
        }
        None
    }
}

#[cfg(test)]
mod turn_reader_example {
    #[test]
    fn turn_reader() {
        use crate::transcript::reader::TurnReader;
        use crate::transcript::turn::{Chain, LinePos};
        use crate::transcript::Format;

        let rollout = [
            r#"{"type":"session_meta","payload":{"id":"s1","cwd":"/w","source":"cli"}}"#,
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"add a file"}]}}"#,
            r#"{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c1","input":"*** Begin Patch"}}"#,
            r#"{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}"#,
        ];
        let mut reader = TurnReader::new(Format::Codex, Chain::Main);
        for (i, line) in rollout.iter().enumerate() {
            let pos = LinePos { offset: 0, line: Some(i as u64 + 1) };
            assert!(reader.line(line.as_bytes(), true, pos).is_none());
        }
        assert_eq!(reader.session_id(), Some("s1"));
        let turns = reader.finish();
        assert_eq!(turns.len(), 1);
        assert!(turns[0].changed());
        assert_eq!(turns[0].final_text(), Some("Done."));
    }
}
