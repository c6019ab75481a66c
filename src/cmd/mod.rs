//! The subcommands of the `stopgate` binary, one file each.

pub mod last;
pub mod sigbus;
