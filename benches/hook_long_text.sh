#!/usr/bin/env bash
# The Stop hook's instructions on a turn whose final text is long (4.3 KB
# of English and Japanese change description, drawn from the sentences of
# fixtures/text/long-change-*.txt) and holds no audit, so the
# audit gate tries every form of plain-language audit on all of it. A
# measure of the gates' own cost per text, which the floor's one-line text
# (benches/hook_floor.sh) does not show.
#
#   benches/hook_long_text.sh            # this checkout's release build
#   benches/hook_long_text.sh BIN...     # other builds, on the same input
#
# Prints one line per binary: the Stop's instruction count (cachegrind)
# and its path. Each Stop runs after a PostToolUse has raised the flag, as
# Claude Code calls the hook; the cap is out of reach, so each one blocks.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/support/need.sh
need valgrind
need python3

work=$PWD/target/stopgate-bench/long
mkdir -p "$work"
python3 - "$work" <<'PY'
import json, random, sys
work = sys.argv[1]
random.seed(1)
en = open("fixtures/text/long-change-en.txt", encoding="utf-8").read().splitlines()
ja = open("fixtures/text/long-change-ja.txt", encoding="utf-8").read().splitlines()
text = " ".join(random.choice(en) for _ in range(30)) + "\n\n" + "".join(random.choice(ja) for _ in range(20))
common = {"sessionId": "s", "cwd": "/tmp/x"}
lines = [
    {"type": "user", "message": {"role": "user", "content": "Refactor the pool."}, "uuid": "u1", "timestamp": "2026-12-01T00:00:00Z", "entrypoint": "cli", **common},
    {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Write", "input": {"file_path": "/tmp/x/a.rs", "content": "fn main(){}"}}]}, "uuid": "a1", "timestamp": "2026-12-01T00:00:01Z", **common},
    {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}, "uuid": "u2", "timestamp": "2026-12-01T00:00:02Z", **common},
    {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}, "uuid": "a2", "timestamp": "2026-12-01T00:00:03Z", **common},
]
with open(f"{work}/t.jsonl", "w") as f:
    f.write("\n".join(json.dumps(l, ensure_ascii=False) for l in lines) + "\n")
stop = {"session_id": "long", "transcript_path": f"{work}/t.jsonl", "cwd": "/tmp", "hook_event_name": "Stop", "stop_hook_active": False}
post = {"session_id": "long", "transcript_path": "/nonexistent", "cwd": "/tmp", "hook_event_name": "PostToolUse", "tool_name": "Write", "tool_input": {"file_path": "/tmp/a.rs", "content": "x"}}
json.dump(stop, open(f"{work}/stop.json", "w"))
json.dump(post, open(f"{work}/post.json", "w"))
open(f"{work}/stopgate.toml", "w").write("[audit]\ncap = 1000000000\n")
PY
if [ $# -eq 0 ]; then
    cargo build --release --quiet
    set -- "$PWD/target/release/stopgate"
fi
unset CLAUDE_CODE_ENTRYPOINT STOPGATE_DEBUG STOPGATE_CONFIG CLAUDE_PROJECT_DIR
for bin in "$@"; do
    state=$work/state
    rm -rf "$state"
    mkdir -m 700 "$state"
    STOPGATE_STATE_DIR=$state "$bin" hook --config "$work/stopgate.toml" \
        --input "$work/post.json" >/dev/null 2>&1
    # The Stop blocks (exit 2), as it should: its status is not the
    # script's.
    STOPGATE_STATE_DIR=$state valgrind --tool=cachegrind --cache-sim=no \
        --cachegrind-out-file=/dev/null "$bin" hook \
        --config "$work/stopgate.toml" --input "$work/stop.json" \
        >/dev/null 2>"$work/valgrind.txt" || true
    refs=$(awk '/I *refs:/ {print $NF}' "$work/valgrind.txt")
    echo "$refs  $bin"
done
