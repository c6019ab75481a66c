//! The gates: pure judgments of a turn.
//!
//! A gate looks at what the agent did this turn ([`Facts`]) and what the
//! session remembers ([`SessionView`]), and answers allow or block. Gates
//! do no I/O: the hook reads the facts and applies the state changes a
//! verdict implies, `stopgate check` runs the same gates offline, and the
//! archive scanner runs them over every turn of every session. There is
//! one implementation of each gate, in its own file:
//!
//! * `audit`: files changed and the final text holds no audit, by marker
//!   or in plain language ([`AuditStatus`]);
//! * `hollow`: a marker, but a stock phrase or an unbacked claim;
//! * `ownership`: the agent gathered data, then handed the decision back;
//! * `reverify`: the agent caved to a challenge without new evidence.
//!
//! [`Gates::evaluate`] runs them in the configured order; the first block
//! wins and only one message goes out. The patterns are in one data table
//! per language, under `lang/`.

mod audit;
mod facts;
pub(crate) mod grounded;
mod hollow;
pub(crate) mod lang;
pub(crate) mod learned;
mod outcome;
mod ownership;
mod patterns;
mod plain;
mod plain_audit;
mod reverify;
mod sentence;
mod shown;

use std::borrow::Cow;

use crate::config::{Config, Gate};
use crate::error::Error;

use self::patterns::{Cancel, LazyKeywords, Pat, PatternSet};
use self::reverify::ReverifyPatterns;

use self::audit::AuditMatcher;
pub use self::audit::AuditStatus;
pub use self::facts::{judged_window, Facts, JUDGED_TAIL_BYTES};
pub use self::plain_audit::PlainAudit;

/// What the session remembers, as the gates need it.
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct SessionView<'a> {
    /// How many times this session was already prompted to audit.
    pub prompted: u32,
    /// The nags the ownership and reverify gates already sent.
    pub nags: &'a [Nag],
}

impl<'a> SessionView<'a> {
    /// A session prompted to audit `prompted` times, which the ownership
    /// and reverify gates already nagged with `nags`.
    pub fn new(prompted: u32, nags: &'a [Nag]) -> SessionView<'a> {
        SessionView { prompted, nags }
    }

    /// How many nags `gate` already sent this session.
    fn nag_count(&self, gate: Gate) -> u32 {
        let n = self.nags.iter().filter(|n| n.gate == gate).count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// Whether a nag already answered this final text.
    fn nagged(&self, text: &str) -> bool {
        let hash = text_hash(text);
        self.nags.iter().any(|n| n.hash == hash)
    }
}

/// A block the ownership or reverify gate sent: the gate, and the hash of
/// the final text it blocked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Nag {
    /// The gate that blocked.
    pub gate: Gate,
    /// The [`text_hash`] of the final text it blocked.
    pub hash: u64,
}

impl Nag {
    /// A nag by `gate` on the final text whose [`text_hash`] is `hash`.
    pub fn new(gate: Gate, hash: u64) -> Nag {
        Nag { gate, hash }
    }
}

/// A stable 64-bit hash of a final text (FNV-1a), for nag-once state.
///
/// It must not change between versions, or nags would repeat after an
/// upgrade, so it is spelled out here rather than taken from `std`.
pub fn text_hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The rule within a gate that blocked: what a block is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// Audit gate: files changed and the final text holds no audit.
    NoMarker,
    /// Audit gate: files changed and the judge cannot tell whether the
    /// final text audits them ([`AuditStatus::Uncertain`]).
    Uncertain,
    /// Hollow-audit gate: the audit says nothing specific.
    StockPhrase,
    /// Hollow-audit gate: a verification claim with nothing run after the
    /// last change.
    ClaimWithoutEvidence,
    /// Decision-ownership gate: the agent gathered data, then handed the
    /// decision back.
    Deferral,
    /// Challenge-reverify gate: the agent caved to a challenge without new
    /// evidence.
    Capitulation,
}

impl Rule {
    /// The rule's name, as reported (`no_marker`, `stock_phrase`, …).
    pub fn as_str(&self) -> &'static str {
        match self {
            Rule::NoMarker => "no_marker",
            Rule::Uncertain => "uncertain",
            Rule::StockPhrase => "stock_phrase",
            Rule::ClaimWithoutEvidence => "claim_without_evidence",
            Rule::Deferral => "deferral",
            Rule::Capitulation => "capitulation",
        }
    }

    /// The gate the rule belongs to.
    pub fn gate(&self) -> Gate {
        match self {
            Rule::NoMarker | Rule::Uncertain => Gate::Audit,
            Rule::StockPhrase | Rule::ClaimWithoutEvidence => Gate::Hollow,
            Rule::Deferral => Gate::Ownership,
            Rule::Capitulation => Gate::Reverify,
        }
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A gate's decision to block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    rule: Rule,
    message: String,
    matched: Vec<String>,
}

