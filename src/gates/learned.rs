//! A learned judge of plain-language audits.
//!
//! The grammar in [`plain`](super::plain) and [`outcome`](super::outcome)
//! reads an audit as a lead and a referent, a try and an outcome. On the
//! parts it was fitted to it is right about 96% of the time, but on each
//! fresh held-out part of the labelled set it fell to about 0.8 precision:
//! every round fixed the phrasings it read and few of the next part's.
//! Telling "I set the clock to 01:59 and the reminder went out once" from
//! "reminders inside the gap now fire after it" is a question of many weak
//! cues (a past act of the agent's, an observed value, a hedge, a future
//! tense) that no one rule decides.
//!
//! So the word on a text without a marker belongs to a linear model over
//! hashed n-grams, trained on the labelled parts whose misses have been
//! read (`tests/labelled/audit-seen.txt`) by `tools/train-audit-model`.
//! Its features are the text's lowercased words, word pairs and the
//! character 1- to 4-grams of each word padded with spaces, as in
//! scikit-learn's `char_wb`: the same code reads English, Korean and
//! Japanese, which has no spaces between words. Each feature is hashed
//! with FNV-1a into a table of [`BUCKETS`] weights; a text's logit is the
//! bias plus the sum of the weights of the buckets it touches, divided by
//! the square root of their number (a binary vector of unit length). The
//! weights are `i16` with one scale: 512 KiB of read-only data, paged in
//! only where a text touches it.
//!
//! A model like this one was tried before and reverted (95d29a2): trained
//! on cases of one or two sentences, it learnt that a long, specific text
//! is an audit, and read real final messages of several paragraphs as
//! checks. Its bias pushes every text towards a block and most content
//! words push towards a pass, so two messages without an audit, one after
//! the other, read as one. The trainer now adds such glued pairs,
//! labelled as what they are, and a tuning part of the narration agents
//! write between tool calls; `benches/RESULTS.md` has what each changed.
//!
//! The grammar's reading is evidence, not ignored: the model overrules an
//! audit the grammar reads only above a second, higher threshold, and
//! alone passes only texts of a sentence or more (see
//! [`AuditMatcher`](super::AuditMatcher)). Between the two thresholds,
//! where the model doubts, only a check the grammar finds told outright
//! passes (a statement or an act of checking, a run or a table shown):
//! its shapes of an outcome ("…are refused with a 413", "すると…されま
//! す") are what a design told with its numbers has too, and on fresh
//! parts they passed far more such designs than audits.
//!
//! The model is data, not code: `audit-model.bin` is written by the
//! trainer and read here at compile time. Its layout is a 24-byte header
//! (magic `SGAM`, the log2 of the bucket count as a `u32`, the bias and
//! the weights' scale as `f32`, two thresholds as `f32` logits: below the
//! first, a text audits; below the second, a text the grammar reads as an
//! audit stays one), then one little-endian `i16` per bucket.

thread_local! {
    /// A bit per bucket, all clear between texts: which buckets the text
    /// being read has touched. One per thread, so that a scan of many
    /// texts clears only the words it set instead of 32 KiB a text.
    static SEEN: std::cell::RefCell<Seen> =
        std::cell::RefCell::new(Seen {
            bits: vec![0; BUCKETS / 64].try_into().unwrap(),
            buckets: vec![],
        });
}

/// The thread's bit set, and the buckets set in it, kept for their
/// memory.
struct Seen {
    /// A bit per bucket. Its length is a type's, so indexing it by a
    /// bucket needs no bounds check.
    bits: Box<[u64; BUCKETS / 64]>,
    /// The buckets whose bits are set, in the order first touched.
    buckets: Vec<u32>,
}

/// The buckets one text touches, marked in the thread's bit set, which
/// is left clear again when this is dropped, even on a panic.
struct Touched<'a> {
    seen: &'a mut Seen,
}

impl Touched<'_> {
    /// Mark bucket `b`; whether this text touches it for the first time.
    #[inline]
    fn first(&mut self, b: usize) -> bool {
        let (word, bit) = ((b / 64) % (BUCKETS / 64), 1u64 << (b % 64));
        let bits = &mut self.seen.bits[word];
        if *bits & bit != 0 {
            return false;
        }
        *bits |= bit;
        self.seen.buckets.push(b as u32);
        true
    }

    /// How many buckets the text touched.
    fn count(&self) -> usize {
        self.seen.buckets.len()
    }
}

