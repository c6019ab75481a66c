//! The real Codex CLI and Gemini CLI, driven by mocks of their model APIs.
//!
//! Each scenario installs stopgate's hooks with `stopgate install --agent
//! codex|gemini` into a throwaway home, starts the agent's mock
//! (`tests/agents/mock-openai.mjs`, the streaming Responses API, or
//! `tests/agents/mock-gemini.mjs`, `streamGenerateContent` over SSE) on
//! 127.0.0.1 with a script of model replies, and runs the client headless
//! (`codex exec`, `gemini -p … --yolo`), exactly as a user would. The
//! assertions read what came back: the requests the client sent to the
//! mock (a block reaches the model as a user message holding stopgate's
//! reason), stopgate's state directory, and the transcript the client
//! wrote, read by `stopgate check` and `stopgate scan`.
//!
//! Codex runs a hook only once its definition is trusted, and `codex exec`
//! skips an untrusted one without a word, so every Codex scenario that
//! sees a block also proves that `install` computed the trust hash as
//! Codex does.
//!
//! The clients are the npm packages `@openai/codex` and
//! `@google/gemini-cli`, pinned below and installed once into
//! `target/agents/`. Where `node` or `npm` is missing, every scenario is
//! skipped with a notice.

// Runs the `stopgate` binary, which needs the `cli` feature.
#![cfg(feature = "cli")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod common;

use common::MockApi;

/// The client versions the suite pins.
const CODEX_VERSION: &str = "0.171.0";
const GEMINI_VERSION: &str = "0.61.0";

/// How long one client run may take.
const RUN_LIMIT: Duration = Duration::from_secs(180);

