"""The embedding cache: a second run encodes nothing; keys follow the encoder fingerprint."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from fakes.models import build_tiny_bert
from sciembed.models import CachedEncoder, load_encoder
from sciembed.models.cache import CacheError, EmbeddingCache

WORDS = [
    "graph",
    "neural",
    "network",
    "protein",
    "folding",
    "cell",
    "data",
    "model",
    "learning",
    "sparse",
    "attention",
    "kernel",
]
TEXTS = ["graph neural network", "protein folding model", "sparse attention kernel", "cell data"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("tiny"), WORDS, seed=3)


class Counting:
    """Wraps an encoder's `encode` to record every text it is asked to encode."""

    def __init__(self, encoder) -> None:
        self.calls: list[list[str]] = []
        original = encoder.encode

        def encode(texts, **kwargs):
            self.calls.append(list(texts))
            return original(texts, **kwargs)

        encoder.encode = encode


def test_second_run_encodes_nothing(tiny, tmp_path):
    first = load_encoder(str(tiny), cache_dir=tmp_path)
    assert isinstance(first, CachedEncoder)
    counter = Counting(first.encoder)
    texts = [*TEXTS, TEXTS[0]]  # a duplicate is encoded once
    vectors = first.encode(texts, show_progress=False)
    assert counter.calls == [TEXTS]
    assert (first.last.requested, first.last.hits, first.last.encoded) == (5, 0, 4)

    second = load_encoder(str(tiny), cache_dir=tmp_path)  # a fresh process would do the same
    counter = Counting(second.encoder)
    again = second.encode(texts, show_progress=False)
    assert counter.calls == []
    assert (second.last.hits, second.last.encoded) == (5, 0)
    np.testing.assert_array_equal(again, vectors)
    np.testing.assert_allclose(again, first.encoder.encode(texts, show_progress=False), atol=1e-6)

    more = second.encode([TEXTS[1], "graph kernel"], show_progress=False)
    assert counter.calls == [["graph kernel"]]
    np.testing.assert_array_equal(more[0], vectors[1])


def test_other_settings_do_not_share_entries(tiny, tmp_path):
    plain = load_encoder(str(tiny), cache_dir=tmp_path)
    plain.encode(TEXTS, show_progress=False)
    prefixed = load_encoder(str(tiny), cache_dir=tmp_path, prefix="model ")
    counter = Counting(prefixed.encoder)
    prefixed.encode(TEXTS, show_progress=False)
    assert counter.calls == [TEXTS]
    cache = EmbeddingCache(tmp_path)
    assert cache.count(plain.fingerprint) == cache.count(prefixed.fingerprint) == len(TEXTS)


def test_cache_refuses_vectors_of_another_dimension(tmp_path):
    cache = EmbeddingCache(tmp_path)
    cache.put("fp", [b"k" * 16], np.ones((1, 8), dtype=np.float32))
    with pytest.raises(CacheError, match="holds 8-d vectors, encoder gives 4-d"):
        cache.get("fp", 4, [b"k" * 16])
    with sqlite3.connect(cache.path("fp")) as conn:
        conn.execute("UPDATE entries SET vec = ?", (b"\0" * 12,))
    assert cache.get("fp", 8, [b"k" * 16]) == {} and cache.damaged == 1  # re-encoded, never used (issue 15)
