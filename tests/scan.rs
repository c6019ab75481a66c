//! `stopgate scan`: the expected report over `fixtures/`, the same answer
//! on every thread count and read chunk size, the real corpus, and files
//! that are cut or growing.

// Runs the `stopgate` binary, which needs the `cli` feature.
#![cfg(feature = "cli")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use stopgate::archive::{scan_file, scan_reader, FileReport, ScanOptions};
use stopgate::config::Config;
use stopgate::judge::Judge;

mod common;

use common::{children_max_rss_kib, mkfifo};

const BIN: &str = env!("CARGO_BIN_EXE_stopgate");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scan(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("scan")
        .args(args)
        .current_dir(root())
        .env("HOME", root().join("target"))
        .env_remove("STOPGATE_CONFIG")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .unwrap()
}

fn fixture_files() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walk(&root().join("fixtures"));
    out.sort();
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|e| e == "jsonl") {
            out.push(p);
        }
    }
    out
}

/// Every turn under `path`, as JSONL rows.
fn jsonl_rows(path: &str) -> Vec<serde_json::Value> {
    let out =
        scan(&["--no-progress", "--format", "jsonl", "--all-turns", path]);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every turn of `fixtures/` as JSONL, with `args` added.
fn all_turns(args: &[&str]) -> String {
    let mut all = vec!["--format", "jsonl", "--all-turns", "--no-progress"];
    all.extend_from_slice(args);
    all.push("fixtures/");
    let out = scan(&all);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn fixtures_match_the_expected_jsonl_on_every_thread_count_and_chunk() {
    let expected =
        std::fs::read_to_string(root().join("tests/expected/scan.jsonl"))
            .unwrap();
    for args in [
        &["--threads", "1"][..],
        &["--threads", "2"],
        &["--threads", "8"],
        &["--threads", "1", "--chunk-size", "4096"],
        &["--threads", "2", "--chunk-size", "1048576"],
    ] {
        let got = all_turns(args);
        if got != expected {
            for (g, e) in got.lines().zip(expected.lines()) {
                assert_eq!(g, e, "{args:?}");
            }
            panic!(
                "{args:?}: {} lines, expected {}",
                got.lines().count(),
                expected.lines().count()
            );
        }
    }
}

/// Chunk sizes of 1 and 7 bytes cut every line in every place: the
/// reports must not change. (In memory, so a byte-at-a-time read costs no
/// system calls.)
#[test]
fn every_chunk_size_gives_the_same_report() {
    let gates = Judge::new(&Config::default()).unwrap();
    for path in fixture_files() {
        let bytes = std::fs::read(&path).unwrap();
        let base = scan_reader(
            &path,
            &bytes[..],
            None,
            &gates,
            &ScanOptions::default(),
        );
        assert!(base.error.is_none());
        let small: &[usize] = if bytes.len() > 1 << 20 {
            &[7, 4096]
        } else {
            &[1, 7, 4096, 1 << 20]
        };
        for &chunk in small {
            let mut opts = ScanOptions::default();
            opts.chunk_size = chunk;
            let got = scan_reader(&path, &bytes[..], None, &gates, &opts);
            assert_eq!(got, base, "{} at chunk {chunk}", path.display());
        }
    }
}

#[test]
fn real_corpus_scans_without_errors() {
    let dir = root().join("../shared/corpus");
    if !dir.is_dir() {
        // Written past the test harness's capture, so CI logs show it.
        let _ = writeln!(
            std::io::stderr(),
            "corpus scan skipped: {} does not exist",
            dir.display()
        );
        return;
    }
    let out = scan(&[
        "--format",
        "jsonl",
        "--all-turns",
        "--no-progress",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let turns = String::from_utf8(out.stdout).unwrap().lines().count();
    assert!(turns > 10, "only {turns} turns");
    // The table reports no unreadable file.
    let out = scan(&["--no-progress", dir.to_str().unwrap()]);
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("unreadable files: 0"), "{table}");
    eprintln!("corpus: {turns} turns scanned");
}

#[test]
fn cut_and_growing_files() {
    let gates = Judge::new(&Config::default()).unwrap();
    let full =
        std::fs::read(root().join("fixtures/transcripts/gate_findings.jsonl"))
            .unwrap();
    let whole = scan_reader(
        Path::new("s.jsonl"),
        &full[..],
        None,
        &gates,
        &ScanOptions::default(),
    );
    // Cut in the middle of its last line: that line is ignored, silently.
    let cut = &full[..full.len() - 40];
    let got = scan_reader(
        Path::new("s.jsonl"),
        cut,
        None,
        &gates,
        &ScanOptions::default(),
    );
    assert_eq!(got.corrupt, 0);
    // The cut line was the last turn's stop_hook_summary: the turns stand,
    // and the last one lost only what that record said.
    assert_eq!(got.turns[..5], whole.turns[..5]);
    assert!(
        got.turns[5].hooks_ran.is_empty()
            && !whole.turns[5].hooks_ran.is_empty()
    );

    // Growing while scanned: a writer appends whole lines as the scan runs.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grow.jsonl");
    std::fs::write(&path, &full).unwrap();
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            use std::io::Write;
            let mut f =
                std::fs::OpenOptions::new().append(true).open(&path).unwrap();
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                f.write_all(&full).unwrap();
                if f.metadata().unwrap().len() > 64 << 20 {
                    break;
                }
            }
        });
        for _ in 0..5 {
            let r: FileReport =
                scan_file(&path, &gates, &ScanOptions::default());
            assert!(r.error.is_none(), "{:?}", r.error);
            assert!(r.turns.len() >= whole.turns.len());
            // Whole copies plus at most one partial copy at the end.
            assert_eq!(r.turns[..6], whole.turns[..]);
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
    });
}

