//! Claude Code's `settings.json`: stopgate's entries, merged and removed.
//!
//! The shape is `{"hooks": {EVENT: [{"matcher": M, "hooks": [{"type":
//! "command", "command": C}]}]}}`. A wrong shape is silently ignored by the
//! client, so [`shape_problems`] looks for one. Every function here is pure:
//! reading, backing up and writing the file happen in `install`.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

/// The PostToolUse matcher stopgate installs.
pub const POST_MATCHER: &str = "Write|Edit|MultiEdit|NotebookEdit|Bash";

/// The events stopgate installs for Claude Code, with their matchers.
pub const EVENTS: &[(&str, &str)] =
    &[("PostToolUse", POST_MATCHER), ("Stop", ""), ("SubagentStop", "")];

/// Gemini CLI's AfterTool matcher: a JavaScript regex, unanchored unless
/// anchored here (`write_file` alone would match an MCP tool
/// `mcp_x_write_file_y`).
pub const GEMINI_POST_MATCHER: &str =
    "^(write_file|replace|run_shell_command)$";

/// The events stopgate installs for Gemini CLI, with their matchers.
pub const GEMINI_EVENTS: &[(&str, &str)] =
    &[("AfterTool", GEMINI_POST_MATCHER), ("AfterAgent", "")];

/// Gemini CLI's hook timeout for stopgate, in milliseconds (its unit):
/// above the hook's own budget, so the hook always ends first.
pub const GEMINI_TIMEOUT_MS: u64 = 70_000;

/// A settings.json dialect: the events stopgate installs, and the fields
/// of a new handler besides `type` and `command`.
#[derive(Clone, Copy, Debug)]
pub struct Dialect {
    /// The events, with their matchers.
    pub events: &'static [(&'static str, &'static str)],
    /// Gemini CLI names its hooks and counts timeouts in milliseconds.
    pub gemini: bool,
}

impl Dialect {
    /// Claude Code's settings.json.
    pub const CLAUDE: Dialect = Dialect { events: EVENTS, gemini: false };
    /// Gemini CLI's settings.json.
    pub const GEMINI: Dialect =
        Dialect { events: GEMINI_EVENTS, gemini: true };

    /// A new handler running `command`.
    fn handler(&self, command: &str) -> Value {
        if self.gemini {
            json!({"type": "command", "name": "stopgate", "command": command,
                   "timeout": GEMINI_TIMEOUT_MS})
        } else {
            json!({"type": "command", "command": command})
        }
    }
}

/// A handler's command that runs `stopgate hook`, split so that an update
/// can change the program and keep the rest as the user wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookCommand<'a> {
    /// Environment assignments before the program (`A=1 env B=2 `),
    /// verbatim.
    pub prefix: &'a str,
    /// The program's path, unquoted.
    pub program: &'a str,
    /// Everything after the program (` hook --config …`), verbatim.
    pub rest: &'a str,
}

