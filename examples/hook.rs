//! The `hook` feature: a Stop hook binary of your own, built on stopgate's
//! hook logic. It reads the client's JSON on stdin, keeps its state where
//! `stopgate hook` keeps it, and blocks with `{"decision":"block",…}`.
//!
//! ```sh
//! echo '{"hook_event_name":"Stop","session_id":"s1","transcript_path":"fixtures/transcripts/gate_findings.jsonl"}' \
//!     | cargo run --example hook --no-default-features --features hook
//! ```
//!
//! Unlike `stopgate hook`, it has no timer and no configuration search:
//! it shows the calls, not the edges. Whatever goes wrong, it allows.

use stopgate::config::Config;
use stopgate::hook::{self, Decision, Event, HookEnv, HookInput, StateDir};
use stopgate::judge::Judge;

fn main() {
    let Some(input) = HookInput::read(std::io::stdin().lock()) else {
        return; // not a hook input: allow
    };
    let Some(event) = input.event() else { return };
    let Some(dir) = hook::default_dir(|k| std::env::var(k).ok()) else {
        return;
    };
    let Ok(state) = StateDir::open(&dir) else { return };
    let config = Config::default();
    if event == Event::PostToolUse {
        hook::post_tool_use(&input, &state, config.gate_subagents);
        return;
    }
    let Ok(judge) = Judge::new(&config) else { return };
    let env = HookEnv::new(input.agent(), None);
    let outcome = hook::stop(&input, event, &judge, &state, &env);
    if let Decision::Block { message, .. } = outcome.decision {
        let block =
            serde_json::json!({"decision": "block", "reason": message});
        println!("{block}");
    }
}
