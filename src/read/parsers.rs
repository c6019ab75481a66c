//! Parsers' space, lent from one read to the next.
//!
//! A parser grows its arena, tape and buffers to the longest line it
//! meets. A one-shot reader (the hook, `check`) makes its few parsers and
//! drops them. A reader of many files (a thread of the archive scan) keeps
//! one [`Parsers`] and lends its parsers in turn to each file's turn
//! reader, head probe and subagent reads: growing each one's space anew
//! was, on an archive of small files, most of the scan's calls to the
//! allocator, which two threads then waited on (`benches/RESULTS.md`).
//!
//! The space is owned by whoever reads, as grep-searcher's `Searcher`
//! owns its buffers, not kept in thread-locals: the caller says how long
//! it lives and where it is used, and a thread that reads one file pays
//! nothing for it.

use super::format::ValueParser;
use super::record::RecordParser;

/// The longest line a parser may have parsed and still be kept: its
/// space grows with the longest line, and a parser that met a longer one
/// gives its memory back.
const KEEP_MAX_LINE: usize = 64 << 10;

/// How many parsers of each kind are kept: a scan's file has its turn
/// reader, its head's probe and a subagent's reader alive at once.
const KEEP: usize = 4;

/// Parsers kept for the next reader, each with the space it grew.
#[derive(Debug, Default)]
pub(crate) struct Parsers {
    records: Vec<RecordParser>,
    values: Vec<ValueParser>,
}

impl Parsers {
    /// A record parser: a kept one, or a new one.
    pub(crate) fn record_parser(&mut self) -> RecordParser {
        self.records.pop().unwrap_or_default()
    }

    /// A value parser: a kept one, or a new one.
    pub(crate) fn value_parser(&mut self) -> ValueParser {
        self.values.pop().unwrap_or_default()
    }

    /// Keep `parser` for the next reader, its records freed, unless a long
    /// line grew it.
    pub(crate) fn keep_record_parser(&mut self, mut parser: RecordParser) {
        if parser.longest() <= KEEP_MAX_LINE && self.records.len() < KEEP {
            parser.reset();
            self.records.push(parser);
        }
    }

    /// Keep `parser` for the next reader, unless a long line grew it.
    pub(crate) fn keep_value_parser(&mut self, parser: ValueParser) {
        if parser.capacity() <= KEEP_MAX_LINE && self.values.len() < KEEP {
            self.values.push(parser);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_parsers_keep_their_space_unless_a_long_line_grew_it() {
        let line = br#"{"type":"user","message":{"content":"hi"}}"#;
        let long = format!(r#"{{"a":"{}"}}"#, "x".repeat(100 << 10));
        let mut parsers = Parsers::default();

        let mut values = parsers.value_parser();
        assert_eq!(values.capacity(), 0, "a new parser starts empty");
        assert!(values.is_object(line));
        parsers.keep_value_parser(values);
        assert!(parsers.value_parser().capacity() >= line.len(), "kept");

        let mut values = parsers.value_parser();
        assert!(values.is_object(long.as_bytes()));
        parsers.keep_value_parser(values);
        assert_eq!(parsers.value_parser().capacity(), 0, "a long line's");

        let records = parsers.record_parser();
        assert!(records.parse(line).is_ok());
        parsers.keep_record_parser(records);
        assert_eq!(parsers.record_parser().longest(), line.len(), "kept");
        let records = parsers.record_parser();
        assert!(records.parse(long.as_bytes()).is_ok());
        parsers.keep_record_parser(records);
        assert_eq!(parsers.record_parser().longest(), 0, "a long line's");

        for _ in 0..2 * KEEP {
            parsers.keep_value_parser(ValueParser::default());
        }
        assert_eq!(parsers.values.len(), KEEP, "at most KEEP are kept");
    }
}
