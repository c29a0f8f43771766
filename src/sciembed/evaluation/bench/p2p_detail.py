"""The paper-to-paper section of the suite report (kinds ``paper_to_paper`` and ``scifullbench``).

Per model and relevance split: every method's metrics (prism_llm as mean ± std over LLM samples), venue-group
averages (SciFullBench's), paired tests against A2A (else the first method) on NDCG@10 and MRR@50, where each
PRISM variant's queries came from, and ``ndcg_by_split.png``.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.evaluation.bench.detail import Detail, done_results, fmt, table
from sciembed.evaluation.bench.runner import SuiteRun
from sciembed.evaluation.contract import TaskResult
from sciembed.evaluation.p2p_config import P2P_LABELS, P2P_METRICS

SIGNIFICANCE_METRICS = ("ndcg@10", "mrr@50")
VENUE_METRICS = ("recall@50", "recall@100", "recall@300", "mrr@50", "ndcg@10")
BASE_METHOD = "a2a"  # the method every other is tested against; the first method when a2a was not run


def method_and_split(result: TaskResult) -> tuple[str, str]:
    """A task's (method, relevance split): from its details, else from its name ``<method>/<split>``."""
    if "method" in result.details:
        return result.details["method"], result.details["split"]
    method, _, split = result.task.partition("/")
    return method, split


def grid(results: list[TaskResult]) -> dict[str, dict[str, TaskResult]]:
    """split -> method -> result, in run order (the first method first); prism_llm's samples as one result."""
    out: dict[str, dict[str, TaskResult]] = {}
    samples: dict[tuple[str, str], list[TaskResult]] = {}
    for r in results:
        method, split = method_and_split(r)
        out.setdefault(split, {})[method] = r
        if "sample" in r.details:
            samples.setdefault((split, method), []).append(r)
    for (split, method), rs in samples.items():
        out[split][method] = mean_of_samples(rs)
    return out


def mean_of_samples(results: list[TaskResult]) -> TaskResult:
    """One method over its LLM samples (prism_llm): the per-query mean, its mean over queries, and each
    metric's std across the samples (``details["sample_std"]``)."""
    first = results[0]
    per_query = {m: {q: float(np.mean([r.per_query[m][q] for r in results])) for q in scores}
                 for m, scores in first.per_query.items()}
    metrics = {m: float(np.mean(list(scores.values()))) if scores else math.nan for m, scores in per_query.items()}
    std = {m: float(np.std([r.metrics[m] for r in results])) for m in first.metrics}
    details = {k: v for k, v in first.details.items() if k != "sample"} | {"samples": len(results), "sample_std": std}
    return replace(first, task=first.task.replace(f"#{first.details['sample']}", ""), metrics=metrics,
                   per_query=per_query, details=details)


def venue_average(result: TaskResult, venues: dict[str, str]) -> dict[str, float]:
    """Mean over venue groups of each group's mean (SciFullBench's venue-pair averages); {} without venues."""
    from sciembed.evaluation.metrics import by_domain

    per_query = {m: result.per_query[m] for m in VENUE_METRICS if m in result.per_query}
    groups = by_domain(per_query, venues) if venues and per_query else {}
    return {m: float(np.mean([g[m] for g in groups.values()])) for m in per_query} if groups else {}


def paired_tests(model: str, splits: dict[str, dict[str, TaskResult]], test: str, max_p: float
                 ) -> list[dict[str, Any]]:
    from sciembed.evaluation.significance import paired_test

    out = []
    for split, methods in splits.items():
        base = BASE_METHOD if BASE_METHOD in methods else next(iter(methods))
        for method, result in methods.items():
            if method == base:
                continue
            for metric in SIGNIFICANCE_METRICS:
                a, b = methods[base].per_query.get(metric), result.per_query.get(metric)
                if not a or not b:
                    continue
                r = paired_test(metric, a, b, test=test)
                out.append({"model": model, "split": split, "baseline": base, "method": method, "metric": metric,
                            "mean_a": r.mean_a, "mean_b": r.mean_b, "delta": r.delta, "p_value": r.p_value,
                            "n": r.n, "significant": r.p_value is not None and r.p_value <= max_p})
    return out


