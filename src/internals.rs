//! Unstable internals, for this crate's own oracle tests and fuzz targets.
//!
//! The fast paths (reverse line iteration, the record parser, the type
//! sniffers) are checked against naive oracles from outside the crate, so
//! they are reachable here when the `internals` feature is on. Nothing here
//! is covered by semver; other crates should not enable the feature.

#[cfg(feature = "judge")]
pub use crate::gates::lang::{
    en::AUDIT_MARKERS_EN, ja::AUDIT_MARKERS_JA, ko::AUDIT_MARKERS_KO,
};
pub use crate::read::lines::{Line, Lines, RevLines};
pub use crate::read::record::{
    Block, Content, Record, RecordParser, RecordType,
};
pub use crate::read::sniff::{quick_type, tail_type, top_level_type, Sniff};
pub use crate::read::tool_input::{CommandField, ToolInput};

/// The buckets of the learned audit judge's features that a text touches,
/// sorted: what `tools/train-audit-model` trains on.
#[cfg(feature = "judge")]
pub fn audit_feature_buckets(text: &str) -> Vec<u32> {
    crate::gates::learned::buckets(text)
}

/// Call `f` on every line of `reader` as `stopgate scan` reads a file:
/// in chunks of `chunk` bytes, split at `\n`, a trailing `\r` stripped.
/// Returns the bytes read. What `examples/scan_floor.rs` measures.
///
/// # Errors
///
/// The reader's errors.
#[cfg(feature = "archive")]
pub fn for_each_streamed_line<R: std::io::Read>(
    reader: R,
    chunk: usize,
    mut f: impl FnMut(&[u8]),
) -> std::io::Result<u64> {
    let buffer = &mut vec![];
    crate::read::chunks::for_each_line(
        reader,
        (chunk, usize::MAX),
        buffer,
        |l| {
            f(l.bytes);
            std::ops::ControlFlow::Continue(())
        },
    )
}
