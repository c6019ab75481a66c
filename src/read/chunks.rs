//! Streaming lines out of a reader in fixed-size chunks.
//!
//! A reader of many files ([`StreamReader`](super::StreamReader)) must not
//! memory-map (a file truncated under a map kills the process, and maps
//! degrade under many threads) and must not read whole files (sessions
//! reach gigabytes). So each file is read in
//! chunks into one buffer, complete lines are handed out in place, and the
//! partial line at the end of a chunk is carried over to the front of the
//! buffer, like ripgrep's line buffer. The buffer grows only when a single
//! line outgrows it, and a line longer than the cap the caller gives is
//! not kept at all: its bytes are dropped as they arrive and it is handed
//! out as [`ChunkLine::too_long`]. So memory is bounded by the cap plus one
//! chunk, whatever the bytes of the file are.
//!
//! Lines follow the model of `Lines` (the read layer's line iterator): split at
//! `\n`, a trailing `\r` stripped, the bytes after the last `\n` an
//! unterminated line.

use std::io::{self, Read};
use std::ops::ControlFlow;

use memchr::memchr_iter;

/// The default chunk size: big enough that the syscall cost vanishes,
/// small enough to stay in L2.
pub const DEFAULT_CHUNK: usize = 256 << 10;

/// The default cap on a line's length: no transcript line of a real
/// session comes near it.
pub const DEFAULT_MAX_LINE: usize = 64 << 20;

/// One line handed out by [`for_each_line`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChunkLine<'a> {
    /// The line, without `\n` or `\r\n`; empty when the line was too
    /// long to keep.
    pub bytes: &'a [u8],
    /// Whether a `\n` ended it.
    pub terminated: bool,
    /// The line's byte offset in the stream.
    pub offset: u64,
    /// Whether the line was longer than the cap, and so skipped.
    pub too_long: bool,
}

impl ChunkLine<'_> {
    fn skipped(offset: u64, terminated: bool) -> ChunkLine<'static> {
        ChunkLine { bytes: &[], terminated, offset, too_long: true }
    }
}

fn strip_cr(b: &[u8]) -> &[u8] {
    b.strip_suffix(b"\r").unwrap_or(b)
}

/// Call `f` on every line of `reader`, reading `chunk` bytes at a time
/// into `buffer`, which a reader of many files keeps from one to the next
/// (a new one would be zeroed, a chunk's worth, for every file).
///
/// A line longer than `max_line` bytes is handed out once, with no bytes
/// and [`ChunkLine::too_long`] set. When `f` breaks, no more is read.
/// Returns the number of bytes read. The biggest buffer it holds is about
/// `max_line` plus `chunk` (twice that while it grows); a buffer a long
/// line grew is not kept.
pub(crate) fn for_each_line<R: Read>(
    mut reader: R,
    (chunk, max_line): (usize, usize),
    buffer: &mut Vec<u8>,
    mut f: impl FnMut(ChunkLine<'_>) -> ControlFlow<()>,
) -> io::Result<u64> {
    let chunk = chunk.max(1);
    let buf = std::mem::take(buffer);
    let mut w = Window { buf, start: 0, end: 0, base: 0 };
    let mut total = 0u64;
    // The offset of a line over the cap whose bytes are being dropped.
    let mut skipping: Option<u64> = None;
    loop {
        w.make_room(chunk);
        let n = match reader.read(&mut w.buf[w.end..w.end + chunk]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                keep(w.buf, chunk, buffer);
                return Err(e);
            }
        };
        total += n as u64;
        let scan_from = w.end;
        w.end += n;
        if w.hand_out(scan_from, max_line, &mut skipping, &mut f).is_break() {
            keep(w.buf, chunk, buffer);
            return Ok(total);
        }
    }
    let _ = if let Some(at) = skipping {
        f(ChunkLine::skipped(at, false))
    } else if w.start < w.end {
        f(w.line(w.start, w.end, false, max_line))
    } else {
        ControlFlow::Continue(())
    };
    keep(w.buf, chunk, buffer);
    Ok(total)
}

/// The bytes read and not yet handed out, `buf[start..end]`; `buf[0]`
/// stands at stream offset `base`.
struct Window {
    buf: Vec<u8>,
    start: usize,
    end: usize,
    base: u64,
}

