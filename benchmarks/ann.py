"""Approximate indexes against exact search: build time, memory, single-query latency, recall@10 / @100.

    python benchmarks/ann.py --n 1000000 --dim 384 --out benchmarks/results/ann.json

Vectors are a seeded Gaussian mixture (``--clusters`` centres, unit-normalised,
like sentence embeddings they concentrate around topics); ``--uniform`` uses
plain Gaussian noise instead, the pessimistic case for every ANN method.
Ground truth is exact inner-product search (faiss flat) over the same vectors.

HNSW is built in chunks under a time budget (``--hnsw-budget`` seconds): when
the budget runs out, the graph holds the first N vectors, and its recall and
latency are measured against exact search over exactly those N (reported as
``n``). Latency is one query per call with one faiss thread (what a service
handling many requests at once sees), after warm-up, p50 / p99 over
``--queries`` queries.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from sciembed.retrieval.ann import build_faiss_index, default_params, index_bytes, search_parameters


def mixture(n: int, dim: int, clusters: int, spread: float, seed: int, uniform: bool) -> np.ndarray:
    """Unit vectors: a random centre each, plus isotropic noise (`spread` relative to the centre's norm)."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, dim), dtype=np.float32)
    centres = rng.normal(size=(clusters, dim)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    for start in range(0, n, 100_000):
        m = min(100_000, n - start)
        noise = rng.normal(size=(m, dim)).astype(np.float32) / np.sqrt(dim)
        block = noise if uniform else centres[rng.integers(0, clusters, m)] + spread * noise
        out[start : start + m] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def exact_top(base: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    """Exact top-k rows by inner product (blocked matrix products)."""
    best_s = np.full((len(queries), k), -np.inf, dtype=np.float32)
    best_r = np.zeros((len(queries), k), dtype=np.int64)
    for start in range(0, len(base), 200_000):
        scores = queries @ base[start : start + 200_000].T
        rows = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        s = np.take_along_axis(scores, rows, axis=1)
        all_s, all_r = np.hstack([best_s, s]), np.hstack([best_r, rows + start])
        keep = np.argsort(-all_s, axis=1)[:, :k]
        best_s, best_r = np.take_along_axis(all_s, keep, axis=1), np.take_along_axis(all_r, keep, axis=1)
    return best_r


def recall(found: np.ndarray, truth: np.ndarray, k: int) -> float:
    return float(np.mean([len(set(f[:k]) & set(t[:k])) / k for f, t in zip(found, truth, strict=True)]))


def measure(index, kind: str, queries: np.ndarray, truth: np.ndarray, **knobs) -> dict:
    """Single-query latency (ms) and recall@10/@100 at one knob setting."""
    import faiss

    faiss.omp_set_num_threads(1)
    params = search_parameters(index, kind, **knobs)
    for q in queries[:20]:  # warm-up
        index.search(q[None], 100, params=params)
    found, times = [], []
    for q in queries:
        t0 = time.perf_counter()
        _, rows = index.search(q[None], 100, params=params)
        times.append((time.perf_counter() - t0) * 1000)
        found.append(rows[0])
    found = np.asarray(found)
    return {
        **{k: v for k, v in knobs.items() if v is not None},
        "p50_ms": round(float(np.percentile(times, 50)), 3),
        "p99_ms": round(float(np.percentile(times, 99)), 3),
        "recall@10": round(recall(found, truth, 10), 4),
        "recall@100": round(recall(found, truth, 100), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--clusters", type=int, default=1000)
    parser.add_argument("--spread", type=float, default=1.0, help="noise norm relative to the centre's")
    parser.add_argument("--uniform", action="store_true", help="plain Gaussian vectors (no clusters)")
    parser.add_argument("--threads", type=int, default=2, help="faiss threads for building")
    parser.add_argument("--hnsw-m", type=int, default=32)
    parser.add_argument("--ef-construction", type=int, default=80)
    parser.add_argument("--hnsw-budget", type=float, default=1500.0, help="seconds for the HNSW build")
    parser.add_argument("--nlist", type=int, default=1024)
    parser.add_argument("--pq-m", type=int, default=48)
    parser.add_argument("--train", type=int, default=25_000, help="IVF-PQ training sample")
    parser.add_argument("--pq-iters", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/ann.json"))
    args = parser.parse_args()

    import faiss

    started = time.time()
    data = mixture(args.n + args.queries, args.dim, args.clusters, args.spread, args.seed, args.uniform)
    base, queries = data[: args.n], data[args.n :]
    print(f"{args.n} vectors generated in {time.time() - started:.0f} s", flush=True)
    truth = exact_top(base, queries, 100)
    results: dict = {}

    # flat (exact): the reference
    faiss.omp_set_num_threads(args.threads)
    t0 = time.perf_counter()
    flat = build_faiss_index(default_params("flat", args.n, args.dim), args.dim, "cosine")
    flat.add(base)
    flat_build = time.perf_counter() - t0
    results["flat"] = {"n": args.n, "build_s": round(flat_build, 2), "bytes": index_bytes(flat),
                       "search": [measure(flat, "flat", queries[:100], truth[:100])]}
    flat_bytes = results["flat"]["bytes"]
    del flat
    print("flat", results["flat"], flush=True)

    # IVF-PQ: coarse quantizer + PQ trained on a seeded sample, then filled
    faiss.omp_set_num_threads(args.threads)
    params = default_params("ivf-pq", args.n, args.dim, nlist=args.nlist, pq_m=args.pq_m, train_size=args.train)
    ivf = build_faiss_index(params, args.dim, "cosine")
    ivf.pq.cp.niter = args.pq_iters  # k-means iterations per PQ sub-quantizer (faiss default 25)
    sample = base[np.random.default_rng(args.seed).choice(args.n, min(args.train, args.n), replace=False)]
    t0 = time.perf_counter()
    ivf.train(sample)
    train_s = time.perf_counter() - t0
    for start in range(0, args.n, 100_000):
        ivf.add(base[start : start + 100_000])
    ivf_build = time.perf_counter() - t0
    results["ivf-pq"] = {
        "n": args.n, "params": params.to_dict(), "train_s": round(train_s, 2), "build_s": round(ivf_build, 2),
        "bytes": index_bytes(ivf),
        "search": [measure(ivf, "ivf-pq", queries, truth, nprobe=p) for p in (8, 16, 32, 64)],
    }
    results["ivf-pq"]["memory_vs_flat"] = round(results["ivf-pq"]["bytes"] / flat_bytes, 4)
    del ivf
    print("ivf-pq", results["ivf-pq"], flush=True)

    # HNSW in chunks under a time budget
    faiss.omp_set_num_threads(args.threads)
    hparams = default_params("hnsw", args.n, args.dim, hnsw_m=args.hnsw_m, ef_construction=args.ef_construction)
    hnsw = build_faiss_index(hparams, args.dim, "cosine")
    t0 = time.perf_counter()
    built = 0
    while built < args.n and time.perf_counter() - t0 < args.hnsw_budget:
        hnsw.add(base[built : built + 50_000])
        built = hnsw.ntotal
        print(f"hnsw {built} in {time.perf_counter() - t0:.0f} s", flush=True)
    hnsw_build = time.perf_counter() - t0
    htruth = truth if built == args.n else exact_top(base[:built], queries, 100)
    results["hnsw"] = {
        "n": built, "params": hparams.to_dict(), "build_s": round(hnsw_build, 2), "bytes": index_bytes(hnsw),
        "complete": built == args.n,
        "search": [measure(hnsw, "hnsw", queries, htruth, ef_search=e) for e in (16, 32, 64, 128, 256)],
    }
    results["hnsw"]["bytes_per_vector"] = round(results["hnsw"]["bytes"] / built, 1)
    print("hnsw", results["hnsw"], flush=True)

    report = {
        "benchmark": "ann",
        "data": "uniform Gaussian (pessimistic)" if args.uniform else
        f"seeded Gaussian mixture: {args.clusters} unit centres, noise spread {args.spread}, unit-normalised",
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "faiss": faiss.__version__},
        "latency": "one query per call, 1 faiss thread, top-100, p50/p99 in ms",
        "results": results,
        "wall_s": round(time.time() - started, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}", flush=True)


if __name__ == "__main__":
    main()
