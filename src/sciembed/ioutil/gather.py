"""Calls from many threads gathered into one call over all their items.

A flat index answers 32 queries in one matrix product for little more than one query's memory pass
(100,000 × 384 floats = 150 MB), so a service searches concurrent queries together, as it encodes them
(`models/batching.py`). Callers hand `Gatherer(fn)` one item each; one worker calls `fn(items)` on what
queued (up to `max_wait_ms`, at most `max_batch`). No queue limit: callers already passed the encoder's.
A caller whose deadline passes while waiting gets `DeadlineExceeded`.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Generic, TypeVar

from sciembed.ioutil import deadline as deadlines

Item = TypeVar("Item")
Result = TypeVar("Result")


class Gatherer(Generic[Item, Result]):
    """`gatherer(item)` -> `fn([..., item, ...])[its place]`, with concurrent callers' items in one call."""

    def __init__(self, fn: Callable[[list[Item]], Sequence[Result]], *, max_batch: int = 32,
                 max_wait_ms: float = 1.0, name: str = "gatherer") -> None:
        if max_batch < 1 or max_wait_ms < 0:
            raise ValueError("max_batch must be >= 1 and max_wait_ms >= 0")
        self.fn, self.max_batch, self.max_wait_s = fn, max_batch, max_wait_ms / 1000
        self.calls = 0
        self.items = 0
        self._queue: deque[tuple[Item, Future]] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._worker = threading.Thread(target=self._run, name=name, daemon=True)
        self._worker.start()

    def __call__(self, item: Item) -> Result:
        deadlines.check("waiting to search")
        future: Future = Future()
        with self._cond:
            if self._closed:
                raise RuntimeError("the gatherer is closed")
            self._queue.append((item, future))
            self._cond.notify_all()
        left = deadlines.remaining()
        try:
            return future.result(timeout=None if left is None else max(left, 0))
        except TimeoutError as err:
            future.cancel()  # still queued: never computed; already running: its result is dropped
            raise deadlines.DeadlineExceeded("the search ran past its time limit") from err

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def _take(self) -> list[tuple[Item, Future]] | None:
        with self._cond:
            while not self._queue and not self._closed:
                self._cond.wait()
            if self._closed and not self._queue:
                return None
            until = time.monotonic() + self.max_wait_s
            while len(self._queue) < self.max_batch and (left := until - time.monotonic()) > 0:
                self._cond.wait(left)
            n = min(len(self._queue), self.max_batch)
            return [self._queue.popleft() for _ in range(n)]

    def _run(self) -> None:
        while (taken := self._take()) is not None:
            live = [(item, future) for item, future in taken if future.set_running_or_notify_cancel()]
            if not live:
                continue
            try:
                results = self.fn([item for item, _ in live])
            except BaseException as err:  # every caller gets the error; the worker lives on
                for _, future in live:
                    future.set_exception(err)
                continue
            self.calls += 1
            self.items += len(live)
            for (_, future), result in zip(live, results, strict=True):
                future.set_result(result)
