//! `stopgate hook`: the Stop hook of Claude Code, Codex CLI and Gemini CLI,
//! wrapped so that it fails open, and never silently.
//!
//! Whatever goes wrong in here (an error, a panic, a timeout, a `SIGBUS`),
//! the process exits 0 and writes nothing to stderr: stderr reaches the
//! model, and exit 2 blocks it, so both are reserved for a deliberate
//! block. With `STOPGATE_DEBUG=1`, notes go to `debug.log` in the state
//! directory instead.
//!
//! When a Stop is let through because of the hook's own fault (a refused
//! state directory, an invalid configuration, a block that could not be
//! recorded, a timeout, a panic), the user is told on stdout, in the JSON
//! all three clients show as a warning: `{"systemMessage": "…"}`, exit 0
//! ([`Fault`]). Once per session: a marker in the state directory
//! (`SESSION.told`) says the session was told. A refused state directory
//! can hold no marker, and a marker elsewhere (a temp directory) could be
//! planted by others, so that fault is told at every Stop until it is
//! fixed. A block in exit-2 mode carries no JSON, so the notice waits for
//! the next Stop that allows. PostToolUse is never told: it must stay
//! cheap, and the next Stop tells.
//!
//! The verdict is written and flushed before the state directory's hourly
//! sweep runs ([`StateDir::cleanup`], itself bounded in time), so a slow
//! sweep can never cost a block.

use std::io::Write;
use std::mem::ManuallyDrop;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use stopgate::config::{Config, OutputMode, DEFAULT_TIMEOUT_MS};
use stopgate::hook::{
    self, Decision, Event, Fault, HookEnv, HookInput, StateDir,
};
use stopgate::judge::Judge;
use stopgate::read::Format;

/// Arguments of `stopgate hook`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Use this stopgate.toml instead of searching for one.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Read the hook input from FILE instead of stdin: replays a captured
    /// input (STOPGATE_DEBUG=1 logs what the hook decided and why).
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,

    /// The agent that runs the hook. Without it, the input tells: Gemini
    /// CLI's events are AfterTool and AfterAgent, Codex CLI sends turn_id
    /// and model. `stopgate install --agent` writes it into the command.
    #[arg(long, value_name = "AGENT", value_parser = super::AGENTS)]
    agent: Option<String>,
}

/// What the hook has to say: a block, a notice for the user, or both.
#[derive(Default)]
struct Reply {
    block: Option<Delivery>,
    notice: Option<Notice>,
    /// The state directory to sweep once the reply is out.
    sweep: Option<StateDir>,
}

/// A block, ready to deliver.
struct Delivery {
    message: String,
    mode: OutputMode,
}

/// A fault to tell the user, and where to remember that they were told.
struct Notice {
    fault: Fault,
    /// The state directory and session key of the marker; `None` when
    /// there is none to keep, and the user is told at every Stop.
    marker: Option<(StateDir, String)>,
}

impl Notice {
    /// Whether to tell now: no marker can be kept, or this is the first
    /// time for the session.
    fn is_due(&self) -> bool {
        self.marker.as_ref().is_none_or(|(dir, key)| dir.first_notice(key))
    }
}

/// Run the hook. Never fails: see the module docs.
pub fn run(args: &Args) -> ExitCode {
    // The timer starts first, before anything is read: a FIFO or a
    // never-closed stdin cannot hold the agent.
    let started = Instant::now();
    // A mapped or read file vanishing under us, or the timer: exit 0,
    // with the armed notice if any.
    super::signals::install("", 0);
    super::signals::exit_after(Duration::from_millis(DEFAULT_TIMEOUT_MS));
    // Under `ulimit -f`, a write fails (and the hook fails open) instead of
    // the process dying by a signal.
    super::signals::ignore_file_size_limit();
    // A panic must not print its message to stderr.
    std::panic::set_hook(Box::new(|_| {}));
    match std::panic::catch_unwind(|| handle(args, started)) {
        Ok(reply) => finish(reply),
        Err(_) => {
            super::signals::fire_notice(false);
            ExitCode::SUCCESS
        }
    }
}

/// Deliver the reply, flush it, then sweep the state directory.
fn finish(reply: Reply) -> ExitCode {
    super::signals::disarm_notice();
    let code: u8 = match reply.block {
        Some(ref d) if d.mode == OutputMode::Exit2 => 2,
        _ => 0,
    };
    // A timer that fires from here on exits with the verdict's status.
    super::signals::set_status(code.into());
    // Exit-2 mode has no JSON to carry a notice: it waits for a later Stop.
    let notice = reply
        .notice
        .filter(|_| code == 0)
        .filter(Notice::is_due)
        .map(|n| n.fault.message());
    match reply.block {
        Some(d) if code == 2 => {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "{}", d.message).and_then(|()| err.flush());
        }
        block => write_json(block.map(|d| d.message), notice),
    }
    if let Some(state) = reply.sweep {
        state.cleanup();
    }
    ExitCode::from(code)
}

/// The JSON verdict on stdout: a block (Codex CLI takes exactly
/// `decision` and `reason`, and `systemMessage` beside them), a notice, or
/// nothing at all to allow.
fn write_json(block: Option<String>, notice: Option<String>) {
    let mut obj = serde_json::Map::new();
    if let Some(reason) = block {
        obj.insert("decision".into(), "block".into());
        obj.insert("reason".into(), reason.into());
    }
    if let Some(message) = notice {
        obj.insert("systemMessage".into(), message.into());
    }
    if obj.is_empty() {
        return;
    }
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", serde_json::Value::Object(obj))
        .and_then(|()| out.flush());
}

