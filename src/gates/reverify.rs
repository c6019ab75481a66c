//! Challenge reverify: the agent caved to a challenge without new
//! evidence.
//!
//! All three must hold: the user's prompt challenges ("that's wrong",
//! "違う", "틀렸"), the final text capitulates ("you're right",
//! "おっしゃる通り", "맞네요"), and there is no verification evidence, that
//! is, no verification words in the final text and no tool use in the turn.
//!
//! The third seed's shell code blocks when the verification words *are*
//! present, which contradicts its own text; stopgate follows the text.

use super::patterns::PatternSet;
use super::Facts;

/// The patterns the reverify gate uses.
#[derive(Clone, Debug)]
pub struct ReverifyPatterns {
    /// Challenges, matched in the prompt.
    pub challenge: PatternSet,
    /// Capitulations, matched in the final text.
    pub capitulation: PatternSet,
    /// Verification words, matched in the final text.
    pub verification: PatternSet,
}

/// Whether the reverify gate fires; the challenge and capitulation
/// patterns that matched.
pub fn check(p: &ReverifyPatterns, facts: &Facts<'_>) -> Option<Vec<String>> {
    let prompt = facts.prompt?;
    if !facts.tool_uses.is_empty() {
        return None;
    }
    let challenge = p.challenge.fired(prompt);
    if challenge.is_empty() {
        return None;
    }
    let capitulation = p.capitulation.fired(facts.final_text);
    if capitulation.is_empty() || p.verification.is_match(facts.final_text) {
        return None;
    }
    Some(challenge.into_iter().chain(capitulation).collect())
}
