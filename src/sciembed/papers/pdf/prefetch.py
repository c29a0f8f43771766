"""Work on the next files while the current one is read: `workers` threads, a bounded window, input order.

Both PDF readers wait on something outside the process (a GROBID server, a
child process parsing one file), so threads are enough to keep several files
in flight; the readers' records still come out one file at a time, in the
order ingest asks for them. At most 2 x `workers` files are started ahead.

A path that was not announced (a server's upload) is worked on in the calling
thread, under that thread's deadline (`sciembed.ioutil.deadline`: a request's
budget reaches the parse and the GROBID call), after waiting for one of
`workers` slots no longer than that deadline allows. Uploads therefore never
queue behind abandoned ones in a pool thread the deadline cannot reach.
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
        """The result for `path` (raising what `work` raised); worked on now, in this thread, when it was
        not announced (`DeadlineExceeded` when no slot frees up within this thread's deadline)."""
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
