"""Approximate indexes: recall against exact search, per-call knobs, removals, save/load, defaults."""

from __future__ import annotations

import numpy as np
import pytest

from sciembed.retrieval import DenseIndex, IndexLoadError, MultiVectorIndex
from sciembed.retrieval.ann import AnnParams, auto_kind, default_params


def clustered(n: int, dim: int, seed: int, clusters: int = 20) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(clusters, dim))
    return (centres[rng.integers(0, clusters, n)] + 0.6 * rng.normal(size=(n, dim))).astype(np.float32)


def recall_at(index: DenseIndex, exact: DenseIndex, queries: np.ndarray, k: int, **knobs) -> float:
    _, found = index.search_rows(queries, k, **knobs)
    _, truth = exact.search_rows(queries, k)
    return float(np.mean([len(set(f) & set(t)) / k for f, t in zip(found, truth, strict=True)]))


@pytest.fixture(autouse=True, scope="module")
def one_faiss_thread():
    """OpenMP threads spin-wait: on a shared 2-core machine one thread is many times faster for these sizes."""
    import faiss

    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    yield
    faiss.omp_set_num_threads(before)


@pytest.fixture(scope="module")
def data():
    return clustered(3000, 32, 0), clustered(40, 32, 1)


def build(kind: str, vectors: np.ndarray, **overrides) -> DenseIndex:
    index = DenseIndex(32, "cosine", default_params(kind, len(vectors), 32, **overrides))
    index.train(vectors)
    index.add([f"p{i}" for i in range(len(vectors))], vectors)
    return index


def test_hnsw_and_ivf_pq_recall_against_exact(data):
    vectors, queries = data
    exact = build("flat", vectors)
    hnsw = build("hnsw", vectors)
    assert recall_at(hnsw, exact, queries, 10) >= 0.95
    ivf = build("ivf-pq", vectors, nlist=16, pq_m=16, pq_bits=6)
    wide, narrow = recall_at(ivf, exact, queries, 10, nprobe=16), recall_at(ivf, exact, queries, 10, nprobe=1)
    assert wide >= 0.6 and wide >= narrow  # every list probed: only PQ error is left


def test_ivf_pq_must_be_trained_and_aggregation_needs_flat(data):
    vectors, _ = data
    index = DenseIndex(32, "cosine", default_params("ivf-pq", 3000, 32, nlist=8))
    with pytest.raises(ValueError, match="not trained"):
        index.add(["a"], vectors[:1])
    multi = MultiVectorIndex(32, "cosine", "mean", default_params("hnsw", 10, 32))
    multi.add(["a", "a", "b"], vectors[:3])
    with pytest.raises(ValueError, match="mean aggregation needs every view"):
        multi.search(vectors[:1], 1)
    assert multi.search(vectors[:1], 2, aggregate="max")[0][0][0] == "a"


@pytest.mark.parametrize("kind", ["flat", "hnsw", "ivf-pq"])
def test_removed_rows_never_come_back_and_survive_save_load(data, kind, tmp_path):
    vectors, _ = data
    index = build(kind, vectors[:500], nlist=8, pq_m=8)
    assert index.search(vectors[:1], 1)[0][0][0] == "p0"
    assert index.remove("p0") == 1 and index.remove("p0") == 0
    hits = index.search(vectors[:3], 5)
    assert all("p0" not in [h[0] for h in row] and len(row) == 5 for row in hits)
    index.save(tmp_path / "ix", "fp")
    loaded = DenseIndex.load(tmp_path / "ix", "fp")
    assert loaded.kind == kind and loaded.params == index.params and loaded.removed_rows() == [0]
    assert "p0" not in [h[0] for h in loaded.search(vectors[:1], 5)[0]]
    with pytest.raises(IndexLoadError, match="fingerprint"):
        DenseIndex.load(tmp_path / "ix", "other")


def test_multivector_replace_and_filter(data):
    vectors, _ = data
    index = MultiVectorIndex(32, "cosine", "max", default_params("hnsw", 10, 32))
    index.add(["a", "a", "b", "c"], vectors[:4])
    index.remove_rows(index.dense.rows_of("a"))
    assert len(index) == 2 and index.papers == ["b", "c"]
    index.add(["a"], vectors[10:11])  # a replacement under the same id
    assert len(index) == 3 and index.search(vectors[10:11], 1)[0][0][0] == "a"
    hits = index.search_views(vectors[10:11], 2, accept=lambda p: p != "a")
    assert sorted(h[0] for h in hits) == ["b", "c"]


