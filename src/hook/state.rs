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
//! # Nothing is written through a link, nothing blocks
//!
//! The directory follows OpenSSH's rule for `~/.ssh`: it must be owned by
//! the user and writable by no one else. A plain `mkdir` (0755) passes; a
//! new one is created 0700. A directory that is a symlink, that another
//! user owns, or that its group or others can write is refused, not
//! repaired: someone else may already have planted files in it. The hook
//! then keeps no state, fails open and says so ([`Fault`]); `stopgate
//! doctor` says the same.
//!
//! Inside it, every file is opened with `O_NOFOLLOW` (a planted symlink is
//! an error, never followed) and `O_NONBLOCK` (a planted FIFO cannot hold
//! the hook), and must then be a regular file. A file written in place
//! (the flag, the count, the debug log, the cleanup stamp) must also have
//! one link and mode 0600: a hard link planted in the directory is left
//! alone and replaced by a new file, and a looser mode is tightened, so
//! that nothing is written to an inode that has another name and no file
//! is readable by others in a 0755 directory. Replacement files are
//! created with `O_EXCL` under a name unique to the process, then renamed
//! into place; `rename` replaces a link, it never writes through one.
//!
//! # A block that cannot be counted is not given
//!
//! The count bounds every loop of blocks. When it cannot be written (a
//! full disk, a file-size limit, a read-only file system), the error
//! reaches the Stop, which then allows: the hook never blocks more often
//! than it can count. The count is written with `pwrite`, whose error a
//! full disk reports; it is not `fsync`ed, since the next Stop reads it
//! from the same page cache.
//!
//! # Locks and cleanup
//!
//! A lock file is never deleted while it could be held: cleanup deletes a
//! session's old files only while it holds that session's lock itself, and
//! a hook that locked a file which cleanup then unlinked sees that the path
//! no longer names its file and locks again. (A lock file is never written,
//! so a link in its place is only locked, never replaced: replacing it
//! could let two holders in.) Cleanup sweeps the directory at most once per
//! [`CLEANUP_INTERVAL`], claimed by touching a stamp file, so it costs one
//! `stat` on other runs; a sweep stops after [`SWEEP_BUDGET`] or
//! [`SWEEP_MAX_REMOVED`] removals and resumes a minute later, so that a
//! huge directory never holds a Stop. The hook sweeps only after its
//! verdict is delivered.
//!
//! [`Fault`]: super::Fault

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{
    DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt, PermissionsExt,
};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant, SystemTime};

use crate::config::Gate;
use crate::error::Error;
use crate::gates::Nag;

/// Entries older than this are removed by [`StateDir::cleanup`].
pub(crate) const MAX_AGE: Duration = Duration::from_secs(7 * 24 * 3600);

/// How many audited change keys a session remembers. A turn's changes are
/// compared with them, so this bounds a turn's changes that can be told
/// apart from new ones; far more than any real turn makes.
pub(crate) const MAX_SEEN: usize = 4096;

/// [`StateDir::cleanup`] sweeps the directory at most once per interval.
pub(crate) const CLEANUP_INTERVAL: Duration = Duration::from_secs(3600);

/// The most bytes read from one state file. The largest, the seen list,
/// holds at most [`MAX_SEEN`] keys of at most 140 bytes.
const MAX_STATE_FILE: u64 = 1 << 20;

/// A sweep stops after this long, and goes on at the next.
pub(crate) const SWEEP_BUDGET: Duration = Duration::from_millis(50);

/// A sweep stops after removing this many files, and goes on at the next.
pub(crate) const SWEEP_MAX_REMOVED: usize = 1000;

/// A sweep that stopped early goes on after this long, not a whole
/// [`CLEANUP_INTERVAL`] later.
const SWEEP_RESUME: Duration = Duration::from_secs(60);

/// The stamp file whose modification time records the last cleanup.
const CLEANUP_STAMP: &str = "cleanup.stamp";