fn handle(args: &Args, started: Instant) -> Reply {
    let input = match &args.input {
        Some(path) => std::fs::File::open(path).ok().and_then(HookInput::read),
        None => HookInput::read(std::io::stdin().lock()),
    };
    let Some(input) = input else { return Reply::default() };
    let Some(event) = input.event() else { return Reply::default() };
    let debug = std::env::var("STOPGATE_DEBUG").is_ok_and(|v| v == "1");
    let state = match open_state() {
        Ok(state) => state,
        Err(_) if event == Event::PostToolUse => return Reply::default(),
        Err(fault) => {
            let notice = Notice { fault, marker: None };
            return Reply { notice: Some(notice), ..Reply::default() };
        }
    };
    let log = |line: &str| {
        if debug {
            state.debug_log(line);
        }
    };
    // The hot path: no configuration, no transcript, unless the tool ran
    // inside a subagent, whose flag depends on `gate_subagents`.
    if event == Event::PostToolUse && input.agent_id.is_none() {
        for n in hook::post_tool_use(&input, &state, false).notes {
            log(&n);
        }
        return Reply::default();
    }
    let (config, config_note, config_error) =
        super::config::load(args.config.as_deref());
    if let Some(n) = config_note {
        log(&n);
    }
    if event == Event::PostToolUse {
        let gated = config.gate_subagents;
        for n in hook::post_tool_use(&input, &state, gated).notes {
            log(&n);
        }
        return Reply::default();
    }
    let key = input.session_id.as_deref().and_then(hook::safe_id);
    arm(config.timeout(), started, &state, key);
    let marker = key.map(|k| (state.clone(), k.to_string()));
    let notice = |fault: Fault| Some(Notice { fault, marker: marker.clone() });
    inject_fault();
    let mut reply = Reply {
        notice: config_error.map(Fault::Config).and_then(notice),
        sweep: Some(state.clone()),
        ..Reply::default()
    };
    // The process ends with this Stop, and the exit frees the gates'
    // thousands of small allocations at once: dropping them one by one
    // was an eighth of a Stop's instructions.
    let judge = match Judge::new(&config) {
        Ok(j) => ManuallyDrop::new(j),
        Err(e) => {
            log(&format!("gates: {e}"));
            reply.notice = notice(Fault::Gates(e.to_string()));
            return reply;
        }
    };
    let (agent, env) = agent_env(args, &input);
    let outcome = hook::stop(&input, event, &judge, &state, &env);
    for n in &outcome.notes {
        log(n);
    }
    if let Some(fault) = outcome.fault {
        reply.notice = notice(fault);
    }
    if let Decision::Block { message, .. } = outcome.decision {
        reply.block = Some(Delivery { message, mode: mode(agent, &config) });
    }
    reply
}

/// Arm the Stop's time budget, which counts from the process's start, and
/// the notice a timeout or a crash leaves for the session `key`.
fn arm(
    budget: Duration,
    started: Instant,
    state: &StateDir,
    key: Option<&str>,
) {
    super::signals::exit_after(budget.saturating_sub(started.elapsed()));
    super::signals::arm_notice(
        Fault::Timeout(budget.as_millis() as u64).json(),
        Fault::Crash.json(),
        key.map(|k| state.notice_marker(k)).as_deref(),
    );
}

/// The agent whose hook this is (`--agent`, or told by the input), and
/// what the hook's environment says of the session.
fn agent_env(args: &Args, input: &HookInput) -> (Format, HookEnv) {
    let agent = args
        .agent
        .as_deref()
        .and_then(Format::from_name)
        .unwrap_or_else(|| input.agent());
    // Another agent run from inside a Claude Code session inherits its
    // environment, which says nothing about this session.
    let entrypoint = match agent {
        Format::Claude => std::env::var("CLAUDE_CODE_ENTRYPOINT").ok(),
        _ => None,
    };
    (agent, HookEnv::new(agent, entrypoint))
}

/// How a block reaches `agent`. Codex CLI takes exactly the JSON form as a
/// block; Gemini CLI reads stdout before stderr. So for them the output is
/// JSON, whatever `output` says.
fn mode(agent: Format, config: &Config) -> OutputMode {
    match agent {
        Format::Claude => config.output,
        _ => OutputMode::Json,
    }
}

/// The state directory, or the fault that leaves the hook without one.
fn open_state() -> Result<StateDir, Fault> {
    let Some(dir) = hook::default_dir(|k| std::env::var(k).ok()) else {
        return Err(Fault::StateDir(
            "no state directory: HOME is not set".into(),
        ));
    };
    StateDir::open(&dir).map_err(|e| Fault::StateDir(e.to_string()))
}

/// Debug builds only: `STOPGATE_FAULT=panic` or `hang` makes the hook fail
/// after it has armed its notice, so that the tests can see the user told.
fn inject_fault() {
    if !cfg!(debug_assertions) {
        return;
    }
    match std::env::var("STOPGATE_FAULT").as_deref() {
        Ok("panic") => panic!("injected fault"),
        Ok("hang") => std::thread::sleep(Duration::from_secs(60)),
        _ => {}
    }
}
