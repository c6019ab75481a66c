//! Finding and loading `stopgate.toml`, and `stopgate config`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;

use stopgate::config::{Config, DEFAULT_TOML, MAX_CONFIG_BYTES};

/// Arguments of `stopgate config`.
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("what").required(true)))]
pub struct Args {
    /// Print the built-in defaults, as a commented stopgate.toml.
    #[arg(long, group = "what")]
    default: bool,

    /// Check a configuration file: print its error with line and column and
    /// exit 2, or print "ok" and exit 0.
    #[arg(long, value_name = "FILE", group = "what")]
    check: Option<PathBuf>,

    /// Print which file the hook would load, if any.
    #[arg(long, group = "what")]
    which: bool,
}

/// Run `stopgate config`.
pub fn run(args: &Args) -> ExitCode {
    if args.default {
        print!("{DEFAULT_TOML}");
        return ExitCode::SUCCESS;
    }
    if args.which {
        match locate(None, &env_var) {
            Some(p) => println!("{}", p.display()),
            None => println!("(none: the built-in defaults)"),
        }
        return ExitCode::SUCCESS;
    }
    let Some(path) = &args.check else { return ExitCode::from(2) };
    let text = match read_config(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("stopgate: {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    match Config::from_toml(&text) {
        Ok(_) => {
            println!("{}: ok", path.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("stopgate: {}: {e}", path.display());
            ExitCode::from(2)
        }
    }
}

/// The environment as [`locate`] reads it: `PWD` is the process's working
/// directory itself (a client sets it for the hook, and may leave `PWD` as
/// its own).
pub fn env_var(key: &str) -> Option<String> {
    if key == "PWD" {
        return std::env::current_dir()
            .ok()
            .map(|d| d.to_string_lossy().into_owned());
    }
    std::env::var(key).ok()
}

/// The first configuration file that exists, in the documented order:
/// `explicit` (`--config`), `$STOPGATE_CONFIG`, the project's
/// `.claude/stopgate.toml`, `.codex/stopgate.toml` or
/// `.gemini/stopgate.toml`, then `$XDG_CONFIG_HOME/stopgate/config.toml`
/// (default `~/.config`).
///
/// The project is `$CLAUDE_PROJECT_DIR` (Claude Code sets it, and Gemini
/// CLI too), else `$GEMINI_PROJECT_DIR`, else the working directory
/// (`PWD`), where Codex CLI runs its hooks.
///
/// An explicit path or `$STOPGATE_CONFIG` is returned even if missing, so
/// that the caller can report it.
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
            candidates.push(Path::new(&dir).join(agent).join("stopgate.toml"));
        }
    }
    match set("XDG_CONFIG_HOME") {
        Some(x) => candidates.push(Path::new(&x).join("stopgate/config.toml")),
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

/// Load the configuration, falling back to the defaults on any problem.
/// The problem, if any, is returned for the debug log.
pub fn load(explicit: Option<&Path>) -> (Config, Option<String>) {
    let Some(path) = locate(explicit, &env_var) else {
        return (Config::default(), None);
    };
    let text = match read_config(&path) {
        Ok(t) => t,
        Err(e) => {
            return (
                Config::default(),
                Some(format!(
                    "config {}: {e}; using defaults",
                    path.display()
                )),
            )
        }
    };
    match Config::from_toml(&text) {
        Ok(c) => (c, Some(format!("config {}: loaded", path.display()))),
        Err(e) => (
            Config::default(),
            Some(format!("config {}: {e}; using defaults", path.display())),
        ),
    }
}

/// Load the configuration for an interactive command: a file that is
/// missing or malformed is an error naming it, not a silent fallback.
pub fn load_strict(explicit: Option<&Path>) -> Result<Config, String> {
    let Some(path) = locate(explicit, &env_var) else {
        return Ok(Config::default());
    };
    let text =
        read_config(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Config::from_toml(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Read a configuration file: only a regular file, of at most
/// [`MAX_CONFIG_BYTES`]. It is opened without blocking, so that a FIFO
/// planted in its place cannot hold the hook, and read with a bound, so
/// that `/dev/zero` cannot fill memory.
pub fn read_config(path: &Path) -> std::io::Result<String> {
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
