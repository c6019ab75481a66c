#!/usr/bin/env bash
# `stopgate scan` on an archive of many small sessions, on one thread and
# on two, in the same hyperfine runs: where a file's fixed costs, and the
# threads' hand-offs, weigh most.
#
#   benches/scan_many.sh [N]              # N sessions (default 20,000)
#   BASE=/path/to/old/stopgate benches/scan_many.sh
#                                         # and an older build, the same way
#
# The sessions are benches/support/many.sh's: N copies of a 7 KB session
# of 6 turns, in folders of 1,000. Page-cached before measuring. Prints
# each command's median, then one / two threads (>= 1: two threads are
# not slower) and, with BASE, this build / BASE at each thread count.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/support/need.sh
. benches/support/many.sh
need hyperfine

n=${1:-20000}
RUNS=${RUNS:-10}
cargo build --release --quiet
bin=$PWD/target/release/stopgate
dir=$(many_sessions "$n")
find "$dir" -name '*.jsonl' -print0 | xargs -0 cat > /dev/null   # page cache
work=$PWD/target/stopgate-bench/scan-many
mkdir -p "$work"
cmds=("$bin scan --no-progress --threads 1 $dir"
      "$bin scan --no-progress --threads 2 $dir")
if [ -n "${BASE:-}" ]; then
    cmds+=("$BASE scan --no-progress --threads 1 $dir"
           "$BASE scan --no-progress --threads 2 $dir")
fi
hyperfine -N --warmup 1 --runs "$RUNS" --style none \
    --export-json "$work/times.json" "${cmds[@]}" >/dev/null
python3 - "$n" "$work/times.json" <<'PY'
import json, sys
n = int(sys.argv[1])
t = [r["median"] for r in json.load(open(sys.argv[2]))["results"]]
print("%d sessions; medians (s): 1 thread %.3f, 2 threads %.3f" % (n, t[0], t[1]))
print("one / two threads (>= 1)  %.2f" % (t[0] / t[1]))
if len(t) > 2:
    print("BASE: 1 thread %.3f, 2 threads %.3f; one / two threads %.2f" % (t[2], t[3], t[2] / t[3]))
    print("this build / BASE: 1 thread %.2f, 2 threads %.2f" % (t[0] / t[2], t[1] / t[3]))
PY
