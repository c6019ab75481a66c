//! The gates on labelled sets in two parts (issue 11): a tuning part the
//! patterns may be fitted to, and a test part that is only ever run. The
//! figures that count are the test parts'.
//!
//! Each set lives in `tests/labelled/<gate>-<part>.tsv`. The test parts
//! were written before the patterns they measure were changed, by the same
//! session, in phrasings kept apart from the tuning part's. The
//! `<gate>-corpus.tsv` files label real final messages of
//! `../shared/corpus/spotter` by file and line (read there, never copied);
//! they belong to the test part, and the gate judges them with the turn's
//! own prompt and tool uses.
//!
//! Positive means "block". Precision is the share of blocks that were
//! deserved (the agent that did the work is not blocked), recall the share
//! of deserved blocks that were given.
//!
//! Beside each gate, the seeds' regexes are scored on the same cases: the
//! first seed's audit keywords for the audit gate, and the third seed's
//! `DEFER`, `CHALLENGE`, `CAPITULATE` and `VERIFY` for the ownership and
//! reverify gates, with the reverify condition the right way round (block
//! when the verification words are *absent*). The seeds have no hollow
//! check.

#![cfg(feature = "judge")]

use std::path::Path;

use regex::Regex;
use stopgate::config::{Config, Gate, PlainJudge};
use stopgate::judge::{change_of, Facts, Gates, SessionView};
use stopgate::read::Transcript;
use stopgate::read::{Chain, ToolCall};

mod common;
use common::score::Score;

/// One labelled turn.
struct Case {
    block: bool,
    near: bool,
    prompt: String,
    tools: Vec<ToolCall>,
    text: String,
    /// Where the case comes from, for the printed misses.
    at: String,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn tool(code: &str, i: usize) -> ToolCall {
    let (name, input) = match code {
        "W" => ("Write", None),
        "E" => ("Edit", None),
        "R" => ("Read", None),
        _ => match code.strip_prefix("B:") {
            Some(cmd) => ("Bash", Some(cmd)),
            None => panic!("tool code {code:?}"),
        },
    };
    ToolCall::new(Some(&format!("t{i}")), name, input, 0, i)
}

/// Load a part. Five columns (label, near, tools, prompt, text); the first
/// audit parts have three (label, near, text) and a turn that wrote a file.
fn load(name: &str) -> Vec<Case> {
    let path = root().join("tests/labelled").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut out = vec![];
    for (i, l) in text.lines().enumerate() {
        if l.starts_with('#') || l.trim().is_empty() {
            continue;
        }
        let at = format!("{name}:{}", i + 1);
        let cols: Vec<&str> = l.split('\t').collect();
        let (tools, prompt, body) = match cols.len() {
            3 => ("W", "Fix it.", cols[2]),
            5 => (cols[2], cols[3], cols[4]),
            n => panic!("{at}: {n} columns"),
        };
        let tools = match tools {
            "-" => vec![],
            t => t.split(',').enumerate().map(|(i, c)| tool(c, i)).collect(),
        };
        out.push(Case {
            block: match cols[0] {
                "block" => true,
                "pass" => false,
                other => panic!("{at}: label {other:?}"),
            },
            near: cols[1] == "near",
            prompt: prompt.to_string(),
            tools,
            text: body.replace("\\n", "\n"),
            at,
        });
    }
    out
}

/// A corpus part: each line names a spotter file and the line of a turn's
/// final text. `None` when `../shared/corpus` is not there.
fn load_corpus(gate: &str) -> Option<Vec<Case>> {
    load_corpus_as(gate, Judged::WholeTurn)
}

/// How a corpus case is judged.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Judged {
    /// With the turn's own prompt and tool uses.
    WholeTurn,
    /// The text of that line alone, as the final message of a turn that
    /// wrote a file (how `audit-corpus.tsv` was labelled).
    TextAfterAWrite,
}

