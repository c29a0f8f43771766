"""Dense search with faiss (exact, or HNSW / IVF-PQ), string ids, query-paper exclusion, checked save/load.

Cosine is inner product over L2-normalised vectors; l2 is reported as negative Euclidean distance, so every
index ranks "higher is better". Ids need not be unique (a paper can own several vectors); excluding an id
removes all of its rows while still returning k hits. Up to `SMALL_BATCH` queries over the flat kind take one
BLAS product over faiss' own storage (zero-copy): faiss' flat scan was 2-4× slower for one query on 2 cores
(top-100 over 100k × 384: p50 33 ms against 12 ms; benchmarks/search.py). The approximate kinds
(`retrieval/ann.py`) always search through faiss and cannot give all scores at once. Removed rows (live
deletes) stay in faiss, hidden by an id selector, and keep their row numbers.

On disk: ``index.faiss``, ``ids.json`` and a sealed ``meta.json`` (dim, metric, count, encoder fingerprint,
sha256 of the two files); loading verifies all of it, so a damaged or foreign index is refused.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.errors import SciembedInputError
from sciembed.ioutil.checksums import seal, seal_problem, sha256_file
from sciembed.retrieval.ann import AnnParams, build_faiss_index, gpu_copy, hidden_rows_selector, search_parameters
from sciembed.retrieval.hits import Hits, check_exclude

METRICS = ("cosine", "l2")
SMALL_BATCH = 16  # up to this many queries take the matrix-product path
FORMAT_VERSION = 1


class IndexLoadError(SciembedInputError, ValueError):
    """An index on disk is damaged, or does not belong to the encoder asking."""


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
    """A faiss index over string-identified vectors: exact (``flat``, default) or approximate (`AnnParams`)."""

    def __init__(self, dim: int, metric: str = "cosine", params: AnnParams | None = None) -> None:
        if metric not in METRICS:
            raise ValueError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}")
        if dim <= 0:
            raise ValueError(f"dim must be positive, got {dim}")
        self.dim = dim
        self.metric = metric
        self.params = params or AnnParams()
        self.fingerprint: str | None = None
        self._index = build_faiss_index(self.params, dim, metric)
        self._ids: list[str] = []
        self._rows_of: dict[str, list[int]] = {}
        self._removed: set[int] = set()  # rows hidden from search (live deletes)
        self._hidden: Any = None  # faiss selector for `_removed`, rebuilt on change
        self._sqnorms: np.ndarray | None = None  # squared norms of stored rows (l2 matrix path)
        self.use_gpu = True  # batched exact searches on the GPU when faiss has GPU support (`ann.gpu_copy`)
        self._gpu: Any = None  # that GPU copy, and the row count it holds
        self._gpu_rows = -1

    def __len__(self) -> int:
        """Stored rows, removed ones included (row numbers never change)."""
        return len(self._ids)

    @property
    def kind(self) -> str:
        return self.params.kind

    @property
    def exact(self) -> bool:
        return self.params.kind == "flat"

    @property
    def live_count(self) -> int:
        return len(self._ids) - len(self._removed)

    @property
    def is_trained(self) -> bool:
        return bool(self._index.is_trained)

    def train(self, vectors: np.ndarray) -> None:
        """Train an IVF-PQ or SQ8 index on a sample (a no-op for flat and HNSW over full vectors)."""
        if self._index.is_trained:
            return
        array = self._prepare(vectors, "train()")
        needed = max(self.params.nlist, 2**self.params.pq_bits) if self.kind == "ivf-pq" else 1
        if len(array) < needed:
            raise ValueError(f"train(): {len(array)} vectors cannot train {self.params.nlist} lists and "
                             f"{2**self.params.pq_bits} PQ centroids; give at least {needed} (or fewer lists / bits)")
        self._index.train(array)

    def remove(self, key: str) -> int:
        """Hide every row of `key` from search; returns how many rows it had."""
        rows = self.rows_of(key)
        self.remove_rows(rows)
        return len(rows)

    def remove_rows(self, rows: Sequence[int]) -> None:
        """Hide given rows from search (row numbers of the others do not change)."""
        rows = [int(r) for r in rows if int(r) not in self._removed]
        if not rows:
            return
        for row in rows:
            key = self._ids[row]
            kept = [r for r in self._rows_of.get(key, ()) if r != row]
            if kept:
                self._rows_of[key] = kept
            else:
                self._rows_of.pop(key, None)
        self._removed.update(rows)
        self._hidden = hidden_rows_selector(self._removed)

    def removed_rows(self) -> list[int]:
        return sorted(self._removed)

    def compacted(self, block: int = 50_000) -> DenseIndex:
        """A new index of the live rows only, in row order (rows renumbered 0..live-1), same kind and training.

        The live rows' stored vectors are re-added to an emptied copy of the trained index: exact for
        flat, HNSW over full vectors and IVF-PQ with a flat refine copy; SQ8 codes re-encode to themselves;
        IVF-PQ without refine re-encodes its PQ-decoded vectors (a row whose decoded vector falls nearer
        another IVF list moves there and is re-quantized).
        """
        import faiss

        live = np.asarray([r for r in range(len(self)) if r not in self._removed], dtype=np.int64)
        out = DenseIndex(self.dim, self.metric, self.params)
        out._index = faiss.deserialize_index(faiss.serialize_index(self._index))  # a trained copy ...
        out._index.reset()  # ... emptied
        if self.kind == "ivf-pq":
            from sciembed.retrieval.ann import ivf_of

            ivf_of(out._index).make_direct_map()
        for start in range(0, len(live), block):
            out._index.add(np.ascontiguousarray(self.vectors(live[start : start + block])))
        out._keep_ids([self._ids[r] for r in live])
        out.fingerprint = self.fingerprint
        return out

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
        if not self._index.is_trained:
            raise ValueError(f"add(): the {self.kind} index is not trained yet; call train() on a sample first")
        self._index.add(array)
        self._keep_ids(ids)

    def _keep_ids(self, ids: list[str]) -> None:
        """Record the ids of the rows just added to faiss."""
        for row, key in enumerate(ids, start=len(self._ids)):
            self._rows_of.setdefault(key, []).append(row)
        self._ids.extend(ids)

    def rows_of(self, key: str) -> list[int]:
        return list(self._rows_of.get(key, ()))

    def rows_of_many(self, keys: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """The rows of every key, key after key, and how many each key has."""
        lists = [self._rows_of.get(key, ()) for key in keys]
        counts = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
        return np.fromiter((r for rows in lists for r in rows), dtype=np.int64, count=int(counts.sum())), counts

    def vectors(self, rows: Sequence[int]) -> np.ndarray:
        """Stored vectors of `rows` (normalised for cosine)."""
        if not len(rows):
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._index.reconstruct_batch(np.asarray(rows, dtype=np.int64))

    def matrix(self) -> np.ndarray:
        """All stored vectors as a zero-copy (len, dim) view; valid until the next `add` (flat kind only)."""
        import faiss

        if not self.exact:
            raise ValueError(f"a {self.kind} index holds no exact matrix; all scores need the flat kind")
        if not len(self):
            return np.zeros((0, self.dim), dtype=np.float32)
        return faiss.rev_swig_ptr(self._index.get_xb(), len(self) * self.dim).reshape(len(self), self.dim)

    def all_scores(self, queries: np.ndarray) -> np.ndarray:
        """(n_queries, len) scores against every row, same scale as `search` (for exact aggregation)."""
        return self._scores(self._prepare(queries, "all_scores()"))

    def _scores(self, prepared: np.ndarray) -> np.ndarray:
        """Scores against every row; removed rows score -inf."""
        stored = self.matrix()
        if self.metric == "l2" and (self._sqnorms is None or len(self._sqnorms) != len(stored)):
            self._sqnorms = np.einsum("ij,ij->i", stored, stored)
        scores = self._scored(prepared, stored, self._sqnorms)
        if self._removed:
            scores[:, sorted(self._removed)] = -np.inf
        return scores

    def search_rows(self, queries: np.ndarray, k: int, *, ef_search: int | None = None, nprobe: int | None = None,
                    refine_k_factor: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Scores (higher is better) and row numbers, best first, shape (n, min(k, len)); row -1 pads. `ef_search`
        (HNSW), `nprobe` and `refine_k_factor` (IVF-PQ) override the index's defaults for this call."""
        array = self._prepare(queries, "search()")
        k = min(k, len(self))
        if k <= 0:
            return np.zeros((len(array), 0), np.float32), np.zeros((len(array), 0), np.int64)
        if self.exact and len(array) <= SMALL_BATCH:
            scores, rows = _top_k(self._scores(array), k)
            return scores, np.where(np.isfinite(scores), rows, -1)
        on_gpu = self._gpu_index()
        if on_gpu is not None:
            scores, rows = on_gpu.search(array, k)
        else:
            params = search_parameters(self._index, self.kind, ef_search=ef_search, nprobe=nprobe,
                                       refine_k_factor=refine_k_factor, hidden=self._hidden)
            scores, rows = self._index.search(array, k, params=params)
        if self.metric == "l2":
            scores = -np.sqrt(np.maximum(scores, 0.0))
        return scores, rows

    def _gpu_index(self) -> Any:
        """The GPU copy of an exact index without removed rows (copied again after adds), or None: HNSW has no
        faiss GPU version, and hidden rows need an id selector, which faiss' GPU search does not take."""
        if not (self.use_gpu and self.exact and self._hidden is None):
            return None
        if self._gpu_rows != len(self):
            self._gpu, self._gpu_rows = gpu_copy(self._index), len(self)
        return self._gpu

    def score_rows(self, query: np.ndarray, rows: Sequence[int]) -> np.ndarray:
        """Exact scores of one query against given rows (same scale as `search`)."""
        return self.scores_of_rows(query, rows)[0]

    def scores_of_rows(self, queries: np.ndarray, rows: Sequence[int]) -> np.ndarray:
        """(n_queries, len(rows)) scores against given rows' stored vectors (same scale as `search`)."""
        return self._scored(self._prepare(queries, "scores_of_rows()"), self.vectors(rows))

    def _scored(self, prepared: np.ndarray, stored: np.ndarray, sqnorms: np.ndarray | None = None) -> np.ndarray:
        """Inner products (cosine), or negative Euclidean distances from `stored`'s squared norms (l2)."""
        dots = prepared @ stored.T
        if self.metric == "cosine":
            return dots
        if sqnorms is None:
            sqnorms = np.einsum("ij,ij->i", stored, stored)
        return -np.sqrt(np.maximum(np.einsum("ij,ij->i", prepared, prepared)[:, None] + sqnorms[None, :] - 2 * dots,
                                   0.0))

    def search(self, queries: np.ndarray, k: int, exclude: Sequence[str | None] | None = None) -> Hits:
        """Top-k (id, score) per query, best first; `exclude[i]` (e.g. the query's own paper) never appears."""
        if k <= 0:
            raise ValueError(f"k must be positive, got {k}")
        n = len(as_matrix(queries, self.dim, "search()"))
        exclude = check_exclude(exclude, n)
        extra = max((len(self._rows_of.get(x, ())) for x in exclude if x is not None), default=0)
        scores, rows = self.search_rows(queries, k + extra)
        return [[(self._ids[r], float(s)) for s, r in zip(scores[i], rows[i], strict=True)
                 if r >= 0 and self._ids[r] != exclude[i]][:k] for i in range(n)]

    def save(self, path: str | Path, fingerprint: str, extra: dict[str, Any] | None = None) -> None:
        """Write the index directory; `fingerprint` is the encoder's, checked on load; `extra` adds meta.json keys."""
        import faiss

        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        faiss.write_index(self._index, str(path / "index.faiss"))
        (path / "ids.json").write_text(json.dumps(self._ids))
        meta = {"format": FORMAT_VERSION, "kind": "dense", "dim": self.dim, "metric": self.metric, "count": len(self),
                "fingerprint": fingerprint,
                "sha256": {name: sha256_file(path / name) for name in ("index.faiss", "ids.json")},
                "index": self.params.to_dict(), **({"removed_rows": self.removed_rows()} if self._removed else {}),
                **(extra or {})}
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
            if (actual := sha256_file(path / name)) != digest:
                raise IndexLoadError(f"{path / name}: checksum mismatch (meta.json says {digest[:12]}…, file is "
                                     f"{actual[:12]}…); the file is truncated or was changed after saving — rebuild "
                                     "the index")
        if expected_fingerprint is not None and meta["fingerprint"] != expected_fingerprint:
            raise IndexLoadError(f"{path}: built with encoder fingerprint {meta['fingerprint']}, but the query encoder "
                                 f"has {expected_fingerprint} (another model, backend, max_seq_length, prefix or "
                                 "normalisation); rebuild the index with this encoder or query with the one that "
                                 "built it")
        index = cls(meta["dim"], meta["metric"], AnnParams.from_dict(meta.get("index")))
        index._index = faiss.read_index(str(path / "index.faiss"))
        ids = json.loads((path / "ids.json").read_text())
        if index._index.ntotal != len(ids) or len(ids) != meta["count"] or index._index.d != meta["dim"]:
            raise IndexLoadError(f"{path}: inconsistent index ({index._index.ntotal} vectors of dim {index._index.d}, "
                                 f"{len(ids)} ids, meta says {meta['count']} of dim {meta['dim']})")
        index._keep_ids(ids)
        index.remove_rows(meta.get("removed_rows", ()))
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
    if problem := seal_problem(meta, str(meta_path)):
        raise IndexLoadError(problem)
    if missing := [k for k in ("format", "dim", "metric", "count", "fingerprint", "sha256") if k not in meta]:
        raise IndexLoadError(f"{meta_path}: missing keys {', '.join(missing)}")
    if meta["format"] != FORMAT_VERSION:
        raise IndexLoadError(f"{meta_path}: format {meta['format']}, this sciembed reads {FORMAT_VERSION}")
    return meta
