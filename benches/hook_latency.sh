#!/usr/bin/env bash
# Whole-process latency of `stopgate hook`, with hyperfine.
#
#   benches/hook_latency.sh            # 1 KB, 100 MB and 1 GB transcripts
#   SIZES="1K 1M" benches/hook_latency.sh
#   AGENTS="claude codex" benches/hook_latency.sh
#
# Each agent (claude, codex, gemini; default all three) gets its own
# transcripts in its own format, and its own Stop input: Claude Code's
# without last_assistant_message, Codex CLI's with a null one (both then
# read the final text from the transcript), Gemini CLI's AfterAgent with a
# prompt_response (the final text is still read from the transcript).
# Stop: a flag is present (raised before every run) and the input has no
# last_assistant_message, so the hook reads the transcript's tail (the
# reverse scan) and its head (the entrypoint), runs the gates, and blocks
# (exit 2; hyperfine -i accepts that). The cap is set out of reach so every
# run takes the full path. PostToolUse: a Write, which raises the flag.
#
# Prints hyperfine's tables, then the medians and the 1 GB / 1 KB ratio.
# Transcripts are generated once under target/stopgate-bench/.
set -euo pipefail
cd "$(dirname "$0")/.."

. benches/support/need.sh
need hyperfine

SIZES=${SIZES:-"1K 100M 1G"}
RUNS=${RUNS:-300}
ROUNDS=${ROUNDS:-6}
cargo build --release --quiet
cargo build --release --quiet --example gen_transcript
bin=$PWD/target/release/stopgate
gen=$PWD/target/release/examples/gen_transcript
work=$PWD/target/stopgate-bench/hook
mkdir -p "$work"
export STOPGATE_STATE_DIR=$work/state
unset CLAUDE_CODE_ENTRYPOINT STOPGATE_DEBUG STOPGATE_CONFIG CLAUDE_PROJECT_DIR
rm -rf "$STOPGATE_STATE_DIR"
mkdir -m 700 "$STOPGATE_STATE_DIR"
printf '[audit]\ncap = 1000000000\n' > "$work/stopgate.toml"

results=$work/results.txt
: > "$results"
median() { # hyperfine JSON export -> median in ms
    python3 -c 'import json,sys; print("%.3f" % (json.load(open(sys.argv[1]))["results"][0]["median"]*1000))' "$1"
}

AGENTS=${AGENTS:-"claude codex gemini"}
for size in $SIZES; do
    cmds=()
    for agent in $AGENTS; do
        case $agent in
            claude) t=$PWD/target/stopgate-bench/hook-$size.jsonl ;;
            *) t=$PWD/target/stopgate-bench/hook-$agent-$size.jsonl ;;
        esac
        [ -f "$t" ] || "$gen" "$size" "$t" "$agent"
        case $agent in
            claude) printf '{"session_id":"bench","transcript_path":"%s","cwd":"/tmp","hook_event_name":"Stop","stop_hook_active":false}\n' "$t" ;;
            codex) printf '{"session_id":"bench","turn_id":"t","model":"m","transcript_path":"%s","cwd":"/tmp","hook_event_name":"Stop","permission_mode":"default","stop_hook_active":false,"last_assistant_message":null}\n' "$t" ;;
            gemini) printf '{"session_id":"bench","transcript_path":"%s","cwd":"/tmp","hook_event_name":"AfterAgent","timestamp":"2026-11-30T08:18:33.200Z","prompt":"Fix the cache race.","prompt_response":"Done.","stop_hook_active":false}\n' "$t" ;;
        esac > "$work/stop-$agent-$size.json"
        cmds+=("$bin hook --config $work/stopgate.toml --input $work/stop-$agent-$size.json")
    done
    # The agents of one size in one hyperfine run, ROUNDS times (default
    # 6), every other time in reverse order, so that the machine's drift
    # (it is noisy: ±20% between runs) weighs on every agent alike; each
    # agent's figure is the median of its medians over the rounds.
    reversed=()
    for ((i=${#cmds[@]}-1; i>=0; i--)); do reversed+=("${cmds[i]}"); done
    rounds=()
    for ((r=0; r<${ROUNDS:-6}; r++)); do
        if ((r % 2)); then order=("${reversed[@]}"); else order=("${cmds[@]}"); fi
        hyperfine -N -i --warmup 20 --runs "$RUNS" \
            --prepare "touch $STOPGATE_STATE_DIR/bench.flag" \
            --export-json "$work/stop-$size.$r.hf.json" "${order[@]}"
        rounds+=("$work/stop-$size.$r.hf.json")
    done
    python3 - "$size" "${rounds[@]}" >> "$results" <<'PY'
import json, re, statistics, sys
medians = {}
for f in sys.argv[2:]:
    for r in json.load(open(f))["results"]:
        agent = re.search(r"stop-(\w+)-", r["command"]).group(1)
        medians.setdefault(agent, []).append(r["median"] * 1000)
for agent, ms in medians.items():
    print("stop-%s %s %.3f" % (agent, sys.argv[1], statistics.median(ms)))
PY
done

# Baselines in the same run: the cost of starting any process here, and of
# starting an empty Rust program built by the same toolchain.
printf 'fn main() {}\n' > "$work/empty.rs"
rustc -O -o "$work/empty" "$work/empty.rs"
hyperfine -N --warmup 20 --runs "$RUNS" --export-json "$work/true.hf.json" /bin/true
echo "baseline /bin/true $(median "$work/true.hf.json")" >> "$results"
hyperfine -N --warmup 20 --runs "$RUNS" --export-json "$work/empty.hf.json" "$work/empty"
echo "baseline empty-rust $(median "$work/empty.hf.json")" >> "$results"

printf '{"session_id":"bench","transcript_path":"/nonexistent","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"/tmp/a.rs","content":"x"}}\n' > "$work/post.json"
hyperfine -N --warmup 20 --runs "$RUNS" --export-json "$work/post.hf.json" \
    "$bin hook --input $work/post.json"
echo "post - $(median "$work/post.hf.json")" >> "$results"

echo
echo "== medians (ms)"
cat "$results"
python3 - "$results" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
stops = {}
for r in rows:
    if r[0].startswith("stop-"):
        stops.setdefault(r[0][5:], {})[r[1]] = float(r[2])
for agent, stop in stops.items():
    small = next((k for k in ("1K", "1k") if k in stop), None)
    big = next((k for k in ("1G", "1g") if k in stop), None)
    if small and big:
        print("%s ratio 1G/1K: %.3f" % (agent, stop[big] / stop[small]))
claude = stops.get("claude", {})
for agent, stop in stops.items():
    if agent == "claude":
        continue
    for size, ms in stop.items():
        if size in claude:
            print("%s/claude at %s: %.3f" % (agent, size, ms / claude[size]))
PY
