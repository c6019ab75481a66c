//! Audit markers and the escape hatch.
//!
//! The audit gate's question is narrow: does the final text show that the
//! agent audited its change? It does if it holds a marker (`監査`,
//! `self-audit`, …) that nothing negates ("I audited nothing" is no
//! audit), if it audits in plain language (a lead that names what was
//! checked, and a specific referent: see [`plain`](super::plain)), or if it
//! takes the escape hatch (`no audit needed:`) *with a reason*: a bare
//! hatch is not a reason.
//!
//! Whether a text without a marker audits in plain language is, by
//! default (`audit.plain_judge = "learned"`), the [learned
//! model's](super::learned) call, with the grammar's reading as evidence:
//! where the model is sure of an audit, it is one (named by the grammar's
//! lead where it finds one); where the model doubts and the grammar finds
//! a check told outright, the judge cannot tell
//! ([`AuditStatus::Uncertain`]) and says so rather than guess; elsewhere
//! there is none. On a text shorter than a sentence the model's answer is
//! noise, and the grammar alone decides. The grammar still reads negated
//! markers and names the lead it finds. `audit.plain_judge = "grammar"`
//! leaves the call to the grammar alone.

use std::borrow::Cow;

use super::lang;
use super::learned::{AuditModel, Reading};
use super::patterns::LazyKeywords;
use super::plain::{tells_a_past, PlainAudits};
use super::plain_audit::PlainAudit;
use crate::config::{Config, PlainJudge};
use crate::error::Error;
use crate::keywords::KeywordSet;

/// How many non-blank characters must follow an escape hatch on its line.
const MIN_REASON_CHARS: usize = 2;

/// How many characters a text must have for the learned model alone to
/// read an audit in it.
const MIN_LEARNED_CHARS: usize = 30;

/// What a final text says about auditing.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuditStatus {
    /// No marker and no escape hatch.
    Absent,
    /// These markers, in order of first occurrence.
    Present(Vec<String>),
    /// The escape hatch, with a reason.
    Escape(String),
    /// No marker, but an audit in plain language.
    Plain(PlainAudit),
    /// No marker, and the judge cannot tell whether the text audits in
    /// plain language: the learned model doubts a check the grammar finds
    /// told outright. The hook blocks it
    /// with a message that says what would pass (doubt is said, not
    /// guessed); `scan` counts it on its own.
    Uncertain(PlainAudit),
    /// No marker and no audit in plain language, but the turn ran a check
    /// after its last change and the text tells what came of it: a
    /// grounded audit. Only [`Gates::audit_status_of`] reads one, from the
    /// turn's tool uses.
    ///
    /// [`Gates::audit_status_of`]: crate::judge::Gates::audit_status_of
    Grounded {
        /// The command that ran (empty for a re-read or the agent's own
        /// search tool).
        command: String,
        /// The sentence of the text that reports it.
        sentence: String,
    },
}

/// Finds audit markers and escape hatches in a text.
#[derive(Clone, Debug)]
pub(crate) struct AuditMatcher {
    markers: LazyKeywords,
    /// Words that make a marker right before them part of another noun.
    marker_nouns: Vec<&'static str>,
    /// Words that make a marker right after them someone else's audit.
    marker_owners: Vec<&'static str>,
    hatches: LazyKeywords,
    /// The plain-language grammar: it also tells negated markers.
    plain: PlainAudits,
    /// Whether plain-language audits pass (`audit.plain_language`).
    plain_passes: bool,
    /// Who reads a text without a marker (`audit.plain_judge`).
    judge: PlainAuditJudge,
}

/// The seam where a text without a marker is judged: which judge decides
/// whether it audits in plain language (`audit.plain_judge`). Markers
/// and escape hatches are read before it, the same for every judge.
#[derive(Clone, Debug)]
enum PlainAuditJudge {
    /// The grammar alone ([`PlainAudits::find`]).
    Grammar,
    /// The learned model, with the grammar's reading as evidence.
    Learned(AuditModel),
}

