//! The adversarial suite: each attack class that once broke stopgate
//! (issue 49), tried again on every run, so that none comes back.
//!
//! A hook that guards an agent is attacked by what it reads and where it
//! writes: a full disk under the state directory, links and FIFOs planted
//! in it, a directory others can write, a sweep of a huge directory, a file
//! that turns into a FIFO between being listed and being opened, special
//! files named on the command line, and turns big enough to flood a log.
//! The promise each test holds is the README's: the hook fails open and
//! says so, never blocks without bound, never writes through a link, and
//! every command that reads a user-named path refuses special files and
//! bounds what it reads. One test per class, end to end where the attack
//! can be staged from outside the process.

// Runs the `stopgate` binary, which needs the `cli` feature.
#![cfg(feature = "cli")]

use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

use serde_json::json;

mod common;

use common::mkfifo;

/// One isolated installation: its own HOME and state directory, no
/// inherited configuration.
struct Hook {
    dir: tempfile::TempDir,
    env: Vec<(String, String)>,
    args: Vec<String>,
    fsize_limit: Option<u64>,
}

impl Hook {
    fn new() -> Hook {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir(&home).unwrap();
        let env = vec![
            ("HOME".to_string(), home.display().to_string()),
            (
                "STOPGATE_STATE_DIR".to_string(),
                dir.path().join("state").display().to_string(),
            ),
        ];
        Hook { dir, env, args: vec![], fsize_limit: None }
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    /// The state directory, made beforehand with `mode`.
    fn with_state_dir(self, mode: u32) -> Hook {
        std::fs::create_dir(self.state()).unwrap();
        set_mode(&self.state(), mode);
        self
    }

    fn env(mut self, k: &str, v: &str) -> Hook {
        self.env.push((k.to_string(), v.to_string()));
        self
    }

    fn arg(mut self, a: &str) -> Hook {
        self.args.push(a.to_string());
        self
    }

    fn config(mut self, toml: &str) -> Hook {
        let p = self.dir.path().join("stopgate.toml");
        std::fs::write(&p, toml).unwrap();
        self.args.extend(["--config".into(), p.display().to_string()]);
        self
    }

    fn command(&self, sub: &str) -> Command {
        let mut cmd = Command::new(common::bin());
        cmd.arg(sub);
        for k in [
            "CLAUDE_CODE_ENTRYPOINT",
            "CLAUDE_PROJECT_DIR",
            "STOPGATE_CONFIG",
            "STOPGATE_DEBUG",
            "STOPGATE_FAULT",
            "XDG_STATE_HOME",
            "XDG_CONFIG_HOME",
        ] {
            cmd.env_remove(k);
        }
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        cmd.current_dir(self.dir.path());
        cmd
    }

    fn run(&self, input: serde_json::Value) -> Output {
        let mut cmd = self.command("hook");
        cmd.args(&self.args);
        if let Some(limit) = self.fsize_limit {
            // SAFETY: only async-signal-safe calls (`setrlimit`, `signal`)
            // between fork and exec.
            unsafe {
                cmd.pre_exec(move || {
                    let lim =
                        libc::rlimit { rlim_cur: limit, rlim_max: limit };
                    libc::setrlimit(libc::RLIMIT_FSIZE, &lim);
                    // A write past the limit fails with EFBIG, as a write
                    // to a full disk fails with ENOSPC.
                    libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                    Ok(())
                });
            }
        }
        let out = run_with_input(cmd, input.to_string().as_bytes());
        out.unwrap_or_else(|| panic!("the hook ran past 10 s"))
    }

    fn post_write(&self, sid: &str, id: &str) -> Output {
        self.run(json!({
            "session_id": sid, "transcript_path": "/nonexistent", "cwd": "/tmp",
            "hook_event_name": "PostToolUse", "tool_name": "Write", "tool_use_id": id,
            "tool_input": {"file_path": "/tmp/a.rs", "content": "x"},
            "tool_response": {"filePath": "/tmp/a.rs", "success": true}
        }))
    }

    fn stop(&self, sid: &str, transcript: &Path, active: bool) -> Output {
        self.run(json!({
            "session_id": sid, "transcript_path": transcript, "cwd": "/tmp",
            "hook_event_name": "Stop", "stop_hook_active": active
        }))
    }

    /// A transcript whose turn wrote a file and ended on "Fixed.", which
    /// the audit gate blocks.
    fn unaudited(&self) -> PathBuf {
        let lines = [
            json!({"type": "user", "entrypoint": "cli", "message": {"role": "user", "content": "Fix it."}}),
            json!({"type": "assistant", "entrypoint": "cli", "message": {"id": "m1", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "Write", "input": {"file_path": "a.rs", "content": "x"}}]}}),
            json!({"type": "user", "entrypoint": "cli", "message": {"content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]}}),
            json!({"type": "assistant", "entrypoint": "cli", "message": {"id": "m2", "content": [
                {"type": "text", "text": "Fixed."}]}}),
        ];
        self.transcript("t.jsonl", &lines)
    }

    /// A transcript whose turn changed nothing, which every gate allows.
    fn quiet(&self) -> PathBuf {
        let lines = [
            json!({"type": "user", "entrypoint": "cli", "message": {"role": "user", "content": "What is in src?"}}),
            json!({"type": "assistant", "entrypoint": "cli", "message": {"id": "m1", "content": [
                {"type": "text", "text": "Two files: main.rs and lib.rs."}]}}),
        ];
        self.transcript("quiet.jsonl", &lines)
    }

    fn transcript(&self, name: &str, lines: &[serde_json::Value]) -> PathBuf {
        let p = self.dir.path().join(name);
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&p, text).unwrap();
        p
    }
}

/// Run `cmd` with `stdin`, killing it after 10 s: `None` if it had to be.
fn run_with_input(mut cmd: Command, stdin: &[u8]) -> Option<Output> {
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&data);
    });
    let out = wait_or_kill(child, Duration::from_secs(10));
    writer.join().unwrap();
    out
}

