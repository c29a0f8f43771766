"""Faster BM25 for paper queries: the fused search with bm25s's scoring, with `BM25Index.scores`, and pruned.

A paper query is a whole paper (hundreds of distinct words, each common one repeated tens of times).
The default full-text search (BM25 over full texts + a2a + late, `fuse_one` with the measured fusion,
top 300; as `benchmarks/p2p_latency.py`) is run with BM25 scored three ways, in one process:

- ``bm25s``: what `BM25Index.search` did before: bm25s's `retrieve`, which adds a word's postings once per
  occurrence in the query;
- ``whole``: `BM25Index.search` now, the same sums as one sparse product (each distinct word once);
- ``topN`` (`--grid`, `--terms`): `BM25Index(query_terms=N)`, the query's N best words by BM25 weight.

Parts: ``acl_exact`` (every test query paper of the ingested ACL collection: fused and BM25-alone NDCG@10
of ``bm25s`` against ``whole``, paired t-test, ranx); ``acl_pruning`` (with `--grid`: N chosen on val as
the smallest whose fused NDCG@10, averaged over References and Citations, is within `--tolerance` points
of whole queries — the largest when none is — then compared on test); ``acl_latency`` and
``synthetic_<papers>`` (per query paper, a2a and the fused runs alternate so load hits them alike, CPU time
per stage). ACL vectors are read from a full-text index `sciembed index build CORPUS --out INDEX` wrote
for that collection (its ``ta`` and ``late`` parts: no encoding). The synthetic collection is
`p2p_latency.py`'s; `--bm25-only` times its BM25 alone (its 500,000-view HNSW graph takes tens of
minutes to build on 2 cores; `--saved-views` reads one built there).

    nice .venv/bin/python benchmarks/p2p_pruning.py --corpus INGESTED_ACL --index FULLTEXT_INDEX --bm25-only
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from p2p_latency import summary, view_index
from sciembed.retrieval.ann import default_params
from sciembed.retrieval.bm25 import BM25Index
from sciembed.retrieval.dense import DenseIndex
from sciembed.retrieval.multivector import LATE_FIRST_TIER, MultiVectorIndex
from sciembed.search.learned_fusion import FusionSpec, fuse_one, measured_default

Ranking = list[tuple[str, float]]


def bm25s_search(bm25: BM25Index, text: str, k: int, exclude: str) -> Ranking:
    """`BM25Index.search` as it was: bm25s's `retrieve` of the tokenised query (k plus one, the query excluded)."""
    if bm25._retriever is None:
        bm25._build()
    ids = bm25._tokenizer.tokenize([text], update_vocab=False, return_as="ids", show_progress=False)
    rows, scores = bm25._retriever.retrieve(ids, k=min(k + 1, len(bm25)), show_progress=False)
    return [(bm25._ids[int(r)], float(s)) for r, s in zip(rows[0], scores[0], strict=True)
            if s > 0 and bm25._ids[int(r)] != exclude][:k]


def lexical(bm25: BM25Index, pid: str, text: str, mode: str, k: int) -> Ranking:
    """BM25 hits of one query paper scored as `mode` says (``bm25s``, ``whole`` or ``topN``)."""
    if mode == "bm25s":
        return bm25s_search(bm25, text, k, pid)
    bm25.query_terms = None if mode == "whole" else int(mode.removeprefix("top"))
    return bm25.search([text], k, [pid])[0]


class Searcher:
    """The three runs of the fused search for one query paper, each stage's CPU time kept."""

    def __init__(self, abstracts: DenseIndex, ids: list[str], views: MultiVectorIndex, bm25: BM25Index,
                 spec: FusionSpec, k: int) -> None:
        self.abstracts, self.ids, self.views, self.bm25, self.spec, self.k = abstracts, ids, views, bm25, spec, k

    def a2a(self, pid: str, ta: np.ndarray) -> list[tuple[str, float]]:
        scores, rows = self.abstracts.search_rows(ta[None], self.k + 1)
        return [(self.ids[r], float(s)) for s, r in zip(scores[0], rows[0], strict=True)
                if r >= 0 and self.ids[r] != pid][:self.k]

    def late(self, pid: str, own: np.ndarray) -> list[tuple[str, float]]:
        if not len(own):  # a paper the index does not hold
            return []
        return [(d, s) for d, s, _ in self.views.search_views(own, self.k, "late", exclude=[pid])]

    def fused(self, pid: str, text: str, ta: np.ndarray, own: np.ndarray, mode: str,
              cpu: dict[str, list[float]] | None = None) -> list[tuple[str, float]]:
        stages = {}
        c = time.process_time()
        rankings = {"a2a": self.a2a(pid, ta)}
        stages["a2a"], c = time.process_time() - c, time.process_time()
        mode, _, tier = mode.partition("_tier")  # "whole_tier512": whole queries, late's first tier 512
        rankings["bm25"] = lexical(self.bm25, pid, text, mode, self.k)
        stages["bm25"], c = time.process_time() - c, time.process_time()
        self.views.late_first_tier = int(tier) if tier else LATE_FIRST_TIER
        rankings["late"] = self.late(pid, own)
        stages["late"], c = time.process_time() - c, time.process_time()
        fused = fuse_one(self.spec, rankings, depth=self.k)
        stages["fusion"] = time.process_time() - c
        if cpu is not None:
            for name, seconds in stages.items():
                cpu.setdefault(name, []).append(1000 * seconds)
        return fused


