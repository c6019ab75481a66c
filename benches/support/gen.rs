//! Generates realistic transcripts of a given size, for benchmarks.
//!
//! The record mix follows what real Claude Code v2.1 sessions show: about
//! 70% `progress` lines, assistant responses split one block per line
//! (thinking, text, tool_use sharing `message.id`), tool results from a
//! few hundred bytes to tens of KB, `system` records, and trailing
//! progress/system records after the last assistant line. The content is
//! synthetic; nothing is copied from a real session.
#![allow(dead_code)]

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The final assistant text every generated transcript ends with.
pub const FINAL_TEXT: &str =
    "Done: the cache is now invalidated on write, so readers never see a stale entry.";

/// A tiny deterministic PRNG (xorshift), so files are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const SID: &str = "bbbbbbbb-0000-4000-8000-000000000000";

/// The keys before a record's body. Claude Code writes `type`, `uuid` and
/// `timestamp` before the body, except on assistant lines, where they come
/// after `message` (see [`tail`]).
fn head(out: &mut String, kind: &str, n: u64, sidechain: bool) {
    use std::fmt::Write;
    let _ = write!(
        out,
        r#"{{"parentUuid":"u-{}","isSidechain":{},"userType":"external","entrypoint":"cli","cwd":"/home/dev/proj","sessionId":"{}","version":"2.1.80","gitBranch":"main""#,
        n.saturating_sub(1),
        sidechain,
        SID,
    );
    if kind != "assistant" {
        id_keys(out, kind, n);
    }
}

fn id_keys(out: &mut String, kind: &str, n: u64) {
    use std::fmt::Write;
    let _ = write!(
        out,
        r#","type":"{kind}","uuid":"u-{n}","timestamp":"2026-03-20T10:00:00.000Z""#
    );
}

/// The keys after a record's body, and its end.
fn tail(out: &mut String, kind: &str, n: u64) {
    if kind == "assistant" {
        id_keys(out, kind, n);
    }
    out.push_str("}\n");
}

/// Words, about `base` plus up to `spread` bytes, JSON-escaped.
fn filler(rng: &mut Rng, base: usize, spread: u64) -> String {
    let len = base + if spread == 0 { 0 } else { rng.below(spread) as usize };
    const WORDS: &[&str] = &[
        "the", "cache", "write", "test", "fn", "parse", "error", "lock",
        "file", "return", "match", "config", "value", "thread", "retry",
        "buffer", "index", "path",
    ];
    let mut s = String::with_capacity(len + 16);
    while s.len() < len {
        s.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
        s.push(if rng.below(12) == 0 { '\n' } else { ' ' });
    }
    s.replace('\n', "\\n")
}

