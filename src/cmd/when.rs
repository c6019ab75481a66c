//! `--since` and `--until`: a date, a timestamp, or a span back from now.
//!
//! A team lead types whatever is at hand: a date (`2026-03-20`), the
//! RFC 3339 timestamp `scan` itself prints (`2026-03-20T10:00:11.000Z`), a
//! local time (`2026-03-20T09:30`), or "the last week" (`7d`). Dates and
//! local times are read in `--tz` (the system's zone by default), and a
//! date given to `--until` means the whole of that day.

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{Span, Timestamp, ToSpan};

/// A point in time as typed, before the zone is known.
#[derive(Clone, Debug)]
pub enum When {
    /// A calendar date.
    Date(Date),
    /// A date and time with no offset: read in the zone.
    Local(DateTime),
    /// An instant (RFC 3339, with `Z` or an offset).
    Instant(Timestamp),
    /// A span back from now.
    Ago(Span),
}

/// Which edge of the range a [`When`] gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge {
    /// `--since`: a date starts at its first instant.
    Since,
    /// `--until`: a date ends at its last instant.
    Until,
}

/// What a value may look like, for the error message.
const FORMS: &str = "a date (2026-03-20), an RFC 3339 timestamp \
                     (2026-03-20T10:00:00Z), a local time (2026-03-20T09:30) \
                     or a span back from now (30m, 12h, 7d, 2w)";

/// Parse a `--since` or `--until` value (a clap value parser).
///
/// # Errors
///
/// When `s` is none of the forms in [`FORMS`].
pub fn parse(s: &str) -> Result<When, String> {
    let s = s.trim();
    if let Some(span) = parse_ago(s) {
        return Ok(When::Ago(span));
    }
    if let Ok(t) = s.parse::<Timestamp>() {
        return Ok(When::Instant(t));
    }
    if let Ok(d) = s.parse::<Date>() {
        if !s.contains(['T', 't', ' ']) {
            return Ok(When::Date(d));
        }
    }
    if let Ok(dt) = s.parse::<DateTime>() {
        return Ok(When::Local(dt));
    }
    Err(format!("{s:?} is not {FORMS}"))
}

/// `30m`, `12h`, `7d`, `2w`: a number and a unit.
fn parse_ago(s: &str) -> Option<Span> {
    let unit = s.chars().last()?;
    let n: i64 = s[..s.len() - unit.len_utf8()].parse().ok()?;
    if n < 0 {
        return None;
    }
    let span = Span::new();
    match unit {
        'm' => span.try_minutes(n).ok(),
        'h' => span.try_hours(n).ok(),
        'd' => span.try_days(n).ok(),
        'w' => span.try_weeks(n).ok(),
        _ => None,
    }
}

/// Parse `--tz`: an IANA name (`Asia/Tokyo`), `UTC`, or `local`.
///
/// # Errors
///
/// When the zone is unknown on this machine.
pub fn parse_tz(s: &str) -> Result<TimeZone, String> {
    match s {
        "local" => Ok(TimeZone::system()),
        "UTC" | "utc" | "Z" => Ok(TimeZone::UTC),
        name => TimeZone::get(name).map_err(|e| {
            format!("{name:?} is not a time zone known here ({e}); try UTC, local or an IANA name such as Asia/Tokyo")
        }),
    }
}

/// The instant `when` names as the `edge` of a range, in `tz`, with `now`
/// for spans.
///
/// # Errors
///
/// When the instant is out of range.
pub fn resolve(
    when: &When,
    edge: Edge,
    tz: &TimeZone,
    now: Timestamp,
) -> Result<Timestamp, String> {
    let err = |e: jiff::Error| e.to_string();
    match when {
        When::Instant(t) => Ok(*t),
        When::Local(dt) => tz.to_timestamp(*dt).map_err(err),
        When::Date(d) => {
            let start = d.to_zoned_datetime(tz.clone()).map_err(err)?;
            match edge {
                Edge::Since => Ok(start.timestamp()),
                Edge::Until => {
                    let next = start.tomorrow().map_err(err)?;
                    Ok(next.timestamp() - 1.nanosecond())
                }
            }
        }
        When::Ago(span) => Ok(now
            .to_zoned_datetime(tz.clone())
            .checked_sub(*span)
            .map_err(err)?
            .timestamp()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every form, read in Asia/Tokyo (UTC+9, no daylight saving) and in
    /// UTC, as both edges.
    #[test]
    fn forms_table() {
        let now: Timestamp = "2026-12-01T12:00:00Z".parse().unwrap();
        let tokyo = TimeZone::get("Asia/Tokyo").unwrap();
        let utc = TimeZone::UTC;
        #[rustfmt::skip]
        let table: &[(&str, Edge, &TimeZone, &str)] = &[
            ("2026-03-20", Edge::Since, &utc, "2026-03-20T00:00:00Z"),
            ("2026-03-20", Edge::Until, &utc, "2026-03-20T23:59:59.999999999Z"),
            ("2026-03-20", Edge::Since, &tokyo, "2026-03-19T15:00:00Z"),
            ("2026-03-20", Edge::Until, &tokyo, "2026-03-20T14:59:59.999999999Z"),
            ("2026-03-20T10:00:11.000Z", Edge::Since, &tokyo, "2026-03-20T10:00:11Z"),
            ("2026-03-20T10:00:00+09:00", Edge::Until, &utc, "2026-03-20T01:00:00Z"),
            ("2026-03-20T09:30", Edge::Since, &tokyo, "2026-03-20T00:30:00Z"),
            ("2026-03-20 09:30:00", Edge::Since, &utc, "2026-03-20T09:30:00Z"),
            ("7d", Edge::Since, &utc, "2026-11-24T12:00:00Z"),
            ("12h", Edge::Since, &utc, "2026-12-01T00:00:00Z"),
            ("30m", Edge::Until, &utc, "2026-12-01T11:30:00Z"),
            ("2w", Edge::Since, &tokyo, "2026-11-17T12:00:00Z"),
        ];
        for &(input, edge, tz, want) in table {
            let when = parse(input).unwrap();
            let got = resolve(&when, edge, tz, now).unwrap();
            assert_eq!(
                got,
                want.parse::<Timestamp>().unwrap(),
                "{input} {edge:?}"
            );
        }
    }

    #[test]
    fn bad_forms_are_one_line_errors() {
        for bad in ["", "yesterday", "2026-13-01", "7x", "-3d", "2026/03/20"] {
            let e = parse(bad).unwrap_err();
            assert!(
                e.contains("is not a date") && !e.contains('\n'),
                "{bad}: {e}"
            );
        }
        assert!(parse_tz("Mars/Olympus").is_err());
        assert!(parse_tz("UTC").is_ok() && parse_tz("local").is_ok());
    }
}
