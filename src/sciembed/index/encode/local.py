"""Encoding shards in this process: one shard at a time, its length-sorted batches one forward pass each."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.index.encode.batches import ViewRow, ViewSpec, length_batches, shard_views
from sciembed.index.encode.plan import Shard, read_rows
from sciembed.index.encode.store import write_shard


def encode_batch(encoder: Any, batch: list[ViewRow]) -> np.ndarray:
    """One forward pass over one batch (the batch is already sorted by length)."""
    if not batch:
        return np.zeros((0, encoder.dim), np.float32)
    return encoder.encode([r.text for r in batch], batch_size=len(batch), show_progress=False)


def shard_info(views: Any, base: dict[str, Any]) -> dict[str, Any]:
    """What a shard's file records about it: its papers and its views by kind."""
    return {**base, "papers": views.papers, "papers_with_views": views.papers_with_views,
            "by_kind": dict(Counter(row.kind for row in views.rows))}


def run_local(papers_path: Path, out: Path, shards: list[Shard], spec: ViewSpec, encoder: Any, batch_size: int,
              base: dict[str, Any], advance: Callable[[int], None]) -> None:
    """Encode and write every shard in `shards`, in order."""
    for shard in shards:
        views = shard_views(read_rows(papers_path, shard.start, shard.end), spec)
        batches = length_batches(views.rows, batch_size)
        rows = [r for batch in batches for r in batch]
        parts = [encode_batch(encoder, batch) for batch in batches]
        vectors = np.concatenate(parts) if parts else np.zeros((0, encoder.dim), np.float32)
        write_shard(out, shard, rows, vectors, shard_info(views, base))
        advance(shard.end - shard.start)
