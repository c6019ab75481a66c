//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub mod score;

/// The `stopgate` binary under test: `$STOPGATE_TEST_BIN` when set (CI
/// runs the end-to-end tests again on the static build the README
/// installs), else the one Cargo built for this test.
#[cfg(feature = "cli")]
pub fn bin() -> std::ffi::OsString {
    std::env::var_os("STOPGATE_TEST_BIN")
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_stopgate").into())
}

/// Every file under `dir` whose extension is `ext`, sorted; none when
/// `dir` cannot be read.
pub fn files_under(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for path in entries.flatten().map(|e| e.path()) {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

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

/// A mock model API (a node script under `tests/`), started on 127.0.0.1
/// with a script of model replies; killed on drop. Each mock prints
/// `listening PORT` once it accepts connections and appends one JSON line
/// per request to its log.
pub struct MockApi {
    child: std::process::Child,
    /// The port it listens on.
    pub port: u16,
    /// Its request log (JSON Lines).
    pub log: std::path::PathBuf,
}

impl MockApi {
    /// Start `script` (relative to the crate) in `dir` with `replies`: a
    /// list of replies, or a whole scenario object (as the script's
    /// header describes it).
    pub fn start(
        script: &str,
        dir: &Path,
        replies: &serde_json::Value,
    ) -> MockApi {
        use std::io::BufRead;
        let scenario = dir.join("scenario.json");
        let text = match replies {
            serde_json::Value::Object(_) => replies.to_string(),
            _ => serde_json::json!({ "replies": replies }).to_string(),
        };
        std::fs::write(&scenario, text).unwrap();
        let log = dir.join("requests.jsonl");
        let mut child = std::process::Command::new("node")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(script))
            .arg(&scenario)
            .arg(&log)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .expect("node starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .strip_prefix("listening ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("mock said {line:?}"));
        MockApi { child, port, log }
    }

    /// The logged requests, in order.
    pub fn requests(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

impl Drop for MockApi {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
