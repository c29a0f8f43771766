"""Approximate faiss indexes next to the exact one: kinds, defaults from the collection size, search knobs.

Kinds, all behind `DenseIndex`: ``flat`` (exact: the reference for every recall); ``hnsw``, a graph over the
full vectors, or with ``hnsw_storage="sq8"`` over 8-bit scalar-quantized ones (a quarter of the memory);
``ivf-pq``, inverted lists of product-quantized codes trained on a sample, with ``refine="flat" | "sq8"``
re-ranking ``refine_k_factor × k`` candidates over a second copy of the vectors (PQ alone cannot tell close
neighbours apart: its recall@10 stalls whatever ``nprobe`` is; `index_memory` gives the cost).

Search-time knobs go per call as faiss `SearchParameters` (concurrent searches never touch the index's own
settings), with an id selector that hides removed rows (live deletes) from every kind.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any

INDEX_KINDS = ("flat", "hnsw", "ivf-pq")
HNSW_STORAGES = ("flat", "sq8")
REFINES = ("none", "flat", "sq8")
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
    train_size: int = 0  # vectors sampled to train IVF-PQ / SQ8 (0: chosen from nlist)
    hnsw_storage: str = "flat"  # hnsw: "flat" (float32 vectors) or "sq8" (8-bit scalar quantized)
    refine: str = "none"  # ivf-pq: "none", or re-rank candidates exactly over "flat" / "sq8" stored vectors
    refine_k_factor: int = 8  # ivf-pq with refine: candidates re-ranked = refine_k_factor × k

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> AnnParams:
        return cls(**{k: v for k, v in (data or {}).items() if k in cls.__dataclass_fields__})


AUTO_REFINE_FLAT_MAX = 20_000_000  # ivf-pq re-ranks over SQ8 vectors up to here (384 B per 384-d vector)


def auto_kind(n_vectors: int) -> str:
    """Exact up to a few hundred thousand vectors, HNSW up to millions, IVF-PQ beyond."""
    if n_vectors <= AUTO_FLAT_MAX:
        return "flat"
    return "hnsw" if n_vectors <= AUTO_HNSW_MAX else "ivf-pq"


def auto_refine(n_vectors: int) -> str:
    """IVF-PQ's re-rank storage from the size: SQ8 (dim bytes per vector) while it fits, none beyond."""
    return "sq8" if n_vectors <= AUTO_REFINE_FLAT_MAX else "none"


