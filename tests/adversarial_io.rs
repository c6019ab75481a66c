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

/// The binary, isolated: HOME and the state directory in `dir`, no
/// inherited configuration.
fn command(dir: &Path) -> Command {
    let mut cmd = Command::new(common::bin());
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
            format!("{m}"),
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
