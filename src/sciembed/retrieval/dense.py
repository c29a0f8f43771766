"""Exact dense search with faiss, string ids, query-paper exclusion, and checked save/load.

Cosine is inner product over L2-normalised vectors (`IndexFlatIP`); l2 is
`IndexFlatL2`, reported as negative Euclidean distance so that every index
in sciembed ranks "higher is better". Ids need not be unique (a paper can own
several vectors); excluding an id removes all of its rows while still
returning k hits.

Vectors live in a faiss flat index (storage, serialisation, batched search).
A handful of queries is answered by one BLAS matrix product over that same
storage (zero-copy) plus `argpartition`: for a single query faiss' flat
scan was 2-4× slower on the 2-core reference machine under load (top-100 over
100k × 384, interleaved: p50 33 ms against 12 ms; benchmarks/search.py,
results/search.json). Both paths are exact and give the same ranking (equal
scores: row order in the matrix path, faiss order otherwise).

On disk an index is a directory: ``index.faiss``, ``ids.json`` and
``meta.json`` (dim, metric, count, encoder fingerprint, sha256 of the two
data files). Loading verifies all of it, so a truncated file or an index
built by another encoder is refused instead of returning wrong neighbours.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.ioutil.checksums import seal, seal_problem
from sciembed.retrieval.hits import Hits, check_exclude

METRICS = ("cosine", "l2")
SMALL_BATCH = 16  # up to this many queries take the matrix-product path
FORMAT_VERSION = 1


class IndexLoadError(ValueError):
    """An index on disk is damaged, or does not belong to the encoder asking."""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def as_matrix(vectors: np.ndarray, dim: int, what: str = "vectors") -> np.ndarray:
    """A C-contiguous float32 (n, dim) copy-or-view; one error for a wrong shape or non-finite values."""
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2 or array.shape[1] != dim:
        raise ValueError(f"{what}: expected shape (n, {dim}), got {tuple(np.shape(vectors))}")
    bad = ~np.isfinite(array).all(axis=1)
    if bad.any():
        rows = np.flatnonzero(bad)
        raise ValueError(f"{what}: {len(rows)} of {len(array)} rows hold NaN/inf (first rows {rows[:5].tolist()})")
    return np.ascontiguousarray(array)


class DenseIndex:
    """Exact faiss index over string-identified vectors."""

    def __init__(self, dim: int, metric: str = "cosine") -> None:
        import faiss

        if metric not in METRICS:
            raise ValueError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}")
        if dim <= 0:
            raise ValueError(f"dim must be positive, got {dim}")
        self.dim = dim
        self.metric = metric
        self.fingerprint: str | None = None
        self._index = faiss.IndexFlatIP(dim) if metric == "cosine" else faiss.IndexFlatL2(dim)
        self._ids: list[str] = []
        self._rows_of: dict[str, list[int]] = {}
        self._sqnorms: np.ndarray | None = None  # squared norms of stored rows (l2 matrix path)

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def ids(self) -> list[str]:
        """Row ids in insertion order (a copy)."""
        return list(self._ids)

    def _prepare(self, vectors: np.ndarray, what: str) -> np.ndarray:
        import faiss

        array = as_matrix(vectors, self.dim, what).copy()
        if self.metric == "cosine":
            faiss.normalize_L2(array)
        return array

    def add(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        ids = list(ids)
        array = self._prepare(vectors, "add()")
        if len(ids) != len(array):
            raise ValueError(f"add(): {len(ids)} ids but {len(array)} vectors")
        bad = [i for i, x in enumerate(ids) if not isinstance(x, str) or not x]
        if bad:
            raise ValueError(f"add(): {len(bad)} ids are not non-empty strings (positions {bad[:5]})")
        self._index.add(array)
        for row, key in enumerate(ids, start=len(self._ids)):
            self._rows_of.setdefault(key, []).append(row)
        self._ids.extend(ids)

    def rows_of(self, key: str) -> list[int]:
        return list(self._rows_of.get(key, ()))

    def vectors(self, rows: Sequence[int]) -> np.ndarray:
        """Stored vectors of `rows` (normalised for cosine)."""
        if not len(rows):
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._index.reconstruct_batch(np.asarray(rows, dtype=np.int64))

    def matrix(self) -> np.ndarray:
        """All stored vectors as a zero-copy (len, dim) view; valid until the next `add`."""
        import faiss

        if not len(self):
            return np.zeros((0, self.dim), dtype=np.float32)
        return faiss.rev_swig_ptr(self._index.get_xb(), len(self) * self.dim).reshape(len(self), self.dim)

    def all_scores(self, queries: np.ndarray) -> np.ndarray:
        """(n_queries, len) scores against every row, same scale as `search` (for exact aggregation)."""
        return self._scores(self._prepare(queries, "all_scores()"))

    def _scores(self, prepared: np.ndarray) -> np.ndarray:
        stored = self.matrix()
        dots = prepared @ stored.T
        if self.metric == "cosine":
            return dots
        if self._sqnorms is None or len(self._sqnorms) != len(stored):
            self._sqnorms = np.einsum("ij,ij->i", stored, stored)
        sq = np.einsum("ij,ij->i", prepared, prepared)[:, None] + self._sqnorms[None, :] - 2 * dots
        return -np.sqrt(np.maximum(sq, 0.0))

    def search_rows(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Scores (higher is better) and row numbers, best first, shape (n, min(k, len))."""
        array = self._prepare(queries, "search()")
        k = min(k, len(self))
        if k <= 0:
            return np.zeros((len(array), 0), np.float32), np.zeros((len(array), 0), np.int64)
        if len(array) <= SMALL_BATCH:
            return _top_k(self._scores(array), k)
        scores, rows = self._index.search(array, k)
        if self.metric == "l2":
            scores = -np.sqrt(np.maximum(scores, 0.0))
        return scores, rows

    def score_rows(self, query: np.ndarray, rows: Sequence[int]) -> np.ndarray:
        """Exact scores of one query against given rows (same scale as `search`)."""
        stored = self.vectors(rows)
        q = self._prepare(query, "score_rows()")[0]
        if self.metric == "cosine":
            return stored @ q
        return -np.linalg.norm(stored - q, axis=1)

    def search(self, queries: np.ndarray, k: int, exclude: Sequence[str | None] | None = None) -> Hits:
        """Top-k (id, score) per query, best first; `exclude[i]` (e.g. the query's own paper) never appears."""
        if k <= 0:
            raise ValueError(f"k must be positive, got {k}")
        n = len(as_matrix(queries, self.dim, "search()"))
        exclude = check_exclude(exclude, n)
        extra = max((len(self._rows_of.get(x, ())) for x in exclude if x is not None), default=0)
        scores, rows = self.search_rows(queries, k + extra)
        results: Hits = []
        for i in range(n):
            hits = [
                (self._ids[r], float(s))
                for s, r in zip(scores[i], rows[i], strict=True)
                if r >= 0 and self._ids[r] != exclude[i]
            ]
            results.append(hits[:k])
        return results

    def save(self, path: str | Path, fingerprint: str, extra: dict[str, Any] | None = None) -> None:
        """Write the index directory; `fingerprint` is the encoder's, checked again on load.

        `extra` adds keys to meta.json (an index kind's own settings).
        """
        import faiss

        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        faiss.write_index(self._index, str(path / "index.faiss"))
        (path / "ids.json").write_text(json.dumps(self._ids))
        meta = {
            "format": FORMAT_VERSION,
            "kind": "dense",
            "dim": self.dim,
            "metric": self.metric,
            "count": len(self),
            "fingerprint": fingerprint,
            "sha256": {name: _sha256(path / name) for name in ("index.faiss", "ids.json")},
            **(extra or {}),
        }
        (path / "meta.json").write_text(json.dumps(seal(meta), indent=2))  # edits to meta.json are noticed
        self.fingerprint = fingerprint

    @classmethod
    def load(cls, path: str | Path, expected_fingerprint: str | None = None) -> DenseIndex:
        """Read an index directory; refuse it when damaged or built by another encoder."""
        import faiss

        path = Path(path)
        meta = read_meta(path)
        for name, digest in meta["sha256"].items():
            if not (path / name).is_file():
                raise IndexLoadError(f"{path / name}: missing (index directory incomplete)")
            actual = _sha256(path / name)
            if actual != digest:
                raise IndexLoadError(
                    f"{path / name}: checksum mismatch (meta.json says {digest[:12]}…, file is {actual[:12]}…); "
                    "the file is truncated or was changed after saving — rebuild the index"
                )
        if expected_fingerprint is not None and meta["fingerprint"] != expected_fingerprint:
            raise IndexLoadError(
                f"{path}: built with encoder fingerprint {meta['fingerprint']}, but the query encoder has "
                f"{expected_fingerprint} (another model, backend, max_seq_length, prefix or normalisation); "
                "rebuild the index with this encoder or query with the one that built it"
            )
        index = cls(meta["dim"], meta["metric"])
        index._index = faiss.read_index(str(path / "index.faiss"))
        ids = json.loads((path / "ids.json").read_text())
        if index._index.ntotal != len(ids) or len(ids) != meta["count"] or index._index.d != meta["dim"]:
            raise IndexLoadError(
                f"{path}: inconsistent index ({index._index.ntotal} vectors of dim {index._index.d}, {len(ids)} ids, "
                f"meta says {meta['count']} of dim {meta['dim']})"
            )
        index._ids = ids
        for row, key in enumerate(ids):
            index._rows_of.setdefault(key, []).append(row)
        index.fingerprint = meta["fingerprint"]
        return index