impl<'a> HookCommand<'a> {
    /// Parse `command`: `None` unless it runs `stopgate hook`.
    ///
    /// Leading `NAME=value` assignments and an `env` word with its own
    /// assignments are skipped; then the first word, quoted or not, must
    /// name a file called `stopgate` (or `stopgate.exe`), and the next must
    /// be `hook`.
    pub fn parse(command: &'a str) -> Option<HookCommand<'a>> {
        let mut at = command.len() - command.trim_start().len();
        loop {
            let word_end = word_end(command, at)?;
            let word = &command[at..word_end];
            let assignment = word
                .split_once('=')
                .is_some_and(|(name, _)| is_env_name(name));
            if !(assignment || word == "env") {
                break;
            }
            at = word_end
                + (command[word_end..].len()
                    - command[word_end..].trim_start().len());
        }
        let prefix = &command[..at];
        let (program, rest) = match command[at..].strip_prefix('"') {
            Some(q) => {
                let (p, rest) = q.split_once('"')?;
                (p, rest)
            }
            None => {
                let end = word_end(command, at)?;
                (&command[at..end], &command[end..])
            }
        };
        let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
        let ours = matches!(base, "stopgate" | "stopgate.exe")
            && rest.split_whitespace().next() == Some("hook");
        ours.then_some(HookCommand { prefix, program, rest })
    }

    /// The same command with another program.
    pub fn with_program(&self, program: &str) -> String {
        let quoted = if program.contains([' ', '$']) {
            format!("\"{program}\"")
        } else {
            program.to_string()
        };
        format!("{}{quoted}{}", self.prefix, self.rest)
    }
}

/// Where the unquoted word at `at` ends; `None` at the end of `s`.
fn word_end(s: &str, at: usize) -> Option<usize> {
    if at >= s.len() {
        return None;
    }
    Some(s[at..].find(char::is_whitespace).map_or(s.len(), |i| at + i))
}

/// Whether `name` is a shell variable name.
fn is_env_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Whether a handler's command runs `stopgate hook`, however it is
/// wrapped: see [`HookCommand::parse`].
pub fn is_stopgate_command(command: &str) -> bool {
    HookCommand::parse(command).is_some()
}

/// The command line for a binary at `exe`: forward slashes (Windows hooks
/// run under Git Bash), quoted if it holds a space.
pub fn command_for(exe: &str) -> String {
    let exe = exe.replace('\\', "/");
    if exe.contains([' ', '$']) {
        format!("\"{exe}\" hook")
    } else {
        format!("{exe} hook")
    }
}

/// The variable Claude Code sets to the project's folder when it runs a
/// hook.
pub const PROJECT_DIR_VAR: &str = "CLAUDE_PROJECT_DIR";

/// The command for a project's shared settings file. It must run on every
/// teammate's machine, so it names no absolute path of this one: a binary
/// inside the project is named from `$CLAUDE_PROJECT_DIR`, any other is
/// found through `PATH`.
pub fn portable_command_for(exe: &Path, project: &Path) -> String {
    match exe.strip_prefix(project) {
        Ok(rel) => format!(
            "\"${PROJECT_DIR_VAR}/{}\" hook",
            rel.to_string_lossy().replace('\\', "/")
        ),
        Err(_) => "stopgate hook".to_string(),
    }
}

/// The file a command's program names: `$CLAUDE_PROJECT_DIR` (or
/// `${CLAUDE_PROJECT_DIR}`) expanded to `project`, a bare name looked up
/// in `path` (a `PATH` value) as a shell would, any other path as is.
/// `None` when it names nothing executable.
pub fn resolve_program(
    program: &str,
    project: Option<&Path>,
    path: Option<&OsStr>,
) -> Option<PathBuf> {
    let executable = |p: &Path| {
        std::fs::metadata(p)
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    let var =
        [format!("${PROJECT_DIR_VAR}"), format!("${{{PROJECT_DIR_VAR}}}")];
    if let Some(rest) =
        var.iter().find_map(|v| program.strip_prefix(v.as_str()))
    {
        let file = project?.join(rest.trim_start_matches('/'));
        return executable(&file).then_some(file);
    }
    if !program.contains('/') {
        return std::env::split_paths(path?)
            .map(|dir| dir.join(program))
            .find(|p| executable(p));
    }
    let file = PathBuf::from(program);
    executable(&file).then_some(file)
}

/// Why a settings value cannot be edited safely.
#[derive(Debug, PartialEq, Eq)]
pub struct ShapeError(pub String);

/// Add (or update) stopgate's entries in `settings`. Every other key and
/// hook is kept. Running it twice gives the same result.
///
/// An entry stopgate finds is kept as the user wrote it (its environment
/// prefix, its arguments such as `--config`), except that a program path
/// that no longer exists is replaced by `command`'s. A PostToolUse entry in
/// a group it shares with other hooks is moved into a group of its own
/// rather than widening the others' matcher.
pub fn merge(
    settings: &mut Value,
    command: &str,
    dialect: Dialect,
) -> Result<(), ShapeError> {
    let root = settings
        .as_object_mut()
        .ok_or_else(|| ShapeError("the top level is not an object".into()))?;
    let hooks =
        root.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
    let hooks = hooks
        .as_object_mut()
        .ok_or_else(|| ShapeError("\"hooks\" is not an object".into()))?;
    let new_program = HookCommand::parse(command).map(|c| c.program);
    for &(event, matcher) in dialect.events {
        let groups =
            hooks.entry(event).or_insert_with(|| Value::Array(vec![]));
        let groups = groups.as_array_mut().ok_or_else(|| {
            ShapeError(format!("\"hooks.{event}\" is not an array"))
        })?;
        let found = groups.iter().enumerate().find_map(|(g, group)| {
            let handlers = group.get("hooks")?.as_array()?;
            let h = handlers.iter().position(|h| {
                h.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(is_stopgate_command)
            })?;
            Some((g, h, handlers.len()))
        });
        let Some((g, h, shared_with)) = found else {
            let mut group = json!({"hooks": [dialect.handler(command)]});
            if !matcher.is_empty() || !dialect.gemini {
                group["matcher"] = json!(matcher);
            }
            groups.push(group);
            continue;
        };
        let handler = &mut groups[g]["hooks"][h];
        let current = handler["command"].as_str().unwrap_or_default();
        if let (Some(old), Some(new)) =
            (HookCommand::parse(current), new_program)
        {
            // A portable program (`$CLAUDE_PROJECT_DIR/…`, a bare name)
            // is resolved by the client, not here.
            let moved = old.program.contains('/')
                && !old.program.starts_with('$')
                && !std::path::Path::new(old.program).exists();
            if moved && old.program != new {
                handler["command"] = json!(old.with_program(new));
            }
        }
        handler["type"] = json!("command");
        if matcher.is_empty()
            || groups[g].get("matcher").and_then(Value::as_str)
                == Some(matcher)
        {
            continue;
        }
        if shared_with == 1 {
            groups[g]["matcher"] = json!(matcher);
        } else {
            let ours = groups[g]["hooks"]
                .as_array_mut()
                .map(|hs| hs.remove(h))
                .unwrap_or_default();
            groups.push(json!({"matcher": matcher, "hooks": [ours]}));
        }
    }
    Ok(())
}

/// Remove exactly stopgate's handlers; groups and events left empty by the
/// removal go too. Returns how many handlers were removed.
pub fn remove(settings: &mut Value) -> usize {
    let Some(hooks) = settings.get_mut("hooks").and_then(Value::as_object_mut)
    else {
        return 0;
    };
    let mut removed = 0;
    let mut emptied_events = vec![];
    for (event, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut() else { continue };
        let before = groups.len();
        groups.retain_mut(|group| {
            let Some(handlers) =
                group.get_mut("hooks").and_then(Value::as_array_mut)
            else {
                return true;
            };
            let n = handlers.len();
            handlers.retain(|h| {
                !h.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(is_stopgate_command)
            });
            removed += n - handlers.len();
            !(handlers.is_empty() && n > 0)
        });
        if groups.is_empty() && before > 0 {
            emptied_events.push(event.clone());
        }
    }
    for e in emptied_events {
        hooks.remove(&e);
    }
    removed
}

/// Remove the top-level `hooks` entry from the settings text `text`,
/// keeping every other byte as the user wrote it.
///
/// # Errors
///
/// When `text` is not a JSON object, or its `hooks` key is spelled with
/// escapes (the entry cannot then be found in the text).
pub fn splice_out_hooks(text: &str) -> Result<String, ShapeError> {
    let bad =
        |e: serde_json::Error| ShapeError(format!("not valid JSON ({e})"));
    let TopLevel(entries) = serde_json::from_str(text).map_err(bad)?;
    let offset =
        |raw: &RawValue| raw.get().as_ptr() as usize - text.as_ptr() as usize;
    let Some(i) = entries.iter().rposition(|(k, _)| k == "hooks") else {
        return Ok(text.to_string());
    };
    let start = offset(entries[i].1);
    let end = start + entries[i].1.get().len();
    let key = text[..start].rfind("\"hooks\"").ok_or_else(|| {
        ShapeError("the \"hooks\" key is written with escapes".into())
    })?;
    Ok(if i > 0 {
        // `, "hooks": …` after the previous entry's value.
        let prev = &entries[i - 1].1;
        let prev_end = offset(prev) + prev.get().len();
        format!("{}{}", &text[..prev_end], &text[end..])
    } else if i + 1 < entries.len() {
        // `"hooks": …, ` before the next entry's key.
        let rest = &text[end..];
        let comma = rest.find(',').ok_or_else(|| {
            ShapeError("no comma after the \"hooks\" entry".into())
        })?;
        let next = comma
            + 1
            + (rest[comma + 1..].len() - rest[comma + 1..].trim_start().len());
        format!("{}{}", &text[..key], &rest[next..])
    } else {
        // The only entry: `{}` with the user's trailing bytes.
        format!("{}{}", text[..key].trim_end(), text[end..].trim_start())
    })
}

/// The text of a settings file with its top-level `"hooks"` value replaced
/// by `hooks`; every other byte stays as the user wrote it (numbers with
/// their exact text, compact objects compact, comments of other tools'
/// keys' formatting).
///
/// Only the `hooks` value is written anew: pretty-printed with the file's
/// own indentation when the old value or the file spans lines, compact
/// otherwise. A file without `"hooks"` gets it as a last key.
pub fn splice_hooks(text: &str, hooks: &Value) -> Result<String, ShapeError> {
    let bad =
        |e: serde_json::Error| ShapeError(format!("not valid JSON ({e})"));
    if text.trim().is_empty() {
        let root = json!({ "hooks": hooks });
        return Ok(serde_json::to_string_pretty(&root).map_err(bad)? + "\n");
    }
    let TopLevel(entries) = serde_json::from_str(text).map_err(bad)?;
    let offset =
        |raw: &RawValue| raw.get().as_ptr() as usize - text.as_ptr() as usize;
    let existing = entries.iter().rev().find(|(k, _)| k == "hooks");
    Ok(match existing {
        Some((_, raw)) => {
            let (start, end) = (offset(raw), offset(raw) + raw.get().len());
            let indent = line_indent(text, start);
            // Pretty when the old value spans lines, or is an empty
            // object in a file that does; compact as the user wrote it
            // otherwise.
            let old = raw.get();
            let pretty = old.contains('\n')
                || (old.len() <= 2 && text.trim().contains('\n'));
            let value = render(hooks, indent, pretty)?;
            format!("{}{value}{}", &text[..start], &text[end..])
        }
        None => {
            let close = text.rfind('}').ok_or_else(|| {
                ShapeError("the top level is not an object".into())
            })?;
            let multiline = text.trim().contains('\n');
            match entries.last() {
                Some((_, raw)) => {
                    let after = offset(raw) + raw.get().len();
                    let indent = line_indent(text, offset(raw));
                    let (sep, indent) = if multiline {
                        (format!(",\n{indent}"), indent)
                    } else {
                        (", ".to_string(), "")
                    };
                    let value = render(hooks, indent, multiline)?;
                    format!(
                        "{}{sep}\"hooks\": {value}{}",
                        &text[..after],
                        &text[after..]
                    )
                }
                None => {
                    let value = render(hooks, "  ", true)?;
                    format!(
                        "{}\n  \"hooks\": {value}\n{}",
                        text[..close].trim_end(),
                        &text[close..]
                    )
                }
            }
        }
    })
}

/// The top-level object's entries, each value as its raw text.
struct TopLevel<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for TopLevel<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<Self, D::Error> {
        struct Entries<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Entries<'a> {
            type Value = TopLevel<'a>;
            fn expecting(
                &self,
                f: &mut std::fmt::Formatter<'_>,
            ) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<TopLevel<'a>, M::Error> {
                let mut out = vec![];
                while let Some(entry) =
                    map.next_entry::<String, &'de RawValue>()?
                {
                    out.push(entry);
                }
                Ok(TopLevel(out))
            }
        }
        d.deserialize_map(Entries(std::marker::PhantomData))
    }
}

