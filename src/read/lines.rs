//! Forward and reverse line iteration over a byte slice.
//!
//! A transcript is JSON Lines, so the line is the unit of everything above
//! this module. Both iterators are built on `memchr` / `memrchr`, which run
//! at tens of GB/s: finding the last line of a 1 GB slice touches only the
//! bytes of that line, which is what makes the hook's latency flat.
//!
//! # The line model
//!
//! Iteration is exactly `bytes.split(|&b| b == b'\n')`, with two
//! refinements:
//!
//! * The piece after the final `\n` is not a line when it is empty. When
//!   it is not empty, it is an *unterminated* line: a line the writer may
//!   still be in the middle of. [`Line::is_terminated`] tells the two
//!   apart, and the record layer applies the truncated-tail rule (an
//!   unterminated line counts only if it is a complete JSON object).
//! * A trailing `\r` is stripped, so `\r\n` line endings work.
//!
//! Empty lines are yielded as empty [`Line`]s; deciding what they mean is
//! the caller's business. The reverse iterator yields precisely the lines
//! of the forward iterator, in the opposite order. A property test checks
//! both against the naive `split` oracle.

use memchr::{memchr, memrchr};

/// One line of a transcript, without its line terminator.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Line<'a> {
    bytes: &'a [u8],
    offset: usize,
    terminated: bool,
}

impl<'a> Line<'a> {
    /// The line's bytes, without `\n` or `\r\n`.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The byte offset of the line's start within the iterated slice.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Whether a `\n` ends this line.
    ///
    /// Only the last line of a slice can be unterminated. Such a line may
    /// be one that a writer has not finished yet.
    pub fn is_terminated(&self) -> bool {
        self.terminated
    }

    /// Whether the line holds no bytes at all.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    fn new(
        haystack: &'a [u8],
        start: usize,
        end: usize,
        terminated: bool,
    ) -> Line<'a> {
        let mut bytes = &haystack[start..end];
        if let [rest @ .., b'\r'] = bytes {
            bytes = rest;
        }
        Line { bytes, offset: start, terminated }
    }
}

/// Iterates over the lines of a slice from first to last.
///
/// # Example
///
/// ```
/// use stopgate::internals::Lines;
///
/// let lines: Vec<&[u8]> =
///     Lines::new(b"a\r\nb\nc").map(|l| l.as_bytes()).collect();
/// assert_eq!(lines, vec![&b"a"[..], b"b", b"c"]);
/// ```
#[derive(Clone, Debug)]
pub struct Lines<'a> {
    haystack: &'a [u8],
    pos: usize,
}

impl<'a> Lines<'a> {
    /// Iterate over the lines of `haystack`.
    pub fn new(haystack: &'a [u8]) -> Lines<'a> {
        Lines { haystack, pos: 0 }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        let rest = &self.haystack[self.pos..];
        if rest.is_empty() {
            return None;
        }
        let start = self.pos;
        match memchr(b'\n', rest) {
            Some(i) => {
                self.pos = start + i + 1;
                Some(Line::new(self.haystack, start, start + i, true))
            }
            None => {
                self.pos = self.haystack.len();
                Some(Line::new(
                    self.haystack,
                    start,
                    self.haystack.len(),
                    false,
                ))
            }
        }
    }
}

/// Iterates over the lines of a slice from last to first.
///
/// It yields exactly the lines of [`Lines`], in the opposite order, so the
/// first line yielded may be unterminated (see [`Line::is_terminated`]).
/// Each step costs one `memrchr` over the line it yields, so
/// reading the last few lines of a huge slice costs what the lines cost.
///
/// # Example
///
/// ```
/// use stopgate::internals::RevLines;
///
/// let mut it = RevLines::new(b"first\nsecond\npartial");
/// let last = it.next().unwrap();
/// assert_eq!(last.as_bytes(), b"partial");
/// assert!(!last.is_terminated());
/// assert_eq!(it.next().unwrap().as_bytes(), b"second");
/// assert_eq!(it.next().unwrap().as_bytes(), b"first");
/// assert!(it.next().is_none());
/// ```
#[derive(Clone, Debug)]
pub struct RevLines<'a> {
    haystack: &'a [u8],
    /// Everything at or after `end` has been yielded. When `end > 0`,
    /// `haystack[end - 1]` is a `\n`, except before the first call.
    end: usize,
    started: bool,
}

impl<'a> RevLines<'a> {
    /// Iterate over the lines of `haystack`, last first.
    pub fn new(haystack: &'a [u8]) -> RevLines<'a> {
        RevLines { haystack, end: haystack.len(), started: false }
    }
}

impl<'a> Iterator for RevLines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if !self.started {
            self.started = true;
            if let Some(&last) = self.haystack.last() {
                if last != b'\n' {
                    let end = self.end;
                    let start =
                        memrchr(b'\n', self.haystack).map_or(0, |i| i + 1);
                    self.end = start;
                    return Some(Line::new(self.haystack, start, end, false));
                }
            }
        }
        if self.end == 0 {
            return None;
        }
        // haystack[end - 1] is the `\n` that ends the line we yield.
        let nl = self.end - 1;
        let start = memrchr(b'\n', &self.haystack[..nl]).map_or(0, |i| i + 1);
        self.end = start;
        Some(Line::new(self.haystack, start, nl, true))
    }
}

/// The naive `split` oracle, shared with the integration tests and fuzz.
#[cfg(test)]
#[path = "../../tests/oracle/lines.rs"]
mod oracle;

#[cfg(test)]
mod tests {
    use super::oracle;
    use super::*;

    fn naive(haystack: &[u8]) -> Vec<(Vec<u8>, usize, bool)> {
        oracle::naive_lines(haystack)
            .into_iter()
            .map(|l| (l.bytes, l.offset, l.terminated))
            .collect()
    }

    fn collect<'a>(
        it: impl Iterator<Item = Line<'a>>,
    ) -> Vec<(Vec<u8>, usize, bool)> {
        it.map(|l| (l.as_bytes().to_vec(), l.offset(), l.is_terminated()))
            .collect()
    }

    fn check(haystack: &[u8]) {
        let want = naive(haystack);
        assert_eq!(
            collect(Lines::new(haystack)),
            want,
            "forward {:?}",
            haystack
        );
        let mut rev = collect(RevLines::new(haystack));
        rev.reverse();
        assert_eq!(rev, want, "reverse {:?}", haystack);
    }

    #[test]
    fn edge_cases() {
        for h in [
            &b""[..],
            b"\n",
            b"\n\n",
            b"a",
            b"a\n",
            b"a\nb",
            b"a\r\nb\r\n",
            b"\r",
            b"\r\n",
            b"a\r\r\n",
            b"\n\na\n\n",
        ] {
            check(h);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        #[test]
        fn reverse_matches_split(
            bytes in proptest::collection::vec(
                proptest::sample::select(vec![b'\n', b'\r', b'a', b'{', 0u8, 0xff]),
                0..64,
            )
        ) {
            check(&bytes);
        }

        #[test]
        fn arbitrary_bytes_match_split(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..256)) {
            check(&bytes);
        }
    }
}
