//! The hook, `stopgate check` and `stopgate scan` give the same verdict on
//! the same turn, over every fixture and every file of the real corpus
//! (when `../shared/corpus` is there): Claude Code's, and the Codex CLI
//! rollouts and Gemini CLI logs, whose last turn reaches the hook with
//! that agent's own Stop input; and they do under every configuration
//! switch that changes a verdict ([`CONFIGS`]).
//!
//! * The last turn of each file goes through all three as a user runs
//!   them: the `stopgate hook` binary on the client's PostToolUse inputs
//!   for the turn's file changes and then its Stop input (its debug log
//!   names the gate and rule), `stopgate check --json`, and the scan's
//!   report, each with the same `--config`.
//! * Every turn goes through `check`'s library path (the whole file read
//!   forward as the judge reads it, turn N picked) and the scan's, which
//!   must agree row by row.
//! * With `gate_subagents`, each subagent's file is judged at its own
//!   SubagentStop, by the hook and `check` on that file, and by the scan's
//!   rows for it.
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
use stopgate::judge::{Facts, Judge, SessionView, TurnChanges};
use stopgate::read::Transcript;
use stopgate::read::{Format, Turn};

mod common;

/// The binary under test (`$STOPGATE_TEST_BIN`, else Cargo's), so that the
/// agreement can be tried on another build.
fn bin() -> std::ffi::OsString {
    common::bin()
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every switch of the configuration that changes a verdict, one at a
/// time: (name, `stopgate.toml`).
const CONFIGS: &[(&str, &str)] = &[
    ("default", ""),
    ("transcript_changes = false", "transcript_changes = false\n"),
    ("gate_subagents = true", "gate_subagents = true\n"),
    ("skip_entrypoints = []", "skip_entrypoints = []\n"),
    ("plain_judge = grammar", "[audit]\nplain_judge = \"grammar\"\n"),
    ("audit cap 0, ownership first", "order = [\"audit\", \"hollow\", \"ownership\", \"reverify\"]\n[audit]\ncap = 0\n"),
];

/// Transcript files under `dir`, subagents' files included when
/// `subagents`.
fn jsonl_files(dir: &Path, subagents: bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let p = entry.path();
        if p.is_dir() {
            if subagents || p.file_name().is_some_and(|n| n != "subagents") {
                jsonl_files(&p, subagents, out);
            }
        } else if p.extension().is_some_and(|e| e == "jsonl") {
            out.push(p);
        }
    }
}

fn main_files(dir: &Path, out: &mut Vec<PathBuf>) {
    jsonl_files(dir, false, out)
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

/// A Stop, as the hook binary gets it: the transcript, the agent, the
/// configuration, and the subagent whose Stop it is, if it is one's.
struct StopCase<'a> {
    path: &'a Path,
    agent: Format,
    config: &'a Path,
    subagent: Option<&'a str>,
}

