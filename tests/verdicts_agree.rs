//! The hook, `stopgate check` and `stopgate scan` give the same verdict on
//! the same turn, over every fixture and every file of the real corpus
//! (when `../shared/corpus` is there): Claude Code's, and the Codex CLI
//! rollouts and Gemini CLI logs, whose last turn reaches the hook with
//! that agent's own Stop input.
//!
//! * The last turn of each file goes through all three as a user runs
//!   them: the `stopgate hook` binary on a Stop input (its debug log names
//!   the gate and rule), `stopgate check --json`, and the scan's report.
//! * Every turn goes through `check`'s library path (the whole file read
//!   forward, turn N picked) and the scan's, which must agree row by row.
//!
//! A turn that did not end in a Stop the agent chose (interrupted, a local
//! command) gets no findings from the scan, and no Stop fires for it, so
//! the hook is not asked about it.

// Runs the `stopgate` binary, which needs the `cli` feature.
#![cfg(feature = "cli")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use stopgate::archive::{report_turn, scan_file, Finding, ScanOptions};
use stopgate::config::Config;
use stopgate::Transcript;
use stopgate::{Chain, Format, ToolCall};
use stopgate::{Facts, Gates, SessionView};

const BIN: &str = env!("CARGO_BIN_EXE_stopgate");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Main transcript files (not subagents') under `dir`.
fn main_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let p = entry.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "subagents") {
                main_files(&p, out);
            }
        } else if p.extension().is_some_and(|e| e == "jsonl") {
            out.push(p);
        }
    }
}

fn files() -> Vec<PathBuf> {
    let mut out = vec![];
    main_files(&root().join("fixtures/transcripts"), &mut out);
    let corpus = root().join("../shared/corpus/spotter");
    if corpus.is_dir() {
        main_files(&corpus, &mut out);
        main_files(&root().join("../shared/corpus/agents"), &mut out);
    } else {
        let _ = writeln!(
            std::io::stderr(),
            "verdict agreement on the corpus skipped: {} does not exist",
            corpus.display()
        );
    }
    out.sort();
    out
}

/// A verdict as `gate/rule`, or `allow`.
type Said = String;

fn finding_name(gate: &str, rule: &str) -> Said {
    format!("{gate}/{rule}")
}

/// What the hook binary decides at a Stop on `path`, from its debug log.
/// The Stop input is the agent's own: Codex CLI sends `turn_id` and
/// `model` (and a null final message here, so the rollout's is read),
/// Gemini CLI's event is `AfterAgent`.
fn hook_says(path: &Path, agent: Format, carried: &[ToolCall]) -> Said {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    // The changes of an interrupted turn before this one: no Stop saw
    // them, so the flag their PostToolUse raised is still up.
    for call in carried {
        let post = serde_json::json!({
            "session_id": "agree", "transcript_path": path, "cwd": "/tmp",
            "hook_event_name": "PostToolUse", "tool_name": call.name(),
            "tool_input": {"command": call.command()},
            "tool_use_id": call.id(),
        });
        let out = run_hook(dir.path(), &post);
        assert_eq!(out.status.code(), Some(0));
    }
    let mut input = serde_json::json!({
        "session_id": "agree", "transcript_path": path, "cwd": "/tmp",
        "hook_event_name": "Stop", "stop_hook_active": false,
    });
    match agent {
        Format::Claude => {}
        Format::Codex => {
            input["turn_id"] = "t".into();
            input["model"] = "m".into();
            input["last_assistant_message"] = serde_json::Value::Null;
        }
        Format::Gemini => input["hook_event_name"] = "AfterAgent".into(),
    }
    let out = run_hook(dir.path(), &input);
    let log = std::fs::read_to_string(state.join("debug.log")).unwrap();
    let last = log.lines().last().unwrap_or_default();
    // Codex and Gemini get their block as JSON on stdout, with exit 0.
    let blocked = match agent {
        Format::Claude => out.status.code() == Some(2),
        _ => !out.stdout.is_empty(),
    };
    if !blocked {
        assert_eq!(out.status.code(), Some(0), "{log}");
        assert!(
            last.contains("Allow") || last.contains("unattended"),
            "{last}"
        );
        return "allow".to_string();
    }
    // `stop: Block { gate: Audit, rule: NoMarker, … }`
    let gate = last.split("gate: ").nth(1).unwrap().split(',').next().unwrap();
    let rule = last.split("rule: ").nth(1).unwrap().split(',').next().unwrap();
    finding_name(&gate.to_lowercase(), &snake_case(rule))
}

