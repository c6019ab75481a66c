//! The project's own fixtures: expected answers, and the oracle on every
//! source path (memory map, whole read, tail windows of several sizes).

mod common;
mod oracle;

use std::path::{Path, PathBuf};

use stopgate::read::Transcript;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/transcripts")
        .join(name)
}

struct Expect {
    file: &'static str,
    text: Option<&'static str>,
    message_id: Option<&'static str>,
    entrypoint: Option<&'static str>,
    corrupt: usize,
    prompt: Option<&'static str>,
    tools: &'static [&'static str],
}

const CASES: &[Expect] = &[
    Expect {
        file: "content_string.jsonl",
        text: Some("It parses configs."),
        message_id: Some("msg_s1"),
        entrypoint: Some("cli"),
        corrupt: 0,
        prompt: Some("What does this crate do?"),
        tools: &[],
    },
    Expect {
        file: "content_array.jsonl",
        text: Some("Done: added the parser and its tests."),
        message_id: Some("msg_a4"),
        entrypoint: Some("cli"),
        corrupt: 0,
        prompt: Some("Add a parser for the config file."),
        tools: &["Read", "Write", "Bash"],
    },
    Expect {
        file: "content_null.jsonl",
        text: Some("Finished the parser."),
        message_id: Some("msg_a4"),
        entrypoint: Some("cli"),
        corrupt: 0,
        prompt: Some("Add a parser for the config file."),
        tools: &["Read", "Write", "Bash"],
    },
    Expect {
        file: "split_assistant.jsonl",
        text: Some("Second part: refactored the loader."),
        message_id: Some("msg_b1"),
        entrypoint: Some("cli"),
        corrupt: 0,
        prompt: Some("Refactor the loader."),
        tools: &["Edit", "TodoWrite"],
    },
    Expect {
        file: "trailing_records.jsonl",
        text: Some("All green."),
        message_id: Some("msg_a4"),
        entrypoint: Some("cli"),
        corrupt: 0,
        prompt: Some("Add a parser for the config file."),
        tools: &["Read", "Write", "Bash"],
    },
    Expect {
        file: "inline_sidechain.jsonl",
        text: Some("Main agent: the flake comes from a sleep; I replaced it."),
        message_id: Some("msg_c2"),
        entrypoint: Some("cli"),
        corrupt: 0,
        prompt: Some("Investigate the flaky test."),
        tools: &["Task"],
    },
    Expect {
        file: "22222222-3333-4444-8555-666666666666.jsonl",
        text: Some("The reviewer found nothing blocking, and fixed one typo."),
        message_id: Some("msg_d2"),
        entrypoint: Some("cli"),
        corrupt: 0,
        prompt: Some("Review the diff with a subagent."),
        tools: &["Task"],
    },
    Expect {
        file: "turn_kinds.jsonl",
        text: Some("Added."),
        message_id: Some("msg_m4"),
        entrypoint: Some("cli"),
        corrupt: 0,
        prompt: Some("Now add the test."),
        tools: &["Write"],
    },
    // Every line of a subagent file is a sidechain line: no main chain.
    Expect {
        file: "22222222-3333-4444-8555-666666666666/subagents/agent-a1b2c3.jsonl",
        text: None,
        message_id: None,
        entrypoint: Some("cli"),
        corrupt: 0,
        prompt: None,
        tools: &[],
    },
    Expect {
        file: "entrypoint_sdk_cli.jsonl",
        text: Some("Batch job done."),
        message_id: Some("msg_a4"),
        entrypoint: Some("sdk-cli"),
        corrupt: 0,
        prompt: Some("Add a parser for the config file."),
        tools: &["Read", "Write", "Bash"],
    },
    Expect {
        file: "entrypoint_none.jsonl",
        text: Some("Done without an entrypoint field."),
        message_id: Some("msg_a4"),
        entrypoint: None,
        corrupt: 0,
        prompt: Some("Add a parser for the config file."),
        tools: &["Read", "Write", "Bash"],
    },
    Expect {
        file: "truncated_tail.jsonl",
        text: Some("The complete answer."),
        message_id: Some("msg_a4"),
        entrypoint: Some("cli"),
        corrupt: 0,
        prompt: Some("Add a parser for the config file."),
        tools: &["Read", "Write", "Bash"],
    },
    Expect {
        file: "complete_tail_no_newline.jsonl",
        text: Some("Answer without a final newline."),
        message_id: Some("msg_nonl"),
        entrypoint: Some("cli"),
        corrupt: 0,
        prompt: Some("Add a parser for the config file."),
        tools: &["Read", "Write", "Bash"],
    },
    Expect {
        file: "corrupt_middle.jsonl",
        text: Some("Fixed the off-by-one."),
        message_id: Some("msg_f2"),
        entrypoint: Some("cli"),
        // The line after the answer; the queries stop before the others.
        corrupt: 1,
        prompt: Some("Fix the bug."),
        tools: &["Edit"],
    },
    Expect {
        file: "crlf.jsonl",
        text: Some("Answer from a CRLF file."),
        message_id: Some("msg_a4"),
        entrypoint: Some("cli"),
        corrupt: 0,
        prompt: Some("Add a parser for the config file."),
        tools: &["Read", "Write", "Bash"],
    },
    Expect {
        file: "empty.jsonl",
        text: None,
        message_id: None,
        entrypoint: None,
        corrupt: 0,
        prompt: None,
        tools: &[],
    },
    Expect {
        file: "huge_line.jsonl",
        text: Some("Wrote big.txt after reading a 5 MB prompt."),
        message_id: Some("msg_g2"),
        // Line 1 is too big to parse in the head-scan; line 2 answers.
        entrypoint: Some("cli"),
        corrupt: 0,
        prompt: None, // checked separately: 5 MB of "x"
        tools: &["Write"],
    },
    Expect {
        file: "invalid_utf8_nul.jsonl",
        text: Some("The last valid answer."),
        message_id: Some("msg_a4"),
        entrypoint: Some("cli"),
        corrupt: 2,
        prompt: Some("Add a parser for the config file."),
        tools: &["Read", "Write", "Bash"],
    },
    Expect {
        file: "slash_command.jsonl",
        text: Some("Reviewed src/: two unwraps remain."),
        message_id: Some("msg_h2"),
        entrypoint: Some("cli"),
        corrupt: 0,
        prompt: Some(
            "<command-message>review is running</command-message>\n<command-name>/review</command-name>",
        ),
        tools: &["Grep"],
    },
    Expect {
        file: "prompt_blocks.jsonl",
        text: Some("The build fails with a type mismatch."),
        message_id: Some("msg_i2"),
        entrypoint: Some("cli"),
        corrupt: 0,
        prompt: Some("Why does this screenshot show an error?"),
        tools: &["Bash"],
    },
    Expect {
        file: "codex_rollout.jsonl",
        text: Some("Patched."),
        message_id: None,
        entrypoint: Some("codex-exec"),
        corrupt: 0,
        prompt: Some("Now patch it and run the shell."),
        tools: &["apply_patch", "shell", "local_shell"],
    },
    Expect {
        file: "codex_cut_tail.jsonl",
        text: Some("Patched."),
        message_id: None,
        entrypoint: Some("codex-exec"),
        corrupt: 0,
        prompt: Some("Now patch it and run the shell."),
        tools: &["apply_patch", "shell", "local_shell"],
    },
    Expect {
        file: "codex_tui.jsonl",
        text: Some("Hello."),
        message_id: None,
        entrypoint: Some("codex-cli"),
        corrupt: 0,
        prompt: Some("hi"),
        tools: &[],
    },
    Expect {
        file: "gemini_session.jsonl",
        text: Some("Wrote b.txt."),
        message_id: None,
        entrypoint: None,
        corrupt: 1,
        prompt: Some("Now add b.txt with the shell."),
        tools: &["run_shell_command"],
    },
    Expect {
        file: "gemini_cut_tail.jsonl",
        text: Some("Wrote b.txt."),
        message_id: None,
        entrypoint: None,
        corrupt: 1,
        prompt: Some("Now add b.txt with the shell."),
        tools: &["run_shell_command"],
    },
    Expect {
        file: "gemini_checkpoint.jsonl",
        text: Some("resumed answer"),
        message_id: None,
        entrypoint: None,
        corrupt: 0,
        prompt: Some("resumed prompt"),
        tools: &[],
    },
    Expect {
        file: "no_text.jsonl",
        text: None,
        message_id: None,
        entrypoint: Some("cli"),
        corrupt: 0,
        prompt: Some("Run the tests."),
        tools: &["Bash"],
    },
];

