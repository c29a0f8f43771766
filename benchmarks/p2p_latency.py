"""Latency per query paper of the default full-text method (fused) next to a2a, on ACL and on 100k papers.

The default full-text method is the learned fusion (`fusion.json` from `sciembed eval run --kind paper_to_paper
--set tune_fusion=true`) of three searches for one query paper, each for its top 300, the query paper
excluded: BM25 over full texts (the query paper's full text as the query, tokenised and scored),
a2a (its TA vector against the TA index) and late interaction (its TA + section-piece vectors
against every candidate view: mean over query views of the max over a candidate's views), then
`fuse_one`. a2a alone is the single TA search. The two alternate query by query, so machine load
hits them alike; query encoding is not timed (paper queries reuse the paper's stored vectors).

- ``acl``: the ingested ACL collection, its vectors read from the embedding cache (MiniLM ONNX
  int8, the views of configs/p2p-acl.yaml), query papers drawn from the test split.
- ``synthetic``: `--papers` papers of seeded random unit vectors (1 TA + `--views` pieces each) and
  seeded Zipf-distributed bodies of `--words` words for BM25; queries are bodies of the collection.

`--views-index hnsw` puts the views in an HNSW index: ``late`` then scores exactly the papers of each
query vector's top views (`retrieval/approximate_late.py`). Each part then also records how far that is
from exact ``late`` (a flat index of the same views): the overlap of the top 10 and top k, and on ACL the
fused NDCG@10 of every test query with exact and with approximate ``late`` (paired t-test). Random
synthetic vectors have no neighbourhoods, the hardest case for a graph; the ACL part is the real one.

    nice .venv/bin/python benchmarks/p2p_latency.py --corpus INGESTED_ACL --cache CACHE --fusion RUN/fusion.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from sciembed.retrieval.ann import default_params
from sciembed.retrieval.bm25 import BM25Index
from sciembed.retrieval.dense import DenseIndex
from sciembed.retrieval.multivector import LATE_FIRST_TIER, MultiVectorIndex
from sciembed.search.learned_fusion import FusionSpec, fuse_one, measured_default


def summary(ms: list[float]) -> dict[str, float]:
    a = np.asarray(ms)
    return {"p50_ms": float(np.percentile(a, 50)), "p99_ms": float(np.percentile(a, 99)),
            "mean_ms": float(a.mean()), "max_ms": float(a.max()), "timed_queries": len(a)}


def time_queries(queries, abstracts: DenseIndex, ids: list[str], views: MultiVectorIndex, bm25: BM25Index,
                 spec: FusionSpec, k: int, warmup: int) -> dict[str, dict[str, float]]:
    """queries: (paper id, full text, TA vector, view vectors); a2a and fused alternate per query.

    Wall time and this process's CPU time (`time.process_time`) per query: on a shared box where this
    process gets a small share of a core, the CPU time is what the search costs, the wall time what a
    user of that box waits.
    """
    wall: dict[str, list[float]] = {"a2a": [], "fused": []}
    cpu: dict[str, list[float]] = {"a2a": [], "fused": []}
    for i, (pid, text, ta, own) in enumerate(queries):
        t0, c0 = time.perf_counter(), time.process_time()
        scores, rows = abstracts.search_rows(ta[None], k + 1)
        a2a = [(ids[r], float(s)) for s, r in zip(scores[0], rows[0], strict=True) if r >= 0 and ids[r] != pid][:k]
        t1, c1 = time.perf_counter(), time.process_time()
        scores, rows = abstracts.search_rows(ta[None], k + 1)
        dense = [(ids[r], float(s)) for s, r in zip(scores[0], rows[0], strict=True) if r >= 0 and ids[r] != pid][:k]
        lexical = bm25.search([text], k, [pid])[0]
        late = [(d, s) for d, s, _ in views.search_views(own, k, "late", exclude=[pid])]
        fused = fuse_one(spec, {"a2a": dense, "bm25": lexical, "late": late}, depth=k)
        t2, c2 = time.perf_counter(), time.process_time()
        assert a2a and fused
        if i >= warmup:
            wall["a2a"].append(1000 * (t1 - t0))
            wall["fused"].append(1000 * (t2 - t1))
            cpu["a2a"].append(1000 * (c1 - c0))
            cpu["fused"].append(1000 * (c2 - c1))
    return {"a2a": summary(wall["a2a"]), "fused": summary(wall["fused"]),
            "fused_over_a2a_p50": float(np.median(wall["fused"]) / np.median(wall["a2a"])),
            "cpu": {"a2a": summary(cpu["a2a"]), "fused": summary(cpu["fused"]),
                    "fused_over_a2a_p50": float(np.median(cpu["fused"]) / max(np.median(cpu["a2a"]), 1e-6))}}


def view_index(kind: str, dim: int, metric: str, owners: list[str], vectors: np.ndarray,
               saved: Path | None = None) -> MultiVectorIndex:
    """The views in a `kind` ("flat" or "hnsw") index; an approximate one is read from `saved` when it is there
    (built and saved there otherwise: a 500k-view HNSW graph takes tens of minutes to build on 2 cores)."""
    import faiss

    fingerprint = f"p2p_latency:{kind}:{len(vectors)}x{dim}:{metric}"
    if kind != "flat" and saved is not None and (saved / "meta.json").is_file():
        return MultiVectorIndex.load(saved, fingerprint)
    params = None if kind == "flat" else default_params(kind, len(vectors), dim)
    index = MultiVectorIndex(dim, metric, params=params)
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(os.cpu_count() or 1)  # the build may use every core; searches stay on one thread
    try:
        index.add(owners, vectors)
    finally:
        faiss.omp_set_num_threads(threads)
    if kind != "flat" and saved is not None:
        index.save(saved, fingerprint)
    return index


def late_agreement(queries, exact: MultiVectorIndex, approx: MultiVectorIndex, k: int) -> dict[str, float]:
    """Mean overlap of approximate and exact ``late`` rankings (top 10 and top k), over `queries`."""
    at10, atk = [], []
    for pid, _, _, own in queries:
        truth = [d for d, _, _ in exact.search_views(own, k, "late", exclude=[pid])]
        found = [d for d, _, _ in approx.search_views(own, k, "late", exclude=[pid])]
        at10.append(len(set(truth[:10]) & set(found[:10])) / max(1, min(10, len(truth))))
        atk.append(len(set(truth) & set(found)) / max(1, len(truth)))
    return {"overlap_at_10": float(np.mean(at10)), f"overlap_at_{k}": float(np.mean(atk)), "queries": len(at10)}


def fused_quality(bench, texts: dict, ta: np.ndarray, row: dict, own: dict, abstracts: DenseIndex, ids: list[str],
                  exact: MultiVectorIndex, approx: MultiVectorIndex, bm25: BM25Index, spec: FusionSpec,
                  k: int, tiers: list[int]) -> dict:
    """Fused NDCG@10 of every query of the split with exact and with approximate ``late`` (one run per first
    tier in `tiers`), per gold kind; each approximate run against exact, paired t-test (ranx)."""
    from ranx import Qrels, Run, compare

    out = {}
    names = {"exact_late": None, **{f"approximate_late_tier{t}": t for t in tiers}}
    for kind, qrels in bench.qrels.items():
        runs: dict[str, dict[str, dict[str, float]]] = {name: {} for name in names}
        for q in sorted(qrels):
            scores, rows = abstracts.search_rows(ta[row[q]][None], k + 1)
            dense = [(ids[r], float(s)) for s, r in zip(scores[0], rows[0], strict=True) if r >= 0 and ids[r] != q][:k]
            lexical = bm25.search([texts[q]], k, [q])[0]
            for name, tier in names.items():
                views = exact if tier is None else approx
                if tier is not None:
                    views.late_first_tier = tier
                late = [(d, s) for d, s, _ in views.search_views(own[q], k, "late", exclude=[q])]
                fused = fuse_one(spec, {"a2a": dense, "bm25": lexical, "late": late}, depth=k)
                runs[name][q] = {d: float(len(fused) - i) for i, (d, _) in enumerate(fused)}
        report = compare(Qrels(qrels), [Run(r, name=n) for n, r in runs.items()], metrics=["ndcg@10"],
                         stat_test="student", max_p=0.05)
        scores = report.to_dict()
        out[kind] = {"queries": len(qrels), **{n: round(100 * scores[n]["scores"]["ndcg@10"], 2) for n in runs},
                     **{f"p_{n}": float(scores[n]["comparisons"]["exact_late"]["ndcg@10"]) for n in runs
                        if n != "exact_late"}}
    return out


def acl(args, spec: FusionSpec) -> dict:
    from sciembed.evaluation.p2p_config import load_p2p_config
    from sciembed.evaluation.p2p_views import encoder_token_counter
    from sciembed.evaluation.paper_to_paper import build_collection_paper_to_paper
    from sciembed.models import load_encoder
    from sciembed.search.prism.index import abstract_text
    from sciembed.views.fit import encoder_budget, section_pieces
    from sciembed.views.simple import full_text

    config = load_p2p_config(args.config)
    bench = build_collection_paper_to_paper(args.corpus, split=args.split)
    encoder = load_encoder("minilm", backend="onnx", quantize=True, cache_dir=args.cache)
    count, budget = encoder_token_counter(encoder), encoder_budget(encoder.max_seq_length)
    papers = [bench.papers[i] for i in sorted(bench.papers)]
    ids = [p.id for p in papers]
    ta = encoder.encode([abstract_text(p.title, p.abstract) for p in papers], show_progress=False)
    pieces = [[v.text for v in section_pieces(p, budget, count, config.pieces_per_section, config.piece_sections)]
              for p in papers]
    flat = [t for ps in pieces for t in ps]
    piece_vectors = encoder.encode(flat, show_progress=False) if flat else np.zeros((0, encoder.dim), np.float32)
    abstracts = DenseIndex(encoder.dim, encoder.metric)
    abstracts.add(ids, ta)
    own: dict[str, np.ndarray] = {}
    start = 0
    for i, (p, ps) in enumerate(zip(papers, pieces, strict=True)):
        own[p.id] = np.vstack([ta[i:i + 1], piece_vectors[start:start + len(ps)]])
        start += len(ps)
    owners, stacked = [p.id for p in papers for _ in range(len(own[p.id]))], np.vstack([own[p.id] for p in papers])
    views = view_index(args.views_index, encoder.dim, encoder.metric, owners, stacked)
    texts = {p.id: full_text(p) for p in papers}
    bm25 = BM25Index()
    bm25.add(ids, [texts[i] for i in ids])
    rng = np.random.default_rng(args.seed)
    chosen = rng.choice(sorted(bench.queries), size=min(args.queries + args.warmup, len(bench.queries)),
                        replace=False)
    row = {pid: i for i, pid in enumerate(ids)}
    queries = [(q, texts[q], ta[row[q]], own[q]) for q in chosen]
    out = {"papers": len(ids), "views": views.num_views, "views_index": views.dense.params.to_dict(),
           "encoder": encoder.name, **time_queries(queries, abstracts, ids, views, bm25, spec, args.top_k, args.warmup)}
    if args.views_index != "flat":
        exact = view_index("flat", encoder.dim, encoder.metric, owners, stacked)
        out["late_vs_exact"] = {}
        for tier in args.late_tiers:
            views.late_first_tier = tier
            out["late_vs_exact"][f"tier{tier}"] = late_agreement(queries, exact, views, args.top_k)
        out["fused_ndcg_at_10"] = fused_quality(bench, texts, ta, row, own, abstracts, ids, exact, views, bm25, spec,
                                                args.top_k, args.late_tiers)
        out["split"] = args.split
    return out


def synthetic(args, spec: FusionSpec) -> dict:
    rng = np.random.default_rng(args.seed)
    n, per, dim = args.papers, args.views, 384
    ids = [f"s{i:06d}" for i in range(n)]

    def unit(rows: int) -> np.ndarray:
        x = rng.standard_normal((rows, dim), dtype=np.float32)
        return x / np.linalg.norm(x, axis=1, keepdims=True)

    ta = unit(n)
    abstracts = DenseIndex(dim, "cosine")
    abstracts.add(ids, ta)
    piece_vectors = unit(n * per)
    owners = [i for i in ids for _ in range(per + 1)]
    stacked = np.concatenate([ta[:, None, :], piece_vectors.reshape(n, per, dim)], axis=1).reshape(-1, dim)
    reused = args.saved_views is not None and (args.saved_views / "meta.json").is_file()
    timed_as = "views_index_load_s" if reused else "views_index_build_s"
    built = time.perf_counter()
    views = view_index(args.views_index, dim, "cosine", owners, stacked, args.saved_views)
    built = time.perf_counter() - built
    if args.build_only:
        return {timed_as: round(built, 1), "views": views.num_views}
    vocabulary = np.asarray([f"w{i}" for i in range(args.vocabulary)])
    weights = 1.0 / np.arange(1, args.vocabulary + 1)
    words = rng.choice(len(vocabulary), size=(n, args.words), p=weights / weights.sum())
    texts = [" ".join(vocabulary[row]) for row in words]
    bm25 = BM25Index()
    bm25.add(ids, texts)
    chosen = rng.choice(n, size=args.queries + args.warmup, replace=False)
    queries = [(ids[i], texts[i], ta[i], np.vstack([ta[i:i + 1], piece_vectors[i * per:(i + 1) * per]]))
               for i in chosen]
    out = {"papers": n, "views": views.num_views, "views_index": views.dense.params.to_dict(),
           timed_as: round(built, 1), "body_words": args.words, "vocabulary": args.vocabulary,
           **time_queries(queries, abstracts, ids, views, bm25, spec, args.top_k, args.warmup)}
    if args.views_index != "flat":
        exact = view_index("flat", dim, "cosine", owners, stacked)
        out["late_vs_exact"] = late_agreement(queries[args.warmup:][:20], exact, views, args.top_k)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, help="Ingested ACL collection (skip the acl part without it).")
    parser.add_argument("--cache", type=Path)
    parser.add_argument("--config", type=Path, default=Path("configs/p2p-acl.yaml"))
    parser.add_argument("--fusion", type=Path, help="fusion.json tuned on the ACL val split (default: the shipped "
                        "measured fusion of bm25, a2a, late, `search/measured_fusion.json`).")
    parser.add_argument("--split", default="test", choices=["val", "test"], help="ACL query papers (tune on val).")
    parser.add_argument("--late-tiers", type=int, nargs="+", default=[LATE_FIRST_TIER],
                        help="Approximate late: first paging tiers to compare with exact late (ACL part).")
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--views", type=int, default=4, help="Synthetic section pieces per paper (+ 1 TA).")
    parser.add_argument("--words", type=int, default=300, help="Synthetic body words per paper (BM25).")
    parser.add_argument("--vocabulary", type=int, default=50_000)
    parser.add_argument("--top-k", type=int, default=300)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--views-index", choices=["flat", "hnsw"], default="flat",
                        help="The view index searched by late interaction (hnsw: candidates, then exact scores).")
    parser.add_argument("--saved-views", type=Path, help="Synthetic part: read the approximate view index from "
                        "this folder if it is there, else build it and save it there (the build is timed only then).")
    parser.add_argument("--build-only", action="store_true", help="Build and save the synthetic views, time nothing.")
    parser.add_argument("--skip-synthetic", action="store_true")
    parser.add_argument("--update", action="store_true", help="Keep the parts (acl / synthetic) already in --out "
                        "that this run does not measure.")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "p2p_latency.json")
    args = parser.parse_args()
    spec = FusionSpec.load(args.fusion) if args.fusion else measured_default(["bm25", "a2a", "late"])
    result = json.loads(args.out.read_text()) if args.update and args.out.is_file() else {}
    result["top_k"] = args.top_k
    result.setdefault("machine", {}).update({"cpus": os.cpu_count(), "platform": platform.platform()})
    parts = [*([f"acl{'' if args.split == 'test' else '_' + args.split}"] if args.corpus is not None else []),
             *([] if args.skip_synthetic else [f"synthetic_{args.papers}"])]  # one part per collection size
    for part in parts:
        load = os.getloadavg()
        result[part] = acl(args, spec) if part.startswith("acl") else synthetic(args, spec)
        result[part].update(fusion=spec.label, load_average_start=load, load_average_end=os.getloadavg())
        print(part, json.dumps(result[part]), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()
