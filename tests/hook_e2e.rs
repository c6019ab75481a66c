//! End-to-end tests of `stopgate hook`: the built binary, JSON on stdin,
//! environment variables, exactly as Claude Code runs it.

// Runs the `stopgate` binary, which needs the `cli` feature.
#![cfg(feature = "cli")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

mod common;

use common::{children_max_rss_kib, mkfifo};

/// One isolated installation: its own state directory and HOME, and no
/// inherited configuration.
struct Hook {
    dir: tempfile::TempDir,
    env: Vec<(String, String)>,
    args: Vec<String>,
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
        Hook { dir, env, args: vec![] }
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    fn env(mut self, k: &str, v: &str) -> Hook {
        self.env.push((k.to_string(), v.to_string()));
        self
    }

    fn config(mut self, toml: &str) -> Hook {
        let p = self.dir.path().join("stopgate.toml");
        std::fs::write(&p, toml).unwrap();
        self.args = vec!["--config".into(), p.display().to_string()];
        self
    }

    fn run_raw(&self, stdin: &[u8]) -> Output {
        let mut cmd = Command::new(common::bin());
        cmd.arg("hook").args(&self.args);
        for k in [
            "CLAUDE_CODE_ENTRYPOINT",
            "CLAUDE_PROJECT_DIR",
            "STOPGATE_CONFIG",
            "STOPGATE_DEBUG",
            "XDG_STATE_HOME",
            "XDG_CONFIG_HOME",
        ] {
            cmd.env_remove(k);
        }
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let mut pipe = child.stdin.take().unwrap();
        let data = stdin.to_vec();
        // Write from a thread: the hook may stop reading early.
        let writer = std::thread::spawn(move || {
            let _ = pipe.write_all(&data);
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        out
    }

    fn run(&self, input: serde_json::Value) -> Output {
        self.run_raw(input.to_string().as_bytes())
    }

    fn post_write(&self, sid: &str) -> Output {
        self.run(Hook::write_input(sid))
    }

    /// A PostToolUse of a Write, as the client sends it: with the tool
    /// use's id.
    fn post_write_id(&self, sid: &str, id: &str) -> Output {
        let mut v = Hook::write_input(sid);
        v["tool_use_id"] = json!(id);
        self.run(v)
    }

    fn write_input(sid: &str) -> serde_json::Value {
        json!({
            "session_id": sid, "transcript_path": "/nonexistent", "cwd": "/tmp",
            "hook_event_name": "PostToolUse", "tool_name": "Write",
            "tool_input": {"file_path": "/tmp/a.rs", "content": "x"},
            "tool_response": {"filePath": "/tmp/a.rs", "success": true}
        })
    }

    fn stop(
        &self,
        sid: &str,
        transcript: &Path,
        last: Option<&str>,
    ) -> Output {
        let mut v = json!({
            "session_id": sid, "transcript_path": transcript, "cwd": "/tmp",
            "hook_event_name": "Stop", "stop_hook_active": false
        });
        if let Some(last) = last {
            v["last_assistant_message"] = json!(last);
        }
        self.run(v)
    }

    fn count(&self, sid: &str) -> u32 {
        std::fs::read_to_string(self.state().join(format!("{sid}.count")))
            .map(|s| s.trim().parse().unwrap())
            .unwrap_or(0)
    }
}

/// A transcript written by the test.
struct Tx {
    lines: Vec<String>,
    entrypoint: Option<&'static str>,
    n: usize,
}

impl Tx {
    fn new(entrypoint: Option<&'static str>) -> Tx {
        Tx { lines: vec![], entrypoint, n: 0 }
    }

    fn rec(&mut self, kind: &str, message: serde_json::Value) -> &mut Tx {
        self.n += 1;
        let mut v = json!({"type": kind, "uuid": format!("u{}", self.n), "sessionId": "s",
                           "isSidechain": false, "message": message});
        if let Some(e) = self.entrypoint {
            v["entrypoint"] = json!(e);
        }
        self.lines.push(v.to_string());
        self
    }

    fn user(&mut self, text: &str) -> &mut Tx {
        self.rec("user", json!({"role": "user", "content": text}))
    }

    fn write_tool(&mut self, id: &str) -> &mut Tx {
        self.rec("assistant", json!({"id": format!("m-{id}"), "role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": "Write", "input": {"file_path": "a.rs", "content": "x"}}]}));
        self.rec("user", json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "ok"}]}))
    }

    fn bash(&mut self, id: &str, command: &str) -> &mut Tx {
        self.rec("assistant", json!({"id": format!("m-{id}"), "role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}]}));
        self.rec("user", json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "ok"}]}))
    }

    fn text(&mut self, text: &str) -> &mut Tx {
        let id = format!("m-t{}", self.n);
        self.rec("assistant", json!({"id": id, "role": "assistant", "content": [{"type": "text", "text": text}]}));
        self.lines.push(
            r#"{"type":"system","subtype":"turn_duration","durationMs":5}"#
                .to_string(),
        );
        self
    }

    fn save(&self, dir: &Path, name: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, self.lines.join("\n") + "\n").unwrap();
        p
    }
}

fn assert_blocked(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(2),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    let msg = String::from_utf8(out.stderr.clone()).unwrap();
    assert!(msg.trim_end().lines().count() <= 3, "more than 3 lines: {msg}");
    assert!(!msg.contains('|'), "looks like a table: {msg}");
    msg
}

/// A turn that wrote a file, then ran a command, and ended on `text`
/// passes the Stop silently, in a session of its own named `sid`. (The
/// command backs any claim of passing tests the text makes.)
fn assert_passes_after_a_checked_change(h: &Hook, sid: &str, text: &str) {
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix it.")
        .write_tool("toolu_1")
        .bash("toolu_2", "make check")
        .text(text);
    let t = tx.save(h.dir.path(), &format!("{sid}.jsonl"));
    assert_silent_allow(&h.stop(sid, &t, None));
}

