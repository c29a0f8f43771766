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


def queue_behind_a_held_pass(batcher: MicroBatcher, inner: HoldFirst, writes: list[list[str]],
                             searches: list[str]) -> tuple[dict[int, np.ndarray], list[threading.Thread]]:
    """Hold the worker in a search pass, queue `writes` (in order) and `searches`, release it; the writes' rows."""
    out: dict[int, np.ndarray] = {}
    held = threading.Thread(target=batcher.encode, args=(["search held by the worker"],))
    held.start()
    assert inner.entered.wait(10)
    threads = [held]
    for i, chunk in enumerate(writes):
        threads.append(threading.Thread(target=lambda i=i, chunk=chunk: out.__setitem__(
            i, batcher.encode(chunk, shed=False))))
        threads[-1].start()
        while batcher.queued() < sum(len(c) for c in writes[: i + 1]):
            time.sleep(0.005)  # queued in this order
    threads += [threading.Thread(target=batcher.encode, args=([q],)) for q in searches]
    for t in threads[len(writes) + 1 :]:
        t.start()
    while batcher.queued() < sum(map(len, writes)) + len(searches):
        time.sleep(0.005)
    inner.release.set()
    for t in threads:
        t.join()
    return out, threads


def test_a_write_turn_is_bounded_by_tokens():
    """Four one-paper adds of 101 tokens queued behind a pass, with searches: a write turn stays within
    `max_write_tokens` (texts x the longest text's tokens), searches go between write turns, and every
    caller gets its own rows. Before, one turn took every queued add: one long pass that the searches waited
    behind (issue 33)."""
    inner = HoldFirst()
    batcher = MicroBatcher(inner, max_batch=32, max_wait_ms=0, cache_size=0, max_write_tokens=303)
    writes = [[f"write {i} ".ljust(404, "x")] for i in range(4)]  # 404 characters: 101 tokens by the estimate
    out, _ = queue_behind_a_held_pass(batcher, inner, writes, [f"query {i}" for i in range(40)])
    kinds = "".join("w" if b[0].startswith("write") else "s" for b in inner.batches)
    assert kinds == "swsws"  # the held pass, then writes and search batches in turn while both wait
    assert [len(b) for b in inner.batches] == [1, 3, 32, 1, 8]  # 3 x 101 <= 303 < 4 x 101
    expected = HashingEncoder(dim=16)
    for i, chunk in enumerate(writes):
        assert np.allclose(out[i], expected.encode(chunk, show_progress=False))
    batcher.close()


def test_a_write_backlog_halves_every_turn_and_a_long_write_is_split():
    """A 10-text write queued behind a pass: past the token budget, a turn takes half the write texts queued
    (5, then 3, then the last 2 within the budget), searches between; the caller gets its rows in order."""
    inner = HoldFirst()
    batcher = MicroBatcher(inner, max_batch=32, max_wait_ms=0, cache_size=0, max_write_tokens=303)
    writes = [[f"write long{k} ".ljust(404, "x") for k in range(10)]]
    out, _ = queue_behind_a_held_pass(batcher, inner, writes, [f"query {i}" for i in range(40)])
    assert [len(b) for b in inner.batches] == [1, 5, 32, 3, 8, 2]
    assert np.allclose(out[0], HashingEncoder(dim=16).encode(writes[0], show_progress=False))
    batcher.close()


def test_a_write_waits_behind_at_most_one_search_batch():
    """A one-paper add queued behind a write pass, after 100 searches, is encoded after one search batch,
    not after every search queued ahead of it; an add longer than the token budget is still one pass."""
    inner = HoldFirst()
    batcher = MicroBatcher(inner, max_batch=32, max_wait_ms=0, cache_size=0, max_write_tokens=10)
    held = threading.Thread(target=batcher.encode, args=(["write held by the worker"],), kwargs={"shed": False})
    held.start()
    assert inner.entered.wait(10)
    threads = [threading.Thread(target=batcher.encode, args=([f"query {i}"],)) for i in range(100)]
    for t in threads:
        t.start()
    while batcher.queued() < 100:
        time.sleep(0.005)
    threads.append(threading.Thread(target=batcher.encode, args=(["write late " + "word " * 40],),
                                    kwargs={"shed": False}))
    threads[-1].start()
    while batcher.queued() < 101:
        time.sleep(0.005)
    inner.release.set()
    for t in [held, *threads]:
        t.join()
    kinds = "".join("w" if b[0].startswith("write") else "s" for b in inner.batches)
    assert kinds == "wswsss" and [len(b) for b in inner.batches] == [1, 32, 1, 32, 32, 4]
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


class FailsOn(HashingEncoder):
    """Raises for any pass holding a text that starts with "boom"."""

    def __init__(self) -> None:
        super().__init__(dim=16)
        self.sizes: list[int] = []

    def encode(self, texts, **kwargs):
        self.sizes.append(len(texts))
        if any(t.startswith("boom") for t in texts):
            raise RuntimeError("the encoder failed")
        return super().encode(texts, **kwargs)


def test_a_split_write_whose_later_part_fails_gets_the_error_and_leaves_nothing_queued():
    inner = FailsOn()
    batcher = MicroBatcher(inner, max_wait_ms=0, cache_size=0, max_write_tokens=4)  # two 8-character texts
    with pytest.raises(RuntimeError, match="encoder failed"):
        batcher.encode(["one two.", "boom....", "three...", "four....", "five....", "six....."], shed=False)
    assert inner.sizes == [3] and batcher.queued() == 0  # half the backlog failed; the other half left the queue
    assert batcher.encode(["after the failure"], shed=False).shape == (1, 16)
    batcher.close()
