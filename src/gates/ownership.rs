//! Decision ownership: the agent gathered the facts, then handed the
//! decision back.
//!
//! It blocks when the final text defers ("which would you prefer", "up to
//! you", "どちらにしますか", "어느 쪽이 좋을까요") *and* the turn holds at
//! least `min_tool_uses` tool uses. The second condition is what keeps a
//! clarifying question asked before any work from being blocked: deferring
//! is only a fault once the agent has what it needs to decide.

use super::patterns::PatternSet;
use super::Facts;

/// Whether the ownership gate fires; the deference patterns that matched.
pub fn check(
    deference: &PatternSet,
    min_tool_uses: usize,
    facts: &Facts<'_>,
) -> Option<Vec<String>> {
    if facts.tool_uses.len() < min_tool_uses.max(1) {
        return None;
    }
    let fired = deference.fired(facts.final_text);
    (!fired.is_empty()).then_some(fired)
}
