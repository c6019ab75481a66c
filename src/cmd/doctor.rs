//! `stopgate doctor`: is the hook installed, well-formed, and working?
//!
//! One line per check, `ok` or `FAIL`, and a non-zero exit if any fails.
//! The self-test runs this very binary as a hook, exactly as Claude Code
//! would: a PostToolUse Write, then a Stop on a transcript without
//! markers (it must block), then the same with a marker (it must pass).
//! With `--agent codex|gemini` it checks that agent's install (for Codex,
//! the trust entries too), and the self-test speaks its protocol.

use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::process::{Command, ExitCode, Stdio};

use serde_json::json;
use stopgate::read::Format;

use super::install::{project_dir, read_settings, settings_path, Scope};
use super::settings;

/// Arguments of `stopgate doctor`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Check this agent's install instead of Claude Code's: codex (its
    /// config.toml, the hooks and their trust entries) or gemini (its
    /// settings.json); the self-test then speaks that agent's protocol.
    #[arg(long, value_name = "AGENT", value_parser = super::AGENTS)]
    agent: Option<String>,
}

struct Report {
    failed: usize,
}

impl Report {
    fn line(&mut self, ok: bool, what: &str) {
        if !ok {
            self.failed += 1;
        }
        println!("{} {what}", if ok { "ok  " } else { "FAIL" });
    }
}

/// Run `stopgate doctor`.
pub fn run(args: &Args) -> ExitCode {
    let mut r = Report { failed: 0 };
    let agent =
        args.agent.as_deref().and_then(Format::from_name).unwrap_or_default();
    match agent {
        Format::Claude => check_settings(&mut r),
        Format::Codex => check_codex(&mut r),
        Format::Gemini => check_gemini(&mut r),
    }
    check_config(&mut r);
    check_state(&mut r);
    match agent {
        Format::Claude => self_test(&mut r),
        _ => self_test_json(&mut r, agent),
    }
    if r.failed == 0 {
        ExitCode::SUCCESS
    } else {
        println!("{} check(s) failed", r.failed);
        ExitCode::from(1)
    }
}

fn check_settings(r: &mut Report) {
    let mut any_installed = false;
    let mut seen = vec![];
    for scope in [Scope::User, Scope::Project, Scope::Local] {
        let Some(path) = settings_path(scope) else { continue };
        if !path.exists() {
            continue;
        }
        // Run from $HOME, the project's settings file is the user's: one
        // file, checked once.
        let canonical = path.canonicalize().unwrap_or_else(|_| path.clone());
        if seen.contains(&canonical) {
            continue;
        }
        seen.push(canonical);
        let settings = match read_settings(&path) {
            Ok(s) => s,
            Err(e) => {
                r.line(false, &format!("settings {e}"));
                continue;
            }
        };
        let problems = settings::shape_problems(&settings);
        r.line(
            problems.is_empty(),
            &format!(
                "settings {}: hooks structure {}",
                path.display(),
                if problems.is_empty() {
                    "is well-formed".to_string()
                } else {
                    format!(
                        "is ignored by the client: {}",
                        problems.join("; ")
                    )
                }
            ),
        );
        let installed = settings::installed(&settings);
        if installed.is_empty() {
            continue;
        }
        any_installed = true;
        check_events(
            r,
            &format!("settings {}", path.display()),
            &installed,
            settings::EVENTS
                .iter()
                .map(|&(e, m)| (e, Some(m).filter(|_| e == "PostToolUse"))),
            "stopgate install",
        );
        check_programs(
            r,
            installed.iter().map(|(e, _, c)| (e.as_str(), c.as_str())),
            project_dir().as_deref(),
        );
    }
    r.line(any_installed, if any_installed {
        "stopgate is installed in a settings file"
    } else {
        "stopgate is not installed in any settings file (run `stopgate install`)"
    });
}