#[test]
fn options_and_exit_codes() {
    // --fail-on-findings: the fixtures have findings.
    let out = scan(&["--no-progress", "--fail-on-findings", "fixtures/"]);
    assert_eq!(out.status.code(), Some(1));
    let out = scan(&[
        "--no-progress",
        "--fail-on-findings",
        "fixtures/transcripts/content_string.jsonl",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // A missing path is an error naming it.
    let out = scan(&["--no-progress", "no/such/dir"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/dir"));
    // CSV has the JSONL columns.
    let out = scan(&[
        "--format",
        "csv",
        "--all-turns",
        "--no-progress",
        "fixtures/",
    ]);
    let csv = String::from_utf8(out.stdout).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("key,file,session_id,project,turn,kind,timestamp,entrypoint,agent,changed,audit,findings,rules,matched,line,excerpt,subagents,hooks_ran,hook_blocked,hook_blocks,blocking_hooks,lines,excerpts,hook_faults,blocks_overridden,note,changes")
    );
    let expected =
        std::fs::read_to_string(root().join("tests/expected/scan.jsonl"))
            .unwrap();
    assert_eq!(lines.count(), expected.lines().count());
    // Dates: --since in the future skips every file unread; --until in the
    // past keeps no turn.
    let out = scan(&["--no-progress", "--since", "2999-01-01", "fixtures/"]);
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.contains("scanned 0 files")
            && table.contains("last modified before --since"),
        "{table}"
    );
    // No turn in range: said, not a table of zeros.
    assert!(table.contains("no turns to judge"), "{table}");
    assert!(!table.contains("0.0%"), "{table}");
    let out = scan(&["--no-progress", "--until", "2001-01-01", "fixtures/"]);
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("no turns to judge"), "{table}");
    let out = scan(&[
        "--format",
        "jsonl",
        "--all-turns",
        "--no-progress",
        "--until",
        "2020-01-01",
        "fixtures/",
    ]);
    assert!(out.stdout.is_empty());
    let out = scan(&["--no-progress", "--since", "not-a-date", "fixtures/"]);
    assert_eq!(out.status.code(), Some(2));
    // The table.
    let out = scan(&["--no-progress", "fixtures/"]);
    let table = String::from_utf8(out.stdout).unwrap();
    for want in [
        "unaudited_change",
        "hollow_audit",
        "deferral",
        "capitulation",
        "unverified_claim",
        "worst sessions (project · date · first prompt)",
        "proj · 2026-03-20 · ",
        "by project",
        "by day",
        "of 28 change turns",
        "hook health",
        "by agent",
        "judged turns",
        "turns dated 2026-03-20",
        " MiB",
    ] {
        assert!(table.contains(want), "{want} missing:\n{table}");
    }
    // --all-turns picks rows: with the table it is refused, with a reason.
    let out = scan(&["--no-progress", "--all-turns", "fixtures/"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--all-turns picks the rows"), "{err}");
    assert!(table.contains("corrupt lines skipped: 9"), "{table}");
}

fn timed_scan(args: &[&str]) -> Output {
    let started = std::time::Instant::now();
    let out = scan(args);
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(5), "{args:?}: {took:?}");
    out
}

#[test]
fn explicit_special_paths_are_skipped_with_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("pipe.jsonl");
    mkfifo(&fifo);
    let out = timed_scan(&[
        "--no-progress",
        fifo.to_str().unwrap(),
        "/dev/zero",
        "fixtures/transcripts/gate_findings.jsonl",
    ]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{table}");
    assert!(table.contains("pipe.jsonl: not a regular file"), "{table}");
    assert!(table.contains("/dev/zero: not a regular file"), "{table}");
    assert!(table.contains("scanned 1 files"), "{table}");
}

#[test]
fn threads_are_clamped_and_the_clamp_reported() {
    let out = timed_scan(&[
        "--no-progress",
        "--threads",
        "100000",
        "fixtures/transcripts/gate_findings.jsonl",
    ]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--threads 100000 clamped to"), "{err}");
}

#[test]
fn a_line_over_the_cap_is_skipped_in_bounded_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("long.jsonl");
    let fixture =
        std::fs::read(root().join("fixtures/transcripts/gate_findings.jsonl"))
            .unwrap();
    // 512 MB of one line (a hole: NULs), then the fixture's lines.
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(512 << 20).unwrap();
    drop(f);
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(b"\n").unwrap();
    f.write_all(&fixture).unwrap();
    drop(f);
    let out = scan(&[
        "--no-progress",
        "--threads",
        "1",
        "--max-line-bytes",
        "16777216",
        path.to_str().unwrap(),
    ]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("lines over the length cap skipped: 1"), "{table}");
    let rss = children_max_rss_kib();
    assert!(rss < 120 << 10, "peak RSS {} MB", rss >> 10);
    // The lines after it are read: the same rows as the fixture alone.
    let rows = |p: &str| {
        let out =
            scan(&["--format", "jsonl", "--all-turns", "--no-progress", p]);
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let mut v: serde_json::Value =
                    serde_json::from_str(l).unwrap();
                // The file's name, and its head (the entrypoint is in
                // the first lines), differ, and so do the lines the
                // evidence names; the rows must not.
                for k in [
                    "key",
                    "file",
                    "session_id",
                    "entrypoint",
                    "evidence",
                    "changes",
                ] {
                    v[k] = serde_json::Value::Null;
                }
                v
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        rows(path.to_str().unwrap()),
        rows("fixtures/transcripts/gate_findings.jsonl")
    );
}

#[test]
fn non_utf8_names_are_written_faithfully() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"a\\\xffb.jsonl");
    let path = tmp.path().join(name);
    std::fs::copy(
        root().join("fixtures/transcripts/gate_findings.jsonl"),
        &path,
    )
    .unwrap();
    let out = scan(&[
        "--format",
        "jsonl",
        "--no-progress",
        tmp.path().to_str().unwrap(),
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    let first: serde_json::Value =
        serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let file = first["file"].as_str().unwrap();
    assert!(file.ends_with(r"a\\\xffb.jsonl"), "{file}");
    assert_eq!(first["file_escaped"], true);
}

/// The date forms reach the scan: an instant, a local time in a zone, a
/// span; the range is stated under the table.
#[test]
fn dates_in_every_form_and_zone() {
    let count = |args: &[&str]| all_turns(args).lines().count();
    let all = count(&[]);
    assert!(all > 0);
    // Every fixture turn is on 2026-03-20 UTC, between 10:00 and 11:00.
    assert_eq!(count(&["--since", "2026-03-20", "--tz", "UTC"]), all);
    assert_eq!(count(&["--until", "2026-03-19", "--tz", "UTC"]), 0);
    // 2026-03-20 in Tokyo ends at 15:00 UTC: every turn is in it.
    assert_eq!(count(&["--until", "2026-03-20", "--tz", "Asia/Tokyo"]), all);
    // 2026-03-20 in Los Angeles starts at 07:00 UTC: so is every turn.
    assert_eq!(
        count(&["--since", "2026-03-20", "--tz", "America/Los_Angeles"]),
        all
    );
    // The next day in Tokyo starts at 2026-03-20T15:00Z: after every turn.
    assert_eq!(count(&["--since", "2026-03-21", "--tz", "Asia/Tokyo"]), 0);
    let some = count(&["--since", "2026-03-20T10:00:10Z"]);
    assert!(0 < some && some < all, "{some} of {all}");
    assert_eq!(
        count(&["--since", "2026-03-20T19:00:10", "--tz", "Asia/Tokyo"]),
        some
    );
    // A span back from now: the fixtures are older than a week.
    assert_eq!(count(&["--since", "7d"]), 0);
    let out = scan(&[
        "--no-progress",
        "--since",
        "2026-03-20",
        "--tz",
        "Asia/Tokyo",
        "fixtures/",
    ]);
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.contains("turns from 2026-03-20 00:00:00 +09:00 to the last"),
        "{table}"
    );
    // Days are counted in the zone: 10:00 UTC is the next day at UTC+14.
    let out = scan(&[
        "--no-progress",
        "--color",
        "never",
        "--tz",
        "Pacific/Kiritimati",
        "fixtures/",
    ]);
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("\n2026-03-21 "), "{table}");
    assert!(table.contains("turns dated 2026-03-21 00:00 +14:00"), "{table}");
    // --since after --until: a warning.
    let out = scan(&[
        "--no-progress",
        "--since",
        "2026-03-21",
        "--until",
        "2026-03-20",
        "fixtures/",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is after --until"), "{err}");
    for bad in [&["--since", "last tuesday"][..], &["--tz", "Mars/Base"]] {
        let mut args = vec!["--no-progress"];
        args.extend_from_slice(bad);
        args.push("fixtures/");
        let out = scan(&args);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.lines().next().unwrap().starts_with("error: invalid value"),
            "{err}"
        );
    }
}

/// An empty folder says so, not a table of zeros; one thread is "thread".
#[test]
fn no_transcripts_and_one_thread_read_right() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_str().unwrap();
    let out = scan(&["--no-progress", dir]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("no transcripts found under {dir}\n")
    );
    let out = scan(&["--no-progress", "--format", "jsonl", dir]);
    assert!(out.stdout.is_empty());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no transcripts found")
    );
    let out = scan(&[
        "--no-progress",
        "--threads",
        "1",
        "fixtures/transcripts/gate_findings.jsonl",
    ]);
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains(" on 1 thread: "), "{table}");
}