/// Wait for `child` at most `limit`; kill it past that and say `None`.
fn wait_or_kill(
    mut child: std::process::Child,
    limit: Duration,
) -> Option<Output> {
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Some(child.wait_with_output().unwrap())
}

/// Run a command with no input, killed after `limit`, and given at most
/// 1 GiB of address space: a command that reads without bound dies
/// rather than taking the machine's memory.
fn run_within(mut cmd: Command, limit: Duration) -> Option<Output> {
    // SAFETY: only an async-signal-safe call between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit { rlim_cur: 1 << 30, rlim_max: 1 << 30 };
            libc::setrlimit(libc::RLIMIT_AS, &lim);
            Ok(())
        });
    }
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    wait_or_kill(cmd.spawn().unwrap(), limit)
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .unwrap();
}

fn is_block(out: &Output) -> bool {
    out.status.code() == Some(2)
        || String::from_utf8_lossy(&out.stdout).contains("\"block\"")
}

/// The `systemMessage` of the hook's output, if it printed one.
fn system_message(out: &Output) -> Option<String> {
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
    if out.stdout.is_empty() {
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {out:?}"));
    Some(v["systemMessage"].as_str().expect("a systemMessage").to_string())
}

fn age(path: &Path, by: Duration) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(SystemTime::now() - by)
        .unwrap();
}

/// A full disk: the block count cannot be written. The Stop must then
/// allow, and say so once, instead of blocking without bound.
#[test]
fn a_full_disk_fails_open_instead_of_blocking_for_ever() {
    let mut h = Hook::new().config("[audit]\ncap = 2\n");
    let t = h.unaudited();
    assert_eq!(h.post_write("d1", "toolu_1").status.code(), Some(0));
    // From here on, no file of the hook can grow past 0 bytes.
    h.fsize_limit = Some(0);
    let mut blocks = 0;
    let mut told = 0;
    for _ in 0..10 {
        let out = h.stop("d1", &t, true);
        if is_block(&out) {
            blocks += 1;
        } else if let Some(m) = system_message(&out) {
            assert!(m.contains("stopgate doctor"), "{m}");
            told += 1;
        }
    }
    assert_eq!(blocks, 0, "a block that cannot be counted is not given");
    assert_eq!(told, 1, "the user is told once per session");
}

