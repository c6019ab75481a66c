//! What `stopgate install` did to a settings file, so that `uninstall`
//! undoes exactly that.
//!
//! A user who installs and then uninstalls expects the file they had: the
//! same bytes, or no file at all if there was none. Removing stopgate's
//! entries from the JSON cannot promise that (a `"hooks": {}` left behind,
//! a file created for nothing). So each install records, in the state
//! directory (`installs/`, one file per settings file, mode 0600):
//!
//! * the hash of the text it wrote;
//! * the backup of the file as it was, or that there was no file, and the
//!   folders it created for it;
//! * whether the `hooks` object was its own.
//!
//! `uninstall` restores the backup byte for byte, or removes the file and
//! the folders, when the file still holds exactly what install wrote. When
//! someone changed it since, it removes stopgate's entries only, and the
//! `hooks` object too when install created it and nothing else is in it.
//! A missing record (an install by an older version, a cleared state
//! directory) means the second path.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use stopgate::hook::{default_dir, StateDir};
use stopgate::judge::text_hash;

/// One install's record. See the [module docs](self).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstallRecord {
    /// The settings file, as its real path.
    pub settings: PathBuf,
    /// The [`text_hash`] of the text install wrote, in hex.
    pub written: String,
    /// The backup of the file as it was before; `None` when there was no
    /// file.
    pub backup: Option<PathBuf>,
    /// The folders install created for the file, outermost first.
    pub created_dirs: Vec<PathBuf>,
    /// Whether the file had no `hooks` key before.
    pub created_hooks: bool,
}

impl InstallRecord {
    /// The hash install records for `text`.
    pub fn hash(text: &str) -> String {
        format!("{:016x}", text_hash(text))
    }

    /// Whether `text` is exactly what this install wrote.
    pub fn wrote(&self, text: &str) -> bool {
        self.written == InstallRecord::hash(text)
    }
}

/// The folder of records, created on first need; `None` when the state
/// directory cannot be used (it is then refused for the hook too, and
/// `doctor` says why).
fn records_dir() -> Option<PathBuf> {
    let root = default_dir(|k| std::env::var(k).ok())?;
    let state = StateDir::open(&root).ok()?;
    let dir = state.path().join("installs");
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .or_else(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                Ok(())
            } else {
                Err(e)
            }
        })
        .ok()?;
    let meta = std::fs::symlink_metadata(&dir).ok()?;
    meta.is_dir().then_some(dir)
}

/// The record file for a settings file's real path.
fn record_path(dir: &Path, settings: &Path) -> PathBuf {
    let key = text_hash(&settings.to_string_lossy());
    dir.join(format!("{key:016x}.json"))
}

/// The record of the last install into `settings` (its real path), if any.
pub fn load(settings: &Path) -> Option<InstallRecord> {
    let path = record_path(&records_dir()?, settings);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    // A record is a few hundred bytes; a planted huge file is not one.
    let record: InstallRecord =
        serde_json::from_reader(std::io::Read::take(file, 1 << 20)).ok()?;
    (record.settings == settings).then_some(record)
}

/// Save `record`, replacing an earlier one for the same settings file.
///
/// # Errors
///
/// When the state directory cannot be used or the record not written.
pub fn save(record: &InstallRecord) -> Result<(), String> {
    let dir = records_dir().ok_or("the state directory cannot be used")?;
    let path = record_path(&dir, &record.settings);
    let mut tmp = tempfile::Builder::new()
        .prefix(".record.")
        .tempfile_in(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    serde_json::to_writer(tmp.as_file_mut(), record)
        .map_err(|e| e.to_string())?;
    tmp.as_file_mut().flush().map_err(|e| e.to_string())?;
    tmp.persist(&path)
        .map_err(|e| format!("{}: {}", path.display(), e.error))?;
    Ok(())
}

/// Forget the record for `settings`; a missing one is fine.
pub fn forget(settings: &Path) {
    if let Some(dir) = records_dir() {
        let _ = std::fs::remove_file(record_path(&dir, settings));
    }
}