impl Drop for Touched<'_> {
    fn drop(&mut self) {
        // Every bit was clear before this text: clear its words.
        let Seen { bits, buckets } = &mut *self.seen;
        for b in buckets.drain(..) {
            bits[(b as usize / 64) % (BUCKETS / 64)] = 0;
        }
    }
}

/// The model's bytes, as the trainer wrote them.
static MODEL: &[u8] = include_bytes!("audit-model.bin");

/// The header's length in bytes.
const HEADER: usize = 24;

/// The number of hash buckets: 2^18.
pub(crate) const BUCKETS: usize = 1 << 18;

/// FNV-1a's offset basis and prime, 32 bits.
const FNV_OFFSET: u32 = 0x811c_9dc5;
const FNV_PRIME: u32 = 0x0100_0193;

/// The longest character n-gram.
const MAX_GRAM: usize = 4;

/// Feed `bytes` to an FNV-1a hash.
#[inline]
fn fnv(h: u32, bytes: &[u8]) -> u32 {
    bytes.iter().fold(h, |h, &b| fnv_byte(h, b))
}

/// Feed one byte to an FNV-1a hash.
#[inline]
const fn fnv_byte(h: u32, b: u8) -> u32 {
    (h ^ b as u32).wrapping_mul(FNV_PRIME)
}

/// The hashes every word, word pair and character n-gram starts from:
/// each kind of feature is hashed behind a letter of its own.
const WORD: u32 = fnv_byte(FNV_OFFSET, b'w');
const PAIR: u32 = fnv_byte(FNV_OFFSET, b'b');
const GRAM: u32 = fnv_byte(FNV_OFFSET, b'c');

/// The words and symbols of a text, lowercased: runs of alphanumeric
/// characters (and `_`) are words, and every other character that is not
/// white space is a token of its own.
struct Tokens {
    /// The tokens' text, back to back, in UTF-8.
    buf: Vec<u8>,
    /// Each token's byte range in `buf`.
    spans: Vec<std::ops::Range<usize>>,
}

impl Tokens {
    fn of(text: &str) -> Tokens {
        let mut tokens =
            Tokens { buf: Vec::with_capacity(text.len()), spans: vec![] };
        let mut word_start: Option<usize> = None;
        let bytes = text.as_bytes();
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            // ASCII needs no tables: the same answers, cheaper.
            if b.is_ascii() {
                let c = b.to_ascii_lowercase();
                let word = c.is_ascii_alphanumeric() || c == b'_';
                tokens.push(char::from(c), word, &mut word_start);
                i += 1;
                continue;
            }
            let Some(c) = text.get(i..).and_then(|r| r.chars().next()) else {
                break;
            };
            i += c.len_utf8();
            if is_caseless_letter(c) {
                tokens.push(c, true, &mut word_start);
                continue;
            }
            for c in c.to_lowercase() {
                tokens.push(c, c.is_alphanumeric(), &mut word_start);
            }
        }
        if let Some(start) = word_start {
            tokens.spans.push(start..tokens.buf.len());
        }
        tokens
    }

    /// Add one lowercased character: to the word under way, or as a
    /// token of its own unless it is white space.
    #[inline(always)]
    fn push(&mut self, c: char, word: bool, word_start: &mut Option<usize>) {
        if word {
            word_start.get_or_insert(self.buf.len());
            self.put(c);
            return;
        }
        if let Some(start) = word_start.take() {
            self.spans.push(start..self.buf.len());
        }
        if !c.is_whitespace() {
            let start = self.buf.len();
            self.put(c);
            self.spans.push(start..self.buf.len());
        }
    }

    /// Append `c`'s UTF-8 bytes.
    #[inline(always)]
    fn put(&mut self, c: char) {
        if c.is_ascii() {
            self.buf.push(c as u8);
        } else {
            self.buf.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
    }

    /// Token `i`'s bytes: whole characters of UTF-8.
    fn get(&self, i: usize) -> &[u8] {
        &self.buf[self.spans[i].clone()]
    }
}

/// Whether `c` is in a block of letters that have no case: kana, the CJK
/// ideographs and the Hangul syllables, nearly every character of a
/// Japanese or Korean text. For them, `char::is_alphanumeric` is true and
/// `char::to_lowercase` gives the character back (a test checks every
/// one), so their Unicode tables need not be searched.
#[inline]
fn is_caseless_letter(c: char) -> bool {
    matches!(c,
        '\u{3041}'..='\u{3096}'   // hiragana
        | '\u{30A1}'..='\u{30FA}' // katakana
        | '\u{4E00}'..='\u{9FFF}' // CJK unified ideographs
        | '\u{AC00}'..='\u{D7A3}' // Hangul syllables
    )
}