/// Hard links planted in the state directory: the hook's writes land in
/// new files of its own, never in the linked inode.
#[test]
fn hard_links_in_the_state_directory_are_replaced_not_written_through() {
    let h = Hook::new().with_state_dir(0o700).env("STOPGATE_DEBUG", "1");
    let t = h.unaudited();
    let mut victims = vec![];
    for name in ["h1.flag", "h1.count", "debug.log"] {
        let victim = h.dir.path().join(format!("victim-{name}"));
        std::fs::write(&victim, "precious\n").unwrap();
        std::fs::hard_link(&victim, h.state().join(name)).unwrap();
        victims.push(victim);
    }
    assert_eq!(h.post_write("h1", "toolu_1").status.code(), Some(0));
    assert!(is_block(&h.stop("h1", &t, false)), "the guard still works");
    for victim in &victims {
        assert_eq!(std::fs::read_to_string(victim).unwrap(), "precious\n");
        assert_eq!(std::fs::metadata(victim).unwrap().nlink(), 1, "unlinked");
    }
    let count = std::fs::read_to_string(h.state().join("h1.count")).unwrap();
    assert_eq!(count.trim(), "1");
}

/// The OpenSSH rule: a directory the user owns and no one else can write
/// is used (a plain `mkdir` makes one), its files kept 0600; one that
/// others can write is refused, and the user is told.
#[test]
fn a_plain_mkdir_state_directory_works_and_a_shared_one_is_refused_aloud() {
    let h = Hook::new().with_state_dir(0o755);
    let t = h.unaudited();
    assert_eq!(h.post_write("m1", "toolu_1").status.code(), Some(0));
    assert!(is_block(&h.stop("m1", &t, false)), "a 0755 directory guards");
    for entry in std::fs::read_dir(h.state()).unwrap() {
        let meta = entry.unwrap().metadata().unwrap();
        assert_eq!(meta.mode() & 0o777, 0o600, "every file is private");
    }
    for mode in [0o775, 0o757, 0o777] {
        let h = Hook::new().with_state_dir(mode);
        let t = h.unaudited();
        let _ = h.post_write("m2", "toolu_1");
        let m = system_message(&h.stop("m2", &t, false))
            .unwrap_or_else(|| panic!("mode {mode:o}: refused silently"));
        assert!(m.contains("not guarding"), "{m}");
        assert!(m.contains("writable by other users"), "{m}");
        assert!(m.contains("stopgate doctor"), "{m}");
        // `doctor` says the same.
        let doctor = h.command("doctor").output().unwrap();
        let said = String::from_utf8_lossy(&doctor.stdout);
        assert!(said.contains(&m), "doctor: {said}\nhook: {m}");
        // Refused, not repaired.
        let now = std::fs::metadata(h.state()).unwrap().mode() & 0o777;
        assert_eq!(now, mode);
    }
}

