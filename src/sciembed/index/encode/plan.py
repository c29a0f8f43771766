"""Shards of a corpus: consecutive row ranges of ``papers.parquet`` fixed by their number alone (so every run,
process or machine cuts the same shards), read back with pyarrow."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sciembed.papers.io import damaged_corpus, is_arrow_read_error
from sciembed.papers.model import Paper


@dataclass(frozen=True, slots=True)
class Shard:
    number: int
    start: int  # first row of papers.parquet
    end: int  # one past the last row

    @property
    def name(self) -> str:
        return f"shard-{self.number:05d}"


def plan_shards(total_rows: int, shard_papers: int) -> list[Shard]:
    """Every shard of a table of `total_rows` papers (the last one may be shorter)."""
    if shard_papers <= 0:
        raise ValueError(f"shard_papers must be positive, got {shard_papers}")
    return [Shard(n, start, min(start + shard_papers, total_rows))
            for n, start in enumerate(range(0, total_rows, shard_papers))]


def read_rows(papers_path: str | Path, start: int, end: int) -> list[Paper]:
    """Papers of rows ``[start, end)``; only the row groups that the range touches are read."""
    try:
        parquet = pq.ParquetFile(papers_path)
        groups, first, offset = [], None, 0
        for i in range(parquet.metadata.num_row_groups):
            rows = parquet.metadata.row_group(i).num_rows
            if offset < end and offset + rows > start:
                groups.append(i)
                first = offset if first is None else first
            offset += rows
        if not groups or first is None:
            return []
        table = parquet.read_row_groups(groups).slice(start - first, end - start)
    except (pa.ArrowException, OSError) as err:
        if not is_arrow_read_error(err):
            raise
        raise damaged_corpus(papers_path, err) from err
    return [Paper.from_dict(row) for row in table.to_pylist()]
