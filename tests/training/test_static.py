"""The static full-text recipe: a tiny BERT distilled with model2vec, trained on citation pairs with mined
negatives, saved as a plain sentence-transformers model that reads whole texts."""

from __future__ import annotations

import numpy as np
import pytest

from sciembed.training import load_config, train
from sciembed.training.config import StaticConfig


@pytest.fixture(scope="module")
def static_run(tiny_bert, tiny_corpus, tmp_path_factory):
    config = load_config(StaticConfig, None, {
        "model.base": str(tiny_bert), "model.pca_dims": 16, "model.max_seq_length": 64,
        "data.hard_negatives": {"miner": "bm25", "skip": 0, "depth": 20},
        "training.batch_size": 8, "training.max_steps": 4, "training.learning_rate": 5e-2,
        "checkpoint.every_steps": 2,
    })
    return train("static", config, tiny_corpus, tmp_path_factory.mktemp("static") / "run")


def test_the_saved_static_model_reads_whole_texts(static_run):
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding

    model = SentenceTransformer(str(static_run), device="cpu")
    assert [type(m) for m in model] == [StaticEmbedding]
    assert model.get_embedding_dimension() == 16
    # trained in float32: model2vec's float16 table made Adam's second moment underflow (updates blew up)
    assert {p.dtype for p in model.parameters()} == {__import__("torch").float32}
    short, long = "t1w1 t1w2 c3", " ".join(["t1w1 t1w2 c3"] * 400) + " t2w5"
    a, b = model.encode([short, long])
    assert not np.allclose(a, b)  # the last word of a 1,201-word text still moves its vector


def test_a_static_model_round_trips_through_save_and_load(static_run, tmp_path):
    from sentence_transformers import SentenceTransformer

    texts = ["t1w1 t1w2 c3", "t2w5 c1 t2w7", "c0"]
    first = SentenceTransformer(str(static_run), device="cpu")
    first.save(str(tmp_path / "copy"))
    again = SentenceTransformer(str(tmp_path / "copy"), device="cpu")
    np.testing.assert_array_equal(first.encode(texts), again.encode(texts))


def test_sciembed_loads_a_static_model_with_a_window_budget(static_run):
    from sentence_transformers import SentenceTransformer

    from sciembed.models import load_encoder

    encoder = load_encoder(str(static_run))
    assert encoder.max_seq_length == 512  # the budget benchmark windows are cut from (BM25's)
    assert load_encoder(str(static_run), max_seq_length=256).max_seq_length == 256
    plain = SentenceTransformer(str(static_run), device="cpu").encode(["t1w1 c3"], normalize_embeddings=True)
    np.testing.assert_allclose(encoder.encode(["t1w1 c3"], show_progress=False), plain, rtol=1e-6, atol=1e-6)


def test_training_moved_the_table_and_recorded_its_negatives(static_run, tiny_bert):
    import json

    summary = json.loads((static_run.parent / "summary.json").read_text())
    assert summary["completed"] and summary["hard_negatives"]["miner"] == "bm25"
    assert summary["max_seq_length"] == {"training": None, "inference": None}
