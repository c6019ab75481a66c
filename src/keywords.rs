//! Keyword matching with Aho-Corasick: which keywords matched, and where.
//!
//! The gates ask questions like "does the final text hold an audit
//! marker?". Answering with one automaton over all keywords costs one pass
//! over the text however many keywords there are, and reporting *which*
//! keywords matched lets users see why a gate fired.
//!
//! The automaton uses [`MatchKind::LeftmostFirst`] unless built
//! [`overlapping`](KeywordSetBuilder::overlapping). The aho-corasick
//! default, `Standard`, cannot use the packed SIMD prefilter (Teddy) and is
//! about ten times slower on a handful of patterns. With leftmost-first
//! semantics, when two keywords match at the same position, the one added
//! first wins, so add longer, more specific keywords before the shorter
//! ones they contain. A grammar that pairs phrases needs every occurrence
//! of every keyword instead, overlaps included: that is what
//! [`KeywordSet::find_overlapping`] gives a set built overlapping.

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use crate::error::Error;

/// A set of keywords compiled into one Aho-Corasick automaton.
///
/// Cloning is cheap-ish (the automaton is reference counted), and the set
/// is `Send + Sync`, so one set can serve every thread of a scan.
///
/// # Example
///
/// ```
/// use stopgate::KeywordSet;
///
/// let set = KeywordSet::builder()
///     .ascii_case_insensitive(true)
///     .build(["audit:", "verified"])
///     .unwrap();
/// let found: Vec<&str> = set.find_iter("Audit: VERIFIED by a test").map(|m| set.keyword(m)).collect();
/// assert_eq!(found, vec!["audit:", "verified"]);
/// ```
#[derive(Clone, Debug)]
pub struct KeywordSet {
    matcher: Matcher,
    keywords: Vec<String>,
}

/// How a set searches.
#[derive(Clone, Debug)]
enum Matcher {
    /// One Aho-Corasick automaton: one pass over the text, whatever the
    /// number of keywords.
    Automaton(AhoCorasick),
    /// The keywords indexed by their first three bytes ([`PairIndex`]), for
    /// a set that searches one short text: next to nothing to build, which
    /// is most of the cost when the text is a few KB. A long text still
    /// gets the automaton, built on first need, and so does every text an
    /// adaptive set searches once it has searched a long text's worth.
    OneShot(Box<OneShot>),
}

/// The keywords of a one-shot set, as searched, and the automaton a long
/// text falls back to.
#[derive(Clone, Debug)]
struct OneShot {
    needles: Needles,
    fold: bool,
    index: PairIndex,
    builder: KeywordSetBuilder,
    fallback: std::sync::OnceLock<Option<AhoCorasick>>,
    /// The bytes searched so far, for an
    /// [`adaptive`](KeywordSetBuilder::adaptive) set.
    spent: Spent,
}

/// The bytes an adaptive one-shot set has searched, over every text and
/// thread.
#[derive(Debug, Default)]
struct Spent(std::sync::atomic::AtomicUsize);

impl Clone for Spent {
    fn clone(&self) -> Spent {
        Spent(self.0.load(std::sync::atomic::Ordering::Relaxed).into())
    }
}

