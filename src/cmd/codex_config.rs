//! Codex CLI's `config.toml`: stopgate's hooks, and the trust entries that
//! let them run.
//!
//! Codex reads hooks from inline `[[hooks.<Event>]]` tables, and runs a hook
//! that is not managed by policy only once it is *trusted*: the user's
//! config.toml must hold `[hooks.state."<key>"] trusted_hash = "sha256:…"`
//! for it, where the key is `<config file>:<event in snake_case>:<group
//! index>:<handler index>` and the hash is taken over the hook's normalised
//! definition (`codex-rs/hooks/src/engine/discovery.rs`,
//! `command_hook_hash`, and `codex-rs/config/src/fingerprint.rs`,
//! `version_for_toml`): the TOML value `{event_name, matcher?, hooks:
//! [{type, command, timeout, async}]}` turned into JSON with its keys
//! sorted, serialised compactly, and hashed with SHA-256. Without the
//! entry, `codex exec` skips the hook without a word.
//!
//! The keys are positions, so removing a group renumbers the groups after
//! it. [`remove`] moves the trust entries of the hooks it keeps to their
//! new keys, so the user's other hooks stay trusted; their hashes do not
//! change, since a hash covers the definition, not the position.
//!
//! The edits go through `toml_edit`, which keeps every comment and every
//! byte of the rest of the file as the user wrote it.

use std::path::Path;

use serde_json::json;
use sha2::{Digest, Sha256};
use toml_edit::{value, ArrayOfTables, DocumentMut, Item, Table};

use super::settings::is_stopgate_command;

/// The PostToolUse matcher stopgate installs: an exact list (Codex also
/// tests `apply_patch` under the aliases `Edit` and `Write`).
pub const POST_MATCHER: &str = "apply_patch|Bash";

/// The hook timeout, in seconds (Codex's unit): above the hook's own
/// budget, so the hook always ends first.
pub const TIMEOUT_S: i64 = 70;

/// The events stopgate installs, with their matchers. Codex ignores a Stop
/// group's matcher, so none is written.
pub const EVENTS: &[(&str, Option<&str>)] =
    &[("PostToolUse", Some(POST_MATCHER)), ("Stop", None)];

