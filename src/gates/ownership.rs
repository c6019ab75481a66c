//! Decision ownership: the agent gathered the facts, then handed the
//! decision back.
//!
//! It blocks when the final text defers ("which would you prefer", "up to
//! you", "どちらにしますか", "어느 쪽이 좋을까요") *and* the turn holds at
//! least `min_tool_uses` tool uses. The second condition is what keeps a
//! clarifying question asked before any work from being blocked: deferring
//! is only a fault once the agent has what it needs to decide.
//!
//! A deference inside a quotation or a code span is someone else's words:
//! a UI message the agent tested ("refused with 「別のアカウントを選んでく
//! ださい」", `"Please choose another account"`) or wrote, not a choice
//! handed back.

use super::facts::Facts;
use super::patterns::PatternSet;
use super::sentence::{in_code_span, in_quotation};

/// Whether the ownership gate fires; the deference patterns that matched.
pub fn check(
    deference: &PatternSet,
    min_tool_uses: usize,
    facts: &Facts<'_>,
) -> Option<Vec<String>> {
    if facts.tool_uses.len() < min_tool_uses.max(1) {
        return None;
    }
    let text = facts.final_text;
    let fired = deference.fired_where(text, &|span| {
        !in_quotation(text, span.start) && !in_code_span(text, span.start)
    });
    (!fired.is_empty()).then_some(fired)
}
