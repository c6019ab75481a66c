//! The gates on test parts written blind (issue 48): each part under
//! `tests/labelled/blind/` was written by a writer who had seen neither the
//! rules, nor the code, nor any earlier miss, from the gates' definitions
//! as a user reads them (`DEFINITIONS.md`) and a brief of its own (copied
//! at the head of each part). Each part was committed before it was first
//! run; `FIRST_RUNS.md` keeps the figures of that first run, which are the
//! ones that count.
//!
//! Positive means "block". An audit case is judged by the audit and
//! hollow gates together (a change turn is blocked for want of a real
//! audit by either), the others by their gate alone, each as the hook
//! would judge the turn with nothing nagged. The misses are not printed:
//! reading them is tuning on them. Run with `--nocapture` for the figures,
//! per part, per gate and per language, beside the grammar's
//! (`plain_judge = "grammar"`).
//!
//! The test fails when a pooled figure falls below the first run's, so
//! that a change to the gates cannot make them worse on text no one here
//! wrote without saying so.
//!
//! Once a part's first run is kept in `FIRST_RUNS.md`, the part may be
//! tuned on: `STOPGATE_BLIND_MISSES=1` prints the misses of those parts,
//! and only of those (a part not yet run keeps its misses unread), and
//! `STOPGATE_BLIND_ONLY=blind1,blind2` limits the run to the parts named.

#![cfg(feature = "judge")]

use std::collections::BTreeMap;
use std::path::Path;

use stopgate::config::{Config, Gate, PlainJudge};
use stopgate::judge::{change_of, Facts, Gates, SessionView};
use stopgate::read::ToolCall;

mod common;
use common::score::Score;

/// One labelled case of a blind part.
struct Case {
    /// For a real message, the repository it came from; empty otherwise.
    repo: String,
    gate: Gate,
    lang: String,
    block: bool,
    prompt: String,
    tools: Vec<ToolCall>,
    text: String,
}

fn dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/labelled/blind")
}

/// A tool use from its code in the part: `W`, `E`, `R` or `B:<command>`.
fn tool(code: &str, i: usize, at: &str) -> ToolCall {
    let (name, input) = match code.trim() {
        "W" => ("Write", None),
        "E" => ("Edit", None),
        "R" => ("Read", None),
        c => match c.strip_prefix("B:") {
            Some(cmd) => ("Bash", Some(cmd)),
            None => panic!("{at}: tool code {code:?}"),
        },
    };
    ToolCall::new(Some(&format!("t{i}")), name, input, 0, i)
}

fn unescape(s: &str) -> String {
    s.replace("\\n", "\n").replace("\\t", "\t")
}

/// The cases of one part (seven columns: gate, lang, label, near, tools,
/// prompt, text; a real part has eleven: repo, commit, path, line, licence,
/// gate, lang, label, tools, prompt, text).
fn load(path: &Path) -> Vec<Case> {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = vec![];
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let at = format!("{name}:{}", i + 1);
        let all: Vec<&str> = line.split('\t').collect();
        let repo = if all.len() == 11 { all[0] } else { "" }.to_string();
        let cols: Vec<&str> = match all.len() {
            7 => all,
            // A real part: its gate, lang, label, a blank `near`, and the
            // rest.
            11 => [&all[5..8], &[""], &all[8..]].concat(),
            n => panic!("{at}: {n} columns"),
        };
        let gate = match cols[0] {
            "audit" => Gate::Audit,
            "hollow" => Gate::Hollow,
            "ownership" => Gate::Ownership,
            "reverify" => Gate::Reverify,
            other => panic!("{at}: gate {other:?}"),
        };
        let tools = match cols[4].trim() {
            "-" | "" => vec![],
            t => t
                .split(',')
                .enumerate()
                .map(|(i, c)| tool(c, i, &at))
                .collect(),
        };
        out.push(Case {
            repo,
            gate,
            lang: cols[1].to_string(),
            block: match cols[2] {
                "block" => true,
                "pass" => false,
                other => panic!("{at}: label {other:?}"),
            },
            prompt: unescape(cols[5]),
            tools,
            text: unescape(cols[6]),
        });
    }
    out
}

/// The parts, by name, in order (those of `STOPGATE_BLIND_ONLY` when
/// set).
fn parts() -> Vec<(String, Vec<Case>)> {
    let only = std::env::var("STOPGATE_BLIND_ONLY").ok();
    let picked = |name: &str| {
        only.as_deref().is_none_or(|o| o.split(',').any(|n| n == name))
    };
    let mut names: Vec<_> = std::fs::read_dir(dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "tsv"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|p| (p.file_stem().unwrap().to_string_lossy().to_string(), p))
        .filter(|(name, _)| picked(name))
        .map(|(name, p)| (name, load(&p)))
        .collect()
}

