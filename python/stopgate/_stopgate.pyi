"""Typed stubs of the native half of the ``stopgate`` package."""

from typing import List, Optional, Tuple

__version__: str

class Rows:
    """One table of a scan's rows, taken once through the Arrow C stream
    interface (``pyarrow.RecordBatchReader.from_stream(rows)``)."""

    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...

def scan_paths(
    paths: List[str],
    *,
    config: Optional[str] = None,
    threads: Optional[int] = None,
    all_turns: bool = True,
    listed: bool = False,
) -> Tuple[Rows, Rows]:
    """The turns and the files of a scan of ``paths``."""

def scan_bytes(
    name: str,
    data: bytes,
    *,
    config: Optional[str] = None,
    all_turns: bool = True,
) -> Tuple[Rows, Rows]:
    """The turns and the file's row of a transcript held in memory."""

def list_files(paths: List[str]) -> Tuple[List[Tuple[str, int]], List[str]]:
    """The ``*.jsonl`` files under ``paths``, in path order, with their sizes;
    and the entries that could not be read, with why."""
