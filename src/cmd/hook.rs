//! `stopgate hook`: the Stop hook of Claude Code, Codex CLI and Gemini CLI,
//! wrapped so that it fails open.
//!
//! Whatever goes wrong in here (an error, a panic, a timeout, a `SIGBUS`),
//! the process exits 0 and writes nothing to stderr: stderr reaches the
//! model, and exit 2 blocks it, so both are reserved for a deliberate
//! block. With `STOPGATE_DEBUG=1`, notes go to `debug.log` in the state
//! directory instead.

use std::io::Write;
use std::mem::ManuallyDrop;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use stopgate::config::{OutputMode, DEFAULT_TIMEOUT_MS};
use stopgate::hook::{self, Decision, Event, HookEnv, HookInput, StateDir};
use stopgate::Format;
use stopgate::Judge;

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

/// A block, ready to deliver.
struct Delivery {
    message: String,
    mode: OutputMode,
}

/// Run the hook. Never fails: see the module docs.
pub fn run(args: &Args) -> ExitCode {
    // The timer starts first, before anything is read: a FIFO or a
    // never-closed stdin cannot hold the agent.
    let started = Instant::now();
    // A mapped or read file vanishing under us, or the timer: exit 0,
    // silently.
    super::signals::install("", 0);
    super::signals::exit_after(Duration::from_millis(DEFAULT_TIMEOUT_MS));
    // Under `ulimit -f`, a write fails (and the hook fails open) instead of
    // the process dying by a signal.
    super::signals::ignore_file_size_limit();
    // A panic must not print its message to stderr.
    std::panic::set_hook(Box::new(|_| {}));
    match std::panic::catch_unwind(|| handle(args, started)) {
        Ok(Some(d)) => deliver(d),
        _ => ExitCode::SUCCESS,
    }
}

fn deliver(d: Delivery) -> ExitCode {
    match d.mode {
        OutputMode::Exit2 => {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "{}", d.message);
            ExitCode::from(2)
        }
        OutputMode::Json => {
            let obj =
                serde_json::json!({"decision": "block", "reason": d.message});
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{obj}");
            ExitCode::SUCCESS
        }
    }
}

fn handle(args: &Args, started: Instant) -> Option<Delivery> {
    let input = match &args.input {
        Some(path) => HookInput::read(std::fs::File::open(path).ok()?)?,
        None => HookInput::read(std::io::stdin().lock())?,
    };
    let event = input.event()?;
    let debug = std::env::var("STOPGATE_DEBUG").is_ok_and(|v| v == "1");
    let state = hook::default_dir(|k| std::env::var(k).ok())
        .and_then(|p| StateDir::open(&p).ok())?;
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
        return None;
    }
    let (config, config_note) = super::config::load(args.config.as_deref());
    if let Some(n) = config_note {
        log(&n);
    }
    if event == Event::PostToolUse {
        let gated = config.gate_subagents;
        for n in hook::post_tool_use(&input, &state, gated).notes {
            log(&n);
        }
        return None;
    }
    // The configured budget counts from the start, not from here.
    super::signals::exit_after(
        config.timeout().saturating_sub(started.elapsed()),
    );
    // The process ends with this Stop, and the exit frees the gates'
    // thousands of small allocations at once: dropping them one by one
    // was an eighth of a Stop's instructions.
    let judge = match Judge::new(&config) {
        Ok(j) => ManuallyDrop::new(j),
        Err(e) => {
            log(&format!("gates: {e}"));
            return None;
        }
    };
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
    let env = HookEnv::new(agent, entrypoint);
    let outcome = hook::stop(&input, event, &judge, &state, &env);
    for n in &outcome.notes {
        log(n);
    }
    match outcome.decision {
        Decision::Allow => None,
        // Codex CLI takes exactly this JSON as a block; Gemini CLI reads
        // stdout before stderr. So for them the output is JSON, whatever
        // `output` says.
        Decision::Block { message, .. } => Some(Delivery {
            message,
            mode: match agent {
                Format::Claude => config.output,
                _ => OutputMode::Json,
            },
        }),
    }
}