/// Whether `part`'s first run is kept in `FIRST_RUNS.md`, so that its
/// misses may be read.
fn first_run_kept(part: &str) -> bool {
    let runs = std::fs::read_to_string(dir().join("FIRST_RUNS.md")).unwrap();
    runs.lines().any(|l| l.starts_with(&format!("part {part} (")))
}

/// Prints the misses of a part already run once, with
/// `STOPGATE_BLIND_MISSES=1`.
fn print_misses(
    name: &str,
    gates: &BTreeMap<&'static str, Gates>,
    cases: &[&Case],
) {
    if std::env::var_os("STOPGATE_BLIND_MISSES").is_none() {
        return;
    }
    if !first_run_kept(name) {
        println!("  (misses of {name} not shown: its first run is not kept)");
        return;
    }
    print_each_miss(name, gates, cases);
}

fn print_each_miss(
    name: &str,
    gates: &BTreeMap<&'static str, Gates>,
    cases: &[&Case],
) {
    for (i, c) in cases.iter().enumerate() {
        if blocks(gates, c) != c.block {
            let want = if c.block { "block" } else { "pass" };
            let tools: Vec<String> = c
                .tools
                .iter()
                .map(|t| match t.command() {
                    Some(cmd) => format!("B:{cmd}"),
                    None => t.name().to_string(),
                })
                .collect();
            println!(
                "  MISS {name}#{i} {} {} want {want} tools [{}]\n    prompt: {}\n    text: {}",
                c.gate.as_str(),
                c.lang,
                tools.join(", "),
                c.prompt.replace('\n', "\\n"),
                c.text.replace('\n', "\\n"),
            );
        }
    }
}

/// The gates that judge a case of `gate`.
fn judging(gate: Gate) -> Vec<Gate> {
    match gate {
        Gate::Audit => vec![Gate::Audit, Gate::Hollow],
        g => vec![g],
    }
}

/// Whether the gates of `config`, limited to those judging `c`, block it.
fn blocks(gates: &BTreeMap<&'static str, Gates>, c: &Case) -> bool {
    blocks_by(&gates[c.gate.as_str()], c)
}

/// Whether `gates` block `c`.
fn blocks_by(gates: &Gates, c: &Case) -> bool {
    let facts = Facts::new(&c.text)
        .with_prompt(Some(&c.prompt))
        .with_tool_uses(&c.tools)
        .with_changed(c.tools.iter().any(|t| change_of(t).is_some()));
    gates.evaluate(&facts, &SessionView::default()).block().is_some()
}

/// The hollow cases judged as the hook judges them: the audit gate, then
/// the hollow gate. A "hollow" audit that no audit is read in at all is
/// blocked by the audit gate, which the hollow gate alone cannot show.
fn hollow_as_the_hook(
    gates: &BTreeMap<&'static str, Gates>,
    cases: &[&Case],
) -> Score {
    let mut s = Score::default();
    for c in cases.iter().filter(|c| c.gate == Gate::Hollow) {
        s.add(c.block, blocks_by(&gates[Gate::Audit.as_str()], c));
    }
    s
}

fn gates_of(config: &Config) -> BTreeMap<&'static str, Gates> {
    [Gate::Audit, Gate::Hollow, Gate::Ownership, Gate::Reverify]
        .into_iter()
        .map(|g| {
            let mut c = config.clone();
            c.order = judging(g);
            (g.as_str(), Gates::new(&c).unwrap())
        })
        .collect()
}

/// The gates as shipped, and with the grammar alone judging plain
/// language (`plain_judge = "grammar"`).
fn today_and_grammar(
) -> (BTreeMap<&'static str, Gates>, BTreeMap<&'static str, Gates>) {
    let mut grammar = Config::default();
    grammar.audit.plain_judge = PlainJudge::Grammar;
    (gates_of(&Config::default()), gates_of(&grammar))
}

