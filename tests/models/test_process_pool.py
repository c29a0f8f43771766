"""Encoding in worker processes: the one-process vectors in input order, through the vector cache; when used."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fakes.models import build_tiny_bert
from sciembed.models import load_encoder
from sciembed.models.process_pool import MIN_TEXTS, parallel_encoding, parallel_processes

WORDS = ["graph", "neural", "network", "protein", "folding", "cell", "data", "model", "of", "the", "a"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("tiny"), WORDS, seed=3)


def _texts(n: int) -> list[str]:
    rng = np.random.default_rng(0)
    return [" ".join(rng.choice(WORDS, size=int(rng.integers(1, 40)))) for _ in range(n)]


def test_two_processes_give_the_one_process_vectors_in_input_order_and_fill_the_cache(tiny, tmp_path):
    cached = load_encoder(str(tiny), backend="onnx", cache_dir=tmp_path / "cache")
    texts = _texts(150)
    alone = cached.encoder.encode(texts, batch_size=8, show_progress=False)
    with parallel_encoding(cached, 2) as encoding:
        assert encoding.fingerprint == cached.fingerprint and encoding.dim == cached.dim
        pooled = encoding.encode(texts, batch_size=8, show_progress=False)
        assert encoding.last.encoded == len(set(texts))  # the parent's cache asked the workers for every text
    np.testing.assert_allclose(pooled, alone, atol=1e-5)
    again = load_encoder(str(tiny), backend="onnx", cache_dir=tmp_path / "cache")
    np.testing.assert_allclose(again.encode(texts, show_progress=False), pooled)
    assert again.last.encoded == 0  # what the workers encoded was cached by the parent


def test_one_process_is_the_encoder_itself(tiny):
    encoder = load_encoder(str(tiny))
    with parallel_encoding(encoder, 1) as encoding:
        assert encoding is encoder


def test_processes_only_for_a_local_onnx_encoder_with_enough_texts(tiny, tmp_path, monkeypatch):
    onnx = load_encoder(str(tiny), backend="onnx", cache_dir=tmp_path / "cache")
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert parallel_processes(onnx, MIN_TEXTS) == 2
    assert parallel_processes(onnx, MIN_TEXTS - 1) == 1
    assert parallel_processes(load_encoder(str(tiny)), MIN_TEXTS) == 1  # torch: one process of all threads
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    assert parallel_processes(onnx, MIN_TEXTS) == 1
