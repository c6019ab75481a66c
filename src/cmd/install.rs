//! `stopgate install` and `stopgate uninstall`: edit Claude Code's
//! settings.json safely.
//!
//! Nothing is lost: a file that is not valid JSON is refused, a new backup
//! is written before any change (never over an earlier one), and the new
//! file replaces the old one by rename, so a crash leaves either the old
//! file or the new one. The file keeps its mode and owner, a symlinked
//! settings file is written through to its target, and no file is ever
//! written through a link someone planted beside it.

use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
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

/// A settings file as read: its text (empty when missing) and its value
/// (`{}` when missing or empty).
pub struct Settings {
    /// The file's text, as the user wrote it.
    pub text: String,
    /// The parsed value.
    pub value: Value,
}

/// Read a settings file: `{}` when missing or empty, an error message
/// naming the file when it is not valid JSON.
pub fn read_settings(path: &Path) -> Result<Value, String> {
    read_settings_text(path).map(|s| s.value)
}

/// Read a settings file with its text: see [`read_settings`].
pub fn read_settings_text(path: &Path) -> Result<Settings, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    if text.trim().is_empty() {
        return Ok(Settings {
            text,
            value: Value::Object(Default::default()),
        });
    }
    let value = serde_json::from_str(&text).map_err(|e| {
        format!("{}: not valid JSON ({e}); fix it by hand first, nothing was changed", path.display())
    })?;
    Ok(Settings { text, value })
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
    let Settings { text: original_text, value: original } =
        read_settings_text(&path)?;
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
    if updated == original {
        if args.dry_run {
            print!("{original_text}");
        } else if path.exists() {
            println!("{}: already up to date", path.display());
        } else {
            println!("{}: no settings file, nothing to do", path.display());
        }
        return Ok(());
    }
    // Only the `hooks` value is written anew; the rest of the file keeps
    // its bytes. The result must read back as the intended settings.
    let text = settings::splice_hooks(&original_text, &updated["hooks"])
        .map_err(|e| format!("{}: {}", path.display(), e.0))?;
    if serde_json::from_str::<Value>(&text).ok().as_ref() != Some(&updated) {
        return Err(format!(
            "{}: cannot edit this file safely (duplicate keys?); nothing was changed",
            path.display()
        ));
    }
    if args.dry_run {
        print!("{text}");
        return Ok(());
    }
    write_with_backup(&path, &text, args.settings.is_none())?;
    println!("{summary}");
    Ok(())
}

/// Back the old file up (if any), then write the new one atomically.
///
/// A symlinked settings file (a dotfiles setup) is written through: the
/// link's final target is replaced, and the link stays. The new file keeps
/// the old one's mode and owner (it may hold secrets in `env`). The backup
/// and the temporary file are created exclusively, under names no one else
/// holds, next to the real target, so a planted link is never followed and
/// two installs never share a file.
fn write_with_backup(
    path: &Path,
    text: &str,
    create_dirs: bool,
) -> Result<(), String> {
    let err = |what: &str, p: &Path, e: std::io::Error| {
        format!("{what} {}: {e}", p.display())
    };
    let target = real_target(path).map_err(|e| err("resolving", path, e))?;
    let dir = match target.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(d) => d.to_path_buf(),
        None => PathBuf::from("."),
    };
    if !dir.is_dir() {
        if !create_dirs {
            return Err(format!(
                "{}: the folder does not exist; create it first",
                dir.display()
            ));
        }
        std::fs::create_dir_all(&dir).map_err(|e| err("creating", &dir, e))?;
    }
    let old = match std::fs::metadata(&target) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(err("reading", &target, e)),
    };
    let mode = old.as_ref().map_or_else(new_file_mode, |m| m.mode() & 0o7777);
    if old.is_some() {
        let backup = backup(&target, mode)
            .map_err(|e| err("backing up", &target, e))?;
        println!("backup: {}", backup.display());
    }
    let name = target.file_name().map_or_else(
        || "settings".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".stopgate-tmp")
        .tempfile_in(&dir)
        .map_err(|e| err("creating a temporary file in", &dir, e))?;
    let tmp_path = tmp.path().to_path_buf();
    let file = tmp.as_file_mut();
    file.set_permissions(std::fs::Permissions::from_mode(mode))
        .map_err(|e| err("setting the mode of", &tmp_path, e))?;
    if let Some(m) = &old {
        // Only root can give a file away; for anyone else the owner is
        // already right, or the call fails harmlessly.
        let _ =
            std::os::unix::fs::fchown(&*file, Some(m.uid()), Some(m.gid()));
    }
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| err("writing", &tmp_path, e))?;
    tmp.persist(&target).map_err(|e| err("replacing", &target, e.error))?;
    Ok(())
}

/// The file a settings path finally names: the path itself, or the end
/// of its chain of symlinks. A dangling link is an error.
fn real_target(path: &Path) -> std::io::Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path),
        _ => Ok(path.to_path_buf()),
    }
}

/// Copy `target` to a new backup file beside it: `NAME.stopgate-backup`,
/// else `NAME.stopgate-backup.1`, `.2`, …; an earlier backup is never
/// overwritten, and a name someone else planted (a link) is skipped.
fn backup(target: &Path, mode: u32) -> std::io::Result<PathBuf> {
    let original = std::fs::read(target)?;
    for n in 0u32.. {
        let mut name = target.as_os_str().to_owned();
        name.push(".stopgate-backup");
        if n > 0 {
            name.push(format!(".{n}"));
        }
        let path = PathBuf::from(name);
        let created = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode & 0o666)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path);
        match created {
            Ok(mut f) => {
                f.write_all(&original)?;
                f.sync_all()?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    unreachable!("u32 backup names ran out")
}

/// The mode of a new file: 0666 less the process's umask, as `open`
/// would give it.
fn new_file_mode() -> u32 {
    // SAFETY: `umask` cannot fail; it is set back at once. The CLI has no
    // other thread creating files meanwhile.
    let mask = unsafe {
        let mask = libc::umask(0o022);
        libc::umask(mask);
        mask
    };
    // `mode_t` is `u16` on some Unixes.
    #[allow(clippy::useless_conversion)]
    let mask = u32::from(mask);
    0o666 & !mask
}
