"""stopgate's scan as a Ray dataset::

    import stopgate.ray
    ds = stopgate.ray.read_paths(["/data/transcripts"])
    ds.filter(lambda row: row["audit"] == "absent").count()

The driver lists the files and cuts them into groups of about
``group_bytes``; each task scans its group itself (``map_batches`` with
``batch_format="pyarrow"``). Paths are handed over, never contents: no
``read_binary_files``. Relative paths are made absolute on the driver, and a
file gone by the time its task runs is a row of the files table with its
error.
"""

from __future__ import annotations

from typing import Optional

import pyarrow as pa

import stopgate

__all__ = ["read_paths"]


def read_paths(
    paths,
    *,
    table: str = "turns",
    all_turns: bool = True,
    config=None,
    group_bytes: int = 128 << 20,
    threads: int = 1,
    concurrency: Optional[int] = None,
):
    """A ``ray.data.Dataset`` of a scan's rows: ``table`` is ``turns`` (one
    row per turn) or ``files`` (one row per file scanned)."""
    import ray.data

    if table not in ("turns", "files"):
        raise ValueError(f"table must be 'turns' or 'files', not {table!r}")
    paths, config = stopgate._driver_paths(paths, config)
    groups = stopgate.group_by_bytes(stopgate.list_files(paths), group_bytes)
    schema = stopgate.TURN_SCHEMA if table == "turns" else stopgate.FILE_SCHEMA
    items = ray.data.from_items([{"paths": g} for g in groups], override_num_blocks=max(1, len(groups)))

    def scan_batch(batch: pa.Table) -> pa.Table:
        tables = [
            getattr(stopgate.scan(group, config=config, threads=threads, all_turns=all_turns, listed=True), table)
            for group in batch.column("paths").to_pylist()
        ]
        return pa.concat_tables(tables) if tables else schema.empty_table()

    kwargs = {} if concurrency is None else {"concurrency": concurrency}
    return items.map_batches(scan_batch, batch_format="pyarrow", batch_size=1, **kwargs)
