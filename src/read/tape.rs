//! A serde deserializer over simd-json's tape that skips what it is not
//! asked for in one step.
//!
//! # Why not simd-json's own deserializer
//!
//! [`RecordParser`](super::record::RecordParser) reads a handful of fields
//! from each line and ignores the rest: a tool's `input` (an edit's whole
//! old and new text), the token `usage`, and a dozen bookkeeping strings.
//! simd-json's serde deserializer ignores a value by visiting every node
//! under it, one visitor call at a time. Its tape already knows how many
//! nodes each object and array spans, so ignoring one here is a single
//! jump, whatever its size.
//!
//! It serves what the record's visitors ask for: any value, an object (the
//! record itself), a string (an object's key), and a value to ignore. For
//! those it makes the visitor calls simd-json's deserializer makes, and
//! lends strings from the tape. Every other request (an option, a struct,
//! an enum, …) is read as any value, which is not what simd-json does, so
//! this is no general-purpose deserializer. One more difference cannot
//! show with the record's visitors, which read every entry of what they
//! visit: a visitor that stops early is not an error here, and the cursor
//! still lands after the object or array. A test runs both deserializers
//! over the same tapes and compares the records they give.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::forward_to_deserialize_any;
use simd_json::{Node, StaticNode};

/// The error of a [`TapeDe`]: the tape does not hold what the visitor
/// asked for (a map where the record must be one), or a visitor's own.
#[derive(Debug)]
pub(super) struct TapeError;

impl std::fmt::Display for TapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the tape does not hold the value asked for")
    }
}

impl std::error::Error for TapeError {}

impl de::Error for TapeError {
    fn custom<T: std::fmt::Display>(_: T) -> TapeError {
        TapeError
    }
}

/// A cursor over a tape that a serde visitor reads.
pub(super) struct TapeDe<'t, 'de> {
    nodes: &'t [Node<'de>],
    at: usize,
}

impl<'t, 'de> TapeDe<'t, 'de> {
    /// A cursor at the tape's first node: the line's value.
    pub(super) fn new(nodes: &'t [Node<'de>]) -> TapeDe<'t, 'de> {
        TapeDe { nodes, at: 0 }
    }

    /// The next node, moving past it (and only it).
    fn next(&mut self) -> Result<Node<'de>, TapeError> {
        let node = *self.nodes.get(self.at).ok_or(TapeError)?;
        self.at += 1;
        Ok(node)
    }

    /// Visit the `len` entries of the object or array whose header was
    /// just read, then stand after its last node, however much of it the
    /// visitor read.
    fn nested<T>(
        &mut self,
        len: usize,
        count: usize,
        visit: impl FnOnce(Entries<'_, 't, 'de>) -> Result<T, TapeError>,
    ) -> Result<T, TapeError> {
        let end = self.at + count;
        let value = visit(Entries { de: self, left: len })?;
        self.at = end;
        Ok(value)
    }
}

impl<'de> de::Deserializer<'de> for &mut TapeDe<'_, 'de> {
    type Error = TapeError;

    fn deserialize_any<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, TapeError> {
        match self.next()? {
            Node::String(s) => visitor.visit_borrowed_str(s),
            Node::Static(StaticNode::Null) => visitor.visit_unit(),
            Node::Static(StaticNode::Bool(b)) => visitor.visit_bool(b),
            #[allow(clippy::useless_conversion)]
            Node::Static(StaticNode::F64(n)) => visitor.visit_f64(n.into()),
            Node::Static(StaticNode::I64(n)) => visitor.visit_i64(n),
            Node::Static(StaticNode::U64(n)) => visitor.visit_u64(n),
            Node::Array { len, count } => {
                self.nested(len, count, |e| visitor.visit_seq(e))
            }
            Node::Object { len, count } => {
                self.nested(len, count, |e| visitor.visit_map(e))
            }
        }
    }

    /// A record is an object; anything else is no record.
    fn deserialize_map<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, TapeError> {
        match self.next()? {
            Node::Object { len, count } => {
                self.nested(len, count, |e| visitor.visit_map(e))
            }
            _ => Err(TapeError),
        }
    }

    /// Object keys are strings on the tape.
    fn deserialize_str<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, TapeError> {
        match self.next()? {
            Node::String(s) => visitor.visit_borrowed_str(s),
            _ => Err(TapeError),
        }
    }

    /// The jump: the node and everything under it, unvisited.
    fn deserialize_ignored_any<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, TapeError> {
        match self.next()? {
            Node::Array { count, .. } | Node::Object { count, .. } => {
                self.at += count;
            }
            Node::String(_) | Node::Static(_) => {}
        }
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct struct enum identifier
    }
}

