//! Which agent wrote a transcript: Claude Code, Codex CLI or Gemini CLI.
//!
//! The three clients keep JSON Lines transcripts of different shapes:
//!
//! * Claude Code writes one record per line, `{"type":"user"|"assistant"|…,
//!   "message":{…}}`;
//! * Codex CLI writes a *rollout*: `{"timestamp":…,"type":"session_meta"|
//!   "response_item"|"event_msg"|…,"payload":{…}}`;
//! * Gemini CLI writes an *event log* that is replayed: a metadata line
//!   `{"sessionId":…,"projectHash":…}`, then message records
//!   `{"id":…,"type":"user"|"gemini"|…,"content":…}` that a later line with
//!   the same `id` replaces, and `{"$set":…}` and `{"$rewindTo":…}` lines.
//!
//! Each is read by its own reader ([`super::codex`], [`super::gemini`], and
//! the Claude record parser), and every reader feeds the one turn model,
//! so a turn gets the same verdict whichever agent worked in it.
//!
//! [`Format::of`] tells them apart from the first line that parses, by its
//! top-level `type`; a tail window that starts mid-file is enough, because
//! every line of a format has that format's shape.

use serde::de::{MapAccess, SeqAccess};

use super::lenient::{
    deserialize_leniently, entries, present, IsObject, Lenient, Str,
};
use super::lines::Lines;

/// The agent whose transcript format a file has.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub enum Format {
    /// Claude Code's JSONL transcript.
    #[default]
    Claude,
    /// Codex CLI's rollout (`rollout-*.jsonl`).
    Codex,
    /// Gemini CLI's chat log (`session-*.jsonl`).
    Gemini,
}

/// How many lines that are not bookkeeping the entrypoint head-scan reads
/// (in every format: Claude Code's `entrypoint`, Codex CLI's session `source`).
pub const ENTRYPOINT_LINES: usize = 15;

/// How many non-empty lines [`Format::of`] looks at.
pub const PROBE_LINES: usize = 64;

/// The longest line [`Format::of`] parses to decide; longer lines are
/// passed over, which bounds what detection costs.
pub const DECIDING_LINE_MAX: usize = 64 << 10;

/// The top-level types of a Codex rollout's lines.
const CODEX_TYPES: &[&[u8]] = &[
    b"session_meta",
    b"response_item",
    b"event_msg",
    b"turn_context",
    b"world_state",
    b"token_usage_record",
    b"compacted",
];

/// The top-level types of Gemini CLI's message records; `user` is
/// Claude Code's too, and tells them apart by its `message` field.
const GEMINI_TYPES: &[&[u8]] = &[b"gemini", b"info", b"error", b"warning"];

impl Format {
    /// Every format, in the order reports list them.
    pub const ALL: [Format; 3] =
        [Format::Claude, Format::Codex, Format::Gemini];

    /// The format of a transcript's bytes (its head, or a tail window),
    /// judged from its first lines; Claude Code's when nothing tells.
    ///
    /// # Example
    ///
    /// ```
    /// use stopgate::read::Format;
    ///
    /// let codex = br#"{"timestamp":"t","type":"session_meta","payload":{}}"#;
    /// assert_eq!(Format::of(codex), Format::Codex);
    /// let gemini = br#"{"sessionId":"s","projectHash":"h","kind":"main"}"#;
    /// assert_eq!(Format::of(gemini), Format::Gemini);
    /// let claude = br#"{"type":"user","message":{"content":"hi"}}"#;
    /// assert_eq!(Format::of(claude), Format::Claude);
    /// ```
    pub fn of(bytes: &[u8]) -> Format {
        Format::of_with(bytes, &mut ValueParser::default())
    }

    /// [`Format::of`], with a parser the caller keeps.
    pub(super) fn of_with(bytes: &[u8], parser: &mut ValueParser) -> Format {
        Format::of_lines(bytes, parser).unwrap_or_default()
    }

