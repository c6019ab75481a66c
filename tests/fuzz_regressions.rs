//! Every input the fuzzer found a bug with, replayed on stable.
//!
//! Crash files live in `fuzz/regressions/<target>/`, named for the bug;
//! each is run through the same body as its fuzz target. The comment for
//! each bug is in `fuzz/regressions/README.md`.

mod oracle;

use std::path::Path;

/// The stack a regression replays on. The fuzzer runs optimised code;
/// a test build is not optimised, and its frames are several times larger,
/// so a deeply nested input needs more than a test thread's 2 MiB.
const REPLAY_STACK: usize = 256 << 20;

fn replay(target: &'static str, body: fn(&[u8])) -> usize {
    std::thread::Builder::new()
        .stack_size(REPLAY_STACK)
        .spawn(move || replay_here(target, body))
        .unwrap()
        .join()
        .unwrap()
}

fn replay_here(target: &str, body: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else { return 0 };
    let mut n = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        eprintln!("replaying {}", path.display());
        body(&data);
        n += 1;
    }
    n
}

#[test]
fn reverse_lines() {
    replay("reverse_lines", oracle::bodies::reverse_lines);
}

#[test]
fn record_parse() {
    replay("record_parse", oracle::bodies::record_parse);
}

#[test]
fn queries() {
    replay("queries", oracle::bodies::queries);
}

#[test]
fn sniff() {
    assert!(replay("sniff", oracle::bodies::sniff) >= 1);
}

#[cfg(feature = "judge")]
#[test]
fn gates() {
    replay("gates", oracle::bodies::gates);
    // And the labelled phrasings, as the fuzzer's seeds are.
    for seed in [
        "That's wrong.\0You're right that it's slow, but it's correct.",
        "\0Audit: no issues. 監査：問題なし 감사: 문제 없음",
        "違うよ\0おっしゃる通りです。まだ確認していませんが、B です。",
        "\0Which would you prefer? どちらがよろしいでしょうか。어느 쪽으로 할까요?",
        "\0tests should pass; テストは通過しました; 테스트 통과 여부는 확인하지 못했습니다",
    ] {
        oracle::bodies::gates(seed.as_bytes());
    }
}
