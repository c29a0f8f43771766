"""Line-exact CSV/TSV edge reading, used when DuckDB's reader did not account for every line.

In DuckDB's reader one unterminated `"` swallows the rest of a file uncounted; edge files never hold multi-line
values, so when the physical lines do not add up the file is read again one line at a time (strict `csv`), and
a broken quote costs exactly its own line (malformed_line).
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import duckdb
import pyarrow as pa

_BATCH = 200_000


def count_data_lines(stream: IO[bytes]) -> int:
    """Non-blank lines after the header (what DuckDB's accepted + rejected rows must add up to)."""
    next(stream, None)
    return sum(1 for raw in stream if raw.strip())


def _rows(stream: IO[bytes], delim: str, a: int, b: int) -> Iterator[tuple[int, str | None, str | None, str | None]]:
    """(line, citing, cited, problem) per non-blank physical line after the header."""
    next(stream, None)
    for line_no, raw in enumerate(stream, start=2):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError as err:
            yield line_no, None, None, f"invalid UTF-8 at byte {err.start}"
            continue
        try:
            fields = next(csv.reader([text], delimiter=delim, strict=True))
        except csv.Error as err:
            yield line_no, None, None, f"malformed CSV line: {err}"
            continue
        if len(fields) <= max(a, b):
            yield line_no, None, None, f"expected at least {max(a, b) + 1} columns, found {len(fields)}"
            continue
        yield line_no, fields[a], fields[b], None


def load_line_by_line(con: duckdb.DuckDBPyConnection, stream: IO[bytes], delim: str, a: int, b: int
                      ) -> list[tuple[int, str]]:
    """Rebuild table `edge_lines` from physical lines; returns the malformed (line, why) pairs."""
    con.execute("""CREATE OR REPLACE TEMP TABLE edge_lines
                   (line_no BIGINT, citing VARCHAR, citing_t VARCHAR, cited VARCHAR, cited_t VARCHAR)""")
    malformed: list[tuple[int, str]] = []
    batch: list[tuple[int, str, str]] = []

    def flush() -> None:
        if batch:
            lines, citing, cited = zip(*batch, strict=True)
            table = pa.table({"line_no": pa.array(lines, pa.int64()), "citing": pa.array(citing, pa.string()),
                              "cited": pa.array(cited, pa.string())})
            con.register("csv_batch", table)
            con.execute("INSERT INTO edge_lines SELECT line_no, citing, 'VARCHAR', cited, 'VARCHAR' FROM csv_batch")
            con.unregister("csv_batch")
            batch.clear()

    for line_no, citing, cited, problem in _rows(stream, delim, a, b):
        if problem is not None:
            malformed.append((line_no, problem))
            continue
        batch.append((line_no, citing or "", cited or ""))
        if len(batch) >= _BATCH:
            flush()
    flush()
    return malformed


def needs_line_by_line(con: duckdb.DuckDBPyConnection, path: Path, opener, malformed: int) -> bool:
    """Whether DuckDB's rows + rejected lines fall short of the file's non-blank data lines."""
    rows = int(con.execute("SELECT count(*) FROM edge_lines").fetchone()[0])
    with opener(path) as stream:
        return count_data_lines(stream) != rows + malformed
