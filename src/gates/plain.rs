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
//! Two more forms tell a check by its outcome rather than by a verb:
//!
//! * a **topic heading**: a short heading of any words at a sentence's
//!   start, with its colon, whose body is a statement with a referent
//!   ("Old clients: they still send `v1`, which the handler accepts",
//!   "メモリ：…", "권한: …"). A heading that names the work, a plan, a
//!   field or a place ("Summary:", "Next steps:", "Branch:", "変更点："),
//!   a body that is an expectation, advice or a change made ("should be
//!   fine", "…してください", "added `page`"), and a list under such a
//!   heading are none;
//! * a **measured result**: two quantities with their units set against
//!   each other in one sentence, with a metric or a verb of a result ("p95
//!   went from 480 ms to 130 ms", "2.1 GB から 40 MB に減りました"), that
//!   is no setting changed ("bumped the timeout from 30 s to 60 s") and
//!   no expectation.
//!
//! A referent may also be a name: a capitalised word inside an English
//! sentence ("Esc", "Excel"), or one in Latin letters inside a Japanese or
//! Korean one ("Tab は").
//!
//! The phrases are in the language tables (`lang/`); this file holds only
//! the grammar. `audit.plain_language = false` switches it off, for teams
//! that want the strict marker contract.

use std::borrow::Cow;

use super::lang::{LangTable, PlainTable};
use super::patterns::{
    holds, leads_to_result, longest_first, LazyKeywords, PatternSet,
};
use super::sentence::{
    ends_sentence, floor_boundary, is_word_at, sentence_bounds_within,
};
use crate::error::Error;
use crate::keywords::{KeywordMatch, KeywordSet};

/// How far after a heading its colon may stand, in bytes.
const COLON_WITHIN: usize = 48;

/// How far either way of an act the phrases that void it are looked for,
/// in bytes: longer than any of them.
const VOID_WITHIN: usize = 32;

/// How much of the paragraph after a lead is searched for a referent.
const REFERENT_WITHIN: usize = 600;

/// How far a lead's clause is looked at either way of it, in bytes: every
/// lead costs at most this much, so a text of thousands of leads is still
/// judged in linear time.
const CLAUSE_WITHIN: usize = 240;

/// Commands that name how something was checked.
const COMMANDS: &[&str] = &[
    "cargo", "npm", "npx", "pnpm", "yarn", "pytest", "go test", "make",
    "grep", "rg", "curl", "git", "jest", "vitest", "mix", "rspec", "gradle",
    "mvn", "dotnet", "ctest", "tox",
];

/// A plain-language audit found in a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlainAudit {
    /// The lead, as written in the table ("edge cases", "確認しました").
    pub(crate) lead: String,
    /// The referent that makes it specific, as found in the text.
    pub(crate) referent: String,
    /// The lead's byte range in the text.
    pub(crate) span: std::ops::Range<usize>,
}

impl PlainAudit {
    /// The lead that names what was checked, as written in the pattern
    /// table ("edge cases", "確認しました", "위험").
    pub fn lead(&self) -> &str {
        &self.lead
    }

    /// The specific referent after the lead, as found in the text: an
    /// identifier, a path, a number, a command or a named failure mode.
    pub fn referent(&self) -> &str {
        &self.referent
    }

