"""RRF on a hand-worked example, duplicate segment hits, the de-dup switch, and agreement with ranx."""

from __future__ import annotations

import numpy as np
import pytest

from sciembed.search.fusion import rrf, rrf_scores


def test_rrf_hand_worked_with_duplicate_segment_hits():
    # method list: segments of A, B, A  -> A gets 1/61 + 1/63, B 1/62
    # abstract list: B, C               -> B gets 1/61, C 1/62
    lists = {"method": ["A", "B", "A"], "abstract": ["B", "C"]}
    fused = rrf(lists)
    scores = {h.paper_id: h.score for h in fused}
    assert scores["A"] == pytest.approx(1 / 61 + 1 / 63)  # 0.032266
    assert scores["B"] == pytest.approx(1 / 62 + 1 / 61)  # 0.032522
    assert scores["C"] == pytest.approx(1 / 62)
    assert [h.paper_id for h in fused] == ["B", "A", "C"]
    assert fused[1].found_by == {"method": [1, 3]}
    assert fused[0].sources() == "method#2, abstract#1"


def test_rrf_dedupe_counts_a_paper_once_per_list():
    fused = {h.paper_id: h.score for h in rrf({"method": ["A", "B", "A"], "abstract": ["B", "C"]}, dedupe=True)}
    assert fused["A"] == pytest.approx(1 / 61)
    assert fused["B"] == pytest.approx(1 / 62 + 1 / 61)


def test_rrf_ties_depth_and_k():
    from sciembed.retrieval.ties import ordered

    tied = [p for p, _ in rrf_scores({"x": ["b"], "y": ["a"]})]  # equal scores: seeded-hash order, never by id
    assert tied == [p for p, _ in ordered([("a", 1.0), ("b", 1.0)])]
    assert len(rrf({"x": list("abcdef")}, depth=3)) == 3
    assert rrf_scores({"x": ["a"]}, k=0)[0][1] == pytest.approx(1.0)
    with pytest.raises(ValueError):
        rrf({"x": ["a"]}, k=-1)


@pytest.mark.filterwarnings("ignore:unsafe cast")
def test_dedupe_rrf_equals_ranx_fuse():
    from ranx import Run, fuse

    lists = {"m": ["a", "b", "c", "d"], "e": ["c", "a", "e"], "r": ["e", "d"]}
    runs = [Run({"q": {d: float(len(docs) - i) for i, d in enumerate(docs)}}) for docs in lists.values()]
    theirs = fuse(runs, method="rrf", params={"k": 60}).to_dict()["q"]
    ours = dict(rrf_scores(lists, dedupe=True))
    assert set(ours) == set(theirs)
    for doc, score in ours.items():
        assert score == pytest.approx(theirs[doc])


def test_ordered_hashes_only_ties_and_keeps_the_seeded_order():
    from sciembed.retrieval.ties import ordered, tie_key

    rng = np.random.default_rng(0)
    for seed in (0, 3):
        items = [(f"p{i}", float(s)) for i, s in enumerate(rng.integers(0, 5, 60) / 3)]  # many equal scores
        assert ordered(items, seed) == sorted(items, key=lambda it: (-it[1], tie_key(it[0], seed)))
