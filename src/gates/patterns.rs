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

/// A pattern as compiled: owned, so configured phrases join the tables.
#[derive(Clone, Debug)]
enum Rule {
    Lit(String),
    Near(String, String, usize),
}

/// A compiled set of patterns.
#[derive(Clone, Debug)]
pub struct PatternSet {
    keywords: KeywordSet,
    rules: Vec<Rule>,
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
        let mut literals: Vec<&str> = vec![];
        for r in &rules {
            match r {
                Rule::Lit(s) => literals.push(s),
                Rule::Near(a, b, _) => {
                    literals.push(a);
                    literals.push(b);
                }
            }
        }
        // Longer literals first: with leftmost-first semantics, a phrase
        // must win over a shorter one it contains.
        literals.sort_by_key(|l| std::cmp::Reverse(l.len()));
        literals.dedup();
        let keywords = KeywordSet::builder()
            .dfa(dfa)
            .ascii_case_insensitive(true)
            .build(&literals)?;
        Ok(PatternSet { keywords, rules })
    }

    /// The labels of the patterns that fire in `text`, in table order.
    pub fn fired(&self, text: &str) -> Vec<String> {
        let matches: Vec<(usize, usize, &str)> = self
            .keywords
            .find_iter(text)
            .map(|m| (m.start(), m.end(), self.keywords.keyword(m)))
            .collect();
        if matches.is_empty() {
            return vec![];
        }
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
                        matches
                            .iter()
                            .filter(|m| eq(m.2, b) && m.0 >= ma.1)
                            .any(|mb| {
                                mb.0 - ma.1 <= *gap
                                    && !text[ma.1..mb.0]
                                        .chars()
                                        .any(is_sentence_end)
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
}
