//! Pattern sets: the grammar of each intent, compiled to one keyword set.
//!
//! An intent (a deference, a challenge, a concession, a verification
//! claim) is said in many ways: politeness levels, tenses, synonyms. A flat
//! list of phrases misses most of them, so a table writes an intent as a
//! small grammar of [`Pat`]s:
//!
//! * [`Pat::Lit`], a phrase ("up to you", "お任せします");
//! * [`Pat::Near`], one of several heads followed by one of several tails
//!   in the same sentence ("which" … "would you prefer", "どちら" …
//!   "でしょうか", "어느" … "할까요"): every pairing is covered, which is
//!   what makes politeness levels and tenses systematic;
//! * [`Pat::Opening`], a phrase that counts only when it opens a sentence
//!   ("Correct," "맞습니다" as a reply, not "50이 맞습니다");
//! * [`Pat::Asked`], a phrase that counts only in a sentence that ends in
//!   a question mark ("should the 409 body include the id, or …?", not
//!   "so should the broker restart, it reconnects");
//! * [`Pat::Joined`], a head directly followed by a tail, each pairing a
//!   literal of its own ("確認" + "。"), for parts too common to search
//!   alone.
//!
//! Negation is part of the grammar, in both directions, through
//! [`Cancel`]: a match is void when a negation stands before it in its
//! clause ("it's *not* up to you", "I *haven't* verified"), when one
//! follows it in its clause ("確認*していません*", "확인*하지 않*았"), when a
//! cancel word stands between a [`Pat::Near`]'s head and tail ("tests
//! *should* pass"), or, for concessions, when the sentence goes on to
//! contest ("you're right that the name is odd, *but* …").
//!
//! The near rule in one line:
//!
//! > `Near(heads, tails, gap)` fires when a head, as a word of its own, is
//! > followed by a tail, as a word of its own, that starts at most `gap`
//! > bytes after the head ends, with no sentence end (`.` `?` `!` `。` `？`
//! > `！` or a newline) and no `between` cancel word in between.
//!
//! All literals of a set go into one [`KeywordSet`], matched
//! case-insensitively for ASCII, with every overlapping match reported: a
//! scan's set is one automaton (one pass over each text), a hook's indexes
//! the literals by their first three bytes and searches its one short text
//! with that, which costs less than building the automaton.

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::error::Error;
use crate::keywords::KeywordSet;

use super::sentence::{
    ends_sentence, floor_boundary, is_word_at, sentence_bounds_within,
    without_notes,
};

/// One pattern of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pat {
    /// A literal phrase.
    Lit(&'static str),
    /// One of the heads, then one of the tails, near each other: see the
    /// [module docs](self).
    Near(&'static [&'static str], &'static [&'static str], usize),
    /// A literal phrase that opens a sentence.
    Opening(&'static str),
    /// A literal phrase in a sentence that ends in a question mark.
    Asked(&'static str),
    /// One of the heads directly followed by one of the tails, each
    /// pairing a literal of its own: for heads or tails too common to
    /// search alone ("。", "는 ", "見"), which would flood a
    /// [`Pat::Near`] with matches.
    Joined(&'static [&'static str], &'static [&'static str]),
}

/// What voids a match: the negation half of an intent's grammar. Each list
/// is matched ASCII-case-insensitively; an ASCII word must stand as a
/// word, except one that starts with `n'`, which ends one ("wasn't").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cancel {
    /// Words that void a match standing after them in its clause ("not",
    /// "n't", "안 ").
    pub before: &'static [&'static str],
    /// Words that void a match they follow in its clause ("していない",
    /// "하지 않").
    pub after: &'static [&'static str],
    /// Words that void a [`Pat::Near`] when they stand between its head
    /// and its tail ("should", "not").
    pub between: &'static [&'static str],
    /// Words that void a match anywhere after it in its sentence: a
    /// concession that goes on to contest ("but", "ですが", "지만").
    pub sentence_after: &'static [&'static str],
}

