"""Zero-overlap splits: sizes by hand, balls by hand, and a search for any paper shared across splits."""

from __future__ import annotations

import hashlib

import pyarrow.parquet as pq
import pytest

from sciembed.corpus.build import build_corpus
from sciembed.corpus.config import FunnelConfig
from sciembed.corpus.layout import SPLITS, CorpusDir
from sciembed.corpus.splits import SplitSizeError, split_targets
from sciembed.synth.graph import synthetic_graph


def test_split_targets_by_hand():
    # fractions round half up per domain: 1.5 -> 2, 0.5 -> 1
    assert split_targets({"cs": 15, "bio": 5}, 0.1) == {"bio": 1, "cs": 2}
    # a count is spread by largest remainder: quotas 3.5, 1.75, 1.75 -> 3, 1, 1 + the two largest remainders
    assert split_targets({"cs": 10, "bio": 5, "geo": 5}, 7) == {"bio": 2, "cs": 3, "geo": 2}
    # equal remainders: the domain name sorted first wins
    assert split_targets({"b": 1, "a": 1}, 1) == {"a": 1, "b": 0}
    with pytest.raises(SplitSizeError, match="split size 3 exceeds the 2 papers"):
        split_targets({"a": 1, "b": 1}, 3)


def _key(seed: int, pid: str) -> int:
    return int.from_bytes(hashlib.md5(f"{seed}:split:{pid}".encode()).digest(), "little")


@pytest.mark.parametrize("seed", [0, 5])
def test_triangles_split_as_whole_balls(paper, write_corpus, write_csv, tmp_path, seed):
    triangles = [[f"t{t}{c}" for c in "abc"] for t in range(3)]
    corpus = write_corpus([paper(p) for tri in triangles for p in tri])
    edges = write_csv([(x, y) for tri in triangles for x, y in ((tri[0], tri[1]), (tri[1], tri[2]), (tri[0], tri[2]))])
    config = FunnelConfig(seed=seed, test_size=3, val_size=3)
    result = build_corpus(corpus, tmp_path / "out", config, [edges])
    # Each paper's ball is its triangle (3 papers = the target): the first paper in key order seeds test,
    # the first paper outside the test zone seeds val, the rest is train.
    order = sorted((p for tri in triangles for p in tri), key=lambda p: _key(seed, p))
    test = next(tri for tri in triangles if order[0] in tri)
    val = next(tri for tri in triangles if next(p for p in order if p not in test) in tri)
    built = CorpusDir(tmp_path / "out")
    assert built.split_ids("test") == sorted(test)
    assert built.split_ids("val") == sorted(val)
    assert len(built.split_ids("train")) == 3
    assert result.splits.cross_split_pairs == 0
    stats = result.splits.splits["test"]
    assert (stats["papers"], stats["pairs"], stats["queries"], stats["mean_relevant_per_query"]) == (3, 3, 3, 2.0)
    assert (stats["target_papers"], stats["seeds"]) == (3, 1)
    # the seeds are recorded as anchors: one query per ball, relevant = its two triangle partners
    assert built.anchor_ids("test") == [order[0]]
    assert built.anchor_ids("val") == [next(p for p in order if p not in test)]
    assert built.anchor_ids("train") == []
    assert (stats["anchors"], stats["mean_relevant_per_anchor"]) == (1, 2.0)
    from sciembed.evaluation import build_citation_benchmark

    bench = build_citation_benchmark(built, "test")
    assert bench.query_ids == [order[0]] and bench.links[order[0]] == set(test) - {order[0]}
    assert build_citation_benchmark(built, "test", queries="linked").query_ids == sorted(test)


def _synthetic_corpus(paper, write_corpus, write_csv, n_papers=400, n_edges=2400):
    graph = synthetic_graph(n_papers, n_edges, seed=3)
    ids = [f"s{i:04d}" for i in range(n_papers)]
    papers = [paper(ids[i], field=graph.domain_names[graph.domain[i]]) for i in range(n_papers)]
    edges = [(ids[a], ids[b]) for a, b in zip(graph.citing.tolist(), graph.cited.tolist(), strict=True)]
    return write_corpus(papers), write_csv(edges)


