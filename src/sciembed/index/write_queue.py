"""Queued adds: a paper acknowledged once it is on disk, indexed by one background thread soon after.

A queued add (``POST /papers`` with ``"wait": false``) answers after one SQLite transaction has put the papers
in the catalog's ``pending`` table; this module's thread indexes them in arrival order through
`Collection.add_papers`, which takes each paper out of the queue in the transaction that indexes it. What that
promises (nothing acknowledged lost, nothing superseded indexed, failures kept with their error) and what it
measured: docs/service.md, "Queued adds".
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np

from sciembed.papers.model import Paper

log = logging.getLogger(__name__)

BATCH = 16  # queued papers indexed in one `add_papers` (one encode pass, one transaction)
RECENT = 1000  # acknowledgement-to-searchable times kept for `stats`


def still_queued(catalog: Any, pairs: list[tuple[Paper, list]], vectors: np.ndarray,
                 entries: list[tuple[str, int]]) -> tuple[list[tuple[Paper, list]], np.ndarray, list[int]]:
    """Of queued papers encoded as (paper, views) `pairs` with `vectors` (their views' rows in order), those whose
    queue entry is still there — not deleted, not superseded by a direct add since — with their rows, and the
    entries to take out of the queue. `entries`: (paper id, queue entry) of each paper in the batch; of a
    repeated id the last copy is the one encoded."""
    alive = catalog.alive([seq for _, seq in entries])
    last = dict(entries)
    keep = [last[paper.id] in alive for paper, _ in pairs]
    starts = np.cumsum([0] + [len(views) for _, views in pairs])
    rows = [r for i, kept in enumerate(keep) if kept for r in range(starts[i], starts[i + 1])]
    return [pair for pair, kept in zip(pairs, keep, strict=True) if kept], vectors[rows], sorted(alive)


class WriteQueue:
    """The background indexer of one writable collection (started on the first queued paper, or by `resume`
    when papers were left queued)."""

    def __init__(self, collection: Any) -> None:  # a `Collection` (not imported: it imports this)
        self.collection = collection
        self._wake = threading.Condition()
        self._stop = False
        self._thread: threading.Thread | None = None
        self._lags: deque[float] = deque(maxlen=RECENT)
        self._busy = False

    def enqueue(self, papers: Sequence[Paper]) -> dict[str, int]:
        """Queue papers to be added or replaced: on disk when this returns, searchable once indexed. Papers
        without text to index are not queued (counted as ``skipped_no_text``, as a direct add does)."""
        collection = self.collection
        collection._check_writable()
        pairs, skipped = collection.views_to_index(papers)
        waiting = 0
        if pairs:
            with collection._writer:  # the catalog's one writer connection
                waiting = collection.catalog.enqueue([p for p, _ in pairs])
            self.wake()
        return {"queued": len(pairs), "views": sum(len(v) for _, v in pairs), "skipped_no_text": skipped,
                "waiting": waiting}

    def resume(self) -> int:
        """Start indexing what an earlier process acknowledged but did not index (the server calls this once its
        encoders are in place); how many papers wait."""
        waiting = 0 if self.collection.read_only else self.collection.catalog.pending_counts()[0]
        if waiting:
            self.wake()
        return waiting

    def wake(self) -> None:
        """New papers are queued: start the thread if needed, wake it."""
        with self._wake:
            if self._thread is None and not self._stop:
                self._thread = threading.Thread(target=self._run, name="sciembed-write-queue", daemon=True)
                self._thread.start()
            self._wake.notify()

    def drain(self, timeout_s: float) -> bool:
        """Wait until every queued paper is indexed or failed; False if `timeout_s` passed first."""
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if not self._busy and self.collection.catalog.pending_counts()[0] == 0:
                return True
            time.sleep(0.02)
        return False

    def stats(self) -> dict[str, Any]:
        waiting, failed = self.collection.catalog.pending_counts()
        lags = np.asarray(self._lags, dtype=float)
        seen = {f"p{q}_ms": round(float(np.percentile(lags, q)) * 1000, 1) for q in (50, 99)} if len(lags) else {}
        return {"waiting": waiting, "failed": failed, "indexed_recently": len(lags), **seen}

    def close(self, timeout_s: float = 60.0) -> None:
        """Stop after the batch in hand (what is left stays queued on disk for the next start)."""
        with self._wake:
            self._stop = True
            self._wake.notify()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def _run(self) -> None:
        while True:
            with self._wake:
                if self._stop:
                    return
                try:
                    batch = self._next()
                except Exception as err:  # the catalog unreadable for a moment: the queue stays on disk, retry
                    log.warning("write queue: reading the queued papers failed (%s); retrying in 1 s", err)
                    batch = []
                if not batch:
                    self._wake.wait(1.0)
                    continue
                self._busy = True
            try:
                self._index(batch)
            finally:
                self._busy = False

    def _next(self) -> list:
        with self.collection._writer:  # the catalog's writer connection and a compaction's swap
            return self.collection.catalog.pending(BATCH)

    def _index(self, batch: list) -> None:
        seqs = [seq for seq, _, _ in batch]
        try:
            self.collection.add_papers([paper for _, paper, _ in batch], queued=seqs)
        except Exception as err:  # any failure is kept with the paper; the queue goes on
            if len(batch) > 1:  # find the paper that fails: the others are indexed
                for one in batch:
                    self._index([one])
                return
            log.warning("queued paper %s could not be indexed: %s", batch[0][1].id, err)
            with self.collection._writer:
                self.collection.catalog.fail_pending(seqs, f"{type(err).__name__}: {err}")
            return
        now = time.time()
        with self._wake:
            self._lags.extend(now - queued_at for _, _, queued_at in batch)
