//! The gates' patterns, one data table per language.
//!
//! Every phrase a gate looks for lives in these three files and nowhere
//! else, the audit markers of the seed's contract too. Their types are in
//! `table.rs`.
//!
//! Each intent is written as a small grammar rather than a flat list of
//! phrases (see [`patterns`](super::patterns)): heads and tails that pair
//! up to cover politeness levels and tenses ("どちら" … "ますか" /
//! "でしょうか" / "されますか"), phrases that count only when they open a
//! sentence, and the words that negate or contest a match. A language's
//! negation (`negation`) applies to all of its intents; an intent adds the
//! cancel words only it needs (a hedge voids a "tests pass" claim, a "but"
//! voids a concession).

pub(crate) mod en;
pub(crate) mod ja;
pub(crate) mod ko;
mod table;

pub use self::table::{GroundedTable, Intent, LangTable, PlainTable};

/// Every table, in a fixed order.
pub const ALL: &[&LangTable] = &[&ja::TABLE, &en::TABLE, &ko::TABLE];

/// The table for a language code.
pub fn table(code: &str) -> Option<&'static LangTable> {
    ALL.iter().copied().find(|t| t.code == code)
}

/// Every language's code, in the order of [`ALL`]: the list the
/// configuration accepts ([`LANGUAGES`](crate::config::LANGUAGES)), which a
/// test holds to these tables.
#[cfg(test)]
pub fn codes() -> impl Iterator<Item = &'static str> {
    ALL.iter().map(|t| t.code)
}

#[cfg(test)]
mod tests {
    use super::en::AUDIT_MARKERS_EN;
    use super::ja::AUDIT_MARKERS_JA;
    use super::ko::AUDIT_MARKERS_KO;

    #[test]
    fn the_configuration_accepts_exactly_the_languages_with_a_table() {
        let codes: Vec<&str> = super::codes().collect();
        assert_eq!(codes, crate::config::LANGUAGES);
    }

    #[test]
    fn presets_build_and_match() {
        let ja = crate::KeywordSet::new(AUDIT_MARKERS_JA).unwrap();
        assert_eq!(
            ja.matched("セルフ監査: 境界を潰した"),
            vec!["セルフ監査", "潰した"]
        );
        let en = crate::KeywordSet::builder()
            .ascii_case_insensitive(true)
            .build(AUDIT_MARKERS_EN)
            .unwrap();
        assert_eq!(
            en.matched("Self-audit done; Already robust."),
            vec!["self-audit", "already robust"]
        );
        let ko = crate::KeywordSet::new(AUDIT_MARKERS_KO).unwrap();
        assert!(ko.is_match("셀프 감사: 경계 조건 확인"));
    }
}
