"""What a search costs a user: the CLI cold (a new process each time), the CLI against a running server, the
server itself, and fused paper-to-paper search in one process at 3.5k and 100k papers (one thread).

- ``cli``: `sciembed index search IDX` as a subprocess (each call a new Python: imports, index and model loads),
  by text and by paper id, wall and CPU seconds (on a loaded box the wall time is mostly waiting for a core);
  ``stages`` splits one cold text query into its parts (CLI import, index opens,
  model load, encode + search) measured in a fresh process; ``bm25_load`` compares opening the BM25 part
  from bm25s's saved format with rebuilding it from the raw texts (what every load did before).
- ``server``: `sciembed index serve IDX` started once; HTTP ``POST /search`` timed from this process, and
  `sciembed index search --server URL` as a subprocess (what a user types when the model is loaded once).
- ``warm_cli_server``: `sciembed index search --server URL` of revision ``--before`` and of this tree side by
  side against one server, interleaved (`benchmarks/warm_cli.py`): what the CLI's own start costs.
- ``p2p``: the fused default for one query paper (BM25 over its full text + a2a + late interaction over
  TA + 4 pieces, top 300, then the measured fusion), in process, `OMP_NUM_THREADS=1`. ``acl_3569``: the
  ACL papers' real full texts (BM25) and real MiniLM ONNX int8 title+abstract vectors (from an embedding
  cache), with synthetic unit vectors for the 4 pieces per paper (encoding 14k pieces did not fit the
  loaded box). ``synthetic_100000``: `benchmarks/p2p_latency.py`'s synthetic collection (random unit
  vectors, Zipf bodies), with each stage timed apart.

The load average is recorded around every part: the box is shared.

    OMP_NUM_THREADS=1 nice .venv/bin/python benchmarks/search_latency.py --index IDX --acl INGESTED --cache CACHE
    nice .venv/bin/python benchmarks/search_latency.py --index IDX --skip cli,server,acl,synthetic --before main
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from local_server import wait_up

ROOT = Path(__file__).resolve().parents[1]
QUERIES = ["neural machine translation with attention", "dependency parsing with neural networks",
           "sentiment analysis of social media posts", "coreference resolution", "word embeddings evaluation",
           "question answering over knowledge bases", "named entity recognition in tweets",
           "abstractive summarization of news"]
STAGES = r"""
import json, sys, time
t0 = time.perf_counter()
from sciembed.cli.main import command_app
command_app(["index", "search"])  # what the `sciembed` command imports and builds before it runs
t1 = time.perf_counter()
from pathlib import Path
from sciembed.search.open import open_run, query_encoder
from sciembed.index.fulltext_index import expand_index_dirs
dirs, _ = expand_index_dirs([Path(sys.argv[1])])
loaded = [open_run(d) for d in dirs]
t2 = time.perf_counter()
encoder = query_encoder(next(one for one in loaded if one.kind != "bm25"))
t3 = time.perf_counter()
vector = encoder.encode([sys.argv[2]], show_progress=False)
for one in loaded:
    one.index.search_texts([sys.argv[2]], 100) if one.kind == "bm25" else one.index.search(vector, 100)
t4 = time.perf_counter()
print(json.dumps({"import_cli_s": t1 - t0, "open_indexes_s": t2 - t1, "load_model_s": t3 - t2,
                  "encode_and_search_s": t4 - t3}))
