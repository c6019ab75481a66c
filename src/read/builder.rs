//! The one accumulator of turns: [`TurnBuilder`].
//!
//! Every format's reader feeds it: Claude Code's records through the
//! methods in `claude.rs`, Codex CLI's and Gemini CLI's through
//! [`TurnBuilder::begin`], [`TurnBuilder::said`], [`TurnBuilder::tool`] and
//! the others here, so every format builds the same [`Turn`].

use super::record::is_blank;
use super::turn::{Chain, LinePos, Prompt, TextAt, ToolCall, Turn, TurnKind};

/// What a reader must get out of the lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Need {
    /// Whole turns, as every query and the scan read them.
    #[default]
    Turns,
    /// Only the tool uses that may change files: all a subagent's file
    /// is read for. Lines that cannot hold a tool use are not parsed.
    Changes,
}

/// Whether a slash command's prompt text names a command: the turn is a
/// local command unless the agent then works.
fn is_command_prompt(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("<command-name>") || t.starts_with("<command-message>")
}

/// The one accumulator of turns, fed records in file order.
#[derive(Debug)]
pub struct TurnBuilder {
    pub(super) chain: Chain,
    pub(super) open: Turn,
    pub(super) started: bool,
    pub(super) next_index: usize,
    /// Task or Agent tool uses of the open turn whose result has not named
    /// a subagent yet: only then are tool results worth parsing.
    pub(super) unanswered_launches: usize,
    /// The ids of the open turn's tool uses that may change files whose
    /// result has not been met, each with whether it is an editing tool's:
    /// only their results are worth a look for an error
    /// ([`Turn::possible_changes`]).
    pub(super) unanswered_changes: Vec<(String, bool)>,
    /// Where the open turn's last Stop block and last tool use are, and
    /// the blocks since that tool use: a block no line answers is one the
    /// client overrode ([`Turn::blocks_overridden`]).
    pub(super) last_block_at: Option<u64>,
    pub(super) last_tool_at: Option<u64>,
    pub(super) blocks_since_tool: usize,
    pub(super) need: Need,
}

impl TurnBuilder {
    /// A builder whose first turn gets number `first` (0 when the reader
    /// does not start at the file's start, so numbers are unknown).
    pub(super) fn numbered_from(chain: Chain, first: usize) -> TurnBuilder {
        TurnBuilder {
            chain,
            open: Turn::default(),
            started: false,
            next_index: first,
            unanswered_launches: 0,
            unanswered_changes: vec![],
            last_block_at: None,
            last_tool_at: None,
            blocks_since_tool: 0,
            need: Need::Turns,
        }
    }

    /// A builder like this one, for a reader that needs only `need`.
    pub(super) fn needing(self, need: Need) -> TurnBuilder {
        TurnBuilder { need, ..self }
    }

    /// The turn being built, finished: what follows the last prompt.
    pub fn finish(mut self) -> Option<Turn> {
        self.take(false)
    }

    /// A prompt of `kind` starts a turn; the previous one is returned,
    /// finished. The other formats' readers feed the builder through this
    /// and the methods below, so every format builds the same [`Turn`].
    pub(super) fn begin(
        &mut self,
        kind: TurnKind,
        text: String,
        timestamp: Option<&str>,
        pos: LinePos,
    ) -> Option<Turn> {
        let done = self.take(true);
        self.unanswered_launches = 0;
        self.unanswered_changes.clear();
        self.started = true;
        self.open.kind = kind;
        self.open.index = self.next_index;
        self.next_index += usize::from(self.next_index > 0);
        self.open.timestamp = timestamp.map(str::to_string);
        self.open.prompt = Some(Prompt {
            text,
            offset: pos.offset,
            line: pos.line,
            timestamp: timestamp.map(str::to_string),
        });
        done
    }

    /// A record of the open turn was read: the turn has started, its
    /// first timestamp is kept, and it ended no earlier than this record.
    /// (The other formats' readers call this for every record.)
    pub(super) fn note(&mut self, timestamp: Option<&str>) {
        self.start(timestamp);
        self.open.saw(timestamp);
    }