impl Cancel {
    /// No cancel words.
    pub const NONE: Cancel =
        Cancel { before: &[], after: &[], between: &[], sentence_after: &[] };
}

/// What follows a match, for its cancel words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ahead {
    /// The rest of its clause, which may negate it.
    Clause,
    /// A result the match led to, which does not.
    Result,
}

/// Whether the act that ends where `before` does is a connective form
/// that leads to what it found ("돌려 보니", "넣었더니", "試したところ"):
/// a negation after it is the finding's ("줄이 빠지지 않았습니다").
pub(crate) fn leads_to_result(before: &str) -> Ahead {
    const CONNECTIVES: &[&str] =
        &["보니", "더니", "봤는데", "보았는데", "ところ", "ると"];
    if CONNECTIVES.iter().any(|c| before.ends_with(c)) {
        Ahead::Result
    } else {
        Ahead::Clause
    }
}

/// How far before a match its clause is searched for a negation, in bytes.
const BEFORE_WITHIN: usize = 48;

/// How far after a match its clause is searched for a negation, in bytes:
/// twelve CJK characters ("お任せ" + "する話ではありません").
const AFTER_WITHIN: usize = 36;

/// What ends a clause, besides a sentence end.
const CLAUSE_ENDS: &[&str] =
    &[",", "、", "，", ";", "；", ":", "：", "—", "–", "지만", "が、"];

/// A keyword set compiled on first use.
///
/// A hook run judges one turn, and most turns reach only one or two gates
/// (no change: no audit; fewer than two tool uses: no ownership check), so
/// a set is built only when a gate first needs it. A hook's set (`dfa`
/// false) is one-shot: an index of each keyword's first bytes searches
/// the one short text, since building an Aho-Corasick automaton for a few
/// hundred phrases costs more than that search; a scan's set is a DFA. Empty
/// keywords are rejected up front; if a set still cannot be built (a size
/// limit), it is empty and never matches, so a gate fails open rather than
/// blocking.
#[derive(Debug)]
pub(crate) struct LazyKeywords {
    keywords: Vec<Cow<'static, str>>,
    dfa: bool,
    overlapping: bool,
    cell: OnceLock<KeywordSet>,
}

impl Clone for LazyKeywords {
    fn clone(&self) -> LazyKeywords {
        LazyKeywords {
            keywords: self.keywords.clone(),
            dfa: self.dfa,
            overlapping: self.overlapping,
            cell: self.cell.clone(),
        }
    }
}

impl LazyKeywords {
    /// Keywords matched with ASCII case folding.
    pub(crate) fn new(
        keywords: Vec<Cow<'static, str>>,
        dfa: bool,
    ) -> Result<LazyKeywords, Error> {
        if let Some(i) = keywords.iter().position(|k| k.is_empty()) {
            return Err(Error::empty_keyword(i));
        }
        Ok(LazyKeywords {
            keywords,
            dfa,
            overlapping: false,
            cell: OnceLock::new(),
        })
    }

    /// Like [`LazyKeywords::new`], built for
    /// [`KeywordSet::find_overlapping`].
    pub(crate) fn overlapping(
        keywords: Vec<Cow<'static, str>>,
        dfa: bool,
    ) -> Result<LazyKeywords, Error> {
        Ok(LazyKeywords {
            overlapping: true,
            ..LazyKeywords::new(keywords, dfa)?
        })
    }

    /// The compiled set.
    pub(crate) fn get(&self) -> &KeywordSet {
        self.cell.get_or_init(|| {
            let mut b = KeywordSet::builder();
            // A hook's set searches one short text: searching each keyword
            // alone costs less than building an automaton (or a
            // prefilter). A bulk set searches keyword by keyword too until
            // it has searched enough text that its DFA and prefilter pay:
            // in a scan, the plain-language grammar reads only the texts
            // the learned judge is unsure of, a few in a thousand.
            b.ascii_case_insensitive(true)
                .dfa(self.dfa)
                .prefilter(self.dfa)
                .one_shot(true)
                .adaptive(self.dfa)
                .overlapping(self.overlapping);
            b.build(&self.keywords)
                .or_else(|_| b.build(Vec::<String>::new()))
                .expect("an empty set builds")
        })
    }
}