#[test]
fn expected_answers() {
    for case in CASES {
        let path = fixture(case.file);
        // SAFETY: fixtures are not modified while the tests run.
        let t = unsafe { Transcript::open_mmap(&path) }.unwrap();
        let last = t.final_assistant_text();
        assert_eq!(
            last.as_ref().map(|l| l.text()),
            case.text,
            "{}",
            case.file
        );
        assert_eq!(
            last.as_ref().and_then(|l| l.message_id()),
            case.message_id,
            "{}",
            case.file
        );
        if let Some(l) = &last {
            assert_eq!(l.skipped_corrupt(), case.corrupt, "{}", case.file);
        }
        assert_eq!(
            t.entrypoint().as_deref(),
            case.entrypoint,
            "{}",
            case.file
        );
        let turn = t.current_turn(stopgate::read::Chain::Main);
        if case.file != "huge_line.jsonl" {
            assert_eq!(
                turn.prompt().map(|p| p.text()),
                case.prompt,
                "{}",
                case.file
            );
        }
        let tools: Vec<&str> =
            turn.tool_uses().iter().map(|u| u.name()).collect();
        assert_eq!(tools, case.tools, "{}", case.file);
        assert_eq!(
            turn.final_text(),
            case.text.filter(|_| case.file != "no_text.jsonl"),
            "{}",
            case.file
        );
    }
}