/// The debug log's name.
const DEBUG_LOG: &str = "debug.log";

/// The debug log's previous generation: the log is moved here when it
/// passes [`MAX_DEBUG_LOG`].
const DEBUG_LOG_OLD: &str = "debug.log.old";

/// Past this size, the debug log starts afresh (the last generation is
/// kept as [`DEBUG_LOG_OLD`]): two generations bound it.
const MAX_DEBUG_LOG: u64 = 1 << 20;

/// The most bytes of one debug log entry; the rest is cut, and counted.
const MAX_DEBUG_ENTRY: usize = 4096;

/// The extensions of a session's files, longest first where one ends
/// another.
const SESSION_FILES: &[&str] =
    &["flag.taken", "flag", "count", "seen", "nag", "lock", "told", "prompt"];

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
    /// Create (mode 0700) or open the state directory at `root`.
    ///
    /// # Errors
    ///
    /// An I/O error naming the directory when it cannot be created, or it
    /// is a symlink, not a directory, owned by another user, or writable
    /// by its group or others (mode bits 0o022): such a directory is
    /// refused, not repaired.
    pub fn open(root: &Path) -> Result<StateDir, Error> {
        StateDir::open_io(root).map_err(|e| Error::io(root, e))
    }

    fn open_io(root: &Path) -> io::Result<StateDir> {
        fs::DirBuilder::new().recursive(true).mode(0o700).create(root)?;
        let meta = fs::symlink_metadata(root)?;
        if meta.file_type().is_symlink() {
            return Err(refused("is a symlink"));
        }
        if !meta.is_dir() {
            return Err(refused("is not a directory"));
        }
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != me {
            return Err(refused("is owned by another user"));
        }
        if meta.mode() & 0o022 != 0 {
            return Err(refused(&format!(
                "is writable by other users (mode {:o}); stopgate does \
                     not repair it, since files may already have been \
                     planted: check it, then `chmod go-w` it",
                meta.mode() & 0o777
            )));
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
    pub(crate) fn raise_flag(
        &self,
        key: &str,
        tool_use_id: Option<&str>,
    ) -> io::Result<()> {
        let mut f = open_append(&self.file(key, "flag"))?;
        // Ids are written only when they cannot break the line format.
        match tool_use_id.and_then(super::safe_id) {
            Some(id) => f.write_all(format!("{id}\n").as_bytes()),
            None => Ok(()),
        }
    }

    /// Whether session `key` has its change flag raised.
    #[cfg(test)]
    fn flag_present(&self, key: &str) -> bool {
        fs::symlink_metadata(self.file(key, "flag")).is_ok_and(|m| m.is_file())
    }

    /// Delete the change flag; whether it was there.
    #[cfg(test)]
    fn take_flag(&self, key: &str) -> bool {
        fs::remove_file(self.file(key, "flag")).is_ok()
    }

    /// Lock session `key` for reading and updating its state, waiting for
    /// another holder to let go.
    pub(crate) fn lock(&self, key: &str) -> io::Result<SessionLock> {
        self.lock_with(key, true)?.ok_or_else(|| {
            io::Error::new(io::ErrorKind::WouldBlock, "lock is held")
        })
    }

    /// Lock session `key`: `Ok(None)` when `wait` is false and another
    /// process holds the lock.
    ///
    /// After `flock` returns, the path must still name the file that was
    /// locked: cleanup may have unlinked it meanwhile (while holding it),
    /// and a lock on an unlinked file excludes nobody. Then it locks again.
    fn lock_with(
        &self,
        key: &str,
        wait: bool,
    ) -> io::Result<Option<SessionLock>> {
        let path = self.file(key, "lock");
        loop {
            let Regular { file, meta: held } = open_regular(
                &path,
                OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .mode(0o600),
            )?;
            let op = if wait {
                libc::LOCK_EX
            } else {
                libc::LOCK_EX | libc::LOCK_NB
            };
            // SAFETY: the descriptor is open for the duration of the call.
            if unsafe { libc::flock(file.as_raw_fd(), op) } != 0 {
                let e = io::Error::last_os_error();
                if !wait && e.kind() == io::ErrorKind::WouldBlock {
                    return Ok(None);
                }
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            // The descriptor's inode never changes: `held` is still true.
            let same = fs::symlink_metadata(&path)
                .is_ok_and(|m| m.dev() == held.dev() && m.ino() == held.ino());
            if same {
                return Ok(Some(SessionLock {
                    dir: self.clone(),
                    key: key.to_string(),
                    _file: file,
                }));
            }
        }
    }

    /// Remove entries older than 7 days, sweeping the directory at most
    /// once an hour. A session's files are removed only under its lock,
    /// taken without waiting: a session in use is left for a later sweep.
    /// A sweep stops after 50 ms or 1,000 removals and goes on a minute
    /// later. Errors
    /// are ignored: cleanup is best effort.
    ///
    /// Call it after the verdict is delivered: it is the one part of a
    /// Stop whose cost grows with the directory.
    pub fn cleanup(&self) {
        self.cleanup_bounded(SWEEP_BUDGET, SWEEP_MAX_REMOVED);
    }

    /// [`StateDir::cleanup`], with a sweep bounded by `budget` and
    /// `max_removed`.
    fn cleanup_bounded(&self, budget: Duration, max_removed: usize) {
        let now = SystemTime::now();
        let stamp = self.root.join(CLEANUP_STAMP);
        let due = fs::symlink_metadata(&stamp)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_none_or(|age| age >= CLEANUP_INTERVAL);
        if !due || !self.claim_cleanup(&stamp, now) {
            return;
        }
        if !self.sweep(now, Instant::now() + budget, max_removed) {
            // Cut short: the next sweep is due in a minute.
            let sooner = now - CLEANUP_INTERVAL + SWEEP_RESUME;
            let _ = self.claim_cleanup(&stamp, sooner);
        }
    }

    /// One bounded pass over the directory: whether it got to the end.
    fn sweep(
        &self,
        now: SystemTime,
        deadline: Instant,
        max_removed: usize,
    ) -> bool {
        let Ok(entries) = fs::read_dir(&self.root) else { return true };
        let old = |m: &fs::Metadata| {
            m.modified()
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .is_some_and(|age| age > MAX_AGE)
        };
        let mut removed = 0;
        for (i, entry) in entries.flatten().enumerate() {
            if removed >= max_removed
                || (i % 64 == 0 && Instant::now() >= deadline)
            {
                return false;
            }
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if name == DEBUG_LOG || name == CLEANUP_STAMP {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            if !old(&meta) || meta.is_dir() {
                continue;
            }
            if self.remove_old(name, &entry.path()) {
                removed += 1;
            }
        }
        true
    }

    /// Remove an old entry: our own temp file of a process that died, or a
    /// session's file under its lock. Whether it went.
    fn remove_old(&self, name: &str, path: &Path) -> bool {
        match session_key(name) {
            None if name.contains(".tmp.") => fs::remove_file(path).is_ok(),
            None => false,
            Some(key) => match self.lock_with(key, false) {
                // The lock file itself goes while we hold it; a waiter
                // then finds the path changed and relocks.
                Ok(Some(_held)) => fs::remove_file(path).is_ok(),
                _ => false,
            },
        }
    }

    /// Claim this sweep: create or touch the stamp, setting its time to
    /// `at`. Whoever changes it first sweeps; the others see a fresh stamp
    /// next time.
    fn claim_cleanup(&self, stamp: &Path, at: SystemTime) -> bool {
        open_own(stamp, OpenOptions::new().write(true).create(true))
            .and_then(|f| f.file.set_modified(at))
            .is_ok()
    }

    /// Append an entry to `debug.log`; errors are ignored.
    ///
    /// An entry is cut to `MAX_DEBUG_ENTRY` bytes, and a log past
    /// `MAX_DEBUG_LOG` is moved to `debug.log.old` first, so that the
    /// log never grows without bound, whatever the turns are.
    pub fn debug_log(&self, line: &str) {
        let path = self.root.join(DEBUG_LOG);
        let Ok(mut f) = open_append(&path) else { return };
        if f.metadata().is_ok_and(|m| m.len() > MAX_DEBUG_LOG) {
            let _ = fs::rename(&path, self.root.join(DEBUG_LOG_OLD));
            let Ok(fresh) = open_append(&path) else { return };
            f = fresh;
        }
        let _ = f.write_all(debug_entry(line).as_bytes());
    }

    /// The marker that session `key` was told of a fault.
    pub fn notice_marker(&self, key: &str) -> PathBuf {
        self.file(key, "told")
    }

    /// Whether session `key` is to be told of a fault now: true the first
    /// time (the marker is created), false once it was. When the marker
    /// cannot be made, it says true: telling twice beats never telling.
    pub fn first_notice(&self, key: &str) -> bool {
        let made = open_regular(
            &self.notice_marker(key),
            OpenOptions::new().write(true).create_new(true).mode(0o600),
        );
        !matches!(made, Err(e) if e.kind() == io::ErrorKind::AlreadyExists)
    }
}

/// A debug log entry: `line` cut to [`MAX_DEBUG_ENTRY`] bytes, on one
/// line.
fn debug_entry(line: &str) -> String {
    if line.len() <= MAX_DEBUG_ENTRY {
        return format!("{line}\n");
    }
    let mut cut = MAX_DEBUG_ENTRY;
    while !line.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{} … ({} more bytes)\n", &line[..cut], line.len() - cut)
}

/// The session key of a state file's name, if it is one of a session's
/// files.
fn session_key(name: &str) -> Option<&str> {
    SESSION_FILES.iter().find_map(|ext| {
        name.strip_suffix(ext)?.strip_suffix('.').filter(|k| !k.is_empty())
    })
}

/// A regular file of the state directory, opened, with what `fstat` said
/// of it.
struct Regular {
    file: File,
    meta: fs::Metadata,
}

/// Open a file in the state directory: never through a symlink, never
/// blocking on a FIFO, and only if it is a regular file.
fn open_regular(
    path: &Path,
    options: &mut OpenOptions,
) -> io::Result<Regular> {
    let file = options
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ));
    }
    Ok(Regular { file, meta })
}