/// Call `out` with the hash of every feature of `text`, duplicates and
/// all. The trainer reads the buckets through
/// `internals::audit_feature_buckets`, this same code, so training and
/// judging cannot hash differently.
#[inline(always)]
fn each_feature(text: &str, mut out: impl FnMut(u32)) {
    let tokens = Tokens::of(text);
    let n = tokens.spans.len();
    // The word padded with a space on each side, and where each of its
    // characters starts, the padding being the first and the last.
    let mut padded: Vec<u8> = vec![];
    let mut starts: Vec<usize> = vec![];
    for i in 0..n {
        let t = tokens.get(i);
        out(fnv(WORD, t));
        if i + 1 < n {
            out(fnv(fnv_byte(fnv(PAIR, t), b' '), tokens.get(i + 1)));
        }
        padded.clear();
        padded.push(b' ');
        padded.extend_from_slice(t);
        padded.push(b' ');
        if t.is_ascii() {
            // A character is a byte: the common case, without `starts`.
            for first in 0..padded.len() {
                let mut h = GRAM;
                let end = padded.len().min(first + MAX_GRAM);
                for &b in &padded[first..end] {
                    h = fnv_byte(h, b);
                    out(h);
                }
            }
            continue;
        }
        starts.clear();
        starts.push(0);
        // Where each character of the word starts: at each byte that is
        // not a UTF-8 continuation byte.
        starts.extend(
            (0..t.len()).filter(|&at| t[at] & 0xC0 != 0x80).map(|at| at + 1),
        );
        starts.push(padded.len() - 1);
        starts.push(padded.len());
        let chars = starts.len() - 1;
        for first in 0..chars {
            let mut h = GRAM;
            for last in first..chars.min(first + MAX_GRAM) {
                h = fnv(h, &padded[starts[last]..starts[last + 1]]);
                out(h);
            }
        }
    }
}

/// The bucket of a feature's hash.
#[inline]
fn bucket(hash: u32) -> usize {
    hash as usize & (BUCKETS - 1)
}

/// The distinct buckets a text touches, sorted.
#[cfg(any(test, feature = "internals"))]
pub(crate) fn buckets(text: &str) -> Vec<u32> {
    let mut touched = vec![];
    each_feature(text, |h| touched.push(bucket(h) as u32));
    touched.sort_unstable();
    touched.dedup();
    touched
}

/// The learned judge: whether a text without a marker audits.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AuditModel {
    bias: f32,
    scale: f32,
    /// Below this logit, a text audits.
    cut: f32,
    /// Below this logit, a text the grammar reads as an audit stays one.
    grammar_cut: f32,
    /// A little-endian `i16` per bucket; its length is a type's, so a
    /// bucket's weight is read without a bounds check.
    weights: &'static [u8; 2 * BUCKETS],
}

impl AuditModel {
    /// The model the crate was built with.
    pub(crate) fn builtin() -> AuditModel {
        let f = |at: usize| {
            f32::from_le_bytes(MODEL[at..at + 4].try_into().unwrap())
        };
        assert_eq!(&MODEL[..4], b"SGAM", "audit-model.bin: bad magic");
        let log2 = u32::from_le_bytes(MODEL[4..8].try_into().unwrap());
        assert_eq!(1usize << log2, BUCKETS, "audit-model.bin: bucket count");
        let weights =
            MODEL[HEADER..].try_into().expect("audit-model.bin: length");
        AuditModel {
            bias: f(8),
            scale: f(12),
            cut: f(16),
            grammar_cut: f(20),
            weights,
        }
    }

    /// The model's logit that `text` holds no audit.
    pub(crate) fn logit(&self, text: &str) -> f32 {
        SEEN.with_borrow_mut(|seen| {
            let mut touched = Touched { seen };
            // Each bucket counts once: its bit tells the first touch.
            let mut sum = 0i64;
            each_feature(text, |h| {
                let b = bucket(h);
                if touched.first(b) {
                    let at = 2 * b % (2 * BUCKETS);
                    sum += i64::from(i16::from_le_bytes([
                        self.weights[at],
                        self.weights[at + 1],
                    ]));
                }
            });
            match touched.count() {
                0 => self.bias,
                n => self.bias + self.scale * sum as f32 / (n as f32).sqrt(),
            }
        })
    }