    /// The first format one of the first [`PROBE_LINES`] non-empty lines of
    /// `bytes` proves, or the default when that many prove none; `None`
    /// when the lines end before that.
    fn of_lines(bytes: &[u8], parser: &mut ValueParser) -> Option<Format> {
        let mut seen = 0;
        for line in Lines::new(bytes).filter(|l| !l.is_empty()) {
            if let Some(f) = Format::of_line_with(line.as_bytes(), parser) {
                return Some(f);
            }
            seen += 1;
            if seen == PROBE_LINES {
                return Some(Format::default());
            }
        }
        None
    }

    /// [`Format::of`] of a file, from its first bytes `prefix` alone, when
    /// they decide it: a line among the whole lines they hold proves a
    /// format, or [`PROBE_LINES`] of them prove none. `None` when the
    /// answer lies past them (`whole`: `prefix` is all the file).
    ///
    /// A memory-mapped transcript's format is probed this way, from a
    /// small read, so that the pages at the head of the map are never
    /// touched: at 1 GB they would cost a page fault and their own page
    /// tables, a third of the final-text query.
    pub(crate) fn of_prefix(prefix: &[u8], whole: bool) -> Option<Format> {
        if whole {
            return Some(Format::of(prefix));
        }
        // Only the lines the prefix holds to their end: a cut one might
        // parse where the whole one does not.
        let end = memchr::memrchr(b'\n', prefix)?;
        Format::of_lines(&prefix[..=end], &mut ValueParser::default())
    }

    /// The format one line proves, if any; [`Format::of`] is the first
    /// answer among the first 64 non-empty lines, for a reader
    /// that gets lines one at a time (`stopgate scan`).
    ///
    /// Each call makes a parser; a reader of many files asks
    /// `of_line_with` with a parser it keeps.
    pub fn of_line(line: &[u8]) -> Option<Format> {
        Format::of_line_with(line, &mut ValueParser::default())
    }

    /// The format one line proves, if any: a line of at most
    /// [`DECIDING_LINE_MAX`] bytes that parses as a JSON object, by its
    /// top-level `type` (a `user` record is Claude Code's when it holds a
    /// `message` object, Gemini CLI's otherwise), or, without one, by
    /// Gemini CLI's `$set`, `$rewindTo` or metadata keys. A corrupt line
    /// proves nothing, whatever its bytes look like.
    pub(crate) fn of_line_with(
        line: &[u8],
        parser: &mut ValueParser,
    ) -> Option<Format> {
        if line.len() > DECIDING_LINE_MAX {
            return None;
        }
        let probe = parser.probe(line)?;
        match probe.kind.as_deref() {
            Some(t) if CODEX_TYPES.contains(&t.as_bytes()) => {
                Some(Format::Codex)
            }
            Some(t) if GEMINI_TYPES.contains(&t.as_bytes()) => {
                Some(Format::Gemini)
            }
            Some("user") => Some(if probe.message {
                Format::Claude
            } else {
                Format::Gemini
            }),
            Some(_) => Some(Format::Claude),
            None if probe.set
                || probe.rewind
                || (probe.session_id && probe.project_hash) =>
            {
                Some(Format::Gemini)
            }
            None => None,
        }
    }

    /// The agent's name: `claude`, `codex` or `gemini`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Format::Claude => "claude",
            Format::Codex => "codex",
            Format::Gemini => "gemini",
        }
    }

    /// The format named `claude`, `codex` or `gemini`.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.as_str() == name)
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A reusable parser of whole lines into typed records, through
/// simd-json's serde deserializer (see [`super::record`] for why never
/// simd-json's own `Value`): the Codex and Gemini readers' records, read
/// as leniently as a parsed value ([`super::lenient`]).
pub(crate) struct ValueParser {
    scratch: Vec<u8>,
    buffers: simd_json::Buffers,
}

impl Default for ValueParser {
    /// A parser with empty scratch space.
    fn default() -> ValueParser {
        ValueParser { scratch: vec![], buffers: simd_json::Buffers::default() }
    }
}

impl std::fmt::Debug for ValueParser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ValueParser").finish_non_exhaustive()
    }
}

impl ValueParser {
    /// The space its scratch copy of a line has grown to.
    pub(super) fn capacity(&self) -> usize {
        self.scratch.capacity()
    }

