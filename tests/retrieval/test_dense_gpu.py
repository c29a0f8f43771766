"""Batched exact search goes through faiss' GPU copy of the index when faiss has GPUs (faked here: faiss-cpu)."""

from __future__ import annotations

import numpy as np

import sciembed.retrieval.dense as dense
from sciembed.retrieval.ann import gpu_copy, gpu_count
from sciembed.retrieval.dense import SMALL_BATCH, DenseIndex


def test_without_gpus_nothing_is_copied():
    import faiss

    assert gpu_count() == 0 and gpu_copy(faiss.IndexFlatIP(4)) is None


def test_batched_search_uses_the_gpu_copy_and_ranks_as_the_cpu(monkeypatch):
    import faiss

    copies = []

    def fake_gpu_copy(index):  # what faiss-gpu's index_cpu_to_all_gpus returns: an index with the same rows
        copy = faiss.deserialize_index(faiss.serialize_index(index))
        copies.append(copy)
        return copy

    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(200, 8)).astype(np.float32)
    queries = rng.normal(size=(SMALL_BATCH + 4, 8)).astype(np.float32)
    cpu = DenseIndex(8)
    cpu.add([f"d{i}" for i in range(200)], vectors)
    expected = cpu.search_rows(queries, 5)
    monkeypatch.setattr(dense, "gpu_copy", fake_gpu_copy)
    index = DenseIndex(8)
    index.add([f"d{i}" for i in range(200)], vectors)
    got = index.search_rows(queries, 5)
    assert len(copies) == 1
    np.testing.assert_array_equal(got[1], expected[1])
    index.search_rows(queries, 5)
    assert len(copies) == 1  # reused until rows are added
    index.add(["new"], vectors[:1])
    index.search_rows(queries, 5)
    assert len(copies) == 2
    index.remove("d3")  # hidden rows need an id selector: the CPU index answers
    _scores, rows = index.search_rows(queries, 5)
    assert len(copies) == 2 and 3 not in rows
