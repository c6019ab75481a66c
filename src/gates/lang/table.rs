//! The shape of a language's table: what each gate looks for, as data.
//!
//! The tables themselves are `en.rs`, `ja.rs` and `ko.rs`; this file is the
//! types they fill, so that the tables and the code that reads them
//! (`lang/mod.rs`, the gates) both stand on it.

use crate::gates::patterns::{Cancel, Pat};

/// One intent of a language: its phrases, and what cancels them besides
/// the language's negation.
#[derive(Debug)]
pub struct Intent {
    /// The grammar's phrases.
    pub pats: &'static [Pat],
    /// What voids a match of this intent only.
    pub cancel: Cancel,
}

/// The patterns of one language.
#[derive(Debug)]
pub struct LangTable {
    /// The language's code: `ja`, `en` or `ko`.
    pub code: &'static str,
    /// The audit markers of the first seed's contract ("監査", "Audit",
    /// "감사", …).
    pub markers: &'static [&'static str],
    /// Words that, right after a marker, make it part of another noun or
    /// someone else's audit: an audit log ("監査ログ") is a thing the
    /// change built, and a library that "is audited regularly" was audited
    /// by its makers, not by the agent.
    pub marker_nouns: &'static [&'static str],
    /// Words that, right before a marker, make the audit someone else's:
    /// an internal, external or yearly audit ("内部監査", "external
    /// audit", "정기 감사") is an organisation's, not the agent's.
    pub marker_owners: &'static [&'static str],
    /// The language's negation, applied to every intent: "not", "n't";
    /// "していない"; "하지 않".
    pub negation: Cancel,
    /// Decision ownership: the final text hands the decision back.
    pub deference: Intent,
    /// Challenge reverify: the user's prompt disputes the agent.
    pub challenge: Intent,
    /// Challenge reverify: the final text concedes.
    pub capitulation: Intent,
    /// Challenge reverify: the final text cites evidence.
    pub verification: Intent,
    /// Challenge reverify: the final text admits an error of its own ("my
    /// mistake", "こっちのミス", "제 실수"). There is nothing to admit unless
    /// the prompt disputed the agent, so an admission concedes a challenge
    /// whatever words the prompt used.
    pub admission: Intent,
    /// Challenge reverify: words that open a reply agreeing ("yep",
    /// "ああ", "네"). After a challenge, a reply that opens with one and
    /// contests nothing ([`LangTable::contest`]) concedes.
    pub agreement: &'static [&'static str],
    /// Challenge reverify: words that contest ("however", "ですが", "하지만").
    pub contest: &'static [&'static str],
    /// Hollow audit: the final text claims it verified the change.
    pub claims: Intent,
    /// Hollow audit: stock words that carry no specifics.
    pub stock: &'static [&'static str],
    /// Plain-language audits: how the audit is told, and what it must name.
    pub plain: PlainTable,
    /// Grounded audits: the words that name a check the turn ran, and
    /// those that tell what came of it (see `gates::grounded`).
    pub grounded: GroundedTable,
}

/// The words of grounded audits in one language: see
/// [`crate::gates::grounded`].
#[derive(Debug)]
pub struct GroundedTable {
    /// Words that name a test run ("tests", "テスト").
    pub test: &'static [&'static str],
    /// Words that name a build ("build", "ビルド").
    pub build: &'static [&'static str],
    /// Words that name a linter or type checker ("lint", "型チェック").
    pub lint: &'static [&'static str],
    /// Words that name a search of the code ("grep", "検索").
    pub search: &'static [&'static str],
    /// Words that name a request to the program ("request", "응답").
    pub request: &'static [&'static str],
    /// Words that name a re-read of the code ("re-read", "読み直").
    pub read: &'static [&'static str],
    /// Words that name running something ("ran", "実行").
    pub run: &'static [&'static str],
    /// Words that tell what came of a check ("returns", "出なく", "나왔"),
    /// besides the [`verdicts`](GroundedTable::verdicts), which do too.
    pub outcomes: &'static [&'static str],
    /// The outcomes that claim a check passed ("passes", "green", "통과"):
    /// a sentence that names a check with one of them claims it ran.
    pub verdicts: &'static [&'static str],
    /// Words that present a self-check ("self-check", "検証", "점검"): with
    /// a stock phrase in the same clause ("Self-check: no issues found"),
    /// a text with no other audit holds a hollow one.
    pub check_leads: &'static [&'static str],
    /// Words that make a sentence a plan, a hedge or a request ("should",
    /// "はず", "주세요"): it reports no outcome.
    pub hedges: &'static [&'static str],
    /// Words that negate a run ("didn't", "ていない", "않았"): a clause
    /// that holds one claims no run, whatever it names ("I haven't run
    /// `cargo test`", "테스트나 평가를 돌리지 않았으니").
    pub negations: &'static [&'static str],
}

