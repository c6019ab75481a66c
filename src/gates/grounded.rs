//! Audits grounded in the turn: a check the turn ran, and what came of it.
//!
//! The words of a final message are weak evidence of an audit; the turn's
//! tool uses are strong. When the turn ran a check after its last change
//! (the tests, a build, a linter, a grep, a request to the program, a
//! re-read of the code) and the message names that check and says what
//! came of it ("`pytest tests/jobs` passes (12)", "grep for
//! `SECRET_KEY` comes back empty", "린트는 경고 없이 통과했고"), the
//! message reports an audit, whatever its other words. The same report
//! with nothing run after the last change is the hollow gate's unbacked
//! claim.
//!
//! A check is named either by its own words (the program or subcommand
//! of the command that ran: `pytest`, `manage.py`, `helm lint`) or by the
//! words of its kind in the message's language ("tests", "ビルド", "린트").
//! What came of it is an outcome word or a number in the same sentence,
//! or an outcome word in the next one (the output line under a command in
//! a fenced block). A sentence that plans, hedges or asks ("should pass
//! once CI runs", "please run the tests") reports nothing.

use super::lang::{GroundedTable, LangTable};
use super::sentence::{self, is_word_at, sentences_within};
use crate::error::Error;
use std::borrow::Cow;

use super::patterns::LazyKeywords;
use crate::keywords::{KeywordMatch, KeywordSet};
use crate::read::ToolCall;

/// What kind of check a tool use is: which words name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CheckKind {
    /// A test runner: `pytest`, `cargo test`, `npx vitest run`.
    Test,
    /// A build or compile: `cargo build`, `npm run build`, `tsc`.
    Build,
    /// A linter, type checker or validator: `ruff`, `mypy`, `helm lint`.
    Lint,
    /// A search of the code: `grep`, `rg`, the agent's Grep tool.
    Search,
    /// A request to a running program: `curl`, `wget`.
    Request,
    /// A re-read of the code after the change.
    Read,
    /// Any other command: running the program, a dry run, a migration.
    Run,
}

impl CheckKind {
    /// Every kind, in order.
    const ALL: [CheckKind; 7] = [
        CheckKind::Test,
        CheckKind::Build,
        CheckKind::Lint,
        CheckKind::Search,
        CheckKind::Request,
        CheckKind::Read,
        CheckKind::Run,
    ];

    /// The words of `table` that name a check of this kind.
    fn words(self, table: &GroundedTable) -> &'static [&'static str] {
        match self {
            CheckKind::Test => table.test,
            CheckKind::Build => table.build,
            CheckKind::Lint => table.lint,
            CheckKind::Search => table.search,
            CheckKind::Request => table.request,
            CheckKind::Read => table.read,
            CheckKind::Run => table.run,
        }
    }
}

/// A check the turn ran after its last change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RanCheck {
    kind: CheckKind,
    /// What ran, as the transcript records it (empty for a read).
    command: String,
    /// The command's own names, lower-cased: its program and subcommand.
    names: Vec<String>,
}

/// The tools that read a file, by client.
const READ_TOOLS: &[&str] =
    &["Read", "read_file", "ReadFile", "read_many_files", "View", "view"];

/// The tools that search the code, by client.
const SEARCH_TOOLS: &[&str] =
    &["Grep", "Glob", "grep_search", "search_file_content", "glob"];

/// Words before a program that only run it: `sudo`, `npx`, `uv run`.
const WRAPPERS: &[&str] = &[
    "sudo", "env", "time", "timeout", "nice", "npx", "pnpm", "yarn", "bunx",
    "bun", "npm", "uv", "poetry", "pipenv", "bundle", "exec", "run", "dotnet",
    "python", "python3", "node", "deno", "sh", "bash", "-m", "-c", "rye",
];

/// The outcome words that are arrows: an outcome only after the check.
const ARROWS: &[&str] = &["→", "->", "=>"];

/// The extensions of scripts, which a message names without them.
const SCRIPT_EXTENSIONS: &[&str] =
    &["py", "sh", "js", "mjs", "cjs", "ts", "rb", "pl", "php"];

/// Programs too common to name a check alone ("go test" does).
const GENERIC: &[&str] = &["go", "git", "make"];

/// Programs that check nothing: a simple command of theirs names no check.
const NOT_CHECKS: &[&str] = &[
    "cd", "echo", "cat", "ls", "export", "source", "mkdir", "cp", "mv", "rm",
    "printf", "true", "set", "touch", "chmod", "head", "tail", "pwd", "which",
    "sleep", "clear",
];

/// `git` subcommands that check nothing: they record, move or show the
/// work (`git grep` and `git diff --check` do check).
const GIT_NOT_CHECKS: &[&str] = &[
    "add", "commit", "status", "log", "show", "stash", "push", "pull",
    "checkout", "switch", "branch", "fetch", "restore", "reset", "tag",
    "remote", "config", "init", "clone", "merge", "rebase",
];

