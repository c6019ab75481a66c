//! `final_assistant_text` against a naive full parse, at growing sizes.
//!
//! Both run in one group, so criterion prints the flat library path and the
//! linear baseline side by side. Files are generated once under
//! `target/stopgate-bench/` by `support/gen.rs`.
//!
//! `cargo bench --bench final_text` runs 1 KB, 1 MB, 100 MB and 1 GB.
//! `cargo test --benches` (criterion's test mode) runs 1 KB and 1 MB only,
//! once each, so CI stays fast. `STOPGATE_BENCH_SIZES=1K,1M` overrides.

use std::hint::black_box;
use std::io::BufRead;
use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use stopgate::read::Transcript;
use stopgate::KeywordSet;

#[path = "support/gen.rs"]
mod gen;

fn parse_size(s: &str) -> u64 {
    let s = s.trim();
    let (num, mul) = match s.as_bytes().last() {
        Some(b'K') => (&s[..s.len() - 1], 1u64 << 10),
        Some(b'M') => (&s[..s.len() - 1], 1 << 20),
        Some(b'G') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().expect("STOPGATE_BENCH_SIZES: bad size") * mul
}

fn label(size: u64) -> String {
    match size {
        s if s >= 1 << 30 => format!("{}GB", s >> 30),
        s if s >= 1 << 20 => format!("{}MB", s >> 20),
        s => format!("{}KB", s >> 10),
    }
}

/// Sizes to run: all four under `cargo bench`, small ones in test mode.
fn sizes() -> Vec<u64> {
    if let Ok(list) = std::env::var("STOPGATE_BENCH_SIZES") {
        return list.split(',').map(parse_size).collect();
    }
    let measuring = std::env::args().any(|a| a == "--bench");
    if measuring {
        vec![1 << 10, 1 << 20, 100 << 20, 1 << 30]
    } else {
        vec![1 << 10, 1 << 20]
    }
}

/// The naive baseline: what the seed's Python hook does, in Rust. Read
/// every line, parse it with serde_json, keep the last main-chain
/// assistant text.
fn naive_final_text(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).unwrap();
    let mut last = None;
    for line in std::io::BufReader::with_capacity(1 << 16, file).split(b'\n') {
        let line = line.unwrap();
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(&line) else {
            continue;
        };
        if v["type"] != "assistant" || v["isSidechain"] == true {
            continue;
        }
        if let Some(blocks) = v["message"]["content"].as_array() {
            for b in blocks {
                if b["type"] == "text" {
                    if let Some(t) =
                        b["text"].as_str().filter(|t| !t.trim().is_empty())
                    {
                        last = Some(t.to_string());
                    }
                }
            }
        }
    }
    last
}

fn final_text(c: &mut Criterion) {
    let mut group = c.benchmark_group("final_assistant_text");
    for size in sizes() {
        let path = gen::cached(size);
        let id = label(size);
        group.bench_with_input(
            BenchmarkId::new("mmap", &id),
            &path,
            |b, path| {
                b.iter(|| {
                    // SAFETY: the generated file is not modified while benched.
                    let t = unsafe { Transcript::open_mmap(path) }.unwrap();
                    let last = t.final_assistant_text().unwrap();
                    assert_eq!(last.text(), gen::FINAL_TEXT);
                    black_box(last)
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("tail_64k", &id),
            &path,
            |b, path| {
                b.iter(|| {
                    let t = Transcript::read_tail(path, 64 << 10).unwrap();
                    black_box(t.final_assistant_text().unwrap())
                })
            },
        );
        if size >= 100 << 20 {
            group.sample_size(10).measurement_time(Duration::from_secs(30));
        }
        group.bench_with_input(
            BenchmarkId::new("naive_serde_json", &id),
            &path,
            |b, path| {
                b.iter(|| {
                    let text = naive_final_text(path).unwrap();
                    assert_eq!(text, gen::FINAL_TEXT);
                    black_box(text)
                })
            },
        );
        group.sample_size(100).measurement_time(Duration::from_secs(5));
    }
    group.finish();
}

/// The audit markers are the judge layer's: this bench needs the `judge`
/// feature (on by default).
#[cfg(feature = "judge")]
fn keywords(c: &mut Criterion) {
    // About 1 MB of assistant prose, English and Japanese, with a marker
    // every few KB.
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 1 << 20 {
        text.push_str("The parser now rejects empty keys and the cache is flushed on write. ");
        text.push_str("境界値のテストを追加し、エラー経路を確認した。");
        if i % 40 == 0 {
            text.push_str("監査: 並行書き込みは atomic rename で潰した。 ");
        }
        i += 1;
    }
    let ja = KeywordSet::new(stopgate::internals::AUDIT_MARKERS_JA).unwrap();
    let ja_dfa = KeywordSet::builder()
        .dfa(true)
        .build(stopgate::internals::AUDIT_MARKERS_JA)
        .unwrap();
    let en = KeywordSet::builder()
        .ascii_case_insensitive(true)
        .build(stopgate::internals::AUDIT_MARKERS_EN)
        .unwrap();
    let mut group = c.benchmark_group("keyword_set");
    group.throughput(criterion::Throughput::Bytes(text.len() as u64));
    group.bench_function("ja_find_iter_1MB", |b| {
        b.iter(|| ja.find_iter(black_box(&text)).count())
    });
    group.bench_function("en_ci_find_iter_1MB", |b| {
        b.iter(|| en.find_iter(black_box(&text)).count())
    });
    group.bench_function("ja_matched_1MB", |b| {
        b.iter(|| ja.matched(black_box(&text)).len())
    });
    group.bench_function("ja_dfa_find_iter_1MB", |b| {
        b.iter(|| ja_dfa.find_iter(black_box(&text)).count())
    });
    group.finish();
}

/// What a hook pays for one phrase set on one final text of 2 KB: build
/// the set, then search the text once. A one-shot set (each phrase alone,
/// `memmem`) against the noncontiguous NFA it stands in for, with the
/// phrases the gates use (a few hundred, folded for case).
fn one_shot(c: &mut Criterion) {
    let phrases: Vec<String> = (0..300)
        .map(|i| match i % 3 {
            0 => format!("would you prefer option {i}"),
            1 => format!("どちらがよろしいでしょうか{i}"),
            _ => format!("어느 쪽으로 할까요 {i}"),
        })
        .collect();
    let mut text = String::new();
    while text.len() < 2048 {
        text.push_str(
            "Fixed the race in cache.rs; both writers take the lock. ",
        );
        text.push_str("境界値を確認した。 ");
    }
    let mut group = c.benchmark_group("one_shot");
    for one_shot in [false, true] {
        let name = if one_shot {
            "one_shot_build_and_search_2KB"
        } else {
            "nfa_build_and_search_2KB"
        };
        group.bench_function(name, |b| {
            b.iter(|| {
                let set = KeywordSet::builder()
                    .ascii_case_insensitive(true)
                    .prefilter(false)
                    .overlapping(true)
                    .one_shot(one_shot)
                    .build(black_box(&phrases))
                    .unwrap();
                set.find_overlapping(black_box(&text)).len()
            })
        });
    }
    group.finish();
}

#[cfg(feature = "judge")]
criterion_group!(benches, final_text, keywords, one_shot);
#[cfg(not(feature = "judge"))]
criterion_group!(benches, final_text, one_shot);
criterion_main!(benches);
