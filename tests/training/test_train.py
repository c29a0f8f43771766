"""End-to-end training with a tiny random-init BERT: saved model, resume determinism, refusals."""

from __future__ import annotations

import json
import shutil

import pytest
import torch
from transformers import TrainerCallback

from sciembed.training import WindowConfig, load_config, train
from sciembed.training.rundir import RunDirError


class StopAt(TrainerCallback):
    """Ends the run after `step` steps, as a kill right after a checkpoint would."""

    def __init__(self, step: int) -> None:
        self.step = step

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step >= self.step:
            control.should_training_stop = True


def tiny_config(bert, **overrides) -> WindowConfig:
    values = {
        "model.base": str(bert),
        "model.max_seq_length": 64,
        "model.projection": {"hidden": 24, "out": 16},
        "training.batch_size": 10,
        "training.mini_batch_size": 4,
        "training.epochs": 2,
        "training.max_steps": 8,
        "training.learning_rate": 1e-3,
        "training.log_every_steps": 1,
        "checkpoint.every_steps": 4,
        "checkpoint.keep": None,
    }
    values.update(overrides)
    return load_config(WindowConfig, None, values)


def weights(model_dir):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(model_dir), device="cpu").state_dict()


@pytest.fixture(scope="module")
def runs(tiny_bert, tiny_corpus, tmp_path_factory):
    """One uninterrupted 8-step run, and one stopped at step 4 then resumed to step 8."""
    root = tmp_path_factory.mktemp("runs")
    config = tiny_config(tiny_bert)
    full = train("window", config, tiny_corpus, root / "full")
    stopped = train("window", config, tiny_corpus, root / "split", callbacks=[StopAt(4)])
    half = weights(stopped)
    resumed = train("window", config, tiny_corpus, root / "split", resume=True)
    return {"config": config, "full": full, "half": half, "resumed": resumed, "root": root}


def test_saved_model_reloads_and_encodes(runs):
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(runs["full"]), device="cpu")
    vectors = model.encode(["t1w1 t1w2 c3", "t2w5 c1"])
    assert vectors.shape == (2, 16)  # the projection head's output size
    assert [type(m).__name__ for m in model] == ["Transformer", "Pooling", "Dense", "Dense"]
    # trained on 64 tokens, saved to read the base's own budget (the tiny BERT's 128 positions)
    assert model.max_seq_length == 128
    assert model.similarity_fn_name == "cosine"
    summary = json.loads((runs["full"].parent / "summary.json").read_text())
    assert summary["max_seq_length"] == {"training": 64, "inference": 128}


def test_run_directory_holds_curves_summary_and_composition(runs):
    out = runs["full"].parent
    summary = json.loads((out / "summary.json").read_text())
    assert summary["completed"] and summary["global_step"] == 8
    assert summary["composition"]["self_share_min"] == summary["composition"]["self_share_max"] == 0.2
    for name in ("loss.csv", "loss.png"):
        assert (out / "curves" / name).stat().st_size > 0
    rows = (out / "curves" / "loss.csv").read_text().splitlines()
    assert rows[0].startswith("step,epoch,loss") and len(rows) == 1 + 8
    assert json.loads((out / "recipe.json").read_text())["recipe"] == "window"


def test_resume_gives_the_weights_of_an_uninterrupted_run(runs):
    full, resumed, half = weights(runs["full"]), weights(runs["resumed"]), runs["half"]
    assert full.keys() == resumed.keys()
    for name in full:
        torch.testing.assert_close(resumed[name], full[name], rtol=1e-5, atol=1e-6, msg=name)
    # and training between step 4 and 8 did move the weights
    assert any(not torch.allclose(half[n], full[n]) for n in full)
    summary = json.loads((runs["resumed"].parent / "summary.json").read_text())
    assert summary["resumed_from_step"] == 4 and summary["completed"]


