#!/usr/bin/env bash
# Peak memory of `stopgate scan` against the number of files: a scan of
# one small session, then of N small sessions (default 100,000), each
# format. The issue's target: the N-file scan's peak RSS within 1.5x of
# the one-file scan's.
#
#   benches/scan_memory.sh [N] [BINARY]
#
# Sessions are copies of fixtures/transcripts/turn_kinds.jsonl (7 KB, 6
# turns, findings included), each with its own session id, in folders of
# 1,000 under target/stopgate-bench/many-N/ (benches/support/many.sh).
# Peak RSS is GNU time's %M.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
bin=${2:-}
if [ -z "$bin" ]; then
    cargo build --release --quiet --bin stopgate
    bin=$PWD/target/release/stopgate
fi
. benches/support/many.sh
dir=$(many_sessions "$n")
one=target/stopgate-bench/one-session
mkdir -p "$one"
cp fixtures/transcripts/turn_kinds.jsonl "$one/"
rss() { /usr/bin/time -f %M "$@" >/dev/null 2>/tmp/stopgate-rss || true; tail -1 /tmp/stopgate-rss; }
echo "files format peak_rss_kib(1 file) peak_rss_kib($n files) ratio"
for fmt in table jsonl csv html; do
    a=$(rss "$bin" scan --no-progress --threads 2 --format "$fmt" "$one")
    b=$(rss "$bin" scan --no-progress --threads 2 --format "$fmt" "$dir")
    echo "$fmt $a $b $(python3 -c "print(round($b/$a, 2))")"
done
