//! Plain-language audits: an audit recognised by what it says, not by a
//! marker word.
//!
//! A team that never heard of `監査` or `self-audit` still writes audits:
//! "Risks I checked: two writers now serialize on a lock". Blocking them
//! would nag the people who did the work, and a scan would report that they
//! never audit. So a final text is an audit in plain language when it holds
//!
//! * a **lead** that names what was checked: a heading followed by a colon
//!   in its clause ("Edge cases:", "確認したリスク:", "위험 한 가지:"), a
//!   past-tense statement of checking ("I verified", "検証しました",
//!   "확인했"), or an **act** of checking in any person or voice, in a
//!   form that says it was done ("Diffed the images", "error paths
//!   reviewed:", "動かしてみたところ", "돌려 봤는데"); none of them negated
//!   ("I haven't checked", "確認していない", "Risks: none"), planned,
//!   wished or asked for ("I'll verify", "確認したい", "확인해 주세요"), in
//!   a question, or a present passive that describes the code ("input is
//!   validated");
//! * and a **specific referent** near it: a number, an identifier or code
//!   span, a file path, a command, or a named failure mode ("race",
//!   "競合", "롤백"). For a heading it follows the colon; for a statement it
//!   may stand anywhere in the sentence (Japanese and Korean put the
//!   object before the verb) or the rest of the paragraph; for an act, in
//!   its sentence, the next one, or the list the act heads.
//!
//! Acts are the recogniser's general half: leads are phrases a table must
//! hold, while an act is a verb of checking in any of its done forms,
//! wherever it stands, so an audit told in words no heading list foresaw
//! still counts. What keeps it from passing a summary of work is the
//! referent it needs close by and the forms it leaves out.
//!
//! Audits that name no check at all, but report what came of one (a topic
//! heading, a measured result, a try and its outcome), are read by
//! [`outcome`](super::outcome) when no lead or act is found.
//!
//! A referent may also be a name: a capitalised word inside an English
//! sentence ("Esc", "Excel"), or one in Latin letters inside a Japanese or
//! Korean one ("Tab は").
//!
//! The phrases are in the language tables (`lang/`); this file holds only
//! the grammar. `audit.plain_language = false` switches it off, for teams
//! that want the strict marker contract.

use std::borrow::Cow;

use super::lang::LangTable;
use super::outcome::{
    hygiene_list, hygiene_only, AfterAct, Outcomes, PlainWords,
};
use super::patterns::{
    holds, leads_to_result, longest_first, LazyKeywords, PatternSet,
};
use super::plain_audit::{Grounds, PlainAudit};
use super::sentence::{
    ends_in_past, ends_sentence, floor_boundary, is_past_syllable,
    is_question, is_word_at, next_sentence_at, paragraph,
    sentence_bounds_within, sentence_end_within, sentences_within,
    without_notes, CLAUSE_WITHIN, CONTRASTS, QUOTES,
};
use crate::error::Error;
use crate::keywords::{KeywordMatch, KeywordSet};

/// How far after a heading its colon may stand, in bytes.
const COLON_WITHIN: usize = 48;

/// How far either way of an act the phrases that void it are looked for,
/// in bytes: longer than any of them.
const VOID_WITHIN: usize = 32;

/// Commands that name how something was checked. English verbs that are
/// also commands ("make", "mix") name one only in a code span.
const COMMANDS: &[&str] = &[
    "cargo", "npm", "npx", "pnpm", "yarn", "pytest", "go test", "grep", "rg",
    "curl", "git", "jest", "vitest", "rspec", "gradle", "mvn", "dotnet",
    "ctest", "tox",
];

/// How a lead is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LeadKind {
    /// A heading: a lead only with its colon.
    Heading,
    /// A past-tense statement of checking.
    Statement,
}

/// The compiled grammar of plain-language audits.
#[derive(Clone, Debug)]
pub(crate) struct PlainAudits {
    /// Headings and statements in one automaton (one build, not two),
    /// longest first; `kinds` tells them apart by keyword index.
    leads: LazyKeywords,
    kinds: Vec<LeadKind>,
    heading_ends: Vec<&'static str>,
    referents: LazyKeywords,
    categories: LazyKeywords,
    negations_before: Vec<&'static str>,
    negations_after: Vec<&'static str>,
    empty: Vec<&'static str>,
    /// Acts of checking in the forms that say they were done, one set per
    /// language: a text is searched only with the sets of the scripts it
    /// is written in, and a hook builds only those.
    acts: Vec<LangActs>,
    /// What voids an act it overlaps, lowercased.
    act_void: Vec<&'static str>,
    /// Words that make an act that follows them an adjective.
    attributive: Vec<&'static str>,
    /// What makes a check hearsay ("by reading the docs"), lowercased.
    hearsay: Vec<&'static str>,
    /// What makes a check a reading of the code, lowercased.
    code_read: Vec<&'static str>,
    /// Words of a guess, lowercased: see
    /// [`PlainTable::guesses`](super::lang::PlainTable::guesses).
    guesses: Vec<&'static str>,
    /// Words of a heading that introduces a summary, lowercased.
    summaries: Vec<&'static str>,
    /// A document named as the proof, lowercased: see
    /// [`PlainTable::sources`](super::lang::PlainTable::sources).
    sources: Vec<&'static str>,
    /// Verbs of looking and nouns of code, lowercased: see
    /// [`PlainTable::look_verbs`](super::lang::PlainTable::look_verbs).
    look_verbs: Vec<&'static str>,
    code_nouns: Vec<&'static str>,
    /// Others whose check an act may tell, lowercased: see
    /// [`PlainTable::parties`](super::lang::PlainTable::parties).
    parties: Vec<&'static str>,
    /// A person named as an act's subject, and what tells the act is
    /// still the agent's or another's: see
    /// [`PlainTable::person_subjects`](super::lang::PlainTable::person_subjects),
    /// [`PlainTable::selves`](super::lang::PlainTable::selves),
    /// [`PlainTable::openers`](super::lang::PlainTable::openers) and
    /// [`PlainTable::person_words`](super::lang::PlainTable::person_words).
    person_subjects: Vec<&'static str>,
    selves: Vec<&'static str>,
    openers: Vec<&'static str>,
    person_words: Vec<&'static str>,
    /// Audits told by their outcome: see [`outcome`](super::outcome).
    outcomes: Outcomes,
}

impl PlainAudits {
    /// Compile the tables of the configured languages.
    pub(crate) fn new(
        tables: &[&'static LangTable],
        dfa: bool,
    ) -> Result<PlainAudits, Error> {
        let collect = |pick: fn(&LangTable) -> &'static [&'static str]| {
            tables.iter().flat_map(move |t| pick(t).iter().copied())
        };
        let referents: Vec<Cow<'static, str>> =
            collect(|t| t.plain.failure_modes)
                .chain(collect(|t| t.plain.products))
                .chain(COMMANDS.iter().copied())
                .map(Cow::Borrowed)
                .collect();
        // Longest first: a leftmost-first automaton then prefers "edge
        // cases" to "edge case".
        let referents = longest_first(referents, |w| w.len());
        let leads: Vec<(&str, LeadKind)> = collect(|t| t.plain.heads)
            .map(|w| (w, LeadKind::Heading))
            .chain(
                collect(|t| t.plain.verbs).map(|w| (w, LeadKind::Statement)),
            )
            .collect();
        // Longest first, as the referents.
        let leads = longest_first(leads, |(w, _)| w.len());
        Ok(PlainAudits {
            kinds: leads.iter().map(|&(_, k)| k).collect(),
            leads: LazyKeywords::new(
                leads.iter().map(|&(w, _)| Cow::Borrowed(w)).collect(),
                dfa,
            )?,
            heading_ends: collect(|t| t.plain.heading_ends).collect(),
            referents: LazyKeywords::new(referents, dfa)?,
            categories: LazyKeywords::new(
                longest_first(
                    collect(|t| t.plain.categories)
                        .map(Cow::Borrowed)
                        .collect(),
                    |w| w.len(),
                ),
                dfa,
            )?,
            negations_before: collect(|t| t.plain.negations_before).collect(),
            negations_after: collect(|t| t.plain.negations_after).collect(),
            empty: collect(|t| t.plain.empty).collect(),
            acts: tables
                .iter()
                .map(|t| {
                    Ok(LangActs {
                        script: Script::of(t.code),
                        set: PatternSet::new(
                            t.plain.acts,
                            &[t.negation, t.plain.act_cancel],
                            &[],
                            dfa,
                        )?,
                    })
                })
                .collect::<Result<_, Error>>()?,
            act_void: collect(|t| t.plain.act_void).collect(),
            attributive: collect(|t| t.plain.attributive).collect(),
            hearsay: collect(|t| t.plain.hearsay).collect(),
            code_read: collect(|t| t.plain.code_read).collect(),
            guesses: collect(|t| t.plain.guesses).collect(),
            summaries: collect(|t| t.plain.summaries).collect(),
            sources: collect(|t| t.plain.sources).collect(),
            parties: collect(|t| t.plain.parties).collect(),
            person_subjects: collect(|t| t.plain.person_subjects).collect(),
            selves: collect(|t| t.plain.selves).collect(),
            openers: collect(|t| t.plain.openers).collect(),
            person_words: collect(|t| t.plain.person_words).collect(),
            look_verbs: collect(|t| t.plain.look_verbs).collect(),
            code_nouns: collect(|t| t.plain.code_nouns).collect(),
            outcomes: Outcomes::new(tables, dfa)?,
        })
    }

