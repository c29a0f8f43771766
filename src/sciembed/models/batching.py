"""Dynamic micro-batching: concurrent encode calls gathered into one forward pass.

One query per forward pass wastes the CPU on per-call overhead (MiniLM on 2 cores: ~47 single queries/s,
~324/s in batches of 32; issue 23). `MicroBatcher` puts callers' texts on one bounded queue; one worker
encodes everything queued (waiting up to `max_wait_ms` for more, or until `max_batch` texts) and hands
each caller its rows (text-embeddings-inference's and infinity-emb's design, written here because neither
can be called in-process). Past `max_queue` texts a search (`shed=True`) raises `Overloaded` (503 with
Retry-After); writes (`shed=False`) wait, queue apart and take turns with searches, every write chunk
queued sharing one turn (issue 33). Callers whose deadline passed are dropped before encoding; single
texts go through an LRU cache. With a `write_encoder` (a second instance of the model: HF fast tokenizers
are not thread-safe) writes get their own batcher and worker, and go first. See docs/service.md.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sciembed.ioutil import deadline as deadlines
from sciembed.models.encoder import EncoderWrapper, check_texts


class Overloaded(RuntimeError):
    """The encode queue is full; try again after `retry_after` seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass
class _Job:
    texts: list[str]
    expires: float | None  # time.monotonic() after which the result is not wanted
    future: Future = field(default_factory=Future)


@dataclass
class BatchStats:
    batches: int = 0
    texts: int = 0
    largest: int = 0
    dropped_expired: int = 0
    shed: int = 0
    cache_hits: int = 0
    cache_misses: int = 0

    def to_dict(self) -> dict[str, Any]:
        out = dict(vars(self))
        out["mean_batch"] = round(self.texts / self.batches, 2) if self.batches else 0.0
        return out


