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

use super::facts::Facts;
use super::patterns::{LazyKeywords, PatternSet};
use super::sentence::{in_quotation, is_word_at};

/// The patterns the reverify gate uses.
#[derive(Clone, Debug)]
pub struct ReverifyPatterns {
    /// Challenges, matched in the prompt.
    pub challenge: PatternSet,
    /// Capitulations, matched in the final text.
    pub capitulation: PatternSet,
    /// Verification words, matched in the final text.
    pub verification: PatternSet,
    /// Admissions of an error, matched in the final text.
    pub admission: PatternSet,
    /// Words that open an agreeing reply.
    pub agreement: LazyKeywords,
    /// Words that contest.
    pub contest: LazyKeywords,
}

/// Whether the reverify gate fires; the challenge and capitulation
/// patterns that matched.
pub fn check(p: &ReverifyPatterns, facts: &Facts<'_>) -> Option<Vec<String>> {
    let prompt = facts.prompt?;
    if !facts.tool_uses.is_empty() {
        return None;
    }
    let text = facts.final_text;
    // A challenge quoted is someone else's words (a log line 「そんなはずは
    // ない: state=CLOSED」 the user asks about).
    let challenge = p
        .challenge
        .fired_where(prompt, &|span| !in_quotation(prompt, span.start));
    let admission = p.admission.fired(text);
    if challenge.is_empty() && admission.is_empty() {
        return None;
    }
    let mut conceded = p.capitulation.fired(text);
    conceded.extend(admission);
    // "Yes" answers a question ("…って言ってなかった？" / "はい、…"); it
    // concedes only a statement.
    if conceded.is_empty() && !challenge.is_empty() && !asks(prompt) {
        conceded.extend(p.agreeing_opener(text));
    }
    // A check quoted is no check made ("前回「テストが通ることを確認しま
    // した」とお伝えしましたが、それは誤りでした").
    let verified = !p
        .verification
        .fired_where(text, &|span| !in_quotation(text, span.start))
        .is_empty();
    if conceded.is_empty() || verified {
        return None;
    }
    Some(challenge.into_iter().chain(conceded).collect())
}

/// Whether `prompt` ends in a question mark.
fn asks(prompt: &str) -> bool {
    prompt.trim_end().ends_with(['?', '？'])
}

impl ReverifyPatterns {
    /// The agreement word that opens `text`, when the text contests
    /// nothing: "yep, readlines() does that", "了解、見積もりが甘かった".
    fn agreeing_opener(&self, text: &str) -> Option<String> {
        // Markdown emphasis or a heading mark may open the reply
        // ("**Correct — …**").
        let text = text.trim_start_matches(|c: char| {
            c.is_whitespace() || matches!(c, '*' | '_' | '#' | '>')
        });
        let lower = text.to_lowercase();
        let opener = self
            .agreement
            .get()
            .find_overlapping(&lower)
            .into_iter()
            .find(|m| m.start() == 0 && is_word_at(&lower, 0, m.end()))?;
        let contested =
            !self.contest.get().find_overlapping(&lower).is_empty();
        (!contested)
            .then(|| format!("opens agreeing: {}", &lower[..opener.end()]))
    }
}
