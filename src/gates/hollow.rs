//! Hollow audit: a marker is present, but the audit says nothing.
//!
//! Two rules, each named in the block message:
//!
//! * **Stock phrase** (`stock_phrase`). Every sentence that holds a marker
//!   says nothing once the markers, punctuation and stock words ("問題なし",
//!   "LGTM", "no issues") are removed: with the rest of its paragraph, what
//!   is left weighs less than `min_specific` (a CJK character weighs 2, any
//!   other 1), or it names no specific referent (a number, an identifier,
//!   a path, a command, an acronym, a named failure mode), which is what a
//!   plain-language audit must name too. "Audit: I went over it carefully
//!   and everything is in order" weighs a lot and names nothing. A marker
//!   sentence that ends in a colon and a line break ("Self-audit:") runs on
//!   to the end of its paragraph, so a list under a heading counts.
//! * **Claim without evidence** (`claim_without_evidence`). The text claims
//!   verification ("tests pass", "検証済", "테스트 통과", or any sentence
//!   that names a check with a verdict: see `grounded`), yet no `Bash`
//!   command ran after the turn's last file change, so nothing could have
//!   verified it.

use crate::keywords::KeywordSet;
use crate::read::TurnKind;

use super::facts::Facts;
use super::grounded::{checks_in, CheckKind, Grounding};
use super::patterns::PatternSet;
use super::plain_audit::PlainAudit;
use super::sentence::paragraph;
use super::sentence::sentence_bounds;

/// The weight of the specifics left in `s`: CJK and Hangul characters
/// weigh 2, other letters and digits 1, punctuation and spaces nothing.
pub(super) fn weight(s: &str) -> usize {
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

/// Whether `s`, without the stock words of `stock`, weighs less than
/// `min_specific`.
pub fn weighs_less(stock: &KeywordSet, s: &str, min_specific: usize) -> bool {
    weight(&strip(stock, s)) < min_specific
}

/// Whether the audit in `text` is a stock phrase: each marker's sentence,
/// with the rest of its paragraph, weighs less than `min_specific` once
/// markers and stock words are gone, or names no specific referent
/// (`referent`: an identifier, a path, a number, a command, a named
/// failure mode), as a plain-language audit must.
pub fn is_stock_phrase(
    markers: &KeywordSet,
    stock: &KeywordSet,
    referent: &dyn Fn(&str) -> bool,
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
        let (start, end) = sentence_bounds(text, m.start());
        // A marker may hold its sentence's end ("Audit done.", "監査済み。",
        // "LGTM!"): its sentence then ends with it, as a plain lead's does.
        let mut end = end.max(m.end());
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
        let rest = strip(stock, paragraph(&text[end..]));
        if weight(&left) + weight(&rest) >= min_specific
            && (referent(&left) || referent(&rest))
        {
            return false;
        }
    }
    any
}

/// Whether a plain-language audit is a stock phrase, judged as a marker
/// audit is: its lead's sentence (a heading's paragraph), without the lead
/// and the stock words, with the rest of its paragraph, weighs less than
/// `min_specific`. The lead is the words that name the check ("Verified",
/// "確認したこと"), never what was checked: "**Checked**\n- `GET /health`
/// → 200" and "一部だけ検証済みです。Linux では … 確認" are not hollow.
pub fn plain_is_stock(
    stock: &KeywordSet,
    min_specific: usize,
    text: &str,
    audit: &PlainAudit,
) -> bool {
    // An audit with no lead is the whole text.
    if audit.is_learned() {
        return weight(&strip(stock, text)) < min_specific;
    }
    let (start, end) = sentence_bounds(text, audit.span.start);
    // A lead never runs past its sentence's end, but should one, its
    // sentence ends with it.
    let mut end = end.max(audit.span.end);
    let after_lead = text[audit.span.end..end].trim();
    if after_lead.is_empty() || after_lead == ":" || after_lead == "：" {
        end = text[end..].find("\n\n").map_or(text.len(), |i| end + i);
    }
    let without_lead = format!(
        "{} {}",
        &text[start..audit.span.start],
        &text[audit.span.end..end]
    );
    let rest = paragraph(&text[end..]);
    weight(&strip(stock, &without_lead)) + weight(&strip(stock, rest))
        < min_specific
}

