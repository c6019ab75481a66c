//! Reading a file the user named: never waiting on it, never without
//! bound.
//!
//! A settings file, a backup or a configuration is read whole, so a FIFO
//! in its place would hold the command for ever and `/dev/zero` would
//! grow its memory until the machine gave out. Every such read goes
//! through here: the open never waits (`O_NONBLOCK`), anything but a
//! regular file is refused on the opened descriptor (`fstat`), and at most
//! a cap is read, past which the file is refused. The errors are one line,
//! and the caller names the path.

use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The most bytes of a settings file (or its backup) read: real ones are a
/// few KiB.
pub const MAX_SETTINGS_BYTES: u64 = 16 << 20;

/// Read the regular file at `path`, at most `cap` bytes of it.
///
/// # Errors
///
/// The open's error (a missing file is `NotFound`, for the caller to take
/// as empty), or one of kind `InvalidInput` when `path` is not a regular
/// file or is larger than `cap`.
pub fn read(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(invalid("not a regular file".into()));
    }
    let too_big = || invalid(format!("larger than {} MiB", cap >> 20));
    if meta.len() > cap {
        return Err(too_big());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(too_big());
    }
    Ok(bytes)
}

/// [`read`], as UTF-8 text.
///
/// # Errors
///
/// As [`read`], and `InvalidData` when the bytes are not UTF-8.
pub fn read_to_string(path: &Path, cap: u64) -> io::Result<String> {
    String::from_utf8(read(path, cap)?).map_err(|_| {
        io::Error::new(io::ErrorKind::InvalidData, "not valid UTF-8")
    })
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}
