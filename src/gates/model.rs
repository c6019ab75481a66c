//! A second reader for the audit gate: a linear model over character
//! n-grams.
//!
//! # Why
//!
//! The plain-language grammar ([`plain`](super::plain)) recognises a check
//! by its words: a lead, a try and an outcome, each from a table. Parts of
//! the labelled set written after a round of tuning kept bringing checks
//! told in words no table held ("reloaded the product page in another
//! browser: both show the new price"), and over nine fresh parts the
//! grammar blocked about one real audit in six. Adding the words of each
//! part did not reach the next one.
//!
//! A model weighs thousands of small cues at once: the two to four
//! characters runs of a text, in any of the three languages, with digits
//! folded to `0`. It is trained on the same labelled parts the grammar was
//! fitted to (`examples/train_audit_model.rs`, from the list in
//! `tests/labelled/audit-seen.txt`) and stored as 16-bit weights in
//! `audit_model.bin`, 32 KiB, loaded without work.
//!
//! # How it is used
//!
//! Only to let a text pass that the grammar would block: when no marker,
//! hatch or plain-language audit is found, a text the model reads as a
//! check at [`PASS_AT`] or above counts as an audit in plain language,
//! named `model` in reports, and the hollow gate judges it as it judges any
//! plain-language audit. The model never blocks a text the grammar lets
//! pass, so a marker or a recognised audit is never second-guessed, and
//! `audit.plain_language = false` turns it off with the grammar.
//!
//! Its figures are measured on held-out parts it was not trained on (see
//! `tests/labelled_parts.rs`), never on the parts it learnt from.

use std::borrow::Cow;
use std::fmt;

/// The number of bits of a feature's bucket.
const BITS: u32 = 14;

/// The number of buckets, and of weights.
pub(crate) const BUCKETS: usize = 1 << BITS;

/// The shortest and longest n-gram, in characters.
const NGRAMS: std::ops::RangeInclusive<usize> = 2..=4;

/// The longest text the model reads, in characters. The labelled cases it
/// learnt from are short messages (the longest 347 characters, nine in ten
/// under 160), and on the long summaries real sessions end with it reads
/// checks where there are none: six of the 13 hand-labelled corpus turns
/// without an audit, each over 600 characters, read as checks. A longer
/// text is left to the grammar alone.
pub(crate) const MAX_CHARS: usize = 400;

/// The probability of being a check at which a text passes.
pub(crate) const PASS_AT: f32 = 0.7;

/// The weights file's first bytes.
const MAGIC: &[u8; 4] = b"SGAM";

/// The header: magic, bits, training cases, bias and scale.
const HEADER: usize = 4 + 4 + 4 + 4 + 4;

/// The trained weights: see `examples/train_audit_model.rs`.
static WEIGHTS: &[u8] = include_bytes!("audit_model.bin");

/// The n-grams of one text, counted into buckets and scaled to unit
/// length, so a long text weighs no more than a short one.
#[derive(Clone, Debug, Default)]
pub struct Features {
    /// Each bucket that occurs, with its count.
    counts: Vec<(u16, u16)>,
    /// One over the counts' Euclidean length.
    scale: f32,
}

impl Features {
    /// The features of `text`: its characters lowercased, each run of ASCII digits folded to one `0` and each run
    /// of whitespace to one space, with a space at either end.
    pub fn of(text: &str) -> Features {
        let chars = normalized(text);
        let mut counts = vec![0u16; BUCKETS];
        let mut touched: Vec<u16> = vec![];
        for n in NGRAMS {
            for gram in chars.windows(n) {
                let b = bucket(gram);
                if counts[b] == 0 {
                    touched.push(b as u16);
                }
                counts[b] = counts[b].saturating_add(1);
            }
        }
        let counts: Vec<(u16, u16)> =
            touched.iter().map(|&b| (b, counts[usize::from(b)])).collect();
        let squares: f32 =
            counts.iter().map(|&(_, c)| f32::from(c) * f32::from(c)).sum();
        let scale = if squares > 0.0 { squares.sqrt().recip() } else { 0.0 };
        Features { counts, scale }
    }

    /// Each bucket that occurs, with its scaled value.
    pub fn values(&self) -> impl Iterator<Item = (usize, f32)> + '_ {
        self.counts
            .iter()
            .map(|&(b, c)| (usize::from(b), f32::from(c) * self.scale))
    }
}