/// Codex CLI: the hooks in config.toml, trusted with the hash their
/// definition has now (else `codex exec` skips them without a word).
fn check_codex(r: &mut Report) {
    let Some(path) =
        super::install::codex_home().map(|h| h.join("config.toml"))
    else {
        r.line(false, "codex: HOME is not set");
        return;
    };
    let text = match super::userfile::read_to_string(
        &path,
        super::userfile::MAX_SETTINGS_BYTES,
    ) {
        Ok(t) => t,
        Err(e) => {
            r.line(
                false,
                &format!(
                    "codex {}: {e} (run `stopgate install --agent codex`)",
                    path.display()
                ),
            );
            return;
        }
    };
    if let Err(e) = super::codex_config::parse(&text, &path) {
        r.line(false, &format!("codex {e}"));
        return;
    }
    let installed = super::codex_config::installed(&text);
    check_events(
        r,
        &format!("codex {}", path.display()),
        &installed,
        super::codex_config::EVENTS.iter().copied(),
        "stopgate install --agent codex",
    );
    let config = std::path::absolute(&path).unwrap_or(path.clone());
    let untrusted = super::codex_config::untrusted(&text, &config);
    r.line(
        untrusted.is_empty(),
        &if untrusted.is_empty() {
            format!("codex {}: stopgate's hooks are trusted", path.display())
        } else {
            format!(
                "codex {}: not trusted, so Codex skips them: {} (run `stopgate install --agent codex` again, or trust them in /hooks)",
                path.display(),
                untrusted.join(", ")
            )
        },
    );
    check_programs(
        r,
        installed.iter().map(|(e, _, c)| (e.as_str(), c.as_str())),
        None,
    );
}

/// Gemini CLI: AfterTool and AfterAgent in its settings.json.
fn check_gemini(r: &mut Report) {
    let Some(path) = super::install::gemini_settings() else {
        r.line(false, "gemini: HOME is not set");
        return;
    };
    let settings = match read_settings(&path) {
        Ok(s) => s,
        Err(e) => {
            r.line(false, &format!("gemini settings {e}"));
            return;
        }
    };
    let installed = settings::installed(&settings);
    check_events(
        r,
        &format!("gemini {}", path.display()),
        &installed,
        settings::GEMINI_EVENTS
            .iter()
            .map(|&(e, m)| (e, Some(m).filter(|m| !m.is_empty()))),
        "stopgate install --agent gemini",
    );
    check_programs(
        r,
        installed.iter().map(|(e, _, c)| (e.as_str(), c.as_str())),
        None,
    );
}

/// Each installed command's program exists and is executable.
fn check_programs<'a>(
    r: &mut Report,
    commands: impl Iterator<Item = (&'a str, &'a str)>,
    project: Option<&std::path::Path>,
) {
    let path_var = std::env::var_os("PATH");
    for (event, command) in commands {
        let program = program_of(command);
        let found =
            settings::resolve_program(&program, project, path_var.as_deref());
        r.line(
            found.is_some(),
            &format!(
                "{event}: {program} {}",
                match &found {
                    Some(p) if p.as_os_str() != program.as_str() =>
                        format!("is {}, executable", p.display()),
                    Some(_) => "exists and is executable".to_string(),
                    None => "is missing or not executable".to_string(),
                }
            ),
        );
    }
}

