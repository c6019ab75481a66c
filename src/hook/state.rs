//! The hook's state directory: change flags, prompt counters, nag hashes.
//!
//! Hooks of one event run in parallel, and a Stop can race a PostToolUse,
//! so every update here is safe under concurrency:
//!
//! * the change flag is a file of pending changes, one `tool_use_id` a
//!   line, appended with `O_APPEND` (one short `write`, so parallel
//!   appends never interleave): raising it twice is harmless;
//! * everything a Stop reads and writes (the pending changes, the counter,
//!   the changes already audited, the nag hashes) is accessed under an
//!   exclusive `flock` on the session's lock file, held by
//!   [`SessionLock`], and rewritten by rename, so no update is lost and
//!   none is torn. A Stop takes the flag by renaming it away first, so a
//!   change that a PostToolUse appends meanwhile lands in a new flag.
//!
//! The directory is created with mode 0700. A directory that is a symlink
//! or that another user owns is refused: someone else could then plant or
//! read our files. The hook treats a refused directory as "no state" and
//! fails open.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{
    DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt,
};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Entries older than this are removed by [`StateDir::cleanup`].
pub const MAX_AGE: Duration = Duration::from_secs(7 * 24 * 3600);

/// How many audited change keys a session remembers. A turn's changes are
/// compared with them, so this bounds a turn's changes that can be told
/// apart from new ones; far more than any real turn makes.
pub const MAX_SEEN: usize = 4096;

/// At most this many directory entries are examined per cleanup, so that
/// cleanup never costs more than a few microseconds per hook run.
pub const CLEANUP_BUDGET: usize = 32;

/// Where the state directory is, from the environment.
///
/// `$STOPGATE_STATE_DIR`, else `$XDG_STATE_HOME/stopgate`, else
/// `~/.local/state/stopgate`.
pub fn default_dir(var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |k: &str| var(k).filter(|v| !v.is_empty());
    if let Some(dir) = set("STOPGATE_STATE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(xdg) = set("XDG_STATE_HOME") {
        return Some(Path::new(&xdg).join("stopgate"));
    }
    set("HOME").map(|home| Path::new(&home).join(".local/state/stopgate"))
}

/// An open, checked state directory.
#[derive(Clone, Debug)]
pub struct StateDir {
    root: PathBuf,
}

impl StateDir {
    /// Create (mode 0700) or open the state directory at `root`, refusing a
    /// symlink, a non-directory, or a directory another user owns.
    pub fn open(root: &Path) -> io::Result<StateDir> {
        fs::DirBuilder::new().recursive(true).mode(0o700).create(root)?;
        let meta = fs::symlink_metadata(root)?;
        if meta.file_type().is_symlink() {
            return Err(refused(root, "is a symlink"));
        }
        if !meta.is_dir() {
            return Err(refused(root, "is not a directory"));
        }
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != me {
            return Err(refused(root, "is owned by another user"));
        }
        if meta.mode() & 0o077 != 0 {
            fs::set_permissions(root, fs::Permissions::from_mode(0o700))?;
        }
        Ok(StateDir { root: root.to_path_buf() })
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.root
    }

    fn file(&self, key: &str, ext: &str) -> PathBuf {
        self.root.join(format!("{key}.{ext}"))
    }