/// Colours: on with --color always, off in a pipe, with --color never and
/// with NO_COLOR.
#[test]
fn colours_follow_the_flag_the_terminal_and_no_color() {
    let esc = |out: Output| out.stdout.contains(&0x1b);
    fn args(c: &str) -> Vec<&str> {
        vec![
            "--no-progress",
            "--color",
            c,
            "fixtures/transcripts/gate_findings.jsonl",
        ]
    }
    assert!(esc(scan(&args("always"))));
    assert!(!esc(scan(&args("never"))));
    assert!(!esc(scan(&args("auto"))), "stdout is a pipe here");
    let out = Command::new(BIN)
        .arg("scan")
        .args(args("auto"))
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env("CLICOLOR_FORCE", "1")
        .output()
        .unwrap();
    assert!(!esc(out), "NO_COLOR wins over auto");
}

/// On an 80-column terminal the progress bar's frames fit the line, and
/// the first frame is a whole one. Runs under `script` (util-linux) for a
/// terminal; skips with a notice without it.
#[test]
fn the_progress_bar_fits_80_columns() {
    let has_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_script {
        println!("skip: `script` (util-linux) not found; the progress bar is not checked on a terminal");
        return;
    }
    let out = Command::new("script")
        .args([
            "-qc",
            &format!("stty cols 80; {BIN} scan --color never fixtures/"),
            "/dev/null",
        ])
        .current_dir(root())
        .env("HOME", root().join("target"))
        .env_remove("STOPGATE_CONFIG")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let frames: Vec<&str> = text
        .split(['\r', '\n'])
        .map(|f| f.trim_start_matches("\x1b[2K"))
        .filter(|f| f.contains(" files ["))
        .collect();
    assert!(!frames.is_empty(), "no progress frame in {text:?}");
    assert!(
        frames[0].contains(" 0/30 files ["),
        "first frame: {:?}",
        frames[0]
    );
    for f in &frames {
        assert!(
            f.chars().count() <= 80,
            "{} columns: {f:?}",
            f.chars().count()
        );
    }
}

