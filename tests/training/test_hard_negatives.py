"""Mined hard negatives: never a linked paper (either direction), never a paper of the batch, and a run
trained with them resumes onto the same schedule."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from sciembed.corpus.layout import CorpusDir
from sciembed.training import WindowConfig, load_config, train
from sciembed.training.data import load_training_data
from sciembed.training.plan import plan_batches
from sciembed.training.plan_negatives import attach_negatives
from sciembed.training.sources.hard_negatives import linked_papers, mine_bm25, mine_dense


@pytest.fixture(scope="module")
def split(tiny_corpus):
    corpus = CorpusDir(tiny_corpus)
    data = load_training_data(corpus, "train")
    ids = corpus.split_id_array("train").to_pylist()
    return data, ids, linked_papers(corpus, ids)


def test_linked_papers_are_symmetric_and_cover_every_training_pair(split):
    data, _, linked = split
    for a, b in data.pairs:
        assert b in linked[a] and a in linked[b]
    assert all(i not in s for i, s in enumerate(linked))


def test_bm25_negatives_are_never_the_paper_or_a_link_in_either_direction(split):
    data, _, linked = split
    # one more link, known in one direction only (a citation outside the pairs): excluded from both papers' lists
    extra = [set(s) for s in linked]
    extra[0].add(1)
    extra[1].add(0)
    mined = mine_bm25(data, extra, skip=0, depth=20)
    assert mined.excluded_links > 0
    for i in range(len(data.papers)):
        band = set(int(j) for j in mined.lists[i])
        assert i not in band
        assert not band & extra[i], f"paper {i}: linked papers among its negatives"
    assert mined.summary()["papers_without_negatives"] == 0


def test_the_band_skips_the_top_ranks(split):
    data, _, linked = split
    top = mine_bm25(data, linked, skip=0, depth=12)
    banded = mine_bm25(data, linked, skip=3, depth=12)
    for i in range(len(data.papers)):
        assert list(banded.lists[i]) == list(top.lists[i])[3:12]


def test_model_mined_negatives_exclude_links_too(split):
    data, _, linked = split
    rng = np.random.default_rng(0)
    mined = mine_dense(data, linked, lambda texts: rng.normal(size=(len(texts), 8)), skip=0, depth=15)
    for i in range(len(data.papers)):
        assert not set(int(j) for j in mined.lists[i]) & (linked[i] | {i})


def test_a_planned_negative_is_safe_for_every_anchor_of_its_batch(split):
    data, _, linked = split
    plan = plan_batches(data.pairs, data.n_body, strategy="both_random", batch_size=8, self_share=0.25,
                        epochs=2, seed=0)
    mined = mine_bm25(data, linked, skip=0, depth=20)
    with_negatives, counts = attach_negatives(plan, mined.lists, linked, data.n_body, seed=0)
    assert counts["mined"] + counts["fallback"] + counts["relaxed"] == plan.n_slots
    size = plan.batch_size
    for b in range(plan.n_batches):
        rows = slice(b * size, (b + 1) * size)
        anchors = set(with_negatives.anchor_paper[rows].tolist())
        in_batch = anchors | set(with_negatives.positive_paper[rows].tolist())
        negatives = with_negatives.negative_paper[rows].tolist()
        assert len(set(negatives)) == size and not set(negatives) & in_batch
        for slot, n in enumerate(negatives, start=b * size):
            assert with_negatives.anchor_paper[slot] not in linked[n]
    # TA positives get TA negatives; body negatives are real views of the negative paper
    ta = with_negatives.positive_view == 0
    assert (with_negatives.negative_view[ta] == 0).all()
    assert (with_negatives.negative_view <= data.n_body[with_negatives.negative_paper]).all()
    again, _ = attach_negatives(plan, mined.lists, linked, data.n_body, seed=0)
    assert (again.negative_paper == with_negatives.negative_paper).all()
    assert list(with_negatives.columns())[-2:] == ["negative_paper", "negative_view"]


def test_a_run_with_hard_negatives_resumes_onto_its_schedule(tiny_bert, tiny_corpus, tmp_path):
    from sentence_transformers import SentenceTransformer
    from transformers import TrainerCallback

    class StopAt(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            if state.global_step >= 3:
                control.should_training_stop = True

    config = load_config(WindowConfig, None, {
        "model.base": str(tiny_bert), "model.max_seq_length": 64, "model.projection": None,
        "data.hard_negatives": {"miner": "bm25", "skip": 0, "depth": 20},
        "training.batch_size": 8, "training.mini_batch_size": 4, "training.max_steps": 6,
        "training.learning_rate": 1e-3, "checkpoint.every_steps": 3, "checkpoint.keep": None,
    })
    full = train("window", config, tiny_corpus, tmp_path / "full")
    train("window", config, tiny_corpus, tmp_path / "split", callbacks=[StopAt()])
    resumed = train("window", config, tiny_corpus, tmp_path / "split", resume=True)
    a = SentenceTransformer(str(full), device="cpu").state_dict()
    b = SentenceTransformer(str(resumed), device="cpu").state_dict()
    for name in a:
        torch.testing.assert_close(b[name], a[name], rtol=1e-5, atol=1e-6, msg=name)


def test_the_printed_negatives_per_anchor_count_the_mined_column():
    """MNRL with a hard-negative column scores every anchor against all positives and all mined negatives."""
    from types import SimpleNamespace

    from sciembed.training.trainer import batch_lines

    loss = SimpleNamespace(gather_across_devices=False)
    assert "in-batch negatives per anchor: 7 (one process)" in batch_lines(8, 1, loss)
    with_mined = batch_lines(8, 1, loss, hard_negatives=1)
    assert "in-batch negatives per anchor: 15 (one process, 8 of them mined hard negatives)" in with_mined
    per_process = batch_lines(8, 2, loss, hard_negatives=1)
    assert any("negatives per anchor: 7 (per process" in line for line in per_process)
