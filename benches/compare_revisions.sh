#!/usr/bin/env bash
# Whole-process timing of two revisions of stopgate in the same hyperfine
# runs, so that a change can be shown to cost nothing above noise.
#
#   benches/compare_revisions.sh OLD_REV [NEW_REV]   # NEW_REV: the work tree
#
# Builds OLD_REV (and NEW_REV, if given) in git worktrees under
# target/compare/, then times, with hyperfine, each binary on:
#   * Stop on a 1 KB and a 100 MB generated transcript (flag present, no
#     last_assistant_message, cap out of reach: the full path, a block);
#   * PostToolUse of a Write;
#   * `stopgate scan` of a 100 MB transcript, one thread.
# Prints the medians and the new/old ratio of each.
#
# The runs come in ROUNDS rounds (default 5), the two binaries' order
# swapped from one round to the next, and the ratio printed is the median
# of the rounds' ratios with their range: hyperfine times all of one
# command's runs before the other's, so on a machine whose speed drifts
# within minutes a single round puts the drift in the ratio (one round
# gave an unchanged PostToolUse 1.82, the next 1.07).
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: benches/compare_revisions.sh OLD_REV [NEW_REV]}
new=${2:-}

. benches/support/need.sh
need hyperfine
RUNS=${RUNS:-200}
ROUNDS=${ROUNDS:-5}
work=$PWD/target/compare
mkdir -p "$work"

build() { # rev -> path of its release binary
    local rev=$1 dir=$work/src-$1
    [ -d "$dir" ] || git worktree add --detach "$dir" "$rev" >/dev/null 2>&1
    (cd "$dir" && CARGO_TARGET_DIR=$work/target-$rev cargo build --release --quiet --bin stopgate)
    echo "$work/target-$rev/release/stopgate"
}
old_bin=$(build "$old")
if [ -n "$new" ]; then new_bin=$(build "$new"); else
    cargo build --release --quiet --bin stopgate
    new_bin=$PWD/target/release/stopgate
fi
cargo build --release --quiet --example gen_transcript
gen=$PWD/target/release/examples/gen_transcript

export STOPGATE_STATE_DIR=$work/state
unset CLAUDE_CODE_ENTRYPOINT STOPGATE_DEBUG STOPGATE_CONFIG CLAUDE_PROJECT_DIR
rm -rf "$STOPGATE_STATE_DIR"; mkdir -m 700 "$STOPGATE_STATE_DIR"
printf '[audit]\ncap = 1000000000\n' > "$work/stopgate.toml"
results=$work/results.txt; : > "$results"
# bench NAME RUNS WARMUP [hyperfine options...] -- OLD_CMD NEW_CMD: one
# round, the commands in this round's order; appends "NAME old new".
bench() {
    local name=$1 runs=$2 warmup=$3; shift 3
    local opts=()
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    local old_cmd=$1 new_cmd=$2 json=$work/$name.hf.json
    if ((round % 2 == 0)); then
        hyperfine -N --warmup "$warmup" --runs "$runs" "${opts[@]}" \
            --export-json "$json" "$old_cmd" "$new_cmd" >/dev/null
        python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(sys.argv[2], r[0]["median"]*1000, r[1]["median"]*1000)' "$json" "$name" >> "$results"
    else
        hyperfine -N --warmup "$warmup" --runs "$runs" "${opts[@]}" \
            --export-json "$json" "$new_cmd" "$old_cmd" >/dev/null
        python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(sys.argv[2], r[1]["median"]*1000, r[0]["median"]*1000)' "$json" "$name" >> "$results"
    fi
}
for size in 1K 100M; do
    t=$PWD/target/stopgate-bench/hook-$size.jsonl
    mkdir -p "$(dirname "$t")"
    [ -f "$t" ] || "$gen" "$size" "$t"
    printf '{"session_id":"bench","transcript_path":"%s","cwd":"/tmp","hook_event_name":"Stop","stop_hook_active":false}\n' "$t" > "$work/stop-$size.json"
done
printf '{"session_id":"bench","transcript_path":"/nonexistent","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Write","tool_use_id":"toolu_1","tool_input":{"file_path":"/tmp/a.rs","content":"x"}}\n' > "$work/post.json"
t100=$PWD/target/stopgate-bench/hook-100M.jsonl
per_round=$(( (RUNS + ROUNDS - 1) / ROUNDS ))
for ((round = 0; round < ROUNDS; round++)); do
    echo "round $((round + 1)) of $ROUNDS" >&2
    for size in 1K 100M; do
        # -i: a Stop that blocks exits 2.
        bench "stop-$size" "$per_round" 20 -i \
            --prepare "touch $STOPGATE_STATE_DIR/bench.flag" -- \
            "$old_bin hook --config $work/stopgate.toml --input $work/stop-$size.json" \
            "$new_bin hook --config $work/stopgate.toml --input $work/stop-$size.json"
    done
    bench post "$per_round" 20 -- \
        "$old_bin hook --input $work/post.json" "$new_bin hook --input $work/post.json"
    bench scan-100M 3 1 -- \
        "$old_bin scan --threads 1 --no-progress --format jsonl $t100" \
        "$new_bin scan --threads 1 --no-progress --format jsonl $t100"
done
echo
echo "== medians over $ROUNDS rounds, in ms: what old new new/old [min, max of the rounds' ratios]"
python3 - "$results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, old, new = line.split()
    rows.setdefault(name, []).append((float(old), float(new)))
for name, rs in rows.items():
    ratios = [n / o for o, n in rs]
    print("%-10s %8.3f %8.3f %6.3f [%.3f, %.3f]" % (
        name,
        statistics.median(o for o, _ in rs),
        statistics.median(n for _, n in rs),
        statistics.median(ratios), min(ratios), max(ratios)))
PY
