//! A last-resort handler for `SIGBUS`, `SIGSEGV` and a timeout, and
//! `SIGXFSZ` ignored.
//!
//! Reading a memory-mapped file that another process truncated raises
//! `SIGBUS`. The binary maps transcripts because that is what keeps the
//! final-text query flat, so it installs this handler first: instead of
//! dying with a signal, the process writes a fixed message to stderr (if it
//! has one) and exits with a fixed status.
//!
//! Only async-signal-safe calls happen in the handler: `write(2)` of bytes
//! prepared before the handler was installed, `open(2)` and `close(2)` of
//! a path prepared the same way, and `_exit(2)`.
//!
//! The hook also arms a notice ([`arm_notice`]): the JSON that tells the
//! user it gave up, printed on stdout when the timer or a crash ends it,
//! once per session (a marker file, created with `O_EXCL`, says it was).
//! It is disarmed before the verdict is written, so that the two never
//! mix.
//!
//! A write past a file size limit (`ulimit -f`) raises `SIGXFSZ`, whose
//! default kills the process: the hook would die by a signal on every run
//! once `debug.log` passes the limit, or at once under `ulimit -f 0`.
//! Ignored ([`ignore_file_size_limit`]), the write fails with `EFBIG`
//! instead, and the hook treats it as any write error.

use std::ffi::CString;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::OnceLock;

/// The stderr message of the handler.
static MESSAGE: OnceLock<Vec<u8>> = OnceLock::new();

/// The exit status of the handler: changed once a verdict is delivered,
/// so that a timer firing after it keeps the verdict's status.
static STATUS: AtomicI32 = AtomicI32::new(2);

/// The notice the handler prints on stdout, when armed.
struct Notice {
    timeout: Vec<u8>,
    crash: Vec<u8>,
    marker: Option<CString>,
}

static NOTICE: OnceLock<Notice> = OnceLock::new();
static NOTICE_ARMED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_fault(signal: libc::c_int) {
    fire_notice(signal == libc::SIGALRM);
    // SAFETY: `MESSAGE` is set before the handler is installed and never
    // changed after, so `get` is a plain atomic load; `write` and `_exit`
    // are async-signal-safe.
    unsafe {
        if let Some(m) = MESSAGE.get().filter(|m| !m.is_empty()) {
            libc::write(2, m.as_ptr().cast(), m.len());
        }
        libc::_exit(STATUS.load(Ordering::SeqCst));
    }
}

/// Print the armed notice (the timeout's or the crash's) on stdout, once:
/// unless its marker exists. Async-signal-safe.
pub fn fire_notice(timeout: bool) {
    if !NOTICE_ARMED.swap(false, Ordering::SeqCst) {
        return;
    }
    let Some(n) = NOTICE.get() else { return };
    let text = if timeout { &n.timeout } else { &n.crash };
    // SAFETY: `open`, `close` and `write` are async-signal-safe; the path
    // is a NUL-terminated string made before arming, and the bytes
    // written are a live slice.
    unsafe {
        if let Some(marker) = &n.marker {
            let flags = libc::O_WRONLY
                | libc::O_CREAT
                | libc::O_EXCL
                | libc::O_NOFOLLOW
                | libc::O_NONBLOCK
                | libc::O_CLOEXEC;
            let fd = libc::open(marker.as_ptr(), flags, 0o600);
            if fd >= 0 {
                libc::close(fd);
            } else if std::io::Error::last_os_error().raw_os_error()
                == Some(libc::EEXIST)
            {
                // Told already.
                return;
            }
        }
        libc::write(1, text.as_ptr().cast(), text.len());
    }
}

/// Arm the notice: on the timer, `timeout`, on a crash (or
/// [`fire_notice`]), `crash`, each a line for stdout; once per `marker`.
/// Only the first call's texts take effect.
pub fn arm_notice(timeout: String, crash: String, marker: Option<&Path>) {
    let marker = marker.and_then(|p| {
        CString::new(p.as_os_str().as_encoded_bytes().to_vec()).ok()
    });
    let line = |s: String| format!("{s}\n").into_bytes();
    let _ = NOTICE.set(Notice {
        timeout: line(timeout),
        crash: line(crash),
        marker,
    });
    NOTICE_ARMED.store(true, Ordering::SeqCst);
}

/// Disarm the notice: the verdict is about to be written.
pub fn disarm_notice() {
    NOTICE_ARMED.store(false, Ordering::SeqCst);
}

/// The status the handler exits with from now on.
pub fn set_status(status: i32) {
    STATUS.store(status, Ordering::SeqCst);
}

/// Arm a one-shot timer, replacing any armed before: after `after` (at
/// least a millisecond) the process takes the path of [`install`]'s handler
/// (its message and status). A timer costs one system call where a
/// watchdog thread costs a thread.
pub fn exit_after(after: std::time::Duration) {
    let ms = u64::try_from(after.as_millis()).unwrap_or(u64::MAX).max(1);
    // SAFETY: as in `install`; `setitimer` is given a valid, initialised
    // `itimerval` and a null pointer for the old value, which it allows.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction =
            on_fault as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGALRM, &action, std::ptr::null_mut());
        let secs = (ms / 1000) as libc::time_t;
        let usecs = ((ms % 1000) * 1000) as libc::suseconds_t;
        let timer = libc::itimerval {
            it_interval: libc::timeval { tv_sec: 0, tv_usec: 0 },
            it_value: libc::timeval { tv_sec: secs, tv_usec: usecs },
        };
        libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut());
    }
}

/// Install the handler for `SIGBUS` and `SIGSEGV`: on either, write
/// `message` to stderr (nothing if empty) and exit with `status`.
///
/// Only the first call's message takes effect; the status is that of the
/// last call, or of [`set_status`].
pub fn install(message: &str, status: i32) {
    let _ = MESSAGE.set(message.as_bytes().to_vec());
    set_status(status);
    // SAFETY: a zeroed `sigaction` is a valid value for the C struct; we
    // set the handler and an empty mask before passing it to `sigaction`,
    // and the handler only makes async-signal-safe calls.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction =
            on_fault as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        for signal in [libc::SIGBUS, libc::SIGSEGV] {
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// Ignore `SIGXFSZ`: a write past the file size limit then fails with
/// `EFBIG`, an error the caller handles, instead of killing the process.
pub fn ignore_file_size_limit() {
    // SAFETY: setting a signal's disposition to "ignore" has no
    // preconditions; no handler of ours is replaced.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}