/// The text as the model reads it: see [`Features::of`].
fn normalized(text: &str) -> Vec<char> {
    let mut out = vec![' '];
    for c in text.chars().flat_map(char::to_lowercase) {
        let c = match c {
            '0'..='9' => '0',
            c if c.is_whitespace() => ' ',
            c => c,
        };
        if matches!(c, '0' | ' ') && out.last() == Some(&c) {
            continue;
        }
        out.push(c);
    }
    if out.last() != Some(&' ') {
        out.push(' ');
    }
    out
}

/// The bucket of one n-gram: FNV-1a over its characters, seeded by its
/// length, then a multiplicative hash's top bits.
fn bucket(gram: &[char]) -> usize {
    let mut h: u32 = 0x811c_9dc5 ^ gram.len() as u32;
    for &c in gram {
        h ^= c as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    (h.wrapping_mul(0x9e37_79b1) >> (32 - BITS)) as usize
}

/// How strongly the audit model read a final text as a check: the
/// evidence of [`AuditStatus::Read`](super::AuditStatus::Read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelRead {
    per_mille: u16,
}

impl ModelRead {
    /// The model's probability that the text reports a check, from the
    /// pass threshold (0.7) to 1.
    pub fn probability(&self) -> f32 {
        f32::from(self.per_mille) / 1000.0
    }
}

/// A trained model: a bias and one weight per bucket, kept as the weights
/// file stores them, so the built-in model is read in place.
#[derive(Clone)]
pub struct AuditModel {
    /// The weights file: the header, then one little-endian `i16` per
    /// bucket, to be multiplied by `scale`.
    bytes: Cow<'static, [u8]>,
    bias: f32,
    scale: f32,
    cases: u32,
}

impl fmt::Debug for AuditModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuditModel")
            .field("bias", &self.bias)
            .field("cases", &self.cases)
            .finish_non_exhaustive()
    }
}

#[cfg_attr(not(feature = "internals"), allow(dead_code))]
impl AuditModel {
    /// The model this build carries.
    pub fn builtin() -> AuditModel {
        AuditModel::parse(Cow::Borrowed(WEIGHTS))
            .expect("audit_model.bin is written by the trainer")
    }

