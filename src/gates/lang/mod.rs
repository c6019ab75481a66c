//! The gates' patterns, one data table per language.
//!
//! Every phrase a gate looks for lives in these three files and nowhere
//! else. Audit markers are in [`crate::keywords`], because the scanner core
//! ships them as `KeywordSet` presets.

use super::patterns::Pat;

mod en;
mod ja;
mod ko;

/// The patterns of one language.
#[derive(Debug)]
pub struct LangTable {
    /// The language's code: `ja`, `en` or `ko`.
    pub code: &'static str,
    /// Decision ownership: the final text hands the decision back.
    pub deference: &'static [Pat],
    /// Challenge reverify: the user's prompt disputes the agent.
    pub challenge: &'static [Pat],
    /// Challenge reverify: the final text concedes.
    pub capitulation: &'static [Pat],
    /// Challenge reverify: the final text cites evidence.
    pub verification: &'static [Pat],
    /// Hollow audit: the final text claims it verified the change.
    pub claims: &'static [Pat],
    /// Hollow audit: stock words that carry no specifics.
    pub stock: &'static [&'static str],
}

/// Every table, in a fixed order.
pub const ALL: &[&LangTable] = &[&ja::TABLE, &en::TABLE, &ko::TABLE];

/// The table for a language code.
pub fn table(code: &str) -> Option<&'static LangTable> {
    ALL.iter().copied().find(|t| t.code == code)
}