def test_no_paper_is_shared_between_splits(paper, write_corpus, write_csv, tmp_path):
    corpus, edges = _synthetic_corpus(paper, write_corpus, write_csv)
    result = build_corpus(corpus, tmp_path / "out", FunnelConfig(test_size=0.15, val_size=0.1, seed=11), [edges])
    built = CorpusDir(tmp_path / "out")
    ids = {s: set(built.split_ids(s)) for s in SPLITS}
    in_pairs = {s: {p for pair in built.pairs(s) for p in pair} for s in SPLITS}
    for s in SPLITS:
        for other in SPLITS:
            if other != s:
                assert not ids[s] & ids[other], f"{s} and {other} share papers"
                assert not ids[s] & in_pairs[other], f"a {s} paper appears in a {other} pair"
        assert in_pairs[s] <= ids[s]
    # Every held-out paper is a query: it keeps at least one link inside its split.
    assert in_pairs["test"] == ids["test"] and in_pairs["val"] == ids["val"]
    assert result.splits.splits["test"]["queries"] == len(ids["test"]) > 0
    # Counts add up: pairs after the cap = pairs kept in some split + cross-split pairs.
    kept = sum(len(built.pairs(s)) for s in SPLITS)
    assert result.report.stage("cap").pairs == kept + result.splits.cross_split_pairs
    assert result.report.stage("split").pairs == kept
    # Stratified: every domain with a positive target got test papers.
    for domain, stats in result.splits.splits["test"]["domains"].items():
        assert stats["papers"] > 0, domain
    domains = {p.id: p.domain for p in built.iter_papers()}
    table = pq.read_table(built.splits_path).to_pylist()
    assert all(row["domain"] == domains[row["paper_id"]] for row in table)


def test_same_seed_same_files_other_seed_other_split(paper, write_corpus, write_csv, tmp_path):
    corpus, edges = _synthetic_corpus(paper, write_corpus, write_csv, n_papers=200, n_edges=1000)
    for name, seed in (("a", 1), ("b", 1), ("c", 2)):
        build_corpus(corpus, tmp_path / name, FunnelConfig(seed=seed), [edges])
    for name in ("papers.parquet", "pairs.parquet", "splits.parquet", "funnel.json", "funnel.md", "manifest.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert CorpusDir(tmp_path / "a").split_ids("test") != CorpusDir(tmp_path / "c").split_ids("test")


def test_sizes_that_do_not_fit_are_refused(paper, write_corpus, write_csv, tmp_path):
    corpus = write_corpus([paper("a"), paper("b"), paper("c")])
    with pytest.raises(SplitSizeError, match=r"test \(2\) \+ val \(2\) papers exceed the 3 papers"):
        build_corpus(corpus, tmp_path / "out", FunnelConfig(test_size=2, val_size=2),
                     [write_csv([("a", "b"), ("b", "c")])])


def _pairs_corpus(paper, write_corpus, write_csv, n_pairs):
    """`n_pairs` disjoint citation pairs: every ball is one pair (both ends may be anchors)."""
    ids = [(f"p{i:03d}a", f"p{i:03d}b") for i in range(n_pairs)]
    return write_corpus([paper(p) for pair in ids for p in pair]), write_csv(ids)


def test_a_fractional_test_size_grows_to_the_minimum_anchors(paper, write_corpus, write_csv, tmp_path):
    corpus, edges = _pairs_corpus(paper, write_corpus, write_csv, 150)
    # 2.4% of 300 papers is 7 papers (4 balls); the minimum asks for 40 anchors.
    result = build_corpus(corpus, tmp_path / "a", FunnelConfig(test_size=0.024, val_size=0.1, min_test_anchors=40),
                          [edges])
    test = result.splits.splits["test"]
    assert test["anchors"] == 40 and 40 < test["papers"] == test["queries"] <= 80
    top_up = result.manifest["splits"]["anchor_top_up"]
    assert test["seeds"] == 40 and 30 < top_up["seeds_added"] < 40
    assert (top_up["max_test_papers"], top_up["val_room"]) == (150, 1.5)
    built = CorpusDir(tmp_path / "a")
    partner = {a: b for a, b in built.pairs("test")} | {b: a for a, b in built.pairs("test")}
    assert all(partner[a] in built.split_ids("test") for a in built.anchor_ids("test"))  # whole balls
    assert result.splits.cross_split_pairs == 0 and result.splits.splits["val"]["papers"] == 30
    power = result.manifest["test_power"]
    assert power["queries"] == 40 and power["points"] == pytest.approx(2.8016 * 30 / 40 ** 0.5, abs=0.01)
    assert "40 anchor queries; a paired t-test (alpha 0.05, power 0.8) detects a difference of 13.3 NDCG@10" in (
        tmp_path / "a" / "funnel.md").read_text()
    # the cap: never more than half the pair papers (and room for val)
    capped = build_corpus(corpus, tmp_path / "b", FunnelConfig(test_size=0.024, val_size=0.1, min_test_anchors=1000),
                          [edges])
    anchors = capped.splits.splits["test"]["anchors"]
    assert capped.splits.splits["test"]["papers"] <= 150 < 2 * anchors and anchors < 1000
    note = f"Only {anchors} test anchors fit within the limits: at most 150 test papers"
    assert note in (tmp_path / "b" / "funnel.md").read_text()
    # a paper count is taken as it is, and 0 turns the minimum off
    for name, config in (("c", FunnelConfig(test_size=8, val_size=0.1)),
                         ("d", FunnelConfig(test_size=0.024, val_size=0.1, min_test_anchors=0))):
        result = build_corpus(corpus, tmp_path / name, config, [edges])
        assert result.splits.splits["test"]["anchors"] <= 4 and "anchor_top_up" not in result.manifest["splits"]
