"""Paper retrieval over several vectors per paper (windows, sections, chunks).

A paper's score for one query vector aggregates its views' scores by ``max`` (default: the first k distinct
papers of a view search deepened until found, exact over the view ranking), ``mean`` or ``sum`` (every view
scored, flat kind only). `search_views` is the one search for a *set* of query vectors (a paper's views,
PRISM's aspect queries) by any of `PAPER_METHODS`, each paper returned with the row of its best-matching view
(the service's snippet). Papers can be removed and re-added under the same id; `accept` filters papers (year,
venue, …) inside the deepening loop, so k accepted papers come back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from sciembed.retrieval.ann import AnnParams
from sciembed.retrieval.approximate_late import FIRST_TIER as LATE_FIRST_TIER
from sciembed.retrieval.approximate_late import late_over_candidates
from sciembed.retrieval.dense import DenseIndex, IndexLoadError, as_matrix, read_meta
from sciembed.retrieval.hits import Hits, check_exclude
from sciembed.retrieval.paging import stable_prefix
from sciembed.retrieval.ties import ordered, tie_key, top_positions

AGGREGATIONS = ("max", "mean", "sum")
# Paper-to-paper: several query vectors (a paper's views, or PRISM's aspect queries) against every
# candidate paper's views. Scores are "higher is better" (cosine, or negative Euclidean distance).
# The names are those of `sciembed index search --method` and of `eval run --kind paper_to_paper`:
#   max_sim             best (query, candidate view) pair: max over all pairs
#   late                late interaction: for each query vector its best candidate view, averaged over query vectors
#   naive_sum           naive sum over all (query, candidate view) pairs (PRISM's "naive aggregation")
#   max_sim_prism_code  reproduction of PRISM's released code: per query vector the *worst* candidate view
#                       (it takes max of L2 distances), summed over query vectors
PAPER_METHODS = ("max_sim", "late", "naive_sum", "max_sim_prism_code")


def paper_method(name: str) -> str:
    """`name` if it is one of `PAPER_METHODS`; a ValueError listing them otherwise."""
    if name not in PAPER_METHODS:
        raise ValueError(f"unknown paper method {name!r}; expected one of {', '.join(PAPER_METHODS)}")
    return name
ViewHitList = list[tuple[str, float, int]]  # (paper id, score, row of its best-matching view), best first
ViewHits = list[ViewHitList]  # one list per query vector
_BLOCK_BYTES = 1 << 27  # bound on the (queries × views) score block held at once


def check_aggregate(aggregate: str) -> str:
    if aggregate not in AGGREGATIONS:
        raise ValueError(f"unknown aggregation {aggregate!r}; expected one of {', '.join(AGGREGATIONS)}")
    return aggregate


class MultiVectorIndex:
    """Views in, paper ids out: `add(paper_ids, vectors)` with one paper id per view."""

    def __init__(self, dim: int, metric: str = "cosine", aggregate: str = "max",
                 params: AnnParams | None = None) -> None:
        self.dense = DenseIndex(dim, metric, params)
        self.aggregate = check_aggregate(aggregate)
        self.late_first_tier = LATE_FIRST_TIER  # papers one approximate `late` candidate search ranks (paging)
        self._papers: list[str] = []  # distinct paper ids, first-seen order
        self._position: dict[str, int] = {}  # paper id -> its place in `_papers` (kept, not rebuilt per search)
        self._paper_of_row = np.zeros(0, dtype=np.int64)
        self._gone: set[str] = set()  # removed papers (no live rows)

    dim = property(lambda self: self.dense.dim)
    metric = property(lambda self: self.dense.metric)
    fingerprint = property(lambda self: self.dense.fingerprint)

    def __len__(self) -> int:
        """Number of papers (removed ones not counted)."""
        return len(self._papers) - len(self._gone)

    @property
    def num_views(self) -> int:
        return len(self.dense)

    @property
    def papers(self) -> list[str]:
        return [p for p in self._papers if p not in self._gone]

    def remove(self, paper_id: str) -> int:
        """Hide a paper's views from search (its rows keep their numbers); returns how many views it had."""
        removed = self.dense.remove(paper_id)
        if removed:
            self._gone.add(paper_id)
        return removed

    def remove_rows(self, rows: Sequence[int]) -> None:
        """Hide given views; a paper left without views is gone."""
        self.dense.remove_rows(rows)
        for paper in {self.paper_of_row(r) for r in rows}:
            if not self.dense.rows_of(paper):
                self._gone.add(paper)

    def compacted(self) -> MultiVectorIndex:
        """A new index holding only the live views (rows renumbered in order); see `DenseIndex.compacted`."""
        index = MultiVectorIndex(self.dim, self.metric, self.aggregate, self.dense.params)
        index.dense = self.dense.compacted()
        index._reindex(0)
        return index

    def paper_of_row(self, row: int) -> str:
        return self._papers[int(self._paper_of_row[row])]

    def papers_of_rows(self, rows: np.ndarray) -> list[str]:
        """The distinct papers of some view rows, in the order the index first saw them."""
        return [self._papers[int(i)] for i in np.unique(self._paper_of_row[np.asarray(rows, dtype=np.int64)])]

    def add(self, paper_ids: Sequence[str], vectors: np.ndarray) -> None:
        paper_ids = list(paper_ids)
        known = len(self.dense)
        self.dense.add(paper_ids, vectors)
        self._reindex(known)

    def _reindex(self, start: int) -> None:
        if len(self._position) != len(self._papers):  # a fresh or compacted index
            self._position = {p: i for i, p in enumerate(self._papers)}
        position = self._position
        new_rows = []
        for paper in self.dense.ids[start:]:
            self._gone.discard(paper)
            if paper not in position:
                position[paper] = len(self._papers)
                self._papers.append(paper)
            new_rows.append(position[paper])
        self._paper_of_row = np.concatenate([self._paper_of_row, np.asarray(new_rows, dtype=np.int64)])

    def views_of(self, paper_id: str) -> np.ndarray:
        """The stored vectors of one paper's views (normalised for cosine)."""
        rows = self.dense.rows_of(paper_id)
        if not rows:
            raise KeyError(f"paper {paper_id!r} is not in this index ({len(self)} papers)")
        return self.dense.vectors(rows)

    def search(self, queries: np.ndarray, k: int, exclude: Sequence[str | None] | None = None,
               aggregate: str | None = None) -> Hits:
        """Top-k (paper id, aggregated score) per query; `exclude[i]` (a paper id) never appears."""
        if k <= 0:
            raise ValueError(f"k must be positive, got {k}")
        aggregate = check_aggregate(aggregate or self.aggregate)
        array = as_matrix(queries, self.dim, "search()")
        exclude = check_exclude(exclude, len(array))
        if aggregate == "max":
            excluded = [{x} if x is not None else set() for x in exclude]
            return [[(p, s) for p, s, _ in hits] for hits in self._search_max(array, k, excluded)]
        if not self.dense.exact:
            raise ValueError(f"{aggregate} aggregation needs every view's score: use max over a {self.dense.kind} "
                             "index")
        return self._search_reduce(array, k, exclude, aggregate)

    def search_paper(self, paper_id: str, k: int, aggregate: str | None = None) -> list[tuple[str, float]]:
        """Papers like `paper_id`, querying with all its views (`search_best_over_queries`, itself excluded)."""
        return self.search_best_over_queries(self.views_of(paper_id), k, [paper_id], aggregate)

    def search_best_over_queries(self, queries: np.ndarray, k: int, exclude: Sequence[str] = (),
                                 aggregate: str | None = None) -> list[tuple[str, float]]:
        """Top-k papers for a set of query vectors: a candidate scores `aggregate` over its views per query
        vector, and its best over the query vectors (exact: that best ranks within its vector's own top-k);
        `exclude` never returned."""
        skip = set(exclude)
        best: dict[str, float] = {}
        for hits in self.search(queries, k + len(skip), aggregate=aggregate):
            for pid, score in hits:
                if pid not in skip:
                    best[pid] = max(score, best.get(pid, -np.inf))
        return ordered(best.items())[:k]

    def search_views(self, queries: np.ndarray, k: int, method: str = "max_sim", *, exclude: Sequence[str] = (),
                     accept: Callable[[str], bool] | None = None, ef_search: int | None = None,
                     nprobe: int | None = None, refine_k_factor: int | None = None) -> ViewHitList:
        """Top-k (paper id, score, row of its best-matching view) for one *set* of query vectors, by `method`.

        `exclude`: paper ids never returned (the query paper, its title twins); the knobs go to an approximate
        index. The flat kind scores every view (one matrix product), for any method; over HNSW / IVF-PQ
        ``max_sim`` merges each query vector's deepened view ranking, ``late`` scores those candidates exactly
        (`approximate_late`), and the other methods need the flat kind.
        """
        method = paper_method(method)
        if k <= 0:
            raise ValueError(f"k must be positive, got {k}")
        array = as_matrix(queries, self.dim, "search_views()")
        if not len(array) or not self.num_views:
            return []
        if self.dense.exact:
            return self._search_all_views(array, k, method, set(exclude), accept)
        knobs = {"ef_search": ef_search, "nprobe": nprobe, "refine_k_factor": refine_k_factor}
        if method == "late":  # candidates from the index, scored exactly (`approximate_late`)
            return stable_prefix(lambda depth: [late_over_candidates(self, array, depth, set(exclude), accept,
                                                                     knobs)], k, 1, self.late_first_tier)[0]
        if method != "max_sim":
            raise ValueError(f"{method} needs every view's score: a {self.dense.kind} index gives max_sim and "
                             "late only")
        return self.search_sets([array], k, [set(exclude)], accept, knobs)[0]

    def search_sets(self, query_sets: Sequence[np.ndarray], k: int, excludes: Sequence[set[str]],
                    accept: Callable[[str], bool] | None = None, knobs: dict | None = None) -> list[ViewHitList]:
        """`search_views(..., "max_sim")` for several query sets at once: every vector in one index search.

        Merging each vector's top-k distinct papers is exact for ``max`` (a paper of the true top k is among
        the top k of the vector giving its best score); equal scores in `retrieval.ties`'s seeded-hash order.
        """
        if not self.dense.exact:  # approximate: pages must agree at their boundaries (`paging.stable_prefix`)
            return stable_prefix(lambda depth: self._search_sets_once(query_sets, depth, excludes, accept, knobs), k,
                                 len(query_sets))
        return self._search_sets_once(query_sets, k, excludes, accept, knobs)

    def _search_sets_once(self, query_sets: Sequence[np.ndarray], k: int, excludes: Sequence[set[str]],
                          accept: Callable[[str], bool] | None, knobs: dict | None) -> list[ViewHitList]:
        sizes = [len(s) for s in query_sets]
        if not sum(sizes) or not self.num_views:
            return [[] for _ in query_sets]
        array = as_matrix(np.concatenate([s for s in query_sets if len(s)]), self.dim, "search_sets()")
        per_vector = self._search_max(array, k, [e for e, n in zip(excludes, sizes, strict=True) for _ in range(n)],
                                      accept, knobs)
        results, start = [], 0
        for n in sizes:
            best: dict[str, tuple[float, int]] = {}
            for hits in per_vector[start : start + n]:
                for pid, score, row in hits:
                    if pid not in best or score > best[pid][0]:
                        best[pid] = (score, row)
            start += n
            ranked = sorted(best.items(), key=lambda item: (-item[1][0], tie_key(item[0])))[:k]
            results.append([(pid, score, row) for pid, (score, row) in ranked])
        return results

    def search_paper_views(self, paper_id: str, k: int, method: str = "late",
                           exclude: Sequence[str] = ()) -> list[tuple[str, float]]:
        """Papers like `paper_id` (itself excluded), its own views as the query set."""
        hits = self.search_views(self.views_of(paper_id), k, method, exclude=[paper_id, *exclude])
        return [(pid, score) for pid, score, _ in hits]

    def _grouped_rows(self) -> tuple[np.ndarray | None, np.ndarray]:
        """Row order that groups views by paper (papers in `self._papers` order; None: the rows already are) and
        each group's start."""
        cached = getattr(self, "_groups", None)
        if cached is not None and cached[2] == self.num_views:
            return cached[:2]
        order = np.argsort(self._paper_of_row, kind="stable")
        starts = np.searchsorted(self._paper_of_row[order], np.arange(len(self._papers)))
        self._groups = (None if np.array_equal(order, np.arange(len(order))) else order, starts, self.num_views)
        return self._groups[:2]

    def _search_all_views(self, array: np.ndarray, k: int, method: str, exclude: set[str],
                          accept: Callable[[str], bool] | None) -> ViewHitList:
        by_row = self.dense.all_scores(array)  # (queries, rows) float32; removed rows -inf
        order, starts = self._grouped_rows()
        scores = by_row if order is None else by_row[:, order]  # views grouped by paper (no copy when they are)
        dead = ~np.isfinite(scores[0])
        if method in ("max_sim", "late"):  # a max is exact in float32; the mean over query views in float64
            best = np.maximum.reduceat(scores, starts, axis=1).astype(np.float64)
            paper = best.max(axis=0) if method == "max_sim" else best.mean(axis=0)
        elif method == "naive_sum":
            scores = scores.astype(np.float64)  # a copy: removed views are rewritten
            scores[:, dead] = 0.0  # removed views count for nothing
            paper = np.add.reduceat(scores, starts, axis=1).sum(axis=0)
        else:
            scores = scores.astype(np.float64)
            scores[:, dead] = np.inf  # never the worst
            paper = np.minimum.reduceat(scores, starts, axis=1).sum(axis=0)
        gone = np.add.reduceat((~dead).astype(np.int64), starts) == 0
        paper[gone] = -np.inf
        position = self._position
        for pid in exclude:
            if pid in position:
                paper[position[pid]] = -np.inf
        hits = []
        for i in self._ranked(paper, k, accept):  # each hit's best view: over its own rows only
            rows = self.dense.rows_of(self._papers[i])
            hits.append((self._papers[i], float(paper[i]), int(rows[int(np.argmax(by_row[:, rows].max(axis=0)))])))
        return hits

    def _ranked(self, scores: np.ndarray, k: int, accept: Callable[[str], bool] | None) -> list[int]:
        """Positions of the best k finite scores (ties in seeded-hash order of paper ids) whose papers `accept`
        takes."""
        finite = int(np.isfinite(scores).sum())
        wanted = k
        while True:
            m = min(finite, 4 * wanted if accept else wanted)
            ranked = top_positions(scores, m, self._papers)
            if accept is not None:
                ranked = [i for i in ranked if accept(self._papers[i])]
            if len(ranked) >= k or m == finite:
                return ranked[:k]
            wanted *= 4

    def _search_max(self, array: np.ndarray, k: int, exclude: list[set[str]],
                    accept: Callable[[str], bool] | None = None, knobs: dict | None = None) -> ViewHits:
        """Per query vector: the first k distinct papers of its view ranking, deepened until found."""
        views_per_paper = self.num_views / max(len(self._papers), 1)
        depth0 = int(np.ceil(2 * k * views_per_paper))
        pending = list(range(len(array)))
        depth = {i: depth0 + sum(len(self.dense.rows_of(x)) for x in exclude[i]) for i in pending}
        found: dict[int, list[tuple[str, float, int]]] = {}
        while pending:
            d = max(depth[i] for i in pending)
            scores, rows = self.dense.search_rows(array[pending], d, **self._deepened(knobs, d))
            still = []
            for j, i in enumerate(pending):
                hits = self._first_per_paper(scores[j], rows[j], exclude[i], k, accept)
                if len(hits) < k and d < self.num_views:
                    depth[i] = d * 4
                    still.append(i)
                else:
                    found[i] = hits
            pending = still
        return [found[i] for i in range(len(array))]

    def _deepened(self, knobs: dict | None, depth: int) -> dict:
        """The knobs with HNSW's search breadth (efSearch) raised to the depth asked for: with the default 64,
        paging a 430-paper collection stopped after ~300 papers with ``more: false``."""
        knobs = dict(knobs or {})
        if self.dense.kind == "hnsw":
            knobs["ef_search"] = max(knobs.get("ef_search") or 0, self.dense.params.ef_search or 0, depth)
        return knobs

    def _first_per_paper(self, scores: np.ndarray, rows: np.ndarray, excluded: set[str], k: int,
                         accept: Callable[[str], bool] | None = None) -> ViewHitList:
        hits: list[tuple[str, float, int]] = []
        seen: set[int] = set()
        for score, row in zip(scores, rows, strict=True):
            if row < 0:
                continue
            paper = int(self._paper_of_row[row])
            if paper in seen or self._papers[paper] in excluded:
                continue
            seen.add(paper)
            if accept is not None and not accept(self._papers[paper]):
                continue
            hits.append((self._papers[paper], float(score), int(row)))
            if len(hits) == k:
                break
        return hits

    def _search_reduce(self, array: np.ndarray, k: int, exclude: list[str | None], aggregate: str) -> Hits:
        n_papers = len(self._papers)
        alive = np.ones(len(self._paper_of_row))
        alive[self.dense.removed_rows()] = 0.0
        counts = np.bincount(self._paper_of_row, weights=alive, minlength=n_papers)
        block = max(1, _BLOCK_BYTES // max(1, 4 * self.num_views))
        position = self._position
        results: Hits = []
        for start in range(0, len(array), block):
            view_scores = self.dense.all_scores(array[start : start + block]).astype(np.float64)
            view_scores[:, alive == 0] = 0.0  # removed views (scored -inf) count for nothing
            totals = np.zeros((len(view_scores), n_papers))
            for j in range(len(view_scores)):
                totals[j] = np.bincount(self._paper_of_row, weights=view_scores[j], minlength=n_papers)
            with np.errstate(divide="ignore", invalid="ignore"):
                paper_scores = totals / counts if aggregate == "mean" else totals.copy()
            paper_scores[:, counts == 0] = -np.inf  # removed papers
            for j, row in enumerate(paper_scores):
                excluded = exclude[start + j]
                if excluded in position:
                    row[position[excluded]] = -np.inf
                results.append(self._top(row, k))
        return results

    def _top(self, scores: np.ndarray, k: int) -> list[tuple[str, float]]:
        return [(self._papers[i], float(scores[i])) for i in top_positions(scores, k, self._papers)]

    def save(self, path: str | Path, fingerprint: str) -> None:
        self.dense.save(path, fingerprint, extra={"kind": "multivector", "aggregate": self.aggregate})

    @classmethod
    def load(cls, path: str | Path, expected_fingerprint: str | None = None, aggregate: str | None = None
             ) -> MultiVectorIndex:
        """Read a saved index (checksums and encoder fingerprint verified by `DenseIndex.load`)."""
        meta = read_meta(Path(path))
        if meta.get("kind") != "multivector":
            raise IndexLoadError(f"{path}: a {meta.get('kind')!r} index, not a multivector index")
        dense = DenseIndex.load(path, expected_fingerprint)
        index = cls(dense.dim, dense.metric, aggregate or meta["aggregate"], dense.params)
        index.dense = dense
        index._reindex(0)
        index._gone = {p for p in index._papers if not dense.rows_of(p)}
        return index
