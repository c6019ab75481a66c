//! The subcommands of the `stopgate` binary, one file each.

pub mod config;
pub mod hook;
pub mod last;
pub mod sigbus;