impl Block {
    /// The gate that blocked.
    pub fn gate(&self) -> Gate {
        self.rule.gate()
    }

    /// The rule within the gate, such as [`Rule::NoMarker`].
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The message for the agent: at most 3 lines.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The keywords and patterns that fired, so users can see why.
    pub fn matched(&self) -> &[String] {
        &self.matched
    }

    /// Whether this block comes from a gate that owns the change flag and
    /// the cap (audit, hollow), rather than a nag-once gate.
    pub fn is_audit(&self) -> bool {
        matches!(self.gate(), Gate::Audit | Gate::Hollow)
    }
}

/// The outcome of running the gates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Let the agent stop.
    Allow,
    /// Keep the agent working, with a message.
    Block(Block),
}

impl Verdict {
    /// The block, if this verdict is one.
    pub fn block(&self) -> Option<&Block> {
        match self {
            Verdict::Allow => None,
            Verdict::Block(b) => Some(b),
        }
    }
}

/// The gates, compiled from a configuration.
#[derive(Clone, Debug)]
pub struct Gates {
    order: Vec<Gate>,
    cap: u32,
    nag_caps: NagCaps,
    min_tool_uses: usize,
    min_specific: usize,
    audit: AuditMatcher,
    deference: PatternSet,
    reverify: ReverifyPatterns,
    claims: PatternSet,
    stock: LazyKeywords,
    grounding: grounded::Grounding,
    messages: Messages,
}

/// How many times a session may be nagged by each nag gate.
#[derive(Clone, Copy, Debug)]
struct NagCaps {
    ownership: u32,
    reverify: u32,
}

#[derive(Clone, Debug)]
struct Messages {
    audit: String,
    uncertain: String,
    stock_phrase: String,
    claim: String,
    ownership: String,
    reverify: String,
}

impl Gates {
    /// Compile the gates' patterns for the configured languages.
    ///
    /// # Errors
    ///
    /// When a configured keyword is empty.
    pub fn new(config: &Config) -> Result<Gates, Error> {
        Gates::build(config, false)
    }

    /// Like [`Gates::new`], but for judging many turns, as an archive scan
    /// does: each keyword set starts as cheap to build as a hook's, and
    /// builds its DFA once it has searched enough text that the DFA pays
    /// ([`KeywordSetBuilder::adaptive`](crate::KeywordSetBuilder::adaptive)).
    ///
    /// # Errors
    ///
    /// When a configured keyword is empty.
    pub fn new_for_bulk(config: &Config) -> Result<Gates, Error> {
        Gates::build(config, true)
    }

    fn build(config: &Config, dfa: bool) -> Result<Gates, Error> {
        let tables: Vec<&lang::LangTable> =
            config.languages.iter().filter_map(|c| lang::table(c)).collect();
        let set = |pick: fn(&lang::LangTable) -> &lang::Intent,
                   extra: &[String]| {
            let pats: Vec<Pat> = tables
                .iter()
                .flat_map(|t| pick(t).pats.iter().copied())
                .collect();
            let cancels: Vec<Cancel> = tables
                .iter()
                .flat_map(|t| [t.negation, pick(t).cancel])
                .collect();
            PatternSet::new(&pats, &cancels, extra, dfa)
        };
        let p = &config.patterns;
        let mut stock: Vec<Cow<'static, str>> = tables
            .iter()
            .flat_map(|t| t.stock.iter().map(|&s| Cow::Borrowed(s)))
            .collect();
        stock.extend(p.stock.iter().cloned().map(Cow::Owned));
        let stock = patterns::longest_first(stock, |s| s.len());
        let audit = AuditMatcher::build(config, dfa)?;
        let enabled = |g: Gate| config.gate_enabled(g);
        Ok(Gates {
            order: config
                .order
                .iter()
                .copied()
                .filter(|g| enabled(*g))
                .collect(),
            cap: config.audit.cap,
            nag_caps: NagCaps {
                ownership: config.ownership.cap,
                reverify: config.reverify.cap,
            },
            min_tool_uses: config.ownership.min_tool_uses,
            min_specific: config.hollow.min_specific,
            audit,
            deference: set(|t| &t.deference, &p.deference)?,
            reverify: ReverifyPatterns {
                challenge: set(|t| &t.challenge, &p.challenge)?,
                capitulation: set(|t| &t.capitulation, &p.capitulation)?,
                verification: set(|t| &t.verification, &p.verification)?,
                admission: set(|t| &t.admission, &[])?,
                agreement: LazyKeywords::overlapping(
                    tables
                        .iter()
                        .flat_map(|t| {
                            t.agreement.iter().map(|&w| Cow::Borrowed(w))
                        })
                        .collect(),
                    dfa,
                )?,
                contest: LazyKeywords::overlapping(
                    tables
                        .iter()
                        .flat_map(|t| {
                            t.contest.iter().map(|&w| Cow::Borrowed(w))
                        })
                        .collect(),
                    dfa,
                )?,
            },
            claims: set(|t| &t.claims, &p.claims)?,
            stock: LazyKeywords::new(stock, dfa)?,
            grounding: grounded::Grounding::new(&tables, dfa)?,
            messages: Messages {
                audit: config.audit.message.clone(),
                uncertain: config.audit.message_uncertain.clone(),
                stock_phrase: config.hollow.message_stock_phrase.clone(),
                claim: config.hollow.message_claim_without_evidence.clone(),
                ownership: config.ownership.message.clone(),
                reverify: config.reverify.message.clone(),
            },
        })
    }

