//! Lines in, turns out, whichever agent wrote the lines.
//!
//! [`TurnReader`] is the one place that knows how each [`Format`] turns a
//! line into what the [`TurnBuilder`] is fed: Claude Code's records through
//! the lenient record parser, Codex CLI's rollout lines through
//! [`super::codex`], and Gemini CLI's log through [`super::gemini`]'s
//! replay, which hands its turns over at the end. The transcript's queries
//! and the archive scan both read through it, so a turn is built the same
//! way wherever it is read.
//!
//! Most of an agent's text lines are narration between tool uses, and
//! only the last text of a turn is its final text. So a Claude Code line
//! whose bytes show it can give the turn nothing but text ([`Want::Text`])
//! is held back unparsed, and when the turn ends only the newest held
//! lines are parsed, until one has text. The turns are the same as when
//! every line is parsed (the tests here check it on every fixture, the
//! corpus and generated transcripts).

use super::builder::{Need, TurnBuilder};
use super::claude::Want;
use super::codex::{self, SessionMeta};
use super::format::{Format, ValueParser};
use super::gemini::{self, Replay};
use super::parsers::Parsers;
use super::record::RecordParser;
use super::sniff::quick_type;
use super::turn::safe_id;
use super::turn::{Chain, LinePos, Turn};

/// Reads one transcript's lines, in file order, into turns.
#[derive(Debug)]
pub struct TurnReader {
    format: Format,
    builder: TurnBuilder,
    records: RecordParser,
    values: ValueParser,
    replay: Replay,
    held: Held,
    /// Whether [`Want::Text`] lines are held back: off only in the tests
    /// that check holding against reading every line.
    hold: bool,
    corrupt: usize,
    session_id: Option<String>,
    cwd: Option<String>,
}

impl TurnReader {
    #[cfg_attr(not(feature = "archive"), allow(dead_code))]
    /// A reader of lines in `format`, following `chain`, numbering turns
    /// from 1, with parsers from `parsers` ([`TurnReader::finish`] gives
    /// them back).
    pub fn new(
        format: Format,
        chain: Chain,
        parsers: &mut Parsers,
    ) -> TurnReader {
        TurnReader::numbered_from(format, chain, 1, parsers)
    }

