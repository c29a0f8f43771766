"""Evaluation-scale encoding: batches by token count, precision per device, batch size per device."""

from __future__ import annotations

import numpy as np
import pytest

from fakes.models import build_tiny_bert
from sciembed.models import load_encoder
from sciembed.models.batch_size import CPU_BATCH, MAX_BATCH, auto_batch_size, batch_for, per_text_bytes
from sciembed.models.encoder import check_precision

WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "retrieval",
         "internationalization")


@pytest.fixture(scope="module")
def encoder(tmp_path_factory):
    model = build_tiny_bert(tmp_path_factory.mktemp("tiny"), WORDS, max_position_embeddings=64)
    return load_encoder(str(model), max_seq_length=8, device="cpu")


def test_length_order_counts_tokens_not_characters_and_caps_at_the_budget(encoder):
    texts = [
        "internationalization internationalization",  # 42 characters, 2 tokens
        "one two three four five six",  # 27 characters, 6 tokens
        "one two three four five six seven eight nine ten one two",  # 12 tokens: capped at the budget of 8
        "one two three four five six seven eight nine ten",  # 10 tokens: capped at 8, ties keep input order
        "ten",
    ]
    assert encoder.length_order(texts) == [2, 3, 1, 0, 4]
    assert sorted(range(len(texts)), key=lambda i: -len(texts[i])) != encoder.length_order(texts)


def test_any_order_gives_the_same_rows(encoder):
    rng = np.random.default_rng(0)
    texts = [" ".join(rng.choice(WORDS, size=int(rng.integers(1, 12)))) for _ in range(23)]
    sorted_rows = encoder.encode(texts, batch_size=4, show_progress=False)
    as_given = encoder.encode_in_order(texts, range(len(texts)), 4)
    one_by_one = np.vstack([encoder.encode([t], batch_size=1, show_progress=False) for t in texts])
    np.testing.assert_allclose(sorted_rows, as_given, atol=1e-5)
    np.testing.assert_allclose(sorted_rows, one_by_one, atol=1e-5)
    assert encoder.encode([], show_progress=False).shape == (0, encoder.dim)


def test_precision_is_fp32_on_cpu_and_checked(encoder, monkeypatch):
    assert encoder.precision == "auto" and encoder.resolved_precision() == "fp32"
    assert encoder.describe()["precision"] == "fp32"
    with pytest.raises(ValueError, match="unknown precision 'int4'"):
        check_precision("int4")
    monkeypatch.setenv("SCIEMBED_ENCODE_PRECISION", "half")
    with pytest.raises(ValueError, match="unknown precision 'half'"):
        load_encoder(encoder.source, max_seq_length=8, device="cpu")


def test_batch_size_is_fixed_on_cpu_and_follows_free_gpu_memory(encoder):
    assert auto_batch_size(encoder.model, 512) == CPU_BATCH
    per_text = per_text_bytes(encoder.model[0].auto_model.config, 512)
    assert per_text == 2 * 512 * (5 * 32 + 2 * 64) * 2
    assert batch_for(80 * 10**9, per_text) == MAX_BATCH  # a tiny model on an empty 80 GB card
    assert batch_for(4 * per_text, per_text) == 2  # half of the free memory, a power of two
    assert batch_for(0, per_text) == 1
