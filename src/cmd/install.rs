//! `stopgate install` and `stopgate uninstall`: edit an agent's hook
//! settings safely: Claude Code's and Gemini CLI's settings.json, Codex
//! CLI's config.toml.
//!
//! Nothing is lost: a file that is not valid JSON is refused, a new backup
//! is written before any change (never over an earlier one), and the new
//! file replaces the old one by rename, so a crash leaves either the old
//! file or the new one. The file keeps its mode and owner, a symlinked
//! settings file is written through to its target, and no file is ever
//! written through a link someone planted beside it, nor restored from a
//! backup install did not write (a link, a FIFO, another user's file, a
//! hard link: see [`read_backup`]).
//!
//! `uninstall` undoes what install did (see [`install_record`]): the file
//! as it was, byte for byte, or no file at all if install created it, when
//! nothing changed the file since; otherwise exactly stopgate's entries go,
//! with the `hooks` object if install created it and it is left empty.

use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

use stopgate::read::Format;

use super::codex_config;
use super::install_record::{self, InstallRecord};
use super::settings;
use super::userfile::{self, MAX_SETTINGS_BYTES};

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
    /// (Claude Code only; default: user.)
    #[arg(long, value_enum)]
    scope: Option<Scope>,

    /// Edit this settings file instead.
    #[arg(long, value_name = "PATH")]
    settings: Option<PathBuf>,

    /// Print the resulting settings.json instead of writing it.
    #[arg(long)]
    dry_run: bool,

    /// The agent whose hooks to edit: claude (~/.claude/settings.json, or
    /// --scope), codex ($CODEX_HOME/config.toml, default ~/.codex: the
    /// hooks and the trust entries Codex requires) or gemini
    /// ($GEMINI_CLI_HOME/.gemini/settings.json, default ~/.gemini).
    #[arg(long, value_name = "AGENT", default_value = "claude", value_parser = super::AGENTS)]
    agent: String,
}

impl Args {
    fn agent(&self) -> Format {
        Format::from_name(&self.agent).unwrap_or_default()
    }

    fn scope(&self) -> Scope {
        self.scope.unwrap_or(Scope::User)
    }
}

/// `$CODEX_HOME` (resolved, as Codex resolves it), else `~/.codex`.
pub fn codex_home() -> Option<PathBuf> {
    match std::env::var_os("CODEX_HOME").filter(|v| !v.is_empty()) {
        Some(h) => {
            let h = PathBuf::from(h);
            Some(h.canonicalize().unwrap_or(h))
        }
        None => Some(home()?.join(".codex")),
    }
}

