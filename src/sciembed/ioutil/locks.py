"""Thread locks the standard library lacks: a first-come first-served lock and a readers-writer lock."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class FairLock:
    """A first-come first-served lock (a ticket lock). `threading.Lock` hands no turn over: a writer re-acquiring
    at once nearly always wins, so queries waited for whole 100-paper batches (reads while writing p99 13 s;
    benchmarks/serve.py)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._next = 0
        self._serving = 0

    def __enter__(self) -> None:
        with self._cond:
            ticket = self._next
            self._next += 1
            while ticket != self._serving:
                self._cond.wait()

    def __exit__(self, *exc: object) -> None:
        with self._cond:
            self._serving += 1
            self._cond.notify_all()


class ReadWriteLock:
    """Many readers or one writer (the standard library has none; a Condition is all it takes)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writing = False

    @contextmanager
    def read(self) -> Iterator[None]:
        with self._cond:
            while self._writing:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    @contextmanager
    def write(self) -> Iterator[None]:
        with self._cond:
            while self._writing:
                self._cond.wait()
            self._writing = True
            while self._readers:
                self._cond.wait()
        try:
            yield
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()
