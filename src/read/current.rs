//! The current turn and every turn, of a transcript in any format: the
//! walk back from the end to the turn's start, then a read forward.
//!
//! A Stop hook asks for the current turn of a session that may hold a
//! gigabyte, so the walk starts at the end and reads only the turn: tail
//! windows that double until one holds its prompt. Each format says what
//! starts a turn ([`turn`](super::turn) for Claude Code,
//! [`codex`](super::codex) and [`gemini`](super::gemini) for the others),
//! and the [`TurnReader`] reads the turn forward from there.

use std::ops::ControlFlow;
use std::path::Path;

use super::builder::Need;
use super::claude::{might_start_turn, turn_start};
use super::codex;
use super::format::{Format, ValueParser};
use super::gemini;
use super::lines::{Lines, RevLines};
use super::parsers::Parsers;
use super::query::walk_rev;
use super::reader::TurnReader;
use super::record::RecordParser;
use super::source::Transcript;
use super::turn::{Back, Chain, LinePos, Turn};

/// Where a walk back ended.
enum WalkBack {
    Start(usize),
    NoStart,
    Rewritten,
}

/// The first tail window [`Transcript::read_current_turn`] reads.
const TURN_WINDOW: u64 = 64 << 10;

/// The most [`Transcript::read_current_turn`] reads of one turn.
pub(super) const TURN_MAX_BYTES: u64 = 64 << 20;

impl Transcript {
    /// The current turn of the transcript at `path`, reading only its end.
    ///
    /// Tail windows of 64 KiB, 128 KiB, … are read until one holds the
    /// turn's prompt (or the whole file), so the cost is that of the turn,
    /// not of the file, and a concurrent truncation cannot raise `SIGBUS`.
    /// A turn longer than 64 MiB is cut there: its prompt is
    /// then `None` and its tool uses are the last ones, which bounds the
    /// time and memory a hook can spend on one pathological turn, whatever
    /// the bytes are (a last line of 600 MB with no newline included).
    ///
    /// # Errors
    ///
    /// When `path` does not exist, cannot be read, or is not a regular
    /// file (a special file is refused at once, never waited on).
    pub fn read_current_turn<P: AsRef<Path>>(
        path: P,
        chain: Chain,
    ) -> Result<Turn, crate::Error> {
        let turn = Transcript::read_tail_within(
            path.as_ref(),
            TURN_WINDOW,
            TURN_MAX_BYTES,
            |t, last| {
                let turn = t.current_turn(chain);
                (turn.prompt().is_some() || last).then_some(turn)
            },
        )?;
        Ok(turn.unwrap_or_default())
    }

    /// The current turn: from the last line that starts a turn on `chain`
    /// to the end.
    ///
    /// It walks back from the end to that line, parsing only lines that
    /// could start a turn, then feeds the turn's lines forward to a
    /// turn builder; so it costs what the turn costs, not what the file
    /// does.
    ///
    /// # Example
    ///
    /// ```
    /// use stopgate::read::Chain;
    /// use stopgate::read::Transcript;
    ///
    /// let jsonl = concat!(
    ///     r#"{"type":"user","message":{"content":"add a test"}}"#, "\n",
    ///     r#"{"type":"assistant","message":{"id":"a","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"x.rs"}}]}}"#, "\n",
    ///     r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1"}]}}"#, "\n",
    ///     r#"{"type":"assistant","message":{"id":"b","content":[{"type":"text","text":"Added."}]}}"#, "\n",
    /// );
    /// let t = Transcript::from_bytes(jsonl.as_bytes().to_vec());
    /// let turn = t.current_turn(Chain::Main);
    /// assert_eq!(turn.prompt().unwrap().text(), "add a test");
    /// assert_eq!(turn.tool_uses()[0].name(), "Write");
    /// assert_eq!(turn.tool_uses()[0].path(), Some("x.rs"));
    /// assert_eq!(turn.possible_changes().count(), 1);
    /// assert_eq!(turn.final_text(), Some("Added."));
    /// ```
    pub fn current_turn(&self, chain: Chain) -> Turn {
        let bytes = self.as_bytes();
        match self.format() {
            Format::Claude => {}
            Format::Codex => return self.current_turn_codex(chain),
            // A whole log is replayed whole, as the client replays it; a
            // tail window (the hook's) is read from its last prompt.
            Format::Gemini if self.has_head() => {
                return self
                    .turns_from(chain, 0, |_| ControlFlow::Continue(()))
                    .unwrap_or_default()
            }
            Format::Gemini => return self.current_turn_gemini(chain),
        }
        let mut parser = RecordParser::new();
        let mut start = None;
        let corrupt =
            walk_rev(bytes, &mut parser, might_start_turn, |line, rec| {
                let own = chain == Chain::Subagent || !rec.is_sidechain();
                if own && turn_start(rec).is_some() {
                    start = Some(line.offset());
                    return ControlFlow::Break(());
                }
                ControlFlow::Continue(())
            });
        let from = start.unwrap_or(0);
        let mut turn = self
            .turns_from(chain, from, |_| ControlFlow::Continue(()))
            .unwrap_or_default();
        turn.add_corrupt(corrupt);
        turn
    }

    /// The current turn of a Codex rollout: as for Claude Code, a walk
    /// back to the last line that starts a turn ([`codex::back`]),
    /// then the turn's lines forward.
    fn current_turn_codex(&self, chain: Chain) -> Turn {
        let start = match self.walk_back(codex::back) {
            WalkBack::Start(at) => at,
            WalkBack::NoStart | WalkBack::Rewritten => 0,
        };
        self.turns_from(chain, start, |_| ControlFlow::Continue(()))
            .unwrap_or_default()
    }