/// The other agents' transcripts, whole: every turn, the changes, the
/// blocks, and the corrupt lines counted.
#[test]
fn codex_and_gemini_turns() {
    use stopgate::read::Chain;
    // Whether files changed is the judge's to say; the reader alone keeps
    // the tool uses that may have.
    let changed = |t: &stopgate::read::Turn| {
        #[cfg(feature = "judge")]
        return stopgate::judge::TurnChanges::of(t).any();
        #[cfg(not(feature = "judge"))]
        t.possible_changes().next().is_some()
    };

    let t = Transcript::read(fixture("codex_rollout.jsonl")).unwrap();
    let turns = t.turns(Chain::Main);
    assert_eq!(turns.len(), 2, "{turns:#?}");
    assert_eq!(
        turns[0].prompt().unwrap().text(),
        "Create hello.txt containing a greeting."
    );
    assert!(changed(&turns[0]));
    assert_eq!(
        turns[0].tool_uses()[0].command(),
        Some("printf 'hi\\n' > hello.txt")
    );
    assert_eq!(turns[0].stop_blocks().count(), 1);
    assert_eq!(
        turns[0].final_text(),
        Some("Done. Audit: hello.txt written whole, one writer.")
    );
    assert_eq!(turns[0].skipped_corrupt(), 1);
    assert_eq!(
        turns[1].tool_uses()[1].command(),
        Some("sed -i s/a/b/ hello.txt")
    );
    assert!(changed(&turns[1]));

    let tui = Transcript::read(fixture("codex_tui.jsonl")).unwrap();
    assert_eq!(
        tui.current_turn(Chain::Main).kind(),
        stopgate::read::TurnKind::Interrupted
    );

    let g = Transcript::read(fixture("gemini_session.jsonl")).unwrap();
    let turns = g.turns(Chain::Main);
    // The rewind dropped "Try another way." and its answer.
    assert_eq!(turns.len(), 2, "{turns:#?}");
    assert_eq!(turns[0].prompt().unwrap().text(), "Create hello.txt");
    assert!(changed(&turns[0]));
    assert_eq!(turns[0].stop_blocks().count(), 1);
    assert_eq!(
        turns[0].final_text(),
        Some("Done. Audit: hello.txt written whole; one writer.")
    );
    assert!(changed(&turns[1]), "printf > b.txt writes");
    assert_eq!(turns[1].index(), 2);
    assert_eq!(turns.iter().map(|t| t.skipped_corrupt()).sum::<usize>(), 1);

    // The hook's walk back to the last prompt must not step over a rewind
    // (or a checkpoint) written after it.
    let log = |tail: &str| {
        let lines = [
            r#"{"sessionId":"s","projectHash":"h"}"#,
            r#"{"id":"p1","type":"user","content":"first"}"#,
            r#"{"id":"a1","type":"gemini","content":"one"}"#,
            r#"{"id":"p2","type":"user","content":"second"}"#,
            r#"{"id":"a2","type":"gemini","content":"two"}"#,
            tail,
        ];
        Transcript::from_bytes(format!("{}\n", lines.join("\n")).into_bytes())
    };
    let rewound = log(r#"{"$rewindTo":"p2"}"#).current_turn(Chain::Main);
    assert_eq!(rewound.prompt().unwrap().text(), "first");
    assert_eq!(rewound.final_text(), Some("one"));
    let checkpoint = log(
        r#"{"$set":{"messages":[{"id":"c","type":"user","content":"resumed"},{"id":"d","type":"gemini","content":"again"}]}}"#,
    )
    .current_turn(Chain::Main);
    assert_eq!(checkpoint.prompt().unwrap().text(), "resumed");
    let plain =
        log(r#"{"$set":{"lastUpdated":"t"}}"#).current_turn(Chain::Main);
    assert_eq!(plain.prompt().unwrap().text(), "second");
    assert_eq!(plain.final_text(), Some("two"));
}

#[test]
fn huge_line_prompt() {
    let t = Transcript::read(fixture("huge_line.jsonl")).unwrap();
    let turn = t.current_turn(stopgate::read::Chain::Main);
    let prompt = turn.prompt().unwrap();
    assert_eq!(prompt.text().len(), 5 * 1024 * 1024);
    assert_eq!(prompt.offset(), 0);
}

#[test]
fn split_final_message_joins_blocks() {
    let t = Transcript::read(fixture("split_assistant.jsonl")).unwrap();
    let msg = t.final_message().unwrap();
    assert_eq!(
        msg.blocks(),
        ["First part of the answer.", "Second part: refactored the loader."]
    );
    assert_eq!(msg.message_id(), Some("msg_b1"));
}

/// Every fixture, every source path, against the serde_json oracle.
#[test]
fn fixtures_match_oracle() {
    for path in all_fixtures() {
        let bytes = std::fs::read(&path).unwrap();
        oracle::harness::check_against_oracle(&path, &bytes);
    }
}

fn all_fixtures() -> Vec<PathBuf> {
    let out = common::files_under(&fixture(""), "jsonl");
    assert!(out.len() >= 19, "fixtures missing: {out:?}");
    out
}

#[test]
fn errors_name_the_path() {
    let missing = fixture("does-not-exist.jsonl");
    let err = Transcript::read(&missing).unwrap_err();
    assert!(err.to_string().contains("does-not-exist.jsonl"), "{err}");
    assert_eq!(err.path(), Some(missing.as_path()));
    let dir = fixture("");
    // SAFETY: not mapped, it is a directory.
    let err = unsafe { Transcript::open_mmap(&dir) }.unwrap_err();
    assert!(err.to_string().contains("is a directory"), "{err}");
    let err = Transcript::read_tail(&dir, 10).unwrap_err();
    assert!(err.to_string().contains("directory"), "{err}");
}

#[cfg(unix)]
#[test]
fn unreadable_file_is_an_error() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("secret.jsonl");
    std::fs::write(&p, b"{}\n").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000))
        .unwrap();
    // Root reads anything: only check when the permission bites.
    if std::fs::read(&p).is_err() {
        let err = Transcript::read(&p).unwrap_err();
        assert!(err.to_string().contains("secret.jsonl"), "{err}");
    }
}

#[cfg(unix)]
#[test]
fn fifo_is_read_not_mapped() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("pipe.jsonl");
    common::mkfifo(&p);
    let writer = std::thread::spawn({
        let p = p.clone();
        move || {
            std::fs::write(
                &p,
                br#"{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"via a fifo"}]}}
"#,
            )
            .unwrap()
        }
    });
    // SAFETY: a FIFO is never mapped; it is read.
    let t = unsafe { Transcript::open_mmap(&p) }.unwrap();
    writer.join().unwrap();
    assert_eq!(t.final_assistant_text().unwrap().text(), "via a fifo");
}

#[test]
fn proc_file_reads() {
    // Size-0 pseudo-files go through the read path.
    let p = Path::new("/proc/self/status");
    if p.exists() {
        // SAFETY: not mapped: it reports size 0.
        let t = unsafe { Transcript::open_mmap(p) }.unwrap();
        assert!(!t.as_bytes().is_empty());
        assert!(t.final_assistant_text().is_none());
    }
}