    /// A reader whose first turn gets number `first` (0 when the lines do
    /// not start at the file's start).
    pub(super) fn numbered_from(
        format: Format,
        chain: Chain,
        first: usize,
        parsers: &mut Parsers,
    ) -> TurnReader {
        TurnReader {
            format,
            builder: TurnBuilder::numbered_from(chain, first),
            records: parsers.record_parser(),
            values: parsers.value_parser(),
            replay: Replay::default(),
            held: Held::default(),
            hold: true,
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
    /// lines ended in. The reader's parsers go back to `parsers`.
    pub fn finish(mut self, parsers: &mut Parsers) -> Vec<Turn> {
        let mut out = vec![];
        self.held.release(&self.records, &mut self.builder, &mut self.corrupt);
        let replay = std::mem::take(&mut self.replay);
        replay.feed(&mut self.builder, |t| out.push(t));
        out.extend(self.builder.finish());
        if let Some(last) = out.last_mut() {
            last.add_corrupt(self.corrupt);
        }
        parsers.keep_record_parser(self.records);
        parsers.keep_value_parser(self.values);
        out
    }

    /// Give the reader's parsers back to `parsers`, unfinished.
    pub(crate) fn give_back(self, parsers: &mut Parsers) {
        parsers.keep_record_parser(self.records);
        parsers.keep_value_parser(self.values);
    }

    fn claude(
        &mut self,
        line: &[u8],
        terminated: bool,
        pos: LinePos,
    ) -> Option<Turn> {
        match self.builder.wants(line) {
            Want::Skip => return None,
            // Held only once the ids are known: each is the first line's.
            Want::Text
                if self.hold
                    && self.session_id.is_some()
                    && self.cwd.is_some()
                    && line.len() <= HELD_CAP
                    && looks_whole(line) =>
            {
                if self.held.bytes.len() + line.len() > HELD_CAP {
                    self.held.release(
                        &self.records,
                        &mut self.builder,
                        &mut self.corrupt,
                    );
                }
                self.held.push(line, terminated, pos);
                return None;
            }
            Want::Text | Want::Now => {}
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
                if self.builder.starts_turn(&rec) {
                    self.held.release(
                        &self.records,
                        &mut self.builder,
                        &mut self.corrupt,
                    );
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
        // A `session_meta` line is read for the session's ids alone.
        if quick_type(line) == Some(b"session_meta") {
            let Some(meta) = self.values.object::<SessionMeta>(line) else {
                self.corrupt += usize::from(terminated);
                return None;
            };
            if meta.is_session_meta() {
                self.learn_ids(&meta);
                return None;
            }
        }
        let Some(rollout) = self.values.object::<codex::Rollout>(line) else {
            self.corrupt += usize::from(terminated);
            return None;
        };
        if rollout.is_session_meta() {
            // Its type was not where the sniff reads it: read it again,
            // for the ids.
            if let Some(meta) = self.values.object::<SessionMeta>(line) {
                self.learn_ids(&meta);
            }
            return None;
        }
        codex::push(&mut self.builder, rollout, pos)
    }

    /// The ids of a Codex session, from its first `session_meta` line.
    fn learn_ids(&mut self, meta: &SessionMeta) {
        if self.session_id.is_none() {
            self.session_id = meta.session_id();
            self.cwd = meta.cwd();
        }
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
        match self.values.object::<gemini::Record>(line) {
            Some(r) => self.replay.push(r, pos),
            None => self.corrupt += usize::from(terminated),
        }
        None
    }
}

/// Whether a line passes the checks that catch the corrupt lines real
/// files hold (a write cut short, stray bytes, invalid UTF-8, a raw NUL):
/// framed as an object, valid UTF-8, no raw control byte. A line held back
/// may never be parsed, so only such a line is held, and the count of
/// corrupt lines misses only one that is broken inside its frame and whose
/// text a later line's supersedes.
fn looks_whole(line: &[u8]) -> bool {
    line.first() == Some(&b'{')
        && line.last() == Some(&b'}')
        && !has_control_byte(line)
        && simdutf8::basic::from_utf8(line).is_ok()
}

/// Whether `bytes` hold a byte below 0x20, in a loop the compiler turns
/// into vector code: a block at a time, each block without branches.
fn has_control_byte(bytes: &[u8]) -> bool {
    bytes
        .chunks(64)
        .any(|block| block.iter().fold(false, |seen, &b| seen | (b < 0x20)))
}

/// The most bytes of held lines a reader keeps; past it, they are settled
/// early, which gives the same turn.
const HELD_CAP: usize = 256 << 10;

/// Lines held back unparsed ([`Want::Text`]), oldest first: their bytes end
/// to end in one buffer, kept from turn to turn.
#[derive(Debug, Default)]
struct Held {
    bytes: Vec<u8>,
    lines: Vec<HeldLine>,
    /// Lines held in all, for the tests.
    #[cfg(test)]
    count: usize,
}

/// Where one held line is, in [`Held::bytes`] and in its file.
#[derive(Clone, Copy, Debug)]
struct HeldLine {
    end: usize,
    terminated: bool,
    pos: LinePos,
}

impl Held {
    fn push(&mut self, line: &[u8], terminated: bool, pos: LinePos) {
        #[cfg(test)]
        {
            self.count += 1;
        }
        self.bytes.extend_from_slice(line);
        self.lines.push(HeldLine { end: self.bytes.len(), terminated, pos });
    }

    /// Give `builder` what the held lines would have given it: the newest
    /// text among them, parsed newest first until one has some. The older
    /// lines stay unparsed, so a corrupt one among them goes uncounted, as
    /// does any line the builder never needed parsed.
    fn release(
        &mut self,
        records: &RecordParser,
        builder: &mut TurnBuilder,
        corrupt: &mut usize,
    ) {
        for (i, held) in self.lines.iter().enumerate().rev() {
            let start = i.checked_sub(1).map_or(0, |p| self.lines[p].end);
            match records.parse(&self.bytes[start..held.end]) {
                Ok(rec) => {
                    if builder.push_held(&rec, held.pos) {
                        break;
                    }
                }
                Err(_) => *corrupt += usize::from(held.terminated),
            }
        }
        self.lines.clear();
        self.bytes.clear();
    }
}

#[cfg(test)]
mod turn_reader_example {
    #[test]
    fn turn_reader() {
        use crate::read::reader::TurnReader;
        use crate::read::turn::{Chain, LinePos};
        use crate::read::Format;

        let rollout = [
            r#"{"type":"session_meta","payload":{"id":"s1","cwd":"/w","source":"cli"}}"#,
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"add a file"}]}}"#,
            r#"{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c1","input":"*** Begin Patch"}}"#,
            r#"{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}"#,
        ];
        let mut reader = TurnReader::new(
            Format::Codex,
            Chain::Main,
            &mut super::Parsers::default(),
        );
        for (i, line) in rollout.iter().enumerate() {
            let pos = LinePos { offset: 0, line: Some(i as u64 + 1) };
            assert!(reader.line(line.as_bytes(), true, pos).is_none());
        }
        assert_eq!(reader.session_id(), Some("s1"));
        let turns = reader.finish(&mut super::Parsers::default());
        assert_eq!(turns.len(), 1);
        assert!(turns[0].possible_changes().next().is_some());
        assert_eq!(turns[0].final_text(), Some("Done."));
    }
}

