//! `stopgate scan` on one thread against a naive baseline that parses
//! every line with serde_json, in one group, with throughput in bytes.
//!
//! `cargo bench --bench scan` uses a generated 100 MB transcript
//! (`support/gen.rs`: ~72% progress lines, split assistant lines, tool
//! results up to 48 KB). `cargo test --benches` uses 1 MB, once.

use std::hint::black_box;
use std::io::BufRead;
use std::path::Path;
use std::time::Duration;

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, Throughput,
};
use stopgate::archive::{scan_file, ScanOptions};
use stopgate::config::Config;
use stopgate::judge::Judge;

#[path = "support/gen.rs"]
mod gen;

/// The naive baseline: every line through serde_json, as usage scanners
/// do, counting assistant lines so the work is not optimised away.
fn naive(path: &Path) -> usize {
    let file = std::fs::File::open(path).unwrap();
    let mut assistant = 0;
    for line in std::io::BufReader::with_capacity(256 << 10, file).split(b'\n')
    {
        let line = line.unwrap();
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&line) {
            assistant += usize::from(v["type"] == "assistant");
        }
    }
    assistant
}

fn scan(c: &mut Criterion) {
    let measuring = std::env::args().any(|a| a == "--bench");
    let size: u64 = if measuring { 100 << 20 } else { 1 << 20 };
    let path = gen::cached(size);
    let bytes = std::fs::metadata(&path).unwrap().len();
    let gates = Judge::for_bulk(&Config::default()).unwrap();
    let options = ScanOptions::default();
    let mut group = c.benchmark_group("scan");
    group.throughput(Throughput::Bytes(bytes));
    if measuring {
        group.sample_size(10).measurement_time(Duration::from_secs(20));
    }
    let id = format!("{}MB", size >> 20);
    group.bench_with_input(
        BenchmarkId::new("stopgate_1_thread", &id),
        &path,
        |b, path| {
            b.iter(|| {
                let report = scan_file(path, &gates, &options);
                assert!(report.error.is_none() && !report.turns.is_empty());
                black_box(report)
            })
        },
    );
    group.bench_with_input(
        BenchmarkId::new("naive_serde_json", &id),
        &path,
        |b, path| b.iter(|| black_box(naive(path))),
    );
    group.finish();
}

criterion_group!(benches, scan);
criterion_main!(benches);
