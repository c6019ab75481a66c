#!/usr/bin/env bash
# Run every fuzz target for SECONDS (default 600) each, one after another,
# seeded from fuzz/seeds/ with the JSONL dictionary. Crashes land in
# fuzz/artifacts/<target>/; keep each as fuzz/regressions/<target>/<name>.
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-600}
for t in reverse_lines record_parse queries sniff gates; do
    mkdir -p "corpus/$t"
    echo "== $t for ${secs}s"
    RUSTC_BOOTSTRAP=1 cargo fuzz run --sanitizer none "$t" "corpus/$t" "seeds/$t" -- \
        -dict=jsonl.dict -max_total_time="$secs" -max_len=65536 -print_final_stats=1 || echo "== $t FAILED"
done