    /// Whether the audit gates may still prompt this session.
    pub fn under_cap(&self, session: &SessionView<'_>) -> bool {
        session.prompted < self.cap
    }

    /// Whether `gate` may block at all: its cap is not 0.
    pub(crate) fn may_block(&self, gate: Gate) -> bool {
        match gate {
            Gate::Audit | Gate::Hollow => self.cap > 0,
            Gate::Ownership => self.nag_caps.ownership > 0,
            Gate::Reverify => self.nag_caps.reverify > 0,
        }
    }

    /// Run the enabled gates in order; the first block wins.
    ///
    /// The audit and hollow gates run only when files changed and the
    /// session is under its cap. The ownership and reverify gates are
    /// bounded the same way: each blocks at most its own cap's times a
    /// session, never twice on an identical final text (its [`text_hash`]
    /// is in `session.nags`), and never while the client is already
    /// continuing because a Stop hook blocked this turn
    /// (`stop_hook_active`).
    pub fn evaluate(
        &self,
        facts: &Facts<'_>,
        session: &SessionView<'_>,
    ) -> Verdict {
        if facts.final_text.trim().is_empty() {
            return Verdict::Allow;
        }
        let nag_may_block =
            !facts.stop_hook_active && !session.nagged(facts.final_text);
        let audit_applies = self.under_cap(session);
        let mut audit_status = None;
        for &gate in &self.order {
            let applies = match gate {
                Gate::Ownership => {
                    nag_may_block
                        && session.nag_count(gate) < self.nag_caps.ownership
                }
                Gate::Reverify => {
                    nag_may_block
                        && session.nag_count(gate) < self.nag_caps.reverify
                }
                Gate::Audit | Gate::Hollow => audit_applies,
            };
            if !applies {
                continue;
            }
            if let Some(block) = self.check(gate, facts, &mut audit_status) {
                return Verdict::Block(block);
            }
        }
        Verdict::Allow
    }

    /// Every block each enabled gate would give the turn, in the configured
    /// order, ignoring the cap and nag-once: what `stopgate scan` reports.
    /// The hook's verdict on the same facts, under its cap and with
    /// nothing nagged, is the first of them.
    pub fn findings(&self, facts: &Facts<'_>) -> Vec<Block> {
        self.findings_sharing(facts, &mut None)
    }

    /// [`Gates::findings`], leaving in `audit_status` the audit matcher's
    /// answer on the final text when a gate asked for it, so that a
    /// caller who also reports it does not match the text twice.
    pub(crate) fn findings_sharing(
        &self,
        facts: &Facts<'_>,
        audit_status: &mut Option<AuditStatus>,
    ) -> Vec<Block> {
        if facts.final_text.trim().is_empty() {
            return vec![];
        }
        self.order
            .iter()
            .filter_map(|&gate| self.check(gate, facts, audit_status))
            .collect()
    }