def default_params(kind: str, n_vectors: int, dim: int, **overrides: Any) -> AnnParams:
    """Sensible settings for `n_vectors` of `dim`: nlist ≈ 4·√n, 4 dimensions per PQ byte, 64 points per centroid,
    IVF-PQ re-ranked over SQ8 vectors (`auto_refine`). Overrides of 0 / None / "" keep the default."""
    if kind not in (*INDEX_KINDS, "auto"):
        raise ValueError(f"unknown index kind {kind!r}; expected one of {', '.join(INDEX_KINDS)} (or auto)")
    kind = auto_kind(n_vectors) if kind == "auto" else kind
    params = AnnParams(kind=kind)
    if kind == "ivf-pq":
        nlist = max(1, min(65_536, int(4 * math.sqrt(max(n_vectors, 1)))))
        pq_m = _divisor_at_most(dim, max(1, dim // 4))
        params = replace(params, nlist=nlist, pq_m=pq_m, train_size=min(max(n_vectors, 1), 64 * nlist),
                         refine=auto_refine(n_vectors))
    given = {k: v for k, v in overrides.items() if v not in (None, 0, "")}
    params = replace(params, **given)
    if kind == "hnsw" and params.hnsw_storage == "sq8" and not params.train_size:
        params = replace(params, train_size=min(max(n_vectors, 1), 100_000))  # SQ8 learns per-dimension ranges
    if params.hnsw_storage not in HNSW_STORAGES:
        raise ValueError(f"hnsw_storage={params.hnsw_storage!r}: expected one of {', '.join(HNSW_STORAGES)}")
    if params.refine not in REFINES:
        raise ValueError(f"refine={params.refine!r}: expected one of {', '.join(REFINES)}")
    if params.refine_k_factor < 1:
        raise ValueError(f"refine_k_factor={params.refine_k_factor} must be at least 1")
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
        storage = {"flat": "Flat", "sq8": "SQ8"}[params.hnsw_storage]
        index = faiss.index_factory(dim, f"HNSW{params.hnsw_m},{storage}", faiss_metric)
        index.hnsw.efConstruction = params.ef_construction
        index.hnsw.efSearch = params.ef_search
        return index
    if params.kind == "ivf-pq":
        if not params.nlist or not params.pq_m:
            raise ValueError("ivf-pq needs nlist and pq_m (use default_params)")
        refine = {"none": "", "flat": ",RFlat", "sq8": ",Refine(SQ8)"}[params.refine]
        key = f"IVF{params.nlist},PQ{params.pq_m}x{params.pq_bits}np{refine}"
        index = faiss.index_factory(dim, key, faiss_metric)
        ivf = ivf_of(index)
        ivf.nprobe = params.nprobe
        ivf.make_direct_map()  # reconstruct(row) without refine: PQ-decoded, approximate
        if params.refine != "none":
            index.k_factor = params.refine_k_factor  # reconstruct(row) with refine: from the refine vectors
        return index
    raise ValueError(f"unknown index kind {params.kind!r}")


def gpu_count() -> int:
    """GPUs faiss can use: 0 with faiss-cpu (its `get_num_gpus` is 0 or absent)."""
    import faiss

    get = getattr(faiss, "get_num_gpus", None)
    return int(get()) if get is not None else 0


def gpu_copy(index: Any) -> Any | None:
    """A copy of a flat index spread over every visible GPU (faiss built with GPU support), or None."""
    import faiss

    if gpu_count() == 0 or not hasattr(faiss, "index_cpu_to_all_gpus"):
        return None
    return faiss.index_cpu_to_all_gpus(index)


def ivf_of(index: Any) -> Any:
    """The IVF index itself, also when wrapped in an `IndexRefine`."""
    import faiss

    return faiss.downcast_index(index.base_index) if hasattr(index, "base_index") else index


def index_memory(index: Any) -> dict[str, int]:
    """Bytes held, split into the searched codes (graph / lists / flat) and the re-rank copy (0 without refine)."""
    import faiss

    if hasattr(index, "refine_index"):
        return {"codes": index_bytes(ivf_of(index)), "refine": index_bytes(faiss.downcast_index(index.refine_index))}
    return {"codes": index_bytes(index), "refine": 0}


def search_parameters(index: Any, kind: str, *, ef_search: int | None = None, nprobe: int | None = None,
                      refine_k_factor: int | None = None, hidden: Any = None) -> Any:
    """Per-call faiss SearchParameters: the kind's knobs and an optional selector of rows to hide."""
    import faiss

    if kind == "hnsw":
        params = faiss.SearchParametersHNSW()
        params.efSearch = int(ef_search or index.hnsw.efSearch)
    elif kind == "ivf-pq":
        ivf = ivf_of(index)
        params = faiss.SearchParametersIVF()
        params.nprobe = int(min(nprobe or ivf.nprobe, ivf.nlist))
    else:
        params = faiss.SearchParameters()
    if hidden is not None:
        params.sel = hidden
    if kind == "ivf-pq" and hasattr(index, "refine_index"):
        outer = faiss.IndexRefineSearchParameters()
        outer.k_factor = float(refine_k_factor or index.k_factor)
        outer.base_index_params = params  # the IVF's nprobe and selector apply to the candidate search
        outer._base = params  # a raw pointer on the faiss side: keep the inner parameters alive with it
        return outer
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
