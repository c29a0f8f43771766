"""Issue 33, defect 10: pages of an approximate (HNSW) ranking never show a paper twice or skip one.

Each page is cut from a search as deep as the page's end; before, searches of different depths disagreed
at the page boundaries (3 of 16 paging runs showed one paper twice and dropped another).
"""

from __future__ import annotations

import numpy as np
import pytest

from sciembed.retrieval.ann import AnnParams
from sciembed.retrieval.multivector import MultiVectorIndex
from sciembed.retrieval.paging import stable_prefix, tiers


def _hard_hnsw(n: int = 3000, dim: int = 32, seed: int = 0) -> tuple[MultiVectorIndex, np.random.Generator]:
    """Clustered vectors and a sparse graph: approximate answers, as in a large collection."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(30, dim))
    vectors = (centres[rng.integers(0, 30, n)] + 0.6 * rng.normal(size=(n, dim))).astype(np.float32)
    index = MultiVectorIndex(dim, "cosine", "max", AnnParams(kind="hnsw", hnsw_m=4, ef_construction=16,
                                                             ef_search=16))
    index.add([f"p{i}" for i in range(n)], vectors)
    return index, rng


@pytest.mark.parametrize("k", [10, 25, 50])
def test_pages_never_repeat_or_skip_a_paper(k):
    index, rng = _hard_hnsw()
    for run in range(16):
        query = rng.normal(size=(1, index.dim)).astype(np.float32)
        pages = [index.search_views(query, offset + k + 1)[offset:offset + k] for offset in range(0, 300, k)]
        shown = [pid for page in pages for pid, _, _ in page]
        assert len(shown) == len(set(shown)), f"run {run}: a paper shown twice"
        whole = [pid for pid, _, _ in index.search_views(query, 300)]
        assert shown == whole[:len(shown)], f"run {run}: the pages are not the ranking cut in pieces"


def test_stable_prefix_places_each_tier_from_its_own_search():
    deep = {16: ["a", "b", "c"], 32: ["x", "a", "b", "c", "d"]}  # the deeper search found x, missed by the 16
    rankings = stable_prefix(lambda depth: [[(pid, 1.0) for pid in deep[depth]]], 20, 1)
    assert [pid for pid, _ in rankings[0]] == ["a", "b", "c", "x", "d"]
    assert list(tiers(10)) == [16] and list(tiers(17)) == [16, 32] and list(tiers(64)) == [16, 32, 64]