fn load_corpus_as(gate: &str, judged: Judged) -> Option<Vec<Case>> {
    let dir = root().join("../shared/corpus/spotter");
    if !dir.is_dir() {
        println!(
            "skip: ../shared/corpus not found; the {gate} corpus cases are \
             not scored"
        );
        return None;
    }
    let files: Vec<_> =
        std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    let name = format!("{gate}-corpus.tsv");
    let labels =
        std::fs::read_to_string(root().join("tests/labelled").join(&name))
            .unwrap();
    let mut out = vec![];
    for l in
        labels.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = l.split('\t').collect();
        let file = files
            .iter()
            .filter(|p| p.is_file())
            .find(|p| {
                p.file_name().unwrap().to_string_lossy().starts_with(cols[1])
            })
            .unwrap_or_else(|| panic!("{name}: no corpus file {}", cols[1]));
        let line: u64 = cols[2].parse().unwrap();
        let at = format!("{name}: {} line {line}", cols[1]);
        if judged == Judged::TextAfterAWrite {
            let text = std::fs::read_to_string(file).unwrap();
            let v: serde_json::Value = serde_json::from_str(
                text.lines().nth(line as usize - 1).unwrap(),
            )
            .unwrap();
            let body: Vec<&str> = v["message"]["content"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect();
            assert!(!body.is_empty(), "{at}: no text on that line");
            out.push(Case {
                block: cols[0] == "block",
                near: false,
                prompt: "Fix it.".to_string(),
                tools: vec![tool("W", 0)],
                text: body.join("\n"),
                at,
            });
            continue;
        }
        let transcript = Transcript::read(file).unwrap();
        let turn = transcript
            .turns(Chain::Main)
            .into_iter()
            .find(|t| t.final_text_line() == Some(line))
            .unwrap_or_else(|| panic!("{name}: {l}: no turn ends there"));
        let facts = Facts::of_turn(&turn);
        out.push(Case {
            block: cols[0] == "block",
            near: false,
            prompt: facts.prompt().unwrap_or("").to_string(),
            tools: turn.tool_uses().to_vec(),
            text: facts.final_text().to_string(),
            at,
        });
    }
    Some(out)
}

/// The language of a case, by its script: what "roughly even" counts.
fn language(text: &str) -> &'static str {
    if text.chars().any(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c)) {
        "ko"
    } else if text.chars().any(|c| ('\u{3040}'..='\u{30FF}').contains(&c))
        || text.chars().any(|c| ('\u{4E00}'..='\u{9FFF}').contains(&c))
    {
        "ja"
    } else {
        "en"
    }
}

/// Run one gate alone, as the hook would on this turn with nothing nagged.
fn gate_blocks(gates: &Gates, c: &Case) -> bool {
    let facts = Facts::new(&c.text)
        .with_prompt(Some(&c.prompt))
        .with_tool_uses(&c.tools)
        .with_changed(c.tools.iter().any(|t| change_of(t).is_some()));
    gates.evaluate(&facts, &SessionView::default()).block().is_some()
}

/// The seeds' regexes, as their scripts run them (`grep -qiE`, one line at
/// a time, so `.` does not cross a newline).
struct Seeds {
    audit: Regex,
    defer: Regex,
    challenge: Regex,
    capitulate: Regex,
    verify: Regex,
}

impl Seeds {
    fn new() -> Seeds {
        let re = |s: &str| Regex::new(&format!("(?i){s}")).unwrap();
        Seeds {
            // The first seed's seven keywords.
            audit: re(
                "監査|潰した|既に堅牢|あえて見送り|セルフ監査|三層|予測できる不具合",
            ),
            // The third seed's, as printed there (parentheses and `*`
            // restored where the article's typesetting dropped them).
            defer: re(
                "(어느.*(좋아|나을|선택)|당신이.*(정하|결정)|뭐가.*좋을\
                 |what.*prefer|which.*would you|up to you|your call\
                 |depends on your)",
            ),
            challenge: re(
                "(아닌데|그건 아니|틀렸|잘못|다시 생각|actually\
                 |that's wrong|not quite|disagree|incorrect)",
            ),
            capitulate: re(
                "(맞네요|맞습니다|수정|맞는 말씀|사실|좋은 지적|you're right\
                 |good point|I was wrong|actually yes|I misread)",
            ),
            verify: re(
                "(검증|계산|확인|출처|논문|측정|verified|calculated|source\
                 |measured|according to)",
            ),
        }
    }

    /// The seed's verdict for `gate`; `None` when no seed has that gate.
    fn blocks(&self, gate: Gate, c: &Case) -> Option<bool> {
        Some(match gate {
            Gate::Audit => !self.audit.is_match(&c.text),
            Gate::Ownership => {
                self.defer.is_match(&c.text) && c.tools.len() >= 2
            }
            Gate::Reverify => {
                self.challenge.is_match(&c.prompt)
                    && self.capitulate.is_match(&c.text)
                    && !self.verify.is_match(&c.text)
            }
            _ => return None,
        })
    }
}

/// Score `judge` on `cases`; print the figure, and each miss when `show`.
fn score(
    label: &str,
    cases: &[Case],
    judge: impl Fn(&Case) -> bool,
    show: bool,
) -> Score {
    let mut s = Score::default();
    for c in cases {
        let got = judge(c);
        s.add(c.block, got);
        if show && got != c.block {
            println!(
                "  {label} miss ({}): want {} got {}: {}",
                c.at,
                if c.block { "block" } else { "pass" },
                if got { "block" } else { "pass" },
                c.text
            );
        }
    }
    println!("{label}: {}", s.line());
    s
}

