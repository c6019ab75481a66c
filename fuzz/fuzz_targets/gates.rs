//! See `tests/oracle/bodies.rs`: the body is shared with the regression
//! tests in `tests/fuzz_regressions.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/oracle/mod.rs"]
#[allow(dead_code)]
mod oracle;

fuzz_target!(|data: &[u8]| {
    if data.len() > 1 << 14 {
        return;
    }
    oracle::bodies::gates(data);
});