fn assert_silent_allow(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stdout.is_empty(),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn seed_scenario_block_then_pass_then_cap() {
    // Flag only: the transcript has no tool use, so only PostToolUse tells.
    let h = Hook::new().config("transcript_changes = false\n");
    let mut tx = Tx::new(Some("cli"));
    tx.user("Add a parser.").text("Implemented. Tests pass.");
    let t = tx.save(h.dir.path(), "t.jsonl");

    // No change yet: silent.
    assert_silent_allow(&h.stop("s1", &t, None));
    // A write, then a Stop without markers: blocked.
    assert_silent_allow(&h.post_write("s1"));
    assert!(h.state().join("s1.flag").exists());
    // "Tests pass." with nothing run after the write is an unbacked claim.
    let msg = assert_blocked(&h.stop("s1", &t, None));
    assert!(msg.contains("claim_without_evidence"), "{msg}");
    assert!(h.state().join("s1.flag").exists(), "a block leaves it pending");
    assert_eq!(h.count("s1"), 1);
    // The reply to the block is judged: an audit passes and consumes it.
    let audited = "監査: 二つの書き込みが同時に走る競合を flock で潰した。";
    assert_silent_allow(&h.stop("s1", &t, Some(audited)));
    assert!(!h.state().join("s1.flag").exists(), "consumed");
    assert_silent_allow(&h.stop("s1", &t, None));
    // Another write: the second prompt is still allowed by the cap (2).
    assert_silent_allow(&h.post_write("s1"));
    assert_blocked(&h.stop("s1", &t, None));
    assert_eq!(h.count("s1"), 2);
    // An unaudited reply: the cap is reached, silence, and the change is
    // consumed.
    assert_silent_allow(&h.stop("s1", &t, None));
    assert!(!h.state().join("s1.flag").exists());
    // A third write: still capped.
    assert_silent_allow(&h.post_write("s1"));
    assert_silent_allow(&h.stop("s1", &t, None));
    assert!(!h.state().join("s1.flag").exists());
    assert_eq!(h.count("s1"), 2);
}

#[test]
fn change_from_transcript_without_flag() {
    let h = Hook::new();
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix it.").write_tool("toolu_1").text("Fixed.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_blocked(&h.stop("s2", &t, None));
    // The reply audits: the change is consumed, and the next Stop passes.
    tx.text("Audit: the retry loop is bounded at 3 attempts; checked by cargo test.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.stop("s2", &t, None));
    assert_silent_allow(&h.stop("s2", &t, None));
    // A new change in the same turn (after the block) counts again.
    tx.bash("toolu_2", "sed -i 's/a/b/' a.rs").text("Changed again.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_blocked(&h.stop("s2", &t, None));
    tx.text("監査不要: typo fix in a comment.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.stop("s2", &t, None));
    // A read-only command does not.
    tx.bash("toolu_3", "grep -i todo a.rs 2>&1").text("Looked.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.stop("s2", &t, None));
}

#[test]
fn transcript_changes_can_be_switched_off() {
    let h = Hook::new().config("transcript_changes = false\n");
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix it.").write_tool("toolu_1").text("Fixed.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.stop("s3", &t, None));
}

#[test]
fn sdk_cli_by_environment_and_by_head_scan() {
    let h = Hook::new().env("CLAUDE_CODE_ENTRYPOINT", "sdk-cli");
    let mut tx = Tx::new(Some("cli"));
    tx.user("Batch.").write_tool("toolu_1").text("Done.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.post_write("s4"));
    assert_silent_allow(&h.stop("s4", &t, None));
    assert!(!h.state().join("s4.flag").exists(), "the flag is cleared");

    let h = Hook::new();
    let mut tx = Tx::new(Some("sdk-cli"));
    tx.user("Batch.").write_tool("toolu_1").text("Done.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.post_write("s5"));
    assert_silent_allow(&h.stop("s5", &t, None));
    assert!(!h.state().join("s5.flag").exists());

    // An interactive session by environment overrides nothing it need not:
    // `cli` in the environment blocks as usual.
    let h = Hook::new().env("CLAUDE_CODE_ENTRYPOINT", "cli");
    assert_silent_allow(&h.post_write("s6"));
    assert_blocked(&h.stop("s6", &t, Some("Done.")));
}

#[test]
fn escape_hatch_needs_a_reason() {
    let h = Hook::new();
    let mut tx = Tx::new(Some("cli"));
    tx.user("Rename.").write_tool("toolu_1").text("placeholder");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.stop(
        "s7",
        &t,
        Some("Renamed.\nno audit needed: constant rename only"),
    ));
    tx.write_tool("toolu_2");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.stop("s7", &t, Some("監査不要: 定数の改名のみ")));
    tx.write_tool("toolu_3");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_blocked(&h.stop("s7", &t, Some("Renamed. 監査不要:")));
}

#[test]
fn last_assistant_message_present_and_absent() {
    let h = Hook::new();
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix.").write_tool("toolu_1").text("Fixed it.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    // Present: it wins over the (lagging) transcript.
    assert_silent_allow(&h.stop(
        "s8",
        &t,
        Some("監査: 並行書き込みは atomic rename で潰した"),
    ));

    // Absent: the reverse scan reads the transcript's final text.
    let h = Hook::new();
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix.")
        .write_tool("toolu_1")
        .text("Self-audit: the lock covers both writers.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.stop("s9", &t, None));
    let h = Hook::new();
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix.").write_tool("toolu_1").text("Fixed it.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_blocked(&h.stop("s10", &t, None));
}

#[test]
fn json_output_mode() {
    for how in ["--config", "STOPGATE_CONFIG"] {
        let mut h = Hook::new();
        let p = h.dir.path().join("json.toml");
        std::fs::write(&p, "output = \"json\"\n").unwrap();
        if how == "--config" {
            h.args = vec!["--config".into(), p.display().to_string()];
        } else {
            h = h.env("STOPGATE_CONFIG", p.to_str().unwrap());
        }
        let mut tx = Tx::new(Some("cli"));
        tx.user("Fix.").write_tool("toolu_1").text("Fixed.");
        let t = tx.save(h.dir.path(), "t.jsonl");
        let out = h.stop("s11", &t, None);
        assert_eq!(out.status.code(), Some(0), "{how}");
        assert!(out.stderr.is_empty(), "{how}");
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["decision"], "block", "{how}");
        assert!(v["reason"].as_str().unwrap().contains("self-audit"), "{how}");
    }
}

#[test]
fn project_config_is_found() {
    let h = Hook::new();
    let project = h.dir.path().join("proj");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        project.join(".claude/stopgate.toml"),
        "[audit]\nenabled = false\n",
    )
    .unwrap();
    let h = h.env("CLAUDE_PROJECT_DIR", project.to_str().unwrap());
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix.").write_tool("toolu_1").text("Fixed.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.stop("s12", &t, None));
}

#[test]
fn malformed_config_falls_back_to_defaults_and_logs() {
    let h =
        Hook::new().config("output = = nonsense\n").env("STOPGATE_DEBUG", "1");
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix.").write_tool("toolu_1").text("Fixed.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    // The defaults block (exit 2, stderr): the typo did not turn the gate off
    // or on, and did not leak to stderr beyond the block message.
    let msg = assert_blocked(&h.stop("s13", &t, None));
    assert!(!msg.contains("nonsense"));
    let log = std::fs::read_to_string(h.state().join("debug.log")).unwrap();
    assert!(log.contains("using defaults"), "{log}");
}

#[test]
fn concurrent_hooks_lose_no_update() {
    for cap in [100, 2] {
        let h = Hook::new().config(&format!(
            "transcript_changes = false\n[audit]\ncap = {cap}\n"
        ));
        let mut tx = Tx::new(Some("cli"));
        tx.user("Fix.").text("Fixed.");
        let t = tx.save(h.dir.path(), "t.jsonl");
        let blocks: u32 = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        assert_silent_allow(&h.post_write("s14"));
                        let out = h.stop("s14", &t, None);
                        match out.status.code() {
                            Some(2) => 1,
                            Some(0) => {
                                assert!(out.stderr.is_empty());
                                0
                            }
                            other => panic!("exit {other:?}"),
                        }
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert!(blocks >= 1, "cap {cap}: no process blocked");
        assert!(blocks <= cap, "cap {cap}: {blocks} blocks");
        assert_eq!(
            h.count("s14"),
            blocks,
            "cap {cap}: the counter lost an update"
        );
    }
}

#[test]
fn symlinked_state_dir_is_refused() {
    let h = Hook::new();
    let real = h.dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let link = h.dir.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let h = h.env("STOPGATE_STATE_DIR", link.to_str().unwrap());
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix.").write_tool("toolu_1").text("Fixed.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.post_write("s15"));
    // The Stop is let through, and the user is told why (issue 49).
    let out = h.stop("s15", &t, None);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
    let said: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let said = said["systemMessage"].as_str().unwrap();
    assert!(said.contains("is a symlink"), "{said}");
    assert_eq!(
        std::fs::read_dir(&real).unwrap().count(),
        0,
        "nothing written through the link"
    );
}

#[test]
fn bad_inputs_exit_zero_silently() {
    let h = Hook::new();
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix.").write_tool("toolu_1").text("Fixed.");
    let t = tx.save(h.dir.path(), "t.jsonl");

    // Path traversal in session_id.
    assert_silent_allow(&h.run(
        json!({"session_id": "../../x", "hook_event_name": "PostToolUse",
                                      "tool_name": "Write", "tool_input": {}}),
    ));
    assert_silent_allow(&h.stop("../../x", &t, None));
    assert!(!h.dir.path().join("x.flag").exists());
    // Not JSON, empty, wrong shapes, unknown events.
    assert_silent_allow(&h.run_raw(b"not json {"));
    assert_silent_allow(&h.run_raw(b""));
    assert_silent_allow(&h.run_raw(b"[1,2,3]"));
    assert_silent_allow(
        &h.run(json!({"session_id": 5, "hook_event_name": "Stop"})),
    );
    assert_silent_allow(&h.run(
        json!({"session_id": "s", "hook_event_name": "UserPromptSubmit"}),
    ));
    // 20 MiB of stdin.
    let mut big =
        br#"{"session_id":"s16","hook_event_name":"Stop","pad":""#.to_vec();
    big.resize(20 << 20, b'a');
    big.extend_from_slice(b"\"}");
    assert_silent_allow(&h.run_raw(&big));
    // A missing transcript, and a directory as the transcript, with a flag.
    assert_silent_allow(&h.post_write("s17"));
    assert_silent_allow(&h.stop(
        "s17",
        Path::new("/nonexistent/t.jsonl"),
        None,
    ));
    assert_silent_allow(&h.post_write("s18"));
    assert_silent_allow(&h.stop("s18", h.dir.path(), None));
    // Unknown arguments.
    let out = Command::new(common::bin())
        .args(["hook", "--no-such-flag"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_silent_allow(&out);
}

/// As in coreutils' `tac` fix: the transcript shrinks while hooks read it.
/// Every run must exit 0 silently: every text in the file holds a marker,
/// so whatever prefix a run sees, it is allowed, unless something crashes.
#[test]
fn transcript_truncated_while_read() {
    let h = Hook::new().config("transcript_changes = false\n");
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix.");
    let filler = "x".repeat(4000);
    for i in 0..2000 {
        tx.text(&format!("監査 step {i}: {filler}"));
    }
    tx.text("監査: 並行性と失敗経路を確認し、境界値を潰した");
    let full = tx.lines.join("\n") + "\n";
    let t = h.dir.path().join("t.jsonl");
    let stop_flag = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !stop_flag.load(std::sync::atomic::Ordering::Relaxed) {
                std::fs::write(&t, &full).unwrap();
                let f =
                    std::fs::OpenOptions::new().write(true).open(&t).unwrap();
                f.set_len(full.len() as u64 / 3).unwrap();
                f.set_len(0).unwrap();
            }
        });
        for _ in 0..30 {
            assert_silent_allow(&h.post_write("s19"));
            assert_silent_allow(&h.stop("s19", &t, None));
        }
        stop_flag.store(true, std::sync::atomic::Ordering::Relaxed);
    });
}