/// `items` ordered longest first, ties in their order: what a
/// leftmost-first set needs to prefer "edge cases" to "edge case".
///
/// A stable counting sort by length, linear in the phrases: a hook builds
/// its sets on every run, and a comparison sort of a few hundred phrases
/// was a tenth of a run's instructions.
pub(crate) fn longest_first<T>(
    items: Vec<T>,
    len: impl Fn(&T) -> usize,
) -> Vec<T> {
    let max = items.iter().map(&len).max().unwrap_or(0);
    // Slot k holds the items of length max - k; `starts[k]` is where the
    // next of them goes.
    let mut starts = vec![0usize; max + 2];
    for item in &items {
        starts[max - len(item) + 1] += 1;
    }
    for k in 1..starts.len() {
        starts[k] += starts[k - 1];
    }
    let mut slots: Vec<Option<T>> =
        std::iter::repeat_with(|| None).take(items.len()).collect();
    for item in items {
        let k = max - len(&item);
        slots[starts[k]] = Some(item);
        starts[k] += 1;
    }
    slots.into_iter().flatten().collect()
}

/// A pattern of a set: a table's, or a configured literal.
#[derive(Clone, Copy, Debug)]
enum Rule<'a> {
    Lit(&'a str),
    Near(&'a [&'a str], &'a [&'a str], usize),
    Opening(&'a str),
    Asked(&'a str),
    Joined(&'a [&'a str], &'a [&'a str]),
}

impl<'a> From<&'a Pat> for Rule<'a> {
    fn from(p: &'a Pat) -> Rule<'a> {
        match *p {
            Pat::Lit(s) => Rule::Lit(s),
            Pat::Near(a, b, gap) => Rule::Near(a, b, gap),
            Pat::Opening(s) => Rule::Opening(s),
            Pat::Asked(s) => Rule::Asked(s),
            Pat::Joined(a, b) => Rule::Joined(a, b),
        }
    }
}

/// The cancel words of a set, merged over its languages.
#[derive(Clone, Debug, Default)]
struct Cancels {
    before: Vec<Cow<'static, str>>,
    after: Vec<Cow<'static, str>>,
    between: Vec<Cow<'static, str>>,
    sentence_after: Vec<Cow<'static, str>>,
}

impl Cancels {
    fn new(cancels: &[Cancel]) -> Cancels {
        let mut c = Cancels::default();
        for x in cancels {
            // Lowercased as matched; a table's words mostly are already,
            // and are then borrowed, not copied.
            fn own(
                l: &'static [&'static str],
            ) -> impl Iterator<Item = Cow<'static, str>> {
                l.iter().map(|&w| {
                    match w.bytes().any(|b| b.is_ascii_uppercase()) {
                        true => Cow::Owned(w.to_ascii_lowercase()),
                        false => Cow::Borrowed(w),
                    }
                })
            }
            c.before.extend(own(x.before));
            c.after.extend(own(x.after));
            c.between.extend(own(x.between));
            c.sentence_after.extend(own(x.sentence_after));
        }
        c
    }
}

/// A set of patterns, compiled on first use.
///
/// Building one only gathers its tables' patterns: a hook run judges one
/// turn, and most turns reach one or two gates, so the literals are
/// collected, the cancel words folded and the keyword set built only when
/// a gate first asks.
#[derive(Clone, Debug)]
pub struct PatternSet {
    pats: Vec<Pat>,
    extra: Vec<String>,
    cancel_tables: Vec<Cancel>,
    dfa: bool,
    compiled: OnceLock<Compiled>,
    cancels: OnceLock<Cancels>,
}

/// What a [`PatternSet`] matches with, once compiled.
#[derive(Clone, Debug)]
struct Compiled {
    keywords: LazyKeywords,
}