/// An event's name as trust keys and hashes spell it: `PostToolUse` is
/// `post_tool_use`.
pub fn event_label(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The trust hash Codex computes for a command hook.
pub fn trust_hash(
    event: &str,
    matcher: Option<&str>,
    command: &str,
    timeout_s: i64,
) -> String {
    // Keys in sorted order: `serde_json`'s map keeps insertion order here.
    let handler = json!({
        "async": false,
        "command": command,
        "timeout": timeout_s.max(1),
        "type": "command",
    });
    let mut identity = serde_json::Map::new();
    identity.insert("event_name".into(), json!(event_label(event)));
    identity.insert("hooks".into(), json!([handler]));
    if let Some(m) = matcher {
        identity.insert("matcher".into(), json!(m));
    }
    let bytes = serde_json::to_vec(&identity).unwrap_or_default();
    let digest = Sha256::digest(&bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// A trust entry's key.
pub fn trust_key(
    config: &Path,
    event: &str,
    group: usize,
    handler: usize,
) -> String {
    format!("{}:{}:{group}:{handler}", config.display(), event_label(event))
}

/// Parse a config.toml, naming the file, line and column on error.
pub fn parse(text: &str, path: &Path) -> Result<DocumentMut, String> {
    text.parse::<DocumentMut>().map_err(|e| {
        let at = e
            .span()
            .map(|s| {
                let line = text[..s.start].matches('\n').count() + 1;
                let col = s.start - text[..s.start].rfind('\n').map_or(0, |i| i + 1) + 1;
                format!(":{line}:{col}")
            })
            .unwrap_or_default();
        format!(
            "{}{at}: not valid TOML ({}); fix it by hand first, nothing was changed",
            path.display(),
            e.message()
        )
    })
}

/// The config text with stopgate's hooks (PostToolUse and Stop, running
/// `command`) and their trust entries, replacing any stopgate hooks it had.
/// `config` is the file's absolute path, which the trust keys name.
pub fn merge(
    text: &str,
    path: &Path,
    config: &Path,
    command: &str,
) -> Result<String, String> {
    let (mut doc, _) = removed(parse(text, path)?, config);
    let hooks = table_at(doc.as_table_mut(), "hooks").ok_or_else(|| {
        format!("{}: `hooks` is not a table", path.display())
    })?;
    let mut trusted = vec![];
    for &(event, matcher) in EVENTS {
        let groups = match hooks
            .entry(event)
            .or_insert(Item::ArrayOfTables(ArrayOfTables::new()))
        {
            Item::ArrayOfTables(a) => a,
            _ => {
                return Err(format!(
                    "{}: `hooks.{event}` is not an array of tables",
                    path.display()
                ))
            }
        };
        let mut handler = Table::new();
        handler.insert("type", value("command"));
        handler.insert("command", value(command));
        handler.insert("timeout", value(TIMEOUT_S));
        let mut handlers = ArrayOfTables::new();
        handlers.push(handler);
        let mut group = Table::new();
        if let Some(m) = matcher {
            group.insert("matcher", value(m));
        }
        group.insert("hooks", Item::ArrayOfTables(handlers));
        groups.push(group);
        let key = trust_key(config, event, groups.len() - 1, 0);
        trusted.push((key, trust_hash(event, matcher, command, TIMEOUT_S)));
    }
    let state = table_at(hooks, "state").ok_or_else(|| {
        format!("{}: `hooks.state` is not a table", path.display())
    })?;
    for (key, hash) in trusted {
        let mut entry = Table::new();
        entry.insert("trusted_hash", value(hash));
        state.insert(&key, Item::Table(entry));
    }
    Ok(doc.to_string())
}

/// The config text without stopgate's hooks and their trust entries, and
/// how many hooks went. The trust entries of the hooks that stay move to
/// their new positions.
pub fn remove(
    text: &str,
    path: &Path,
    config: &Path,
) -> Result<(String, usize), String> {
    let (doc, n) = removed(parse(text, path)?, config);
    Ok((doc.to_string(), n))
}

/// The stopgate hooks in a config: `(event, matcher, command)`.
pub fn installed(text: &str) -> Vec<(String, String, String)> {
    let Ok(doc) = text.parse::<DocumentMut>() else { return vec![] };
    let mut out = vec![];
    let Some(hooks) = doc.get("hooks").and_then(Item::as_table) else {
        return out;
    };
    for (event, item) in hooks.iter() {
        let Some(groups) = item.as_array_of_tables() else { continue };
        for group in groups.iter() {
            let matcher =
                group.get("matcher").and_then(Item::as_str).unwrap_or("");
            for h in handlers_of(group).into_iter().flat_map(|a| a.iter()) {
                if let Some(c) = h
                    .get("command")
                    .and_then(Item::as_str)
                    .filter(|c| is_stopgate_command(c))
                {
                    out.push((
                        event.to_string(),
                        matcher.to_string(),
                        c.to_string(),
                    ));
                }
            }
        }
    }
    out
}

/// Whether the config trusts each of stopgate's hooks with the hash its
/// current definition has: the trust keys whose entry is missing or stale.
pub fn untrusted(text: &str, config: &Path) -> Vec<String> {
    let Ok(doc) = text.parse::<DocumentMut>() else { return vec![] };
    let Some(hooks) = doc.get("hooks").and_then(Item::as_table) else {
        return vec![];
    };
    let state = hooks.get("state").and_then(Item::as_table);
    let mut out = vec![];
    for (event, item) in hooks.iter() {
        let Some(groups) = item.as_array_of_tables() else { continue };
        for (g, group) in groups.iter().enumerate() {
            let matcher = group
                .get("matcher")
                .and_then(Item::as_str)
                .filter(|_| event != "Stop" && event != "UserPromptSubmit");
            for (h, handler) in handlers_of(group)
                .into_iter()
                .flat_map(|a| a.iter())
                .enumerate()
            {
                let Some(command) =
                    handler.get("command").and_then(Item::as_str)
                else {
                    continue;
                };
                if !is_stopgate_command(command) {
                    continue;
                }
                let timeout = handler
                    .get("timeout")
                    .and_then(Item::as_integer)
                    .unwrap_or(600);
                let want = trust_hash(event, matcher, command, timeout);
                let key = trust_key(config, event, g, h);
                let have = state
                    .and_then(|s| s.get(&key))
                    .and_then(|e| e.get("trusted_hash"))
                    .and_then(Item::as_str);
                if have != Some(want.as_str()) {
                    out.push(key);
                }
            }
        }
    }
    out
}

fn handlers_of(group: &Table) -> Option<&ArrayOfTables> {
    group.get("hooks").and_then(Item::as_array_of_tables)
}

/// The table at `key` in `parent`, created (implicit) when missing.
fn table_at<'a>(parent: &'a mut Table, key: &str) -> Option<&'a mut Table> {
    let item = parent.entry(key).or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    item.as_table_mut()
}

/// Remove stopgate's handlers, the groups and events they leave empty, and
/// their trust entries; move the other handlers' trust entries to their
/// new keys. Returns the document and how many handlers went.
fn removed(mut doc: DocumentMut, config: &Path) -> (DocumentMut, usize) {
    let Some(hooks) = doc.get_mut("hooks").and_then(Item::as_table_mut) else {
        return (doc, 0);
    };
    // (old key, new key) for every kept handler; `None` for removed ones.
    let mut moves: Vec<(String, Option<String>)> = vec![];
    let mut removed = 0;
    let mut emptied = vec![];
    for (event, item) in hooks.iter_mut() {
        let event = event.get().to_string();
        if event == "state" {
            continue;
        }
        let Some(groups) = item.as_array_of_tables_mut() else { continue };
        let before = groups.len();
        removed += remove_ours(groups, config, &event, &mut moves);
        if groups.is_empty() && before > 0 {
            emptied.push(event);
        }
    }
    for e in emptied {
        hooks.remove(&e);
    }
    move_trust(hooks, &moves);
    if hooks.is_empty() {
        doc.remove("hooks");
    }
    (doc, removed)
}

/// Remove stopgate's handlers from the groups of `event`, and the groups
/// they leave empty; push each handler's (old key, new key) onto `moves`.
/// Returns how many handlers went.
fn remove_ours(
    groups: &mut ArrayOfTables,
    config: &Path,
    event: &str,
    moves: &mut Vec<(String, Option<String>)>,
) -> usize {
    let ours = |handler: &Table| {
        handler
            .get("command")
            .and_then(Item::as_str)
            .is_some_and(is_stopgate_command)
    };
    let mut removed = 0;
    let mut kept_groups = 0;
    let mut g = 0;
    groups.retain(|group| {
        let this = g;
        g += 1;
        let Some(handlers) = handlers_of(group) else {
            kept_groups += 1;
            return true;
        };
        let mut kept = 0;
        for (h, handler) in handlers.iter().enumerate() {
            let old = trust_key(config, event, this, h);
            if ours(handler) {
                removed += 1;
                moves.push((old, None));
            } else {
                let new = trust_key(config, event, kept_groups, kept);
                moves.push((old, Some(new)));
                kept += 1;
            }
        }
        let keep = kept > 0 || handlers.is_empty();
        kept_groups += usize::from(keep);
        keep
    });
    for group in groups.iter_mut() {
        if let Some(handlers) =
            group.get_mut("hooks").and_then(Item::as_array_of_tables_mut)
        {
            handlers.retain(|h| !ours(h));
        }
    }
    removed
}

/// Move the trust entries under `hooks.state` by `moves`: a removed
/// handler's entry goes, a kept one's takes its new key.
fn move_trust(hooks: &mut Table, moves: &[(String, Option<String>)]) {
    let Some(state) = hooks.get_mut("state").and_then(Item::as_table_mut)
    else {
        return;
    };
    let mut moved = vec![];
    for (old, new) in moves {
        if let Some(entry) = state.remove(old) {
            if let Some(new) = new {
                moved.push((new.clone(), entry));
            }
        }
    }
    for (key, entry) in moved {
        state.insert(&key, entry);
    }
    if state.is_empty() {
        hooks.remove("state");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = "/home/u/.codex/config.toml";

    #[test]
    fn labels() {
        assert_eq!(event_label("PostToolUse"), "post_tool_use");
        assert_eq!(event_label("Stop"), "stop");
    }

    #[test]
    fn the_hash_is_over_the_sorted_compact_identity() {
        let want = {
            let s = r#"{"event_name":"stop","hooks":[{"async":false,"command":"x","timeout":30,"type":"command"}]}"#;
            let d = Sha256::digest(s.as_bytes());
            format!(
                "sha256:{}",
                d.iter().map(|b| format!("{b:02x}")).collect::<String>()
            )
        };
        assert_eq!(trust_hash("Stop", None, "x", 30), want);
        assert_ne!(trust_hash("Stop", None, "x", 31), want);
        assert_ne!(trust_hash("PostToolUse", Some("Bash"), "x", 30), want);
    }

    #[test]
    fn merge_keeps_the_rest_trusts_ours_and_remove_renumbers() {
        let path = Path::new(CONFIG);
        let text = "# mine\nmodel = \"gpt-5\"\n\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"notify\"\n\n[hooks.state.\"/home/u/.codex/config.toml:stop:0:0\"]\ntrusted_hash = \"sha256:abc\"\n";
        let merged =
            merge(text, path, path, "/opt/stopgate hook --agent codex")
                .unwrap();
        assert!(merged.starts_with("# mine\nmodel = \"gpt-5\"\n"));
        assert!(untrusted(&merged, path).is_empty(), "{merged}");
        assert_eq!(installed(&merged).len(), 2);
        // Idempotent.
        assert_eq!(
            merge(&merged, path, path, "/opt/stopgate hook --agent codex")
                .unwrap(),
            merged
        );
        let stop_key = trust_key(path, "Stop", 1, 0);
        assert!(merged.contains(&stop_key), "{merged}");

        let (back, n) = remove(&merged, path, path).unwrap();
        assert_eq!(n, 2);
        assert!(installed(&back).is_empty());
        assert!(
            back.contains(
                "config.toml:stop:0:0\"]\ntrusted_hash = \"sha256:abc\""
            ),
            "{back}"
        );

        // Ours first, the user's hook after: its trust moves from 1 to 0.
        let ours_first = merge("", path, path, "/opt/stopgate hook --agent codex").unwrap()
            + "\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"notify\"\n"
            + "\n[hooks.state.\"/home/u/.codex/config.toml:stop:1:0\"]\ntrusted_hash = \"sha256:abc\"\n";
        let (back, n) = remove(&ours_first, path, path).unwrap();
        assert_eq!(n, 2);
        assert!(back.contains("config.toml:stop:0:0"), "{back}");
        assert!(!back.contains("config.toml:stop:1:0"), "{back}");
        assert!(!back.contains("post_tool_use"), "{back}");
    }

    #[test]
    fn bad_toml_names_the_line() {
        let e = merge("a = \n", Path::new("c.toml"), Path::new(CONFIG), "x")
            .unwrap_err();
        assert!(e.starts_with("c.toml:1:"), "{e}");
    }
}
