"""The DuckDB connection the corpus builder runs on: all joins and counts happen inside DuckDB, so a corpus
larger than memory spills to `temp_dir` instead of failing; Python only sees aggregate counts."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb


def sql_str(value: str | Path) -> str:
    """A SQL string literal (paths and seeds go into table-function arguments)."""
    return "'" + str(value).replace("'", "''") + "'"


def run(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> None:
    """Run a statement to its end (DuckDB 2 keeps a query's rows pending until they are read)."""
    con.execute(sql, params or []).fetchall()


@contextmanager
def connect(threads: int, memory_limit: str, temp_dir: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory database that spills to `temp_dir` beyond `memory_limit`."""
    temp_dir.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(":memory:", config={"threads": threads, "memory_limit": memory_limit,
                                             "temp_directory": str(temp_dir), "preserve_insertion_order": False})
    run(con, "SET enable_progress_bar = false")
    try:
        yield con
    finally:
        con.close()


def scalar(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> Any:
    rows = con.execute(sql, params or []).fetchall()  # fetchall: a DuckDB 2 result must be read to its end
    return rows[0][0] if rows else None


def counts(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> dict[str, int]:
    """`SELECT reason, count` rows as a dict with zero-count reasons omitted, sorted by reason."""
    rows = con.execute(sql, params or []).fetchall()
    return {str(k): int(v) for k, v in sorted(rows, key=lambda r: str(r[0])) if v}
