//! `stopgate last`: output, JSON fields and exit statuses.

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
    for f in [
        "fixtures/transcripts/no_text.jsonl",
        "fixtures/transcripts/empty.jsonl",
    ] {
        let out = last(&[f]);
        assert_eq!(out.status.code(), Some(1), "{f}");
        assert!(out.stdout.is_empty());
        assert!(String::from_utf8_lossy(&out.stderr).contains(f));
    }
    for f in ["no/such.jsonl", "fixtures"] {
        let out = last(&[f]);
        assert_eq!(out.status.code(), Some(2), "{f}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(f) && err.lines().count() == 1, "{err}");
    }
}
