//! Streaming lines out of a reader in fixed-size chunks.
//!
//! A directory scan must not memory-map (a file truncated under a map
//! kills the process, and maps degrade under many threads) and must not
//! read whole files (sessions reach gigabytes). So each file is read in
//! chunks into one buffer, complete lines are handed out in place, and the
//! partial line at the end of a chunk is carried over to the front of the
//! buffer, like ripgrep's line buffer. The buffer grows only when a single
//! line outgrows it, so memory is bounded by the longest line plus one
//! chunk, whatever the size of the file.
//!
//! Lines follow the model of [`Lines`](crate::transcript::Lines): split at
//! `\n`, a trailing `\r` stripped, the bytes after the last `\n` an
//! unterminated line.

use std::io::{self, Read};

use memchr::memchr_iter;

/// The default chunk size: big enough that the syscall cost vanishes,
/// small enough to stay in L2.
pub const DEFAULT_CHUNK: usize = 256 << 10;

/// One line handed out by [`for_each_line`].
#[derive(Clone, Copy, Debug)]
pub struct ChunkLine<'a> {
    /// The line, without `\n` or `\r\n`.
    pub bytes: &'a [u8],
    /// Whether a `\n` ended it.
    pub terminated: bool,
    /// The line's byte offset in the stream.
    pub offset: u64,
}

fn strip_cr(b: &[u8]) -> &[u8] {
    b.strip_suffix(b"\r").unwrap_or(b)
}

/// Call `f` on every line of `reader`, reading `chunk` bytes at a time.
///
/// Returns the number of bytes read. The biggest buffer it holds is the
/// longest line plus `chunk`.
pub fn for_each_line<R: Read>(
    mut reader: R,
    chunk: usize,
    mut f: impl FnMut(ChunkLine<'_>),
) -> io::Result<u64> {
    let chunk = chunk.max(1);
    let mut buf: Vec<u8> = Vec::new();
    // The unconsumed bytes are buf[start..end].
    let (mut start, mut end) = (0usize, 0usize);
    let mut total = 0u64;
    // The stream offset of buf[0].
    let mut base = 0u64;
    loop {
        if buf.len() - end < chunk {
            if start > 0 {
                base += start as u64;
                buf.copy_within(start..end, 0);
                end -= start;
                start = 0;
            }
            if buf.len() - end < chunk {
                buf.resize(end + chunk, 0);
            }
        }
        let n = match reader.read(&mut buf[end..end + chunk]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        total += n as u64;
        let scan_from = end;
        end += n;
        let mut pos = start;
        for nl in memchr_iter(b'\n', &buf[scan_from..end]) {
            let nl = scan_from + nl;
            f(ChunkLine {
                bytes: strip_cr(&buf[pos..nl]),
                terminated: true,
                offset: base + pos as u64,
            });
            pos = nl + 1;
        }
        start = pos;
    }
    if start < end {
        f(ChunkLine {
            bytes: strip_cr(&buf[start..end]),
            terminated: false,
            offset: base + start as u64,
        });
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::Lines;

    fn collect(data: &[u8], chunk: usize) -> Vec<(Vec<u8>, bool)> {
        let mut out = vec![];
        for_each_line(data, chunk, |l| {
            let at = l.offset as usize;
            assert_eq!(&data[at..at + l.bytes.len()], l.bytes);
            out.push((l.bytes.to_vec(), l.terminated))
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
}