def time_queries(search: Searcher, queries: list, modes: list[str], warmup: int) -> dict:
    """queries: (paper id, full text, TA vector, view vectors); a2a and the fused run of each mode alternate."""
    runs = ["a2a", *(f"fused_{m}" for m in modes)]
    wall: dict[str, list[float]] = {r: [] for r in runs}
    cpu: dict[str, list[float]] = {r: [] for r in runs}
    stages: dict[str, dict[str, list[float]]] = {r: {} for r in runs[1:]}
    for i, (pid, text, ta, own) in enumerate(queries):
        for run in runs:
            t, c = time.perf_counter(), time.process_time()
            if run == "a2a":
                search.a2a(pid, ta)
            else:
                search.fused(pid, text, ta, own, run.removeprefix("fused_"), stages[run] if i >= warmup else None)
            if i >= warmup:
                wall[run].append(1000 * (time.perf_counter() - t))
                cpu[run].append(1000 * (time.process_time() - c))
    return {"wall": {r: summary(v) for r, v in wall.items()}, "cpu": {r: summary(v) for r, v in cpu.items()},
            "cpu_p50_ms_per_stage": {r: {s: round(float(np.median(v)), 2) for s, v in per.items()}
                                     for r, per in stages.items()}}


def ndcg(qrels: dict, runs: dict[str, dict[str, list[tuple[str, float]]]], base: str) -> dict:
    """NDCG@10 (percent) of each run and the paired t-test p of each against `base` (ranx)."""
    from ranx import Qrels, Run, compare

    report = compare(Qrels(qrels), [Run({q: {d: float(len(r) - i) for i, (d, _) in enumerate(r)}
                                             for q, r in run.items()}, name=n) for n, run in runs.items()],
                     metrics=["ndcg@10"], stat_test="student", max_p=0.05).to_dict()
    def p(n: str) -> float | None:  # None: every query scores the same in both runs (no t statistic)
        value = float(report[n]["comparisons"][base]["ndcg@10"])
        return None if np.isnan(value) else value

    return {n: {"ndcg_at_10": round(100 * report[n]["scores"]["ndcg@10"], 2), **({} if n == base else {"p": p(n)})}
            for n in runs}


def quality(bench, search: Searcher, vectors, texts: dict, modes: list[str]) -> dict:
    """Per gold kind: fused and BM25-alone NDCG@10 of every query of `bench` for each BM25 mode (p against the
    first), and the share of queries whose BM25 top k is the first mode's, in the same order."""
    fused: dict[str, dict] = {f"fused_{m}": {} for m in modes}
    alone: dict[str, dict] = {f"bm25_{m}": {} for m in modes}
    for q in sorted({q for rel in bench.qrels.values() for q in rel}):
        ta, own = vectors(q)
        dense, late = search.a2a(q, ta), search.late(q, own)
        for m in modes:
            alone[f"bm25_{m}"][q] = bm25 = lexical(search.bm25, q, texts[q], m, search.k)
            fused[f"fused_{m}"][q] = fuse_one(search.spec, {"a2a": dense, "bm25": bm25, "late": late}, depth=search.k)
    first = alone[f"bm25_{modes[0]}"]
    same = {m: float(np.mean([[d for d, _ in alone[f"bm25_{m}"][q]] == [d for d, _ in first[q]] for q in first]))
            for m in modes[1:]}
    return {kind: {"queries": len(qrels),
                   **ndcg(qrels, {n: {q: r[q] for q in qrels} for n, r in fused.items()}, f"fused_{modes[0]}"),
                   **ndcg(qrels, {n: {q: r[q] for q in qrels} for n, r in alone.items()}, f"bm25_{modes[0]}")}
            for kind, qrels in bench.qrels.items()} | {"bm25_same_top_k_share": same}


def choose(val: dict, grid: list[int], tolerance: float) -> tuple[int, bool]:
    """The smallest N whose val fused NDCG@10 (mean over gold kinds) is within `tolerance` of whole queries, and
    True; the largest N and False when none is."""
    def mean(name: str) -> float:
        return float(np.mean([per[name]["ndcg_at_10"] for kind, per in val.items() if kind != "bm25_same_top_k_share"]))
    near = [n for n in sorted(grid) if mean(f"fused_top{n}") >= mean("fused_whole") - tolerance]
    return (near[0], True) if near else (max(grid), False)


