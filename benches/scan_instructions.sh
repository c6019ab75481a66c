#!/usr/bin/env bash
# The instructions one scan thread executes on the real archive that
# benches/scan_real.sh builds, counted by valgrind's cachegrind: a measure
# of the scan's own work that the machine's noise does not move, for
# comparing revisions of the code (wall-clock medians on the project's
# machines moved by a fifth within minutes).
#
#   benches/scan_instructions.sh            # this checkout's release build
#   benches/scan_instructions.sh BIN...     # other builds, on the same data
#
# Prints one line per binary: its instruction count and its path. Run
# benches/scan_real.sh once first to build the archive; skipped with a
# notice when it is not there.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/support/need.sh
need valgrind

dir=$PWD/target/stopgate-bench/real-archive
if [ ! -d "$dir" ]; then
    echo "scan_instructions: $dir is missing (run benches/scan_real.sh); skipped" >&2
    exit 0
fi
if [ $# -eq 0 ]; then
    cargo build --release --quiet
    set -- "$PWD/target/release/stopgate"
fi
for bin in "$@"; do
    refs=$(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        "$bin" scan --no-progress --threads 1 "$dir" 2>&1 >/dev/null \
        | sed -n 's/.*I *refs: *//p')
    echo "$refs  $bin"
done
