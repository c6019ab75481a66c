#!/usr/bin/env bash
# `stopgate scan` on real transcripts against `rg` and a naive serde_json
# scan, in the same hyperfine runs: issue 13's scan targets.
#
#   benches/scan_real.sh                  # a 1 GB archive, 3 rounds
#   SIZE_MB=256 ROUNDS=2 benches/scan_real.sh
#   BASE=/path/to/old/stopgate benches/scan_real.sh
#                                         # and an older build's one-thread
#                                         # scan in the same runs
#   PART=agents/codex-0.171.0 SIZE_MB=64 benches/scan_real.sh
#                                         # one folder of the corpus only:
#                                         # an archive of one agent's files
#   PART=agents/gemini-cli-0.61.0 SIZE_MB=16 FOLDERS_OF=100 benches/scan_real.sh
#                                         # only the .jsonl files, 100 to a
#                                         # folder, as an agent's store holds
#                                         # them (the corpus's capture folders
#                                         # hold one log among a dozen other
#                                         # files, and the walk dominates)
#
# The archive is ../shared/corpus/ (real Claude Code sessions, and the
# Codex CLI and Gemini CLI captures) copied into numbered folders under
# target/stopgate-bench/real-archive/, as many whole copies as fit in
# SIZE_MB (default 1024) MiB of .jsonl (with PART, the corpus's folder
# PART alone, under real-archive-PART); it is never committed. Skipped
# with a notice when the corpus is not there. Page-cached before
# measuring. Per round, the medians of:
#
# - `stopgate scan --threads 1` and `--threads 2` (table output);
# - `rg -j1 -c '"type":"assistant"'` over the same `.jsonl` files: the
#   physical limit of reading them and finding one thing per line (with
#   PART, `'"type":"'`, which every agent's lines hold: rg fails when it
#   finds nothing);
# - the naive scan (examples/naive_scan.rs: every line through
#   serde_json::Value, one thread);
# - the floor (examples/scan_floor.rs): every line read by the scan's own
#   reader and typed by its byte probes, nothing parsed or judged; and the
#   same with each file memory-mapped, which spares the kernel's copy.
#
# Then, per round and as the median of rounds: scan's 1-thread rate as a
# share of rg's (target >= 0.5), naive / scan on one thread (>= 10), and
# 1 thread / 2 threads (>= 1.8); and naive / floor, the most that naive /
# scan could be for a scan that reads every line this way.
set -euo pipefail
cd "$(dirname "$0")/.."

corpus=../shared/corpus
if [ ! -d "$corpus" ]; then
    echo "scan_real: $corpus is missing; skipped" >&2
    exit 0
fi
. benches/support/need.sh
need hyperfine
need rg ripgrep

SIZE_MB=${SIZE_MB:-1024}
ROUNDS=${ROUNDS:-3}
RUNS=${RUNS:-5}
cargo build --release --quiet
cargo build --release --quiet --example naive_scan
cargo build --release --quiet --example scan_floor --features internals
bin=$PWD/target/release/stopgate
naive=$PWD/target/release/examples/naive_scan
floor=$PWD/target/release/examples/scan_floor

PART=${PART:-}
pattern='"type":"assistant"'
[ -z "$PART" ] || pattern='"type":"'
source=$corpus/$PART
if [ ! -d "$source" ]; then
    echo "scan_real: $source is missing" >&2
    exit 1
