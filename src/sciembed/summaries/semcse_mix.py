"""SemCSE's training papers: the 350,000-abstract mix of SciRepEval training sets, as an ingested corpus.

`build_semcse_mix` reads the ``train`` split of each SciRepEval config of `PAPER_MIX`
(`sciembed.papers.scirepeval`), draws its quota with a seed from the papers no earlier config gave, and writes
``papers.parquet`` + ``manifest.json`` (per config: available, drawn, short of the quota).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.papers.io import PAPERS_FILE, write_manifest, write_parquet
from sciembed.papers.model import Paper
from sciembed.papers.scirepeval import SciRepEvalDataError, read_release_papers

PAPER_MIX: dict[str, int] = {  # SciRepEval config -> abstracts drawn (SemCSE's 350k)
    "mesh_descriptors": 50_000, "fos": 50_000, "search": 50_000, "same_author": 50_000,
    "high_influence_cite": 50_000, "cite_prediction_new": 100_000}


def build_semcse_mix(root: str | Path, out: str | Path, mix: Mapping[str, int] = PAPER_MIX, seed: int = 0,
                     split: str = "train") -> dict[str, Any]:
    """Write the mix as an ingested corpus directory; returns its manifest."""
    if not mix or any(n <= 0 for n in mix.values()):
        raise SciRepEvalDataError(f"every quota must be positive: {dict(mix)}")
    taken: dict[str, Paper] = {}
    per_config: dict[str, dict[str, Any]] = {}
    for i, (config, quota) in enumerate(mix.items()):
        read = read_release_papers(root, config, split)
        fresh = [p for pid, p in read.papers.items() if pid not in taken]
        order = np.random.default_rng([seed, i]).permutation(len(fresh))[:quota]
        for j in sorted(order.tolist()):
            p = fresh[j]
            taken[p.paper_id] = Paper(id=p.paper_id, title=p.title, abstract=p.abstract,
                                      source=f"scirepeval:{config}:{split}")
        per_config[config] = {"quota": quota, "lines": read.read, "papers": len(read.papers),
                              "already_drawn_by_earlier_configs": len(read.papers) - len(fresh),
                              "drawn": len(order), "short": quota - len(order),
                              "lines_without_paper": dict(read.rejected), "paper_objects_skipped": dict(read.skipped)}
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_parquet(list(taken.values()), out / PAPERS_FILE)
    return write_manifest(out, "ingested", {
        "synthetic": False, "source": {"scirepeval_root": str(root), "split": split, "seed": seed, "mix": dict(mix)},
        "counts": {"read": len(taken), "accepted": len(taken), "rejected": 0},
        "semcse_mix": per_config})
