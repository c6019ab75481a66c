//! Reading a line's top-level `type` without parsing the line.
//!
//! A bulk scan meets millions of lines it does not need: `progress`
//! records are about 70% of a real transcript, and tool results carry most
//! of its bytes. Parsing each of them with simd-json to learn that would
//! cap the scan far below memory bandwidth. [`top_level_type`] walks the
//! object's top level only, skipping nested values bracket by bracket, and
//! stops at the `type` key, which Claude Code writes before `message` and
//! `data`. In practice it reads the first few hundred bytes of a line.
//!
//! It is exact for well-formed JSON: a `"type"` inside a nested object or a
//! string is never mistaken for the top-level one. When the line is not
//! plain enough to be sure (an escape inside the type's value, a line that
//! does not end in `}`), it answers [`Sniff::Unsure`] and the caller parses
//! the line. It does not validate what it skips, so a line that is well
//! framed but corrupt past its `type` is reported by its type, and of two
//! top-level `type` keys (which Claude Code never writes) it reads the
//! first where the parser keeps the last.

use std::sync::LazyLock;

use memchr::{memchr2, memchr3, memmem, memrchr};

/// What [`top_level_type`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sniff<'a> {
    /// The top-level `type` is this string (raw, without escapes).
    Type(&'a [u8]),
    /// The object has no top-level `type` string.
    NoType,
    /// The line must be parsed to know.
    Unsure,
}

/// The index of the first byte at or after `i` that is not JSON
/// whitespace (or `b.len()`).
pub(super) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\r' | b'\n') {
        i += 1;
    }
    i
}

/// Skip a string starting at the `"` at `i`; returns the index after its
/// closing quote.
fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        let k = j + memchr2(b'"', b'\\', &b[j..])?;
        if b[k] == b'\\' {
            j = k + 2;
            if j > b.len() {
                return None;
            }
        } else {
            return Some(k + 1);
        }
    }
}

/// Skip one value starting at `i`; returns the index after it.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while j < b.len()
                && !matches!(
                    b[j],
                    b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n'
                )
            {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

/// The top-level `type` of a JSON object line, found without parsing it.
///
/// # Example
///
/// ```
/// use stopgate::internals::{top_level_type, Sniff};
///
/// let line = br#"{"data":{"type":"nested"},"type":"progress"}"#;
/// assert_eq!(top_level_type(line), Sniff::Type(b"progress"));
/// assert_eq!(top_level_type(br#"{"a":1}"#), Sniff::NoType);
/// assert_eq!(top_level_type(b"not json"), Sniff::Unsure);
/// ```
pub fn top_level_type(line: &[u8]) -> Sniff<'_> {
    sniff(line).unwrap_or(Sniff::Unsure)
}

/// Where a line framed as a JSON object opens and closes: the indices of
/// its first and last bytes that are not whitespace, when they are `{`
/// and `}`.
fn object_frame(line: &[u8]) -> Option<(usize, usize)> {
    let ws = |c: &u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let first = line.iter().position(|c| !ws(c))?;
    let last = line.iter().rposition(|c| !ws(c))?;
    (line[first] == b'{' && line[last] == b'}').then_some((first, last))
}

/// Whether the byte at `at` (a quote) is escaped: preceded by an odd run
/// of backslashes, so that it lies inside a string. The bytes of a quoted
/// key such as `"type":"` can occur inside a string only so: in a key
/// that ends `\"type`, whose last quote closes it (`{"x\"type":"user"}`
/// has no `type` key). Every probe that answers, or skips a line, from
/// such bytes asks this of the match's first quote.
#[inline]
pub(crate) fn escaped(b: &[u8], at: usize) -> bool {
    // Nearly always the byte before is no backslash: one comparison.
    at > 0
        && b[at - 1] == b'\\'
        && b[..at].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1
}

/// Where the first match of `key`, a quoted key, lies in `haystack` with
/// its first quote not [`escaped`]. Matches may overlap (`"type":"type":"`),
/// so after an escaped one the search goes on one byte later.
pub(crate) fn find_key(
    haystack: &[u8],
    key: &memmem::Finder<'_>,
) -> Option<usize> {
    let mut from = 0;
    loop {
        let at = from + key.find(&haystack[from..])?;
        if !escaped(haystack, at) {
            return Some(at);
        }
        from = at + 1;
    }
}

