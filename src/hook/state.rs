//! The hook's state directory: change flags, prompt counters, nag hashes.
//!
//! Hooks of one event run in parallel, and a Stop can race a PostToolUse,
//! so every update here is safe under concurrency:
//!
//! * a flag is created with `O_EXCL` (`create_new`): raising it twice is
//!   harmless, and deleting it is one `unlink`;
//! * everything a Stop reads and writes (the counter, the last change it
//!   consumed, the nag hashes) is accessed under an exclusive `flock` on
//!   the session's lock file, held by [`SessionLock`], and rewritten by
//!   rename, so no update is lost and none is torn.
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

    /// Raise the change flag of session `key`.
    pub fn raise_flag(&self, key: &str) -> io::Result<()> {
        let res = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(self.file(key, "flag"));
        match res {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
            Err(e) => Err(e),
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

    /// The id of the last file-changing tool use already audited.
    pub fn seen_change(&self) -> Option<String> {
        self.read("seen")
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    }

    /// Record the last file-changing tool use as audited.
    pub fn set_seen_change(&self, id: &str) -> io::Result<()> {
        self.write("seen", id)
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
        dir.raise_flag("s").unwrap();
        dir.raise_flag("s").unwrap();
        assert!(dir.flag_present("s"));
        assert!(dir.take_flag("s"));
        assert!(!dir.take_flag("s"));
        let lock = dir.lock("s").unwrap();
        assert_eq!(lock.prompted(), 0);
        assert_eq!(lock.increment_prompted().unwrap(), 1);
        assert_eq!(lock.increment_prompted().unwrap(), 2);
        assert!(lock.nag_hashes().is_empty());
        lock.record_nag(7).unwrap();
        lock.record_nag(u64::MAX).unwrap();
        assert_eq!(lock.nag_hashes(), vec![7, u64::MAX]);
        lock.set_seen_change("toolu_1").unwrap();
        assert_eq!(lock.seen_change().as_deref(), Some("toolu_1"));
    }

    #[test]
    fn cleanup_removes_old_entries_only() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir::open(&tmp.path().join("s")).unwrap();
        dir.raise_flag("old").unwrap();
        dir.raise_flag("new").unwrap();
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