/// Every agent's transcripts in one scan: an `agent` column, `--agent`
/// keeps one agent's, and with no PATH every agent's store that exists is
/// scanned (Claude Code's projects, Codex's sessions, Gemini's tmp).
#[test]
fn agents_are_told_apart_filtered_and_found_by_default() {
    let rows = |out: Output| -> Vec<serde_json::Value> {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let all = rows(scan(&[
        "--format",
        "jsonl",
        "--all-turns",
        "--no-progress",
        "fixtures/",
    ]));
    for agent in ["claude", "codex", "gemini"] {
        assert!(all.iter().any(|r| r["agent"] == agent), "{agent}");
        let only = rows(scan(&[
            "--format",
            "jsonl",
            "--all-turns",
            "--no-progress",
            "--agent",
            agent,
            "fixtures/",
        ]));
        assert!(!only.is_empty());
        assert!(only.iter().all(|r| r["agent"] == agent), "{agent}");
    }
    let csv = scan(&[
        "--format",
        "csv",
        "--all-turns",
        "--no-progress",
        "fixtures/",
    ]);
    let header = String::from_utf8(csv.stdout).unwrap();
    assert!(header.lines().next().unwrap().contains(",agent,"));

    // The default stores, under a HOME of their own.
    let home = tempfile::tempdir().unwrap();
    let put = |dir: &str, fixture: &str| {
        let d = home.path().join(dir);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::copy(
            root().join("fixtures/transcripts").join(fixture),
            d.join(fixture),
        )
        .unwrap();
    };
    put(".claude/projects/-w-demo", "content_array.jsonl");
    put(".codex/sessions/2026/11/30", "codex_rollout.jsonl");
    put(".gemini/tmp/demo/chats", "gemini_session.jsonl");
    let run = |args: &[&str]| {
        Command::new(BIN)
            .arg("scan")
            .args(args)
            .env("HOME", home.path())
            .env_remove("CODEX_HOME")
            .env_remove("GEMINI_CLI_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("STOPGATE_CONFIG")
            .output()
            .unwrap()
    };
    let found =
        rows(run(&["--format", "jsonl", "--all-turns", "--no-progress"]));
    let mut agents: Vec<&str> =
        found.iter().map(|r| r["agent"].as_str().unwrap()).collect();
    agents.dedup();
    assert_eq!(agents, ["claude", "codex", "gemini"], "{found:#?}");
    let gemini = found.iter().find(|r| r["agent"] == "gemini").unwrap();
    assert_eq!(gemini["project"], "demo", "the project folder Gemini named");
    let codex = rows(run(&[
        "--format",
        "jsonl",
        "--all-turns",
        "--no-progress",
        "--agent",
        "codex",
    ]));
    assert!(!codex.is_empty() && codex.iter().all(|r| r["agent"] == "codex"));
    // The table has a row per agent.
    let table = run(&["--no-progress", "--color", "never"]);
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(table.contains("by agent"), "{table}");
}

/// A rollout whose first line is too long to decide the format (a big
/// `session_meta`) is still a rollout: the next line tells, for the scan
/// (which gets lines one at a time) as for the whole-file reader.
#[test]
fn a_long_first_line_does_not_decide_the_format() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout-big.jsonl");
    let meta = serde_json::json!({"type": "session_meta", "payload": {"id": "big", "cwd": "/w",
        "source": "cli", "base_instructions": {"text": "x".repeat(100_000)}}});
    let rest = std::fs::read_to_string(
        root().join("fixtures/transcripts/codex_tui.jsonl"),
    )
    .unwrap();
    let rest: String =
        rest.lines().skip(1).map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, format!("{meta}\n{rest}")).unwrap();
    let t = stopgate::read::Transcript::read(&path).unwrap();
    assert_eq!(t.format(), stopgate::read::Format::Codex);
    assert_eq!(t.entrypoint().as_deref(), Some("codex-cli"));
    // The hook reads only the head, in a 64 KiB window first.
    assert_eq!(
        stopgate::read::Transcript::read_entrypoint(&path).unwrap().as_deref(),
        Some("codex-cli")
    );
    let out = scan(&[
        "--format",
        "jsonl",
        "--all-turns",
        "--no-progress",
        path.to_str().unwrap(),
    ]);
    let rows: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!(rows[0]["agent"], "codex");
    assert_eq!(rows[0]["kind"], "interrupted");
}

