"""Turn a `RetrievalTask` into rankings: a dense encoder over FAISS, or BM25.

Both rankers follow the same rules, so scores differ only by model:

- the query's own id (``task.exclude``) is never retrieved;
- with ``task.pools`` each query ranks only its own candidate list, through an
  index of that list alone (for BM25 the term statistics are then the pool's);
- rankings are sorted by score, ties ordered by a seeded hash of the candidate id (`sciembed.retrieval.ties`),
  then cut to k — after every candidate tied with the k-th one was fetched (`past_ties`), so the hash, not
  the index's row order, decides which tied candidates make the cut; a pool is never cut: each query ranks
  its whole pool (full-list metrics).

Dense texts are encoded once per run (distinct texts across all scenarios in
one `encode` call), so a caching encoder reports exactly what the run encoded.
With `index_dir`, each candidate collection's index is saved there and loaded
on the next run instead of encoding the candidates again; an index built by
another encoder or for another benchmark is refused.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.evaluation.task import RetrievalTask
from sciembed.evaluation.ties import ordered, past_ties
from sciembed.models.card import default_window_tokens
from sciembed.views import target_words

Ranking = list[tuple[str, float]]
BM25_WINDOW_TOKENS = 512  # BM25 has no token budget; it reads the window of a 512-token model (358 words)


def _unscored_tail(ranking: Ranking, order: Sequence[str], excluded: str | None, depth: int) -> Ranking:
    """`ranking` filled up to `depth` with the candidates it lacks, at score 0 in tie order (`order`).

    BM25 returns only candidates sharing a term with the query; the rest all score 0, so they are
    tied and follow in seeded-hash order, as `sciembed bench`'s executor ranks them.
    """
    if len(ranking) >= depth:
        return ranking
    present = {d for d, _ in ranking}
    tail = [(d, 0.0) for d in order if d not in present and d != excluded][: depth - len(ranking)]
    return [*ranking, *tail]


def _ordered(hits: Sequence[tuple[str, float]], k: int) -> Ranking:
    """Score descending, ties in seeded-hash order (never by id: see `ties.py`), first occurrence of an id kept."""
    seen: dict[str, float] = {}
    for doc, score in hits:
        seen.setdefault(str(doc), float(score))
    return ordered(seen.items())[:k]


def _exclusions(task: RetrievalTask, qids: Sequence[str]) -> list[str | None]:
    """One id per query for the index's `exclude` (the query paper itself); None where there is none."""
    out: list[str | None] = []
    for q in qids:
        ids = task.exclude.get(q, [])
        if len(ids) > 1:
            raise ValueError(f"{q}: only the query's own id can be excluded, got {ids}")
        out.append(ids[0] if ids else None)
    return out


def rank_positions(ranker: Any, index: Any, task: RetrievalTask, positions: Sequence[int], k: int
                   ) -> list[Ranking]:
    """The top `k` of the queries at `positions` over one index of all candidates, ties resolved before the cut.

    BM25's candidates sharing no term with the query follow at score 0 in tie order, as the executor ranks them.
    """
    depth = min(k, len(task.doc_ids))
    positions = list(positions)
    hits = past_ties(lambda rows, d: ranker.search(index, task, [positions[i] for i in rows], d),
                     range(len(positions)), depth, len(task.doc_ids))
    if getattr(ranker, "kind", "") != "bm25":
        return [_ordered(h, depth) for h in hits]
    order = [d for d, _ in ordered((d, 0.0) for d in task.doc_ids)]
    qids = [task.query_ids[i] for i in positions]
    return [_unscored_tail(_ordered(h, depth), order, x, depth)
            for h, x in zip(hits, _exclusions(task, qids), strict=True)]


