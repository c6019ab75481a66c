"""The Python package's rows against the CLI's, and Parquet read back.

The CLI is `STOPGATE_BIN` (a build with the `parquet` feature), else
`target/release/stopgate` or `target/debug/stopgate` under the repository;
the tests that need it skip, saying so, where there is none. The archive is
the repository's fixtures: sessions with entrypoints, a subagent file,
corrupt lines, Codex and Gemini sessions.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import stopgate

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures" / "transcripts"


def cli() -> Path:
    for candidate in (
        os.environ.get("STOPGATE_BIN"),
        REPO / "target" / "release" / "stopgate",
        REPO / "target" / "debug" / "stopgate",
    ):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    pytest.skip("no stopgate binary: set STOPGATE_BIN or build it")


def run_cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    # Run from an empty folder, so no stopgate.toml is found: the defaults,
    # as the package uses them.
    return subprocess.run(
        [str(cli()), "scan", "--no-progress", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )


def jsonl_rows(tmp_path: Path) -> list:
    out = run_cli(tmp_path, "--all-turns", "--format", "jsonl", str(FIXTURES)).stdout
    return [json.loads(line) for line in out.splitlines()]


def as_arrow_row(j: dict) -> dict:
    """A JSONL row in the Arrow table's columns."""
    ts = j.get("timestamp")
    return {
        "key": j["key"],
        "file": j["file"],
        "session_id": j["session_id"],
        "project": j["project"],
        "turn": j["turn"],
        "kind": j["kind"],
        "timestamp": None if ts is None else dt.datetime.fromisoformat(ts.replace("Z", "+00:00")),
        "entrypoint": j["entrypoint"],
        "agent": j["agent"],
        "changed": j["changed"],
        "audit": j["audit"],
        "findings": [
            {
                "finding": e["finding"],
                "rule": e["rule"],
                "line": e["line"],
                "excerpt": e["excerpt"],
                "matched": e["matched"],
            }
            for e in j["evidence"]
        ],
        "subagents": j["subagents"],
        "hooks_ran": j["hooks_ran"],
        "hook_blocked": j["hook_blocked"],
        "hook_blocks": j["hook_blocks"],
        "changes": j.get("changes", []),
        "note": j.get("note"),
    }


def test_the_rows_are_the_clis(tmp_path):
    want = [as_arrow_row(j) for j in jsonl_rows(tmp_path)]
    got = stopgate.scan(FIXTURES).turns.to_pylist()
    assert len(got) == len(want) > 30
    for g, w in zip(got, want):
        assert g == w, g["key"]
    # What the fixtures were chosen for.
    assert {"cli", "sdk-cli", "codex-exec"} <= {r["entrypoint"] for r in got}
    assert any(r["subagents"] for r in got)
    assert {"claude", "codex", "gemini"} <= {r["agent"] for r in got}


def test_only_turns_with_findings_as_the_cli_without_all_turns(tmp_path):
    out = run_cli(tmp_path, "--format", "jsonl", str(FIXTURES)).stdout
    want = [json.loads(line)["key"] for line in out.splitlines()]
    got = stopgate.scan(FIXTURES, all_turns=False).turns.column("key").to_pylist()
    assert got == want and got


def test_the_files_table_counts_what_was_read():
    files = stopgate.scan(FIXTURES).files.to_pylist()
    listed = stopgate.list_files(FIXTURES)
    assert [f["file"] for f in files] == [p for p, _ in listed]
    corrupt = {Path(f["file"]).name: f["corrupt"] for f in files if f["corrupt"]}
    assert corrupt["corrupt_middle.jsonl"] == 3
    main = [f for f in files if not f["subagent"]]
    assert all(f["bytes"] == n for f, (_, n) in zip(files, listed) if not f["subagent"])
    assert all(f["error"] is None for f in main)


def test_a_missing_path_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        stopgate.scan(tmp_path / "nowhere")


def test_an_unreadable_file_is_a_row_not_an_error(tmp_path):
    bad = tmp_path / "locked.jsonl"
    bad.write_text("{}\n")
    bad.chmod(0)
    if os.access(bad, os.R_OK):
        pytest.skip("running as a user who reads any file (root)")
    files = stopgate.scan(tmp_path).files.to_pylist()
    assert files[0]["error"]


def test_scan_bytes_is_scan_of_the_file():
    path = FIXTURES / "gate_findings.jsonl"
    from_bytes = stopgate.scan_bytes(str(path), path.read_bytes())
    from_file = stopgate.scan(path)
    assert from_bytes.turns.to_pylist() == from_file.turns.to_pylist()
    assert from_bytes.turns.num_rows > 0


def test_a_reader_streams_the_same_rows():
    reader = stopgate.scan_paths([FIXTURES])
    assert reader.schema == stopgate.TURN_SCHEMA
    assert reader.read_all().to_pylist() == stopgate.scan(FIXTURES).turns.to_pylist()


