//! Transcripts read as streams, one after another, into turns.
//!
//! A reader of many files (an archive scan, a fleet's workers) reads each
//! one forward, once, in chunks ([`super::chunks`]): it must not
//! memory-map (a file truncated under a map kills the process, where a
//! read only ends early) nor read whole (sessions reach gigabytes).
//! [`StreamReader`] is that reader. It learns a file's format from its
//! first lines and its entrypoint from its head as the bytes stream past,
//! and hands out each turn as the next one starts, so memory is bounded by
//! a turn and a line, not by the file.
//!
//! It keeps its buffer and its parsers' space from one file to the next,
//! as grep-searcher's `Searcher` keeps its buffers: reading ten thousand
//! small files costs what their bytes do, not ten thousand allocations of
//! each parser (see `parsers.rs`).

use std::cell::RefCell;
use std::io;
use std::ops::ControlFlow;
use std::path::Path;

use super::chunks::{
    for_each_line, ChunkLine, DEFAULT_CHUNK, DEFAULT_MAX_LINE,
};
use super::format::{Format, PROBE_LINES};
use super::parsers::Parsers;
use super::query::HeadEntrypoint;
use super::reader::TurnReader;
use super::source::open_regular;
use super::turn::{Chain, LinePos, Turn};
use crate::error::Error;

/// Reads transcripts as streams into turns, file after file, keeping its
/// buffer and parsers from one to the next.
///
/// # Example
///
/// ```
/// use std::ops::ControlFlow;
///
/// use stopgate::read::{Chain, StreamReader};
///
/// let jsonl = concat!(
///     r#"{"type":"user","entrypoint":"cli","message":{"role":"user","content":"fix it"}}"#, "\n",
///     r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Fixed."}]}}"#, "\n",
///     r#"{"type":"user","message":{"role":"user","content":"thanks"}}"#, "\n",
/// );
/// let mut reader = StreamReader::new();
/// let mut texts = vec![];
/// let read = reader.read_slice(jsonl.as_bytes(), Chain::Main, &mut |turn, _| {
///     texts.push(turn.final_text().map(str::to_string));
///     ControlFlow::Continue(())
/// });
/// assert_eq!(texts, [Some("Fixed.".to_string()), None]);
/// assert_eq!(read.entrypoint(), Some("cli"));
/// assert_eq!((read.lines(), read.corrupt()), (3, 0));
/// ```
pub struct StreamReader {
    chunk: usize,
    max_line: usize,
    buffer: Vec<u8>,
    /// The parsers of a file's turns and of its format's probe.
    parsers: Parsers,
    /// The parsers its head's entrypoint is judged with, alive beside
    /// those.
    head: Parsers,
}

impl std::fmt::Debug for StreamReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamReader")
            .field("chunk", &self.chunk)
            .field("max_line", &self.max_line)
            .field("buffer_capacity", &self.buffer.capacity())
            .finish_non_exhaustive()
    }
}

impl Default for StreamReader {
    fn default() -> StreamReader {
        StreamReader::new()
    }
}

/// What the reader knows of a stream when it hands out a turn.
#[derive(Clone, Copy, Debug)]
pub struct StreamSoFar<'a> {
    format: Format,
    entrypoint: EntrypointSoFar<'a>,
}

impl<'a> StreamSoFar<'a> {
    /// The agent whose format the lines are in.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The session's entrypoint, as far as the bytes read so far tell.
    pub fn entrypoint(&self) -> EntrypointSoFar<'a> {
        self.entrypoint
    }
}

/// The session's entrypoint, as far as the bytes read so far tell: a turn
/// handed out before the head was read whole comes with `Pending`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntrypointSoFar<'a> {
    /// The bytes read so far do not decide it.
    Pending,
    /// The answer [`Transcript::entrypoint`](super::source::Transcript::entrypoint)
    /// gives on the whole file.
    Known(Option<&'a str>),
}

/// What reading one stream found, besides its turns.
#[derive(Debug, Default)]
pub struct StreamSummary {
    bytes: u64,
    lines: u64,
    corrupt: u64,
    too_long: u64,
    format: Format,
    session_id: Option<String>,
    cwd: Option<String>,
    entrypoint: Option<String>,
    error: Option<io::Error>,
}

