"""Spark (local[2]) and Ray (num_cpus=2) smoke tests: the engines' rows are
the package's rows, paths handed over.

Each engine runs in a subprocess with a timeout and is stopped in a
``finally``; the test then asserts that no JVM or raylet of its own is left.
The tests skip, saying so, where pyspark, Java or ray is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

import stopgate

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"


def own_processes(marker: str) -> list:
    """Processes whose command line holds ``marker`` (a temporary folder
    unique to one test)."""
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines()[1:] if marker in line and "ps -eo" not in line]


def run_engine(script: str, tmp_path: Path, timeout: int) -> dict:
    # Spark's Python workers run PYSPARK_PYTHON, else the `python3` on the
    # PATH, which need not be this environment's.
    env = dict(os.environ, TMPDIR=str(tmp_path), RAY_TMPDIR=str(tmp_path), PYSPARK_PYTHON=sys.executable)
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
            proc.wait()
    assert proc.returncode == 0, err[-4000:]
    lines = [l for l in out.splitlines() if l.startswith("RESULT ")]
    assert lines, (out[-2000:], err[-4000:])
    return json.loads(lines[-1][len("RESULT "):])


def wait_until_gone(marker: str, what: str) -> None:
    deadline = time.time() + 20
    while own_processes(marker) and time.time() < deadline:
        time.sleep(0.5)
    left = own_processes(marker)
    assert not left, f"{what} left running: {left}"


def rows(table) -> list:
    """A table's rows, in key order (engines keep no order)."""
    return sorted(table.to_pylist(), key=lambda r: r["key"])


def want() -> dict:
    scan = stopgate.scan(FIXTURES)
    return {"rows": rows(scan.turns), "files": scan.files.num_rows}


def written(path: Path) -> list:
    import pyarrow.parquet as pq

    return rows(pq.read_table(path))


def need(ready: bool, why: str) -> None:
    """Skip, saying why, unless STOPGATE_REQUIRE_ENGINES is set (as CI
    sets it): then a missing engine fails the test."""
    if ready:
        return
    if os.environ.get("STOPGATE_REQUIRE_ENGINES"):
        pytest.fail(why)
    pytest.skip(why)


def importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def has_java() -> bool:
    return shutil.which("java") is not None or bool(os.environ.get("JAVA_HOME"))


def test_spark_reads_the_same_rows(tmp_path):
    need(importable("pyspark"), "pyspark is not installed")
    need(has_java(), "no Java runtime: the Spark test needs one")
    got = run_engine(
        f"""
        import json
        from pyspark.sql import SparkSession
        import stopgate.spark
        spark = (SparkSession.builder.master("local[2]")
                 .config("spark.ui.enabled", "false")
                 .config("spark.driver.extraJavaOptions", "-Dstopgate.test={tmp_path}")
                 .config("spark.sql.shuffle.partitions", "2")
                 .config("spark.sql.session.timeZone", "UTC")
                 .getOrCreate())
        try:
            stopgate.spark.register(spark)
            df = (spark.read.format("stopgate").option("paths", "{FIXTURES}")
                  .option("partitionBytes", "20000").load())
            files = (spark.read.format("stopgate").option("paths", "{FIXTURES}")
                     .option("table", "files").load())
            mapped = stopgate.spark.scan_with_map_in_arrow(spark, "{FIXTURES}", partition_bytes=20000)
            import pyarrow.parquet as pq
            # Every column of every row, as Arrow: compared in the test.
            pq.write_table(df.toArrow(), "{tmp_path}/spark.parquet")
            pq.write_table(mapped.toArrow(), "{tmp_path}/mapped.parquet")
            result = dict(files=files.count(), partitions=df.rdd.getNumPartitions())
            print("RESULT " + json.dumps(result))
        finally:
            spark.stop()
        """,
        tmp_path,
        timeout=300,
    )
    w = want()
    assert written(tmp_path / "spark.parquet") == w["rows"]
    assert written(tmp_path / "mapped.parquet") == w["rows"]
    assert got["files"] == w["files"]
    assert got["partitions"] > 1
    wait_until_gone(f"-Dstopgate.test={tmp_path}", "a JVM")


def test_ray_reads_the_same_rows(tmp_path):
    need(importable("ray"), "ray is not installed")
    # Ray's sockets live under its temporary folder, and a socket's path
    # may not pass 107 bytes: pytest's folders are too deep.
    ray_dir = Path(tempfile.mkdtemp(prefix="sg-ray-", dir="/tmp"))
    try:
        check_ray(tmp_path, ray_dir)
    finally:
        shutil.rmtree(ray_dir, ignore_errors=True)


def check_ray(tmp_path: Path, ray_dir: Path) -> None:
    got = run_engine(
        f"""
        import json, ray
        import stopgate.ray
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                 _temp_dir="{ray_dir}")
        try:
            ds = stopgate.ray.read_paths(["{FIXTURES}"], group_bytes=20000)
            files = stopgate.ray.read_paths("{FIXTURES}", table="files")
            import pyarrow as pa, pyarrow.parquet as pq
            # Every column of every row, as Arrow: compared in the test.
            pq.write_table(pa.concat_tables(ray.get(ds.to_arrow_refs())), "{tmp_path}/ray.parquet")
            result = dict(files=files.count())
            print("RESULT " + json.dumps(result))
        finally:
            ray.shutdown()
        """,
        tmp_path,
        timeout=300,
    )
    w = want()
    assert written(tmp_path / "ray.parquet") == w["rows"]
    assert got["files"] == w["files"]
    wait_until_gone(str(ray_dir), "a raylet")
