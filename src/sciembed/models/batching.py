"""Dynamic micro-batching: concurrent encode calls gathered into one forward pass.

A service answering one query per forward pass spends its CPU on per-call
overhead: MiniLM on 2 cores encodes ~47 single queries/s but ~324 queries/s
in batches of 32 (issue 23). `MicroBatcher` wraps an `Encoder`: callers put
their texts on one queue and wait; one worker thread takes everything queued
(after waiting up to `max_wait_ms` for more, or until `max_batch` texts), encodes
it in one call with the backend's own thread pool sized to the cores, and hands
each caller its rows. The same design as text-embeddings-inference and
infinity-emb, written here because neither is a library one can call in-process.

The queue is bounded (`max_queue` texts): past it, `encode(..., shed=True)`
raises `Overloaded` at once (the service answers 503 with Retry-After) instead
of letting every request's latency grow without limit; `shed=False` (writes)
waits for room. Writes queue apart from searches and take turns with them, so
short queries are never padded to a write's long texts in one forward pass,
a stream of searches cannot starve a write, and a write never waits behind
more than one search batch. A write turn is bounded by tokens
(`max_write_tokens`, counted as texts x the longest text's tokens, the padded
size of the pass) unless a backlog has built up — then it takes half of the
queued write texts, so the backlog halves every turn and a write waits for a
few turns at most. It takes texts from the front, splitting a write's chunk
across turns where it must. Issue 33: a turn of every queued add (up to 32
abstracts) was a long pass that made searches 2-3x slower, while a fixed
small turn let adds queue up where passes are slow (a loaded box). A caller
whose deadline (`sciembed.ioutil.deadline`) passes while queued is dropped
before its texts are encoded. Single-text calls (queries) go through a small
LRU cache of vectors.
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
from sciembed.models.encoder import check_texts

CHARS_PER_TOKEN = 4  # for a write's token estimate (English text, WordPiece or BPE)


class Overloaded(RuntimeError):
    """The encode queue is full; try again after `retry_after` seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(eq=False)  # identity: two callers may queue the same texts
class _Job:
    texts: list[str]
    expires: float | None  # time.monotonic() after which the result is not wanted
    write: bool = False
    tokens: list[int] = field(default_factory=list)  # writes: each text's estimated tokens (`_token_counts`)
    taken: int = 0  # texts handed to a forward pass so far (a write's may span several turns)
    rows: list[np.ndarray] = field(default_factory=list)  # vectors of the parts encoded so far
    future: Future = field(default_factory=Future)


@dataclass
class _Part:
    """Texts `start:stop` of a job, encoded in one forward pass."""

    job: _Job
    start: int
    stop: int

    @property
    def texts(self) -> list[str]:
        return self.job.texts[self.start : self.stop]

    @property
    def write(self) -> bool:
        return self.job.write


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


