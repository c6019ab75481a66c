//! The team lead's view of a scan: per project and per period, with the
//! trend, and sessions labelled so a person can find them.
//!
//! The question a lead asks is "where do our agents skip audits, and is it
//! getting better?". So the rows of a scan are counted per project (the
//! folder the session ran in) and per day, or per week when the scan spans
//! more than a month, and each rate is given over the turns it can occur
//! in: audits and unverified claims over the turns that changed files,
//! deferrals and capitulations over the turns the gates judged. The table
//! and the HTML report both read these counts.

use std::collections::BTreeMap;

use stopgate::archive::{FileReport, Finding, TurnReport, UNJUDGED};

use super::health::HealthBuilder;
use super::label::{project_label, session_label};

/// How long one period of the trend is, in the report's time zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Period {
    /// A calendar day.
    Day,
    /// A week starting on Monday.
    Week,
}

impl Period {
    /// The name of a period's column.
    pub fn noun(self) -> &'static str {
        match self {
            Period::Day => "day",
            Period::Week => "week of",
        }
    }
}

/// The counts of a set of turns.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    /// How many sessions (files) the turns belong to.
    pub sessions: usize,
    /// Turns the gates judged (they ended in a Stop the agent chose).
    pub judged: usize,
    /// Judged turns that changed files, or that changes made in turns
    /// that ended in no Stop were carried to.
    pub change_turns: usize,
    /// Change turns audited with a marker.
    pub marker: usize,
    /// Change turns audited in plain language.
    pub plain: usize,
    /// Change turns audited by a check they ran after their last change
    /// and reported (a grounded audit).
    pub grounded: usize,
    /// Change turns that took the escape hatch with a reason.
    pub escape: usize,
    /// Change turns whose audit is hollow.
    pub hollow: usize,
    /// Change turns with no audit.
    pub unaudited: usize,
    /// Change turns whose audit the judge could not tell (the hook asks
    /// again): neither audited nor unaudited.
    pub uncertain: usize,
    /// Turns with each finding, in [`Finding::ALL`] order.
    pub findings: [usize; 6],
}

impl Counts {
    fn add(&mut self, turn: &TurnReport) {
        if !turn.kind.ends_in_stop() || turn.audit == UNJUDGED {
            return;
        }
        self.judged += 1;
        if turn.changed {
            self.change_turns += 1;
            match turn.audit.as_str() {
                "present" => self.marker += 1,
                "plain" => self.plain += 1,
                "grounded" => self.grounded += 1,
                "escape" => self.escape += 1,
                "absent" => self.unaudited += 1,
                "uncertain" => self.uncertain += 1,
                _ => self.hollow += 1,
            }
        }
        for (i, f) in Finding::ALL.iter().enumerate() {
            if turn.has(*f) {
                self.findings[i] += 1;
            }
        }
    }

    /// How the change turns were audited and how they were not, in report
    /// order: "audited by marker 5, in plain language 0, …, uncertain 0,
    /// hollow 2", the text and HTML summaries' words. The unaudited, which
    /// each summary styles, come after.
    pub fn audit_breakdown(&self) -> String {
        [
            ("audited by marker", self.marker),
            ("in plain language", self.plain),
            ("by a check it ran", self.grounded),
            ("by escape hatch", self.escape),
            ("uncertain", self.uncertain),
            ("hollow", self.hollow),
        ]
        .iter()
        .map(|(label, n)| format!("{label} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
    }

    /// Change turns with an audit that is not hollow.
    pub fn audited(&self) -> usize {
        self.marker + self.plain + self.grounded + self.escape
    }

    /// The share of change turns audited, in percent; `None` without any.
    pub fn audited_share(&self) -> Option<f64> {
        (self.change_turns > 0)
            .then(|| self.audited() as f64 * 100.0 / self.change_turns as f64)
    }

    /// How many turns a finding can occur in: change turns for the audit
    /// findings and unverified claims, judged turns for the others.
    pub fn denominator(&self, finding: Finding) -> usize {
        match finding {
            Finding::UnauditedChange
            | Finding::UncertainAudit
            | Finding::HollowAudit
            | Finding::UnverifiedClaim => self.change_turns,
            Finding::Deferral | Finding::Capitulation => self.judged,
        }
    }

    /// What [`Counts::denominator`] counts, for a column's caption.
    pub fn denominator_name(finding: Finding) -> &'static str {
        match finding {
            Finding::UnauditedChange
            | Finding::UncertainAudit
            | Finding::HollowAudit
            | Finding::UnverifiedClaim => "change turns",
            Finding::Deferral | Finding::Capitulation => "judged turns",
        }
    }

    /// Turns with `finding`.
    pub fn of(&self, finding: Finding) -> usize {
        let i = Finding::ALL.iter().position(|f| *f == finding).unwrap_or(0);
        self.findings[i]
    }
}

/// The turns of a scan, counted every way the report shows them.
#[derive(Debug)]
pub struct Summary {
    /// All turns.
    pub all: Counts,
    /// Per agent (`claude`, `codex`, `gemini`).
    pub by_agent: BTreeMap<&'static str, Counts>,
    /// Per project label.
    pub by_project: BTreeMap<String, Counts>,
    /// Per period start (`YYYY-MM-DD`).
    pub by_period: BTreeMap<String, Counts>,
    /// Per project, then per period start.
    pub by_project_period: BTreeMap<String, BTreeMap<String, Counts>>,
    /// The length of a period.
    pub period: Period,
    /// The earliest and latest turn timestamps seen.
    pub first: Option<jiff::Timestamp>,
    /// See `first`.
    pub last: Option<jiff::Timestamp>,
    /// The zone days and weeks are counted in (`--tz`).
    pub tz: jiff::tz::TimeZone,
    /// Whether the Stop hooks ran and held.
    pub health: HealthBuilder,
}

/// A file with findings, as the HTML report lists it: its label, and
/// only the turns with findings.
pub struct Flagged {
    /// See [`session_label`].
    pub label: String,
    /// The report, holding only the turns with findings.
    pub report: FileReport,
}

impl Flagged {
    pub fn of(mut report: FileReport) -> Option<Flagged> {
        let label = session_label(&report);
        report.turns.retain(|t| !t.findings.is_empty());
        (!report.turns.is_empty()).then_some(Flagged { label, report })
    }
}

/// The buckets of one period length: all projects, and per project.
#[derive(Debug, Default)]
struct Periods {
    all: BTreeMap<String, Counts>,
    by_project: BTreeMap<String, BTreeMap<String, Counts>>,
}

/// A [`Summary`] being counted, one file at a time, so that a scan keeps
/// counts, not turns: its memory does not grow with the number of files.
#[derive(Debug)]
pub struct SummaryBuilder {
    all: Counts,
    by_agent: BTreeMap<&'static str, Counts>,
    by_project: BTreeMap<String, Counts>,
    /// Days and weeks are both counted, since which one the report shows
    /// depends on the span, known only at the end.
    days: Periods,
    weeks: Periods,
    first: Option<jiff::Timestamp>,
    last: Option<jiff::Timestamp>,
    tz: jiff::tz::TimeZone,
    health: HealthBuilder,
}

impl SummaryBuilder {
    /// An empty summary, with days and weeks in `tz`.
    pub fn new(tz: &jiff::tz::TimeZone) -> SummaryBuilder {
        SummaryBuilder {
            all: Counts::default(),
            by_agent: BTreeMap::new(),
            by_project: BTreeMap::new(),
            days: Periods::default(),
            weeks: Periods::default(),
            first: None,
            last: None,
            tz: tz.clone(),
            health: HealthBuilder::default(),
        }
    }

