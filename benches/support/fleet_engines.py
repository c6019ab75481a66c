"""Time the CLI, the Python package, Spark and Ray on one archive: see
benches/fleet_engines.sh. Arguments: the stopgate binary, the archive, the
number of timed runs."""

import os
import statistics
import subprocess
import sys
import time

cli, archive, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])


def timed(name, run):
    """The median of `runs` timed calls after one warm-up call; every call
    must give the same row count."""
    rows = run()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        again = run()
        times.append(time.perf_counter() - start)
        assert again == rows, (name, again, rows)
    return name, statistics.median(times), rows


def cli_rows():
    out = subprocess.run(
        [cli, "scan", "--threads", "2", "--all-turns", "--format", "jsonl", "--no-progress", archive],
        check=True, capture_output=True, cwd="/tmp",
    ).stdout
    return out.count(b"\n")


results = [timed("cli, 2 threads", cli_rows)]

import stopgate  # noqa: E402

results.append(timed("python package, 2 threads", lambda: stopgate.scan(archive, threads=2).turns.num_rows))

started = time.perf_counter()
from pyspark.sql import SparkSession  # noqa: E402
import stopgate.spark  # noqa: E402

spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.driver.memory", "4g").getOrCreate())
stopgate.spark.register(spark)
spark_start = time.perf_counter() - started
try:
    results.append(timed(
        "spark local[2], data source",
        lambda: spark.read.format("stopgate").option("paths", archive).load().count(),
    ))
finally:
    spark.stop()

started = time.perf_counter()
import ray  # noqa: E402
import stopgate.ray  # noqa: E402

ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
ray_start = time.perf_counter() - started
try:
    results.append(timed("ray num_cpus=2, read_paths", lambda: stopgate.ray.read_paths([archive]).count()))
finally:
    ray.shutdown()

counts = {rows for _, _, rows in results}
assert len(counts) == 1, f"the engines disagree on the row count: {results}"
files = sum(1 for _ in stopgate.list_files(archive))
size = sum(n for _, n in stopgate.list_files(archive))
print(f"archive: {files} files, {size / 2**20:.0f} MiB; {runs} timed runs each, medians")
base = results[0][1]
for name, t, rows in results:
    print(f"  {name:30} {t:7.3f} s  {t / base:5.2f}x the cli  ({rows} rows)")
print(f"  engine start (not in the times): spark {spark_start:.1f} s, ray {ray_start:.1f} s")
