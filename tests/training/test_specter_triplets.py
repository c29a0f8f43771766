"""SPECTER's released training data (allenai/specter data/training: data.json, metadata.json, train.txt …) as
CoSAEmb's inter-document triplets, drawn by the rules of SPECTER's TripletGenerator."""

from __future__ import annotations

from pathlib import Path

import pytest

from sciembed.training import load_config
from sciembed.training.config import ConfigError
from sciembed.training.recipes import cosaemb
from sciembed.training.recipes.cosaemb_config import CosaembConfig
from sciembed.training.sources.specter import SpecterDataError, read_specter_release, specter_triplets
from sciembed.training.sources.triplets import KINDS

from . import test_cosaemb
from .test_cosaemb import tiny_config

cited_corpus = test_cosaemb.cited_corpus  # the fixture, shared

FIXTURE = Path(__file__).parent / "fixtures" / "specter"


def ids(i: int) -> str:
    return f"{i:040x}"


def test_release_layout_and_triplet_rules():
    release = read_specter_release(FIXTURE)
    assert release.counts == {"candidates_without_metadata": 1, "queries_without_metadata": 1}
    assert [c for c, _ in release.candidates[ids(0)]] == [ids(1), ids(2), ids(3), ids(4)]
    triplets, stats = specter_triplets(release, seed=0)
    q0 = [t for t in triplets if t[0] == ids(0)]
    # counts 5, 5, 1, 1: margin 0.5 × 4 = 2; hard negatives (count < 3) paired with positives (count > 3):
    # ceil(0.5 × 5) = 3 of them; the other 2 are easy: a paper the query does not list
    assert len(q0) == 5
    hard, easy = q0[:3], q0[3:]
    assert all(p in (ids(1), ids(2)) and n in (ids(3), ids(4)) for _, p, n in hard)
    assert all(p in (ids(1), ids(2)) and n not in {ids(i) for i in range(5)} for _, p, n in easy)
    # ids(5): one candidate; ids(7): no spread between counts — SPECTER gives neither a triplet
    assert not [t for t in triplets if t[0] in (ids(5), ids(7))]
    q10 = [t for t in triplets if t[0] == ids(10)]  # 5 and 1 (the id without metadata is dropped)
    assert len(q10) == 5 and {n for _, _, n in q10[:1]} == {ids(12)}
    assert stats == {"queries_used": 2, "queries_skipped": 3, "hard": 4, "easy": 6}
    assert specter_triplets(release, seed=0) == (triplets, stats)  # seeded


def test_bad_release_folders(tmp_path):
    with pytest.raises(SpecterDataError, match=r"data\.json: not found"):
        read_specter_release(tmp_path)
    (tmp_path / "data.json").write_text('{"q": {"c": {"count": "five"}}}')
    (tmp_path / "metadata.json").write_text('{"q": {"title": "t"}, "c": {"title": "u"}}')
    with pytest.raises(SpecterDataError, match="no numeric count"):
        read_specter_release(tmp_path)
    with pytest.raises(ConfigError, match=r"needs data\.specter"):
        load_config(CosaembConfig, None, {"data.inter_source": "specter"})


def test_cosaemb_trains_on_specter_inter_triplets(cited_corpus, tiny_bert):
    """`data.inter_source: specter`: the corpus gives local and global triplets, SPECTER's release the
    inter-document ones, each with its own negative in every epoch."""
    config = tiny_config(tiny_bert, **{"data.inter_source": "specter", "data.specter": str(FIXTURE)})
    prepared = cosaemb.prepare(config, cited_corpus)
    data = prepared.data
    assert data.counts["specter_triplets"] == 10
    inter = data.rows[:, 0] == KINDS.index("inter")
    assert int(inter.sum()) == 10 and (data.fixed_negative[inter] >= 0).all()
    assert (data.fixed_negative[~inter] == -1).all()
    anchors = {data.texts[a] for a in data.rows[inter, 1]}
    assert anchors == {"[TTL] Graph Neural Networks Citation 0 [SEP] [ABS] We study graph neural networks citation "
                       "in case 0.", "[TTL] Soil Carbon Climate 10 [SEP] [ABS] We study soil carbon climate in "
                       "case 10."}
    for epoch in prepared.epochs:  # the release's negatives, never a drawn one
        is_inter = epoch.label == KINDS.index("inter")
        assert sorted(epoch.negative[is_inter].tolist()) == sorted(data.fixed_negative[inter].tolist())
