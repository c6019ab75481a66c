"""stopgate: judge whether coding agents audited their work, over whole archives.

The scan is the ``stopgate`` binary's own (``stopgate scan --all-turns``):
every turn of every Claude Code, Codex CLI or Gemini CLI session under the
paths given, judged by the same gates, as Arrow rows. Two tables come out of
a scan:

* the **turns** (``TURN_SCHEMA``): one row per turn, with its audit status and
  findings;
* the **files** (``FILE_SCHEMA``): one row per file scanned, with what was
  read and why a file could not be, so that a failed file stays visible in a
  distributed run.

Hand engines paths, never file contents: ``stopgate.spark`` and
``stopgate.ray`` do.
"""

from __future__ import annotations

import os
import warnings
from typing import Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

import pyarrow as pa

from . import _stopgate

__all__ = [
    "Scan",
    "scan",
    "scan_paths",
    "scan_bytes",
    "list_files",
    "group_by_bytes",
    "TURN_SCHEMA",
    "FILE_SCHEMA",
    "__version__",
]

__version__ = _stopgate.__version__

PathLike = Union[str, "os.PathLike[str]"]


class Scan(NamedTuple):
    """Both tables of one scan."""

    turns: pa.Table
    """One row per turn (``TURN_SCHEMA``)."""
    files: pa.Table
    """One row per file scanned (``FILE_SCHEMA``)."""


def _paths(paths: Union[PathLike, Iterable[PathLike]]) -> list:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def scan(
    paths: Union[PathLike, Iterable[PathLike]],
    *,
    config: Optional[PathLike] = None,
    threads: Optional[int] = None,
    all_turns: bool = True,
    listed: bool = False,
) -> Scan:
    """Scan the ``*.jsonl`` files under ``paths`` (files or folders).

    ``config`` is a ``stopgate.toml`` (default: the built-in gates);
    ``threads`` defaults to the number of cores; with ``all_turns=False``
    only turns with findings are kept, as ``stopgate scan --format jsonl``.
    With ``listed=True``, ``paths`` are files as ``list_files`` gave them,
    scanned as they are: one that has gone since is a row of ``files``
    with its error, not an exception (the engines' adapters scan so). The
    GIL is released while the files are scanned; both tables are built
    whole, in memory.

    Raises ``FileNotFoundError`` when a path (or the config) does not
    exist, ``ValueError`` when the config is not valid. A file that cannot
    be read is not an error: its row in ``files`` says why, and so does a
    row with an empty ``file`` for a folder the walk could not read.
    """
    turns, files = _stopgate.scan_paths(
        _paths(paths),
        config=None if config is None else os.fspath(config),
        threads=threads,
        all_turns=all_turns,
        listed=listed,
    )
    return Scan(_table(turns), _table(files))


def scan_paths(
    paths: Union[PathLike, Iterable[PathLike]],
    *,
    config: Optional[PathLike] = None,
    threads: Optional[int] = None,
) -> pa.RecordBatchReader:
    """Every turn under ``paths``, as ``stopgate scan --all-turns``: a
    ``pyarrow.RecordBatchReader`` of ``TURN_SCHEMA``, over batches built
    whole before it is returned (scan an archive in groups of files, as
    the engines' adapters do, to bound memory). See ``scan``."""
    turns, _ = _stopgate.scan_paths(
        _paths(paths),
        config=None if config is None else os.fspath(config),
        threads=threads,
        all_turns=True,
    )
    return pa.RecordBatchReader.from_stream(turns)


def scan_bytes(
    name: str,
    data: bytes,
    *,
    config: Optional[PathLike] = None,
    all_turns: bool = True,
) -> Scan:
    """Scan one transcript held in memory. ``name`` stands for its path: it
    names the rows and decides the session (``<session>.jsonl``). The
    subagents it launched are looked for on disk beside ``name``, as for a
    file; none are found when ``name`` is no real path."""
    turns, files = _stopgate.scan_bytes(
        os.fspath(name),
        bytes(data),
        config=None if config is None else os.fspath(config),
        all_turns=all_turns,
    )
    return Scan(_table(turns), _table(files))


def list_files(paths: Union[PathLike, Iterable[PathLike]]) -> List[Tuple[str, int]]:
    """The ``*.jsonl`` files under ``paths`` as the scan walks them (in path
    order, directory symlinks not followed), each with its size in bytes.

    Raises ``FileNotFoundError`` when a path does not exist; an entry that
    cannot be read (a folder without permission) is a ``RuntimeWarning``
    naming it, and is left out."""
    files, errors = _stopgate.list_files(_paths(paths))
    for error in errors:
        warnings.warn(f"stopgate: not scanned: {error}", RuntimeWarning, stacklevel=2)
    return [(os.fspath(p), n) for p, n in files]


def group_by_bytes(
    files: Sequence[Tuple[str, int]], target_bytes: int = 128 << 20
) -> List[List[str]]:
    """Cut ``files`` (as ``list_files`` gives them) into groups of about
    ``target_bytes`` each, keeping their order: one group per partition or
    task. A file larger than the target is a group of its own."""
    groups: List[List[str]] = []
    size = 0
    for path, n in files:
        if not groups or (size > 0 and size + n > target_bytes):
            groups.append([])
            size = 0
        groups[-1].append(path)
        size += n
    return groups


def _driver_paths(paths, config=None):
    """``paths`` (a comma-separated string, or a list) and ``config``, made
    absolute on the driver: an engine's workers run in folders of their
    own. Used by the Spark and Ray adapters."""
    if isinstance(paths, str):
        paths = paths.split(",")
    paths = [os.path.abspath(os.fspath(p).strip()) for p in paths if os.fspath(p).strip()]
    return paths, (os.path.abspath(os.fspath(config)) if config else None)


def _table(rows) -> pa.Table:
    return pa.RecordBatchReader.from_stream(rows).read_all()


def _schema(rows) -> pa.Schema:
    return pa.RecordBatchReader.from_stream(rows).schema


TURN_SCHEMA: pa.Schema = _schema(_stopgate.scan_bytes("schema.jsonl", b"")[0])
"""The turns table's columns: see the README's "Scanning a fleet"."""
FILE_SCHEMA: pa.Schema = _schema(_stopgate.scan_bytes("schema.jsonl", b"")[1])
"""The files table's columns."""
