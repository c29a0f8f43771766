"""Approximate indexes against exact search: build time, memory, single-query latency, recall@10 / @100.

    python benchmarks/ann.py --n 1000000 --dim 384 --out benchmarks/results/ann.json

Vectors are a seeded Gaussian mixture (``--clusters`` centres, unit-normalised,
like sentence embeddings they concentrate around topics); ``--uniform`` uses
plain Gaussian noise instead, the pessimistic case for every ANN method.
Ground truth is exact inner-product search (faiss flat) over the same vectors.

IVF-PQ is measured without and with an exact re-rank (faiss `IndexRefine`
over a second copy of the vectors: ``sq8`` and/or ``flat``), over a grid of
``nprobe`` × ``refine_k_factor``; memory is reported as the searched codes and
the refine copy separately.

Building uses ``--threads`` faiss threads (default: every core); latency is one
query per call with one faiss thread (what a service handling many requests at
once sees), after warm-up, p50 / p99 over ``--queries`` queries.

HNSW variants (``--hnsw-variants storage:efConstruction``, e.g. ``flat:80,sq8:40``)
are built in chunks under a time budget each (``--hnsw-budget`` seconds): the
cumulative build time after every chunk is recorded, ``a·n·log n`` is fitted to
it, and the time to build ``--predict-n`` vectors is predicted from the fit.
When the budget runs out, the graph holds the first N vectors, and its recall
and latency are measured against exact search over exactly those N
(reported as ``n``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from sciembed.retrieval.ann import build_faiss_index, default_params, index_bytes, index_memory, search_parameters


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


def measure(index, kind: str, queries: np.ndarray, truth: np.ndarray, also_k10: bool = False, **knobs) -> dict:
    """Single-query latency (ms) and recall@10/@100 of top-100 searches at one knob setting.

    `also_k10`: also top-10 searches (a re-rank then sees refine_k_factor × 10 candidates, not × 100).
    """
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
    out = {
        **{k: v for k, v in knobs.items() if v is not None},
        "p50_ms": round(float(np.percentile(times, 50)), 3),
        "p99_ms": round(float(np.percentile(times, 99)), 3),
        "recall@10": round(recall(found, truth, 10), 4),
        "recall@100": round(recall(found, truth, 100), 4),
    }
    if also_k10:
        top10, times10 = [], []
        for q in queries:
            t0 = time.perf_counter()
            top10.append(index.search(q[None], 10, params=params)[1][0])
            times10.append((time.perf_counter() - t0) * 1000)
        out["k10_p50_ms"] = round(float(np.percentile(times10, 50)), 3)
        out["k10_recall@10"] = round(recall(np.asarray(top10), truth, 10), 4)
    return out


def fit_build_time(points: list[tuple[int, float]], target: int) -> float | None:
    """Least-squares a·n·log(n) through (n, seconds) build points; the predicted seconds for `target`."""
    points = [(n, t) for n, t in points if n > 1]
    if not points:
        return None
    x = np.array([n * np.log(n) for n, _ in points])
    y = np.array([t for _, t in points])
    a = float(x @ y / (x @ x))
    return round(a * target * np.log(target), 1)


def ivf_pq(args, base: np.ndarray, queries: np.ndarray, truth: np.ndarray, flat_bytes: int) -> dict:
    """IVF-PQ trained on a seeded sample and filled; searched alone, then re-ranked over SQ8 / flat copies."""
    import faiss

    faiss.omp_set_num_threads(args.threads)
    params = default_params("ivf-pq", args.n, args.dim, nlist=args.nlist, pq_m=args.pq_m, train_size=args.train,
                            refine="none")
    ivf = build_faiss_index(params, args.dim, "cosine")
    ivf.pq.cp.niter = args.pq_iters  # k-means iterations per PQ sub-quantizer (faiss default 25)
    sample = base[np.random.default_rng(args.seed).choice(args.n, min(args.train, args.n), replace=False)]
    t0 = time.perf_counter()
    ivf.train(sample)
    train_s = time.perf_counter() - t0
    faiss.omp_set_num_threads(args.threads)
    for start in range(0, args.n, 100_000):
        ivf.add(base[start : start + 100_000])
    codes = index_bytes(ivf)
    out = {
        "n": args.n, "params": params.to_dict(), "train_s": round(train_s, 2),
        "build_s": round(time.perf_counter() - t0, 2), "bytes": codes, "memory_vs_flat": round(codes / flat_bytes, 4),
        "search": [measure(ivf, "ivf-pq", queries, truth, nprobe=p) for p in args.nprobes],
        "refined": {},
    }
    print("ivf-pq", {k: v for k, v in out.items() if k != "params"}, flush=True)
    for refine in args.refines:
        faiss.omp_set_num_threads(args.threads)
        t0 = time.perf_counter()
        copy = faiss.IndexFlatIP(args.dim) if refine == "flat" else faiss.IndexScalarQuantizer(
            args.dim, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT)
        copy.train(sample)
        for start in range(0, args.n, 100_000):
            copy.add(base[start : start + 100_000])
        refine_s = time.perf_counter() - t0
        wrapped = faiss.IndexRefine(ivf, copy)  # what `--refine` builds in one go (ann.build_faiss_index)
        memory = index_memory(wrapped)
        total = memory["codes"] + memory["refine"]
        out["refined"][refine] = {
            "refine_build_s": round(refine_s, 2), "bytes_codes": memory["codes"], "bytes_refine": memory["refine"],
            "bytes": total, "memory_vs_flat": round(total / flat_bytes, 4),
            "search": [measure(wrapped, "ivf-pq", queries, truth, also_k10=True, nprobe=p, refine_k_factor=f)
                       for p in args.refine_nprobes for f in args.refine_factors],
        }
        print("ivf-pq refine", refine, out["refined"][refine], flush=True)
    return out


def hnsw(args, variant: str, base: np.ndarray, queries: np.ndarray, truth: np.ndarray) -> dict:
    """One HNSW variant built in chunks under the time budget; build points, a 1M prediction, search grid."""
    import faiss

    storage, ef_construction = variant.split(":")
    params = default_params("hnsw", args.n, args.dim, hnsw_m=args.hnsw_m, ef_construction=int(ef_construction),
                            hnsw_storage=storage)
    index = build_faiss_index(params, args.dim, "cosine")
    faiss.omp_set_num_threads(args.threads)
    t0 = time.perf_counter()
    if not index.is_trained:  # SQ8: per-dimension ranges from a sample
        index.train(base[np.random.default_rng(args.seed).choice(args.n, min(params.train_size, args.n),
                                                                  replace=False)])
    built, points = 0, []
    while built < args.n and time.perf_counter() - t0 < args.hnsw_budget:
        faiss.omp_set_num_threads(args.threads)  # measure() sets 1 thread; building uses every core
        index.add(base[built : built + args.hnsw_chunk])
        built = index.ntotal
        points.append((built, round(time.perf_counter() - t0, 2)))
        print(f"hnsw {variant} {built} in {points[-1][1]:.0f} s", flush=True)
    build_s = time.perf_counter() - t0
    htruth = truth if built == args.n else exact_top(base[:built], queries, 100)
    out = {
        "n": built, "variant": variant, "params": params.to_dict(), "build_s": round(build_s, 2),
        "build_points": points, "vectors_per_s": round(built / build_s, 1),
        f"predicted_build_s_{args.predict_n}": fit_build_time(points, args.predict_n),
        "bytes": index_bytes(index), "complete": built == args.n,
        "search": [measure(index, "hnsw", queries, htruth, ef_search=e) for e in args.ef_searches],
    }
    out["bytes_per_vector"] = round(out["bytes"] / built, 1)
    print("hnsw", variant, out, flush=True)
    return out


def ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--clusters", type=int, default=1000)
    parser.add_argument("--spread", type=float, default=1.0, help="noise norm relative to the centre's")
    parser.add_argument("--uniform", action="store_true", help="plain Gaussian vectors (no clusters)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="faiss threads for building")
    parser.add_argument("--kinds", default="flat,ivf-pq,hnsw", help="which kinds to measure (flat is always built)")
    parser.add_argument("--hnsw-m", type=int, default=32)
    parser.add_argument("--hnsw-variants", default="flat:80,flat:40,sq8:40", help="storage:efConstruction, ...")
    parser.add_argument("--hnsw-chunk", type=int, default=50_000)
    parser.add_argument("--hnsw-budget", type=float, default=1800.0, help="seconds for each HNSW build")
    parser.add_argument("--ef-searches", type=ints, default=[16, 32, 64, 128, 256])
    parser.add_argument("--predict-n", type=int, default=1_000_000, help="HNSW build time predicted for this n")
    parser.add_argument("--nlist", type=int, default=1024)
    parser.add_argument("--pq-m", type=int, default=48)
    parser.add_argument("--train", type=int, default=25_000, help="IVF-PQ training sample")
    parser.add_argument("--pq-iters", type=int, default=10)
    parser.add_argument("--nprobes", type=ints, default=[8, 16, 32, 64])
    parser.add_argument("--refines", default="sq8,flat", help="IVF-PQ re-rank copies to measure (sq8, flat)")
    parser.add_argument("--refine-nprobes", type=ints, default=[16, 32, 64])
    parser.add_argument("--refine-factors", type=ints, default=[4, 8, 16, 32])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--run-id", default=None, help="shared id when run with benchmarks/serve.py (service_suite)")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/ann.json"))
    args = parser.parse_args()
    args.refines = [r for r in args.refines.split(",") if r]
    kinds = set(args.kinds.split(","))

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

    if "ivf-pq" in kinds:
        results["ivf-pq"] = ivf_pq(args, base, queries, truth, flat_bytes)
    if "hnsw" in kinds:
        results["hnsw"] = {v: hnsw(args, v, base, queries, truth) for v in args.hnsw_variants.split(",") if v}

    report = {
        "benchmark": "ann",
        "run_id": args.run_id,
        "data": "uniform Gaussian (pessimistic)" if args.uniform else
        f"seeded Gaussian mixture: {args.clusters} unit centres, noise spread {args.spread}, unit-normalised",
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "machine": machine_info(),
        "latency": "one query per call, 1 faiss thread, top-100, p50/p99 in ms",
        "results": results,
        "wall_s": round(time.time() - started, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}", flush=True)


def machine_info() -> dict:
    """Cores, memory, versions and load: what a reader needs to compare two result files."""
    import faiss

    info = {"cpus": os.cpu_count(), "python": platform.python_version(), "faiss": faiss.__version__,
            "platform": platform.platform(), "load_average": [round(x, 2) for x in os.getloadavg()]}
    try:
        import psutil

        info["memory_gb"] = round(psutil.virtual_memory().total / 2**30, 1)
    except ImportError:
        pass
    return info


if __name__ == "__main__":
    main()