/// A transcript where the agent, asked to pick a cache, read two files
/// and ended its turn with `text`: enough tool uses for the ownership
/// gate to judge it.
fn after_two_reads(h: &Hook, name: &str, text: &str) -> PathBuf {
    let mut tx = Tx::new(Some("cli"));
    tx.user("Pick a cache.")
        .bash("toolu_1", "ls src")
        .bash("toolu_2", "cat Cargo.toml");
    tx.text(text);
    tx.save(h.dir.path(), name)
}

#[test]
fn ownership_gate_blocks_once_per_text() {
    let h = Hook::new();
    let t = after_two_reads(
        &h,
        "t.jsonl",
        "Both work. Which would you prefer, Redis or an in-process LRU?",
    );
    let msg = assert_blocked(&h.stop("o1", &t, None));
    assert!(msg.contains("decision ownership"), "{msg}");
    // Nag once: the identical text passes the second time.
    assert_silent_allow(&h.stop("o1", &t, None));
    // A clarifying question before any tool use passes.
    let mut tx = Tx::new(Some("cli"));
    tx.user("Pick a cache.")
        .text("Which would you prefer, Redis or an in-process LRU?");
    let t = tx.save(h.dir.path(), "t2.jsonl");
    assert_silent_allow(&h.stop("o2", &t, None));
}

/// A UI message the agent quotes from its own check is not a choice
/// handed back; a question of its own, with its options quoted, is.
#[test]
fn ownership_gate_reads_quoted_messages_as_quotes() {
    let h = Hook::new();
    for (i, text) in [
        "✅ Merged accounts with 3 and 5 orders → 8 orders left\n✅ Merging an account into itself is refused with \"Please choose another account\"",
        "✅ 注文 3 件と 5 件のアカウントを統合 → 8 件\n✅ 自分自身への統合は「別のアカウントを選んでください」で拒否",
    ]
    .into_iter()
    .enumerate()
    {
        assert_passes_after_a_checked_change(&h, &format!("q{i}"), text);
    }
    let t = after_two_reads(
        &h,
        "q3.jsonl",
        "Both work. Which would you prefer, \"Redis\" or \"an in-process LRU\"?",
    );
    let msg = assert_blocked(&h.stop("q3", &t, None));
    assert!(msg.contains("decision ownership"), "{msg}");
}

