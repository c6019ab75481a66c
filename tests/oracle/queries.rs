//! The naive query oracle: serde_json on every line.

use serde_json::Value;

use super::lines::naive_lines;

/// simd-json refuses documents nested deeper than this.
const MAX_DEPTH: usize = 1024;
const ENTRYPOINT_LINES: usize = 15;
const ENTRYPOINT_HEAD_BYTES: usize = 1 << 20;
const ENTRYPOINT_MAX_LINE: usize = 64 << 10;

/// A parsed line: its offset and its object, or `None` when corrupt.
pub struct Parsed {
    pub offset: usize,
    pub terminated: bool,
    pub object: Option<Value>,
}

fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// The deepest nesting of brackets outside strings; a cheap bound checked
/// before serde_json recurses, so a hostile line cannot overflow the stack.
fn raw_depth(bytes: &[u8]) -> usize {
    let (mut depth, mut max, mut in_str, mut esc) =
        (0usize, 0usize, false, false);
    for &b in bytes {
        if in_str {
            match (esc, b) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Parse one line; `None` unless it is a JSON object.
pub fn parse_line(bytes: &[u8]) -> Option<Value> {
    if raw_depth(bytes) > MAX_DEPTH {
        return None;
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let v: Value = serde::Deserialize::deserialize(&mut de).ok()?;
    de.end().ok()?;
    if !v.is_object() || depth(&v) > MAX_DEPTH {
        return None;
    }
    Some(v)
}

/// Whether some object in a line, at any depth, has a key twice. The
/// library's prefilters read the first (the sniffer a record's `type`, the
/// tool-result probe a block's, the Gemini reader a message's `id`) where
/// the parser keeps the last; see `sniff.rs`. No client writes duplicate
/// keys.
pub fn duplicate_key(bytes: &[u8]) -> bool {
    use serde::de::{
        Deserialize, Deserializer, MapAccess, SeqAccess, Visitor,
    };

    struct Dup(bool);
    struct DupVisitor;
    impl<'de> Deserialize<'de> for Dup {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Dup, D::Error> {
            d.deserialize_any(DupVisitor)
        }
    }
    impl<'de> Visitor<'de> for DupVisitor {
        type Value = Dup;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("JSON")
        }
        fn visit_map<A: MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Dup, A::Error> {
            let mut keys = std::collections::HashSet::new();
            let mut dup = false;
            while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                dup |= !keys.insert(k);
                dup |= map.next_value::<Dup>()?.0;
            }
            Ok(Dup(dup))
        }
        fn visit_seq<A: SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Dup, A::Error> {
            let mut dup = false;
            while let Some(v) = seq.next_element::<Dup>()? {
                dup |= v.0;
            }
            Ok(Dup(dup))
        }
        fn visit_bool<E>(self, _: bool) -> Result<Dup, E> {
            Ok(Dup(false))
        }
        fn visit_i64<E>(self, _: i64) -> Result<Dup, E> {
            Ok(Dup(false))
        }
        fn visit_u64<E>(self, _: u64) -> Result<Dup, E> {
            Ok(Dup(false))
        }
        fn visit_f64<E>(self, _: f64) -> Result<Dup, E> {
            Ok(Dup(false))
        }
        fn visit_str<E>(self, _: &str) -> Result<Dup, E> {
            Ok(Dup(false))
        }
        fn visit_unit<E>(self) -> Result<Dup, E> {
            Ok(Dup(false))
        }
    }
    if raw_depth(bytes) > MAX_DEPTH {
        return false;
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    Dup::deserialize(&mut de).is_ok_and(|d| d.0)
}

/// Every non-empty line, parsed.
pub fn parse_all(bytes: &[u8]) -> Vec<Parsed> {
    naive_lines(bytes)
        .into_iter()
        .filter(|l| !l.bytes.is_empty())
        .map(|l| Parsed {
            offset: l.offset,
            terminated: l.terminated,
            object: parse_line(&l.bytes),
        })
        .collect()
}

fn str_field<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

fn flag(v: &Value, k: &str) -> bool {
    v.get(k).and_then(Value::as_bool) == Some(true)
}

fn blank(s: &str) -> bool {
    s.trim().is_empty()
}

fn content(v: &Value) -> Option<&Value> {
    v.get("message").filter(|m| m.is_object()).and_then(|m| m.get("content"))
}

fn blocks(v: &Value) -> Vec<&Value> {
    match content(v) {
        Some(Value::Array(a)) => a.iter().filter(|b| b.is_object()).collect(),
        _ => vec![],
    }
}

fn block_type(b: &Value) -> Option<&str> {
    str_field(b, "type")
}

fn block_text(b: &Value) -> &str {
    str_field(b, "text").unwrap_or("")
}

fn message_id(v: &Value) -> Option<String> {
    v.get("message").and_then(|m| str_field(m, "id")).map(str::to_string)
}

fn is_main_assistant(v: &Value) -> bool {
    str_field(v, "type") == Some("assistant") && !flag(v, "isSidechain")
}

/// The non-blank texts of a main-chain assistant record, in order.
fn texts(v: &Value) -> Vec<String> {
    match content(v) {
        Some(Value::String(s)) if !blank(s) => vec![s.clone()],
        _ => blocks(v)
            .into_iter()
            .filter(|b| block_type(b) == Some("text") && !blank(block_text(b)))
            .map(|b| block_text(b).to_string())
            .collect(),
    }
}

/// The oracle's final text: (text, message id, offset).
pub fn final_text(bytes: &[u8]) -> Option<(String, Option<String>, usize)> {
    if let Some(agent) = super::agents::agent(bytes) {
        return super::agents::final_text(agent, bytes)
            .map(|(t, o)| (t, None, o));
    }
    for p in parse_all(bytes).iter().rev() {
        let Some(v) = &p.object else { continue };
        if !is_main_assistant(v) {
            continue;
        }
        if let Some(t) = texts(v).pop() {
            return Some((t, message_id(v), p.offset));
        }
    }
    None
}

/// The oracle's final message: (blocks, message id).
pub fn final_message(bytes: &[u8]) -> Option<(Vec<String>, Option<String>)> {
    if let Some(agent) = super::agents::agent(bytes) {
        return super::agents::final_text(agent, bytes)
            .map(|(t, _)| (vec![t], None));
    }
    let parsed = parse_all(bytes);
    let objects: Vec<&Value> =
        parsed.iter().filter_map(|p| p.object.as_ref()).collect();
    let last = objects
        .iter()
        .rposition(|v| is_main_assistant(v) && !texts(v).is_empty())?;
    let id = message_id(objects[last]);
    let mut out = texts(objects[last]);
    if id.is_none() {
        return Some((out, id));
    }
    for v in objects[..last].iter().rev() {
        if flag(v, "isSidechain") {
            continue;
        }
        match str_field(v, "type") {
            Some("assistant") if message_id(v) == id => {
                let mut earlier = texts(v);
                earlier.append(&mut out);
                out = earlier;
            }
            Some("assistant") | Some("user") => break,
            _ => {}
        }
    }
    Some((out, id))
}

const BOOKKEEPING_OR_UNKNOWN_EXCEPT: &[&str] =
    &["user", "assistant", "system", "progress", "attachment"];

/// The oracle's entrypoint.
pub fn entrypoint(bytes: &[u8]) -> Option<String> {
    if let Some(agent) = super::agents::agent(bytes) {
        return super::agents::entrypoint(agent, bytes);
    }
    let head = &bytes[..bytes.len().min(ENTRYPOINT_HEAD_BYTES)];
    let cut = head.len() < bytes.len();
    let mut counted = 0;
    for line in naive_lines(head) {
        if counted >= ENTRYPOINT_LINES {
            break;
        }
        if line.bytes.is_empty() {
            continue;
        }
        if (cut && !line.terminated) || line.bytes.len() > ENTRYPOINT_MAX_LINE
        {
            counted += 1;
            let prefix =
                &line.bytes[..line.bytes.len().min(ENTRYPOINT_MAX_LINE)];
            let text = String::from_utf8_lossy(prefix);
            if let Some(i) = text.find("\"entrypoint\":\"") {
                let rest = &text[i + 14..];
                if let Some(end) = rest.find('"') {
                    let v = &rest[..end];
                    let plain = |c: char| {
                        c.is_ascii_alphanumeric() || "-_.".contains(c)
                    };
                    if !v.is_empty() && v.len() <= 64 && v.chars().all(plain) {
                        return Some(v.to_string());
                    }
                }
            }
            continue;
        }
        let Some(v) = parse_line(&line.bytes) else { continue };
        let known = str_field(&v, "type")
            .is_some_and(|t| BOOKKEEPING_OR_UNKNOWN_EXCEPT.contains(&t));
        if !known {
            continue;
        }
        counted += 1;
        if let Some(e) = str_field(&v, "entrypoint") {
            return Some(e.to_string());
        }
    }
    None
}

/// Whether a record is a real user prompt.
pub fn is_real_prompt(v: &Value) -> bool {
    if str_field(v, "type") != Some("user")
        || flag(v, "isSidechain")
        || flag(v, "isMeta")
        || flag(v, "isCompactSummary")
    {
        return false;
    }
    let first = match content(v) {
        Some(Value::String(s)) => s.as_str(),
        Some(Value::Array(_)) => {
            let bs = blocks(v);
            if bs.iter().any(|b| block_type(b) == Some("tool_result")) {
                return false;
            }
            match bs.iter().find(|b| block_type(b) == Some("text")) {
                Some(b) => block_text(b),
                None => return !bs.is_empty(),
            }
        }
        _ => return false,
    };
    let first = first.trim_start();
    !first.starts_with("[Request interrupted by user")
        && ![
            "<local-command-stdout>",
            "<local-command-stderr>",
            "<bash-stdout>",
            "<bash-stderr>",
            "Caveat: ",
        ]
        .iter()
        .any(|w| first.starts_with(w))
}

/// Whether a record starts a turn: a real prompt, or a local command's
/// system record.
pub fn starts_turn(v: &Value) -> bool {
    is_real_prompt(v)
        || (str_field(v, "type") == Some("system")
            && !flag(v, "isSidechain")
            && str_field(v, "subtype") == Some("local_command"))
}

/// The oracle's turn. Tool uses are (name, shell command): what the turn
/// model keeps of them.
#[derive(Debug, PartialEq)]
pub struct NaiveTurn {
    pub prompt: Option<(String, usize)>,
    pub tool_uses: Vec<(String, Option<String>)>,
    pub final_text: Option<String>,
}

/// The oracle's current turn.
pub fn current_turn(bytes: &[u8]) -> NaiveTurn {
    if let Some(agent) = super::agents::agent(bytes) {
        return super::agents::current_turn(agent, bytes);
    }
    let parsed = parse_all(bytes);
    let objects: Vec<(usize, &Value)> = parsed
        .iter()
        .filter_map(|p| p.object.as_ref().map(|o| (p.offset, o)))
        .collect();
    let start = objects.iter().rposition(|(_, v)| starts_turn(v));
    let prompt = start.map(|i| {
        let v = objects[i].1;
        let text = match content(v) {
            _ if !is_real_prompt(v) => String::new(),
            Some(Value::String(s)) => s.clone(),
            _ => blocks(v)
                .into_iter()
                .filter(|b| block_type(b) == Some("text"))
                .map(block_text)
                .collect::<Vec<_>>()
                .join("\n"),
        };
        (text, objects[i].0)
    });
    let rest = &objects[start.map_or(0, |i| i + 1)..];
    let mut tool_uses = vec![];
    let mut final_text = None;
    for (_, v) in rest {
        if !is_main_assistant(v) {
            continue;
        }
        for b in blocks(v) {
            if block_type(b) == Some("tool_use") {
                let name = str_field(b, "name").unwrap_or("").to_string();
                let command = b
                    .get("input")
                    .and_then(|i| i.get("command"))
                    .and_then(Value::as_str)
                    .filter(|_| name == "Bash")
                    .map(str::to_string);
                tool_uses.push((name, command));
            }
        }
        if let Some(t) = texts(v).pop() {
            final_text = Some(t);
        }
    }
    NaiveTurn { prompt, tool_uses, final_text }
}
