//! `stopgate.toml`: what the gates look for, and how the hook answers.
//!
//! The defaults are built in, and [`DEFAULT_TOML`] spells them out (it is
//! what `stopgate config --default` prints; a test checks that the two
//! agree). A file only needs the keys it changes.
//!
//! Finding, reading and parsing the file live here, in one place, behind
//! the `config` feature (`Config::locate`, `Config::from_file`,
//! `Config::from_toml`); without it, a [`Config`] is built in code. A
//! malformed file is an error with its path, line and column; the hook
//! turns that error into "use the defaults" so that a typo never blocks an
//! agent, and `stopgate config --check` shows it to the user.

#[cfg(feature = "config")]
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[cfg(feature = "config")]
use crate::error::{Error, Position};

/// The defaults, as a commented `stopgate.toml`.
pub const DEFAULT_TOML: &str = include_str!("default_config.toml");

/// The most phrases a list of phrases may hold: every phrase is compiled
/// into the hook's automata at each run.
#[cfg(feature = "config")]
const MAX_KEYWORDS: usize = 256;

/// The longest phrase, in bytes.
#[cfg(feature = "config")]
const MAX_KEYWORD_LEN: usize = 256;

/// The range `timeout_ms` is clamped to, in milliseconds.
pub(crate) const TIMEOUT_RANGE_MS: (u64, u64) = (100, 60_000);

/// The default of `timeout_ms`.
pub const DEFAULT_TIMEOUT_MS: u64 = 5000;

/// The languages the gates know, by code: the values `languages` accepts,
/// and its default. The gates hold one table of words for each.
pub const LANGUAGES: &[&str] = &["ja", "en", "ko"];

/// The largest configuration file read, in bytes.
#[cfg(feature = "config")]
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The whole configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct Config {
    /// How a block is delivered.
    pub output: OutputMode,
    /// The order the gates run in; the first block wins.
    pub order: Vec<Gate>,
    /// Entrypoints with no human to read a block.
    pub skip_entrypoints: Vec<String>,
    /// Count a file-changing tool use in the transcript's current turn as a
    /// change even when no flag was raised.
    pub transcript_changes: bool,
    /// Run the gates at SubagentStop too.
    pub gate_subagents: bool,
    /// Pattern languages to load: any of `ja`, `en`, `ko`.
    pub languages: Vec<String>,
    /// The hook gives up and allows after this many milliseconds.
    pub timeout_ms: u64,
    /// The audit gate.
    pub audit: AuditConfig,
    /// The hollow-audit gate.
    pub hollow: HollowConfig,
    /// The decision-ownership gate.
    pub ownership: OwnershipConfig,
    /// The challenge-reverify gate.
    pub reverify: ReverifyConfig,
    /// Literal patterns added to the language presets.
    pub patterns: ExtraPatterns,
}

/// The hollow-audit gate's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct HollowConfig {
    /// Whether the gate runs.
    pub enabled: bool,
    /// A marker sentence with less specific weight than this is a stock
    /// phrase (a CJK character weighs 2, other letters and digits 1).
    pub min_specific: usize,
    /// The message for the stock-phrase rule.
    pub message_stock_phrase: String,
    /// The message for the claim-without-evidence rule.
    pub message_claim_without_evidence: String,
}

/// The decision-ownership gate's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct OwnershipConfig {
    /// Whether the gate runs.
    pub enabled: bool,
    /// Deferring is a fault only after at least this many tool uses.
    pub min_tool_uses: usize,
    /// How many times one session may be blocked by this gate.
    pub cap: u32,
    /// The block message.
    pub message: String,
}

/// The challenge-reverify gate's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct ReverifyConfig {
    /// Whether the gate runs.
    pub enabled: bool,
    /// How many times one session may be blocked by this gate.
    pub cap: u32,
    /// The block message.
    pub message: String,
}

