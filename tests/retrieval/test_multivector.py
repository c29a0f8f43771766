"""MultiVectorIndex: max / mean / sum paper scores equal brute force; exclusion on paper ids; save/load."""

from __future__ import annotations

import numpy as np
import pytest

from sciembed.retrieval import DenseIndex, IndexLoadError, MultiVectorIndex


def collection(seed: int, papers: int = 40, dim: int = 12):
    rng = np.random.default_rng(seed)
    owners = [f"p{i:02d}" for i in range(papers) for _ in range(rng.integers(1, 6))]
    return owners, rng.normal(size=(len(owners), dim)).astype(np.float32)


def brute_force(owners, vectors, query, metric, aggregate, exclude=None):
    if metric == "cosine":
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        scores = unit @ (query / np.linalg.norm(query))
    else:
        scores = -np.linalg.norm(vectors - query, axis=1)
    by_paper: dict[str, list[float]] = {}
    for owner, score in zip(owners, scores, strict=True):
        by_paper.setdefault(owner, []).append(float(score))
    reduce = {"max": max, "sum": sum, "mean": lambda s: sum(s) / len(s)}[aggregate]
    ranked = sorted(((p, reduce(s)) for p, s in by_paper.items() if p != exclude), key=lambda x: -x[1])
    return ranked


@pytest.mark.parametrize("metric", ["cosine", "l2"])
@pytest.mark.parametrize("aggregate", ["max", "mean", "sum"])
def test_aggregation_equals_brute_force(metric, aggregate):
    owners, vectors = collection(seed=7)
    index = MultiVectorIndex(vectors.shape[1], metric, aggregate)
    index.add(owners, vectors)
    assert len(index) == 40 and index.num_views == len(owners)
    queries = np.random.default_rng(8).normal(size=(4, vectors.shape[1])).astype(np.float32)
    excluded = ["p03", None, "p10", "p39"]
    for query, hits, skip in zip(queries, index.search(queries, 8, exclude=excluded), excluded, strict=True):
        expected = brute_force(owners, vectors, query, metric, aggregate, exclude=skip)[:8]
        assert [h[0] for h in hits] == [p for p, _ in expected]
        np.testing.assert_allclose([h[1] for h in hits], [s for _, s in expected], rtol=1e-4, atol=1e-4)


def test_aggregations_rank_differently_on_a_known_case():
    # paper a: one very close view and one far; paper b: two fairly close views
    vectors = np.array([[1.0, 0.0], [-1.0, 0.2], [0.8, 0.6], [0.8, -0.6]], dtype=np.float32)
    index = MultiVectorIndex(2)
    index.add(["a", "a", "b", "b"], vectors)
    query = np.array([[1.0, 0.0]], dtype=np.float32)
    assert [p for p, _ in index.search(query, 2)[0]] == ["a", "b"]
    assert [p for p, _ in index.search(query, 2, aggregate="mean")[0]] == ["b", "a"]
    assert index.search(query, 2, aggregate="sum")[0][0] == ("b", pytest.approx(1.6, abs=1e-5))


def test_exclusion_still_returns_k_papers_even_when_the_excluded_paper_owns_the_top_views():
    rng = np.random.default_rng(9)
    query = rng.normal(size=(1, 6)).astype(np.float32)
    close = query + 0.01 * rng.normal(size=(20, 6)).astype(np.float32)  # 20 views of "self" right at the query
    others = rng.normal(size=(10, 6)).astype(np.float32)
    index = MultiVectorIndex(6)
    index.add(["self"] * 20 + [f"o{i}" for i in range(10)], np.vstack([close, others]))
    hits = index.search(query, 5, exclude=["self"])[0]
    assert len(hits) == 5 and "self" not in [p for p, _ in hits]


def test_search_paper_uses_all_its_views_and_excludes_itself():
    owners, vectors = collection(seed=11)
    index = MultiVectorIndex(vectors.shape[1])
    index.add(owners, vectors)
    own = [v for o, v in zip(owners, vectors, strict=True) if o == "p05"]
    best: dict[str, float] = {}
    for view in own:
        for paper, score in brute_force(owners, vectors, view, "cosine", "max", exclude="p05"):
            best[paper] = max(score, best.get(paper, -np.inf))
    expected = sorted(best.items(), key=lambda x: -x[1])[:6]
    hits = index.search_paper("p05", 6)
    assert [p for p, _ in hits] == [p for p, _ in expected]
    with pytest.raises(KeyError, match="'nope' is not in this index"):
        index.search_paper("nope", 3)


def test_save_load_keeps_papers_and_aggregation(tmp_path):
    owners, vectors = collection(seed=12)
    index = MultiVectorIndex(vectors.shape[1], "cosine", "mean")
    index.add(owners, vectors)
    index.save(tmp_path / "mv", fingerprint="enc")
    loaded = MultiVectorIndex.load(tmp_path / "mv", expected_fingerprint="enc")
    assert loaded.aggregate == "mean" and loaded.papers == index.papers
    assert loaded.search(vectors[:3], 5) == index.search(vectors[:3], 5)
    assert MultiVectorIndex.load(tmp_path / "mv", aggregate="max").aggregate == "max"

    dense = DenseIndex(vectors.shape[1])
    dense.add(owners, vectors)
    dense.save(tmp_path / "dense", fingerprint="enc")
    with pytest.raises(IndexLoadError, match="a 'dense' index, not a multivector index"):
        MultiVectorIndex.load(tmp_path / "dense")
    with pytest.raises(ValueError, match="unknown aggregation 'median'"):
        MultiVectorIndex(4, aggregate="median")


@pytest.mark.parametrize("kind", ["flat", "hnsw"])
def test_search_sets_answers_each_set_as_search_views_max(kind):
    """Many query sets in one index search give each set the hits `search_views(..., "max_sim")` gives it alone."""
    from sciembed.retrieval.ann import AnnParams

    owners, vectors = collection(7, papers=60)
    params = None if kind == "flat" else AnnParams(kind="hnsw", hnsw_m=16, ef_construction=200, ef_search=256)
    index = MultiVectorIndex(vectors.shape[1], "cosine", "max", params)
    index.add(owners, vectors)
    rng = np.random.default_rng(8)
    sets = [rng.normal(size=(n, vectors.shape[1])).astype(np.float32) for n in (1, 3, 1, 2)]
    excludes = [set(), {"p03"}, {"p10", "p11"}, set()]
    together = index.search_sets(sets, 7, excludes)
    for query_set, exclude, hits in zip(sets, excludes, together, strict=True):
        alone = index.search_views(query_set, 7, "max_sim", exclude=sorted(exclude))
        assert [p for p, _, _ in hits] == [p for p, _, _ in alone]
        # one search of many sets and one of a single set run different BLAS batch shapes: float32 last digits
        assert [s for _, s, _ in hits] == pytest.approx([s for _, s, _ in alone], abs=1e-5)
        assert not exclude & {p for p, _, _ in hits}
