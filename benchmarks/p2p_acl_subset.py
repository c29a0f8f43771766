"""A seeded sub-collection of an ingested collection for a paper-to-paper run a loaded 2-core box can finish.

Seeds up to `--seeds` papers that cite or are cited inside the collection, keeps them with every paper they
cite or that cites them (so their gold stays in the collection), and fills up with seeded random
papers to `--papers`. Writes ``papers.parquet`` to `--out`: `sciembed eval run --kind paper_to_paper OUT`
then resolves citations inside the sub-collection (candidates = all its papers but the query).
Scores on a sub-collection are higher than over the whole collection (fewer distractors); paired
comparisons between methods on it are what it is for.

    nice .venv/bin/python benchmarks/p2p_acl_subset.py --corpus INGESTED_ACL --out SUBSET [--papers 600]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from sciembed.corpus.directed import directed_citations
from sciembed.corpus.layout import CorpusDir
from sciembed.papers.io import write_parquet


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--papers", type=int, default=600)
    parser.add_argument("--seeds", type=int, default=120)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    cdir = CorpusDir(args.corpus)
    edges, _ = directed_citations(cdir.papers_path)
    neighbours: dict[str, set[str]] = {}
    for a, b in edges:
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    rng = np.random.default_rng(args.seed)
    linked = sorted(neighbours)
    keep: set[str] = set()
    seeds = 0
    for i in rng.permutation(len(linked)):
        group = {linked[i], *neighbours[linked[i]]}
        if len(keep | group) <= args.papers:
            keep |= group
            seeds += 1
        if seeds >= args.seeds or len(keep) >= args.papers:
            break
    papers = cdir.papers()
    rest = sorted(set(papers) - keep)
    for i in rng.permutation(len(rest))[: max(0, args.papers - len(keep))]:
        keep.add(rest[i])
    args.out.mkdir(parents=True, exist_ok=True)
    write_parquet([papers[p] for p in sorted(keep)], args.out / "papers.parquet")
    print(f"{len(keep)} papers -> {args.out / 'papers.parquet'}")


if __name__ == "__main__":
    main()
