"""Approximate faiss indexes next to the exact one: kinds, defaults from the collection size, search knobs.

Three kinds, all behind `DenseIndex`:

- ``flat``: exact inner product / L2 (the reference every recall is measured against);
- ``hnsw``: a graph over the full vectors (`IndexHNSWFlat`): fast and accurate,
  memory a bit above flat (the links);
- ``ivf-pq``: an inverted file whose lists hold product-quantized codes
  (`IndexIVFPQ`): memory a fraction of flat, trained on a sample.

Search-time knobs (`ef_search`, `nprobe`) go per call as faiss
`SearchParameters`, so concurrent searches with different knobs never touch
the index object's own settings. The same parameters carry an id selector
that hides removed rows (live deletes) from every kind.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any

INDEX_KINDS = ("flat", "hnsw", "ivf-pq")
AUTO_FLAT_MAX = 200_000  # vectors: exact search stays below ~20 ms per query up to here on 2 cores
AUTO_HNSW_MAX = 5_000_000  # beyond this the full vectors of HNSW no longer fit comfortably in memory


@dataclass(frozen=True)
class AnnParams:
    """How an index was built and how it searches by default (recorded in the index's meta.json)."""

    kind: str = "flat"
    hnsw_m: int = 32  # links per node
    ef_construction: int = 80
    ef_search: int = 64
    nlist: int = 0  # IVF lists (0: chosen from the collection size)
    pq_m: int = 0  # PQ sub-quantizers (0: dim / 4, i.e. 4 dimensions per byte)
    pq_bits: int = 8
    nprobe: int = 32
    train_size: int = 0  # vectors sampled to train IVF-PQ (0: chosen from nlist)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> AnnParams:
        data = data or {}
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})


def check_kind(kind: str) -> str:
    if kind not in INDEX_KINDS:
        raise ValueError(f"unknown index kind {kind!r}; expected one of {', '.join(INDEX_KINDS)} (or auto)")
    return kind


def auto_kind(n_vectors: int) -> str:
    """Exact up to a few hundred thousand vectors, HNSW up to millions, IVF-PQ beyond."""
    if n_vectors <= AUTO_FLAT_MAX:
        return "flat"
    return "hnsw" if n_vectors <= AUTO_HNSW_MAX else "ivf-pq"


def default_params(kind: str, n_vectors: int, dim: int, **overrides: Any) -> AnnParams:
    """Sensible settings for `n_vectors` of `dim`: nlist ≈ 4·√n, 4 dimensions per PQ byte, 64 points per centroid.

    Overrides of 0 / None keep the default.
    """
    kind = auto_kind(n_vectors) if kind == "auto" else check_kind(kind)
    params = AnnParams(kind=kind)
    if kind == "ivf-pq":
        nlist = max(1, min(65_536, int(4 * math.sqrt(max(n_vectors, 1)))))
        pq_m = _divisor_at_most(dim, max(1, dim // 4))
        params = replace(params, nlist=nlist, pq_m=pq_m, train_size=min(max(n_vectors, 1), 64 * nlist))
    given = {k: v for k, v in overrides.items() if v not in (None, 0)}
    params = replace(params, **given)
    if kind == "ivf-pq" and dim % params.pq_m:
        raise ValueError(f"pq_m={params.pq_m} must divide the dimension {dim}")
    return params


def _divisor_at_most(dim: int, wanted: int) -> int:
    return next(m for m in range(wanted, 0, -1) if dim % m == 0)


def build_faiss_index(params: AnnParams, dim: int, metric: str) -> Any:
    """An empty faiss index of `params.kind` (cosine: inner product over normalised vectors)."""
    import faiss

    faiss_metric = faiss.METRIC_INNER_PRODUCT if metric == "cosine" else faiss.METRIC_L2
    if params.kind == "flat":
        return faiss.IndexFlatIP(dim) if metric == "cosine" else faiss.IndexFlatL2(dim)
    if params.kind == "hnsw":
        index = faiss.IndexHNSWFlat(dim, params.hnsw_m, faiss_metric)
        index.hnsw.efConstruction = params.ef_construction
        index.hnsw.efSearch = params.ef_search
        return index
    if params.kind == "ivf-pq":
        if not params.nlist or not params.pq_m:
            raise ValueError("ivf-pq needs nlist and pq_m (use default_params)")
        index = faiss.index_factory(dim, f"IVF{params.nlist},PQ{params.pq_m}x{params.pq_bits}np", faiss_metric)
        index.nprobe = params.nprobe
        index.make_direct_map()  # reconstruct(row) for "papers like this one" (PQ-decoded, approximate)
        return index
    raise ValueError(f"unknown index kind {params.kind!r}")


def search_parameters(
    index: Any, kind: str, *, ef_search: int | None = None, nprobe: int | None = None, hidden: Any = None
) -> Any:
    """Per-call faiss SearchParameters: the kind's knob and an optional selector of rows to hide."""
    import faiss

    if kind == "hnsw":
        params = faiss.SearchParametersHNSW()
        params.efSearch = int(ef_search or index.hnsw.efSearch)
    elif kind == "ivf-pq":
        params = faiss.SearchParametersIVF()
        params.nprobe = int(min(nprobe or index.nprobe, index.nlist))
    else:
        params = faiss.SearchParameters()
    if hidden is not None:
        params.sel = hidden
    return params


def hidden_rows_selector(rows: Any) -> Any:
    """A selector that accepts every row except `rows` (removed views)."""
    import faiss
    import numpy as np

    rows = np.asarray(sorted(rows), dtype=np.int64)
    inner = faiss.IDSelectorBatch(len(rows), faiss.swig_ptr(rows))
    selector = faiss.IDSelectorNot(inner)
    selector._inner = inner  # IDSelectorNot holds a raw pointer: keep the inner selector alive with it
    return selector


def index_bytes(index: Any) -> int:
    """Serialised size of a faiss index: what it costs in memory, give or take small bookkeeping."""
    import faiss

    return int(faiss.serialize_index(index).nbytes)