#[test]
fn reverify_gate_blocks_once_per_text() {
    let h = Hook::new();
    let mut tx = Tx::new(Some("cli"));
    tx.user("That's wrong, the limit is 100 not 50.")
        .text("You're right, the limit is 100.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    let msg = assert_blocked(&h.stop("r1", &t, None));
    assert!(msg.contains("challenge reverify"), "{msg}");
    assert_silent_allow(&h.stop("r1", &t, None));
    // With evidence, it passes.
    let mut tx = Tx::new(Some("cli"));
    tx.user("That's wrong, it's 3.1 ms.")
        .text("You're right: I re-ran the benchmark and measured 3.1 ms.");
    let t = tx.save(h.dir.path(), "t2.jsonl");
    assert_silent_allow(&h.stop("r2", &t, None));
}

#[test]
fn hollow_gate_names_its_rule_and_counts_towards_the_cap() {
    let h = Hook::new();
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix it.").write_tool("toolu_1").text("監査：問題なし");
    let t = tx.save(h.dir.path(), "t.jsonl");
    let msg = assert_blocked(&h.stop("h1", &t, None));
    assert!(msg.contains("stock_phrase"), "{msg}");
    assert_eq!(h.count("h1"), 1);
    tx.write_tool("toolu_2").text("Self-audit: checked the lock ordering for both writers. All tests pass.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    let msg = assert_blocked(&h.stop("h1", &t, None));
    assert!(msg.contains("claim_without_evidence"), "{msg}");
    assert_eq!(h.count("h1"), 2);
    // The cap (2) is reached: the next hollow audit passes.
    tx.write_tool("toolu_3").text("Audit: LGTM");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.stop("h1", &t, None));
}

/// A plain-language audit told as what was tried and what came of it is
/// weighed by what it says, not cut away with its lead: every gate on, as
/// the hook runs by default, these pass. (Until the twenty-fourth session
/// the hollow gate took the whole try for the lead and found it hollow.)
#[test]
fn plain_audits_told_as_tries_are_not_hollow() {
    let h = Hook::new();
    for (i, text) in [
        "Applied a friend's referral code `ANNA-7Q2` at signup and paid the first order of €40: both accounts got the €10 credit, and using the same code again from the same card was refused with `referral_already_used`.",
        "Typed `password1` into the new password field: the meter showed weak, and it was refused as found in known breaches.",
        "**Checked**\n- `GET /health` → 200 `{\"db\":\"ok\"}`\n- with the DB stopped → 503 `{\"db\":\"down\"}`",
        "一部だけ検証済みです。Linux では一時ディレクトリに `make install` して起動とバージョン表示まで確認、macOS はこの環境では試せていません。",
    ]
    .into_iter()
    .enumerate()
    {
        assert_passes_after_a_checked_change(&h, &format!("p{i}"), text);
    }
}

#[test]
fn ordering_first_block_wins_and_the_flag_waits() {
    // Both ownership and audit would fire: ownership runs first.
    let h = Hook::new();
    let mut tx = Tx::new(Some("cli"));
    tx.user("Speed it up.").bash("toolu_1", "ls").write_tool("toolu_2");
    tx.text("I made a first pass. Which would you prefer next, caching or batching?");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.post_write("g1"));
    let msg = assert_blocked(&h.stop("g1", &t, None));
    assert!(
        msg.contains("decision ownership") && !msg.contains("self-audit"),
        "one message: {msg}"
    );
    assert!(
        h.state().join("g1.flag").exists(),
        "the flag stays for the audit"
    );
    assert_eq!(h.count("g1"), 0, "a nag does not count towards the audit cap");
    // Next Stop, same text: ownership has nagged; the audit gate blocks,
    // and the change stays pending for the reply.
    let msg = assert_blocked(&h.stop("g1", &t, None));
    assert!(msg.contains("self-audit"), "{msg}");
    assert!(h.state().join("g1.flag").exists());
    let audited = "Audit: caching keyed by path; checked eviction at 0 and 1 entries with cargo test.";
    assert_silent_allow(&h.stop("g1", &t, Some(audited)));
    assert!(!h.state().join("g1.flag").exists());
    assert_silent_allow(&h.stop("g1", &t, None));

    // The order is configurable: audit first.
    let h = Hook::new().config("order = [\"audit\", \"ownership\"]\n");
    assert_silent_allow(&h.post_write("g2"));
    let msg = assert_blocked(&h.stop("g2", &t, None));
    assert!(msg.contains("self-audit"), "{msg}");

    // A gate left out of the order is off.
    let h = Hook::new().config("order = [\"audit\"]\n");
    let mut tx = Tx::new(Some("cli"));
    tx.user("Pick.").bash("toolu_1", "ls").bash("toolu_2", "ls");
    tx.text("Which would you prefer?");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.stop("g3", &t, None));
}

