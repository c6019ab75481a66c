//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::Path;

/// Make a FIFO at `path`.
pub fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// The largest resident set of any child process waited for so far, in
/// KiB.
pub fn children_max_rss_kib() -> i64 {
    // SAFETY: `getrusage` fills the zeroed struct it is given.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage), 0);
        usage.ru_maxrss
    }
}
