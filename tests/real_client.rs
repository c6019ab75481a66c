//! The real Claude Code client, driven by a mock of the Messages API.
//!
//! Each scenario installs stopgate's hooks with `stopgate install` into a
//! throwaway `HOME`, starts `tests/real_client/mock-anthropic.mjs` on
//! 127.0.0.1 with a script of model replies, and runs the client headless
//! (`claude -p`), exactly as a user would. The assertions read what came
//! back: the requests the client sent to the mock (a block reaches the
//! model as a user message starting `Stop hook feedback:`), stopgate's
//! state directory, and the transcript the client wrote, scanned by
//! `stopgate scan`.
//!
//! The client is the npm package `@anthropic-ai/claude-code`, at each of
//! the versions in [`CLIENTS`], installed once each into
//! `target/real-client/<version>/`; every scenario runs against each. Where
//! `node` or `npm` is missing, every scenario is skipped with a notice.
//!
//! The versions differ where it matters here. 2.1.197 runs a subagent in
//! the foreground: its work ends before the launching turn does. 2.1.332
//! runs it in the background: the main agent may end its turn first, and
//! the subagent's result comes back as a `<task-notification>` prompt that
//! starts a turn of its own; it also wraps a Stop hook's feedback in a
//! system reminder on its way to the model. The mock routes each
//! conversation its own replies, and holds a reply until another
//! conversation, or the hook's log, has got far enough, so that each
//! scenario runs one way on every version.
//!
//! Facts the setup relies on (seen with 2.1.197 and 2.1.332):
//! * as root the client refuses `--dangerously-skip-permissions`;
//!   `--permission-mode acceptEdits` (plus `--allowedTools` for shell
//!   writes) runs the tools without prompts;
//! * under `-p` it rewrites `CLAUDE_CODE_ENTRYPOINT=cli` to `sdk-cli`
//!   (which stopgate skips as unattended) but keeps other values, so the
//!   attended scenarios set `claude-vscode`;
//! * it asks to approve a custom API key unless `~/.claude.json` lists its
//!   last 20 characters under `customApiKeyResponses.approved`.
//!
//! What 2.1.332 does besides (seen on 2026-12-04):
//! * the Agent tool's result is `{"isAsync": true, "status":
//!   "async_launched", "agentId": …}`; the subagent's PostToolUse input
//!   carries `agent_id`, as before; the main Stop's `background_tasks`
//!   lists it (`"type": "subagent", "status": "running"`) while it runs;
//! * when it is done, a `<task-notification>` user record (with `origin:
//!   {"kind": "task-notification"}`), after a meta record
//!   `<tools-used-before-summary>`, starts a turn, and `claude -p` prints
//!   that turn's answer after the first's;
//! * headless transcripts now hold a `stop_hook_summary` after each Stop,
//!   and new bookkeeping records (`api-request`, `api-request-blob`,
//!   `api-request-shape`, `tools-used`, `atis-latch`, `cost-state`), which
//!   every reader skips by their type.

// Runs the `stopgate` binary, which needs the `cli` feature.
#![cfg(feature = "cli")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod common;

use common::MockApi;

/// The client versions every scenario runs against, and how each runs a
/// subagent.
const CLIENTS: &[(&str, Subagents)] =
    &[("2.1.197", Subagents::Foreground), ("2.1.332", Subagents::Background)];

/// How a client runs the subagent its Agent tool launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Subagents {
    /// The tool returns when the subagent is done.
    Foreground,
    /// The tool returns at once; a `<task-notification>` prompt brings the
    /// result.
    Background,
}

/// One installed client.
struct Client {
    version: &'static str,
    subagents: Subagents,
    bin: PathBuf,
}

const API_KEY: &str = "sk-ant-mock-0123456789abcdefghijklmnopqrstuvwxyz";

/// The arguments every run gives the client: tools run without prompts.
const CLIENT_ARGS: &[&str] =
    &["--permission-mode", "acceptEdits", "--model", "claude-sonnet-4-5"];

/// How long one client run may take.
const RUN_LIMIT: Duration = Duration::from_secs(180);

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Whether `cmd` runs and answers `version_flag`.
fn have(cmd: &str, version_flag: &str) -> bool {
    Command::new(cmd)
        .arg(version_flag)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The clients, each installed on first use; none (with a notice) where
/// `node` or `npm` is missing.
fn clients() -> &'static [Client] {
    static CLIENTS_INSTALLED: OnceLock<Vec<Client>> = OnceLock::new();
    CLIENTS_INSTALLED.get_or_init(|| {
        if !have("node", "--version") || !have("npm", "--version") {
            let _ = writeln!(
                std::io::stderr(),
                "real-client tests skipped: node or npm is not installed"
            );
            return vec![];
        }
        CLIENTS
            .iter()
            .map(|&(version, subagents)| Client {
                version,
                subagents,
                bin: install(version),
            })
            .collect()
    })
}