/// The most checks kept of one turn, and of names of one command: a
/// reading stays linear in the text whatever the turn ran (a heredoc
/// script of a thousand lines is one command).
const MAX_CHECKS: usize = 32;
const MAX_NAMES: usize = 16;

/// The checks of `uses` after `last`, the last tool use that changed
/// files, in order, each kind and name once. When `changed` but no use of
/// the turn changed files (the change was carried to the turn, or only the
/// hook's flag knows of it), every use of the turn came after it.
pub(crate) fn ran_after_change(
    uses: &[ToolCall],
    last: Option<usize>,
    changed: bool,
) -> Vec<RanCheck> {
    match last {
        Some(last) => checks_in(&uses[last + 1..]),
        None if changed => checks_in(uses),
        None => vec![],
    }
}

/// The checks among `uses`, in order, each kind and name once, at most
/// [`MAX_CHECKS`] of them.
pub(crate) fn checks_in(uses: &[ToolCall]) -> Vec<RanCheck> {
    let mut checks: Vec<RanCheck> = vec![];
    for check in uses.iter().filter_map(RanCheck::of) {
        let seen = checks
            .iter()
            .any(|c| c.kind == check.kind && c.names == check.names);
        if !seen && checks.len() < MAX_CHECKS {
            checks.push(check);
        }
    }
    checks
}

impl RanCheck {
    fn of(call: &ToolCall) -> Option<RanCheck> {
        let name = call.name();
        if READ_TOOLS.contains(&name) {
            return Some(RanCheck::new(CheckKind::Read, ""));
        }
        if SEARCH_TOOLS.contains(&name) {
            return Some(RanCheck::new(CheckKind::Search, ""));
        }
        let command = call.command().filter(|_| call.runs_command())?;
        // A command whose every part checks nothing (`git status`,
        // `git add -A && git commit`, `ls tests/`) is no check.
        // A build program (`make -j4`) names no check by itself, yet runs
        // a build.
        let names = command_names(command);
        if names.is_empty() && !runs_build_program(command) {
            return None;
        }
        let kind = kind_of(command, &names);
        Some(RanCheck { kind, command: command.to_string(), names })
    }

    /// Whether the check is of a kind its own words name: a test run, a
    /// build, a linter, a search or a request; not a mere run or read.
    pub(crate) fn is_named_kind(&self) -> bool {
        !matches!(self.kind, CheckKind::Run | CheckKind::Read)
    }

    fn new(kind: CheckKind, command: &str) -> RanCheck {
        RanCheck { kind, command: command.to_string(), names: vec![] }
    }

    /// The kind of check.
    pub(crate) fn kind(&self) -> CheckKind {
        self.kind
    }

    /// What ran, as the transcript records it; empty for a read.
    pub(crate) fn command(&self) -> &str {
        &self.command
    }
}

/// The program and subcommand of each simple command of `command`,
/// lower-cased: `python manage.py check --deploy` names `manage.py` and
/// `check`; `./gradlew connectedDebugAndroidTest` names `gradlew` and
/// `connecteddebugandroidtest`.
fn command_names(command: &str) -> Vec<String> {
    let mut names = vec![];
    for simple in command.split(['&', '|', ';', '\n', '(', ')']) {
        let words = simple
            .split_whitespace()
            .map(|w| w.trim_matches(['"', '\'', '`']))
            .filter(|w| !w.is_empty() && !w.contains('='));
        let mut words = words
            .skip_while(|w| WRAPPERS.contains(w) || w.parse::<f64>().is_ok());
        let Some(program) = words.next() else { continue };
        let program = program.rsplit('/').next().unwrap_or(program);
        if NOT_CHECKS.contains(&program) {
            continue;
        }
        let sub = words.find(|w| !w.starts_with('-'));
        if program == "git" && sub.is_none_or(|s| GIT_NOT_CHECKS.contains(&s))
        {
            continue;
        }
        let sub = sub.filter(|s| !s.contains('/') && s.len() >= 3);
        let program = program.to_ascii_lowercase();
        // A query plan asked of a database's client (`psql app -c
        // "EXPLAIN SELECT …"`) is named by its first word.
        if SQL_CLIENTS.contains(&program.as_str())
            && simple.split_whitespace().any(|w| {
                w.trim_matches(['"', '\'']).eq_ignore_ascii_case("explain")
            })
        {
            names.push("explain".to_string());
        }
        if let Some(sub) = sub {
            let sub = sub.to_ascii_lowercase();
            names.push(format!("{program} {sub}"));
            if sub.len() >= 4 && sub != "run" {
                names.push(sub);
            }
        }
        if program.len() >= 3 && !GENERIC.contains(&program.as_str()) {
            // A script is named without its extension too ("the
            // claude-debugger script" for `python3 claude-debugger.py`),
            // when the stem is a compound, not a word of prose
            // (`manage.py`, `server.js`).
            if let Some((stem, _)) = program
                .rsplit_once('.')
                .filter(|(_, ext)| SCRIPT_EXTENSIONS.contains(ext))
                .filter(|(stem, _)| stem.contains(['-', '_']))
            {
                names.push(stem.to_string());
            }
            names.push(program);
        }
        if names.len() >= MAX_NAMES {
            names.truncate(MAX_NAMES);
            break;
        }
    }
    names
}

