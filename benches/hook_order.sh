#!/usr/bin/env bash
# Write linker/hook.order: the functions `stopgate hook` executes, which
# linker/static.toml has the linker lay out together, so that a hook run
# touches a few pages of code instead of pages all over the binary.
#
#   benches/hook_order.sh           # rewrite linker/hook.order
#   benches/hook_order.sh --check   # fail if it no longer names the build's
#                                   # functions (the code or compiler moved on)
#
# The functions come from valgrind's callgrind on the README's static build,
# run as Claude Code runs the hook: Stop on a 1 KB and a 1 GB transcript
# with files changed (a block), the same with a configuration file, Stop
# with nothing changed (an allow), and PostToolUse for a Write and for a
# Bash command. Names are mangled,
# sorted, one per line. Symbol names carry hashes that change with the
# compiler and the dependencies' versions; a stale list costs only speed
# (the linker skips names it does not know), and --check says when. A few
# names (LLVM's `.llvm.<hash>` suffixes, about one in twelve) also depend
# on the folder the crate is built in: a build from another checkout lays
# out the rest (a Stop there faulted 101 pages, against 91 here and 117
# with no list).
set -euo pipefail
cd "$(dirname "$0")/.."

host=$(rustc -vV | sed -n 's/^host: //p')
order=linker/hook.order
# The build links with the list (an empty one to start from); the names
# do not depend on the layout.
[ -f "$order" ] || : > "$order"
cargo build --release --quiet --locked --bin stopgate --target "$host" \
    --target-dir target/static --config linker/static.toml
bin=$PWD/target/static/$host/release/stopgate

if [ "${1:-}" = --check ]; then
    have=$(nm --defined-only "$bin" | awk '{print $3}' | sort -u)
    listed=$(wc -l < "$order")
    found=$(comm -12 <(sort -u "$order") <(echo "$have") | wc -l)
    echo "hook_order: $found of $listed listed functions are in the build"
    # A build from another folder misses a few (see above); below three
    # in four, the list is stale: rerun this script without --check.
    [ $((found * 4)) -ge $((listed * 3)) ]
    exit
fi

. benches/support/need.sh
need valgrind
cargo build --release --quiet --example gen_transcript
work=$PWD/target/stopgate-bench/order
rm -rf "$work"; mkdir -p "$work"; mkdir -m 700 "$work/state"
export STOPGATE_STATE_DIR=$work/state
unset CLAUDE_CODE_ENTRYPOINT STOPGATE_DEBUG STOPGATE_CONFIG CLAUDE_PROJECT_DIR
gen=$PWD/target/release/examples/gen_transcript
for size in 1K 1G; do
    t=$PWD/target/stopgate-bench/hook-$size.jsonl
    [ -f "$t" ] || "$gen" "$size" "$t" claude
done
stop() { # session, transcript size
    printf '{"session_id":"%s","transcript_path":"%s","cwd":"/tmp","hook_event_name":"Stop","stop_hook_active":false}\n' \
        "$1" "$PWD/target/stopgate-bench/hook-$2.jsonl"
}
post() { # tool, input
    printf '{"session_id":"post","transcript_path":"/nonexistent","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"%s","tool_input":%s}\n' "$1" "$2"
}
run() { # name, hook input, hook arguments...
    echo "$2" > "$work/$1.json"
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$1.cg" \
        "$bin" hook --input "$work/$1.json" "${@:3}" >/dev/null 2>&1 || true
}
printf '[audit]\ncap = 5\n' > "$work/stopgate.toml"
touch "$STOPGATE_STATE_DIR"/{small,big,configured}.flag
run stop-configured "$(stop configured 1K)" --config "$work/stopgate.toml"
run stop-1K "$(stop small 1K)"
run stop-1G "$(stop big 1G)"
run stop-allow "$(stop quiet 1K)"
run post-write "$(post Write '{"file_path":"/tmp/a.rs","content":"x"}')"
run post-bash "$(post Bash '{"command":"sed -i s/a/b/ f.rs && cargo test 2>&1 | tail"}')"

# Every function named in the profiles, as callee or caller.
cat "$work"/*.cg \
    | sed -n -E 's/^c?fn=\([0-9]+\) (.+)$/\1/p' \
    | sed -E "s/'[0-9]+\$//" \
    | grep -v -E '^(0x[0-9a-f]+|\(below main\))$' \
    | LC_ALL=C sort -u > "$order"
echo "hook_order: $(wc -l < "$order") functions written to $order"
# Cargo does not see the list change: make the next build link again.
touch src/main.rs