    /// The lead's byte range in the judged text.
    pub fn span(&self) -> std::ops::Range<usize> {
        self.span.clone()
    }
}

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
    /// The tables, for the words of topic headings and measured results
    /// (`not_topics`, `unsure`, `units`, …): read in place, as only a text
    /// without any other lead needs them.
    tables: Vec<&'static LangTable>,
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
            tables: tables.to_vec(),
        })
    }

    /// The first plain-language audit in `text`, if it holds one.
    pub(crate) fn find(&self, text: &str) -> Option<PlainAudit> {
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
                LeadKind::Heading => {
                    let Some(body) =
                        after_heading(text, m, &self.heading_ends)
                    else {
                        continue;
                    };
                    if self.is_empty(body) {
                        continue;
                    }
                    self.referent(paragraph(body))
                }
                LeadKind::Statement => {
                    // A statement is an act: what keeps an act from
                    // reporting a check keeps it too.
                    if !self.reports(text, m.start()..m.end()) {
                        continue;
                    }
                    let (start, end) =
                        sentence_bounds_within(text, m.start(), CLAUSE_WITHIN);
                    self.referent(paragraph(&text[m.end()..]))
                        .or_else(|| self.referent(&text[start..m.start()]))
                        .or_else(|| self.referent(&text[m.end()..end]))
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
        self.find_act(text)
            .or_else(|| self.find_topic(text))
            .or_else(|| self.find_measure(text))
            .or_else(|| self.find_try(text))
    }

    /// Whether the act or statement at `span` reports a check the agent
    /// made: not voided by a wish or a request on its stem, not cancelled
    /// by a plan, the user's act or "so it's unverified", and not a form
    /// that describes a thing ("実行したコマンド", "the observed crash").
    fn reports(&self, text: &str, span: std::ops::Range<usize>) -> bool {
        !(self.voided(text, span.clone())
            || self.hearsay(text, span.start)
            || adnominal(text, span.end)
            || self.attributive(text, span.start)
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
    /// alone ("…のドキュメントを読み込んで、…ことを確認しました") with no
    /// number or code to show for it.
    fn hearsay(&self, text: &str, at: usize) -> bool {
        let (start, end) = sentence_bounds_within(text, at, CLAUSE_WITHIN);
        let sentence = &text[start..end.max(at)];
        let lower = sentence.to_lowercase();
        self.words(|p| p.hearsay).any(|w| holds(&lower, w))
            && !sentence.contains('`')
            && !sentence.chars().any(|c| c.is_ascii_digit())
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
        for mut span in spans {
            if !self.reports(text, span.clone())
                || in_markdown_heading(text, span.start)
            {
                continue;
            }
            // A noun ending's tail ends the sentence ("確認。"): the act is
            // the noun, so that the act stays inside its sentence.
            if let Some(c) = text[span.clone()].chars().next_back() {
                if span.len() > c.len_utf8()
                    && ends_sentence(text, span.end - c.len_utf8(), c)
                {
                    span.end -= c.len_utf8();
                }
            }
            let (start, end) =
                sentence_bounds_within(text, span.start, CLAUSE_WITHIN);
            // Never before the act (see the trim above).
            let rest = end.max(span.end);
            if is_question(&text[end..]) || hygiene_only(&text[start..rest]) {
                continue;
            }
            let referent = self
                .referent(&text[start..span.start])
                .or_else(|| self.referent(&text[span.end..rest]))
                .or_else(|| self.referent(next_sentence(text, end)))
                .or_else(|| {
                    let body = list_after(text, span.end)?;
                    self.referent(paragraph(body))
                });
            if let Some(referent) = referent {
                return Some(PlainAudit {
                    lead: text[span.clone()].to_string(),
                    referent,
                    span,
                });
            }
        }
        None
    }

    /// The first topic heading in `text` whose body names a referent: a
    /// short heading of any words, at a sentence's start, with its colon
    /// ("Old clients: they still send `v1`", "メモリ：2 GB で 40 MB"). The
    /// heading lists cannot foresee every topic an audit is told under, so
    /// any heading counts that names no part of the work ("Summary:",
    /// "Next steps:", "変更点："), and whose body is no expectation, plan
    /// or advice, says there is something, and does not open with a change
    /// ("Frontend: added `page`"). A list item counts only when the line
    /// that heads its list is no such heading either.
    fn find_topic(&self, text: &str) -> Option<PlainAudit> {
        for (colon, c) in
            text.match_indices([':', '：']).map(|(i, c)| (i, c.len()))
        {
            let after = &text[colon + c..];
            // "12:30", "a::b", "https://": no heading.
            if c == 1 && !after.chars().next().is_none_or(char::is_whitespace)
            {
                continue;
            }
            let Some(heading) = topic_heading(text, colon) else { continue };
            if self.names_work(heading.words)
                || self.under_work_heading(text, heading.line_start)
            {
                continue;
            }
            let body =
                if after.trim_start_matches([' ', '\t']).starts_with('\n') {
                    paragraph(after)
                } else {
                    let from = colon + c;
                    let (_, end) =
                        sentence_bounds_within(text, from, CLAUSE_WITHIN);
                    &text[from..end.max(from)]
                };
            if self.is_empty(body)
                || self.unsure_or_change(body)
                || !is_statement(body)
            {
                continue;
            }
            if let Some(referent) = self.referent(body) {
                return Some(PlainAudit {
                    lead: heading.words.to_string(),
                    referent,
                    span: heading.span,
                });
            }
        }
        None
    }

    /// One list of every table's plain-language phrases, in place.
    fn words(
        &self,
        pick: fn(&PlainTable) -> &'static [&'static str],
    ) -> impl Iterator<Item = &'static str> + '_ {
        self.tables.iter().flat_map(move |t| pick(&t.plain).iter().copied())
    }

    /// Whether a heading names the work rather than a check.
    fn names_work(&self, heading: &str) -> bool {
        let lower = heading.to_lowercase();
        self.words(|p| p.not_topics).any(|w| holds(&lower, w))
    }

    /// Whether the list item that starts at `line_start` is in a list
    /// headed by a heading that names the work ("Changes:\n- API: …").
    fn under_work_heading(&self, text: &str, line_start: usize) -> bool {
        let item = |l: &str| {
            let l = l.trim_start();
            l.starts_with(['-', '*', '•', '・'])
                || l.split_once('.').is_some_and(|(n, _)| {
                    !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
                })
        };
        if !item(&text[line_start..]) {
            return false;
        }
        // Only the paragraph's last few lines: a text of many lists stays
        // linear.
        let near =
            floor_boundary(text, line_start.saturating_sub(REFERENT_WITHIN));
        let para = text[near..line_start]
            .rfind("\n\n")
            .map_or(near, |i| near + i + 2);
        text[para..line_start]
            .lines()
            .rev()
            .find(|l| !item(l) && !l.trim().is_empty())
            .is_some_and(|l| self.names_work(l))
    }

    /// Whether a heading's body is an expectation, a plan or advice, or
    /// tells a change made ("added `page`", "`page` を追加"). English puts
    /// its verbs first: the hedge may stand anywhere in the sentence, the
    /// change in its first two words. Japanese and Korean put them last:
    /// both are looked for in the sentence's last few characters only, so
    /// that a clause inside it ("列を追加しただけで", "아직 읽지 않으니")
    /// does not count.
    fn unsure_or_change(&self, body: &str) -> bool {
        let lower = body.trim().to_lowercase();
        let change = if lower.is_ascii() {
            let first: Vec<&str> = lower.split_whitespace().take(2).collect();
            self.words(|p| p.not_topics).any(|w| holds(&first.join(" "), w))
        } else {
            self.words(|p| p.not_topics).any(|w| holds(tail(&lower, 8), w))
        };
        change || self.unsure(body)
    }

    /// Whether a statement is an expectation, a plan or advice: see
    /// [`PlainAudits::unsure_or_change`].
    fn unsure(&self, body: &str) -> bool {
        let lower = body.trim().to_lowercase();
        let hay = if lower.is_ascii() { &lower } else { tail(&lower, 16) };
        self.words(|p| p.unsure).any(|w| holds(hay, w))
    }

    /// The first measured result in `text`: two quantities with their
    /// units set against each other in one sentence, with a metric or a
    /// verb of a result ("p95 went from 480 ms to 130 ms", "ピーク RSS が
    /// 2.1 GB から 40 MB に", "0.912 vs 0.908 before"), that is no
    /// setting changed ("bumped the timeout from 30 s to 60 s") and no
    /// expectation ("should drop from …").
    fn find_measure(&self, text: &str) -> Option<PlainAudit> {
        let mut at = 0;
        while let Some(i) = text[at..].find(|c: char| c.is_ascii_digit()) {
            let first = at + i;
            let (start, end) =
                sentence_bounds_within(text, first, CLAUSE_WITHIN);
            let end = end.max(first);
            at = end.max(first + 1);
            let sentence = &text[start..end];
            // Two numbers, one of them measured: "340 times … now it's 1".
            let quantities = self.quantities(sentence);
            if quantities.len() < 2 || !quantities.iter().any(|q| q.measured) {
                continue;
            }
            let lower = sentence.to_lowercase();
            let compared =
                self.words(|p| p.comparisons).any(|w| holds(&lower, w));
            let measured =
                self.words(|p| p.measures).any(|w| holds(&lower, w));
            let set = self.words(|p| p.settings).any(|w| holds(&lower, w))
                || self.unsure(sentence);
            if compared && measured && !set {
                let q = &quantities[0].span;
                return Some(PlainAudit {
                    lead: sentence[q.clone()].to_string(),
                    referent: sentence[quantities[1].span.clone()].to_string(),
                    span: start + q.start..start + q.end,
                });
            }
        }
        None
    }

    /// The first try and its outcome in `text`: a sentence framed as a try
    /// the agent made, which says what it found and names a referent
    /// ("Fired 30 bad logins with `hey`: the first 10 get 401", "`hey` で
    /// 30回送ると 429 になり", "두 개를 동시에 띄웠더니 … 찍고"). A
    /// sentence that is an expectation, a plan or advice, or that says
    /// the work is unverified, is none.
    fn find_try(&self, text: &str) -> Option<PlainAudit> {
        let mut at = 0;
        while at < text.len() {
            let (start, end) = sentence_bounds_within(text, at, CLAUSE_WITHIN);
            let end = end.max(at);
            // On past the sentence's end, whichever character it is.
            let next = text[end..].chars().next().map_or(1, char::len_utf8);
            at = end + next;
            let sentence = &text[start..end];
            let lower = sentence.to_lowercase();
            // A command the agent ran is a try too: "`git grep -n X`
            // finds nothing".
            let Some(tried) = self
                .words(|p| p.tries)
                .find(|w| holds(&lower, w))
                .or_else(|| command_span(sentence))
            else {
                continue;
            };
            let found = self.words(|p| p.outcomes).any(|w| holds(&lower, w))
                || self.has_status(sentence);
            // A cause given before the try makes it what would happen:
            // "…にしたので、2回流しても問題ありません".
            let tried_at =
                lower.find(&tried.to_lowercase()).unwrap_or(lower.len());
            let reasoned = self
                .words(|p| p.reasons)
                .filter_map(|w| lower.find(w))
                .any(|i| i < tried_at);
            if is_question(&text[end..])
                || hygiene_only(sentence)
                || reasoned
                || !found
                || self.unsure(sentence)
                || self.acts.iter().any(|a| a.set.unverified(&lower))
            {
                continue;
            }
            if let Some(referent) = self.referent(sentence) {
                return Some(PlainAudit {
                    lead: tried.to_string(),
                    referent,
                    span: start..end,
                });
            }
        }
        None
    }

    /// Whether `s` names an HTTP status as a result ("both 200", "gets
    /// 403", "400이 나오고"): a whole number from 200 to 599 with no unit
    /// after it ("200 times", "400回" are counts).
    fn has_status(&self, s: &str) -> bool {
        self.quantities(s).iter().any(|q| {
            let n = &s[q.span.clone()];
            !q.measured
                && n.len() == 3
                && n.parse::<u16>().is_ok_and(|n| (200..600).contains(&n))
        })
    }

    /// The numbers in `s`, each told measured when a unit follows it or
    /// it is a decimal ("0.912", a measure by its form); a version
    /// ("1.0.210") is none.
    fn quantities(&self, s: &str) -> Vec<Quantity> {
        let b = s.as_bytes();
        let mut out = vec![];
        let mut i = 0;
        while i < b.len() {
            if !b[i].is_ascii_digit()
                || (i > 0
                    && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.'))
            {
                i += 1;
                continue;
            }
            let start = i;
            let mut dots = 0;
            while i < b.len()
                && (b[i].is_ascii_digit()
                    || (matches!(b[i], b'.' | b',')
                        && b.get(i + 1).is_some_and(u8::is_ascii_digit)))
            {
                dots += usize::from(b[i] == b'.');
                i += 1;
            }
            if dots > 1
                || b.get(i).is_some_and(|&c| {
                    c == b'.'
                        && b.get(i + 1).is_some_and(u8::is_ascii_alphanumeric)
                })
            {
                continue;
            }
            let rest = &s[i..];
            let gap = usize::from(rest.starts_with(' '));
            let rest = &rest[gap..];
            // ASCII lowercase keeps every byte where it was, so a unit's
            // length is its length in `s`.
            let rest_lower =
                rest[..floor_boundary(rest, 12)].to_ascii_lowercase();
            // The longest unit that fits: "ms" rather than "s".
            let unit = self
                .words(|p| p.units)
                .filter(|u| {
                    rest_lower.starts_with(*u)
                        && (!u.is_ascii()
                            || !rest_lower[u.len()..].starts_with(
                                |c: char| c.is_ascii_alphanumeric(),
                            ))
                })
                .max_by_key(|u| u.len());
            match unit {
                Some(u) => out.push(Quantity {
                    span: start..i + gap + u.len(),
                    measured: true,
                }),
                None => {
                    out.push(Quantity { span: start..i, measured: dots == 1 })
                }
            }
        }
        out
    }

    /// Whether the lead or marker `m` is negated: by a negation earlier in
    /// its clause, or by one it directly runs into.
    pub(crate) fn negated(&self, text: &str, m: KeywordMatch) -> bool {
        let (start, _) = sentence_bounds_within(text, m.start(), 64);
        let before = text[start..m.start()].to_ascii_lowercase();
        let negated_before = self.negations_before.iter().any(|n| {
            // "n't" ends a word ("wasn't", "couldn't"): it is glued to
            // what comes before it by nature.
            let suffix = n.starts_with("n'");
            before
                .match_indices(n)
                .any(|(i, _)| suffix || is_word_at(&before, i, n.len()))
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

    /// Whether a heading's body says there is nothing ("none", "なし").
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

    /// A specific referent in `s`, if any.
    pub(crate) fn referent(&self, s: &str) -> Option<String> {
        let words = self.referents.get();
        if let Some(m) =
            words.find_iter(s).find(|&m| word_bounded(s, words, m))
        {
            return Some(words.keyword(m).to_string());
        }
        if let Some(c) =
            s.chars().find(|c| c.is_ascii_digit() || ('０'..='９').contains(c))
        {
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
        .or_else(|| proper_name(s))
    }
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
        prev_end = w.ends_with(['.', '!', '?', '*', '#']);
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
                matches!(
                    c,
                    '\u{AC00}'..='\u{D7A3}'
                        | '\u{1100}'..='\u{11FF}'
                        | '\u{3130}'..='\u{318F}'
                )
            }),
        }
    }
}

/// The first code span of `sentence` that is a command with arguments
/// (`git grep -n 'PASSWORD='`, `curl -I localhost`), not a hygiene run.
fn command_span(sentence: &str) -> Option<&str> {
    sentence.split('`').skip(1).step_by(2).find(|span| {
        // Past the environment it sets: `NO_COLOR=1 tool status`.
        let mut words =
            span.split_whitespace().skip_while(|w| w.contains('='));
        let first = words.next().unwrap_or("");
        let tool = first.len() >= 2
            && first.bytes().all(|b| b.is_ascii_lowercase() || b == b'-');
        tool && words.next().is_some() && !hygiene_only(&format!("`{span}`"))
    })
}

/// Commands that keep code tidy rather than check what it does: a linter,
/// a formatter, a type checker, a build.
const HYGIENE: &[&str] = &[
    "lint",
    "eslint",
    "clippy",
    "fmt",
    "prettier",
    "build",
    "tsc",
    "mypy",
    "ruff",
    "black",
    "typecheck",
    "type-check",
    "format",
    "compile",
];

/// Whether the only code a sentence names is a hygiene run ("Ran `npm run
/// lint`, no warnings"): every code span holds one of [`HYGIENE`], and no
/// number stands outside them. A clean lint is no audit.
fn hygiene_only(sentence: &str) -> bool {
    let mut spans = 0;
    let mut outside = String::new();
    for (i, part) in sentence.split('`').enumerate() {
        if i % 2 == 1 {
            spans += 1;
            // Whole tokens: `format_date()` is no formatter.
            let lower = part.to_ascii_lowercase();
            let hygiene = lower
                .split(|c: char| {
                    !(c.is_ascii_alphanumeric() || c == '_' || c == '-')
                })
                .any(|t| HYGIENE.contains(&t));
            if !hygiene {
                return false;
            }
        } else {
            outside.push_str(part);
        }
    }
    spans > 0 && !outside.chars().any(|c| c.is_ascii_digit())
}

/// A number in a sentence, for the measured results.
struct Quantity {
    /// Its bytes, with its unit.
    span: std::ops::Range<usize>,
    /// Whether a unit follows it, or it is a decimal.
    measured: bool,
}

/// A short heading before a colon, at the start of its sentence or line.
struct TopicHeading<'t> {
    /// The heading's words, markup trimmed.
    words: &'t str,
    /// Their byte range in the text.
    span: std::ops::Range<usize>,
    /// Where the heading's line starts.
    line_start: usize,
}

/// The heading that ends at the colon at byte `colon`, if the words
/// before it are one: a noun phrase of at most four English words or ten
/// Japanese or Korean characters, with no code, number or verb ending,
/// that starts its sentence.
fn topic_heading(text: &str, colon: usize) -> Option<TopicHeading<'_>> {
    let (start, _) = sentence_bounds_within(text, colon, 64);
    let near = floor_boundary(text, colon.saturating_sub(REFERENT_WITHIN));
    let line_start =
        text[near..colon].rfind('\n').map_or(near, |i| near + i + 1);
    let raw = &text[start..colon];
    let words = raw
        .trim_start()
        .trim_start_matches(['#', '-', '*', '•', '・', '>', ' '])
        .trim_matches(['*', '_', ' ']);
    if words.is_empty()
        || words.chars().any(|c| {
            c.is_ascii_digit() || "`()[]{}\"'.,;、。「」=/<>".contains(c)
        })
    {
        return None;
    }
    let ok = if words.is_ascii() {
        let n = words.split_whitespace().count();
        // A past verb is an act told with a colon, which the acts judge.
        (1..=4).contains(&n)
            && !words
                .split_whitespace()
                .next()
                .is_some_and(|w| w.to_ascii_lowercase().ends_with("ed"))
    } else {
        words.chars().count() <= 10
            // A verb ending makes it a statement: "見ました：", "했습니다:".
            && !words.ends_with(['た', 'す', 'る', 'だ', 'て', '다', '요', '음'])
            && !words.contains(['を', '을', '를'])
    };
    // `words` is a slice of `text`: its offset is where it starts.
    let from = words.as_ptr() as usize - text.as_ptr() as usize;
    ok.then(|| TopicHeading {
        words,
        span: from..from + words.len(),
        line_start,
    })
}