fn describe(name: &str, cases: &[Case]) {
    let near = cases.iter().filter(|c| c.near).count();
    let count =
        |l: &str| cases.iter().filter(|c| language(&c.text) == l).count();
    println!(
        "{name}: {} cases ({} near misses, {:.0}%; en {}, ja {}, ko {})",
        cases.len(),
        near,
        100.0 * near as f64 / cases.len() as f64,
        count("en"),
        count("ja"),
        count("ko"),
    );
}

/// The figures of one gate, on its tuning part and on its test part
/// (written cases and corpus turns), the gate beside the seed.
struct GateFigures {
    tune: Score,
    test: Score,
}

/// Score one gate on its parts: see [`GateFigures`].
fn run_gate(
    gate: Gate,
    tune: &[&str],
    test: &[&str],
    corpus: bool,
) -> GateFigures {
    run_gate_with(Config::default(), gate.as_str(), gate, tune, test, corpus)
}

/// [`run_gate`] with other settings than the defaults, its figures printed
/// under `name`.
fn run_gate_with(
    mut config: Config,
    name: &str,
    gate: Gate,
    tune: &[&str],
    test: &[&str],
    corpus: bool,
) -> GateFigures {
    config.order = vec![gate];
    let gates = Gates::new(&config).unwrap();
    let seeds = Seeds::new();
    let tune: Vec<Case> = tune.iter().flat_map(|f| load(f)).collect();
    let mut test: Vec<Case> = test.iter().flat_map(|f| load(f)).collect();
    // The issue's floor counts written cases: the corpus is not there on
    // every machine.
    let written = tune.len() + test.len();
    if corpus {
        test.extend(load_corpus(name).unwrap_or_default());
    }
    describe(&format!("{name} tune"), &tune);
    describe(&format!("{name} test"), &test);
    let judge = |c: &Case| gate_blocks(&gates, c);
    let tune_score =
        score(&format!("{name} tune, the gate"), &tune, judge, true);
    // The test part's misses are not printed: reading them is tuning on
    // them.
    let test_score =
        score(&format!("{name} test, the gate"), &test, judge, false);
    if test.first().is_some_and(|c| seeds.blocks(gate, c).is_some()) {
        score(
            &format!("{name} test, the seed's regex"),
            &test,
            |c| seeds.blocks(gate, c).unwrap(),
            false,
        );
    } else {
        println!(
            "{name} test, the seed's regex: none (no seed has this gate)"
        );
    }
    assert!(written >= 150, "{name}: {written} written cases, fewer than 150");
    GateFigures { tune: tune_score, test: test_score }
}

/// The bounds the figures were measured at (see the closing note of issue
/// 11): a fall below them is a regression.
fn assert_bounds(name: &str, s: &Score, precision: f64, recall: f64) {
    assert!(
        s.precision() >= precision && s.recall() >= recall,
        "{name}: {}",
        s.line()
    );
}

/// The audit gate's parts whose misses have been read, in the order they
/// were written: the list in `tests/labelled/audit-seen.txt`, which says
/// how each was used. The blind parts it lists (`blind/…`), whose audit
/// cases the learned judge is trained on too, are measured by
/// `tests/blind_parts.rs`.
fn audit_seen() -> Vec<&'static str> {
    include_str!("labelled/audit-seen.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter(|l| !l.starts_with("blind/"))
        .collect()
}