/// The leading whitespace of the line holding byte `at` of `text`.
fn line_indent(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..at];
    &line[..line.len() - line.trim_start().len()]
}

/// `value` as JSON: compact, or pretty with nested lines indented under a
/// key indented by `indent` (one level of which is `indent`, or two
/// spaces at the top).
fn render(
    value: &Value,
    indent: &str,
    pretty: bool,
) -> Result<String, ShapeError> {
    if !pretty {
        return Ok(value.to_string());
    }
    let unit = if indent.is_empty() {
        "  "
    } else if indent.starts_with('\t') {
        "\t"
    } else {
        indent
    };
    let mut out = vec![];
    let formatter =
        serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(value, &mut ser)
        .map_err(|e| ShapeError(e.to_string()))?;
    let text =
        String::from_utf8(out).map_err(|e| ShapeError(e.to_string()))?;
    Ok(text.replace('\n', &format!("\n{indent}")))
}

/// The stopgate commands installed for each event.
pub fn installed(settings: &Value) -> Vec<(String, String, String)> {
    let mut out = vec![];
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, groups) in hooks {
        for group in groups.as_array().into_iter().flatten() {
            let matcher = group
                .get("matcher")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            for h in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(c) = h
                    .get("command")
                    .and_then(Value::as_str)
                    .filter(|c| is_stopgate_command(c))
                {
                    out.push((event.clone(), matcher.clone(), c.to_string()));
                }
            }
        }
    }
    out
}

