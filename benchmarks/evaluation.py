"""Cost of the evaluation harness itself: ranx compile, scoring, a full citation evaluation, MiniLM on real papers.

1. ranx's numba kernels compiled cold (a fresh NUMBA_CACHE_DIR, in a subprocess) and loaded warm.
2. `per_query_scores` throughput (6 metrics) for many queries × 100 ranked candidates.
3. A whole `evaluate` + `write_cells_report` (the suite report, with run files) on a synthetic built
   corpus (seeded papers and links), with a hashing encoder (seeded random unit vector per text) so the figure
   is the executor, not a model:
   benchmark build, body views, full-list scoring, ranx, geometry (uniformity over 5,000), report files.
4. The bundled MiniLM on the unarXive sample (49 real papers, stand-in links: consecutive papers of one
   discipline), all five scenarios, with an empty and then a warm embedding cache (`load_encoder(cache_dir=…)`).

    .venv/bin/python benchmarks/evaluation.py [--papers 5000] [--queries 10000] [--skip-minilm]
                                              [--out benchmarks/results/evaluation.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from itertools import pairwise
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
UNARXIVE = ROOT.parent / "shared" / "data" / "unarxive-sample" / "arXiv_src_2212_086.jsonl"


def ranx_compile() -> dict[str, float]:
    """Seconds for `metrics.warm_up()` in a fresh process: cold (empty numba cache) then warm (same cache)."""
    code = "import time; t=time.perf_counter(); from sciembed.evaluation.metrics import warm_up; warm_up(); " \
           "print(time.perf_counter()-t)"
    with tempfile.TemporaryDirectory() as cache:
        env = os.environ | {"NUMBA_CACHE_DIR": cache}
        runs = [float(subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True,
                                     text=True).stdout.strip().splitlines()[-1]) for _ in range(2)]
    return {"cold_s": runs[0], "warm_s": runs[1]}


METRICS = ("ndcg@10", "mrr", "recall@1", "recall@10", "recall@100", "map")  # the six the figure has measured


def scoring_throughput(n_queries: int, seed: int = 0) -> dict[str, float]:
    from sciembed.evaluation.metrics import per_query_scores, warm_up

    warm_up()
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(20_000)]
    qrels = {f"q{i}": {docs[j]: 1 for j in rng.choice(len(docs), 5, replace=False)} for i in range(n_queries)}
    rankings = {q: [(docs[j], float(100 - r)) for r, j in enumerate(rng.choice(len(docs), 100, replace=False))]
                for q in qrels}
    start = time.perf_counter()
    per_query_scores(qrels, rankings, METRICS)
    seconds = time.perf_counter() - start
    return {"queries": n_queries, "ranked_per_query": 100, "seconds": seconds, "queries_per_s": n_queries / seconds}


class HashEncoder:
    """A seeded random unit vector per distinct text: costs nothing, so timings are the harness's own."""

    name, max_seq_length, dim, metric, fingerprint = "hash", 512, 384, "cosine", "hash-384"

    def encode(self, texts, *, batch_size: int = 32, show_progress: bool = True) -> np.ndarray:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
            v = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
            rows.append(v / np.linalg.norm(v))
        return np.stack(rows) if rows else np.zeros((0, self.dim), np.float32)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def synthetic_corpus(root: Path, n: int, seed: int = 0) -> Path:
    from sciembed.papers.io import write_parquet
    from sciembed.papers.model import Paper, Section

    rng = np.random.default_rng(seed)
    vocab = [f"term{i}" for i in range(5000)]

    def words(k: int) -> str:
        return " ".join(vocab[j] for j in rng.integers(0, len(vocab), k))

    ids = [f"p{i:06d}" for i in range(n)]
    domains = [("cs", "bio", "physics", "math")[i % 4] for i in range(n)]
    papers = [Paper(id=pid, title=words(10), abstract=words(150), domain=dom,
                    sections=(Section("Introduction", words(400)), Section("Methods", words(600))))
              for pid, dom in zip(ids, domains, strict=True)]
    root.mkdir(parents=True)
    write_parquet(papers, root / "papers.parquet")
    pq.write_table(pa.table({"paper_id": ids, "split": ["test"] * n, "domain": domains}), root / "splits.parquet")
    pairs = {tuple(sorted((ids[a], ids[b]))) for a, b in rng.integers(0, n, (3 * n, 2)) if a != b}
    pairs = sorted(pairs)
    pq.write_table(pa.table({"paper_a": [a for a, _ in pairs], "paper_b": [b for _, b in pairs],
                             "domain": ["cs"] * len(pairs), "split": ["test"] * len(pairs)}), root / "pairs.parquet")
    return root


