"""The jepa and infonce recipes end to end with a tiny random-init BERT on an ingested corpus:
resume determinism (online, predictor and target), the branch export, EMA and refusals."""

from __future__ import annotations

import json

import pytest
import torch
from transformers import TrainerCallback

from sciembed.training import load_config, train
from sciembed.training.config import ConfigError, InfoNCEConfig, JepaConfig
from sciembed.training.ema import CheckpointExtrasError, load_extras
from sciembed.training.rundir import RunDirError

from .test_jepa_source import section_papers, write_ingested


class StopAt(TrainerCallback):
    def __init__(self, step: int) -> None:
        self.step = step

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step >= self.step:
            control.should_training_stop = True


TINY = {
    "model.max_seq_length": 48,
    "data.examples": 32,
    "training.batch_size": 4,
    "training.gradient_accumulation": 2,
    "training.max_steps": 4,
    "training.learning_rate": 1e-3,
    "training.warmup_steps": 1,
    "training.log_every_steps": 1,
    "checkpoint.every_steps": 2,
    "checkpoint.keep": None,
}


def jepa_config(bert, **overrides) -> JepaConfig:
    values = TINY | {
        "model.base": str(bert), "predictor.hidden": 16, "predictor.learning_rate": 1e-2,
        "sigreg.weight": 0.05, "sigreg.slices": 16,
    }
    return load_config(JepaConfig, None, values | overrides)


def state(model_dir) -> dict[str, torch.Tensor]:
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(model_dir), device="cpu").state_dict()


def assert_same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        torch.testing.assert_close(a[name], b[name], rtol=1e-5, atol=1e-6, msg=name)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_ingested(tmp_path_factory.mktemp("ingested"), section_papers())


@pytest.fixture(scope="module")
def runs(tiny_bert, corpus, tmp_path_factory):
    """A 4-step run, and one stopped at step 2 and resumed to step 4."""
    root = tmp_path_factory.mktemp("jepa-runs")
    config = jepa_config(tiny_bert)
    full = train("jepa", config, corpus, root / "full")
    train("jepa", config, corpus, root / "split", callbacks=[StopAt(2)])
    half = {b: state(root / "split" / "branches" / b) for b in ("online", "predictor", "target")}
    resumed = train("jepa", config, corpus, root / "split", resume=True)
    return {"config": config, "full": full.parent, "resumed": resumed.parent, "half": half, "root": root}


def test_resume_gives_the_weights_of_an_uninterrupted_run_in_every_branch(runs):
    for branch in ("online", "predictor", "target"):
        full = state(runs["full"] / "branches" / branch)
        assert_same(state(runs["resumed"] / "branches" / branch), full)
        assert any(not torch.allclose(runs["half"][branch][n], full[n]) for n in full), branch
    summary = json.loads((runs["resumed"] / "summary.json").read_text())
    assert summary["resumed_from_step"] == 2 and summary["completed"] and summary["global_step"] == 4
    extras = json.loads((runs["full"] / "checkpoints" / "checkpoint-4" / "jepa_extras.json").read_text())
    assert extras["momentum_step"] == 4 and extras["momentum"] == pytest.approx(0.999)


def test_branches_reload_and_differ_once_trained(runs):
    from sentence_transformers import SentenceTransformer

    texts = ["t1w1 t1w2 c3 t1w4", "method t2w5 c1 t2w7"]
    vectors = {}
    for branch in ("online", "predictor", "target"):
        model = SentenceTransformer(str(runs["full"] / "branches" / branch), device="cpu")
        vectors[branch] = model.encode(texts, convert_to_tensor=True)
        assert vectors[branch].shape == (2, 32)
    names = [type(m).__name__ for m in SentenceTransformer(str(runs["full"] / "branches" / "predictor"))]
    assert names == ["Transformer", "Pooling", "ResidualPredictor"]
    assert not torch.allclose(vectors["online"], vectors["predictor"])
    assert not torch.allclose(vectors["online"], vectors["target"])
    # `model/` is the online branch
    assert_same(state(runs["full"] / "model"), state(runs["full"] / "branches" / "online"))


def test_target_is_the_ema_of_the_online_encoder(runs, tiny_bert):
    """With m ≥ 0.996 over 4 steps the target stays within 2% of the way from the start to the online weights."""
    from sentence_transformers import SentenceTransformer

    start = SentenceTransformer(str(tiny_bert), device="cpu").state_dict()
    online, target = state(runs["full"] / "branches" / "online"), state(runs["full"] / "branches" / "target")
    name = "0.model.encoder.layer.0.attention.self.query.weight"
    moved, total = (target[name] - start[name]).norm(), (online[name] - start[name]).norm()
    assert 0 < moved < 0.02 * total


