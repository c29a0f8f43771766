"""In-process harness runs as a suite of one, written by the suite report writer.

`evaluate_encoder` returns a `ModelRun` per model; the experiments (the S2Full study, the demo) and
the Python API score models that way, in process, and their report is the suite's: each run becomes
a cell (`benchmarks.adapters.harness_results`) of the benchmark `eval run` would load
(`benchmarks.scenarios.ScenarioBenchmark`, the same fingerprint), so per-query scores, significance, the
headline table and the citation detail page (per domain, geometry: `bench.citation_detail`) come from
`write_suite_report`.

    runs = [evaluate_encoder(m, bench) for m in ("minilm", "bm25")]
    write_runs_report(runs, bench, Path("runs/eval"))   # report.md, results.json, benchmarks/, heatmap.png
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sciembed.evaluation.bench.report import write_suite_report
from sciembed.evaluation.bench.runner import PROTOCOL, Cell, SuiteRun, write_run_files
from sciembed.evaluation.bench.suite import ModelEntry, Suite
from sciembed.evaluation.benchmarks.adapters import harness_results
from sciembed.evaluation.benchmarks.entry import BenchmarkEntry
from sciembed.evaluation.benchmarks.scenarios import ScenarioBenchmark
from sciembed.evaluation.issues import BenchmarkError
from sciembed.evaluation.task import normalize_key

HARNESS_KINDS = ("citation", "section_retrieval")  # the kinds the runner scores through `evaluate_encoder`


def unique_names(runs: Sequence[Any]) -> list[str]:
    """Model names; a repeated name gets "#2", "#3" so that no two rows look alike."""
    seen: dict[str, int] = {}
    names = []
    for run in runs:
        seen[run.model] = seen.get(run.model, 0) + 1
        names.append(run.model if seen[run.model] == 1 else f"{run.model}#{seen[run.model]}")
    return names


def suite_of_runs(runs: Sequence[Any], benchmark: Any, out: Path | str, *, name: str | None = None,
                  baseline: str | None = None, run_depth: int = 0, window_tokens: int | None = None) -> SuiteRun:
    """The `SuiteRun` the runner would hold had it scored these runs: one cell per run, in order.

    `name`: the benchmark's name in the report (default: its kind).
    `baseline`: the model the others are tested against and the per-domain figure sorts by (default: the first).
    `window_tokens`: the body windows' token budget the runs used (recorded with the benchmark).
    """
    from sciembed.evaluation.benchmarks.registry import BENCHMARKS

    if not runs:
        raise ValueError("a report needs at least one ModelRun")
    kind = getattr(benchmark, "kind", None)
    if kind not in HARNESS_KINDS:
        raise BenchmarkError(f"{kind} benchmarks are run by the suite runner (`sciembed eval run --kind {kind}`, "
                             "`run_suite`); in-process runs are reported for " + ", ".join(HARNESS_KINDS))
    fingerprints = {r.benchmark_fingerprint for r in runs}
    if fingerprints - {benchmark.fingerprint()}:
        raise ValueError(f"runs were scored on another benchmark (fingerprints {sorted(fingerprints)}, "
                         f"this one {benchmark.fingerprint()})")
    keys = list(dict.fromkeys(normalize_key(k) for r in runs for k in r.keys))
    scenarios = tuple(dict.fromkeys(s for s, _ in keys))
    body_modes = tuple(dict.fromkeys(m for _, m in keys if m))
    bname = name or kind  # one benchmark per report: its kind names it (benchmarks/citation.md)
    primary = BENCHMARKS[kind].headline
    adapter = ScenarioBenchmark(benchmark, bname, kind, scenarios, body_modes, primary=primary,
                                geometry=any(r.geometry for r in runs), window_tokens=window_tokens)
    names = unique_names(runs)
    entry = {"name": bname, "kind": kind, "path": str(getattr(benchmark, "source", "")), "split":
             getattr(benchmark, "split", "test"), "window_tokens": window_tokens}
    if kind == "citation":
        entry |= {"scenarios": list(scenarios), "body_modes": list(body_modes), "query_mode": benchmark.query_mode,
                  "seed": benchmark.paper_log_seed, "geometry": adapter.geometry}
    suite = Suite(out=str(out), baseline=baseline, run_depth=run_depth, benchmarks=[BenchmarkEntry(**entry)],
                  models=[ModelEntry(name=n, model=str(r.config.get("source") or r.model)) for n, r in zip(
                      names, runs, strict=True)])
    suite.baseline_name()  # an unknown baseline is refused here, before anything is written
    fingerprint = adapter.fingerprint()
    cells = {}
    for model, run in zip(names, runs, strict=True):
        results = harness_results(run, kind, primary)
        # the key's model part names the run's model (no ":" in it: `compare` splits the key on them)
        key = f"{PROTOCOL}:{hashlib.sha256(run.fingerprint.encode()).hexdigest()[:16]}:{fingerprint}"
        distance = "bm25" if run.kind == "bm25" else run.config.get("metric")
        config = {**run.config, "kind": run.kind, "distance": distance, "k": run.k,
                  "encoding": {k: v for k, v in run.encoding.items() if k != "seconds"}}
        encoded = {"texts_requested": int(run.encoding.get("distinct") or 0),
                   "texts_run_through_model": int(run.encoding.get("encoded") or 0)}
        cells[(model, bname)] = Cell(model, bname, key, "done", results, adapter.summarize(results), config,
                                     sum(run.timings.values()), encoded)
    seconds = sum(c.seconds for c in cells.values())
    return SuiteRun(suite, Path(out), {bname: adapter}, {}, cells, seconds)


def write_runs_report(runs: Sequence[Any], benchmark: Any, out: Path | str, *, name: str | None = None,
                      baseline: str | None = None, run_depth: int = 0, window_tokens: int | None = None) -> Path:
    """Write the suite report of in-process runs into `out`; returns its report.md.

    `run_depth` > 0 also writes TREC run files ``runs/<model>/<benchmark>/<task>.run`` cut at that rank, with
    their judgements ``qrels/<benchmark>/<task>.qrels`` (as `eval run` does).
    """
    from sciembed.ioutil.atomic import refuse_links

    run = suite_of_runs(runs, benchmark, out, name=name, baseline=baseline, run_depth=run_depth,
                        window_tokens=window_tokens)
    refuse_links(run.out)
    run.out.mkdir(parents=True, exist_ok=True)
    if run_depth:
        for (model, bname), cell in run.cells.items():
            write_run_files(run.out, model, bname, cell, run_depth)
    return write_suite_report(run)
