"""A served collection: an index directory opened once for search and live updates.

`Collection.open` loads the encoder the index was built with (or refuses one with another fingerprint), the
faiss index and the SQLite catalog (`index/catalog.py`), replaying live updates. Searches run concurrently; a
write encodes its papers, commits them to the catalog (durable from then on) and only then takes the index's
write lock for the in-memory add, so searches wait at most for that step. Paper-to-paper search goes through
`Collection.paper_search` (default `multiview_paper_search`; the service's fused search plugs in there) and
never returns the paper or its title twins. `compact` (``POST /compact``, or ``auto_compact``) rewrites the
collection without the rows deletes and replacements hid (`index/compaction.py`).
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.index.catalog import CATALOG, Catalog
from sciembed.index.collection_results import Accept, Filters, Hit, PaperHits, SearchResult, snippet
from sciembed.index.compaction import CollectionBusy, compact_collection, open_lock, open_writer_lock
from sciembed.index.indexed_views import index_views, piece_limits
from sciembed.index.live_index import encoder_from_manifest, open_live_catalog
from sciembed.index.paper_index import read_manifest
from sciembed.index.write_queue import WriteQueue, still_queued
from sciembed.ioutil import deadline as deadlines
from sciembed.ioutil.gather import Gatherer
from sciembed.ioutil.locks import FairLock, ReadWriteLock
from sciembed.models.batching import MicroBatcher
from sciembed.papers.model import Paper
from sciembed.papers.titles import TitleTwins
from sciembed.retrieval.dense import IndexLoadError
from sciembed.retrieval.multivector import MultiVectorIndex
from sciembed.views import View, ta_text, ta_view, target_words, window_at
from sciembed.views.body import body_words
from sciembed.views.window import eligible_sections

PaperSearch = Callable[["Collection", Paper, int, "Accept | None", dict[str, Any]], PaperHits]

WRITE_ENCODE_TURN = 16  # texts a write encodes before letting queries use the encoder


def query_views(paper: Paper, target: int) -> list[View]:
    """A paper as queries: its title+abstract and a window at every section header."""
    views = [ta_view(paper)] if ta_text(paper).strip() else []
    body = body_words(paper)
    return views + [window_at(paper, i, target, body) for i in eligible_sections(paper, body)]


def multiview_paper_search(collection: Collection, paper: Paper, depth: int, accept: Accept | None,
                           knobs: dict[str, Any]) -> PaperHits:
    """Default paper-to-paper search: every query view searched, a candidate scores its best over them;
    the paper and its title twins never returned (`Collection.excluded`)."""
    views = query_views(paper, collection.target)
    if not views:
        raise ValueError(f"paper {paper.id!r} has no title, abstract or body text to search with")
    vectors = collection.paper_vectors(paper.id) if collection.holds(paper.id) else None
    if vectors is None:
        vectors = collection.encode([v.text for v in views])
    return collection.search_vectors(vectors, depth, exclude=collection.excluded(paper), accept=accept, knobs=knobs)


class Collection:
    """Search and live updates over one index directory (see the module docstring)."""

    def __init__(self, path: Path, index: MultiVectorIndex, catalog: Catalog, encoder: Any, manifest: dict[str, Any],
                 paper_search: PaperSearch | None = None, lock_fd: int | None = None, auto_compact: float = 0.0,
                 writer_fd: int | None = None) -> None:
        self.path, self.index, self.catalog, self.encoder, self.manifest = path, index, catalog, encoder, manifest
        self._lock_fd = lock_fd
        self._writer_fd = writer_fd  # held while open for writing: one writer per collection (None: read-only)
        self.auto_compact = auto_compact  # compact after a write once this share of rows is hidden (0: never)
        self.paper_search: PaperSearch = paper_search or multiview_paper_search
        self.view_kind: str = manifest["view"]
        self.target: int = manifest.get("target_words") or target_words(encoder.max_seq_length)
        self.piece_tokens: int | None = manifest.get("piece_tokens")
        self.piece_limits = piece_limits(manifest)  # a full-text index's late part reads some pieces only
        self._lock = ReadWriteLock()
        self._writer = threading.RLock()  # re-entered by an automatic compaction after a write
        self._encode_lock = FairLock()  # HF fast tokenizers are not safe to share across threads
        self._fields = catalog.filter_fields()
        self._twins = TitleTwins(catalog.titles().items())
        self._gatherer: Gatherer | None = None  # set by `gather_searches` (the service)
        self.queue = WriteQueue(self)  # queued adds (`WriteQueue.enqueue`): its thread starts with the first one
        self._tell_search("attach")

    def _tell_search(self, event: str, *args: Any) -> None:
        """Let a paper search that follows live papers (`FusedPaperSearch`: attach, added, removed) see a change."""
        if (hook := getattr(self.paper_search, event, None)) is not None:
            hook(self, *args)

    @classmethod
    def open(cls, path: str | Path, encoder: Any = None, paper_search: PaperSearch | None = None,
             auto_compact: float = 0.0, read_only: bool = False) -> Collection:
        """Open an index directory; with `encoder`, refuse an index built by another model.

        An interrupted compaction is settled first (`compaction.recover`). Opened for writing (the default), the
        collection is this process's alone: a second writer's view of the catalog would diverge from the
        first's. `read_only` opens beside a writer and refuses adds, deletes and compaction.
        """
        path = Path(path)
        lock_fd = open_lock(path)
        writer_fd = None
        try:
            writer_fd = None if read_only else open_writer_lock(path)
            return cls._open(path, encoder, paper_search, lock_fd, auto_compact, writer_fd)
        except BaseException:
            os.close(lock_fd)
            if writer_fd is not None:
                os.close(writer_fd)
            raise

    @classmethod
    def _open(cls, path: Path, encoder: Any, paper_search: PaperSearch | None, lock_fd: int,
              auto_compact: float, writer_fd: int | None) -> Collection:
        manifest = read_manifest(path)
        built = manifest["encoder"]["fingerprint"]
        if encoder is not None and encoder.fingerprint != built:
            raise IndexLoadError(f"{path}: built with {manifest['encoder'].get('name')} (fingerprint {built}), but "
                                 f"the configured model is {getattr(encoder, 'name', '?')} (fingerprint "
                                 f"{encoder.fingerprint}); queries would be compared with vectors of another model — "
                                 "serve it with the model it was built with, or rebuild it")
        encoder = encoder or encoder_from_manifest(manifest)
        index = MultiVectorIndex.load(path / "index", expected_fingerprint=encoder.fingerprint)
        catalog = open_live_catalog(path, index, manifest)
        return cls(path, index, catalog, encoder, manifest, paper_search, lock_fd, auto_compact, writer_fd)

    # ---------------------------------------------------------------- reading

    def stats(self) -> dict[str, Any]:
        with self._lock.read():
            dense = self.index.dense
            return {"papers": len(self.index), "vectors": dense.live_count, "rows": len(dense), "view": self.view_kind,
                    "index": dense.params.to_dict(), "metric": dense.metric, "dim": dense.dim,
                    "model": {k: self.manifest["encoder"].get(k) for k in ("name", "backend", "max_seq_length")},
                    "fingerprint": self.encoder.fingerprint, "live_rows": len(dense) - self.catalog.base_rows,
                    "hidden_rows": len(dense) - dense.live_count, "hidden_share": round(self.hidden_share(), 4),
                    "queue": self.queue.stats()}

    def hidden_share(self) -> float:
        """Share of the index's rows that deletes and replacements left hidden (what compaction removes)."""
        dense = self.index.dense
        return (len(dense) - dense.live_count) / len(dense) if len(dense) else 0.0

    @property
    def read_only(self) -> bool:
        return self._writer_fd is None

    def _check_writable(self) -> None:
        if self.read_only:
            raise PermissionError(f"{self.path}: opened read-only (another process is its writer)")

    def compact(self, step: Any = None) -> dict[str, Any]:
        """Rewrite the collection without hidden rows (searches wait while it runs); see `index/compaction.py`."""
        self._check_writable()
        with self._writer, self._lock.write():
            if self._lock_fd is not None:
                try:
                    fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError as err:
                    raise CollectionBusy(f"{self.path}: another process has this collection open; "
                                         "compaction needs it alone") from err
            self.catalog.close()
            try:
                self.index, result = compact_collection(self.path, self.index, step=step)
            finally:
                self.catalog = Catalog(self.path / CATALOG)
                if self._lock_fd is not None:
                    fcntl.flock(self._lock_fd, fcntl.LOCK_SH)
            return result.to_dict()

    def _maybe_compact(self) -> None:
        if self.auto_compact and self.hidden_share() >= self.auto_compact:
            self.compact()

    def holds(self, paper_id: str) -> bool:
        with self._lock.read():
            return bool(self.index.dense.rows_of(paper_id))

    def paper(self, paper_id: str) -> dict[str, Any] | None:
        with self._lock.read():
            card = self.catalog.card(paper_id)
            if card is not None:
                card["views"] = len(self.index.dense.rows_of(paper_id))
        return card

    def encode(self, texts: Sequence[str], *, shed: bool = True) -> np.ndarray:
        """Vectors for `texts`, `WRITE_ENCODE_TURN` at a time; the thread's deadline is checked between turns.

        With a `MicroBatcher` as encoder (the service), turns join other callers' batches and a full queue
        raises `Overloaded` when `shed`; otherwise one caller at a time uses the encoder (HF fast tokenizers
        are not safe to share across threads).
        """
        texts = list(texts)
        parts = []
        for start in range(0, len(texts), WRITE_ENCODE_TURN):
            deadlines.check("encoding")
            chunk = texts[start : start + WRITE_ENCODE_TURN]
            if isinstance(self.encoder, MicroBatcher):
                parts.append(self.encoder.encode(chunk, shed=shed))
            else:
                with self._encode_lock:
                    parts.append(self.encoder.encode(chunk, show_progress=False))
        return np.concatenate(parts) if parts else np.zeros((0, self.index.dim), np.float32)

    def encode_in_turns(self, texts: Sequence[str]) -> np.ndarray:
        """A write's texts encoded `WRITE_ENCODE_TURN` at a time, letting queries use the encoder between turns;
        never shed. One call per batch held every search for seconds (benchmarks/results/serve.json)."""
        return self.encode(texts, shed=False)

    def excluded(self, paper: Paper) -> list[str]:
        """What a search for `paper` must not return: the paper and the papers with its normalised title (as
        ``sciembed index search`` and evaluation exclude them)."""
        with self._lock.read():
            return self._twins.excluded(paper.id, paper.title)

    def paper_vectors(self, paper_id: str) -> np.ndarray | None:
        with self._lock.read():
            rows = self.index.dense.rows_of(paper_id)
            return self.index.dense.vectors(rows) if rows else None

    def search_vectors(self, vectors: np.ndarray, depth: int, *, exclude: Sequence[str] = (),
                       accept: Accept | None = None, knobs: dict[str, Any] | None = None) -> PaperHits:
        """Top-`depth` papers over several query vectors, a paper's score its best over them (max); in the
        service (`gather_searches`), unfiltered searches of concurrent requests are gathered into one."""
        if self._gatherer is not None and accept is None:
            return self._gatherer((vectors, depth, tuple(exclude), tuple(sorted((knobs or {}).items()))))
        with self._lock.read():
            return self.index.search_views(vectors, depth, "max_sim", exclude=exclude, accept=accept, **(knobs or {}))

    def gather_searches(self, max_batch: int = 32, max_wait_ms: float = 1.0) -> None:
        """From now on, search concurrent callers' query vectors together (see `ioutil/gather.py`)."""
        if self._gatherer is None:
            self._gatherer = Gatherer(self._search_gathered, max_batch=max_batch, max_wait_ms=max_wait_ms,
                                      name="search-gatherer")

    def gathering_stats(self) -> dict[str, Any] | None:
        """Gathered index searches so far: calls, queries, mean per call (None when not gathering)."""
        g = self._gatherer
        if g is None:
            return None
        return {"calls": g.calls, "searches": g.items, "mean_gathered": round(g.items / g.calls, 2) if g.calls else 0.0}

    def _search_gathered(self, items: list[tuple[np.ndarray, int, tuple[str, ...], tuple]]) -> list[PaperHits]:
        """Gathered searches, one index search per distinct set of knobs (usually one)."""
        out: list[PaperHits] = [[] for _ in items]
        groups: dict[tuple, list[int]] = {}
        for i, (_, _, _, knobs) in enumerate(items):
            groups.setdefault(knobs, []).append(i)
        with self._lock.read():
            for knobs, members in groups.items():
                depth = max(items[i][1] for i in members)
                found = self.index.search_sets([items[i][0] for i in members], depth,
                                               [set(items[i][2]) for i in members], knobs=dict(knobs))
                for i, hits in zip(members, found, strict=True):
                    out[i] = hits[: items[i][1]]
        return out

    def search(self, *, query: str | None = None, paper_id: str | None = None, paper: Paper | None = None,
               k: int = 10, offset: int = 0, filters: Filters | None = None, ef_search: int | None = None,
               nprobe: int | None = None, refine_k_factor: int | None = None) -> SearchResult:
        """One of: a free-text `query`, a `paper_id` of the collection ("more like this"), or a whole `paper`."""
        if sum(x is not None for x in (query, paper_id, paper)) != 1:
            raise ValueError("give exactly one of query, paper_id or paper")
        if k <= 0 or offset < 0:
            raise ValueError(f"k must be positive and offset non-negative (got k={k}, offset={offset})")
        started = time.perf_counter()
        accept = (filters or Filters()).predicate(self._fields)
        knobs = {"ef_search": ef_search, "nprobe": nprobe, "refine_k_factor": refine_k_factor}
        depth = offset + k + 1  # one more tells whether a next page exists
        views = 1
        if query is not None:
            if not query.strip():
                raise ValueError("empty query")
            found = self.search_vectors(self.encode([query]), depth, accept=accept, knobs=knobs)
        else:
            if paper_id is not None:
                with self._lock.read():
                    card = self.catalog.card(paper_id)
                if card is None or not self.holds(paper_id):
                    raise KeyError(paper_id)
                paper = Paper(id=paper_id, title=card["title"], abstract=card["abstract"])
            assert paper is not None
            found = self.paper_search(self, paper, depth, accept, knobs)
            views = max(1, len(query_views(paper, self.target))) if paper_id is None else len(
                self.index.dense.rows_of(paper_id))
        hits = self._hits(found[offset : offset + k], query)
        return SearchResult(hits, offset, k, (time.perf_counter() - started) * 1000, views, len(found) > offset + k)

    def _hits(self, page: PaperHits, query: str | None) -> list[Hit]:
        with self._lock.read():  # rows are renumbered by a compaction: read them under the same lock as the search
            summaries = self.catalog.summaries([pid for pid, _, _ in page])
            people = self.catalog.people([pid for pid, _, _ in page])
            views = self.catalog.views([row for _, _, row in page])
        hits = []
        for pid, score, row in page:
            title, year, venue, domain = summaries.get(pid, ("", None, None, None))
            authors, short = people.get(pid, ([], None))
            view = views.get(row)
            hits.append(Hit(id=pid, title=title, score=round(float(score), 6), year=year, venue=venue, domain=domain,
                            view=view.kind if view else "", section=view.section if view else None,
                            snippet=snippet(view.text, query) if view else "", authors=authors, venue_short=short))
        return hits

    # ---------------------------------------------------------------- writing

    def add_papers(self, papers: Sequence[Paper], queued: Sequence[int] | None = None) -> dict[str, int]:
        """Add or replace papers (by id): views encoded, committed to disk, then added to the live index.

        `queued`: the queue entries the papers came from, one per paper (`index/write_queue.py`); a paper
        whose entry left the queue meanwhile (deleted, or added directly since) is not indexed.
        """
        self._check_writable()
        pairs, skipped = self.views_to_index(dict((p.id, p) for p in papers).values())  # a repeated id: the last
        if not pairs and queued is None:
            return {"added": 0, "replaced": 0, "views": 0, "skipped_no_text": skipped}
        vectors = self.encode_in_turns([v.text for _, own in pairs for v in own])
        with self._writer:
            done = None
            if queued is not None:
                entries = list(zip((p.id for p in papers), queued, strict=True))
                pairs, vectors, done = still_queued(self.catalog, pairs, vectors, entries)
            all_views = [v for _, own in pairs for v in own]
            first = len(self.index.dense)
            old_rows = self.catalog.add([p for p, _ in pairs], all_views, vectors, first, queued=done)
            with self._lock.write():
                self.index.add([v.paper_id for v in all_views], vectors)
                self.index.remove_rows(old_rows)
                for paper, _ in pairs:
                    self._twins.add(paper.id, paper.title)
                    self._fields[paper.id] = (paper.year, (paper.venue or "").lower(), (paper.domain or "").lower(),
                                              (paper.venue_short or "").lower())
            replaced = len({self.index.paper_of_row(r) for r in old_rows})
            if pairs:
                self._tell_search("added", [p for p, _ in pairs])
            self._maybe_compact()
        return {"added": len(pairs) - replaced, "replaced": replaced, "views": len(all_views),
                "skipped_no_text": skipped}

    def views_to_index(self, papers: Iterable[Paper]) -> tuple[list[tuple[Paper, list[View]]], int]:
        """(paper, its views) for the papers with text to index, and how many had none."""
        pairs = [(p, index_views(p, self.view_kind, self.target, piece_tokens=self.piece_tokens,
                                 **self.piece_limits)[0]) for p in papers]
        return [(p, views) for p, views in pairs if views], sum(not views for _, views in pairs)

    def delete(self, paper_id: str) -> bool:
        """Remove a paper; False when it is not in the collection (also when a concurrent delete won)."""
        self._check_writable()
        with self._writer:
            rows = self.catalog.delete(paper_id)
            if rows is None:
                return False
            with self._lock.write():
                self.index.remove_rows(rows)
                self._fields.pop(paper_id, None)
                self._twins.remove(paper_id)
            self._tell_search("removed", paper_id)
            self._maybe_compact()
        return True

    def close(self) -> None:
        self.queue.close()
        self.catalog.close()
        if isinstance(self.encoder, MicroBatcher):
            self.encoder.close()
        if self._gatherer is not None:
            self._gatherer.close()
        for name in ("_lock_fd", "_writer_fd"):
            fd = getattr(self, name)
            if fd is not None:
                os.close(fd)
                setattr(self, name, None)