/// Every place where the hooks structure has a shape the client ignores.
pub fn shape_problems(settings: &Value) -> Vec<String> {
    let mut out = vec![];
    let Some(root) = settings.as_object() else {
        return vec!["the top level is not an object".into()];
    };
    let Some(hooks) = root.get("hooks") else { return out };
    let Some(hooks) = hooks.as_object() else {
        return vec!["\"hooks\" is not an object".into()];
    };
    for (event, groups) in hooks {
        let Some(groups) = groups.as_array() else {
            out.push(format!(
                "hooks.{event} is not an array of matcher groups"
            ));
            continue;
        };
        for (i, group) in groups.iter().enumerate() {
            let at = format!("hooks.{event}[{i}]");
            let Some(g) = group.as_object() else {
                out.push(format!("{at} is not an object"));
                continue;
            };
            if g.get("matcher").is_some_and(|m| !m.is_string()) {
                out.push(format!("{at}.matcher is not a string"));
            }
            match g.get("hooks").and_then(Value::as_array) {
                None => {
                    out.push(format!("{at}.hooks is missing or not an array"))
                }
                Some(handlers) => {
                    for (j, h) in handlers.iter().enumerate() {
                        let at = format!("{at}.hooks[{j}]");
                        if h.get("type").and_then(Value::as_str).is_none() {
                            out.push(format!("{at}.type is missing"));
                        }
                        if h.get("type").and_then(Value::as_str)
                            == Some("command")
                            && h.get("command")
                                .and_then(Value::as_str)
                                .is_none()
                        {
                            out.push(format!("{at}.command is missing"));
                        }
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_our_commands() {
        assert!(is_stopgate_command("/usr/local/bin/stopgate hook"));
        assert!(is_stopgate_command(
            "\"/c/Program Files/stopgate.exe\" hook --config x"
        ));
        assert!(is_stopgate_command("stopgate hook"));
        assert!(!is_stopgate_command("/bin/stopgate-other hook"));
        assert!(!is_stopgate_command("/usr/bin/stopgate scan"));
        assert!(!is_stopgate_command("~/.claude/hooks/self-audit-stop.sh"));
    }

    #[test]
    fn merge_keeps_everything_else_and_is_idempotent() {
        let mut s = json!({
            "model": "opus",
            "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "/x/other.sh"}]}],
                      "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/x/guard"}]}]}
        });
        merge(&mut s, "/opt/stopgate hook", Dialect::CLAUDE).unwrap();
        let once = s.clone();
        merge(&mut s, "/opt/stopgate hook", Dialect::CLAUDE).unwrap();
        assert_eq!(s, once);
        assert_eq!(s["model"], "opus");
        assert_eq!(
            s["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
            "/x/guard"
        );
        assert_eq!(
            s["hooks"]["Stop"][0]["hooks"][0]["command"],
            "/x/other.sh"
        );
        assert_eq!(installed(&s).len(), 3);
        assert!(shape_problems(&s).is_empty());
        // A moved binary is updated in place, not added twice.
        merge(&mut s, "/new/stopgate hook", Dialect::CLAUDE).unwrap();
        let cmds: Vec<_> =
            installed(&s).into_iter().map(|(_, _, c)| c).collect();
        assert_eq!(cmds, vec!["/new/stopgate hook"; 3]);
    }

    #[test]
    fn merge_keeps_the_users_wrapping_and_arguments() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("stopgate");
        std::fs::write(&exe, "").unwrap();
        let exe = exe.to_str().unwrap();
        for existing in [
            "stopgate hook --config /etc/team-stopgate.toml".to_string(),
            format!("STOPGATE_DEBUG=1 {exe} hook"),
            format!("env STOPGATE_DEBUG=1 \"{exe}\" hook --config x"),
        ] {
            let mut s = json!({"hooks": {"Stop": [{"matcher": "", "hooks": [
                {"type": "command", "command": existing}]}]}});
            merge(&mut s, "/opt/stopgate hook", Dialect::CLAUDE).unwrap();
            let stops = &s["hooks"]["Stop"];
            assert_eq!(stops.as_array().unwrap().len(), 1, "{existing}");
            assert_eq!(stops[0]["hooks"][0]["command"], json!(existing));
        }
        // A moved binary behind a prefix keeps the prefix and arguments.
        let mut s = json!({"hooks": {"Stop": [{"matcher": "", "hooks": [
            {"type": "command", "command": "A=1 /gone/stopgate hook --config c"}]}]}});
        merge(&mut s, &command_for("/opt/my tools/stopgate"), Dialect::CLAUDE)
            .unwrap();
        assert_eq!(
            s["hooks"]["Stop"][0]["hooks"][0]["command"],
            "A=1 \"/opt/my tools/stopgate\" hook --config c"
        );
    }

    #[test]
    fn merge_never_widens_a_shared_matcher() {
        let mut s = json!({"hooks": {"PostToolUse": [{"matcher": "Write|Edit", "hooks": [
            {"type": "command", "command": "prettier --write"},
            {"type": "command", "command": "/x/stopgate hook"}]}]}});
        merge(&mut s, "/x/stopgate hook", Dialect::CLAUDE).unwrap();
        let groups = s["hooks"]["PostToolUse"].as_array().unwrap();
        assert_eq!(groups[0]["matcher"], "Write|Edit");
        assert_eq!(groups[0]["hooks"].as_array().unwrap().len(), 1);
        assert_eq!(groups[1]["matcher"], POST_MATCHER);
        assert_eq!(groups[1]["hooks"][0]["command"], "/x/stopgate hook");
        let once = s.clone();
        merge(&mut s, "/x/stopgate hook", Dialect::CLAUDE).unwrap();
        assert_eq!(s, once);
    }

    #[test]
    fn parses_wrapped_commands() {
        let c = HookCommand::parse("A=1 B_2=x env C=3 /p/stopgate hook -v")
            .unwrap();
        assert_eq!(c.prefix, "A=1 B_2=x env C=3 ");
        assert_eq!(c.program, "/p/stopgate");
        assert_eq!(c.rest, " hook -v");
        assert!(HookCommand::parse("A=1").is_none());
        assert!(HookCommand::parse("").is_none());
        assert!(HookCommand::parse("1A=1 stopgate hook").is_none());
    }

    #[test]
    fn remove_takes_only_ours() {
        let mut s = json!({"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "/x/other.sh"}]}]}});
        let original = s.clone();
        merge(&mut s, "/opt/stopgate hook", Dialect::CLAUDE).unwrap();
        assert_eq!(remove(&mut s), 3);
        assert_eq!(s, original);
        assert_eq!(remove(&mut s), 0);
    }

    #[test]
    fn wrong_shapes() {
        assert!(merge(&mut json!([1]), "x", Dialect::CLAUDE).is_err());
        assert!(
            merge(&mut json!({"hooks": []}), "x", Dialect::CLAUDE).is_err()
        );
        let s = json!({"hooks": {"Stop": {"matcher": "", "hooks": []}}});
        assert_eq!(
            shape_problems(&s),
            vec!["hooks.Stop is not an array of matcher groups"]
        );
        let s = json!({"hooks": {"Stop": [{"matcher": "", "hooks": {"type": "command"}}]}});
        assert_eq!(
            shape_problems(&s),
            vec!["hooks.Stop[0].hooks is missing or not an array"]
        );
    }

    #[test]
    fn commands_use_forward_slashes() {
        assert_eq!(
            command_for("C:\\tools\\stopgate.exe"),
            "C:/tools/stopgate.exe hook"
        );
        assert_eq!(
            command_for("/opt/my tools/stopgate"),
            "\"/opt/my tools/stopgate\" hook"
        );
    }

    #[test]
    fn splice_keeps_every_other_byte() {
        let text = "{\n  \"big\": 12345678901234567890123,\n  \"p\": 0.1000000000000000055511151231257827,\n  \"compact\": {\"a\":1,\"b\":[1,2]},\n  \"hooks\": {\n    \"Stop\": []\n  },\n  \"after\": true\n}\n";
        let hooks = json!({"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "x"}]}]});
        let out = splice_hooks(text, &hooks).unwrap();
        let (head, tail) = text.split_once("\"hooks\": ").unwrap();
        assert!(out.starts_with(head), "{out}");
        assert!(out.ends_with("  },\n  \"after\": true\n}\n"), "{out}");
        assert!(tail.contains("\"Stop\": []"));
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["hooks"], hooks);
        assert!(out.contains("\n    \"Stop\": [\n      {\n"), "{out}");
    }

    #[test]
    fn splice_adds_hooks_as_the_last_key() {
        let hooks = json!({"Stop": []});
        let out =
            splice_hooks("{\n\t\"model\": \"opus\"\n}\n", &hooks).unwrap();
        assert_eq!(out, "{\n\t\"model\": \"opus\",\n\t\"hooks\": {\n\t\t\"Stop\": []\n\t}\n}\n");
        let out = splice_hooks("{\"model\":\"opus\"}", &hooks).unwrap();
        assert_eq!(out, "{\"model\":\"opus\", \"hooks\": {\"Stop\":[]}}");
        let out = splice_hooks("{}\n", &hooks).unwrap();
        assert_eq!(out, "{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n");
        let out = splice_hooks("", &hooks).unwrap();
        assert_eq!(out, "{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n");
        assert!(splice_hooks("[1]", &hooks).is_err());
    }

    #[test]
    fn splice_out_keeps_every_other_byte() {
        let cases = [
            (
                "{\n  \"model\": \"opus\",\n  \"hooks\": {\"Stop\": []}\n}\n",
                "{\n  \"model\": \"opus\"\n}\n",
            ),
            ("{\"hooks\": {}, \"model\":\"opus\"}", "{\"model\":\"opus\"}"),
            ("{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n", "{}\n"),
            ("{\"a\": 1}", "{\"a\": 1}"),
        ];
        for (text, want) in cases {
            assert_eq!(splice_out_hooks(text).unwrap(), want, "{text:?}");
        }
    }
}
