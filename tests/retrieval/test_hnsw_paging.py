"""Issue 23, defect 17: paging an HNSW collection reaches every paper, not only the first ~300."""

from __future__ import annotations

import numpy as np

from sciembed.retrieval.ann import default_params
from sciembed.retrieval.multivector import MultiVectorIndex


def test_hnsw_paging_reaches_every_paper():
    rng = np.random.default_rng(0)
    n, dim = 430, 384
    index = MultiVectorIndex(dim, "cosine", "max", default_params("hnsw", n, dim))
    index.add([f"p{i}" for i in range(n)], rng.normal(size=(n, dim)).astype(np.float32))
    query = rng.normal(size=(1, dim)).astype(np.float32)
    seen: list[str] = []
    k = 50
    for offset in range(0, n + k, k):
        page = index.search_views(query, offset + k + 1)[offset : offset + k]
        seen += [pid for pid, _, _ in page]
    assert len(seen) == len(set(seen)) == n
    exact = MultiVectorIndex(dim, "cosine", "max")
    exact.add(index.dense.ids, index.dense.vectors(range(n)))
    assert seen[:10] == [pid for pid, _, _ in exact.search_views(query, 10)]