/// The top-level `type` when two SIMD searches alone can tell, without the
/// exact walk: for a bulk scan that parses the line anyway when this says
/// `None`. Claude Code writes `type` before `message` on every record but
/// assistant lines, where it comes after it; walking a whole message to
/// find that out would cost more than it saves.
pub fn quick_type(line: &[u8]) -> Option<&[u8]> {
    let (first, _) = object_frame(line)?;
    match fast_path(line, first + 1)? {
        Sniff::Type(t) => Some(t),
        _ => None,
    }
}

/// The top-level `type` of a line whose `type` key comes last, as on Claude
/// Code's assistant lines, where [`quick_type`] cannot tell it cheaply: found
/// from the line's end. The last `"type":"` of the line whose first quote is
/// not escaped (after an odd run of backslashes, it would lie inside a string)
/// is a key, and it is the top-level one when no `}` or `]` byte at all
/// follows its value before the line's closing brace: a key at any deeper
/// level would have its object closed there. `None` when that does not hold,
/// the value has an escape, a `"type"` follows (another key, spaced or not a
/// string, which the parser would keep instead), or the line is not framed as
/// an object. Like [`quick_type`], it validates nothing.
pub fn tail_type(line: &[u8]) -> Option<&[u8]> {
    const KEY: &[u8] = b"\"type\":\"";
    let (first, last) = object_frame(line)?;
    static TYPE: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(b"\"type\""));
    // Back from the end, one SIMD search per `y` (the key's third byte),
    // as `fast_path` goes forward: the key is a few dozen bytes from the
    // end of the line.
    let from = first.max(last.saturating_sub(4096));
    let mut upto = last;
    let at = loop {
        let y = from + memrchr(b'y', &line[from..upto])?;
        if y >= from + 2
            && line[y - 2..].starts_with(KEY)
            && !escaped(line, y - 2)
        {
            break y - 2;
        }
        upto = y;
    };
    let start = at + KEY.len();
    let end = start + memchr2(b'"', b'\\', &line[start..last])?;
    let rest = &line[end + 1..last];
    let plain = line[end] == b'"'
        && memchr2(b'}', b']', rest).is_none()
        && TYPE.find(rest).is_none();
    plain.then_some(&line[start..end])
}

/// The common case, in one SIMD search: the first `"type":"` of the line whose
/// first quote is not [`escaped`] is the top-level key when nothing before it
/// opens a nested value. (Those bytes cannot occur inside a JSON string
/// otherwise, so the first such occurrence is a key at some depth; with no `{`
/// or `[` before it, that depth is 1.) One pass finds the first `{`, `[` or
/// `y`; a `y` is the key's third byte, or the pass goes on after it.
fn fast_path(b: &[u8], body: usize) -> Option<Sniff<'_>> {
    const KEY: &[u8] = b"\"type\":\"";
    let window = &b[..b.len().min(4096)];
    // A line whose body starts past the window (leading whitespace) is
    // left to the exact walk.
    let mut from = body;
    loop {
        let at = from + memchr3(b'{', b'[', b'y', window.get(from..)?)?;
        if window[at] != b'y' {
            return None;
        }
        if at >= body + 2
            && window[at - 2..].starts_with(KEY)
            && !escaped(window, at - 2)
        {
            let start = at - 2 + KEY.len();
            let end = start + memchr2(b'"', b'\\', &b[start..])?;
            return (b[end] == b'"').then_some(Sniff::Type(&b[start..end]));
        }
        from = at + 1;
    }
}

fn sniff(b: &[u8]) -> Option<Sniff<'_>> {
    // Framing: a line cut short (the common corruption) is left to the
    // parser, which counts it.
    let last =
        b.iter().rposition(|c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'))?;
    if b[last] != b'}' {
        return None;
    }
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    if let Some(found) = fast_path(b, i + 1) {
        return Some(found);
    }
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return Some(Sniff::NoType);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = skip_string(b, i)?;
        let key = &b[i + 1..key_end - 1];
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(b, i + 1);
        if key == b"type" {
            if b.get(i) != Some(&b'"') {
                // A non-string type: let the parser decide what it is.
                return None;
            }
            let end = skip_string(b, i)?;
            let value = &b[i + 1..end - 1];
            // Escapes need the parser.
            if value.contains(&b'\\') {
                return None;
            }
            return Some(Sniff::Type(value));
        }
        i = skip_ws(b, skip_value(b, i)?);
        match b.get(i)? {
            b',' => i = skip_ws(b, i + 1),
            b'}' => return Some(Sniff::NoType),
            _ => return None,
        }
    }
}

