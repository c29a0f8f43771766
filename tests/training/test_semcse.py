"""SemCSE: the loss against its formula, the batch plan, best-weights early stopping, an end-to-end run."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from sciembed.summaries import Summary, write_summaries
from sciembed.training import load_config, train
from sciembed.training.losses import semcse_triplet_loss
from sciembed.training.plan import PlanError
from sciembed.training.recipes import semcse
from sciembed.training.recipes.semcse_config import SemCSEConfig
from sciembed.training.semcse_validation import BestWeightsCallback
from sciembed.training.sources.summary_plan import KIND_NAMES, SAME, SUMMARY, plan_summary_batches

SHARES = (0.50, 0.15, 0.35, 0.0)


def test_loss_equals_the_formula_on_hand_made_vectors() -> None:
    a = torch.tensor([[0.0, 0.0], [3.0, 0.0], [0.0, 1.0]])
    p = torch.tensor([[0.0, 0.5], [2.0, 0.0], [0.5, 1.0]])
    expected_terms = []
    for i, j in itertools.permutations(range(3), 2):
        d_pos = float(np.linalg.norm(a[i] - p[i]))
        d_neg = float(np.linalg.norm(a[i] - p[j]))
        expected_terms.append(max(0.0, d_pos - d_neg + 1.0))
    ranking = sum(expected_terms) / 6  # all n(n-1) in-batch triplets
    squared = float((a ** 2).sum(1).mean())  # (0 + 9 + 1) / 3
    got = semcse_triplet_loss(a, p, margin=1.0, penalty_weight=1 / 250)
    assert got.item() == pytest.approx(ranking + squared / 250, abs=1e-6)
    # margin enters every triplet; the penalty can be the plain norm
    assert semcse_triplet_loss(a, p, margin=0.0, penalty_weight=0.0).item() == pytest.approx(
        sum(max(0.0, float(np.linalg.norm(a[i] - p[i]) - np.linalg.norm(a[i] - p[j])))
            for i, j in itertools.permutations(range(3), 2)) / 6, abs=1e-6)
    norm = float(np.linalg.norm(a, axis=1).mean())  # (0 + 3 + 1) / 3
    assert semcse_triplet_loss(a, p, penalty_weight=0.5, penalty="norm").item() == pytest.approx(
        ranking + 0.5 * norm, abs=1e-5)
    # a hard negative that is closer than the positive costs more than the margin
    assert ranking > 1.0 / 6


def test_loss_needs_two_pairs_and_has_gradients() -> None:
    with pytest.raises(ValueError, match="at least 2 pairs"):
        semcse_triplet_loss(torch.zeros(1, 3), torch.zeros(1, 3))
    a = torch.randn(4, 3, requires_grad=True)
    semcse_triplet_loss(a, a.detach().clone()).backward()  # zero positive distance stays finite
    assert torch.isfinite(a.grad).all()


def _plan(n: int = 400, epochs: int = 20, n_summaries=None, n_sentences=None, shares=SHARES, batch: int = 32):
    n_summaries = np.full(n, 3) if n_summaries is None else n_summaries
    n_sentences = np.full(n, 5) if n_sentences is None else n_sentences
    return plan_summary_batches(n_summaries, n_sentences, np.ones(n, dtype=bool), shares, batch, epochs, seed=7)


def test_positive_kind_shares_over_many_batches() -> None:
    plan = _plan()
    shares = plan.kind_shares()
    assert plan.n_slots == 20 * 12 * 32  # 400 // 32 = 12 batches per epoch, 16 papers left out per epoch
    assert plan.dropped_papers == (16,) * 20
    for kind, target in zip(KIND_NAMES, SHARES, strict=True):
        assert shares[kind] == pytest.approx(target, abs=0.015), kind
    assert plan.redrawn == {}


def test_no_paper_twice_in_a_batch_and_positive_differs_from_anchor() -> None:
    plan = _plan(n=100, epochs=5, batch=16)
    for b in range(plan.n_batches):
        rows = slice(b * 16, (b + 1) * 16)
        assert len(set(plan.paper[rows].tolist())) == 16
    summary_slots = plan.kind == SUMMARY
    assert (plan.positive[summary_slots] != plan.anchor[summary_slots]).all()
    assert (plan.anchor < 3).all() and (plan.positive < 5).all()


def test_single_summary_and_no_sentence_papers_are_redrawn_and_counted() -> None:
    n = 200
    n_summaries = np.where(np.arange(n) % 2 == 0, 1, 2)  # half the papers have one summary
    n_sentences = np.where(np.arange(n) % 5 == 0, 0, 4)
    plan = _plan(n=n, epochs=4, n_summaries=n_summaries, n_sentences=n_sentences)
    single = n_summaries[plan.paper] == 1
    assert not (plan.kind[single] == SUMMARY).any()
    assert not (plan.kind[n_sentences[plan.paper] == 0] == 2).any()
    assert plan.redrawn["summary unavailable"] > 0 and plan.redrawn["sentence unavailable"] > 0
    assert sum(plan.composition()["positives"].values()) == plan.n_slots


def test_plan_is_deterministic_and_refuses_too_few_papers() -> None:
    first, again = _plan(n=80, epochs=2), _plan(n=80, epochs=2)
    assert all(np.array_equal(first.columns()[k], again.columns()[k]) for k in first.columns())
    with pytest.raises(PlanError, match="cannot fill one batch"):
        _plan(n=10, epochs=1)
    same = _plan(n=64, epochs=1, shares=(0, 0, 0, 1.0))
    assert (same.kind == SAME).all()


def test_best_weights_are_restored_and_training_stops_after_patience() -> None:
    from transformers import TrainerControl, TrainerState

    model = torch.nn.Linear(2, 2)
    summary: dict = {}
    callback = BestWeightsCallback(model, "eval_heldout_mean_rank", patience=2, summary=summary)
    state, control = TrainerState(), TrainerControl()
    weights_at = {}
    for step, rank in [(10, 5.0), (20, 3.0), (30, 4.0), (40, 3.5)]:
        with torch.no_grad():
            model.weight.fill_(float(step))
        weights_at[step] = model.weight.detach().clone()
        state.global_step = step
        callback.on_evaluate(None, state, control, metrics={"eval_heldout_mean_rank": rank})
        if step < 40:
            assert not control.should_training_stop
    assert control.should_training_stop  # two evaluations without improvement
    callback.on_train_end(None, state, control)
    assert torch.equal(model.weight, weights_at[20])
    assert summary["best_validation"]["step"] == 20 and summary["best_validation"]["value"] == 3.0
    assert summary["best_validation"]["stopped_early"] is True


def _summary_corpus(root: Path, kit) -> Path:
    papers = kit.make_papers(60)
    corpus = kit.write_built_corpus(root, papers, {p.id: "train" for p in papers})
    rows = []
    for p in papers:
        words = p.abstract.split()
        rows.append(Summary(p.id, " ".join(words[:8]) + ".", "test"))
        if int(p.id[1:]) % 3:
            rows.append(Summary(p.id, " ".join(words[8:16]) + ".", "test"))
    write_summaries(rows, corpus / "summaries.jsonl")
    return corpus


def test_end_to_end_tiny_model_writes_card_best_checkpoint_and_training_papers(tmp_path, kit, tiny_bert) -> None:
    corpus = _summary_corpus(tmp_path / "corpus", kit)
    config = load_config(SemCSEConfig, None, {
        "model.base": str(tiny_bert), "model.max_seq_length": 32, "model.pooling": "cls",
        "training.batch_size": 8, "training.max_steps": 4, "training.learning_rate": 1e-3,
        "training.log_every_steps": 1, "checkpoint.every_steps": 100,
        "validation.every_steps": 2, "validation.papers": 10, "validation.max_share": 0.2, "validation.patience": 5,
    })
    prepared = semcse.prepare(config, corpus)
    assert len(prepared.held_out) == 10 and len(prepared.data) == 50
    assert prepared.plan.redrawn.get("summary unavailable", 0) > 0  # every third paper has one summary
    model_dir = train("semcse", config, corpus, tmp_path / "run")
    card = json.loads((model_dir / "sciembed_model.json").read_text())
    assert card["recipe"] == "semcse" and card["metric"] == "l2" and card["pooling"] == "cls"
    assert card["extra"]["max_seq_length"] == {"training": 32, "inference": 128}
    st_config = json.loads((model_dir / "config_sentence_transformers.json").read_text())
    assert st_config["similarity_fn_name"] == "euclidean"  # a plain SentenceTransformer(path) compares by L2
    assert (tmp_path / "run" / "best-model" / "sciembed_model.json").is_file()  # written at the best validation
    pooling = json.loads((model_dir / "1_Pooling" / "config.json").read_text())
    assert pooling["pooling_mode"] == "cls"
    seen = (model_dir / "training_papers.txt").read_text().split()
    assert len(seen) == 60  # training + held-out papers
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    best = summary["best_validation"]
    assert best["evaluations"] == 2 and best["step"] in (2, 4) and best["saved_model"] == "best evaluation"
    assert summary["best_model"]["step"] == best["step"]  # lower mean rank is better: both callbacks agree
    assert summary["composition"]["batches"] >= 4