/// The sentence after the one that ends at `end`, in the same paragraph:
/// "I compared the outputs. All 3 files are identical."
fn next_sentence(text: &str, end: usize) -> &str {
    let rest = paragraph(&text[end..]);
    let Some((i, c)) = rest.char_indices().next() else { return "" };
    let from = i + c.len_utf8();
    let (_, stop) = sentence_bounds_within(rest, from, CLAUSE_WITHIN);
    &rest[from..stop.max(from)]
}

/// Whether a heading's body says something, or lists things: a field's
/// value ("Time: 12:30", "**Branch:** `main`") is no finding.
fn is_statement(body: &str) -> bool {
    if body.trim_start_matches([' ', '\t']).starts_with('\n') {
        return true;
    }
    let s = first_sentence(body).trim();
    if s.is_ascii() {
        s.split_whitespace().count() >= 5
    } else {
        s.chars().filter(|c| !c.is_whitespace()).count() >= 12
    }
}

/// The last `n` characters of `s`.
fn tail(s: &str, n: usize) -> &str {
    let from =
        s.char_indices().rev().nth(n.saturating_sub(1)).map_or(0, |(i, _)| i);
    &s[from..]
}

/// The first sentence of `s`, or its first line when `s` opens a list.
fn first_sentence(s: &str) -> &str {
    let s = s.trim_start_matches([' ', '\t']);
    let (_, end) = sentence_bounds_within(s, 0, CLAUSE_WITHIN);
    &s[..end]
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

/// Whether byte `at` stands in a Markdown heading line (`## Testing`): a
/// heading names a section, and the leads' heading rules judge it ("##
/// Risks checked"), not the acts.
fn in_markdown_heading(text: &str, at: usize) -> bool {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..at].trim_start().starts_with('#')
}