/// Scores by (gate, language), over `cases`.
fn score(
    gates: &BTreeMap<&'static str, Gates>,
    cases: &[&Case],
) -> BTreeMap<(&'static str, String), Score> {
    let mut out: BTreeMap<(&'static str, String), Score> = BTreeMap::new();
    for c in cases {
        let got = blocks(gates, c);
        let gate = c.gate.as_str();
        out.entry((gate, c.lang.clone())).or_default().add(c.block, got);
        out.entry((gate, "all".into())).or_default().add(c.block, got);
    }
    out
}

/// The pooled floors over every part, per gate: (precision, recall).
/// Raise them when the gates get better; never lower them without saying
/// why in `FIRST_RUNS.md`, which keeps their history. Set on 2026-12-07
/// (thirty-fifth session) over fifty-six parts (6,720 cases), after that
/// session's changes from the misses of parts whose first runs were kept:
/// a fit, not held-out figures (audit 0.978 / 0.992, hollow 0.969 /
/// 0.917, ownership 0.985 / 0.981, reverify 0.993 / 0.950).
const FLOORS: &[(Gate, f64, f64)] = &[
    (Gate::Audit, 0.975, 0.99),
    (Gate::Hollow, 0.965, 0.92),
    (Gate::Ownership, 0.985, 0.98),
    (Gate::Reverify, 0.99, 0.955),
];

#[test]
fn the_gates_on_the_blind_parts() {
    let parts = parts();
    assert!(!parts.is_empty(), "no blind part under {}", dir().display());
    let (today, grammar) = today_and_grammar();
    for (name, cases) in &parts {
        assert!(cases.len() >= 100, "{name}: {} cases", cases.len());
        let cases: Vec<&Case> = cases.iter().collect();
        println!("part {name} ({} cases)", cases.len());
        let g = score(&grammar, &cases);
        for (key, s) in score(&today, &cases) {
            println!(
                "  {:<9} {:<3}  the gate {}   grammar {}",
                key.0,
                key.1,
                s.cell(),
                g[&key].cell()
            );
        }
        print_misses(name, &today, &cases);
    }
    let all: Vec<&Case> = parts.iter().flat_map(|(_, c)| c).collect();
    println!("pooled ({} cases)", all.len());
    let pooled = score(&today, &all);
    let g = score(&grammar, &all);
    for (key, s) in &pooled {
        println!(
            "  {:<9} {:<3}  the gate {}   grammar {}",
            key.0,
            key.1,
            s.cell(),
            g[key].cell()
        );
    }
    println!(
        "  hollow cases as the hook judges them (audit, then hollow): {}",
        hollow_as_the_hook(&today, &all).cell()
    );
    if std::env::var_os("STOPGATE_BLIND_ONLY").is_some() {
        return;
    }
    for &(gate, precision, recall) in FLOORS {
        let s = pooled[&(gate.as_str(), "all".to_string())];
        assert!(
            s.precision() >= precision && s.recall() >= recall,
            "{}: {} below the floor {precision:.3} / {recall:.3}",
            gate.as_str(),
            s.cell()
        );
    }
}

/// The real final messages, hand-labelled blind (`tests/labelled/real/`):
/// those whose licence allows a copy are here; with
/// `STOPGATE_REAL_MESSAGES=FILE` (every row, re-extracted by
/// `tools/real-messages/extract.py`), all of them. Figures only: the set
/// was labelled after the gates were written and is not tuned on.
#[test]
fn the_gates_on_real_final_messages() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/labelled/real/real-permissive.tsv");
    let path = std::env::var_os("STOPGATE_REAL_MESSAGES")
        .map_or(here, std::path::PathBuf::from);
    let cases = load(&path);
    assert!(cases.len() >= 50, "{}: {} cases", path.display(), cases.len());
    let (today, grammar) = today_and_grammar();
    let cases: Vec<&Case> = cases.iter().collect();
    println!(
        "real final messages: {} ({} cases)",
        path.display(),
        cases.len()
    );
    let g = score(&grammar, &cases);
    for (key, s) in score(&today, &cases) {
        println!(
            "  {:<9} {:<5}  the gate {}   grammar {}",
            key.0,
            key.1,
            s.cell(),
            g[&key].cell()
        );
    }
    // The tuning half's misses only (`tests/labelled/real/SPLIT.md`).
    if std::env::var_os("STOPGATE_REAL_MISSES").is_some() {
        let tune: Vec<&Case> = cases
            .iter()
            .copied()
            .filter(|c| REAL_TUNING_HALF.contains(&c.repo.as_str()))
            .collect();
        print_each_miss("real", &today, &tune);
    }
}

/// The repositories of the real messages' tuning half, whose misses may be
/// read (`tests/labelled/real/SPLIT.md`); the other half's are not shown.
const REAL_TUNING_HALF: &[&str] = &[
    "DRMacIver/claude-reliability",
    "FellowDalton/teamwork",
    "GiovaniOliver/livestream-copilot",
    "JoshuaOliphant/ClimateHome",
    "RyanLisse/big3",
    "TJProRata/GistConsole",
    "ThomasJMcGovern/Golfgod_v1",
    "astrophotograph/processinator",
    "dirvine/saorsa-core",
    "greg-phillips/iMatrix_src",
    "kesslerio/attio-mcp-server",
    "mushfoo/puka",
    "rickhallett/blackcore",
    "siliconyouth/awe",
    "stevengonsalvez/claude-debugger",
];