/// The clients of databases, whose query may be a check (`EXPLAIN`).
const SQL_CLIENTS: &[&str] =
    &["psql", "mysql", "mariadb", "sqlite3", "duckdb", "clickhouse-client"];

/// Programs and subcommands that run tests.
const TESTS: &[&str] = &[
    "test",
    "tests",
    "pytest",
    "jest",
    "vitest",
    "mocha",
    "rspec",
    "phpunit",
    "ctest",
    "tox",
    "nox",
    "playwright",
    "cypress",
];

/// Programs and subcommands that lint, type-check or validate.
const LINTS: &[&str] = &[
    "lint",
    "eslint",
    "ruff",
    "flake8",
    "pylint",
    "mypy",
    "pyright",
    "clippy",
    "vet",
    "shellcheck",
    "actionlint",
    "hadolint",
    "stylelint",
    "rubocop",
    "phpstan",
    "tflint",
    "validate",
    "yamllint",
    "check",
    "golangci-lint",
    "typecheck",
    "kubeval",
    "tsc",
    "plan",
    "template",
    "dry-run",
];

/// Programs and subcommands that build.
const BUILDS: &[&str] =
    &["build", "compile", "cmake", "webpack", "package", "assemble"];

/// Programs that build when run with no subcommand or a target of their
/// own (`make`, `make -j4`, `make all`, `ninja -C out`); too generic to
/// name a check alone ([`GENERIC`]), they still make a run a build.
const BUILD_PROGRAMS: &[&str] =
    &["make", "gmake", "ninja", "xcodebuild", "msbuild", "scons"];

/// Targets of those programs that build nothing.
const NOT_BUILD_TARGETS: &[&str] = &["clean", "distclean", "help"];

/// Whether a simple command of `command` runs a build program
/// ([`BUILD_PROGRAMS`]) on a target that builds.
fn runs_build_program(command: &str) -> bool {
    command.split(['&', '|', ';', '\n', '(', ')']).any(|simple| {
        let mut words = simple
            .split_whitespace()
            .map(|w| w.trim_matches(['"', '\'', '`']))
            .filter(|w| !w.is_empty() && !w.contains('='))
            .skip_while(|w| WRAPPERS.contains(w));
        let Some(program) = words.next() else { return false };
        let program = program.rsplit('/').next().unwrap_or(program);
        BUILD_PROGRAMS.contains(&program)
            && words
                .find(|w| !w.starts_with('-'))
                .is_none_or(|t| !NOT_BUILD_TARGETS.contains(&t))
    })
}

/// The kind of a command from its words.
fn kind_of(command: &str, names: &[String]) -> CheckKind {
    let has = |w: &str| names.iter().any(|n| n.split(' ').any(|p| p == w));
    let lower = command.to_ascii_lowercase();
    // By the program, its subcommand and its options only: `git commit -m
    // 'add tests'` runs no test; `connectedDebugAndroidTest` and `Unity
    // -runTests` do.
    let test_option = lower
        .split_whitespace()
        .any(|w| w.starts_with('-') && w.contains("test"));
    if TESTS.iter().any(|w| has(w))
        || names.iter().any(|n| n.contains("test"))
        || test_option
    {
        CheckKind::Test
    } else if LINTS.iter().any(|w| has(w)) || lower.contains("--noemit") {
        CheckKind::Lint
    } else if BUILDS.iter().any(|w| has(w)) || runs_build_program(&lower) {
        CheckKind::Build
    } else if ["grep", "rg", "ag", "ack"].iter().any(|w| has(w)) {
        CheckKind::Search
    } else if ["curl", "wget", "http"].iter().any(|w| has(w)) {
        CheckKind::Request
    } else {
        CheckKind::Run
    }
}

/// The words of the grounded reading, over the configured languages.
#[derive(Clone, Debug)]
pub(crate) struct Grounding {
    kinds: Vec<(CheckKind, LazyKeywords)>,
    outcomes: LazyKeywords,
    verdicts: LazyKeywords,
    hedges: LazyKeywords,
    /// Words that negate a run: see [`GroundedTable::negations`].
    negations: LazyKeywords,
    leads: LazyKeywords,
    /// Every kind's words, and the programs that check: what names a
    /// check that may not have run.
    any_check: LazyKeywords,
}

/// A sentence of a final text that reports a check the turn ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Report {
    /// The check reported.
    pub(crate) check: RanCheck,
    /// The sentence that names it.
    pub(crate) sentence: String,
}

/// The longest sentence looked at, so that a text with no sentence end is
/// still read in linear time.
const MAX_SENTENCE: usize = 2048;