impl StreamSummary {
    /// The bytes read; 0 when a read error ended the read
    /// ([`StreamSummary::error`]).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The physical lines seen, empty ones included.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// The corrupt lines passed over (invalid JSON, invalid UTF-8).
    pub fn corrupt(&self) -> u64 {
        self.corrupt
    }

    /// The lines longer than the reader's cap
    /// ([`StreamReader::max_line`]), skipped unread.
    pub fn too_long(&self) -> u64 {
        self.too_long
    }

    /// The agent whose format the lines are in.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The session id the records carry, when they carry one.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The working directory the records carry (the first one).
    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref()
    }

    /// The session's entrypoint ([`Transcript::entrypoint`](super::source::Transcript::entrypoint)).
    pub fn entrypoint(&self) -> Option<&str> {
        self.entrypoint.as_deref()
    }

    /// The error that ended the read early, if one did: the turns handed
    /// out are those of the bytes read before it.
    pub fn error(&self) -> Option<&io::Error> {
        self.error.as_ref()
    }
}

impl StreamReader {
    /// A reader with the default chunk (256 KiB) and line cap (64 MiB).
    pub fn new() -> StreamReader {
        StreamReader {
            chunk: DEFAULT_CHUNK,
            max_line: DEFAULT_MAX_LINE,
            buffer: vec![],
            parsers: Parsers::default(),
            head: Parsers::default(),
        }
    }

    /// Read `bytes` at a time (at least one).
    pub fn chunk_size(mut self, bytes: usize) -> StreamReader {
        self.chunk = bytes.max(1);
        self
    }

    /// Skip, unread, every line longer than `bytes`: memory stays bounded
    /// by the cap and a chunk, whatever a file holds.
    pub fn max_line(mut self, bytes: usize) -> StreamReader {
        self.max_line = bytes;
        self
    }

    /// Read the transcript at `path`, handing each turn on `chain` to
    /// `sink` as the next one starts, the last when the file ends; when
    /// the sink breaks, the read stops there.
    ///
    /// The turns are as the file holds them: the work of the subagents
    /// they launched is not folded in, nor are an interrupted turn's
    /// changes carried to the next (the archive scan does both, as
    /// [`Transcript::turns_with_subagents`](super::source::Transcript::turns_with_subagents)
    /// does for a file read whole).
    ///
    /// # Errors
    ///
    /// When `path` cannot be opened or is not a regular file (a FIFO is
    /// refused at once, never waited on). An error while reading ends the
    /// read and is in [`StreamSummary::error`].
    pub fn read_path(
        &mut self,
        path: &Path,
        chain: Chain,
        sink: &mut dyn FnMut(Turn, StreamSoFar<'_>) -> ControlFlow<()>,
    ) -> Result<StreamSummary, Error> {
        let (file, _) = open_regular(path)?;
        Ok(self.read_stream(file, chain, sink))
    }

    /// [`StreamReader::read_path`] of a transcript's bytes.
    pub fn read_slice(
        &mut self,
        bytes: &[u8],
        chain: Chain,
        sink: &mut dyn FnMut(Turn, StreamSoFar<'_>) -> ControlFlow<()>,
    ) -> StreamSummary {
        self.read_stream(bytes, chain, sink)
    }

    /// [`StreamReader::read_path`] of any reader.
    pub fn read_stream<R: io::Read>(
        &mut self,
        stream: R,
        chain: Chain,
        sink: &mut dyn FnMut(Turn, StreamSoFar<'_>) -> ControlFlow<()>,
    ) -> StreamSummary {
        let parsers = std::mem::take(&mut self.head);
        let head = RefCell::new(HeadEntrypoint::with_parsers(parsers));
        let tee = HeadTee { inner: stream, head: &head };
        let mut file = FileLines {
            chain,
            sink,
            head: &head,
            parsers: &mut self.parsers,
            reader: None,
            pending: vec![],
            summary: StreamSummary::default(),
            stopped: false,
        };
        let sizes = (self.chunk, self.max_line);
        match for_each_line(tee, sizes, &mut self.buffer, |l| file.line(l)) {
            Ok(n) => file.summary.bytes = n,
            Err(e) => file.summary.error = Some(e),
        }
        // A read that failed saw no end: the head read so far decides.
        head.borrow_mut().finish();
        let mut summary = file.finish();
        let head = head.into_inner();
        summary.entrypoint = head.answer().flatten().map(str::to_string);
        self.head = head.into_parsers();
        summary
    }
}

/// A reader that shows the bytes it reads to a [`HeadEntrypoint`], until
/// it has its answer.
struct HeadTee<'h, R> {
    inner: R,
    head: &'h RefCell<HeadEntrypoint>,
}

impl<R: io::Read> io::Read for HeadTee<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut head = self.head.borrow_mut();
        if head.answer().is_none() {
            if n == 0 {
                head.finish();
            } else {
                head.feed(&buf[..n]);
            }
        }
        Ok(n)
    }
}