/// Literal phrases added to the language presets, per category.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct ExtraPatterns {
    /// Phrases that hand a decision back.
    pub deference: Vec<String>,
    /// Phrases of a user's prompt that dispute the agent.
    pub challenge: Vec<String>,
    /// Phrases of a final text that concede.
    pub capitulation: Vec<String>,
    /// Phrases of a final text that cite evidence.
    pub verification: Vec<String>,
    /// Phrases that claim a verification.
    pub claims: Vec<String>,
    /// Stock words that carry no specifics.
    pub stock: Vec<String>,
}

impl Default for HollowConfig {
    fn default() -> HollowConfig {
        HollowConfig {
            enabled: true,
            min_specific: 12,
            message_stock_phrase: "stopgate: hollow audit (stock_phrase): it names no specific risk you checked.\n\
                                   Say what you checked and what you found (concurrency, failure paths, idempotence, boundaries, secrets, real verification), in at most 3 lines."
                .into(),
            message_claim_without_evidence: "stopgate: hollow audit (claim_without_evidence): you claim verification, but nothing ran after your last change.\n\
                                             Run the tests or the build now and report the result, or drop the claim."
                .into(),
        }
    }
}

impl Default for OwnershipConfig {
    fn default() -> OwnershipConfig {
        OwnershipConfig {
            enabled: true,
            min_tool_uses: 2,
            cap: 2,
            message: "stopgate: decision ownership: you gathered the data, then handed the decision back.\n\
                      Commit to one recommendation, with a one-line rationale and one falsifiable condition under which it would be wrong."
                .into(),
        }
    }
}

impl Default for ReverifyConfig {
    fn default() -> ReverifyConfig {
        ReverifyConfig {
            enabled: true,
            cap: 2,
            message: "stopgate: challenge reverify: you changed your position without new evidence.\n\
                      Either hold your original position and restate its grounds, or verify now (run, measure, cite) and name the new evidence."
                .into(),
        }
    }
}

/// How the hook delivers a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputMode {
    /// Exit 2 with the message on stderr.
    Exit2,
    /// Exit 0 with `{"decision":"block","reason":…}` on stdout.
    Json,
}

/// Who has the last word on an audit in plain language
/// (`audit.plain_judge`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum PlainJudge {
    /// The grammar alone: a lead that names what was checked, then a
    /// specific referent.
    Grammar,
    /// A linear model trained on the labelled parts, with the grammar's
    /// reading as evidence: on the held-out parts, fewer real audits
    /// blocked and fewer turns without one let through than the grammar
    /// alone. The default; see the README.
    Learned,
}

/// A gate's name, as used in `order`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Gate {
    /// Decision ownership: the agent handed back a decision.
    Ownership,
    /// Challenge reverify: the agent caved without new evidence.
    Reverify,
    /// The audit gate: files changed and no audit marker.
    Audit,
    /// Hollow audit: a marker without substance.
    Hollow,
}

impl Gate {
    /// The name as written in `order` and in messages.
    pub fn as_str(&self) -> &'static str {
        match self {
            Gate::Ownership => "ownership",
            Gate::Reverify => "reverify",
            Gate::Audit => "audit",
            Gate::Hollow => "hollow",
        }
    }
}

/// The audit gate's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct AuditConfig {
    /// Whether the gate runs.
    pub enabled: bool,
    /// How many times one session may be prompted.
    pub cap: u32,
    /// Markers added to the language presets.
    pub extra_markers: Vec<String>,
    /// Use only `extra_markers`, not the presets.
    pub replace_markers: bool,
    /// Prefixes that pass when a reason follows them.
    pub escape_hatches: Vec<String>,
    /// Whether an audit in plain language passes without a marker: a lead
    /// that names what was checked, then a specific referent.
    pub plain_language: bool,
    /// Who judges an audit in plain language: the learned model with the
    /// grammar (the default) or the grammar alone.
    pub plain_judge: PlainJudge,
    /// The block message: at most 3 lines, no table.
    pub message: String,
    /// The block message when the judge cannot tell whether the final
    /// message audits the change (an `uncertain` audit): it says what
    /// would pass.
    pub message_uncertain: String,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            output: OutputMode::Exit2,
            order: vec![
                Gate::Ownership,
                Gate::Reverify,
                Gate::Audit,
                Gate::Hollow,
            ],
            skip_entrypoints: vec![
                "sdk-cli".into(),
                "sdk-ts".into(),
                "sdk-py".into(),
                "codex-exec".into(),
            ],
            transcript_changes: true,
            gate_subagents: false,
            languages: LANGUAGES.iter().map(|&c| String::from(c)).collect(),
            timeout_ms: DEFAULT_TIMEOUT_MS,
            audit: AuditConfig::default(),
            hollow: HollowConfig::default(),
            ownership: OwnershipConfig::default(),
            reverify: ReverifyConfig::default(),
            patterns: ExtraPatterns::default(),
        }
    }
}

