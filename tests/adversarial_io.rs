//! The adversarial suite: each attack an attacker's review found (issue
//! 49), tried again on every run, against the built binary.
//!
//! A transcript, a config and the files beside a settings file are all
//! input someone else may have written: an agent quotes a web page into
//! its prompt, a repository ships a `stopgate.toml`, a teammate plants a
//! link in `.claude/`. Each test here is one class of such input, run end
//! to end as a user would run it, so that a fix that later regresses is
//! caught by the attack itself and not by a unit test that drifted from
//! it. Add a class here when a new one is found.

// Runs the `stopgate` binary, which needs the `cli` feature.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::json;

mod common;

/// Run the binary with `args` in `dir`, isolated from the user's own
/// configuration and state.
fn run(dir: &Path, args: &[&str]) -> Output {
    command(dir).args(args).output().unwrap()
}

/// The binary, isolated: see [`isolated`].
fn command(dir: &Path) -> Command {
    isolated(Command::new(common::bin()), dir)
}

/// `cmd` isolated: HOME and the state directory in `dir`, no inherited
/// configuration.
fn isolated(mut cmd: Command, dir: &Path) -> Command {
    cmd.current_dir(dir)
        .env("HOME", dir)
        .env("STOPGATE_STATE_DIR", dir.join("state"));
    for k in [
        "CLAUDE_CODE_ENTRYPOINT",
        "CLAUDE_CONFIG_DIR",
        "CLAUDE_PROJECT_DIR",
        "STOPGATE_CONFIG",
        "STOPGATE_DEBUG",
        "XDG_CONFIG_HOME",
        "XDG_STATE_HOME",
    ] {
        cmd.env_remove(k);
    }
    cmd
}

/// Write a transcript of `lines` at `dir/name`.
fn transcript(dir: &Path, name: &str, lines: &[serde_json::Value]) -> PathBuf {
    let p = dir.join(name);
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&p, text).unwrap();
    p
}