    /// A line that is a JSON object, read as `T`; `None` for any other
    /// line (invalid JSON, another kind of value).
    pub(super) fn object<T: serde::de::DeserializeOwned>(
        &mut self,
        line: &[u8],
    ) -> Option<T> {
        // Framed as an object, or it cannot be one: a line cut short (a
        // window's last) is not even handed to the parser.
        let starts = line.iter().find(|b| !b.is_ascii_whitespace());
        let ends = line.iter().rfind(|b| !b.is_ascii_whitespace());
        if starts != Some(&b'{') || ends != Some(&b'}') {
            return None;
        }
        self.scratch.clear();
        self.scratch.extend_from_slice(line);
        simd_json::serde::from_slice_with_buffers(
            &mut self.scratch,
            &mut self.buffers,
        )
        .ok()
    }

    /// Whether the line is a JSON object, without building it: for lines
    /// a reader skips by their first bytes (a tool's output), so that a
    /// corrupt one is still counted as corrupt.
    pub(super) fn is_object(&mut self, line: &[u8]) -> bool {
        self.object::<serde::de::IgnoredAny>(line).is_some()
    }

    /// What [`Format::of`] needs of a line that is a JSON object, read
    /// without building the line's value.
    fn probe(&mut self, line: &[u8]) -> Option<Probe> {
        self.object(line)
    }

    /// The line as a JSON object, or `None` when it is not one: the
    /// readers' tests' oracle.
    #[cfg(test)]
    pub(super) fn parse(&mut self, line: &[u8]) -> Option<serde_json::Value> {
        self.object(line)
    }
}

/// The top-level keys that tell a format, as [`Format::of`] reads them,
/// as leniently as a parsed value ([`super::lenient`]).
#[derive(Default)]
struct Probe {
    kind: Option<String>,
    message: bool,
    set: bool,
    rewind: bool,
    session_id: bool,
    project_hash: bool,
}