#[test]
fn unattended_sessions_skip_every_gate() {
    let h = Hook::new().env("CLAUDE_CODE_ENTRYPOINT", "sdk-py");
    let mut tx = Tx::new(Some("cli"));
    tx.user("That's wrong.").text("You're right.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.stop("u1", &t, None));
}

#[test]
fn subagent_stop_is_left_to_the_main_stop_by_default() {
    let h = Hook::new();
    let mut tx = Tx::new(Some("cli"));
    tx.user("review").write_tool("toolu_1").text("Reviewed and fixed.");
    let t = tx.save(h.dir.path(), "agent.jsonl");
    assert_silent_allow(&h.post_write("p1"));
    let input = json!({"session_id": "p1", "hook_event_name": "SubagentStop", "agent_id": "a1",
                       "agent_transcript_path": &t, "transcript_path": &t, "stop_hook_active": false});
    assert_silent_allow(&h.run(input.clone()));
    assert!(
        h.state().join("p1.flag").exists(),
        "the parent's flag is left for its Stop"
    );

    // gate_subagents = true: the gates run on the subagent's transcript,
    // with state keyed by agent_id.
    let h = Hook::new().config("gate_subagents = true\n");
    let msg = assert_blocked(&h.run(input.clone()));
    assert!(msg.contains("self-audit"), "{msg}");
    assert!(h.state().join("agent-a1.count").exists());
    let mut bad = input;
    bad["agent_id"] = json!("../x");
    assert_silent_allow(&h.run(bad));
}

/// Run `f`, and fail unless it took less than `limit`.
fn within<T>(limit: Duration, what: &str, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = f();
    let took = started.elapsed();
    assert!(took < limit, "{what}: took {took:?}");
    out
}

#[test]
fn special_transcripts_are_refused_at_once() {
    // `timeout_ms = 0` once switched the timer off; it is clamped now, and
    // special files are refused before anything waits on them.
    let h = Hook::new().config("timeout_ms = 0\n");
    let fifo = h.dir.path().join("never.jsonl");
    mkfifo(&fifo);
    let second = Duration::from_secs(1);
    assert_silent_allow(&h.post_write("t1"));
    within(second, "FIFO transcript", || {
        assert_silent_allow(&h.stop("t1", &fifo, None))
    });
    within(second, "/dev/zero transcript", || {
        assert_silent_allow(&h.stop("t1", Path::new("/dev/zero"), None))
    });
    // The flag is still pending: nothing was judged.
    assert!(h.state().join("t1.flag").exists());
}

#[test]
fn a_stdin_that_never_closes_times_out() {
    let h = Hook::new();
    let mut cmd = Command::new(common::bin());
    cmd.arg("hook")
        .env("HOME", &h.env[0].1)
        .env("STOPGATE_STATE_DIR", h.state())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(br#"{"session_id":"s","hook_event_name":"Post"#).unwrap();
    // The default timeout is 5 s; the hook must not wait for us.
    let out = within(Duration::from_secs(8), "open stdin", || {
        child.wait_with_output().unwrap()
    });
    drop(stdin);
    assert_silent_allow(&out);
}

#[test]
fn configs_that_are_fifos_or_endless_do_not_hang() {
    let h = Hook::new();
    let fifo = h.dir.path().join("config.toml");
    mkfifo(&fifo);
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix.").write_tool("toolu_1").text("Fixed.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    let limit = Duration::from_secs(2);
    for config in [fifo.to_str().unwrap(), "/dev/zero"] {
        let h = Hook::new().env("STOPGATE_CONFIG", config);
        // The defaults apply: the unaudited change is blocked.
        within(limit, config, || assert_blocked(&h.stop("c1", &t, None)));
    }
    assert!(children_max_rss_kib() < 200 << 10, "a child grew past 200 MB");
    // `config --check` names the problem.
    for config in [fifo.to_str().unwrap(), "/dev/zero"] {
        let out = within(limit, config, || {
            Command::new(common::bin())
                .args(["config", "--check", config])
                .output()
                .unwrap()
        });
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not a regular file"), "{err}");
    }
}

#[test]
fn state_files_that_are_fifos_do_not_hold_any_event() {
    let h = Hook::new().env("STOPGATE_DEBUG", "1");
    std::fs::create_dir(h.state()).unwrap();
    std::fs::set_permissions(
        h.state(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    mkfifo(&h.state().join("debug.log"));
    mkfifo(&h.state().join("f1.count"));
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix.").write_tool("toolu_1").text("Fixed.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    let second = Duration::from_secs(1);
    within(second, "PostToolUse", || assert_silent_allow(&h.post_write("f1")));
    within(second, "Stop", || assert_blocked(&h.stop("f1", &t, None)));
}

#[test]
fn a_600_mb_last_line_is_read_no_further_than_the_cap() {
    let h = Hook::new();
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix.").write_tool("toolu_1").text("Fixed.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    // A sparse file: the lines, then 1 GB of NULs with no newline.
    let f = std::fs::OpenOptions::new().write(true).open(&t).unwrap();
    f.set_len(1 << 30).unwrap();
    drop(f);
    assert_silent_allow(&h.post_write("big"));
    within(Duration::from_secs(3), "1 GB tail without a newline", || {
        h.stop("big", &t, Some("Fixed."))
    });
    let rss = children_max_rss_kib();
    assert!(rss < 300 << 10, "a child's peak RSS was {} MB", rss >> 10);
}

#[test]
fn rephrased_deferrals_are_bounded() {
    let h = Hook::new();
    let mut tx = Tx::new(Some("cli"));
    tx.user("Pick a cache.")
        .bash("toolu_1", "ls src")
        .bash("toolu_2", "cat Cargo.toml");
    tx.text("Which would you prefer?");
    let t = tx.save(h.dir.path(), "t.jsonl");
    let mut blocks = 0;
    for i in 0..20 {
        let text = format!(
            "Both work (variant {i}). Which would you prefer, Redis or an LRU?"
        );
        match h.stop("o9", &t, Some(&text)).status.code() {
            Some(2) => blocks += 1,
            Some(0) => {}
            other => panic!("exit {other:?}"),
        }
    }
    assert_eq!(blocks, 2, "the ownership gate's default cap");
    // Within a turn, a reply to a block is not nagged again.
    let h = Hook::new();
    let v = json!({"session_id": "o10", "transcript_path": t, "cwd": "/tmp",
                   "hook_event_name": "Stop", "stop_hook_active": true,
                   "last_assistant_message": "Which would you prefer, Redis or an LRU?"});
    assert_silent_allow(&h.run(v));
}

#[test]
fn racing_hooks_with_an_aged_lock_hold_the_cap() {
    let month = Duration::from_secs(30 * 24 * 3600);
    let h = Hook::new().config("transcript_changes = false\n");
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix.").text("Fixed.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.post_write("warmup"));
    for round in 0..40 {
        let sid = format!("race{round}");
        // An old lock file, and a cleanup that is due.
        let lock = h.state().join(format!("{sid}.lock"));
        let old = std::time::SystemTime::now() - month;
        std::fs::File::create(&lock).unwrap().set_modified(old).unwrap();
        if let Ok(f) = std::fs::File::options()
            .write(true)
            .open(h.state().join("cleanup.stamp"))
        {
            f.set_modified(old).unwrap();
        }
        let blocks: u32 = std::thread::scope(|s| {
            let runs: Vec<_> = (0..6)
                .map(|_| {
                    s.spawn(|| {
                        assert_silent_allow(&h.post_write(&sid));
                        u32::from(
                            h.stop(&sid, &t, None).status.code() == Some(2),
                        )
                    })
                })
                .collect();
            runs.into_iter().map(|r| r.join().unwrap()).sum()
        });
        assert!(blocks <= 2, "round {round}: {blocks} blocks with a cap of 2");
    }
}

/// Seen with the real client: after the no-marker block, the model
/// answered `監査：問題なし` and the hook let it pass, because the change
/// had been consumed at the first Stop. The reply must be judged.
#[test]
fn a_hollow_reply_to_a_block_is_blocked_again() {
    let h = Hook::new();
    let mut tx = Tx::new(Some("cli"));
    tx.user("Write a.txt.").write_tool("toolu_w1").text("Done.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.post_write_id("hr", "toolu_w1"));
    assert_blocked(&h.stop("hr", &t, Some("Done.")));
    tx.text("監査：問題なし");
    let t = tx.save(h.dir.path(), "t.jsonl");
    let msg = assert_blocked(&h.stop("hr", &t, Some("監査：問題なし")));
    assert!(msg.contains("stock_phrase"), "{msg}");
    assert_eq!(h.count("hr"), 2);
    // The cap ends the loop.
    assert_silent_allow(&h.stop("hr", &t, Some("監査：問題なし")));
}

/// Seen with the real client: the Write reached the transcript only after
/// the first Stop. The change, consumed by its id at the first Stop, must
/// not count again when the tool use shows up.
#[test]
fn a_late_transcript_write_is_one_change() {
    let h = Hook::new();
    let mut tx = Tx::new(Some("cli"));
    tx.user("Write a.txt.");
    let early = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.post_write_id("lw", "toolu_late"));
    let audited = "Audit: a.txt is written atomically; checked the empty-input boundary with cargo test.";
    assert_silent_allow(&h.stop("lw", &early, Some(audited)));
    // The Write arrives in the transcript; the next Stop says "Done.".
    tx.write_tool("toolu_late").text("Done.");
    let late = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.stop("lw", &late, Some("Done.")));
    assert_eq!(h.count("lw"), 0);
}

/// A file change whose tool use has no id was never recorded as audited,
/// so it was audited again at every Stop until the cap.
#[test]
fn a_change_without_an_id_is_audited_once() {
    let h = Hook::new();
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix it.");
    tx.rec("assistant", json!({"id": "m-noid", "role": "assistant", "content": [
        {"type": "tool_use", "name": "Write", "input": {"file_path": "a.rs", "content": "x"}}]}));
    tx.text("監査: 二つの書き込みが同時に走る競合を flock で潰した。");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.stop("ni", &t, None));
    tx.text("Done.");
    let t = tx.save(h.dir.path(), "t.jsonl");
    assert_silent_allow(&h.stop("ni", &t, None));
    assert_eq!(h.count("ni"), 0);
}

/// A real subagent file: every line is `isSidechain: true`, with the
/// subagent's `agentId`. With `gate_subagents`, its own chain is the turn,
/// and PostToolUse inside it (which carries `agent_id`) keys the flag by
/// the agent.
#[test]
fn gate_subagents_blocks_a_real_subagent_file() {
    let h = Hook::new().config("gate_subagents = true\n");
    let lines = [
        json!({"type": "user", "isSidechain": true, "agentId": "a9", "sessionId": "p9",
               "message": {"role": "user", "content": "Write b.txt"}}),
        json!({"type": "assistant", "isSidechain": true, "agentId": "a9", "sessionId": "p9",
               "message": {"id": "m1", "content": [{"type": "tool_use", "id": "toolu_s1",
               "name": "Write", "input": {"file_path": "b.txt", "content": "hi"}}]}}),
        json!({"type": "user", "isSidechain": true, "agentId": "a9", "sessionId": "p9",
               "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_s1", "content": "ok"}]}}),
        json!({"type": "assistant", "isSidechain": true, "agentId": "a9", "sessionId": "p9",
               "message": {"id": "m2", "content": [{"type": "text", "text": "Wrote b.txt."}]}}),
    ];
    let dir = h.dir.path().join("p9/subagents");
    std::fs::create_dir_all(&dir).unwrap();
    let sub = dir.join("agent-a9.jsonl");
    std::fs::write(
        &sub,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let mut post = Hook::write_input("p9");
    post["tool_use_id"] = json!("toolu_s1");
    post["agent_id"] = json!("a9");
    post["agent_type"] = json!("general-purpose");
    assert_silent_allow(&h.run(post));
    assert!(h.state().join("agent-a9.flag").exists());
    assert!(
        !h.state().join("p9.flag").exists(),
        "the subagent's, not the parent's"
    );
    let stop = json!({"session_id": "p9", "hook_event_name": "SubagentStop", "agent_id": "a9",
                      "agent_type": "general-purpose", "agent_transcript_path": &sub,
                      "transcript_path": h.dir.path().join("p9.jsonl"), "stop_hook_active": false,
                      "last_assistant_message": "Wrote b.txt."});
    let msg = assert_blocked(&h.run(stop.clone()));
    assert!(msg.contains("self-audit"), "{msg}");
    // Without the flag, the transcript alone shows the change.
    std::fs::remove_file(h.state().join("agent-a9.flag")).unwrap();
    let msg = assert_blocked(&h.run(stop));
    assert!(msg.contains("self-audit"), "{msg}");
}