/// A turn that edits a file and ends with `text`, in a session run in
/// `cwd`, started by `prompt`.
fn edit_turn(cwd: &str, prompt: &str, text: &str) -> Vec<serde_json::Value> {
    vec![
        json!({"type": "user", "cwd": cwd, "sessionId": "s",
            "timestamp": "2025-01-02T03:04:05Z",
            "message": {"role": "user", "content": prompt}}),
        json!({"type": "assistant", "cwd": cwd, "sessionId": "s",
            "timestamp": "2025-01-02T03:04:06Z",
            "message": {"id": "m1", "role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "Edit",
                    "input": {"file_path": "src/a.rs"}}]}}),
        json!({"type": "assistant", "cwd": cwd, "sessionId": "s",
            "timestamp": "2025-01-02T03:04:07Z",
            "message": {"id": "m2", "role": "assistant", "content": [
                {"type": "text", "text": text}]}}),
    ]
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A config's marker may end in punctuation, which is also a sentence's
/// end: the hollow gate judged it, and never panicked (`check` exited
/// 101, a scan aborted, the hook let the hollow audit pass).
#[test]
fn markers_that_end_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let markers = [
        "Audit done.",
        "LGTM!",
        "Self-check.",
        "監査済み。",
        "確認済み！",
        "검토 완료.",
        "Verified?",
        "All good!",
        "Looks fine.",
        "No issues found.",
        "Double-checked!",
        "Reviewed:",
        "Done. Audited.",
    ];
    let toml = format!(
        "[audit]\nextra_markers = [{}]\n",
        markers.map(|m| format!("{m:?}")).join(", ")
    );
    std::fs::write(dir.path().join("sg.toml"), toml).unwrap();
    let out = run(dir.path(), &["config", "--check", "sg.toml"]);
    assert!(out.status.success(), "{out:?}");
    for (i, m) in markers.iter().enumerate() {
        for text in [
            format!("Fixed. {m}"),
            m.to_string(),
            format!("{m} {m}"),
            format!("{m} The lock in src/a.rs:12 is released on every path."),
        ] {
            let name = format!("t{i}.jsonl");
            transcript(dir.path(), &name, &edit_turn("/p", "Fix it.", &text));
            let out =
                run(dir.path(), &["check", "--config", "sg.toml", &name]);
            assert_eq!(out.status.code(), Some(0), "{text:?}: {out:?}");
        }
    }
    // A stock phrase is hollow, as it is with any other marker.
    transcript(
        dir.path(),
        "h.jsonl",
        &edit_turn("/p", "Fix it.", "Fixed. Audit done."),
    );
    let out = run(dir.path(), &["check", "--config", "sg.toml", "h.jsonl"]);
    assert!(stdout(&out).starts_with("block hollow stock_phrase"), "{out:?}");
    // The scan reads every file and ends.
    let out = run(
        dir.path(),
        &[
            "scan",
            "--no-progress",
            "--config",
            "sg.toml",
            "--format",
            "csv",
            ".",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    assert!(stdout(&out).contains("h.jsonl"), "{out:?}");
}

/// Whether `out` holds only the escapes of our own colours: every ESC
/// starts an SGR sequence (`ESC [ digits ; … m`), and no other control
/// but the line feed is there.
fn only_our_escapes(out: &str) -> Result<(), String> {
    for (i, c) in out.char_indices() {
        match c {
            '\n' => {}
            '\x1b' => {
                let rest = &out[i + 1..];
                let sgr = rest.strip_prefix('[').is_some_and(|r| {
                    let n = r.find(|c: char| !c.is_ascii_digit() && c != ';');
                    n.is_some_and(|n| r[n..].starts_with('m'))
                });
                if !sgr {
                    return Err(format!(
                        "a raw escape at {i}: {:?}",
                        &out[i..]
                    ));
                }
            }
            c if c.is_control() => {
                return Err(format!("a raw {c:?} at {i}: {:?}", &out[i..]))
            }
            _ => {}
        }
    }
    Ok(())
}

/// A transcript's `cwd` and prompt reach the scan's table (the project's
/// row, the worst sessions' labels): their escape sequences (OSC 0, the
/// clipboard's OSC 52, CSI 2J, a C1 CSI) were printed raw unless
/// `--color never`. They are shown as visible escapes, whatever
/// `--color` says.
#[test]
fn terminal_escapes_in_the_table() {
    let dir = tempfile::tempdir().unwrap();
    // Short enough that the table's columns do not cut them.
    let cwd = "/home/u/p\x1b]0;x\x07";
    let prompt = "F\x1b]52;c;ZQ==\x07\x1b[2J\u{9b}1m\x7f\r\n\tnow";
    std::fs::create_dir(dir.path().join("t")).unwrap();
    transcript(
        &dir.path().join("t"),
        "s.jsonl",
        &edit_turn(cwd, prompt, "Done."),
    );
    for color in ["always", "auto", "never"] {
        let out =
            run(dir.path(), &["scan", "--no-progress", "--color", color, "t"]);
        assert!(out.status.success(), "{out:?}");
        let text = stdout(&out);
        // The project's row, and the worst session's label.
        assert!(text.contains("\np\\x1b]0;x\\x07 "), "{color}: {text}");
        assert!(
            text.contains("F\\x1b]52;c;ZQ==\\x07\\x1b[2J"),
            "{color}: {text}"
        );
        if let Err(e) = only_our_escapes(&text) {
            panic!("--color {color}: {e}\n{text}");
        }
    }
    // `check` prints an unattended entrypoint, and what matched.
    let mut lines = edit_turn(cwd, prompt, "Done. Tests pass\x1b[2J.");
    lines[0]["entrypoint"] = json!("sdk\x1b]0;x\x07");
    transcript(dir.path(), "e.jsonl", &lines);
    std::fs::write(
        dir.path().join("sg.toml"),
        "skip_entrypoints = [\"sdk\\u001b]0;x\\u0007\"]\n",
    )
    .unwrap();
    let out = run(dir.path(), &["check", "--config", "sg.toml", "e.jsonl"]);
    let text = stdout(&out);
    assert!(text.contains("sdk\\x1b]0;x\\x07"), "{out:?}");
    only_our_escapes(&text).unwrap();
}

/// A CSV cell that starts with `=`, `+`, `-`, `@`, tab or CR is a formula
/// to a spreadsheet: such cells (the project, the excerpt) start with a
/// single quote, as OWASP advises.
#[test]
fn formulas_in_csv_cells() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("t")).unwrap();
    let attacks =
        ["=1+1", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\t=1", "\r=1"];
    for (i, a) in attacks.iter().enumerate() {
        transcript(
            &dir.path().join("t"),
            &format!("s{i}.jsonl"),
            &edit_turn(a, "Fix it.", &format!("{a} Done.")),
        );
    }
    let out = run(
        dir.path(),
        &["scan", "--no-progress", "--format", "csv", "--all-turns", "t"],
    );
    assert!(out.status.success(), "{out:?}");
    let mut rows = csv_rows(&out.stdout);
    let header = rows.remove(0);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (project, excerpt) = (col("project"), col("excerpt"));
    assert_eq!(rows.len(), attacks.len());
    for row in &rows {
        for cell in row {
            assert!(
                !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                "{cell:?} in {row:?}"
            );
        }
        let a = row[project].strip_prefix('\'').unwrap();
        assert!(attacks.contains(&a), "{row:?}");
        assert!(row[excerpt].starts_with('\''), "{row:?}");
    }
}

