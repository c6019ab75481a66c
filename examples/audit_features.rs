//! Print the buckets the learned audit judge's features touch, one text a
//! line: what `tools/train-audit-model` trains on.
//!
//! Each line of stdin is one text, with `\n` standing for a line break as
//! in the labelled parts; each line of stdout is that text's buckets,
//! sorted, separated by spaces.
//!
//! ```text
//! cargo run --release --features internals --example audit_features < texts
//! ```

use std::io::{BufRead, BufWriter, Write};

fn main() -> std::io::Result<()> {
    let stdin = std::io::stdin().lock();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in stdin.lines() {
        let text = line?.replace("\\n", "\n");
        let buckets = stopgate::internals::audit_feature_buckets(&text);
        let words: Vec<String> = buckets.iter().map(u32::to_string).collect();
        writeln!(out, "{}", words.join(" "))?;
    }
    out.flush()
}
