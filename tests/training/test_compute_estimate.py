"""The compute estimate of `train --dry-run`: FLOPs per recipe and a named GPU's time."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.training.compute_estimate import DEVICES, UTILISATION, estimate_compute, step_texts
from sciembed.training.config import JepaConfig, WindowConfig
from sciembed.training.memory_estimate import estimate
from sciembed.training.model_architecture import architecture_of


@pytest.fixture(scope="module")
def tiny_arch():
    from transformers import BertConfig

    config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    return architecture_of(config, "test")


def _window(**training):
    return WindowConfig.model_validate({"model": {"base": None, "max_seq_length": 16}, "training": training})


def test_flops_follow_the_formula(tiny_arch):
    config = _window(batch_size=4, mini_batch_size=4, loss="mnrl")
    est = estimate_compute(config, steps=3, arch=tiny_arch)
    n = tiny_arch.parameters - (100 + 64) * 32  # without the token and position tables
    assert est.non_embedding_parameters == n
    forward_per_token = 2 * n + 4 * 2 * 16 * 32  # 2·N + 4·L·s·d
    assert est.flops == 3 * 8 * 16 * 3 * forward_per_token  # steps × texts × tokens × (forward + backward)
    fast, slow = est.seconds_on(DEVICES["h100"])
    assert fast == pytest.approx(est.flops / (989e12 * UTILISATION[1]))
    assert slow == pytest.approx(fast * UTILISATION[1] / UTILISATION[0])


def test_cached_loss_and_hard_negatives_add_texts(tiny_arch):
    plain = step_texts(_window(batch_size=4, mini_batch_size=4, loss="mnrl"))
    cached = step_texts(_window(batch_size=4, mini_batch_size=2, loss="cached_mnrl"))
    assert (plain.with_grad, plain.without_grad) == (8, 0)
    assert (cached.with_grad, cached.without_grad) == (8, 8)  # CachedMNRL's no-grad first pass
    negatives = WindowConfig.model_validate({"model": {"base": None}, "training": {"batch_size": 4, "loss": "mnrl"},
                                             "data": {"hard_negatives": {"miner": "bm25"}}})
    assert step_texts(negatives).with_grad == 12
    assert estimate(negatives, "cpu", tiny_arch).texts == 12  # the memory estimate counts the negatives too
    jepa = JepaConfig.model_validate({"model": {"base": None}, "training": {"batch_size": 4}})
    assert (step_texts(jepa).with_grad, step_texts(jepa).without_grad) == (4, 4)  # the EMA target


def test_dry_run_prints_the_time_on_a_named_gpu(tiny_corpus, tiny_bert):
    result = CliRunner().invoke(app, ["train", "window", "--corpus", str(tiny_corpus), "--dry-run",
                                      "--base-model", str(tiny_bert), "--set", "training.batch_size=10",
                                      "--estimate-for", "h100"])
    assert result.exit_code == 0, result.output
    assert "Estimated peak CUDA memory" in result.output and "NVIDIA H100 SXM" in result.output
    assert "compute:" in result.output and "assumed utilisation, not measured" in result.output
    bad = CliRunner().invoke(app, ["train", "window", "--corpus", str(tiny_corpus), "--dry-run",
                                   "--estimate-for", "tpu"])
    assert bad.exit_code == 2 and "h100" in bad.output