impl Grounding {
    /// The words of `tables`; each set is built on first use, so a hook
    /// run that reads no grounded audit builds none (`dfa`: as the other
    /// sets of the gates, for a scan).
    pub(crate) fn new(
        tables: &[&LangTable],
        dfa: bool,
    ) -> Result<Grounding, Error> {
        let set = |words: Vec<&'static str>| {
            LazyKeywords::overlapping(
                words.into_iter().map(Cow::Borrowed).collect(),
                dfa,
            )
        };
        let words = |pick: fn(&GroundedTable) -> &'static [&'static str]| {
            set(tables
                .iter()
                .flat_map(|t| pick(&t.grounded))
                .copied()
                .collect())
        };
        let kinds = CheckKind::ALL
            .into_iter()
            .map(|k| {
                let all = tables
                    .iter()
                    .flat_map(|t| k.words(&t.grounded))
                    .copied()
                    .collect();
                Ok((k, set(all)?))
            })
            .collect::<Result<_, Error>>()?;
        let any_check = tables
            .iter()
            .flat_map(|t| {
                let g = &t.grounded;
                [g.test, g.build, g.lint, g.search, g.request]
            })
            .flatten()
            .chain(TESTS)
            .chain(LINTS)
            .chain(BUILDS)
            .copied()
            .collect();
        Ok(Grounding {
            kinds,
            // A verdict ("passes", "통과") tells an outcome too.
            outcomes: set(tables
                .iter()
                .flat_map(|t| {
                    t.grounded.outcomes.iter().chain(t.grounded.verdicts)
                })
                .copied()
                .collect())?,
            verdicts: words(|g| g.verdicts)?,
            hedges: words(|g| g.hedges)?,
            negations: words(|g| g.negations)?,
            leads: words(|g| g.check_leads)?,
            any_check: set(any_check)?,
        })
    }

    /// The first sentence of `text` that claims a check passed, whether or
    /// not one ran: it names a check by its kind or its program, and holds
    /// a verdict ("the suite passes", "`shellcheck` 경고 없이 통과"); or it
    /// names a run, by a word of testing or running ("Tested:", "ran the
    /// benchmark") or by a command line in a code span (`` `nginx -t` ``,
    /// `` `cargo bench --bench lex` ``), and tells what came of it after
    /// that ("shows 22% less time", "で構文 OK").
    ///
    /// The check comes first and the verdict after it, as the subject and
    /// its verdict do in English, Japanese and Korean alike: "the helper
    /// now passes the fixture, so the test …" claims no run.
    pub(crate) fn claim(&self, text: &str) -> Option<String> {
        clauses(text).into_iter().find_map(|s| {
            if fires(self.hedges.get(), s) {
                return None;
            }
            let check =
                words_in(self.any_check.get(), s).map(|m| m.end()).min();
            let verdict = check.is_some_and(|check| {
                words_in(self.verdicts.get(), s).any(|m| m.start() >= check)
            });
            (verdict || self.run_claimed(s)).then(|| s.to_string())
        })
    }

    /// Whether clause `s` tells a run and what came of it: a command line
    /// in a code span, then an outcome or a number ("`cargo bench --bench
    /// lex` shows 22% less time"); or a word of testing or running, then an
    /// outcome ("Tested: … starts only after …"). Not when negated ("I
    /// haven't run `cargo test`").
    fn run_claimed(&self, s: &str) -> bool {
        // "haven’t" with a typographic apostrophe negates as "haven't".
        let plain = if s.contains('\u{2019}') {
            Cow::Owned(s.replace('\u{2019}', "'"))
        } else {
            Cow::Borrowed(s)
        };
        if fires(self.negations.get(), &plain) {
            return false;
        }
        let outcome = |after: &str| fires(self.outcomes.get(), after);
        let told = |after: &str| outcome(after) || has_number(after);
        // After a word of running, "successfully" may tell of the code
        // ("tried two approaches and kept the one that successfully …"),
        // and a number may count something else ("ran into 3 call
        // sites", "flashed 3 times"): a run is told when its object
        // follows ("flashed it", "ran the suite", "ran `…`").
        let run_told = |after: &str| {
            let result = words_in(self.outcomes.get(), after)
                .any(|m| self.outcomes.get().keyword(m) != "successfully");
            let a = after.trim_start();
            let object = a.starts_with('`')
                || [
                    "it", "the", "them", "this", "that", "to", "on", "against",
                ]
                .iter()
                .any(|w| {
                    a.get(..w.len()).is_some_and(|h| h.eq_ignore_ascii_case(w))
                        && !a[w.len()..]
                            .starts_with(|c: char| c.is_alphanumeric())
                });
            result || (object && has_number(after))
        };
        let by_command = code_spans(s)
            .filter(|(_, span)| is_check_command(span))
            .any(|(end, _)| told(&s[end..]));
        // Any command line, then what it said ("`gwctl can status`
        // reports `bitrate 500000`"): a run of a tool of the project's own.
        let by_any_command = code_spans(s)
            .filter(|(_, span)| looks_like_command(span))
            .any(|(end, _)| starts_telling(&s[end..]));
        by_command
            || by_any_command
            || self.run_named(s).is_some_and(|end| {
                // A number tells a result after an English act ("flashed
                // it: 4 Hz, then 1 Hz"); the other languages' words of
                // running also name the code's own running ("… 블록은
                // 실행되기 때문에 … 15분"), so they need an outcome word.
                let act = &s[..end];
                let english = act
                    .rsplit(|c: char| !c.is_alphanumeric())
                    .next()
                    .is_some_and(|w| w.is_ascii());
                if english {
                    run_told(&s[end..])
                } else {
                    outcome(&s[end..])
                }
            })
    }

    /// Where the first word of testing or running in clause `s` ends
    /// ("tested", "ran", "テスト", "실행"). An English word of testing
    /// counts only as an act in the past ("tested"), not as a noun: "our
    /// slow paging test" ran nothing.
    fn run_named(&self, s: &str) -> Option<usize> {
        self.kinds
            .iter()
            .filter(|(k, _)| matches!(k, CheckKind::Test | CheckKind::Run))
            .filter_map(|(k, set)| {
                let set = set.get();
                words_in(set, s).find(|&m| {
                    let word = set.keyword(m);
                    *k == CheckKind::Run
                        || !word.is_ascii()
                        || word.ends_with("ed")
                })
            })
            .map(|m| m.end())
            .min()
    }

    /// Every clause of `text` that presents a self-check and holds a
    /// stock phrase: the phrase, and the clause presented (for a bare lead,
    /// the clause after it) without its lead words.
    pub(crate) fn stock_checks<'t>(
        &'t self,
        text: &'t str,
        stock: &'t KeywordSet,
    ) -> impl Iterator<Item = (String, String)> + 't {
        let clauses = clauses(text);
        (0..clauses.len()).filter_map(move |i| {
            let s = clauses[i];
            if !fires(self.leads.get(), s) {
                return None;
            }
            let presented = match clauses.get(i + 1) {
                Some(next) if self.bare_lead(s) => *next,
                _ => s,
            };
            // The longest phrase: "no issues found" rather than "no"; not
            // the lead itself ("checked" leads, and is a stock word too).
            let rest = self.without_leads(presented);
            // Not in code: `BOOT_COMPLETED` says nothing of a check.
            words_in(stock, &rest)
                .filter(|m| !sentence::in_code_span(&rest, m.start()))
                .map(|m| stock.keyword(m))
                .max_by_key(|k| k.chars().count())
                .map(|k| k.to_string())
                .map(|phrase| (phrase, rest))
        })
    }

    /// `s` without the words that lead a self-check.
    fn without_leads(&self, s: &str) -> String {
        let mut rest = String::with_capacity(s.len());
        let mut last = 0;
        for m in words_in(self.leads.get(), s) {
            if m.start() >= last {
                rest.push_str(&s[last..m.start()]);
                last = m.end();
            }
        }
        rest.push_str(&s[last..]);
        rest
    }

    /// Whether clause `s` is a lead and nothing else: its lead words
    /// removed, only Markdown and punctuation are left ("## Audit",
    /// "**Self-check:**", "確認:").
    fn bare_lead(&self, s: &str) -> bool {
        self.without_leads(s).chars().all(|c| !c.is_alphanumeric())
    }

    /// The first sentence of `text` that reports one of `checks` with
    /// its outcome.
    pub(crate) fn report(
        &self,
        text: &str,
        checks: &[RanCheck],
    ) -> Option<Report> {
        if checks.is_empty() {
            return None;
        }
        let sentences = clauses(text);
        for (i, s) in sentences.iter().enumerate() {
            let lower = s.to_ascii_lowercase();
            let Some((check, named)) = checks
                .iter()
                .find_map(|c| self.named_at(s, &lower, c).map(|at| (c, at)))
            else {
                continue;
            };
            if fires(self.hedges.get(), s) {
                continue;
            }
            // An arrow tells what came of the check only after it: "visit
            // → synced to Convex" tells what the code does.
            let before = &s[..named];
            let arrow_first = ARROWS.iter().any(|a| before.contains(a))
                && !fires(self.outcomes.get(), &s[named..]);
            // The outcome in the next clause counts when that clause does
            // not plan or hedge it ("Ran `pytest`. It should pass once …");
            // a fence's opening line is no clause, and a table of results
            // under the run tells its outcome by its numbers.
            let next =
                (i + 1..sentences.len()).find(|&j| !is_fence(sentences[j]));
            let told = (!arrow_first && self.outcome(s, true))
                || next.is_some_and(|j| {
                    let n = sentences[j];
                    (self.outcome(n, false) || table_numbers(&sentences[j..]))
                        && !fires(self.hedges.get(), n)
                });
            if told {
                return Some(Report {
                    check: check.clone(),
                    sentence: s.to_string(),
                });
            }
        }
        None
    }

    /// Where sentence `s` first names `check`, by its own names or its
    /// kind: the byte offset of the name's start.
    fn named_at(
        &self,
        s: &str,
        lower: &str,
        check: &RanCheck,
    ) -> Option<usize> {
        let own = check.names.iter().filter_map(|n| {
            lower
                .match_indices(n.as_str())
                .map(|(at, _)| at)
                .find(|&at| is_word_at(lower, at, n.len()))
        });
        let by_kind = self
            .kinds
            .iter()
            .filter(|(k, _)| *k == check.kind)
            .filter_map(|(_, words)| words_in(words.get(), s).next())
            .map(|m| m.start());
        own.chain(by_kind).min()
    }

    /// Whether sentence `s` tells an outcome: an outcome word, or (when
    /// `numbers`) a digit.
    fn outcome(&self, s: &str, numbers: bool) -> bool {
        fires(self.outcomes.get(), s) || (numbers && has_number(s))
    }
}