/// What fired, as [`PatternSet::fired`] names it: built into a string
/// only when a caller asks for the name.
#[derive(Clone, Copy, Debug)]
enum Label<'a> {
    /// A literal, an opening or a joined pair, as matched.
    Phrase(&'a str),
    /// A [`Pat::Near`]'s head and tail.
    Pair(&'a str, &'a str),
}

impl std::fmt::Display for Label<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Label::Phrase(s) => f.write_str(s),
            Label::Pair(head, tail) => write!(f, "{head}…{tail}"),
        }
    }
}

/// One keyword match: its byte range and the keyword, as in the set.
#[derive(Clone, Copy, Debug)]
struct Hit<'k> {
    start: usize,
    end: usize,
    keyword: &'k str,
}

impl Hit<'_> {
    /// Whether the hit is a word of its own in `text` ("i" is not one in
    /// "still", nor "ran" in "grant").
    fn is_word_in(&self, text: &str) -> bool {
        is_word_at(text, self.start, self.end - self.start)
    }
}

/// Whether `hay` (lowercased) holds `word` as the cancel rules read it.
pub(crate) fn holds(hay: &str, word: &str) -> bool {
    // A word the tables end with a space ("안 ", "못 ") is a word of its
    // own, not the end of another: "방안 중" negates nothing.
    if !word.is_ascii() && word.ends_with(' ') {
        return hay.match_indices(word).any(|(i, _)| {
            hay[..i].chars().next_back().is_none_or(|c| !c.is_alphanumeric())
        });
    }
    if !word.is_ascii() || word.starts_with("n'") {
        return hay.contains(word);
    }
    hay.match_indices(word).any(|(i, _)| is_word_at(hay, i, word.len()))
}

/// The start of the clause that holds byte `at`, looking back at most
/// [`BEFORE_WITHIN`] bytes.
fn clause_start(text: &str, at: usize) -> usize {
    let (start, _) = sentence_bounds_within(text, at, BEFORE_WITHIN);
    let before = &text[start..at];
    CLAUSE_ENDS
        .iter()
        .filter_map(|e| before.rfind(e).map(|i| start + i + e.len()))
        .max()
        .unwrap_or(start)
}

/// The end of the clause that holds byte `at`, looking on at most
/// [`AFTER_WITHIN`] bytes.
fn clause_end(text: &str, at: usize) -> usize {
    let (_, end) = sentence_bounds_within(text, at, AFTER_WITHIN);
    let after = &text[at..end];
    CLAUSE_ENDS
        .iter()
        .filter_map(|e| after.find(e).map(|i| at + i))
        .min()
        .unwrap_or(end)
}

/// Whether the sentence that holds byte `at` of `text` ends in a question
/// mark (looking at most 400 bytes on).
fn asked(text: &str, at: usize) -> bool {
    let (_, end) = sentence_bounds_within(text, at, 400);
    text[end..].starts_with(['?', '？'])
}

/// Whether byte `at` opens a sentence: nothing but spaces, quotes and
/// list marks stand before it in its sentence.
fn opens_sentence(text: &str, at: usize) -> bool {
    let (start, _) = sentence_bounds_within(text, at, 16);
    text[start..at]
        .chars()
        .all(|c| c.is_whitespace() || "-*>\"'「『（(…".contains(c))
}

impl PatternSet {
    /// Gather the table patterns `pats`, their languages' `cancels`, and
    /// the configured literals `extra`; they are compiled on first use.
    ///
    /// # Errors
    ///
    /// When a literal is empty.
    pub fn new(
        pats: &[Pat],
        cancels: &[Cancel],
        extra: &[String],
        dfa: bool,
    ) -> Result<PatternSet, Error> {
        if let Some(i) = extra.iter().position(|k| k.is_empty()) {
            return Err(Error::empty_keyword(i));
        }
        Ok(PatternSet {
            pats: pats.to_vec(),
            extra: extra.to_vec(),
            cancel_tables: cancels.to_vec(),
            dfa,
            compiled: OnceLock::new(),
            cancels: OnceLock::new(),
        })
    }

