#!/usr/bin/env bash
# The engines' overhead over the CLI (issue 52): the same archive scanned by
# `stopgate scan` on 2 threads, by the Python package, by Spark (local[2],
# the stopgate data source) and by Ray (num_cpus=2, stopgate.ray), paths
# handed over, warm (each engine started once and run once before timing).
#
#   benches/fleet_engines.sh                 # 5 runs each
#   RUNS=9 ARCHIVE=/path/to/jsonl/folder benches/fleet_engines.sh
#
# The archive defaults to the one benches/scan_real.sh builds from
# ../shared/corpus (run it first). The package is built with maturin
# (--release) into a virtual environment under target/stopgate-bench/py,
# with pyspark, ray, pandas and pyarrow; Spark needs a Java runtime. Every
# engine counts every turn (`--all-turns`), and all must give one count.
# Prints each engine's median and its ratio to the CLI's, from the same
# run.
set -euo pipefail
cd "$(dirname "$0")/.."
ARCHIVE=${ARCHIVE:-$PWD/target/stopgate-bench/real-archive}
RUNS=${RUNS:-5}
if [ ! -d "$ARCHIVE" ]; then
    echo "fleet_engines: $ARCHIVE is missing (benches/scan_real.sh builds it)" >&2
    exit 1
fi
cargo build --release --quiet
venv=$PWD/target/stopgate-bench/py
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q maturin pyarrow pandas 'pyspark>=4' 'ray[data]'
fi
CARGO_TARGET_DIR=$PWD/target/python-release "$venv/bin/maturin" build -q --release \
    -m python/Cargo.toml -o target/stopgate-bench/wheels
"$venv/bin/pip" install -q --force-reinstall --no-deps \
    "$(ls -t target/stopgate-bench/wheels/stopgate-*.whl | head -1)"
find "$ARCHIVE" -name '*.jsonl' -print0 | xargs -0 cat > /dev/null   # page cache
RAY_TMPDIR=/tmp PYSPARK_PYTHON="$venv/bin/python" "$venv/bin/python" benches/support/fleet_engines.py \
    "$PWD/target/release/stopgate" "$ARCHIVE" "$RUNS"
