//! Runs the library on every source path and compares with the oracle.

use std::path::Path;

use stopgate::read::Transcript;

/// Every way to open a transcript, labelled, in the style of ripgrep's
/// `SearcherTester`. Tail windows that start mid-file are included; they
/// only answer when the answer lies inside the window, so callers compare
/// them where that holds.
fn sources(path: &Path) -> Vec<(String, Transcript)> {
    let mut out = vec![];
    // SAFETY: fixtures are not modified while the tests run.
    out.push((
        "mmap".to_string(),
        unsafe { Transcript::open_mmap(path) }.unwrap(),
    ));
    out.push(("read".to_string(), Transcript::read(path).unwrap()));
    for window in [1u64, 7, 4096, 1 << 20, u64::MAX] {
        out.push((
            format!("tail {window}"),
            Transcript::read_tail(path, window).unwrap(),
        ));
    }
    out
}

/// Run every query on every source path, comparing nothing: for inputs
/// the oracle cannot judge, the library must still answer.
pub fn run_queries(path: &Path) {
    let _ = Transcript::read_entrypoint(path);
    for (_, t) in sources(path) {
        let _ = t.final_assistant_text();
        let _ = t.final_message();
        let _ = t.entrypoint();
        let _ = t.current_turn(stopgate::read::Chain::Main);
        let _ = t.turns(stopgate::read::Chain::Main);
    }
}

/// Compare every query on every source path with the oracle.
pub fn check_against_oracle(path: &Path, bytes: &[u8]) {
    let want_text = super::queries::final_text(bytes);
    let want_msg = super::queries::final_message(bytes);
    let want_entry = super::queries::entrypoint(bytes);
    let want_turn = super::queries::current_turn(bytes);
    assert_eq!(
        Transcript::read_entrypoint(path).unwrap(),
        want_entry,
        "{} [read_entrypoint]",
        path.display()
    );
    let agent = super::agents::agent(bytes);
    for (label, t) in sources(path) {
        let ctx = format!("{} [{label}]", path.display());
        // A tail window of a file that mixes formats (no client writes
        // one) reads as the format its own lines show, which the oracle
        // of the whole file does not model.
        if !t.has_head() && super::agents::agent(t.as_bytes()) != agent {
            continue;
        }
        // A Gemini log is replayed, and a window cannot tell a message's
        // first write from a rewrite of one that started before it: the
        // window reads it as new, where the whole file's replay keeps its
        // place. (The client rewrites only the message it is writing, so
        // the hook's turn-sized windows see both writes; the fixtures'
        // whole-file windows are compared.)
        if !t.has_head() && agent == Some(super::agents::Agent::Gemini) {
            continue;
        }
        let base = t.base_offset() as usize;
        // A window answers exactly when the oracle's answer lies inside it.
        let inside = |offset: usize| offset >= base;
        let got = t.final_assistant_text();
        match &want_text {
            Some((text, id, offset)) if inside(*offset) => {
                let got =
                    got.unwrap_or_else(|| panic!("{ctx}: no final text"));
                assert_eq!(got.text(), text, "{ctx}");
                assert_eq!(got.message_id(), id.as_deref(), "{ctx}");
                assert_eq!(got.offset() as usize, *offset, "{ctx}");
                if t.has_head() {
                    let line = t.line_number(got.offset()).unwrap();
                    let naive = bytes[..*offset]
                        .iter()
                        .filter(|&&b| b == b'\n')
                        .count()
                        + 1;
                    assert_eq!(line as usize, naive, "{ctx}");
                }
            }
            Some(_) => {}
            None => assert!(got.is_none(), "{ctx}: {got:?}"),
        }
        if t.has_head() {
            assert_eq!(t.entrypoint(), want_entry, "{ctx}");
            let got = t.final_message();
            assert_eq!(
                got.map(|m| (
                    m.blocks().to_vec(),
                    m.message_id().map(str::to_string)
                )),
                want_msg,
                "{ctx}"
            );
            let turn = t.current_turn(stopgate::read::Chain::Main);
            assert_eq!(
                turn.prompt()
                    .map(|p| (p.text().to_string(), p.offset() as usize)),
                want_turn.prompt,
                "{ctx}"
            );
            let tools: Vec<(String, Option<String>)> = turn
                .tool_uses()
                .iter()
                .map(|u| {
                    (u.name().to_string(), u.command().map(str::to_string))
                })
                .collect();
            assert_eq!(tools, want_turn.tool_uses, "{ctx}");
            assert_eq!(
                turn.final_text().map(str::to_string),
                want_turn.final_text,
                "{ctx}"
            );
        } else {
            assert_eq!(t.entrypoint(), None, "{ctx}");
        }
    }
}
