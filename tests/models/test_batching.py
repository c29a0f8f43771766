"""Micro-batching: concurrent encode calls share forward passes, rows go back to the right caller, queries cached."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from fakes.models import HashingEncoder
from sciembed.ioutil.deadline import DeadlineExceeded, deadline
from sciembed.models.batching import MicroBatcher, Overloaded


class Recording(HashingEncoder):
    """A hashing encoder that records the size of every call and takes 20 ms per call."""

    def __init__(self) -> None:
        super().__init__(dim=16)
        self.sizes: list[int] = []
        self.batches: list[list[str]] = []

    def encode(self, texts, **kwargs):
        self.sizes.append(len(texts))
        self.batches.append(list(texts))
        time.sleep(0.02)
        return super().encode(texts, **kwargs)


def test_concurrent_queries_are_batched_and_answered_correctly():
    inner = Recording()
    batcher = MicroBatcher(inner, max_batch=32, max_wait_ms=5, cache_size=0)
    texts = [f"query number {i} about graphs" for i in range(48)]
    out: dict[int, np.ndarray] = {}

    def one(i: int) -> None:
        out[i] = batcher.encode([texts[i]])

    threads = [threading.Thread(target=one, args=(i,)) for i in range(48)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    expected = HashingEncoder(dim=16).encode(texts, show_progress=False)
    assert all(np.allclose(out[i][0], expected[i]) for i in range(48))
    assert sum(inner.sizes) == 48 and len(inner.sizes) < 48 and max(inner.sizes) <= 32
    assert batcher.stats.batches == len(inner.sizes) and batcher.stats.largest == max(inner.sizes)
    batcher.close()


def test_writes_take_turns_with_searches_and_are_never_mixed_in():
    inner = Recording()
    batcher = MicroBatcher(inner, max_batch=32, max_wait_ms=5, cache_size=0)
    writes = [[f"write {w} text {i} " + "long words " * 50 for i in range(16)] for w in range(3)]
    threads = [threading.Thread(target=batcher.encode, args=(chunk,), kwargs={"shed": False}) for chunk in writes]
    threads += [threading.Thread(target=batcher.encode, args=([f"query {i}"],)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    kinds = [{text.split()[0] for text in batch} for batch in inner.batches]
    assert all(len(k) == 1 for k in kinds)  # a forward pass holds searches or writes, never both
    assert sum(inner.sizes) == 48 + 40 and max(inner.sizes) <= 32
    chunks = [{text.split()[1] for text in batch} for batch, k in zip(inner.batches, kinds, strict=True)
              if k == {"write"}]
    assert sorted(w for c in chunks for w in c) == ["0", "1", "2"]  # each 16-text chunk whole, in one pass
    batcher.close()


class HoldFirst(Recording):
    """Records every call; holds the first one until released, so that requests queue behind it."""

    def __init__(self) -> None:
        super().__init__()
        self.entered, self.release = threading.Event(), threading.Event()

    def encode(self, texts, **kwargs):
        if not self.entered.is_set():
            self.entered.set()
            self.release.wait(10)
        return super().encode(texts, **kwargs)


def test_queued_one_paper_writes_share_the_next_write_turn():
    """Five one-paper adds queued behind a forward pass are encoded together next, not one per turn with a
    search batch between each (issue 33: a one-paper add waited for every add queued before it)."""
    inner = HoldFirst()
    batcher = MicroBatcher(inner, max_batch=32, max_wait_ms=0, cache_size=0)
    held = threading.Thread(target=batcher.encode, args=(["search held by the worker"],))
    held.start()
    assert inner.entered.wait(10)
    threads = [threading.Thread(target=batcher.encode, args=([f"write {i}"],), kwargs={"shed": False})
               for i in range(5)]
    threads += [threading.Thread(target=batcher.encode, args=([f"query {i}"],)) for i in range(10)]
    for t in threads:
        t.start()
    while batcher.queued() < 15:
        time.sleep(0.01)
    inner.release.set()
    for t in [held, *threads]:
        t.join()
    assert sorted(inner.batches[1]) == [f"write {i}" for i in range(5)]  # one turn for all five
    assert sorted(inner.batches[2]) == sorted(f"query {i}" for i in range(10)) and len(inner.batches) == 3
    batcher.close()


def test_query_cache_answers_repeats_without_encoding():
    inner = Recording()
    batcher = MicroBatcher(inner, cache_size=2)
    first = batcher.encode(["a repeated query"])
    again = batcher.encode(["a repeated query"])
    assert np.array_equal(first, again) and inner.sizes == [1] and batcher.stats.cache_hits == 1
    batcher.encode(["b"])
    batcher.encode(["c"])  # evicts the least recently used
    batcher.encode(["a repeated query"])
    assert inner.sizes == [1, 1, 1, 1]
    batcher.close()


class Blocking(HashingEncoder):
    """Holds the worker inside `encode` until released, so the queue behind it fills."""

    def __init__(self) -> None:
        super().__init__(dim=16)
        self.entered, self.release = threading.Event(), threading.Event()

    def encode(self, texts, **kwargs):
        self.entered.set()
        self.release.wait(10)
        return super().encode(texts, **kwargs)


def test_full_queue_sheds_and_expired_requests_are_dropped():
    inner = Blocking()
    batcher = MicroBatcher(inner, max_batch=1, max_queue=1, max_wait_ms=0, cache_size=0)
    running = threading.Thread(target=batcher.encode, args=(["held by the worker"],))
    running.start()
    assert inner.entered.wait(10)
    answers: list = []
    queued = threading.Thread(target=lambda: answers.append(batcher.encode(["waits in the queue"])))
    queued.start()
    while batcher.queued() < 1:
        time.sleep(0.01)
    with pytest.raises(Overloaded) as err:
        batcher.encode(["shed"])
    assert err.value.retry_after >= 1 and batcher.stats.shed == 1
    inner.release.set()
    running.join()
    queued.join()
    assert len(answers) == 1 and answers[0].shape == (1, 16)
    with deadline(0.0), pytest.raises(DeadlineExceeded):
        batcher.encode(["too late"], shed=False)
    batcher.close()


class Counting(Recording):
    """Counts the encode calls running at once (the most ever seen in `peak`); each takes 20 ms."""

    def __init__(self) -> None:
        super().__init__()
        self.running = self.peak = 0
        self.lock = threading.Lock()

    def encode(self, texts, **kwargs):
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
        try:
            return super().encode(texts, **kwargs)
        finally:
            with self.lock:
                self.running -= 1


def test_a_write_encodes_on_the_write_encoder_while_a_search_pass_is_blocked():
    """With a second encoder, a write never waits for the search worker (issue 33 item 14)."""
    search, writes = Blocking(), Recording()
    batcher = MicroBatcher(search, max_batch=32, max_wait_ms=0, cache_size=0, write_encoder=writes)
    held = threading.Thread(target=batcher.encode, args=(["search held by the worker"],))
    held.start()
    assert search.entered.wait(10)
    texts = ["a new paper's title and abstract", "its second view"]
    out = batcher.encode(texts, shed=False)  # returns although the worker is still inside the search pass
    assert held.is_alive() and not search.release.is_set()
    assert np.allclose(out, HashingEncoder(dim=16).encode(texts, show_progress=False))
    assert writes.batches == [texts] and batcher.report()["writes"]["texts"] == 2
    search.release.set()
    held.join()
    assert batcher.stats.batches == 1 and batcher.stats.texts == 1  # the worker encoded the search only
    batcher.close()


def test_concurrent_writes_on_the_write_encoder_are_serialised():
    writes = Counting()
    batcher = MicroBatcher(HashingEncoder(dim=16), cache_size=0, write_encoder=writes)
    threads = [threading.Thread(target=batcher.encode, args=([f"write {i}", f"view {i}"],), kwargs={"shed": False})
               for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert writes.peak == 1 and sum(writes.sizes) == 16 and batcher.report()["writes"]["batches"] == writes.calls
    batcher.close()


def test_the_write_encoder_must_be_another_instance_of_the_same_model():
    with pytest.raises(ValueError, match="fingerprint"):
        MicroBatcher(HashingEncoder(dim=16), write_encoder=HashingEncoder(dim=16, name="another"))
    same = HashingEncoder(dim=16)
    with pytest.raises(ValueError, match="second instance"):
        MicroBatcher(same, write_encoder=same)


class Logged(HashingEncoder):
    """Appends its start and end to a shared log; with `hold`, waits for `release` inside its first call."""

    def __init__(self, kind: str, log: list[str], hold: bool = False) -> None:
        super().__init__(dim=16)
        self.kind, self.log, self.hold = kind, log, hold
        self.entered, self.release = threading.Event(), threading.Event()

    def encode(self, texts, **kwargs):
        self.log.append(f"{self.kind} starts")
        if self.hold and not self.entered.is_set():
            self.entered.set()
            self.release.wait(10)
        self.log.append(f"{self.kind} ends")
        return super().encode(texts, **kwargs)


def test_a_search_pass_waits_for_the_write_pass_in_progress():
    """Writes first: the search worker starts no pass while a write pass runs, so the write has the cores."""
    log: list[str] = []
    writes = Logged("write", log, hold=True)
    batcher = MicroBatcher(Logged("search", log), max_wait_ms=0, cache_size=0, write_encoder=writes)
    writing = threading.Thread(target=batcher.encode, args=(["a new paper"],), kwargs={"shed": False})
    writing.start()
    assert writes.entered.wait(10)
    searching = threading.Thread(target=batcher.encode, args=(["a query"],))
    searching.start()
    while batcher.queued():  # the search worker took it
        time.sleep(0.01)
    time.sleep(0.1)  # room for a search pass to start, were it not waiting
    writes.release.set()
    for t in (writing, searching):
        t.join()
    assert log == ["write starts", "write ends", "search starts", "search ends"]
    batcher.close()