impl Default for AuditConfig {
    fn default() -> AuditConfig {
        AuditConfig {
            enabled: true,
            cap: 2,
            extra_markers: vec![],
            replace_markers: false,
            plain_language: true,
            plain_judge: PlainJudge::Learned,
            escape_hatches: vec!["監査不要:".into(), "監査不要：".into(), "no audit needed:".into(), "감사 불필요:".into()],
            message: "stopgate: files changed since your last audited answer, but your final message holds no self-audit.\n\
                      Audit adversarially (concurrency, failure paths, idempotence, boundaries, secrets, real verification) and report in at most 3 lines, no tables.\n\
                      If the change is trivial, say `no audit needed: <reason>` (監査不要: 理由)."
                .into(),
            message_uncertain: "stopgate: files changed since your last audited answer, and I cannot tell whether your final message audits the change.\n\
                                Say what you checked and what came of it: the check you ran after your last change and its result, or the failure mode and the code that guards it; `Audit:` makes it plain.\n\
                                If the change is trivial, say `no audit needed: <reason>` (監査不要: 理由)."
                .into(),
        }
    }
}

impl Config {
    /// Parse a `stopgate.toml`. Missing keys take their defaults; unknown
    /// keys are errors, so that a misspelt key is not silently ignored.
    ///
    /// # Errors
    ///
    /// An error of kind [`Config`](crate::ErrorKind::Config), with the line
    /// and column when the TOML itself is malformed.
    #[cfg(feature = "config")]
    pub fn from_toml(text: &str) -> Result<Config, Error> {
        let config: Config = toml::from_str(text).map_err(|e| {
            let position = e.span().map(|span| line_col(text, span.start));
            Error::config(e.message().trim().to_string(), position)
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Read and parse the configuration file at `path`.
    ///
    /// Only a regular file of at most 1 MiB is read. It is
    /// opened without blocking, so that a FIFO planted in its place cannot
    /// hold the hook, and read with a bound, so that `/dev/zero` cannot
    /// fill memory.
    ///
    /// # Errors
    ///
    /// An I/O error naming the file, or a [`Config`](crate::ErrorKind::Config)
    /// error naming the file, its line and column.
    #[cfg(feature = "config")]
    pub fn from_file<P: AsRef<Path>>(path: P) -> Result<Config, Error> {
        let path = path.as_ref();
        let text = read_config(path).map_err(|e| Error::io(path, e))?;
        Config::from_toml(&text).map_err(|e| e.in_file(path))
    }

    /// The first configuration file that exists, in the documented order:
    /// `explicit` (`--config`), `$STOPGATE_CONFIG`, the project's
    /// `.claude/stopgate.toml`, `.codex/stopgate.toml` or
    /// `.gemini/stopgate.toml`, then `$XDG_CONFIG_HOME/stopgate/config.toml`
    /// (default `~/.config`). `None` means the built-in defaults.
    ///
    /// The project is `$CLAUDE_PROJECT_DIR` (Claude Code sets it, and Gemini
    /// CLI too), else `$GEMINI_PROJECT_DIR`, else the working directory
    /// (`PWD`), where Codex CLI runs its hooks. `var` reads the
    /// environment, so that tests and other callers can supply their own.
    ///
    /// An explicit path or `$STOPGATE_CONFIG` is returned even if missing,
    /// so that the caller can report it.
    #[cfg(feature = "config")]
    pub fn locate(
        explicit: Option<&Path>,
        var: &dyn Fn(&str) -> Option<String>,
    ) -> Option<PathBuf> {
        let set = |k: &str| var(k).filter(|v| !v.is_empty());
        if let Some(p) = explicit {
            return Some(p.to_path_buf());
        }
        if let Some(p) = set("STOPGATE_CONFIG") {
            return Some(PathBuf::from(p));
        }
        let mut candidates = vec![];
        let project = set("CLAUDE_PROJECT_DIR")
            .or_else(|| set("GEMINI_PROJECT_DIR"))
            .or_else(|| set("PWD"));
        if let Some(dir) = project {
            for agent in [".claude", ".codex", ".gemini"] {
                candidates
                    .push(Path::new(&dir).join(agent).join("stopgate.toml"));
            }
        }
        match set("XDG_CONFIG_HOME") {
            Some(x) => {
                candidates.push(Path::new(&x).join("stopgate/config.toml"))
            }
            None => {
                if let Some(home) = set("HOME") {
                    candidates.push(
                        Path::new(&home).join(".config/stopgate/config.toml"),
                    );
                }
            }
        }
        candidates.into_iter().find(|p| p.is_file())
    }

    #[cfg(feature = "config")]
    fn validate(&self) -> Result<(), Error> {
        let err = |message: String| Err(Error::config(message, None));
        for lang in &self.languages {
            if !LANGUAGES.contains(&lang.as_str()) {
                let known: Vec<String> =
                    LANGUAGES.iter().map(|c| format!("{c:?}")).collect();
                return err(format!(
                    "unknown language {lang:?}: expected one of {}",
                    known.join(", ")
                ));
            }
        }
        if self.audit.message.lines().count() > 3 {
            return err("audit.message has more than 3 lines".into());
        }
        for (name, list) in self.keyword_lists() {
            if list.len() > MAX_KEYWORDS {
                return err(format!(
                    "{name} has {} entries; at most {MAX_KEYWORDS} are allowed",
                    list.len()
                ));
            }
            if let Some(i) = list.iter().position(|k| k.trim().is_empty()) {
                return err(format!(
                    "{name}[{i}] is empty: an empty phrase matches every text"
                ));
            }
            if let Some(i) =
                list.iter().position(|k| k.len() > MAX_KEYWORD_LEN)
            {
                return err(format!(
                    "{name}[{i}] is {} bytes long; at most {MAX_KEYWORD_LEN} are allowed",
                    list[i].len()
                ));
            }
        }
        Ok(())
    }

    /// Every list of phrases, with its key's name.
    #[cfg(feature = "config")]
    fn keyword_lists(&self) -> [(&'static str, &[String]); 8] {
        let p = &self.patterns;
        [
            ("audit.extra_markers", &self.audit.extra_markers),
            ("audit.escape_hatches", &self.audit.escape_hatches),
            ("patterns.deference", &p.deference),
            ("patterns.challenge", &p.challenge),
            ("patterns.capitulation", &p.capitulation),
            ("patterns.verification", &p.verification),
            ("patterns.claims", &p.claims),
            ("patterns.stock", &p.stock),
        ]
    }

    /// How long the hook may take before it gives up and allows:
    /// `timeout_ms`, clamped to 100 ms … 60 s, so that no setting
    /// switches the timer off.
    pub fn timeout(&self) -> std::time::Duration {
        let (lo, hi) = TIMEOUT_RANGE_MS;
        std::time::Duration::from_millis(self.timeout_ms.clamp(lo, hi))
    }

    /// Whether sessions with this entrypoint are unattended: nobody reads a
    /// block, so every gate allows them.
    pub fn skips_entrypoint(&self, entrypoint: &str) -> bool {
        self.skip_entrypoints.iter().any(|s| s == entrypoint)
    }

    /// Whether a gate is both listed in `order` and enabled.
    pub fn gate_enabled(&self, gate: Gate) -> bool {
        self.order.contains(&gate)
            && match gate {
                Gate::Audit => self.audit.enabled,
                Gate::Hollow => self.hollow.enabled,
                Gate::Ownership => self.ownership.enabled,
                Gate::Reverify => self.reverify.enabled,
            }
    }
}

/// The 1-based line and column of byte `offset` in `text`.
#[cfg(feature = "config")]
fn line_col(text: &str, offset: usize) -> Position {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column =
        before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Position { line, column }
}

/// Read a configuration file: see [`Config::from_file`].
#[cfg(feature = "config")]
fn read_config(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;

    let invalid = |msg: String| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, msg)
    };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(invalid("not a regular file".into()));
    }
    let mut text = String::new();
    file.take(MAX_CONFIG_BYTES + 1).read_to_string(&mut text)?;
    if text.len() as u64 > MAX_CONFIG_BYTES {
        return Err(invalid(format!(
            "larger than {} KiB; a configuration is a few lines",
            MAX_CONFIG_BYTES >> 10
        )));
    }
    Ok(text)
}

#[cfg(all(test, feature = "config"))]
mod tests {
    use super::*;