/// Gemini CLI's settings.json: under `$GEMINI_CLI_HOME`, else `~`.
pub fn gemini_settings() -> Option<PathBuf> {
    let base = std::env::var_os("GEMINI_CLI_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(home)?;
    Some(base.join(".gemini/settings.json"))
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// The settings file of an agent (for Claude Code, of a scope).
pub fn agent_settings(agent: Format, scope: Scope) -> Option<PathBuf> {
    match agent {
        Format::Claude => settings_path(scope),
        Format::Codex => Some(codex_home()?.join("config.toml")),
        Format::Gemini => gemini_settings(),
    }
}

/// The project: `$CLAUDE_PROJECT_DIR`, else the current directory.
pub fn project_dir() -> Option<PathBuf> {
    std::env::var_os(settings::PROJECT_DIR_VAR)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
}

/// The settings file a scope names.
pub fn settings_path(scope: Scope) -> Option<PathBuf> {
    let project = project_dir;
    match scope {
        Scope::User => Some(home()?.join(".claude/settings.json")),
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
    let text = match userfile::read_to_string(path, MAX_SETTINGS_BYTES) {
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

/// A settings file as found: where it is, what it holds, and what the
/// last install recorded about it.
struct Found {
    /// The path as named (a symlink stays one).
    path: PathBuf,
    /// The real file it names.
    target: PathBuf,
    /// Its text and value as read.
    settings: Settings,
    /// What the last install did to it, if recorded.
    record: Option<InstallRecord>,
}

fn run_inner(args: &Args, remove: bool) -> Result<(), String> {
    if args.scope.is_some() && args.agent() != Format::Claude {
        return Err(format!(
            "--scope picks one of Claude Code's settings files; {} has one \
             settings file (use --settings PATH for another)",
            args.agent()
        ));
    }
    let path = match &args.settings {
        Some(p) => p.clone(),
        None => agent_settings(args.agent(), args.scope()).ok_or(
            "cannot tell where the settings file is: HOME is not set",
        )?,
    };
    if args.agent() == Format::Codex {
        return codex(args, &path, remove);
    }
    let settings = read_settings_text(&path)?;
    let target = real_target(&path)
        .map_err(|e| format!("resolving {}: {e}", path.display()))?;
    let record = install_record::load(&target);
    let found = Found { path, target, settings, record };
    if remove {
        uninstall(args, &found)
    } else {
        install(args, &found)
    }
}

/// `stopgate install`: merge stopgate's entries, back up, write, record.
fn install(args: &Args, found: &Found) -> Result<(), String> {
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| format!("cannot find this binary's path: {e}"))?;
    let command = match (args.scope(), &args.settings) {
        // The project's file is shared with the team: no path of this
        // machine goes into it.
        (Scope::Project, None) => {
            let project = project_dir()
                .and_then(|p| p.canonicalize().ok())
                .ok_or("cannot tell where the project is")?;
            let command = settings::portable_command_for(&exe, &project);
            if command == "stopgate hook" {
                note_path_lookup(&exe);
            }
            command
        }
        _ => settings::command_for(&exe.to_string_lossy()),
    };
    let (command, dialect) = match args.agent() {
        Format::Gemini => {
            (format!("{command} --agent gemini"), settings::Dialect::GEMINI)
        }
        _ => (command, settings::Dialect::CLAUDE),
    };
    let original = &found.settings;
    let mut updated = original.value.clone();
    settings::merge(&mut updated, &command, dialect)
        .map_err(|e| format!("{}: {}", found.path.display(), e.0))?;
    let Some(text) = edited_text(args, found, &updated)? else {
        return Ok(());
    };
    let written =
        write_with_backup(&found.path, &text, args.settings.is_none())?;
    record_install(
        &found.path,
        &found.target,
        found.record.clone(),
        (&original.text, &text),
        written,
        original.value.get("hooks").is_none(),
    );
    let events: Vec<String> = dialect
        .events
        .iter()
        .map(|(e, m)| match *m {
            "" => e.to_string(),
            m => format!("{e} ({m})"),
        })
        .collect();
    println!(
        "installed `{command}` for {} in {}",
        events.join(", "),
        found.path.display()
    );
    Ok(())
}

/// `stopgate install --agent codex` and its uninstall: the hooks and their
/// trust entries in Codex CLI's config.toml ([`codex_config`]), with the
/// same backup, record and undo as settings.json.
fn codex(args: &Args, path: &Path, remove: bool) -> Result<(), String> {
    let text = match userfile::read_to_string(path, MAX_SETTINGS_BYTES) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let target = real_target(path)
        .map_err(|e| format!("resolving {}: {e}", path.display()))?;
    // The trust keys name the file as Codex does: its absolute path.
    let config = std::path::absolute(path).unwrap_or_else(|_| path.into());
    let record = install_record::load(&target);
    if remove {
        if let Some(record) = untouched(args, path, record.as_ref(), &text) {
            if undo(path, &target, record)? {
                return Ok(());
            }
        }
        let (updated, n) = codex_config::remove(&text, path, &config)?;
        if args.dry_run {
            print!("{updated}");
            return Ok(());
        }
        if n == 0 {
            println!("{}: no stopgate hooks, nothing to do", path.display());
            return Ok(());
        }
        let created = record
            .as_ref()
            .filter(|r| r.backup.is_none() && updated.trim().is_empty());
        match created {
            Some(record) => remove_created(&target, record)?,
            None => {
                write_with_backup(path, &updated, args.settings.is_none())?;
            }
        }
        install_record::forget(&target);
        println!(
            "removed {n} stopgate hooks and their trust entries from {}",
            path.display()
        );
        return Ok(());
    }
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| format!("cannot find this binary's path: {e}"))?;
    let command = format!(
        "{} --agent codex",
        settings::command_for(&exe.to_string_lossy())
    );
    let updated = codex_config::merge(&text, path, &config, &command)?;
    if args.dry_run {
        print!("{updated}");
        return Ok(());
    }
    if updated == text {
        println!("{}: already up to date", path.display());
        return Ok(());
    }
    let written = write_with_backup(path, &updated, args.settings.is_none())?;
    record_install(path, &target, record, (&text, &updated), written, false);
    println!(
        "installed `{command}` for PostToolUse ({}) and Stop in {}, trusted \
         (Codex runs a hook only once its definition is trusted)",
        codex_config::POST_MATCHER,
        path.display()
    );
    Ok(())
}

/// `stopgate uninstall`: undo the install when nothing changed the file
/// since, else remove exactly stopgate's entries.
fn uninstall(args: &Args, found: &Found) -> Result<(), String> {
    let original = &found.settings;
    if let Some(record) =
        untouched(args, &found.path, found.record.as_ref(), &original.text)
    {
        if undo(&found.path, &found.target, record)? {
            return Ok(());
        }
    }
    let mut updated = original.value.clone();
    let n = settings::remove(&mut updated);
    // A `hooks` object install created, and nothing else uses, goes with
    // the entries.
    let created_hooks = found.record.as_ref().is_some_and(|r| r.created_hooks);
    if created_hooks
        && updated["hooks"].as_object().is_some_and(|h| h.is_empty())
    {
        updated.as_object_mut().map(|o| o.remove("hooks"));
    }
    let Some(text) = edited_text(args, found, &updated)? else {
        return Ok(());
    };
    // Install made this file; with stopgate gone it holds nothing.
    let created = found.record.as_ref().filter(|r| {
        r.backup.is_none() && updated.as_object().is_some_and(|o| o.is_empty())
    });
    match created {
        Some(record) => remove_created(&found.target, record)?,
        None => {
            write_with_backup(&found.path, &text, args.settings.is_none())?;
        }
    }
    install_record::forget(&found.target);
    println!(
        "removed {n} stopgate hook entries from {}",
        found.path.display()
    );
    Ok(())
}

/// The file's new text for `updated`, or `None` when there is nothing to
/// write (unchanged, or a dry run, which prints it instead).
///
/// Only the `hooks` value is written anew; the rest of the file keeps its
/// bytes. The result must read back as the intended settings.
fn edited_text(
    args: &Args,
    found: &Found,
    updated: &Value,
) -> Result<Option<String>, String> {
    let (path, original) = (&found.path, &found.settings);
    if *updated == original.value {
        if args.dry_run {
            print!("{}", original.text);
        } else if path.exists() {
            println!("{}: already up to date", path.display());
        } else {
            println!("{}: no settings file, nothing to do", path.display());
        }
        return Ok(None);
    }
    let text = match updated.get("hooks") {
        Some(hooks) => settings::splice_hooks(&original.text, hooks),
        None => settings::splice_out_hooks(&original.text),
    }
    .map_err(|e| format!("{}: {}", path.display(), e.0))?;
    if serde_json::from_str::<Value>(&text).ok().as_ref() != Some(updated) {
        return Err(format!(
            "{}: cannot edit this file safely (duplicate keys?); nothing was changed",
            path.display()
        ));
    }
    if args.dry_run {
        print!("{text}");
        return Ok(None);
    }
    Ok(Some(text))
}

/// Say what a bare `stopgate` in the project's settings will run here.
fn note_path_lookup(exe: &Path) {
    let found = settings::resolve_program(
        "stopgate",
        None,
        std::env::var_os("PATH").as_deref(),
    );
    match found.and_then(|p| p.canonicalize().ok()) {
        None => println!(
            "note: the project's settings run `stopgate` from PATH, and it \
             is not on this machine's PATH: the hook will not run until it \
             is (`cargo install --path . --locked`, or copy {} onto PATH); \
             teammates need it on theirs",
            exe.display()
        ),
        Some(p) if p != exe => println!(
            "note: the project's settings run `stopgate` from PATH, which \
             here is {}, not this binary ({})",
            p.display(),
            exe.display()
        ),
        Some(_) => {}
    }
}

/// The record of the install to undo byte for byte: one that wrote the
/// file as it is now, whose backup (if any) is still there, in whatever
/// form: [`undo`] judges it. (A backup someone removed since: uninstall
/// removes the entries instead.)
fn untouched<'a>(
    args: &Args,
    path: &Path,
    record: Option<&'a InstallRecord>,
    text: &str,
) -> Option<&'a InstallRecord> {
    record.filter(|r| {
        !args.dry_run
            && path.exists()
            && r.wrote(text)
            && r.backup.as_ref().is_none_or(|b| b.symlink_metadata().is_ok())
    })
}

/// Record what an install wrote (`texts`: before, after). Installing over
/// an earlier install that nothing changed since keeps what that one
/// recorded: uninstall goes back to the file before both.
fn record_install(
    path: &Path,
    target: &Path,
    earlier: Option<InstallRecord>,
    texts: (&str, &str),
    written: Written,
    created_hooks: bool,
) {
    let (before, after) = texts;
    let record = match earlier.filter(|r| r.wrote(before)) {
        Some(r) => InstallRecord { written: InstallRecord::hash(after), ..r },
        None => InstallRecord {
            settings: real_target(path).unwrap_or_else(|_| target.into()),
            written: InstallRecord::hash(after),
            backup: written.backup,
            created_dirs: written.created_dirs,
            created_hooks,
        },
    };
    if let Err(e) = install_record::save(&record) {
        println!(
            "note: cannot record this install ({e}); uninstall will remove \
             stopgate's entries, but cannot restore the file byte for byte"
        );
    }
}

/// Undo an install that nothing changed since: put the backup's bytes
/// back, or remove the file (and the folders) install created. `false`
/// when the backup is not one install wrote (see [`read_backup`]): the
/// caller removes stopgate's entries instead.
fn undo(
    path: &Path,
    target: &Path,
    record: &InstallRecord,
) -> Result<bool, String> {
    match &record.backup {
        None => {
            remove_created(target, record)?;
            println!(
                "removed {} (stopgate's install created it)",
                path.display()
            );
        }
        Some(backup) => {
            let before = match read_backup(backup)? {
                Backup::Text(before) => before,
                Backup::Refused(why) => {
                    eprintln!(
                        "stopgate: not restoring {} from {}: {why}, so \
                         install did not write it; removing stopgate's \
                         entries instead",
                        path.display(),
                        backup.display()
                    );
                    return Ok(false);
                }
            };
            replace_file_with(target, &before, false, false)?;
            // The backup now equals the file: keep no copy of it.
            let _ = std::fs::remove_file(backup);
            println!(
                "restored {} as it was before install, byte for byte",
                path.display()
            );
        }
    }
    install_record::forget(target);
    Ok(true)
}

/// A backup as [`read_backup`] found it.
enum Backup {
    /// The text of a backup install wrote.
    Text(String),
    /// Why it is not one: it is not to be read, let alone restored.
    Refused(String),
}

/// Read the backup at `path`, if it is still the file install wrote: a
/// regular file, owned by this user, with one link.
///
/// Anyone who can write the folder can replace the backup: with a link to
/// a private key, restoring would copy the key into a settings file the
/// whole team shares. So it is opened without following a link (and
/// without blocking on a FIFO), and judged by the file opened, not by its
/// name, so a swap after the check changes nothing.
fn read_backup(path: &Path) -> Result<Backup, String> {
    let cannot = |e: std::io::Error| {
        format!(
            "{}: the backup of the file before install cannot be read \
             ({e}); nothing was changed",
            path.display()
        )
    };
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path);
    let mut file = match opened {
        Ok(f) => f,
        Err(_) if path.symlink_metadata().is_ok_and(|m| m.is_symlink()) => {
            return Ok(Backup::Refused("it is a symbolic link".into()))
        }
        Err(e) => return Err(cannot(e)),
    };
    let meta = file.metadata().map_err(cannot)?;
    if let Some(why) = unlike_a_backup(&meta) {
        return Ok(Backup::Refused(why));
    }
    let mut before = vec![];
    std::io::Read::read_to_end(&mut file, &mut before).map_err(cannot)?;
    String::from_utf8(before).map(Backup::Text).map_err(|_| {
        format!("{}: not UTF-8; nothing was changed", path.display())
    })
}