    /// One gate's block, if it blocks. `audit_status` caches the audit
    /// matcher's answer, which the audit and hollow gates share.
    fn check(
        &self,
        gate: Gate,
        facts: &Facts<'_>,
        audit_status: &mut Option<AuditStatus>,
    ) -> Option<Block> {
        let block = |rule: Rule, message: &str, matched| Block {
            rule,
            message: message.to_string(),
            matched,
        };
        match gate {
            Gate::Ownership => {
                ownership::check(&self.deference, self.min_tool_uses, facts)
                    .map(|m| {
                        block(Rule::Deferral, &self.messages.ownership, m)
                    })
            }
            Gate::Reverify => {
                reverify::check(&self.reverify, facts).map(|m| {
                    block(Rule::Capitulation, &self.messages.reverify, m)
                })
            }
            Gate::Audit if facts.changed => {
                match audit_status
                    .get_or_insert_with(|| self.audit_status_of(facts))
                {
                    // A claim of a check that nothing backs, or a stock
                    // self-check, presents itself as an audit: the hollow
                    // gate names it.
                    status @ (AuditStatus::Absent
                    | AuditStatus::Uncertain(_))
                        if self.hollow_names(status, facts) =>
                    {
                        None
                    }
                    AuditStatus::Absent => Some(block(
                        Rule::NoMarker,
                        &self.messages.audit,
                        vec![],
                    )),
                    AuditStatus::Uncertain(plain) => Some(block(
                        Rule::Uncertain,
                        &self.messages.uncertain,
                        vec![plain.lead().to_string()]
                            .into_iter()
                            .filter(|l| !l.is_empty())
                            .collect(),
                    )),
                    _ => None,
                }
            }
            Gate::Hollow if facts.changed => {
                let status = audit_status
                    .get_or_insert_with(|| self.audit_status_of(facts));
                let (rule, m) = self.hollow_rule(status, facts)?;
                let message = match rule {
                    Rule::StockPhrase => &self.messages.stock_phrase,
                    _ => &self.messages.claim,
                };
                Some(block(rule, message, m))
            }
            Gate::Audit | Gate::Hollow => None,
        }
    }

    /// The audit matcher's answer for a text: a marker, the escape hatch,
    /// or neither.
    pub fn audit_status(&self, text: &str) -> AuditStatus {
        self.audit.status(text)
    }

    /// The audit status of a turn: that of its final text
    /// ([`Gates::audit_status`]), or, when the text holds no audit or one
    /// the judge doubts, a [grounded](AuditStatus::Grounded) one if the
    /// turn changed files, then ran a check, and the text tells what came
    /// of it. A doubted audit of a turn that ran a test, a build, a linter,
    /// a search or a request after its last change is no longer in doubt.
    ///
    /// # Example
    ///
    /// ```
    /// use stopgate::config::Config;
    /// use stopgate::judge::{AuditStatus, Facts, Gates};
    /// use stopgate::read::ToolCall;
    ///
    /// let gates = Gates::new(&Config::default()).unwrap();
    /// let uses = [
    ///     ToolCall::new(Some("a"), "Edit", None, 0, 0),
    ///     ToolCall::new(Some("b"), "Bash", Some("mypy app"), 0, 1),
    /// ];
    /// let text = "Added type hints to `crud/users.py`. `mypy app` reports 0 errors.";
    /// let facts = Facts::new(text).with_tool_uses(&uses).with_changed(true);
    /// assert!(matches!(
    ///     gates.audit_status_of(&facts),
    ///     AuditStatus::Grounded { .. }
    /// ));
    /// // The same words with nothing run after the edit: no audit.
    /// let facts = facts.with_tool_uses(&uses[..1]);
    /// assert_eq!(gates.audit_status_of(&facts), AuditStatus::Absent);
    /// ```
    pub fn audit_status_of(&self, facts: &Facts<'_>) -> AuditStatus {
        let status = self.audit.status(facts.final_text);
        let settled =
            !matches!(status, AuditStatus::Absent | AuditStatus::Uncertain(_));
        if settled || !facts.changed {
            return status;
        }
        let checks = grounded::ran_after_change(
            facts.tool_uses,
            facts.last_change,
            facts.changed,
        );
        match (self.grounding.report(facts.final_text, &checks), status) {
            (Some(r), _) => AuditStatus::Grounded {
                command: r.check.command().to_string(),
                sentence: r.sentence,
            },
            // A check told outright that the model doubts is one when the
            // turn ran a check of a named kind (tests, a build, a linter, a
            // search, a request) after its last change: the run settles it.
            (None, AuditStatus::Uncertain(plain))
                if checks.iter().any(grounded::RanCheck::is_named_kind) =>
            {
                AuditStatus::Plain(plain)
            }
            (None, status) => status,
        }
    }

