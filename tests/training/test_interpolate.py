"""WiSE-FT weight interpolation: α = 0 is the base, α = 1 the trained model, 0.5 their midpoint."""

from __future__ import annotations

import pytest
import torch

from sciembed.training import WindowConfig, load_config, train
from sciembed.training.interpolate import InterpolationError, interpolate_with_base


def transformer_weights(path):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(path), device="cpu")[0].auto_model.state_dict()


@pytest.fixture(scope="module")
def trained(tiny_bert, tiny_corpus, tmp_path_factory):
    config = load_config(WindowConfig, None, {
        "model.base": str(tiny_bert), "model.max_seq_length": 32, "model.projection": None,
        "training.batch_size": 10, "training.mini_batch_size": 10, "training.loss": "mnrl",
        "training.max_steps": 2, "training.learning_rate": 1e-2, "checkpoint.every_steps": 100})
    return train("window", config, tiny_corpus, tmp_path_factory.mktemp("run") / "run")


def test_interpolation_endpoints_and_midpoint(trained, tiny_bert, tmp_path):
    base = transformer_weights(tiny_bert)
    fine = transformer_weights(trained)
    name = "encoder.layer.0.attention.self.query.weight"
    assert not torch.equal(base[name], fine[name])
    for alpha, expected in ((0.0, base[name]), (1.0, fine[name]), (0.5, (base[name] + fine[name]) / 2)):
        mixed = transformer_weights(interpolate_with_base(trained, str(tiny_bert), alpha, tmp_path / f"a{alpha}"))
        torch.testing.assert_close(mixed[name], expected)


def test_mismatched_models_and_bad_alpha_are_refused(trained, tmp_path):
    with pytest.raises(InterpolationError, match="alpha"):
        interpolate_with_base(trained, None, 1.5, tmp_path / "x")
    with pytest.raises(InterpolationError, match=r"different transformer weights|shape"):
        interpolate_with_base(trained, None, 0.5, tmp_path / "y")  # MiniLM is not the tiny BERT's base