    /// Raise the change flag of session `key`, recording the change's
    /// `tool_use_id` when the client sent one.
    pub fn raise_flag(
        &self,
        key: &str,
        tool_use_id: Option<&str>,
    ) -> io::Result<()> {
        let mut f = OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o600)
            .open(self.file(key, "flag"))?;
        // Ids are written only when they cannot break the line format.
        match tool_use_id.and_then(super::safe_id) {
            Some(id) => f.write_all(format!("{id}\n").as_bytes()),
            None => Ok(()),
        }
    }

    /// Whether session `key` has its change flag raised.
    pub fn flag_present(&self, key: &str) -> bool {
        self.file(key, "flag").exists()
    }

    /// Delete the change flag; whether it was there.
    pub fn take_flag(&self, key: &str) -> bool {
        fs::remove_file(self.file(key, "flag")).is_ok()
    }

    /// Lock session `key` for reading and updating its state.
    pub fn lock(&self, key: &str) -> io::Result<SessionLock> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(self.file(key, "lock"))?;
        // SAFETY: the descriptor is open for the duration of the call.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(SessionLock {
            dir: self.clone(),
            key: key.to_string(),
            _file: file,
        })
    }

    /// Remove entries older than [`MAX_AGE`], examining at most
    /// [`CLEANUP_BUDGET`] entries. Errors are ignored: cleanup is best
    /// effort.
    pub fn cleanup(&self) {
        let Ok(entries) = fs::read_dir(&self.root) else { return };
        let now = SystemTime::now();
        for entry in entries.take(CLEANUP_BUDGET).flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name == "debug.log" {
                continue;
            }
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .is_some_and(|age| age > MAX_AGE);
            if old && entry.file_type().is_ok_and(|t| t.is_file()) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }

    /// Append a line to `debug.log`; errors are ignored.
    pub fn debug_log(&self, line: &str) {
        let path = self.root.join("debug.log");
        if let Ok(mut f) =
            OpenOptions::new().create(true).append(true).mode(0o600).open(path)
        {
            let _ = writeln!(f, "{line}");
        }
    }
}

fn refused(root: &Path, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("state directory {} {why}", root.display()),
    )
}

/// Exclusive access to one session's state. Dropping it unlocks.
#[derive(Debug)]
pub struct SessionLock {
    dir: StateDir,
    key: String,
    _file: File,
}

impl SessionLock {
    fn read(&self, ext: &str) -> Option<String> {
        let mut s = String::new();
        File::open(self.dir.file(&self.key, ext))
            .ok()?
            .read_to_string(&mut s)
            .ok()?;
        Some(s)
    }

    /// Replace a state file by rename, so a reader never sees half of it.
    fn write(&self, ext: &str, contents: &str) -> io::Result<()> {
        let tmp = self.dir.file(&self.key, &format!("{ext}.tmp"));
        let mut f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(contents.as_bytes())?;
        fs::rename(&tmp, self.dir.file(&self.key, ext))
    }

    /// How many times this session was prompted to audit.
    pub fn prompted(&self) -> u32 {
        self.read("count").and_then(|s| s.trim().parse().ok()).unwrap_or(0)
    }

    /// Record one more prompt; returns the new count.
    pub fn increment_prompted(&self) -> io::Result<u32> {
        let n = self.prompted().saturating_add(1);
        self.write("count", &n.to_string())?;
        Ok(n)
    }

    /// The pending changes: `None` when the flag is down, else the
    /// `tool_use_id`s PostToolUse recorded (possibly none).
    pub fn pending(&self) -> Option<Vec<String>> {
        let text = self.read("flag")?;
        Some(
            text.lines()
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect(),
        )
    }