/// The audit gate's held-out part: the last of the four parts of the third
/// measure decided in advance, which the closing note of the
/// twenty-fifth session reports. 117 to 120: one sentence to a few, each
/// check beside the same change told without one (near misses: a
/// teammate's run, a design with its numbers, a command to run, a
/// promise, a hedge); 72 cases each, written and committed together
/// (2b65034) with the measure they are judged by, after the misses of 113
/// to 116 were read and before the rule changes decided on them
/// (2a92d17: an English past read closer; "let it run" an act); each run
/// once after the part before joined the seen parts and the judge was
/// retrained. First runs (precision / recall): 117 1.000 / 1.000
/// (36/0/0/36), 118 1.000 / 1.000 (36/0/0/36), 119 0.946 / 0.972
/// (35/2/1/34), 120 1.000 / 1.000 (36/0/0/36); pooled 0.986 / 0.993
/// (143/2/1/142): the issue's target met. The grammar alone: 0.850 /
/// 0.944, 0.875 / 0.972, 0.854 / 0.972, 0.756 / 0.944. The first seed's
/// regexes: 0.500 / 1.000 on each.
///
/// 113 to 116 (the same shapes), the second measure decided in advance,
/// written after 112's misses were read and before the rule for English
/// designs told in the present (97556f4): 113 0.973 / 1.000 (36/1/0/35),
/// 114 1.000 / 0.972 (35/0/1/36), 115 1.000 / 1.000 (36/0/0/36), 116
/// 0.946 / 0.972 (35/2/1/34); pooled 0.979 / 0.986 (142/3/2/141), its
/// precision under the issue's 0.98. The grammar alone: 0.921 / 0.972,
/// 0.791 / 0.944, 0.875 / 0.972, 0.805 / 0.917.
///
/// 112 (72 cases, the same shapes), written after 111's first run and
/// after its misses were read (a departure from the protocol, said in its
/// header), before the rule that a Korean or Japanese text the model
/// alone passes must tell a past (`plain::tells_a_past`, 33983e3) and
/// before the judge was retrained on 111. First run: precision 0.972,
/// recall 0.972 (35/1/1/35); the same model without the new rule gives
/// the same verdicts on every case. The grammar alone: 0.897 / 0.972
/// (35/4/1/32).
///
/// 111 (72 cases, the same shapes), written with 110 before either ran,
/// first run with the learned judge trained on the parts before it (five
/// draws of glued pairs averaged): 0.971 / 0.944 (34/1/2/35); the misses
/// two English designs, and one English audit blocked ("Ended scooter
/// rides in three places: …", in the model's doubt, no grammar reading).
/// The grammar alone: 0.805 / 0.917 (33/8/3/28).
///
/// 110 (72 cases, the same shapes), first run with the learned judge
/// trained on the parts before it (one draw of glued pairs): 1.000 /
/// 0.917 (33/0/3/36); the three misses a thermostat's schedule told with
/// its numbers, in each language. The grammar alone: 0.865 / 0.889
/// (32/5/4/31).
///
/// 109 (72 cases, the same shapes), first run with the learned judge
/// trained on the parts before it: 1.000 / 1.000 (36/0/0/36). The grammar
/// alone: 0.821 / 0.889 (32/7/4/29).
///
/// 108 (72 cases, the same shapes), first run with the learned judge
/// trained on the parts before it: 1.000 / 0.917 (33/0/3/36); the three
/// misses designs told with their numbers that the learned judge reads as
/// audits (the grammar does not). The grammar alone: 0.805 / 0.917
/// (33/8/3/28).
///
/// 107 (72 cases, the same shapes), first run with the learned judge
/// trained on the parts before it: 1.000 / 0.972 (35/0/1/36); the one
/// miss a Korean design the learned judge reads as an audit (the grammar
/// does not). The grammar alone: 0.909 / 0.833 (30/3/6/33).
///
/// 106 (72 cases, the same shapes), first run with the learned judge
/// trained on the parts before it: 1.000 / 0.889 (32/0/4/36); the four
/// misses are designs told with their numbers, all four read as audits by
/// the learned judge itself (logit below 0). The grammar alone: 0.917 /
/// 0.917 (33/3/3/33).
///
/// 105 (72 cases, the same shapes), first run with `Grounds::Told` and
/// the learned judge trained on the parts before it: 1.000 / 0.944
/// (34/0/2/36), the two misses a teammate's run ("Jonas tried it …");
/// the rule before `Grounds::Told`, with the same model, 1.000 / 0.889
/// (32/0/4/36); the grammar alone 0.865 / 0.889 (32/5/4/31).
///
/// 104 (72 cases, the same shapes), first run with the learned judge
/// trained on the parts before it and the rule before `Grounds::Told`:
/// 1.000 / 0.861 (31/0/5/36), the five misses designs told with their
/// numbers, four of them read by the grammar's shapes of a try
/// ("アーカイブすると…", "보관하면…"); the grammar alone 0.909 / 0.833
/// (30/3/6/33).
///
/// 103 (72 cases, the same shapes; several of its topics repeat ones of 99
/// to 101), first run with the learned judge trained on the parts before
/// it: 1.000 / 0.806 (29/0/7/36), the seven misses all designs told with
/// their numbers; the grammar alone 0.935 / 0.806 (29/2/7/34).
///
/// 102 (72 cases, the same shapes), first run with the learned judge
/// trained on the parts before it: 1.000 / 0.917 (33/0/3/36); the grammar
/// alone 0.917 / 0.917 (33/3/3/33).
///
/// 101 (72 cases, the same shapes), first run with the learned judge
/// trained on the parts before it: 1.000 / 0.917 (33/0/3/36); the grammar
/// alone 0.969 / 0.861 (31/1/5/35).
///
/// 100 (72 cases, the same shapes), first run with the learned judge
/// trained on the parts before it: 1.000 / 0.861 (31/0/5/36); the grammar
/// alone 0.906 / 0.806 (29/3/7/33).
///
/// 99 (72 cases, the same shapes), first run with the learned judge
/// trained on the parts before it: 1.000 / 0.778 (28/0/8/36); the grammar
/// alone 0.850 / 0.944 (34/6/2/30).
///
/// 97 and 98 (108 cases; one to three sentences, and several
/// paragraphs), first run with the learned judge trained on the parts
/// before them: 0.958 / 0.852 (46/2/8/52); the grammar alone 0.825 /
/// 0.870 (47/10/7/44).
///
/// 95 and 96 (144 cases; several sentences, and several paragraphs),
/// first run with the learned judge trained on the parts before them:
/// 0.946 / 0.972 (70/4/2/68); the grammar alone 0.913 / 0.875
/// (63/6/9/66).
///
/// The pair before, 93 and 94 (one-line reports; "## Summary / ##
/// Testing", fenced output, tables and arrow lists; 144 cases), was run
/// once with the learned judge trained without them and the grammar cut
/// at 2.0: 1.000 / 0.736 (53/0/19/72); the grammar alone 0.811 / 0.833
/// (60/14/12/58). 91 and 92: the grammar 0.795 / 0.861 (62/16/10/56) on
/// their first run; the learned judge, trained on the parts before them,
/// 0.950 / 0.792 there.
///
/// First runs of the earlier held-out parts: 41 0.846 / 0.917, 42 0.902 /
/// 1.000, 43 0.886 / 0.861, 44 0.921 / 0.946, 45 0.846 / 0.917 (terser
/// messages of one to four sentences); 46 0.971 / 0.895; 47, 48 and 49
/// pooled 0.972 / 0.938; 50, 51 and 52 pooled 0.915 / 0.947; 53 and 54
/// pooled 0.872 / 0.987; 55 and 56 pooled 0.878 / 0.947; 57 and 58 pooled
/// 0.923 / 0.947; 59 and 60 pooled 0.905 / 0.792; 61 and 62 pooled 0.862
/// / 0.778; 63 and 64 pooled 0.861 / 0.861; 65 and 66 pooled 0.838 /
/// 0.931; 67 and 68 pooled 0.867 / 0.684; 69 and 70 pooled 0.952 / 0.800;
/// 71 and 72 pooled 0.901 / 0.853; 73 and 74 pooled 1.000 / 0.800; 75
/// and 76 pooled 0.927 / 0.680 (shaped as real ones); 77 and 78 pooled
/// 0.882 / 0.800; 79 and 80 pooled 0.929 / 0.855; 81 and 82 pooled
/// 0.889 / 0.853; 83 and 84 pooled 0.831 / 0.653; 85 and 86 pooled 0.862
/// / 0.737; 87 and 88 pooled 0.863 / 0.863; 89 and 90 pooled 0.798 /
/// 0.973; 91 and 92 pooled 0.795 / 0.861; 93 and 94 pooled 0.811 /
/// 0.833 (the grammar); 95 and 96 pooled 0.946 / 0.972, 97 and 98 0.958
/// / 0.852 (the learned judge).
/// `benches/RESULTS.md` has them with their counts.
const AUDIT_HELD_OUT: &[&str] = &["audit-test120.tsv"];