/// A hook that lets a Stop through because of its own fault tells the
/// user, in the client's own channel, once per session.
#[test]
fn a_guard_that_goes_quiet_says_so_once_per_session() {
    // An invalid configuration: the defaults guard, and the user hears
    // that theirs is not in effect, once.
    let h = Hook::new().config("output = = nonsense\n");
    let t = h.quiet();
    let first = system_message(&h.stop("q1", &t, false)).expect("told");
    assert!(first.contains("stopgate doctor"), "{first}");
    assert!(first.contains("stopgate.toml"), "{first}");
    assert_eq!(system_message(&h.stop("q1", &t, false)), None, "once");
    assert!(system_message(&h.stop("q2", &t, false)).is_some(), "per session");
    // Codex and Gemini CLI take the same `systemMessage` JSON.
    for agent in ["codex", "gemini"] {
        let h = Hook::new().config("output = = nonsense\n").arg("--agent");
        let h = h.arg(agent);
        let m = system_message(&h.stop("q3", &t, false));
        assert!(m.is_some_and(|m| m.contains("stopgate doctor")), "{agent}");
    }
    // A refused state directory keeps no marker: every Stop says so.
    let h = Hook::new().with_state_dir(0o777);
    for _ in 0..2 {
        assert!(system_message(&h.stop("q4", &t, false)).is_some());
    }
    // A panic and a timeout, injected (debug builds only).
    if !cfg!(debug_assertions) {
        eprintln!("skipped: fault injection needs a debug build");
        return;
    }
    for (fault, says) in [("panic", "failed"), ("hang", "time")] {
        let h = Hook::new()
            .config("timeout_ms = 300\n")
            .env("STOPGATE_FAULT", fault);
        let m = system_message(&h.stop("q5", &t, false))
            .unwrap_or_else(|| panic!("{fault}: silent"));
        assert!(m.contains(says) && m.contains("stopgate doctor"), "{m}");
        assert_eq!(system_message(&h.stop("q5", &t, false)), None, "{fault}");
    }
}

/// A sweep of a huge state directory runs after the block is delivered,
/// and is bounded: what it leaves, a later sweep takes.
#[test]
fn the_sweep_runs_after_the_block_and_is_bounded() {
    let h = Hook::new().with_state_dir(0o700).config("timeout_ms = 500\n");
    let t = h.unaudited();
    let month = Duration::from_secs(30 * 24 * 3600);
    let n = 30_000;
    for i in 0..n {
        let p = h.state().join(format!("old-{i}.count"));
        std::fs::write(&p, "1\n").unwrap();
        age(&p, month);
    }
    assert_eq!(h.post_write("w1", "toolu_1").status.code(), Some(0));
    let started = Instant::now();
    let out = h.stop("w1", &t, false);
    let took = started.elapsed();
    assert!(is_block(&out), "the block was lost: {out:?}");
    let left = std::fs::read_dir(h.state())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("old-"))
        .filter(|e| e.file_name().to_string_lossy().ends_with(".count"))
        .count();
    assert!(left > 0, "one sweep removed all {n}: it is unbounded");
    assert!(left < n, "the sweep removed nothing");
    assert!(took < Duration::from_secs(2), "took {took:?}");
}

/// A listed `*.jsonl` that is a FIFO by the time it is opened: the scan
/// and the hook's transcript read refuse it at once.
#[test]
fn a_transcript_that_turns_into_a_fifo_is_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("session.jsonl");
    mkfifo(&fifo);
    let config = stopgate::config::Config::default();
    let gates = stopgate::judge::Judge::new(&config).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let path = fifo.clone();
    std::thread::spawn(move || {
        let options = stopgate::archive::ScanOptions::default();
        let report = stopgate::archive::scan_file(&path, &gates, &options);
        let turn = stopgate::read::Transcript::read_current_turn(
            &path,
            stopgate::read::Chain::Main,
        );
        let _ = tx.send((report.error, turn.is_err()));
    });
    let got = rx.recv_timeout(Duration::from_secs(3));
    if got.is_err() {
        // Let the hung opens go, then fail.
        for _ in 0..2 {
            let _ = std::fs::OpenOptions::new().write(true).open(&fifo);
        }
        panic!("opening a FIFO listed as a transcript hung");
    }
    let (scan_error, turn_refused) = got.unwrap();
    let e = scan_error.expect("the scan reports the file");
    assert!(e.contains("not a regular file"), "{e}");
    assert!(turn_refused, "the hook's read refuses it");
}