/// The hook's self-test in Codex CLI's or Gemini CLI's protocol: a
/// file-changing tool, then an end of turn without an audit, must give
/// exactly `{"decision":"block","reason":"stopgate: …"}` on stdout with
/// exit 0; with an audit, exit 0 and nothing on stdout.
fn self_test_json(r: &mut Report, agent: Format) {
    let name = agent.as_str();
    let result = (|| -> Result<(), String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
        let config = tmp.path().join("stopgate.toml");
        std::fs::write(&config, "").map_err(|e| e.to_string())?;
        let state = tmp.path().join("state");
        let run = |input: serde_json::Value| {
            run_hook(&exe, &["--agent", name], &config, &state, &input)
                .map(|o| (o.code, o.stdout, o.stderr))
        };
        let gemini = agent == Format::Gemini;
        let post = if gemini {
            json!({"session_id": "doctor", "hook_event_name": "AfterTool", "tool_name": "write_file",
                   "tool_input": {"file_path": "x", "content": "y"}})
        } else {
            json!({"session_id": "doctor", "turn_id": "t", "model": "m", "hook_event_name": "PostToolUse",
                   "tool_name": "apply_patch", "tool_input": {"command": "*** Begin Patch"}, "tool_use_id": "c1"})
        };
        let stop = |text: &str| {
            if gemini {
                json!({"session_id": "doctor", "hook_event_name": "AfterAgent",
                       "prompt": "Add a parser.", "prompt_response": text, "stop_hook_active": false})
            } else {
                json!({"session_id": "doctor", "turn_id": "t", "model": "m", "hook_event_name": "Stop",
                       "stop_hook_active": false, "last_assistant_message": text})
            }
        };
        run(post.clone())?;
        let (code, out, err) = run(stop("Done."))?;
        let block: serde_json::Value =
            serde_json::from_str(out.trim()).unwrap_or_default();
        let exact = block.as_object().is_some_and(|o| {
            o.len() == 2
                && o.get("decision") == Some(&json!("block"))
                && o.get("reason")
                    .and_then(|r| r.as_str())
                    .is_some_and(|r| r.starts_with("stopgate:"))
        });
        if code != Some(0) || !exact || !err.is_empty() {
            return Err(format!(
                "an end of turn without an audit gave exit {code:?}, stdout {out:?}, stderr {err:?}; expected exit 0 and exactly {{\"decision\":\"block\",\"reason\":…}}"
            ));
        }
        run(post)?;
        let (code, out, err) = run(stop(
            "Self-audit: checked the failure paths and boundaries.",
        ))?;
        if code != Some(0) || !out.is_empty() || !err.is_empty() {
            return Err(format!("an audited end of turn gave exit {code:?}, stdout {out:?}; expected exit 0 and nothing"));
        }
        Ok(())
    })();
    match result {
        Ok(()) => r.line(true, &format!("self-test ({name}): a change then an unaudited end of turn blocks with the exact JSON; an audited one passes silently")),
        Err(e) => r.line(false, &format!("self-test ({name}): {e}")),
    }
}