def harness(n_papers: int, work: Path) -> dict[str, object]:
    from sciembed.evaluation import (
        BODY_MODES,
        build_citation_benchmark,
        evaluate,
        scenario_benchmark,
        write_cells_report,
    )

    corpus = synthetic_corpus(work / "synthetic", n_papers)
    t0 = time.perf_counter()
    built = build_citation_benchmark(corpus)
    bench = scenario_benchmark(built, body_modes=BODY_MODES, geometry=True)
    t1 = time.perf_counter()
    cell = evaluate(HashEncoder(), bench, show_progress=False)
    t2 = time.perf_counter()
    write_cells_report([cell], bench, work / "synthetic-report", run_depth=100)
    t3 = time.perf_counter()
    return {
        "papers": n_papers, "links": len(built.pairs()), "scenarios": len(cell.results) - 1,  # geometry
        "queries_per_scenario": cell.result("ta_ta").counts["queries"],
        "distinct_texts": cell.encoded["texts_requested"],
        "build_benchmark_s": t1 - t0, "evaluate_s": t2 - t1, "write_report_s": t3 - t2,
        "ndcg@10_ta_ta_random_vectors": cell.result("ta_ta").metrics["ndcg@10"] / 100,
    }


def minilm_unarxive(work: Path) -> dict[str, object]:
    from sciembed.evaluation import BODY_MODES, build_citation_benchmark, evaluate, scenario_benchmark
    from sciembed.models import load_encoder
    from sciembed.papers.io import write_parquet
    from sciembed.papers.readers import Accepted, read_papers

    papers = [r.paper for r in read_papers(UNARXIVE) if isinstance(r, Accepted)]
    root = work / "unarxive"
    root.mkdir()
    write_parquet(papers, root / "papers.parquet")
    ids = sorted(p.id for p in papers)
    dom = {p.id: p.domain for p in papers}
    pq.write_table(pa.table({"paper_id": ids, "split": ["test"] * len(ids), "domain": [dom[i] for i in ids]}),
                   root / "splits.parquet")
    groups = defaultdict(list)
    for pid in ids:
        groups[dom[pid]].append(pid)
    pairs = [pair for g in groups.values() for pair in pairwise(g)]
    pq.write_table(pa.table({"paper_a": [a for a, _ in pairs], "paper_b": [b for _, b in pairs],
                             "domain": [dom[a] for a, _ in pairs], "split": ["test"] * len(pairs)}),
                   root / "pairs.parquet")
    bench = scenario_benchmark(build_citation_benchmark(root), body_modes=BODY_MODES, geometry=True)
    start = time.perf_counter()
    encoder = load_encoder(None, cache_dir=work / "cache")
    load_s = time.perf_counter() - start
    out: dict[str, object] = {"papers": len(papers), "stand_in_links": len(pairs), "load_encoder_s": load_s}
    for label in ("cold_cache", "warm_cache"):
        start = time.perf_counter()
        cell = evaluate(encoder, bench, show_progress=False)
        out[label] = {"seconds": time.perf_counter() - start, "encoded": cell.encoded["texts_run_through_model"],
                      "distinct_texts": cell.encoded["texts_requested"],
                      "ndcg@10": {r.task: round(r.metrics["ndcg@10"] / 100, 4) for r in cell.results
                                  if r.kind != "geometry"}}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--skip-minilm", action="store_true")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "evaluation.json")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    result: dict[str, object] = {
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "load_avg_start": os.getloadavg()},
        "ranx_compile": ranx_compile(),
        "scoring": scoring_throughput(args.queries),
    }
    with tempfile.TemporaryDirectory() as tmp:
        result["harness_synthetic"] = harness(args.papers, Path(tmp))
        if not args.skip_minilm:
            result["minilm_unarxive"] = minilm_unarxive(Path(tmp))
    result["machine"]["load_avg_end"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