"""


def summary(ms: list[float]) -> dict[str, float]:
    a = np.asarray(ms)
    return {"p50_ms": round(float(np.percentile(a, 50)), 2), "p95_ms": round(float(np.percentile(a, 95)), 2),
            "mean_ms": round(float(a.mean()), 2), "n": len(a)}


CPU_S: list[float] = []  # CPU seconds (user + system) of each `sciembed` call, beside its wall time


def sciembed(*args: str, env: dict[str, str] | None = None) -> float:
    """Wall seconds one `sciembed` command takes as a new process (its CPU seconds go to `CPU_S`)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).with_name("sciembed")), *args], capture_output=True, text=True,
                          env=env)
    if done.returncode != 0:
        raise SystemExit(f"sciembed {' '.join(args)} failed: {done.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU_S.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return time.perf_counter() - start


def cpu_of(calls: int) -> list[float]:
    """CPU seconds of the last `calls` `sciembed` calls."""
    return [round(c, 2) for c in CPU_S[-calls:]]


def loaded(part: dict) -> dict:
    return {**part, "load_average": os.getloadavg()}


def cli(index: Path, paper: str, runs: int) -> dict:
    from sciembed.index.bm25_paper import BM25PaperIndex
    from sciembed.retrieval.bm25 import BM25Index

    text = [sciembed("index", "search", str(index), "--query", q, "--k", "10") for q in QUERIES[:runs]]
    text_cpu = cpu_of(runs)
    by_paper = [sciembed("index", "search", str(index), "--paper", paper, "--k", "10") for _ in range(runs)]
    paper_cpu = cpu_of(runs)
    stages = json.loads(subprocess.run([sys.executable, "-c", STAGES, str(index), QUERIES[0]], capture_output=True,
                                       text=True, check=True).stdout.splitlines()[-1])
    BM25Index.load(index / "bm25" / "bm25s")  # imports paid once, for both
    start = time.perf_counter()
    saved = BM25Index.load(index / "bm25" / "bm25s")
    load_s = time.perf_counter() - start
    texts = [saved.text(r) for r in range(len(saved))]
    start = time.perf_counter()
    BM25PaperIndex.from_texts(list(saved._ids), texts).search_texts(["warm"], 1)  # what each load did before
    rebuild_s = time.perf_counter() - start
    return {"text_query_s": [round(t, 2) for t in text], "paper_query_s": [round(t, 2) for t in by_paper],
            "text_query_cpu_s": text_cpu, "paper_query_cpu_s": paper_cpu,
            "text_query_p50_s": round(float(np.median(text)), 2),
            "paper_query_p50_s": round(float(np.median(by_paper)), 2),
            "stages_of_a_cold_text_query_s": {k: round(v, 3) for k, v in stages.items()},
            "bm25_load": {"bm25s_saved_s": round(load_s, 3), "rebuilt_from_texts_s": round(rebuild_s, 3),
                          "views": len(texts)}}


def server(index: Path, paper: str, runs: int, port: int) -> dict:
    url = f"http://127.0.0.1:{port}"
    start = time.perf_counter()
    proc = subprocess.Popen([str(Path(sys.executable).with_name("sciembed")), "index", "serve", str(index),
                             "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        try:
            wait_up(url, proc, poll_s=0.2)
        except RuntimeError as err:
            raise SystemExit(f"index serve: {err}") from None
        ready_s = time.perf_counter() - start

        def post(body: dict) -> float:
            request = urllib.request.Request(url + "/search", data=json.dumps({**body, "k": 10}).encode(),
                                             headers={"Content-Type": "application/json"})
            t0 = time.perf_counter()
            urllib.request.urlopen(request, timeout=120).read()
            return 1000 * (time.perf_counter() - t0)

        post({"query": "warm up"})
        text = [post({"query": q}) for q in QUERIES * 3]  # a repeated query is a cache hit: 1/3 of these
        papers = [post({"paper_id": paper}) for _ in range(10)]
        via_cli = [sciembed("index", "search", "--server", url, "--query", q) for q in QUERIES[:runs]]
        via_cli_cpu = cpu_of(runs)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(30)
    return {"ready_s": round(ready_s, 1), "http_text_query": summary(text), "http_paper_query": summary(papers),
            "cli_with_server_s": [round(t, 2) for t in via_cli], "cli_with_server_cpu_s": via_cli_cpu,
            "cli_with_server_p50_s": round(float(np.median(via_cli)), 2)}


def warm_cli_server(index: Path, before: str, runs: int, port: int) -> dict:
    """`sciembed index search --server URL` of revision `before` and of this tree, against one server (this
    tree's), interleaved query by query (which side goes first alternates), `runs` timed queries per side."""
    from warm_cli import compare_revisions

    return compare_revisions(index, before, runs, port, QUERIES, sciembed, CPU_S)


def p2p_parts(abstracts, ids, views, bm25, texts, ta, own, spec, queries: list[int], k: int) -> dict:
    """Fused p2p per query paper, each stage timed (CPU time of this process, and wall)."""
    from sciembed.search.learned_fusion import fuse_one

    stages: dict[str, list[float]] = {"a2a": [], "bm25": [], "late": [], "fuse": [], "fused_wall": []}
    for n, i in enumerate(queries):
        pid = ids[i]
        w0, c0 = time.perf_counter(), time.process_time()
        scores, rows = abstracts.search_rows(ta[i][None], k + 1)
        dense = [(ids[r], float(s)) for s, r in zip(scores[0], rows[0], strict=True) if r >= 0 and ids[r] != pid][:k]
        c1 = time.process_time()
        lexical = bm25.search([texts[i]], k, [pid])[0]
        c2 = time.process_time()
        late = [(d, s) for d, s, _ in views.search_views(own(i), k, "late", exclude=[pid])]
        c3 = time.process_time()
        fuse_one(spec, {"a2a": dense, "bm25": lexical, "late": late}, depth=k)
        c4, w4 = time.process_time(), time.perf_counter()
        if n >= 3:  # warm-up
            for name, value in (("a2a", c1 - c0), ("bm25", c2 - c1), ("late", c3 - c2), ("fuse", c4 - c3),
                                ("fused_wall", w4 - w0)):
                stages[name].append(1000 * value)
    cpu = [a + b + c + d for a, b, c, d in zip(stages["a2a"], stages["bm25"], stages["late"], stages["fuse"],
                                               strict=True)]
    return {"fused_cpu": summary(cpu), **{name: summary(v) for name, v in stages.items()}}


def unit(rng: np.random.Generator, rows: int, dim: int) -> np.ndarray:
    x = rng.standard_normal((rows, dim), dtype=np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def p2p(corpus: Path | None, cache: Path | None, papers: int, queries: int, k: int) -> dict:
    from sciembed.retrieval.bm25 import BM25Index
    from sciembed.retrieval.dense import DenseIndex
    from sciembed.retrieval.multivector import MultiVectorIndex
    from sciembed.search.learned_fusion import MEASURED_FUSION, FusionSpec

    spec = FusionSpec.load(MEASURED_FUSION)
    rng = np.random.default_rng(0)
    per, dim = 4, 384
    if corpus is not None:
        from sciembed.corpus.layout import CorpusDir
        from sciembed.models import load_encoder
        from sciembed.views.simple import full_text, ta_text

        docs = list(CorpusDir(corpus).iter_papers())
        ids, texts = [p.id for p in docs], [full_text(p) for p in docs]
        encoder = load_encoder("minilm", backend="onnx", quantize=True, cache_dir=cache)
        ta = encoder.encode([ta_text(p) for p in docs], show_progress=False)
        name = f"acl_{len(ids)}"
    else:
        ids = [f"s{i:06d}" for i in range(papers)]
        vocabulary = np.asarray([f"w{i}" for i in range(50_000)])
        weights = 1.0 / np.arange(1, 50_001)
        words = rng.choice(50_000, size=(papers, 300), p=weights / weights.sum())
        texts = [" ".join(vocabulary[row]) for row in words]
        ta = unit(rng, papers, dim)
        name = f"synthetic_{papers}"
    n = len(ids)
    pieces = unit(rng, n * per, dim)
    abstracts = DenseIndex(dim, "cosine")
    abstracts.add(ids, ta)
    views = MultiVectorIndex(dim, "cosine")
    views.add([i for i in ids for _ in range(per + 1)],
              np.concatenate([ta[:, None, :], pieces.reshape(n, per, dim)], axis=1).reshape(-1, dim))
    bm25 = BM25Index()
    bm25.add(ids, texts)
    bm25.search(["warm"], 1)

    def own(i: int) -> np.ndarray:
        return np.vstack([ta[i:i + 1], pieces[i * per:(i + 1) * per]])

    chosen = [int(i) for i in rng.choice(n, size=min(queries + 3, n), replace=False)]
    return {"part": name, "papers": n, "views": views.num_views, "top_k": k, "fusion": spec.label,
            **p2p_parts(abstracts, ids, views, bm25, texts, ta, own, spec, chosen, k)}


def fused_100k_now() -> dict | None:
    """The 100k-paper fused search as `index build --index HNSW32` serves it (both dense parts over HNSW, approximate
    late), timed by `p2p_pruning.py` into p2p_first_tier.json; `p2p_synthetic` above is the exact (flat) index."""
    path = ROOT / "benchmarks" / "results" / "p2p_first_tier.json"
    if not path.is_file() or "synthetic_100000" not in json.loads(path.read_text()):
        return None
    part = json.loads(path.read_text())["synthetic_100000"]
    return {"fused_p2p_100k_cpu_p50_ms": round(part["cpu"]["fused_whole"]["p50_ms"], 1),
            "fused_p2p_100k_wall_p50_ms": round(part["wall"]["fused_whole"]["p50_ms"], 1),
            "stages_cpu_p50_ms": part["cpu_p50_ms_per_stage"]["fused_whole"],
            "views_index": part["views_index"]["kind"], "abstracts_index": part["abstracts_index"]["kind"],
            "load_average": part["load_average"],
            "source": "benchmarks/results/p2p_first_tier.json, part synthetic_100000 (p2p_pruning.py --late-tiers)"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, help="A full-text index from `sciembed index build` (cli, server).")
    parser.add_argument("--acl", type=Path, help="Ingested ACL corpus (p2p at 3.5k).")
    parser.add_argument("--cache", type=Path, help="Embedding cache holding the ACL title+abstract vectors.")
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3, help="Cold CLI calls per kind.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--skip", default="", help="Comma-separated parts to skip: cli, server, warm_cli, acl, "
                        "synthetic.")
    parser.add_argument("--before", default="main", help="warm_cli: the git revision this tree's CLI is "
                        "compared with.")
    parser.add_argument("--warm-runs", type=int, default=12, help="warm_cli: timed queries per side.")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "search_latency.json")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    result = json.loads(args.out.read_text()) if args.out.is_file() else {}
    result.update({"cpus": os.cpu_count(),
                   "note": "load averages are (1, 5, 15 min) at the end of each part; the box is shared"})
    if not {"acl", "synthetic"} <= skip:  # the thread count of the in-process p2p parts
        result["omp_num_threads"] = os.environ.get("OMP_NUM_THREADS")
    if args.index is not None:
        titles = json.loads((args.index / "ta" / "papers.json").read_text())
        paper = sorted(titles)[len(titles) // 2]
        manifest = json.loads((args.index / "manifest.json").read_text())
        if not {"cli", "server"} <= skip:  # the index of those parts (warm_cli names its own)
            result["index"] = {"papers": manifest["counts"], "views": manifest["views"], "query_paper": paper}
        if "cli" not in skip:
            result["cli_cold"] = loaded(cli(args.index, paper, args.runs))
            print("cli", json.dumps(result["cli_cold"]), flush=True)
        if "server" not in skip:
            result["server"] = loaded(server(args.index, paper, args.runs, args.port))
            print("server", json.dumps(result["server"]), flush=True)
        if "warm_cli" not in skip:
            result["warm_cli_server"] = warm_cli_server(args.index, args.before, args.warm_runs, args.port)
            print("warm_cli_server", json.dumps(result["warm_cli_server"]), flush=True)
    if args.acl is not None and "acl" not in skip:
        result["p2p_acl"] = loaded(p2p(args.acl, args.cache, 0, args.queries, 300))
        print("acl", json.dumps(result["p2p_acl"]), flush=True)
    if "synthetic" not in skip:
        result["p2p_synthetic"] = loaded(p2p(None, None, args.papers, args.queries, 300))
        print("synthetic", json.dumps(result["p2p_synthetic"]), flush=True)
    result["goal"] = {"warm_query_s": 1.0, "fused_p2p_100k_p50_ms": 50,
                      "before": {"fused_p2p_100k_p50_ms": 258, "a2a_100k_p50_ms": 13.8,
                                 "source": "benchmarks/results/p2p_latency.json (quiet box)"},
                      "now": fused_100k_now()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()