    /// The first plain-language audit in `text`, if it holds one.
    pub(crate) fn find(&self, text: &str) -> Option<PlainAudit> {
        self.find_on(text, Grounds::Any)
    }

    /// The first plain-language audit in `text` that is told outright: a
    /// statement or an act of checking, or a run or a table shown, but
    /// not a shape of an outcome alone (see [`Grounds::Told`]).
    pub(crate) fn find_told(&self, text: &str) -> Option<PlainAudit> {
        self.find_on(text, Grounds::Told)
    }

    fn find_on(&self, text: &str, grounds: Grounds) -> Option<PlainAudit> {
        let leads = self.leads.get();
        for m in leads.find_iter(text) {
            // A conditional heading ("죽지 않으면:", "繋がらないとき：")
            // states its negation as part of the case it names.
            let conditional = leads.keyword(m).ends_with([':', '：']);
            if !word_bounded(text, leads, m)
                || (!conditional && self.negated(text, m))
            {
                continue;
            }
            let referent = match self.kinds[m.keyword_index()] {
                LeadKind::Heading => self.heading_referent(text, m),
                LeadKind::Statement => {
                    self.statement_referent(text, m, leads.keyword(m))
                }
            };
            if let Some(referent) = referent {
                return Some(PlainAudit {
                    lead: leads.keyword(m).to_string(),
                    referent,
                    span: m.start()..m.end(),
                });
            }
        }
        self.find_act(text).or_else(|| self.outcomes.find(text, self, grounds))
    }

    /// The referent of the heading lead `m`: what its body found, if it
    /// tells a finding of its own (not a plan, a list of what was looked
    /// at, the code read, or a document's word).
    fn heading_referent(&self, text: &str, m: KeywordMatch) -> Option<String> {
        let body = after_heading(text, m, &self.heading_ends)?;
        if self.is_empty(body) {
            return None;
        }
        // A body on the heading's line that opens with a hedge
        // or a plan found nothing, whatever follows it
        // ("Edge cases: I'll look at them later. Added
        // `page`.").
        let first = &body[..sentence_end_within(body, 0, CLAUSE_WITHIN)];
        if !body.trim_start_matches([' ', '\t']).starts_with('\n')
            && self.referent(first).is_none()
            && self.outcomes.unsure_statement(first)
        {
            return None;
        }
        // Nor did one whose first sentence tells the code read
        // ("## Verification\nI walked through the code path
        // …").
        let opening = body.trim_start();
        let opening =
            &opening[..sentence_end_within(opening, 0, CLAUSE_WITHIN)];
        // A list of what was looked at tells nothing found
        // ("確認したこと:\n- うるう日の扱い\n- ステップ値").
        let list = body.trim_start_matches([' ', '\t']).starts_with('\n');
        // Nor one that names, before its colon, the code or
        // its rules as what was looked at ("Checked the layout
        // rules for iPad: …").
        let (start, _) =
            sentence_bounds_within(text, m.start(), CLAUSE_WITHIN);
        let body_at = body.as_ptr() as usize - text.as_ptr() as usize;
        let head = &text[start.min(body_at)..body_at];
        if self.read_not_seen(opening)
            || self.reads_code(head)
            || self.sourced(paragraph(body))
            || hygiene_list(paragraph(body))
            || self.outcomes.table_without_results(body)
            || (list && !self.outcomes.list_tells_findings(paragraph(body)))
        {
            return None;
        }
        // An English heading after a change in its sentence is
        // what the change was made to ("Handled the edge case
        // you mentioned: …"): what was seen of it must be told
        // in the sentence after its colon, not anywhere on.
        let before = &text[start..m.start()];
        let changed = before.is_ascii()
            && !before.trim().is_empty()
            && self.outcomes.tells_change(before);
        if changed {
            self.referent(opening)
        } else {
            // Only a paragraph that names one is cut.
            self.referent(paragraph(body))
                .and_then(|_| self.sure_referent(self.until_change(body)))
        }
    }

    /// The referent of the statement lead `m` (`keyword`): in its sentence,
    /// after it, or lent by the next sentence when that tells a finding.
    fn statement_referent(
        &self,
        text: &str,
        m: KeywordMatch,
        keyword: &str,
    ) -> Option<String> {
        // A statement is an act: what keeps an act from
        // reporting a check keeps it too.
        if !self.reports(text, m.start()..m.end()) {
            return None;
        }
        let (start, end) =
            sentence_bounds_within(text, m.start(), CLAUSE_WITHIN);
        // A Japanese statement in its joining form ("検証し、")
        // takes its tense from the sentence's end: "…を検証し、
        // 400 を返します" tells what the code does.
        // Nor does one whose sentence ends on the setting made:
        // "…を確認し、…返すようにしました" tells the change.
        if keyword.ends_with('、')
            && (!ends_in_past(&text[m.end()..end])
                || self.outcomes.ends_on_setting(&text[start..end]))
        {
            return None;
        }
        // What the sentence after it tells was found, unless
        // it tells a setting, a hedge, a guess or a cause
        // ("確認しました。…送る作りになっていて、…問題なさそう
        // です"). A Japanese or Korean statement names what it
        // checked before it ("본인인증 만료를 시험해 봤습니다"):
        // with nothing found after it, that is no finding.
        let next = next_sentence(text, end);
        let after = self.after_act(next);
        // What it found, told as a guess, was inferred
        // ("Tested: looks right in the UI").
        if self.guessed(&text[m.end()..end]) {
            return None;
        }
        let own_after = self.referent(&text[m.end()..end]);
        if after.lends_nothing && own_after.is_none() {
            return None;
        }
        let lent = self.referent(next).filter(|_| !after.lends_nothing);
        own_after.or(lent).or_else(|| self.referent(&text[start..m.start()]))
    }

    /// The referent of the first line of `list` that names one, passing
    /// over green runs ("1. `npm run build` ✔"): they tell no check.
    fn list_referent(&self, list: &str) -> Option<String> {
        list.lines()
            .filter(|l| !hygiene_list(l))
            .find_map(|l| self.referent(l))
    }

    /// What `next`, the sentence after an act, tells of it: a guess, or
    /// what rests on a request or a document, is hedged too. An empty one
    /// tells nothing either way.
    fn after_act(&self, next: &str) -> AfterAct {
        if next.trim().is_empty() {
            return AfterAct::default();
        }
        let mut told = self.outcomes.after_act(next);
        if self.guessed(next) {
            told.hedged = true;
            told.lends_nothing = true;
        }
        // What rests on a request or a document was expected, not found
        // by the act ("…を確かめました。ご要望どおり 1,000 ドルを超える注文
        // だけが対象です").
        if self.read_not_seen(next) {
            told.hedged = true;
            told.lends_nothing = true;
        }
        told
    }

    /// Whether the act or statement at `span` reports a check the agent
    /// made: not voided by a wish or a request on its stem, not in the
    /// first sentence of a summary, not cancelled by a plan, the user's act
    /// or "so it's unverified", and not a form that describes a thing
    /// ("実行したコマンド", "the observed crash").
    fn reports(&self, text: &str, span: std::ops::Range<usize>) -> bool {
        let (start, _) =
            sentence_bounds_within(text, span.start, CLAUSE_WITHIN);
        !(self.voided(text, span.clone())
            || self.summary_heading(&text[start..span.start])
            || self.hearsay(text, span.start)
            || adnominal(text, span.end)
            || self.attributive(text, span.start)
            || self.by_other(text, span.clone())
            || in_english_cause(text, span.start)
            || self.acts.iter().any(|a| {
                a.set.cancelled_looking(
                    text,
                    span.start,
                    span.end,
                    leads_to_result(&text[..span.end]),
                )
            }))
    }

    /// Whether the sentence holding byte `at` tells a check by reading
    /// alone: see [`PlainAudits::read_not_seen`].
    fn hearsay(&self, text: &str, at: usize) -> bool {
        let (start, end) = sentence_bounds_within(text, at, CLAUSE_WITHIN);
        self.read_not_seen(&text[start..end.max(at)])
    }

    /// Whether `sentence` tells the code, or a part of it, looked at
    /// ("walked through the code path", "checked the upload handler",
    /// ロジックを確認).
    fn reads_code(&self, sentence: &str) -> bool {
        self.reads_code_lower(&sentence.to_lowercase())
    }

    /// [`PlainAudits::reads_code`] of a sentence already lowercased.
    fn reads_code_lower(&self, lower: &str) -> bool {
        self.code_read.iter().any(|w| holds(lower, w))
            || self.reads_code_noun(lower)
    }

    /// Whether `lower`, a lowercased English sentence, tells a part of the
    /// code or its configuration looked at ("I checked the analyzer
    /// config", "went through the upload handler"): a verb of looking,
    /// "the", at most three words, and a noun of code.
    fn reads_code_noun(&self, lower: &str) -> bool {
        self.look_verbs.iter().any(|v| {
            lower.match_indices(v).any(|(i, _)| {
                if !is_word_at(lower, i, v.len()) {
                    return false;
                }
                let Some(rest) = lower[i + v.len()..].strip_prefix(" the ")
                else {
                    return false;
                };
                rest.split_whitespace()
                    .take(4)
                    .map(|w| w.trim_end_matches([',', ':', ';', '.']))
                    .any(|w| self.code_nouns.contains(&w))
            })
        })
    }

