"""The README's "Scanning a fleet" examples, run as written, print the
totals `stopgate scan` gives on the same archive.

Each ```python block of that section runs in a subprocess from a folder
holding `fixtures/` (the repository's), after the Parquet command its first
comment names; its last line of output holds the turns and the flagged
turns. The engines' blocks skip where their engine is missing.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from test_engines import has_java, importable, need
from test_rows import REPO, cli

SECTION = "## Scanning a fleet"


def examples() -> list:
    text = (REPO / "README.md").read_text()
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    section = text[start : end if end > 0 else None]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_section_has_the_three_engines():
    heads = [block.splitlines()[0] for block in examples()]
    assert [h.split()[1] for h in heads] == ["DuckDB,", "PySpark", "Ray"]


def totals(tmp_path: Path) -> tuple:
    def rows(*flags):
        out = subprocess.run(
            [str(cli()), "scan", "--no-progress", "--format", "jsonl", *flags, "fixtures/"],
            cwd=tmp_path, capture_output=True, text=True, check=True,
        ).stdout
        return len(out.splitlines())

    return rows("--all-turns"), rows()


@pytest.mark.parametrize("engine", ["duckdb", "pyspark", "ray"])
def test_an_example_prints_the_scans_totals(engine, tmp_path):
    need(importable(engine), f"{engine} is not installed")
    if engine == "pyspark":
        need(has_java(), "no Java runtime: the Spark example needs one")
    block = next(b for b in examples() if engine.lower() in b.splitlines()[0].lower()
                 or (engine == "duckdb" and b.startswith("# DuckDB")))
    (tmp_path / "fixtures").symlink_to(REPO / "fixtures")
    command = re.search(r"written by `(stopgate scan [^`]+)`", block)
    if command:
        argv = shlex.split(command.group(1))
        done = subprocess.run([str(cli()), *argv[1:], "--no-progress"], cwd=tmp_path,
                              capture_output=True, text=True)
        need(not (done.returncode == 2 and "features parquet" in done.stderr),
             "this stopgate was built without the parquet feature")
        assert done.returncode == 0, done.stderr
    env = dict(os.environ, RAY_TMPDIR="/tmp", PYSPARK_PYTHON=sys.executable)
    ran = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300, env=env)
    assert ran.returncode == 0, ran.stderr[-4000:]
    last = ran.stdout.strip().splitlines()[-1]
    assert tuple(int(n) for n in re.findall(r"\d+", last)[-2:]) == totals(tmp_path), ran.stdout