#[cfg(test)]
mod held_lines {
    //! Holding text-only lines back against parsing every line (the
    //! reader as it was): the same turns and the same count of corrupt
    //! lines, on every fixture, the corpus, and generated transcripts.

    use proptest::prelude::*;

    use super::TurnReader;
    use crate::read::lines::Lines;
    use crate::read::turn::{Chain, LinePos, Turn};
    use crate::read::Format;

    /// Every turn of `bytes`, how many corrupt lines were counted, and
    /// how many lines were held back.
    fn turns(bytes: &[u8], hold: bool) -> (Vec<Turn>, usize, usize) {
        let format = Format::of(bytes);
        let mut reader = TurnReader::new(
            format,
            Chain::Main,
            &mut super::Parsers::default(),
        );
        reader.hold = hold;
        let mut out = vec![];
        for (n, line) in Lines::new(bytes).enumerate() {
            let pos = LinePos {
                offset: line.offset() as u64,
                line: Some(n as u64 + 1),
            };
            out.extend(reader.line(
                line.as_bytes(),
                line.is_terminated(),
                pos,
            ));
        }
        let held = reader.held.count;
        out.extend(reader.finish(&mut super::Parsers::default()));
        let corrupt = out.iter().map(Turn::skipped_corrupt).sum();
        for t in &mut out {
            t.clear_corrupt();
        }
        (out, corrupt, held)
    }

    /// Checks the two ways agree on `bytes`; returns how many lines were
    /// held back.
    fn check(name: &str, bytes: &[u8]) -> usize {
        let (eager, eager_corrupt, _) = turns(bytes, false);
        let (held, held_corrupt, count) = turns(bytes, true);
        assert_eq!(held, eager, "{name}");
        assert_eq!(held_corrupt, eager_corrupt, "{name}");
        count
    }

    #[test]
    fn fixtures_and_corpus() {
        let files = crate::read::fixture_and_corpus_files();
        let held: usize = files
            .iter()
            .map(|p| {
                check(&p.display().to_string(), &std::fs::read(p).unwrap())
            })
            .sum();
        assert!(held > 0, "no line was held back");
    }

    #[test]
    fn narration_is_held_and_the_last_text_kept() {
        let lines = [
            r#"{"type":"user","sessionId":"s","cwd":"/w","timestamp":"t","message":{"role":"user","content":"go"}}"#,
            r#"{"sessionId":"s","cwd":"/w","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"Looking."}]},"type":"assistant"}"#,
            r#"{"sessionId":"s","cwd":"/w","timestamp":"t","message":{"role":"assistant","content":[{"type":"tool_use","id":"e","name":"Edit","input":{}}]},"type":"assistant"}"#,
            r#"{"sessionId":"s","cwd":"/w","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]},"type":"assistant"}"#,
            r#"{"sessionId":"s","cwd":"/w","timestamp":"t","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"}]},"type":"assistant"}"#,
        ];
        let bytes = lines.join("\n") + "\n";
        assert_eq!(check("narration", bytes.as_bytes()), 3);
        let (turns, _, _) = turns(bytes.as_bytes(), true);
        assert_eq!(turns.len(), 1);
        assert_eq!(turns[0].final_text(), Some("Done."));
        assert!(turns[0].possible_changes().next().is_some());
    }

