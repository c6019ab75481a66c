//! `stopgate check`: the gates offline, on transcripts on disk.

use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_stopgate");

fn check(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("check")
        .args(args)
        .env("HOME", dir)
        .env("STOPGATE_STATE_DIR", dir.join("state"))
        .env_remove("STOPGATE_CONFIG")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .unwrap()
}

fn write(dir: &Path, name: &str, lines: &[serde_json::Value]) -> String {
    let p = dir.join(name);
    std::fs::write(
        &p,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    p.display().to_string()
}

#[test]
fn verdicts_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let user = |t: &str| serde_json::json!({"type": "user", "message": {"content": t}});
    let text = |t: &str| serde_json::json!({"type": "assistant", "message": {"id": "m", "content": [{"type": "text", "text": t}]}});
    let challenged = write(
        dir.path(),
        "r.jsonl",
        &[user("That's wrong, it is 100."), text("You're right, it is 100.")],
    );
    let out = check(dir.path(), &[&challenged]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("block reverify capitulation\n"), "{stdout}");

    let out = check(dir.path(), &["--json", &challenged]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "block");
    assert_eq!(v["gate"], "reverify");
    assert_eq!(v["rule"], "capitulation");
    let matched: Vec<&str> = v["matched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(
        matched.contains(&"challenge:that's wrong")
            && matched.contains(&"capitulation:you're right"),
        "{matched:?}"
    );

    // No change: the audit gate is silent; --prompt-changed raises the flag.
    let plain =
        write(dir.path(), "a.jsonl", &[user("Add it."), text("Added.")]);
    let out = check(dir.path(), &[&plain]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "allow\n");
    let out = check(dir.path(), &["--json", "--prompt-changed", &plain]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["verdict"].as_str(), v["gate"].as_str(), v["rule"].as_str()),
        (Some("block"), Some("audit"), Some("no_marker"))
    );

    let audited = write(
        dir.path(),
        "b.jsonl",
        &[user("Add it."), text("Added. 監査: 空入力の境界を潰した")],
    );
    let out = check(dir.path(), &["--json", "--prompt-changed", &audited]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "allow");
    assert_eq!(
        v["matched"],
        serde_json::json!(["marker:監査", "marker:潰した"])
    );

    assert!(
        !dir.path().join("state").exists(),
        "check never touches the state directory"
    );
}

#[test]
fn errors_exit_two_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = check(dir.path(), &["/nonexistent/t.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("/nonexistent/t.jsonl")
    );
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "order = [\"nope\"]\n").unwrap();
    let t = write(dir.path(), "t.jsonl", &[]);
    let out = check(dir.path(), &["--config", bad.to_str().unwrap(), &t]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.toml") && err.contains("line 1"), "{err}");
}
