"""A per-thread deadline that long work checks between steps, so a request that timed out stops working.

Python cannot cancel a thread, so the server runs each request's work inside `deadline(seconds)` and long
steps call `check()`, which raises `DeadlineExceeded` once the time is up (nothing outside a block).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

_local = threading.local()


class DeadlineExceeded(TimeoutError):
    """The work's time budget is spent; its result would not be used."""


@contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Run the block with a budget of `seconds` (None: no budget) in this thread."""
    previous = getattr(_local, "at", None)
    _local.at = None if seconds is None else time.monotonic() + seconds
    try:
        yield
    finally:
        _local.at = previous


def remaining() -> float | None:
    """Seconds left in this thread's budget (None: unbounded; may be negative)."""
    at = getattr(_local, "at", None)
    return None if at is None else at - time.monotonic()


def check(what: str = "the work") -> None:
    """Raise `DeadlineExceeded` when this thread's budget is spent."""
    left = remaining()
    if left is not None and left <= 0:
        raise DeadlineExceeded(f"{what} ran past its time limit")


def carried(work: Callable[..., T]) -> Callable[..., T]:
    """`work` bound to this thread's deadline, for another thread to run (a pool worker sending a request)."""
    at = getattr(_local, "at", None)

    def run(*args: Any, **kwargs: Any) -> T:
        previous = getattr(_local, "at", None)
        _local.at = at
        try:
            return work(*args, **kwargs)
        finally:
            _local.at = previous

    return run
