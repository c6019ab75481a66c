//! `stopgate last`: output, JSON fields and exit statuses.

// Runs the `stopgate` binary, which needs the `cli` feature.
#![cfg(feature = "cli")]

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_stopgate");

fn last(args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .arg("last")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

#[test]
fn prints_the_final_text() {
    let out = last(&["fixtures/transcripts/trailing_records.jsonl"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "All green.\n");
}

#[test]
fn json_fields() {
    let out = last(&["--json", "fixtures/transcripts/corrupt_middle.jsonl"]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["text"], "Fixed the off-by-one.");
    assert_eq!(v["message_id"], "msg_f2");
    assert_eq!(v["entrypoint"], "cli");
    assert_eq!(v["line"], 8);
    assert_eq!(v["skipped_corrupt"], 1);
}

#[test]
fn exit_one_without_text_and_two_on_errors() {
    let f = "fixtures/transcripts/no_text.jsonl";
    let out = last(&[f]);
    assert_eq!(out.status.code(), Some(1), "{f}");
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains(f));
    // With --json, a script still reads one object.
    let out = last(&["--json", f]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["text"].is_null() && v.get("line").is_some(), "{v}");
    for f in ["no/such.jsonl", "fixtures", "fixtures/transcripts/empty.jsonl"]
    {
        let out = last(&[f]);
        assert_eq!(out.status.code(), Some(2), "{f}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(f) && err.lines().count() == 1, "{err}");
    }
}

/// A file that is no transcript (empty, binary, plain text) is an error,
/// for `last` and `check` alike, not an answer.
#[test]
fn files_that_are_not_transcripts_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("empty.jsonl", &b""[..]),
        (
            "binary.jsonl",
            &b"\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe\n\x00"[..],
        ),
        ("notes.txt", &b"Remember to buy milk.\nAnd eggs.\n"[..]),
        ("array.jsonl", &b"[1, 2, 3]\n{\"no_type\": true}\n"[..]),
    ];
    for (name, bytes) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let path = path.to_str().unwrap();
        for cmd in [
            &["last"][..],
            &["last", "--json"],
            &["check"],
            &["check", "--json"],
        ] {
            let out = Command::new(BIN)
                .args(cmd)
                .arg(path)
                .env("HOME", dir.path())
                .env("STOPGATE_STATE_DIR", dir.path().join("state"))
                .env_remove("STOPGATE_CONFIG")
                .env_remove("CLAUDE_PROJECT_DIR")
                .env_remove("XDG_CONFIG_HOME")
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{cmd:?} {name}");
            assert!(out.stdout.is_empty(), "{cmd:?} {name}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains("not a transcript") && err.lines().count() == 1,
                "{cmd:?} {name}: {err}"
            );
        }
    }
}