    /// The patterns, the tables' first, in order.
    fn rules(&self) -> impl Iterator<Item = Rule<'_>> {
        self.pats
            .iter()
            .map(Rule::from)
            .chain(self.extra.iter().map(|s| Rule::Lit(s)))
    }

    /// The cancel words, folded on first call: apart from the keywords,
    /// since a caller may ask only whether a match of its own is
    /// cancelled ([`PatternSet::cancelled`]).
    fn cancels(&self) -> &Cancels {
        self.cancels.get_or_init(|| Cancels::new(&self.cancel_tables))
    }

    /// The keyword set, compiled on first call.
    fn compiled(&self) -> &Compiled {
        self.compiled.get_or_init(|| {
            let mut literals: Vec<Cow<'static, str>> = vec![];
            for p in &self.pats {
                match *p {
                    Pat::Lit(s) | Pat::Opening(s) | Pat::Asked(s) => {
                        literals.push(Cow::Borrowed(s))
                    }
                    Pat::Near(a, b, _) => literals
                        .extend(a.iter().chain(b).map(|&s| Cow::Borrowed(s))),
                    Pat::Joined(a, b) => {
                        literals.extend(a.iter().flat_map(|h| {
                            b.iter()
                                .map(move |t| Cow::Owned(format!("{h}{t}")))
                        }))
                    }
                }
            }
            literals.extend(self.extra.iter().cloned().map(Cow::Owned));
            literals.sort_unstable();
            literals.dedup();
            // Every occurrence of every literal, overlaps included: "should
            // i go with" must not hide the "should i" inside it, nor " is "
            // the "is not" it overlaps. The literals are checked for
            // emptiness here: an empty table phrase is a bug the tables'
            // tests catch, and the set then fails open (matches nothing).
            let keywords = LazyKeywords::overlapping(literals, self.dfa)
                .unwrap_or_else(|_| {
                    LazyKeywords::overlapping(vec![], self.dfa)
                        .expect("an empty set builds")
                });
            Compiled { keywords }
        })
    }

    /// Whether the match spanning `start..end` is voided by a negation
    /// before or after it in its clause, or by a concession's "but" later
    /// in its sentence.
    pub(crate) fn cancelled(
        &self,
        text: &str,
        start: usize,
        end: usize,
    ) -> bool {
        self.cancelled_looking(text, start, end, Ahead::Clause)
    }

    /// Whether `lower` (a lowercased sentence) holds one of the words that
    /// void a match anywhere in its sentence ("unverified", "未検証"):
    /// what says the work is unverified, whatever was tried.
    pub(crate) fn unverified(&self, lower: &str) -> bool {
        self.cancels().sentence_after.iter().any(|w| holds(lower, w))
    }

    /// Like [`PatternSet::cancelled`], but with `Ahead::Result` the clause
    /// after the match is not looked at: it tells what a connective act
    /// found ("돌려 보니 … 않았습니다"), and its negation is the finding's,
    /// not the act's.
    pub(crate) fn cancelled_looking(
        &self,
        text: &str,
        start: usize,
        end: usize,
        ahead: Ahead,
    ) -> bool {
        let c = self.cancels();
        if !c.before.is_empty() {
            let before = text[clause_start(text, start)..start].to_lowercase();
            // A negation in a note in brackets is the note's.
            let before = without_notes(&before);
            if c.before.iter().any(|w| holds(&before, w)) {
                return true;
            }
        }
        if !c.after.is_empty() && ahead == Ahead::Clause {
            let after = text[end..clause_end(text, end)].to_lowercase();
            if c.after.iter().any(|w| holds(&after, w)) {
                return true;
            }
        }
        if !c.sentence_after.is_empty() {
            let (_, stop) = sentence_bounds_within(text, end, 240);
            // The rest of the sentence, and how the next one opens: "You're
            // right. However, …" contests as "You're right, but …" does.
            let next = text[stop.max(end)..].trim_start_matches(|c: char| {
                c.is_whitespace() || matches!(c, '.' | '!' | '。' | '！')
            });
            let next = &next[..floor_boundary(next, 12)];
            let rest =
                format!("{} {next}", &text[end..stop.max(end)]).to_lowercase();
            if c.sentence_after.iter().any(|w| holds(&rest, w)) {
                return true;
            }
        }
        false
    }

    /// Every keyword match in `text`, sorted by start.
    fn hits<'k>(&'k self, text: &str) -> Vec<Hit<'k>> {
        let keywords = self.compiled().keywords.get();
        let mut hits: Vec<Hit<'_>> = keywords
            .find_overlapping(text)
            .into_iter()
            .map(|m| Hit {
                start: m.start(),
                end: m.end(),
                keyword: keywords.keyword(m),
            })
            .collect();
        // The proximity search relies on the order by start.
        hits.sort_unstable_by_key(|h| (h.start, h.end));
        hits
    }

    /// Calls `found` with each live match of rule `r` (its label and
    /// byte range), in order of start, until it returns `false`.
    fn each_match(
        &self,
        text: &str,
        hits: &[Hit<'_>],
        r: Rule<'_>,
        found: &mut dyn FnMut(Label<'_>, std::ops::Range<usize>) -> bool,
    ) {
        let is = |h: &Hit<'_>, s: &str| h.keyword.eq_ignore_ascii_case(s);
        let live = |h: &Hit<'_>| {
            h.is_word_in(text)
                && !self.cancelled_looking(
                    text,
                    h.start,
                    h.end,
                    leads_to_result(&text[..h.end]),
                )
        };
        match r {
            Rule::Lit(s) => {
                for h in hits.iter().filter(|h| is(h, s) && live(h)) {
                    if !found(Label::Phrase(s), h.start..h.end) {
                        return;
                    }
                }
            }
            Rule::Opening(s) => {
                for h in hits.iter().filter(|h| {
                    is(h, s) && opens_sentence(text, h.start) && live(h)
                }) {
                    if !found(Label::Phrase(s), h.start..h.end) {
                        return;
                    }
                }
            }
            Rule::Asked(s) => {
                for h in hits
                    .iter()
                    .filter(|h| is(h, s) && asked(text, h.end) && live(h))
                {
                    if !found(Label::Phrase(s), h.start..h.end) {
                        return;
                    }
                }
            }
            Rule::Near(heads, tails, gap) => {
                self.near(text, hits, heads, tails, gap, found)
            }
            Rule::Joined(heads, tails) => {
                let joined = |kw: &str| {
                    heads.iter().any(|h| {
                        kw.get(..h.len())
                            .is_some_and(|k| k.eq_ignore_ascii_case(h))
                            && tails.iter().any(|t| {
                                kw.get(h.len()..)
                                    .is_some_and(|k| k.eq_ignore_ascii_case(t))
                            })
                    })
                };
                for h in hits.iter().filter(|h| joined(h.keyword) && live(h)) {
                    if !found(Label::Phrase(h.keyword), h.start..h.end) {
                        return;
                    }
                }
            }
        }
    }

    /// The labels of the patterns that fire in `text`, in table order.
    pub fn fired(&self, text: &str) -> Vec<String> {
        self.fired_where(text, &|_| true)
    }

    /// [`PatternSet::fired`], counting only the matches whose byte range
    /// in `text` `keep` accepts.
    pub(crate) fn fired_where(
        &self,
        text: &str,
        keep: &dyn Fn(std::ops::Range<usize>) -> bool,
    ) -> Vec<String> {
        let hits = self.hits(text);
        if hits.is_empty() {
            return vec![];
        }
        self.rules()
            .filter_map(|r| {
                let mut first = None;
                self.each_match(text, &hits, r, &mut |label, span| {
                    if !keep(span) {
                        return true;
                    }
                    first = Some(label.to_string());
                    false
                });
                first
            })
            .collect()
    }

    /// The byte range of every live match of every pattern in `text`,
    /// sorted by start: where in the text each one fired.
    pub(crate) fn spans(&self, text: &str) -> Vec<std::ops::Range<usize>> {
        let hits = self.hits(text);
        let mut out = vec![];
        if hits.is_empty() {
            return out;
        }
        for r in self.rules() {
            self.each_match(text, &hits, r, &mut |_, span| {
                out.push(span);
                true
            });
        }
        out.sort_unstable_by_key(|r| (r.start, r.end));
        out.dedup();
        out
    }

    /// Calls `found` with each head-tail pair of a [`Pat::Near`] that
    /// fires (its label and the range from head to tail), until it
    /// returns `false`.
    fn near(
        &self,
        text: &str,
        hits: &[Hit<'_>],
        heads: &[&str],
        tails: &[&str],
        gap: usize,
        found: &mut dyn FnMut(Label<'_>, std::ops::Range<usize>) -> bool,
    ) {
        fn of<'s>(h: &Hit<'_>, set: &[&'s str]) -> Option<&'s str> {
            set.iter().find(|s| h.keyword.eq_ignore_ascii_case(s)).copied()
        }
        for a in hits.iter().filter(|h| h.is_word_in(text)) {
            let Some(head) = of(a, heads) else { continue };
            // Hits are sorted by start: only those starting within `gap`
            // after the head can pair with it, so each head looks at a
            // few, not at all of them.
            let from = hits.partition_point(|h| h.start < a.end);
            for b in hits[from..].iter().take_while(|h| h.start - a.end <= gap)
            {
                let Some(tail) = of(b, tails).filter(|_| b.is_word_in(text))
                else {
                    continue;
                };
                let between = &text[a.end..b.start];
                if between
                    .char_indices()
                    .any(|(i, c)| ends_sentence(text, a.end + i, c))
                {
                    continue;
                }
                let lower = between.to_lowercase();
                let between = &self.cancels().between;
                if between.iter().any(|w| holds(&lower, w)) {
                    continue;
                }
                if self.cancelled(text, a.start, b.end) {
                    continue;
                }
                if !found(Label::Pair(head, tail), a.start..b.end) {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_heads_and_tails_are_words() {
        let set = PatternSet::new(
            &[Pat::Near(&["i"], &["ran"], 4)],
            NONE,
            &[],
            false,
        )
        .unwrap();
        assert!(!set.fired("I ran it.").is_empty());
        // Not the "i" of "still", nor the "ran" of "grant".
        assert!(set.fired("our login still ran once").is_empty());
        assert!(set.fired("I grant that.").is_empty());
    }

    const NONE: &[Cancel] = &[];

    #[test]
    fn near_respects_gap_and_sentences() {
        let set = PatternSet::new(
            &[Pat::Near(&["which"], &["prefer"], 30), Pat::Lit("up to you")],
            NONE,
            &[],
            false,
        )
        .unwrap();
        assert_eq!(
            set.fired("Which of the two would you prefer?"),
            vec!["which…prefer"]
        );
        assert!(set.fired("Which one failed. I prefer the fix.").is_empty());
        assert!(set
            .fired(&format!("which {} prefer", "x".repeat(40)))
            .is_empty());
        assert!(set.fired("I prefer which?").is_empty());
        assert_eq!(set.fired("It's UP TO YOU."), vec!["up to you"]);
    }

    /// "should i go with" is a literal of its own and contains the
    /// "should i" of a proximity pattern; leftmost-first reported only the
    /// longer one, so "Which one should I go with?" fired nothing.
    #[test]
    fn a_longer_literal_does_not_hide_a_shorter_one_inside_it() {
        let set = PatternSet::new(
            &[
                Pat::Near(&["which"], &["should i"], 30),
                Pat::Near(&["should i go with"], &["or"], 60),
            ],
            NONE,
            &[],
            false,
        )
        .unwrap();
        assert_eq!(
            set.fired("Which one should I go with?"),
            vec!["which…should i"]
        );
    }

    #[test]
    fn negation_voids_a_match_in_both_directions() {
        let cancel = Cancel {
            before: &["not", "n't"],
            after: &["していません", "하지 않"],
            between: &["should"],
            sentence_after: &["but"],
        };
        let set = PatternSet::new(
            &[
                Pat::Lit("up to you"),
                Pat::Lit("確認"),
                Pat::Lit("확인"),
                Pat::Lit("you're right"),
                Pat::Near(&["tests"], &["pass"], 20),
            ],
            &[cancel],
            &[],
            false,
        )
        .unwrap();
        assert!(set.fired("It's not up to you: the spec decides.").is_empty());
        assert!(set.fired("It isn't up to you.").is_empty());
        assert_eq!(set.fired("No, it's up to you."), vec!["up to you"]);
        assert!(set.fired("まだ確認していませんが、B です。").is_empty());
        assert_eq!(
            set.fired("確認しました。変更していません。"),
            vec!["確認"]
        );
        assert!(set.fired("아직 확인하지 않았습니다.").is_empty());
        assert!(set.fired("Tests should pass in CI.").is_empty());
        assert_eq!(set.fired("The tests pass."), vec!["tests…pass"]);
        assert!(set
            .fired("You're right that it's slow, but it's correct.")
            .is_empty());
        // A contest that opens the next sentence voids it too; a sentence
        // that goes on does not.
        assert!(set
            .fired("You're right. But the spec says otherwise.")
            .is_empty());
        assert_eq!(
            set.fired("You're right. Thanks, fixing it now."),
            vec!["you're right"]
        );
    }

    #[test]
    fn joined_pairs_are_literals_of_their_own() {
        let set = PatternSet::new(
            &[Pat::Joined(&["確認", "検証"], &["。", "\n"])],
            &[Cancel { before: &["未"], ..Cancel::NONE }],
            &[],
            false,
        )
        .unwrap();
        assert_eq!(set.fired("`x` を確認。"), vec!["確認。"]);
        assert_eq!(set.spans("a\n検証\nb"), vec![2..9]);
        assert!(set.fired("確認した。").is_empty());
        assert!(set.fired("。確認").is_empty());
        assert!(set.fired("未確認。").is_empty());
    }

    proptest::proptest! {
        /// The counting sort is the standard library's stable sort.
        #[test]
        fn longest_first_is_a_stable_sort_by_length(
            words in proptest::collection::vec("[a-c確]{0,6}", 0..40),
        ) {
            let mut want = words.clone();
            want.sort_by_key(|w| std::cmp::Reverse(w.len()));
            proptest::prop_assert_eq!(longest_first(words, |w| w.len()), want);
        }
    }

    #[test]
    fn asked_phrases_count_only_in_questions() {
        let set =
            PatternSet::new(&[Pat::Asked("should the")], NONE, &[], false)
                .unwrap();
        let asked = "Added the check. Should the 409 body include the id, \
                     or just the error?";
        assert_eq!(set.fired(asked), ["should the"]);
        assert!(set
            .fired("so should the broker restart, it reconnects within 5s.")
            .is_empty());
        assert!(set.fired("Should the cache stay? 「いいえ」").len() == 1);
    }

    #[test]
    fn openings_and_word_bounds() {
        let set = PatternSet::new(
            &[Pat::Opening("맞습니다"), Pat::Lit("ok")],
            NONE,
            &[],
            false,
        )
        .unwrap();
        assert_eq!(set.fired("맞습니다. 100입니다."), vec!["맞습니다"]);
        assert!(set.fired("아니요, 50이 맞습니다.").is_empty());
        assert!(set.fired("the token is broken").is_empty());
        assert_eq!(set.fired("It's OK."), vec!["ok"]);
    }
}
