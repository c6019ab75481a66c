//! The gates: pure judgments of a turn.
//!
//! A gate looks at what the agent did this turn ([`Facts`]) and what the
//! session remembers ([`SessionView`]), and answers allow or block. Gates
//! do no I/O: the hook reads the facts and applies the state changes a
//! verdict implies, `stopgate check` runs the same gates offline, and the
//! archive scanner runs them over every turn of every session. There is
//! one implementation of each gate, here.
//!
//! [`Gates::evaluate`] runs them in the configured order; the first block
//! wins and only one message goes out.

mod audit;

use crate::config::{Config, GateName};
use crate::error::Error;
use crate::transcript::ToolCall;

pub use self::audit::{AuditMatcher, AuditStatus};

/// What the gates judge: one turn, as the hook or a scan sees it.
#[derive(Clone, Copy, Debug)]
pub struct Facts<'a> {
    /// The final assistant text of the turn; empty when unknown.
    pub final_text: &'a str,
    /// The turn's prompt, when known.
    pub prompt: Option<&'a str>,
    /// The main chain's tool uses this turn, in order.
    pub tool_uses: &'a [ToolCall],
    /// Whether files changed this turn.
    pub changed: bool,
    /// Whether Claude Code is already continuing because of a Stop hook.
    pub stop_hook_active: bool,
}

/// What the session remembers, as the gates need it.
#[derive(Clone, Copy, Debug, Default)]
pub struct SessionView {
    /// How many times this session was already prompted to audit.
    pub prompted: u32,
}

/// A gate's decision to block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    gate: GateName,
    rule: &'static str,
    message: String,
    matched: Vec<String>,
}

impl Block {
    /// The gate that blocked.
    pub fn gate(&self) -> GateName {
        self.gate
    }

    /// The rule within the gate, such as `no_marker`.
    pub fn rule(&self) -> &'static str {
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
    order: Vec<GateName>,
    audit_enabled: bool,
    cap: u32,
    audit: AuditMatcher,
    audit_message: String,
}

impl Gates {
    /// Compile the gates' patterns.
    ///
    /// # Errors
    ///
    /// When a configured keyword is empty.
    pub fn new(config: &Config) -> Result<Gates, Error> {
        Ok(Gates {
            order: config.order.clone(),
            audit_enabled: config.gate_enabled(GateName::Audit),
            cap: config.audit.cap,
            audit: AuditMatcher::new(config)?,
            audit_message: config.audit.message.clone(),
        })
    }

    /// The audit-marker matcher, for reports.
    pub fn audit_matcher(&self) -> &AuditMatcher {
        &self.audit
    }

    /// Whether the audit gate may still prompt this session.
    pub fn under_cap(&self, session: &SessionView) -> bool {
        session.prompted < self.cap
    }

    /// Run the gates in order; the first block wins.
    pub fn evaluate(
        &self,
        facts: &Facts<'_>,
        session: &SessionView,
    ) -> Verdict {
        for gate in &self.order {
            let verdict = match gate {
                GateName::Audit if self.audit_enabled => {
                    self.audit_gate(facts, session)
                }
                _ => Verdict::Allow,
            };
            if let Verdict::Block(_) = verdict {
                return verdict;
            }
        }
        Verdict::Allow
    }

    /// The audit gate: files changed, and the final text holds no marker.
    fn audit_gate(&self, facts: &Facts<'_>, session: &SessionView) -> Verdict {
        if !facts.changed
            || !self.under_cap(session)
            || facts.final_text.trim().is_empty()
        {
            return Verdict::Allow;
        }
        match self.audit.status(facts.final_text) {
            AuditStatus::Absent => Verdict::Block(Block {
                gate: GateName::Audit,
                rule: "no_marker",
                message: self.audit_message.clone(),
                matched: vec![],
            }),
            AuditStatus::Present(_) | AuditStatus::Escape(_) => Verdict::Allow,
        }
    }
}
