//! `stopgate install` and `stopgate uninstall`: edit Claude Code's
//! settings.json safely.
//!
//! Nothing is lost: a file that is not valid JSON is refused, a backup is
//! written before any change, and the new file replaces the old one by
//! rename, so a crash leaves either the old file or the new one.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

use super::settings;

/// Which settings file to edit.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// ~/.claude/settings.json: every project of this user.
    User,
    /// .claude/settings.json in the project: shared with the team.
    Project,
    /// .claude/settings.local.json in the project: this machine only.
    Local,
}

/// Arguments of `stopgate install` and `stopgate uninstall`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Which settings file to edit. The project is $CLAUDE_PROJECT_DIR, or
    /// else the current directory.
    #[arg(long, value_enum, default_value = "user")]
    scope: Scope,

    /// Edit this settings file instead.
    #[arg(long, value_name = "PATH")]
    settings: Option<PathBuf>,

    /// Print the resulting settings.json instead of writing it.
    #[arg(long)]
    dry_run: bool,
}

/// The settings file a scope names.
pub fn settings_path(scope: Scope) -> Option<PathBuf> {
    let project = || {
        std::env::var_os("CLAUDE_PROJECT_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::current_dir().ok())
    };
    match scope {
        Scope::User => {
            let home = std::env::var_os("HOME").filter(|v| !v.is_empty())?;
            Some(Path::new(&home).join(".claude/settings.json"))
        }
        Scope::Project => Some(project()?.join(".claude/settings.json")),
        Scope::Local => Some(project()?.join(".claude/settings.local.json")),
    }
}

/// Read a settings file: `{}` when missing or empty, an error message
/// naming the file when it is not valid JSON.
pub fn read_settings(path: &Path) -> Result<Value, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Value::Object(Default::default()))
        }
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(&text).map_err(|e| {
        format!("{}: not valid JSON ({e}); fix it by hand first, nothing was changed", path.display())
    })
}

/// Run `stopgate install` (`remove` false) or `stopgate uninstall`.
pub fn run(args: &Args, remove: bool) -> ExitCode {
    match run_inner(args, remove) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("stopgate: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run_inner(args: &Args, remove: bool) -> Result<(), String> {
    let path = match &args.settings {
        Some(p) => p.clone(),
        None => settings_path(args.scope).ok_or(
            "cannot tell where the settings file is: HOME is not set",
        )?,
    };
    let original = read_settings(&path)?;
    let mut updated = original.clone();
    let summary = if remove {
        let n = settings::remove(&mut updated);
        format!("removed {n} stopgate hook entries from {}", path.display())
    } else {
        let exe = std::env::current_exe()
            .and_then(|p| p.canonicalize())
            .map_err(|e| format!("cannot find this binary's path: {e}"))?;
        let command = settings::command_for(&exe.to_string_lossy());
        settings::merge(&mut updated, &command)
            .map_err(|e| format!("{}: {}", path.display(), e.0))?;
        format!("installed `{command}` for PostToolUse ({}), Stop and SubagentStop in {}", settings::POST_MATCHER, path.display())
    };
    let text = serde_json::to_string_pretty(&updated)
        .expect("a JSON value serialises")
        + "\n";
    if args.dry_run {
        print!("{text}");
        return Ok(());
    }
    if updated == original && path.exists() {
        println!("{}: already up to date", path.display());
        return Ok(());
    }
    write_with_backup(&path, &text)?;
    println!("{summary}");
    Ok(())
}

/// Back the old file up (if any), then write the new one atomically.
fn write_with_backup(path: &Path, text: &str) -> Result<(), String> {
    let err = |what: &str, p: &Path, e: std::io::Error| {
        format!("{what} {}: {e}", p.display())
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| err("creating", dir, e))?;
    }
    if path.exists() {
        let backup = path.with_extension("json.stopgate-backup");
        std::fs::copy(path, &backup)
            .map_err(|e| err("backing up to", &backup, e))?;
        println!("backup: {}", backup.display());
    }
    let tmp = path.with_extension("json.stopgate-tmp");
    let mut f =
        std::fs::File::create(&tmp).map_err(|e| err("writing", &tmp, e))?;
    f.write_all(text.as_bytes())
        .and_then(|()| f.sync_all())
        .map_err(|e| err("writing", &tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| err("replacing", path, e))
}