/// The phrases of plain-language audits in one language: see
/// [`crate::gates::plain`].
#[derive(Debug)]
pub struct PlainTable {
    /// Headings that name what was checked ("edge cases", "リスク",
    /// "위험"): a lead when a colon, or one of `heading_ends`, follows
    /// within the clause.
    pub heads: &'static [&'static str],
    /// What may end a heading instead of a colon ("として、").
    pub heading_ends: &'static [&'static str],
    /// Past-tense statements of checking ("I verified", "確認しました",
    /// "검증했"): a lead wherever they stand, unless negated.
    pub verbs: &'static [&'static str],
    /// Named failure modes, each a specific referent ("race", "競合",
    /// "경쟁").
    pub failure_modes: &'static [&'static str],
    /// Kinds of check, not things checked ("error handling", "edge cases",
    /// "동시성"): a marker audit that lists only these ("Audit: reviewed
    /// error handling, edge cases and concurrency; all good") names
    /// nothing, so they are no referent to the hollow gate.
    pub categories: &'static [&'static str],
    /// Products, platforms and days a check was made on, as the language
    /// spells them ("크롬", "アウトルック", "土曜"): a named thing, as a
    /// capitalised name is in English ("Outlook", "Saturday"), so each is
    /// a specific referent.
    pub products: &'static [&'static str],
    /// Words that negate a lead or a marker standing after them in its
    /// clause ("not", "never").
    pub negations_before: &'static [&'static str],
    /// Words that negate a lead or a marker they directly follow
    /// ("nothing", "していない", "하지 않").
    pub negations_after: &'static [&'static str],
    /// What an empty heading says after its colon ("none", "なし",
    /// "없음").
    pub empty: &'static [&'static str],
    /// Acts of checking, in any person and voice, each in the forms that
    /// say it was done: a past form ("ran", "diffed"), a stem and a
    /// perfective ending ("確かめ" … "ました", "돌려" … "봤"). An act is a
    /// lead wherever it stands when its sentence also names a referent,
    /// or when it heads a list with one ("Things I double-checked:").
    /// What is still to be done, asked for or wished is no act: those
    /// forms are left out of the tables, or voided.
    pub acts: &'static [Pat],
    /// What cancels an act besides the language's negation: a modal, a
    /// future, a present passive that describes code ("is validated").
    pub act_cancel: Cancel,
    /// Phrases that void an act they overlap: a wish or a request built on
    /// the same stem ("確認したい", "확인해 주세요"), a phrasal verb that
    /// is no check ("checked in", "ran into").
    pub act_void: &'static [&'static str],
    /// Words that, directly before an act, make it an adjective: "the
    /// observed crash", "a profiled build" name things, and report no
    /// check.
    pub attributive: &'static [&'static str],
    /// Words that make a short heading name the work, a plan or a place,
    /// not a check ("Summary:", "Next steps:", "Branch:"): a topic heading
    /// ("Old clients:", "メモリ：") is a lead only without them, or the
    /// words of [`PlainTable::changes`] ("Fixed:", "変更点：").
    pub not_topics: &'static [&'static str],
    /// Words of a heading that introduces a summary of the work
    /// ("Summary:", "まとめ：", "요약:"): the sentence after it tells the
    /// work, whatever its verbs ("the handler verifies the signature").
    pub summaries: &'static [&'static str],
    /// Headers of a table column that tells what came of each case
    /// ("got", "結果", "결과"), lowercased: such a table shows a check.
    pub result_columns: &'static [&'static str],
    /// Lead-ins that make a pasted run an instruction ("To verify:",
    /// "Run:", "確認するには", "확인하려면"), lowercased: what the reader
    /// is to run and see, not what the agent saw.
    pub instructions: &'static [&'static str],
    /// Words that tell a change made where they open an English statement
    /// or end a Japanese or Korean one ("added", "now", "追加", "추가"): a
    /// heading's body, a sentence a try is carried from, or one that sets
    /// now against then, is no check when it tells a change; a heading
    /// with one names the work. The words of `not_topics` name a heading
    /// ("Summary", "Test", "I") and tell no change: "Stress test: the race
    /// used to fail …" is none.
    pub changes: &'static [&'static str],
    /// Words that make a statement of a result an expectation, a plan or
    /// advice to the user, not an observation ("should", "はず", "주세요").
    pub unsure: &'static [&'static str],
    /// Units that make a number a measured quantity, after the number
    /// ("ms", "件", "건"); every language's units apply to every text.
    pub units: &'static [&'static str],
    /// Words that set two quantities against each other ("from", "vs",
    /// "から", "에서").
    pub comparisons: &'static [&'static str],
    /// Words that make a comparison of quantities a measurement: a metric
    /// ("p95", "メモリ") or a verb of a result ("dropped", "減った",
    /// "줄었").
    pub measures: &'static [&'static str],
    /// Verbs that make a comparison of quantities a setting changed, not a
    /// result ("bumped the timeout from 30 s to 60 s", "설정").
    pub settings: &'static [&'static str],
    /// What frames a sentence as a try the agent made: a condition or a
    /// perturbation ("when I", "with the flag off", "すると", "하면",
    /// "by hand", "twice").
    pub tries: &'static [&'static str],
    /// What a try found: an outcome ("identical", "exactly one", "still
    /// works", "came back", "一致", "返り", "그대로", "나오고").
    pub outcomes: &'static [&'static str],
    /// What makes a check hearsay: reading what the code should do rather
    /// than watching what it does ("by reading the docs",
    /// "ドキュメントを読", "문서를 … 읽고"). A check told with one counts
    /// only with a number or code beside it.
    pub hearsay: &'static [&'static str],
    /// What makes a check a reading of the code, whatever it names ("the
    /// logic in `f`", "コードを確認", "코드를 확인"): the code said what
    /// it would do, nothing was seen doing it.
    pub code_read: &'static [&'static str],
    /// Verbs of looking ("checked", "went through") that, before "the",
    /// at most three words and one of [`PlainTable::code_nouns`], read
    /// the code too ("I checked the analyzer config"); lowercased. English
    /// only: Japanese and Korean name the thing in [`PlainTable::code_read`]
    /// ("コードを確認").
    pub look_verbs: &'static [&'static str],
    /// Nouns of the code or its configuration ("config", "handler") that
    /// a verb of [`PlainTable::look_verbs`] reads; lowercased.
    pub code_nouns: &'static [&'static str],
    /// Words of a guess ("looks like", "なさそう", "없어 보입니다"),
    /// lowercased: a finding told with one after an act of checking was
    /// inferred from it, not seen ("I went through the changelog and none
    /// of them look like they affect us").
    pub guesses: &'static [&'static str],
    /// A document, a custom or a request named as what shows a behaviour
    /// ("as the guidelines say", "ドキュメントによると", "문서에 따르면",
    /// "as requested"): hearsay whatever figures or code the sentence
    /// holds.
    pub sources: &'static [&'static str],
    /// Others whose check an act may tell ("legal", "法務", "법무팀"),
    /// lowercased: an act they did, joined to them by the language's
    /// particle or preposition ("法務に確認済み", "법무팀이 확인했습니다",
    /// "confirmed with legal"), was not the agent's.
    pub parties: &'static [&'static str],
    /// A person named as the subject of what follows, by an honorific and
    /// a particle ("님이", "さんが"): an act after one in its sentence is
    /// a teammate's ("요나스 님이 브라우저 두 개로 해 봤는데 …"), not the
    /// agent's. English names its people with a capital letter instead
    /// (see [`PlainTable::openers`]).
    pub person_subjects: &'static [&'static str],
    /// Words by which the agent names itself as the one acting after a
    /// person named in the same sentence ("지은 님이 알려 준 절차로 제가
    /// 직접 돌려 봤더니", "田中さんの手順で私も試すと"): the act is its own.
    pub selves: &'static [&'static str],
    /// Words that, in the sentence of an act right after a capitalised
    /// English word, show that word names a person, not a tool: a
    /// pronoun or a word of report, with the spaces around it (" her ",
    /// " says"). "Priya ran the export on her machine" is Priya's run,
    /// "Playwright ran the suite" the agent's.
    pub person_words: &'static [&'static str],
    /// Capitalised words that open an English sentence before an act
    /// without being its subject ("Then ran …", "Also tried …"),
    /// lowercased: any other capitalised word right before an act names
    /// the person who did it ("Jonas tried it with two browsers").
    pub openers: &'static [&'static str],
    /// What makes a sentence reasoning rather than a try: a cause given
    /// for what would happen ("…にしたので、2回流しても問題ありません",
    /// "했으니 죽어도 …"). A sentence with one is no try, whatever it
    /// names.
    pub reasons: &'static [&'static str],
    /// What tells a state before the work, set against what is seen now
    /// ("used to", "以前は", "예전에는"), or that something stopped ("no
    /// longer", "なくなり", "더 이상"). With an outcome or two numbers in
    /// its sentence, a contrast of then and now. Alone it is not enough:
    /// "`parse()` no longer allocates" tells a change as often as a check.
    pub then: &'static [&'static str],
}