/// Open a state file that is written in place: as [`open_regular`], and
/// it must be this name's file alone (one link: a hard link planted here
/// is refused, an error of kind `AlreadyExists`) and private (a looser
/// mode is set back to 0600). The checks use the `fstat` already made.
fn open_own(path: &Path, options: &mut OpenOptions) -> io::Result<Regular> {
    let r = open_regular(path, options.mode(0o600))?;
    if r.meta.nlink() > 1 {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} has other links", path.display()),
        ));
    }
    if r.meta.mode() & 0o777 != 0o600 {
        r.file.set_permissions(fs::Permissions::from_mode(0o600))?;
    }
    Ok(r)
}

/// Open a state file for appending ([`open_own`]), replacing a file with
/// other links by a new, empty one: its bytes are not ours.
fn open_append(path: &Path) -> io::Result<File> {
    let append =
        || open_own(path, OpenOptions::new().append(true).create(true));
    match append() {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            replace_with_empty(path)?;
            append().map(|r| r.file)
        }
        other => other.map(|r| r.file),
    }
}

/// Put a new, empty file at `path` by rename: whatever was there (a
/// link) is unlinked, never written.
fn replace_with_empty(path: &Path) -> io::Result<()> {
    let (f, tmp) = create_unique(path)?;
    drop(f);
    fs::rename(&tmp, path).inspect_err(|_| {
        let _ = fs::remove_file(&tmp);
    })
}

