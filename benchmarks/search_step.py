"""The search step of the service alone, before and after: CPU ms per query over a 100k-paper flat / HNSW index.

    python benchmarks/search_step.py --papers 100000 --before-rev main --out benchmarks/results/search_step.json

Seeded clustered 384-d vectors (as benchmarks/serve.py), one view per paper.
`before`: `MultiVectorIndex.search_views` of `--before-rev` (its sources
unpacked with `git archive`, run in a child process), one query per call, as
the service searched; `after`: this tree, one query per call and 32 queries in
one `search_sets` call (what the service's gatherer does under load). CPU time
(`time.process_time`, one faiss / BLAS thread) rather than wall time, so the
machine's other load changes the figures little.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, sys, time
import numpy as np
import faiss
faiss.omp_set_num_threads(1)
from sciembed.retrieval.multivector import MultiVectorIndex
from sciembed.retrieval.ann import default_params
n, kind, repeats, batched = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
rng = np.random.default_rng(0)
centres = rng.normal(size=(200, 384)).astype(np.float32)
vectors = centres[rng.integers(0, 200, n)] + rng.normal(size=(n, 384)).astype(np.float32) * 0.8
params = default_params(kind, n, 384) if kind == "hnsw" else None
index = MultiVectorIndex(384, "cosine", "max", params)
index.add([f"s{i}" for i in range(n)], vectors)
queries = rng.normal(size=(repeats, 384)).astype(np.float32)
index.search_views(queries[:1], 11, "max")
out = {}
started = time.process_time()
for q in queries:
    index.search_views(q[None, :], 11, "max")
out["one_query_per_call_ms"] = round(1000 * (time.process_time() - started) / repeats, 3)
if batched:
    started = time.process_time()
    for s in range(0, repeats, 32):
        index.search_sets([q[None, :] for q in queries[s : s + 32]], 11, [set()] * len(queries[s : s + 32]))
    out["32_queries_per_call_ms"] = round(1000 * (time.process_time() - started) / repeats, 3)
print(json.dumps(out))
"""


def run(src: Path, n: int, kind: str, repeats: int, batched: bool) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", CHILD, str(n), kind, str(repeats), "1" if batched else "0"],
                          env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=64)
    parser.add_argument("--before-rev", default="main")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/search_step.json"))
    args = parser.parse_args()
    started = time.time()
    results = {}
    with tempfile.TemporaryDirectory(prefix="sciembed-search-step-") as tmp:
        archive = subprocess.run(["git", "-C", str(HERE.parent), "archive", args.before_rev, "src"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        rev = subprocess.run(["git", "-C", str(HERE.parent), "rev-parse", "--short", args.before_rev],
                             capture_output=True, text=True, check=True).stdout.strip()
        for kind in ("flat", "hnsw"):
            results[kind] = {f"before ({rev})": run(Path(tmp) / "src", args.papers, kind, args.repeats, False),
                             "after": run(HERE.parent / "src", args.papers, kind, args.repeats, True)}
            print(kind, results[kind], flush=True)
    report = {"benchmark": "search_step", "what": __doc__.split("\n\n")[0], "settings": {
        k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "load_average_at_end": [round(x, 1) for x in os.getloadavg()], "wall_s": round(time.time() - started, 1),
        "results": results}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