def acl(args, spec: FusionSpec) -> dict:
    from sciembed.evaluation.paper_to_paper import build_collection_paper_to_paper
    from sciembed.index.fulltext_index import fulltext_parts
    from sciembed.index.paper_index import open_paper_index
    from sciembed.views.simple import full_text

    parts = fulltext_parts(args.index)
    ta_part, late_part = open_paper_index(parts["a2a"]), open_paper_index(parts["late"])
    benches = {s: build_collection_paper_to_paper(args.corpus, split=s) for s in ("val", "test")}
    papers = benches["test"].papers
    ids = [i for i in sorted(papers) if i in ta_part.titles]
    abstracts = DenseIndex(ta_part.index.dim, ta_part.index.metric)
    abstracts.add(ids, np.vstack([ta_part.index.views_of(i)[:1] for i in ids]))
    texts = {i: full_text(p) for i, p in papers.items()}
    bm25 = BM25Index()
    bm25.add(sorted(papers), [texts[i] for i in sorted(papers)])
    search = Searcher(abstracts, ids, late_part.index, bm25, spec, args.top_k)

    def vectors(q: str) -> tuple[np.ndarray, np.ndarray]:
        own = late_part.index.views_of(q) if q in late_part.titles else np.zeros((0, abstracts.dim), np.float32)
        ta = ta_part.index.views_of(q)[0] if q in ta_part.titles else np.zeros(abstracts.dim, np.float32)
        return ta, own

    out = {"papers": len(papers), "papers_in_index": len(ids), "views": late_part.index.num_views,
           "encoder": ta_part.manifest["encoder"]["name"]}
    started = time.perf_counter()
    exact = {**out, **quality(benches["test"], search, vectors, texts, ["bm25s", "whole"]),
             "quality_s": round(time.perf_counter() - started, 1)}
    pruning = None
    if args.grid:
        started = time.perf_counter()
        val = quality(benches["val"], search, vectors, texts, ["whole", *(f"top{n}" for n in args.grid)])
        chosen, near = choose(val, args.grid, args.tolerance)
        pruning = {**out, "grid": args.grid, "tolerance": args.tolerance, "chosen_terms": chosen,
                   "within_tolerance": near, "val": val,
                   "test": quality(benches["test"], search, vectors, texts, ["whole", f"top{chosen}"]),
                   "quality_s": round(time.perf_counter() - started, 1)}
    rng = np.random.default_rng(args.seed)
    chosen_q = rng.choice(sorted(benches["test"].queries), size=args.queries + args.warmup, replace=False)
    queries = [(q, texts[q], *vectors(q)) for q in chosen_q if q in ta_part.titles]
    latency = {**out, **time_queries(search, queries, modes(args), args.warmup)}
    return exact, pruning, latency


def modes(args) -> list[str]:
    return ["bm25s", "whole", *([f"top{args.terms}"] if args.terms else []),
            *(f"whole_tier{t}" for t in args.late_tiers)]


def bm25_only(bm25: BM25Index, ids: list[str], texts: list[str], chosen: np.ndarray, modes: list[str], k: int,
              warmup: int) -> dict:
    """BM25 alone per query paper, the modes alternating, and the share of queries whose top k (ids, in order)
    each mode finds as the first does."""
    wall: dict[str, list[float]] = {m: [] for m in modes}
    cpu: dict[str, list[float]] = {m: [] for m in modes}
    same: dict[str, list[bool]] = {m: [] for m in modes[1:]}
    for i, row in enumerate(chosen):
        found = {}
        for m in modes:
            t, c = time.perf_counter(), time.process_time()
            found[m] = [d for d, _ in lexical(bm25, ids[row], texts[row], m, k)]
            if i >= warmup:
                wall[m].append(1000 * (time.perf_counter() - t))
                cpu[m].append(1000 * (time.process_time() - c))
        for m in modes[1:]:
            same[m].append(found[m] == found[modes[0]])
    return {"wall": {m: summary(v) for m, v in wall.items()}, "cpu": {m: summary(v) for m, v in cpu.items()},
            "same_top_k_share": {m: float(np.mean(v)) for m, v in same.items()}}