const AUDITED: &str = "Done. Audit: hello.txt is written whole by one call, so a crash leaves no partial file; checked the empty-input boundary.";
const HOLLOW: &str =
    "Audit: I went over it carefully and everything is in order.";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn have(cmd: &str) -> bool {
    Command::new(cmd)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Agent {
    Codex,
    Gemini,
}

impl Agent {
    fn name(self) -> &'static str {
        match self {
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
        }
    }

    fn package(self) -> String {
        match self {
            Agent::Codex => format!("@openai/codex@{CODEX_VERSION}"),
            Agent::Gemini => format!("@google/gemini-cli@{GEMINI_VERSION}"),
        }
    }

    fn version(self) -> &'static str {
        match self {
            Agent::Codex => CODEX_VERSION,
            Agent::Gemini => GEMINI_VERSION,
        }
    }

    fn mock(self) -> &'static str {
        match self {
            Agent::Codex => "tests/agents/mock-openai.mjs",
            Agent::Gemini => "tests/agents/mock-gemini.mjs",
        }
    }

    /// The client's binary, installed on first use; `None` (with a
    /// notice) where `node` or `npm` is missing.
    fn client(self) -> Option<PathBuf> {
        static NODE: OnceLock<bool> = OnceLock::new();
        if !*NODE.get_or_init(|| have("node") && have("npm")) {
            let _ = writeln!(
                std::io::stderr(),
                "agent real-client tests skipped: node or npm is not installed"
            );
            return None;
        }
        static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let prefix = root().join("target/agents").join(self.name());
        let bin = prefix.join("node_modules/.bin").join(self.name());
        let installed =
            Command::new(&bin).arg("--version").output().is_ok_and(|o| {
                String::from_utf8_lossy(&o.stdout).contains(self.version())
            });
        if !installed {
            let out = Command::new("npm")
                .args(["install", "--no-audit", "--no-fund", "--prefix"])
                .arg(&prefix)
                .arg(self.package())
                .output()
                .expect("npm runs");
            assert!(
                out.status.success(),
                "npm install of {} failed: {}",
                self.package(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Some(bin)
    }
}

/// The last user text of each agent-loop request that carried
/// stopgate's reason back to the model.
fn feedback(mock: &MockApi) -> Vec<String> {
    mock.requests()
        .into_iter()
        .filter(|r| r["agent_loop"] == true)
        .filter_map(|r| r["last_user"].as_str().map(str::to_string))
        .filter(|t| t.contains("stopgate:"))
        .collect()
}

/// One scenario's world: a home with the agent's settings and stopgate's
/// hooks, a project, a state directory and a stopgate.toml.
struct World {
    agent: Agent,
    dir: tempfile::TempDir,
    mock: MockApi,
}

impl World {
    fn new(agent: Agent, config: &str, replies: Value) -> World {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(home.join(".codex")).unwrap();
        std::fs::create_dir_all(home.join(".gemini")).unwrap();
        let project = project.canonicalize().unwrap();
        std::fs::write(dir.path().join("stopgate.toml"), config).unwrap();
        let mock = MockApi::start(agent.mock(), dir.path(), &replies);
        let w = World { agent, dir, mock };
        match agent {
            Agent::Codex => std::fs::write(
                w.settings(),
                format!(
                    "model = \"gpt-5.5\"\nmodel_provider = \"mock\"\n\
                     approval_policy = \"never\"\n\
                     sandbox_mode = \"danger-full-access\"\n\
                     check_for_update_on_startup = false\n\n\
                     [model_providers.mock]\nname = \"Mock\"\n\
                     base_url = \"http://127.0.0.1:{}/v1\"\n\
                     wire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\n\
                     request_max_retries = 0\nstream_max_retries = 0\n",
                    w.mock.port
                ),
            )
            .unwrap(),
            Agent::Gemini => {
                std::fs::write(
                    w.settings(),
                    r#"{"security":{"auth":{"selectedType":"gemini-api-key"}},"general":{"enableAutoUpdate":false}}"#,
                )
                .unwrap();
                std::fs::write(
                    home.join(".gemini/trustedFolders.json"),
                    json!({ project.display().to_string(): "TRUST_FOLDER" })
                        .to_string(),
                )
                .unwrap();
            }
        }
        let before = std::fs::read(w.settings()).unwrap();
        let out = w.stopgate(&["install", "--agent", agent.name()]);
        assert!(out.status.success(), "{}", stderr(&out));
        // Uninstall puts the file back byte for byte; install again.
        let out = w.stopgate(&["uninstall", "--agent", agent.name()]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(std::fs::read(w.settings()).unwrap(), before);
        let out = w.stopgate(&["install", "--agent", agent.name()]);
        assert!(out.status.success(), "{}", stderr(&out));
        let out = w.stopgate(&["doctor", "--agent", agent.name()]);
        assert!(
            out.status.success(),
            "doctor --agent {}: {}{}",
            agent.name(),
            String::from_utf8_lossy(&out.stdout),
            stderr(&out)
        );
        w
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn project(&self) -> PathBuf {
        self.dir.path().join("project").canonicalize().unwrap()
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    fn settings(&self) -> PathBuf {
        match self.agent {
            Agent::Codex => self.home().join(".codex/config.toml"),
            Agent::Gemini => self.home().join(".gemini/settings.json"),
        }
    }

    /// The environment every process of the scenario shares.
    fn env(&self, cmd: &mut Command) {
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("CODEX_HOME", self.home().join(".codex"))
            .env("GEMINI_CLI_HOME", self.home())
            .env("STOPGATE_STATE_DIR", self.state())
            .env("STOPGATE_CONFIG", self.dir.path().join("stopgate.toml"))
            .env("STOPGATE_DEBUG", "1");
    }

    fn stopgate(&self, args: &[&str]) -> std::process::Output {
        let mut cmd = Command::new(common::bin());
        cmd.args(args);
        self.env(&mut cmd);
        cmd.output().unwrap()
    }

    /// Run the client headless on `prompt` in the project; its stdout.
    fn run(&self, client: &Path, prompt: &str) -> String {
        let mut cmd = Command::new(client);
        match self.agent {
            Agent::Codex => {
                cmd.args(["exec", "--skip-git-repo-check", prompt]);
            }
            Agent::Gemini => {
                cmd.args(["-p", prompt, "--yolo"]);
            }
        }
        cmd.current_dir(self.project());
        self.env(&mut cmd);
        cmd.env("MOCK_API_KEY", "mock")
            .env("GEMINI_API_KEY", "mock")
            .env(
                "GOOGLE_GEMINI_BASE_URL",
                format!("http://127.0.0.1:{}", self.mock.port),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("the client starts");
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > RUN_LIMIT {
                let _ = child.kill();
                panic!(
                    "the client ran longer than {RUN_LIMIT:?}\n{}",
                    self.debug_log()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{} exited {:?}: {}\n{}",
            self.agent.name(),
            out.status.code(),
            stderr(&out),
            self.debug_log()
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The block reasons that reached the model, which must be `n`.
    fn feedback(&self, n: usize) -> Vec<String> {
        let feedback = feedback(&self.mock);
        assert_eq!(feedback.len(), n, "{feedback:#?}\n{}", self.debug_log());
        feedback
    }

    fn debug_log(&self) -> String {
        std::fs::read_to_string(self.state().join("debug.log"))
            .unwrap_or_default()
    }

    /// The session transcripts the client wrote.
    fn transcripts(&self) -> Vec<PathBuf> {
        let root = match self.agent {
            Agent::Codex => self.home().join(".codex/sessions"),
            Agent::Gemini => self.home().join(".gemini/tmp"),
        };
        walk(&root)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect()
    }

    /// `stopgate scan --all-turns` over the client's transcripts.
    fn scan(&self) -> Vec<Value> {
        let out = self.stopgate(&[
            "scan",
            "--format",
            "jsonl",
            "--all-turns",
            "--no-progress",
            "--agent",
            self.agent.name(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// The model's reply that writes hello.txt with the agent's editing tool.
fn write_file(agent: Agent) -> Value {
    match agent {
        Agent::Codex => {
            json!([{"type": "custom_tool_call", "name": "apply_patch",
            "input": "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"}])
        }
        Agent::Gemini => json!([{"functionCall": {"name": "write_file",
            "args": {"file_path": "hello.txt", "content": "hello\n"}}}]),
    }
}

/// The model's reply that writes with the agent's shell tool.
fn shell_write(agent: Agent) -> Value {
    match agent {
        Agent::Codex => {
            json!([{"type": "function_call", "name": "exec_command",
            "arguments": {"cmd": "printf 'hi\\n' > shell.txt"}}])
        }
        Agent::Gemini => json!([{"functionCall": {"name": "run_shell_command",
            "args": {"command": "printf 'hi\\n' > shell.txt", "description": "write"}}}]),
    }
}

/// The model's reply that says `text`.
fn say(agent: Agent, text: &str) -> Value {
    match agent {
        Agent::Codex => json!([{"type": "message", "text": text}]),
        Agent::Gemini => json!([{"text": text}]),
    }
}

/// Gated even under `codex exec`: no entrypoint is unattended.
const ATTENDED: &str = "skip_entrypoints = []\n";

fn blocks_once_then_the_audit_passes(agent: Agent) {
    let Some(client) = agent.client() else { return };
    let w = World::new(
        agent,
        ATTENDED,
        json!([write_file(agent), say(agent, "Done."), say(agent, AUDITED)]),
    );
    let out = w.run(&client, "Create hello.txt");
    assert!(out.ends_with(AUDITED), "{out}");
    assert!(w.project().join("hello.txt").exists());
    let feedback = w.feedback(1);
    assert!(feedback[0].contains("no self-audit"), "{}", feedback[0]);
    // The transcript: one change turn, blocked once, audited at the end.
    let sessions = w.transcripts();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let out = w.stopgate(&["check", "--json", &sessions[0].to_string_lossy()]);
    let verdict: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(verdict["verdict"], "allow", "{verdict}");
    let rows = w.scan();
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!(rows[0]["agent"], agent.name());
    assert_eq!(rows[0]["changed"], true, "{rows:#?}");
    assert_eq!(rows[0]["hook_blocks"], 1, "{rows:#?}");
    assert_eq!(rows[0]["audit"], "present", "{rows:#?}");
    assert_eq!(rows[0]["findings"], json!([]));
}

fn a_hollow_reply_is_blocked_again(agent: Agent) {
    let Some(client) = agent.client() else { return };
    let w = World::new(
        agent,
        ATTENDED,
        json!([
            shell_write(agent),
            say(agent, "Done."),
            say(agent, HOLLOW),
            say(agent, AUDITED)
        ]),
    );
    let out = w.run(&client, "Write shell.txt");
    assert!(out.ends_with(AUDITED), "{out}");
    assert!(w.project().join("shell.txt").exists(), "the command ran");
    let feedback = w.feedback(2);
    assert!(feedback[0].contains("no self-audit"), "{}", feedback[0]);
    assert!(feedback[1].contains("hollow audit"), "{}", feedback[1]);
}

fn the_cap_ends_the_loop(agent: Agent) {
    let Some(client) = agent.client() else { return };
    let w = World::new(
        agent,
        ATTENDED,
        json!([
            write_file(agent),
            say(agent, "Done."),
            say(agent, "Done!"),
            say(agent, "Finished."),
            say(agent, "Really done.")
        ]),
    );
    let out = w.run(&client, "Create hello.txt");
    // Two blocks (the default cap), then the third Stop is let through.
    w.feedback(2);
    assert!(out.ends_with("Finished."), "{out}");
}

#[test]
fn codex_blocks_once_then_the_audit_passes() {
    blocks_once_then_the_audit_passes(Agent::Codex);
}

#[test]
fn codex_a_hollow_reply_is_blocked_again() {
    a_hollow_reply_is_blocked_again(Agent::Codex);
}

#[test]
fn codex_the_cap_ends_the_loop() {
    the_cap_ends_the_loop(Agent::Codex);
}

/// `codex exec` is unattended (entrypoint `codex-exec`): allowed by
/// default, the change consumed.
#[test]
fn codex_exec_is_unattended_by_default() {
    let Some(client) = Agent::Codex.client() else { return };
    let agent = Agent::Codex;
    let w =
        World::new(agent, "", json!([write_file(agent), say(agent, "Done.")]));
    let out = w.run(&client, "Create hello.txt");
    assert_eq!(out, "Done.");
    w.feedback(0);
    assert!(
        w.debug_log().contains("codex-exec is unattended"),
        "{}",
        w.debug_log()
    );
}

#[test]
fn gemini_blocks_once_then_the_audit_passes() {
    blocks_once_then_the_audit_passes(Agent::Gemini);
}

#[test]
fn gemini_a_hollow_reply_is_blocked_again() {
    a_hollow_reply_is_blocked_again(Agent::Gemini);
}

#[test]
fn gemini_the_cap_ends_the_loop() {
    the_cap_ends_the_loop(Agent::Gemini);
}
