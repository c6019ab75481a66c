//! The subcommands of the `stopgate` binary, one file each.

pub mod check;
pub mod codex_config;
pub mod config;
pub mod doctor;
pub mod health;
pub mod hook;
pub mod html;
pub mod inert;
pub mod install;
pub mod install_record;
pub mod label;
pub mod last;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod report;
pub mod scan;
pub mod settings;
pub mod signals;
pub mod userfile;
pub mod when;

/// The agents `--agent` accepts.
pub const AGENTS: [&str; 3] = ["claude", "codex", "gemini"];
