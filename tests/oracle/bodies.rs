//! The fuzz targets' bodies, shared with `tests/fuzz_regressions.rs` so
//! that every crash the fuzzer ever found is replayed on stable by
//! `cargo test`.

use super::lines::{naive_lines, NaiveLine};

/// Forward and reverse line iteration against the naive `split` oracle.
pub fn reverse_lines(data: &[u8]) {
    let as_naive = |l: stopgate::transcript::Line<'_>| NaiveLine {
        bytes: l.as_bytes().to_vec(),
        offset: l.offset(),
        terminated: l.is_terminated(),
    };
    let want = naive_lines(data);
    let fwd: Vec<_> =
        stopgate::transcript::Lines::new(data).map(as_naive).collect();
    assert_eq!(fwd, want);
    let mut rev: Vec<_> =
        stopgate::transcript::RevLines::new(data).map(as_naive).collect();
    rev.reverse();
    assert_eq!(rev, want);
}

/// Record parsing of arbitrary bytes: never a panic, and the same verdict
/// and fields as serde_json.
pub fn record_parse(data: &[u8]) {
    let parser = stopgate::transcript::RecordParser::new();
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
    }
}

/// Every query on `data` written to a file, on every source path.
pub fn queries(data: &[u8]) {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    std::io::Write::write_all(&mut file, data).unwrap();
    super::harness::check_against_oracle(file.path(), data);
}
