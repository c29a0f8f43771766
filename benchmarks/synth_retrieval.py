"""How hard is the synthetic corpus? BM25 retrieval of citation-linked papers vs chance.

Generates `--papers` synthetic papers, treats every citation (either direction,
both papers present with a non-empty text) as a relevant pair, and ranks all
other papers for each paper's title+abstract with bm25s (the query paper
excluded). The same is done with the body text (sections before the back
matter) to show that bodies carry their own signal, and with random scores
as the chance baseline. Metrics come from ranx. The goal: clearly above chance,
far from perfect.

    .venv/bin/python benchmarks/synth_retrieval.py [--papers 2000] [--seed 0]
        [--out benchmarks/results/synth_retrieval.json]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from sciembed.synth import SyntheticCorpus, SynthOptions, paper_id

METRICS = ["recall@10", "recall@100", "ndcg@10", "mrr@100"]
BACK_MATTER = ("Acknowledgements", "Acknowledgments", "References", "Appendix")


def body_text(paper) -> str:
    return "\n".join(s.text for s in paper.sections if not s.heading.startswith(BACK_MATTER))


def bm25_run(ids: list[str], texts: list[str], queries: list[str], k: int) -> dict[str, dict[str, float]]:
    """Top-k BM25 ranking of `texts` for each of `queries` (the query's own paper removed)."""
    import bm25s

    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    docs, scores = retriever.retrieve(
        bm25s.tokenize([texts[ids.index(q)] for q in queries], stopwords="en", show_progress=False),
        k=k + 1, show_progress=False, n_threads=1,
    )
    run = {}
    for q, row, sc in zip(queries, docs, scores, strict=True):
        run[q] = {ids[d]: float(s) for d, s in zip(row, sc, strict=True) if ids[d] != q}
    return run


def random_run(ids: list[str], queries: list[str], k: int, seed: int) -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(seed)
    run = {}
    for q in queries:
        picks = rng.choice(len(ids), size=k + 1, replace=False)
        run[q] = {ids[d]: float(k + 1 - r) for r, d in enumerate(picks) if ids[d] != q}
    return run


def evaluate(qrels: dict, run: dict) -> dict[str, float]:
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    scores = ranx_evaluate(Qrels(qrels), Run(run), METRICS)
    return {m: round(float(scores[m]), 4) for m in METRICS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/synth_retrieval.json"))
    args = parser.parse_args()

    start = time.perf_counter()
    corpus = SyntheticCorpus(args.papers, args.seed, SynthOptions())
    papers = list(corpus)
    graph = corpus.graph
    results: dict[str, object] = {"papers": args.papers, "seed": args.seed, "options": corpus.options.model_dump()}
    for view, text_of in (("title_abstract", lambda p: f"{p.title}\n{p.abstract}" if p.abstract else ""),
                          ("body", body_text)):
        texts = {p.id: text_of(p) for p in papers}
        ids = [pid for pid, text in texts.items() if text.strip()]
        present = set(ids)
        qrels: dict[str, dict[str, int]] = {}
        for a, b in zip(graph.citing.tolist(), graph.cited.tolist(), strict=True):
            pa, pb = paper_id(a), paper_id(b)
            if pa in present and pb in present:
                qrels.setdefault(pa, {})[pb] = 1
                qrels.setdefault(pb, {})[pa] = 1
        queries = sorted(qrels)
        run = bm25_run(ids, [texts[i] for i in ids], queries, args.k)
        results[view] = {
            "queries": len(queries),
            "candidates": len(ids),
            "mean_relevant_per_query": round(sum(len(v) for v in qrels.values()) / len(qrels), 2),
            "bm25": evaluate(qrels, run),
            "random": evaluate(qrels, random_run(ids, queries, args.k, args.seed)),
        }
    results["same_topic_share"] = round(graph.same_topic_share(), 4)
    results["seconds"] = round(time.perf_counter() - start, 1)
    results["cpu_count"] = os.cpu_count()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