/// One stream's lines on their way to turns.
struct FileLines<'a> {
    chain: Chain,
    sink: &'a mut dyn FnMut(Turn, StreamSoFar<'_>) -> ControlFlow<()>,
    head: &'a RefCell<HeadEntrypoint>,
    parsers: &'a mut Parsers,
    /// The reader of the file's format, made once a line tells the
    /// format ([`Format::of_line`]); until then, the lines read so far.
    reader: Option<TurnReader>,
    pending: Vec<(Vec<u8>, bool, LinePos)>,
    summary: StreamSummary,
    /// Whether the sink broke: no more turns are wanted.
    stopped: bool,
}

impl FileLines<'_> {
    fn line(&mut self, line: ChunkLine<'_>) -> ControlFlow<()> {
        self.summary.lines += 1;
        if line.too_long {
            self.summary.too_long += 1;
            return ControlFlow::Continue(());
        }
        if line.bytes.is_empty() {
            return ControlFlow::Continue(());
        }
        let at = Some(self.summary.lines);
        let pos = LinePos { offset: line.offset, line: at };
        match &mut self.reader {
            Some(reader) => {
                if let Some(done) =
                    reader.line(line.bytes, line.terminated, pos)
                {
                    let format = reader.format();
                    self.emit(done, format);
                }
            }
            // The format is the first that one of the first lines tells,
            // as `Format::of` has it; the lines before wait for it.
            None => {
                self.pending.push((line.bytes.to_vec(), line.terminated, pos));
                let mut probe = self.parsers.value_parser();
                let format = Format::of_line_with(line.bytes, &mut probe);
                self.parsers.keep_value_parser(probe);
                match format {
                    Some(format) => self.start_reading(format),
                    None if self.pending.len() >= PROBE_LINES => {
                        self.start_reading(Format::default())
                    }
                    None => {}
                }
            }
        }
        if self.stopped {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }

    /// Make the reader of `format`, and feed it the lines read so far.
    fn start_reading(&mut self, format: Format) {
        let mut reader = TurnReader::new(format, self.chain, self.parsers);
        for (bytes, terminated, pos) in std::mem::take(&mut self.pending) {
            if let Some(done) = reader.line(&bytes, terminated, pos) {
                self.emit(done, format);
            }
        }
        self.reader = Some(reader);
    }

    /// Hand `turn`, read in `format`, to the sink, with the entrypoint as
    /// far as it is known.
    fn emit(&mut self, turn: Turn, format: Format) {
        if self.stopped {
            return;
        }
        self.summary.corrupt += turn.skipped_corrupt() as u64;
        let head = self.head.borrow();
        let entrypoint = match head.answer() {
            Some(e) => EntrypointSoFar::Known(e),
            None => EntrypointSoFar::Pending,
        };
        let flow = (self.sink)(turn, StreamSoFar { format, entrypoint });
        self.stopped = flow.is_break();
    }

    /// The stream ended: the turns not handed out yet, then the summary.
    fn finish(mut self) -> StreamSummary {
        if self.reader.is_none() && !self.pending.is_empty() {
            self.start_reading(Format::default());
        }
        if let Some(reader) = self.reader.take() {
            self.summary.format = reader.format();
            self.summary.session_id = reader.session_id().map(str::to_string);
            self.summary.cwd = reader.cwd().map(str::to_string);
            let format = reader.format();
            if self.stopped {
                reader.give_back(self.parsers);
            } else {
                for turn in reader.finish(self.parsers) {
                    self.emit(turn, format);
                }
            }
        }
        self.summary
    }
}