def rank_task(ranker: Any, task: RetrievalTask, k: int, show_progress: bool = True) -> dict[str, Ranking]:
    """Rankings for every query of `task`: one index over all candidates, or one per pool."""
    qids = task.query_ids
    if task.pools is None:
        if not task.doc_ids or not qids:
            return {q: [] for q in qids}
        index = ranker.index(task.doc_ids, task.doc_texts, task.candidates)
        return dict(zip(qids, rank_positions(ranker, index, task, range(len(qids)), k), strict=True))
    from sciembed.models.progress import progress_bar

    text_of = dict(zip(task.doc_ids, task.doc_texts, strict=True))
    out: dict[str, Ranking] = {}
    with progress_bar("re-rank pools", len(qids), enabled=show_progress) as advance:
        for i, q in enumerate(qids):
            pool = task.pools[q]
            if pool:
                index = ranker.index(pool, [text_of[d] for d in pool], None)
                ranking = _ordered(ranker.search(index, task, [i], len(pool))[0], len(pool))  # pools are never cut
                order = [d for d, _ in ordered((d, 0.0) for d in pool)]
                out[q] = _unscored_tail(ranking, order, q if q in task.exclude.get(q, []) else None, len(pool))
            else:
                out[q] = []
            advance(1)
    return out


@dataclass
class EncodingStats:
    texts: int = 0  # texts the run needed (all scenarios, geometry included)
    distinct: int = 0  # distinct among them
    from_index: int = 0  # taken from a saved candidate index
    encoded: int | None = None  # texts the model actually ran on (None for BM25)
    cache_hits: int | None = None  # None: the encoder has no cache
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class DenseRanker:
    encoder: Any  # sciembed.models.Encoder
    batch_size: int | None = None  # None: the encoder chooses (GPU memory on CUDA, 32 on CPU)
    show_progress: bool = True
    index_dir: Path | None = None
    benchmark_fingerprint: str = ""
    kind: str = "dense"
    stats: EncodingStats = field(default_factory=EncodingStats)
    _rows: dict[str, int] = field(default_factory=dict)
    _matrix: np.ndarray | None = None
    _saved: dict[str, Any] = field(default_factory=dict)  # candidates name -> DenseIndex loaded from index_dir

    def __post_init__(self) -> None:
        self.name = self.encoder.name
        self.fingerprint = self.encoder.fingerprint  # read once: in-memory models hash their weights per read
        self.window_words = target_words(default_window_tokens(self.encoder))
        self.ta_join = getattr(self.encoder, "ta_join", ". ")  # what the model puts between title and abstract

    def config(self) -> dict[str, Any]:
        """What identifies the model (not `describe()`: that would hash an in-memory model's weights again)."""
        info: dict[str, Any] = {}
        for key in ("source", "backend", "quantization", "prefix", "pooling", "ta_join", "adapter"):
            value = getattr(self.encoder, key, None)
            if isinstance(value, str):
                info[key] = value
        info.update(
            {"name": self.name, "fingerprint": self.fingerprint, "max_seq_length": self.encoder.max_seq_length,
             "dim": self.encoder.dim, "metric": self.encoder.metric, "window_words": self.window_words}
        )
        return info

    def prepare(self, tasks: Sequence[RetrievalTask], extra: Sequence[str] = ()) -> None:
        """Vectors for every distinct text of every task (and `extra`, e.g. for geometry).

        Candidates whose saved index loads come from it; the rest is encoded in one call.
        """
        texts = [t for task in tasks for t in (*task.query_texts, *task.doc_texts)] + list(extra)
        table: dict[str, np.ndarray] = {}
        for task in tasks:
            index = self._load(task) if task.pools is None else None
            if index is not None:
                stored = index.vectors(range(len(index)))
                row = {pid: i for i, pid in enumerate(index.ids)}
                table.update((text, stored[row[d]]) for d, text in zip(task.doc_ids, task.doc_texts, strict=True))
        distinct = list(dict.fromkeys(texts))
        todo = [t for t in distinct if t not in table]
        start = time.perf_counter()
        stats = EncodingStats(texts=len(texts), distinct=len(distinct), from_index=len(distinct) - len(todo),
                              encoded=0, cache_hits=0 if hasattr(self.encoder, "last") else None)
        if todo:
            matrix = self.encoder.encode(todo, batch_size=self.batch_size, show_progress=self.show_progress)
            last = getattr(self.encoder, "last", None)  # CachedEncoder's stats of this call
            stats.encoded = getattr(last, "encoded", len(todo))
            stats.cache_hits = getattr(last, "hits", None)
            table.update(zip(todo, np.asarray(matrix, dtype=np.float32), strict=True))
        stats.seconds = time.perf_counter() - start
        self.stats = stats
        self._rows = {t: i for i, t in enumerate(distinct)}
        self._matrix = (
            np.stack([table[t] for t in distinct]).astype(np.float32)
            if distinct else np.zeros((0, self.encoder.dim), np.float32)
        )

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        if self._matrix is None:
            raise RuntimeError("prepare() must run before vectors()")
        return self._matrix[[self._rows[t] for t in texts]]

    def _path(self, name: str) -> Path | None:
        return None if self.index_dir is None else Path(self.index_dir) / name

    def _load(self, task: RetrievalTask) -> Any:
        """The saved index of the task's candidates, checked against this encoder and benchmark; None if absent."""
        from sciembed.retrieval.dense import DenseIndex, IndexLoadError, read_meta

        if task.candidates in self._saved:
            return self._saved[task.candidates]
        path = self._path(task.candidates)
        if path is None or not (path / "meta.json").exists():
            return None
        index = DenseIndex.load(path, expected_fingerprint=self.fingerprint)  # refuses another encoder's index
        built_for = read_meta(path).get("benchmark")
        if built_for != self.benchmark_fingerprint:
            raise IndexLoadError(
                f"{path}: built for benchmark {built_for}, this benchmark is {self.benchmark_fingerprint} "
                "(another corpus, split or paper log); rebuild it or use another --index-dir"
            )
        if sorted(index.ids) != sorted(task.doc_ids):
            raise IndexLoadError(f"{path}: holds {len(index)} candidates, the benchmark has {len(task.doc_ids)}")
        self._saved[task.candidates] = index
        return index

    def index(self, ids: Sequence[str], texts: Sequence[str], name: str | None) -> Any:
        """An index of the candidates; saved under `index_dir/name` when a name and directory are given."""
        from sciembed.retrieval.dense import DenseIndex

        if name in self._saved:
            return self._saved[name]
        index = DenseIndex(self.encoder.dim, self.encoder.metric)
        index.add(list(ids), self.vectors(texts))
        path = self._path(name) if name else None
        if path is not None:
            index.save(path, self.fingerprint, extra={"benchmark": self.benchmark_fingerprint, "candidates": name})
            self._saved[name] = index
        return index

    def search(self, index: Any, task: RetrievalTask, positions: Sequence[int], depth: int) -> list[Ranking]:
        qids = [task.query_ids[i] for i in positions]
        queries = self.vectors([task.query_texts[i] for i in positions])
        return index.search(queries, depth, exclude=_exclusions(task, qids))