/// The code spans of `s`, each with where it ends (after its closing
/// backtick).
fn code_spans(s: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let open = at + s[at..].find('`')?;
        let close = open + 1 + s[open + 1..].find('`')?;
        at = close + 1;
        Some((close + 1, &s[open + 1..close]))
    })
}

/// Whether a code span reads as a command line: a program's name (lower
/// case letters, digits, `-`, `_`, `.` or a path to it) and at least one
/// argument.
fn looks_like_command(span: &str) -> bool {
    let Some(program) = program_of(span) else { return false };
    program.len() >= 2
        && program.starts_with(|c: char| c.is_ascii_lowercase())
        && program.chars().all(|c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c)
        })
}

/// The program a code span runs, when the span is a command line: its
/// first word, without its folder, followed by at least one argument.
fn program_of(span: &str) -> Option<&str> {
    let mut words = span.split_whitespace();
    let (program, _) = (words.next()?, words.next()?);
    Some(program.rsplit('/').next().unwrap_or(program))
}

/// Whether `after` (what follows a command line in a sentence) opens by
/// telling what the command said: "reports …", "shows …", "prints …".
fn starts_telling(after: &str) -> bool {
    // In the past: "`deploy.sh --check` returns 1 when …" tells what the
    // change does, not a run.
    const TELLING: &[&str] =
        &["reported", "showed", "printed", "returned", "said", "gave"];
    let first = after
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("");
    TELLING.contains(&first)
}

