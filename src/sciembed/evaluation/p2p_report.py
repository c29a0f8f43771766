"""The paper-to-paper report: results.json, report.md, per-split bars, TREC runs and qrels.

Same files as `sciembed eval` writes for citation benchmarks (see `report.py`),
with the paper-to-paper metrics: methods × splits for Recall@50/100/200/300,
MRR@50, NDCG@10/100 and MAP, venue-pair averages, the query source of every
PRISM variant (extractive / llm / cache), mean ± std over repeated LLM samples,
and paired t-tests of every method against A2A (NDCG@10 and MRR@50).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.evaluation.p2p_run import P2P_LABELS, P2P_METRICS
from sciembed.evaluation.paper_to_paper import PaperToPaperBenchmark
from sciembed.evaluation.plots import plot_scenarios
from sciembed.evaluation.report import _clean, _table, _unique_names, _write_rankings, fmt, model_record, versions
from sciembed.evaluation.run import ModelRun
from sciembed.evaluation.significance import paired_test

FORMAT = "sciembed-p2p/1"
SIGNIFICANCE_METRICS = ("ndcg@10", "mrr@50")
MAX_P = 0.05
TABLE_METRICS = ("recall@50", "recall@100", "recall@300", "mrr@50", "ndcg@10")


def p2p_results(runs: list[ModelRun], bench: PaperToPaperBenchmark, extra: dict[str, Any] | None = None) -> dict:
    models = [model_record(run, name) for run, name in zip(runs, _unique_names(runs), strict=True)]
    splits = bench.splits
    venue_avg = {m["name"]: {s: _venue_average(m, s) for s in splits} for m in models}
    significance = []
    base = next((m for m in models if m["model"] == "a2a"), models[0])
    for other in models:
        if other is base:
            continue
        for split in splits:
            for metric in SIGNIFICANCE_METRICS:
                a = base["per_query"].get(split, {}).get(metric, {})
                b = other["per_query"].get(split, {}).get(metric, {})
                r = paired_test(metric, a, b)
                significance.append({"baseline": base["name"], "model": other["name"], "split": split,
                                     "metric": metric, "mean_a": r.mean_a, "mean_b": r.mean_b, "delta": r.delta,
                                     "p_value": r.p_value, "n": r.n})
    return _clean({
        "format": FORMAT,
        "benchmark": bench.describe(),
        "metrics": list(P2P_METRICS),
        "k": runs[0].k,
        "versions": versions(),
        "scenarios": {s: s for s in splits},
        "models": models,
        "venue_average": venue_avg,
        "significance": {"test": "student", "max_p": MAX_P, "results": significance},
        **(extra or {}),
    })


def _venue_average(model: dict[str, Any], split: str) -> dict[str, float]:
    """Mean over venue groups of each group's mean (SciFullBench's venue-pair averages)."""
    groups = model["per_domain"].get(split, {})
    if not groups:
        return {}
    return {m: float(np.mean([g[m] for g in groups.values()])) for m in P2P_METRICS}


def write_p2p_report(runs: list[ModelRun], bench: PaperToPaperBenchmark, out_dir: str | Path, *,
                     extra: dict[str, Any] | None = None, rankings: bool = True) -> Path:
    if not runs:
        raise ValueError("write_p2p_report needs at least one run")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results = p2p_results(runs, bench, extra)
    (out / "results.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    names = [m["name"] for m in results["models"]]
    (out / "timings.json").write_text(json.dumps({n: r.timings for n, r in zip(names, runs, strict=True)},
                                                 indent=1) + "\n")
    if rankings:
        _write_rankings(runs, names, out)
    figure = plot_scenarios(results["models"], results["scenarios"], out / "ndcg_by_split.png")
    report = out / "report.md"
    report.write_text(render_p2p_markdown(results, [figure.name]))
    return report


def method_rows(results: dict[str, Any], split: str, metrics=TABLE_METRICS) -> list[list[str]]:
    rows = []
    for m in results["models"]:
        agg = m["aggregates"].get(split, {})
        std = (m["config"].get("sample_std") or {}).get(split, {})
        cells = [fmt(agg.get(x)) + (f" ± {100 * std[x]:.1f}" if x in std else "") for x in metrics]
        rows.append([m["name"], *cells])
    return rows


def render_p2p_markdown(results: dict[str, Any], figures: list[str]) -> str:
    bench = results["benchmark"]
    lines = [f"# Paper-to-paper evaluation: {bench['name']}", ""]
    lines += [f"- {k.replace('_', ' ')}: {v}" for k, v in bench.items() if k not in ("issues", "name", "venues")]
    lines += ["", "Query papers are never retrieved for themselves (by id and by normalised title). "
              f"Each method ranks the top {results['k']} candidates. Metrics ×100 (ranx).", ""]
    for split in results["scenarios"]:
        lines += [f"## {split}", "", *_table(["Method", *[P2P_LABELS[x] for x in P2P_METRICS]],
                                             method_rows(results, split, P2P_METRICS)), ""]
        venue_rows = [[name, *[fmt(avg.get(split, {}).get(x)) for x in TABLE_METRICS]]
                      for name, avg in results["venue_average"].items() if avg.get(split)]
        if venue_rows:
            lines += [f"Venue-group average ({split}):", "",
                      *_table(["Method", *[P2P_LABELS[x] for x in TABLE_METRICS]], venue_rows), ""]
    sig = results["significance"]["results"]
    if sig:
        rows = [[r["model"], r["split"], P2P_LABELS[r["metric"]], f"{100 * r['delta']:+.1f}",
                 f"{r['p_value']:.3g}" if r["p_value"] is not None else "–", str(r["n"]),
                 "yes" if r["p_value"] is not None and r["p_value"] <= MAX_P else "no"] for r in sig]
        lines += [f"## Paired t-test against {sig[0]['baseline']} (p ≤ {MAX_P})", "",
                  *_table(["Method", "Split", "Metric", "Δ ×100", "p", "Queries", "Significant"], rows), ""]
    lines += ["## Query sources", "",
              "PRISM's paper writes its aspect queries with an LLM. `extractive:*` queries are sentences copied "
              "from the paper's own sections by role: they are *not* the paper's LLM queries.", ""]
    for m in results["models"]:
        sources = m["config"].get("query_sources") or {}
        if sources:
            text = "; ".join(f"{aspect}: " + ", ".join(f"{s} {n}" for s, n in sorted(counts.items()))
                             for aspect, counts in sources.items())
            samples = m["config"].get("samples")
            lines.append(f"- {m['name']}" + (f" ({samples} samples, mean ± std)" if samples else "") + f": {text}")
    lines += ["", "## Input problems", ""]
    lines += [f"- {i['message']}" for i in bench.get("issues", [])] or ["- none"]
    lines += ["", "## Figures", "", *[f"![{f}]({f})" for f in figures], ""]
    return "\n".join(lines) + "\n"