/// Why a file is not a backup install wrote, if it is not.
fn unlike_a_backup(meta: &std::fs::Metadata) -> Option<String> {
    // SAFETY: `geteuid` has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if !meta.file_type().is_file() {
        Some("it is not a regular file".into())
    } else if meta.uid() != me {
        Some(format!("it is owned by user {}, not by you", meta.uid()))
    } else if meta.nlink() != 1 {
        Some(format!("it has {} links, not one", meta.nlink()))
    } else {
        None
    }
}

/// Remove a settings file install created, and the folders it created
/// for it if they are empty.
fn remove_created(
    target: &Path,
    record: &InstallRecord,
) -> Result<(), String> {
    std::fs::remove_file(target)
        .map_err(|e| format!("removing {}: {e}", target.display()))?;
    for dir in record.created_dirs.iter().rev() {
        // Only an empty folder goes; one the user has since filled stays.
        let _ = std::fs::remove_dir(dir);
    }
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
) -> Result<Written, String> {
    let target = real_target(path)
        .map_err(|e| format!("resolving {}: {e}", path.display()))?;
    replace_file(&target, text, create_dirs)
        .map(|(backup, created_dirs)| Written { backup, created_dirs })
}

/// What [`write_with_backup`] did besides writing.
struct Written {
    /// The backup of the file it replaced, if there was one.
    backup: Option<PathBuf>,
    /// The folders it created, outermost first.
    created_dirs: Vec<PathBuf>,
}

