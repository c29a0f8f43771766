"""Paper-to-paper aggregations of `MultiVectorIndex.search_views` against brute force."""

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
        expected[p] = {"max": cols.max(), "late": cols.max(axis=1).mean(), "sum": cols.sum(),
                       "prism_worst": cols.min(axis=1).sum()}[method]
    hits = index.search_views(queries, 5, method, exclude=["p0"])
    ranked = sorted(((p, v) for p, v in expected.items() if p != "p0"), key=lambda x: (-x[1], x[0]))[:5]
    assert [p for p, _ in hits] == [p for p, _ in ranked]
    assert [v for _, v in hits] == pytest.approx([v for _, v in ranked], rel=1e-5)


def test_search_paper_views_excludes_itself_and_title_twins():
    index = MultiVectorIndex(2)
    index.add(["a", "a", "b", "c"], np.array([[1, 0], [0, 1], [1, 0.1], [1, 0]], np.float32))
    assert [p for p, _ in index.search_paper_views("a", 5)] == ["b", "c"]  # late: b 0.547 > c 0.5
    assert [p for p, _ in index.search_paper_views("a", 5, exclude=["c"])] == ["b"]
    with pytest.raises(ValueError):
        index.search_views(np.ones((1, 2), np.float32), 3, "median")