/// A scanned file's entrypoint is learnt from the bytes as they stream
/// past, not from a second read of the head: every fixture, at every
/// chunk size, gets the report it gets when the head read names the
/// entrypoint, with `sdk-cli` sessions skipped as unattended.
#[test]
fn the_entrypoint_streamed_is_the_one_the_head_read_gives() {
    let gates = Judge::new(&Config::default()).unwrap();
    let mut everyone = Config::default();
    everyone.skip_entrypoints = vec![];
    let attending = Judge::new(&everyone).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // A turn that ends before the line naming the entrypoint has streamed
    // past the first window: it waits for the answer.
    let late = dir.path().join("late.jsonl");
    let prompt = |text: &str, entrypoint: Option<&str>| {
        let mut v = serde_json::json!({"type": "user", "sessionId": "late",
            "timestamp": "2026-03-20T10:00:00Z",
            "message": {"role": "user", "content": text}});
        if let Some(e) = entrypoint {
            v["entrypoint"] = e.into();
        }
        v.to_string()
    };
    let edit = serde_json::json!({"type": "assistant", "sessionId": "late",
        "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Edit", "input": {}}]}});
    let done = serde_json::json!({"type": "assistant", "sessionId": "late",
        "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "text", "text": "Done."}]}});
    let pad = serde_json::json!({"type": "file-history-snapshot",
        "snapshot": {"pad": "x".repeat(20_000)}});
    let lines = [
        prompt("fix it", None),
        edit.to_string(),
        done.to_string(),
        pad.to_string(),
        prompt("again", Some("sdk-cli")),
        edit.to_string(),
        done.to_string(),
    ];
    std::fs::write(&late, lines.join("\n") + "\n").unwrap();
    let mut files = fixture_files();
    files.push(late.clone());
    // A subagent's file yields no rows of its own.
    files.retain(|p| !p.components().any(|c| c.as_os_str() == "subagents"));
    for path in files {
        let want_entrypoint =
            stopgate::read::Transcript::read_entrypoint(&path).unwrap();
        for chunk in [1 << 18, 4096, 7] {
            let mut opts = ScanOptions::default();
            opts.chunk_size = chunk;
            if chunk == 7 && std::fs::metadata(&path).unwrap().len() > 1 << 20
            {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let want = scan_reader(
                &path,
                &bytes[..],
                want_entrypoint.clone(),
                &gates,
                &opts,
            );
            let got = scan_file(&path, &gates, &opts);
            assert_eq!(got, want, "{} at chunk {chunk}", path.display());
        }
    }
    let report = scan_file(&late, &gates, &ScanOptions::default());
    assert_eq!(report.entrypoint.as_deref(), Some("sdk-cli"));
    assert_eq!(report.turns.len(), 2, "{report:#?}");
    assert!(report.turns.iter().all(|t| t.changed && t.findings.is_empty()));
    let attended = scan_file(&late, &attending, &ScanOptions::default());
    assert!(attended.turns.iter().all(|t| !t.findings.is_empty()));
}

/// The scan's rows of `file`, checked against `stopgate check --turn N`
/// on each: it blocks exactly the turns the scan has a finding on.
fn scan_and_check(file: &Path) -> Vec<stopgate::archive::TurnReport> {
    let gates = Judge::new(&Config::default()).unwrap();
    let report = scan_file(file, &gates, &ScanOptions::default());
    assert!(report.error.is_none(), "{:?}", report.error);
    for row in &report.turns {
        let out = Command::new(BIN)
            .args(["check", "--json", "--turn", &row.turn.to_string()])
            .arg(file)
            .env("HOME", root().join("target"))
            .env_remove("STOPGATE_CONFIG")
            .env_remove("XDG_CONFIG_HOME")
            .output()
            .unwrap();
        let check: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            check["verdict"] == "block",
            !row.findings.is_empty(),
            "turn {}: {check}",
            row.turn
        );
    }
    report.turns
}

/// Lines of a Claude Code 2.1.332 session, each at `10:MM:SS` of one day.
mod background {
    use serde_json::{json, Value};

    pub const SID: &str = "33333333-4444-4555-8666-777777777777";

    fn at(time: &str) -> String {
        format!("2026-12-04T10:{time}.000Z")
    }

    fn line(time: &str, sidechain: bool, rest: Value) -> String {
        let mut v = json!({
            "parentUuid": null,
            "isSidechain": sidechain,
            "userType": "external",
            "entrypoint": "claude-vscode",
            "cwd": "/w",
            "sessionId": SID,
            "version": "2.1.332",
            "timestamp": at(time),
        });
        v.as_object_mut().unwrap().extend(rest.as_object().unwrap().clone());
        v.to_string()
    }

    pub fn prompt(time: &str, text: &str) -> String {
        line(
            time,
            false,
            json!({"type": "user", "message": {"role": "user", "content": text}}),
        )
    }

    pub fn notification(time: &str, agent: &str) -> String {
        let text = format!(
            "<task-notification>\n<task-id>{agent}</task-id>\n<status>completed</status>\n</task-notification>"
        );
        line(
            time,
            false,
            json!({"type": "user", "origin": {"kind": "task-notification"}, "message": {"role": "user", "content": text}}),
        )
    }

    fn assistant(time: &str, sidechain: bool, block: Value) -> String {
        line(
            time,
            sidechain,
            json!({"type": "assistant", "message": {"role": "assistant", "content": [block]}}),
        )
    }

    pub fn launch(time: &str, id: &str) -> String {
        assistant(
            time,
            false,
            json!({"type": "tool_use", "id": id, "name": "Agent", "input": {"prompt": "Write b.txt", "run_in_background": true}}),
        )
    }

    pub fn launched(time: &str, id: &str, agent: &str) -> String {
        line(
            time,
            false,
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "Async agent launched successfully."}]}, "toolUseResult": {"isAsync": true, "status": "async_launched", "agentId": agent}}),
        )
    }

    pub fn said(time: &str, text: &str) -> String {
        assistant(time, false, json!({"type": "text", "text": text}))
    }

    /// The attachment Claude Code keeps for a hook's `systemMessage`.
    pub fn hook_message(time: &str, text: &str) -> String {
        line(
            time,
            false,
            json!({"type": "attachment", "attachment": {"type": "hook_system_message", "content": text, "hookName": "Stop", "toolUseID": "x", "hookEvent": "Stop"}}),
        )
    }

    pub fn stop_summary(time: &str) -> String {
        line(
            time,
            false,
            json!({"type": "system", "subtype": "stop_hook_summary", "hookCount": 1, "hookInfos": [{"command": "stopgate hook"}], "hookErrors": [], "preventedContinuation": false}),
        )
    }

    /// A subagent's line: a Write of `file`.
    pub fn write(time: &str, id: &str, file: &str) -> String {
        assistant(
            time,
            true,
            json!({"type": "tool_use", "id": id, "name": "Write", "input": {"file_path": file, "content": "x"}}),
        )
    }

    /// The main agent's Write of `file`, and its result.
    pub fn main_write(
        time: &str,
        id: &str,
        file: &str,
        ok: bool,
    ) -> [String; 2] {
        let result = json!({"type": "tool_result", "tool_use_id": id, "is_error": !ok, "content": "x"});
        [
            assistant(
                time,
                false,
                json!({"type": "tool_use", "id": id, "name": "Write", "input": {"file_path": file, "content": "x"}}),
            ),
            line(
                time,
                false,
                json!({"type": "user", "message": {"role": "user", "content": [result]}}),
            ),
        ]
    }

    /// The user pressed Esc.
    pub fn interrupted(time: &str) -> String {
        line(
            time,
            false,
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]}}),
        )
    }

    pub fn sub_prompt(time: &str) -> String {
        line(
            time,
            true,
            json!({"type": "user", "message": {"role": "user", "content": "Write b.txt"}}),
        )
    }
}