def _cell(result: TaskResult, metric: str) -> str:
    std = result.details.get("sample_std", {})
    return fmt(result.metrics.get(metric)) + (f" ± {std[metric]:.1f}" if metric in std else "")


def p2p_detail(run: SuiteRun, bname: str, bench: Any, folder: Path) -> Detail:
    from sciembed.evaluation.plots import plot_scenarios

    venues = dict(getattr(getattr(bench, "benchmark", None), "venues", None) or {})
    lines = ["## Methods × relevance splits", "",
             "Metrics ×100 over each method's top-k papers; the query paper is never retrieved for itself. "
             f"Paired {run.suite.significance_test} tests of every method against {BASE_METHOD} (the first "
             f"method when {BASE_METHOD} was not run), p ≤ {run.suite.max_p}.", ""]
    tests: list[dict[str, Any]] = []
    venue_data: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
    plotted = []
    models = done_results(run, bname)
    for model, results in models.items():
        splits = grid(results)
        heading = "###" if len(models) > 1 else "##"
        if len(models) > 1:
            lines += [f"## {model}", ""]
        for split, methods in splits.items():
            lines += [f"{heading} {split}", "",
                      *table(["Method", *[P2P_LABELS[m] for m in P2P_METRICS]],
                             [[method, *[_cell(r, m) for m in P2P_METRICS]] for method, r in methods.items()]), ""]
            averages = {method: venue_average(r, venues) for method, r in methods.items()}
            venue_data.setdefault(model, {})[split] = {m: a for m, a in averages.items() if a}
            if any(averages.values()):
                lines += [f"Venue-group average ({split}):", "",
                          *table(["Method", *[P2P_LABELS[m] for m in VENUE_METRICS]],
                                 [[method, *[fmt(a.get(m)) for m in VENUE_METRICS]]
                                  for method, a in averages.items() if a]), ""]
        model_tests = paired_tests(model, splits, run.suite.significance_test, run.suite.max_p)
        tests += model_tests
        if model_tests:
            rows = [[t["method"], t["split"], P2P_LABELS[t["metric"]], f"{t['delta']:+.1f}",
                     "–" if t["p_value"] is None or math.isnan(t["p_value"]) else f"{t['p_value']:.3g}", str(t["n"]),
                     "yes" if t["significant"] else "no"] for t in model_tests]
            lines += [f"{heading} Paired tests against {model_tests[0]['baseline']}", "",
                      *table(["Method", "Split", "Metric", "Δ ×100", "p", "Queries", "Significant"], rows), ""]
        lines += _query_sources([r for methods in splits.values() for r in methods.values()], heading)
        name = f"{model}/" if len(models) > 1 else ""
        for method in dict.fromkeys(m for ms in splits.values() for m in ms):
            plotted.append({"name": name + method,
                            "aggregates": {s: {"ndcg@10": ms[method].metrics.get("ndcg@10", np.nan) / 100}
                                           for s, ms in splits.items() if method in ms}})
    figures = []
    if plotted:
        folder.mkdir(parents=True, exist_ok=True)
        split_names = dict.fromkeys(s for m in plotted for s in m["aggregates"])
        figures.append(plot_scenarios(plotted, {s: s for s in split_names}, folder / "ndcg_by_split.png"))
    return Detail(lines=lines, data={"venue_average": venue_data, "paired_tests": tests}, figures=figures)


def _query_sources(results: list[TaskResult], heading: str) -> list[str]:
    """Where each PRISM variant's aspect queries came from (extractive sentences, an LLM, the cache)."""
    seen: dict[str, TaskResult] = {}
    for r in results:
        if r.details.get("query_sources"):
            seen.setdefault(method_and_split(r)[0], r)
    if not seen:
        return []
    lines = [f"{heading} Query sources", "",
             "PRISM's paper writes its aspect queries with an LLM. `extractive:*` queries are sentences copied "
             "from the paper's own sections by role: they are *not* the paper's LLM queries.", ""]
    for method, r in seen.items():
        text = "; ".join(f"{aspect}: " + ", ".join(f"{s} {n}" for s, n in sorted(counts.items()))
                         for aspect, counts in r.details["query_sources"].items())
        samples = r.details.get("samples")
        lines.append(f"- {method}" + (f" ({samples} samples, mean ± std)" if samples else "") + f": {text}")
    return [*lines, ""]
