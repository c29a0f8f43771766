"""Latency of PRISM's fused search per query paper, next to a single A2A search, in the same run.

Collection: 100,000 papers (one abstract vector each) and 300,000 segments (3 per
paper), 384-d seeded random unit vectors, cosine, exact search (`DenseIndex`).
One PRISM query paper = 4 encoded queries: 3 aspect queries against the segment
index (one matrix product for the three) and the abstract query against the
abstract index, each for its top 300, segment hits mapped to papers with
duplicates kept, the query paper excluded (by id and normalised title), RRF
(k = 60) cut to 300 papers: `PrismIndex.search_vectors`, the code `sciembed prism`
and the paper-to-paper evaluation run. A2A = one abstract-query search for the
top 300 papers (`DenseIndex.search`). The two alternate query by query, so
machine load hits them alike. Query encoding is not timed (it depends on the
encoder, not on the index).

    nice .venv/bin/python benchmarks/prism_latency.py [--papers 100000] [--per-paper 3] [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from sciembed.retrieval.dense import DenseIndex
from sciembed.retrieval.multivector import MultiVectorIndex
from sciembed.search.prism.index import PrismIndex


def unit_vectors(n: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    x = rng.standard_normal((n, dim), dtype=np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def summary(ms: list[float]) -> dict[str, float]:
    a = np.asarray(ms)
    return {"p50_ms": float(np.percentile(a, 50)), "p90_ms": float(np.percentile(a, 90)),
            "p99_ms": float(np.percentile(a, 99)), "mean_ms": float(a.mean()), "max_ms": float(a.max()),
            "timed_queries": len(a)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--per-paper", type=int, default=3)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--top-k", type=int, default=300)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "prism_latency.json")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    ids = [f"p{i:06d}" for i in range(args.papers)]
    t0 = time.perf_counter()
    abstracts = DenseIndex(args.dim, "cosine")
    abstracts.add(ids, unit_vectors(args.papers, args.dim, rng))
    segments = MultiVectorIndex(args.dim, "cosine")
    segments.add([p for p in ids for _ in range(args.per_paper)],
                 unit_vectors(args.papers * args.per_paper, args.dim, rng))
    index = PrismIndex(abstracts, segments, {p: f"Synthetic paper number {p}" for p in ids})
    build_s = time.perf_counter() - t0

    queries = unit_vectors(args.queries * 4, args.dim, rng).reshape(args.queries, 4, args.dim)
    owners = rng.integers(0, args.papers, size=args.queries)
    prism_ms: list[float] = []
    a2a_ms: list[float] = []
    lengths = []
    for i in range(args.queries):
        pid = ids[owners[i]]
        vectors = {"research_question": queries[i, 0], "method": queries[i, 1], "experiment": queries[i, 2],
                   "abstract": queries[i, 3]}
        start = time.perf_counter()
        result = index.search_vectors(pid, vectors, top_k=args.top_k)
        middle = time.perf_counter()
        hits = abstracts.search(queries[i, 3][None, :], args.top_k, exclude=[pid])
        end = time.perf_counter()
        if i >= args.warmup:
            prism_ms.append((middle - start) * 1000)
            a2a_ms.append((end - middle) * 1000)
        lengths.append((len(result.hits), len(hits[0]), sum(len(v) for v in result.lists.values())))
    prism, a2a = summary(prism_ms), summary(a2a_ms)
    result = {
        "what": "PRISM fused search per query paper (3 aspect queries on segments + abstract on abstracts, top "
                f"{args.top_k} each, RRF, self-exclusion) vs one A2A top-{args.top_k} search; exact, cosine",
        "papers": args.papers,
        "segments": args.papers * args.per_paper,
        "dim": args.dim,
        "top_k": args.top_k,
        "build_s": build_s,
        "prism": prism,
        "a2a": a2a,
        "p50_ratio_prism_over_a2a": prism["p50_ms"] / a2a["p50_ms"],
        "mean_fused_hits": float(np.mean([x[0] for x in lengths])),
        "mean_list_entries": float(np.mean([x[2] for x in lengths])),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "load_avg_1m": os.getloadavg()[0]},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: result[k] for k in ("papers", "segments", "prism", "a2a", "p50_ratio_prism_over_a2a")},
                     indent=1))


if __name__ == "__main__":
    main()
