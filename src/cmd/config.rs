//! Finding and loading `stopgate.toml`, and `stopgate config`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use stopgate::config::{Config, DEFAULT_TOML};

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
        match locate(None) {
            Some(p) => println!("{}", p.display()),
            None => println!("(none: the built-in defaults)"),
        }
        return ExitCode::SUCCESS;
    }
    let Some(path) = &args.check else { return ExitCode::from(2) };
    match Config::from_file(path) {
        Ok(_) => {
            println!("{}: ok", path.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("stopgate: {e}");
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

/// The first configuration file that exists: see [`Config::locate`].
pub fn locate(explicit: Option<&Path>) -> Option<PathBuf> {
    Config::locate(explicit, &env_var)
}

/// Load the configuration, falling back to the defaults on any problem:
/// the configuration, a note for the debug log, and the problem, if any,
/// for the user.
pub fn load(
    explicit: Option<&Path>,
) -> (Config, Option<String>, Option<String>) {
    let Some(path) = locate(explicit) else {
        return (Config::default(), None, None);
    };
    match Config::from_file(&path) {
        Ok(c) => (c, Some(format!("config {}: loaded", path.display())), None),
        Err(e) => (
            Config::default(),
            Some(format!("config {e}; using defaults")),
            Some(format!("config {e}")),
        ),
    }
}

/// Load the configuration for an interactive command: a file that is
/// missing or malformed is an error naming it, not a silent fallback.
pub fn load_strict(explicit: Option<&Path>) -> Result<Config, String> {
    match locate(explicit) {
        None => Ok(Config::default()),
        Some(path) => Config::from_file(path).map_err(|e| e.to_string()),
    }
}