#[test]
fn a_config_the_check_rejects_is_not_used_by_the_hook() {
    let mut tx = Tx::new(Some("cli"));
    tx.user("Pick a cache.")
        .bash("toolu_1", "ls src")
        .bash("toolu_2", "cat Cargo.toml");
    tx.text("Both work. Which would you prefer, Redis or an in-process LRU?");
    let many: Vec<String> = (0..10_000).map(|i| format!("\"k{i}\"")).collect();
    for toml in [
        "[patterns]\ndeference = [\"\"]\n".to_string(),
        format!("[patterns]\nclaims = [{}]\n", many.join(",")),
    ] {
        let h = Hook::new().config(&toml);
        let t = tx.save(h.dir.path(), "t.jsonl");
        let check = Command::new(common::bin())
            .args(["config", "--check"])
            .arg(h.dir.path().join("stopgate.toml"))
            .output()
            .unwrap();
        assert_eq!(check.status.code(), Some(2), "config --check accepted it");
        // The hook falls back to the defaults, which block the deferral,
        // and does so quickly.
        let msg = within(Duration::from_secs(2), "hook", || {
            assert_blocked(&h.stop("k1", &t, None))
        });
        assert!(msg.contains("decision ownership"), "{msg}");
    }
}

#[test]
fn planted_links_in_the_state_directory_are_never_written_through() {
    use std::os::unix::fs::PermissionsExt;
    let mut tx = Tx::new(Some("cli"));
    tx.user("Fix.").write_tool("toolu_1").text("Fixed.");
    // A private directory with links planted in it, and one open to all.
    for mode in [0o700, 0o777] {
        let h = Hook::new().env("STOPGATE_DEBUG", "1");
        let t = tx.save(h.dir.path(), "t.jsonl");
        std::fs::create_dir(h.state()).unwrap();
        std::fs::set_permissions(
            h.state(),
            std::fs::Permissions::from_mode(mode),
        )
        .unwrap();
        let victim = h.dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        for name in [
            "p1.count.tmp",
            "p1.seen.tmp",
            "p1.nag.tmp",
            "p1.count",
            "debug.log",
        ] {
            std::os::unix::fs::symlink(&victim, h.state().join(name)).unwrap();
        }
        let dangling = h.dir.path().join("made-by-the-hook");
        std::os::unix::fs::symlink(&dangling, h.state().join("p1.lock"))
            .unwrap();
        assert_silent_allow(&h.post_write("p1"));
        let _ = h.stop("p1", &t, None);
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(!dangling.exists(), "mode {mode:o}: a file at the lock link");
        let now = std::fs::metadata(h.state()).unwrap().permissions().mode();
        assert_eq!(now & 0o777, mode, "the directory's mode is left alone");
    }
}

/// The exact block Codex CLI accepts: exit 0, nothing on stderr, and
/// stdout exactly `{"decision":"block","reason":"stopgate: …"}`.
fn assert_json_block(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = v.as_object().unwrap();
    assert_eq!(o.len(), 2, "{v}");
    assert_eq!(o["decision"], "block");
    let reason = o["reason"].as_str().unwrap().to_string();
    assert!(reason.starts_with("stopgate:"), "{reason}");
    reason
}

/// A Codex rollout ending in `final_text` after an apply_patch, as 0.171
/// writes it; `source` is `exec` or `cli`.
fn codex_rollout(dir: &Path, source: &str, final_text: &str) -> PathBuf {
    let lines = [
        json!({"timestamp": "t", "type": "session_meta", "payload": {"id": "c1", "cwd": "/w", "source": source}}),
        json!({"timestamp": "t", "type": "response_item", "payload": {"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "Create hello.txt"}],
            "internal_chat_message_metadata_passthrough": {"content_item_metadata": [{"provenance": {"type": "user"}}]}}}),
        json!({"timestamp": "t", "type": "response_item", "payload": {"type": "custom_tool_call", "name": "apply_patch",
            "call_id": "call_4", "input": "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n"}}),
        json!({"timestamp": "t", "type": "response_item", "payload": {"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": final_text}]}}),
    ];
    let p = dir.join(format!("rollout-{source}.jsonl"));
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&p, text).unwrap();
    p
}

