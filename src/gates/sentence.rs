//! Where a sentence starts and ends, and where a word does: the rules every
//! gate uses.
//!
//! CJK sentence ends (`。！？`) and line breaks always end a sentence;
//! ASCII ones (`.!?`) only before whitespace or the end of the text, so a
//! file name (`Cargo.toml`) or a number (`3.1`) does not split one.

use std::sync::OnceLock;

use memchr::memmem;

/// The bounds of the sentence holding byte `at` of `text`: from after the
/// previous sentence end to the next one (exclusive).
pub(crate) fn sentence_bounds(text: &str, at: usize) -> (usize, usize) {
    sentence_bounds_within(text, at, usize::MAX)
}

/// Like [`sentence_bounds`], but looking at most `max` bytes either way of
/// `at`: a caller that asks for every match of a text stays linear in it.
pub(crate) fn sentence_bounds_within(
    text: &str,
    at: usize,
    max: usize,
) -> (usize, usize) {
    let is_end = |i: usize, c: char| ends_sentence(text, i, c);
    let floor = ceil_boundary(text, at.saturating_sub(max));
    let ceil = floor_boundary(text, at.saturating_add(max));
    let start = text[floor..at]
        .char_indices()
        .rev()
        .find(|&(i, c)| is_end(floor + i, c))
        .map_or(floor, |(i, c)| floor + i + c.len_utf8());
    let end = text[at..ceil]
        .char_indices()
        .find(|&(i, c)| is_end(at + i, c))
        .map_or(ceil, |(i, _)| at + i);
    (start, end)
}

/// The end of the sentence that starts at byte `at` of `text` (exclusive),
/// looking at most `max` bytes on: the forward half of
/// [`sentence_bounds_within`], for a caller that walks the sentences in
/// turn and so knows where each starts.
pub(crate) fn sentence_end_within(text: &str, at: usize, max: usize) -> usize {
    let ceil = floor_boundary(text, at.saturating_add(max));
    text[at..ceil]
        .char_indices()
        .find(|&(i, c)| ends_sentence(text, at + i, c))
        .map_or(ceil, |(i, _)| at + i)
}

/// The sentences of `text` in turn, each starting where the last ended
/// (past its end character, whichever it is), each looked for at most
/// `max` bytes on.
pub(crate) fn sentences_within(
    text: &str,
    max: usize,
) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= text.len() {
            return None;
        }
        let start = at;
        let end = sentence_end_within(text, at, max);
        let next = text[end..].chars().next().map_or(1, char::len_utf8);
        at = end + next;
        Some(start..end)
    })
}

/// Whether `c`, at byte `i` of `text`, ends a sentence: the one rule of
/// the module docs.
pub(crate) fn ends_sentence(text: &str, i: usize, c: char) -> bool {
    match c {
        '\n' => true,
        // A Japanese quotation holds whole sentences: 「期限切れです。新しい
        // 招待を依頼してください」 is what one screen said.
        '。' | '！' | '？' => !in_kagi_quote(text, i),
        '.' | '!' | '?' => {
            text[i + c.len_utf8()..]
                .chars()
                .next()
                .is_none_or(char::is_whitespace)
                && !in_double_quote(text, i)
                && !in_code_span(text, i)
        }
        _ => false,
    }
}

/// Whether byte `i` of `text` stands inside a code span on its line: a
/// command's `--project=. test/x.jl` holds no sentence end, and a UI
/// string the agent wrote (`` `어느 쪽으로 할까요?` ``) is the program's
/// words, not its own.
pub(crate) fn in_code_span(text: &str, i: usize) -> bool {
    static TICK: OnceLock<memmem::Finder<'static>> = OnceLock::new();
    let tick = TICK.get_or_init(|| memmem::Finder::new("`"));
    line_around(text, i, tick).is_some_and(|(back, _, _)| {
        memchr::memchr_iter(b'`', back).count() % 2 == 1
    })
}

/// The quotation marks a message is quoted in, opening and closing.
pub(crate) const QUOTES: [(char, char); 5] =
    [('「', '」'), ('『', '』'), ('"', '"'), ('“', '”'), ('‘', '’')];

/// Whether the end of `before`, a sentence up to some byte of it, stands
/// inside a quotation: after an odd number of straight quotes, or after
/// an opening mark that is not closed.
pub(crate) fn inside_quotation(before: &str) -> bool {
    QUOTES.iter().any(|&(open, close)| {
        if open == close {
            return before.matches(open).count() % 2 == 1;
        }
        before
            .rfind(open)
            .is_some_and(|o| before.rfind(close).is_none_or(|c| c < o))
    })
}

