//! The naive line oracle: `split` on `\n`.
//!
//! The piece after a final `\n` is dropped when empty; a non-empty final
//! piece is an unterminated line. A trailing `\r` is stripped.

/// One line as the oracle sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NaiveLine {
    /// The bytes, without terminator.
    pub bytes: Vec<u8>,
    /// Offset of the line's first byte.
    pub offset: usize,
    /// Whether a `\n` ends the line.
    pub terminated: bool,
}

/// Every line of `haystack`, first to last.
pub fn naive_lines(haystack: &[u8]) -> Vec<NaiveLine> {
    let mut out = vec![];
    let mut offset = 0;
    let pieces: Vec<&[u8]> = haystack.split(|&b| b == b'\n').collect();
    let n = pieces.len();
    for (i, piece) in pieces.into_iter().enumerate() {
        let last = i + 1 == n;
        if last && piece.is_empty() {
            break;
        }
        let body = piece.strip_suffix(b"\r").unwrap_or(piece);
        out.push(NaiveLine {
            bytes: body.to_vec(),
            offset,
            terminated: !last,
        });
        offset += piece.len() + 1;
    }
    out
}