/// Whether a code span is a command line that checks something: a
/// program the agents run to check (a test runner, a build, a linter, a
/// package manager, a tool that validates or plans) with at least one
/// argument, and a check by [`command_names`] (`git commit` is none).
fn is_check_command(span: &str) -> bool {
    let Some(program) = program_of(span) else { return false };
    let known = RUNNERS.contains(&program)
        || TESTS.contains(&program)
        || LINTS.contains(&program)
        || BUILDS.contains(&program);
    known && !command_names(span).is_empty()
}

/// Programs that run a check when given a command line: package managers
/// and build tools, and the tools that validate or plan.
const RUNNERS: &[&str] = &[
    "cargo",
    "go",
    "npm",
    "npx",
    "pnpm",
    "yarn",
    "bun",
    "deno",
    "make",
    "just",
    "gradle",
    "gradlew",
    "mvn",
    "dotnet",
    "bundle",
    "rake",
    "rails",
    "python",
    "python3",
    "node",
    "terraform",
    "tofu",
    "nginx",
    "docker",
    "kubectl",
    "helm",
    "ansible-playbook",
    "psql",
    "mysql",
    "sqlite3",
    "swift",
    "xcodebuild",
    "flutter",
    "dart",
    "php",
    "composer",
    "mix",
    "bash",
    "sh",
    "zsh",
    "pwsh",
    "k6",
    "ab",
    "wrk",
    "hey",
    "vegeta",
];

/// The clauses of `text`'s sentences, cut where one is set against the
/// one before ([`sentence::CONTRASTS`]): a hedge in one clause ("a retry
/// would email twice; `pytest` passes", "haven't touched prod, but on
/// staging `EXPLAIN` shows …") does not void another.
fn clauses(text: &str) -> Vec<&str> {
    sentences_within(text, MAX_SENTENCE)
        .flat_map(|r| text[r].split([';', '；']))
        .flat_map(|s| sentence::clauses(s).into_iter().map(move |r| &s[r]))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// The occurrences of `set`'s keywords in `s` that are words of their own
/// (an ASCII keyword not glued to letters or digits: "ok" is not in
/// "token"), in order of start.
fn words_in<'s>(
    set: &KeywordSet,
    s: &'s str,
) -> impl Iterator<Item = KeywordMatch> + 's {
    set.find_overlapping(s)
        .into_iter()
        .filter(move |m| is_word_at(s, m.start(), m.end() - m.start()))
}

/// Whether a keyword of `set` occurs in `s` as a word of its own.
fn fires(set: &KeywordSet, s: &str) -> bool {
    words_in(set, s).next().is_some()
}

