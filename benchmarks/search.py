"""Latency of single-query top-100 search over 100,000 × 384 vectors (goal: p50 ≤ 20 ms).

Seeded random unit vectors; every query is one `search()` call (the public
API, id mapping included) timed with `perf_counter` after a warm-up; the
searches below alternate query by query, so machine load hits them alike. Also
times the same collection as a multi-vector index (5 views per paper,
max aggregation, the query's own paper excluded), since that is how window
and section indexes are searched, and faiss' own `IndexFlatIP.search` on a
single query: the reason `DenseIndex` answers small query batches with one
matrix product instead.

    .venv/bin/python benchmarks/search.py [--vectors 100000] [--queries 1000] [--out benchmarks/results/search.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

GOAL_P50_MS = 20.0


def unit_vectors(n: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    x = rng.standard_normal((n, dim), dtype=np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def latencies_ms(searches: dict[str, Callable[[int, np.ndarray], object]], queries: np.ndarray, warmup: int):
    """Per-call milliseconds of each search, interleaved query by query so that load from other
    processes falls on all of them alike."""
    out: dict[str, list[float]] = {name: [] for name in searches}
    for i, q in enumerate(queries):
        for name, search in searches.items():
            start = time.perf_counter()
            search(i, q[None, :])
            if i >= warmup:
                out[name].append((time.perf_counter() - start) * 1000)
    return {name: np.asarray(ms) for name, ms in out.items()}


def summary(ms: np.ndarray) -> dict[str, float]:
    return {
        "p50_ms": float(np.percentile(ms, 50)),
        "p90_ms": float(np.percentile(ms, 90)),
        "p99_ms": float(np.percentile(ms, 99)),
        "mean_ms": float(ms.mean()),
        "max_ms": float(ms.max()),
        "timed_queries": len(ms),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--views-per-paper", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "search.json")
    args = parser.parse_args()

    import faiss

    from sciembed.retrieval import DenseIndex, MultiVectorIndex

    rng = np.random.default_rng(args.seed)
    stored = unit_vectors(args.vectors, args.dim, rng)
    queries = unit_vectors(args.queries + args.warmup, args.dim, rng)
    ids = [f"p{i:06d}" for i in range(args.vectors)]

    start = time.perf_counter()
    dense = DenseIndex(args.dim, "cosine")
    dense.add(ids, stored)
    build_dense = time.perf_counter() - start

    owners = [f"p{i // args.views_per_paper:06d}" for i in range(args.vectors)]
    start = time.perf_counter()
    multi = MultiVectorIndex(args.dim, "cosine", "max")
    multi.add(owners, stored)
    build_multi = time.perf_counter() - start
    excluded = [owners[int(i)] for i in rng.integers(0, args.vectors, size=len(queries))]

    flat = faiss.IndexFlatIP(args.dim)
    flat.add(stored)
    ms = latencies_ms(
        {
            "dense": lambda i, q: dense.search(q, args.k),
            "multi": lambda i, q: multi.search(q, args.k, exclude=[excluded[i]]),
            "faiss": lambda i, q: flat.search(q, args.k),
        },
        queries,
        args.warmup,
    )
    dense_ms, multi_ms, faiss_ms = ms["dense"], ms["multi"], ms["faiss"]

    dense_summary = summary(dense_ms)
    result = {
        "benchmark": "search",
        "what": f"single-query top-{args.k} exact search, {args.vectors} x {args.dim} seeded random unit vectors",
        "goal": {"p50_ms_at_most": GOAL_P50_MS, "met": dense_summary["p50_ms"] <= GOAL_P50_MS},
        "dense": {
            "index": "DenseIndex (faiss IndexFlatIP storage, cosine; matrix-product path for one query)",
            "build_s": build_dense,
            **dense_summary,
        },
        "multivector_max": {
            "index": f"MultiVectorIndex, {args.views_per_paper} views per paper, max aggregation, own paper excluded",
            "papers": len(multi),
            "build_s": build_multi,
            **summary(multi_ms),
        },
        "faiss_flat_direct": {"index": "faiss.IndexFlatIP.search, one query per call", **summary(faiss_ms)},
        "settings": vars(args) | {"out": str(args.out)},
        "machine": {
            "cpu": _cpu_model(),
            "cores": os.cpu_count(),
            "faiss_omp_threads": faiss.omp_get_max_threads(),
            "load_average_at_end": os.getloadavg(),
            "faiss": faiss.__version__,
            "numpy": np.__version__,
            "python": platform.python_version(),
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: result[k] for k in ("goal", "dense", "multivector_max", "faiss_flat_direct")}, indent=2))


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


if __name__ == "__main__":
    main()