/// The next quotation in `s` from byte `from` on, marks included.
pub(crate) fn quotation_at(
    s: &str,
    from: usize,
) -> Option<std::ops::Range<usize>> {
    let (open, close) = s[from..].char_indices().find_map(|(i, c)| {
        QUOTES.iter().find(|q| q.0 == c).map(|q| (from + i, q.1))
    })?;
    let body = open + s[open..].chars().next().map_or(1, char::len_utf8);
    let end = body + s[body..].find(close)? + close.len_utf8();
    Some(open..end)
}

/// How far either way of a sentence end an open quotation is looked for.
const QUOTE_WITHIN: usize = 240;

/// Whether byte `i` of `text` stands inside 「…」 on its line: opened
/// before it and closed after it, each within [`QUOTE_WITHIN`] bytes.
fn in_kagi_quote(text: &str, i: usize) -> bool {
    static OPEN: OnceLock<(
        memmem::Finder<'static>,
        memmem::FinderRev<'static>,
    )> = OnceLock::new();
    let (open, open_rev) = OPEN.get_or_init(|| {
        (memmem::Finder::new("「"), memmem::FinderRev::new("「"))
    });
    let Some((back, ahead, close)) = line_around(text, i, close_kagi()) else {
        return false;
    };
    open.find(&ahead[..close]).is_none()
        && open_rev
            .rfind(back)
            .is_some_and(|o| close_kagi().find(&back[o..]).is_none())
}

/// The finder of 「's closing mark, built once.
fn close_kagi() -> &'static memmem::Finder<'static> {
    static CLOSE: OnceLock<memmem::Finder<'static>> = OnceLock::new();
    CLOSE.get_or_init(|| memmem::Finder::new("」"))
}

/// Whether byte `i` of `text` stands inside "…" on its line: after an odd
/// number of double quotes within [`QUOTE_WITHIN`] bytes, with one to
/// close it ahead: `"초대가 만료되었습니다. 새 초대를 요청하세요"가 나왔습니다`
/// quotes one message.
fn in_double_quote(text: &str, i: usize) -> bool {
    static QUOTE: OnceLock<memmem::Finder<'static>> = OnceLock::new();
    let quote = QUOTE.get_or_init(|| memmem::Finder::new("\""));
    line_around(text, i, quote).is_some_and(|(back, _, _)| {
        memchr::memchr_iter(b'"', back).count() % 2 == 1
    })
}

/// Whether byte `i` of `text` stands inside a quotation on its line, in
/// any of [`QUOTES`]: a message the agent quotes (a UI text, an error),
/// not words it says. Each mark is looked for within [`QUOTE_WITHIN`]
/// bytes either way, as for a sentence end.
pub(crate) fn in_quotation(text: &str, i: usize) -> bool {
    if in_kagi_quote(text, i)
        || in_double_quote(text, i)
        || opens_single_quote(text, i)
    {
        return true;
    }
    let from = floor_boundary(text, i.saturating_sub(QUOTE_WITHIN));
    let to = floor_boundary(text, i + QUOTE_WITHIN);
    let back = &text[from..i];
    let back = &back[back.rfind('\n').map_or(0, |n| n + 1)..];
    let ahead = &text[i..to];
    let ahead = &ahead[..ahead.find('\n').unwrap_or(ahead.len())];
    QUOTES.iter().filter(|q| q.0 != '"' && q.0 != '「').any(
        |&(open, close)| {
            let opened = back
                .rfind(open)
                .is_some_and(|o| back.rfind(close).is_none_or(|c| c < o));
            opened
                && ahead
                    .find(close)
                    .is_some_and(|c| ahead.find(open).is_none_or(|o| c < o))
        },
    )
}

/// Whether byte `i` of `text` opens a phrase set in ASCII single quotes
/// ("the ticket said 'up to you' on timing"): a `'` just before it that
/// opens (at the start, or after a space or a bracket), and one ahead on
/// the line that closes (after a letter, before anything but a letter).
/// An apostrophe ("don't", "you'd") opens nothing.
fn opens_single_quote(text: &str, i: usize) -> bool {
    let b = text.as_bytes();
    let opens = i >= 1
        && b[i - 1] == b'\''
        && (i == 1 || matches!(b[i - 2], b' ' | b'\t' | b'\n' | b'(' | b'['));
    if !opens {
        return false;
    }
    let ahead = &b[i..b.len().min(i + QUOTE_WITHIN)];
    let ahead = &ahead[..memchr::memchr(b'\n', ahead).unwrap_or(ahead.len())];
    (1..ahead.len()).any(|j| {
        ahead[j] == b'\''
            && ahead[j - 1] != b' '
            && ahead.get(j + 1).is_none_or(|c| !c.is_ascii_alphanumeric())
    })
}

