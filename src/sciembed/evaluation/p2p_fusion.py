"""Method ``fused`` tuned on validation query papers: a `FusionSpec` from ranx, every method scored on test.

One pass over the collection ranks every method for val + test query papers; the fusion of
`P2PConfig.fuse_runs` is tuned on val, and every method, ``fused`` included, is reported on test.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from sciembed.evaluation.p2p_config import P2PConfig
from sciembed.evaluation.p2p_evaluate import MethodRun, evaluate_paper_to_paper, score_method
from sciembed.evaluation.paper_to_paper import PaperToPaperBenchmark
from sciembed.retrieval.learned_fusion import FusionSpec, fuse_all, tune_fusion


def tune_p2p_fusion(runs: Sequence[MethodRun], fuse_runs: Sequence[str], metric: str = "ndcg@10",
                    split: str = "val") -> FusionSpec:
    """A `FusionSpec` of `fuse_runs` tuned with ranx on the runs of a validation benchmark.

    The benchmark's relevance splits (references, citations) are tuned on together: each (split,
    query) is one query of the tuning set.
    """
    by_name = {r.model: r for r in runs}
    missing = [m for m in fuse_runs if m not in by_name]
    if missing:
        raise ValueError(f"tuning the fusion needs the runs {missing}; evaluated {sorted(by_name)}")
    first = by_name[fuse_runs[0]]
    qrels = {f"{key[0]}\t{q}": rel for key, per in first.qrels.items() for q, rel in per.items()}
    rankings = {m: {f"{key[0]}\t{q}": ranking for key, per in by_name[m].rankings.items()
                    for q, ranking in per.items()} for m in fuse_runs}
    return tune_fusion(qrels, rankings, metric=metric, split=split)


def pooled_score(run: MethodRun, metric: str = "ndcg@10") -> float:
    """`metric` averaged over every (relevance split, query) of a run: the pooling the fusion is tuned on."""
    values = [score for per in run.per_query.values() for score in per[metric].values()]
    return float(np.mean(values)) if values else float("nan")


def evaluate_with_tuned_fusion(
    bench: PaperToPaperBenchmark, val_ids: Sequence[str], test_ids: Sequence[str], encoder: Any,
    config: P2PConfig, *, show_progress: bool = True, metric: str = "ndcg@10",
) -> tuple[list[MethodRun], FusionSpec, PaperToPaperBenchmark]:
    """Every method ranked once over val + test query papers; the fusion of `config.fuse_runs` tuned on
    the val queries (ranx); each method, ``fused`` included, scored on the test queries only.

    One pass over the collection serves both splits (pieces, indexes, BM25 are built once).
    Every ranked method, ``fused`` included, is also scored on val (`pooled_score`): the fusion's
    ``tuned["val_methods"]`` and ``tuned["val_best_method"]`` say which method validation picks.
    Returns the test runs (a2a first), the fusion and the test benchmark.
    """
    if "prism_llm" in config.methods:
        raise ValueError("prism_llm averages LLM samples per run: evaluate it without fusion tuning")
    ranked = list(dict.fromkeys([*(m for m in config.methods if m != "fused"), *config.fuse_runs]))
    runs = evaluate_paper_to_paper(bench, encoder, config.model_copy(update={"methods": ranked}),
                                   show_progress=show_progress)
    rankings = {r.model: {q: ranking for per in r.rankings.values() for q, ranking in per.items()} for r in runs}
    val = bench.subset(val_ids, bench.name.replace(":all", ":val"))
    test = bench.subset(test_ids, bench.name.replace(":all", ":test"))

    def rescore(run: MethodRun, target: PaperToPaperBenchmark, method: str | None = None,
                ranking: dict[str, list[tuple[str, float]]] | None = None) -> MethodRun:
        out = score_method(method or run.model, ranking or rankings[run.model], target, encoder, config, run.timings)
        out.encoding = dict(run.encoding)
        return out

    by_name = {r.model: r for r in runs}
    spec = tune_p2p_fusion([rescore(by_name[m], val) for m in config.fuse_runs], config.fuse_runs, metric)
    spec.tuned["val_queries"] = len(val.queries)
    spec.model = getattr(encoder, "fingerprint", None)
    val_runs = [rescore(run, val) for run in runs]
    val_runs.append(rescore(by_name[spec.runs[0]], val, "fused",
                            fuse_all(spec, {m: rankings[m] for m in spec.runs}, depth=config.top_k)))
    spec.tuned["val_methods"] = {run.model: pooled_score(run, metric) for run in val_runs}
    spec.tuned["val_best_method"] = max(spec.tuned["val_methods"], key=spec.tuned["val_methods"].get)
    reported = [rescore(by_name[m], test) for m in config.methods if m in by_name]
    if "fused" in config.methods:
        fused = fuse_all(spec, {m: rankings[m] for m in spec.runs}, depth=config.top_k)
        reported.append(rescore(by_name[spec.runs[0]], test, "fused", fused))
        reported[-1].config["fusion"] = spec.to_dict()
    reported.sort(key=lambda r: 0 if r.model == "a2a" else 1)
    return reported, spec, test