/// Codex CLI's inputs, told by their shape (no `--agent`): the change flag
/// from PostToolUse of apply_patch, then a Stop whose
/// `last_assistant_message` is null, so the final text comes from the
/// rollout; the block is the exact JSON even though `output` says exit2.
#[test]
fn codex_input_blocks_with_exact_json() {
    let h = Hook::new().config("output = \"exit2\"\n");
    let rollout = codex_rollout(h.dir.path(), "cli", "Done.");
    let common = json!({"session_id": "cx1", "turn_id": "t1", "transcript_path": rollout,
                        "cwd": "/w", "model": "gpt-5.5", "permission_mode": "bypassPermissions"});
    let mut post = common.clone();
    post["hook_event_name"] = json!("PostToolUse");
    post["tool_name"] = json!("apply_patch");
    post["tool_input"] = json!({"command": "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n"});
    post["tool_use_id"] = json!("call_4");
    assert_silent_allow(&h.run(post));
    let mut stop = common.clone();
    stop["hook_event_name"] = json!("Stop");
    stop["stop_hook_active"] = json!(false);
    stop["last_assistant_message"] = json!(null);
    let reason = assert_json_block(&h.run(stop.clone()));
    assert!(reason.contains("self-audit"), "{reason}");
    stop["stop_hook_active"] = json!(true);
    stop["last_assistant_message"] =
        json!("Done. Audit: hello.txt is written whole; checked the empty-file boundary.");
    assert_silent_allow(&h.run(stop));
}

/// `codex exec` (the rollout's source is `exec`) is unattended by default,
/// and gated with `skip_entrypoints = []`.
#[test]
fn codex_exec_is_unattended_unless_configured() {
    for (config, blocked) in [("", false), ("skip_entrypoints = []\n", true)] {
        let h = Hook::new().config(config);
        let rollout = codex_rollout(h.dir.path(), "exec", "Done.");
        let stop = json!({"session_id": "cx2", "turn_id": "t1", "transcript_path": rollout,
                          "cwd": "/w", "model": "m", "hook_event_name": "Stop",
                          "stop_hook_active": false, "last_assistant_message": "Done."});
        let out = h.run(stop);
        if blocked {
            assert_json_block(&out);
        } else {
            assert_silent_allow(&out);
        }
    }
}

/// Gemini CLI's AfterTool and AfterAgent: `prompt_response` joins the
/// blocked text and the reply, so the chat log's last message is judged.
#[test]
fn gemini_input_judges_the_last_message_of_the_log() {
    let h = Hook::new();
    let log = h.dir.path().join("session-g.jsonl");
    let write = |last: &str| {
        let lines = [
            json!({"sessionId": "g1", "projectHash": "h", "kind": "main"}),
            json!({"id": "p", "type": "user", "content": [{"text": "Create hello.txt"}]}),
            json!({"id": "m", "type": "gemini", "content": "", "toolCalls": [{"id": "w1", "name": "write_file",
                   "args": {"file_path": "hello.txt", "content": "hi"}}]}),
            json!({"id": "r", "type": "user", "content": [{"functionResponse": {"id": "w1", "name": "write_file"}}]}),
            json!({"id": "d", "type": "gemini", "content": "Done."}),
            json!({"id": "f", "type": "user", "content": [{"text": "stopgate: add an audit"}]}),
            json!({"id": "e", "type": "gemini", "content": last}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&log, text).unwrap();
    };
    let post = json!({"session_id": "g1", "transcript_path": log, "cwd": "/w", "hook_event_name": "AfterTool",
                      "timestamp": "t", "tool_name": "write_file", "tool_input": {"file_path": "hello.txt", "content": "hi"}});
    assert_silent_allow(&h.run(post));
    // The reply is hollow, though the joined response holds "Audit:" twice.
    write("Audit: I went over it carefully and everything is in order.");
    let stop = |response: &str| {
        json!({"session_id": "g1", "transcript_path": log, "cwd": "/w", "hook_event_name": "AfterAgent",
               "timestamp": "t", "prompt": "Create hello.txt", "prompt_response": response, "stop_hook_active": true})
    };
    let reason = assert_json_block(&h.run(stop(
        "Done.\nAudit: I went over it carefully and everything is in order.",
    )));
    assert!(reason.contains("hollow"), "{reason}");
    write("Done. Audit: hello.txt is written whole; checked the empty-file boundary.");
    assert_silent_allow(&h.run(stop(
        "Done.\nAudit: I went over it.\nDone. Audit: hello.txt is written whole; checked the empty-file boundary.",
    )));
}

/// The project's `.codex/stopgate.toml` is found from the working
/// directory, where Codex CLI runs its hooks.
#[test]
fn codex_project_config_is_found_from_the_working_directory() {
    let h = Hook::new();
    let project = h.dir.path().join("proj");
    std::fs::create_dir_all(project.join(".codex")).unwrap();
    std::fs::write(
        project.join(".codex/stopgate.toml"),
        "[audit]\nenabled = false\n",
    )
    .unwrap();
    let rollout = codex_rollout(h.dir.path(), "cli", "Done.");
    let mut cmd = Command::new(common::bin());
    cmd.args(["hook", "--agent", "codex"])
        .current_dir(&project)
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .env_remove("STOPGATE_CONFIG")
        .env_remove("PWD")
        .envs(h.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let stop = json!({"session_id": "cx3", "turn_id": "t", "model": "m", "transcript_path": rollout,
                      "hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": "Done."});
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stop.to_string().as_bytes())
        .unwrap();
    assert_silent_allow(&child.wait_with_output().unwrap());
}

/// A background subagent (Claude Code 2.1.332) that writes after the
/// launching turn's Stop: with no flag raised (no PostToolUse ran, or it
/// failed), the Stop of the turn its `<task-notification>` starts sees the
/// change in the subagent's file, as does the Stop of a turn the user
/// started while the subagent still runs (`background_tasks` lists it).
/// A change an earlier Stop consumed is not seen twice.
#[test]
fn a_background_subagent_change_is_seen_without_a_flag() {
    // A cap out of reach: every allow below is the change's consumption.
    let h = Hook::new().config("audit.cap = 10\n");
    let sid = "bg";
    let line = |v: serde_json::Value| format!("{v}\n");
    let launching = [
        json!({"type": "user", "sessionId": sid, "isSidechain": false, "entrypoint": "cli",
               "timestamp": "2026-12-04T10:00:01.000Z",
               "message": {"role": "user", "content": "write b.txt with a subagent"}}),
        json!({"type": "assistant", "sessionId": sid, "isSidechain": false,
               "timestamp": "2026-12-04T10:00:02.000Z",
               "message": {"id": "m1", "role": "assistant", "content": [{"type": "tool_use",
               "id": "toolu_a", "name": "Agent", "input": {"prompt": "Write b.txt"}}]}}),
        json!({"type": "user", "sessionId": sid, "isSidechain": false,
               "timestamp": "2026-12-04T10:00:03.000Z",
               "toolUseResult": {"isAsync": true, "status": "async_launched", "agentId": "bg1"},
               "message": {"role": "user", "content": [{"type": "tool_result",
               "tool_use_id": "toolu_a", "content": "Async agent launched successfully."}]}}),
        json!({"type": "assistant", "sessionId": sid, "isSidechain": false,
               "timestamp": "2026-12-04T10:00:04.000Z",
               "message": {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "Started it."}]}}),
    ];
    let transcript = h.dir.path().join(format!("{sid}.jsonl"));
    let write = |lines: &[serde_json::Value]| {
        std::fs::write(
            &transcript,
            lines.iter().map(|l| line(l.clone())).collect::<String>(),
        )
        .unwrap();
    };
    let subagents = h.dir.path().join(sid).join("subagents");
    std::fs::create_dir_all(&subagents).unwrap();
    let sub = subagents.join("agent-bg1.jsonl");
    std::fs::write(&sub, line(json!({"type": "user", "isSidechain": true, "agentId": "bg1",
        "sessionId": sid, "message": {"role": "user", "content": "Write b.txt"}}))).unwrap();
    // The launching turn's Stop: the subagent has changed nothing yet.
    write(&launching);
    assert_silent_allow(&h.stop(sid, &transcript, Some("Started it.")));
    // It writes; no PostToolUse raises the flag.
    let mut f = std::fs::OpenOptions::new().append(true).open(&sub).unwrap();
    f.write_all(line(json!({"type": "assistant", "isSidechain": true, "agentId": "bg1",
        "sessionId": sid, "timestamp": "2026-12-04T10:00:30.000Z",
        "message": {"id": "s1", "role": "assistant", "content": [{"type": "tool_use",
        "id": "toolu_s1", "name": "Write", "input": {"file_path": "b.txt", "content": "hi"}}]}})).as_bytes())
        .unwrap();
    // A turn the user starts meanwhile: the running subagent's change is
    // its Stop's, when the input lists the subagent as running.
    let mut meanwhile = launching.to_vec();
    meanwhile.push(json!({"type": "user", "sessionId": sid, "isSidechain": false,
        "timestamp": "2026-12-04T10:00:40.000Z", "message": {"role": "user", "content": "and now?"}}));
    meanwhile.push(json!({"type": "assistant", "sessionId": sid, "isSidechain": false,
        "timestamp": "2026-12-04T10:00:41.000Z",
        "message": {"id": "m3", "role": "assistant", "content": [{"type": "text", "text": "Waiting."}]}}));
    write(&meanwhile);
    assert_silent_allow(&h.stop(sid, &transcript, Some("Waiting.")));
    let stop = |tasks: serde_json::Value, last: &str| {
        h.run(json!({"session_id": sid, "transcript_path": &transcript, "cwd": "/tmp",
            "hook_event_name": "Stop", "stop_hook_active": false,
            "last_assistant_message": last, "background_tasks": tasks}))
    };
    let running =
        json!([{"id": "bg1", "type": "subagent", "status": "running"}]);
    let msg = assert_blocked(&stop(running.clone(), "Waiting."));
    assert!(msg.contains("self-audit"), "{msg}");
    // Its notification's turn, had that Stop not been there: the same.
    let mut notified = launching.to_vec();
    notified.push(json!({"type": "user", "sessionId": sid, "isSidechain": false,
        "timestamp": "2026-12-04T10:01:00.000Z", "origin": {"kind": "task-notification"},
        "message": {"role": "user", "content":
        "<task-notification>\n<task-id>bg1</task-id>\n<status>completed</status>\n</task-notification>"}}));
    notified.push(json!({"type": "assistant", "sessionId": sid, "isSidechain": false,
        "timestamp": "2026-12-04T10:01:01.000Z",
        "message": {"id": "m4", "role": "assistant", "content": [{"type": "text", "text": "It wrote b.txt."}]}}));
    write(&notified);
    let msg = assert_blocked(&stop(json!([]), "It wrote b.txt."));
    assert!(msg.contains("self-audit"), "{msg}");
    // Audited, the Stop passes and consumes the change; it is not seen
    // again.
    let audited = "Audit: b.txt is written whole by one Write, so a crash leaves the old file or the new; checked the empty-input boundary.";
    assert_silent_allow(&stop(json!([]), audited));
    assert_silent_allow(&stop(json!([]), "It wrote b.txt."));
    assert_silent_allow(&stop(running, "It wrote b.txt."));
    // A task list of another shape is no reason to fail.
    assert_silent_allow(&stop(json!({"odd": true}), "It wrote b.txt."));
}

