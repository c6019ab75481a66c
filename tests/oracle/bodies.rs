//! The fuzz targets' bodies, shared with `tests/fuzz_regressions.rs` so
//! that every crash the fuzzer ever found is replayed on stable by
//! `cargo test`.

use super::lines::{naive_lines, NaiveLine};

/// Forward and reverse line iteration against the naive `split` oracle.
pub fn reverse_lines(data: &[u8]) {
    let as_naive = |l: stopgate::internals::Line<'_>| NaiveLine {
        bytes: l.as_bytes().to_vec(),
        offset: l.offset(),
        terminated: l.is_terminated(),
    };
    let want = naive_lines(data);
    let fwd: Vec<_> =
        stopgate::internals::Lines::new(data).map(as_naive).collect();
    assert_eq!(fwd, want);
    let mut rev: Vec<_> =
        stopgate::internals::RevLines::new(data).map(as_naive).collect();
    rev.reverse();
    assert_eq!(rev, want);
}

/// Record parsing of arbitrary bytes: never a panic, and the same verdict
/// and fields as serde_json.
pub fn record_parse(data: &[u8]) {
    let parser = stopgate::internals::RecordParser::new();
    let got = parser.parse(data);
    let want = super::queries::parse_line(data);
    assert_eq!(
        got.is_ok(),
        want.is_some(),
        "parse disagreement on {:?}",
        String::from_utf8_lossy(data)
    );
    if let (Ok(rec), Some(v)) = (got, want) {
        let s = |k: &str| v.get(k).and_then(|x| x.as_str());
        let f = |k: &str| v.get(k).and_then(|x| x.as_bool()) == Some(true);
        assert_eq!(rec.type_name(), s("type"));
        assert_eq!(rec.subtype(), s("subtype"));
        assert_eq!(rec.entrypoint(), s("entrypoint"));
        assert_eq!(rec.session_id(), s("sessionId"));
        assert_eq!(rec.uuid(), s("uuid"));
        assert_eq!(rec.timestamp(), s("timestamp"));
        assert_eq!(rec.is_sidechain(), f("isSidechain"));
        assert_eq!(rec.is_meta(), f("isMeta"));
        assert_eq!(rec.is_compact_summary(), f("isCompactSummary"));
        let msg = v.get("message").filter(|m| m.is_object());
        assert_eq!(rec.message().is_some(), msg.is_some());
        let want_blocks = match msg.and_then(|m| m.get("content")) {
            Some(serde_json::Value::Array(a)) => {
                a.iter().filter(|b| b.is_object()).count()
            }
            _ => 0,
        };
        assert_eq!(rec.content().blocks().len(), want_blocks);
        // A tool use's input: the fields the rules read, as from serde_json.
        let objects = msg
            .and_then(|m| m.get("content"))
            .and_then(|c| c.as_array())
            .into_iter()
            .flatten()
            .filter(|b| b.is_object());
        for (got, want) in rec.content().blocks().iter().zip(objects) {
            match got {
                stopgate::internals::Block::ToolUse(u) => {
                    let null = serde_json::Value::Null;
                    let input = want.get("input").unwrap_or(&null);
                    assert_eq!(
                        u.input(),
                        &stopgate::internals::ToolInput::of_value(input),
                        "tool input of {:?}",
                        String::from_utf8_lossy(data)
                    );
                }
                // A tool result: whose, and whether it failed.
                stopgate::internals::Block::ToolResult(r) => {
                    let id = want.get("tool_use_id").and_then(|x| x.as_str());
                    let failed =
                        want.get("is_error").and_then(|x| x.as_bool());
                    assert_eq!(r.tool_use_id(), id);
                    assert_eq!(r.is_error(), failed == Some(true));
                }
                _ => {}
            }
        }
    }
}