/// Append one turn to `out`. `n` numbers the lines.
fn turn(out: &mut String, rng: &mut Rng, n: &mut u64, t: u64) {
    let mut line =
        |out: &mut String, kind: &str, body: &str, sidechain: bool| {
            *n += 1;
            head(out, kind, *n, sidechain);
            out.push_str(body);
            tail(out, kind, *n);
        };
    let prompt = filler(rng, 80, 300);
    line(
        out,
        "user",
        &format!(r#","message":{{"role":"user","content":"{prompt}"}}"#),
        false,
    );
    let tools = 2 + rng.below(6);
    for k in 0..tools {
        let mid = format!("msg_{t}_{k}");
        for _ in 0..3 + rng.below(6) {
            line(
                out,
                "progress",
                r#","data":{"type":"hook_progress","hookEvent":"PreToolUse","hookName":"PreToolUse:Bash"},"toolUseID":"toolu_x","parentToolUseID":"toolu_x""#,
                false,
            );
        }
        if k == 0 {
            let th = filler(rng, 200, 600);
            line(
                out,
                "assistant",
                &format!(
                    r#","requestId":"req_{t}","message":{{"model":"claude-test","id":"{mid}","type":"message","role":"assistant","content":[{{"type":"thinking","thinking":"{th}","signature":"sig"}}],"stop_reason":null,"usage":{{"input_tokens":3,"output_tokens":10}}}}"#
                ),
                false,
            );
        }
        let tx = filler(rng, 60, 400);
        line(
            out,
            "assistant",
            &format!(
                r#","requestId":"req_{t}","message":{{"model":"claude-test","id":"{mid}","type":"message","role":"assistant","content":[{{"type":"text","text":"{tx}"}}],"stop_reason":null,"usage":{{"input_tokens":3,"output_tokens":10}}}}"#
            ),
            false,
        );
        let (name, input) = match rng.below(3) {
            0 => ("Bash", r#"{"command":"cargo test --workspace","description":"Run tests"}"#.to_string()),
            1 => ("Read", r#"{"file_path":"/home/dev/proj/src/lib.rs"}"#.to_string()),
            _ => ("Edit", format!(r#"{{"file_path":"/home/dev/proj/src/cache.rs","old_string":"{}","new_string":"{}"}}"#, filler(rng, 120, 0), filler(rng, 140, 0))),
        };
        line(
            out,
            "assistant",
            &format!(
                r#","requestId":"req_{t}","message":{{"model":"claude-test","id":"{mid}","type":"message","role":"assistant","content":[{{"type":"tool_use","id":"toolu_{t}_{k}","name":"{name}","input":{input}}}],"stop_reason":null,"usage":{{"input_tokens":3,"output_tokens":10}}}}"#
            ),
            false,
        );
        // Tool results: mostly small, sometimes big.
        let size = if rng.below(10) == 0 {
            8_000 + rng.below(40_000)
        } else {
            200 + rng.below(2_000)
        };
        let res = filler(rng, size as usize, 0);
        line(
            out,
            "user",
            &format!(
                r#","message":{{"role":"user","content":[{{"tool_use_id":"toolu_{t}_{k}","type":"tool_result","content":"{res}","is_error":false}}]}},"toolUseResult":{{"stdout":"{}","stderr":"","interrupted":false}}"#,
                &res[..res.len().min(300)].trim_end_matches('\\')
            ),
            false,
        );
    }
    let fin = filler(rng, 100, 500);
    line(
        out,
        "assistant",
        &format!(
            r#","requestId":"req_{t}","message":{{"model":"claude-test","id":"msg_{t}_end","type":"message","role":"assistant","content":[{{"type":"text","text":"{fin}"}}],"stop_reason":"end_turn","usage":{{"input_tokens":3,"output_tokens":10}}}}"#
        ),
        false,
    );
    line(
        out,
        "system",
        r#","subtype":"stop_hook_summary","hookCount":1,"hookInfos":[{"command":"stopgate hook"}],"hookErrors":[],"preventedContinuation":false,"stopReason":"","hasOutput":false,"level":"suggestion""#,
        false,
    );
    line(
        out,
        "system",
        r#","subtype":"turn_duration","durationMs":4242,"isMeta":false"#,
        false,
    );
}

/// The final turn and the trailing records: identical in every file of
/// 64 KB or more, so every size answers the same final text. Smaller files
/// get a compact ending (prompt, answer, one progress line) so that a
/// "1 KB" transcript really is about 1 KB.
fn ending(out: &mut String, n: &mut u64, compact: bool) {
    if compact {
        out.push_str(r#"{"type":"user","entrypoint":"cli","sessionId":"s","message":{"role":"user","content":"Fix the cache race."}}"#);
        out.push('\n');
        out.push_str(&format!(r#"{{"entrypoint":"cli","sessionId":"s","message":{{"id":"msg_final2","role":"assistant","content":[{{"type":"text","text":"{FINAL_TEXT}"}}]}},"type":"assistant"}}"#));
        out.push('\n');
        out.push_str(r#"{"type":"progress","data":{"type":"hook_progress","hookEvent":"Stop"},"toolUseID":"t"}"#);
        out.push('\n');
        return;
    }
    let mut line = |out: &mut String, kind: &str, body: &str| {
        *n += 1;
        head(out, kind, *n, false);
        out.push_str(body);
        tail(out, kind, *n);
    };
    line(
        out,
        "user",
        r#","message":{"role":"user","content":"Fix the cache race."}"#,
    );
    line(
        out,
        "assistant",
        r#","message":{"id":"msg_final","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_f","name":"Edit","input":{"file_path":"src/cache.rs","old_string":"a","new_string":"b"}}]}"#,
    );
    line(
        out,
        "user",
        r#","message":{"role":"user","content":[{"tool_use_id":"toolu_f","type":"tool_result","content":"ok"}]}"#,
    );
    line(
        out,
        "assistant",
        &format!(
            r#","message":{{"id":"msg_final2","type":"message","role":"assistant","content":[{{"type":"text","text":"{FINAL_TEXT}"}}]}}"#
        ),
    );
    line(
        out,
        "system",
        r#","subtype":"stop_hook_summary","hookCount":1,"hookInfos":[],"preventedContinuation":false"#,
    );
    line(out, "system", r#","subtype":"turn_duration","durationMs":1000"#);
    for _ in 0..4 {
        line(
            out,
            "progress",
            r#","data":{"type":"hook_progress","hookEvent":"Stop"},"toolUseID":"t","parentToolUseID":"t""#,
        );
    }
}

/// Write a transcript of about `size` bytes (never less than one ending).
pub fn generate(path: &Path, size: u64) -> std::io::Result<()> {
    let mut w = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut n = 0;
    let compact = size < 64 << 10;
    let mut end = String::new();
    ending(&mut end, &mut 1_000_000_000, compact);
    let budget = size.saturating_sub(end.len() as u64);
    let mut written = 0u64;
    let mut buf = String::new();
    let mut t = 0;
    loop {
        buf.clear();
        turn(&mut buf, &mut rng, &mut n, t);
        t += 1;
        if written + buf.len() as u64 > budget {
            break;
        }
        w.write_all(buf.as_bytes())?;
        written += buf.len() as u64;
    }
    // Pad the rest with progress lines, so sizes come out close.
    let pad = r#"{"type":"progress","data":{"type":"bash_progress"},"toolUseID":"t"}"#;
    while written + (pad.len() as u64) < budget {
        w.write_all(pad.as_bytes())?;
        w.write_all(b"\n")?;
        written += pad.len() as u64 + 1;
    }
    buf.clear();
    ending(&mut buf, &mut n, compact);
    w.write_all(buf.as_bytes())?;
    w.flush()
}

/// The path of a cached generated transcript of `size` bytes under
/// `target/stopgate-bench/`, generating it if missing.
pub fn cached(size: u64) -> PathBuf {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("target/stopgate-bench");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("transcript-{size}.jsonl"));
    let done = dir.join(format!("transcript-{size}.ok"));
    if !done.exists() || !path.exists() {
        eprintln!("generating {} ({} bytes)...", path.display(), size);
        generate(&path, size).unwrap();
        std::fs::write(&done, b"").unwrap();
    }
    path
}

/// The agents whose transcripts [`generate_for`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agent {
    /// Claude Code: [`generate`].
    Claude,
    /// A Codex CLI rollout.
    Codex,
    /// A Gemini CLI chat log.
    Gemini,
}

impl Agent {
    /// The agent named `claude`, `codex` or `gemini`.
    pub fn from_name(name: &str) -> Option<Agent> {
        match name {
            "claude" => Some(Agent::Claude),
            "codex" => Some(Agent::Codex),
            "gemini" => Some(Agent::Gemini),
            _ => None,
        }
    }
}

/// One turn of another agent's transcript: a prompt, tool calls with
/// results (mostly small, sometimes big), and a final text; the shapes
/// Codex CLI 0.171 and Gemini CLI 0.61 write, with synthetic content.
fn agent_turn(
    out: &mut String,
    rng: &mut Rng,
    agent: Agent,
    t: u64,
    last: bool,
) {
    use std::fmt::Write;
    let ts = "2026-11-30T08:16:36.080Z";
    let prompt = if last {
        "Fix the cache race.".to_string()
    } else {
        filler(rng, 80, 300)
    };
    let fin =
        if last { FINAL_TEXT.to_string() } else { filler(rng, 100, 500) };
    let tools = if last { 1 } else { 2 + rng.below(6) };
    match agent {
        Agent::Codex => {
            let _ = writeln!(
                out,
                r#"{{"timestamp":"{ts}","type":"event_msg","payload":{{"type":"task_started","turn_id":"t{t}"}}}}"#
            );
            let _ = writeln!(
                out,
                r#"{{"timestamp":"{ts}","type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{prompt}"}}],"internal_chat_message_metadata_passthrough":{{"turn_id":"t{t}","content_item_metadata":[{{"provenance":{{"type":"user"}}}}]}}}}}}"#
            );
            for k in 0..tools {
                if last || rng.below(3) == 0 {
                    let _ = writeln!(
                        out,
                        r#"{{"timestamp":"{ts}","type":"response_item","payload":{{"type":"custom_tool_call","status":"completed","call_id":"call_{t}_{k}","name":"apply_patch","input":"*** Begin Patch\n*** Update File: src/cache.rs\n-a\n+b\n*** End Patch\n"}}}}"#
                    );
                } else {
                    let _ = writeln!(
                        out,
                        r#"{{"timestamp":"{ts}","type":"response_item","payload":{{"type":"function_call","name":"exec_command","arguments":"{{\"cmd\": \"cargo test --workspace\"}}","call_id":"call_{t}_{k}"}}}}"#
                    );
                }
                let size = if rng.below(10) == 0 {
                    8_000 + rng.below(40_000)
                } else {
                    200 + rng.below(2_000)
                };
                let res = filler(rng, size as usize, 0);
                let _ = writeln!(
                    out,
                    r#"{{"timestamp":"{ts}","type":"response_item","payload":{{"type":"function_call_output","call_id":"call_{t}_{k}","output":"{res}"}}}}"#
                );
                let _ = writeln!(
                    out,
                    r#"{{"timestamp":"{ts}","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":100,"output_tokens":10}}}}}}}}"#
                );
            }
            let _ = writeln!(
                out,
                r#"{{"timestamp":"{ts}","type":"response_item","payload":{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"{fin}"}}]}}}}"#
            );
            let _ = writeln!(
                out,
                r#"{{"timestamp":"{ts}","type":"event_msg","payload":{{"type":"task_complete","turn_id":"t{t}","last_agent_message":"{fin}"}}}}"#
            );
        }
        Agent::Gemini => {
            let _ = writeln!(
                out,
                r#"{{"id":"p{t}","timestamp":"{ts}","type":"user","content":[{{"text":"{prompt}"}}]}}"#
            );
            let _ = writeln!(out, r#"{{"$set":{{"lastUpdated":"{ts}"}}}}"#);
            for k in 0..tools {
                let (name, args) = if last || rng.below(3) == 0 {
                    (
                        "replace",
                        r#"{"file_path":"src/cache.rs","old_string":"a","new_string":"b"}"#,
                    )
                } else {
                    (
                        "run_shell_command",
                        r#"{"command":"cargo test --workspace","description":"tests"}"#,
                    )
                };
                let size = if rng.below(10) == 0 {
                    8_000 + rng.below(40_000)
                } else {
                    200 + rng.below(2_000)
                };
                let res = filler(rng, size as usize, 0);
                let _ = writeln!(
                    out,
                    r#"{{"id":"m{t}_{k}","timestamp":"{ts}","type":"gemini","content":"","model":"gemini-2.5-flash"}}"#
                );
                let _ = writeln!(
                    out,
                    r#"{{"id":"m{t}_{k}","timestamp":"{ts}","type":"gemini","content":"","model":"gemini-2.5-flash","toolCalls":[{{"id":"{name}_{t}_{k}","name":"{name}","args":{args},"status":"success"}}]}}"#
                );
                let _ = writeln!(
                    out,
                    r#"{{"id":"r{t}_{k}","timestamp":"{ts}","type":"user","content":[{{"functionResponse":{{"id":"{name}_{t}_{k}","name":"{name}","response":{{"output":"{res}"}}}}}}]}}"#
                );
                let _ =
                    writeln!(out, r#"{{"$set":{{"lastUpdated":"{ts}"}}}}"#);
            }
            let _ = writeln!(
                out,
                r#"{{"id":"f{t}","timestamp":"{ts}","type":"gemini","content":"{fin}","model":"gemini-2.5-flash"}}"#
            );
            let _ = writeln!(out, r#"{{"$set":{{"lastUpdated":"{ts}"}}}}"#);
        }
        Agent::Claude => unreachable!("Claude transcripts come from generate"),
    }
}

/// Write a transcript of about `size` bytes in `agent`'s format; every
/// size ends with the same last turn (an edit, then [`FINAL_TEXT`]).
pub fn generate_for(
    path: &Path,
    size: u64,
    agent: Agent,
) -> std::io::Result<()> {
    if agent == Agent::Claude {
        return generate(path, size);
    }
    let mut w = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let head = match agent {
        Agent::Codex => format!(
            r#"{{"timestamp":"2026-11-30T08:16:36.080Z","type":"session_meta","payload":{{"id":"bench","cwd":"/home/dev/proj","originator":"codex-tui","source":"cli","base_instructions":{{"text":"{}"}}}}}}"#,
            "x".repeat(200)
        ) + "\n",
        _ => r#"{"sessionId":"bench","projectHash":"0e30","startTime":"2026-11-30T08:18:31.447Z","kind":"main"}"#.to_string() + "\n",
    };
    let mut end = String::new();
    agent_turn(&mut end, &mut Rng(1), agent, u64::MAX, true);
    w.write_all(head.as_bytes())?;
    let budget = size.saturating_sub((head.len() + end.len()) as u64);
    let mut written = 0u64;
    let mut buf = String::new();
    for t in 0.. {
        buf.clear();
        agent_turn(&mut buf, &mut rng, agent, t, false);
        if written + buf.len() as u64 > budget {
            break;
        }
        w.write_all(buf.as_bytes())?;
        written += buf.len() as u64;
    }
    w.write_all(end.as_bytes())?;
    w.flush()
}