/// What the hook binary decides at a Stop on the case's transcript, from
/// its debug log, after the client's PostToolUse inputs for `turn`'s file
/// changes (a subagent's carry its `agent_id`). The Stop input is the
/// agent's own: Codex CLI sends `turn_id` and `model` (and a null final
/// message here, so the rollout's is read), Gemini CLI's events are
/// `AfterTool` and `AfterAgent`.
fn hook_says(case: &StopCase<'_>, turn: &Turn) -> Said {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let base = |event: &str| {
        let mut v = serde_json::json!({
            "session_id": "agree", "transcript_path": case.path, "cwd": "/tmp",
            "hook_event_name": event,
        });
        match case.agent {
            Format::Claude => {}
            Format::Codex => {
                v["turn_id"] = "t".into();
                v["model"] = "m".into();
            }
            Format::Gemini => {}
        }
        v
    };
    let post = match case.agent {
        Format::Gemini => "AfterTool",
        _ => "PostToolUse",
    };
    for call in TurnChanges::of(turn).iter() {
        let mut input = base(post);
        input["tool_name"] = call.name().into();
        input["tool_input"] = serde_json::json!({"command": call.command()});
        input["tool_use_id"] = call.id().into();
        let by_subagent = call.by_subagent();
        if let Some(agent) = case.subagent {
            input["agent_id"] = agent.into();
        } else if by_subagent {
            input["agent_id"] = "a-sub".into();
        }
        let out = run_hook(dir.path(), case.config, &input);
        assert_eq!(out.status.code(), Some(0));
    }
    let mut input = match (case.subagent, case.agent) {
        (Some(agent), _) => {
            let mut v = base("SubagentStop");
            v["agent_id"] = agent.into();
            v["agent_transcript_path"] = case.path.to_str().unwrap().into();
            v
        }
        (None, Format::Gemini) => base("AfterAgent"),
        (None, _) => base("Stop"),
    };
    input["stop_hook_active"] = false.into();
    if case.agent == Format::Codex {
        input["last_assistant_message"] = serde_json::Value::Null;
    }
    let out = run_hook(dir.path(), case.config, &input);
    let log = std::fs::read_to_string(state.join("debug.log")).unwrap();
    let last = log.lines().last().unwrap_or_default();
    // Codex and Gemini get their block as JSON on stdout, with exit 0.
    let blocked = match case.agent {
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

/// Run `stopgate hook --config CONFIG` on `input`, with its state and home
/// in `dir`.
fn run_hook(
    dir: &Path,
    config: &Path,
    input: &serde_json::Value,
) -> std::process::Output {
    let mut child = Command::new(bin())
        .arg("hook")
        .arg("--config")
        .arg(config)
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

fn check_says(path: &Path, config: &Path, turn: Option<usize>) -> Said {
    let mut cmd = Command::new(bin());
    cmd.arg("check").arg("--json").arg("--config").arg(config);
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
        Finding::UnauditedChange | Finding::UncertainAudit => "audit",
        Finding::HollowAudit | Finding::UnverifiedClaim => "hollow",
        Finding::Deferral => "ownership",
        Finding::Capitulation => "reverify",
    }
}

/// How many turns and last turns one configuration compared.
#[derive(Default)]
struct Compared {
    turns: usize,
    last_turns: usize,
    blocked: usize,
}

/// Compare the three on every file under one configuration.
fn agree_under(name: &str, toml: &str, dir: &Path) -> Compared {
    let config_path = dir.join(format!(
        "{}.toml",
        name.replace([' ', '=', ',', '[', ']'], "_")
    ));
    std::fs::write(&config_path, toml).unwrap();
    let config = Config::from_toml(toml).unwrap();
    let judge = Judge::new(&config).unwrap();
    let options = ScanOptions::default();
    let mut compared = Compared::default();
    let mut paths = files();
    if config.gate_subagents {
        paths.extend(subagent_files());
    }
    for path in paths {
        let at = format!("[{name}] {}", path.display());
        let report = scan_file(&path, &judge, &options);
        assert!(report.error.is_none(), "{at}");
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
        let unattended = judge.skips(t.entrypoint().as_deref());
        let turns = judge.turns(&t, &path);
        assert_eq!(turns.len(), report.turns.len(), "{at}");
        for (i, turn) in turns.iter().enumerate() {
            let row = report_turn(turn, &judge, unattended);
            assert_eq!(row, report.turns[i], "{at} turn {i}");
            if turn.kind().ends_in_stop() && !unattended {
                let verdict = judge
                    .evaluate(&Facts::of_turn(turn), &SessionView::default());
                let said = match verdict.block() {
                    Some(b) => {
                        finding_name(b.gate().as_str(), b.rule().as_str())
                    }
                    None => "allow".to_string(),
                };
                assert_eq!(said, scan_says(i), "{at} turn {i}");
            }
            compared.turns += 1;
        }

        // The last turn: the three binaries' paths.
        let Some(last) = report.turns.last() else { continue };
        if !last.kind.ends_in_stop() {
            continue;
        }
        let scan = scan_says(report.turns.len() - 1);
        let case = StopCase {
            path: &path,
            agent: t.format(),
            config: &config_path,
            subagent: report.subagent.then_some("a-sub"),
        };
        assert_eq!(
            hook_says(&case, turns.last().unwrap()),
            scan,
            "hook vs scan: {at}"
        );
        assert_eq!(
            check_says(&path, &config_path, None),
            scan,
            "check vs scan: {at}"
        );
        if last.turn > 0 {
            assert_eq!(
                check_says(&path, &config_path, Some(last.turn)),
                scan,
                "check --turn vs scan: {at}"
            );
        }
        compared.last_turns += 1;
        compared.blocked += usize::from(scan != "allow");
    }
    compared
}

/// Subagents' files under the fixtures and the corpus.
fn subagent_files() -> Vec<PathBuf> {
    let mut all = vec![];
    jsonl_files(&root().join("fixtures/transcripts"), true, &mut all);
    jsonl_files(&root().join("../shared/corpus/spotter"), true, &mut all);
    all.retain(|p| {
        p.parent()
            .and_then(|d| d.file_name())
            .is_some_and(|n| n == "subagents")
    });
    all.sort();
    all
}

#[test]
fn hook_check_and_scan_agree_under_every_config() {
    let dir = tempfile::tempdir().unwrap();
    // `STOPGATE_AGREE_ONLY=gate_subagents` runs the configurations whose
    // name holds that text, to try one on another build.
    let only = std::env::var("STOPGATE_AGREE_ONLY").unwrap_or_default();
    for (name, toml) in CONFIGS.iter().filter(|(n, _)| n.contains(&only)) {
        let c = agree_under(name, toml, dir.path());
        eprintln!(
            "verdicts agree [{name}]: {} turns, {} last turns through all three binaries ({} blocked)",
            c.turns, c.last_turns, c.blocked
        );
        assert!(c.last_turns > 10, "{name}");
    }
}
