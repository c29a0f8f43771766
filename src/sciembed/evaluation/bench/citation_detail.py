"""The citation benchmark's section of the suite report: what the S2Full paper reports beyond each scenario's metrics.

Per-domain NDCG@10 sorted by the baseline (the paper's Figure 6, ``ndcg_by_domain.png``), dense models' geometry
and spectrum (``spectrum.png``), and ``paper_log.jsonl``, the body section each paper was evaluated on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sciembed.evaluation.bench.detail import Detail, done_results, fmt, table
from sciembed.evaluation.bench.runner import SuiteRun
from sciembed.evaluation.contract import TaskResult

GEOMETRY_NOTE = ("Geometry (the S2Full paper's, d = 1 − cos, TA embeddings L2-normalised): pair alignment = mean d "
                 "over linked TA pairs; uniformity = log mean exp(−2·d²) over sampled TA pairs; intra-article = mean "
                 "d(TA, body) of one paper. W&I = Wang & Isola's squared-Euclidean alignment mean ‖eₐ−e_b‖² and "
                 "uniformity log mean exp(−2‖eᵢ−eⱼ‖²); isotropy = effective rank of the TA spectrum / min(n−1, d) "
                 "(1 = variance spread evenly); SSD = SciJEPA's singular spectrum deviation, a reconstruction: "
                 "1 − H(p)/ln min(n, d) over the uncentred spectrum (0 = flat, 1 = one direction). "
                 "See `sciembed.evaluation.geometry`.")


def per_domain(results: dict[str, list[TaskResult]], domains: dict[str, str]) -> dict[str, dict[str, dict]]:
    """task -> domain -> {"queries": n, model: mean primary score ×100 over that domain's queries}."""
    from sciembed.evaluation.citation import UNKNOWN_DOMAIN
    from sciembed.evaluation.metrics import by_domain

    out: dict[str, dict[str, dict]] = {}
    for model, task_results in results.items():
        for r in task_results:
            scores = r.per_query.get(r.primary)
            if r.kind != "retrieval" or not scores:
                continue
            means = by_domain({r.primary: scores}, {q: domains.get(q, UNKNOWN_DOMAIN) for q in scores})
            for domain, row in means.items():
                cell = out.setdefault(r.task, {}).setdefault(domain, {"queries": int(row["queries"])})
                cell[model] = row[r.primary]
    return out


def _domain_figure(domains: dict[str, dict[str, dict]], models: list[str], baseline: str, path: Path) -> Path:
    from sciembed.evaluation.keys import key_label, normalize_key
    from sciembed.evaluation.metrics import PRIMARY
    from sciembed.evaluation.plots import plot_domains

    records = [{"name": m, "per_domain": {t: {d: {"queries": row["queries"], PRIMARY: row[m] / 100}
                                              for d, row in rows.items() if m in row}
                                          for t, rows in domains.items()}} for m in models]
    labels = {t: key_label(normalize_key(t)) for t in domains}
    return plot_domains(records, labels, path, baseline=baseline)


def _geometry(results: dict[str, list[TaskResult]]) -> dict[str, TaskResult]:
    return {m: r for m, rs in results.items() for r in rs if r.kind == "geometry"}


def _geometry_lines(geometry: dict[str, TaskResult]) -> list[str]:
    metrics = list(dict.fromkeys(k for r in geometry.values() for k in r.metrics))
    modes = sorted(k.split(".", 1)[1] for k in metrics if k.startswith("intra_article_alignment."))
    tops = sorted((k.rsplit(".", 1)[1] for k in metrics if k.startswith("spectrum.top_share.")), key=int)
    header = ["Model", "Pair alignment ↓", "Uniformity ↓", *[f"Intra-article ({mode}) ↓" for mode in modes],
              "W&I align ↓", "W&I uniform ↓", *[f"Top-{t} PC var %" for t in tops], "Isotropy ↑",
              "SSD ↓ (reconstruction)"]
    rows = []
    for model, r in geometry.items():
        g = r.metrics
        rows.append([model, fmt(g.get("pair_alignment"), 3), fmt(g.get("uniformity"), 3),
                     *[fmt(g.get(f"intra_article_alignment.{mode}"), 3) for mode in modes],
                     fmt(g.get("wang_isola_alignment"), 3), fmt(g.get("wang_isola_uniformity"), 3),
                     *[fmt(_pct(g.get(f"spectrum.top_share.{t}"))) for t in tops], fmt(g.get("spectrum.isotropy"), 3),
                     fmt(g.get("spectrum.ssd"), 3)])
    first = next(iter(geometry.values())).metrics
    return ["## Geometry (TA embeddings, L2-normalised)", "",
            f"{int(first.get('pairs', 0))} linked pairs; uniformity over {int(first.get('uniformity_sample', 0))} "
            "sampled papers.", "", *table(header, rows), "", GEOMETRY_NOTE, ""]


def _pct(share: float | None) -> float | None:
    return None if share is None else 100 * share


def citation_detail(run: SuiteRun, bname: str, bench: Any, folder: Path) -> Detail:
    from sciembed.evaluation.keys import key_label, normalize_key
    from sciembed.evaluation.plots import plot_spectrum

    results = done_results(run, bname)
    harness = getattr(bench, "benchmark", None)
    if not results or harness is None:
        return Detail()
    models = list(results)
    baseline = run.suite.baseline_name() if run.suite.baseline_name() in results else models[0]
    folder.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    figures: list[Path] = []
    domains = per_domain(results, dict(getattr(harness, "domains", {}) or {}))
    if domains:
        lines += [f"## Per domain (NDCG@10 ×100; the figure sorts domains by {baseline} and shows every other "
                  "model's difference to it)", ""]
        for task, rows in domains.items():
            lines += [f"### {key_label(normalize_key(task))}", "",
                      *table(["Domain", "Queries", *models],
                             [[d, str(row["queries"]), *[fmt(row.get(m)) for m in models]] for d, row in rows.items()]),
                      ""]
        figures.append(_domain_figure(domains, models, baseline, folder / "ndcg_by_domain.png"))
    geometry = _geometry(results)
    if geometry:
        lines += _geometry_lines(geometry)
        spectra = [{"name": m, "geometry": {"spectrum": {"singular_values": r.details.get("singular_values", []),
                                                         "isotropy": r.metrics.get("spectrum.isotropy")}}}
                   for m, r in geometry.items()]
        figure = plot_spectrum(spectra, folder / "spectrum.png")
        figures += [figure] if figure is not None else []
    if getattr(harness, "paper_log", None):
        from sciembed.views import write_paper_log

        write_paper_log(harness.paper_log, folder / "paper_log.jsonl")
        lines += [f"Body text = the section [`paper_log.jsonl`]({folder.name}/paper_log.jsonl) names for each paper "
                  "(`full`: that whole section, cut at the encoder's max_seq_length; `windowed`: 0.7 × the token "
                  "budget in words from that section's header; BM25 reads the window of a 512-token model).", ""]
    summary = [f"## {bname}: per domain and geometry", "",
               f"Per-domain NDCG@10 against {baseline} and the embedding geometry: "
               f"[benchmarks/{folder.name}.md](benchmarks/{folder.name}.md).", ""] if lines else []
    data = {"domain_baseline": baseline, "per_domain": domains,
            "geometry": {m: r.metrics for m, r in geometry.items()}}
    return Detail(summary, lines, data, figures)
