"""Write a semantic-benchmark evaluation: results.json, report.md and a mean-rank bar chart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sciembed.evaluation.report import versions
from sciembed.evaluation.semantic import (
    CLUSTERING,
    DIRECTIONS,
    GENERALISATION,
    TASKS,
    SemanticBenchmark,
    SemanticRun,
    overall_scores,
)

FORMAT = "sciembed-semantic/1"


def semantic_results(runs: list[SemanticRun], bench: SemanticBenchmark) -> dict[str, Any]:
    scores = overall_scores(runs)
    return {
        "format": FORMAT,
        "benchmark": {"name": bench.name, "query_source": bench.query_source, "config": bench.config,
                      "counts": bench.counts, "issues": bench.issues.to_list()},
        "models": [{"name": r.model, "metric": r.metric, "pooling": r.pooling or "model's own", "results": r.results,
                    "anisotropy": r.anisotropy, "scores": scores[r.model], "per_query_ranks": r.per_query_ranks}
                   for r in runs],
        "versions": versions(),
    }


def _fmt(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def render_semantic_markdown(results: dict[str, Any]) -> str:
    bench = results["benchmark"]
    models = results["models"]
    tasks = [t for t in TASKS if any(t in m["results"] for m in models)]
    has_clustering = any(CLUSTERING in m["results"] for m in models)
    header = ["model", "distance"]
    for t in tasks:
        header += [f"{t} mean rank ↓", f"{t} median ↓", f"{t} MRR ↑"]
    if has_clustering:
        header.append("clustering kNN share ↑")
    header.append("overall score ↑")
    lines = [f"# Semantic benchmark: {bench['name']}", "",
             f"{bench['counts']['sampled']} papers sampled (seed {bench['config']['seed']}) of "
             f"{bench['counts']['usable']} usable; {bench['counts']['excluded_used_in_training']} papers used in "
             f"training left out. Queries of query2paper: **{bench['query_source']}**.", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for m in models:
        row = [m["name"], m["metric"]]
        for t in tasks:
            r = m["results"].get(t, {})
            row += [_fmt(r.get("mean_rank")), _fmt(r.get("median_rank"), 1), _fmt(r.get("mrr"), 3)]
        if has_clustering:
            row.append(_fmt(m["results"].get(CLUSTERING, {}).get("knn_same_label"), 3))
        row.append(_fmt(m["scores"].get("overall"), 3))
        lines.append("| " + " | ".join(row) + " |")
    lines += _generalisation_and_anisotropy(models)
    lines += ["", "## Tasks", ""]
    for t in [*tasks, *([CLUSTERING] if has_clustering else [])]:
        pools = bench["counts"]["pools"].get(t) if t != CLUSTERING else bench["counts"].get("clustering")
        lines.append(f"- **{t}**: {DIRECTIONS[t]} (queries: {bench['counts']['queries'].get(t, '–')}, pool: {pools})")
    lines += ["", "Ranks are 1-based positions of the correct partner in the whole pool (ties count for the gold "
              "candidate), by each model's own distance. The overall score is, per task, 0.5 + 0.5·(v − median)/"
              "(best − median) over the models of this report, clipped at 0, averaged over tasks: it changes when "
              "the set of models changes."]
    if bench["issues"]:
        lines += ["", "## Input problems", ""] + [f"- {i['message']}" for i in bench["issues"]]
    return "\n".join(lines) + "\n"


def _generalisation_and_anisotropy(models: list[dict[str, Any]]) -> list[str]:
    """SemCSE §5.1 (summary → TA / title / abstract mean ranks) and Appendix B.2 (anisotropy) tables."""
    lines: list[str] = []
    general = [t for t in GENERALISATION if any(t in m["results"] for m in models)]
    if general:
        lines += ["", "## Generalisation check (SemCSE §5.1; not in the overall score)", "",
                  "| model | " + " | ".join(f"{DIRECTIONS[t]} mean rank ↓" for t in general) + " |",
                  "|" + "---|" * (len(general) + 1)]
        lines += ["| " + " | ".join([m["name"], *(_fmt(m["results"].get(t, {}).get("mean_rank")) for t in general)])
                  + " |" for m in models]
    if any(m.get("anisotropy") for m in models):
        lines += ["", "## Anisotropy (SemCSE Appendix B.2: unnormalised, mean-centred title + abstract vectors)", "",
                  "| model | top-1 PC share | top-10 PC share | isotropy (effective rank / span) |",
                  "|---|---|---|---|"]
        for m in models:
            a = m.get("anisotropy") or {}
            share = a.get("top_share", {})
            lines.append(f"| {m['name']} | {_fmt(share.get('1'), 3)} | {_fmt(share.get('10'), 3)} | "
                         f"{_fmt(a.get('isotropy'), 3)} |")
    return lines


def write_semantic_report(runs: list[SemanticRun], bench: SemanticBenchmark, out: str | Path) -> Path:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    results = semantic_results(runs, bench)
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    (out / "timings.json").write_text(json.dumps({r.model: round(r.seconds, 2) for r in runs}, indent=2) + "\n")
    (out / "report.md").write_text(render_semantic_markdown(results), encoding="utf-8")
    _plot(results, out / "mean_rank.png")
    return out / "report.md"


def _plot(results: dict[str, Any], path: Path) -> None:
    from sciembed.evaluation.plots import _grouped_bars, _pyplot

    plt = _pyplot()
    tasks = [t for t in TASKS if any(t in m["results"] for m in results["models"])]
    series = {m["name"]: [m["results"].get(t, {}).get("mean_rank", 0.0) for t in tasks] for m in results["models"]}
    fig, ax = plt.subplots(figsize=(max(5, 2 + 1.6 * len(tasks)), 3.6))
    _grouped_bars(ax, tasks, series)
    ax.set_ylabel("mean rank (lower is better)")
    ax.set_title(results["benchmark"]["name"])
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