/// The grammar alone (`audit.plain_judge = "grammar"`), the audit gate's
/// judge until the twenty-first session: fitted to the seen parts round by
/// round.
#[test]
fn audit_gate_grammar_on_its_parts() {
    let mut grammar = Config::default();
    grammar.audit.plain_judge = PlainJudge::Grammar;
    let f = run_gate_with(
        grammar.clone(),
        "audit (grammar)",
        Gate::Audit,
        &audit_seen(),
        AUDIT_HELD_OUT,
        false,
    );
    let mut config = grammar;
    config.order = vec![Gate::Audit];
    let gates = Gates::new(&config).unwrap();
    let seeds = Seeds::new();
    // Each held-out part alone, the gate beside the first seed. Their
    // misses are not printed.
    for part in AUDIT_HELD_OUT {
        let cases = load(part);
        describe(&format!("audit {part}"), &cases);
        score(
            &format!("audit (grammar) {part}"),
            &cases,
            |c| gate_blocks(&gates, c),
            false,
        );
        score(
            &format!("audit {part}, the seed's regex"),
            &cases,
            |c| seeds.blocks(Gate::Audit, c).unwrap(),
            false,
        );
    }
    // Each earlier held-out part, scored alone today (their first-run
    // figures are in the closing note).
    for part in &audit_seen()[3..] {
        score(
            &format!("audit (grammar) {part} today"),
            &load(part),
            |c| gate_blocks(&gates, c),
            false,
        );
    }
    // Messages of two to four sentences, the length of real final
    // messages: change summaries beside the same changes told with a
    // check. Written in the fourteenth session to probe an audit model
    // (tried in 95d29a2, reverted); read, so a tuning part, and kept out
    // of the seen parts' figure and pairs. The grammar reads some
    // behaviours a change gives ("with it, the command prints the 3 kinds
    // of operations and exits 0", a backoff from 200 ms to 5 s) as tries
    // or measures: 5 of its 60 summaries pass (11 before a summary's
    // heading was read as one, in the sixteenth session; 6 until "the
    // usual pattern" was read as a source, in the nineteenth). A floor,
    // not a goal.
    audit_summaries_and_corpus("audit (grammar)", &gates);
    // The seen parts, fitted to (their remaining misses are audits told
    // as a behaviour with no try or outcome word, or with the referent in
    // another sentence, and, since 61 and 62, a feature described under a
    // topic heading: "Bounce handling: the webhook marks … `bounced`").
    // Each part that joins them brings misses that no round removed:
    // precision 0.981 over 21 parts, 0.963 over 26, 0.958 over 34, 0.967
    // over 43, 0.967 over 46, 0.976 over 59, 0.973 over 65, 0.969 over 75,
    // 0.970 over 77 and over 79, 0.971 over 81, 83 and 85, 0.969 over 87,
    // 0.968 over 89 and over 91, 0.965 over 93; recall 0.996 over 59,
    // 0.987 over 65, 0.978 over 75, 0.976 over 77, 0.969 over 79 and over
    // 81, 0.970 over 83, 0.969 over 85, 0.962 over 87, 0.959 over 89,
    // 0.958 over 91 and over 93 (the near misses of 59
    // to 76 that describe a feature, list what was looked at, or name a
    // check and state a rule, under a heading; the floor was 0.98 until 71
    // and 72 joined, 0.975 until 75 and 76 did, 0.965 until 83 and 84 did:
    // 26 of their 75 turns without an audit passed on their first run, and
    // the round fitted to them left 24, most a design told under a topic
    // heading that no rule tried could tell from a finding told the same
    // way; 0.96 until 85 and 86 did, with 12 of their turns without an
    // audit still passing after the round fitted to them; 0.95 until 100
    // joined: the grammar was not fitted to 93 to 101, read for the
    // learned judge only; over 104 parts it scored 0.954 / 0.950, the
    // recall just under 0.95, and over 105 0.955 / 0.949; 0.95 / 0.94
    // until 109 and 110 joined, over 114 parts 0.949 / 0.944).
    assert_bounds("audit (grammar) seen", &f.tune, 0.94, 0.94);
    // Below the issue's target (0.98, 0.95): see AUDIT_HELD_OUT. The
    // held-out parts gave precision 0.750 to 1.000 and recall 0.579 to
    // 1.000 on their first runs, each alone; pooled, the last ten pairs
    // gave 0.795 to 1.000 and 0.653 to 0.973. The floors are where the
    // parts stand, not a goal: for recall 0.75 until 67 and 68 (0.684)
    // came in (83 and 84 gave 0.653), for precision 0.8 until 89 and 90
    // (0.798) did, 0.79 until 120 (0.756: the grammar was not fitted to
    // parts 93 onwards).
    assert_bounds("audit (grammar) test", &f.test, 0.75, 0.65);
}