    /// The current turn of a tail window of a Gemini log: a walk back to
    /// the last prompt ([`gemini::back`]), then a replay from it.
    /// That is what the whole log's replay gives unless a message written
    /// before the prompt is rewritten after it (the client rewrites only
    /// the message it is writing, so this does not happen in its logs: the
    /// window reads such a rewrite as a new message), or history was
    /// rewritten after the prompt (a `$rewindTo`, a `$set` of the
    /// messages), or the replay meets a rewind to a message before it:
    /// then the window is replayed from further back
    /// ([`Transcript::current_turn_forward`]).
    fn current_turn_gemini(&self, chain: Chain) -> Turn {
        if let WalkBack::Start(start) = self.walk_back(gemini::back) {
            let mut lost = false;
            let turn = self.turns_from_tracking(
                chain,
                (Need::Turns, start),
                &mut lost,
                &mut Parsers::default(),
                |_| ControlFlow::Continue(()),
            );
            if !lost {
                return turn.unwrap_or_default();
            }
        }
        self.current_turn_forward(chain)
    }

    /// Walk back from the end to the last line that starts a turn, as
    /// `judge` (a format's) tells, parsing only what it parses.
    fn walk_back(
        &self,
        judge: fn(&[u8], &mut ValueParser) -> Back,
    ) -> WalkBack {
        let mut values = ValueParser::default();
        for line in RevLines::new(self.as_bytes()) {
            if line.is_empty() {
                continue;
            }
            match judge(line.as_bytes(), &mut values) {
                Back::Pass => {}
                Back::Start => return WalkBack::Start(line.offset()),
                Back::Rewritten => return WalkBack::Rewritten,
            }
        }
        WalkBack::NoStart
    }

    /// The current turn of a Gemini log, replayed forward: tail
    /// windows of 64 KiB, 128 KiB, … of the bytes are read forward until
    /// one holds the turn's prompt, so the cost is the turn's.
    fn current_turn_forward(&self, chain: Chain) -> Turn {
        let bytes = self.as_bytes();
        let mut window = TURN_WINDOW as usize;
        loop {
            let start =
                line_start_after(bytes, bytes.len().saturating_sub(window));
            let mut lost = false;
            let turn = self
                .turns_from_tracking(
                    chain,
                    (Need::Turns, start),
                    &mut lost,
                    &mut Parsers::default(),
                    |_| ControlFlow::Continue(()),
                )
                .unwrap_or_default();
            if start == 0 || (turn.prompt().is_some() && !lost) {
                return turn;
            }
            window = window.saturating_mul(2);
        }
    }

    /// Every turn of the transcript on `chain`, in order.
    pub fn turns(&self, chain: Chain) -> Vec<Turn> {
        let mut out = vec![];
        let last = self.turns_from(chain, 0, |t| {
            out.push(t);
            ControlFlow::Continue(())
        });
        out.extend(last);
        out
    }

    /// Feed the lines from byte `from` on to a reader of the transcript's
    /// format; hand finished turns to `each`, and return the last,
    /// unfinished one.
    ///
    /// Turns and lines are numbered only when `from` is the file's start.
    fn turns_from(
        &self,
        chain: Chain,
        from: usize,
        each: impl FnMut(Turn) -> ControlFlow<()>,
    ) -> Option<Turn> {
        let parsers = &mut Parsers::default();
        self.turns_from_tracking(
            chain,
            (Need::Turns, from),
            &mut false,
            parsers,
            each,
        )
    }

    /// [`Transcript::turns_from`], reading what `need` asks from byte
    /// `from` on, with parsers from `parsers`; it also says whether the
    /// lines referred to history before `from`
    /// ([`TurnReader::lost_history`]).
    pub(super) fn turns_from_tracking(
        &self,
        chain: Chain,
        (need, from): (Need, usize),
        lost_history: &mut bool,
        parsers: &mut Parsers,
        mut each: impl FnMut(Turn) -> ControlFlow<()>,
    ) -> Option<Turn> {
        let bytes = &self.as_bytes()[from..];
        let base = self.base_offset();
        let numbered = self.has_head() && from == 0;
        let mut line_no = numbered.then_some(0u64);
        let mut reader = TurnReader::numbered_from(
            self.format(),
            chain,
            usize::from(numbered),
            parsers,
        )
        .needing(need);
        for line in Lines::new(bytes) {
            line_no = line_no.map(|n| n + 1);
            let pos = LinePos {
                offset: base + (from + line.offset()) as u64,
                line: line_no,
            };
            let done = reader.line(line.as_bytes(), line.is_terminated(), pos);
            if let Some(done) = done {
                if each(done).is_break() {
                    reader.give_back(parsers);
                    return None;
                }
            }
        }
        *lost_history = reader.lost_history();
        let mut rest = reader.finish(parsers);
        let last = rest.pop();
        for t in rest {
            if each(t).is_break() {
                return None;
            }
        }
        last
    }
}

/// The start of the first line at or after `at`: `at` itself when it is
/// the start of the bytes or follows a newline.
fn line_start_after(bytes: &[u8], at: usize) -> usize {
    if at == 0 || bytes.get(at - 1) == Some(&b'\n') {
        return at;
    }
    memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i + 1)
}