def _top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Best k per row of a score matrix, best first; equal scores in row order."""
    if k < scores.shape[1]:
        rows = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    else:
        rows = np.broadcast_to(np.arange(scores.shape[1]), scores.shape)
    top = np.take_along_axis(scores, rows, axis=1)
    order = np.lexsort((rows, -top), axis=1)
    return np.take_along_axis(top, order, axis=1), np.take_along_axis(rows, order, axis=1).astype(np.int64)


def read_meta(path: Path) -> dict[str, Any]:
    meta_path = Path(path) / "meta.json"
    if not meta_path.is_file():
        raise IndexLoadError(f"{path}: no meta.json (not a sciembed index directory)")
    try:
        meta = json.loads(meta_path.read_text())
    except json.JSONDecodeError as exc:
        raise IndexLoadError(f"{meta_path}:{exc.lineno}: not valid JSON ({exc.msg})") from exc
    if not isinstance(meta, dict):
        raise IndexLoadError(f"{meta_path}: not a JSON object")
    problem = seal_problem(meta, str(meta_path))
    if problem:
        raise IndexLoadError(problem)
    missing = [k for k in ("format", "dim", "metric", "count", "fingerprint", "sha256") if k not in meta]
    if missing:
        raise IndexLoadError(f"{meta_path}: missing keys {', '.join(missing)}")
    if meta["format"] != FORMAT_VERSION:
        raise IndexLoadError(f"{meta_path}: format {meta['format']}, this sciembed reads {FORMAT_VERSION}")
    return meta