    /// Consume the pending changes: record their ids and `more` (the
    /// turn's change keys) as audited, and lower the flag.
    ///
    /// The flag is renamed away before it is read, so a change appended
    /// by a concurrent PostToolUse after that lands in a new flag and
    /// stays pending.
    pub fn consume<'k>(
        &self,
        more: impl IntoIterator<Item = &'k str>,
    ) -> io::Result<()> {
        let flag = self.dir.file(&self.key, "flag");
        let taken = self.dir.file(&self.key, "flag.taken");
        let mut ids: Vec<String> = match fs::rename(&flag, &taken) {
            Ok(()) => {
                let mut s = String::new();
                File::open(&taken)?.read_to_string(&mut s)?;
                s.lines()
                    .filter(|l| !l.is_empty())
                    .map(str::to_string)
                    .collect()
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => vec![],
            Err(e) => return Err(e),
        };
        ids.extend(more.into_iter().map(str::to_string));
        let mut seen = self.seen();
        for id in ids {
            if !seen.contains(&id) {
                seen.push(id);
            }
        }
        let keep = seen.len().saturating_sub(MAX_SEEN);
        let mut text = seen[keep..].join("\n");
        text.push('\n');
        self.write("seen", &text)?;
        let _ = fs::remove_file(&taken);
        Ok(())
    }

    /// The keys of the changes already audited (or passed at the cap), the
    /// most recent [`MAX_SEEN`].
    pub fn seen(&self) -> Vec<String> {
        self.read("seen")
            .unwrap_or_default()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    }

    /// The text hashes of the nags already sent.
    pub fn nag_hashes(&self) -> Vec<u64> {
        let text = self.read("nag").unwrap_or_default();
        text.lines()
            .filter_map(|l| u64::from_str_radix(l.trim(), 16).ok())
            .collect()
    }

    /// Record a nag's text hash.
    pub fn record_nag(&self, hash: u64) -> io::Result<()> {
        let mut s = self.read("nag").unwrap_or_default();
        s.push_str(&format!("{hash:016x}\n"));
        self.write("nag", &s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_dir_order() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            default_dir(env(&[
                ("STOPGATE_STATE_DIR", "/s"),
                ("XDG_STATE_HOME", "/x"),
                ("HOME", "/h")
            ])),
            Some(PathBuf::from("/s"))
        );
        assert_eq!(
            default_dir(env(&[("XDG_STATE_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/stopgate"))
        );
        assert_eq!(
            default_dir(env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.local/state/stopgate"))
        );
        assert_eq!(default_dir(env(&[])), None);
    }

    #[test]
    fn flags_counters_and_modes() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("state");
        let dir = StateDir::open(&root).unwrap();
        assert_eq!(fs::metadata(&root).unwrap().mode() & 0o777, 0o700);
        assert!(!dir.flag_present("s"));
        dir.raise_flag("s", None).unwrap();
        dir.raise_flag("s", None).unwrap();
        assert!(dir.flag_present("s"));
        assert!(dir.take_flag("s"));
        assert!(!dir.take_flag("s"));
        let lock = dir.lock("s").unwrap();
        assert_eq!(lock.pending(), None);
        dir.raise_flag("s", Some("toolu_1")).unwrap();
        dir.raise_flag("s", Some("../bad\nid")).unwrap();
        dir.raise_flag("s", Some("toolu_2")).unwrap();
        assert_eq!(
            lock.pending(),
            Some(vec!["toolu_1".to_string(), "toolu_2".to_string()])
        );
        lock.consume(["noid:7:0", "toolu_1"]).unwrap();
        assert_eq!(lock.pending(), None);
        assert_eq!(lock.seen(), vec!["toolu_1", "toolu_2", "noid:7:0"]);
        assert_eq!(lock.prompted(), 0);
        assert_eq!(lock.increment_prompted().unwrap(), 1);
        assert_eq!(lock.increment_prompted().unwrap(), 2);
        assert!(lock.nag_hashes().is_empty());
        lock.record_nag(7).unwrap();
        lock.record_nag(u64::MAX).unwrap();
        assert_eq!(lock.nag_hashes(), vec![7, u64::MAX]);
    }

    #[test]
    fn cleanup_removes_old_entries_only() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir::open(&tmp.path().join("s")).unwrap();
        dir.raise_flag("old", None).unwrap();
        dir.raise_flag("new", None).unwrap();
        let eight_days = Duration::from_secs(8 * 24 * 3600);
        let old = File::options()
            .write(true)
            .open(dir.path().join("old.flag"))
            .unwrap();
        old.set_modified(SystemTime::now() - eight_days).unwrap();
        dir.cleanup();
        assert!(!dir.flag_present("old"));
        assert!(dir.flag_present("new"));
    }

    #[test]
    fn refuses_symlink() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        fs::create_dir(&real).unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(StateDir::open(&link).is_err());
    }

    #[test]
    fn tightens_loose_modes() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("loose");
        fs::create_dir(&root).unwrap();
        fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).unwrap();
        StateDir::open(&root).unwrap();
        assert_eq!(fs::metadata(&root).unwrap().mode() & 0o777, 0o700);
    }
}