/// The keywords of a one-shot set as searched (ASCII-folded when the set
/// folds), end to end in one buffer: one allocation for the set, not one
/// per keyword.
#[derive(Clone, Debug, Default)]
struct Needles {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Needles {
    fn new(keywords: &[String], fold: bool) -> Needles {
        let mut n = Needles {
            bytes: Vec::with_capacity(keywords.iter().map(String::len).sum()),
            ends: Vec::with_capacity(keywords.len()),
        };
        for k in keywords {
            n.bytes.extend_from_slice(k.as_bytes());
            n.ends.push(n.bytes.len());
        }
        if fold {
            n.bytes.make_ascii_lowercase();
        }
        n
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, i: usize) -> &[u8] {
        let start = i.checked_sub(1).map_or(0, |p| self.ends[p]);
        &self.bytes[start..self.ends[i]]
    }
}

/// The longest text a one-shot set searches keyword by keyword; a longer
/// one gets the automaton. Also how much an adaptive set searches, in
/// all, before it builds its automaton.
const ONE_SHOT_MAX_TEXT: usize = 64 << 10;

/// How deep from its start state an automaton built for many texts (a
/// contiguous NFA, or a DFA built through one) gives its states a
/// dense table of transitions: the start state's children, no deeper.
///
/// aho-corasick's default, 3, gives the states of depth 2 and 3 their
/// tables too, and with a few hundred keywords folded for case there are
/// thousands of them. For the outcome lexicon of the plain-audit grammar
/// (1,403 keywords) the default built a 738 KB automaton through a 2.2 MB
/// peak of heap, the whole of an archive scan's growth in memory; a depth
/// of 1 built a 156 KB one through a 0.5 MB peak, in less time, and
/// searched real assistant text 3% slower. (0 puts the start state itself
/// in a sparse list: a fifth slower again.)
const BULK_DENSE_DEPTH: usize = 1;

/// The depth for a noncontiguous NFA, a hook's one-text automaton:
/// aho-corasick's default. A noncontiguous NFA searches its sparse states
/// by walking a linked list, twenty times slower at a depth of 0.
const HOOK_DENSE_DEPTH: usize = 3;

/// How many buckets [`PairIndex`] hashes a keyword's first three bytes
/// into (and, for the two-byte keywords, their two).
const PAIR_BUCKETS: usize = 1 << 10;

/// The keywords of a one-shot set by their first bytes: at each position
/// of a text, only the keywords that start with the text's next three
/// bytes (or two, for a two-byte keyword), and a few that share their
/// bucket, are compared.
///
/// Building it is one pass over the keywords and two small tables, which
/// is why a hook run, which searches one short text with a few hundred
/// keywords, uses it instead of an automaton (a few hundred microseconds
/// to build) or a `memmem` searcher per keyword (each one built, then run
/// over the whole text). Three bytes, not two: a set of several hundred
/// English phrases has dozens starting with "re" or "th", and a two-byte
/// bucket would compare them all at every such position.
#[derive(Clone, Debug)]
struct PairIndex {
    /// Per bucket of three first bytes, the first keyword in it, plus one
    /// (zero: none).
    heads: Vec<u16>,
    /// The same for the two-byte keywords, by their two bytes.
    pairs: Vec<u16>,
    /// Per keyword, the next keyword in its bucket, plus one. A bucket's
    /// keywords are in the set's order.
    next: Vec<u16>,
    /// The one-byte keywords, in the set's order.
    singles: Vec<u16>,
    /// Per byte, whether some keyword starts with it: most of a text's
    /// positions (spaces, punctuation, the inner bytes of UTF-8) start
    /// none, and are passed over without a look at the buckets.
    starts: [bool; 256],
    /// Whether the set has keywords of fewer than three bytes, whose
    /// matches at a position come before or between the longer ones'.
    short: bool,
}

impl PairIndex {
    /// The index of `needles`; `None` past 65,534 of them, the most its
    /// 16-bit links can name.
    fn new(needles: &Needles) -> Option<PairIndex> {
        if needles.len() >= usize::from(u16::MAX) {
            return None;
        }
        let mut heads = vec![0u16; PAIR_BUCKETS];
        let mut pairs = vec![0u16; PAIR_BUCKETS];
        let mut next = vec![0u16; needles.len()];
        let mut singles = vec![];
        let mut starts = [false; 256];
        // Backwards, each keyword put in front of its bucket: the chains
        // come out in the set's order.
        for i in (0..needles.len()).rev() {
            let link = u16::try_from(i + 1).ok()?;
            if let Some(&first) = needles.get(i).first() {
                starts[usize::from(first)] = true;
            }
            let (table, bucket) = match *needles.get(i) {
                [a, b, c, ..] => (&mut heads, bucket(key3(a, b, c))),
                [a, b] => (&mut pairs, bucket(key2(a, b))),
                _ => {
                    singles.push(link - 1);
                    continue;
                }
            };
            next[i] = table[bucket];
            table[bucket] = link;
        }
        singles.reverse();
        let short = !singles.is_empty() || pairs.iter().any(|&h| h != 0);
        Some(PairIndex { heads, pairs, next, singles, starts, short })
    }
}

/// The key of a keyword's first two bytes.
fn key2(a: u8, b: u8) -> u32 {
    u32::from(a) << 8 | u32::from(b)
}

/// The key of a keyword's first three bytes: never a two-byte key.
fn key3(a: u8, b: u8, c: u8) -> u32 {
    1 << 24 | u32::from(a) << 16 | u32::from(b) << 8 | u32::from(c)
}

/// The bucket of a key.
fn bucket(key: u32) -> usize {
    // Fibonacci hashing: the top bits of the product.
    (key.wrapping_mul(0x9E37_79B1) >> (32 - PAIR_BUCKETS.trailing_zeros()))
        as usize
}

impl OneShot {
    /// Every occurrence of every keyword, ordered by start, then by the
    /// keyword's place in the set.
    fn all(&self, text: &str) -> Vec<KeywordMatch> {
        let hay = text.as_bytes();
        let fold = |b: u8| if self.fold { b.to_ascii_lowercase() } else { b };
        let matches_at = |needle: &[u8], at: usize| {
            hay.get(at..at + needle.len()).is_some_and(|h| {
                if self.fold {
                    h.eq_ignore_ascii_case(needle)
                } else {
                    h == needle
                }
            })
        };
        let index = &self.index;
        let mut out = vec![];
        for (at, &byte) in hay.iter().enumerate() {
            let first = fold(byte);
            if !index.starts[usize::from(first)] {
                continue;
            }
            for &k in &index.singles {
                if self.needles.get(usize::from(k))[0] == first {
                    out.push(KeywordMatch {
                        keyword: usize::from(k),
                        start: at,
                        end: at + 1,
                    });
                }
            }
            let Some(&second) = hay.get(at + 1) else { break };
            let second = fold(second);
            let mut walk = |mut k: u16| {
                while k != 0 {
                    let keyword = usize::from(k - 1);
                    let needle = self.needles.get(keyword);
                    if matches_at(needle, at) {
                        out.push(KeywordMatch {
                            keyword,
                            start: at,
                            end: at + needle.len(),
                        });
                    }
                    k = index.next[keyword];
                }
            };
            walk(index.pairs[bucket(key2(first, second))]);
            if let Some(&third) = hay.get(at + 2) {
                walk(index.heads[bucket(key3(first, second, fold(third)))]);
            }
        }
        if index.short {
            // A position's one- and two-byte keywords went in before its
            // longer ones, whatever their place in the set.
            out.sort_by_key(|m| (m.start, m.keyword));
        }
        out
    }

