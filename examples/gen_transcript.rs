//! Write a realistic synthetic transcript of a given size.
//!
//! ```text
//! cargo run --release --example gen_transcript -- 100M /tmp/t.jsonl
//! cargo run --release --example gen_transcript -- 100M /tmp/r.jsonl codex
//! ```
//!
//! The optional third argument picks the agent whose format to write:
//! claude (the default), codex or gemini.
//!
//! Sizes take a K, M or G suffix (powers of 1024). Used by the whole-process
//! benchmark scripts; the criterion benches use the same generator.

#[path = "../benches/support/gen.rs"]
mod gen;

fn parse_size(s: &str) -> Option<u64> {
    let (num, mul) = match s.as_bytes().last()? {
        b'K' | b'k' => (&s[..s.len() - 1], 1u64 << 10),
        b'M' | b'm' => (&s[..s.len() - 1], 1 << 20),
        b'G' | b'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().ok()?.checked_mul(mul)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(size), Some(out)) =
        (args.get(1).and_then(|s| parse_size(s)), args.get(2))
    else {
        eprintln!("usage: gen_transcript SIZE[K|M|G] OUT.jsonl [claude|codex|gemini]");
        std::process::exit(2);
    };
    let Some(agent) =
        gen::Agent::from_name(args.get(3).map_or("claude", |a| a.as_str()))
    else {
        eprintln!("gen_transcript: the agent is claude, codex or gemini");
        std::process::exit(2);
    };
    if let Err(e) = gen::generate_for(std::path::Path::new(out), size, agent) {
        eprintln!("gen_transcript: {out}: {e}");
        std::process::exit(2);
    }
}
