"""Writing a built corpus's Parquet files in a fixed row order, so the same input gives the same bytes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sciembed.corpus.engine import run, scalar, sql_str
from sciembed.papers.io import PAPER_SCHEMA

PAIRS_SCHEMA = pa.schema([("paper_a", pa.string()), ("paper_b", pa.string()), ("domain", pa.string()),
                          ("split", pa.string())])
CITATIONS_SCHEMA = pa.schema([("citing", pa.string()), ("cited", pa.string()), ("split", pa.string())])


def write_pairs_and_splits(con: duckdb.DuckDBPyConnection, out_dir: Path) -> None:
    """Pairs sorted by (paper_a, paper_b), citations by (citing, cited), splits by paper id. Edges are sorted on
    their integer keys (`pk` follows id order) and mapped back to ids with an Arrow `take` (twice as fast)."""
    ids = con.sql("SELECT id FROM papers ORDER BY pk").to_arrow_table().column("id").combine_chunks()
    run(con, "SET preserve_insertion_order = true")
    try:
        for name, sql, schema in (
                ("pairs", "SELECT a - 1, b - 1, domain, split FROM pairs ORDER BY a, b", PAIRS_SCHEMA),
                ("citations", "SELECT citing - 1, cited - 1, split FROM citations ORDER BY citing, cited",
                 CITATIONS_SCHEMA)):
            with pq.ParquetWriter(out_dir / f"{name}.parquet", schema, compression="zstd") as writer:
                for batch in con.sql(sql).to_arrow_reader():  # two key columns, then strings
                    columns = [ids.take(c) if i < 2 else c.cast(pa.string()) for i, c in enumerate(batch.columns)]
                    writer.write_table(pa.Table.from_arrays(columns, schema=schema))
    finally:
        run(con, "SET preserve_insertion_order = false")
    run(con, f"""COPY (SELECT p.id AS paper_id, s.split, x.domain, s.anchor
                  FROM paper_split s JOIN alive x USING (pk) JOIN papers p USING (pk) ORDER BY s.pk)
            TO {sql_str(out_dir / "splits.parquet")} (FORMAT parquet, COMPRESSION zstd)""")


def write_papers(con: duckdb.DuckDBPyConnection, source: Path, target: Path,
                 on_rows: Callable[[int, int], None] | None = None) -> int:
    """Copy the surviving papers (input order, PAPER_SCHEMA) with `domain` set, one record batch at a time;
    `on_rows(done, total)` is called after each batch with the input rows read so far."""
    kept = con.sql("SELECT p.row_no, x.domain FROM alive x JOIN papers p USING (pk) ORDER BY p.row_no").to_arrow_table()
    rows = kept.column("row_no").to_numpy()
    domains = kept.column("domain").cast(pa.string())
    parquet = pq.ParquetFile(source)
    domain_index = PAPER_SCHEMA.get_field_index("domain")
    total = parquet.metadata.num_rows
    written = start = 0
    with pq.ParquetWriter(target, PAPER_SCHEMA, compression="zstd") as writer:
        for batch in parquet.iter_batches(batch_size=8192):
            lo, hi = np.searchsorted(rows, [start, start + batch.num_rows])
            if hi > lo:
                table = pa.Table.from_batches([batch.take(pa.array(rows[lo:hi] - start))])
                for name in PAPER_SCHEMA.names:  # a column added to the schema after the source was written
                    if name not in table.column_names:
                        table = table.append_column(PAPER_SCHEMA.field(name), pa.nulls(table.num_rows,
                                                                                        PAPER_SCHEMA.field(name).type))
                table = table.select(PAPER_SCHEMA.names).cast(PAPER_SCHEMA)
                table = table.set_column(domain_index, PAPER_SCHEMA.field("domain"), domains.slice(lo, hi - lo))
                writer.write_table(table)
                written += hi - lo
            start += batch.num_rows
            if on_rows is not None:
                on_rows(start, total)
    expected = int(scalar(con, "SELECT count(*) FROM alive"))
    if written != expected:
        raise AssertionError(f"papers.parquet: wrote {written} papers, the funnel kept {expected}")
    return written