/// Every query on `data` written to a file, on every source path.
pub fn queries(data: &[u8]) {
    // A line with an object holding a key twice is classified by the
    // prefilters from the first where the parser keeps the last (see
    // `sniff.rs`); the oracle cannot follow both readings, so such inputs are left to the sniff target.
    if super::lines::naive_lines(data)
        .iter()
        .any(|l| super::queries::duplicate_key(&l.bytes))
    {
        return;
    }
    let mut file = tempfile::NamedTempFile::new().unwrap();
    std::io::Write::write_all(&mut file, data).unwrap();
    super::harness::check_against_oracle(file.path(), data);
}

/// The type sniffers on arbitrary bytes: never a panic, and whenever they
/// answer, the parser agrees (for well-formed lines: the sniffers do not
/// validate what they skip, see `sniff.rs`).
pub fn sniff(data: &[u8]) {
    use stopgate::internals::{quick_type, tail_type, top_level_type, Sniff};
    let exact = top_level_type(data);
    let quick = quick_type(data);
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let Some(object) = value.as_object() else { return };
    let parser = stopgate::internals::RecordParser::new();
    let parsed =
        parser.parse(data).ok().map(|r| r.type_name().map(str::to_string));
    // The sniffers read the first of duplicate keys; the parser the last.
    // (A `"type":` inside a string is escaped, so this over-counts never
    // under-counts.)
    let keys = data.windows(7).filter(|w| w == b"\"type\":").count();
    let plain = |t: &[u8]| !t.contains(&b'\\');
    match exact {
        Sniff::Type(t) if plain(t) && keys <= 1 => {
            assert_eq!(
                parsed,
                Some(Some(String::from_utf8_lossy(t).into_owned()))
            );
        }
        Sniff::NoType => {
            assert!(object.get("type").and_then(|t| t.as_str()).is_none())
        }
        _ => {}
    }
    if let Some(t) = quick {
        if keys <= 1 {
            assert_eq!(
                Some(t),
                object.get("type").and_then(|t| t.as_str()).map(str::as_bytes)
            );
        }
    }
    // The tail sniff reads the last key, as the parser does, and answers
    // nothing when another `"type"` follows it: duplicates included.
    if let Some(t) = tail_type(data) {
        if let Some(parsed) = parsed {
            assert_eq!(parsed.as_deref().map(str::as_bytes), Some(t));
        }
    }
}

/// The gates on arbitrary text: never a panic, and the hook's one-shot
/// phrase sets give the same findings as a scan's DFAs. The bytes before
/// the first NUL are the prompt, the rest the final text.
#[cfg(feature = "judge")]
pub fn gates(data: &[u8]) {
    use stopgate::config::Config;
    use stopgate::judge::{Facts, Gates, SessionView};
    use stopgate::read::ToolCall;
    static BUILT: std::sync::OnceLock<(Gates, Gates)> =
        std::sync::OnceLock::new();
    let (hook, bulk) = BUILT.get_or_init(|| {
        let config = Config::default();
        (Gates::new(&config).unwrap(), Gates::new_for_bulk(&config).unwrap())
    });
    let text = String::from_utf8_lossy(data);
    let (prompt, final_text) =
        text.split_once('\0').unwrap_or(("That's wrong.", &text));
    // A command of the data's own after a \x01: the grounded reading
    // names checks by their words.
    let (final_text, command) =
        final_text.split_once('\x01').unwrap_or((final_text, "cargo test"));
    let tools = [
        ToolCall::new(Some("t1"), "Write", None, 0, 0),
        ToolCall::new(Some("t2"), "Bash", Some(command), 0, 1),
        ToolCall::new(Some("t3"), "Read", None, 0, 2),
    ];
    for uses in [&tools[..0], &tools[..1], &tools[..]] {
        let facts = Facts::new(final_text)
            .with_prompt(Some(prompt))
            .with_tool_uses(uses)
            .with_changed(!uses.is_empty());
        assert_eq!(hook.findings(&facts), bulk.findings(&facts), "{text:?}");
        assert_eq!(
            hook.audit_status_of(&facts),
            bulk.audit_status_of(&facts),
            "{text:?}"
        );
        let _ = hook.evaluate(&facts, &SessionView::default());
        let _ = hook.matched(&facts);
    }
}