def synthetic(args, spec: FusionSpec) -> dict:
    rng = np.random.default_rng(args.seed)
    n, per, dim = args.papers, args.views, 384
    ids = [f"s{i:06d}" for i in range(n)]
    if args.bm25_only:  # bodies of the same seeded Zipf law; no vectors drawn
        return {"papers": n, "body_words": args.words, "vocabulary": args.vocabulary,
                "bm25_only": bm25_only(*synthetic_bm25(args, rng, ids), [m for m in modes(args) if "_tier" not in m],
                                       args.top_k, args.warmup)}

    def unit(rows: int) -> np.ndarray:
        x = rng.standard_normal((rows, dim), dtype=np.float32)
        return x / np.linalg.norm(x, axis=1, keepdims=True)

    ta = unit(n)
    abstracts = DenseIndex(dim, "cosine", params=None if args.abstracts_index == "flat"
                           else default_params(args.abstracts_index, n, dim))
    abstracts.add(ids, ta)
    piece_vectors = unit(n * per)
    owners = [i for i in ids for _ in range(per + 1)]
    stacked = np.concatenate([ta[:, None, :], piece_vectors.reshape(n, per, dim)], axis=1).reshape(-1, dim)
    views = view_index(args.views_index, dim, "cosine", owners, stacked, args.saved_views)
    bm25, ids, texts, chosen = synthetic_bm25(args, rng, ids)
    queries = [(ids[i], texts[i], ta[i], np.vstack([ta[i:i + 1], piece_vectors[i * per:(i + 1) * per]]))
               for i in chosen]
    return {"papers": n, "views": views.num_views, "views_index": views.dense.params.to_dict(),
            "abstracts_index": abstracts.params.to_dict(),
            "body_words": args.words, "vocabulary": args.vocabulary,
            **time_queries(Searcher(abstracts, ids, views, bm25, spec, args.top_k), queries, modes(args), args.warmup)}


def synthetic_bm25(args, rng: np.random.Generator, ids: list[str]
                   ) -> tuple[BM25Index, list[str], list[str], np.ndarray]:
    """Seeded Zipf bodies of `--words` words in a BM25 index, and the rows of the query papers."""
    vocabulary = np.asarray([f"w{i}" for i in range(args.vocabulary)])
    weights = 1.0 / np.arange(1, args.vocabulary + 1)
    words = rng.choice(len(vocabulary), size=(len(ids), args.words), p=weights / weights.sum())
    texts = [" ".join(vocabulary[row]) for row in words]
    bm25 = BM25Index()
    bm25.add(ids, texts)
    return bm25, ids, texts, rng.choice(len(ids), size=args.queries + args.warmup, replace=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, help="Ingested ACL collection (skip the ACL parts without it).")
    parser.add_argument("--index", type=Path, help="Full-text index of --corpus (`sciembed index build`).")
    parser.add_argument("--grid", type=int, nargs="*", default=[], help="Numbers of query words to try on "
                        "val (docs/p2p.md: 25 50 100 200 400).")
    parser.add_argument("--tolerance", type=float, default=0.2, help="NDCG@10 points N may lose on val.")
    parser.add_argument("--terms", type=int, help="Also time BM25 pruned to N query words.")
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--views", type=int, default=4)
    parser.add_argument("--words", type=int, default=300)
    parser.add_argument("--vocabulary", type=int, default=50_000)
    parser.add_argument("--views-index", choices=["flat", "hnsw"], default="hnsw")
    parser.add_argument("--saved-views", type=Path)
    parser.add_argument("--abstracts-index", choices=["flat", "hnsw"], default="flat",
                        help="Synthetic part: the title+abstract (a2a) index; hnsw is what `index build --index "
                             "HNSW32` writes for it.")
    parser.add_argument("--skip-synthetic", action="store_true")
    parser.add_argument("--bm25-only", action="store_true", help="Synthetic part: time BM25 alone (no vectors, no "
                        "view index: the HNSW graph of 500,000 views takes tens of minutes to build on 2 cores).")
    parser.add_argument("--late-tiers", type=int, nargs="*", default=[],
                        help="Also time the fused search with approximate late's first tier at these sizes (the "
                             "default tier is run `whole`).")
    parser.add_argument("--top-k", type=int, default=300)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--update", action="store_true", help="Keep the parts already in --out that this run does "
                        "not measure.")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "p2p_latency_pruned.json")
    args = parser.parse_args()
    spec = measured_default(["bm25", "a2a", "late"])
    result: dict = json.loads(args.out.read_text()) if args.update and args.out.is_file() else {}
    result.update(top_k=args.top_k, fusion=spec.label, machine={"cpus": os.cpu_count(),
                                                                "platform": platform.platform()})
    if args.corpus is not None:
        load = os.getloadavg()
        exact, pruning, latency = acl(args, spec)
        for name, part in (("acl_exact", exact), ("acl_pruning", pruning), ("acl_latency", latency)):
            if part is not None:
                result[name] = {**part, "load_average": [load, os.getloadavg()]}
                print(name, json.dumps(part), flush=True)
    if not args.skip_synthetic:
        load = os.getloadavg()
        part = result[f"synthetic_{args.papers}"] = synthetic(args, spec)
        part["load_average"] = [load, os.getloadavg()]
        print("synthetic", json.dumps(part), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()
