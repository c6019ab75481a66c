//! The audit gate on a labelled set in two parts (issue 11): a tuning
//! part the patterns may be fitted to, and a test part that is only ever
//! run. The figures that count are the test part's.
//!
//! `tests/labelled/audit-tune.tsv` and `audit-test.tsv` were written before
//! the patterns of plain-language audits; `audit-corpus.tsv` labels real
//! final messages of `../shared/corpus/spotter` by file and line (read
//! there, never copied) and belongs to the test part. Positive means
//! "block": the final message holds no audit. Precision is then the share
//! of blocks that were deserved (the agent that did the work is not
//! blocked), recall the share of skipped audits that were blocked.
//!
//! Beside the gate, the first seed's regex
//! (`監査|潰した|既に堅牢|あえて見送り|セルフ監査|三層|予測できる不具合`) is
//! scored on the same cases.

use std::path::Path;

use stopgate::config::{Config, GateName};
use stopgate::gates::{Facts, Gates, SessionView};
use stopgate::transcript::{ToolCall, TurnKind};

/// One labelled final message.
struct Case {
    block: bool,
    near: bool,
    text: String,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn load(name: &str) -> Vec<Case> {
    let path = root().join("tests/labelled").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
        .map(|(i, l)| {
            let cols: Vec<&str> = l.splitn(3, '\t').collect();
            assert_eq!(cols.len(), 3, "{}:{}: three columns", name, i + 1);
            Case {
                block: match cols[0] {
                    "block" => true,
                    "pass" => false,
                    other => panic!("{name}:{}: label {other:?}", i + 1),
                },
                near: cols[1] == "near",
                text: cols[2].replace("\\n", "\n"),
            }
        })
        .collect()
}

/// The corpus cases, read from `../shared/corpus`; `None` when it is not
/// there.
fn load_corpus() -> Option<Vec<Case>> {
    let dir = root().join("../shared/corpus/spotter");
    if !dir.is_dir() {
        println!("skip: ../shared/corpus not found; the corpus cases are not scored");
        return None;
    }
    let files: Vec<_> =
        std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    let labels = std::fs::read_to_string(
        root().join("tests/labelled/audit-corpus.tsv"),
    )
    .unwrap();
    let mut out = vec![];
    for l in
        labels.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = l.split('\t').collect();
        let file = files
            .iter()
            .find(|p| {
                p.file_name().unwrap().to_string_lossy().starts_with(cols[1])
            })
            .unwrap_or_else(|| panic!("no corpus file {}", cols[1]));
        let line_no: usize = cols[2].parse().unwrap();
        let text = std::fs::read_to_string(file).unwrap();
        let line = text.lines().nth(line_no - 1).unwrap();
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let body: Vec<&str> = v["message"]["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect();
        assert!(!body.is_empty(), "{l}: no text on that line");
        out.push(Case {
            block: cols[0] == "block",
            near: true,
            text: body.join("\n"),
        });
    }
    Some(out)
}

/// Precision and recall of "block", with the counts.
#[derive(Default)]
struct Score {
    tp: u32,
    fp: u32,
    fn_: u32,
    tn: u32,
}

impl Score {
    fn add(&mut self, want: bool, got: bool) {
        match (want, got) {
            (true, true) => self.tp += 1,
            (false, true) => self.fp += 1,
            (true, false) => self.fn_ += 1,
            (false, false) => self.tn += 1,
        }
    }
    fn precision(&self) -> f64 {
        f64::from(self.tp) / f64::from((self.tp + self.fp).max(1))
    }
    fn recall(&self) -> f64 {
        f64::from(self.tp) / f64::from((self.tp + self.fn_).max(1))
    }
    fn line(&self) -> String {
        format!(
            "precision {:.3} recall {:.3} (tp {} fp {} fn {} tn {})",
            self.precision(),
            self.recall(),
            self.tp,
            self.fp,
            self.fn_,
            self.tn
        )
    }
}

fn gate_blocks(gates: &Gates, text: &str) -> bool {
    let tools = [ToolCall::new(None, "Write", &serde_json::Value::Null, 0, 0)];
    let facts = Facts {
        kind: TurnKind::Prompt,
        final_text: text,
        prompt: Some("Fix it."),
        tool_uses: &tools,
        changed: true,
        stop_hook_active: false,
    };
    gates.evaluate(&facts, &SessionView::default()).block().is_some()
}

fn seed_blocks(text: &str) -> bool {
    ![
        "監査",
        "潰した",
        "既に堅牢",
        "あえて見送り",
        "セルフ監査",
        "三層",
        "予測できる不具合",
    ]
    .iter()
    .any(|k| text.contains(k))
}

fn score(
    cases: &[Case],
    judge: impl Fn(&str) -> bool,
    misses: &mut Vec<String>,
) -> Score {
    let mut s = Score::default();
    for c in cases {
        let got = judge(&c.text);
        s.add(c.block, got);
        if got != c.block {
            misses
                .push(format!("want block={} got {got}: {}", c.block, c.text));
        }
    }
    s
}

/// Score the gate on one part; print the figures and every miss.
fn score_and_print(
    name: &str,
    cases: &[Case],
    judge: impl Fn(&str) -> bool,
    detail: &str,
) -> Score {
    let mut misses = vec![];
    let s = score(cases, judge, &mut misses);
    println!("{name}, the gate: {}{detail}", s.line());
    for m in &misses {
        println!("  {name} miss: {m}");
    }
    s
}

#[test]
fn audit_gate_on_the_labelled_parts() {
    let config = Config { order: vec![GateName::Audit], ..Config::default() };
    let gates = Gates::new(&config).unwrap();
    let tune = load("audit-tune.tsv");
    let test2 = load("audit-test2.tsv");
    let mut test = load("audit-test.tsv");
    let written = test.len();
    if let Some(corpus) = load_corpus() {
        test.extend(corpus);
    }
    for (name, cases) in [("tune", &tune), ("test", &test), ("test2", &test2)]
    {
        let near = cases.iter().filter(|c| c.near).count();
        println!(
            "{name}: {} cases ({} near misses, {:.0}%)",
            cases.len(),
            near,
            100.0 * near as f64 / cases.len() as f64
        );
        println!(
            "  seed 1 regex: {}",
            score(cases, seed_blocks, &mut vec![]).line()
        );
    }
    let judge = |t: &str| gate_blocks(&gates, t);
    score_and_print("tune", &tune, judge, "");
    let test_score = score_and_print(
        "test",
        &test,
        judge,
        &format!(
            " ({} written, {} from the corpus)",
            written,
            test.len() - written
        ),
    );
    let test2_score = score_and_print("test2", &test2, judge, "");
    let mut all = Score::default();
    for s in [&test_score, &test2_score] {
        all.tp += s.tp;
        all.fp += s.fp;
        all.fn_ += s.fn_;
        all.tn += s.tn;
    }
    println!("both test parts: {}", all.line());
    assert!(tune.len() + test.len() + test2.len() >= 150);
    // The bounds the figures were measured at (see the closing note of
    // issue 11): a fall below them is a regression.
    assert!(
        all.precision() >= 0.97 && all.recall() >= 0.95,
        "test parts: {}",
        all.line()
    );
}
