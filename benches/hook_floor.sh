#!/usr/bin/env bash
# The hook against the floor of starting any process, in the same
# hyperfine runs: issue 13's targets.
#
#   benches/hook_floor.sh                 # 5 rounds of 300 runs
#   RUNS=100 ROUNDS=3 benches/hook_floor.sh
#
# Commands, all in each round (every other round in reverse order, so the
# machine's drift weighs on all alike):
#
# - /bin/true, and an empty Rust `main` built two ways: as rustc builds it
#   by default (glibc linked dynamically) and statically (`crt-static`);
# - `stopgate hook` built four ways: `cargo build --release` (dynamic,
#   position-independent: rustc's default); the README's install line
#   (`--target <host> --config linker/static.toml`: glibc linked in, no
#   relocations to apply at start-up, the functions a hook run executes
#   laid out together), in target/static/; that build without the layout
#   (`static_plain`), in target/static-plain/, to show what the symbol
#   ordering buys; and position-independent (`static_pie`, only
#   `+crt-static`), in target/static-pie/, to show what the start-up
#   relocations cost;
# - Stop on a 1 KB and a 1 GB Claude Code transcript (the flag is up, the
#   input has no last_assistant_message, so the hook reads the tail and
#   the head, runs the gates and blocks: the full path), and PostToolUse
#   (a Write, which raises the flag).
#
# Prints each round's medians, then the ratios of issue 13 per round and
# their median: Stop 1 GB / `/bin/true` (target <= 2), Stop 1 GB / 1 KB
# (<= 1.3) and PostToolUse / empty Rust `main` (<= 1.3), for each build.
set -euo pipefail
cd "$(dirname "$0")/.."

. benches/support/need.sh
need hyperfine

RUNS=${RUNS:-300}
ROUNDS=${ROUNDS:-5}
host=$(rustc -vV | sed -n 's/^host: //p')
echo "building: release, and static in target/static*/ ..." >&2
cargo build --release --quiet
cargo build --release --quiet --example gen_transcript
static_build() { # target dir, rustflags
    cargo build --release --quiet --bin stopgate --target "$host" \
        --target-dir "$1" --config "build.rustflags = $2"
}
# The README's install line (linker/static.toml): static, not
# position-independent, the hook's functions laid out together.
cargo build --release --quiet --bin stopgate --target "$host" \
    --target-dir target/static --config linker/static.toml
# The same without the layout: what the symbol ordering buys.
static_build target/static-plain "['-C', 'target-feature=+crt-static', '-C', 'relocation-model=static']"
# The same, position-independent: what the relocations cost.
static_build target/static-pie "['-C', 'target-feature=+crt-static']"
dynamic=$PWD/target/release/stopgate
static=$PWD/target/static/$host/release/stopgate
static_pie=$PWD/target/static-pie/$host/release/stopgate
static_plain=$PWD/target/static-plain/$host/release/stopgate
gen=$PWD/target/release/examples/gen_transcript

work=$PWD/target/stopgate-bench/floor
mkdir -p "$work"
printf 'fn main() {}\n' > "$work/empty.rs"
rustc -O -o "$work/empty" "$work/empty.rs"
rustc -O -C target-feature=+crt-static -o "$work/empty-static" "$work/empty.rs"

export STOPGATE_STATE_DIR=$work/state
unset CLAUDE_CODE_ENTRYPOINT STOPGATE_DEBUG STOPGATE_CONFIG CLAUDE_PROJECT_DIR
rm -rf "$STOPGATE_STATE_DIR"
mkdir -m 700 "$STOPGATE_STATE_DIR"
printf '[audit]\ncap = 1000000000\n' > "$work/stopgate.toml"
for size in 1K 1G; do
    t=$PWD/target/stopgate-bench/hook-$size.jsonl
    [ -f "$t" ] || "$gen" "$size" "$t" claude
    printf '{"session_id":"bench","transcript_path":"%s","cwd":"/tmp","hook_event_name":"Stop","stop_hook_active":false}\n' "$t" > "$work/stop-$size.json"
done
printf '{"session_id":"bench","transcript_path":"/nonexistent","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"/tmp/a.rs","content":"x"}}\n' > "$work/post.json"

names=(true empty empty-static)
cmds=(/bin/true "$work/empty" "$work/empty-static")
for build in dynamic static_pie static_plain static; do
    bin=${!build}
    names+=("stop-1K-$build" "stop-1G-$build" "post-$build")
    cmds+=("$bin hook --config $work/stopgate.toml --input $work/stop-1K.json"
           "$bin hook --config $work/stopgate.toml --input $work/stop-1G.json"
           "$bin hook --input $work/post.json")
done
printf '%s\n' "${names[@]}" > "$work/names.txt"
printf '%s\n' "${cmds[@]}" > "$work/commands.txt"

rounds=()
for ((r = 0; r < ROUNDS; r++)); do
    order=("${cmds[@]}")
    if ((r % 2)); then
        order=()
        for ((i = ${#cmds[@]} - 1; i >= 0; i--)); do order+=("${cmds[i]}"); done
    fi
    # No --prepare: its shell would run between the measured runs. The flag
    # stays up by itself: Stop blocks (and so keeps it), PostToolUse
    # raises it.
    touch "$STOPGATE_STATE_DIR/bench.flag"
    hyperfine -N -i --warmup 20 --runs "$RUNS" --style none \
        --export-json "$work/round-$r.json" "${order[@]}" >/dev/null
    rounds+=("$work/round-$r.json")
done

python3 - "$work" "${rounds[@]}" <<'PY'
import json, statistics, sys
work, files = sys.argv[1], sys.argv[2:]
names = open(work + "/names.txt").read().split("\n")[:-1]
cmds = open(work + "/commands.txt").read().split("\n")[:-1]
name_of = dict(zip(cmds, names))
rounds = []
for f in files:
    rounds.append({name_of[r["command"]]: r["median"] * 1000
                   for r in json.load(open(f))["results"]})
print("medians (ms), one column per round:")
for n in names:
    print("  %-18s %s" % (n, " ".join("%6.3f" % r[n] for r in rounds)))
same = {"dynamic": "empty", "static_pie": "empty-static",
        "static_plain": "empty-static", "static": "empty-static"}
ratios = [
    ("Stop 1 GB / /bin/true            (<= 2)  ", lambda b: ("stop-1G-" + b, "true")),
    ("Stop 1 GB / Stop 1 KB            (<= 1.3)", lambda b: ("stop-1G-" + b, "stop-1K-" + b)),
    ("PostToolUse / empty main         (<= 1.3)", lambda b: ("post-" + b, "empty")),
    ("PostToolUse / empty main, same build     ", lambda b: ("post-" + b, same[b])),
]
for build in ("dynamic", "static_pie", "static_plain", "static"):
    print("%s build: ratio, median of rounds [min, max]" % build)
    for label, pick in ratios:
        num, den = pick(build)
        xs = [r[num] / r[den] for r in rounds]
        print("  %s  %.2f  [%.2f, %.2f]" % (label, statistics.median(xs), min(xs), max(xs)))
PY