/// A background subagent (Claude Code 2.1.332) changes files when it
/// likes: before the launching turn's Stop, the change is that turn's;
/// after it, the change is the first turn's to end after it, where the
/// hook's PostToolUse flag brings it to the Stop; after every turn, it
/// stays the launching turn's. `stopgate check --turn N` agrees: it
/// blocks exactly the turns the scan finds an unaudited change in (no
/// final text here holds an audit).
#[test]
fn a_background_subagent_change_belongs_to_the_first_stop_after_it() {
    use background::*;

    /// The rows' (turn, changed) for a session of `main` lines whose one
    /// subagent, `agent-a1.jsonl`, writes at `write_at`.
    fn changed_rows(main: &[String], write_at: &str) -> Vec<(usize, bool)> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(format!("{SID}.jsonl"));
        std::fs::write(&file, main.join("\n") + "\n").unwrap();
        let subagents = dir.path().join(SID).join("subagents");
        std::fs::create_dir_all(&subagents).unwrap();
        let sub =
            [sub_prompt("00:03"), write(write_at, "toolu_w", "/w/b.txt")];
        std::fs::write(
            subagents.join("agent-a1.jsonl"),
            sub.join("\n") + "\n",
        )
        .unwrap();
        scan_and_check(&file)
            .iter()
            .inspect(|row| {
                assert_eq!(row.findings.is_empty(), !row.changed, "{row:?}")
            })
            .map(|t| (t.turn, t.changed))
            .collect()
    }

    let launching = [
        prompt("00:01", "write b.txt with a subagent"),
        launch("00:02", "toolu_a"),
        launched("00:03", "toolu_a", "a1"),
        said("00:04", "Started it."),
        stop_summary("00:05"),
    ];
    let notified = [
        notification("02:00", "a1"),
        said("02:01", "The agent wrote b.txt."),
        stop_summary("02:02"),
    ];
    let session: Vec<String> =
        launching.iter().chain(&notified).cloned().collect();
    // Written before the launching turn's Stop: that turn's.
    assert_eq!(changed_rows(&session, "00:04"), [(1, true), (2, false)]);
    // After it: the notification's turn's, the first to end after it.
    assert_eq!(changed_rows(&session, "01:00"), [(1, false), (2, true)]);
    // After every turn: no Stop saw it, the launching turn keeps it.
    assert_eq!(changed_rows(&session, "05:00"), [(1, true), (2, false)]);
    // A turn between, started by the user: its Stop is the first after.
    let between = [
        prompt("00:30", "and meanwhile?"),
        said("00:31", "Waiting."),
        stop_summary("00:32"),
    ];
    let session: Vec<String> =
        launching.iter().chain(&between).chain(&notified).cloned().collect();
    assert_eq!(
        changed_rows(&session, "00:20"),
        [(1, false), (2, true), (3, false)]
    );
    // With no Stop hook, no summary: the final text's time ends a turn.
    let bare: Vec<String> = session
        .iter()
        .filter(|l| !l.contains("stop_hook_summary"))
        .cloned()
        .collect();
    assert_eq!(
        changed_rows(&bare, "00:04"),
        [(1, true), (2, false), (3, false)]
    );
    assert_eq!(
        changed_rows(&bare, "00:10"),
        [(1, false), (2, true), (3, false)]
    );
}

