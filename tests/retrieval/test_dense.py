"""DenseIndex: exact ranking, higher-is-better scores, exclusion, checked save/load."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from sciembed.retrieval import DenseIndex, IndexLoadError


def random_vectors(n: int, dim: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)


def brute_force(stored: np.ndarray, query: np.ndarray, metric: str) -> np.ndarray:
    if metric == "cosine":
        unit = stored / np.linalg.norm(stored, axis=1, keepdims=True)
        return unit @ (query / np.linalg.norm(query))
    return -np.linalg.norm(stored - query, axis=1)


@pytest.mark.parametrize("metric", ["cosine", "l2"])
def test_ranking_and_scores_match_brute_force(metric):
    stored, queries = random_vectors(200, 16, 0), random_vectors(5, 16, 1)
    ids = [f"p{i}" for i in range(len(stored))]
    index = DenseIndex(16, metric)
    index.add(ids, stored)
    for query, hits in zip(queries, index.search(queries, 10), strict=True):
        expected = brute_force(stored, query, metric)
        order = np.argsort(-expected)[:10]
        assert [h[0] for h in hits] == [ids[i] for i in order]
        np.testing.assert_allclose([h[1] for h in hits], expected[order], rtol=1e-4, atol=1e-4)
        assert all(a[1] >= b[1] for a, b in itertools.pairwise(hits))


def test_exclusion_removes_the_query_paper_and_keeps_k_hits():
    stored = random_vectors(50, 8, 2)
    ids = [f"p{i}" for i in range(50)]
    index = DenseIndex(8)
    index.add(ids, stored)
    hits = index.search(stored[:3], 5, exclude=["p0", None, "p2"])
    assert hits[0][0][0] != "p0" and all(len(h) == 5 for h in hits)
    assert "p0" not in [h[0] for h in hits[0]] and "p2" not in [h[0] for h in hits[2]]
    assert hits[1][0][0] == "p1"  # not excluded: a vector is its own nearest neighbour
    with pytest.raises(ValueError, match="exclude has 1 entries for 3 queries"):
        index.search(stored[:3], 5, exclude=["p0"])


def test_exclusion_covers_every_row_of_a_repeated_id_and_k_beyond_size():
    index = DenseIndex(4)
    vectors = np.eye(4, dtype=np.float32)
    index.add(["a", "a", "b", "c"], vectors)
    hits = index.search(vectors[:1], 3, exclude=["a"])[0]
    assert sorted(h[0] for h in hits) == ["b", "c"]  # both orthogonal to the query: a tie
    assert len(index.search(vectors[:1], 100)[0]) == 4


def test_bad_input_is_refused_with_what_and_how_many():
    index = DenseIndex(4)
    with pytest.raises(ValueError, match=r"expected shape \(n, 4\), got \(2, 3\)"):
        index.add(["a", "b"], np.ones((2, 3)))
    bad = np.ones((3, 4), dtype=np.float32)
    bad[1, 0] = np.nan
    with pytest.raises(ValueError, match="1 of 3 rows hold NaN/inf"):
        index.add(["a", "b", "c"], bad)
    with pytest.raises(ValueError, match="2 ids but 3 vectors"):
        index.add(["a", "b"], np.ones((3, 4)))
    with pytest.raises(ValueError, match="unknown metric"):
        DenseIndex(4, "dot")


def test_save_load_round_trip(tmp_path):
    stored = random_vectors(30, 8, 3)
    index = DenseIndex(8, "l2")
    index.add([f"p{i}" for i in range(30)], stored)
    index.save(tmp_path / "ix", fingerprint="enc-1")
    loaded = DenseIndex.load(tmp_path / "ix", expected_fingerprint="enc-1")
    assert (loaded.metric, loaded.dim, len(loaded), loaded.fingerprint) == ("l2", 8, 30, "enc-1")
    assert loaded.search(stored[:4], 7, exclude=["p0"] * 4) == index.search(stored[:4], 7, exclude=["p0"] * 4)


def test_truncated_or_foreign_index_is_refused(tmp_path):
    index = DenseIndex(8)
    index.add([f"p{i}" for i in range(30)], random_vectors(30, 8, 4))
    index.save(tmp_path / "ix", fingerprint="enc-1")
    with pytest.raises(IndexLoadError, match="built with encoder fingerprint enc-1, but the query encoder has enc-2"):
        DenseIndex.load(tmp_path / "ix", expected_fingerprint="enc-2")

    data = (tmp_path / "ix" / "index.faiss").read_bytes()
    (tmp_path / "ix" / "index.faiss").write_bytes(data[: len(data) // 2])
    with pytest.raises(IndexLoadError, match=r"index\.faiss: checksum mismatch.*truncated"):
        DenseIndex.load(tmp_path / "ix")

    (tmp_path / "ix" / "meta.json").write_text(json.dumps({"format": 1}))
    with pytest.raises(IndexLoadError, match="missing keys dim, metric, count, fingerprint, sha256"):
        DenseIndex.load(tmp_path / "ix")
    with pytest.raises(IndexLoadError, match=r"no meta\.json"):
        DenseIndex.load(tmp_path / "nowhere")


@pytest.mark.parametrize("metric", ["cosine", "l2"])
def test_small_and_large_query_batches_agree(metric):
    from sciembed.retrieval.dense import SMALL_BATCH

    stored, queries = random_vectors(300, 16, 5), random_vectors(SMALL_BATCH + 4, 16, 6)
    index = DenseIndex(16, metric)
    index.add([f"p{i}" for i in range(300)], stored)
    batched = index.search(queries, 20)  # faiss path
    single = [index.search(q[None, :], 20)[0] for q in queries]  # matrix-product path
    for a, b in zip(batched, single, strict=True):
        assert [h[0] for h in a] == [h[0] for h in b]
        np.testing.assert_allclose([h[1] for h in a], [h[1] for h in b], rtol=1e-4, atol=1e-4)