def test_defaults_follow_the_collection_size():
    assert auto_kind(10_000) == "flat" and auto_kind(1_000_000) == "hnsw" and auto_kind(10_000_000) == "ivf-pq"
    params = default_params("ivf-pq", 1_000_000, 384)
    assert params.nlist == 4000 and params.pq_m == 96 and params.train_size == 256_000
    assert params.refine == "sq8" and default_params("ivf-pq", 50_000_000, 384).refine == "none"
    assert default_params("hnsw", 300_000, 384, hnsw_storage="sq8").train_size == 100_000
    with pytest.raises(ValueError, match="refine="):
        default_params("ivf-pq", 1000, 384, refine="pq")
    assert default_params("auto", 500, 384).kind == "flat"
    assert AnnParams.from_dict(params.to_dict()) == params
    with pytest.raises(ValueError, match="must divide"):
        default_params("ivf-pq", 1000, 384, pq_m=50)


@pytest.mark.parametrize("refine", ["flat", "sq8"])
def test_ivf_pq_refine_reranks_exactly_per_call_and_survives_save_load(data, refine, tmp_path):
    vectors, queries = data
    exact = build("flat", vectors)
    coarse = build("ivf-pq", vectors, nlist=16, pq_m=8, pq_bits=6, nprobe=16, refine="none")
    refined = build("ivf-pq", vectors, nlist=16, pq_m=8, pq_bits=6, nprobe=16, refine=refine, refine_k_factor=16)
    plain, reranked = recall_at(coarse, exact, queries, 10), recall_at(refined, exact, queries, 10)
    assert plain < 0.8 and reranked >= 0.95  # 8-byte codes blur neighbours; the re-rank restores them
    assert recall_at(refined, exact, queries, 10, refine_k_factor=1) < reranked  # the per-call knob is used
    scores, rows = refined.search_rows(queries[:1], 3)
    assert np.allclose(scores[0], exact.score_rows(queries[0], rows[0]), atol=0.02)  # re-ranked scores are exact
    refined.remove("p0")
    refined.save(tmp_path / "ix", "fp")
    loaded = DenseIndex.load(tmp_path / "ix", "fp")
    assert loaded.params.refine == refine and loaded.params.refine_k_factor == 16
    assert "p0" not in [h[0] for h in loaded.search(vectors[:1], 5)[0]]
    assert recall_at(loaded, exact, queries, 10) == reranked


def test_hnsw_over_sq8_keeps_recall(data):
    vectors, queries = data
    exact = build("flat", vectors)
    assert recall_at(build("hnsw", vectors, hnsw_storage="sq8"), exact, queries, 10) >= 0.9


@pytest.mark.parametrize("overrides", [
    {"kind": "flat"}, {"kind": "hnsw"}, {"kind": "hnsw", "hnsw_storage": "sq8"},
    {"kind": "ivf-pq", "refine": "none"}, {"kind": "ivf-pq", "refine": "flat"},
])
def test_compacted_keeps_live_rows_in_order_with_their_training(data, overrides):
    vectors, _ = data
    kind = overrides.pop("kind")
    index = build(kind, vectors[:600], nlist=8, pq_m=8, **overrides)
    index.remove("p3")
    index.remove_rows([10, 11])
    compact = index.compacted()
    live = [i for i in range(600) if i not in (3, 10, 11)]
    assert compact.ids == [f"p{i}" for i in live] and compact.removed_rows() == [] and compact.params == index.params
    assert compact.is_trained and len(compact) == 597
    rows = np.asarray([0, 5, 500])  # rows of p0, p6, p503 after renumbering
    assert np.allclose(compact.vectors(rows), index.vectors([0, 6, 503]), atol=1e-2)
    if kind != "ivf-pq" or overrides["refine"] == "flat":
        assert [h[0][0] for h in compact.search(vectors[[0, 6, 503]], 1)] == ["p0", "p6", "p503"]