/// The cells of a CSV text, quotes removed (RFC 4180).
fn csv_rows(bytes: &[u8]) -> Vec<Vec<String>> {
    let text = String::from_utf8_lossy(bytes);
    let mut rows = vec![];
    let (mut row, mut cell) = (vec![], String::new());
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => cell.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut cell)),
            (false, '\n') => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => cell.push(c),
        }
    }
    rows
}

/// A shell command built to make the lexer or the change rules
/// quadratic: `find . -exec ` 200,000 times, then `rm x` (2.6 MB). It
/// took 104 s to scan, and the hook ran into its timer and allowed the
/// Stop. It is judged in one pass: a change, found at once.
#[test]
fn quadratic_shell_commands() {
    let dir = tempfile::tempdir().unwrap();
    let command = format!("{}rm x", "find . -exec ".repeat(200_000));
    let mut lines = edit_turn("/p", "Clean up.", "Done.");
    lines[1]["message"]["content"][0]["name"] = json!("Bash");
    lines[1]["message"]["content"][0]["input"] = json!({"command": command});
    std::fs::create_dir(dir.path().join("t")).unwrap();
    transcript(&dir.path().join("t"), "s.jsonl", &lines);
    let started = std::time::Instant::now();
    let out = run(dir.path(), &["check", "t/s.jsonl"]);
    assert!(stdout(&out).starts_with("block audit"), "{out:?}");
    let out = run(
        dir.path(),
        &["scan", "--no-progress", "--format", "jsonl", "--all-turns", "t"],
    );
    let took = started.elapsed();
    let row: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("one JSONL row");
    assert_eq!(row["changed"], true, "{row}");
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
}

/// A way to plant something at a path (the second) given a private file
/// (the first).
type Plant = fn(&Path, &Path);

/// Someone who can write the project's `.claude/` replaces the backup
/// install made with a link to a private file: `uninstall` copied the
/// file's bytes into the team's `settings.json` and said "restored … byte
/// for byte". A backup that is a symbolic link, a hard link, a FIFO (no
/// hang either) or not a file at all is refused, and said so; uninstall
/// removes exactly stopgate's entries instead.
#[test]
fn planted_backups() {
    let original = "{\n  \"model\": \"opus\"\n}\n";
    let plants: [(&str, Plant); 4] = [
        ("symbolic link", |secret, at| {
            std::os::unix::fs::symlink(secret, at).unwrap()
        }),
        ("hard link", |secret, at| std::fs::hard_link(secret, at).unwrap()),
        ("fifo", |_, at| common::mkfifo(at)),
        ("directory", |_, at| std::fs::create_dir(at).unwrap()),
    ];
    for (what, plant) in plants {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("proj");
        let claude = project.join(".claude");
        std::fs::create_dir_all(&claude).unwrap();
        let settings = claude.join("settings.json");
        std::fs::write(&settings, original).unwrap();
        let secret = dir.path().join("id_ed25519");
        std::fs::write(&secret, "PRIVATE KEY").unwrap();
        let in_project = |args: &[&str]| {
            command(dir.path())
                .args(args)
                .current_dir(&project)
                .env("CLAUDE_PROJECT_DIR", &project)
                .output()
                .unwrap()
        };
        let out = in_project(&["install", "--scope", "project"]);
        assert!(out.status.success(), "{what}: {out:?}");
        let backup = claude.join("settings.json.stopgate-backup");
        std::fs::remove_file(&backup).unwrap();
        plant(&secret, &backup);

        let out = in_project(&["uninstall", "--scope", "project"]);
        assert!(out.status.success(), "{what}: {out:?}");
        let now = std::fs::read_to_string(&settings).unwrap();
        assert!(!now.contains("PRIVATE"), "{what}: {now}");
        assert!(!now.contains("stopgate"), "{what}: {now}");
        assert!(!stdout(&out).contains("byte for byte"), "{what}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not restoring"), "{what}: {err}");
        assert_eq!(std::fs::read_to_string(&secret).unwrap(), "PRIVATE KEY");
    }
}