impl AuditMatcher {
    /// Build the matcher from the configured languages and keywords, with
    /// DFAs when it will judge many texts.
    pub(crate) fn build(
        config: &Config,
        dfa: bool,
    ) -> Result<AuditMatcher, Error> {
        let tables: Vec<&lang::LangTable> =
            config.languages.iter().filter_map(|c| lang::table(c)).collect();
        let owned = |l: &[String]| -> Vec<Cow<'static, str>> {
            l.iter().cloned().map(Cow::Owned).collect()
        };
        let mut markers = owned(&config.audit.extra_markers);
        if !config.audit.replace_markers {
            for t in &tables {
                markers.extend(t.markers.iter().map(|&m| Cow::Borrowed(m)));
            }
        }
        Ok(AuditMatcher {
            plain: PlainAudits::new(&tables, dfa)?,
            plain_passes: config.audit.plain_language,
            judge: match config.audit.plain_judge {
                PlainJudge::Learned => {
                    PlainAuditJudge::Learned(AuditModel::builtin())
                }
                PlainJudge::Grammar => PlainAuditJudge::Grammar,
            },
            markers: LazyKeywords::new(markers, dfa)?,
            marker_nouns: tables
                .iter()
                .flat_map(|t| t.marker_nouns.iter().copied())
                .collect(),
            marker_owners: tables
                .iter()
                .flat_map(|t| t.marker_owners.iter().copied())
                .collect(),
            hatches: LazyKeywords::new(
                owned(&config.audit.escape_hatches),
                dfa,
            )?,
        })
    }

    /// The audit markers.
    pub fn markers(&self) -> &KeywordSet {
        self.markers.get()
    }

    /// Whether `text` names a specific referent, as the hollow gate reads
    /// one: a number, an identifier or code span, a file path, a command,
    /// an acronym, or a named failure mode, but not a mere kind of check
    /// ("error handling", "edge cases").
    pub fn has_referent(&self, text: &str) -> bool {
        self.plain.specific_referent(text).is_some()
    }

    /// Judge a final text.
    pub fn status(&self, text: &str) -> AuditStatus {
        let mut hatch_spans = vec![];
        for m in self.hatches.get().find_iter(text) {
            let rest = &text[m.end()..];
            let line = rest.split('\n').next().unwrap_or("");
            if line.chars().filter(|c| !c.is_whitespace()).count()
                >= MIN_REASON_CHARS
            {
                return AuditStatus::Escape(
                    self.hatches.get().keyword(m).to_string(),
                );
            }
            hatch_spans.push(m.start()..m.end());
        }
        // A bare hatch is no audit, even though `監査不要` holds `監査`.
        let mut found: Vec<String> = vec![];
        for m in self.markers().find_iter(text) {
            let inside_hatch = hatch_spans
                .iter()
                .any(|h| m.start() < h.end && h.start < m.end());
            let keyword = self.markers().keyword(m);
            let noun = self
                .marker_nouns
                .iter()
                .any(|n| text[m.end()..].starts_with(n));
            let before = text[..m.start()].trim_end_matches(' ');
            let owned = self.marker_owners.iter().any(|o| {
                before.len() >= o.len()
                    && before.is_char_boundary(before.len() - o.len())
                    && before[before.len() - o.len()..].eq_ignore_ascii_case(o)
            });
            if !inside_hatch
                && !noun
                && !owned
                && !self.plain.negated(text, m)
                && !found.iter().any(|f| f == keyword)
            {
                found.push(keyword.to_string());
            }
        }
        if !found.is_empty() {
            return AuditStatus::Present(found);
        }
        // A bare hatch says the agent means to skip the audit: the
        // model, which never learnt from one, gets no say.
        let judge = match &self.judge {
            PlainAuditJudge::Learned(_) if !hatch_spans.is_empty() => {
                &PlainAuditJudge::Grammar
            }
            judge => judge,
        };
        let reading = || judge.read(text, &self.plain);
        match self.plain_passes.then(reading) {
            Some(PlainReading::Audit(plain)) => AuditStatus::Plain(plain),
            Some(PlainReading::Doubt(plain)) => AuditStatus::Uncertain(plain),
            Some(PlainReading::None) | None => AuditStatus::Absent,
        }
    }
}

