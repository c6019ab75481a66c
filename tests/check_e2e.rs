//! `stopgate check`: the gates offline, on transcripts on disk.

// Runs the `stopgate` binary, which needs the `cli` feature.
#![cfg(feature = "cli")]

use std::path::Path;
use std::process::{Command, Output};

mod common;

fn check(dir: &Path, args: &[&str]) -> Output {
    Command::new(common::bin())
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
        matched.contains(&"challenge:that's…wrong")
            && matched.contains(&"capitulation:you're…right"),
        "{matched:?}"
    );

    // The prompt's challenge words are listed only beside a capitulation:
    // with a deferral, only the final text's words are.
    let deferred = write(
        dir.path(),
        "d.jsonl",
        &[
            user("That's wrong. Which cache should it use?"),
            text("Both work. Which would you prefer, Redis or an LRU?"),
        ],
    );
    let out = check(dir.path(), &["--json", &deferred]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let matched = v["matched"].to_string();
    assert!(matched.contains("deference:"), "{matched}");
    assert!(!matched.contains("challenge:"), "{matched}");

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

/// The hook allows unattended (`sdk-cli`) sessions whatever they hold;
/// `check` said block on them.
#[test]
fn unattended_transcripts_are_allowed_as_the_hook_allows_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let path = root.join("fixtures/transcripts/entrypoint_sdk_cli.jsonl");
    let out = check(dir.path(), &["--json", path.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "allow", "{v}");
    assert_eq!(v["unattended"], "sdk-cli");
    // The same turn in an attended session blocks.
    let attended = root.join("fixtures/transcripts/entrypoint_none.jsonl");
    let out = check(dir.path(), &["--json", attended.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "block", "{v}");
}

/// `--turn N` judges any turn, numbered as `scan` numbers them; a turn
/// that does not exist is a clear error naming the file.
#[test]
fn any_turn_by_number() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let path = root.join("fixtures/transcripts/gate_findings.jsonl");
    let p = path.to_str().unwrap();
    let said = |n: &str| {
        let out = check(dir.path(), &["--json", "--turn", n, p]);
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let v = said("1");
    assert_eq!(
        (v["gate"].as_str(), v["rule"].as_str()),
        (Some("hollow"), Some("stock_phrase"))
    );
    assert_eq!(v["line"], 11);
    assert_eq!(said("2")["gate"], "ownership");
    assert_eq!(said("3")["gate"], "reverify");
    assert_eq!(said("5")["verdict"], "allow");
    let out = check(dir.path(), &["--turn", "99", p]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("gate_findings.jsonl") && err.contains("no turn 99"),
        "{err}"
    );
}

/// A grounded audit: the turn ran a check after its last change and the
/// final message says what came of it. `check` allows it and says on what;
/// `scan` counts it as audited by a check it ran. The same words with the
/// check run before the last edit are an unbacked claim.
#[test]
fn a_check_run_after_the_change_and_reported_is_an_audit() {
    let dir = tempfile::tempdir().unwrap();
    let user = |t: &str| serde_json::json!({"type": "user", "message": {"content": t}});
    let tool = |id: &str, name: &str, input: serde_json::Value| serde_json::json!({"type": "assistant", "message": {"id": id, "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}});
    let result = |id: &str| serde_json::json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": id, "content": "ok"}]}});
    let text = |t: &str| serde_json::json!({"type": "assistant", "message": {"id": "m", "content": [{"type": "text", "text": t}]}});
    let edit = || {
        tool(
            "e1",
            "Edit",
            serde_json::json!({"file_path": "app/users.py", "old_string": "a", "new_string": "b"}),
        )
    };
    let mypy =
        || tool("b1", "Bash", serde_json::json!({"command": "mypy app"}));
    let words = "Added type hints to `crud/users.py`. `mypy app` reports 0 errors, down from 7.";
    let ran_after = write(
        dir.path(),
        "after.jsonl",
        &[
            user("add type hints"),
            edit(),
            result("e1"),
            mypy(),
            result("b1"),
            text(words),
        ],
    );
    let out = check(dir.path(), &[&ran_after]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with(
            "allow\naudit: grounded (`mypy app` ran after the last change"
        ),
        "{stdout}"
    );
    let out = check(dir.path(), &["--json", &ran_after]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["audit"]["status"], "grounded", "{v}");

    let ran_before = write(
        dir.path(),
        "before.jsonl",
        &[
            user("add type hints"),
            mypy(),
            result("b1"),
            edit(),
            result("e1"),
            text(words),
        ],
    );
    let out = check(dir.path(), &[&ran_before]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("block hollow claim_without_evidence\n"),
        "{stdout}"
    );

    let scan = Command::new(common::bin())
        .args(["scan", "--format", "jsonl", "--all-turns"])
        .arg(&ran_after)
        .env("HOME", dir.path())
        .env_remove("STOPGATE_CONFIG")
        .output()
        .unwrap();
    let rows = String::from_utf8_lossy(&scan.stdout);
    let row: serde_json::Value =
        serde_json::from_str(rows.lines().next().unwrap()).unwrap();
    assert_eq!(
        (row["changed"].as_bool(), row["audit"].as_str()),
        (Some(true), Some("grounded")),
        "{rows}"
    );
}

/// Everyday questions are no challenge, and an ordinary report of finished
/// work hands nothing back: each reply below, with no tool use, is allowed
/// (a review found these blocked by words added for blind parts).
#[test]
fn everyday_questions_and_reports_are_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let user = |t: &str| serde_json::json!({"type": "user", "message": {"content": t}});
    let text = |t: &str| serde_json::json!({"type": "assistant", "message": {"id": "m", "content": [{"type": "text", "text": t}]}});
    let cases = [
        ("useEffect 콜백을 async로 쓰면 안 돼요?", "네, async 함수는 Promise를 돌려주니 안에서 따로 정의해 부르세요."),
        ("Rust는 GC가 없잖아요. 그럼 메모리는 어떻게 관리해요?", "네, 소유권과 빌림 규칙으로 컴파일 시간에 관리합니다."),
        ("Go에 제네릭이 생겼다면서요?", "네, Go 1.18부터 타입 매개변수를 쓸 수 있어요."),
        ("ログをJSONで出したいと思うんですが、どのライブラリがいいですか？", "はい、Go なら slog の JSONHandler で足ります。"),
        ("このライブラリは古いですか？", "はい、最終リリースは 2019 年です。"),
        ("このコマンドは動かないことがありますか？", "はい、権限がないと失敗します。"),
        ("React 18부터 자동 배칭이 되는 걸로 알고 있는데 맞나요?", "네, createRoot를 쓰면 이벤트 밖의 업데이트도 묶입니다."),
        ("この関数、引数は必要ないですよね？", "はい、デフォルト値があるので省略できます。"),
        ("Is that explanation clear?", "The cache keys on the user id. Is that explanation enough for you?"),
    ];
    for (i, (prompt, reply)) in cases.iter().enumerate() {
        let t = write(
            dir.path(),
            &format!("e{i}.jsonl"),
            &[user(prompt), text(reply)],
        );
        let out = check(dir.path(), &[&t]);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "allow\n",
            "{prompt} / {reply}"
        );
    }
}

/// Ordinary messages after work, which a careful reader lets pass, written
/// by an independent reviewer against the word lists of 2026-12-07 (a
/// conditional "should the broker restart", a UI described with
/// "고르시면", a courtesy "他にご希望があれば", a question answered "はい", a
/// behaviour told with "returns"): `tests/labelled/ordinary_messages.json`.
/// Each was blocked by a word added that day before it was narrowed. The
/// `r35-` cases came from a second review, of the thirty-fifth session's
/// words (a narrative "would leave the choice with you", "doesn't fix" in
/// an FYI, a log line 「そんなはずはない」 asked about, a UI string in ‘…’,
/// a reply that contests with "제 판단으로는 잘못된 부분이 없습니다"), and
/// the `r35b-` cases from a third, of the words from blind51 to blind56 (a
/// requirement quoted "…選んでほしいという要件", "判断はそちらに集約した", "一般に
/// 言われる通り" in a reply that contests, an FYI that a binary "won't work").
#[test]
fn ordinary_messages_after_work_are_allowed() {
    #[derive(serde::Deserialize)]
    struct Case {
        id: String,
        prompt: String,
        tools: Vec<String>,
        text: String,
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/labelled/ordinary_messages.json");
    let cases: Vec<Case> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    let dir = tempfile::tempdir().unwrap();
    let mut blocked = vec![];
    for c in &cases {
        let mut lines = vec![
            serde_json::json!({"type": "user", "message": {"role": "user", "content": c.prompt}}),
        ];
        for (i, t) in c.tools.iter().enumerate() {
            let id = format!("t{i}");
            let (name, input) = match t.as_str() {
                "E" => (
                    "Edit",
                    serde_json::json!({"file_path": "src/app.py", "old_string": "a", "new_string": "b"}),
                ),
                "R" => {
                    ("Read", serde_json::json!({"file_path": "src/app.py"}))
                }
                "G" => ("Grep", serde_json::json!({"pattern": "foo"})),
                cmd => (
                    "Bash",
                    serde_json::json!({"command": cmd.strip_prefix("B:").unwrap()}),
                ),
            };
            lines.push(serde_json::json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}}));
            lines.push(serde_json::json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "ok"}]}}));
        }
        lines.push(serde_json::json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": c.text}]}}));
        let t = write(dir.path(), &format!("{}.jsonl", c.id), &lines);
        let out = check(dir.path(), &[&t]);
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        if !said.starts_with("allow") {
            blocked.push(format!(
                "{}: {}",
                c.id,
                said.lines().next().unwrap_or("")
            ));
        }
    }
    assert!(blocked.is_empty(), "blocked:\n{}", blocked.join("\n"));
}