/// Write `text` to `target` (a real path, not a link) atomically, keeping
/// its mode and owner, backing an existing file up first when `backup`.
/// Returns the backup and the folders created.
fn replace_file_with(
    target: &Path,
    text: &str,
    create_dirs: bool,
    keep_backup: bool,
) -> Result<(Option<PathBuf>, Vec<PathBuf>), String> {
    let err = |what: &str, p: &Path, e: std::io::Error| {
        format!("{what} {}: {e}", p.display())
    };
    let target = target.to_path_buf();
    let dir = match target.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(d) => d.to_path_buf(),
        None => PathBuf::from("."),
    };
    let mut created_dirs = vec![];
    if !dir.is_dir() {
        if !create_dirs {
            return Err(format!(
                "{}: the folder does not exist; create it first",
                dir.display()
            ));
        }
        let mut missing = dir.as_path();
        while !missing.exists() {
            created_dirs.insert(0, missing.to_path_buf());
            match missing.parent() {
                Some(p) => missing = p,
                None => break,
            }
        }
        std::fs::create_dir_all(&dir).map_err(|e| err("creating", &dir, e))?;
    }
    let old = match std::fs::metadata(&target) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(err("reading", &target, e)),
    };
    let mode = old.as_ref().map_or_else(new_file_mode, |m| m.mode() & 0o7777);
    let mut saved = None;
    if old.is_some() && keep_backup {
        let backup = backup(&target, mode)
            .map_err(|e| err("backing up", &target, e))?;
        println!("backup: {}", backup.display());
        saved = Some(backup);
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
    Ok((saved, created_dirs))
}

/// [`replace_file_with`] a backup.
fn replace_file(
    target: &Path,
    text: &str,
    create_dirs: bool,
) -> Result<(Option<PathBuf>, Vec<PathBuf>), String> {
    replace_file_with(target, text, create_dirs, true)
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
    let original = userfile::read(target, MAX_SETTINGS_BYTES)?;
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