    /// The leftmost-first matches of [`OneShot::all`]: at the leftmost
    /// start, the keyword added first; then on after its end.
    fn leftmost_first(&self, text: &str) -> Vec<KeywordMatch> {
        let all = self.all(text);
        let mut out: Vec<KeywordMatch> = vec![];
        for m in all {
            if out.last().is_none_or(|last| m.start >= last.end) {
                out.push(m);
            }
        }
        out
    }

    /// Whether an adaptive set has searched enough, a text of `len` bytes
    /// included, that its automaton pays: more than a long text's worth.
    fn worn(&self, len: usize) -> bool {
        if !self.builder.adaptive {
            return false;
        }
        if self.fallback.get().is_some() {
            return true;
        }
        let before =
            self.spent.0.fetch_add(len, std::sync::atomic::Ordering::Relaxed);
        before.saturating_add(len) > ONE_SHOT_MAX_TEXT
    }

    /// The automaton for a long text; `None` if it cannot be built (a
    /// size limit), and the text is then searched keyword by keyword.
    fn automaton(&self, keywords: &[String]) -> Option<&AhoCorasick> {
        self.fallback
            .get_or_init(|| self.builder.automaton(keywords).ok())
            .as_ref()
    }
}

/// A keyword found in a text.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub struct KeywordMatch {
    keyword: usize,
    start: usize,
    end: usize,
}

impl KeywordMatch {
    /// The index of the keyword, in the order the set was built with.
    pub fn keyword_index(&self) -> usize {
        self.keyword
    }

    /// The byte offset where the match starts.
    pub fn start(&self) -> usize {
        self.start
    }

