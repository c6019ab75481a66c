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
//! prepared before the handler was installed, and `_exit(2)`.
//!
//! A write past a file size limit (`ulimit -f`) raises `SIGXFSZ`, whose
//! default kills the process: the hook would die by a signal on every run
//! once `debug.log` passes the limit, or at once under `ulimit -f 0`.
//! Ignored ([`ignore_file_size_limit`]), the write fails with `EFBIG`
//! instead, and the hook treats it as any write error.

use std::sync::OnceLock;

/// What the handler does when it fires.
struct OnFault {
    message: Vec<u8>,
    status: i32,
}

static ON_FAULT: OnceLock<OnFault> = OnceLock::new();

extern "C" fn on_fault(_signal: libc::c_int) {
    // SAFETY: `ON_FAULT` is set before the handler is installed and never
    // changed after, so `get` is a plain atomic load; `write` and `_exit`
    // are async-signal-safe.
    unsafe {
        if let Some(f) = ON_FAULT.get() {
            if !f.message.is_empty() {
                libc::write(2, f.message.as_ptr().cast(), f.message.len());
            }
            libc::_exit(f.status);
        }
        libc::_exit(2);
    }
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
/// Only the first call's message and status take effect.
pub fn install(message: &str, status: i32) {
    let _ =
        ON_FAULT.set(OnFault { message: message.as_bytes().to_vec(), status });
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
