//! Which tool uses change files: the one rule table.
//!
//! The audit gate fires only on turns that changed something, so it must
//! know which tool uses change files. `Write`, `Edit`, `MultiEdit` and
//! `NotebookEdit` always do. A `Bash` command may or may not: `sed -i`
//! does, `grep -i` does not. This module decides, from the command text
//! alone, and the hook's PostToolUse handler and the judge of a turn
//! ([`TurnChanges`]) both call it, so there is exactly one rule set.
//!
//! It is the judge's, not the reader's: the reader keeps every tool use
//! that may change files (an editing tool, a shell command) with what the
//! rules read of it, and the judgement is a pass over the turn, made once
//! per turn.
//!
//! # The trade-off
//!
//! A shell command is a program, and no table can decide what an arbitrary
//! program writes: `python -c "open('f','w')"` or a build script changes
//! files that no rule sees. The table aims at the commands agents really
//! use to edit files through the shell, and errs on the side of *missing*
//! an exotic write rather than flagging a read: a missed change costs one
//! unaudited turn, while a false flag nags the agent on a turn where it
//! only looked, which teaches it to ignore the gate.
//!
//! The command is split into simple commands at `;`, `&&`, `||`, `|`, `&`
//! and newlines, with quotes and here-documents respected, and each simple
//! command is judged on its own. `bash -c '…'`, `sh -c '…'` and
//! `find … -exec …` are judged by what they run.

mod lexer;
mod rules;
mod turn;

#[cfg(feature = "hook")]
pub(crate) use self::rules::json_input_changes_files;
pub use self::rules::{change_of, tool_changes_files, ChangeReason};
pub(crate) use self::turn::last_change;
pub use self::turn::TurnChanges;