    /// The byte offset just past the match.
    pub fn end(&self) -> usize {
        self.end
    }
}

impl KeywordSet {
    /// Build a case-sensitive set from `keywords`.
    ///
    /// # Errors
    ///
    /// When a keyword is empty (it would match everywhere), or the set is
    /// too big for an automaton.
    pub fn new<I, S>(keywords: I) -> Result<KeywordSet, Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        KeywordSetBuilder::new().build(keywords)
    }

    /// A builder, for options such as ASCII case insensitivity.
    pub fn builder() -> KeywordSetBuilder {
        KeywordSetBuilder::new()
    }

    /// The automaton that searches `text`, or `None` when a one-shot set
    /// searches it keyword by keyword.
    fn automaton_for(&self, text: &str) -> Option<&AhoCorasick> {
        match &self.matcher {
            Matcher::Automaton(a) => Some(a),
            Matcher::OneShot(o)
                if text.len() > ONE_SHOT_MAX_TEXT || o.worn(text.len()) =>
            {
                o.automaton(&self.keywords)
            }
            Matcher::OneShot(_) => None,
        }
    }

    /// Whether any keyword occurs in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        match (&self.matcher, self.automaton_for(text)) {
            (_, Some(a)) => a.is_match(text),
            (Matcher::OneShot(o), None) => !o.all(text).is_empty(),
            (Matcher::Automaton(_), None) => unreachable!(),
        }
    }

    /// The first match in `text`, leftmost-first.
    pub fn find(&self, text: &str) -> Option<KeywordMatch> {
        self.find_iter(text).next()
    }

    /// Every non-overlapping match in `text`, leftmost-first.
    pub fn find_iter<'s, 'h>(
        &'s self,
        text: &'h str,
    ) -> impl Iterator<Item = KeywordMatch> + use<'s, 'h> {
        match (&self.matcher, self.automaton_for(text)) {
            (_, Some(a)) => {
                FindIter::Automaton(a.find_iter(text).map(KeywordMatch::from))
            }
            (Matcher::OneShot(o), None) => {
                FindIter::Listed(o.leftmost_first(text).into_iter())
            }
            (Matcher::Automaton(_), None) => unreachable!(),
        }
    }

    /// Every occurrence of every keyword in `text`, overlapping ones
    /// included, in order of start, then end, then keyword: the same
    /// list whether an automaton or the one-shot index found them. A set
    /// not built [`overlapping`](KeywordSetBuilder::overlapping) gives its
    /// non-overlapping leftmost-first matches instead.
    pub fn find_overlapping(&self, text: &str) -> Vec<KeywordMatch> {
        let mut out = match (&self.matcher, self.automaton_for(text)) {
            (_, Some(a)) => match a.try_find_overlapping_iter(text) {
                Ok(it) => it.map(KeywordMatch::from).collect(),
                Err(_) => self.find_iter(text).collect(),
            },
            (Matcher::OneShot(o), None) if o.builder.overlapping => {
                o.all(text)
            }
            (Matcher::OneShot(o), None) => o.leftmost_first(text),
            (Matcher::Automaton(_), None) => unreachable!(),
        };
        out.sort_unstable_by_key(|m| (m.start, m.end, m.keyword));
        out
    }

    /// The distinct keywords that occur in `text`, in the order of their
    /// first occurrence.
    pub fn matched<'s>(&'s self, text: &str) -> Vec<&'s str> {
        let mut seen = vec![false; self.keywords.len()];
        let mut out = vec![];
        for m in self.find_iter(text) {
            if !std::mem::replace(&mut seen[m.keyword], true) {
                out.push(self.keywords[m.keyword].as_str());
            }
        }
        out
    }

    /// The keyword a match found.
    ///
    /// # Panics
    ///
    /// When `m` came from another set with more keywords.
    pub fn keyword(&self, m: KeywordMatch) -> &str {
        &self.keywords[m.keyword]
    }

    /// The keywords, in the order the set was built with.
    pub fn keywords(&self) -> &[String] {
        &self.keywords
    }

    /// How many keywords the set holds.
    pub fn len(&self) -> usize {
        self.keywords.len()
    }

    /// Whether the set holds no keyword (and so never matches).
    pub fn is_empty(&self) -> bool {
        self.keywords.is_empty()
    }
}