@dataclass
class BM25Ranker:
    """BM25 (bm25s, `BM25Index` defaults) over the same texts; body text is the window of a 512-token model.

    Only candidates sharing a term with the query are returned (score > 0).
    """

    show_progress: bool = True
    kind: str = "bm25"
    name: str = "bm25"
    stats: EncodingStats = field(default_factory=EncodingStats)

    def __post_init__(self) -> None:
        import bm25s

        from sciembed.retrieval.bm25 import BM25Index

        default = BM25Index()
        self.params = {"k1": default.k1, "b": default.b, "method": default.method, "stopwords": default.stopwords}
        self.window_words = target_words(BM25_WINDOW_TOKENS)
        self.fingerprint = "bm25s-{}:{}".format(bm25s.__version__, ",".join(f"{k}={v}" for k, v in self.params.items()))

    def config(self) -> dict[str, Any]:
        return {"name": self.name, "fingerprint": self.fingerprint, **self.params, "window_words": self.window_words,
                "window_rule": f"window of a {BM25_WINDOW_TOKENS}-token model"}

    def prepare(self, tasks: Sequence[RetrievalTask], extra: Sequence[str] = ()) -> None:
        texts = [t for task in tasks for t in (*task.query_texts, *task.doc_texts)]
        self.stats = EncodingStats(texts=len(texts), distinct=len(set(texts)))

    def index(self, ids: Sequence[str], texts: Sequence[str], name: str | None) -> Any:
        from sciembed.retrieval.bm25 import BM25Index

        index = BM25Index()
        index.add(list(ids), list(texts))
        return index

    def search(self, index: Any, task: RetrievalTask, positions: Sequence[int], depth: int) -> list[Ranking]:
        qids = [task.query_ids[i] for i in positions]
        return index.search([task.query_texts[i] for i in positions], depth, exclude=_exclusions(task, qids))