    /// [`PlainAudits::sourced`] of a sentence already lowercased.
    fn sourced_lower(&self, lower: &str) -> bool {
        self.sources.iter().any(|w| holds(lower, w))
    }

    /// Whether a phrase that voids an act overlaps `span` of `text`: only
    /// the bytes around the span are looked at, so a text is searched
    /// for them only where an act or a statement stands.
    fn voided(&self, text: &str, span: std::ops::Range<usize>) -> bool {
        let from =
            floor_boundary(text, span.start.saturating_sub(VOID_WITHIN));
        let to = span.end + floor_boundary(&text[span.end..], VOID_WITHIN);
        let near = text[from..to].to_ascii_lowercase();
        let (start, end) = (span.start - from, span.end - from);
        self.act_void.iter().any(|v| {
            near.match_indices(v).any(|(i, _)| {
                i < end && start < i + v.len() && is_word_at(&near, i, v.len())
            })
        })
    }

    /// Whether a person other than the agent is named as the subject of
    /// the act at `at`: a name with an honorific and a particle earlier in
    /// its sentence ("요나스 님이 …", "マルタさんが …") with no word of the
    /// agent's own after it ("제가 직접"), or a capitalised English word
    /// right before it that opens no sentence on its own, when the act is
    /// a try or the sentence has a pronoun or a word of report ("Jonas
    /// tried it", "Priya ran it on her machine"; not "Then tried it", "I
    /// tried it" or "Cypress tested the login flow").
    fn person_before(&self, text: &str, at: usize) -> bool {
        let (start, end) = sentence_bounds_within(text, at, CLAUSE_WITHIN);
        let lead_in = &text[start..at];
        // The last person named before the act, unless the agent names
        // itself after them.
        let named = self
            .person_subjects
            .iter()
            .filter_map(|p| lead_in.rfind(p).map(|i| i + p.len()))
            .max();
        if let Some(after) = named {
            return !self.selves.iter().any(|s| lead_in[after..].contains(s));
        }
        let Some(word) = lead_in
            .strip_suffix(' ')
            .and_then(|b| b.rsplit([' ', '\n', '(', '"']).next())
        else {
            return false;
        };
        // Only an English act has its subject right before it, and a
        // capitalised subject may be a tool ("Playwright ran the suite",
        // "Cypress tested the login"): a person is told by trying, or by
        // a word of [`PlainTable::person_words`] in the sentence ("Priya
        // ran the export on her machine", "Kenji says").
        let sentence = &text[start..end];
        let english = lead_in.is_ascii()
            && text[at..].starts_with(|c: char| c.is_ascii_alphabetic())
            && (text[at..].starts_with("tried")
                || self.person_words.iter().any(|w| sentence.contains(w)));
        let mut chars = word.chars();
        english
            && chars.next().is_some_and(|c| c.is_ascii_uppercase())
            && word.len() >= 2
            && chars.all(|c| c.is_ascii_lowercase())
            // "Partially checked", "Carefully went through": adverbs.
            && !word.ends_with("ly")
            && !self.openers.iter().any(|o| word.eq_ignore_ascii_case(o))
    }

    /// Whether the act at `span` is another's: a party joined to it by a
    /// particle before it ("法務に確認済み", "법무팀이 확인했습니다"), named
    /// as its subject ("legal confirmed"), or after it in its clause
    /// ("confirmed with legal", "checked the window with legal").
    fn by_other(&self, text: &str, span: std::ops::Range<usize>) -> bool {
        if self.person_before(text, span.start) {
            return true;
        }
        const PARTICLES: &[&str] =
            &["에서", "에게", "に", "が", "の", "で", "이", "가", "에", "의"];
        let before = text[..span.start].trim_end();
        let before = PARTICLES
            .iter()
            .find_map(|p| before.strip_suffix(p))
            .unwrap_or(before)
            .trim_end()
            .to_lowercase();
        // In English, the party follows the act's object within its
        // clause: "checked the window with legal".
        let rest = &text[span.end..];
        let clause =
            &rest[..rest.find([',', ':', ';', '.']).unwrap_or(rest.len())];
        let clause = clause[..floor_boundary(clause, 80)].to_ascii_lowercase();
        let after: Vec<&str> = [" with ", " by "]
            .iter()
            .flat_map(|p| {
                clause.match_indices(p).map(|(i, _)| &clause[i + p.len()..])
            })
            .map(|a| a.strip_prefix("our ").unwrap_or(a))
            .collect();
        self.parties.iter().any(|p| {
            let named_before = before.ends_with(p)
                && before[..before.len() - p.len()]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_ascii_alphanumeric());
            named_before
                || after.iter().any(|a| {
                    a.starts_with(p)
                        && !a[p.len()..]
                            .starts_with(|c: char| c.is_ascii_alphanumeric())
                })
        })
    }

    /// Whether the word just before byte `at` makes the act there an
    /// adjective ("the observed crash").
    fn attributive(&self, text: &str, at: usize) -> bool {
        let before = text[..at].trim_end();
        let word = before
            .rsplit(|c: char| !c.is_ascii_alphabetic())
            .next()
            .unwrap_or("");
        before.len() < at
            && self.attributive.iter().any(|w| w.eq_ignore_ascii_case(word))
    }

    /// The first act of checking in `text` that names a referent: in its
    /// sentence, or in the list it heads ("Things I double-checked:"). An
    /// act in a question, or voided by a wish or a request on its stem,
    /// is none.
    fn find_act(&self, text: &str) -> Option<PlainAudit> {
        let mut spans: Vec<std::ops::Range<usize>> = self
            .acts
            .iter()
            .filter(|a| a.script.in_text(text))
            .flat_map(|a| a.set.spans(text))
            .collect();
        spans.sort_unstable_by_key(|r| (r.start, r.end));
        spans.into_iter().find_map(|span| self.act_at(text, span))
    }

    /// The audit the act at `span` tells, if it reports a check and names
    /// what it found.
    fn act_at(
        &self,
        text: &str,
        span: std::ops::Range<usize>,
    ) -> Option<PlainAudit> {
        if !self.reports(text, span.clone())
            || in_markdown_heading(text, span.start)
            || self.outcomes.in_work_list(text, span.start)
        {
            return None;
        }
        let span = without_noun_ending(text, span);
        let (start, end) =
            sentence_bounds_within(text, span.start, CLAUSE_WITHIN);
        // Never before the act (see the trim above).
        let rest = end.max(span.end);
        if is_question(&text[end..]) || hygiene_only(&text[start..rest]) {
            return None;
        }
        // What the act found, told as a guess, was inferred.
        if self.guessed(&text[span.end..rest]) {
            return None;
        }
        let audit = |referent| PlainAudit {
            lead: text[span.clone()].to_string(),
            referent,
            span: span.clone(),
        };
        // An act that opens a note in brackets finds only what the note
        // names: "(tested a 12 MB PNG)" is a check, "rows whose email
        // (compared case-insensitively) exists" a description.
        if text[..span.start].ends_with('(') {
            if let Some(note) = own_note(&text[span.end..rest]) {
                return self.referent(note).map(audit);
            }
        }
        // The next sentence tells what the act found, unless it tells
        // another change ("Tried it locally. Raised the limit to 50
        // MB."), a setting, a hedge or a guess, or gives a cause.
        let next = next_sentence(text, end);
        let told = self.after_act(next);
        let after = self.referent(&text[span.end..rest]);
        // A Japanese or Korean act names what it checked before it
        // ("본인인증 만료를 시험해 봤습니다"): when what follows is a guess
        // or a hedge, nothing was found.
        if after.is_none() && !text[start..rest].is_ascii() && told.hedged {
            return None;
        }
        let own = self.referent(&text[start..span.start]).or(after);
        // An act after a cause, with nothing of its own to show, is a
        // conclusion drawn ("it's a drop-in replacement, so the output
        // is identical"), not a check made.
        if own.is_none() && self.outcomes.gives_cause(&text[start..span.start])
        {
            return None;
        }
        own.or_else(|| {
            self.lent_referent(text, end, next).filter(|_| !told.lends_nothing)
        })
        .or_else(|| self.list_referent(paragraph(list_after(text, span.end)?)))
        .map(audit)
    }

    /// The referent the sentence after an act (`next`, after byte `end`)
    /// lends it. After a green run ("確認\n1. `npm run build` ✔"), the
    /// list's other items may tell what was found.
    fn lent_referent(
        &self,
        text: &str,
        end: usize,
        next: &str,
    ) -> Option<String> {
        if hygiene_list(next) {
            self.list_referent(paragraph(&text[end..]))
        } else {
            self.referent(next)
        }
    }

    /// Whether the lead or marker `m` is negated: by a negation earlier in
    /// its clause, or by one it directly runs into.
    pub(crate) fn negated(&self, text: &str, m: KeywordMatch) -> bool {
        let (start, _) = sentence_bounds_within(text, m.start(), 64);
        let before = text[start..m.start()].to_ascii_lowercase();
        // A negation in a clause the act is set against is not its own:
        // "I haven't load-tested it, but functionally it's checked".
        let before = CONTRASTS
            .iter()
            .filter_map(|c| before.rfind(c).map(|i| i + c.len()))
            .max()
            .map_or(before.as_str(), |i| &before[i..]);
        // Nor is one inside a note in brackets: "…열리는 걸(1.23E+15로
        // 안 바뀜) … 확인했습니다".
        let before = &without_notes(before);
        let negated_before = self.negations_before.iter().any(|n| {
            // "n't" ends a word ("wasn't", "couldn't"): it is glued to
            // what comes before it by nature.
            let suffix = n.starts_with("n'");
            before
                .match_indices(n)
                .any(|(i, _)| suffix || is_word_at(before, i, n.len()))
        });
        // A heading ("Audit:", "Audit —") is not negated by what it heads:
        // "Audit: nothing found" is a (hollow) audit, not "I audited
        // nothing".
        if text[..m.end()].ends_with([':', '：', '—', '–', '-']) {
            return negated_before;
        }
        let after = &text[m.end()..];
        let after = &after[..floor_boundary(after, 24)];
        let after = after.to_ascii_lowercase();
        negated_before
            || self.negations_after.iter().any(|n| after.starts_with(n))
    }

    /// [`PlainAudits::strict_referent`], with the kinds of check left out
    /// ("error handling", "동시성"): what the hollow gate counts as
    /// specific.
    pub(crate) fn specific_referent(&self, s: &str) -> Option<String> {
        let categories = self.categories.get();
        if categories.find_iter(s).next().is_none() {
            return self.strict_referent(s);
        }
        let mut left = String::with_capacity(s.len());
        let mut last = 0;
        for m in categories.find_iter(s) {
            left.push_str(&s[last..m.start()]);
            left.push(' ');
            last = m.end();
        }
        left.push_str(&s[last..]);
        self.strict_referent(&left)
    }

    /// A referent in `s` as the first seed's contract reads one, for the
    /// hollow gate: an identifier or code span, a file path, a number, a
    /// command or a named failure mode. A name does not make a marker
    /// audit specific ("Self-audit: all Good").
    pub(crate) fn strict_referent(&self, s: &str) -> Option<String> {
        let words = self.referents.get();
        if let Some(m) =
            words.find_iter(s).find(|&m| word_bounded(s, words, m))
        {
            return Some(words.keyword(m).to_string());
        }
        if let Some(c) = number_in(s) {
            return Some(c.to_string());
        }
        if s.contains('`') {
            return Some("`code`".to_string());
        }
        // Japanese and Korean glue particles to a word ("checked_add라",
        // "usizeで"): any non-ASCII character ends an identifier.
        s.split(|c: char| {
            c.is_whitespace() || !c.is_ascii() || "()[]{},;\"'".contains(c)
        })
        .find(|w| is_identifier_like(w) || is_acronym(w))
        .map(str::to_string)
    }
}

