//! Pattern sets: literals through Aho-Corasick, plus a proximity rule.
//!
//! Most of what the gates look for is a literal phrase ("up to you",
//! "おっしゃる通り"). Some needs two words near each other: "which …
//! prefer" must match "which of the two would you prefer" but not a
//! "which" in one sentence and a "prefer" three paragraphs later. The rule
//! for [`Pat::Near`] is small and documented here rather than a regex:
//!
//! > `Near(a, b, gap)` fires when a match of `a` is followed by a match of
//! > `b` that starts at most `gap` bytes after `a` ends, with no sentence
//! > end (`.` `?` `!` `。` `？` `！` or a newline) in between.
//!
//! All literals of a set go into one [`KeywordSet`], matched
//! case-insensitively for ASCII, so a set costs one pass over the text.

use crate::error::Error;
use crate::keywords::KeywordSet;

/// One pattern of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pat {
    /// A literal phrase.
    Lit(&'static str),
    /// Two literals near each other: see the [module docs](self).
    Near(&'static str, &'static str, usize),
}

/// A keyword set compiled on first use.
///
/// A hook run judges one turn, and most turns reach only one or two gates
/// (no change: no audit; fewer than two tool uses: no ownership check).
/// Building an Aho-Corasick automaton costs tens of microseconds, so the
/// gates' dozen sets are compiled only when a gate first needs them. Empty
/// keywords are rejected up front; if the automaton still cannot be built
/// (a size limit), the set is empty and never matches, so a gate fails
/// open rather than blocking.
#[derive(Debug)]
pub(crate) struct LazyKeywords {
    keywords: Vec<String>,
    dfa: bool,
    cell: std::sync::OnceLock<KeywordSet>,
}

impl Clone for LazyKeywords {
    fn clone(&self) -> LazyKeywords {
        LazyKeywords {
            keywords: self.keywords.clone(),
            dfa: self.dfa,
            cell: self.cell.clone(),
        }
    }
}

impl LazyKeywords {
    /// Keywords matched with ASCII case folding.
    pub(crate) fn new(
        keywords: Vec<String>,
        dfa: bool,
    ) -> Result<LazyKeywords, Error> {
        if let Some(i) = keywords.iter().position(|k| k.is_empty()) {
            return Err(Error::empty_keyword(i));
        }
        Ok(LazyKeywords { keywords, dfa, cell: std::sync::OnceLock::new() })
    }

    /// The compiled set.
    pub(crate) fn get(&self) -> &KeywordSet {
        self.cell.get_or_init(|| {
            let mut b = KeywordSet::builder();
            // A hook's set searches one short final text: a prefilter
            // would cost more to build than it saves. A bulk set keeps it.
            b.ascii_case_insensitive(true).dfa(self.dfa).prefilter(self.dfa);
            b.build(&self.keywords)
                .or_else(|_| b.build(Vec::<String>::new()))
                .expect("an empty set builds")
        })
    }
}

/// A pattern as compiled: owned, so configured phrases join the tables.
#[derive(Clone, Debug)]
enum Rule {
    Lit(String),
    Near(String, String, usize),
}

/// A compiled set of patterns.
#[derive(Clone, Debug)]
pub struct PatternSet {
    keywords: LazyKeywords,
    rules: Vec<Rule>,
    /// For each literal (by keyword index), the shorter literals it
    /// contains and where: a leftmost-first automaton reports only the
    /// longer one, so "should i go with" would hide the "should i" of
    /// `Near("which", "should i")`. Each match also stands for these.
    /// Computed on first use, like the automaton: most hook runs never
    /// match a set.
    inner: std::sync::OnceLock<Vec<Vec<(usize, usize)>>>,
}

fn is_sentence_end(c: char) -> bool {
    matches!(c, '.' | '?' | '!' | '。' | '？' | '！' | '\n')
}

