#!/usr/bin/env bash
# A regression gate that the machine's noise cannot fool: the instructions
# two runs execute, counted by valgrind's cachegrind, against the baseline
# committed in benches/instructions.baseline.
#
#   benches/instructions.sh [BIN]           # print the counts
#   benches/instructions.sh --check [BIN]   # fail when one rose more than 3%
#   benches/instructions.sh --write [BIN]   # rewrite the baseline
#
# The runs (their files under $STOPGATE_BENCH_DIR, default
# ~/.cache/stopgate-bench, the same for every checkout):
#   hook-stop-1g   `stopgate hook`, Stop on a 1 GB transcript with a change
#                  pending (a block), as Claude Code runs it;
#   scan-fixtures  `stopgate scan --threads 1` over fixtures/ (JSONL out).
# BIN defaults to the README's static build (linker/static.toml), which CI
# builds anyway. A count that falls more than 3% is reported, not failed:
# lower the baseline in the same change, with a line in
# benches/RESULTS.md saying why. A count that rises more than 3% fails,
# unless the baseline is raised in the same change (again with a line in
# benches/RESULTS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/support/need.sh
need valgrind

mode=print
case "${1:-}" in
    --check) mode=check; shift ;;
    --write) mode=write; shift ;;
esac
host=$(rustc -vV | sed -n 's/^host: //p')
bin=${1:-$PWD/target/static/$host/release/stopgate}
if [ $# -eq 0 ]; then
    cargo build --release --quiet --locked --bin stopgate --target "$host" \
        --target-dir target/static --config linker/static.toml
fi
baseline=benches/instructions.baseline

# The runs' files live at one place whatever the checkout's: the hook's
# count depends on where its state directory is (a checkout under /tmp,
# which others may write, costs the state checks 2.7% more), so a clone
# in another folder must not move it.
bench=${STOPGATE_BENCH_DIR:-$HOME/.cache/stopgate-bench}
mkdir -p "$bench"
# The 1 GB transcript of the hook benches, written once.
cargo build --release --quiet --example gen_transcript
big=$bench/hook-1G.jsonl
[ -f "$big" ] || "$PWD/target/release/examples/gen_transcript" 1G "$big" claude

work=$bench/instructions
# The measured process gets a fixed, minimal environment: every getenv
# scans the whole environment, so its size would move the count with the
# shell it was run from (CI's was 2.8% above this one's).
count() { # command... -> instructions executed
    env -i PATH=/usr/bin:/bin HOME="$work" STOPGATE_STATE_DIR="$work/state" \
        valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        "$@" 2>&1 >/dev/null | sed -n 's/.*I *refs: *//p' | tr -d , || true
}
hook_stop() {
    rm -rf "$work"; mkdir -p "$work"; mkdir -m 700 "$work/state"
    touch "$work/state/big.flag"
    printf '{"session_id":"big","transcript_path":"%s","cwd":"/tmp","hook_event_name":"Stop","stop_hook_active":false}\n' \
        "$big" > "$work/stop.json"
    count "$bin" hook --input "$work/stop.json"
}
scan_fixtures() {
    count "$bin" scan --no-progress --threads 1 --format jsonl --all-turns fixtures/
}

declare -A now
now[hook-stop-1g]=$(hook_stop)
now[scan-fixtures]=$(scan_fixtures)
for k in hook-stop-1g scan-fixtures; do
    [ -n "${now[$k]}" ] || { echo "$k: valgrind gave no count" >&2; exit 1; }
done

if [ "$mode" = write ]; then
    {
        echo "# Instructions counted by benches/instructions.sh (cachegrind), the"
        echo "# baseline its --check compares with. Raise or lower it only with a"
        echo "# line in benches/RESULTS.md saying why."
        for k in hook-stop-1g scan-fixtures; do echo "$k ${now[$k]}"; done
    } > "$baseline"
    cat "$baseline"
    exit 0
fi

status=0
for k in hook-stop-1g scan-fixtures; do
    base=$(awk -v k="$k" '$1 == k {print $2}' "$baseline" 2>/dev/null || true)
    if [ -z "$base" ]; then
        echo "$k: ${now[$k]} (no baseline)"
        continue
    fi
    ratio=$(awk -v n="${now[$k]}" -v b="$base" 'BEGIN {printf "%.4f", n / b}')
    verdict=ok
    if awk -v r="$ratio" 'BEGIN {exit !(r > 1.03)}'; then
        verdict="ROSE more than 3%: raise $baseline with a line in benches/RESULTS.md, or find why"
        [ "$mode" = check ] && status=1
    elif awk -v r="$ratio" 'BEGIN {exit !(r < 0.97)}'; then
        verdict="fell more than 3%: lower $baseline (benches/instructions.sh --write) with a line in benches/RESULTS.md"
    fi
    echo "$k: ${now[$k]} instructions, baseline $base, ratio $ratio: $verdict"
done
exit $status
