//! Hook health: whether the Stop hooks a team installed actually ran, and
//! held, over an archive.
//!
//! A gate that does not run guards nothing, and nobody notices: a hook
//! that is not installed in one project, that errors or runs out of time,
//! or whose blocks the client overrides (Claude Code ends a turn after 8
//! consecutive blocks and does not tell the hook) looks, from the agent's
//! side, like a hook that let the turn through. The transcripts record
//! each of these, so the scan counts them per project and names the
//! sessions worth a look. The table and the HTML report read these counts.
//!
//! Only interactive Claude Code sessions record which Stop hooks ran (a
//! `stop_hook_summary`), so "stopgate ran" is counted over the Stops with
//! such a record; a block or a "not guarding" notice from stopgate shows
//! that it ran too.

use std::collections::BTreeMap;
use std::path::PathBuf;

use stopgate::archive::{
    is_stopgate_command, FileReport, TurnReport, UNJUDGED,
};

use super::label::{project_label, session_label};

/// The hook counts of a set of turns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Health {
    /// Sessions (files) with at least one Stop.
    pub sessions: usize,
    /// Turns that ended in a Stop.
    pub stops: usize,
    /// Stops whose transcript says which Stop hooks ran (or shows one of
    /// stopgate's traces).
    pub recorded: usize,
    /// Of those, the Stops after which stopgate's hook ran.
    pub stopgate_ran: usize,
    /// Stop hook blocks.
    pub blocks: usize,
    /// Turns the client ended over a hook's consecutive blocks.
    pub overridden: usize,
    /// Hooks that ended in an error (any event).
    pub errors: usize,
    /// Hooks that ran out of time (any event).
    pub timeouts: usize,
    /// Times stopgate's hook told the user it was not guarding.
    pub unguarded: usize,
}

impl Health {
    fn add(&mut self, t: &TurnReport) {
        // A subagent file that stands alone: its session's hooks are in
        // the missing main file, as a folded subagent's are in its own.
        if t.audit == UNJUDGED {
            return;
        }
        self.blocks += t.hook_blocks;
        self.overridden += usize::from(t.blocks_overridden.is_some());
        self.timeouts +=
            t.hook_faults.iter().filter(|f| f.timed_out()).count();
        self.errors += t.hook_faults.iter().filter(|f| !f.timed_out()).count();
        self.unguarded += t.unguarded;
        if !t.kind.ends_in_stop() {
            return;
        }
        self.stops += 1;
        let stopgate = stopgate_ran(t);
        self.recorded += usize::from(stopgate || !t.hooks_ran.is_empty());
        self.stopgate_ran += usize::from(stopgate);
    }

    fn merge(&mut self, o: &Health) {
        self.sessions += o.sessions;
        self.stops += o.stops;
        self.recorded += o.recorded;
        self.stopgate_ran += o.stopgate_ran;
        self.blocks += o.blocks;
        self.overridden += o.overridden;
        self.errors += o.errors;
        self.timeouts += o.timeouts;
        self.unguarded += o.unguarded;
    }

    /// How many things went wrong: overrides, errors, timeouts and
    /// "not guarding" notices.
    pub fn trouble(&self) -> usize {
        self.overridden + self.errors + self.timeouts + self.unguarded
    }

    /// "12 of 14" Stops after which stopgate ran, or `-` when no Stop
    /// recorded its hooks.
    pub fn ran_cell(&self) -> String {
        if self.recorded == 0 {
            "-".to_string()
        } else {
            format!("{} of {}", self.stopgate_ran, self.recorded)
        }
    }

    /// Whether the transcripts recorded anything about hooks at all.
    pub fn any_trace(&self) -> bool {
        self.recorded + self.blocks + self.trouble() > 0
    }
}

/// Whether the transcript shows stopgate's Stop hook at work after the
/// turn: among the hooks that ran, among those that blocked, or its "not
/// guarding" notice.
fn stopgate_ran(t: &TurnReport) -> bool {
    t.unguarded > 0
        || t.hooks_ran
            .iter()
            .chain(&t.blocking_hooks)
            .any(|c| is_stopgate_command(c))
}

/// A session worth a look: something went wrong with its hooks.
#[derive(Clone, Debug)]
pub struct Troubled {
    /// See [`session_label`].
    pub label: String,
    /// The session's file.
    pub path: PathBuf,
    /// Its counts.
    pub health: Health,
}

/// How many troubled sessions the report lists.
const TROUBLED: usize = 10;

/// Hook health, counted one file at a time.
#[derive(Clone, Debug, Default)]
pub struct HealthBuilder {
    /// Every file's.
    pub all: Health,
    /// Per project label.
    pub by_project: BTreeMap<String, Health>,
    /// The sessions with the most trouble, most first (at most
    /// [`TROUBLED`]).
    pub troubled: Vec<Troubled>,
}

impl HealthBuilder {
    /// Count the turns of one file.
    pub fn add(&mut self, r: &FileReport) {
        let mut h = Health::default();
        for t in &r.turns {
            h.add(t);
        }
        h.sessions = usize::from(h.stops > 0);
        self.all.merge(&h);
        self.by_project.entry(project_label(r)).or_default().merge(&h);
        if h.trouble() > 0 {
            let at = self.troubled.partition_point(|s| {
                (s.health.trouble(), std::cmp::Reverse(&s.path))
                    >= (h.trouble(), std::cmp::Reverse(&r.path))
            });
            if at < TROUBLED {
                self.troubled.insert(
                    at,
                    Troubled {
                        label: session_label(r),
                        path: r.path.clone(),
                        health: h,
                    },
                );
                self.troubled.truncate(TROUBLED);
            }
        }
    }
}

/// What a troubled session's row says went wrong: "2 errors, 1 override".
pub fn trouble_words(h: &Health) -> String {
    let mut words = vec![];
    for (n, one, many) in [
        (
            h.overridden,
            "block overridden by the client",
            "blocks overridden by the client",
        ),
        (h.errors, "hook error", "hook errors"),
        (h.timeouts, "hook timeout", "hook timeouts"),
        (h.unguarded, "\"not guarding\" notice", "\"not guarding\" notices"),
    ] {
        match n {
            0 => {}
            1 => words.push(format!("1 {one}")),
            n => words.push(format!("{n} {many}")),
        }
    }
    words.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(hooks: &[&str], blocks: usize) -> TurnReport {
        let r = stopgate::archive::scan_reader(
            std::path::Path::new("s.jsonl"),
            &br#"{"type":"user","message":{"role":"user","content":"hi"}}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}
"#[..],
            None,
            &stopgate::judge::Judge::new(&Default::default()).unwrap(),
            &Default::default(),
        );
        let mut t = r.turns.into_iter().last().expect("a turn");
        t.hooks_ran = hooks.iter().map(|s| s.to_string()).collect();
        t.hook_blocks = blocks;
        t
    }

    #[test]
    fn stopgate_is_told_from_other_hooks() {
        let mut h = Health::default();
        h.add(&turn(&["/home/me/.cargo/bin/stopgate hook"], 1));
        h.add(&turn(&["./notify.sh"], 0));
        h.add(&turn(&[], 0));
        assert_eq!(
            (h.stops, h.recorded, h.stopgate_ran, h.blocks),
            (3, 2, 1, 1)
        );
        assert_eq!(h.ran_cell(), "1 of 2");
        assert_eq!(h.trouble(), 0);
    }

    #[test]
    fn trouble_is_named() {
        let h = Health { overridden: 1, errors: 2, ..Health::default() };
        assert_eq!(
            trouble_words(&h),
            "1 block overridden by the client, 2 hook errors"
        );
    }
}