/// The matches of [`KeywordSet::find_iter`], from either matcher.
enum FindIter<A> {
    Automaton(A),
    Listed(std::vec::IntoIter<KeywordMatch>),
}

impl<A: Iterator<Item = KeywordMatch>> Iterator for FindIter<A> {
    type Item = KeywordMatch;

    fn next(&mut self) -> Option<KeywordMatch> {
        match self {
            FindIter::Automaton(a) => a.next(),
            FindIter::Listed(l) => l.next(),
        }
    }
}

impl From<aho_corasick::Match> for KeywordMatch {
    fn from(m: aho_corasick::Match) -> KeywordMatch {
        KeywordMatch {
            keyword: m.pattern().as_usize(),
            start: m.start(),
            end: m.end(),
        }
    }
}

/// Builds a [`KeywordSet`].
///
/// # Quick advice
///
/// For English keywords, turn on [`ascii_case_insensitive`]: agents write
/// "Audit:" as often as "audit:". It folds only ASCII letters, so Japanese
/// and Korean keywords are unaffected.
///
/// [`ascii_case_insensitive`]: KeywordSetBuilder::ascii_case_insensitive
#[derive(Clone, Debug, Default)]
pub struct KeywordSetBuilder {
    ascii_case_insensitive: bool,
    dfa: bool,
    no_prefilter: bool,
    overlapping: bool,
    one_shot: bool,
    adaptive: bool,
}

impl KeywordSetBuilder {
    /// A builder with default options: case-sensitive.
    pub fn new() -> KeywordSetBuilder {
        KeywordSetBuilder::default()
    }

    /// Fold ASCII letters when matching.
    pub fn ascii_case_insensitive(
        &mut self,
        yes: bool,
    ) -> &mut KeywordSetBuilder {
        self.ascii_case_insensitive = yes;
        self
    }

    /// Compile for many texts: to a DFA, about ten times slower to build
    /// (a millisecond for a few dozen keywords) and several times faster
    /// to search, when the set is small; to a contiguous NFA when it is
    /// big (aho-corasick's own choice, past about a hundred keywords).
    ///
    /// The default, a noncontiguous NFA, is the cheapest to build (about
    /// 170 µs for the 28 audit markers, folded for case, in a fresh
    /// process) and suits a set built for one short text,
    /// as in a hook run; this suits a set that searches many texts, as in
    /// an archive scan. (A DFA of every set cost a scan of 1 GB of real
    /// transcripts 1.2% more instructions, and one of 50 MB 35% more: the
    /// big sets' DFAs took longer to build than they saved.)
    pub fn dfa(&mut self, yes: bool) -> &mut KeywordSetBuilder {
        self.dfa = yes;
        self
    }

    /// Build a prefilter, which skips ahead to where a keyword may start
    /// (on by default). For a set of a few hundred keywords that searches
    /// one short text, as in a hook run, building it costs more than it
    /// saves.
    pub fn prefilter(&mut self, yes: bool) -> &mut KeywordSetBuilder {
        self.no_prefilter = !yes;
        self
    }

    /// Build for [`KeywordSet::find_overlapping`]: every occurrence of
    /// every keyword, not the leftmost-first ones (off by default). Such a
    /// set cannot use the SIMD prefilter.
    pub fn overlapping(&mut self, yes: bool) -> &mut KeywordSetBuilder {
        self.overlapping = yes;
        self
    }

    /// Index the keywords by their first three bytes rather than build an
    /// automaton (off by default): for a set that searches one text of a
    /// few KB, as a hook run does, building the automaton costs far more
    /// than the search.
    /// A text over 64 KiB still gets the automaton, built on first need,
    /// and so does a set of more than 65,534 keywords.
    pub fn one_shot(&mut self, yes: bool) -> &mut KeywordSetBuilder {
        self.one_shot = yes;
        self
    }