impl Window {
    /// Room for `chunk` more bytes after `end`: the unconsumed bytes move
    /// to the front, and the buffer grows only when that is not enough.
    fn make_room(&mut self, chunk: usize) {
        if self.buf.len() - self.end >= chunk {
            return;
        }
        if self.start > 0 {
            self.base += self.start as u64;
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.buf.len() - self.end < chunk {
            self.buf.resize(self.end + chunk, 0);
        }
    }

    /// Hand `f` every line that ends in `buf[scan_from..end]`, and mark
    /// the rest unconsumed; a line over `max_line` is `skipping` until its
    /// end comes, its bytes dropped as they arrive.
    fn hand_out(
        &mut self,
        scan_from: usize,
        max_line: usize,
        skipping: &mut Option<u64>,
        f: &mut impl FnMut(ChunkLine<'_>) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mut pos = self.start;
        for nl in memchr_iter(b'\n', &self.buf[scan_from..self.end]) {
            let nl = scan_from + nl;
            let line = match skipping.take() {
                Some(at) => ChunkLine::skipped(at, true),
                None => self.line(pos, nl, true, max_line),
            };
            f(line)?;
            pos = nl + 1;
        }
        self.start = pos;
        if skipping.is_none() && self.end - self.start > max_line {
            *skipping = Some(self.base + self.start as u64);
        }
        if skipping.is_some() {
            // Drop what is held of the line; only its end is looked for.
            self.start = self.end;
        }
        ControlFlow::Continue(())
    }

    /// The line `buf[from..to]`, or its skipped form when over `max_line`.
    fn line(
        &self,
        from: usize,
        to: usize,
        terminated: bool,
        max_line: usize,
    ) -> ChunkLine<'_> {
        let offset = self.base + from as u64;
        if to - from > max_line {
            return ChunkLine::skipped(offset, terminated);
        }
        ChunkLine {
            bytes: strip_cr(&self.buf[from..to]),
            terminated,
            offset,
            too_long: false,
        }
    }
}

/// Keep `buf` in `buffer` for the next file, unless a long line grew it:
/// a scan's memory between files stays near a chunk per thread.
fn keep(buf: Vec<u8>, chunk: usize, buffer: &mut Vec<u8>) {
    if buf.len() <= 2 * chunk {
        *buffer = buf;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::lines::Lines;

    fn collect(data: &[u8], chunk: usize) -> Vec<(Vec<u8>, bool)> {
        collect_capped(data, chunk, usize::MAX)
    }

    fn collect_capped(
        data: &[u8],
        chunk: usize,
        max: usize,
    ) -> Vec<(Vec<u8>, bool)> {
        let mut out = vec![];
        for_each_line(data, (chunk, max), &mut vec![], |l| {
            if l.too_long {
                out.push((b"<too long>".to_vec(), l.terminated));
                return ControlFlow::Continue(());
            }
            let at = l.offset as usize;
            assert_eq!(&data[at..at + l.bytes.len()], l.bytes);
            out.push((l.bytes.to_vec(), l.terminated));
            ControlFlow::Continue(())
        })
        .unwrap();
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        #[test]
        fn same_lines_as_the_slice_iterator(
            data in proptest::collection::vec(proptest::sample::select(vec![b'\n', b'\r', b'a', b'{']), 0..200),
            chunk in 1usize..40,
        ) {
            let want: Vec<(Vec<u8>, bool)> =
                Lines::new(&data).map(|l| (l.as_bytes().to_vec(), l.is_terminated())).collect();
            proptest::prop_assert_eq!(collect(&data, chunk), want);
        }
    }

    #[test]
    fn long_lines_grow_the_buffer() {
        let mut data = vec![b'x'; 10_000];
        data.push(b'\n');
        data.extend_from_slice(b"tail");
        assert_eq!(
            collect(&data, 7),
            vec![(vec![b'x'; 10_000], true), (b"tail".to_vec(), false)]
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        #[test]
        fn capped_lines_match_the_slice_iterator(
            data in proptest::collection::vec(proptest::sample::select(vec![b'\n', b'a', b'b']), 0..200),
            chunk in 1usize..40,
            max in 0usize..20,
        ) {
            let want: Vec<(Vec<u8>, bool)> = Lines::new(&data)
                .map(|l| {
                    let bytes = if l.as_bytes().len() > max {
                        b"<too long>".to_vec()
                    } else {
                        l.as_bytes().to_vec()
                    };
                    (bytes, l.is_terminated())
                })
                .collect();
            proptest::prop_assert_eq!(collect_capped(&data, chunk, max), want);
        }
    }

    #[test]
    fn a_line_over_the_cap_is_not_kept() {
        // 64 MiB of one line, read with a 1 MiB cap: the buffer stays
        // near the cap.
        struct Endless(u64);
        impl Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = (buf.len() as u64).min(self.0) as usize;
                buf[..n].fill(b'x');
                self.0 -= n as u64;
                Ok(n)
            }
        }
        let reader = Endless(64 << 20).chain(&b"\nok\n"[..]);
        let mut lines = vec![];
        for_each_line(reader, (4096, 1 << 20), &mut vec![], |l| {
            lines.push((l.too_long, l.offset, l.bytes.to_vec()));
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(
            lines,
            vec![(true, 0, vec![]), (false, (64 << 20) + 1, b"ok".to_vec())]
        );
    }
}
