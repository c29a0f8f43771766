"""Encoding throughput of `sciembed encode`: one process vs a Ray cluster of CPU actors, in one run.

The corpus is the ACL papers (GROBID TEI) ingested once outside the repository (``--corpus``, e.g.
``sciembed corpus ingest ../shared/data/acl-grobid/tei --out ../ray-data/acl``); ``--papers N`` takes a seeded
subset of its rows (the full corpus takes hours per arm on two CPU cores). Both arms encode the same
papers with the same model (MiniLM), the same views, batch size and shard size; the Ray arm runs a
local Ray instance (``--cpus`` CPUs, started once before the arms, as a standing cluster would be)
with ``--actors`` CPU actors of one torch thread each, the one-process arm uses torch's default
threads. Arms alternate (one process, Ray, Ray, one process, … for ``--repeats`` pairs) so that load
from other processes falls on both alike; examples/s = views encoded / wall seconds of the whole
`encode_corpus` call (encoder loading and, for Ray, actor start-up included). Ray's workers run at
this process's priority (``RAY_worker_niceness=0``). The arms' shards are compared too: the same
views, and vectors equal up to float rounding (bit-identical only when both use one torch thread).

    .venv/bin/python benchmarks/encode_ray.py --corpus ../ray-data/acl [--papers 48] [--repeats 2]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq


def subset(corpus: Path, papers: int, seed: int, work: Path) -> tuple[Path, int]:
    """A corpus of `papers` rows of `corpus` drawn with `seed` (kept in file order)."""
    table = pq.read_table(corpus / "papers.parquet")
    rows = np.sort(np.random.default_rng(seed).choice(table.num_rows, min(papers, table.num_rows), replace=False))
    out = work / "corpus"
    out.mkdir(parents=True, exist_ok=True)
    pq.write_table(table.take(rows), out / "papers.parquet", compression="zstd")
    return out, table.num_rows


def compare_vectors(a: Path, b: Path) -> dict:
    """Whether two vectors directories hold the same views, bit-identical vectors, and the largest difference."""
    from sciembed.index.encode.store import vectors_of

    names = sorted(p.name for p in a.glob("shard-*.parquet"))
    same_ids, identical, largest = names == sorted(p.name for p in b.glob("shard-*.parquet")), True, 0.0
    for name in names:
        x, y = pq.read_table(a / name), pq.read_table(b / name)
        same_ids = same_ids and x.drop_columns(["vector"]).equals(y.drop_columns(["vector"]))
        identical = identical and x.equals(y)
        largest = max(largest, float(np.abs(vectors_of(x) - vectors_of(y)).max(initial=0.0)))
    return {"same_views": same_ids, "bit_identical": identical, "max_abs_difference": largest}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, required=True, help="Ingested ACL corpus directory.")
    parser.add_argument("--papers", type=int, default=48, help="Seeded subset of papers (0: all).")
    parser.add_argument("--views", default="ta,section,window")
    parser.add_argument("--model", default="minilm")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--shard-papers", type=int, default=8)
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray instance.")
    parser.add_argument("--actors", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1, help="Pairs of arms, alternating order.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=Path("runs/bench-encode-ray"))
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/encode_ray.json"))
    args = parser.parse_args()

    import ray
    import torch

    from sciembed.index.encode.run import encode_corpus

    shutil.rmtree(args.work, ignore_errors=True)
    corpus, total = subset(args.corpus, args.papers or 10**12, args.seed, args.work)
    kinds = [k for k in args.views.split(",") if k]
    common = {"kinds": kinds, "load": {"name": args.model}, "batch_size": args.batch_size,
              "shard_papers": args.shard_papers, "show_progress": False}
    load_before = os.getloadavg()
    os.environ["RAY_worker_niceness"] = "0"  # noqa: SIM112 (case-sensitive). Ray lowers workers by 15 otherwise
    began = time.perf_counter()
    for attempt in range(3):  # on a loaded machine the raylet can miss Ray's fixed 30 s start-up deadline
        try:
            ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
            break
        except Exception:
            ray.shutdown()
            if attempt == 2:
                raise
    ray_init_s = time.perf_counter() - began
    runs: list[dict] = []
    outs: dict[str, Path] = {}
    try:
        for repeat in range(args.repeats):
            order = ["one_process", "ray"] if repeat % 2 == 0 else ["ray", "one_process"]
            for arm in order:
                out = args.work / f"{arm}-{repeat}"
                extra = {"ray": "auto", "actors": args.actors} if arm == "ray" else {}
                start = time.perf_counter()
                result = encode_corpus(corpus, out, **common, **extra)
                seconds = time.perf_counter() - start
                views = sum(result.views.values())
                runs.append({"arm": arm, "repeat": repeat, "seconds": seconds, "views": views,
                             "examples_per_s": views / seconds, "runner": result.runner,
                             "loadavg_after": os.getloadavg()[0]})
                outs[arm] = out
                print(f"{arm} repeat {repeat}: {views} views in {seconds:.1f} s = {views / seconds:.2f} examples/s",
                      flush=True)
    finally:
        ray.shutdown()
    per_arm = {arm: {"seconds": sum(r["seconds"] for r in runs if r["arm"] == arm),
                     "views": sum(r["views"] for r in runs if r["arm"] == arm)} for arm in ("one_process", "ray")}
    for value in per_arm.values():
        value["examples_per_s"] = value["views"] / value["seconds"]
    manifest = json.loads((outs["ray"] / "manifest.json").read_text())
    result = {
        "benchmark": "encode_ray",
        "what": (f"`sciembed encode` of {manifest['counts']['papers']} seeded ACL papers ({total} in the corpus), "
                 f"views {args.views}, model {args.model}: one process vs Ray Data with {args.actors} CPU actors"),
        "settings": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "corpus": {"source": str(args.corpus.resolve()), "papers_in_corpus": total,
                   "papers_encoded": manifest["counts"]["papers"], "views": manifest["counts"]["views"]},
        "encoder": manifest["encoder"],
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "torch_threads_one_process":
                    torch.get_num_threads(), "gpu": torch.cuda.is_available(),
                    "loadavg_before": load_before, "note": "shared and loaded by other jobs; no GPU this session"},
        "ray": {"version": ray.__version__, "init_s_not_counted": ray_init_s},
        "runs": runs,
        "throughput_examples_per_s": {arm: v["examples_per_s"] for arm, v in per_arm.items()},
        "ray_over_one_process": per_arm["ray"]["examples_per_s"] / per_arm["one_process"]["examples_per_s"],
        "vectors": compare_vectors(outs["one_process"], outs["ray"]),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: result[k] for k in ("throughput_examples_per_s", "ray_over_one_process",
                                             "vectors")}, indent=2))


if __name__ == "__main__":
    main()