class MicroBatcher:
    """An `Encoder` whose `encode` calls from many threads are batched together (see the module docstring)."""

    def __init__(self, encoder: Any, *, max_batch: int = 32, max_wait_ms: float = 2.0, max_queue: int = 512,
                 cache_size: int = 2048, max_write_tokens: int = 1024) -> None:
        if max_batch < 1 or max_queue < 1 or max_write_tokens < 1 or max_wait_ms < 0 or cache_size < 0:
            raise ValueError("max_batch, max_queue and max_write_tokens must be >= 1, max_wait_ms and cache_size >= 0")
        self.encoder = encoder
        self.max_batch, self.max_wait_s, self.max_queue = max_batch, max_wait_ms / 1000, max_queue
        self.max_write_tokens = max_write_tokens
        self.cache_size = cache_size
        self.stats = BatchStats()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._queue: deque[_Job] = deque()  # searches (shed=True)
        self._writes: deque[_Job] = deque()  # writes' chunks (shed=False), taken by tokens
        self._write_turn = False
        self._queued_texts = 0
        self._cond = threading.Condition()
        self._seconds_per_text = 0.01  # running estimate, for Retry-After
        self._closed = False
        self._worker = threading.Thread(target=self._run, name="encode-batcher", daemon=True)
        self._worker.start()

    # The Encoder interface: everything but `encode` is the wrapped encoder's.
    name = property(lambda self: self.encoder.name)
    fingerprint = property(lambda self: self.encoder.fingerprint)
    max_seq_length = property(lambda self: self.encoder.max_seq_length)
    dim = property(lambda self: self.encoder.dim)
    metric = property(lambda self: self.encoder.metric)

    def __getattr__(self, item: str) -> Any:
        if item == "encoder":
            raise AttributeError(item)
        return getattr(self.encoder, item)

    def count_tokens(self, text: str) -> int:
        return self.encoder.count_tokens(text)

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
        left = deadlines.remaining()
        job = _Job(texts, None if left is None else time.monotonic() + left, write=not shed,
                   tokens=[] if shed else self._token_counts(texts))
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
        result = job.future.result(timeout=None if left is None else max(left, 0) + 60)
        if len(texts) == 1 and self.cache_size:
            self._remember(texts[0], result[0])
        return result

    def _token_counts(self, texts: list[str]) -> list[int]:
        """Each text's tokens, estimated at 4 characters a token and capped at the encoder's `max_seq_length`.
        Not the tokenizer: it belongs to the worker's pass, and a fast tokenizer used from a request thread at
        the same time fails ("Already borrowed")."""
        cap = getattr(self.encoder, "max_seq_length", None) or 1 << 30
        return [max(1, min(cap, -(-len(t) // CHARS_PER_TOKEN))) for t in texts]

    def queued(self) -> int:
        with self._cond:
            return self._queued_texts

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def _remember(self, text: str, vector: np.ndarray) -> None:
        with self._cond:
            self._cache[text] = vector.copy()
            self._cache.move_to_end(text)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)

    # ------------------------------------------------------------------ the worker

    def _take(self) -> list[_Part] | None:
        """The next forward pass: a write turn, or searches from the front up to `max_batch` texts after the
        gathering wait. Writes and searches alternate while both are queued."""
        with self._cond:
            while not self._queue and not self._writes and not self._closed:
                self._cond.wait()
            if self._closed:
                return None
            if self._writes and (self._write_turn or not self._queue):
                self._write_turn = False
                return self._pop_writes()
            self._write_turn = True  # a write waiting now or soon goes next
            gather_until = time.monotonic() + self.max_wait_s
            while sum(len(j.texts) for j in self._queue) < self.max_batch and \
                    (left := gather_until - time.monotonic()) > 0:
                self._cond.wait(left)
            return self._pop(self._queue)

    def _pop(self, queue: deque[_Job]) -> list[_Part]:
        """Jobs from the front of `queue` up to `max_batch` texts (at least one); the caller holds `_cond`."""
        parts, size = [], 0
        while queue and (not parts or size + len(queue[0].texts) <= self.max_batch):
            job = queue.popleft()
            parts.append(_Part(job, 0, len(job.texts)))
            size += len(job.texts)
        self._queued_texts -= size
        self._cond.notify_all()  # writers waiting for room
        return parts

    def _pop_writes(self) -> list[_Part]:
        """One write turn, from the front of the write queue: texts while the pass stays within
        `max_write_tokens` (texts x the longest one's tokens) or holds under half the write texts queued
        (a backlog halves every turn instead of growing where passes are slow), and within `max_batch`
        texts; at least one. A write's chunk may be split across turns. The caller holds `_cond`."""
        backlog = sum(len(j.texts) - j.taken for j in self._writes)
        parts: list[_Part] = []
        n = longest = 0
        while self._writes:
            job = self._writes[0]
            start = job.taken
            while job.taken < len(job.texts):
                wider = max(longest, job.tokens[job.taken])
                if n >= self.max_batch or (wider * (n + 1) > self.max_write_tokens and 2 * n >= backlog):
                    break
                n, longest, job.taken = n + 1, wider, job.taken + 1
            if job.taken > start:
                parts.append(_Part(job, start, job.taken))
            if job.taken < len(job.texts):
                break  # the turn is full
            self._writes.popleft()
        self._queued_texts -= n
        self._cond.notify_all()  # writers waiting for room
        return parts

    def _fail(self, job: _Job, err: BaseException) -> None:
        """`job`'s caller gets `err`; the rest of a write split across turns leaves the queue."""
        with self._cond:
            if job.future.done():
                return
            job.future.set_exception(err)
            if job.write and job.taken < len(job.texts):
                self._writes.remove(job)
                self._queued_texts -= len(job.texts) - job.taken
                self._cond.notify_all()

    def _run(self) -> None:
        while (parts := self._take()) is not None:
            now = time.monotonic()
            live = []
            for part in parts:
                job = part.job
                if job.future.done():  # an earlier part of this write failed
                    continue
                if job.expires is not None and job.expires <= now:
                    self.stats.dropped_expired += 1
                    self._fail(job, deadlines.DeadlineExceeded("encoding ran past its time limit"))
                elif job.future.running() or job.future.set_running_or_notify_cancel():
                    live.append(part)
            if not live:
                continue
            texts = [t for part in live for t in part.texts]
            started = time.perf_counter()
            try:
                vectors = self.encoder.encode(texts, batch_size=len(texts), show_progress=False)
            except BaseException as err:  # every waiting caller gets the error; the worker lives on
                for part in live:
                    self._fail(part.job, err)
                continue
            self._seconds_per_text = 0.8 * self._seconds_per_text + 0.2 * (time.perf_counter() - started) / len(texts)
            self.stats.batches += 1
            self.stats.texts += len(texts)
            self.stats.largest = max(self.stats.largest, len(texts))
            start = 0
            for part in live:
                job, size = part.job, part.stop - part.start
                job.rows.append(vectors[start : start + size])
                start += size
                if part.stop == len(job.texts):
                    job.future.set_result(job.rows[0] if len(job.rows) == 1 else np.concatenate(job.rows))