    /// A record of the open turn was read: the turn has started, and its
    /// first timestamp is kept.
    pub(super) fn start(&mut self, timestamp: Option<&str>) {
        self.started = true;
        if self.open.timestamp.is_none() {
            self.open.timestamp = timestamp.map(str::to_string);
        }
    }

    /// The agent used a tool, on line `line` of the file.
    pub(super) fn tool_on(&mut self, line: Option<u64>, call: ToolCall) {
        self.tool(call.on_line(line));
    }

    /// The agent used a tool.
    pub(super) fn tool(&mut self, call: ToolCall) {
        self.started = true;
        self.open.any_assistant = true;
        self.open.tool_uses.push(call);
    }

    /// The agent said `text`, at `pos`; blank text is passed over.
    pub(super) fn said(&mut self, text: &str, pos: LinePos) {
        self.started = true;
        self.open.any_assistant = true;
        if !is_blank(text) {
            self.open.final_text = Some(TextAt {
                text: text.to_string(),
                offset: pos.offset,
                line: pos.line,
                at: None,
            });
        }
    }

    /// A Stop hook blocked, and its reason came back as a message.
    pub(super) fn stop_feedback(&mut self) {
        self.started = true;
        self.open.stop_blocks.feedback += 1;
    }

    /// The user interrupted the agent.
    pub(super) fn interrupted(&mut self) {
        self.started = true;
        self.open.kind = TurnKind::Interrupted;
    }

    /// The open turn, finished; `followed` when another prompt starts
    /// after it.
    fn take(&mut self, followed: bool) -> Option<Turn> {
        let mut turn = std::mem::take(&mut self.open);
        if !self.started {
            return None;
        }
        self.started = false;
        let block = self.last_block_at.take();
        let tool = self.last_tool_at.take();
        let since_tool = std::mem::take(&mut self.blocks_since_tool);
        let answered = turn.final_text.as_ref().map(|f| f.offset).max(tool);
        if turn.overridden.is_none()
            && turn.kind != TurnKind::Interrupted
            && block.is_some_and(|b| answered.is_none_or(|a| a < b))
        {
            // The client ended the turn on a block: its notice, which
            // gives the count, is not written by every version.
            turn.overridden = Some(since_tool);
        }
        if turn.kind == TurnKind::Prompt && !turn.any_assistant {
            if turn.prompt.as_ref().is_some_and(|p| is_command_prompt(&p.text))
            {
                turn.kind = TurnKind::LocalCommand;
            } else if followed && turn.prompt.is_some() {
                // No reply, and the next prompt came: the last turn of a
                // file may still be waiting for its reply.
                turn.kind = TurnKind::Rewound;
            }
        }
        Some(turn)
    }
}

#[cfg(test)]
mod rewound_tests {
    use super::{Chain, TurnKind};
    use crate::read::Transcript;

    /// A prompt with no reply before the next prompt was taken back: no
    /// Stop ran for it. The last prompt of a file may still be waiting for
    /// its reply, and stays a prompt.
    #[test]
    fn a_prompt_with_no_reply_before_the_next_was_rewound() {
        let prompt = |text: &str| serde_json::json!({"type": "user", "parentUuid": null, "message": {"role": "user", "content": text}});
        let said = serde_json::json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}});
        let lines = [prompt("a"), prompt("b"), said.clone(), prompt("c")];
        let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let t = Transcript::from_bytes(body.into_bytes());
        let kinds: Vec<TurnKind> =
            t.turns(Chain::Main).iter().map(|t| t.kind()).collect();
        assert_eq!(
            kinds,
            [TurnKind::Rewound, TurnKind::Prompt, TurnKind::Prompt]
        );
        assert!(!TurnKind::Rewound.ends_in_stop());
        // What comes before the first prompt (a SessionStart hook's
        // error) was no prompt, so nothing was rewound.
        let fault = serde_json::json!({"type": "attachment", "attachment": {"type": "hook_non_blocking_error", "hookEvent": "SessionStart", "command": "./start.sh"}});
        let body = format!("{fault}\n{}\n{said}\n", prompt("a"));
        let t = Transcript::from_bytes(body.into_bytes());
        let kinds: Vec<TurnKind> =
            t.turns(Chain::Main).iter().map(|t| t.kind()).collect();
        assert!(!kinds.contains(&TurnKind::Rewound), "{kinds:?}");
    }
}