def test_checkpoint_from_another_lambda_is_refused(runs, corpus, tiny_bert, tmp_path):
    config = runs["config"]
    with pytest.raises(RunDirError, match=r"sigreg.weight: 0.05 -> 0.1"):
        train("jepa", config.model_copy(update={"sigreg": config.sigreg.model_copy(update={"weight": 0.1})}),
              corpus, runs["full"], resume=True)
    with pytest.raises(RunDirError, match="was trained with recipe 'jepa', not 'infonce'"):
        train("infonce", load_config(InfoNCEConfig, None, TINY | {"model.base": str(tiny_bert)}), corpus,
              runs["full"], resume=True)
    with pytest.raises(CheckpointExtrasError, match=r"sigreg_lambda: 0.05 -> 0.1"):
        load_extras(runs["full"] / "checkpoints" / "checkpoint-2", torch.nn.Linear(1, 1), torch.nn.Linear(1, 1),
                    {"recipe": "jepa", "sigreg_lambda": 0.1})


def test_a_nan_loss_stops_the_run_at_its_step(tiny_bert, corpus, tmp_path):
    """Weights blown up by an absurd learning rate give a NaN loss; the run stops there with a message, where
    transformers alone went on training NaN weights and logged a loss of 0."""
    from sciembed.training.trainer import NonFiniteLoss

    with pytest.raises(NonFiniteLoss, match=r"the loss is nan at step \d"):
        train("jepa", jepa_config(tiny_bert, **{"training.learning_rate": 1e30, "predictor.learning_rate": 1e30}),
              corpus, tmp_path / "run")


def test_bad_settings_fail_before_training(tiny_bert):
    with pytest.raises(ConfigError, match=r"sigreg.weight: Input should be greater than or equal to 0"):
        jepa_config(tiny_bert, **{"sigreg.weight": -0.001})
    with pytest.raises(ConfigError, match=r"predictor.hidden: Input should be greater than 0"):
        jepa_config(tiny_bert, **{"predictor.hidden": 0})
    with pytest.raises(ConfigError, match="mini_batch_size: not used by the section-pair recipes"):
        jepa_config(tiny_bert, **{"training.mini_batch_size": 8})


def test_infonce_trains_on_the_same_pairs(tiny_bert, corpus, tmp_path):
    config = load_config(InfoNCEConfig, None, TINY | {"model.base": str(tiny_bert), "checkpoint.every_steps": 4})
    model_dir = train("infonce", config, corpus, tmp_path / "infonce")
    summary = json.loads((model_dir.parent / "summary.json").read_text())
    assert summary["completed"] and summary["data"]["examples"] == 32 and summary["data"]["optimizer_steps"] == 4
    assert not (model_dir.parent / "branches").exists()
    assert_different = any(not torch.allclose(a, b) for a, b in zip(
        state(model_dir).values(), state(tiny_bert).values(), strict=False))
    assert assert_different


class PredictorNorms(TrainerCallback):
    """Runs after the recipe's callbacks: the norm of the gradients the optimizer is about to apply to
    the parameters that live outside the encoder (the predictor's)."""

    def __init__(self) -> None:
        self.norms: list[float] = []

    def on_pre_optimizer_step(self, args, state, control, model=None, optimizer=None, **kwargs):
        encoder = {id(p) for p in model.parameters()}
        grads = [p.grad for g in optimizer.param_groups for p in g["params"]
                 if id(p) not in encoder and p.grad is not None]
        assert grads, "the predictor has no gradients at the optimizer step"
        self.norms.append(float(torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))))


def test_predictor_gradients_are_clipped_like_the_encoders(tiny_bert, corpus, tmp_path):
    """The trainer clips only the encoder (`model.parameters()`); the predictor's gradients are clipped to
    the same `max_grad_norm` before every optimizer step. A loose bound leaves them above the tight one."""
    norms = {}
    for bound in (1e-4, 1e6):
        spy = PredictorNorms()
        config = jepa_config(tiny_bert, **{"training.max_steps": 2, "training.max_grad_norm": bound})
        train("jepa", config, corpus, tmp_path / str(bound), callbacks=[spy])
        norms[bound] = spy.norms
    assert len(norms[1e-4]) == 2 and max(norms[1e-4]) <= 1e-4 * (1 + 1e-4)
    assert min(norms[1e6]) > 1e-3  # unclipped, the predictor's gradient is far above the tight bound