/// The audit gate as it ships (`audit.plain_judge = "learned"`): the model
/// of `src/gates/learned.rs`, trained by `tools/train-audit-model` on the
/// seen parts (never on a held-out part, the summaries part or the
/// corpus), with the grammar's reading as evidence. The seen parts'
/// figure is the model's fit, not a measure.
#[test]
fn audit_gate_on_its_parts() {
    let f = run_gate_with(
        Config::default(),
        "audit",
        Gate::Audit,
        &audit_seen(),
        AUDIT_HELD_OUT,
        false,
    );
    let mut config = Config::default();
    config.order = vec![Gate::Audit];
    audit_summaries_and_corpus("audit", &Gates::new(&config).unwrap());
    // Where the gate stood when the learned judge was built (see
    // AUDIT_HELD_OUT): floors, not goals. The seen parts' figure is the
    // model's fit. Its precision floor moved from 0.98 to 0.97 with
    // `Grounds::Told` (0.991 -> 0.978 on 108 parts): the audits of the
    // older parts that the model doubts and only the grammar's shapes of
    // an outcome read, which the grammar was fitted to, are blocked. It
    // moved to 0.95 when doubt became a block (`AuditStatus::Uncertain`,
    // issue 48): a check the grammar finds told but the model doubts is
    // asked again, with a message saying what passes (0.980 -> 0.960 here,
    // 184 of 8,927 cases; on the blind tuning parts, which hold the turns'
    // tool uses, 0.972 / 0.858 -> 0.965 / 0.925). These parts are text
    // only: a check the turn ran, which grounds such an audit in the hook,
    // is not in them.
    assert_bounds("audit seen", &f.tune, 0.95, 0.98);
    assert_bounds(
        "audit test",
        &f.test,
        LEARNED_TEST_FLOOR.0,
        LEARNED_TEST_FLOOR.1,
    );
}