class MicroBatcher(EncoderWrapper):
    """An `Encoder` whose `encode` calls from many threads are batched together (see the module docstring)."""

    _own = ("encoder", "write_encoder", "_writer")

    def __init__(self, encoder: Any, *, max_batch: int = 32, max_wait_ms: float = 2.0, max_queue: int = 512,
                 cache_size: int = 2048, write_encoder: Any = None) -> None:
        if max_batch < 1 or max_queue < 1 or max_wait_ms < 0 or cache_size < 0:
            raise ValueError("max_batch and max_queue must be >= 1, max_wait_ms and cache_size >= 0")
        if write_encoder is not None and write_encoder.fingerprint != encoder.fingerprint:
            raise ValueError(f"the write encoder (fingerprint {write_encoder.fingerprint}) makes other vectors than "
                             f"the search encoder (fingerprint {encoder.fingerprint})")
        if write_encoder is encoder:
            raise ValueError("the write encoder must be a second instance, not the search encoder itself")
        self.encoder = encoder
        self.write_encoder = write_encoder  # None: writes queue for the worker like searches (shed=False)
        self._writer = None if write_encoder is None else MicroBatcher(
            write_encoder, max_batch=max_batch, max_wait_ms=0, max_queue=max_queue, cache_size=0)
        self.max_batch, self.max_wait_s, self.max_queue = max_batch, max_wait_ms / 1000, max_queue
        self.cache_size = cache_size
        self.stats = BatchStats()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._queue: deque[_Job] = deque()  # searches (shed=True)
        self._writes: deque[_Job] = deque()  # writes' chunks (shed=False), one per turn
        self._write_turn = False
        self._queued_texts = 0
        self._cond = threading.Condition()
        self._seconds_per_text = 0.01  # running estimate, for Retry-After
        self._closed = False
        self._busy = False  # a batch taken and not yet encoded
        self._passes = 0  # batches taken and finished
        self._worker = threading.Thread(target=self._run, name="encode-batcher", daemon=True)
        self._worker.start()

    # ------------------------------------------------------------------ callers

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, show_progress: bool = False,
               shed: bool = True) -> np.ndarray:
        """Rows for `texts`, encoded together with whatever other callers have queued."""
        texts = check_texts(texts)
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        if len(texts) == 1 and self.cache_size:
            with self._cond:
                hit = self._cache.get(texts[0])
                if hit is not None:
                    self._cache.move_to_end(texts[0])
                    self.stats.cache_hits += 1
                    return hit[None, :].copy()
                self.stats.cache_misses += 1
        deadlines.check("encoding")
        writes = None if shed else self._writer  # a write, with a write encoder: its own queue and worker
        result = writes.encode(texts, shed=False) if writes is not None else self._queued(texts, shed)
        if len(texts) == 1 and self.cache_size:
            self._remember(texts[0], result[0])
        return result

    def _queued(self, texts: list[str], shed: bool) -> np.ndarray:
        """`texts`' rows from the worker's next turns (see the module docstring)."""
        left = deadlines.remaining()
        job = _Job(texts, None if left is None else time.monotonic() + left)
        with self._cond:
            while self._queued_texts and self._queued_texts + len(texts) > self.max_queue:
                if shed:
                    self.stats.shed += 1
                    wait = math.ceil(self._queued_texts * self._seconds_per_text) + 1
                    raise Overloaded(f"the encode queue is full ({self._queued_texts} texts waiting)", wait)
                self._cond.wait(0.05)
                deadlines.check("waiting for the encode queue")
            (self._queue if shed else self._writes).append(job)
            self._queued_texts += len(texts)
            self._cond.notify_all()
        return job.future.result(timeout=None if left is None else max(left, 0) + 60)

    def queued(self) -> int:
        with self._cond:
            return self._queued_texts

    def report(self) -> dict[str, Any]:
        """The counters (`BatchStats`) and texts queued; with a write encoder, its own under ``writes``."""
        out = {**self.stats.to_dict(), "queued": self.queued()}
        if self._writer is not None:
            out["writes"] = self._writer.report()
        return out

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._writer is not None:
            self._writer.close()

    def _remember(self, text: str, vector: np.ndarray) -> None:
        with self._cond:
            self._cache[text] = vector.copy()
            self._cache.move_to_end(text)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)

    # ------------------------------------------------------------------ the worker

    def _take(self) -> list[_Job] | None:
        """The next batch: jobs from the front up to `max_batch` texts, after the gathering wait."""
        with self._cond:
            while not self._queue and not self._writes and not self._closed:
                self._cond.wait()
            if self._closed:
                return None
            self._busy = True  # from here until the pass ends (`_passed`)
            if self._writes and (self._write_turn or not self._queue):
                self._write_turn = False
                return self._pop(self._writes)  # every write chunk queued, up to max_batch texts: one turn
            self._write_turn = True  # a write waiting now or soon goes next
            gather_until = time.monotonic() + self.max_wait_s
            while sum(len(j.texts) for j in self._queue) < self.max_batch and \
                    (left := gather_until - time.monotonic()) > 0:
                self._cond.wait(left)
            return self._pop(self._queue)

    def _passed(self) -> None:
        with self._cond:
            self._busy = False
            self._passes += 1
            self._cond.notify_all()

    def _yield_to_writes(self) -> None:
        """Wait for the write pass running (or about to start) on the write encoder, never for more than that
        one: a write then has both cores to itself after at most the search pass in progress."""
        writer = self._writer
        if writer is None:
            return
        with writer._cond:
            if writer._busy or writer._queued_texts:
                after = writer._passes + 1
                while writer._passes < after and not writer._closed:
                    writer._cond.wait(0.1)

    def _pop(self, queue: deque[_Job]) -> list[_Job]:
        """Jobs from the front of `queue` up to `max_batch` texts (at least one); the caller holds `_cond`."""
        jobs, size = [], 0
        while queue and (not jobs or size + len(queue[0].texts) <= self.max_batch):
            job = queue.popleft()
            jobs.append(job)
            size += len(job.texts)
        self._queued_texts -= size
        self._cond.notify_all()  # writers waiting for room
        return jobs

    def _run(self) -> None:
        while (jobs := self._take()) is not None:
            self._yield_to_writes()
            try:
                self._encode(jobs)
            finally:
                self._passed()

    def _encode(self, jobs: list[_Job]) -> None:
        """One forward pass over `jobs`' texts (those still wanted); each job's future gets its rows or the error."""
        now = time.monotonic()
        live = []
        for job in jobs:
            if job.expires is not None and job.expires <= now:
                self.stats.dropped_expired += 1
                job.future.set_exception(deadlines.DeadlineExceeded("encoding ran past its time limit"))
            elif job.future.set_running_or_notify_cancel():
                live.append(job)
        if not live:
            return
        texts = [t for job in live for t in job.texts]
        started = time.perf_counter()
        try:
            vectors = self.encoder.encode(texts, batch_size=len(texts), show_progress=False)
        except BaseException as err:  # every waiting caller gets the error; the worker lives on
            for job in live:
                job.future.set_exception(err)
            return
        self._seconds_per_text = 0.8 * self._seconds_per_text + 0.2 * (time.perf_counter() - started) / len(texts)
        self.stats.batches += 1
        self.stats.texts += len(texts)
        self.stats.largest = max(self.stats.largest, len(texts))
        start = 0
        for job in live:
            job.future.set_result(vectors[start : start + len(job.texts)])
            start += len(job.texts)