impl Lenient for Probe {
    fn other() -> Probe {
        Probe::default()
    }
    fn object<'de, A: MapAccess<'de>>(map: A) -> Result<Probe, A::Error> {
        let mut p = Probe::default();
        entries(map, |key, map| {
            match key {
                "type" => p.kind = map.next_value::<Str>()?.0,
                "message" => p.message = map.next_value::<IsObject>()?.0,
                "$set" => p.set = present(map)?,
                "$rewindTo" => p.rewind = present(map)?,
                "sessionId" => p.session_id = present(map)?,
                "projectHash" => p.project_hash = present(map)?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(p)
    }
}

deserialize_leniently!(Probe);

/// A message's `content`, read as [`content_text`] reads a parsed one: a
/// string, or the `text` of every part that has one, joined by newlines.
/// Gemini CLI's tool results are parts holding a `functionResponse`.
#[derive(Debug, Default)]
pub(super) struct Content {
    /// The text; `None` when there is none.
    pub(super) text: Option<String>,
    /// Whether a part holds a `functionResponse`.
    pub(super) replies: bool,
}

/// One part of a list of content.
#[derive(Debug, Default)]
struct Part {
    text: Option<String>,
    replies: bool,
}

impl Lenient for Content {
    fn other() -> Content {
        Content::default()
    }
    fn string(s: &str) -> Content {
        Content { text: Some(s.to_string()), replies: false }
    }
    fn list<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Content, A::Error> {
        let (mut texts, mut replies) = (Vec::new(), false);
        while let Some(part) = seq.next_element::<Part>()? {
            texts.extend(part.text);
            replies |= part.replies;
        }
        let text = (!texts.is_empty()).then(|| texts.join("\n"));
        Ok(Content { text, replies })
    }
}

impl Lenient for Part {
    fn other() -> Part {
        Part::default()
    }
    fn object<'de, A: MapAccess<'de>>(map: A) -> Result<Part, A::Error> {
        let mut p = Part::default();
        entries(map, |key, map| {
            match key {
                "text" => p.text = map.next_value::<Str>()?.0,
                "functionResponse" => p.replies = present(map)?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(p)
    }
}

deserialize_leniently!(Content, Part);

/// The text of a content value: a string, or the `text` fields of a list
/// of parts joined by newlines (`None` when there are none). The
/// readers' tests' oracle of [`Content`].
#[cfg(test)]
pub(super) fn content_text(content: &serde_json::Value) -> Option<String> {
    if let Some(s) = content.as_str() {
        return Some(s.to_string());
    }
    let texts: Vec<&str> = content
        .as_array()?
        .iter()
        .filter_map(|p| p.get("text")?.as_str())
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `of_prefix` against `Format::of` on the whole: on every fixture
    /// and every prefix length, it answers the same or not at all, and a
    /// prefix that is the whole file always answers.
    #[test]
    fn of_prefix_agrees_with_the_whole() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/transcripts");
        let mut decided = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "jsonl") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let whole = Format::of(&bytes);
            for n in (0..=bytes.len().min(8 << 10)).chain([bytes.len()]) {
                let complete = n == bytes.len();
                match Format::of_prefix(&bytes[..n], complete) {
                    Some(f) => {
                        assert_eq!(f, whole, "{} cut at {n}", path.display());
                        decided += 1;
                    }
                    None => assert!(!complete, "{}", path.display()),
                }
            }
        }
        assert!(decided > 1000, "only {decided} prefixes decided");
    }

    /// A cut line that parses where the whole line does not proves
    /// nothing.
    #[test]
    fn of_prefix_ignores_a_cut_line() {
        let line = br#"{"type":"session_meta"} trailing"#;
        assert_eq!(Format::of(line), Format::Claude);
        assert_eq!(Format::of_prefix(&line[..23], false), None);
    }

    #[test]
    fn the_corpus_samples_and_tails() {
        let claude = concat!(
            r#"{"type":"summary","summary":"x"}"#,
            "\n",
            r#"{"type":"user","message":{"content":"hi"}}"#
        );
        assert_eq!(Format::of(claude.as_bytes()), Format::Claude);
        let gemini_tail = concat!(
            r#"{"id":"a","type":"user","content":[{"text":"hi"}]}"#,
            "\n",
            r#"{"$set":{"lastUpdated":"t"}}"#
        );
        assert_eq!(Format::of(gemini_tail.as_bytes()), Format::Gemini);
        let codex_tail = r#"{"timestamp":"t","ordinal":9,"type":"event_msg","payload":{"type":"token_count"}}"#;
        assert_eq!(Format::of(codex_tail.as_bytes()), Format::Codex);
        assert_eq!(Format::of(b""), Format::Claude);
        assert_eq!(Format::of(b"not json\n"), Format::Claude);
    }

    /// A key given twice counts by its last value, as in a parsed value,
    /// for every key the probe reads.
    #[test]
    fn a_repeated_key_holds_its_last_value() {
        let cases: [(&[u8], Option<Format>); 6] = [
            (br#"{"type":"user","type":"session_meta"}"#, Some(Format::Codex)),
            (
                br#"{"type":"session_meta","type":"user","message":{}}"#,
                Some(Format::Claude),
            ),
            (
                br#"{"type":"user","message":{},"message":"x"}"#,
                Some(Format::Gemini),
            ),
            (br#"{"type":"x","type":5}"#, None),
            (br#"{"$set":1,"$set":2}"#, Some(Format::Gemini)),
            (
                br#"{"sessionId":"s","projectHash":1,"projectHash":null}"#,
                Some(Format::Gemini),
            ),
        ];
        for (line, want) in cases {
            let text = String::from_utf8_lossy(line);
            assert_eq!(Format::of_line(line), want, "{text}");
        }
    }

    #[test]
    fn the_value_parser_is_lenient_and_agrees_with_serde_json() {
        let mut p = ValueParser::default();
        let line = br#"{"a":1,"a":2,"b":[{"text":"x"}]}"#;
        let want: serde_json::Value = serde_json::from_slice(line).unwrap();
        assert_eq!(p.parse(line), Some(want));
        assert_eq!(p.parse(b"[1]"), None);
        assert_eq!(p.parse(b"{"), None);
        assert_eq!(p.parse(b"{\"a\":\"\xff\"}"), None);
    }
}