/// Codex CLI may send a Stop whose `transcript_path` and
/// `last_assistant_message` are null. The hook judges what is there: the
/// message alone, against the change PostToolUse flagged; with neither, it
/// has nothing to judge and allows, and the change stays pending for the
/// next Stop.
#[test]
fn null_transcript_path_and_message_are_judged_as_far_as_they_go() {
    let h = Hook::new();
    assert_silent_allow(&h.post_write("c1"));
    let stop = |last: serde_json::Value| {
        h.run(json!({
            "session_id": "c1", "transcript_path": null, "cwd": "/tmp",
            "hook_event_name": "Stop", "stop_hook_active": false,
            "last_assistant_message": last, "turn_id": "t1", "model": "gpt-5"
        }))
    };
    assert_silent_allow(&stop(json!(null)));
    // Codex's input (`turn_id`, `model`): the block is JSON on stdout.
    assert_json_block(&stop(json!("Done.")));
    assert_silent_allow(&stop(json!(
        "no audit needed: a one-word typo fix in a comment."
    )));
}

/// Claude Code's `prompt_id` tells a block's reply from a new prompt:
/// after the ownership gate blocks in prompt P, a Stop of the same prompt
/// is a reply to the block, even where `stop_hook_active` is not set, and
/// is not blocked again by that gate; the same words in a new prompt are.
#[test]
fn prompt_id_tells_a_reply_to_a_block_from_a_new_prompt() {
    let h = Hook::new();
    let stop = |t: &Path, prompt: &str| {
        h.run(json!({
            "session_id": "p1", "transcript_path": t, "cwd": "/tmp",
            "hook_event_name": "Stop", "stop_hook_active": false,
            "prompt_id": prompt
        }))
    };
    let first = after_two_reads(
        &h,
        "p1.jsonl",
        "Both work. Which would you prefer, Redis or an in-process LRU?",
    );
    let msg = assert_blocked(&stop(&first, "prompt-a"));
    assert!(msg.contains("decision ownership"), "{msg}");
    let reply = after_two_reads(
        &h,
        "p2.jsonl",
        "Both still work. Should I go with Redis or an in-process LRU?",
    );
    assert_silent_allow(&stop(&reply, "prompt-a"));
    let msg = assert_blocked(&stop(&reply, "prompt-b"));
    assert!(msg.contains("decision ownership"), "{msg}");
}

/// A `prompt_id` of another shape than a string (a number, an object)
/// is ignored: it must not fail the whole input, which would let every
/// Stop through unguarded.
#[test]
fn a_prompt_id_of_another_shape_is_ignored() {
    let h = Hook::new();
    for (i, id) in [json!(7), json!({"id": "p"}), json!("with space")]
        .into_iter()
        .enumerate()
    {
        let sid = format!("n{i}");
        assert_silent_allow(&h.post_write(&sid));
        let out = h.run(json!({
            "session_id": sid, "transcript_path": null, "cwd": "/tmp",
            "hook_event_name": "Stop", "stop_hook_active": false,
            "last_assistant_message": "Done.", "prompt_id": id
        }));
        assert_blocked(&out);
    }
}
