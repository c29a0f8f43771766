"""The last line of defence of the `sciembed` command: damaged files and full disks get one message, exit 2.

Commands turn the input problems they expect into messages themselves; what
remains are damaged files deep in a stage (a truncated or bit-flipped
Parquet file, a corrupt SQLite cache) and an environment that fails under
the run (a full disk, a directory made read-only). Those must not end in a
traceback either.
"""

from __future__ import annotations

import errno
import sqlite3
import sys
from typing import Any

import typer

DISK_ERRORS = {errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EDQUOT, errno.EPERM, errno.EIO}


def data_error_message(err: BaseException) -> str | None:
    """A one-line message for a damaged file or a failing disk; None for anything else (a real bug)."""
    import duckdb
    import pyarrow as pa

    if isinstance(err, OSError) and err.errno in DISK_ERRORS:
        where = f" ({err.filename})" if err.filename else ""
        return f"cannot write or read a file{where}: {err.strerror}"
    if isinstance(err, pa.ArrowException):
        return f"a Parquet / Arrow file is damaged or not what it should be: {err}"
    if isinstance(err, duckdb.Error):
        return f"DuckDB could not read its input (a damaged or unexpected file?): {str(err).splitlines()[0]}"
    if isinstance(err, sqlite3.DatabaseError):
        return f"an SQLite file (embedding or LLM cache) is damaged: {err}"
    return None


class GuardedTyper(typer.Typer):
    """A Typer app whose entry point prints `data_error_message` and exits 2 instead of a traceback."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except Exception as err:
            message = data_error_message(err)
            if message is None:
                raise
            print(f"error: {message}", file=sys.stderr)
            sys.exit(2)