/// What a run of the hook gave back.
struct HookRun {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Run this binary as a hook on `input`, as a client would: `hook
/// <args> --config <config>`, with its own state directory and none of
/// the caller's entrypoint or configuration.
fn run_hook(
    exe: &std::path::Path,
    args: &[&str],
    config: &std::path::Path,
    state: &std::path::Path,
    input: &serde_json::Value,
) -> Result<HookRun, String> {
    let mut child = Command::new(exe)
        .arg("hook")
        .args(args)
        .arg("--config")
        .arg(config)
        .env("STOPGATE_STATE_DIR", state)
        .env_remove("CLAUDE_CODE_ENTRYPOINT")
        .env_remove("STOPGATE_CONFIG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    stdin
        .write_all(input.to_string().as_bytes())
        .map_err(|e| e.to_string())?;
    drop(stdin);
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    Ok(HookRun {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// One line per event stopgate installs: its entry is there, with the
/// matcher install writes (`None`: any).
fn check_events<'a>(
    r: &mut Report,
    what: &str,
    installed: &[(String, String, String)],
    events: impl Iterator<Item = (&'a str, Option<&'a str>)>,
    install: &str,
) {
    for (event, matcher) in events {
        let entry = installed.iter().find(|(e, _, _)| e == event);
        let ok = entry
            .is_some_and(|(_, m, _)| matcher.is_none_or(|want| m == want));
        r.line(
            ok,
            &format!(
                "{what}: {event} entry {}",
                match entry {
                    None => format!("is missing (run `{install}`)"),
                    Some((_, m, _)) if !ok =>
                        format!("has matcher {m:?}, expected {matcher:?}"),
                    Some(_) => "present".to_string(),
                }
            ),
        );
    }
}

/// The program of a command line, unquoted.
fn program_of(command: &str) -> String {
    let c = command.trim();
    match c.strip_prefix('"') {
        Some(q) => q.split('"').next().unwrap_or("").to_string(),
        None => c.split_whitespace().next().unwrap_or("").to_string(),
    }
}

fn check_config(r: &mut Report) {
    match super::config::locate(None) {
        None => {
            r.line(true, "config: none found, the built-in defaults apply")
        }
        Some(path) => {
            let res = stopgate::config::Config::from_file(&path);
            match res {
                Ok(_) => {
                    r.line(true, &format!("config {}: valid", path.display()))
                }
                // What the hook tells the user, word for word.
                Err(e) => r.line(
                    false,
                    &stopgate::hook::Fault::Config(format!("config {e}"))
                        .message(),
                ),
            }
        }
    }
}

/// The state directory, by the hook's own rule (OpenSSH's: owned by you,
/// writable by no one else); a refusal is reported in the words the hook
/// tells the user.
fn check_state(r: &mut Report) {
    use stopgate::hook::{Fault, StateDir};
    let Some(dir) = stopgate::hook::default_dir(|k| std::env::var(k).ok())
    else {
        let fault =
            Fault::StateDir("no state directory: HOME is not set".into());
        r.line(false, &fault.message());
        return;
    };
    match StateDir::open(&dir) {
        Err(e) => r.line(false, &Fault::StateDir(e.to_string()).message()),
        Ok(_) => {
            let meta = std::fs::symlink_metadata(&dir);
            let mode = meta.as_ref().map(|m| m.mode() & 0o777).unwrap_or(0);
            r.line(
                true,
                &format!(
                    "state directory {}: mode {mode:o}, owned by you, \
                     writable by no one else",
                    dir.display()
                ),
            );
        }
    }
}

fn self_test(r: &mut Report) {
    let result = (|| -> Result<(), String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
        let transcript = tmp.path().join("t.jsonl");
        let lines = [
            json!({"type": "user", "entrypoint": "cli", "message": {"role": "user", "content": "Add a parser."}}),
            json!({"type": "assistant", "entrypoint": "cli", "message": {"id": "m1", "content": [{"type": "text", "text": "Done."}]}}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&transcript, text).map_err(|e| e.to_string())?;
        let config = tmp.path().join("stopgate.toml");
        std::fs::write(&config, "").map_err(|e| e.to_string())?;
        let state = tmp.path().join("state");
        let run = |input: serde_json::Value| {
            run_hook(&exe, &[], &config, &state, &input)
                .map(|o| (o.code, o.stderr))
        };
        let post = json!({"session_id": "doctor", "hook_event_name": "PostToolUse", "tool_name": "Write",
                          "tool_input": {"file_path": "/tmp/x"}, "transcript_path": &transcript});
        let stop = |last: Option<&str>| {
            let mut v = json!({"session_id": "doctor", "hook_event_name": "Stop", "transcript_path": &transcript});
            if let Some(l) = last {
                v["last_assistant_message"] = json!(l);
            }
            v
        };
        run(post.clone())?;
        let (code, err) = run(stop(None))?;
        if code != Some(2) || err.is_empty() {
            return Err(format!("a Stop without markers after a Write exited {code:?}, expected a block (2)"));
        }
        run(post)?;
        let (code, _) = run(stop(Some(
            "Self-audit: checked the failure paths and boundaries.",
        )))?;
        if code != Some(0) {
            return Err(format!(
                "a Stop with a marker exited {code:?}, expected 0"
            ));
        }
        Ok(())
    })();
    match result {
        Ok(()) => r.line(true, "self-test: Write then Stop blocks without a marker, passes with one"),
        Err(e) => r.line(false, &format!("self-test: {e}")),
    }
}