/// Commands that read a path the user names refuse special files with an
/// error naming the path, and bound what they read.
#[test]
fn commands_refuse_special_files_and_bound_what_they_read() {
    let h = Hook::new();
    let fifo = h.dir.path().join("pipe.jsonl");
    mkfifo(&fifo);
    let limit = Duration::from_secs(5);
    for path in [fifo.to_str().unwrap(), "/dev/zero"] {
        for sub in ["last", "check"] {
            let mut cmd = h.command(sub);
            cmd.arg(path);
            let out = run_within(cmd, limit)
                .unwrap_or_else(|| panic!("{sub} {path}: hung"));
            assert_eq!(out.status.code(), Some(2), "{sub} {path}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(path), "{sub} {path}: {err}");
            assert!(err.contains("not a regular file"), "{sub} {path}: {err}");
        }
    }
    // A settings file that is a FIFO, a link to /dev/zero, or far too big.
    let home = h.dir.path().join("home");
    let claude = home.join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let settings = claude.join("settings.json");
    let big = h.dir.path().join("big.json");
    std::fs::File::create(&big).unwrap().set_len(17 << 20).unwrap();
    let plant = |what: &str| {
        let _ = std::fs::remove_file(&settings);
        match what {
            "fifo" => mkfifo(&settings),
            "zero" => {
                std::os::unix::fs::symlink("/dev/zero", &settings).unwrap()
            }
            _ => std::os::unix::fs::symlink(&big, &settings).unwrap(),
        }
    };
    for what in ["fifo", "zero", "big"] {
        for sub in ["install", "uninstall", "doctor"] {
            plant(what);
            let out = run_within(h.command(sub), limit)
                .unwrap_or_else(|| panic!("{sub} with a {what}: hung"));
            assert_ne!(out.status.code(), Some(0), "{sub} {what}");
            let said = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(said.contains("settings.json"), "{sub} {what}: {said}");
            let why = if what == "big" {
                "larger than"
            } else {
                "not a regular file"
            };
            assert!(said.contains(why), "{sub} {what}: {said}");
        }
    }
    assert!(
        common::children_max_rss_kib() < 200 << 10,
        "a child grew past 200 MB"
    );
}

/// An empty final text judges nothing, so it consumes nothing; and a huge
/// turn does not flood the debug log, which is kept to a bounded size.
#[test]
fn an_empty_final_text_consumes_nothing_and_the_log_is_bounded() {
    let h = Hook::new().env("STOPGATE_DEBUG", "1");
    let t = h.dir.path().join("corrupt.jsonl");
    std::fs::write(
        &t,
        "{\"type\":\"user\",\"message\":{\"content\":\"Fix it.\"}}\n{\"type\":\"assist\n",
    )
    .unwrap();
    assert_eq!(h.post_write("e1", "toolu_1").status.code(), Some(0));
    let out = h.stop("e1", &t, false);
    assert!(!is_block(&out));
    assert!(h.state().join("e1.flag").exists(), "the change was consumed");
    // A flag of 100,000 ids: the notes of one Stop would be 2 MB.
    let ids: String =
        (0..100_000).map(|i| format!("toolu_{i:08}\n")).collect();
    std::fs::write(h.state().join("e2.flag"), ids).unwrap();
    let before = std::fs::metadata(h.state().join("debug.log")).unwrap().len();
    let _ = h.stop("e2", &t, false);
    let log = std::fs::metadata(h.state().join("debug.log")).unwrap().len();
    assert!(log - before < 64 << 10, "one Stop logged {} bytes", log - before);
    // A log past its cap is rotated, not grown.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(h.state().join("debug.log"))
        .unwrap();
    f.write_all(&vec![b'x'; 9 << 20]).unwrap();
    drop(f);
    let _ = h.stop("e1", &t, false);
    let log = std::fs::metadata(h.state().join("debug.log")).unwrap().len();
    assert!(log < 1 << 20, "the log is {log} bytes");
}
