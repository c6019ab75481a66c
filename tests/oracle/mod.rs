//! Slow, obviously correct oracles for stopgate's fast paths.
//!
//! Shared by the integration tests and the fuzz targets. The query oracle
//! parses *every* line with `serde_json` and answers by walking the whole
//! list, so it shares no code, no prefilter and no parser with the library.
#![allow(dead_code)]

pub mod agents;
pub mod bodies;
pub mod harness;
pub mod lines;
pub mod queries;
