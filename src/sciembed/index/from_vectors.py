"""A paper index of one view kind built from a vectors directory (`sciembed encode`), in bounded memory.

The shards are read three times (ids and kinds, a seeded training sample, the vectors to add), so memory holds
one shard, the sample and the index, never every vector. A paper without views of the kind is indexed by its
title+abstract vector when ``ta`` was encoded (``ta_fallback``), as `sciembed index build` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from sciembed.index.encode.store import VectorsError, iter_shard_tables, read_vectors_manifest, vectors_of
from sciembed.index.indexed_views import IndexCounts
from sciembed.papers.io import PAPERS_FILE
from sciembed.retrieval.ann import default_params
from sciembed.retrieval.multivector import MultiVectorIndex
from sciembed.views.kinds import IndexView


def _taken(table: pa.Table, view: str) -> np.ndarray:
    """Rows of one shard the index takes: `view` rows, and ta rows of papers that have no `view` row."""
    own = pc.equal(table.column("kind"), view)
    if view == IndexView.TA:
        return np.asarray(own.to_numpy(zero_copy_only=False), dtype=bool)
    with_view = pc.unique(pc.filter(table.column("paper_id"), own))
    fallback = pc.and_(pc.equal(table.column("kind"), IndexView.TA.value),
                       pc.invert(pc.is_in(table.column("paper_id"), value_set=with_view)))
    return np.asarray(pc.or_(own, fallback).to_numpy(zero_copy_only=False), dtype=bool)


def choose_view(manifest: dict[str, Any], view: str | None) -> str:
    kinds = manifest["views"]
    if view is None and len(kinds) == 1:
        return kinds[0]
    if view is None or view not in kinds:
        given = "no --view" if view is None else f"--view {view!r}"
        raise VectorsError(f"{given}: these vectors hold {', '.join(kinds)}; pick one with --view")
    return view


def index_from_vectors(vectors: Path, view: str, *, index_kind: str = "flat", ann: dict[str, Any] | None = None,
                       aggregate: str = "max", metric: str | None = None,
                       seed: int = 0) -> tuple[MultiVectorIndex, IndexCounts, dict[str, str]]:
    """The `view` rows of a finished vectors directory in a `MultiVectorIndex` of `index_kind` (trained on a
    seeded sample), the papers' counts and the indexed papers' titles."""
    manifest = read_vectors_manifest(vectors)
    encoder = manifest["encoder"]
    dim, metric = int(manifest["dim"]), metric or encoder.get("metric", "cosine")
    counts = IndexCounts(read=int(manifest["counts"]["papers"]))
    sizes = []
    for table in iter_shard_tables(vectors, columns=["paper_id", "kind"]):
        taken = _taken(table, view)
        sizes.append(int(taken.sum()))
        ids = pc.filter(table, pa.array(taken)).to_pydict()
        papers_own = {p for p, k in zip(ids["paper_id"], ids["kind"], strict=True) if k == view}
        counts.indexed += len(papers_own)
        counts.ta_fallback += len(set(ids["paper_id"]) - papers_own)
    counts.views = sum(sizes)
    counts.rejected = counts.read - counts.indexed - counts.ta_fallback
    if not counts.views:
        raise VectorsError(f"{vectors}: none of {counts.read} papers has {view} vectors (or title+abstract ones) "
                           "to index")
    params = default_params(index_kind, counts.views, dim, **(ann or {}))
    index = MultiVectorIndex(dim, metric, aggregate, params)
    if not index.dense.is_trained:
        index.dense.train(_training_sample(vectors, view, sizes, params.train_size or 50_000, seed))
    for table in iter_shard_tables(vectors, columns=["paper_id", "kind", "vector"]):
        taken = pc.filter(table, pa.array(_taken(table, view)))
        if taken.num_rows:
            index.add(taken.column("paper_id").to_pylist(), vectors_of(taken))
    return index, counts, _titles(Path(manifest["corpus"]), set(index.papers))


def _training_sample(vectors: Path, view: str, sizes: list[int], size: int, seed: int) -> np.ndarray:
    """`size` of the taken rows drawn uniformly (seeded) across shards, read one shard at a time."""
    total = sum(sizes)
    picks = np.sort(np.random.default_rng(seed).choice(total, min(size, total), replace=False))
    parts, start = [], 0
    for table, n in zip(iter_shard_tables(vectors, columns=["paper_id", "kind", "vector"]), sizes, strict=True):
        local = picks[(picks >= start) & (picks < start + n)] - start
        if len(local):
            parts.append(vectors_of(pc.filter(table, pa.array(_taken(table, view))))[local])
        start += n
    return np.concatenate(parts)


def _titles(corpus: Path, wanted: set[str]) -> dict[str, str]:
    """Titles of the indexed papers, read from the corpus's id and title columns only."""
    path = corpus / PAPERS_FILE
    if not path.is_file():
        raise VectorsError(f"{path}: the corpus these vectors were encoded from is not there (titles come from it)")
    titles: dict[str, str] = {}
    for batch in pq.ParquetFile(path).iter_batches(columns=["id", "title"], batch_size=10_000):
        for pid, title in zip(batch.column("id").to_pylist(), batch.column("title").to_pylist(), strict=True):
            if pid in wanted:
                titles[pid] = title
    return titles