    /// A model from a bias and its weights, as the trainer makes them: the
    /// weights are quantized to 16 bits against the largest one, as the
    /// weights file stores them.
    pub fn new(bias: f32, weights: &[f32], cases: u32) -> AuditModel {
        assert_eq!(weights.len(), BUCKETS, "one weight per bucket");
        let max = weights.iter().fold(0f32, |m, w| m.max(w.abs()));
        let scale = if max > 0.0 { max / f32::from(i16::MAX) } else { 1.0 };
        let mut bytes = Vec::with_capacity(HEADER + 2 * BUCKETS);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&BITS.to_le_bytes());
        bytes.extend_from_slice(&cases.to_le_bytes());
        bytes.extend_from_slice(&bias.to_le_bytes());
        bytes.extend_from_slice(&scale.to_le_bytes());
        for w in weights {
            bytes.extend_from_slice(
                &((w / scale).round() as i16).to_le_bytes(),
            );
        }
        AuditModel { bytes: Cow::Owned(bytes), bias, scale, cases }
    }

    /// Train a model on labelled features (`true`: a check): logistic
    /// regression by stochastic gradient descent, the cases visited in a
    /// fixed shuffled order, so the same cases give the same weights on
    /// every run.
    pub fn train(cases: &[(&Features, bool)]) -> AuditModel {
        const EPOCHS: usize = 15;
        const RATE: f64 = 0.5;
        const L2: f64 = 1e-5;
        let mut w = vec![0f64; BUCKETS];
        let mut bias = 0f64;
        let mut order: Vec<usize> = (0..cases.len()).collect();
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..EPOCHS {
            // Fisher-Yates driven by xorshift.
            for i in (1..order.len()).rev() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                order.swap(i, (seed % (i as u64 + 1)) as usize);
            }
            for &i in &order {
                let (features, check) = cases[i];
                let z = bias
                    + features
                        .values()
                        .map(|(b, v)| w[b] * f64::from(v))
                        .sum::<f64>();
                let p = 1.0 / (1.0 + (-z.clamp(-30.0, 30.0)).exp());
                let g = p - if check { 1.0 } else { 0.0 };
                for (b, v) in features.values() {
                    w[b] -= RATE * (g * f64::from(v) + L2 * w[b]);
                }
                bias -= RATE * g;
            }
        }
        let w: Vec<f32> = w.into_iter().map(|w| w as f32).collect();
        let n = u32::try_from(cases.len()).expect("fewer than 4 G cases");
        AuditModel::new(bias as f32, &w, n)
    }

    /// A model from a weights file, or `None` when it is not one this
    /// build can read.
    pub fn from_bytes(bytes: &[u8]) -> Option<AuditModel> {
        AuditModel::parse(Cow::Owned(bytes.to_vec()))
    }

    fn parse(bytes: Cow<'static, [u8]>) -> Option<AuditModel> {
        let word = |i: usize| -> Option<[u8; 4]> {
            bytes.get(i..i + 4)?.try_into().ok()
        };
        if bytes.get(..4)? != MAGIC
            || u32::from_le_bytes(word(4)?) != BITS
            || bytes.len() != HEADER + 2 * BUCKETS
        {
            return None;
        }
        let cases = u32::from_le_bytes(word(8)?);
        let bias = f32::from_le_bytes(word(12)?);
        let scale = f32::from_le_bytes(word(16)?);
        Some(AuditModel { bytes, bias, scale, cases })
    }

    /// The model as the weights file stores it.
    pub fn to_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// How many labelled cases it was trained on.
    pub fn cases(&self) -> u32 {
        self.cases
    }

    fn weight(&self, bucket: usize) -> f32 {
        let at = HEADER + 2 * bucket;
        let w = i16::from_le_bytes([self.bytes[at], self.bytes[at + 1]]);
        f32::from(w) * self.scale
    }

    /// The probability that the features are a check's.
    pub fn probability(&self, features: &Features) -> f32 {
        let z: f32 = self.bias
            + features.values().map(|(b, v)| self.weight(b) * v).sum::<f32>();
        1.0 / (1.0 + (-z).exp())
    }

    /// Whether the model reads `text` as a check: the probability at or
    /// above [`PASS_AT`]. A text longer than [`MAX_CHARS`] is not read.
    pub(crate) fn reads_as_check(&self, text: &str) -> Option<ModelRead> {
        if text.chars().nth(MAX_CHARS).is_some() {
            return None;
        }
        let p = self.probability(&Features::of(text));
        (p >= PASS_AT)
            .then(|| ModelRead { per_mille: (p * 1000.0).round() as u16 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_folded_before_it_is_cut() {
        let chars: String = normalized("Ran  `cargo test`:\n\n212 passed")
            .into_iter()
            .collect();
        assert_eq!(chars, " ran `cargo test`: 0 passed ");
    }

    #[test]
    fn a_text_longer_than_the_model_learnt_from_is_not_read() {
        let check =
            "Reloaded the page in another browser: both show the new price.";
        let model = AuditModel::builtin();
        assert!(model.reads_as_check(check).is_some());
        let long =
            format!("{}\n\n{check}", "Summary of the work. ".repeat(20));
        assert!(long.chars().count() > MAX_CHARS);
        assert!(model.reads_as_check(&long).is_none());
    }

    #[test]
    fn features_have_unit_length() {
        let f = Features::of("確認しました。テストは 12 件すべて成功です。");
        let length: f32 = f.values().map(|(_, v)| v * v).sum();
        assert!((length - 1.0).abs() < 1e-4, "{length}");
        assert_eq!(Features::of("").values().count(), 0);
    }

    #[test]
    fn the_weights_file_round_trips() {
        let weights: Vec<f32> =
            (0..BUCKETS).map(|i| (i as f32 - 8000.0) / 4000.0).collect();
        let exact: f32 = -0.25
            + Features::of("Checked: both show the new price.")
                .values()
                .map(|(b, v)| weights[b] * v)
                .sum::<f32>();
        let model = AuditModel::new(-0.25, &weights, 7);
        let back = AuditModel::from_bytes(model.to_bytes()).unwrap();
        assert_eq!((back.bias, back.cases), (-0.25, 7));
        let f = Features::of("Checked: both show the new price.");
        let (a, b) = (model.probability(&f), back.probability(&f));
        let exact = 1.0 / (1.0 + (-exact).exp());
        assert!((a - b).abs() < 1e-6 && (a - exact).abs() < 1e-3, "{a} {b}");
        assert!(AuditModel::from_bytes(b"SGAM").is_none());
    }

    #[test]
    fn the_builtin_model_loads() {
        assert!(AuditModel::builtin().cases() > 0);
    }
}