/// Install the client at `version` into `target/real-client/<version>/`,
/// unless it is there; its binary.
fn install(version: &str) -> PathBuf {
    let prefix = root().join("target/real-client").join(version);
    let bin =
        prefix.join("node_modules/@anthropic-ai/claude-code/bin/claude.exe");
    let installed =
        Command::new(&bin).arg("--version").output().is_ok_and(|o| {
            String::from_utf8_lossy(&o.stdout).starts_with(version)
        });
    if !installed {
        let out = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&prefix)
            .arg(format!("@anthropic-ai/claude-code@{version}"))
            .output()
            .expect("npm runs");
        assert!(
            out.status.success(),
            "npm install of the client {version} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    bin
}

/// Run `scenario` against every client, naming each on stderr first, so
/// that a failure says which.
fn each_client(scenario: impl Fn(&Client)) {
    for client in clients() {
        let _ = writeln!(std::io::stderr(), "client {}", client.version);
        scenario(client);
    }
}

/// The mock Messages API, listening on 127.0.0.1; killed on drop.
struct Mock(MockApi);

impl Mock {
    fn start(dir: &Path, replies: &Value) -> Mock {
        Mock(MockApi::start(
            "tests/real_client/mock-anthropic.mjs",
            dir,
            replies,
        ))
    }

    fn port(&self) -> u16 {
        self.0.port
    }

    /// The requests of the agent loop, in order.
    fn agent_requests(&self) -> Vec<Value> {
        self.0
            .requests()
            .into_iter()
            .filter(|r| r["agent_loop"] == true)
            .collect()
    }

    /// Whether every held reply went out because what it waited for
    /// happened, not because the wait timed out.
    fn held_all(&self) -> bool {
        self.0.requests().iter().all(|r| r["wait"] != "timed out")
    }

    /// The block reasons that reached the model, in order.
    fn feedback(&self) -> Vec<String> {
        self.agent_requests()
            .iter()
            .filter_map(|r| r["last_user"].as_str())
            .filter(|t| t.contains("hook feedback:"))
            .map(str::to_string)
            .collect()
    }
}

/// One scenario's world: a home, a project, a state directory, the hooks
/// installed, and a stopgate.toml.
struct World {
    dir: tempfile::TempDir,
    mock: Mock,
    /// Variables the client runs with, besides the world's own.
    client_vars: Vec<(&'static str, &'static str)>,
}

impl World {
    /// `replies` gets the project's path, which the scripted tool uses
    /// name files in.
    fn new(config: &str, replies: impl FnOnce(&Path) -> Value) -> World {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        let project = project.canonicalize().unwrap();
        let key_tail = &API_KEY[API_KEY.len() - 20..];
        std::fs::write(
            home.join(".claude.json"),
            json!({
                "hasCompletedOnboarding": true,
                "customApiKeyResponses": {"approved": [key_tail], "rejected": []},
                "projects": {project.display().to_string(): {"hasTrustDialogAccepted": true}},
            })
            .to_string(),
        )
        .unwrap();
        std::fs::write(dir.path().join("stopgate.toml"), config).unwrap();
        let out = Command::new(common::bin())
            .args(["install", "--settings"])
            .arg(home.join(".claude/settings.json"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mock = Mock::start(dir.path(), &replies(&project));
        World { dir, mock, client_vars: vec![] }
    }

    /// This world, with the client run with `name` set to `value`.
    fn client_var(mut self, name: &'static str, value: &'static str) -> World {
        self.client_vars.push((name, value));
        self
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

    /// Run `claude -p PROMPT` in the project, attended
    /// (`CLAUDE_CODE_ENTRYPOINT=claude-vscode`) unless `entrypoint` says
    /// otherwise; `extra` adds arguments (`--continue`, `--allowedTools`).
    fn run(
        &self,
        client: &Client,
        prompt: &str,
        entrypoint: Option<&str>,
        extra: &[&str],
    ) -> Output {
        let mut cmd = Command::new(&client.bin);
        cmd.arg("-p").arg(prompt).args(CLIENT_ARGS).args(extra);
        self.client_env(&mut cmd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(e) = entrypoint {
            cmd.env("CLAUDE_CODE_ENTRYPOINT", e);
        }
        let mut child = cmd.spawn().expect("the client starts");
        let started = Instant::now();
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
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
            "claude exited {:?}: {}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr),
            self.debug_log()
        );
        out
    }

    /// `cmd`, which runs the client or starts it, set to run in the
    /// project with nothing of this process's environment but `PATH`.
    fn client_env<'c>(&self, cmd: &'c mut Command) -> &'c mut Command {
        cmd.current_dir(self.project())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env(
                "ANTHROPIC_BASE_URL",
                format!("http://127.0.0.1:{}", self.mock.port()),
            )
            .env("ANTHROPIC_API_KEY", API_KEY)
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("STOPGATE_STATE_DIR", self.state())
            .env("STOPGATE_CONFIG", self.dir.path().join("stopgate.toml"))
            .env("STOPGATE_DEBUG", "1")
            .envs(self.client_vars.iter().copied())
    }

    /// Run an attended `claude -p PROMPT`; its answer, trimmed.
    fn ask(&self, client: &Client, prompt: &str, extra: &[&str]) -> String {
        let out = self.run(client, prompt, Some("claude-vscode"), extra);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The block reasons that reached the model, which must be `n`.
    fn feedback(&self, n: usize) -> Vec<String> {
        let feedback = self.mock.feedback();
        assert_eq!(feedback.len(), n, "{feedback:#?}\n{}", self.debug_log());
        feedback
    }

    fn debug_log(&self) -> String {
        std::fs::read_to_string(self.state().join("debug.log"))
            .unwrap_or_default()
    }

    /// The blocks counted against the cap for the session of
    /// `transcript` (its state key is the file's stem).
    fn count(&self, transcript: &Path) -> u32 {
        let key = transcript.file_stem().unwrap().to_string_lossy();
        std::fs::read_to_string(self.state().join(format!("{key}.count")))
            .map(|s| s.trim().parse().unwrap())
            .unwrap_or(0)
    }

    /// The one session transcript the client wrote.
    fn only_session(&self) -> PathBuf {
        let sessions = self.transcripts();
        assert_eq!(sessions.len(), 1, "{sessions:?}");
        sessions.into_iter().next().unwrap()
    }

    /// The session transcripts the client wrote (main files).
    fn transcripts(&self) -> Vec<PathBuf> {
        let mut out = vec![];
        let projects = self.home().join(".claude/projects");
        for d in std::fs::read_dir(projects).unwrap().flatten() {
            for f in std::fs::read_dir(d.path()).unwrap().flatten() {
                if f.path().extension().is_some_and(|e| e == "jsonl") {
                    out.push(f.path());
                }
            }
        }
        out
    }

    /// `stopgate scan --all-turns` over the client's transcripts.
    /// `stopgate scan ARGS` over the world's transcripts, with its config.
    fn run_scan(&self, args: &[&str]) -> Output {
        Command::new(common::bin())
            .arg("scan")
            .args(args)
            .arg(self.home().join(".claude/projects"))
            .env("STOPGATE_CONFIG", self.dir.path().join("stopgate.toml"))
            .output()
            .unwrap()
    }

    fn scan(&self) -> Vec<Value> {
        let out = self.run_scan(&[
            "--format",
            "jsonl",
            "--all-turns",
            "--no-progress",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The hook health row of the scan's table for the one project: its
    /// cells after the project's name (stops, stopgate ran, blocks,
    /// overrode, errors, timeouts, not guarding).
    fn health_row(&self) -> Vec<String> {
        let out = self.run_scan(&["--no-progress", "--color", "never"]);
        let table = String::from_utf8_lossy(&out.stdout).into_owned();
        let health = table
            .split("hook health\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{table}"));
        let row = health.lines().nth(1).unwrap_or_else(|| panic!("{table}"));
        let cells: Vec<String> =
            row.split_whitespace().map(str::to_string).collect();
        // The project's name is one word here (`project`).
        cells[1..].to_vec()
    }

    /// `stopgate check --json` on the session's transcript.
    fn check(&self, transcript: &Path) -> Value {
        let out = Command::new(common::bin())
            .args(["check", "--json"])
            .arg(transcript)
            .env("STOPGATE_CONFIG", self.dir.path().join("stopgate.toml"))
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

/// The client run interactively, as most users run it: in a terminal,
/// here a tmux session on a socket of its own, whose server starts with
/// the world's environment. The client then sets
/// `CLAUDE_CODE_ENTRYPOINT=cli` itself. The server is killed on drop.
struct Terminal<'w> {
    world: &'w World,
    socket: PathBuf,
}

impl World {
    /// Start `client` interactively and wait for its prompt; `None`, with
    /// a notice, where tmux is missing.
    fn terminal(&self, client: &Client) -> Option<Terminal<'_>> {
        self.terminal_with(client, CLIENT_ARGS)
    }

    /// [`World::terminal`], with the client's arguments `args`.
    fn terminal_with(
        &self,
        client: &Client,
        args: &[&str],
    ) -> Option<Terminal<'_>> {
        if !have("tmux", "-V") {
            let _ = writeln!(
                std::io::stderr(),
                "skipped: tmux, which runs the client in a terminal, is not installed"
            );
            return None;
        }
        let socket = self.dir.path().join("tmux.sock");
        let mut cmd = Command::new("tmux");
        cmd.arg("-S")
            .arg(&socket)
            .args(["new-session", "-d", "-x", "160", "-y", "50", "--"])
            .arg(&client.bin)
            .args(args);
        let out = self
            .client_env(&mut cmd)
            .env("TERM", "xterm-256color")
            .output()
            .expect("tmux runs");
        assert!(
            out.status.success(),
            "tmux new-session: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let t = Terminal { world: self, socket };
        // The input box.
        t.until("the client's prompt", || {
            t.screen().lines().any(|l| l.starts_with('❯'))
        });
        Some(t)
    }

    /// How many Stops the hook has allowed.
    fn allowed(&self) -> usize {
        self.debug_log().matches("stop: Allow").count()
    }
}

impl Terminal<'_> {
    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs")
    }

    /// What the terminal shows.
    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p"]).stdout)
            .into_owned()
    }

    /// Wait until `done`; past [`RUN_LIMIT`], fail with the screen and the
    /// hook's log.
    fn until(&self, what: &str, done: impl Fn() -> bool) {
        let started = Instant::now();
        while !done() {
            if started.elapsed() > RUN_LIMIT {
                panic!(
                    "waited {RUN_LIMIT:?} for {what}; the screen:\n{}\nthe hook's log:\n{}",
                    self.screen(),
                    self.world.debug_log()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Type `text` at the prompt and press Enter once it shows.
    fn prompt(&self, text: &str) {
        assert!(self.tmux(&["send-keys", "-l", text]).status.success());
        self.until("the typed prompt", || {
            self.screen()
                .lines()
                .any(|l| l.starts_with('❯') && l.trim_end().ends_with(text))
        });
        assert!(self.tmux(&["send-keys", "Enter"]).status.success());
    }

    /// Press `key` (a tmux key name, such as `Escape`).
    fn press(&self, key: &str) {
        assert!(self.tmux(&["send-keys", key]).status.success());
    }

    /// End the session with `/exit`, as a user does, and wait until the
    /// client is gone.
    fn exit(self) {
        self.prompt("/exit");
        self.until("the client to exit", || {
            !self.tmux(&["has-session"]).status.success()
        });
    }
}

impl Drop for Terminal<'_> {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

fn tool(name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "name": name, "input": input})
}

fn write(path: &Path, content: &str) -> Value {
    tool("Write", json!({"file_path": path, "content": content}))
}

const AUDITED: &str =
    "Audit: a.txt is written whole by one Write, so a crash leaves the old file or the new; checked the empty-input boundary.";

/// A Write, then "Done.": one block; the audited answer passes.
#[test]
fn write_then_done_blocks_once_then_the_audit_passes() {
    each_client(|client| {
        let w = World::new("", |p| {
            json!([
                [text("Writing it."), write(&p.join("a.txt"), "hello\n")],
                [text("Done.")],
                [text(AUDITED)]
            ])
        });
        assert_eq!(w.ask(client, "write a.txt", &[]), AUDITED);
        let feedback = w.feedback(1);
        assert!(feedback[0].contains("no self-audit"), "{}", feedback[0]);
        let session = w.only_session();
        assert_eq!(w.count(&session), 1);
        // The transcript: one change turn, blocked once, audited at the end.
        let rows = w.scan();
        assert_eq!(rows.len(), 1, "{rows:#?}");
        assert_eq!(rows[0]["changed"], true);
        assert_eq!(rows[0]["hook_blocked"], true);
        assert_eq!(rows[0]["hook_blocks"], 1);
        assert_eq!(rows[0]["audit"], "present");
        assert_eq!(rows[0]["findings"], json!([]));
        // The evidence names the change: the tool, its file, its line.
        let changes = rows[0]["changes"][0].as_str().unwrap();
        assert!(
            changes.starts_with("this turn: Write ")
                && changes.contains("a.txt (line "),
            "{changes}"
        );
        assert_eq!(w.check(&session)["verdict"], "allow");
    });
}

/// A hook that cannot guard (a state directory other users may write)
/// lets the Stop through and says so in its `systemMessage`; the client
/// keeps that message in the transcript, and `scan` counts the Stop.
#[test]
fn a_hook_that_fails_open_says_so_and_the_scan_counts_it() {
    use std::os::unix::fs::PermissionsExt;
    each_client(|client| {
        let w = World::new("", |p| {
            json!([[write(&p.join("a.txt"), "x\n")], [text("Done.")]])
        });
        std::fs::create_dir_all(w.state()).unwrap();
        std::fs::set_permissions(
            w.state(),
            std::fs::Permissions::from_mode(0o777),
        )
        .unwrap();
        assert_eq!(w.ask(client, "write a.txt", &[]), "Done.");
        w.feedback(0);
        let rows = w.scan();
        assert_eq!(rows.len(), 1, "{rows:#?}");
        assert_eq!(rows[0]["unguarded"], 1, "{rows:#?}");
    });
}

/// A file-changing Bash command raises the flag like a Write.
#[test]
fn a_file_changing_bash_command_is_a_change() {
    each_client(|client| {
        let w = World::new("", |_| {
            json!([
                [tool(
                    "Bash",
                    json!({"command": "echo hi > b.txt", "description": "write b.txt"})
                )],
                [text("Done.")],
                [text("no audit needed: one-line scratch file for the test")]
            ])
        });
        w.ask(
            client,
            "write b.txt with the shell",
            &["--allowedTools", "Bash(echo:*)"],
        );
        assert!(w.project().join("b.txt").exists(), "the command ran");
        w.feedback(1);
        assert!(
            w.debug_log().contains("post: Bash changes files"),
            "{}",
            w.debug_log()
        );
    });
}

/// The reply to a block is judged: `監査：問題なし` is blocked again as a
/// hollow audit, and a real audit then passes.
#[test]
fn a_hollow_reply_after_a_block_is_blocked_again() {
    each_client(|client| {
        let w = World::new("audit.cap = 3\n", |p| {
            json!([
                [write(&p.join("a.txt"), "hello\n")],
                [text("Done.")],
                [text("監査：問題なし")],
                [text(AUDITED)]
            ])
        });
        assert_eq!(w.ask(client, "write a.txt", &[]), AUDITED);
        let feedback = w.feedback(2);
        assert!(feedback[0].contains("no self-audit"), "{}", feedback[0]);
        assert!(feedback[1].contains("stock_phrase"), "{}", feedback[1]);
        let rows = w.scan();
        assert_eq!(rows[0]["hook_blocks"], 2, "{rows:#?}");
        assert_eq!(rows[0]["findings"], json!([]));
    });
}

/// The cap (2) bounds the blocks across the prompts of one session.
#[test]
fn the_cap_holds_across_prompts() {
    each_client(|client| {
        let w = World::new("", |p| {
            json!([
                // Prompt 1: blocked once, then audited.
                [write(&p.join("a.txt"), "1\n")],
                [text("Done.")],
                [text(AUDITED)],
                // Prompt 2: blocked once more; the unaudited reply reaches the cap.
                [write(&p.join("a.txt"), "2\n")],
                [text("Done.")],
                [text("Done, really.")],
                // Prompt 3: capped, no block.
                [write(&p.join("a.txt"), "3\n")],
                [text("Done.")]
            ])
        });
        w.ask(client, "write a.txt", &[]);
        w.ask(client, "again", &["--continue"]);
        w.ask(client, "once more", &["--continue"]);
        assert_eq!(
            std::fs::read_to_string(w.project().join("a.txt")).unwrap(),
            "3\n"
        );
        w.feedback(2);
        let sessions = w.transcripts();
        let counts: Vec<u32> = sessions.iter().map(|s| w.count(s)).collect();
        assert_eq!(counts.iter().sum::<u32>(), 2, "{counts:?}");
    });
}

/// `claude -p` is an unattended (`sdk-cli`) session: nobody reads a block.
#[test]
fn headless_sdk_cli_sessions_are_never_blocked() {
    each_client(|client| {
        let w = World::new("", |p| {
            json!([[write(&p.join("a.txt"), "x\n")], [text("Done.")]])
        });
        let out = w.run(client, "write a.txt", None, &[]);
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "Done.");
        assert!(w.mock.feedback().is_empty(), "{}", w.debug_log());
        assert!(w.debug_log().contains("entrypoint sdk-cli is unattended"));
        assert_eq!(w.check(&w.transcripts()[0])["verdict"], "allow");
    });
}

/// Run interactively, in a terminal, as most users run it, the client
/// sets `CLAUDE_CODE_ENTRYPOINT=cli`, which is attended: a Write, then
/// "Done.", is blocked once and the audit passes; a second prompt in the
/// same session that changes nothing ends without a block.
#[test]
fn an_interactive_session_is_attended() {
    each_client(|client| {
        let w = World::new("", |p| {
            json!([
                slowly(json!([
                    text("Writing it."),
                    write(&p.join("a.txt"), "hello\n")
                ])),
                [text("Done.")],
                [text(AUDITED)],
                slowly(json!([text("a.txt holds one line, hello.")]))
            ])
        });
        let Some(t) = w.terminal(client) else { return };
        t.prompt("write a.txt");
        t.until("the first turn's end", || w.allowed() == 1);
        t.prompt("what is in a.txt?");
        t.until("the second turn's end", || w.allowed() == 2);
        t.exit();
        let feedback = w.feedback(1);
        assert!(feedback[0].contains("no self-audit"), "{}", feedback[0]);
        assert!(!w.debug_log().contains("unattended"), "{}", w.debug_log());
        let session = w.only_session();
        assert_eq!(w.count(&session), 1);
        let rows = w.scan();
        assert_eq!(rows.len(), 2, "{rows:#?}");
        for row in &rows {
            assert_eq!(row["entrypoint"], "cli", "{rows:#?}");
            assert_eq!(row["findings"], json!([]), "{rows:#?}");
        }
        assert_eq!(rows[0]["changed"], true, "{rows:#?}");
        assert_eq!(rows[0]["hook_blocks"], 1, "{rows:#?}");
        assert_eq!(rows[0]["audit"], "present", "{rows:#?}");
        assert_eq!(rows[1]["changed"], false, "{rows:#?}");
        assert_eq!(rows[1]["hook_blocked"], false, "{rows:#?}");
        assert_eq!(w.check(&session)["verdict"], "allow");
        // An interactive session records the Stop hooks that ran: the
        // hook health says stopgate's ran after both Stops, and counts the
        // blocks its log counts.
        let log = w.debug_log();
        let blocks = log.matches("stop: Block").count().to_string();
        assert_eq!(
            w.health_row(),
            ["2", "2", "of", "2", &blocks, "0", "0", "0", "0"],
            "{log}"
        );
    });
}

/// The user presses Esc while the model answers the Write's result: no
/// Stop fires for the interrupted turn, so the flag PostToolUse raised
/// stays up, and the next prompt's Stop blocks for the change, though its
/// own turn changed nothing. The scan and `check` say the same: the
/// change is owed at that turn, and the interrupted turn is judged by
/// nobody.
#[test]
fn an_interrupted_change_is_audited_at_the_next_stop_in_a_terminal() {
    each_client(|client| {
        let w = World::new("", |p| {
            let go = p.parent().unwrap().join("go");
            json!([
                slowly(json!([
                    text("Writing it."),
                    write(&p.join("a.txt"), "hello\n")
                ])),
                // Held until the test has pressed Esc: its request is cut.
                after(
                    json!({"file": go, "holds": "go"}),
                    json!([text("Done.")])
                ),
                slowly(json!([text("a.txt holds one line, hello.")])),
                [text(AUDITED)]
            ])
        });
        let Some(t) = w.terminal(client) else { return };
        t.prompt("write a.txt");
        t.until("the Write's PostToolUse", || {
            w.debug_log().contains("post: Write changes files")
        });
        // The next request is out, and held.
        std::thread::sleep(Duration::from_secs(1));
        t.press("Escape");
        t.until("the interrupt", || t.screen().contains("Interrupted"));
        std::fs::write(w.dir.path().join("go"), "go").unwrap();
        t.until("the held reply to go out", || {
            w.mock.0.requests().iter().any(|r| r["wait"] == "held")
        });
        t.prompt("what is in a.txt?");
        t.until("the second turn's end", || w.allowed() == 1);
        t.exit();
        let feedback = w.feedback(1);
        assert!(feedback[0].contains("no self-audit"), "{}", feedback[0]);
        let rows = w.scan();
        assert_eq!(rows.len(), 2, "{rows:#?}");
        assert_eq!(rows[0]["kind"], "interrupted", "{rows:#?}");
        assert_eq!(rows[0]["changed"], true, "{rows:#?}");
        assert_eq!(rows[0]["findings"], json!([]), "{rows:#?}");
        assert_eq!(rows[1]["kind"], "prompt", "{rows:#?}");
        assert_eq!(rows[1]["changed"], true, "{rows:#?}");
        assert_eq!(rows[1]["hook_blocks"], 1, "{rows:#?}");
        assert_eq!(rows[1]["audit"], "present", "{rows:#?}");
        assert_eq!(rows[1]["findings"], json!([]), "{rows:#?}");
        let session = &w.transcripts()[0];
        assert_eq!(w.check(session)["verdict"], "allow");
        let first = Command::new(common::bin())
            .args(["check", "--json", "--turn", "1"])
            .arg(session)
            .env("STOPGATE_CONFIG", w.dir.path().join("stopgate.toml"))
            .output()
            .unwrap();
        let first: Value = serde_json::from_slice(&first.stdout).unwrap();
        assert_eq!(first["verdict"], "allow", "{first}");
        assert_eq!(first["kind"], "interrupted", "{first}");
    });
}

/// Asked to approve a Write, the user declines it (Esc): the tool never
/// ran, and Claude Code runs no PostToolUse for it, so the next prompt's
/// Stop has no change to judge. The scan does not carry the declined
/// Write to that turn either.
#[test]
fn a_declined_write_is_nobodys_change_in_a_terminal() {
    each_client(|client| {
        let w = World::new("", |p| {
            json!([
                slowly(json!([
                    text("Writing it."),
                    write(&p.join("a.txt"), "hello\n")
                ])),
                slowly(json!([text("OK, I left a.txt alone.")]))
            ])
        });
        // The default permission mode: the client asks before a Write.
        let args = ["--model", "claude-sonnet-4-5"];
        let Some(t) = w.terminal_with(client, &args) else { return };
        t.prompt("write a.txt");
        t.until("the question", || {
            t.screen().contains("Do you want to create")
        });
        t.press("Escape");
        t.until("the decline", || {
            t.screen().to_lowercase().contains("rejected")
        });
        t.prompt("never mind");
        t.until("the second turn's end", || w.allowed() == 1);
        t.exit();
        assert!(!w.project().join("a.txt").exists());
        w.feedback(0);
        let log = w.debug_log();
        assert!(!log.contains("post:"), "{log}");
        assert!(log.contains("changed=false"), "{log}");
        let rows = w.scan();
        assert_eq!(rows.len(), 2, "{rows:#?}");
        assert_eq!(rows[0]["kind"], "interrupted", "{rows:#?}");
        // The declined Write changed nothing, in its own turn either.
        assert_eq!(rows[0]["changed"], false, "{rows:#?}");
        assert_eq!(rows[1]["changed"], false, "{rows:#?}");
        assert_eq!(rows[1]["findings"], json!([]), "{rows:#?}");
        assert_eq!(w.check(&w.transcripts()[0])["verdict"], "allow");
    });
}

/// A reply sent only once `when` holds (see the mock's header).
fn after(when: Value, blocks: Value) -> Value {
    json!({"after": when, "blocks": blocks})
}

/// `blocks`, the first reply to a prompt typed in a terminal, sent after
/// half a second, as a model takes time to answer. (Answered at once, the
/// interactive client was seen to write the reply's first lines before
/// the prompt's record, under the load of the suite's parallel runs.)
fn slowly(blocks: Value) -> Value {
    after(json!({"conversation": "", "taken": 0, "then_ms": 500}), blocks)
}

/// The conversation opened by `prompt` ('' for the main one) has taken
/// `n` replies.
fn taken(prompt: &str, n: usize) -> Value {
    json!({"conversation": prompt, "taken": n})
}

/// The hook's debug log holds `text`, and a second has passed since; `p`
/// is the project's path. (The client writes a Stop's `stop_hook_summary`
/// record, which ends the turn in the scan's reading, after the hook
/// exits: a change made in between would be the turn's.)
fn logged(p: &Path, text: &str) -> Value {
    let log = p.parent().unwrap().join("state/debug.log");
    json!({"file": log, "holds": text, "then_ms": 1000})
}

/// The main Stop's line in the hook's debug log (an ungated SubagentStop
/// logs `subagent stop: not gated`).
const MAIN_STOP: &str = "stop: pending=";

fn launch_writer() -> Value {
    tool(
        "Agent",
        json!({"description": "write b.txt", "prompt": "Write b.txt", "subagent_type": "general-purpose"}),
    )
}

/// The scan's rows after the first: on a client that runs subagents in
/// the background, the turns of their `<task-notification>`s, with no
/// work of their own to judge.
fn assert_only_notifications(client: &Client, rows: &[Value]) {
    if client.subagents == Subagents::Foreground {
        assert!(rows.is_empty(), "{rows:#?}");
    }
    for row in rows {
        assert_eq!(row["kind"], "notification", "{rows:#?}");
        assert_eq!(row["changed"], false, "{rows:#?}");
        assert_eq!(row["findings"], json!([]), "{rows:#?}");
    }
}

/// By default a subagent's change is the launching turn's: the main Stop
/// blocks, the SubagentStop does not, and the scan puts the change on the
/// parent's row. (The main agent ends its turn only once the subagent is
/// done, which a background subagent need not be: the next scenario.)
#[test]
fn a_subagent_write_is_audited_at_the_main_stop() {
    each_client(|client| {
        let w = World::new("", |p| {
            json!({
                "replies": [
                    [launch_writer()],
                    after(taken("Write b.txt", 2), json!([text("Done.")])),
                    [text(AUDITED)],
                    [text(AUDITED)]
                ],
                "agents": {
                    "Write b.txt": [
                        [write(&p.join("b.txt"), "hi\n")],
                        [text("Wrote b.txt.")]
                    ]
                }
            })
        });
        w.ask(client, "write b.txt with a subagent", &[]);
        assert!(w.project().join("b.txt").exists());
        let feedback = w.feedback(1);
        assert!(
            feedback[0].contains("Stop hook feedback:"),
            "{}",
            feedback[0]
        );
        assert!(w.mock.held_all(), "{:#?}", w.mock.0.requests());
        let rows = w.scan();
        assert_eq!(rows[0]["changed"], true, "{rows:#?}");
        assert_eq!(rows[0]["subagents"].as_array().unwrap().len(), 1);
        assert_eq!(rows[0]["hook_blocked"], true);
        assert_eq!(rows[0]["findings"], json!([]), "{rows:#?}");
        assert_only_notifications(client, &rows[1..]);
    });
}

/// A background subagent that changes files after the main agent ended
/// its turn: the launching turn's Stop saw no change and allowed; the
/// change is audited at the Stop of the turn its `<task-notification>`
/// starts, and the scan puts it on that turn, not on the launching one.
#[test]
fn a_background_subagent_change_is_audited_at_its_notification() {
    background_subagent_change(Run::Headless);
}

/// The same, run interactively: the client waits for the background
/// agent at its prompt, and the notification starts a turn there.
#[test]
fn a_background_subagent_change_is_audited_at_its_notification_in_a_terminal()
{
    background_subagent_change(Run::Terminal);
}

/// How a scenario runs the client.
#[derive(Clone, Copy, Debug)]
enum Run {
    /// `claude -p`, attended (`CLAUDE_CODE_ENTRYPOINT=claude-vscode`).
    Headless,
    /// Interactively, in a terminal ([`Terminal`]).
    Terminal,
}

fn background_subagent_change(run: Run) {
    each_client(|client| {
        if client.subagents == Subagents::Foreground {
            let _ = writeln!(
                std::io::stderr(),
                "skipped: {} runs subagents in the foreground",
                client.version
            );
            return;
        }
        let w = World::new("", |p| {
            json!({
                "replies": [
                    slowly(json!([launch_writer()])),
                    [text("Done.")],
                    [text("Done.")],
                    [text(AUDITED)]
                ],
                "agents": {
                    "Write b.txt": [
                        after(logged(p, MAIN_STOP), json!([write(&p.join("b.txt"), "hi\n")])),
                        [text("Wrote b.txt.")]
                    ]
                }
            })
        });
        let prompt = "write b.txt with a subagent";
        match run {
            Run::Headless => {
                // `claude -p` prints each turn's answer.
                let out = w.ask(client, prompt, &[]);
                assert!(out.ends_with(AUDITED), "{out}");
            }
            Run::Terminal => {
                let Some(t) = w.terminal(client) else { return };
                t.prompt(prompt);
                // The launching turn's Stop, and the notification's last.
                t.until("the notification's turn's end", || w.allowed() == 2);
                t.exit();
            }
        }
        assert!(w.project().join("b.txt").exists());
        let feedback = w.feedback(1);
        assert!(feedback[0].contains("no self-audit"), "{}", feedback[0]);
        assert!(w.mock.held_all(), "{:#?}", w.mock.0.requests());
        let rows = w.scan();
        assert_eq!(rows.len(), 2, "{rows:#?}");
        // The launching turn ended before the change: nothing to audit.
        assert_eq!(rows[0]["kind"], "prompt", "{rows:#?}");
        assert_eq!(rows[0]["changed"], false, "{rows:#?}");
        assert_eq!(rows[0]["subagents"].as_array().unwrap().len(), 1);
        assert_eq!(rows[0]["hook_blocked"], false, "{rows:#?}");
        assert_eq!(rows[0]["findings"], json!([]), "{rows:#?}");
        // The notification's turn: the change, blocked once, audited.
        assert_eq!(rows[1]["kind"], "notification", "{rows:#?}");
        assert_eq!(rows[1]["changed"], true, "{rows:#?}");
        assert_eq!(rows[1]["hook_blocks"], 1, "{rows:#?}");
        assert_eq!(rows[1]["audit"], "present", "{rows:#?}");
        assert_eq!(rows[1]["findings"], json!([]), "{rows:#?}");
        assert_eq!(w.check(&w.transcripts()[0])["verdict"], "allow");
    });
}

/// With `gate_subagents`, the subagent is held to the audit at its own
/// Stop, and the main agent is not blocked again for the same change.
#[test]
fn gate_subagents_blocks_the_subagent_itself() {
    each_client(|client| {
        let w = World::new("gate_subagents = true\n", |p| {
            json!({
                "replies": [
                    [launch_writer()],
                    // The main agent is not blocked for the same change.
                    after(taken("Write b.txt", 3), json!([text("Done.")])),
                    [text("Done.")]
                ],
                "agents": {
                    "Write b.txt": [
                        [write(&p.join("b.txt"), "hi\n")],
                        // The subagent's answer is blocked; its audit passes.
                        [text("Wrote b.txt.")],
                        [text(AUDITED)]
                    ]
                }
            })
        });
        let out = w.ask(client, "write b.txt with a subagent", &[]);
        assert!(out.ends_with("Done.") && !out.contains("Audit"), "{out}");
        w.feedback(1);
        assert!(w.mock.held_all(), "{:#?}", w.mock.0.requests());
        let log = w.debug_log();
        assert!(log.contains("flag agent-"), "{log}");
        let agent_counts = std::fs::read_dir(w.state())
            .unwrap()
            .flatten()
            .filter(|e| {
                let n = e.file_name().to_string_lossy().to_string();
                n.starts_with("agent-") && n.ends_with(".count")
            })
            .count();
        assert_eq!(agent_counts, 1, "the block counted against the subagent");
        // Offline, the one judge says what the hook said: the main turn
        // does not answer for the subagent's Write, and the subagent's own
        // file, judged as its SubagentStop is, ends audited.
        assert_eq!(w.check(&w.transcripts()[0])["verdict"], "allow");
        let rows = w.scan();
        assert!(rows.iter().all(|r| r["findings"] == json!([])), "{rows:#?}");
        let is_subagent = |r: &&Value| {
            r["file"].as_str().is_some_and(|f| f.contains("/subagents/"))
        };
        let main: Vec<&Value> =
            rows.iter().filter(|r| !is_subagent(r)).collect();
        assert!(main.iter().all(|r| r["changed"] == false), "{rows:#?}");
        let sub = rows.iter().find(is_subagent).expect("the subagent's row");
        assert_eq!(sub["changed"], true, "{rows:#?}");
        assert_eq!(sub["audit"], "present", "{rows:#?}");
    });
}

/// `output = "json"`: the block goes out as JSON on stdout, the client
/// records a `hook_blocking_error` attachment, and the scan names the hook.
#[test]
fn json_output_blocks_and_the_scan_names_the_hook() {
    each_client(|client| {
        let w = World::new("output = \"json\"\n", |p| {
            json!([
                [write(&p.join("a.txt"), "x\n")],
                [text("Done.")],
                [text(AUDITED)]
            ])
        });
        w.ask(client, "write a.txt", &[]);
        w.feedback(1);
        let rows = w.scan();
        assert_eq!(rows[0]["hook_blocked"], true);
        let hooks = rows[0]["blocking_hooks"].as_array().unwrap();
        assert!(
            hooks
                .iter()
                .any(|h| h.as_str().unwrap().ends_with("stopgate hook")),
            "{rows:#?}"
        );
    });
}

/// Claude Code ends a turn by itself after a number of consecutive Stop
/// blocks (`CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`, 8 by default) and does not
/// tell the hook. With the client's cap at 2 and stopgate's at 5, the
/// client ends the turn on stopgate's third block; the scan's hook health
/// says so, and its block count matches the hook's own log.
#[test]
fn blocks_the_client_overrode_are_in_the_hook_health() {
    each_client(|client| {
        let w = World::new("[audit]\ncap = 5\n", |p| {
            json!([
                [write(&p.join("a.txt"), "x\n")],
                [text("Done.")],
                [text("Done, really.")],
                [text("Done, truly.")],
                [text("Done, at last.")],
                [text(AUDITED)]
            ])
        })
        .client_var("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "2");
        w.ask(client, "write a.txt", &[]);
        // Two blocks the model answered, and the one the client ended the
        // turn on.
        let logged = w.debug_log().matches("stop: Block").count();
        assert_eq!(logged, 3, "{}", w.debug_log());
        // The model saw every block but the last: the client ended the
        // turn over it.
        w.feedback(logged - 1);
        let rows = w.scan();
        assert_eq!(rows.len(), 1, "{rows:#?}");
        assert_eq!(rows[0]["hook_blocks"], logged, "{rows:#?}");
        assert_eq!(rows[0]["blocks_overridden"], logged, "{rows:#?}");
        // Both clients send `prompt_id` (2.1.196 and later): the session
        // keeps its last block's, to tell a reply from a new prompt.
        let kept = std::fs::read_dir(w.state())
            .unwrap()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "prompt"))
            .count();
        assert_eq!(kept, 1, "{}", w.debug_log());
    });
}