/// The summaries part and the corpus part, judged by `gates`, with the
/// floors both judges stand above: the summaries part's turns without an
/// audit blocked at recall 0.85 (the grammar lets 5 of its 60 through,
/// the learned judge 7; the retraining on 102 once let 10 through, under
/// the floor, and the floor stood at 0.83 until `Grounds::Told`), its
/// audits passed at precision 0.94 (0.98 until the retraining on 108: two
/// audits, a bundle measured before and after `npm run build` in ja and
/// ko, went from just below the model's line to just above it, logits
/// 0.03 and 0.07, where only a check told outright passes; 0.96 until the
/// retraining on 110 added a third, a Korean crash fixed and tried, "넣으면
/// 예전에는 panic이 났는데 이제 …"), every real final message of the
/// corpus part blocked.
fn audit_summaries_and_corpus(name: &str, gates: &Gates) {
    let judge = |c: &Case| gate_blocks(gates, c);
    let summaries = load("audit-tune4.tsv");
    let s = score(
        &format!("{name} audit-tune4.tsv (summaries)"),
        &summaries,
        judge,
        true,
    );
    // 0.94 until doubt became a block (0.945 -> 0.929: a fourth audit,
    // told but doubted, is asked again).
    assert_bounds(&format!("{name} summaries"), &s, 0.92, 0.85);
    if let Some(corpus) = load_corpus_as("audit", Judged::TextAfterAWrite) {
        let s = score(&format!("{name} corpus"), &corpus, judge, true);
        assert_bounds(&format!("{name} corpus"), &s, 1.0, 1.0);
    }
}

/// The shipped gate's floor on the held-out parts (precision, recall):
/// near where the first run of 99 put it (1.000 / 0.778; 97 and 98 gave
/// 0.958 / 0.852, 95 and 96 0.946 / 0.972), not a goal. The precision
/// floor moved from 0.95 to 0.94 with 116 (0.946: two audits blocked of
/// 37 blocks).
const LEARNED_TEST_FLOOR: (f64, f64) = (0.94, 0.75);

#[test]
fn hollow_gate_on_its_parts() {
    let f = run_gate(
        Gate::Hollow,
        &["hollow-tune.tsv", "hollow-tune2.tsv"],
        &["hollow-test.tsv"],
        true,
    );
    assert_bounds("hollow tune", &f.tune, 1.0, 1.0);
    assert_bounds("hollow test", &f.test, 0.98, 0.95);
}

#[test]
fn ownership_gate_on_its_parts() {
    let f = run_gate(
        Gate::Ownership,
        &["ownership-tune.tsv"],
        &["ownership-test.tsv"],
        true,
    );
    assert_bounds("ownership tune", &f.tune, 1.0, 1.0);
    assert_bounds("ownership test", &f.test, 0.98, 0.95);
}

#[test]
fn reverify_gate_on_its_parts() {
    let f = run_gate(
        Gate::Reverify,
        &["reverify-tune.tsv"],
        &["reverify-test.tsv"],
        true,
    );
    assert_bounds("reverify tune", &f.tune, 1.0, 1.0);
    assert_bounds("reverify test", &f.test, 0.98, 0.95);
}

/// Whether `text` ends in a Markdown block that a following line would
/// join: a list item, a table row or a fenced block's closing fence.
fn ends_in_block(text: &str) -> bool {
    let Some((_, last)) = text.rsplit_once('\n') else {
        return false;
    };
    let numbered = last.split_once(". ").is_some_and(|(n, _)| {
        !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
    });
    last.starts_with("```")
        || last.starts_with("- ")
        || last.starts_with("* ")
        || last.starts_with('|')
        || numbered
}