    #[test]
    fn default_toml_is_the_default() {
        assert_eq!(
            Config::from_toml(DEFAULT_TOML).unwrap(),
            Config::default()
        );
    }

    #[test]
    fn empty_file_is_the_default() {
        assert_eq!(Config::from_toml("").unwrap(), Config::default());
    }

    #[test]
    fn partial_file_overrides() {
        let c = Config::from_toml("output = \"json\"\n[audit]\ncap = 5\n")
            .unwrap();
        assert_eq!(c.output, OutputMode::Json);
        assert_eq!(c.audit.cap, 5);
        assert!(c.audit.enabled);
    }

    #[test]
    fn errors_have_positions() {
        let e =
            Config::from_toml("output = \"json\"\ncap = = 3\n").unwrap_err();
        assert_eq!(e.line(), Some(2), "{e}");
        let e = Config::from_toml("[audit]\ncapp = 3\n").unwrap_err();
        assert!(e.to_string().contains("capp"), "{e}");
        assert_eq!(e.line(), Some(2), "{e}");
        let e = Config::from_toml("languages = [\"fr\"]").unwrap_err();
        assert!(e.to_string().contains("fr"), "{e}");
    }

    #[test]
    fn every_phrase_list_is_checked() {
        for key in [
            "[audit]\nextra_markers",
            "[audit]\nescape_hatches",
            "[patterns]\ndeference",
            "[patterns]\nchallenge",
            "[patterns]\ncapitulation",
            "[patterns]\nverification",
            "[patterns]\nclaims",
            "[patterns]\nstock",
        ] {
            let e = Config::from_toml(&format!("{key} = [\"ok\", \" \"]"))
                .unwrap_err();
            assert!(e.to_string().contains("[1] is empty"), "{key}: {e}");
            let many: Vec<String> =
                (0..=MAX_KEYWORDS).map(|i| format!("\"k{i}\"")).collect();
            let e =
                Config::from_toml(&format!("{key} = [{}]", many.join(",")))
                    .unwrap_err();
            assert!(e.to_string().contains("at most 256"), "{key}: {e}");
            let long = "x".repeat(MAX_KEYWORD_LEN + 1);
            let e = Config::from_toml(&format!("{key} = [\"{long}\"]"))
                .unwrap_err();
            assert!(e.to_string().contains("bytes long"), "{key}: {e}");
        }
    }

    #[test]
    fn the_timeout_is_clamped() {
        let t =
            |ms: u64| Config { timeout_ms: ms, ..Config::default() }.timeout();
        assert_eq!(t(0).as_millis(), 100);
        assert_eq!(t(5000).as_millis(), 5000);
        assert_eq!(t(u64::MAX).as_millis(), 60_000);
    }
}