/// The entries of an object or the elements of an array.
struct Entries<'a, 't, 'de> {
    de: &'a mut TapeDe<'t, 'de>,
    left: usize,
}

impl<'de> Entries<'_, '_, 'de> {
    /// The next key (of an object) or element (of an array), if any is
    /// left.
    fn next<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, TapeError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.de).map(Some)
    }
}

impl<'de> MapAccess<'de> for Entries<'_, '_, 'de> {
    type Error = TapeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, TapeError> {
        self.next(seed)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, TapeError> {
        seed.deserialize(&mut *self.de)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

impl<'de> SeqAccess<'de> for Entries<'_, '_, 'de> {
    type Error = TapeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, TapeError> {
        self.next(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use simd_json::Tape;

    use super::TapeDe;
    use crate::read::record::Record;

    /// The record a line gives through [`TapeDe`] and through simd-json's
    /// own deserializer, as `Debug` text (`None`: no record); `None` for
    /// both when the line is no JSON.
    fn both_ways(line: &[u8]) -> Option<(Option<String>, Option<String>)> {
        let mut copy = line.to_vec();
        let tape = simd_json::to_tape(&mut copy).ok()?;
        let ours = Record::deserialize(&mut TapeDe::new(&tape.0))
            .ok()
            .map(|r| format!("{r:?}"));
        let mut de = simd_json::Deserializer::from_tape(Tape(tape.0.clone()));
        let theirs =
            Record::deserialize(&mut de).ok().map(|r| format!("{r:?}"));
        Some((ours, theirs))
    }

    #[test]
    fn agrees_with_simd_json_on_every_real_line() {
        let mut lines = 0;
        for path in crate::read::fixture_and_corpus_files() {
            let bytes = std::fs::read(&path).unwrap();
            for line in bytes.split(|&b| b == b'\n') {
                if let Some((ours, theirs)) = both_ways(line) {
                    assert_eq!(ours, theirs, "{}", path.display());
                    lines += 1;
                }
            }
        }
        assert!(lines > 100, "{lines} lines");
    }

    #[test]
    fn agrees_on_shapes_the_visitors_refuse() {
        for line in [
            &br#"[1,{"type":"user"}]"#[..],
            b"3",
            b"null",
            br#""s""#,
            br#"{"type":["assistant"],"message":{"content":{"a":[1,2]}}}"#,
            br#"{"message":{"content":[{"type":"tool_use","input":[{"command":"x"}],"id":{"a":1}}]},"message":7}"#,
            br#"{"hookInfos":[{"command":["a"]},{"command":"b"},3],"hookErrors":{"a":[]}}"#,
            br#"{"toolUseResult":{"agentId":{"x":[]},"agentId":"a1"},"attachment":[]}"#,
        ] {
            let (ours, theirs) = both_ways(line).unwrap();
            assert_eq!(ours, theirs, "{}", String::from_utf8_lossy(line));
        }
    }

    /// JSON text of values that nest the record's own keys at every depth.
    fn json(depth: u32) -> proptest::strategy::BoxedStrategy<String> {
        use proptest::prelude::*;
        let leaf = proptest::sample::select(vec![
            r#""assistant""#,
            r#""tool_use""#,
            r#""text""#,
            r#""a\"b\u0041""#,
            "1",
            "-2.5e3",
            "18446744073709551616",
            "true",
            "false",
            "null",
            "[]",
            "{}",
        ])
        .prop_map(str::to_string);
        if depth == 0 {
            return leaf.boxed();
        }
        let key = proptest::sample::select(vec![
            "type",
            "message",
            "content",
            "input",
            "command",
            "cmd",
            "id",
            "name",
            "text",
            "hookInfos",
            "hookErrors",
            "toolUseResult",
            "agentId",
            "attachment",
            "blockingError",
            "isSidechain",
            "timestamp",
            "usage",
            "other",
        ]);
        let inner = json(depth - 1);
        prop_oneof![
            leaf,
            proptest::collection::vec((key, inner.clone()), 0..6).prop_map(
                |entries| {
                    let body: Vec<String> = entries
                        .iter()
                        .map(|(k, v)| format!("\"{k}\":{v}"))
                        .collect();
                    format!("{{{}}}", body.join(","))
                }
            ),
            proptest::collection::vec(inner, 0..4)
                .prop_map(|items| format!("[{}]", items.join(","))),
        ]
        .boxed()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        #[test]
        fn agrees_with_simd_json_on_nested_records(line in json(4)) {
            let (ours, theirs) = both_ways(line.as_bytes()).unwrap();
            proptest::prop_assert_eq!(ours, theirs, "{}", line);
        }
    }
}
