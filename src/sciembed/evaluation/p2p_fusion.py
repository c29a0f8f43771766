"""Method ``fused`` tuned on validation query papers: a `FusionSpec` from ranx over their rankings.

`P2PConfig.fuse_runs` is fused and tuned on the val queries (every method, ``fused`` included, scored on val);
`benchmarks.paper_to_paper` reports every method on test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from sciembed.evaluation.metrics import per_query_scores
from sciembed.evaluation.p2p_rankers import Ranking
from sciembed.evaluation.paper_to_paper import PaperToPaperBenchmark
from sciembed.search.learned_fusion import FusionSpec, fuse_all, tune_fusion


def tune_p2p_fusion(rankings: Mapping[str, Mapping[str, Ranking]], val: PaperToPaperBenchmark,
                    fuse_runs: Sequence[str], *, depth: int, metric: str = "ndcg@10") -> FusionSpec:
    """A `FusionSpec` of `fuse_runs` tuned with ranx on `val`'s query papers.

    The relevance splits (references, citations) are tuned on together: each (split, query) is one query.
    ``tuned["val_methods"]``: `metric` on val of every method in `rankings` (in its order) and of ``fused``;
    ``tuned["val_best_method"]``: the best of them, the method validation picks.
    """
    missing = [m for m in fuse_runs if m not in rankings]
    if missing:
        raise ValueError(f"tuning the fusion needs the runs {missing}; ranked {sorted(rankings)}")
    qrels = {f"{split}\t{q}": rel for split, per in val.qrels.items() for q, rel in per.items()}

    def pooled(by_query: Mapping[str, Ranking]) -> dict[str, Ranking]:
        return {key: list(by_query.get(key.split("\t", 1)[1], [])) for key in qrels}

    spec = tune_fusion(qrels, {m: pooled(rankings[m]) for m in fuse_runs}, metric=metric, split="val")
    spec.tuned["val_queries"] = len(val.queries)
    scored = {**rankings, "fused": fuse_all(spec, {m: rankings[m] for m in spec.runs}, depth=depth)}
    val_methods = {}
    for method, by_query in scored.items():
        values = list(per_query_scores(qrels, pooled(by_query), (metric,))[metric].values())
        val_methods[method] = float(np.mean(values)) if values else float("nan")
    spec.tuned["val_methods"] = val_methods
    spec.tuned["val_best_method"] = max(val_methods, key=val_methods.get)
    return spec