impl PlainWords for PlainAudits {
    fn until_change<'t>(&self, s: &'t str) -> &'t str {
        let s = paragraph(s);
        let mut end = 0;
        for (i, sentence) in sentences_within(s, s.len()).enumerate() {
            if i > 0 && self.outcomes.tells_change(&s[sentence.clone()]) {
                break;
            }
            end = sentence.end;
        }
        &s[..end]
    }

    fn sure_referent(&self, s: &str) -> Option<String> {
        sentences_within(s, s.len())
            .map(|r| &s[r])
            .filter(|t| t.is_ascii() || !self.outcomes.unsure_statement(t))
            .find_map(|t| self.referent(t))
    }

    fn guessed(&self, sentence: &str) -> bool {
        let lower = sentence.to_lowercase();
        self.guesses.iter().any(|g| lower.contains(g))
    }

    fn unverified(&self, sentence: &str) -> bool {
        let lower = sentence.to_lowercase();
        self.acts.iter().any(|a| a.set.unverified(&lower))
    }

    fn read_not_seen(&self, sentence: &str) -> bool {
        let lower = sentence.to_lowercase();
        // Code or a number is something to show, but not when a document
        // is named as the proof, nor when it is the code itself, read.
        if self.sourced_lower(&lower) || self.reads_code_lower(&lower) {
            return true;
        }
        if sentence.bytes().any(|b| b == b'`' || b.is_ascii_digit()) {
            return false;
        }
        self.hearsay.iter().any(|w| holds(&lower, w))
    }

    fn summary_heading(&self, head: &str) -> bool {
        let Some(colon) = head.find([':', '：']) else {
            return false;
        };
        let heading = head[..colon].trim_start_matches(['#', '*', ' ']);
        let lower = heading.to_lowercase();
        // A short heading: a longer one may name a check as well ("Quick
        // check after the fix:").
        let short = heading.split_whitespace().count() <= 3
            && heading.chars().count() <= 24;
        short && self.summaries.iter().any(|w| holds(&lower, w))
    }

    fn sourced(&self, sentence: &str) -> bool {
        self.sourced_lower(&sentence.to_lowercase())
    }

    fn others_check(&self, sentence: &str) -> bool {
        self.acts
            .iter()
            .filter(|a| a.script.in_text(sentence))
            .flat_map(|a| a.set.spans(sentence))
            .any(|span| self.by_other(sentence, span))
    }

    fn is_empty(&self, body: &str) -> bool {
        let body = body.trim_start().to_ascii_lowercase();
        let body = body.trim_start_matches(['-', '*', '—', '–', ' ']);
        self.empty.iter().any(|e| {
            body.starts_with(e)
                && (!e.is_ascii()
                    || body[e.len()..]
                        .chars()
                        .next()
                        .is_none_or(|c| !c.is_ascii_alphanumeric()))
        })
    }

    fn referent(&self, s: &str) -> Option<String> {
        self.strict_referent(s)
            .or_else(|| proper_name(s))
            .or_else(|| counted(s))
            .or_else(|| quoted(s))
    }
}

/// The first digit of `s` that is not a list item's number ("3. Remaining
/// risk", "2) 検証"): a numbered report's outline names nothing.
fn number_in(s: &str) -> Option<char> {
    let is_digit = |c: char| c.is_ascii_digit() || ('０'..='９').contains(&c);
    s.split('\n').find_map(|line| {
        let body = line.trim_start();
        let digits = body.len() - body.trim_start_matches(is_digit).len();
        let rest = &body[digits..];
        let enumerator = digits > 0
            && digits <= 6
            && (rest.starts_with(". ") || rest.starts_with(") "));
        let body = if enumerator { &rest[2..] } else { body };
        body.chars().find(|&c| is_digit(c))
    })
}

/// A message quoted in `s`, as a text quotes what a screen showed
/// ("「このリンクは使用済みです」と出て", "\"이미 사용된 링크입니다\"가
/// 나왔고"): four characters or more between the marks. An English quote
/// is a message when it reads as one: two words or more, capitalised
/// ("it showed \"You're unsubscribed\""), not a word set apart.
fn quoted(s: &str) -> Option<String> {
    QUOTES.iter().find_map(|&(open, close)| {
        let (_, rest) = s.split_once(open)?;
        let (inner, _) = rest.split_once(close)?;
        let message = if inner.is_ascii() && s.is_ascii() {
            let words = inner.split_whitespace().count();
            // A lowercase one reads as a message from three words on
            // ("a \"your email was changed\" notice"); two may be a
            // term ("the \"remember me\" box").
            words >= 3
                || (words == 2
                    && inner.starts_with(|c: char| c.is_ascii_uppercase()))
        } else {
            inner.chars().count() >= 4
        };
        message.then(|| inner.to_string())
    })
}

/// A count told in words in `s`: an English number from two to twelve
/// before a word ("three test users"), a Japanese numeral before a
/// counter ("三人", "二回", "二つ"), a Korean one before a word ("세 명",
/// "두 파일").
fn counted(s: &str) -> Option<String> {
    const EN: &[&str] = &[
        "two", "three", "four", "five", "six", "seven", "eight", "nine",
        "ten", "eleven", "twelve",
    ];
    const JA_COUNTERS: &[char] =
        &['人', '回', '件', '個', '台', '本', '通', 'つ'];
    const KO: &[&str] = &["두 ", "세 ", "네 ", "다섯 ", "여섯 ", "열 "];
    let mut words = s.split_whitespace().peekable();
    while let Some(w) = words.next() {
        let w = w.trim_matches(|c: char| !c.is_ascii_alphabetic());
        if words.peek().is_some()
            && EN.iter().any(|n| w.eq_ignore_ascii_case(n))
        {
            return Some(w.to_ascii_lowercase());
        }
    }
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(&counter) = chars.peek() {
            if "二三四五六七八九十".contains(c)
                && JA_COUNTERS.contains(&counter)
            {
                return Some([c, counter].iter().collect());
            }
        }
    }
    // The numeral is a word of its own ("열 " is no "열" inside "전열 "),
    // and a Hangul word follows it.
    KO.iter().find_map(|n| {
        s.match_indices(n).find_map(|(i, _)| {
            let own = s[..i].chars().next_back().is_none_or(|c| !is_hangul(c));
            let after = s[i + n.len()..].chars().next();
            (own && after.is_some_and(is_hangul)).then(|| n.trim().to_string())
        })
    })
}

/// Whether `c` is a Hangul syllable.
fn is_hangul(c: char) -> bool {
    ('\u{AC00}'..='\u{D7A3}').contains(&c)
}

