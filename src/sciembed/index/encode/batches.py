"""Shards of a corpus and what one shard encodes.

A shard is a consecutive row range of ``papers.parquet`` fixed by its number alone (so every run, process or
machine cuts the same shards). Its views (kinds in the order asked) are cut into batches sorted by text length
(little padding; a function of the shard alone, so one process and a Ray actor pool write the same vectors).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from sciembed.papers.io import reading_corpus
from sciembed.papers.model import Paper
from sciembed.views.kinds import IndexView, paper_views
from sciembed.views.segment import DEFAULT_SEGMENT_TOKENS


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
    with reading_corpus(papers_path):
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
    return [Paper.from_dict(row) for row in table.to_pylist()]


# every kind a dense index takes (full text is BM25's)
ENCODE_KINDS = tuple(v.value for v in IndexView if v is not IndexView.FULLTEXT)


@dataclass(frozen=True, slots=True)
class ViewSpec:
    """How views are cut: kinds in order, window target words, segment, chunk and section-piece tokens, and
    whether a paper with none of those views gets its title+abstract instead (`index build`'s ``ta_fallback``)."""

    kinds: tuple[str, ...]
    target: int
    segment_tokens: int = DEFAULT_SEGMENT_TOKENS
    chunk_tokens: int = 512
    piece_tokens: int | None = None  # sections cut into pieces of at most this many tokens (None: whole sections)
    ta_fallback: bool = False


@dataclass(frozen=True, slots=True)
class ViewRow:
    """One view to encode; `position` is its row in the shard's output (paper order, then kind, then view)."""

    position: int
    paper_id: str
    view_id: str  # "<paper id>:<kind>:<n>", n counting the paper's views of that kind from 0
    kind: str
    section: int | None
    start: int | None
    end: int | None
    text: str


@dataclass(frozen=True, slots=True)
class ShardViews:
    rows: list[ViewRow]
    papers: int
    papers_with_views: int


def check_kinds(kinds: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The kinds, each once, in the order given; an unknown one is an error naming the known ones."""
    unknown = [k for k in kinds if k not in ENCODE_KINDS]
    if unknown or not kinds:
        raise ValueError(f"--views {','.join(kinds)!r}: expected a comma-separated list of {', '.join(ENCODE_KINDS)}")
    return tuple(dict.fromkeys(kinds))


def shard_views(papers: list[Paper], spec: ViewSpec) -> ShardViews:
    rows: list[ViewRow] = []
    with_views = 0

    def add(paper: Paper, kind: str) -> None:
        views = paper_views(paper, kind, spec.target, segment_tokens=spec.segment_tokens,
                            chunk_tokens=spec.chunk_tokens, piece_tokens=spec.piece_tokens)
        rows.extend([ViewRow(len(rows) + i, paper.id, f"{paper.id}:{kind}:{i}", kind, v.section, v.start, v.end,
                             v.text) for i, v in enumerate(views)])

    for paper in papers:
        before = len(rows)
        for kind in spec.kinds:
            add(paper, kind)
        if spec.ta_fallback and len(rows) == before:
            add(paper, IndexView.TA.value)  # none of the views: its title+abstract, if it has one
        with_views += len(rows) > before
    return ShardViews(rows, len(papers), with_views)


def length_batches(rows: list[ViewRow], batch_size: int) -> list[list[ViewRow]]:
    """The rows longest text first (ties in view order), in batches of `batch_size`."""
    if batch_size <= 0:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    ordered = sorted(rows, key=lambda r: (-len(r.text), r.position))
    return [ordered[i : i + batch_size] for i in range(0, len(ordered), batch_size)]


def encode_batch(encoder: Any, batch: list[ViewRow]) -> np.ndarray:
    """One forward pass over one batch (the batch is already sorted by length)."""
    if not batch:
        return np.zeros((0, encoder.dim), np.float32)
    return encoder.encode([r.text for r in batch], batch_size=len(batch), show_progress=False)


def shard_batches(papers_path: str | Path, shard: Shard, spec: ViewSpec, batch_size: int
                  ) -> tuple[list[list[ViewRow]], dict[str, Any]]:
    """A shard's views in length-sorted batches (one empty batch if none), and what the shard's file records
    about it: its papers and its views by kind."""
    views = shard_views(read_rows(papers_path, shard.start, shard.end), spec)
    return length_batches(views.rows, batch_size) or [[]], {
        "papers": views.papers, "papers_with_views": views.papers_with_views,
        "by_kind": dict(Counter(row.kind for row in views.rows))}