/// Whether the sentence that ends where `rest` starts is a question.
fn is_question(rest: &str) -> bool {
    rest.trim_start_matches([' ', '"', '\'', ')', '）', '」'])
        .starts_with(['?', '？'])
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
    is_word_at(text, m.start(), m.end() - m.start())
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

/// The start of `s` up to its paragraph's end, at most
/// [`REFERENT_WITHIN`] bytes.
pub(crate) fn paragraph(s: &str) -> &str {
    let s = &s[..floor_boundary(s, REFERENT_WITHIN)];
    s.find("\n\n").map_or(s, |i| &s[..i])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn audits() -> PlainAudits {
        let tables: Vec<&LangTable> = super::super::lang::ALL.to_vec();
        PlainAudits::new(&tables, false).unwrap()
    }

    /// Every text of `yes` holds a plain-language audit; none of `no`
    /// does.
    fn assert_audits(p: &PlainAudits, yes: &[&str], no: &[&str]) {
        for t in yes {
            assert!(p.find(t).is_some(), "{t}");
        }
        for t in no {
            assert_eq!(p.find(t), None, "{t}");
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

    /// A short heading of any topic counts with a referent in its body;
    /// one that names the work, a plan or a place does not, nor does a
    /// body that is an expectation, advice or a change made.
    #[test]
    fn topic_headings() {
        let p = audits();
        let yes = [
            "Done. Old clients: they still send `v1`, which we accept.",
            "**Memory**: peak RSS is 40 MB on the 2 GB fixture.",
            "メモリ：2 GB のフィクスチャでピーク 40 MB。",
            "롤백 계획: 이 커밋을 `git revert`해도 안전합니다.",
            "Verification notes:\n- `load()` returns `None` on an empty file",
        ];
        let no = [
            "Changes:\n- Frontend: the table shows 25 rows",
            "Summary: added `page` to `ItemsQuery`.",
            "Next steps: compare the output of `export.py`.",
            "Frontend: added a `page` parameter.",
            "Memory: should drop below 100 MB.",
            "The remaining tasks are:\n- spotter-4te.4: tracing",
            "Tests: 14 passed, 0 failed.",
            "Rollback: run `git revert` if you see errors.",
            "切り戻し：`git revert` を実行してください。",
            "変更点：`page` を追加。",
            "다음 단계: `export.py` 출력 비교 예정.",
            "Time: 12:30, see https://example.com",
        ];
        assert_audits(&p, &yes, &no);
    }

    /// Two quantities set against each other, with a metric or a verb of a
    /// result, are a measurement; a setting changed, an expectation or a
    /// version bump is none.
    #[test]
    fn measured_results() {
        let p = audits();
        let yes = [
            "p95 latency went from 480 ms to 130 ms on staging.",
            "Validation F1 is 0.912 vs 0.908 before.",
            "ピーク RSS が 2.1 GB から 40 MB に減りました。",
            "최대 메모리가 2.3GB에서 95MB로 줄었습니다.",
        ];
        let no = [
            "Bumped the timeout from 30 s to 60 s.",
            "Upgraded `serde` from 1.0.200 to 1.0.210; memory should be fine.",
            "Memory should drop from 2 GB to 100 MB.",
            "Raised the pool from 10 to 50 connections.",
            "タイムアウトを 30 秒から 60 秒に設定しました。",
            "타임아웃을 30초에서 60초로 늘렸습니다.",
        ];
        assert_audits(&p, &yes, &no);
    }

    /// A try and what it found, with a referent, is an audit; advice, a
    /// request, a hedge or an unverified try is none, nor is a clean lint.
    #[test]
    fn tries_and_outcomes() {
        let p = audits();
        let yes = [
            "Started two copies at the same time: the second logged `lock held` and did nothing.",
            "`hey` で30回送ると、最初の10回は 401 になります。",
            "두 개를 동시에 띄웠더니 두 번째는 `lock held`를 찍고 끝났습니다.",
            "Checked `format_date()` on 29 Feb: it prints 2028-02-29.",
        ];
        let no = [
            "If you want to double-check, point it at a server that returns 429.",
            "お手元の iPhone で試していただけますか？",
            "When I ran `make e2e` it failed to start, so this is unverified.",
            "Done. Ran `npm run lint`, no warnings.",
            "Ran `cargo fmt --check` and `cargo build`: clean.",
            "Both tests pass.",
        ];
        assert_audits(&p, &yes, &no);
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