    /// What the model makes of `text`: an audit, none, or a call it
    /// leaves to the grammar.
    pub(crate) fn read(&self, text: &str) -> Reading {
        let logit = self.logit(text);
        if logit < self.cut {
            Reading::Audit
        } else if logit < self.grammar_cut {
            Reading::GrammarDecides
        } else {
            Reading::NoAudit
        }
    }
}

/// The model's answer about one text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reading {
    /// The text audits, whatever the grammar reads.
    Audit,
    /// The text audits only if the grammar finds a check told outright
    /// in it ([`Grounds::Told`](super::plain_audit::Grounds::Told)).
    GrammarDecides,
    /// The model is sure the text holds no audit: it overrules the
    /// grammar, which need not be asked.
    NoAudit,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_split_words_and_symbols() {
        let t = Tokens::of("Ran `cargo test` → 14 passed; 確認しました。");
        let got: Vec<&str> = (0..t.spans.len())
            .map(|i| std::str::from_utf8(t.get(i)).unwrap())
            .collect();
        assert_eq!(
            got,
            [
                "ran",
                "`",
                "cargo",
                "test",
                "`",
                "→",
                "14",
                "passed",
                ";",
                "確認しました",
                "。"
            ]
        );
    }

    /// The letters read without Unicode's tables are what the tables say.
    #[test]
    fn caseless_letters_are_letters_without_case() {
        let mut n = 0;
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            if is_caseless_letter(c) {
                assert!(c.is_alphanumeric(), "{c:?}");
                assert!(c.to_lowercase().eq([c]), "{c:?}");
                n += 1;
            }
        }
        assert!(n > 30_000, "{n}");
    }

    #[test]
    fn char_grams_are_hashed_incrementally() {
        // One word, "ab": padded " ab ", grams of 1 to 4 characters.
        let mut got = vec![];
        each_feature("ab", |h| got.push(h));
        let c = |s: &str| fnv(fnv(FNV_OFFSET, b"c"), s.as_bytes());
        let want = vec![
            fnv(fnv(FNV_OFFSET, b"w"), b"ab"),
            c(" "),
            c(" a"),
            c(" ab"),
            c(" ab "),
            c("a"),
            c("ab"),
            c("ab "),
            c("b"),
            c("b "),
            c(" "),
        ];
        assert_eq!(got, want);

        // A character of several bytes is one step of a gram, as in the
        // ASCII path: "é" padded is " é ", three characters.
        let mut got = vec![];
        each_feature("é", |h| got.push(h));
        let want = vec![
            fnv(fnv(FNV_OFFSET, b"w"), "é".as_bytes()),
            c(" "),
            c(" é"),
            c(" é "),
            c("é"),
            c("é "),
            c(" "),
        ];
        assert_eq!(got, want);
    }

    /// The thread's bit set is clear again after each text: a text read
    /// after others scores as it does first.
    #[test]
    fn each_text_is_judged_alone() {
        let m = AuditModel::builtin();
        let a =
            "Ran `cargo test`: 42 passed, and the 2 GB file streams in 14 s.";
        let first = m.logit(a);
        m.logit("Let me explore the lib structure and other directories:");
        m.logit(&"a long text without an audit ".repeat(500));
        assert_eq!(m.logit(a), first);
    }

    /// The trainer's own logits for a sample of the cases it trained on:
    /// the Rust side must reproduce them, or the two hash or weigh
    /// differently.
    #[test]
    fn logits_match_the_trainers() {
        let m = AuditModel::builtin();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/labelled");
        let check = std::fs::read_to_string(dir.join("audit-model-check.tsv"))
            .unwrap();
        let mut n = 0;
        for line in check.lines().filter(|l| !l.starts_with('#')) {
            let (at, want) = line.split_once('\t').unwrap();
            let (part, line_no) = at.rsplit_once(':').unwrap();
            let text = std::fs::read_to_string(dir.join(part)).unwrap();
            let row = text.lines().nth(line_no.parse::<usize>().unwrap() - 1);
            let body = row.unwrap().rsplit('\t').next().unwrap();
            let got = m.logit(&body.replace("\\n", "\n"));
            let want: f32 = want.parse().unwrap();
            assert!((got - want).abs() < 1e-3, "{at}: {got} != {want}");
            n += 1;
        }
        assert!(n > 100, "only {n} logits to check");
    }
}
