"""`MultiVectorIndex.search_views` (every paper method, view rows, removals, filters) against brute force."""

from __future__ import annotations

import numpy as np
import pytest

from sciembed.retrieval import MultiVectorIndex
from sciembed.retrieval.multivector import PAPER_METHODS


def _scores(vectors, queries, metric):
    if metric == "cosine":
        v = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        q = queries / np.linalg.norm(queries, axis=1, keepdims=True)
        return q @ v.T
    return -np.linalg.norm(queries[:, None, :] - vectors[None, :, :], axis=2)


@pytest.mark.parametrize("metric", ["cosine", "l2"])
@pytest.mark.parametrize("method", PAPER_METHODS)
def test_search_views_equals_brute_force(metric, method):
    rng = np.random.default_rng(3)
    owners = [f"p{i % 9}" for i in rng.permutation(40)]  # views of a paper are not contiguous
    vectors = rng.normal(size=(40, 6)).astype(np.float32)
    queries = rng.normal(size=(3, 6)).astype(np.float32)
    index = MultiVectorIndex(6, metric)
    index.add(owners, vectors)
    s = _scores(vectors, queries, metric)
    expected = {}
    for p in sorted(set(owners)):
        cols = s[:, [i for i, o in enumerate(owners) if o == p]]
        expected[p] = {"max_sim": cols.max(), "late": cols.max(axis=1).mean(), "naive_sum": cols.sum(),
                       "max_sim_prism_code": cols.min(axis=1).sum()}[method]
    hits = index.search_views(queries, 5, method, exclude=["p0"])
    ranked = sorted(((p, v) for p, v in expected.items() if p != "p0"), key=lambda x: (-x[1], x[0]))[:5]
    assert [p for p, _, _ in hits] == [p for p, _ in ranked]
    assert [v for _, v, _ in hits] == pytest.approx([v for _, v in ranked], rel=1e-5)
    for pid, _, row in hits:  # the row is the paper's own view that best matches any query vector
        own = [i for i, o in enumerate(owners) if o == pid]
        assert owners[row] == pid and s[:, row].max() == pytest.approx(s[:, own].max(), rel=1e-6)


@pytest.mark.parametrize("method", PAPER_METHODS)
def test_search_views_ignores_removed_views_and_filters(method):
    rng = np.random.default_rng(4)
    owners = [f"p{i % 5}" for i in range(20)]
    vectors = rng.normal(size=(20, 4)).astype(np.float32)
    queries = rng.normal(size=(2, 4)).astype(np.float32)
    index, kept = MultiVectorIndex(4), MultiVectorIndex(4)
    index.add(owners, vectors)
    index.remove_rows([0, 6])  # one view of p0, one of p1
    index.remove("p2")
    live = [i for i in range(20) if i not in (0, 6) and owners[i] != "p2"]
    kept.add([owners[i] for i in live], vectors[live])
    assert [(p, round(v, 5)) for p, v, _ in index.search_views(queries, 5, method)] == [
        (p, round(v, 5)) for p, v, _ in kept.search_views(queries, 5, method)]
    accepted = index.search_views(queries, 5, method, accept=lambda p: p in ("p3", "p4"))
    assert sorted(p for p, _, _ in accepted) == ["p3", "p4"]


def test_search_views_over_an_approximate_index_gives_max_and_late():
    from sciembed.retrieval.ann import default_params

    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(60, 8)).astype(np.float32)
    owners = [f"p{i % 12}" for i in range(60)]
    exact, hnsw = MultiVectorIndex(8), MultiVectorIndex(8, params=default_params("hnsw", 60, 8))
    exact.add(owners, vectors)
    hnsw.add(owners, vectors)
    assert [p for p, _, _ in hnsw.search_views(vectors[:3], 4, exclude=["p0"])] == [
        p for p, _, _ in exact.search_views(vectors[:3], 4, exclude=["p0"])]
    with pytest.raises(ValueError, match="max_sim and late only"):
        hnsw.search_views(vectors[:3], 4, "naive_sum")


@pytest.mark.parametrize("metric", ["cosine", "l2"])
def test_late_over_an_approximate_index_scores_its_candidates_exactly(metric):
    """Every candidate's `late` score is the exact one; with candidates covering the collection, the ranking
    is the exact ranking; a paper in no query vector's top k is the approximation (and is the only one)."""
    from sciembed.retrieval.ann import default_params
    from sciembed.retrieval.approximate_late import late_over_candidates

    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(90, 8)).astype(np.float32)
    owners = [f"p{i % 18}" for i in range(90)]
    exact = MultiVectorIndex(8, metric=metric)
    hnsw = MultiVectorIndex(8, metric=metric, params=default_params("hnsw", 90, 8))
    exact.add(owners, vectors)
    hnsw.add(owners, vectors)
    queries = vectors[:4]
    truth = {p: s for p, s, _ in exact.search_views(queries, 18, "late", exclude=["p0"])}
    whole = late_over_candidates(hnsw, queries, 17, {"p0"}, None, None)  # all 17 others needed as candidates
    assert [p for p, _, _ in whole] == list(truth)  # so the ranking is the exact one
    assert all(abs(s - truth[p]) < 1e-5 for p, s, _ in whole)
    paged = hnsw.search_views(queries, 17, "late", exclude=["p0"])
    assert sorted(p for p, _, _ in paged) == sorted(truth)
    top = hnsw.search_views(queries, 3, "late", exclude=["p0"])
    assert all(abs(s - truth[p]) < 1e-5 for p, s, _ in top)
    assert [p for p, _, _ in top] == [p for p, _, _ in paged][:3]  # pages agree (stable prefix)
    for pid, _, row in top:
        assert hnsw.paper_of_row(row) == pid


def test_search_paper_views_excludes_itself_and_title_twins():
    index = MultiVectorIndex(2)
    index.add(["a", "a", "b", "c"], np.array([[1, 0], [0, 1], [1, 0.1], [1, 0]], np.float32))
    assert [p for p, _ in index.search_paper_views("a", 5)] == ["b", "c"]  # late: b 0.547 > c 0.5
    assert [p for p, _ in index.search_paper_views("a", 5, exclude=["c"])] == ["b"]
    with pytest.raises(ValueError):
        index.search_views(np.ones((1, 2), np.float32), 3, "median")