/// The user interrupts a turn after its Write ran: no Stop fires, so the
/// hook's flag stays raised and the next Stop is the first to judge the
/// change, whatever its own turn did. The scan puts the change on that
/// turn too (the interrupted turn keeps it, with no finding), and `check`
/// blocks there and allows the interrupted turn. A Write the user
/// declined ran no PostToolUse, and is nobody's to audit.
#[test]
fn an_interrupted_turns_change_is_judged_at_the_next_stop() {
    use background::*;

    fn rows(ok: bool) -> Vec<(usize, String, bool, bool)> {
        reports(ok)
            .into_iter()
            .map(|r| {
                (
                    r.turn,
                    r.kind.as_str().to_string(),
                    r.changed,
                    !r.findings.is_empty(),
                )
            })
            .collect()
    }

    fn reports(ok: bool) -> Vec<stopgate::archive::TurnReport> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(format!("{SID}.jsonl"));
        let mut lines = vec![prompt("00:01", "write a.txt")];
        lines.extend(main_write("00:02", "toolu_w", "/w/a.txt", ok));
        lines.extend([
            interrupted("00:03"),
            prompt("00:10", "what is in a.txt?"),
            said("00:11", "It holds x."),
            stop_summary("00:12"),
        ]);
        std::fs::write(&file, lines.join("\n") + "\n").unwrap();
        scan_and_check(&file)
    }

    // The evidence says where the change came from.
    let carried = reports(true);
    assert_eq!(carried[0].changes, ["this turn: Write /w/a.txt (line 2)"]);
    assert_eq!(
        carried[1].changes,
        ["carried from turn 1, which the user interrupted: Write /w/a.txt (line 2)"]
    );
    // A Write the user declined changed nothing: not its own turn, and
    // nothing is carried.
    assert_eq!(
        rows(true),
        [
            (1, "interrupted".to_string(), true, false),
            (2, "prompt".to_string(), true, true)
        ]
    );
    assert_eq!(
        rows(false),
        [
            (1, "interrupted".to_string(), false, false),
            (2, "prompt".to_string(), false, false)
        ]
    );
}

/// A Stop the hook let through by its own fault, and said so: Claude Code
/// keeps the hook's `systemMessage` as a `hook_system_message` attachment,
/// and `scan` counts it, in the row and in the table; another hook's
/// message is not counted.
#[test]
fn stops_the_hook_let_through_by_its_own_fault_are_counted() {
    use background::*;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(format!("{SID}.jsonl"));
    let lines = [
        prompt("00:01", "what is in a.txt?"),
        said("00:02", "It holds x."),
        hook_message(
            "00:03",
            "stopgate is not guarding this Stop: it ran out of time (5000 ms) and let it through.",
        ),
        stop_summary("00:04"),
        prompt("00:10", "and b.txt?"),
        said("00:11", "It holds y."),
        hook_message("00:12", "lint: 3 warnings"),
        stop_summary("00:13"),
    ];
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let turns = scan_and_check(&file);
    let unguarded: Vec<usize> = turns.iter().map(|t| t.unguarded).collect();
    assert_eq!(unguarded, [1, 0]);
    let out =
        scan(&["--no-progress", "--color", "never", file.to_str().unwrap()]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("told the user it was not guarding once"),
        "{table}"
    );
}