/// Whether `w` looks like code: `snake_case`, `camelCase`, `Type::path`,
/// `call()`, a path `a/b`, or a file name `name.ext`.
fn is_identifier_like(w: &str) -> bool {
    let w = w.trim_matches(|c: char| ".:!?".contains(c));
    if w.len() < 3 || !w.is_ascii() {
        return false;
    }
    let alnum = |c: char| c.is_ascii_alphanumeric();
    let inner_underscore =
        w.trim_matches('_').contains('_') && w.chars().any(alnum);
    let camel = w
        .as_bytes()
        .windows(2)
        .any(|p| p[0].is_ascii_lowercase() && p[1].is_ascii_uppercase());
    let path = w.split('/').filter(|part| !part.is_empty()).count() >= 2;
    let file = w.rsplit_once('.').is_some_and(|(name, ext)| {
        !name.is_empty()
            && name.chars().all(|c| alnum(c) || "_-".contains(c))
            && (2..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_lowercase())
    });
    inner_underscore
        || camel
        || path
        || file
        || w.contains("::")
        || w.ends_with("()")
}

/// A name in `s`: a capitalised word inside an English sentence ("Tab",
/// "Excel"), or a Latin word inside a Japanese or Korean one ("Tab は",
/// "Helm 차트"). Either names a thing a check could touch, where a common
/// word would not.
fn proper_name(s: &str) -> Option<String> {
    let cjk = Script::Japanese.in_text(s) || Script::Korean.in_text(s);
    let mut prev_end = true;
    for w in s.split(|c: char| c.is_whitespace() || (cjk && !c.is_ascii())) {
        if w.is_empty() {
            continue;
        }
        let starts_sentence = prev_end;
        // A list's marker ("-", "•") starts the sentence after it too.
        prev_end = w.ends_with(['.', '!', '?', '*', '#'])
            || (starts_sentence && !w.contains(|c: char| c.is_alphanumeric()));
        let w = w.trim_matches(|c: char| !c.is_ascii_alphanumeric());
        let name = w.len() >= 2
            && w.chars().all(|c| c.is_ascii_alphabetic())
            && w.starts_with(|c: char| c.is_ascii_uppercase());
        if name && (cjk || !starts_sentence) {
            return Some(w.to_string());
        }
    }
    None
}

/// Whether `w` is an acronym that names a thing ("CRLF", "SQL", "UTF-8"):
/// two or more capitals, nothing in lower case.
fn is_acronym(w: &str) -> bool {
    /// Acronyms that name no thing: a verdict, a placeholder, an aside.
    const NOT_A_THING: &[&str] = &[
        "OK", "LGTM", "TBD", "TODO", "FIXME", "WIP", "ASAP", "FYI", "IMO",
        "IMHO", "AFAIK", "NB", "PS", "NA", "N-A", "ACK",
    ];
    let w = w.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    !NOT_A_THING.contains(&w)
        && w.chars().filter(char::is_ascii_uppercase).count() >= 2
        && w.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-')
}

/// The acts of one language.
#[derive(Clone, Debug)]
struct LangActs {
    script: Script,
    set: PatternSet,
}

/// The script a language's acts are written in: what a text must hold for
/// them to be looked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Script {
    /// Kana or CJK ideographs.
    Japanese,
    /// Hangul.
    Korean,
    /// Any text: English acts ("ran", "grep") stand in every language.
    Any,
}

impl Script {
    fn of(code: &str) -> Script {
        match code {
            "ja" => Script::Japanese,
            "ko" => Script::Korean,
            _ => Script::Any,
        }
    }

    fn in_text(self, text: &str) -> bool {
        let has = |f: fn(char) -> bool| text.chars().any(f);
        match self {
            Script::Any => true,
            Script::Japanese => has(
                |c| matches!(c, '\u{3040}'..='\u{30FF}' | '\u{4E00}'..='\u{9FFF}'),
            ),
            Script::Korean => has(|c| {
                is_hangul(c)
                    || matches!(c, '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}')
            }),
        }
    }
}

/// Whether the English act at byte `at` is told in a cause, of a subject
/// not the agent's: "were late because the job ran every 15 minutes" tells
/// why, not what was checked.
fn in_english_cause(text: &str, at: usize) -> bool {
    let (start, _) = sentence_bounds_within(text, at, CLAUSE_WITHIN);
    let before = text[start..at].to_ascii_lowercase();
    let Some(subject) = [" because ", " since "]
        .iter()
        .filter_map(|r| before.rfind(r).map(|i| &before[i + r.len()..]))
        .min_by_key(|s| s.len())
    else {
        return false;
    };
    let first = subject.split_whitespace().next();
    !subject.contains([',', ';'])
        && first.is_some_and(|w| !["i", "we", "i've", "we've"].contains(&w))
}

/// Whether a text tells anything in the past, or a state found: a check
/// is reported so ("바꿨더니 … 나왔습니다", "入れると … 届きました",
/// "効いています", "Ran the suite: 412 passed"), a design in the present
/// ("… 보냅니다", "… 切り替わります", "Reminders repeat every 3 days").
/// `None` for a text in a mix of scripts (Hangul, or Japanese beside more
/// than three times as many ASCII letters), where the tense of one script
/// is no mark of the whole.
pub(crate) fn tells_a_past(text: &str) -> Option<bool> {
    let (mut hangul, mut japanese, mut latin) = (0usize, 0usize, 0usize);
    for c in text.chars() {
        match c {
            '\u{AC00}'..='\u{D7A3}' => hangul += 1,
            '\u{3040}'..='\u{30FF}' | '\u{4E00}'..='\u{9FFF}' => japanese += 1,
            c if c.is_ascii_alphabetic() => latin += 1,
            _ => {}
        }
    }
    if hangul > 0 && hangul * 3 >= latin {
        return Some(text.chars().any(is_past_syllable));
    }
    if hangul > 0 || (japanese > 0 && japanese * 3 < latin) {
        return None;
    }
    if japanese == 0 {
        return (latin > 0).then(|| tells_an_english_past(text));
    }
    // "た" ending a clause or a sentence, not one before a noun ("丸めた行").
    const PAST: &[&str] = &[
        "ました",
        "でした",
        "だった",
        "た。",
        "た、",
        "た,",
        "た.",
        "たが",
        "たので",
        "たけど",
        "たところ",
        "た」",
        "た）",
        "た)",
        "た\n",
        "済み",
        "ています",
        "ている。",
    ];
    Some(
        PAST.iter().any(|p| text.contains(p))
            || text.trim_end().ends_with('た'),
    )
}

/// Whether an English text tells something in the past: a verb in the
/// past that is no participle telling a state ("are synced", "is set"),
/// no adjective ("the cached value") and no participle after a noun
/// ("each hour started past the booking", "…, billed on one invoice").
/// "Ran …", "it was refused", "412 passed", "I've confirmed" are pasts;
/// "Weekly mails go out on Monday and cover the seven days before" has
/// none. The words that tell the change itself ("refactored", "added",
/// the table's [`changes`](super::lang::PlainTable::changes)) are no
/// past of a check: "Second part: refactored the loader." tells none.
/// Any other word that may be a past counts as one: finding a past only
/// lets the model's reading stand.
fn tells_an_english_past(text: &str) -> bool {
    use super::lang::en::{
        ADJECTIVE_BEFORE, BETWEEN_STATE, NOT_PAST_ED, PAST_FORMS,
        PREPOSITIONS, SAME_IN_PRESENT, SINGULAR_SUBJECTS, STATE_BEFORE,
        SUBJECTS,
    };
    const CHANGES: &[&str] = super::lang::en::TABLE.plain.changes;
    let is_in = |list: &[&str], w: &str| list.iter().any(|l| same_word(l, w));
    let mut words = english_words(text).peekable();
    // The two words before the one read in its clause, nearest first.
    let mut before = ["", ""];
    while let Some((word, opens_clause)) = words.next() {
        if opens_clause {
            before = ["", ""];
        }
        let b = word.as_bytes();
        let past = is_in(PAST_FORMS, word)
            || b.len() > 3
                && b[b.len() - 2..].eq_ignore_ascii_case(b"ed")
                && !is_in(NOT_PAST_ED, word)
            || is_in(SAME_IN_PRESENT, word)
                && (before[0].is_empty()
                    || is_in(SINGULAR_SUBJECTS, before[0]));
        if past && !is_in(CHANGES, word) {
            let verb = if is_in(BETWEEN_STATE, before[0]) {
                before[1]
            } else {
                before[0]
            };
            let state = is_in(STATE_BEFORE, verb);
            let adjective = is_in(ADJECTIVE_BEFORE, before[0]);
            // A participle after a noun, with its preposition: not
            // after a subject ("I logged in as …") nor opening a clause.
            let next = words.peek().map_or("", |&(w, _)| w);
            let after_noun = !before[0].is_empty()
                && !is_in(SUBJECTS, before[0])
                && is_in(PREPOSITIONS, next);
            if !state && !adjective && !after_noun {
                return true;
            }
        }
        before = [word, before[0]];
    }
    false
}

/// The words of an English text (ASCII letters and digits, with their
/// apostrophes), each with whether it opens a clause: the first word, or
/// one after a stop, a colon, a semicolon or a new line.
fn english_words(text: &str) -> impl Iterator<Item = (&str, bool)> {
    let in_word = |c: char| c.is_ascii_alphanumeric() || c == '\'' || c == '’';
    let mut rest = text;
    let mut first = true;
    std::iter::from_fn(move || {
        let start = rest.find(in_word)?;
        let opens =
            first || rest[..start].contains(['.', ':', ';', '!', '?', '\n']);
        first = false;
        let tail = &rest[start..];
        let end = tail.find(|c| !in_word(c)).unwrap_or(tail.len());
        rest = &tail[end..];
        Some((&tail[..end], opens))
    })
}

