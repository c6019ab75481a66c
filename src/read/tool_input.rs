//! What the reader knows of the agents' tools: which edit files, which run
//! a shell command, and the fields of a tool's input that say what.
//!
//! These are facts of the clients' tool sets, not rules: whether a shell
//! command changed files is the judge's question (its `changes` module
//! lexes the command), and the reader only keeps what that question
//! needs. A tool use's input is read into [`ToolInput`], borrowed, rather
//! than into a `serde_json::Value`: an edit's input holds the file's new
//! text, and building a map and an owned copy of it, only to look up
//! `command`, was a good part of a scan's allocations.

/// The tools that change files whatever their input: Claude Code's
/// `Write`, `Edit`, `MultiEdit` and `NotebookEdit`, Codex CLI's
/// `apply_patch`, and Gemini CLI's `write_file` and `replace`.
pub const EDIT_TOOLS: &[&str] = &[
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "apply_patch",
    "write_file",
    "replace",
];

/// The tools that run a shell command ([`ToolInput::shell_command`]):
/// Claude Code's `Bash` (which is also the name Codex CLI's hooks see for
/// its shell tools), Gemini CLI's `run_shell_command`, and the names Codex
/// CLI's rollouts record (`exec_command`, `shell`, `shell_command`,
/// `local_shell`).
pub const SHELL_TOOLS: &[&str] = &[
    "Bash",
    "run_shell_command",
    "exec_command",
    "shell",
    "shell_command",
    "local_shell",
];

/// What the reader keeps of a tool's input: its `command` and `cmd`
/// fields and the file it names, borrowed, and nothing else.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolInput<'a> {
    /// The `command` field.
    pub command: CommandField<'a>,
    /// The `cmd` field.
    pub cmd: CommandField<'a>,
    /// The file an editing tool names (`file_path`, `notebook_path`), or
    /// the first file a patch names (`*** Update File: …`): shown as the
    /// evidence of a change, never judged.
    pub file_path: Option<&'a str>,
}

/// One command field of a tool's input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CommandField<'a> {
    /// No such field (or the input is not an object).
    #[default]
    Absent,
    /// A string.
    Text(&'a str),
    /// An array: its string elements, in order.
    Argv(Vec<&'a str>),
    /// A value of another kind.
    Other,
}

impl<'a> CommandField<'a> {
    fn of_value(v: Option<&'a serde_json::Value>) -> CommandField<'a> {
        match v {
            None => CommandField::Absent,
            Some(serde_json::Value::String(s)) => CommandField::Text(s),
            Some(serde_json::Value::Array(a)) => CommandField::Argv(
                a.iter().filter_map(|x| x.as_str()).collect(),
            ),
            Some(_) => CommandField::Other,
        }
    }
}

impl<'a> ToolInput<'a> {
    /// The input of a tool given its shell command as a string, or none.
    pub fn of_command(command: Option<&'a str>) -> ToolInput<'a> {
        ToolInput {
            command: command.map_or(CommandField::Absent, CommandField::Text),
            ..ToolInput::default()
        }
    }

    /// The fields of a JSON input. A string input is a patch (Codex CLI's
    /// `apply_patch`), which names its files.
    pub fn of_value(input: &'a serde_json::Value) -> ToolInput<'a> {
        if let Some(patch) = input.as_str() {
            return ToolInput {
                file_path: patched_file(patch),
                ..ToolInput::default()
            };
        }
        let path = |k: &str| input.get(k).and_then(|v| v.as_str());
        ToolInput {
            command: CommandField::of_value(input.get("command")),
            cmd: CommandField::of_value(input.get("cmd")),
            // Codex CLI's `apply_patch` comes as `{"command": patch}`.
            file_path: path("file_path")
                .or_else(|| path("notebook_path"))
                .or_else(|| path("path"))
                .or_else(|| path("command").and_then(patched_file)),
        }
    }

    /// The shell command of a tool use, for a tool in [`SHELL_TOOLS`].
    ///
    /// The command is `input.command` as a string (Claude Code, Gemini
    /// CLI, and Codex CLI's hook input), `input.cmd` (Codex CLI's
    /// `exec_command`), or `input.command` as an argument vector (Codex
    /// CLI's `shell`), which is joined with spaces unless it is `[shell,
    /// "-c"/"-lc", script]`, whose script is the command. `command` counts
    /// when present, whatever its kind; only without it does `cmd`.
    pub fn shell_command(
        &self,
        name: &str,
    ) -> Option<std::borrow::Cow<'a, str>> {
        use std::borrow::Cow;

        if !SHELL_TOOLS.contains(&name) {
            return None;
        }
        let field = match self.command {
            CommandField::Absent => &self.cmd,
            ref command => command,
        };
        match field {
            CommandField::Text(s) => Some(Cow::Borrowed(*s)),
            CommandField::Argv(argv) => match argv.as_slice() {
                [_, flag, script] if matches!(*flag, "-c" | "-lc") => {
                    Some(Cow::Borrowed(*script))
                }
                [] => None,
                words => Some(Cow::Owned(words.join(" "))),
            },
            CommandField::Absent | CommandField::Other => None,
        }
    }
}

/// The first file a patch in Codex CLI's format names: `*** Add File: a`,
/// `*** Update File: b` or `*** Delete File: c`.
pub(crate) fn patched_file(patch: &str) -> Option<&str> {
    patch.lines().find_map(|l| {
        let l = l.trim_start();
        ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
            .iter()
            .find_map(|p| l.strip_prefix(p))
            .map(str::trim)
            .filter(|p| !p.is_empty())
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn shell_command() {
        use super::ToolInput;
        use serde_json::json;

        let shell_command = |name: &str, input: &serde_json::Value| {
            ToolInput::of_value(input)
                .shell_command(name)
                .map(|c| c.into_owned())
        };
        assert_eq!(
            shell_command("Bash", &json!({"command": "ls"})).as_deref(),
            Some("ls")
        );
        assert_eq!(
            shell_command("exec_command", &json!({"cmd": "ls"})).as_deref(),
            Some("ls")
        );
        let argv = json!({"command": ["bash", "-lc", "echo hi > f"]});
        assert_eq!(
            shell_command("shell", &argv).as_deref(),
            Some("echo hi > f")
        );
        assert_eq!(shell_command("Read", &json!({"command": "ls"})), None);
    }
}
