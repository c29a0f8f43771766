"""Write an evaluation to disk: results.json, report.md, PNGs, rankings and qrels.

Layout of the output directory::

    results.json          config, benchmark, per model: fingerprint, aggregates, per-domain,
                          per-query scores, counts, geometry; significance vs the first model
    report.md             models × scenarios table (×100), all metrics, domains, geometry, input problems
    *.png                 NDCG@10 per scenario, per domain, singular-value spectrum
    timings.json          wall-clock seconds (kept out of results.json so that it is reproducible)
    paper_log.jsonl       the body section each paper was evaluated on (citation benchmarks)
    qrels/<scenario>.tsv  judgements as scored (TREC qrels)
    runs/<model>/<scenario>.trec   rankings (TREC run format; ranx/trec_eval read them)

Markdown and plots are rendered from the results dict, so what the report
shows is exactly what results.json holds.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from sciembed.evaluation.metrics import EXTRA_METRICS, METRIC_LABELS, METRICS, PRIMARY
from sciembed.evaluation.plots import plot_domains, plot_scenarios, plot_spectrum
from sciembed.evaluation.run import ModelRun
from sciembed.evaluation.significance import paired_test
from sciembed.evaluation.task import key_label, key_str, normalize_key
from sciembed.ioutil.names import slug as _slug

FORMAT = "sciembed-eval/1"
REPORT_TEST = "student"
REPORT_MAX_P = 0.05


def slug(name: str) -> str:
    return _slug(name, "_", "model")


def _unique_names(runs: list[ModelRun]) -> list[str]:
    """Display names; a repeated name gets "#2", "#3" so no two columns look alike."""
    seen: dict[str, int] = {}
    names = []
    for run in runs:
        seen[run.model] = seen.get(run.model, 0) + 1
        names.append(run.model if seen[run.model] == 1 else f"{run.model}#{seen[run.model]}")
    return names


def _clean(value: Any) -> Any:
    """JSON-safe: NaN -> None, numpy scalars -> float."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, float) or hasattr(value, "item"):
        value = float(value)
        return None if math.isnan(value) else value
    return value


def model_record(run: ModelRun, name: str) -> dict[str, Any]:
    by_key = lambda d: {key_str(normalize_key(k)): v for k, v in d.items()}  # noqa: E731
    return {
        "name": name,
        "model": run.model,
        "kind": run.kind,
        "fingerprint": run.fingerprint,
        "benchmark_fingerprint": run.benchmark_fingerprint,
        "k": run.k,
        "config": run.config,
        "encoding": {k: v for k, v in run.encoding.items() if k != "seconds"},
        "aggregates": by_key(run.aggregates),
        "per_domain": by_key(run.per_domain),
        "counts": by_key(run.counts),
        "notes": by_key(run.notes),
        "geometry": run.geometry,
        "per_query": by_key(run.per_query),
    }


def significance_records(models: list[dict[str, Any]], test: str = REPORT_TEST) -> list[dict[str, Any]]:
    """Each model against the first, every scenario, primary metric."""
    if len(models) < 2:
        return []
    base = models[0]
    out = []
    for other in models[1:]:
        for key, scores in base["per_query"].items():
            if key not in other["per_query"]:
                continue
            result = paired_test(PRIMARY, scores[PRIMARY], other["per_query"][key][PRIMARY], test=test)
            out.append({"baseline": base["name"], "model": other["name"], "scenario": key, "metric": PRIMARY,
                        "delta": result.delta, "p_value": result.p_value, "n": result.n, "test": test})
    return out


