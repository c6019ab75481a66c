//! `stopgate install`, `uninstall` and `doctor`, run as a user would.

// Runs the `stopgate` binary, which needs the `cli` feature.
#![cfg(feature = "cli")]

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

/// Run `bin` as a user would inside `project` (also `$CLAUDE_PROJECT_DIR`),
/// with `PATH` set to `path`.
fn in_project(
    bin: &Path,
    home: &Path,
    project: &Path,
    path: &str,
    args: &[&str],
) -> Output {
    Command::new(bin)
        .args(args)
        .env("HOME", home)
        .env("STOPGATE_STATE_DIR", home.join("state"))
        .env("CLAUDE_PROJECT_DIR", project)
        .env("PATH", path)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("STOPGATE_CONFIG")
        .env_remove("CLAUDE_CODE_ENTRYPOINT")
        .current_dir(project)
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
    // Run from $HOME, the project's settings file is the user's: checked
    // once, not twice.
    let checks = report.lines().filter(|l| l.contains("hooks structure"));
    assert_eq!(checks.count(), 1, "{report}");

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

fn installed_ok(out: &Output) {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn planted_links_beside_the_settings_are_never_followed() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("repo");
    let claude = project.join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let settings = claude.join("settings.json");
    std::fs::write(&settings, "{\"model\": \"opus\"}\n").unwrap();
    let victim = home.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    for name in ["settings.json.stopgate-tmp", "settings.json.stopgate-backup"]
    {
        std::os::unix::fs::symlink(&victim, claude.join(name)).unwrap();
    }
    let out = Command::new(BIN)
        .args(["install", "--scope", "project"])
        .env("HOME", home.path())
        .env("CLAUDE_PROJECT_DIR", &project)
        .output()
        .unwrap();
    installed_ok(&out);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let meta = std::fs::symlink_metadata(&settings).unwrap();
    assert!(meta.is_file(), "settings.json is a plain file");
    // The backup went to a fresh name, with the original bytes.
    let backup = claude.join("settings.json.stopgate-backup.1");
    assert_eq!(
        std::fs::read_to_string(backup).unwrap(),
        "{\"model\": \"opus\"}\n"
    );
}

#[test]
fn mode_owner_and_symlinked_settings_are_kept() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let home = tempfile::tempdir().unwrap();
    let dotfiles = home.path().join("dotfiles");
    std::fs::create_dir(&dotfiles).unwrap();
    let real = dotfiles.join("claude-settings.json");
    std::fs::write(&real, "{\"env\": {\"TOKEN\": \"secret\"}}\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600))
        .unwrap();
    std::fs::create_dir(home.path().join(".claude")).unwrap();
    let link = home.path().join(".claude/settings.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let uid = std::fs::metadata(&real).unwrap().uid();

    installed_ok(&stopgate(home.path(), &["install"]));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let meta = std::fs::metadata(&real).unwrap();
    assert_eq!(meta.mode() & 0o777, 0o600);
    assert_eq!(meta.uid(), uid);
    let text = std::fs::read_to_string(&real).unwrap();
    assert!(text.contains("stopgate hook") && text.contains("secret"));
    // The backup sits beside the real file, just as private.
    let backup = dotfiles.join("claude-settings.json.stopgate-backup");
    assert_eq!(std::fs::metadata(backup).unwrap().mode() & 0o777, 0o600);

    installed_ok(&stopgate(home.path(), &["uninstall"]));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::metadata(&real).unwrap().mode() & 0o777, 0o600);
}

#[test]
fn concurrent_installs_share_no_file() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".claude")).unwrap();
    let settings = home.path().join(".claude/settings.json");
    std::fs::write(&settings, "{}\n").unwrap();
    std::thread::scope(|s| {
        let runs: Vec<_> = (0..6)
            .map(|_| s.spawn(|| stopgate(home.path(), &["install"])))
            .collect();
        for r in runs {
            installed_ok(&r.join().unwrap());
        }
    });
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap())
            .unwrap();
    for event in ["PostToolUse", "Stop", "SubagentStop"] {
        assert_eq!(v["hooks"][event].as_array().unwrap().len(), 1, "{event}");
    }
    let leftovers: Vec<_> = std::fs::read_dir(home.path().join(".claude"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("stopgate-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn other_peoples_hooks_and_numbers_are_kept() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".claude")).unwrap();
    let settings = home.path().join(".claude/settings.json");
    let bin = Path::new(BIN).canonicalize().unwrap();
    let bin = bin.display();
    let original = format!(
        r#"{{
  "big": 12345678901234567890123,
  "precise": 0.1000000000000000055511151231257827,
  "hooks": {{
    "PostToolUse": [{{"matcher": "Write|Edit", "hooks": [
      {{"type": "command", "command": "prettier --write"}},
      {{"type": "command", "command": "STOPGATE_DEBUG=1 {bin} hook"}}]}}],
    "Stop": [{{"matcher": "", "hooks": [
      {{"type": "command", "command": "stopgate hook --config /etc/team-stopgate.toml"}}]}}]
  }}
}}
"#
    );
    std::fs::write(&settings, &original).unwrap();
    installed_ok(&stopgate(home.path(), &["install"]));
    let text = std::fs::read_to_string(&settings).unwrap();
    assert!(text.contains("12345678901234567890123"), "{text}");
    assert!(text.contains("0.1000000000000000055511151231257827"), "{text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let post = v["hooks"]["PostToolUse"].as_array().unwrap();
    assert_eq!(post[0]["matcher"], "Write|Edit", "prettier's matcher");
    assert_eq!(post[0]["hooks"][0]["command"], "prettier --write");
    assert_eq!(post.len(), 2, "stopgate moved to a group of its own");
    assert_eq!(
        post[1]["hooks"][0]["command"],
        format!("STOPGATE_DEBUG=1 {bin} hook"),
        "the env-wrapped entry is recognised, not duplicated"
    );
    let stop = v["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop.len(), 1);
    assert_eq!(
        stop[0]["hooks"][0]["command"],
        "stopgate hook --config /etc/team-stopgate.toml"
    );
}

#[test]
fn an_explicit_settings_path_in_a_missing_folder_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join("no/such/dir/s.json");
    let out = stopgate(
        home.path(),
        &["install", "--settings", path.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"));
    assert!(!home.path().join("no").exists());
}

/// Install then uninstall on a machine with no settings file leaves
/// nothing: no file, no folder, no backup.
#[test]
fn install_then_uninstall_without_a_file_leaves_nothing() {
    let home = tempfile::tempdir().unwrap();
    let out = stopgate(home.path(), &["install"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(home.path().join(".claude/settings.json").is_file());
    let out = stopgate(home.path(), &["uninstall"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        !home.path().join(".claude").exists(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Install then uninstall gives back the very bytes the user had, and
/// keeps no backup of them (the file is the backup again).
#[test]
fn uninstall_restores_the_file_byte_for_byte() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    let settings = dir.join("settings.json");
    let original = "{\"model\":\"opus\",  \"env\": {\"A\": \"1\"}}\n\n";
    std::fs::write(&settings, original).unwrap();
    assert!(stopgate(home.path(), &["install"]).status.success());
    assert_ne!(std::fs::read_to_string(&settings).unwrap(), original);
    // A second install on an unchanged file changes nothing.
    assert!(stopgate(home.path(), &["install"]).status.success());
    let out = stopgate(home.path(), &["uninstall"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, vec!["settings.json"], "{left:?}");
}

/// When the user changed the file after install, uninstall removes
/// exactly stopgate's entries and the `hooks` object install created, and
/// keeps the user's change and formatting.
#[test]
fn uninstall_after_an_edit_removes_only_what_install_added() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    let settings = dir.join("settings.json");
    std::fs::write(&settings, "{\n  \"model\": \"opus\"\n}\n").unwrap();
    assert!(stopgate(home.path(), &["install"]).status.success());
    let installed = std::fs::read_to_string(&settings).unwrap();
    let edited = installed.replacen(
        "\"model\": \"opus\"",
        "\"model\": \"opus\",\n  \"theme\": \"dark\"",
        1,
    );
    std::fs::write(&settings, &edited).unwrap();
    let out = stopgate(home.path(), &["uninstall"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        "{\n  \"model\": \"opus\",\n  \"theme\": \"dark\"\n}\n"
    );
}

/// `--scope project` writes a command that works on every teammate's
/// machine: `stopgate` from PATH, or a binary inside the project named from
/// `$CLAUDE_PROJECT_DIR`; `doctor` checks that it resolves.
#[test]
fn project_scope_writes_no_path_of_this_machine() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    std::fs::create_dir_all(&project).unwrap();
    let run = |bin: &Path, args: &[&str], path: &str| {
        in_project(bin, home.path(), &project, path, args)
    };
    let settings = project.join(".claude/settings.json");
    let command = |settings: &Path| {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(settings).unwrap())
                .unwrap();
        v["hooks"]["Stop"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .to_string()
    };

    // The binary outside the project, not on PATH: `stopgate hook`, with a
    // note, and doctor fails on it.
    let out = run(
        Path::new(BIN),
        &["install", "--scope", "project"],
        "/usr/bin:/bin",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(command(&settings), "stopgate hook");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("not on this machine's PATH"), "{stdout}");
    let out = run(Path::new(BIN), &["doctor"], "/usr/bin:/bin");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("FAIL Stop: stopgate is missing"), "{report}");

    // On PATH, doctor resolves it.
    let bin_dir = Path::new(BIN).parent().unwrap().to_str().unwrap();
    let out =
        run(Path::new(BIN), &["doctor"], &format!("{bin_dir}:/usr/bin:/bin"));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("ok   Stop: stopgate is /"), "{report}");

    // A binary inside the project: named from $CLAUDE_PROJECT_DIR.
    std::fs::remove_dir_all(project.join(".claude")).unwrap();
    let inside = project.join("tools/stopgate");
    std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
    std::fs::copy(BIN, &inside).unwrap();
    let out =
        run(&inside, &["install", "--scope", "project"], "/usr/bin:/bin");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        command(&settings),
        "\"$CLAUDE_PROJECT_DIR/tools/stopgate\" hook"
    );
    let text = std::fs::read_to_string(&settings).unwrap();
    assert!(!text.contains(home.path().to_str().unwrap()), "{text}");
    let out = run(&inside, &["doctor"], "/usr/bin:/bin");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("ok   Stop: $CLAUDE_PROJECT_DIR/tools/stopgate is"),
        "{report}"
    );
}

/// `doctor` reports every scope where stopgate is installed.
#[test]
fn doctor_reports_every_scope() {
    let home = tempfile::tempdir().unwrap();
    let bin_dir =
        Path::new(BIN).parent().unwrap().to_str().unwrap().to_string();
    let project = home.path().join("proj");
    std::fs::create_dir_all(&project).unwrap();
    let path = format!("{bin_dir}:/usr/bin:/bin");
    let run = |args: &[&str]| {
        in_project(Path::new(BIN), home.path(), &project, &path, args)
    };
    for scope in ["user", "project", "local"] {
        assert!(
            run(&["install", "--scope", scope]).status.success(),
            "{scope}"
        );
    }
    let out = run(&["doctor"]);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}");
    for file in [
        ".claude/settings.json",
        "proj/.claude/settings.json",
        "proj/.claude/settings.local.json",
    ] {
        let path = home.path().join(file);
        assert!(
            report.contains(&format!(
                "settings {}: Stop entry present",
                path.display()
            )),
            "{file}: {report}"
        );
    }
}

/// `--scope` picks one of Claude Code's files; the other agents have one
/// settings file each, so it is refused for them, with a one-line reason.
#[test]
fn scope_is_refused_for_the_other_agents() {
    for agent in ["codex", "gemini"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_stopgate"))
            .args([
                "install",
                "--agent",
                agent,
                "--scope",
                "project",
                "--dry-run",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{agent}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--scope") && err.lines().count() == 1, "{err}");
    }
}
