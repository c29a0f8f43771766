"""The one paper search on real papers: `sciembed index search` over a built full-text index against the rankings
paper-to-paper evaluation wrote for the same query papers, run by run.

    python benchmarks/one_search_acl.py --index ACL_INDEX --run-dir P2P_RUN [--out FILE]

`ACL_INDEX` is `sciembed index build` of the ingested ACL folder (its ``bm25``, ``ta`` and ``late`` parts);
`P2P_RUN` an `eval run --kind paper_to_paper` directory of the same ingest and encoder (run files ``runs/…`` and
qrels ``qrels/…``, 100 deep). Per run and relevance split: query papers, how many get the same top 10 (ids in
order) and the same top 100, the largest score difference, and NDCG@10 ×100 of each side with a paired t-test.
With ``--cache`` (the run's embedding cache): the cosine between each paper's title+abstract vector in the index
and the one the evaluation encoded for the same text — the two encodes batched the text with other texts.
With ``--batch-cost N``: N of the index's texts (title+abstract and pieces of its first papers) encoded by its
int8 encoder batched (32) and one text per call, side by side: seconds, and the cosine between the two.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from sciembed.evaluation.metrics import per_query_scores
from sciembed.evaluation.significance import paired_test
from sciembed.ioutil.portable import portable
from sciembed.search.batch import search_batch

RUNS = (("a2a", "ta", None), ("bm25", "bm25", None), ("late", "late", "late"))


def read_run(path: Path) -> dict[str, list[tuple[str, float]]]:
    out: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for line in path.read_text().splitlines():
        query, _, doc, _, score, _ = line.split()
        out[query].append((doc, float(score)))
    return dict(out)


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        query, _, doc, grade = line.split()
        out[query][doc] = int(grade)
    return dict(out)


def compare(index: Path, run_dir: Path, name: str, part: str, method: str | None, split: str) -> dict:
    evaluated = read_run(next((run_dir / "runs").glob(f"*/*/{name}-{split}.run")))
    qrels = read_qrels(next((run_dir / "qrels").glob(f"*/{name}-{split}.qrels")))
    queries = sorted(q for q in evaluated if q in qrels)
    qrels = {q: qrels[q] for q in queries}
    start = time.perf_counter()
    found = dict(search_batch([index / part], papers=queries, k=100, method=method)[0])
    seconds = time.perf_counter() - start
    ndcg = {side: {q: 100 * v for q, v in per_query_scores(qrels, rankings, ("ndcg@10",))["ndcg@10"].items()}
            for side, rankings in (("index_search", found), ("evaluation", evaluated))}
    test = paired_test("ndcg@10", ndcg["evaluation"], ndcg["index_search"])
    return {"queries": len(queries),
            "same_top10": sum([d for d, _ in found[q][:10]] == [d for d, _ in evaluated[q][:10]] for q in queries),
            "same_top100": sum([d for d, _ in found[q]] == [d for d, _ in evaluated[q]] for q in queries),
            "max_score_difference": max(abs(a - b) for q in queries for (_, a), (_, b) in zip(found[q], evaluated[q],
                                                                                             strict=False)),
            "ndcg@10_evaluation": test.mean_a, "ndcg@10_index_search": test.mean_b, "delta": test.delta,
            "p": test.p_value, "search_seconds": round(seconds, 1)}


def same_text_cosines(index: Path, cache: Path) -> dict:
    """Cosine of the index's TA vector and the evaluation's cached vector of the same TA text, over every paper."""
    from sciembed.corpus.layout import CorpusDir
    from sciembed.index.paper_index import open_paper_index
    from sciembed.models.cache import EmbeddingCache, text_key
    from sciembed.views import ta_text

    opened = open_paper_index(index / "ta")
    papers = CorpusDir(opened.manifest["corpus"]).papers()
    ids = [p for p in opened.titles if p in papers and papers[p].abstract.strip()]
    texts = {p: ta_text(papers[p]) for p in ids}
    spec = opened.manifest["encoder"]
    found = EmbeddingCache(cache).get(spec["fingerprint"], spec["dim"], [text_key(texts[p]) for p in ids])
    cos = []
    for p in ids:
        cached = found.get(text_key(texts[p]))
        if cached is not None:
            stored = opened.index.views_of(p)[0]
            cos.append(float(stored @ cached / np.linalg.norm(stored) / np.linalg.norm(cached)))
    values = np.asarray(cos)
    return {"papers": len(cos), "min": float(values.min()), "mean": float(values.mean()),
            "p01": float(np.percentile(values, 1)), "identical": int((values > 1 - 1e-6).sum())}


def batch_cost(index: Path, n: int) -> dict:
    """Seconds to encode `n` index texts batched and one by one with the index's own encoder; their cosines."""
    from sciembed.corpus.layout import CorpusDir
    from sciembed.index.indexed_views import index_views
    from sciembed.index.live_index import encoder_from_manifest
    from sciembed.index.paper_index import read_manifest

    manifest = read_manifest(index / "late")
    encoder = encoder_from_manifest(manifest)  # the build's encoder (the light query encoder encodes one batch)
    texts: list[str] = []
    for paper in CorpusDir(manifest["corpus"]).papers().values():
        views, _ = index_views(paper, manifest["view"], 0, piece_tokens=manifest.get("piece_tokens"))
        texts += [v.text for v in views]
        if len(texts) >= n:
            break
    texts = texts[:n]
    encoder.encode(texts[:8], show_progress=False)  # warm
    out: dict = {"texts": len(texts)}
    vectors = {}
    for batch in (32, 1):
        start = time.perf_counter()
        vectors[batch] = encoder.encode(texts, batch_size=batch, show_progress=False)
        out[f"seconds_batch_{batch}"] = round(time.perf_counter() - start, 2)
    a, b = vectors[32], vectors[1]
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    out.update({"one_by_one_over_batched": out["seconds_batch_1"] / out["seconds_batch_32"],
                "cosine_min": float(cos.min()), "cosine_mean": float(cos.mean())})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--run-dir", type=Path, required=True)
    parser.add_argument("--cache", type=Path, help="The evaluation's embedding cache (--cache-dir).")
    parser.add_argument("--batch-cost", type=int, default=0, help="Time N texts batched and one by one.")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "one_search_acl.json")
    args = parser.parse_args()
    out: dict = {"index": str(args.index), "run_dir": str(args.run_dir), "runs": {}}
    if args.cache is not None:
        out["ta_vector_cosine_index_vs_evaluation"] = same_text_cosines(args.index, args.cache)
        print(out["ta_vector_cosine_index_vs_evaluation"], flush=True)
    if args.batch_cost:
        out["int8_batch_cost"] = batch_cost(args.index, args.batch_cost)
        print(out["int8_batch_cost"], flush=True)
    for name, part, method in RUNS:
        for split in ("references", "citations"):
            out["runs"][f"{name}/{split}"] = row = compare(args.index, args.run_dir, name, part, method, split)
            print(name, split, row, flush=True)
    args.out.write_text(json.dumps(portable(out), indent=1) + "\n")


if __name__ == "__main__":
    main()