/// Run `stopgate hook` on `input`, with its state and home in `dir`.
fn run_hook(dir: &Path, input: &serde_json::Value) -> std::process::Output {
    let mut child = Command::new(BIN)
        .arg("hook")
        .env("HOME", dir)
        .env("STOPGATE_STATE_DIR", dir.join("state"))
        .env("STOPGATE_DEBUG", "1")
        .env_remove("STOPGATE_CONFIG")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CLAUDE_CODE_ENTRYPOINT")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// `NoMarker` as `no_marker`: a rule's name from its `Debug` form.
fn snake_case(camel: &str) -> String {
    let mut out = String::new();
    for c in camel.chars() {
        if c.is_ascii_uppercase() && !out.is_empty() {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

fn check_says(path: &Path, turn: Option<usize>) -> Said {
    let mut cmd = Command::new(BIN);
    cmd.arg("check").arg("--json");
    if let Some(n) = turn {
        cmd.arg("--turn").arg(n.to_string());
    }
    let out = cmd
        .arg(path)
        .env("HOME", root().join("target"))
        .env_remove("STOPGATE_CONFIG")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    match v["verdict"].as_str() {
        Some("block") => finding_name(
            v["gate"].as_str().unwrap(),
            v["rule"].as_str().unwrap(),
        ),
        _ => "allow".to_string(),
    }
}

fn gate_of(f: Finding) -> &'static str {
    match f {
        Finding::UnauditedChange => "audit",
        Finding::HollowAudit | Finding::UnverifiedClaim => "hollow",
        Finding::Deferral => "ownership",
        Finding::Capitulation => "reverify",
    }
}

#[test]
fn hook_check_and_scan_agree() {
    let config = Config::default();
    let gates = Gates::new(&config).unwrap();
    let mut options = ScanOptions::default();
    options.skip_entrypoints = config.skip_entrypoints.clone();
    let mut turns_compared = 0;
    let mut last_turns_compared = 0;
    for path in files() {
        let report = scan_file(&path, &gates, &options);
        assert!(report.error.is_none(), "{}", path.display());
        // The scan's verdict on a turn is its first finding, in gate
        // order: the one the hook, under its cap, would block with.
        let scan_says = |i: usize| -> Said {
            match report.turns[i].findings.first() {
                Some(e) => finding_name(gate_of(e.finding), e.rule.as_str()),
                None => "allow".to_string(),
            }
        };

        // Every turn: check's library path against the scan's row.
        let t = Transcript::read(&path).unwrap();
        let unattended =
            t.entrypoint().is_some_and(|e| config.skips_entrypoint(&e));
        let turns = t.turns_with_subagents(Chain::Main, &path);
        assert_eq!(turns.len(), report.turns.len(), "{}", path.display());
        for (i, turn) in turns.iter().enumerate() {
            let row = report_turn(turn, &gates, unattended);
            assert_eq!(row, report.turns[i], "{} turn {i}", path.display());
            if turn.kind().ends_in_stop() && !unattended {
                let verdict = gates
                    .evaluate(&Facts::of_turn(turn), &SessionView::default());
                let said = match verdict.block() {
                    Some(b) => {
                        finding_name(b.gate().as_str(), b.rule().as_str())
                    }
                    None => "allow".to_string(),
                };
                assert_eq!(said, scan_says(i), "{} turn {i}", path.display());
            }
            turns_compared += 1;
        }

        // The last turn: the three binaries' paths.
        let Some(last) = report.turns.last() else { continue };
        if !last.kind.ends_in_stop() {
            continue;
        }
        let scan = scan_says(report.turns.len() - 1);
        assert_eq!(
            hook_says(
                &path,
                t.format(),
                turns.last().unwrap().carried_changes()
            ),
            scan,
            "hook vs scan: {}",
            path.display()
        );
        assert_eq!(
            check_says(&path, None),
            scan,
            "check vs scan: {}",
            path.display()
        );
        if last.turn > 0 {
            assert_eq!(
                check_says(&path, Some(last.turn)),
                scan,
                "check --turn vs scan: {}",
                path.display()
            );
        }
        last_turns_compared += 1;
    }
    eprintln!(
        "verdicts agree: {turns_compared} turns, {last_turns_compared} last turns through all three binaries"
    );
    assert!(last_turns_compared > 10);
}
