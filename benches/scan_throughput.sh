#!/usr/bin/env bash
# Whole-process throughput and peak memory of `stopgate scan`.
#
#   benches/scan_throughput.sh          # ~1 GB archive + a 1 GB single file
#   FILES=4 FILE_SIZE=16M benches/scan_throughput.sh   # smaller
#
# Builds a generated archive (FILES sessions of FILE_SIZE each, the record
# mix of real transcripts: see benches/support/gen.rs) under
# target/stopgate-bench/archive/, warms the page cache, then reports:
#   - single-thread and 2-thread throughput (hyperfine medians), and the
#     2-thread scaling;
#   - peak RSS (/usr/bin/time -v) for the archive and for one 1 GB file.
# The ratio against a naive serde_json baseline is measured in the same
# criterion run by `cargo bench --bench scan`.
set -euo pipefail
cd "$(dirname "$0")/.."

. benches/support/need.sh
need hyperfine
[ -x /usr/bin/time ] || need /usr/bin/time time

FILES=${FILES:-16}
FILE_SIZE=${FILE_SIZE:-64M}
BIG=${BIG:-1G}
cargo build --release --quiet
cargo build --release --quiet --example gen_transcript
bin=$PWD/target/release/stopgate
gen=$PWD/target/release/examples/gen_transcript
dir=$PWD/target/stopgate-bench/archive-$FILES-$FILE_SIZE
big=$PWD/target/stopgate-bench/single-$BIG.jsonl
work=$PWD/target/stopgate-bench/scan
mkdir -p "$dir" "$work"
for i in $(seq -w 1 "$FILES"); do
    f=$dir/session-$i.jsonl
    [ -f "$f" ] || "$gen" "$FILE_SIZE" "$f"
done
[ -f "$big" ] || "$gen" "$BIG" "$big"
cat "$dir"/*.jsonl "$big" > /dev/null   # page cache

bytes=$(cat "$dir"/*.jsonl | wc -c)
for t in 1 2; do
    hyperfine -N --warmup 1 --runs 5 --export-json "$work/t$t.json" \
        "$bin scan --no-progress --threads $t $dir"
done
median() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$1"; }
m1=$(median "$work/t1.json")
m2=$(median "$work/t2.json")

rss() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident/ {gsub(/ /,"",$2); print $2}'; }
rss_archive=$(rss "$bin" scan --no-progress --threads 2 "$dir")
rss_big=$(rss "$bin" scan --no-progress --threads 1 "$big")
rss_small=$(rss "$bin" scan --no-progress --threads 1 fixtures/transcripts/content_array.jsonl)

python3 - "$bytes" "$m1" "$m2" "$rss_archive" "$rss_big" "$rss_small" "$FILES" "$BIG" <<'PY'
import sys
b, m1, m2 = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
print()
print("== scan throughput (%s files, %.2f GB archive, page-cached)" % (sys.argv[7], b / 1e9))
print("1 thread : median %.3f s  %.2f GB/s" % (m1, b / m1 / 1e9))
print("2 threads: median %.3f s  %.2f GB/s  (scaling %.2fx)" % (m2, b / m2 / 1e9, m1 / m2))
print("== peak RSS")
print("archive, 2 threads: %s KB" % sys.argv[4])
print("%s single file, 1 thread: %s KB" % (sys.argv[8], sys.argv[5]))
print("4.5 KB file, 1 thread: %s KB" % sys.argv[6])
PY