    /// The sentence of the final text that reports a check the turn ran
    /// after its last change, with that check.
    fn grounded_report(&self, facts: &Facts<'_>) -> Option<grounded::Report> {
        let checks = grounded::ran_after_change(
            facts.tool_uses,
            facts.last_change,
            facts.changed,
        );
        self.grounding.report(facts.final_text, &checks)
    }

    /// Whether the hollow gate is on and would name a hollow audit in the
    /// text: a claim of a check that nothing after the turn's last change
    /// backs, or a stock self-check.
    fn hollow_names(&self, status: &AuditStatus, facts: &Facts<'_>) -> bool {
        self.order.contains(&Gate::Hollow)
            && self.hollow_rule(status, facts).is_some()
    }

    /// The hollow audit of a text with no other audit: an unbacked claim,
    /// or a self-check told only in stock words.
    fn hollow_in_absent(
        &self,
        facts: &Facts<'_>,
    ) -> Option<(Rule, Vec<String>)> {
        if let Some(claims) = hollow::unverified_claim(
            &self.claims,
            Some(&self.grounding),
            facts,
        ) {
            return Some((Rule::ClaimWithoutEvidence, claims));
        }
        self.stock_self_check(facts.final_text, true)
            .map(|phrase| (Rule::StockPhrase, vec![phrase]))
    }

    /// A self-check in `text` that says nothing else, with its stock
    /// phrase: a clause that leads with one and holds a stock phrase
    /// ("Self-check: done", "セルフチェック済み、特に気になる点なし",
    /// "Quick self-review: all good, nothing concerning turned up").
    ///
    /// What else the clause may say depends on whether another audit
    /// stands beside it. With none (`alone`), anything but a specific: a
    /// long stock phrase, or a clause that weighs less than
    /// `min_specific` without its lead and stock words, or names nothing
    /// specific ("checked in the browser, renders identical"; not "Risk
    /// review: reminders live in encrypted storage, so it listens to
    /// `BOOT_COMPLETED`", whose "it" is a stock word too). Beside an audit
    /// the learned model read, little: a long stock phrase (not a
    /// particle or a filler word: "は", "the") in a clause that weighs
    /// little without it, or that names nothing specific and heads
    /// nothing ("画面で複数形を確認しました:" heads the table under it).
    fn stock_self_check(&self, text: &str, alone: bool) -> Option<String> {
        let stock = self.stock.get();
        self.grounding
            .stock_checks(text, stock)
            .find(|(phrase, left)| {
                let long = hollow::weight(phrase) >= 6;
                let light =
                    hollow::weighs_less(stock, left, self.min_specific);
                // A clause that ends in a colon heads what follows it (a
                // table of what was checked), where its specifics are.
                let heads = left.trim_end().ends_with([':', '：']);
                let unnamed = !self.audit.has_referent(left);
                if alone {
                    long || light || unnamed
                } else {
                    long && (light || unnamed && !heads)
                }
            })
            .map(|(phrase, _)| phrase)
    }

    /// The hollow rule that fires for a present marker, and what matched.
    fn hollow_rule(
        &self,
        status: &AuditStatus,
        facts: &Facts<'_>,
    ) -> Option<(Rule, Vec<String>)> {
        // An audit that reports a check the turn ran is not hollow,
        // however stock its other words ("ok", "no issues").
        if matches!(
            status,
            AuditStatus::Present(_)
                | AuditStatus::Plain(_)
                | AuditStatus::Uncertain(_)
        ) && self.grounded_report(facts).is_some()
        {
            return None;
        }
        let stock = match status {
            AuditStatus::Present(markers) => hollow::is_stock_phrase(
                self.audit.markers(),
                self.stock.get(),
                &|s| self.audit.has_referent(s),
                self.min_specific,
                facts.final_text,
            )
            .then(|| markers.clone()),
            AuditStatus::Plain(plain) | AuditStatus::Uncertain(plain) => {
                hollow::plain_is_stock(
                    self.stock.get(),
                    self.min_specific,
                    facts.final_text,
                    plain,
                )
                .then(|| {
                    if plain.is_learned() {
                        vec!["plain-language audit".to_string()]
                    } else {
                        vec![plain.lead.clone()]
                    }
                })
                // An audit only the learned model reads may be a stock
                // self-check ("Self-check: no issues found"): the grammar
                // found no lead to weigh.
                .or_else(|| {
                    plain
                        .is_learned()
                        .then(|| {
                            self.stock_self_check(facts.final_text, false)
                        })
                        .flatten()
                        .map(|phrase| vec![phrase])
                })
            }
            // No other audit, but a claim or a stock self-check: a hollow
            // one.
            AuditStatus::Absent => {
                return self.hollow_in_absent(facts);
            }
            AuditStatus::Escape(_) | AuditStatus::Grounded { .. } => {
                return None
            }
        };
        if let Some(matched) = stock {
            return Some((Rule::StockPhrase, matched));
        }
        hollow::unverified_claim(&self.claims, Some(&self.grounding), facts)
            .map(|claims| (Rule::ClaimWithoutEvidence, claims))
    }