/// The bytes of the line around byte `i` of `text`, at most
/// [`QUOTE_WITHIN`] either way (before `i`, and from `i` on), with where
/// `close` first stands ahead; `None` when it stands nowhere ahead on the
/// line, the common case, told by one scan.
fn line_around<'t>(
    text: &'t str,
    i: usize,
    close: &memmem::Finder<'_>,
) -> Option<(&'t [u8], &'t [u8], usize)> {
    let b = text.as_bytes();
    let ahead = &b[i..b.len().min(i + QUOTE_WITHIN)];
    let ahead = &ahead[..memchr::memchr(b'\n', ahead).unwrap_or(ahead.len())];
    let at = close.find(ahead)?;
    let back = &b[i.saturating_sub(QUOTE_WITHIN)..i];
    let back = &back[memchr::memrchr(b'\n', back).map_or(0, |n| n + 1)..];
    Some((back, ahead, at))
}

/// `s` without a note in brackets at its end: "追加済み（最大3回）" →
/// "追加済み".
pub(crate) fn strip_note(s: &str) -> &str {
    let Some(body) = s.strip_suffix([')', '）']) else { return s };
    body.rfind(['(', '（']).map_or(s, |open| s[..open].trim_end())
}

/// `s` without its notes in brackets ("a (b) c" → "a  c"), including one
/// whose opening bracket lies before `s` ("b) c" → " c").
pub(crate) fn without_notes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut depth = 0usize;
    let mut held = String::new();
    for c in s.chars() {
        match c {
            '(' | '（' => {
                depth += 1;
                held.push(c);
            }
            ')' | '）' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    held.clear();
                } else {
                    held.push(c);
                }
            }
            // A window that starts inside a note: what came before its
            // end was the note's.
            ')' | '）' => out.clear(),
            _ if depth > 0 => held.push(c),
            _ => out.push(c),
        }
    }
    // A bracket never closed is no note: its text stays.
    out.push_str(&held);
    out
}

/// The largest char boundary of `s` at or below `n`.
pub(crate) fn floor_boundary(s: &str, n: usize) -> usize {
    if n >= s.len() {
        return s.len();
    }
    (0..=n).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0)
}

/// The smallest char boundary of `s` at or above `n`.
pub(crate) fn ceil_boundary(s: &str, n: usize) -> usize {
    (n..=s.len()).find(|&i| s.is_char_boundary(i)).unwrap_or(s.len())
}

/// Whether `text[at..at + len]` is not glued to ASCII letters or digits.
pub(crate) fn is_word_at(text: &str, at: usize, len: usize) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    let s = &text[at..at + len];
    let glued_before = s.starts_with(|c: char| c.is_ascii_alphanumeric())
        && word(text[..at].chars().next_back());
    let glued_after = s.ends_with(|c: char| c.is_ascii_alphanumeric())
        && word(text[at + len..].chars().next());
    !(glued_before || glued_after)
}

/// How much of the paragraph after a lead is searched for a referent.
pub(crate) const REFERENT_WITHIN: usize = 600;

/// How far a lead's clause is looked at either way of it, in bytes: every
/// lead costs at most this much, so a text of thousands of leads is still
/// judged in linear time.
pub(crate) const CLAUSE_WITHIN: usize = 240;

/// What sets a clause against the one before it, for
/// `PlainAudits::negated` and [`clauses`].
pub(crate) const CONTRASTS: &[&str] =
    &[" but ", "; ", "が、", "けど、", "지만 ", "지만, "];

/// The clauses of `sentence`, as byte ranges: split where one is set
/// against the one before ([`CONTRASTS`]).
pub(crate) fn clauses(sentence: &str) -> Vec<std::ops::Range<usize>> {
    let mut cuts: Vec<usize> = CONTRASTS
        .iter()
        .flat_map(|c| sentence.match_indices(c).map(|(i, c)| i + c.len()))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut out = vec![];
    let mut start = 0;
    for cut in cuts {
        out.push(start..cut);
        start = cut;
    }
    out.push(start..sentence.len());
    out
}

/// Whether a Japanese or Korean sentence ends on a past form ("…しました",
/// "…でした", "…済み"; "…했습니다", "…됐어요"), a note in brackets after
/// it aside.
pub(crate) fn ends_in_past(sentence: &str) -> bool {
    let body = strip_note(sentence.trim_end().trim_end_matches(['。', '.']));
    if ["た", "済み", "済"].iter().any(|e| body.ends_with(e)) {
        return true;
    }
    // A Korean past is the syllable before the ending closed by ㅆ:
    // "했습니다", "됐다", "왔어요"; but "있습니다" is a present and
    // "하겠습니다" a future.
    let Some(stem) = ["습니다", "어요", "다", "요"]
        .iter()
        .find_map(|e| body.strip_suffix(e))
    else {
        return false;
    };
    stem.chars().next_back().is_some_and(is_past_syllable)
}

