//! The hook's own faults, and what the user is told of them.
//!
//! The hook fails open: when it cannot judge a Stop properly, it lets the
//! Stop through rather than block on its own error. Failing open silently
//! would leave a user who has no guard believing they have one, so each
//! fault has one message, shown to the user (not the model) in the
//! client's own channel: the `systemMessage` of the hook's JSON output,
//! which Claude Code, Codex CLI and Gemini CLI all show as a warning and
//! none takes as a block. `stopgate doctor` prints the same message for
//! the faults it can see (the state directory, the configuration), so the
//! two never disagree.

use std::fmt;

/// Why the hook is not guarding (or not as configured).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fault {
    /// The state directory was refused or cannot be made: no state, no
    /// gates with a cap, so every Stop is allowed.
    StateDir(String),
    /// The configuration file is unreadable or invalid: the built-in
    /// defaults guard instead.
    Config(String),
    /// The gates could not be built from the configuration.
    Gates(String),
    /// A block could not be recorded (a full disk): it was not given,
    /// since it would not count towards the cap.
    Record(String),
    /// The hook ran out of its time (`timeout_ms`) and let the Stop
    /// through.
    Timeout(u64),
    /// The hook failed (a panic, a crash) and let the Stop through.
    Crash,
}

impl Fault {
    /// The message for the user: what is wrong, what the hook did, and
    /// how to find the fix.
    pub fn message(&self) -> String {
        self.to_string()
    }

    /// The hook's JSON output that tells the user, and allows.
    pub fn json(&self) -> String {
        serde_json::json!({ "systemMessage": self.message() }).to_string()
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const DOCTOR: &str = "Run `stopgate doctor` for details.";
        match self {
            Fault::StateDir(why) => write!(
                f,
                "stopgate is not guarding: {why}. Every Stop is let \
                 through until the state directory is fixed. {DOCTOR}"
            ),
            Fault::Config(why) => write!(
                f,
                "stopgate is not guarding as configured: {why}; it uses \
                 its built-in defaults until the stopgate.toml is fixed. \
                 {DOCTOR}"
            ),
            Fault::Gates(why) => write!(
                f,
                "stopgate is not guarding: its gates could not be built \
                 ({why}). {DOCTOR}"
            ),
            Fault::Record(why) => write!(
                f,
                "stopgate is not guarding: it could not record a block in \
                 its state directory ({why}), so it let the Stop through \
                 rather than block without a cap. Free some space. {DOCTOR}"
            ),
            Fault::Timeout(ms) => write!(
                f,
                "stopgate is not guarding this Stop: it ran out of time \
                 ({ms} ms, `timeout_ms`) and let it through. {DOCTOR}"
            ),
            Fault::Crash => write!(
                f,
                "stopgate is not guarding this Stop: it failed (an internal \
                 error) and let it through. {DOCTOR}"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Fault;

    /// `scan` counts the Stops the hook let through by its own fault by
    /// the start of these messages, as the client keeps them in the
    /// transcript.
    #[test]
    fn every_message_starts_as_the_scan_reads_it() {
        for fault in [
            Fault::StateDir("x".into()),
            Fault::Config("x".into()),
            Fault::Gates("x".into()),
            Fault::Record("x".into()),
            Fault::Timeout(5000),
            Fault::Crash,
        ] {
            let m = fault.message();
            assert!(m.starts_with(crate::read::UNGUARDED_PREFIX), "{m}");
        }
    }
}