/// Whether clause `s` is only a fence's opening or closing line ("```",
/// "```text").
fn is_fence(s: &str) -> bool {
    s.trim()
        .strip_prefix("```")
        .is_some_and(|tag| tag.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// Whether `clauses` open with a Markdown table whose rows hold a number
/// of their own: a table of results (`| 5.0e-3 | 8.04e-6 | 3.99 |`).
fn table_numbers(clauses: &[&str]) -> bool {
    clauses.iter().take_while(|c| c.starts_with('|')).any(|c| has_number(c))
}

/// Whether `s` holds a number of its own, outside code spans: digits not
/// glued to a letter and not part of a version, an option or an address
/// (`12`, `0 errors`, `403`, `(9)`; not `python3`, `v2`, `3.11`,
/// `-count=1`, `:8000`, nor anything in backticks).
fn has_number(s: &str) -> bool {
    s.split('`').step_by(2).any(|outside| {
        let b = outside.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if !b[i].is_ascii_digit() {
                i += 1;
                continue;
            }
            let before = i.checked_sub(1).map(|j| b[j]);
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b',') {
                i += 1;
            }
            let glued = before.is_some_and(|c| {
                c.is_ascii_alphabetic() || b".=:/-_".contains(&c)
            });
            if !glued {
                return true;
            }
        }
        false
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changes::last_change;
    use crate::gates::lang;

    fn grounding() -> Grounding {
        let tables: Vec<&LangTable> =
            lang::codes().filter_map(lang::table).collect();
        Grounding::new(&tables, false).unwrap()
    }

    fn ran(command: &str) -> RanCheck {
        let names = command_names(command);
        RanCheck {
            kind: kind_of(command, &names),
            command: command.into(),
            names,
        }
    }

    #[test]
    fn a_command_is_named_by_its_program_and_subcommand() {
        assert_eq!(
            command_names("python manage.py check --deploy"),
            ["manage.py check", "check", "manage.py"]
        );
        assert_eq!(command_names("npx vitest run"), ["vitest run", "vitest"]);
        assert_eq!(
            command_names("./gradlew connectedDebugAndroidTest"),
            [
                "gradlew connecteddebugandroidtest",
                "connecteddebugandroidtest",
                "gradlew"
            ]
        );
        assert_eq!(
            command_names("cd web && go test ./..."),
            ["go test", "test"]
        );
        assert_eq!(ran("pytest -q").kind, CheckKind::Test);
        assert_eq!(
            command_names("python3 claude-debugger.py | head"),
            ["claude-debugger", "claude-debugger.py"]
        );
        // A build program runs a build, but names none by itself.
        assert_eq!(ran("make -j4 2>&1 | tail -50").kind, CheckKind::Build);
        assert_eq!(ran("cd out && ninja").kind, CheckKind::Build);
        assert_eq!(ran("make test").kind, CheckKind::Test);
        assert_eq!(ran("make clean").kind, CheckKind::Run);
        assert!(command_names("make -j4").is_empty());
        assert_eq!(ran("npx tsc --noEmit").kind, CheckKind::Lint);
        assert_eq!(ran("grep -rn csrf_exempt api").kind, CheckKind::Search);
        assert_eq!(
            ran("curl -s localhost:8000/admin").kind,
            CheckKind::Request
        );
    }

    #[test]
    fn a_report_names_the_check_and_its_outcome() {
        let g = grounding();
        let mypy = [ran("mypy app")];
        let said =
            |text: &str, checks: &[RanCheck]| g.report(text, checks).is_some();
        assert!(said("Done. `mypy app` reports 0 errors.", &mypy));
        // Named by its kind, in any language.
        assert!(said("Added hints; the type check is clean.", &mypy));
        assert!(said("型チェックはエラーなしで通りました。", &mypy));
        assert!(said("타입 체크도 경고 없이 통과했습니다.", &mypy));
        // Output under the command, on the next line.
        let go = [ran("go test -race ./...")];
        assert!(said(
            "```\n$ go test -race ./...\nok  example.com/x\n```",
            &go
        ));
        // Named with no outcome, hedged, or a check that did not run.
        assert!(!said("Ran `mypy app`.", &mypy));
        assert!(!said(
            "`mypy app` should report 0 errors once CI runs.",
            &mypy
        ));
        assert!(!said("`pytest` passes (12).", &mypy));
        assert!(!said("`mypy app` reports 0 errors.", &[]));
        // A version number is no outcome, nor a number in the command.
        assert!(!said("Ran mypy on python3.", &mypy));
        let go = [ran("go test -count=1 ./...")];
        assert!(!said("Ran `go test -count=1 ./...`.", &go));
        // An outcome the next clause only expects.
        let py = [ran("pytest")];
        assert!(!said(
            "Ran `pytest`. It should pass once the fixture lands.",
            &py
        ));
    }

    #[test]
    fn commands_that_check_nothing_are_no_checks() {
        let uses = |cmds: &[&str]| -> Vec<ToolCall> {
            std::iter::once(ToolCall::new(Some("e"), "Edit", None, 0, 0))
                .chain(cmds.iter().enumerate().map(|(i, c)| {
                    let id = format!("b{i}");
                    ToolCall::new(Some(&id), "Bash", Some(c), 0, i + 1)
                }))
                .collect()
        };
        let checks = |cmds: &[&str]| {
            let uses = uses(cmds);
            ran_after_change(&uses, last_change(&uses), true)
        };
        assert!(
            checks(&["git add -A && git commit -m 'add tests'"]).is_empty()
        );
        assert!(checks(&["ls tests/", "git status"]).is_empty());
        assert_eq!(checks(&["git grep -n foo"]).len(), 1);
        assert_eq!(checks(&["pytest -q", "pytest -q"]).len(), 1);
        // A change carried to the turn, or known to the flag only: every
        // use of the turn came after it.
        let only_a_run =
            [ToolCall::new(Some("b"), "Bash", Some("pytest -q"), 0, 0)];
        assert_eq!(ran_after_change(&only_a_run, None, true).len(), 1);
        assert!(ran_after_change(&only_a_run, None, false).is_empty());
    }

    #[test]
    fn a_claim_names_a_check_with_a_verdict() {
        let g = grounding();
        assert!(g.claim("Fixed it. All tests pass.").is_some());
        assert!(g.claim("shellcheck도 경고 없이 통과했습니다.").is_some());
        assert!(g.claim("ビルドは green です。").is_some());
        assert!(g.claim("Tests should pass once CI runs.").is_none());
        assert!(g.claim("Added a test for the empty input.").is_none());
        // The verdict must follow the check it is on.
        assert!(g
            .claim(
                "The helper now passes the fixture, so the test can't leak."
            )
            .is_none());
    }

    #[test]
    fn a_claim_tells_a_run_and_what_came_of_it() {
        let g = grounding();
        // A command line in a code span, then an outcome or a number.
        assert!(g
            .claim("`cargo bench --bench lex` shows 22% less time.")
            .is_some());
        assert!(g.claim("`nginx -t` で構文 OK でした。").is_some());
        // A word of running or testing in the past, then an outcome.
        assert!(g
            .claim("Tested: `docker compose up` starts the api only after the db is up.")
            .is_some());
        // Negated, planned, or a test named as a noun: no claim.
        assert!(g
            .claim("I haven't run `cargo test` here; it shows nothing yet.")
            .is_none());
        assert!(g
            .claim("테스트나 평가를 돌리지 않았으니, 수치는 CI가 돌고 나면 나옵니다.")
            .is_none());
        assert!(g
            .claim("The risk is the 10s timeout vs our slow paging test, so I gave it 30s.")
            .is_none());
        // A code span that is no command line, before an outcome word.
        assert!(g
            .claim("`Validate` checks `aud` and returns `ErrWrongAudience` otherwise.")
            .is_none());
    }

    #[test]
    fn a_stock_self_check_under_a_bare_heading() {
        let g = grounding();
        let stock = KeywordSet::builder()
            .ascii_case_insensitive(true)
            .build(["no issues found", "no issues"])
            .unwrap();
        let text = "Added the recipes.\n\n## Audit\nNo issues found.";
        assert_eq!(
            g.stock_checks(text, &stock).next().map(|(p, _)| p).as_deref(),
            Some("no issues found")
        );
        // A heading with words of its own presents only its own clause.
        let text = "## Audit of the retry path\nNo issues found.";
        assert!(g.stock_checks(text, &stock).next().is_none());
    }

    #[test]
    fn a_run_told_by_the_output_or_table_under_it() {
        let g = grounding();
        let checks = [ran("julia --project=. test/runtests.jl")];
        let text = "Ran `julia --project=. test/runtests.jl`:\n\n```\n\
                    Test Summary: | Pass  Total\nOrbitSim | 57 57\n```";
        assert!(g.report(text, &checks).is_some());
        let checks = [ran("python convergence.py")];
        let text = "Ran `python convergence.py`:\n\n| dt | ratio |\n\
                    |---|---|\n| 5.0e-3 | 3.99 |";
        assert!(g.report(text, &checks).is_some());
        // A table of what changed, under no run, tells nothing.
        assert!(g.report("Changed:\n\n| dt | ratio |", &checks).is_none());
    }

    #[test]
    fn a_query_plan_is_named_by_explain() {
        assert!(command_names("psql app -c \"EXPLAIN SELECT 1\"")
            .contains(&"explain".to_string()));
        assert!(!command_names("psql app -c \"SELECT 1\"")
            .contains(&"explain".to_string()));
    }

    #[test]
    fn a_hedge_in_a_contrasted_clause_voids_only_its_own() {
        let g = grounding();
        let checks = [ran("psql shop_dev -c \"EXPLAIN SELECT 1\"")];
        let text = "Haven't touched prod, but on shop_dev the EXPLAIN now \
                    picks an Index Scan over 1.9M rows.";
        assert!(g.report(text, &checks).is_some());
    }

    #[test]
    fn numbers_of_their_own() {
        assert!(has_number("passes (9)"));
        assert!(has_number("returns 403"));
        assert!(!has_number("python3 and v2"));
    }
}
