"""stopgate's scan as a Spark data source.

Spark 4.0 and later (the Python Data Source API)::

    import stopgate.spark
    stopgate.spark.register(spark)
    turns = (spark.read.format("stopgate")
             .option("paths", "/data/transcripts")   # comma-separated, files or folders
             .load())
    files = (spark.read.format("stopgate")
             .option("paths", "/data/transcripts")
             .option("table", "files")               # one row per file scanned
             .load())

The driver lists the files (the paths must be readable by the driver and the
executors alike: a local disk in local mode, a shared mount or a FUSE-mounted
bucket on a cluster) and cuts them into partitions of about
``partitionBytes`` (default 128 MiB) each; each task scans its files itself
and yields Arrow record batches. File contents never pass through the engine.

Options: ``paths`` (required), ``table`` (``turns``, the default, or
``files``), ``allTurns`` (``true``, the default: every turn; ``false``: only
turns with findings), ``config`` (a ``stopgate.toml`` readable by every
task), ``partitionBytes``, ``threads`` (per task, default 1). Relative paths
are made absolute on the driver. A file that has gone by the time its task
runs is a row of the files table with its error; a folder the driver cannot
read is a warning on the driver.

The Python workers must import ``stopgate``: install the wheel on every node,
and point ``PYSPARK_PYTHON`` at that environment's interpreter.

Spark 3.x has no Python data sources: ``scan_with_map_in_arrow(spark, paths)``
does the same with ``mapInArrow``.
"""

from __future__ import annotations

from typing import Iterator, List

import pyarrow as pa

import stopgate

__all__ = ["StopgateDataSource", "register", "scan_with_map_in_arrow", "spark_schema"]


def spark_schema(table: str = "turns"):
    """The Spark schema of a table (``turns`` or ``files``)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(_arrow_schema(table))


def _arrow_schema(table: str) -> pa.Schema:
    if table == "turns":
        return stopgate.TURN_SCHEMA
    if table == "files":
        return stopgate.FILE_SCHEMA
    raise ValueError(f"table must be 'turns' or 'files', not {table!r}")


def _scan_group(paths: List[str], table: str, all_turns: bool, config, threads: int) -> Iterator[pa.RecordBatch]:
    # Listed: a file gone since the driver listed it is a row with its
    # error, not a failed task.
    scan = stopgate.scan(paths, config=config, threads=threads, all_turns=all_turns, listed=True)
    yield from getattr(scan, table).to_batches()


try:
    from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
except ImportError:  # Spark 3.x, or no Spark: only scan_with_map_in_arrow.
    DataSource = None

if DataSource is not None:

    class _Files(InputPartition):
        def __init__(self, paths: List[str]):
            super().__init__(paths)
            self.paths = paths

    class _Reader(DataSourceReader):
        def __init__(self, options):
            self.paths, self.config = stopgate._driver_paths(options.get("paths", ""), options.get("config"))
            if not self.paths:
                raise ValueError('the stopgate data source needs .option("paths", "a.jsonl,folder/")')
            self.table = options.get("table", "turns")
            _arrow_schema(self.table)
            self.all_turns = options.get("allTurns", "true").lower() != "false"
            self.partition_bytes = int(options.get("partitionBytes", 128 << 20))
            self.threads = int(options.get("threads", 1))

        def partitions(self):
            files = stopgate.list_files(self.paths)
            groups = stopgate.group_by_bytes(files, self.partition_bytes)
            return [_Files(g) for g in groups] or [_Files([])]

        def read(self, partition):
            if not partition.paths:
                return iter(())
            return _scan_group(partition.paths, self.table, self.all_turns, self.config, self.threads)

    class StopgateDataSource(DataSource):
        """``spark.read.format("stopgate")``: see the module's doc."""

        @classmethod
        def name(cls) -> str:
            return "stopgate"

        def schema(self):
            return spark_schema(self.options.get("table", "turns"))

        def reader(self, schema):
            return _Reader(self.options)

else:
    StopgateDataSource = None


def register(spark) -> None:
    """Register the ``stopgate`` data source with a Spark 4 session."""
    if StopgateDataSource is None:
        raise RuntimeError(
            "this pyspark has no Python data sources (Spark 4.0 and later); "
            "use stopgate.spark.scan_with_map_in_arrow(spark, paths)"
        )
    spark.dataSource.register(StopgateDataSource)


def scan_with_map_in_arrow(
    spark,
    paths,
    *,
    table: str = "turns",
    all_turns: bool = True,
    config=None,
    partition_bytes: int = 128 << 20,
    threads: int = 1,
):
    """The data source's rows on Spark 3.x: a DataFrame of file groups, one
    per partition, scanned with ``mapInArrow``. Paths are handed over, never
    contents."""
    _arrow_schema(table)
    paths, config = stopgate._driver_paths(paths, config)
    groups = stopgate.group_by_bytes(stopgate.list_files(paths), partition_bytes)
    groups_df = spark.createDataFrame([(g,) for g in groups], "paths array<string>")
    groups_df = groups_df.repartition(max(1, len(groups)))

    def scan_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for group in batch.column("paths").to_pylist():
                if group:
                    yield from _scan_group(group, table, all_turns, config, threads)

    return groups_df.mapInArrow(scan_batches, spark_schema(table))