/// Under a file size limit (`ulimit -f`), a write past it raised
/// `SIGXFSZ`, whose default kills the process: every hook run died by
/// signal 25. The hook ignores it; the write fails with `EFBIG`, which is
/// one more write error to the hook.
#[test]
fn file_size_limit() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let tx = transcript(
        dir.path(),
        "s.jsonl",
        &edit_turn("/p", "Fix it.", "Done."),
    );
    let inputs = [
        json!({"session_id": "s", "transcript_path": tx, "cwd": "/p",
            "hook_event_name": "PostToolUse", "tool_name": "Write",
            "tool_use_id": "t9",
            "tool_input": {"file_path": "/p/a.rs", "content": "x"}}),
        json!({"session_id": "s", "transcript_path": tx, "cwd": "/p",
            "hook_event_name": "Stop", "stop_hook_active": false}),
    ];
    for debug in ["0", "1"] {
        for input in &inputs {
            let mut child = isolated(Command::new("sh"), dir.path())
                .env("STOPGATE_DEBUG", debug)
                .arg("-c")
                .arg("ulimit -f 0 && exec \"$0\" hook")
                .arg(common::bin())
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(input.to_string().as_bytes()).unwrap();
            drop(stdin);
            let out = child.wait_with_output().unwrap();
            // Exited, not killed; and a Stop whose block cannot be counted
            // allows, as on a full disk, so the cap still bounds the loop.
            assert_eq!(out.status.code(), Some(0), "{input}: {out:?}");
        }
    }
}

/// A 40 MB final text took 1.7 s to judge in a release build (2.9 s in
/// a debug one), and the hook has 5 s in all. The gates judge its last
/// 64 KiB (`stopgate::judge::JUDGED_TAIL_BYTES`), where the audit is: the same
/// verdict, in a fraction of the time, in `check` and `scan` alike.
#[test]
fn huge_final_text() {
    let dir = tempfile::tempdir().unwrap();
    let body =
        "The change touches the parser and the writer. ".repeat(870_000);
    let text = format!(
        "{body}\n\nSelf-audit: the lock in src/a.rs:12 is released on every \
         error path; tests/lock.rs covers it."
    );
    std::fs::create_dir(dir.path().join("t")).unwrap();
    transcript(
        &dir.path().join("t"),
        "s.jsonl",
        &edit_turn("/p", "Fix it.", &text),
    );
    let started = std::time::Instant::now();
    let out = run(dir.path(), &["check", "t/s.jsonl"]);
    assert!(stdout(&out).starts_with("allow\n"), "{out:?}");
    let out = run(
        dir.path(),
        &["scan", "--no-progress", "--format", "jsonl", "--all-turns", "t"],
    );
    let took = started.elapsed();
    let row: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(row["audit"], "present", "{row}");
    assert!(took < std::time::Duration::from_millis(1500), "{took:?}");
}

/// `--max-line-bytes 18446744073709551615` lifted the cap on a line's
/// length: under an address-space limit a long line then panicked inside
/// the arena allocator. A cap above `scan`'s limit (1 GiB) is refused at
/// argument parsing, with an error that names the limit.
#[test]
fn line_cap_out_of_range() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("t")).unwrap();
    transcript(
        &dir.path().join("t"),
        "s.jsonl",
        &edit_turn("/p", "Fix it.", "Done."),
    );
    for n in [u64::MAX.to_string(), ((1u64 << 30) + 1).to_string()] {
        let out = run(
            dir.path(),
            &["scan", "--no-progress", "--max-line-bytes", &n, "t"],
        );
        assert_eq!(out.status.code(), Some(2), "{n}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--max-line-bytes") && err.contains("1 GiB"),
            "{err}"
        );
    }
    let out = run(
        dir.path(),
        &[
            "scan",
            "--no-progress",
            "--max-line-bytes",
            &(1u64 << 30).to_string(),
            "t",
        ],
    );
    assert!(out.status.success(), "{out:?}");
}
