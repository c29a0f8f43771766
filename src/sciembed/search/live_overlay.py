"""Papers added to a served collection after its fusion companions were built: scored beside each snapshot.

`FusedPaperSearch` keeps one overlay per companion for the live papers (their text: `Catalog.live_papers`),
scored as the snapshot scores (BM25 weights under the snapshot's statistics; dense vectors in a small exact
index) and merged with the snapshot's list by score; a live paper replaces its snapshot entry. See
docs/service.md, "Live papers and the fusion companions".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from sciembed.index.catalog import TEXT_LIMIT
from sciembed.index.indexed_views import index_views
from sciembed.papers.model import Paper
from sciembed.retrieval.multivector import MultiVectorIndex
from sciembed.retrieval.ties import ordered
from sciembed.search.runs import Ranking
from sciembed.views import View

if TYPE_CHECKING:
    from scipy import sparse

    from sciembed.index.collection import Collection
    from sciembed.search.runs import Run


def companion_views(one: Run, paper: Paper) -> list[View]:
    """The views `paper` would have in the companion `one` (cut as its build cut them)."""
    manifest = one.manifest
    sizes: dict[str, Any] = {k: manifest[k] for k in ("piece_tokens", "segment_tokens") if manifest.get(k)}
    if (chunk := (manifest.get("encoder") or {}).get("max_seq_length")) and one.kind != "bm25":
        sizes["chunk_tokens"] = chunk
    views, _ = index_views(paper, manifest["view"], manifest.get("target_words") or 0, **sizes)
    return views


def merge(snapshot: Ranking, overlay: Ranking, live: set[str] | dict[str, Any], depth: int) -> Ranking:
    """The snapshot's ranking without the papers the overlay holds (their snapshot entry is stale), plus the
    overlay's, best first."""
    return ordered([(d, s) for d, s in snapshot if d not in live] + overlay)[:depth]


class BM25Overlay:
    """Live papers' BM25 weights under a snapshot BM25 companion's statistics (see the module docstring)."""

    def __init__(self, one: Run) -> None:
        self.one = one
        self.bm25 = one.index.bm25  # the companion's `BM25Index`
        self.papers: dict[str, list[int]] = {}  # paper id -> its rows in `_matrix`
        self._ids: list[str] = []  # paper id per row ("" once removed: rows are never reused)
        self._matrix: sparse.csr_matrix | None = None

    def put(self, papers: list[Paper]) -> None:
        from scipy import sparse

        self.remove([p.id for p in papers])
        new = []
        for paper in papers:
            texts = [v.text for v in companion_views(self.one, paper)]
            if not texts:
                continue
            new.append(self.bm25.term_weights(texts))
            self.papers[paper.id] = list(range(len(self._ids), len(self._ids) + len(texts)))
            self._ids += [paper.id] * len(texts)
        if new:  # one copy per call (a start takes in every live paper at once)
            self._matrix = sparse.vstack(([] if self._matrix is None else [self._matrix]) + new, format="csr")

    def remove(self, ids: list[str]) -> None:
        for pid in ids:
            for i in self.papers.pop(pid, []):
                self._ids[i] = ""

    def query_text(self, paper: Paper) -> str:
        return "\n".join(v.text for v in companion_views(self.one, paper))

    def search(self, text: str, depth: int, exclude: Sequence[str]) -> Ranking:
        if self._matrix is None or not self.papers or not text.strip():
            return []
        counts, base = self.bm25.query_counts([text])
        scores = (counts @ self._matrix.T).toarray()[0] + base[0]
        best: dict[str, float] = {}
        for i in np.flatnonzero(scores > 0):
            pid = self._ids[i]
            if pid and pid not in exclude:
                best[pid] = max(best.get(pid, 0.0), float(scores[i]))
        return ordered(best.items())[:depth]


class DenseOverlay:
    """Live papers' vectors for a dense companion, in a small exact index of the companion's metric."""

    def __init__(self, one: Run) -> None:
        self.one = one
        self.index = MultiVectorIndex(one.index.dim, one.index.metric, one.index.aggregate)
        self.papers: dict[str, int] = {}  # paper id -> views

    def vectors(self, collection: Collection, paper: Paper) -> np.ndarray | None:
        """The paper's view vectors for this companion: the served collection's where it holds the same views,
        else encoded by the served encoder; None when the companion's encoder is another."""
        views = companion_views(self.one, paper)
        if not views or self.one.index.fingerprint != getattr(collection.encoder, "fingerprint", None):
            return None
        with collection._lock.read():
            rows = collection.index.dense.rows_of(paper.id)
            served = {(v.kind, v.text): v.row for v in collection.catalog.views(rows).values()}
            found = [served.get((str(v.kind), v.text[:TEXT_LIMIT])) for v in views]
            if all(r is not None for r in found):
                return collection.index.dense.vectors(found)
        return collection.encode([v.text for v in views], shed=False)

    def put(self, papers: list[Paper], vectors: dict[str, np.ndarray | None]) -> None:
        self.remove([p.id for p in papers])
        ids, rows = [], []
        for paper in papers:
            found = vectors.get(paper.id)
            if found is not None and len(found):
                ids += [paper.id] * len(found)
                rows.append(found)
                self.papers[paper.id] = len(found)
        if rows:
            self.index.add(ids, np.concatenate(rows))

    def remove(self, ids: list[str]) -> None:
        for pid in ids:
            if self.papers.pop(pid, None) is not None:
                self.index.remove_rows(self.index.dense.rows_of(pid))

    def search(self, vectors: np.ndarray, depth: int, method: str, exclude: Sequence[str]) -> Ranking:
        if not self.papers or vectors is None or not len(vectors):
            return []
        return [(pid, score) for pid, score, _ in self.index.search_views(vectors, depth, method, exclude=exclude)]