/// A turn with two findings keeps both excerpts in CSV (`lines`,
/// `excerpts`), not only the first's.
#[test]
fn csv_keeps_every_findings_excerpt() {
    use background::*;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(format!("{SID}.jsonl"));
    let [w1, r1] = main_write("00:02", "t1", "a.txt", true);
    let [w2, r2] = main_write("00:03", "t2", "b.txt", true);
    let lines = [
        prompt("00:01", "split the config into two files"),
        w1,
        r1,
        w2,
        r2,
        said(
            "00:04",
            "Done.\n\nWhich would you prefer for the defaults, TOML or YAML?",
        ),
    ];
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let out =
        scan(&["--no-progress", "--format", "csv", file.to_str().unwrap()]);
    let csv = String::from_utf8(out.stdout).unwrap();
    let row = csv.lines().nth(1).expect(&csv);
    assert!(
        row.contains("unaudited_change") && row.contains("deferral"),
        "{csv}"
    );
    // Two excerpts in the `excerpts` cell, a JSON list.
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let at =
        r.headers().unwrap().iter().position(|h| h == "excerpts").unwrap();
    let record = r.records().next().unwrap().unwrap();
    let excerpts: Vec<String> = serde_json::from_str(&record[at]).unwrap();
    assert_eq!(excerpts.len(), 2, "{csv}");
}

/// Hook health: blocks the client overrode, a hook's error and a hook
/// that ran out of time (a cancel the user asked for is no fault) are in
/// the rows, the table and the HTML report.
#[test]
fn hook_health_is_reported() {
    let file = "fixtures/transcripts/hook_health.jsonl";
    let rows = jsonl_rows(file);
    assert_eq!(rows.len(), 2, "{rows:#?}");
    assert_eq!(rows[0]["blocks_overridden"], 2, "{rows:#?}");
    assert_eq!(rows[0]["hook_blocks"], 2);
    assert!(rows[0].get("hook_faults").is_none(), "{rows:#?}");
    assert_eq!(
        rows[1]["hook_faults"],
        serde_json::json!([
            {"event": "PostToolUse", "command": "./lint.sh", "timed_out": false},
            {"event": "Stop", "command": "/usr/local/bin/stopgate hook", "timed_out": true}
        ])
    );
    assert!(rows[1].get("blocks_overridden").is_none(), "{rows:#?}");

    let out = scan(&["--no-progress", "--color", "never", file]);
    let table = String::from_utf8_lossy(&out.stdout);
    let health = table.split("hook health").nth(1).expect(&table);
    let row = health.lines().find(|l| l.starts_with("proj ")).expect(health);
    let cells: Vec<&str> = row.split_whitespace().collect();
    // project, stops, stopgate ran ("2 of 2"), blocks, overrode, errors,
    // timeouts, not guarding.
    assert_eq!(
        cells,
        ["proj", "2", "2", "of", "2", "2", "1", "1", "1", "0"],
        "{table}"
    );
    assert!(
        health.contains(
            "1 block overridden by the client, 1 hook error, 1 hook timeout"
        ),
        "{table}"
    );

    let out = scan(&["--no-progress", "--format", "html", file]);
    let html = String::from_utf8_lossy(&out.stdout);
    assert!(html.contains("<h2>Hook health</h2>"), "{html}");
    assert!(html.contains("<td class=\"n bad\">1</td>"), "{html}");
}

/// A session of which only the subagent files are left (its main file
/// is gone) is not dropped: its turns are listed under the session, with
/// a note, unjudged, and the table says how many such files there were.
#[test]
fn an_orphan_subagent_file_gets_rows_and_a_note() {
    use background::*;
    let dir = tempfile::tempdir().unwrap();
    let subagents = dir.path().join(SID).join("subagents");
    std::fs::create_dir_all(&subagents).unwrap();
    let sub = [sub_prompt("00:03"), write("00:04", "toolu_w", "/w/b.txt")];
    std::fs::write(subagents.join("agent-a1.jsonl"), sub.join("\n") + "\n")
        .unwrap();
    let root = dir.path().to_str().unwrap();
    let rows = jsonl_rows(root);
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!(rows[0]["session_id"], SID);
    assert_eq!(rows[0]["changed"], true);
    assert_eq!(rows[0]["audit"], "unjudged");
    assert_eq!(rows[0]["findings"], serde_json::json!([]));
    assert!(
        rows[0]["note"].as_str().unwrap().contains("main file is missing"),
        "{rows:#?}"
    );
    let out = scan(&["--no-progress", "--color", "never", root]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("1 subagent file whose session's main file is missing"),
        "{table}"
    );
    // Its turn is not counted as a judged change turn.
    assert!(table.contains("0 with file changes"), "{table}");
    // With its main file there, the subagent's work is the main turn's.
    std::fs::write(
        dir.path().join(format!("{SID}.jsonl")),
        [prompt("00:01", "write b"), said("00:05", "Done.")].join("\n") + "\n",
    )
    .unwrap();
    let out =
        scan(&["--no-progress", "--format", "jsonl", "--all-turns", root]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("\"note\""), "{text}");
}