def test_group_by_bytes_keeps_order_and_cuts_at_the_target():
    files = [("a", 60), ("b", 60), ("c", 200), ("d", 10), ("e", 10)]
    assert stopgate.group_by_bytes(files, 100) == [["a"], ["b"], ["c"], ["d", "e"]]
    assert stopgate.group_by_bytes([], 100) == []


def parquet(tmp_path: Path):
    turns, files = tmp_path / "turns.parquet", tmp_path / "files.parquet"
    args = ["--all-turns", "--format", "parquet", "--output", str(turns)]
    result = subprocess.run(
        [str(cli()), "scan", "--no-progress", *args, "--files-output", str(files), str(FIXTURES)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if result.returncode == 2 and "features parquet" in result.stderr:
        if os.environ.get("STOPGATE_REQUIRE_ENGINES"):
            pytest.fail("this stopgate was built without the parquet feature")
        pytest.skip("this stopgate was built without the parquet feature")
    assert result.returncode == 0, result.stderr
    return turns, files


def test_parquet_read_back_by_pyarrow_is_the_jsonl(tmp_path):
    turns, files = parquet(tmp_path)
    want = [as_arrow_row(j) for j in jsonl_rows(tmp_path)]
    table = pq.read_table(turns)
    assert table.schema == stopgate.TURN_SCHEMA
    assert table.to_pylist() == want
    assert pq.read_table(files).to_pylist() == stopgate.scan(FIXTURES).files.to_pylist()


def test_parquet_read_back_by_duckdb_is_the_jsonl(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    turns, _ = parquet(tmp_path)
    want = jsonl_rows(tmp_path)
    got = duckdb.sql(
        f"SELECT key, audit, changed, len(findings) AS n, "
        f"list_transform(findings, lambda f: f.finding) AS names "
        f"FROM read_parquet('{turns}')"
    ).fetchall()
    assert sorted(got) == sorted(
        (j["key"], j["audit"], j["changed"], len(j["evidence"]), j["findings"]) for j in want
    )
    # The README's example.
    by_project = duckdb.sql(
        f"SELECT project, count(*) AS turns, count(*) FILTER (WHERE audit = 'absent' AND changed) "
        f"AS unaudited FROM read_parquet('{turns}') GROUP BY project ORDER BY project NULLS FIRST"
    ).fetchall()
    assert sum(t for _, t, _ in by_project) == len(want)


def test_no_rows_still_writes_a_parquet_file(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    out = tmp_path / "none.parquet"
    result = subprocess.run(
        [str(cli()), "scan", "--no-progress", "--format", "parquet", "--output", str(out), str(empty)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if result.returncode == 2 and "features parquet" in result.stderr:
        if os.environ.get("STOPGATE_REQUIRE_ENGINES"):
            pytest.fail("this stopgate was built without the parquet feature")
        pytest.skip("this stopgate was built without the parquet feature")
    assert result.returncode == 0, result.stderr
    table = pq.read_table(out)
    assert (table.num_rows, table.schema) == (0, stopgate.TURN_SCHEMA)


def test_a_listed_file_gone_since_is_a_row_with_its_error(tmp_path):
    gone = tmp_path / "gone.jsonl"
    here = FIXTURES / "gate_findings.jsonl"
    scan = stopgate.scan([str(here), str(gone)], listed=True)
    files = scan.files.to_pylist()
    assert [f["file"] for f in files] == [str(here), str(gone)]
    assert files[0]["error"] is None and files[1]["error"]
    assert scan.turns.num_rows == stopgate.scan(here).turns.num_rows
    # Unlisted, a missing path is the caller's mistake.
    with pytest.raises(FileNotFoundError):
        stopgate.scan([str(here), str(gone)])


def test_a_missing_config_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.toml"):
        stopgate.scan(FIXTURES, config=tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[audit\n")
    with pytest.raises(ValueError, match="bad.toml"):
        stopgate.scan(FIXTURES, config=bad)


def test_parquet_refuses_one_file_for_both_tables_and_a_folder(tmp_path):
    out = tmp_path / "x.parquet"
    for extra in (["--output", str(out), "--files-output", str(tmp_path / "." / "x.parquet")],
                  ["--output", str(tmp_path)]):
        result = subprocess.run(
            [str(cli()), "scan", "--no-progress", "--format", "parquet", *extra, str(FIXTURES)],
            cwd=tmp_path, capture_output=True, text=True, timeout=60,
        )
        if "features parquet" in result.stderr and not os.environ.get("STOPGATE_REQUIRE_ENGINES"):
            pytest.skip("this stopgate was built without the parquet feature")
        assert result.returncode == 2, result.stderr
        assert "same file" in result.stderr or "is a folder" in result.stderr, result.stderr
    assert not out.exists()