def test_resume_continues_the_same_loss_curve(runs):
    def losses(run_dir):
        lines = (run_dir.parent / "curves" / "loss.csv").read_text().splitlines()[1:]
        return [float(line.split(",")[2]) for line in lines]

    assert losses(runs["resumed"]) == pytest.approx(losses(runs["full"]), rel=1e-4)


def test_refusals_before_training(runs, tiny_corpus, tmp_path):
    config = runs["config"]
    full_dir = runs["full"].parent
    with pytest.raises(RunDirError, match="already holds a training run"):
        train("window", config, tiny_corpus, full_dir)
    with pytest.raises(RunDirError, match="nothing to resume"):
        train("window", config, tiny_corpus, tmp_path / "empty", resume=True)
    changed = config.model_copy(update={"seed": 5})
    with pytest.raises(RunDirError, match=r"1 difference .* seed: 0 -> 5"):
        train("window", changed, tiny_corpus, full_dir, resume=True)
    other = shutil.copytree(full_dir, tmp_path / "other", ignore=shutil.ignore_patterns("model"))
    record = json.loads((other / "recipe.json").read_text())
    (other / "recipe.json").write_text(json.dumps(record | {"recipe": "jepa"}))
    with pytest.raises(RunDirError, match="was trained with recipe 'jepa', not 'window'"):
        train("window", config, tiny_corpus, other, resume=True)


def test_validation_curves_during_training(tiny_bert, tiny_corpus, tmp_path):
    config = tiny_config(tiny_bert, **{"training.max_steps": 4, "validation.every_steps": 2})
    model_dir = train("window", config, tiny_corpus, tmp_path / "run")
    curves = model_dir.parent / "curves"
    rows = (curves / "validation.csv").read_text().splitlines()
    assert rows[0] == "step,epoch,val_body_ta_ndcg@10,val_ta_ta_ndcg@10"
    assert [r.split(",")[0] for r in rows[1:]] == ["2", "4"]
    assert all(0.0 <= float(x) <= 1.0 for r in rows[1:] for x in r.split(",")[2:])
    assert (curves / "validation.png").stat().st_size > 0


def test_trainer_batches_follow_the_plan(tiny_bert, tiny_corpus):
    """What the trainer's dataloader sees: the sampler's batches, collated into anchor/positive token tensors."""
    from datasets import Dataset
    from sentence_transformers import SentenceTransformer

    from sciembed.training.collator import PlanCollator
    from sciembed.training.data import ViewTexts
    from sciembed.training.recipes import window
    from sciembed.training.sampler import PlanBatchSampler

    config = tiny_config(tiny_bert)
    prepared = window.prepare(config, tiny_corpus)
    plan = prepared.plan
    dataset = Dataset.from_dict(plan.columns())
    sampler = PlanBatchSampler(plan, dataset, batch_size=10)
    model = SentenceTransformer(str(tiny_bert), device="cpu")
    collate = PlanCollator(preprocess_fn=model.preprocess, texts=ViewTexts(prepared.data, 44, "[TA] ", "[BODY] "))
    batches = list(sampler)
    assert len(batches) == len(sampler) == plan.n_batches
    for indices in batches:
        rows = dataset[indices]
        assert sum(rows["is_self"]) == 2  # 20% of 10
        cite_papers = [p for i, s in enumerate(rows["is_self"]) if not s
                       for p in (rows["anchor_paper"][i], rows["positive_paper"][i])]
        self_papers = [p for p, s in zip(rows["anchor_paper"], rows["is_self"], strict=True) if s]
        assert len(set(cite_papers + self_papers)) == len(cite_papers) + len(self_papers)
    features = collate([dataset[i] for i in batches[0]])
    assert features["anchor_input_ids"].shape[0] == features["positive_input_ids"].shape[0] == 10
    with pytest.raises(ValueError, match="differs from the plan"):
        PlanBatchSampler(plan, dataset, batch_size=12)
