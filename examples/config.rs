//! The `config` feature: find and read `stopgate.toml` as the hook does,
//! and show what it changes from the defaults.
//!
//! ```sh
//! cargo run --example config --no-default-features --features config -- [FILE]
//! ```
//!
//! Without FILE, the file is looked for where the hook looks: see
//! `Config::locate`. An error names the file, its line and its column.

use std::process::ExitCode;

use stopgate::config::Config;
use stopgate::ErrorKind;

fn main() -> ExitCode {
    let explicit = std::env::args_os().nth(1).map(std::path::PathBuf::from);
    let env = |key: &str| std::env::var(key).ok();
    let Some(path) = Config::locate(explicit.as_deref(), &env) else {
        println!("no stopgate.toml found: the built-in defaults apply");
        return ExitCode::SUCCESS;
    };
    match Config::from_file(&path) {
        Ok(config) => {
            println!("{}: ok", path.display());
            println!("gates, in order: {:?}", config.order);
            println!("languages: {}", config.languages.join(", "));
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("{err}");
            if err.kind() == ErrorKind::Config {
                if let (Some(line), Some(column)) = (err.line(), err.column())
                {
                    eprintln!("(at line {line}, column {column})");
                }
            }
            ExitCode::from(2)
        }
    }
}