/// Two messages without an audit, one after the other, are still no audit:
/// a try word or a heading in one and an outcome or a referent in the next
/// must not make one. Every ordered pair, in one language, of every
/// seventh turn without an audit in the seen parts that the gates block
/// alone (one that passes alone is a miss of its part's figure, and would
/// pass in every pair), judged by the audit and hollow gates as the hook
/// runs them (the long text of `benches/hook_long_text.sh` once passed
/// this way). The pairs that pass are printed; the floor is on their share
/// (0.022 at ed9c5ea, 0.005 at 64b253b, 0.0098 at 262427d; 0.0053 once a
/// message after a list, a table or a fenced block started a paragraph of
/// its own, as after one that opens with a heading).
#[test]
fn audit_gate_on_pairs_of_messages_without_an_audit() {
    let mut config = Config::default();
    config.order = vec![Gate::Audit, Gate::Hollow];
    let gates = Gates::new(&config).unwrap();
    let all: Vec<Case> = audit_seen()
        .iter()
        .flat_map(|p| load(p))
        .filter(|c| c.block)
        .collect();
    let total = all.len();
    let blocks: Vec<Case> =
        all.into_iter().filter(|c| gate_blocks(&gates, c)).collect();
    println!(
        "audit pairs: {} of {total} turns without an audit pass alone, left out",
        total - blocks.len()
    );
    // Every seventh turn, so that the pairs stay a few tens of thousands.
    let sample: Vec<&Case> = blocks.iter().step_by(7).collect();
    let (mut pairs, mut passed) = (0u32, vec![]);
    for a in &sample {
        for b in &sample {
            if std::ptr::eq(*a, *b) || language(&a.text) != language(&b.text) {
                continue;
            }
            // A message that opens with a markdown heading starts a
            // paragraph: a heading never stands inside a line. So does one
            // after a message that ends in a list, a table or a fenced
            // block: glued on the same line, it would read as the last
            // item, row or line of output.
            let sep = if b.text.starts_with('#') || ends_in_block(&a.text) {
                "\n\n"
            } else if language(&a.text) == "ja" {
                ""
            } else {
                " "
            };
            let case = Case {
                block: true,
                near: false,
                prompt: a.prompt.clone(),
                tools: a.tools.clone(),
                text: format!("{}{sep}{}", a.text, b.text),
                at: format!("{} + {}", a.at, b.at),
            };
            pairs += 1;
            if !gate_blocks(&gates, &case) {
                passed.push(case);
            }
        }
    }
    for c in passed.iter().take(10) {
        println!("  pair passed ({}): {}", c.at, c.text);
    }
    let share = passed.len() as f64 / f64::from(pairs);
    println!(
        "audit pairs without an audit: {pairs} pairs, {} passed ({:.4})",
        passed.len(),
        share
    );
    assert!(share <= 0.01, "{} of {pairs} pairs passed", passed.len());
}

/// An audit the audit gate passes is not then blocked by the hollow gate
/// for saying nothing: every audit of the seen parts that the audit gate
/// passes alone, with a command run after the change (so that a claim of
/// passing tests is backed), judged by every gate as the hook runs them by
/// default. Until the twenty-fourth session the hollow gate cut an
/// outcome's whole sentence away as its lead, and blocked 989 of these
/// audits as stock phrases ("Applied the code `ANNA-7Q2` …: both accounts
/// got the €10 credit"); the ones still blocked are printed, with a
/// floor on their number (6 of 3,942 at the fix: five whose lead stands in
/// a short last sentence after what was checked, "…以前はどちらも0件でした",
/// and one that the ownership gate read as handing a choice back, a UI
/// message quoted in a list, "「別のアカウントを選んでください」で拒否",
/// until it left quotations alone; 5 of 4,020 since).
#[test]
fn audits_the_audit_gate_passes_are_not_hollow() {
    let mut alone = Config::default();
    alone.order = vec![Gate::Audit];
    let alone = Gates::new(&alone).unwrap();
    let every = Gates::new(&Config::default()).unwrap();
    let (mut judged, mut blocked) = (0, 0);
    for part in audit_seen() {
        for mut c in load(part) {
            if c.block || gate_blocks(&alone, &c) {
                continue;
            }
            let n = c.tools.len();
            c.tools.push(tool("B:make check", n));
            judged += 1;
            let facts = Facts::new(&c.text)
                .with_prompt(Some(&c.prompt))
                .with_tool_uses(&c.tools)
                .with_changed(true);
            if let Some(block) =
                every.evaluate(&facts, &SessionView::default()).block()
            {
                blocked += 1;
                println!(
                    "  blocked after the audit gate ({}): {block:?}",
                    c.at
                );
            }
        }
    }
    println!("audits the audit gate passes, blocked by another gate: {blocked} of {judged}");
    assert!(blocked <= 5, "{blocked} of {judged}");
}