fi
FOLDERS_OF=${FOLDERS_OF:-}
dir=$PWD/target/stopgate-bench/real-archive${PART:+-${PART//\//-}}${FOLDERS_OF:+-by-$FOLDERS_OF}
# Whole copies of the source whose .jsonl files hold at most SIZE_MB
# MiB, and at least one.
one=$(find "$source" -name '*.jsonl' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
copies=$(( (SIZE_MB << 20) / one ))
[ "$copies" -ge 1 ] || copies=1
if [ -n "$FOLDERS_OF" ]; then
    if [ "$(cat "$dir/.copies" 2>/dev/null)" != "$copies" ]; then
        rm -rf "$dir"; mkdir -p "$dir"
        i=0
        for ((c = 1; c <= copies; c++)); do
            while IFS= read -r -d '' f; do
                folder=$dir/$(printf %04d $((i / FOLDERS_OF)))
                mkdir -p "$folder"
                cp "$f" "$folder/$(printf %06d $i)-${f##*/}"
                i=$((i + 1))
            done < <(find "$source" -name '*.jsonl' -print0 | sort -z)
        done
        echo "$copies" > "$dir/.copies"
    fi
else
    # No archive yet is none (find fails, and pipefail would end the script).
    have=$({ find "$dir" -mindepth 1 -maxdepth 1 -type d 2>/dev/null || true; } | wc -l)
    if [ "$have" -ne "$copies" ]; then
        rm -rf "$dir"; mkdir -p "$dir"
        for ((i = 1; i <= copies; i++)); do
            copy=$dir/$(printf %03d "$i")
            mkdir -p "$copy"; cp -r "$source"/. "$copy"/
        done
    fi
fi
files=$(find "$dir" -name '*.jsonl' | wc -l)
bytes=$(find "$dir" -name '*.jsonl' -print0 | xargs -0 cat | wc -c)
find "$dir" -name '*.jsonl' -print0 | xargs -0 cat > /dev/null   # page cache

work=$PWD/target/stopgate-bench/scan-real
mkdir -p "$work"
rounds=()
base=()
if [ -n "${BASE:-}" ]; then
    base=("$BASE scan --no-progress --threads 1 $dir")
fi
for ((r = 0; r < ROUNDS; r++)); do
    hyperfine -N --warmup 1 --runs "$RUNS" --style none \
        --export-json "$work/round-$r.json" \
        "$bin scan --no-progress --threads 1 $dir" \
        "$bin scan --no-progress --threads 2 $dir" \
        "rg -j1 -c -g *.jsonl '$pattern' $dir" \
        "$naive $dir" "$floor $dir" "$floor --mmap $dir" \
        "${base[@]}" >/dev/null
    rounds+=("$work/round-$r.json")
done

python3 - "$files" "$bytes" "${rounds[@]}" <<'PY'
import json, statistics, sys
files, b = int(sys.argv[1]), int(sys.argv[2])
rounds = [[r["median"] for r in json.load(open(f))["results"]] for f in sys.argv[3:]]
print("archive: %d files, %.2f GB of .jsonl, page-cached" % (files, b / 1e9))
print("medians (s) per round: scan 1 thread, scan 2 threads, rg -j1, naive,"
      " floor (read), floor (mmap)")
for t1, t2, rg, naive, fl, flm, *old in rounds:
    print("  %.3f  %.3f  %.3f  %.3f  %.3f  %.3f   (scan %.2f GB/s)%s" % (
        t1, t2, rg, naive, fl, flm, b / t1 / 1e9,
        "   BASE 1 thread %.3f" % old[0] if old else ""))
ratios = [
    ("scan 1 thread / rg -j1, as rates (>= 0.5)", lambda t1, t2, rg, n, fl, flm, *o: rg / t1),
    ("naive / scan, 1 thread               (>= 10)", lambda t1, t2, rg, n, fl, flm, *o: n / t1),
    ("scan 1 thread / 2 threads            (>= 1.8)", lambda t1, t2, rg, n, fl, flm, *o: t1 / t2),
    ("naive / floor (read), the most naive / scan can be", lambda t1, t2, rg, n, fl, flm, *o: n / fl),
    ("naive / floor (mmap)", lambda t1, t2, rg, n, fl, flm, *o: n / flm),
    ("ms left over the floor (read) at 10x naive", lambda t1, t2, rg, n, fl, flm, *o: (n / 10 - fl) * 1e3),
    ("ms the scan spends over the floor (read)", lambda t1, t2, rg, n, fl, flm, *o: (t1 - fl) * 1e3),
]
if len(rounds[0]) > 6:
    ratios += [
        ("BASE 1 thread / rg -j1, as rates", lambda t1, t2, rg, n, fl, flm, o: rg / o),
        ("scan 1 thread / BASE 1 thread", lambda t1, t2, rg, n, fl, flm, o: t1 / o),
    ]
for label, f in ratios:
    xs = [f(*r) for r in rounds]
    print("%s  %.2f  [%.2f, %.2f]" % (label, statistics.median(xs), min(xs), max(xs)))
PY