    /// With [`one_shot`](KeywordSetBuilder::one_shot): build the automaton
    /// (with this builder's options) once the set has searched more than
    /// 64 KiB of text in all, over every text and thread, and search with
    /// it from then on (off by default). An archive scan's set may search
    /// two texts or two million: the first kind never pays for an
    /// automaton, the second pays once, and each finds what the other
    /// does.
    pub fn adaptive(&mut self, yes: bool) -> &mut KeywordSetBuilder {
        self.adaptive = yes;
        self
    }

    /// Build a set from `keywords`. The builder can be reused.
    ///
    /// # Errors
    ///
    /// When a keyword is empty, or the set is too big for an automaton.
    pub fn build<I, S>(&self, keywords: I) -> Result<KeywordSet, Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let keywords: Vec<String> =
            keywords.into_iter().map(|k| k.as_ref().to_string()).collect();
        if let Some(i) = keywords.iter().position(|k| k.is_empty()) {
            return Err(Error::empty_keyword(i));
        }
        let one_shot = self.one_shot.then(|| {
            let fold = self.ascii_case_insensitive;
            let needles = Needles::new(&keywords, fold);
            Some(OneShot {
                index: PairIndex::new(&needles)?,
                needles,
                fold,
                builder: self.clone(),
                fallback: std::sync::OnceLock::new(),
                spent: Spent::default(),
            })
        });
        // A set too big for the index gets the automaton.
        let matcher = match one_shot.flatten() {
            Some(o) => Matcher::OneShot(Box::new(o)),
            None => Matcher::Automaton(self.automaton(&keywords)?),
        };
        Ok(KeywordSet { matcher, keywords })
    }

    fn automaton(&self, keywords: &[String]) -> Result<AhoCorasick, Error> {
        AhoCorasick::builder()
            .match_kind(if self.overlapping {
                MatchKind::Standard
            } else {
                MatchKind::LeftmostFirst
            })
            .ascii_case_insensitive(self.ascii_case_insensitive)
            .kind(match self.dfa {
                true => None,
                false => Some(AhoCorasickKind::NoncontiguousNFA),
            })
            .dense_depth(match self.dfa {
                true => BULK_DENSE_DEPTH,
                false => HOOK_DENSE_DEPTH,
            })
            .prefilter(!self.no_prefilter)
            .build(keywords)
            .map_err(Error::keywords)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<
        T: Send + Sync + std::panic::UnwindSafe + std::panic::RefUnwindSafe,
    >() {
    }

    #[test]
    fn oibits() {
        assert_send_sync::<KeywordSet>();
        assert_send_sync::<KeywordSetBuilder>();
    }

    #[test]
    fn reports_positions() {
        let set = KeywordSet::new(["ab", "b"]).unwrap();
        let ms: Vec<_> = set.find_iter("xab b").collect();
        assert_eq!(ms.len(), 2);
        assert_eq!(
            (ms[0].keyword_index(), ms[0].start(), ms[0].end()),
            (0, 1, 3)
        );
        assert_eq!(
            (ms[1].keyword_index(), ms[1].start(), ms[1].end()),
            (1, 4, 5)
        );
    }

    #[test]
    fn empty_keyword_is_an_error() {
        let err = KeywordSet::new(["a", ""]).unwrap_err();
        assert!(err.to_string().contains("keyword 1 is empty"));
    }

    #[test]
    fn empty_set_never_matches() {
        let set = KeywordSet::new(Vec::<String>::new()).unwrap();
        assert!(!set.is_match("anything"));
        assert!(set.is_empty());
    }

    /// The one-shot matcher against the automaton it stands in for: the
    /// same leftmost-first matches, and the same overlapping ones.
    #[test]
    fn one_shot_agrees_with_the_automaton() {
        use proptest::prelude::*;
        let keyword = "[abAB\u{3042}]{1,4}";
        let config =
            ProptestConfig { cases: 512, ..ProptestConfig::default() };
        proptest!(config, |(
            keywords in proptest::collection::vec(keyword, 1..8),
            text in "[abAB\u{3042} ]{0,40}",
            fold in any::<bool>(),
        )| {
            let build = |one_shot: bool, overlapping: bool| {
                KeywordSet::builder()
                    .ascii_case_insensitive(fold)
                    .one_shot(one_shot)
                    .overlapping(overlapping)
                    .build(&keywords)
                    .unwrap()
            };
            let (a, b) = (build(false, false), build(true, false));
            let am: Vec<_> = a.find_iter(&text).collect();
            let bm: Vec<_> = b.find_iter(&text).collect();
            prop_assert_eq!(am, bm);
            prop_assert_eq!(a.is_match(&text), b.is_match(&text));
            let (a, b) = (build(false, true), build(true, true));
            let key = |m: &KeywordMatch| (m.start(), m.end(), m.keyword_index());
            let mut ao: Vec<_> = a.find_overlapping(&text).iter().map(key).collect();
            let mut bo: Vec<_> = b.find_overlapping(&text).iter().map(key).collect();
            ao.sort_unstable();
            bo.sort_unstable();
            prop_assert_eq!(ao, bo);
        });
    }

    /// A one-shot set too big for the index's 16-bit links gets the
    /// automaton, and finds the same.
    #[test]
    fn a_one_shot_set_past_the_index_gets_the_automaton() {
        let keywords: Vec<String> =
            (0..usize::from(u16::MAX)).map(|i| format!("k{i:05}x")).collect();
        let set =
            KeywordSet::builder().one_shot(true).build(&keywords).unwrap();
        assert!(matches!(set.matcher, Matcher::Automaton(_)));
        let m = set.find("a k65534x b").unwrap();
        assert_eq!(set.keyword(m), "k65534x");
        let small = KeywordSet::builder()
            .one_shot(true)
            .build(&keywords[..10])
            .unwrap();
        assert!(matches!(small.matcher, Matcher::OneShot(_)));
    }

    /// A text past the one-shot limit is searched by the automaton, with
    /// the same answer.
    #[test]
    fn one_shot_falls_back_on_a_long_text() {
        let set = KeywordSet::builder()
            .ascii_case_insensitive(true)
            .one_shot(true)
            .build(["needle"])
            .unwrap();
        let text = format!("{}NEEDLE", "x".repeat(ONE_SHOT_MAX_TEXT));
        assert_eq!(set.find(&text).unwrap().start(), ONE_SHOT_MAX_TEXT);
    }

    /// An adaptive set searches short texts keyword by keyword until it
    /// has searched a long text's worth, then with its automaton; the
    /// answers do not change.
    #[test]
    fn an_adaptive_set_builds_its_automaton_once_it_pays() {
        let words = ["edge case", "edge cases", "race", "監査", "e"];
        let set = |adaptive: bool, overlapping: bool| {
            KeywordSet::builder()
                .ascii_case_insensitive(true)
                .one_shot(true)
                .adaptive(adaptive)
                .dfa(adaptive)
                .overlapping(overlapping)
                .build(words)
                .unwrap()
        };
        let text = "Edge cases: a RACE on 監査 ".repeat(40);
        for overlapping in [false, true] {
            let (plain, adaptive) =
                (set(false, overlapping), set(true, overlapping));
            let Matcher::OneShot(o) = &adaptive.matcher else { panic!() };
            // Before each search, the automaton is built exactly when the
            // searches before went past a long text's worth.
            let mut searched = 0;
            let check = |searched: &mut usize| {
                let built = o.fallback.get().is_some();
                assert_eq!(built, *searched > ONE_SHOT_MAX_TEXT, "{searched}");
                *searched += text.len();
            };
            while searched <= ONE_SHOT_MAX_TEXT + text.len() {
                check(&mut searched);
                assert_eq!(
                    adaptive.find_overlapping(&text),
                    plain.find_overlapping(&text)
                );
                // An overlapping set is searched with `find_overlapping`
                // only: its automaton's `find_iter` reports matches as
                // they end, not leftmost-first.
                if !overlapping {
                    check(&mut searched);
                    assert_eq!(
                        adaptive.find_iter(&text).collect::<Vec<_>>(),
                        plain.find_iter(&text).collect::<Vec<_>>()
                    );
                }
                check(&mut searched);
                assert_eq!(adaptive.is_match(&text), plain.is_match(&text));
            }
            let Matcher::OneShot(p) = &plain.matcher else { panic!() };
            assert!(p.fallback.get().is_none());
        }
    }
}
