"""Gatherer: concurrent callers' items in one call, each caller its own result or the error; deadlines."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from sciembed.ioutil import deadline as deadlines
from sciembed.ioutil.gather import Gatherer


def test_concurrent_items_are_gathered_and_each_caller_gets_its_own_result():
    calls: list[list[int]] = []
    release = threading.Event()

    def square_all(items: list[int]) -> list[int]:
        release.wait(5)  # the first call holds the worker while the other callers queue up
        calls.append(list(items))
        return [x * x for x in items]

    gather = Gatherer(square_all, max_batch=8, max_wait_ms=5)
    with ThreadPoolExecutor(16) as pool:
        futures = [pool.submit(gather, i) for i in range(16)]
        time.sleep(0.2)
        release.set()
        assert [f.result(10) for f in futures] == [i * i for i in range(16)]
    assert sum(len(c) for c in calls) == 16
    assert len(calls) < 16 and max(len(c) for c in calls) <= 8
    assert gather.items == 16 and gather.calls == len(calls)
    gather.close()


def test_an_error_reaches_every_caller_of_that_call_and_the_worker_lives_on():
    def fail_on_negative(items: list[int]) -> list[int]:
        if any(x < 0 for x in items):
            raise ValueError("negative")
        return items

    gather = Gatherer(fail_on_negative, max_wait_ms=0)
    with pytest.raises(ValueError, match="negative"):
        gather(-1)
    assert gather(3) == 3
    gather.close()


def test_a_caller_past_its_deadline_gets_deadline_exceeded():
    gather = Gatherer(lambda items: (time.sleep(0.5), items)[1], max_wait_ms=0)
    with deadlines.deadline(0.05), pytest.raises(deadlines.DeadlineExceeded):
        gather(1)
    with deadlines.deadline(-1), pytest.raises(deadlines.DeadlineExceeded):
        gather(2)  # spent before it queued: never submitted
    gather.close()
