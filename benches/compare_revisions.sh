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
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: benches/compare_revisions.sh OLD_REV [NEW_REV]}
new=${2:-}

. benches/support/need.sh
need hyperfine
RUNS=${RUNS:-200}
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
medians() { # hyperfine JSON -> "old new ratio"
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; a,b=r[0]["median"]*1000,r[1]["median"]*1000; print("%.3f %.3f %.3f" % (a,b,b/a))' "$1"
}
for size in 1K 100M; do
    t=$PWD/target/stopgate-bench/hook-$size.jsonl
    mkdir -p "$(dirname "$t")"
    [ -f "$t" ] || "$gen" "$size" "$t"
    printf '{"session_id":"bench","transcript_path":"%s","cwd":"/tmp","hook_event_name":"Stop","stop_hook_active":false}\n' "$t" > "$work/stop-$size.json"
    hyperfine -N -i --warmup 20 --runs "$RUNS" \
        --prepare "touch $STOPGATE_STATE_DIR/bench.flag" \
        --export-json "$work/stop-$size.hf.json" \
        "$old_bin hook --config $work/stopgate.toml --input $work/stop-$size.json" \
        "$new_bin hook --config $work/stopgate.toml --input $work/stop-$size.json"
    echo "stop-$size $(medians "$work/stop-$size.hf.json")" >> "$results"
done
printf '{"session_id":"bench","transcript_path":"/nonexistent","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Write","tool_use_id":"toolu_1","tool_input":{"file_path":"/tmp/a.rs","content":"x"}}\n' > "$work/post.json"
hyperfine -N --warmup 20 --runs "$RUNS" --export-json "$work/post.hf.json" \
    "$old_bin hook --input $work/post.json" "$new_bin hook --input $work/post.json"
echo "post $(medians "$work/post.hf.json")" >> "$results"
t=$PWD/target/stopgate-bench/hook-100M.jsonl
hyperfine -N --warmup 2 --runs 10 --export-json "$work/scan.hf.json" \
    "$old_bin scan --threads 1 --no-progress --format jsonl $t" \
    "$new_bin scan --threads 1 --no-progress --format jsonl $t"
echo "scan-100M $(medians "$work/scan.hf.json")" >> "$results"
echo
echo "== medians in ms: what old new new/old"
cat "$results"