    /// One line of a generated Claude Code transcript.
    fn line() -> impl Strategy<Value = String> {
        let text = prop_oneof![
            Just(String::new()),
            Just("  ".to_string()),
            "[a-z \"user\"]{1,12}",
        ];
        let ts = prop_oneof![
            Just(String::new()),
            Just(r#","timestamp":"2026-01-01T00:00:00Z""#.to_string()),
        ];
        let side = prop_oneof![Just("false"), Just("true")];
        (0..12u8, text, ts, side).prop_map(|(kind, text, ts, side)| {
            let text = serde_json::to_string(&text).unwrap();
            let head = format!(
                r#"{{"parentUuid":null,"isSidechain":{side},"sessionId":"s","cwd":"/w"{ts}"#
            );
            match kind {
                0 => format!(
                    r#"{head},"type":"user","message":{{"role":"user","content":{text}}}}}"#
                ),
                1 | 2 => format!(
                    r#"{head},"message":{{"role":"assistant","content":[{{"type":"text","text":{text}}}]}},"type":"assistant"}}"#
                ),
                3 => format!(
                    r#"{head},"message":{{"role":"assistant","content":[{{"type":"thinking","thinking":{text}}}]}},"type":"assistant"}}"#
                ),
                4 => format!(
                    r#"{head},"message":{{"role":"assistant","content":[{{"type":"tool_use","id":"t","name":"Edit","input":{{}}}}]}},"type":"assistant"}}"#
                ),
                5 => format!(
                    r#"{head},"message":{{"role":"assistant","content":[{{"type":"text","text":{text}}},{{"type":"tool_use","id":"b","name":"Bash","input":{{"command":"ls"}}}}]}},"type":"assistant"}}"#
                ),
                6 => format!(r#"{head},"type":"progress","data":{{"x":1}}}}"#),
                7 => format!(
                    r#"{head},"message":{{"role":"assistant","content":[{{"type":"text","text":{text}}}]}},"type":"assistant""#
                ),
                8 => format!(
                    r#"{head},"message":{{"role":"assistant","content":[{{"type":"tool_use","id":"k","name":"Task","input":{{"prompt":{text}}}}}]}},"type":"assistant"}}"#
                ),
                9 => format!(
                    r#"{head},"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"k","content":{text}}}]}},"toolUseResult":{{"agentId":"a1"}}}}"#
                ),
                10 => format!(
                    r#"{head},"type":"attachment","attachment":{{"type":"hook_blocking_error","command":{text}}}}}"#
                ),
                _ => format!(
                    r#"{head},"type":"system","subtype":"local_command","content":{text}}}"#
                ),
            }
        })
    }

    #[test]
    fn only_a_line_broken_inside_its_frame_goes_uncounted() {
        let prompt: &[u8] = br#"{"type":"user","sessionId":"s","cwd":"/w","timestamp":"t","message":{"role":"user","content":"go"}}"#;
        let done: &[u8] = br#"{"sessionId":"s","cwd":"/w","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]},"type":"assistant"}"#;
        // (line, counted when held): each is corrupt, and parsed eagerly
        // each is counted; held, only the one broken inside a good frame
        // is not, as "Done." supersedes it.
        let cases: [(&[u8], usize); 4] = [
            (br#"{"message":{"content":[{"type":"text","text":"cut"#, 1),
            (b"{\"message\":\"a raw \0 byte\"}", 1),
            (b"{\"message\":\"bad \xff bytes\"}", 1),
            (br#"{"message":{"content":[},"type":"assistant"}"#, 0),
        ];
        for (broken, counted) in cases {
            let bytes = [prompt, broken, done, b""].join(&b'\n');
            let name = String::from_utf8_lossy(broken);
            let (eager, eager_corrupt, _) = turns(&bytes, false);
            let (held, held_corrupt, _) = turns(&bytes, true);
            assert_eq!(held, eager, "{name}");
            assert_eq!(eager_corrupt, 1, "{name}");
            assert_eq!(held_corrupt, counted, "{name}");
        }
    }

    proptest! {
        #[test]
        fn control_bytes_found_as_a_naive_search_finds_them(
            mut bytes in prop::collection::vec(0x20u8.., 0..300),
            control in prop::option::of((any::<usize>(), 0u8..0x20)),
        ) {
            if let Some((at, b)) = control {
                bytes.insert(at % (bytes.len() + 1), b);
            }
            prop_assert_eq!(
                super::has_control_byte(&bytes),
                bytes.iter().any(|&b| b < 0x20),
            );
        }

        #[test]
        fn generated(lines in prop::collection::vec(line(), 0..40)) {
            let mut bytes = lines.join("\n");
            bytes.push('\n');
            check("generated", bytes.as_bytes());
        }
    }
}