/// Create a new file next to `path`, exclusively, under a name unique to
/// this process and call.
fn create_unique(path: &Path) -> io::Result<(File, PathBuf)> {
    static SERIAL: AtomicU32 = AtomicU32::new(0);
    let pid = std::process::id();
    loop {
        let n = SERIAL.fetch_add(1, Ordering::Relaxed);
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".tmp.{pid}.{n}"));
        let tmp = PathBuf::from(name);
        // `create_new` is O_CREAT|O_EXCL, which fails on any existing name,
        // a symlink included, and never follows one.
        match open_regular(
            &tmp,
            OpenOptions::new().write(true).create_new(true).mode(0o600),
        ) {
            Ok(f) => return Ok((f.file, tmp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

fn refused(why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("refused as the state directory: it {why}"),
    )
}

/// Exclusive access to one session's state. Dropping it unlocks.
#[derive(Debug)]
pub(crate) struct SessionLock {
    dir: StateDir,
    key: String,
    _file: File,
}

impl SessionLock {
    fn read(&self, ext: &str) -> Option<String> {
        read_bounded(&self.dir.file(&self.key, ext)).ok()
    }

    /// Replace a state file by rename, so a reader never sees half of it.
    fn write(&self, ext: &str, contents: &str) -> io::Result<()> {
        let target = self.dir.file(&self.key, ext);
        let (mut f, tmp) = create_unique(&target)?;
        let written = f.write_all(contents.as_bytes());
        drop(f);
        let result = written.and_then(|()| fs::rename(&tmp, &target));
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result
    }

    /// How many times this session was prompted to audit.
    pub(crate) fn prompted(&self) -> u32 {
        self.read("count").and_then(|s| s.trim().parse().ok()).unwrap_or(0)
    }

    /// Record one more prompt; returns the new count.
    ///
    /// The count is rewritten in place, padded to one width, rather than
    /// replaced by rename as the other files are: only this session's lock
    /// holder reads it, and one write of eleven bytes at the start of the
    /// file is not torn. A rename over an existing file makes ext4 write
    /// the new one out at once (`auto_da_alloc`), which was a tenth of a
    /// blocking Stop's time. Anything but a private regular file of one
    /// link in its place (a planted symlink or hard link) is replaced by
    /// rename, as before.
    ///
    /// # Errors
    ///
    /// When the count could not be written (a full disk): the caller must
    /// not block, since the block would not count towards the cap.
    pub(crate) fn increment_prompted(&self) -> io::Result<u32> {
        let path = self.dir.file(&self.key, "count");
        let Ok(Regular { file, .. }) = open_own(
            &path,
            OpenOptions::new().read(true).write(true).create(true),
        ) else {
            let n = self.prompted().saturating_add(1);
            self.write("count", &n.to_string())?;
            return Ok(n);
        };
        let mut old = String::new();
        (&file).take(MAX_STATE_FILE).read_to_string(&mut old)?;
        let n = old.trim().parse::<u32>().unwrap_or(0).saturating_add(1);
        let padded = format!("{n:>10}\n");
        file.write_all_at(padded.as_bytes(), 0)?;
        if old.len() > padded.len() {
            file.set_len(padded.len() as u64)?;
        }
        Ok(n)
    }

    /// The pending changes: `None` when the flag is down, else the
    /// `tool_use_id`s PostToolUse recorded (possibly none).
    pub(crate) fn pending(&self) -> Option<Vec<String>> {
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
    pub(crate) fn consume<'k>(
        &self,
        more: impl IntoIterator<Item = &'k str>,
    ) -> io::Result<()> {
        let flag = self.dir.file(&self.key, "flag");
        let taken = self.dir.file(&self.key, "flag.taken");
        let mut ids: Vec<String> = match fs::rename(&flag, &taken) {
            // A flag that is not a regular file (a planted link) holds no
            // ids; it goes all the same.
            Ok(()) => read_bounded(&taken)
                .unwrap_or_default()
                .lines()
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect(),
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
    pub(crate) fn seen(&self) -> Vec<String> {
        self.read("seen")
            .unwrap_or_default()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    }

    /// The nags already sent by the ownership and reverify gates.
    pub(crate) fn nags(&self) -> Vec<Nag> {
        let text = self.read("nag").unwrap_or_default();
        text.lines()
            .filter_map(|l| {
                let mut words = l.split_whitespace();
                let hash = u64::from_str_radix(words.next()?, 16).ok()?;
                let gate = match words.next() {
                    Some("reverify") => Gate::Reverify,
                    // Lines of earlier versions name no gate.
                    _ => Gate::Ownership,
                };
                Some(Nag { gate, hash })
            })
            .collect()
    }

    /// The `prompt_id` of the prompt this session's last block was given
    /// in, if the client sent one.
    pub(crate) fn blocked_prompt(&self) -> Option<String> {
        let id = self.read("prompt")?;
        Some(id.trim().to_string()).filter(|id| !id.is_empty())
    }

    /// Record the `prompt_id` of the prompt a block was given in (not
    /// written again when it is the one recorded: a rename costs a Stop).
    pub(crate) fn record_blocked_prompt(&self, id: &str) -> io::Result<()> {
        if self.blocked_prompt().as_deref() == Some(id) {
            return Ok(());
        }
        self.write("prompt", id)
    }

    /// Record a nag: the gate, and its final text's hash.
    pub(crate) fn record_nag(&self, nag: Nag) -> io::Result<()> {
        let mut s = self.read("nag").unwrap_or_default();
        s.push_str(&format!("{:016x} {}\n", nag.hash, nag.gate.as_str()));
        self.write("nag", &s)
    }
}

/// Read a state file, at most [`MAX_STATE_FILE`] bytes of it.
fn read_bounded(path: &Path) -> io::Result<String> {
    let Regular { file, meta } =
        open_regular(path, OpenOptions::new().read(true))?;
    // Sized up front, so that the file is read in one call.
    let len = meta.len().min(MAX_STATE_FILE);
    let mut s = String::with_capacity(len as usize + 1);
    file.take(MAX_STATE_FILE).read_to_string(&mut s)?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

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
        assert!(lock.nags().is_empty());
        let a = Nag { gate: Gate::Ownership, hash: 7 };
        let b = Nag { gate: Gate::Reverify, hash: u64::MAX };
        lock.record_nag(a).unwrap();
        lock.record_nag(b).unwrap();
        assert_eq!(lock.nags(), vec![a, b]);
    }

    #[test]
    fn cleanup_removes_old_entries_only() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir::open(&tmp.path().join("s")).unwrap();
        dir.raise_flag("old", None).unwrap();
        dir.raise_flag("new", None).unwrap();
        let eight_days = Duration::from_secs(8 * 24 * 3600);
        age(&dir.path().join("old.flag"), eight_days);
        sweep_all(&dir);
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
    fn refuses_loose_modes() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("loose");
        fs::create_dir(&root).unwrap();
        fs::set_permissions(&root, fs::Permissions::from_mode(0o777)).unwrap();
        let e = StateDir::open(&root).unwrap_err();
        assert!(e.to_string().contains("777"), "{e}");
        // Refused, not repaired.
        assert_eq!(fs::metadata(&root).unwrap().mode() & 0o777, 0o777);
    }

    /// A victim file outside the state directory, and a symlink to it.
    fn plant(dir: &StateDir, name: &str, victim: &Path) {
        fs::write(victim, "precious").unwrap();
        std::os::unix::fs::symlink(victim, dir.path().join(name)).unwrap();
    }

    /// The count is rewritten in place: an older, unpadded count goes on
    /// from its value, and a longer file is cut to the padded width.
    #[test]
    fn the_count_is_rewritten_in_place() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir::open(&tmp.path().join("s")).unwrap();
        let count = dir.path().join("s.count");
        let lock = dir.lock("s").unwrap();
        fs::write(&count, "7").unwrap();
        assert_eq!(lock.increment_prompted().unwrap(), 8);
        assert_eq!(fs::read_to_string(&count).unwrap(), "         8\n");
        assert_eq!(lock.prompted(), 8);
        fs::write(&count, format!("{}\n", "9".repeat(40))).unwrap();
        assert_eq!(lock.increment_prompted().unwrap(), 1);
        assert_eq!(fs::read_to_string(&count).unwrap(), "         1\n");
        assert_eq!(lock.increment_prompted().unwrap(), 2);
        assert_eq!(lock.prompted(), 2);
    }

    #[test]
    fn never_writes_through_planted_links() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir::open(&tmp.path().join("s")).unwrap();
        let victim = tmp.path().join("victim");
        // The temp names of earlier versions, and the files themselves.
        for name in ["s.count.tmp", "s.seen.tmp", "s.nag.tmp"] {
            plant(&dir, name, &victim);
        }
        plant(&dir, "s.count", &victim);
        plant(&dir, "s.flag", &victim);
        plant(&dir, "debug.log", &victim);
        let lock = dir.lock("s").unwrap();
        // A linked flag is neither read nor appended to.
        assert!(dir.raise_flag("s", Some("toolu_1")).is_err());
        assert_eq!(lock.pending(), None);
        // A linked counter reads as 0 and is replaced, not written through.
        assert_eq!(lock.prompted(), 0);
        assert_eq!(lock.increment_prompted().unwrap(), 1);
        let record = Nag { gate: Gate::Ownership, hash: 1 };
        lock.record_nag(record).unwrap();
        lock.consume(["k"]).unwrap();
        dir.debug_log("note");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        let count = fs::symlink_metadata(dir.path().join("s.count")).unwrap();
        assert!(count.is_file(), "the counter is a plain file again");
        assert_eq!(lock.prompted(), 1);
    }

    #[test]
    fn dangling_lock_link_creates_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir::open(&tmp.path().join("s")).unwrap();
        let target = tmp.path().join("created-by-attacker");
        std::os::unix::fs::symlink(&target, dir.path().join("s.lock"))
            .unwrap();
        assert!(dir.lock("s").is_err());
        assert!(!target.exists());
    }

    #[test]
    fn fifos_do_not_block() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir::open(&tmp.path().join("s")).unwrap();
        for name in ["s.count", "s.flag", "debug.log"] {
            let path = std::ffi::CString::new(
                dir.path().join(name).as_os_str().as_encoded_bytes(),
            )
            .unwrap();
            // SAFETY: `path` is a valid NUL-terminated string.
            assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
        }
        let started = std::time::Instant::now();
        let lock = dir.lock("s").unwrap();
        assert_eq!(lock.prompted(), 0);
        assert_eq!(lock.pending(), None);
        assert!(dir.raise_flag("s", Some("t")).is_err());
        dir.debug_log("note");
        assert!(started.elapsed() < Duration::from_secs(1));
    }

    /// A sweep with no bound on its time: a loaded machine must not cut
    /// the sweeps these tests count on.
    fn sweep_all(dir: &StateDir) {
        dir.cleanup_bounded(Duration::from_secs(3600), usize::MAX);
    }

    /// A sweep cut short by its bound leaves the rest for a sweep a
    /// minute later, not an hour later.
    #[test]
    fn a_bounded_sweep_goes_on_a_minute_later() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir::open(&tmp.path().join("s")).unwrap();
        let month = Duration::from_secs(30 * 24 * 3600);
        for i in 0..10 {
            dir.raise_flag(&format!("old-{i}"), None).unwrap();
            age(&dir.path().join(format!("old-{i}.flag")), month);
        }
        let flags = |dir: &StateDir| {
            (0..10).filter(|i| dir.flag_present(&format!("old-{i}"))).count()
        };
        dir.cleanup_bounded(Duration::from_secs(3600), 4);
        assert_eq!(flags(&dir), 6);
        let stamp = dir.path().join(CLEANUP_STAMP);
        let age_of_stamp = SystemTime::now()
            .duration_since(fs::metadata(&stamp).unwrap().modified().unwrap())
            .unwrap();
        let due_in = CLEANUP_INTERVAL - age_of_stamp;
        assert!(due_in <= SWEEP_RESUME, "due in {due_in:?}");
        // Not yet due: nothing more goes.
        dir.cleanup_bounded(Duration::from_secs(3600), 4);
        assert_eq!(flags(&dir), 6);
        age(&stamp, CLEANUP_INTERVAL);
        sweep_all(&dir);
        assert_eq!(flags(&dir), 0);
    }

    fn age(path: &Path, by: Duration) {
        File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(SystemTime::now() - by)
            .unwrap();
    }

    #[test]
    fn cleanup_sweeps_everything_once_per_interval() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir::open(&tmp.path().join("s")).unwrap();
        let month = Duration::from_secs(30 * 24 * 3600);
        for i in 0..200 {
            let key = format!("old-{i}");
            dir.raise_flag(&key, None).unwrap();
            age(&dir.path().join(format!("{key}.flag")), month);
        }
        sweep_all(&dir);
        let left = fs::read_dir(dir.path()).unwrap().count();
        // Only the stamp, and the lock files taken to remove the flags.
        let locks = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".lock"))
            .count();
        assert_eq!(left, 1 + locks, "every old flag is gone");
        for i in 0..200 {
            assert!(!dir.flag_present(&format!("old-{i}")));
        }
        // The next sweep waits for the interval.
        dir.raise_flag("later", None).unwrap();
        age(&dir.path().join("later.flag"), month);
        sweep_all(&dir);
        assert!(dir.flag_present("later"));
        age(&dir.path().join(CLEANUP_STAMP), CLEANUP_INTERVAL * 2);
        sweep_all(&dir);
        assert!(!dir.flag_present("later"));
    }

    #[test]
    fn cleanup_never_removes_a_held_lock() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir::open(&tmp.path().join("s")).unwrap();
        let month = Duration::from_secs(30 * 24 * 3600);
        let held = dir.lock("busy").unwrap();
        age(&dir.path().join("busy.lock"), month);
        sweep_all(&dir);
        assert!(dir.path().join("busy.lock").exists());
        drop(held);
        // Unheld and old: removed, and a later lock still excludes.
        age(&dir.path().join(CLEANUP_STAMP), CLEANUP_INTERVAL * 2);
        sweep_all(&dir);
        assert!(!dir.path().join("busy.lock").exists());
        let a = dir.lock("busy").unwrap();
        assert!(dir.lock_with("busy", false).unwrap().is_none());
        drop(a);
    }

    #[test]
    fn a_lock_unlinked_while_waiting_is_taken_again() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir::open(&tmp.path().join("s")).unwrap();
        let first = dir.lock("k").unwrap();
        let dir2 = dir.clone();
        let waiter = std::thread::spawn(move || {
            let lock = dir2.lock("k").unwrap();
            // It holds the file the path names now.
            let held = lock._file.metadata().unwrap();
            let now = fs::metadata(dir2.path().join("k.lock")).unwrap();
            assert_eq!(held.ino(), now.ino());
        });
        std::thread::sleep(Duration::from_millis(100));
        // What cleanup does: unlink while holding.
        fs::remove_file(dir.path().join("k.lock")).unwrap();
        let second = dir.lock_with("k", false).unwrap();
        assert!(second.is_some(), "a new file, unheld");
        drop(second);
        drop(first);
        waiter.join().unwrap();
    }

    #[test]
    fn session_keys_of_names() {
        assert_eq!(session_key("a.b.flag.taken"), Some("a.b"));
        assert_eq!(session_key("abc.lock"), Some("abc"));
        assert_eq!(session_key("agent-x.nag"), Some("agent-x"));
        assert_eq!(session_key("debug.log"), None);
        assert_eq!(session_key(".flag"), None);
    }
}