    /// Count the turns of one file.
    pub fn add(&mut self, r: &FileReport) {
        self.health.add(r);
        let project = project_label(r);
        for t in &r.turns {
            self.all.add(t);
            self.by_agent.entry(r.agent.as_str()).or_default().add(t);
            self.by_project.entry(project.clone()).or_default().add(t);
            let Some(at) = stamp(t) else { continue };
            self.first = Some(self.first.map_or(at, |f| f.min(at)));
            self.last = Some(self.last.map_or(at, |l| l.max(at)));
            let date = at.to_zoned_datetime(self.tz.clone()).date();
            let monday = date
                .checked_sub(
                    jiff::Span::new()
                        .days(date.weekday().to_monday_zero_offset()),
                )
                .unwrap_or(date);
            for (periods, start) in [
                (&mut self.days, date.to_string()),
                (&mut self.weeks, monday.to_string()),
            ] {
                periods.all.entry(start.clone()).or_default().add(t);
                periods
                    .by_project
                    .entry(project.clone())
                    .or_default()
                    .entry(start)
                    .or_default()
                    .add(t);
            }
        }
        // A file with turns is one more session of its buckets.
        if !r.turns.is_empty() {
            self.all.sessions += 1;
            self.by_agent.entry(r.agent.as_str()).or_default().sessions += 1;
            self.by_project.entry(project).or_default().sessions += 1;
        }
    }

    /// The summary: per day, or per week when the turns span more than a
    /// month.
    pub fn finish(self) -> Summary {
        let span_days = match (self.first, self.last) {
            (Some(a), Some(b)) => (b.as_second() - a.as_second()) / 86_400,
            _ => 0,
        };
        let (period, periods) = if span_days > 31 {
            (Period::Week, self.weeks)
        } else {
            (Period::Day, self.days)
        };
        Summary {
            all: self.all,
            by_agent: self.by_agent,
            by_project: self.by_project,
            by_period: periods.all,
            by_project_period: periods.by_project,
            period,
            first: self.first,
            last: self.last,
            tz: self.tz,
            health: self.health,
        }
    }
}

/// When a turn started, if its transcript says.
fn stamp(t: &TurnReport) -> Option<jiff::Timestamp> {
    t.timestamp.as_deref().and_then(|s| s.parse::<jiff::Timestamp>().ok())
}

impl Summary {
    /// An instant as the report shows it: to the minute, in its zone.
    pub fn show(&self, t: jiff::Timestamp) -> String {
        t.to_zoned_datetime(self.tz.clone())
            .strftime("%Y-%m-%d %H:%M %:z")
            .to_string()
    }
}

/// A percentage for a table cell: `-` without a denominator.
pub fn percent(share: Option<f64>) -> String {
    share.map_or("-".to_string(), |p| format!("{p:.0}%"))
}

/// The trend from one period's audited share to the next, for a table
/// cell: `+12 pts`, `-5 pts`, `=`, or nothing without both.
pub fn trend(before: Option<f64>, now: Option<f64>) -> String {
    match (before, now) {
        (Some(b), Some(n)) => {
            let d = (n - b).round() as i64;
            match d {
                0 => "=".to_string(),
                d if d > 0 => format!("+{d} pts"),
                d => format!("{d} pts"),
            }
        }
        _ => String::new(),
    }
}
