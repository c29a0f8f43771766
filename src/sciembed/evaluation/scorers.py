"""What a model contributes to a task: vectors and a distance (dense), or BM25 scores.

Distances: ``cosine``, ``l2`` (negative Euclidean on raw vectors: SPECTER, SciRepEval's proximity protocol,
cards that say l2) and ``dot``. Scores are one numpy matrix product per block of queries, not a faiss top-k
search: every candidate is scored anyway (full-list metrics, whole pools).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sciembed.evaluation.contract import TextStyle
from sciembed.evaluation.issues import BenchmarkError

DISTANCES = ("cosine", "l2", "dot")
POOL_STATISTICS = ("collection", "pool")


class NonFiniteVectors(BenchmarkError):
    """A model returned NaN or infinite vectors."""


def check_distance(distance: str) -> str:
    if distance not in DISTANCES:
        raise ValueError(f"unknown distance {distance!r}; expected one of {', '.join(DISTANCES)}")
    return distance


def similarity(queries: np.ndarray, docs: np.ndarray, distance: str) -> np.ndarray:
    """(n_queries, n_docs) scores, higher = closer, for `distance`."""
    q = np.asarray(queries, dtype=np.float64)
    d = np.asarray(docs, dtype=np.float64)
    if distance == "cosine":
        q = q / np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12)
        d = d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-12)
        return q @ d.T
    if distance == "dot":
        return q @ d.T
    if distance == "l2":
        squared = (q * q).sum(1)[:, None] + (d * d).sum(1)[None, :] - 2.0 * (q @ d.T)
        return -np.sqrt(np.maximum(squared, 0.0))
    raise ValueError(f"unknown distance {distance!r}")


def _separator(encoder: Any) -> str:
    """The tokenizer's separator token (``[SEP]``, ``</s>``), as SciRepEval joins title and abstract."""
    model = getattr(encoder, "model", None) or getattr(getattr(encoder, "inner", None), "model", None)
    token = getattr(getattr(model, "tokenizer", None), "sep_token", None)
    return token if isinstance(token, str) and token else "."


@dataclass
class DenseScorer:
    """An `Encoder` plus the distance it is evaluated with."""

    encoder: Any
    distance: str = "cosine"
    batch_size: int | None = None  # None: the encoder chooses (GPU memory on CUDA, 32 on CPU)
    show_progress: bool = True
    window_tokens: int | None = None  # body windows' token budget; None: the model card's, else the encoder's
    kind: str = "dense"
    encoded: int = 0  # distinct texts this scorer asked the encoder for
    model_encoded: int = 0  # of those, texts the model actually ran on (the rest came from the on-disk cache)
    _table: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_distance(self.distance)
        self.name = self.encoder.name
        self.fingerprint = self.encoder.fingerprint

    def style(self) -> TextStyle:
        from sciembed.models.card import default_window_tokens

        card = getattr(self.encoder, "card", None) or getattr(getattr(self.encoder, "inner", None), "card", None)
        return TextStyle(sep=_separator(self.encoder), input_format=getattr(card, "input_format", "plain") or "plain",
                         ta_join=getattr(self.encoder, "ta_join", ". "),
                         window_tokens=self.window_tokens or default_window_tokens(self.encoder),
                         encoder=self.encoder)

    def config(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "fingerprint": self.fingerprint, "distance": self.distance,
                "encoder_metric": self.encoder.metric, "max_seq_length": self.encoder.max_seq_length,
                "dim": self.encoder.dim, "source": getattr(self.encoder, "source", None),
                "pooling": getattr(self.encoder, "pooling", None) or "model's own"}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text; each distinct text is encoded once per scorer (and once per cache)."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._table]
        if todo:
            matrix = np.asarray(self.encoder.encode(todo, batch_size=self.batch_size,
                                                    show_progress=self.show_progress), dtype=np.float32)
            bad = ~np.isfinite(matrix).all(axis=1)
            if bad.any():
                raise NonFiniteVectors(f"model {self.name} returned NaN/inf vectors for {int(bad.sum())} of "
                                       f"{len(todo)} texts (first: {todo[int(np.flatnonzero(bad)[0])][:80]!r})")
            self.encoded += len(todo)
            last = getattr(self.encoder, "last", None)  # CachedEncoder's stats of this call
            self.model_encoded += int(getattr(last, "encoded", len(todo)))
            self._table.update(zip(todo, matrix, strict=True))
        dim = self.encoder.dim
        return np.stack([self._table[t] for t in texts]) if texts else np.zeros((0, dim), np.float32)

    def scores(self, queries: Sequence[str], docs: Sequence[str]) -> np.ndarray:
        return similarity(self.embed(queries), self.embed(docs), self.distance)

    def pair_scores(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        """Row-wise similarity of left[i] and right[i]."""
        a, b = self.embed(left).astype(np.float64), self.embed(right).astype(np.float64)
        if self.distance == "cosine":
            a = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
            b = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
            return (a * b).sum(1)
        if self.distance == "dot":
            return (a * b).sum(1)
        return -np.linalg.norm(a - b, axis=1)


@dataclass
class BM25Scorer:
    """BM25 (bm25s, the `BM25Index` defaults). Pools take term statistics from the whole collection unless
    `pool_statistics="pool"` (each pool alone, 88–253 papers: the old behaviour)."""

    pool_statistics: str = "collection"
    kind: str = "bm25"
    name: str = "bm25"
    encoded: int = 0

    def __post_init__(self) -> None:
        import bm25s

        from sciembed.retrieval.bm25 import BM25Index

        if self.pool_statistics not in POOL_STATISTICS:
            raise ValueError(f"pool_statistics must be one of {', '.join(POOL_STATISTICS)}")
        default = BM25Index()
        self.params = {"k1": default.k1, "b": default.b, "method": default.method, "stopwords": default.stopwords}
        self.fingerprint = "bm25s-{}:{}:{}".format(
            bm25s.__version__, ",".join(f"{k}={v}" for k, v in self.params.items()), self.pool_statistics)

    def style(self) -> TextStyle:
        return TextStyle(sep=".")

    def config(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "fingerprint": self.fingerprint, "distance": "bm25",
                "pool_statistics": self.pool_statistics, **self.params}

    def scores(self, queries: Sequence[str], docs: Sequence[str]) -> np.ndarray:
        """(n_queries, n_docs) BM25 scores with the statistics of `docs` as the collection."""
        import bm25s
        from bm25s.tokenization import Tokenizer

        out = np.zeros((len(queries), len(docs)), dtype=np.float64)
        if not len(docs) or not len(queries):
            return out
        tokenizer = Tokenizer(stopwords=self.params["stopwords"] or None)
        ids = tokenizer.tokenize(list(docs), update_vocab=True, return_as="ids", show_progress=False)
        retriever = bm25s.BM25(k1=self.params["k1"], b=self.params["b"], method=self.params["method"])
        retriever.index(ids, show_progress=False)
        query_ids = tokenizer.tokenize(list(queries), update_vocab=False, return_as="ids", show_progress=False)
        for i, tokens in enumerate(query_ids):
            if tokens:
                out[i] = retriever.get_scores(tokens)
        return out