    /// The keywords and patterns that fire anywhere in a turn, labelled by
    /// category, so a user can see why a verdict came out as it did.
    pub fn matched(&self, facts: &Facts<'_>) -> Vec<String> {
        let mut out = vec![];
        let text = facts.final_text;
        out.extend(
            self.audit
                .markers()
                .matched(text)
                .into_iter()
                .map(|k| format!("marker:{k}")),
        );
        if let AuditStatus::Escape(h) = self.audit.status(text) {
            out.push(format!("escape:{h}"));
        }
        out.extend(
            self.deference
                .fired(text)
                .into_iter()
                .map(|k| format!("deference:{k}")),
        );
        let caved = self.reverify.capitulation.fired(text);
        let reverify = reverify::check(&self.reverify, facts);
        // The prompt's words matter only to a concession: listed alone,
        // they read as words of the final text.
        if let (Some(prompt), true) =
            (facts.prompt, reverify.is_some() || !caved.is_empty())
        {
            out.extend(
                self.reverify
                    .challenge
                    .fired(prompt)
                    .into_iter()
                    .map(|k| format!("challenge:{k}")),
            );
        }
        out.extend(caved.into_iter().map(|k| format!("capitulation:{k}")));
        // A concession the gate read off the reply's opening word.
        out.extend(
            reverify
                .into_iter()
                .flatten()
                .filter(|w| w.starts_with("opens agreeing"))
                .map(|w| format!("capitulation:{w}")),
        );
        out.extend(
            self.reverify
                .verification
                .fired(text)
                .into_iter()
                .map(|k| format!("verification:{k}")),
        );
        out.extend(
            self.claims.fired(text).into_iter().map(|k| format!("claim:{k}")),
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_is_the_tail() {
        let short = "a".repeat(JUDGED_TAIL_BYTES);
        assert_eq!(judged_window(&short).len(), short.len());
        // A cut inside a character moves on to the next one.
        let long = format!("x{}", "é".repeat(JUDGED_TAIL_BYTES / 2));
        let w = judged_window(&long);
        assert_eq!(w.len(), JUDGED_TAIL_BYTES);
        assert!(w.chars().all(|c| c == 'é'));
        let odd = format!("xx{}", "日".repeat(JUDGED_TAIL_BYTES / 3));
        assert!(judged_window(&odd).len() > JUDGED_TAIL_BYTES - 3);
        // Padding is no way to hide the text before it.
        let padded = format!("Done.{}", " ".repeat(2 * JUDGED_TAIL_BYTES));
        assert_eq!(judged_window(&padded), "Done.");
    }

    /// A 40 MB final text took 1.7 s to judge (release): the gates read
    /// its tail, where an audit is, and nothing else.
    #[test]
    fn a_huge_final_text_is_judged_by_its_tail() {
        let gates = Gates::new(&Config::default()).unwrap();
        let body = "The change touches the parser and the writer. "
            .repeat(40_000_000 / 46);
        let audited = format!(
            "{body}\n\nSelf-audit: the lock in src/a.rs:12 is released on \
             every error path; tests/lock.rs covers it."
        );
        let unaudited = format!("Self-audit: see below.\n\n{body}\nDone.");
        let session = SessionView::default();
        let started = std::time::Instant::now();
        let facts = Facts::new(&audited).with_changed(true);
        assert!(facts.final_text().len() <= JUDGED_TAIL_BYTES);
        assert_eq!(gates.evaluate(&facts, &session), Verdict::Allow);
        let facts = Facts::new(&unaudited).with_changed(true);
        let verdict = gates.evaluate(&facts, &session);
        assert_eq!(verdict.block().map(|b| b.rule()), Some(Rule::NoMarker));
        let took = started.elapsed();
        assert!(took < std::time::Duration::from_millis(500), "{took:?}");
    }
}
