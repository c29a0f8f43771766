"""Learned fusion: `fuse_one` equals ranx's fuse, tuning picks the best candidate on the validation qrels."""

from __future__ import annotations

import json

import pytest

from sciembed.search.learned_fusion import FusionError, FusionSpec, fuse_all, fuse_one, tune_fusion

RUNS = {
    "bm25": {"q1": [("a", 12.0), ("b", 7.5), ("c", 1.0)], "q2": [("d", 3.0), ("a", 2.0)]},
    "dense": {"q1": [("c", 0.91), ("a", 0.80), ("e", 0.42)], "q2": [("a", 0.7), ("e", 0.69), ("d", 0.1)]},
}
QRELS = {"q1": {"c": 1}, "q2": {"d": 1}}


@pytest.mark.parametrize("spec", [
    FusionSpec(["bm25", "dense"], "rrf", None, {"k": 10}),
    FusionSpec(["bm25", "dense"], "combsum", "min-max"),
    FusionSpec(["bm25", "dense"], "wsum", "min-max", {"weights": [0.3, 0.7]}),
    FusionSpec(["bm25", "dense"], "wsum", "zmuv", {"weights": [0.6, 0.4]}),
], ids=lambda s: s.label)
def test_fuse_one_gives_ranx_scores(spec):
    from ranx import Run, fuse

    runs = [Run({q: dict(r) for q, r in RUNS[name].items()}) for name in spec.runs]
    method = "wsum" if spec.method == "combsum" else spec.method
    params = {"weights": [1.0, 1.0]} if spec.method == "combsum" else spec.params
    expected = fuse(runs, norm=spec.norm, method=method, params=params).to_dict()
    ours = fuse_all(spec, RUNS)
    for q in RUNS["bm25"]:
        assert dict(ours[q]) == pytest.approx(expected[q])
        assert [d for d, _ in ours[q]] == sorted(expected[q], key=lambda d: (-expected[q][d], d))


def test_tuning_keeps_the_best_candidate_and_round_trips(tmp_path):
    spec = tune_fusion(QRELS, RUNS, metric="ndcg@10")
    scores = [t["ndcg@10"] for t in spec.tuned["tried"]]
    assert spec.tuned["score"] == max(scores) and spec.tuned["queries"] == 2 and len(scores) == 5
    path = spec.save(tmp_path / "fusion.json")
    again = FusionSpec.load(tmp_path)
    assert again == spec and json.loads(path.read_text())["method"] == spec.method
    assert fuse_one(again, {r: RUNS[r]["q1"] for r in RUNS}, depth=2) == fuse_one(spec, {r: RUNS[r]["q1"]
                                                                                         for r in RUNS})[:2]


def test_bad_specs_and_files_are_explained(tmp_path):
    with pytest.raises(FusionError, match="unknown fusion method"):
        FusionSpec(["a", "b"], "borda")
    with pytest.raises(FusionError, match="needs a norm"):
        FusionSpec(["a", "b"], "wsum", None, {"weights": [1, 1]})
    with pytest.raises(FusionError, match="one weight per run"):
        FusionSpec(["a", "b"], "wsum", "zmuv", {"weights": [1]})
    with pytest.raises(FusionError, match="at least two runs"):
        FusionSpec(["a"])
    with pytest.raises(FusionError, match="no fusion file"):
        FusionSpec.load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{\n nope")
    with pytest.raises(FusionError, match=r"bad\.json:2"):
        FusionSpec.load(tmp_path / "bad.json")
    with pytest.raises(FusionError, match="needs runs"):
        fuse_one(FusionSpec(["a", "b"]), {"a": []})