impl PlainAuditJudge {
    /// The plain-language audit in a text without a marker, as this judge
    /// reads it with the grammar `plain`: the grammar's lead, or the whole
    /// text when only the model finds the audit.
    ///
    /// The model is asked first: on most real texts it is sure there is
    /// no audit, and the grammar, which costs more, is then not run.
    fn read(&self, text: &str, plain: &PlainAudits) -> PlainReading {
        let model = match self {
            PlainAuditJudge::Grammar => return plain.find(text).into(),
            PlainAuditJudge::Learned(model) => model,
        };
        // On a text shorter than a sentence that reports a check
        // ("Changed again."), a few words decide the model's answer,
        // which is noise: only the grammar can pass one.
        // (Counted only as far as the bound: a long text is not walked.)
        if text.chars().nth(MIN_LEARNED_CHARS - 1).is_none() {
            let Some(found) = plain.find(text) else {
                return PlainReading::None;
            };
            return match model.read(text) {
                Reading::NoAudit => PlainReading::None,
                _ => PlainReading::Audit(found),
            };
        }
        match model.read(text) {
            // The model is sure: a check the grammar cannot name is one
            // too, unless the text is told wholly in the present, which
            // describes what a change does and reports no check ("… 1일,
            // 3일, 8일로 늘리고 … 냅니다", "Weekly mails go out on Monday").
            Reading::Audit => match plain.find(text) {
                Some(found) => PlainReading::Audit(found),
                None if tells_a_past(text) != Some(false) => {
                    PlainReading::Audit(PlainAudit::learned())
                }
                None => PlainReading::None,
            },
            // In the model's doubt, a check the grammar finds told is
            // still doubt; the grammar's shapes of an outcome are not even
            // that (a design told with its numbers has them too).
            Reading::GrammarDecides => match plain.find_told(text) {
                Some(found) => PlainReading::Doubt(found),
                None => PlainReading::None,
            },
            Reading::NoAudit => PlainReading::None,
        }
    }
}

/// What the plain-language judge reads in a text without a marker.
enum PlainReading {
    /// An audit.
    Audit(PlainAudit),
    /// Perhaps an audit: the judge cannot tell.
    Doubt(PlainAudit),
    /// No audit.
    None,
}

impl From<Option<PlainAudit>> for PlainReading {
    fn from(found: Option<PlainAudit>) -> PlainReading {
        found.map_or(PlainReading::None, PlainReading::Audit)
    }
}

#[cfg(test)]
mod audit_status_example {
    #[test]
    fn audit_status() {
        use crate::config::Config;
        use crate::gates::{AuditMatcher, AuditStatus};

        let m = AuditMatcher::build(&Config::default(), false).unwrap();
        assert_eq!(m.status("Done."), AuditStatus::Absent);
        assert!(matches!(
            m.status("監査: 境界を潰した"),
            AuditStatus::Present(_)
        ));
        assert!(matches!(
            m.status("no audit needed: typo fix"),
            AuditStatus::Escape(_)
        ));
        assert_eq!(m.status("no audit needed:"), AuditStatus::Absent);
        assert_eq!(m.status("監査不要:"), AuditStatus::Absent);
        assert_eq!(m.status("I audited nothing."), AuditStatus::Absent);
        assert_eq!(m.status("監査ログを追加しました。"), AuditStatus::Absent);
        // Someone else's audit is none of the agent's.
        assert_eq!(
            m.status("Switched to DOMPurify, which is audited regularly."),
            AuditStatus::Absent
        );
        assert_eq!(
            m.status("The vendor passed an external audit last spring."),
            AuditStatus::Absent
        );
        assert_eq!(
            m.status("内部監査で毎年見られています。"),
            AuditStatus::Absent
        );
        assert!(matches!(
            m.status("Edge cases: an empty list returns `None` (tried: `sum(&[])` → `None`)."),
            AuditStatus::Plain(_)
        ));
    }

    /// The three newcomer examples, judged by either judge: the
    /// first two are audits, the third is none.
    #[test]
    fn newcomers_examples() {
        use crate::config::{Config, PlainJudge};

        for judge in [PlainJudge::Grammar, PlainJudge::Learned] {
            let mut config = Config::default();
            config.audit.plain_judge = judge;
            newcomers_examples_with(&config);
        }
    }

    fn newcomers_examples_with(config: &crate::config::Config) {
        use crate::gates::{AuditMatcher, AuditStatus};

        let m = AuditMatcher::build(config, false).unwrap();
        for audit in [
            "Fixed the race. Risks I checked: two writers … now serialize on a lock; cargo test passes.",
            "Fixed. What could break: concurrent writers, partial writes on crash; both covered by …",
        ] {
            // Read from its words alone, the first is one the learned model
            // doubts (the hook then asks again, unless the turn ran a check
            // after its change: see `Gates::audit_status_of`).
            assert!(
                matches!(
                    m.status(audit),
                    AuditStatus::Plain(_) | AuditStatus::Uncertain(_)
                ),
                "{audit}"
            );
        }
        assert_eq!(
            m.status("I audited nothing, to be honest."),
            AuditStatus::Absent
        );
    }
}