/// Whether `word` is `listed` (lowercase, its apostrophe `'`), whatever
/// the case of its letters and the shape of its apostrophe.
fn same_word(listed: &str, word: &str) -> bool {
    let mut w = word.chars().map(|c| {
        if c == '’' {
            '\''
        } else {
            c.to_ascii_lowercase()
        }
    });
    listed.chars().all(|l| w.next() == Some(l)) && w.next().is_none()
}

/// The sentence after the one that ends at `end`, in the same paragraph:
/// "I compared the outputs. All 3 files are identical."
fn next_sentence(text: &str, end: usize) -> &str {
    &text[next_sentence_at(text, end)]
}

/// Whether the Japanese past form that ends at `at` modifies the noun
/// after it ("実行したコマンドを記録する", "検索した結果を返す"): it
/// describes the thing, and reports no act. "…した結果、" (having done
/// it, the result) and a heading ("確認した点：") still report one.
fn adnominal(text: &str, at: usize) -> bool {
    let rest = &text[at..];
    text[..at].ends_with('た')
        && !rest.starts_with("結果")
        // A heading of what was checked: "見ておいた点：".
        && list_after(text, at).is_none()
        && rest.chars().next().is_some_and(
            |c| matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{30A0}'..='\u{30FF}'),
        )
}

/// The act at `span`, less a noun ending's tail that ends the sentence
/// ("確認。"): the act is the noun, so that it stays inside its sentence.
fn without_noun_ending(
    text: &str,
    mut span: std::ops::Range<usize>,
) -> std::ops::Range<usize> {
    if let Some(c) = text[span.clone()].chars().next_back() {
        if span.len() > c.len_utf8()
            && ends_sentence(text, span.end - c.len_utf8(), c)
        {
            span.end -= c.len_utf8();
        }
    }
    span
}

/// The note in brackets that an act opens (`after` is the text after the
/// act): `None` when it points back at what was told ("(tried it)"), for
/// then the act checked that.
fn own_note(after: &str) -> Option<&str> {
    let note = after.find(')').map_or(after, |i| &after[..i]);
    let points_back = note.split_whitespace().next().is_none_or(|w| {
        ["it", "this", "that", "them", "both", "all"]
            .iter()
            .any(|p| w.eq_ignore_ascii_case(p))
    });
    (!points_back).then_some(note)
}

/// Whether byte `at` stands in a Markdown heading line (`## Testing`): a
/// heading names a section, and the leads' heading rules judge it ("##
/// Risks checked"), not the acts.
fn in_markdown_heading(text: &str, at: usize) -> bool {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..at].trim_start().starts_with('#')
}

/// The list an act heads: the text after a colon that follows it within a
/// few bytes ("Things I double-checked:", "짚어 본 것:").
fn list_after(text: &str, at: usize) -> Option<&str> {
    let ahead = &text[at..at + floor_boundary(&text[at..], 12)];
    let i = ahead.find([':', '：'])?;
    let colon = ahead[i..].chars().next().map_or(1, char::len_utf8);
    Some(&text[at + i + colon..])
}

/// For an ASCII keyword, whether the match stands as a whole word.
fn word_bounded(text: &str, set: &KeywordSet, m: KeywordMatch) -> bool {
    let kw = set.keyword(m);
    if !kw.is_ascii() {
        return true;
    }
    // The end of a hyphened word is an adjective's: "low-risk" is no
    // "Risk:" heading.
    let hyphened = text[..m.start()]
        .strip_suffix('-')
        .and_then(|b| b.chars().next_back())
        .is_some_and(|c| c.is_ascii_alphabetic());
    !hyphened && is_word_at(text, m.start(), m.end() - m.start())
}

/// The text after a heading's colon (or one of `ends`), when it follows
/// the heading within its clause.
fn after_heading<'t>(
    text: &'t str,
    m: KeywordMatch,
    ends: &[&str],
) -> Option<&'t str> {
    // A head written with its colon ("落ちた場合：", "죽으면:") heads what
    // follows it.
    if text[..m.end()].ends_with([':', '：']) {
        return Some(&text[m.end()..]);
    }
    let (_, end) = sentence_bounds_within(text, m.start(), CLAUSE_WITHIN);
    let limit = m.end() + floor_boundary(&text[m.end()..], COLON_WITHIN);
    let window = &text[m.end()..end.max(m.end()).min(limit)];
    let colon = window
        .find([':', '：'])
        .map(|i| (i, window[i..].chars().next().map_or(1, char::len_utf8)));
    let other =
        ends.iter().filter_map(|e| window.find(e).map(|i| (i, e.len()))).min();
    match [colon, other].into_iter().flatten().min() {
        Some((i, len)) => Some(&text[m.end() + i + len..]),
        None => heading_line(text, m),
    }
}

