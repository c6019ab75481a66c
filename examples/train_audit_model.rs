//! Train the audit gate's model (`src/gates/model.rs`) on the labelled
//! parts whose misses have been read.
//!
//! ```text
//! cargo run --release --example train_audit_model          # write the model
//! cargo run --release --example train_audit_model -- --lopo > probs.tsv
//! cargo run --release --example train_audit_model -- --read < texts.txt
//! ```
//!
//! The parts are those listed in `tests/labelled/audit-seen.txt`; the
//! held-out parts are never read here. Logistic regression by stochastic
//! gradient descent, in a fixed order, so the same parts give the same
//! weights, which are written to `src/gates/audit_model.bin`.
//!
//! `--lopo` writes nothing: for each part, it trains on all the others and
//! prints, for each case of the left-out part, the part, the line, the label
//! and the probability that the case is a check, as tab-separated values.
//! That is how the threshold (`PASS_AT`) was chosen without a held-out part.
//! `--read` prints the built-in model's probability for each line of stdin
//! (a text per line, `\n` for a newline in it) and the text's length.

use std::path::Path;

use stopgate::internals::{AuditModel, Features};

/// One labelled case.
struct Case {
    part: String,
    line: usize,
    /// The case is a check: the gate should let it pass.
    check: bool,
    features: Features,
}

fn main() {
    if std::env::args().any(|a| a == "--read") {
        // One text per line of stdin, `\n` for a newline inside it.
        for line in std::io::stdin().lines() {
            let text = line.expect("stdin").replace("\\n", "\n");
            let p = AuditModel::builtin().probability(&Features::of(&text));
            println!("{p:.3}\t{}", text.chars().count());
        }
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let labelled = root.join("tests/labelled");
    let list = std::fs::read_to_string(labelled.join("audit-seen.txt"))
        .expect("tests/labelled/audit-seen.txt");
    let mut cases = vec![];
    for part in list.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let text = std::fs::read_to_string(labelled.join(part))
            .unwrap_or_else(|e| panic!("{part}: {e}"));
        for (i, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let cols: Vec<&str> = line.split('\t').collect();
            let check = match cols[0] {
                "pass" => true,
                "block" => false,
                other => panic!("{part}:{}: label {other:?}", i + 1),
            };
            let body = cols.last().unwrap().replace("\\n", "\n");
            cases.push(Case {
                part: part.to_string(),
                line: i + 1,
                check,
                features: Features::of(&body),
            });
        }
    }
    if std::env::args().any(|a| a == "--lopo") {
        let mut parts: Vec<&str> =
            cases.iter().map(|c| c.part.as_str()).collect();
        parts.dedup();
        for part in parts {
            let train: Vec<&Case> =
                cases.iter().filter(|c| c.part != part).collect();
            let model = train_on(&train);
            for c in cases.iter().filter(|c| c.part == part) {
                let p = model.probability(&c.features);
                println!("{}\t{}\t{}\t{p:.4}", c.part, c.line, c.check);
            }
        }
        return;
    }
    let all: Vec<&Case> = cases.iter().collect();
    let model = train_on(&all);
    let out = root.join("src/gates/audit_model.bin");
    std::fs::write(&out, model.to_bytes()).expect("write the model");
    let right = cases
        .iter()
        .filter(|c| (model.probability(&c.features) >= 0.5) == c.check)
        .count();
    eprintln!(
        "trained on {} cases; {right} read right at 0.5 (training figure, \
         proves nothing); wrote {}",
        cases.len(),
        out.display()
    );
}

fn train_on(cases: &[&Case]) -> AuditModel {
    let pairs: Vec<(&Features, bool)> =
        cases.iter().map(|c| (&c.features, c.check)).collect();
    AuditModel::train(&pairs)
}
