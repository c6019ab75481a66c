//! Hollow audit: a marker is present, but the audit says nothing.
//!
//! Two rules, each named in the block message:
//!
//! * **Stock phrase** (`stock_phrase`). Every sentence that holds a marker
//!   is empty once the markers, punctuation and stock words ("問題なし",
//!   "LGTM", "no issues") are removed: what is left weighs less than
//!   `min_specific` (a CJK character weighs 2, any other 1). A marker
//!   sentence that ends in a colon and a line break ("Self-audit:") runs on
//!   to the end of its paragraph, so a list under a heading counts.
//! * **Claim without evidence** (`claim_without_evidence`). The text claims
//!   verification ("tests pass", "検証済", "테스트 통과"), yet no `Bash`
//!   command ran after the turn's last file change, so nothing could have
//!   verified it.

use crate::changes::last_change;
use crate::keywords::KeywordSet;
use crate::transcript::TurnKind;

use super::patterns::PatternSet;
use super::Facts;

/// Which hollow rule fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HollowRule {
    /// The marker sentences say nothing specific.
    StockPhrase,
    /// A verification claim with nothing run after the last change.
    ClaimWithoutEvidence,
}

impl HollowRule {
    /// The rule's name, as reported.
    pub fn as_str(&self) -> &'static str {
        match self {
            HollowRule::StockPhrase => "stock_phrase",
            HollowRule::ClaimWithoutEvidence => "claim_without_evidence",
        }
    }
}

/// Sentence ends: CJK ones always, ASCII ones before whitespace or the
/// end, so `Cargo.toml` and `3.1` do not split a sentence.
fn sentence_bounds(text: &str, at: usize) -> (usize, usize) {
    let is_end = |i: usize, c: char| match c {
        '\n' | '。' | '！' | '？' => true,
        '.' | '!' | '?' => text[i + c.len_utf8()..]
            .chars()
            .next()
            .is_none_or(char::is_whitespace),
        _ => false,
    };
    let start = text[..at]
        .char_indices()
        .rev()
        .find(|&(i, c)| is_end(i, c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let end = text[at..]
        .char_indices()
        .find(|&(i, c)| is_end(at + i, c))
        .map_or(text.len(), |(i, _)| at + i);
    (start, end)
}

/// The weight of the specifics left in `s`: CJK and Hangul characters
/// weigh 2, other letters and digits 1, punctuation and spaces nothing.
fn weight(s: &str) -> usize {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .map(|c| if (c as u32) >= 0x2E80 { 2 } else { 1 })
        .sum()
}

/// Remove every match of `set` from `s` (ASCII-word-bounded for ASCII
/// keywords, so "no" does not eat the start of "nothing").
fn strip(set: &KeywordSet, s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for m in set.find_iter(s) {
        let kw = set.keyword(m);
        if kw.is_ascii() {
            let before = s[..m.start()].chars().next_back();
            let after = s[m.end()..].chars().next();
            let word =
                |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
            if kw.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
                && word(before)
                || kw
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_ascii_alphanumeric())
                    && word(after)
            {
                continue;
            }
        }
        out.push_str(&s[last..m.start()]);
        out.push(' ');
        last = m.end();
    }
    out.push_str(&s[last..]);
    out
}

/// Whether the audit in `text` is a stock phrase.
pub fn is_stock_phrase(
    markers: &KeywordSet,
    stock: &KeywordSet,
    min_specific: usize,
    text: &str,
) -> bool {
    let mut any = false;
    let mut sentences = vec![];
    for m in markers.find_iter(text) {
        // A marker inside the sentence already taken adds nothing; skipping
        // it keeps this linear in the text, however many markers it holds.
        if sentences.last().is_some_and(|&(_, end)| m.start() < end) {
            continue;
        }
        let (start, mut end) = sentence_bounds(text, m.start());
        // "Self-audit:\n- …": a heading runs on to the end of its paragraph.
        let after_marker = text[m.end()..end].trim();
        if after_marker.is_empty()
            || after_marker == ":"
            || after_marker == "："
        {
            end = text[end..].find("\n\n").map_or(text.len(), |i| end + i);
        }
        sentences.push((start, end));
    }
    for &(start, end) in &sentences {
        any = true;
        let left = strip(stock, &strip(markers, &text[start..end]));
        if weight(&left) >= min_specific {
            return false;
        }
    }
    any
}

/// Whether `text` claims verification that nothing in the turn backs.
/// Returns the claims that fired.
pub fn unverified_claim(
    claims: &PatternSet,
    facts: &Facts<'_>,
) -> Option<Vec<String>> {
    // A task notification carries the result it reports: evidence.
    if facts.kind == TurnKind::Notification {
        return None;
    }
    let fired = claims.fired(facts.final_text);
    if fired.is_empty() {
        return None;
    }
    let uses = facts.tool_uses;
    let after_change = last_change(uses).map_or(0, |i| i + 1);
    let ran_something = uses[after_change..].iter().any(|u| u.runs_command());
    (!ran_something).then_some(fired)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_do_not_split_on_file_names() {
        let t = "監査: Cargo.toml の依存を固定した。次。";
        let (s, e) = sentence_bounds(t, 0);
        assert_eq!(&t[s..e], "監査: Cargo.toml の依存を固定した");
        let t = "Done. Audit: v3.1 is pinned. Bye";
        let at = t.find("Audit").unwrap();
        let (s, e) = sentence_bounds(t, at);
        assert_eq!(&t[s..e], " Audit: v3.1 is pinned");
    }

    #[test]
    fn weights() {
        assert_eq!(weight(" : . "), 0);
        assert_eq!(weight("lock"), 4);
        assert_eq!(weight("並行"), 4);
    }
}