impl PatternSet {
    /// Compile the table patterns `pats` and the configured literals
    /// `extra`.
    ///
    /// # Errors
    ///
    /// When a literal is empty.
    pub fn new(
        pats: &[Pat],
        extra: &[String],
        dfa: bool,
    ) -> Result<PatternSet, Error> {
        let mut rules: Vec<Rule> = pats
            .iter()
            .map(|p| match *p {
                Pat::Lit(s) => Rule::Lit(s.to_string()),
                Pat::Near(a, b, gap) => {
                    Rule::Near(a.to_string(), b.to_string(), gap)
                }
            })
            .collect();
        rules.extend(extra.iter().cloned().map(Rule::Lit));
        let mut literals: Vec<String> = vec![];
        for r in &rules {
            match r {
                Rule::Lit(s) => literals.push(s.clone()),
                Rule::Near(a, b, _) => {
                    literals.push(a.clone());
                    literals.push(b.clone());
                }
            }
        }
        // Longer literals first: with leftmost-first semantics, a phrase
        // must win over a shorter one it contains.
        literals.sort_by_key(|l| std::cmp::Reverse(l.len()));
        literals.dedup();
        Ok(PatternSet {
            keywords: LazyKeywords::new(literals, dfa)?,
            rules,
            inner: std::sync::OnceLock::new(),
        })
    }

    /// For each keyword, the shorter keywords it contains and where.
    fn inner(&self) -> &[Vec<(usize, usize)>] {
        self.inner.get_or_init(|| {
            let folded: Vec<String> = self
                .keywords
                .get()
                .keywords()
                .iter()
                .map(|l| l.to_ascii_lowercase())
                .collect();
            folded
                .iter()
                .map(|outer| {
                    folded
                        .iter()
                        .enumerate()
                        .filter(|(_, l)| l.len() < outer.len())
                        .flat_map(|(j, l)| {
                            outer
                                .match_indices(l.as_str())
                                .map(move |(at, _)| (j, at))
                        })
                        .collect()
                })
                .collect()
        })
    }

    /// The labels of the patterns that fire in `text`, in table order.
    pub fn fired(&self, text: &str) -> Vec<String> {
        let keywords = self.keywords.get();
        let mut matches: Vec<(usize, usize, &str)> = vec![];
        for m in keywords.find_iter(text) {
            matches.push((m.start(), m.end(), keywords.keyword(m)));
            for &(j, at) in &self.inner()[m.keyword_index()] {
                let k = &keywords.keywords()[j];
                let start = m.start() + at;
                matches.push((start, start + k.len(), k));
            }
        }
        if matches.is_empty() {
            return vec![];
        }
        // The contained literals overlap their hosts: sort by start (then
        // end), which the proximity search below relies on.
        matches.sort_unstable_by_key(|m| (m.0, m.1));
        let eq = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
        self.rules
            .iter()
            .filter_map(|r| match r {
                Rule::Lit(s) => {
                    matches.iter().any(|m| eq(m.2, s)).then(|| s.clone())
                }
                Rule::Near(a, b, gap) => matches
                    .iter()
                    .filter(|m| eq(m.2, a))
                    .any(|ma| {
                        // Matches are sorted by start: only those starting
                        // within `gap` after `a` can pair with it, so each
                        // `a` looks at a few, not at all of them.
                        let from = matches.partition_point(|m| m.0 < ma.1);
                        matches[from..]
                            .iter()
                            .take_while(|mb| mb.0 - ma.1 <= *gap)
                            .filter(|mb| eq(mb.2, b))
                            .any(|mb| {
                                !text[ma.1..mb.0].chars().any(is_sentence_end)
                            })
                    })
                    .then(|| format!("{a}…{b}")),
            })
            .collect()
    }

    /// Whether any pattern fires in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        !self.fired(text).is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_respects_gap_and_sentences() {
        let set = PatternSet::new(
            &[Pat::Near("which", "prefer", 30), Pat::Lit("up to you")],
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
                Pat::Near("which", "should i", 30),
                Pat::Near("should i go with", "or", 60),
            ],
            &[],
            false,
        )
        .unwrap();
        assert_eq!(
            set.fired("Which one should I go with?"),
            vec!["which…should i"]
        );
        let en = crate::gates::lang::table("en").unwrap();
        let full = PatternSet::new(en.deference, &[], false).unwrap();
        assert!(full.is_match("Which one should I go with?"));
    }
}
