#!/usr/bin/env bash
# The Stop hook's cost with the largest phrase lists `config --check`
# accepts (256 per list, every list) against the defaults, whole process,
# in one hyperfine run. Needs hyperfine (Debian: apt-get install hyperfine).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
lists = ["deference", "challenge", "capitulation", "verification", "claims", "stock"]
toml = "[patterns]\n" + "".join(
    f'{l} = [' + ",".join(f'"{l} phrase {i}"' for i in range(256)) + "]\n" for l in lists)
toml += "[audit]\nextra_markers = [" + ",".join(f'"marker {i}"' for i in range(256)) + "]\n"
open(f"{w}/max.toml", "w").write(toml)
open(f"{w}/none.toml", "w").write("")
lines = [
    {"type": "user", "entrypoint": "cli", "message": {"role": "user", "content": "Fix."}},
    {"type": "assistant", "message": {"id": "m1", "content": [{"type": "tool_use", "id": "t1", "name": "Write", "input": {"file_path": "a", "content": "x"}}]}},
    {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1"}]}},
    {"type": "assistant", "message": {"id": "m2", "content": [{"type": "text", "text": "Audit: two writers raced on the cache file; fixed with a lock."}]}},
]
open(f"{w}/t.jsonl", "w").write("\n".join(json.dumps(l) for l in lines) + "\n")
open(f"{w}/in.json", "w").write(json.dumps({"session_id": "k", "transcript_path": f"{w}/t.jsonl", "hook_event_name": "Stop", "stop_hook_active": False}))
PY
bin=target/release/stopgate
"$bin" config --check "$work/max.toml"
STOPGATE_STATE_DIR="$work/state" hyperfine -N -w 20 -r 300 \
    -n defaults "$bin hook --config $work/none.toml --input $work/in.json" \
    -n max-lists "$bin hook --config $work/max.toml --input $work/in.json" \
    --export-json "$work/r.json"
python3 -c '
import json, sys
r = {x["command"]: x["median"] * 1e3 for x in json.load(open(sys.argv[1]))["results"]}
print("medians: defaults %.3f ms, max-lists %.3f ms, ratio %.2f" % (r["defaults"], r["max-lists"], r["max-lists"] / r["defaults"]))
' "$work/r.json"
