#!/usr/bin/env bash
# The one-thread scan against `rg -j1 -c` and the naive serde_json scan,
# per kind of session (issue 50): the scan's pace depends on what a
# session holds.
#
#   benches/scan_kinds.sh                     # 64 MiB of each kind, 3 rounds
#   SIZE_MB=128 ROUNDS=5 benches/scan_kinds.sh
#
# Kinds (benches/support/kinds.py writes one session of each, copied into
# target/stopgate-bench/kinds/<kind>/ until SIZE_MB MiB):
#   plain        chat and edits;
#   progress     heavy in `progress` records and large tool results;
#   subagent     a subagent's file of the plain shape (every line a
#                sidechain line);
#   screenshots  prompts with pasted screenshots (base64 images).
# Page-cached before measuring. Per kind, the medians over the rounds of
# hyperfine medians: scan / rg as rates (issue 50's target: >= 0.5 on every
# kind), and naive / scan.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/support/need.sh
need hyperfine
need rg ripgrep
SIZE_MB=${SIZE_MB:-64}
ROUNDS=${ROUNDS:-3}
RUNS=${RUNS:-5}

cargo build --release --quiet
cargo build --release --quiet --example naive_scan
bin=$PWD/target/release/stopgate
naive=$PWD/target/release/examples/naive_scan
root=$PWD/target/stopgate-bench/kinds
work=$root/runs
mkdir -p "$work"

results=()
for kind in plain progress subagent screenshots; do
    dir=$root/$kind
    if [ "$(cat "$dir/.size" 2>/dev/null)" != "$SIZE_MB" ]; then
        rm -rf "$dir"; mkdir -p "$dir"
        turns=60
        [ "$kind" = screenshots ] && turns=12
        python3 benches/support/kinds.py "$kind" "$dir/one.jsonl" "$turns"
        one=$(stat -c %s "$dir/one.jsonl")
        copies=$(( (SIZE_MB << 20) / one ))
        [ "$copies" -ge 1 ] || copies=1
        for ((i = 1; i <= copies; i++)); do
            cp "$dir/one.jsonl" "$dir/$kind-$(printf %04d "$i").jsonl"
        done
        rm "$dir/one.jsonl"
        echo "$SIZE_MB" > "$dir/.size"
    fi
    cat "$dir"/*.jsonl > /dev/null   # page cache
    for ((r = 0; r < ROUNDS; r++)); do
        hyperfine -N --warmup 1 --runs "$RUNS" --style none \
            --export-json "$work/$kind-$r.json" \
            "$bin scan --no-progress --threads 1 $dir" \
            "rg -j1 -c -g *.jsonl '\"type\":\"' $dir" \
            "$naive $dir" >/dev/null
        results+=("$kind:$work/$kind-$r.json:$(du -sb "$dir" | cut -f1)")
    done
done

python3 - "${results[@]}" <<'PY'
import json, statistics, sys
by = {}
for arg in sys.argv[1:]:
    kind, path, size = arg.split(":")
    scan, rg, naive = [r["median"] for r in json.load(open(path))["results"]]
    by.setdefault(kind, {"size": int(size), "rows": []})["rows"].append((scan, rg, naive))
print("%-12s %8s %9s %9s %9s %9s %12s" % (
    "kind", "MB", "scan (s)", "rg (s)", "naive (s)", "scan/rg", "naive/scan"))
for kind, d in by.items():
    med = lambda i: statistics.median(r[i] for r in d["rows"])
    ratio = lambda f: statistics.median(f(*r) for r in d["rows"])
    print("%-12s %8.0f %9.3f %9.3f %9.3f %9.2f %12.2f" % (
        kind, d["size"] / 2**20, med(0), med(1), med(2),
        ratio(lambda s, r, n: r / s), ratio(lambda s, r, n: n / s)))
print("(scan/rg: the scan's rate as a share of rg's, target >= 0.5 on every kind;"
      " naive/scan: target >= 10 over a whole archive)")
PY
