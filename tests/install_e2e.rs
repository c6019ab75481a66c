//! `stopgate install`, `uninstall` and `doctor`, run as a user would.

use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_stopgate");

fn stopgate(home: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("HOME", home)
        .env("STOPGATE_STATE_DIR", home.join("state"))
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("STOPGATE_CONFIG")
        .env_remove("CLAUDE_CODE_ENTRYPOINT")
        .current_dir(home)
        .output()
        .unwrap()
}

#[test]
fn install_merges_is_idempotent_and_uninstall_restores() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let original = r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "/home/me/.claude/hooks/other.sh"}]}]
  }
}
"#;
    std::fs::write(&settings, original).unwrap();

    let out = stopgate(home.path(), &["install"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let backup = std::fs::read_to_string(
        home.path().join(".claude/settings.json.stopgate-backup"),
    )
    .unwrap();
    assert_eq!(backup, original, "the backup is the original file");
    let after: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap())
            .unwrap();
    assert_eq!(after["model"], "opus");
    assert_eq!(after["permissions"]["allow"][0], "Bash(ls:*)");
    assert_eq!(
        after["hooks"]["Stop"][0]["hooks"][0]["command"],
        "/home/me/.claude/hooks/other.sh"
    );
    let post = &after["hooks"]["PostToolUse"][0];
    assert_eq!(post["matcher"], "Write|Edit|MultiEdit|NotebookEdit|Bash");
    let command = post["hooks"][0]["command"].as_str().unwrap();
    assert!(
        command.starts_with('/') && command.ends_with("stopgate hook"),
        "{command}"
    );
    assert!(!command.contains('\\'));
    // Keys keep their order.
    let text = std::fs::read_to_string(&settings).unwrap();
    assert!(
        text.find("\"model\"").unwrap()
            < text.find("\"permissions\"").unwrap()
    );

    // Idempotent.
    let before = std::fs::read_to_string(&settings).unwrap();
    assert!(stopgate(home.path(), &["install"]).status.success());
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), before);

    // Doctor passes.
    let out = stopgate(home.path(), &["doctor"]);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}");
    assert!(report.lines().all(|l| l.starts_with("ok")), "{report}");
    assert!(report.contains("self-test"), "{report}");

    // Uninstall removes exactly ours.
    assert!(stopgate(home.path(), &["uninstall"]).status.success());
    let after: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap())
            .unwrap();
    let want: serde_json::Value = serde_json::from_str(original).unwrap();
    assert_eq!(after, want);
}

#[test]
fn install_refuses_invalid_json_and_changes_nothing() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join("s.json");
    std::fs::write(&settings, "{\"hooks\": {,}").unwrap();
    let out = stopgate(
        home.path(),
        &["install", "--settings", settings.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("s.json") && err.contains("not valid JSON"), "{err}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{\"hooks\": {,}");
    assert!(!home.path().join("s.json.stopgate-backup").exists());
}

#[test]
fn dry_run_writes_nothing_and_scopes_pick_files() {
    let home = tempfile::tempdir().unwrap();
    let out = stopgate(home.path(), &["install", "--dry-run"]);
    assert!(out.status.success());
    let printed: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap();
    assert!(printed["hooks"]["Stop"].is_array());
    assert!(!home.path().join(".claude/settings.json").exists());
    assert!(stopgate(home.path(), &["install", "--scope", "local"])
        .status
        .success());
    assert!(home.path().join(".claude/settings.local.json").exists());
    assert!(stopgate(home.path(), &["install", "--scope", "project"])
        .status
        .success());
    assert!(home.path().join(".claude/settings.json").exists());
}

#[test]
fn doctor_fails_on_wrong_shape_and_missing_binary() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        r#"{"hooks": {"Stop": {"matcher": "", "hooks": [{"type": "command", "command": "/gone/stopgate hook"}]},
                      "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "/gone/stopgate hook"}]}]}}"#,
    )
    .unwrap();
    let out = stopgate(home.path(), &["doctor"]);
    assert_eq!(out.status.code(), Some(1));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("FAIL settings") && report.contains("not an array"),
        "{report}"
    );
    assert!(
        report.contains("FAIL PostToolUse: /gone/stopgate is missing"),
        "{report}"
    );
    assert!(report.contains("matcher \"Write\""), "{report}");
}

#[test]
fn config_default_and_check() {
    let home = tempfile::tempdir().unwrap();
    let out = stopgate(home.path(), &["config", "--default"]);
    assert!(out.status.success());
    let p = home.path().join("c.toml");
    std::fs::write(&p, &out.stdout).unwrap();
    let out =
        stopgate(home.path(), &["config", "--check", p.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(&p, "output = \"json\"\n\n[audit]\ncap = \"two\"\n")
        .unwrap();
    let out =
        stopgate(home.path(), &["config", "--check", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("c.toml") && err.contains("line 4"), "{err}");
}
