"""In-process evaluation through the suite's executor, reported by the suite's writer.

Training's validation and scripts hold their models in memory (a model mid-training), so they write no
suite YAML (the demo and the studies do, and run it with `run_suite`): `evaluate` scores one model on one
contract benchmark exactly as ``eval run`` / ``eval suite`` do (`runner.compute_cell`: `execute.run_task` for
each task) and returns the suite's `Cell`; `write_cells_report` writes the suite report of such cells.

    bench = scenario_benchmark(build_citation_benchmark("runs/corpus"))
    cells = [evaluate(m, bench) for m in (load_encoder("minilm"), "bm25")]
    write_cells_report(cells, bench, Path("runs/eval"))   # report.md, results.json, benchmarks/, heatmap.png
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sciembed.evaluation.bench.report import write_suite_report
from sciembed.evaluation.bench.runner import PROTOCOL, Cell, SuiteRun, compute_cell, write_run_files
from sciembed.evaluation.bench.suite import ModelEntry, Suite
from sciembed.evaluation.benchmarks.registry import BenchmarkEntry
from sciembed.evaluation.benchmarks.scenarios import ScenarioBenchmark
from sciembed.evaluation.keys import SCENARIOS

SUITE_KIND = {"citation": "citation", "section": "section_retrieval"}  # a built benchmark's kind -> the suite's


def scorer_for(model: Any, *, batch_size: int | None = None, show_progress: bool = True,
               window_tokens: int | None = None) -> Any:
    """The executor's scorer: BM25 for ``"bm25"``, else the encoder (loaded by name) with its own distance,
    reading body windows of `window_tokens` (default: its card's, else its encoder's budget)."""
    from sciembed.evaluation.scorers import BM25Scorer, DenseScorer

    if isinstance(model, str):
        if model.lower() == "bm25":
            return BM25Scorer()
        from sciembed.models import load_encoder

        model = load_encoder(model)
    return DenseScorer(model, distance=model.metric, batch_size=batch_size, show_progress=show_progress,
                       window_tokens=window_tokens)


def scenario_benchmark(benchmark: Any, *, scenarios: Sequence[str] = SCENARIOS,
                       body_modes: Sequence[str] = ("windowed",), geometry: bool = False,
                       window_tokens: int | None = None, name: str | None = None) -> ScenarioBenchmark:
    """A built citation (or section-retrieval) benchmark as the suite loads it: one ranking task per scenario,
    scored by its kind's headline metric; `geometry` adds dense models' geometry as one more task."""
    from sciembed.evaluation.benchmarks.registry import BENCHMARKS

    kind = SUITE_KIND[benchmark.kind]
    return ScenarioBenchmark(benchmark, name or kind, kind, tuple(scenarios), tuple(body_modes),
                             primary=BENCHMARKS[kind].headline, geometry=geometry, window_tokens=window_tokens)


def evaluate(model: Any, benchmark: Any, *, name: str | None = None, batch_size: int | None = None,
             show_progress: bool = True, window_tokens: int | None = None) -> Cell:
    """One model (an `Encoder`, a name for `load_encoder`, or ``"bm25"``) on one contract benchmark: the cell
    ``eval suite`` computes for it, under `name` (default: the model's). `window_tokens`: a dense model's body
    windows (a benchmark's own ``window_tokens`` wins; BM25 reads the windows of a 512-token model)."""
    scorer = scorer_for(model, batch_size=batch_size, show_progress=show_progress, window_tokens=window_tokens)
    if name is not None:
        scorer.name = name
    identity = hashlib.sha256(str(scorer.fingerprint).encode()).hexdigest()[:16]
    key = f"{PROTOCOL}:{identity}:{benchmark.fingerprint()}"  # no ":" in the model part: `compare` splits on them
    return compute_cell(scorer.name, benchmark.name, key, benchmark, scorer, keep_going=False)


def unique_names(cells: Sequence[Cell]) -> list[str]:
    """Model names; a repeated name gets "#2", "#3" so that no two rows look alike."""
    seen: dict[str, int] = {}
    names = []
    for cell in cells:
        seen[cell.model] = seen.get(cell.model, 0) + 1
        names.append(cell.model if seen[cell.model] == 1 else f"{cell.model}#{seen[cell.model]}")
    return names


def suite_of_cells(cells: Sequence[Cell], benchmark: Any, out: Path | str, *, baseline: str | None = None,
                   run_depth: int = 0) -> SuiteRun:
    """The `SuiteRun` the runner would hold had it computed these cells of `benchmark`, in order; `baseline`: the
    model the others are tested against and the per-domain figure sorts by (default: the first)."""
    if not cells:
        raise ValueError("a report needs at least one evaluated model")
    fingerprint = benchmark.fingerprint()
    others = sorted({c.key.split(":", 2)[2] for c in cells} - {fingerprint})
    if others:
        raise ValueError(f"cells were scored on another benchmark (fingerprints {others}, this one {fingerprint})")
    names = unique_names(cells)
    entry: dict[str, Any] = {"name": benchmark.name, "kind": benchmark.kind}
    inner = getattr(benchmark, "benchmark", None)
    if inner is not None:
        entry |= {"path": str(getattr(inner, "source", "")), "split": getattr(inner, "split", "test"),
                  "window_tokens": benchmark.window_tokens}
    if benchmark.kind == "citation":
        entry |= {"scenarios": list(benchmark.scenarios), "body_modes": list(benchmark.body_modes),
                  "query_mode": inner.query_mode, "seed": inner.paper_log_seed, "geometry": benchmark.geometry}
    models = [ModelEntry(name=n, model=str(c.config.get("source") or c.config.get("name") or n))
              for n, c in zip(names, cells, strict=True)]
    suite = Suite(out=str(out), baseline=baseline, run_depth=run_depth, benchmarks=[BenchmarkEntry(**entry)],
                  models=models)
    suite.baseline_name()  # an unknown baseline is refused here, before anything is written
    named = {(n, benchmark.name): Cell(**{**c.__dict__, "model": n}) for n, c in zip(names, cells, strict=True)}
    return SuiteRun(suite, Path(out), {benchmark.name: benchmark}, {}, named, sum(c.seconds for c in cells))


def write_cells_report(cells: Sequence[Cell], benchmark: Any, out: Path | str, *, baseline: str | None = None,
                       run_depth: int = 0) -> Path:
    """Write the suite report of in-process cells into `out`; returns its report.md. `run_depth` > 0 also writes
    TREC run and qrels files cut at that rank (as ``eval run`` does)."""
    from sciembed.ioutil.atomic import refuse_links

    run = suite_of_cells(cells, benchmark, out, baseline=baseline, run_depth=run_depth)
    refuse_links(run.out)
    run.out.mkdir(parents=True, exist_ok=True)
    if run_depth:
        for (model, bname), cell in run.cells.items():
            write_run_files(run.out, model, bname, cell, run_depth)
    return write_suite_report(run)