/// Whether `text` claims verification that nothing in the turn backs.
/// Returns the claims that fired.
///
/// With `grounding`, a sentence that names a check and then a verdict on
/// it is a claim too ("`pytest tests/x.py` passes, 19 tests"), and so is
/// one that reports a check the turn ran *before* its last change ("`bash
/// -n` passes", the script edited again after it).
pub fn unverified_claim(
    claims: &PatternSet,
    grounding: Option<&Grounding>,
    facts: &Facts<'_>,
) -> Option<Vec<String>> {
    // A task notification carries the result it reports: evidence.
    if facts.kind == TurnKind::Notification {
        return None;
    }
    let mut fired = claims.fired(facts.final_text);
    let uses = facts.tool_uses;
    let after_change = facts.last_change.map_or(0, |i| i + 1);
    if let Some(g) = grounding.filter(|_| fired.is_empty()) {
        fired.extend(g.claim(facts.final_text));
        if fired.is_empty() {
            // A file read before the change is how the change was made,
            // not a verification it claims.
            let before: Vec<_> = checks_in(&uses[..after_change])
                .into_iter()
                .filter(|c| c.kind() != CheckKind::Read)
                .collect();
            fired.extend(
                g.report(facts.final_text, &before).map(|r| r.sentence),
            );
        }
    }
    if fired.is_empty() {
        return None;
    }
    // A command that checks nothing (`git add && git commit`, `ls`,
    // `mkdir -p out`) backs no claim; any other may.
    let ran_a_check = checks_in(&uses[after_change..])
        .iter()
        .any(|c| c.kind() != CheckKind::Read);
    (!ran_a_check).then_some(fired)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A marker that holds a sentence end, in the middle of a text or at
    /// its end, is judged, never a panic.
    #[test]
    fn markers_ending_in_punctuation() {
        let markers = [
            "Audit done.",
            "LGTM!",
            "Self-check.",
            "監査済み。",
            "Verified?",
            "done.\n",
        ];
        let set = KeywordSet::builder()
            .ascii_case_insensitive(true)
            .build(markers)
            .unwrap();
        let stock = KeywordSet::builder().build(["LGTM"]).unwrap();
        let referent = |s: &str| s.contains("lock");
        for text in [
            "Fixed. Audit done.",
            "Audit done. The lock is held across the await.",
            "LGTM!",
            "LGTM! LGTM! Self-check.",
            "監査済み。ロックを確認。",
            "Verified? yes",
            "all done.\n\nnext",
        ] {
            is_stock_phrase(&set, &stock, &referent, 4, text);
        }
        assert!(is_stock_phrase(&set, &stock, &referent, 4, "Audit done."));
    }

    proptest::proptest! {
        /// No marker and no text panics the stock-phrase rule.
        #[test]
        fn any_marker_any_text(
            markers in proptest::collection::vec(
                "[a-zA-Z .!?。！？:：\n-]{1,12}|\\PC{1,6}",
                1..4,
            ),
            text in "([a-zA-Z .!?。！？:：\n-]|\\PC){0,80}",
            // Some texts are built from the markers themselves.
            picks in proptest::collection::vec(0usize..8, 0..6),
        ) {
            let set = KeywordSet::builder()
                .ascii_case_insensitive(true)
                .build(&markers)
                .unwrap();
            let stock = KeywordSet::builder().build(["ok"]).unwrap();
            let mut built = text.clone();
            for p in picks {
                built.push_str(&markers[p % markers.len()]);
                built.push(' ');
            }
            for t in [&text, &built] {
                is_stock_phrase(&set, &stock, &|s: &str| s.len() > 3, 4, t);
            }
        }
    }

    /// A report of a check the turn ran before its last change is a claim
    /// the change may have voided.
    #[test]
    fn a_check_run_before_the_last_change_backs_nothing() {
        use crate::gates::lang;
        use crate::read::ToolCall;
        let tables: Vec<_> = lang::codes().filter_map(lang::table).collect();
        let g = Grounding::new(&tables, false).unwrap();
        let claims = PatternSet::new(&[], &[], &[], false).unwrap();
        let check = Some("shellcheck sync.sh");
        let uses = [
            ToolCall::new(Some("a"), "Edit", None, 0, 0),
            ToolCall::new(Some("b"), "Bash", check, 0, 1),
            ToolCall::new(Some("c"), "Edit", None, 0, 2),
        ];
        let text =
            "--quiet drops the progress bar. shellcheck reports nothing.";
        let facts = Facts::new(text).with_tool_uses(&uses).with_changed(true);
        assert!(unverified_claim(&claims, Some(&g), &facts).is_some());
        // Run after the last change, it backs the report.
        let facts = facts.with_tool_uses(&uses[..2]);
        assert!(unverified_claim(&claims, Some(&g), &facts).is_none());
    }

    #[test]
    fn weights() {
        assert_eq!(weight(" : . "), 0);
        assert_eq!(weight("lock"), 4);
        assert_eq!(weight("並行"), 4);
    }
}