/// A substring to look for in lines, whose searcher is built once, on
/// first use: `memmem::find` builds one at every call, which costs more
/// than searching a line's first few hundred bytes.
pub(crate) struct Needle {
    pub(crate) needle: &'static [u8],
    finder: std::sync::OnceLock<memmem::Finder<'static>>,
}

impl Needle {
    pub(crate) const fn new(needle: &'static [u8]) -> Needle {
        Needle { needle, finder: std::sync::OnceLock::new() }
    }

    pub(crate) fn finder(&self) -> &memmem::Finder<'static> {
        self.finder.get_or_init(|| memmem::Finder::new(self.needle))
    }

    pub(crate) fn find(&self, haystack: &[u8]) -> bool {
        self.finder().find(haystack).is_some()
    }

    /// Whether the needle, a quoted key, is in `haystack` as a key: with
    /// its first quote not escaped, inside a string (see [`find_key`]).
    pub(crate) fn find_key(&self, haystack: &[u8]) -> bool {
        find_key(haystack, self.finder()).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path as it was, in two searches: the oracle of the one
    /// that makes one pass.
    fn two_searches(b: &[u8], body: usize) -> Option<Sniff<'_>> {
        let key: &[u8] = b"\"type\":\"";
        let window = &b[..b.len().min(4096)];
        // The first match whose quote is not escaped; matches may overlap
        // (`"type":"type":"`), so each search starts one byte on.
        let mut from = body;
        let at = loop {
            let at = from + memchr::memmem::find(window.get(from..)?, key)?;
            if !escaped(window, at) {
                break at;
            }
            from = at + 1;
        };
        if memchr2(b'{', b'[', &b[body..at]).is_some() {
            return None;
        }
        let start = at + key.len();
        let end = start + memchr2(b'"', b'\\', &b[start..])?;
        (b[end] == b'"').then_some(Sniff::Type(&b[start..end]))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(8192))]
        #[test]
        fn one_pass_finds_what_two_searches_find(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "\"type\":\"", "\"type\":", "type", "y", "ty", "\"", "{", "[",
                "}", "]", ":", ",", "a", "\\", "\"user\"", " ",
            ]), 0..24),
            pad in 0usize..5000,
            body in 0usize..4,
        ) {
            let mut line: Vec<u8> = parts.concat().into_bytes();
            if pad > 4000 {
                // Reach past the 4 KiB window.
                line.splice(0..0, std::iter::repeat_n(b'x', pad));
            }
            proptest::prop_assert_eq!(
                fast_path(&line, body),
                two_searches(&line, body)
            );
        }
    }

    /// The bytes of `"type":"` inside a key that ends `\"type` (found by
    /// the `sniff` fuzz target), beside backslashes that do not escape
    /// the quote after them.
    #[test]
    fn a_quote_escaped_inside_a_key_is_no_type_key() {
        let key = br#"{"\\\t\"type":"uCerpe"}"#;
        assert_eq!(top_level_type(key), Sniff::NoType);
        assert_eq!(quick_type(key), None);
        let tail = br#"{"a":1,"x\"type":"assistant"}"#;
        assert_eq!(tail_type(tail), None);
        assert_eq!(top_level_type(tail), Sniff::NoType);
        let even = br#"{"a":"b\\","type":"user"}"#;
        assert_eq!(quick_type(even), Some(&b"user"[..]));
        let even_tail = br#"{"a":"b\\","type":"assistant"}"#;
        assert_eq!(tail_type(even_tail), Some(&b"assistant"[..]));
        assert!(escaped(br#"a\""#, 2));
        assert!(!escaped(br#"a\\""#, 3));
        assert!(!escaped(b"\"", 0));
    }

    #[test]
    fn agrees_with_the_parser() {
        let lines: &[&[u8]] = &[
            br#"{"type":"progress","data":{"type":"hook_progress"}}"#,
            br#"{"parentUuid":null,"isSidechain":false,"cwd":"/x","type":"user","message":{}}"#,
            br#"{"a":{"type":"x","b":[1,{"type":"y"}]},"s":"\"type\":\"z\"","type":"assistant"}"#,
            br#"{"a":"type","type":"summary"}"#,
            br#"{"type":"us\u0065r"}"#,
            br#"{"type":5}"#,
            br#"{"x":1}"#,
            br#"{}"#,
            br#"  { "type" : "system" , "subtype":"turn_duration" }"#,
            br#"{"type":"progress""#,
            br#"[1]"#,
        ];
        let parser = crate::read::record::RecordParser::new();
        for line in lines {
            let parsed = parser
                .parse(line)
                .ok()
                .map(|r| r.type_name().map(|t| t.as_bytes().to_vec()));
            match top_level_type(line) {
                Sniff::Type(t) => {
                    assert_eq!(parsed, Some(Some(t.to_vec())), "{:?}", line)
                }
                Sniff::NoType => assert_eq!(parsed, Some(None), "{:?}", line),
                Sniff::Unsure => {}
            }
        }
        assert_eq!(top_level_type(lines[0]), Sniff::Type(b"progress"));
        assert_eq!(top_level_type(lines[2]), Sniff::Type(b"assistant"));
        assert_eq!(top_level_type(lines[4]), Sniff::Unsure);
        assert_eq!(top_level_type(lines[10]), Sniff::Unsure);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(8192))]
        /// The tail sniff answers only what the parser reads, on objects
        /// built of keys and values that hide `type` keys, brackets and
        /// quotes at every depth.
        #[test]
        fn the_tail_agrees_with_the_parser(
            fields in proptest::collection::vec((
                proptest::sample::select(vec!["type", "a", "message"]),
                proptest::sample::select(vec![
                    r#""assistant""#, r#""user""#, r#""x}]""#, r#""a\"b""#,
                    r#"{"type":"inner"}"#, r#"[{"type":"t"},"]"]"#, "1",
                    r#"{"m":{"type":"deep","c":[]}}"#, r#""\"type\":\"s\"""#,
                ]),
            ), 0..6),
        ) {
            let body: Vec<String> =
                fields.iter().map(|(k, v)| format!(r#""{k}":{v}"#)).collect();
            let line = format!("{{{}}}", body.join(",")).into_bytes();
            let parser = crate::read::record::RecordParser::new();
            let parsed = parser.parse(&line).expect("a valid object");
            if let Some(t) = tail_type(&line) {
                proptest::prop_assert_eq!(
                    parsed.type_name().map(str::as_bytes),
                    Some(t)
                );
            }
            // The common shape is told.
            if fields.last().is_some_and(|(k, v)| *k == "type" && v.starts_with('"') && !v.contains('\\') && !v.contains('}')) {
                proptest::prop_assert!(tail_type(&line).is_some());
            }
        }
    }

    #[test]
    fn the_tail_tells_an_assistant_line() {
        let line = br#"{"parentUuid":"p","message":{"content":[{"type":"text","text":"a } b"}]},"type":"assistant","uuid":"u","timestamp":"t"}"#;
        assert_eq!(quick_type(line), None);
        assert_eq!(tail_type(line), Some(&b"assistant"[..]));
        let nested =
            br#"{"message":{"type":"assistant"},"data":{"type":"x"}}"#;
        assert_eq!(tail_type(nested), None);
        let brace_in_string = br#"{"message":{},"type":"assistant","s":"}"}"#;
        assert_eq!(tail_type(brace_in_string), None);
        assert_eq!(tail_type(br#"{"type":"a\"b"}"#), None);
        assert_eq!(tail_type(br#"{"type":"cut"#), None);
    }

    /// A valid line behind 5,000 spaces once made the fast path slice past
    /// its 4 KiB window and panic, which killed a whole archive scan.
    #[test]
    fn leading_whitespace_past_the_window() {
        let mut line = vec![b' '; 5000];
        line.extend_from_slice(br#"{"type":"user","message":{}}"#);
        assert_eq!(top_level_type(&line), Sniff::Type(b"user"));
        assert_eq!(quick_type(&line), None);
    }
}
