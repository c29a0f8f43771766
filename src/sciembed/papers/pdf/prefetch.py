"""Work on the next files while the current one is read: `workers` threads, at most 2 x `workers` ahead, input order.

Both PDF readers wait on something outside the process (GROBID, a child parser), so threads suffice. A path not
announced (a server's upload) is worked on in the calling thread under its deadline (`sciembed.ioutil.deadline`),
so uploads never queue behind abandoned ones in a pool thread the deadline cannot reach.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Generic, TypeVar

from sciembed.ioutil import deadline

T = TypeVar("T")


class Prefetch(Generic[T]):
    """`get(path)` returns `work(path)`, started ahead for the paths announced with `announce`."""

    def __init__(self, work: Callable[[Path], T], workers: int, name: str) -> None:
        self.work = work
        self.workers = workers
        self.name = name
        self._pool: ThreadPoolExecutor | None = None
        self._pending: deque[Path] = deque()
        self._futures: dict[Path, Future[T]] = {}
        self._lock = threading.Lock()  # a server reads uploads from several threads
        self._slots = threading.BoundedSemaphore(workers)  # unannounced paths worked on at once

    def announce(self, paths: Iterable[Path]) -> None:
        with self._lock:
            self._pending.extend(paths)
            self._fill()

    def _started(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix=self.name)
        return self._pool

    def _fill(self) -> None:
        while self._pending and len(self._futures) < 2 * self.workers:
            path = self._pending.popleft()
            self._futures[path] = self._started().submit(self.work, path)

    def get(self, path: Path) -> T:
        """`work(path)`'s result; worked on in this thread when not announced (`DeadlineExceeded` if no slot frees)."""
        with self._lock:
            future = self._futures.pop(path, None)
            self._fill()
        if future is not None:
            return future.result()
        left = deadline.remaining()
        if not self._slots.acquire(timeout=None if left is None else max(left, 0.0)):
            raise deadline.DeadlineExceeded(f"waiting for one of {self.workers} {self.name} slots ran past the "
                                            "time limit")
        try:
            return self.work(path)
        finally:
            self._slots.release()

    def close(self) -> None:
        with self._lock:
            self._pending.clear()
            for future in self._futures.values():
                future.cancel()
            self._futures.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