/// Whether `c` is a Korean syllable of the past: closed by ㅆ ("했", "됐",
/// "었"), but not "있" (a present) nor "겠" (a future).
pub(crate) fn is_past_syllable(c: char) -> bool {
    closes_with_ss(c) && !matches!(c, '있' | '겠')
}

/// Whether `c` is a Hangul syllable whose final consonant is ㅆ, the mark
/// of the past ("했", "됐", "었").
pub(crate) fn closes_with_ss(c: char) -> bool {
    let c = u32::from(c);
    (0xAC00..=0xD7A3).contains(&c) && (c - 0xAC00) % 28 == 20
}

/// Where `next_sentence` stands in `text`: empty at `end` when no
/// sentence follows in the paragraph.
pub(crate) fn next_sentence_at(
    text: &str,
    end: usize,
) -> std::ops::Range<usize> {
    let rest = paragraph(&text[end..]);
    let Some((i, c)) = rest.char_indices().next() else { return end..end };
    let from = i + c.len_utf8();
    let (_, stop) = sentence_bounds_within(rest, from, CLAUSE_WITHIN);
    let stop = stop.max(from);
    let sentence = rest[from..stop].trim();
    // A list number ("1. ") ends no sentence: the item is its line.
    let number = !sentence.is_empty()
        && sentence.bytes().all(|b| b.is_ascii_digit())
        && rest[stop..].starts_with('.');
    if number {
        let line = &rest[from..floor_boundary(rest, from + CLAUSE_WITHIN)];
        let line = line.split('\n').next().unwrap_or(line);
        return end + from..end + from + line.len();
    }
    end + from..end + stop
}

/// Whether the sentence that ends where `rest` starts is a question.
pub(crate) fn is_question(rest: &str) -> bool {
    rest.trim_start_matches([' ', '"', '\'', ')', '）', '」'])
        .starts_with(['?', '？'])
}

/// The start of `s` up to its paragraph's end, at most
/// [`REFERENT_WITHIN`] bytes.
pub(crate) fn paragraph(s: &str) -> &str {
    let s = &s[..floor_boundary(s, REFERENT_WITHIN)];
    s.find("\n\n").map_or(s, |i| &s[..i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_do_not_split_inside_code_spans() {
        let t = "Ran `julia --project=. test/x.jl` after the edits. Done.";
        let (s, e) = sentence_bounds(t, 0);
        assert_eq!(
            &t[s..e],
            "Ran `julia --project=. test/x.jl` after the edits"
        );
        // Outside a span, as before.
        let t = "Ran `a`. Then `b`.";
        let (s, e) = sentence_bounds(t, 0);
        assert_eq!(&t[s..e], "Ran `a`");
    }

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

    /// A byte inside a quotation on its line, in any of the marks; one
    /// outside, or in a quotation never closed on its line, is not.
    #[test]
    fn quotations_are_found_around_a_byte() {
        for (t, inside) in [
            ("refused with \"Please choose another one\" in red", true),
            ("「別のアカウントを選んでください」で拒否", true),
            ("『どちらにしますか』と出る", true),
            ("shows \u{201c}Which plan do you prefer?\u{201d} first", true),
            ("Which do you prefer, \"A\" or \"B\"?", false),
            ("an open \"quote never closed, then choose", false),
            ("「開いた\n選んでください」", false),
        ] {
            let at = ["hoose", "選んで", "どちら", "Which", "refer"]
                .iter()
                .find_map(|w| t.find(w))
                .unwrap();
            assert_eq!(in_quotation(t, at), inside, "{t}");
        }
    }

    #[test]
    fn quotations_hold_their_sentences() {
        let t = "開くと「期限切れです。依頼してください」。次です。";
        let (s, e) = sentence_bounds(t, 0);
        assert_eq!(&t[s..e], "開くと「期限切れです。依頼してください」");
        // A quotation left open ends nothing early, and holds no line
        // break.
        let t = "「開いた。次。";
        assert_eq!(sentence_bounds(t, 0), (0, "「開いた".len()));
        let t = "「a。\nb」";
        assert_eq!(sentence_bounds(t, 0), (0, "「a".len()));
        let t = "열었더니 \"만료되었습니다. 요청하세요\"가 나왔습니다. 다음";
        let (s, e) = sentence_bounds(t, 0);
        assert_eq!(
            &t[s..e],
            "열었더니 \"만료되었습니다. 요청하세요\"가 나왔습니다"
        );
    }

    #[test]
    fn notes_in_brackets_are_left_out() {
        assert_eq!(without_notes("a (b) c"), "a  c");
        assert_eq!(without_notes("걸(1.23E+15로 안 바뀜) Excel"), "걸 Excel");
        assert_eq!(without_notes("a (b (c) d) e"), "a  e");
        // An opening before the window; a note never closed.
        assert_eq!(without_notes("안 바뀜) Excel"), " Excel");
        assert_eq!(without_notes("a (b c"), "a (b c");
    }
}
