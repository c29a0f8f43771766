"""CoSAEmb: graded triplet loss, triplet sources, special tokens, the recipe end to end, bad input."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import torch
from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.corpus.layout import CorpusDir
from sciembed.training import load_config, train
from sciembed.training.config import ConfigError
from sciembed.training.losses.graded_triplet import GradedTripletLoss, graded_triplet_loss
from sciembed.training.recipes import cosaemb
from sciembed.training.recipes.cosaemb_config import CosaembConfig
from sciembed.training.sources.triplets import KINDS, TripletError, build_triplet_data, draw_epoch
from sciembed.views.chunk import SPECIAL_TOKENS


@pytest.fixture(scope="module")
def cited_corpus(tiny_corpus, tmp_path_factory):
    """The tiny built corpus plus citations.parquet: each pair cited a -> b, every third also b -> a."""
    root = tmp_path_factory.mktemp("cited") / "corpus"
    shutil.copytree(tiny_corpus, root)
    pairs = pq.read_table(root / "pairs.parquet").to_pylist()
    rows = [(r["paper_a"], r["paper_b"], r["split"]) for r in pairs]
    rows += [(b, a, s) for i, (a, b, s) in enumerate(rows) if i % 3 == 0]
    rows.sort()
    pq.write_table(pa.table({"citing": [r[0] for r in rows], "cited": [r[1] for r in rows],
                             "split": [r[2] for r in rows]}), root / "citations.parquet")
    return root


def tiny_config(bert, **overrides) -> CosaembConfig:
    values = {"model.base": str(bert), "model.max_seq_length": 64, "training.batch_size": 8,
              "training.epochs": 2, "training.max_steps": 3, "training.learning_rate": 1e-3,
              "training.log_every_steps": 1, "checkpoint.every_steps": 3, "checkpoint.keep": 1}
    values.update(overrides)
    return load_config(CosaembConfig, None, values)


def test_loss_equals_the_formula_per_kind():
    a = torch.tensor([[0.0, 0.0], [1.0, 1.0], [0.0, 2.0], [3.0, 0.0]])
    p = torch.tensor([[1.0, 0.0], [1.0, 2.0], [0.0, 0.0], [3.0, 0.5]])
    n = torch.tensor([[0.0, 1.5], [4.0, 1.0], [0.0, 3.0], [0.0, 0.0]])
    labels = torch.tensor([KINDS.index("inter"), KINDS.index("global"), KINDS.index("local"), KINDS.index("local")])
    margins = torch.tensor([1.0, 2.0, 3.0])
    # d(a,p)^2 - d(a,n)^2 + m: 1 - 2.25 + 1 = -0.25 -> 0; 1 - 9 + 2 = -6 -> 0; 4 - 1 + 3 = 6; 0.25 - 9 + 3 -> 0
    per = graded_triplet_loss(a, p, n, labels, margins, reduction="none")
    assert torch.allclose(per, torch.tensor([0.0, 0.0, 6.0, 0.0]))
    flat = graded_triplet_loss(a, p, n, labels, torch.ones(3), reduction="none")
    assert torch.allclose(flat, torch.tensor([0.0, 0.0, 4.0, 0.0]))
    assert float(graded_triplet_loss(a, p, n, labels, margins)) == pytest.approx(1.5)

    class Identity(torch.nn.Module):
        def forward(self, features):
            return {"sentence_embedding": features["x"]}

    loss = GradedTripletLoss(Identity(), (1.0, 2.0, 3.0))
    assert float(loss([{"x": a}, {"x": p}, {"x": n}], labels)) == pytest.approx(1.5)
    with pytest.raises(ValueError, match="positive"):
        GradedTripletLoss(Identity(), (1.0, 0.0, 3.0))


@pytest.fixture(scope="module")
def triplet_data(cited_corpus, tiny_bert):
    from sciembed.training.sources.triplets import load_papers_and_citations

    papers, citations = load_papers_and_citations(cited_corpus)
    config = tiny_config(tiny_bert)
    counter = cosaemb.tokenizer_counter(cosaemb.load_tokenizer(config))
    return build_triplet_data(papers, citations, counter, 62), citations


def test_negatives_follow_their_strategy(triplet_data):
    data, citations = triplet_data
    assert data.counts["inter"] == len(citations) > 0 and data.counts["local"] > 0 and data.counts["global"] > 0
    ta_paper = {int(t): i for i, t in enumerate(data.ta)}
    for strategy in ("two_hop", "cited"):
        epoch = draw_epoch(data, 0, seed=3, negative=strategy, inter_negative="two_hop")
        anchor_paper = {}
        for _kind, anchor, _, paper in data.rows:
            anchor_paper.setdefault(int(anchor), set()).add(int(paper))
        checked = 0
        for anchor, negative, label in zip(epoch.anchor, epoch.negative, epoch.label, strict=True):
            (paper,) = anchor_paper[int(anchor)] if len(anchor_paper[int(anchor)]) == 1 else (None,)
            if paper is None:
                continue
            neg = ta_paper[int(negative)]
            assert neg != paper
            if KINDS[label] == "inter" or strategy == "two_hop":
                assert neg not in set(data.cites[paper].tolist())  # 2-hop (or fallback) is never cited
                if len(data.two_hop[paper]):
                    assert neg in set(data.two_hop[paper].tolist())
            elif len(data.cites[paper]):
                assert neg in set(data.cites[paper].tolist())  # the paper's own definition
            checked += 1
        assert checked > 50
    # Same seed, same epoch; another epoch, another order.
    a, b = draw_epoch(data, 1, seed=3), draw_epoch(data, 1, seed=3)
    assert np.array_equal(a.anchor, b.anchor) and np.array_equal(a.negative, b.negative)
    assert not np.array_equal(a.anchor, draw_epoch(data, 0, seed=3).anchor)


def test_special_tokens_are_single_ids_and_survive_save_and_load(tiny_bert, tmp_path):
    from sentence_transformers import SentenceTransformer

    from sciembed.training.model import build_model
    from sciembed.training.special_tokens import register_special_tokens

    config = tiny_config(tiny_bert)
    model = build_model(config.model, pooling="cls")
    before = model[0].auto_model.get_input_embeddings().num_embeddings
    assert register_special_tokens(model, SPECIAL_TOKENS) == len(SPECIAL_TOKENS)
    assert register_special_tokens(model, SPECIAL_TOKENS) == 0  # resized once
    assert model[0].auto_model.get_input_embeddings().num_embeddings == before + len(SPECIAL_TOKENS)
    tokenizer = model.tokenizer
    ids = [tokenizer.encode(t, add_special_tokens=False) for t in SPECIAL_TOKENS]
    assert all(len(i) == 1 for i in ids) and len({i[0] for i in ids}) == len(SPECIAL_TOKENS)
    assert tokenizer.tokenize("[TTL] c1 [SEP] [INTR] c2") == ["[TTL]", "c1", "[SEP]", "[INTR]", "c2"]
    model.save(str(tmp_path / "m"))
    loaded = SentenceTransformer(str(tmp_path / "m"), device="cpu")
    assert [loaded.tokenizer.encode(t, add_special_tokens=False) for t in SPECIAL_TOKENS] == ids
    assert loaded[1].get_config_dict()["pooling_mode"] == "cls"


def test_training_saves_a_cls_model_with_its_card(cited_corpus, tiny_bert, tmp_path):
    from sciembed.models import load_encoder

    model_dir = train("cosaemb", tiny_config(tiny_bert), cited_corpus, tmp_path / "run")
    card = json.loads((model_dir / "sciembed_model.json").read_text())
    assert card["recipe"] == "cosaemb" and card["metric"] == "l2" and card["input_format"] == "cosaemb"
    assert card["pooling"] == "cls" and card["extra"]["chunk_budget"] == 62
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["global_step"] == 3 and summary["composition"]["per_kind"]["inter"] > 0
    encoder = load_encoder(str(model_dir))
    assert encoder.metric == "l2" and encoder.card.input_format == "cosaemb"
    assert encoder.count_tokens("[TTL] [ABS] [INTR] [RW] [MET] [RES] [CONC]") == 7


def test_bad_input_is_refused_before_training(tiny_corpus, cited_corpus, tiny_bert, tmp_path):
    config = tiny_config(tiny_bert)
    with pytest.raises(TripletError, match=r"no citation graph.*--kinds local,global"):
        cosaemb.prepare(config, tiny_corpus)  # no citations.parquet
    local = tiny_config(tiny_bert, **{"data.kinds": ["local", "global"], "data.negative": "random"})
    assert cosaemb.prepare(local, tiny_corpus).data.counts["inter"] == 0
    for override, message in (({"training.margins.local": 0}, "margins.local: Input should be greater than 0"),
                              ({"data.kinds": ["local", "sideways"]}, "data.kinds.1"),
                              ({"data.negative": "hardest"}, "data.negative"),
                              ({"data.inter_negative": "cited"}, "data.inter_negative")):
        with pytest.raises(ConfigError, match=message):
            tiny_config(tiny_bert, **override)
    runner = CliRunner()
    result = runner.invoke(app, ["train", "cosaemb", "--corpus", str(tiny_corpus), "--base-model", str(tiny_bert),
                                 "--max-seq-length", "64", "--out", str(tmp_path / "x")])
    assert result.exit_code == 2 and "--kinds local,global" in " ".join(result.output.split())
    assert not (tmp_path / "x" / "model").exists()
    result = runner.invoke(app, ["train", "cosaemb", "--corpus", str(cited_corpus), "--base-model", str(tiny_bert),
                                 "--max-seq-length", "64", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "Triplets per epoch by kind" in result.output and "Section texts by class" in result.output
    assert CorpusDir(cited_corpus).has_citations()