def versions() -> dict[str, str | None]:
    """Library versions that can change a score (recorded, never checked)."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for name in ("sciembed", "ranx", "faiss-cpu", "bm25s", "sentence-transformers", "transformers", "torch"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def results_dict(runs: list[ModelRun], benchmark: Any) -> dict[str, Any]:
    fingerprints = {r.benchmark_fingerprint for r in runs}
    if fingerprints - {benchmark.fingerprint()}:
        raise ValueError(
            f"runs were scored on another benchmark (fingerprints {sorted(fingerprints)}, "
            f"this one {benchmark.fingerprint()})"
        )
    models = [model_record(run, name) for run, name in zip(runs, _unique_names(runs), strict=True)]
    keys = list(dict.fromkeys(k for m in models for k in m["aggregates"]))
    return _clean({
        "format": FORMAT,
        "benchmark": benchmark.describe(),
        "metrics": list(getattr(benchmark, "metrics", METRICS)) + [
            x for x in EXTRA_METRICS if any(x in a for m in models for a in m["aggregates"].values())],
        "primary": PRIMARY,
        "k": runs[0].k if runs else None,
        "versions": versions(),
        "scenarios": {k: key_label(normalize_key(k)) for k in keys},
        "models": models,
        "significance": {"test": REPORT_TEST, "max_p": REPORT_MAX_P, "results": significance_records(models)},
    })


def write_report(runs: list[ModelRun], benchmark: Any, out_dir: Path | str, *, rankings: bool = True,
                 domain_baseline: str | None = None) -> Path:
    """Write every file of an evaluation into `out_dir`; returns the report.md path.

    `rankings=False` skips the TREC run files (k lines per query, per scenario, per model).
    `domain_baseline`: the model the per-domain figure sorts by and subtracts (default: the first).
    """
    if not runs:
        raise ValueError("write_report needs at least one ModelRun")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results = results_dict(runs, benchmark)
    (out / "results.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    names = [m["name"] for m in results["models"]]
    (out / "timings.json").write_text(json.dumps({n: r.timings | {"encode_texts_s": r.encoding.get("seconds")}
                                                  for n, r in zip(names, runs, strict=True)}, indent=1) + "\n")
    if rankings:
        _write_rankings(runs, names, out)
    if getattr(benchmark, "paper_log", None) is not None:
        from sciembed.views import write_paper_log

        write_paper_log(benchmark.paper_log, out / "paper_log.jsonl")
    figures = [plot_scenarios(results["models"], results["scenarios"], out / "ndcg_by_scenario.png"),
               plot_domains(results["models"], results["scenarios"], out / "ndcg_by_domain.png",
                            baseline=domain_baseline),
               plot_spectrum(results["models"], out / "spectrum.png")]
    report = out / "report.md"
    report.write_text(render_markdown(results, [f.name for f in figures if f is not None]))
    return report


def _write_rankings(runs: list[ModelRun], names: list[str], out: Path) -> None:
    """Run files ``runs/<model>/<scenario>.run`` and judgements ``qrels/<scenario>.qrels`` (TREC formats)."""
    from sciembed.evaluation.runfiles import write_qrels, write_run

    for key, qrels in runs[0].qrels.items():
        write_qrels(out / "qrels" / f"{slug(key_str(key))}.qrels", qrels)
    for run, name in zip(runs, names, strict=True):
        for key, rankings in run.rankings.items():
            write_run(out / "runs" / slug(name) / f"{slug(key_str(key))}.run", rankings, slug(name))


# -- markdown ---------------------------------------------------------------------------


def fmt(value: Any, scale: float = 100.0, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{scale * value:.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|",
            *["| " + " | ".join(r) + " |" for r in rows]]


def _main_table(results: dict[str, Any]) -> list[str]:
    keys = list(results["scenarios"])
    best = {k: max((m["aggregates"][k][PRIMARY] or -1 for m in results["models"] if k in m["aggregates"]),
                   default=None) for k in keys}
    rows = []
    for m in results["models"]:
        cells = []
        for k in keys:
            value = m["aggregates"].get(k, {}).get(PRIMARY)
            text = fmt(value)
            cells.append(f"**{text}**" if value is not None and len(results["models"]) > 1 and value == best[k]
                         else text)
        rows.append([m["name"], *cells])
    return _table(["Model", *results["scenarios"].values()], rows)


def render_markdown(results: dict[str, Any], figures: list[str]) -> str:
    bench = results["benchmark"]
    models = results["models"]
    keys = list(results["scenarios"])
    lines = [f"# Evaluation: {bench['name']}", ""]
    facts = [f"{k.replace('_', ' ')}: {v}" for k, v in bench.items()
             if k not in ("issues", "name", "query_domains") and not isinstance(v, dict | list)]
    lines += ["- " + f for f in facts]
    if bench.get("query_domains"):
        lines.append("- query domains: " + ", ".join(f"{d} {n}" for d, n in bench["query_domains"].items()))
    lines += ["", f"## {METRIC_LABELS[PRIMARY]} ×100 (models × scenarios)", "", *_main_table(results), ""]
    counts = [[results["scenarios"][k], *[str(models[0]["counts"].get(k, {}).get(c, "–"))
                                           for c in ("queries", "candidates", "relevant_pairs")]] for k in keys]
    lines += ["Queries and candidates per scenario (the query paper never retrieves itself):", "",
              *_table(["Scenario", "Queries", "Candidates", "Relevant pairs"], counts), ""]
    lines += _significance_section(results)
    lines += ["## All metrics ×100", ""]
    for k in keys:
        rows = [[m["name"], *[fmt(m["aggregates"].get(k, {}).get(metric)) for metric in results["metrics"]]]
                for m in models if k in m["aggregates"]]
        lines += [f"### {results['scenarios'][k]}", "",
                  *_table(["Model", *[METRIC_LABELS[x] for x in results["metrics"]]], rows), ""]
    lines += _domain_section(results)
    lines += _geometry_section(results)
    lines += _encoding_section(results)
    lines += _problems_section(results)
    lines += ["## Figures", "", *[f"![{f}]({f})" for f in figures], ""]
    lines += _definitions(results)
    return "\n".join(lines) + "\n"


def _significance_section(results: dict[str, Any]) -> list[str]:
    sig = results["significance"]
    if not sig["results"]:
        return []
    rows = [[r["model"], results["scenarios"][r["scenario"]], f"{100 * r['delta']:+.1f}",
             f"{r['p_value']:.3g}" if r["p_value"] is not None else "–", str(r["n"]),
             "yes" if r["p_value"] is not None and r["p_value"] <= sig["max_p"] else "no"] for r in sig["results"]]
    return [f"## Paired significance against {sig['results'][0]['baseline']} ({METRIC_LABELS[PRIMARY]}, "
            f"two-sided paired t-test, p ≤ {sig['max_p']})", "",
            *_table(["Model", "Scenario", "Δ ×100", "p", "Queries", "Significant"], rows), ""]


def _domain_section(results: dict[str, Any]) -> list[str]:
    lines = [f"## Per domain ({METRIC_LABELS[PRIMARY]} ×100)", ""]
    for k in results["scenarios"]:
        domains = sorted({d for m in results["models"] for d in m["per_domain"].get(k, {})})
        rows = []
        for d in domains:
            n = next((m["per_domain"][k][d]["queries"] for m in results["models"] if d in m["per_domain"].get(k, {})),
                     0)
            rows.append([d, str(int(n)), *[fmt(m["per_domain"].get(k, {}).get(d, {}).get(PRIMARY))
                                            for m in results["models"]]])
        lines += [f"### {results['scenarios'][k]}", "",
                  *_table(["Domain", "Queries", *[m["name"] for m in results["models"]]], rows), ""]
    return lines


def _geometry_section(results: dict[str, Any]) -> list[str]:
    models = [m for m in results["models"] if m.get("geometry")]
    if not models:
        return []
    modes = sorted({mode for m in models for mode in m["geometry"]["intra_article_alignment"]})
    tops = sorted({int(t) for m in models for t in m["geometry"]["spectrum"]["top_share"]})
    header = ["Model", "Pair alignment ↓", "Uniformity ↓", *[f"Intra-article ({mode}) ↓" for mode in modes],
              "W&I align ↓", "W&I uniform ↓", *[f"Top-{t} PC var %" for t in tops], "Isotropy ↑"]
    rows = []
    for m in models:
        g = m["geometry"]
        rows.append([m["name"], fmt(g["pair_alignment"], 1, 3), fmt(g["uniformity"], 1, 3),
                     *[fmt(g["intra_article_alignment"].get(mode), 1, 3) for mode in modes],
                     fmt(g.get("wang_isola_alignment"), 1, 3), fmt(g.get("wang_isola_uniformity"), 1, 3),
                     *[fmt(g["spectrum"]["top_share"].get(str(t))) for t in tops],
                     fmt(g["spectrum"]["isotropy"], 1, 3)])
    g0 = models[0]["geometry"]
    return ["## Geometry (TA embeddings, L2-normalized)", "",
            f"{g0['pairs']} linked pairs; uniformity over {g0['uniformity_sample']} sampled papers.", "",
            *_table(header, rows), ""]


def _encoding_section(results: dict[str, Any]) -> list[str]:
    rows = []
    for m in results["models"]:
        e = m["encoding"]
        cached = "–" if e.get("cache_hits") is None else str(e["cache_hits"])
        encoded = "–" if e.get("encoded") is None else str(e["encoded"])
        rows.append([m["name"], m["kind"], f"`{m['fingerprint']}`", str(e.get("distinct", "–")), encoded, cached])
    return ["## Models", "",
            *_table(["Model", "Kind", "Fingerprint", "Distinct texts", "Encoded", "From cache"], rows), ""]


def _problems_section(results: dict[str, Any]) -> list[str]:
    bench = results["benchmark"]
    lines = ["## Input problems", ""]
    issues = bench.get("issues", [])
    lines += [f"- {i['message']}" for i in issues] or ["- benchmark input: none"]
    if bench.get("papers_without_body"):
        lines.append(f"- {bench['papers_without_body']} papers have no body text: they are left out of the "
                     f"body scenarios as queries and as candidates ({bench.get('queries_without_body', 0)} of them "
                     "would have been queries)")
    seen = set()
    for k, label in results["scenarios"].items():
        for note in results["models"][0]["notes"].get(k, []):
            text = f"- {label}: {note['message']}"
            if text not in seen:
                seen.add(text)
                lines.append(text)
    return [*lines, ""]


def _definitions(results: dict[str, Any]) -> list[str]:
    k = results["k"]
    windows = {m["name"]: m["config"].get("window_words") for m in results["models"]}
    return [
        "## Definitions", "",
        f"- Each query retrieves the top {k} candidates; the query paper itself is never a candidate. "
        f"Metrics are ranx's, macro-averaged over queries, binary relevance; MRR and MAP are over the top {k}; "
        "ties in score are ordered by a seeded hash of the candidate id, never by the id (count: Input problems).",
        ("- Queries = the anchors that seeded the split's citation balls (S2Full's protocol). "
         if results["benchmark"].get("query_mode") == "anchors" else
         "- Queries = every paper with at least one citation link inside the split. " if
         results["benchmark"].get("query_mode") == "linked" else "- ")
        + "Relevant = papers linked to the query paper by a citation in either direction, within the split.",
        "- Body text = the section the paper log (`paper_log.jsonl`) names; `full` = that whole section "
        "(the encoder truncates at its max_seq_length), `windowed` = 0.7 × max_seq_length words from that "
        "section's header. Window words per model: " + ", ".join(f"{n} {w}" for n, w in windows.items())
        + " (BM25 has no token budget and reads the window of a 512-token model).",
        "- Geometry (the S2Full paper's, d = 1 − cos): pair alignment = mean d over linked TA pairs; uniformity = "
        "log mean exp(−2·d²) over sampled TA pairs; intra-article = mean d(TA, body) of one paper. W&I = Wang & "
        "Isola's squared-Euclidean alignment mean ‖eₐ−e_b‖² and uniformity log mean exp(−2‖eᵢ−eⱼ‖²); "
        "isotropy = effective rank of the TA spectrum / min(n−1, d) "
        "(1 = variance spread evenly). See `sciembed.evaluation.geometry`.",
        "",
    ]
