"""The service's "similar papers" through a learned fusion: the served collection plus companion indexes.

The served collection answers one run of a `FusionSpec` (named as `runs.run_name` names index directories),
read-only companion index directories the others, each ranked as `PaperSearch` ranks it, so ``POST /search``
with a ``paper_id`` ranks as ``sciembed index search SERVED COMPANION… --paper ID --method late --fusion FILE``
does (docs/p2p.md, "Similar papers in the service"). Papers added live take part through the companions'
overlays (`search/live_overlay.py`); papers deleted from the collection are never returned.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sciembed.index.indexed_views import index_views
from sciembed.papers.model import Paper
from sciembed.search.learned_fusion import FusionError, FusionSpec, measured_default
from sciembed.search.live_overlay import BM25Overlay, DenseOverlay, merge
from sciembed.search.open import open_run
from sciembed.search.paper_search import FUSION_DEPTH, fuse
from sciembed.search.runs import Query, Ranking, Run, run_name, view_method

if TYPE_CHECKING:
    from sciembed.index.collection import Collection
    from sciembed.index.collection_results import Accept, PaperHits


class FusedPaperSearch:
    """A `PaperSearch` (see `sciembed.index.collection`) that fuses the served collection with companions."""

    def __init__(self, spec: FusionSpec | None, companions: Sequence[str | Path], served_view: str) -> None:
        self.served = run_name("dense", served_view, view_method(served_view))  # as an index directory is named
        self.served_method = view_method(served_view) or "max_sim"
        self.companions: dict[str, Run] = {}
        for path in companions:  # dense ones searched by their view's method (`view_method`), BM25 by text
            run = open_run(path)
            view = run.manifest.get("view", "?")
            if run.kind == "dense" and (method := view_method(view)) is not None:
                run.name, run.method = run_name("dense", view, method), method
            if run.name == self.served or run.name in self.companions:
                raise FusionError(f"{path} answers run {run.name!r}, which another index already answers")
            self.companions[run.name] = run
        answered = [self.served, *self.companions]
        if spec is None:  # no tuned fusion.json: the one measured on real papers, if these are its runs
            spec = measured_default(answered)
            if spec is None:
                raise FusionError("no fusion.json in the index directories, and the runs answered "
                                  f"({', '.join(answered)}) are not those of the measured default (bm25, a2a, "
                                  "late): give --fusion FILE (`sciembed eval run --kind paper_to_paper "
                                  "--set tune_fusion=true` tunes one)")
        self.spec = spec
        spec.check_model([run.fingerprint for run in self.companions.values() if run.kind != "bm25"],
                         "the companion indexes")
        missing = [r for r in spec.runs if r not in answered]
        if missing:
            raise FusionError(f"the fusion {spec.label} fuses {spec.runs}; the served collection answers "
                              f"{self.served!r} and the companion indexes {sorted(self.companions)}: "
                              f"missing {missing}")
        self._lock = threading.Lock()  # companion indexes (BM25, faiss) are searched one request at a time
        self.overlays: dict[str, BM25Overlay | DenseOverlay] = {  # the papers added live since they were built
            name: BM25Overlay(run) if run.kind == "bm25" else DenseOverlay(run)
            for name, run in self.companions.items()}

    # ------------------------------------------------------------ live papers (called by the Collection)

    def attach(self, collection: Collection) -> None:
        """Take in the papers added live before this start (kept in the collection's catalog)."""
        self.added(collection, collection.catalog.live_papers())

    def added(self, collection: Collection, papers: Sequence[Paper]) -> None:
        papers = list(papers)
        if not papers:
            return
        vectors = {name: {p.id: overlay.vectors(collection, p) for p in papers}
                   for name, overlay in self.overlays.items() if isinstance(overlay, DenseOverlay)}
        with self._lock:
            for name, overlay in self.overlays.items():
                if isinstance(overlay, DenseOverlay):
                    overlay.put(papers, vectors[name])
                else:
                    overlay.put(papers)

    def removed(self, collection: Collection, paper_id: str) -> None:
        with self._lock:
            for overlay in self.overlays.values():
                overlay.remove([paper_id])

    @property
    def label(self) -> str:
        return self.spec.label

    def __call__(self, collection: Collection, paper: Paper, depth: int, accept: Accept | None,
                 knobs: dict[str, Any]) -> PaperHits:
        deep = max(depth, FUSION_DEPTH)
        excluded = collection.excluded(paper)
        rankings: dict[str, Ranking] = {}
        rows: dict[str, int] = {}
        if self.served in self.spec.runs:
            hits = self._served(collection, paper, deep, excluded, knobs)
            rankings[self.served] = [(pid, score) for pid, score, _ in hits]
            rows = {pid: row for pid, _, row in hits}
        with self._lock:
            for name, run in self.companions.items():
                if name in self.spec.runs:
                    rankings[name] = self._companion(collection, run, paper, deep, excluded)
        fused = fuse(rankings, None, self.spec)
        out = []
        for pid, score in fused:
            if pid in excluded or not collection.holds(pid) or (accept is not None and not accept(pid)):
                continue
            out.append((pid, score, rows.get(pid, -1)))
            if len(out) == depth:
                break
        return out

    def _served(self, collection: Collection, paper: Paper, depth: int, excluded: list[str],
                knobs: dict[str, Any]) -> PaperHits:
        vectors = collection.paper_vectors(paper.id) if collection.holds(paper.id) else None
        if vectors is None:
            views, _ = index_views(paper, collection.view_kind, collection.target, piece_tokens=collection.piece_tokens,
                                   **collection.piece_limits)
            if not views:
                return []
            vectors = collection.encode([v.text for v in views])
        with collection._lock.read():
            return collection.index.search_views(vectors, depth, self.served_method, exclude=excluded, **knobs)

    def _companion(self, collection: Collection, run: Run, paper: Paper, depth: int, excluded: list[str]) -> Ranking:
        """The companion's ranking for `paper`, its snapshot and its overlay of live papers merged."""
        overlay = self.overlays[run.name]
        live = paper.id in overlay.papers
        if live:  # searched by its stored full text (a request by id brings only title and abstract)
            paper = collection.catalog.live_paper(paper.id) or paper
        deeper = depth + len(overlay.papers.keys() & run.titles.keys())  # stale snapshot entries are dropped
        stored = None if live else run.stored(paper.id)
        if isinstance(overlay, BM25Overlay):
            query = stored if stored is not None else overlay.query_text(paper)
            if not query.strip():
                return []
            found = overlay.search(query, depth, excluded)
        else:
            query = stored if stored is not None else (
                overlay.index.views_of(paper.id) if live else overlay.vectors(collection, paper))
            if query is None:
                return []
            found = overlay.search(query, depth, run.method or "max_sim", excluded)
        snapshot = run.rank([Query(paper.id, {run.name: query}, excluded)], deeper)[0]
        return merge(snapshot, found, overlay.papers, depth)