/// The text under a heading that stands alone on its line (`## Risks`,
/// `**Edge cases**`), or under a Markdown heading that holds a lead (`##
/// Risks checked`): the lines that follow it.
fn heading_line(text: &str, m: KeywordMatch) -> Option<&str> {
    let near = floor_boundary(text, m.start().saturating_sub(COLON_WITHIN));
    let line_start =
        text[near..m.start()].rfind('\n').map_or(near, |i| near + i + 1);
    if line_start == near && near > 0 {
        return None;
    }
    let ahead = &text
        [m.end()..m.end() + floor_boundary(&text[m.end()..], COLON_WITHIN)];
    let line_end = m.end() + ahead.find('\n')?;
    let markup = |s: &str, allowed: &str| {
        s.chars().all(|c| c.is_whitespace() || allowed.contains(c))
    };
    let alone = markup(&text[line_start..m.start()], "#*-_>0123456789.")
        && markup(&text[m.end()..line_end], "*_:：");
    // A Markdown heading is a heading whatever else it says: "## Risks
    // checked", "### 確認したリスク".
    let markdown = text[line_start..].trim_start().starts_with('#');
    (alone || markdown)
        .then(|| text[line_end..].trim_start_matches(['\n', '\r']))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The recogniser of every language, as a hook builds it.
    pub(in crate::gates) fn audits() -> PlainAudits {
        PlainAudits::new(super::super::lang::ALL, false).unwrap()
    }

    /// Every text of `yes` holds a plain-language audit; none of `no`
    /// does.
    pub(in crate::gates) fn assert_audits(
        p: &PlainAudits,
        yes: &[&str],
        no: &[&str],
    ) {
        for t in yes {
            assert!(p.find(t).is_some(), "{t}");
        }
        for t in no {
            assert_eq!(p.find(t), None, "{t}");
        }
    }

    #[test]
    fn told_grounds_leave_out_the_shapes_of_an_outcome() {
        let p = audits();
        // Checks told outright: a statement, an act, a run shown.
        for t in [
            "Fixed the race. Risks I checked: two writers … now serialize on a lock; cargo test passes.",
            "Ran `cargo test`: 14 passed, 0 failed.",
            "確認しました。空のファイルは 400 で拒否されます。",
            "Done.\n\n```\n$ report --json | jq '.total'\n48210.37\n```",
        ] {
            assert!(p.find_told(t).is_some(), "{t}");
            assert_eq!(p.find_told(t), p.find(t), "{t}");
        }
        // Designs told with their numbers: the shapes of a try and what
        // came of it, which only the learned judge's confidence may pass.
        for t in [
            "プロジェクトをアーカイブすると 10 秒間「元に戻す」付きのトーストが出て、戻すとプロジェクトとタスクが復元されます。",
            "프로젝트를 보관하면 10초 동안 \"실행 취소\"가 있는 토스트가 뜨고, 취소하면 프로젝트와 작업이 복원됩니다.",
        ] {
            assert!(p.find(t).is_some(), "{t}");
            assert_eq!(p.find_told(t), None, "{t}");
        }
    }

    #[test]
    fn newcomers_audits_are_recognised() {
        let p = audits();
        let yes = [
            "Fixed the race. Risks I checked: two writers … now serialize on a lock; cargo test passes.",
            "Fixed. What could break: concurrent writers, partial writes on crash; both covered by …",
            "冪等性を確認しました。二回実行しても変化はありません。",
            "타임아웃 시 동작을 검증했습니다. 3번 재시도합니다.",
        ];
        let no = [
            "I audited nothing, to be honest.",
            "Risks: none.",
            "I haven't checked whether anything else depends on this.",
            "It wasn't verified by the 3 tests we have.",
            "The lock wasn't checked for the 2 writers.",
            "Checked in the changes to main.",
            "リスクは特にありません。",
            "確認していません。",
            "위험은 특별히 없습니다.",
            "Updated the risks section of the design doc.",
        ];
        assert_audits(&p, &yes, &no);
    }

    /// Acts of checking, in any person or voice, count with a referent in
    /// their sentence or in the list they head; planned, wished, asked
    /// for, negated, questioned or passive-present ones do not.
    #[test]
    fn acts_of_checking() {
        let p = audits();
        let yes = [
            "Ran the importer on a 0-byte file: it returns Ok(0).",
            "Diffed the two images; only `curl` is missing.",
            "Error paths reviewed: a failed `open()` now returns `Err(Io)`.",
            "Test plan checked against `schema.sql`: the index is used.",
            "Things I double-checked:\n- `save()` holds the lock\n- empty input",
            "I couldn't find a caller of `old_api()` outside src/legacy.",
            "The second run was a no-op: I ran `migrate up` twice on a copy of prod.",
            "`parse()` を空文字列で動かしてみたところ None が返りました。",
            "旧バイナリと出力を見比べました。3 ファイルとも同一です。",
            "`old_api()` の呼び出し元は見当たりませんでした。",
            "빈 파일로 돌려 봤는데 `Ok(0)`이 나옵니다.",
            "`old_api()` 호출부를 찾아봤지만 src/legacy 밖에는 없습니다.",
            "3개 파일을 예전 바이너리 출력과 비교했습니다.",
            "빈 파일을 넣었더니 `Ok(0)`이 나왔습니다.",
            "살펴본 것:\n- `flush()` 호출부 두 곳",
            "`old_api()` 호출부는 없었습니다.",
            "空ファイルで `parse()` を実行すると、None が返りました。",
            "- 空入力で `parse()` が None を返すことを確認\n- 以上",
            "呼び出し元は `rg old_api` で洗い出し済み。",
            "Under `wrk` load, p99 stayed at 12 ms.",
            "Old and new exports of `report.csv` were identical.",
            "20分間、RSS は 140MB で横ばい。",
            "I double-clicked `Save`: only one `POST /orders` went out.",
            // A negation in the clause set against it is not the act's.
            "I haven't load-tested it, but functionally it's checked: a full refund sets `refunded`.",
            // A short verdict, then what it rests on.
            "Risk: low. Only README.md and docs/usage.md changed.",
            // "Only … not" tells what was checked, and no more.
            "`save()` は Chrome でしか確認していません。",
            "`save()`는 Chrome에서밖에 확인하지 않았습니다.",
        ];
        let no = [
            "Tested it and it works.",
            "I'll verify `save()` under load tomorrow.",
            "Input to `parse()` is validated before use.",
            "`save()` needs to be tested on Windows.",
            "I haven't tested `save()` on Windows.",
            "Should I run `cargo bench` too?",
            "I confirmed with you earlier that v2 is fine.",
            "Checked in the changes to src/main.rs.",
            "Ran into a lifetime error in `parse()` and fixed it.",
            "`save()` を Windows で確認したいです。",
            "`save()` を確認してください。",
            "`save()` は Windows では確認していません。",
            "`save()`를 Windows에서 확인해 주세요.",
            "`save()`는 Windows에서 확인하지 않았습니다.",
            // A heading whose body opens with a hedge or a plan found
            // nothing, whatever the next sentence names.
            "Edge cases: I'll look at them in a follow-up. Added `page` to `ItemsQuery`.",
            "安全性：たぶん大丈夫です。`a.rs` を更新しました。",
            "보안 영향: 제가 보기엔 없습니다. `a.rs`를 고쳤습니다.",
            // What the code does, given as a reason.
            "署名は `HMAC-SHA256` で検証しているので、改ざんを防げます。",
            "서명은 `HMAC-SHA256`으로 검증하므로 조작을 막습니다.",
            "`save()`를 확인해 봐야 합니다.",
            "`init` を実行すると、設定ファイルが作成されます。",
            "`save()` の Windows 対応は要確認。",
            "`save()`는 미확인.",
            "## Testing\n- Added 3 tests in `test_fetch.py`",
            "## テスト\n- `test_fetch.py` にテストを3件追加",
            "Once you've reviewed `cache.rs`, merge it.",
            "Validated `email` before saving it in `signup()`.",
            "Submitted PR #12 for the `cache.rs` change.",
            "기존 `API`를 유지했습니다.",
            "`run()` は実行したコマンドを `log.txt` に記録します。",
            "ボタンをクリックしたときに `submit()` を呼びます。",
            "Fixed the observed crash in `upload.rs`.",
            "The button calls `save()` when clicked.",
            "I tried `make e2e`, but Docker is missing, so it's unverified.",
            "`make e2e` を試しましたが Docker がなく未検証です。",
        ];
        assert_audits(&p, &yes, &no);
    }

    /// What follows a lead lends it a referent only when it tells what
    /// the check found: not another change, and not a green run.
    #[test]
    fn changes_and_green_runs_lend_nothing() {
        let p = audits();
        let yes = [
            "Handled the empty-cart edge case: checkout with 0 items returns 422.",
            "Result of the restore drill: row counts of the 12 largest tables match.",
            "확인\n1. `npm run build` ✔\n2. 자바스크립트를 끄고 빌드된 사이트를 여니 링크 7개가 모두 됨",
            "`psql -U app` with the old password now fails.",
        ];
        let no = [
            "Tried it locally and it works. Raised the upload limit to 50MB.",
            "I tried it locally. Raised the upload limit to 50MB.",
            "ローカルで試しました。アップロード上限を 50MB に上げました。",
            "로컬에서 해 봤습니다. 업로드 한도를 50MB로 올렸습니다.",
            "Handled the edge case you mentioned: users with no orders get an \
             empty state now. Bumped serde to 1.0.210.",
            "📋 確認\n1. `npm run build` ✔\n2. `npm test` ✔",
            "Verification:\n1. `npm run build` ✔\n2. `npm test` ✔",
            "**결과:** `lower(email)` 고유 인덱스로 가입 중복을 막았습니다. 끝났습니다.",
        ];
        assert_audits(&p, &yes, &no);
    }

    /// A message a screen showed is a referent and an outcome; a guess
    /// after an act, a present-tense description of the code, a ticket
    /// as the proof and an English verb that is also a command are none.
    #[test]
    fn messages_seen_and_guesses_made() {
        let p = audits();
        let yes = [
            "Clicked the link in the digest: it showed \"You're unsubscribed\".",
            "Requested a link and used it after 31 minutes: \"This link has expired\".",
            "With `faketime '+120 seconds'` on the test IdP, login succeeds; at +5 \
             minutes it still fails, as it should.",
        ];
        let no = [
            "I went through the changelog's breaking changes and none of them \
             look like they affect us, except `defaultProps`.",
            "変更履歴の破壊的変更を読みましたが、`defaultProps` 以外は関係なさそうです。",
            "Found the leak: closed connections stayed in the `subscribers` map.",
            "`constructEvent` で署名を検証し、不正なイベントには 400 を返します。",
            "The translators confirmed the strings in the ticket. It should make \
             repeat requests faster.",
        ];
        assert_audits(&p, &yes, &no);
    }

    /// A quotation holds its sentences and its hedges; what the sentence
    /// after a topic hedges, a list of features, a purpose, a rule, a cause
    /// found and someone else's audit are no findings.
    #[test]
    fn quotes_and_what_rests_on_expectation() {
        let p = audits();
        let yes = [
            "Search tolerates typos now: \"recieve\" finds the \"Receive \
             payments\" article, \"invocie\" finds 12 invoice results.",
            "招待を作り、`created_at` を 8 日戻して開くと「この招待は期限切れ\
             です。新しい招待を依頼してください」。",
            "Changed my test account's email; the old address got a \"your \
             email was changed\" notice.",
            "Rounding: checked 20 random totals (tested a 12 MB CSV) against \
             the ledger.",
        ];
        let no = [
            "Webhook signatures: anything older than 5 minutes is rejected as \
             a replay. This follows Stripe's scheme, so it should be solid.",
            "Session length: the session expires after 8 hours. These match \
             the security team's policy.",
            "Dark mode:\n- follows `prefers-color-scheme` by default\n- a \
             toggle in the header overrides it",
            "PDF invoices are generated with `pdfkit` now, with the Noto fonts \
             embedded so non-Latin names render.",
            "国の欄を IP（GeoLite2 で照会）から初期設定するようにしました。照会に\
             失敗したら空のままです。",
            "Markdown sanitiser: switched to DOMPurify 3. It's the most widely \
             used sanitiser and is audited regularly.",
            "Contact import skips rows whose email (compared \
             case-insensitively) already exists.",
            "リークの原因を確認しました。ソケットを `Map` に入れたまま消して\
             いませんでした。",
            "通知のまとめ送信を確認しました。15分ごとに1通送る作りになっていて、\
             問題なさそうです。",
            "Backfill: it runs in batches of 10k, so it won't lock the table.",
        ];
        assert_audits(&p, &yes, &no);
    }

    /// Arrows in lists and "when I did" tell tries; another's check, a
    /// request met or a cause told are none of the agent's.
    #[test]
    fn tries_by_arrow_and_checks_of_others() {
        let p = audits();
        let yes = [
            "**テスト**\n- 空の CSV を取り込み →「行がありません」と出て何も\
             作られない\n- 3 行の CSV → 3 件作成",
            "**테스트**\n- 빈 CSV 가져오기 → \"행이 없습니다\"가 나오고 아무것도 \
             만들어지지 않음",
            "一括削除:\n1. 12 件を選んで削除\n2. 元に戻す → 12 件すべて一覧に\
             戻った",
            "알림을 9시로 예약하니 9시 0분 2초에 도착했습니다.",
            "Export is faster: 41 s before, 6 s now (timed 5 runs).",
            "**Testing**\n- Imported an empty CSV → \"No rows\" and nothing \
             created",
            "Then tried it with two browsers: the stock came back after 15 \
             minutes.",
            "Partially checked: the migration ran on a staging snapshot in 4 \
             min.",
            // A tool as the subject, and the agent after a teammate.
            "Cypress tested the login flow: 3 of 3 specs pass.",
            "지은 님이 알려 준 재현 절차로 제가 직접 돌려 봤더니 타임아웃이 더는 \
             나지 않았습니다.",
        ];
        let no = [
            "Holds expire after 15 minutes. Jonas tried it with two browsers \
             and the stock came back.",
            "홀드는 15분 뒤 풀립니다. 요나스 님이 브라우저 두 개로 해 봤는데 \
             재고가 돌아왔다고 합니다.",
            "確保は 15 分で切れます。マルタさんが 2 つのブラウザで試して、在庫が\
             戻ったそうです。",
            "보존 기간: 정리 작업이 90일 넘은 로그를 지웁니다. 90일은 법무팀이 \
             확인했습니다.",
            "保存期間: 整理ジョブが 90 日より古いログを消します。90 日は法務に\
             確認済みです。",
            "Checked the retention window with legal: 90 days.",
            "通知の条件を確かめました。ご要望どおり 500 ドル以上の注文だけが対象\
             です。",
            "Checked the line breaking: it uses `word-break: keep-all`, which \
             is the recommended setting.",
            "Reports were stale because the cron ran every 6 hours; it runs \
             hourly now.",
            "결제 웹훅은 이벤트 ID로 중복을 가리니 두 번 처리되지 않습니다.",
            "**Testing**\n- Empty files are refused with a message\n- Big \
             files are streamed",
            "The request timed out after 30 s before the fix.",
        ];
        assert_audits(&p, &yes, &no);
    }

    /// A hedged heading, the usual approach and a change worked on tell
    /// nothing seen; a Korean "when I did" with a past after it, a day
    /// named and a message said show a try.
    #[test]
    fn hedged_headings_and_when_i_did() {
        let p = audits();
        let yes = [
            "쿠폰을 넣고 결제를 마치니 합계가 \"9,000원\"으로 바뀌었습니다.",
            "金曜に注文すると、お届け日は月曜になりました。",
            "Submitted the form twice: the second try said \"Already sent\".",
        ];
        let no = [
            "Old exports should still open: the reader accepts both formats.",
            "Caching: responses are kept for 5 minutes, the usual approach for \
             this kind of data.",
            "배포 후 로그 처리를 손봤습니다. 오류는 한 번만 남깁니다.",
            "파일 이름에 해시가 들어가니 긴 캐시 헤더를 붙여 두었습니다.",
            "빈 장바구니 경계 사례를 처리했습니다.",
            "`/status` で DB を確認し、落ちているときは 503 を返すようにしました。",
            "Tested the failover in my head: the standby takes over in 30 s.",
            // A wide space before the word: no panic, and no try.
            "장바구니\u{3000}정리하니 끝났습니다.",
            "버전 관리가 켜진 S3에 올라가니 아무 때로나 되돌릴 수 있습니다.",
        ];
        assert_audits(&p, &yes, &no);
    }

    /// A change told as "the X now does Y", code or a setting read and a
    /// table of handling are no checks; a then-and-now opened by a try is
    /// one.
    #[test]
    fn changes_settings_and_tables() {
        let p = audits();
        let yes = [
            "Opened four old invoices; before the fix their totals were \
             blank, now all four show the amount.",
            "**テスト**\n- 名前を空にして保存 →「名前を入れてください」\n- \
             `Ann` で保存 → 保存できた",
        ];
        let no = [
            "Slow exports: the endpoint now streams the file instead of \
             building it in memory.",
            "I checked the router config: it now redirects `/old` to `/new`.",
            "## How I checked\nRead through the upload handler: large files \
             are streamed to disk.",
            "リトライ:最大 5 回、間隔を倍にしながら再試行します。",
            "サイズ上限:10MB までを受け付け、超えると「大きすぎます」と表示\
             されるようにしています。",
            "**Verification**\n| case | handling |\n|---|---|\n| empty \
             name | refused with a message |",
        ];
        assert_audits(&p, &yes, &no);
    }

    /// A heading that names the code or its rules as what was looked at,
    /// a design file or guidance as the proof, and a Japanese "will get
    /// faster" tell no check; a sample acted on and what came of it do.
    #[test]
    fn code_named_before_a_colon_and_samples_acted_on() {
        let p = audits();
        let yes = [
            "Cancelled a subscription in the portal: access stayed until 31 \
             Dec and the next invoice was not created.",
            "Deleted a folder with 3 files: all 3 went to the trash.",
            "Switched my account to German: the receipt came out in German.",
            "11월 보고서를 예전 코드와 새 코드로 모두 뽑았습니다. 합계는 \
             같았고 41초가 3초로 줄었습니다.",
        ];
        let no = [
            "Checked the upload handler: files over 10 MB get a 413.",
            "Tested the new header: it shows the logo and a \"Sign in\" \
             button, as in the Figma file.",
            "Sync: files are queued and sent in order, which follows the \
             vendor's guidance.",
            "一覧のデザインを試しました。「まだありません」が Figma どおりに\
             出ます。",
            "表の規則を確認しました。幅が狭いと `sm` で 1 列になります。",
            "표 규칙을 확인했습니다. 폭이 좁으면 `sm`에서 한 열이 됩니다.",
            "クエリを 1 回の集計に書き直したので、3 倍速くなります。",
            "I went over the upload logic, and I'm confident it handles \
             empty files.",
            "Added the French strings; the translator confirmed all 40.",
            "キャッシュ処理を見直したので、期限切れにはもう対応できていると\
             思います。",
        ];
        let yes_too = [
            "Typed 30/02/2027 into the field: it's refused with \"Not a \
             valid date\".",
            "Opened the page in a private window: the banner comes up with \
             \"Reject all\" focused.",
            "Printed a label on the office printer: the scanner reads the \
             barcode, and the address fits in 3 lines.",
            "先月のバックアップを検証用の DB に戻しました。テーブルは 48 \
             個で件数も同じでした。",
        ];
        // A change made as a user, on one's own things, is a try; so is a
        // Korean "when I did" before a comma.
        let as_a_user = [
            "Changed my avatar twice in a row: the new one showed at once, \
             and `avatars/old.png` is gone.",
            "두 창에서 같은 문서를 고치니, 나중 쪽에 `409`가 떴습니다.",
        ];
        let yes: Vec<&str> =
            yes.iter().chain(&yes_too).chain(&as_a_user).copied().collect();
        assert_audits(&p, &yes, &no);
    }

    /// A name makes a plain-language audit specific, but not a marker
    /// audit the hollow gate weighs.
    #[test]
    fn names_are_referents_only_for_plain_audits() {
        let p = audits();
        for t in
            ["Pressing Tab cycles inside the modal", "Tab はモーダル内を巡回"]
        {
            assert!(p.referent(t).is_some(), "{t}");
            assert!(p.strict_referent(t).is_none(), "{t}");
        }
        assert!(p.referent("Everything works fine.").is_none());
    }

    /// Voids are looked for only within [`VOID_WITHIN`] bytes of an act.
    #[test]
    fn voids_are_shorter_than_their_window() {
        for t in super::super::lang::ALL {
            for v in t.plain.act_void {
                assert!(v.len() < VOID_WITHIN, "{v}");
                assert_eq!(*v, v.to_ascii_lowercase(), "{v}");
            }
        }
    }

    /// A check is told in the past or as a state found; a design in the
    /// present, in each language; an English text that quotes a Japanese
    /// name is not judged by its tense.
    #[test]
    fn the_past_of_a_report() {
        for (t, past) in [
            ("시계를 옮겼더니 알림이 왔습니다.", Some(true)),
            ("다음 복습을 1일, 3일, 8일로 늘리고 10분 안에 다시 냅니다.", Some(false)),
            ("手動で 19 °C にした分は 23:00 まで保たれました。", Some(true)),
            ("Helm の値が効いています。", Some(true)),
            ("7 分は 0:00 になり、週の合計は丸めた行を足したものです。", Some(false)),
            ("The next scheduled step holds until 23:00.", Some(false)),
            ("Steps are now synced once; the same data is only counted once.", Some(false)),
            ("Ran the suite: 412 passed.", Some(true)),
            ("Booked lane 6, then it was refused as taken.", Some(true)),
            ("I’ve confirmed the fix.", Some(true)),
            ("That’s Cached By The Proxy.", Some(false)),
            ("Stalls cost €25, €32 with power, billed on one invoice.", Some(false)),
            ("Each hour started past the booking is €10.", Some(false)),
            ("Logged in as admin: the page loads.", Some(true)),
            ("The request failed with a 500.", Some(false)),
            ("It failed with a 500.", Some(true)),
            ("Second part: refactored the loader.", Some(false)),
            ("Refactored the loader and ran the suite.", Some(true)),
            ("The PDF shows 株式会社サンプル in the right font and is 84 KB.", None),
        ] {
            assert_eq!(tells_a_past(t), past, "{t}");
        }
    }

    #[test]
    fn identifiers() {
        for w in [
            "parse_header",
            "AtomicU64",
            "src/db.rs",
            "save()",
            "Cargo.toml",
            "a::b",
        ] {
            assert!(is_identifier_like(w), "{w}");
        }
        for w in ["the", "Done.", "e.g.", "works", "U.S"] {
            assert!(!is_identifier_like(w), "{w}");
        }
    }
}
