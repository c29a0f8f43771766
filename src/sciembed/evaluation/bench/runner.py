"""Run a suite: every model on every benchmark, one resumable cell per (model, benchmark).

A cell (``<out>/cells/<model>/<benchmark>.json``) is reused when its key (model identity + benchmark fingerprint +
protocol) matches, so a second run recomputes nothing and loads no model; all models share one embedding cache.
A benchmark that cannot be loaded is reported; when it is `optional` the rest runs.
"""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciembed.evaluation.bench.suite import Suite
from sciembed.evaluation.benchmarks import LoadContext, load_benchmark
from sciembed.evaluation.contract import TaskResult
from sciembed.evaluation.fields import trec_id
from sciembed.evaluation.issues import BenchmarkError
from sciembed.ioutil.atomic import write_text_atomic
from sciembed.ioutil.names import slug

# bump when a metric definition changes: every cell is then recomputed (2: ties in seeded-hash order, not by id;
# 3: ties at a cut resolved before it, gold ranks the expected rank over tie orders, mrr@k / map@k named by cut)
PROTOCOL = 3


@dataclass
class Cell:
    model: str
    benchmark: str
    key: str
    status: str  # "done" | "error"
    results: list[TaskResult] = field(default_factory=list)
    summary: dict[str, float] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    encoded: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    skipped_tasks: dict[str, str] = field(default_factory=dict)
    reused: bool = False

    def result(self, task: str) -> TaskResult:
        """The result of the task named `task` (a scenario: ``ta_ta``, ``body_ta/windowed``)."""
        found = next((r for r in self.results if r.task == task), None)
        if found is None:
            raise KeyError(f"{self.model} × {self.benchmark}: no task {task!r} "
                           f"(has {', '.join(r.task for r in self.results)})")
        return found

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["results"] = [r.to_dict() for r in self.results]
        d.pop("reused")
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Cell:
        data = dict(data)
        data["results"] = [TaskResult.from_dict(r) for r in data.get("results", [])]
        return cls(**data)


@dataclass
class SuiteRun:
    suite: Suite
    out: Path
    benchmarks: dict[str, Any]  # name -> loaded benchmark
    missing: dict[str, str]  # benchmark name -> why it is not in the table
    cells: dict[tuple[str, str], Cell]
    seconds: float = 0.0

    @property
    def computed(self) -> int:
        return sum(1 for c in self.cells.values() if not c.reused)


def run_suite(suite: Suite, *, force: bool = False, say: Callable[[str], None] = print,
              keep_going: bool = True) -> SuiteRun:
    """Every cell, reusing finished ones unless `force`; `keep_going=False` lets a failing cell's error propagate."""
    from sciembed.evaluation.bench.models import make_scorer, model_key
    from sciembed.ioutil.atomic import refuse_links

    start = time.perf_counter()
    out = Path(suite.out)
    refuse_links(out)  # results, cells and run files are written in place: never through a planted link
    cache = Path(suite.cache) if suite.cache else out / "embedding-cache"
    benchmarks: dict[str, Any] = {}
    missing: dict[str, str] = {}
    context = LoadContext(out, tuple(m.model for m in suite.models))
    for entry in suite.benchmarks:
        try:
            benchmarks[entry.name] = load_benchmark(entry, context)
            say(f"[benchmark] {entry.name} ({entry.kind}): loaded")
        except (BenchmarkError, FileNotFoundError, OSError) as exc:
            if not entry.optional:
                raise BenchmarkError(f"benchmark {entry.name} cannot be loaded: {exc}") from exc
            missing[entry.name] = str(exc)
            say(f"[benchmark] {entry.name} ({entry.kind}): MISSING, skipped (optional): {exc}")
    out.mkdir(parents=True, exist_ok=True)  # only once the benchmarks load: bad input leaves no output behind
    fingerprints = {name: b.fingerprint() for name, b in benchmarks.items()}
    cells: dict[tuple[str, str], Cell] = {}
    for entry in suite.models:
        mkey = model_key(entry)
        scorer = None
        for bname, bench in benchmarks.items():
            key = f"{PROTOCOL}:{mkey}:{fingerprints[bname]}"
            path = out / "cells" / slug(entry.name) / f"{slug(bname)}.json"
            if not force and path.is_file():
                cached = Cell.from_dict(json.loads(path.read_text(encoding="utf-8")))
                if cached.key == key and cached.status == "done":
                    cached.reused = True
                    cells[(entry.name, bname)] = cached
                    say(f"[cell] {entry.name} × {bname}: reused ({path})")
                    continue
            if scorer is None:
                scorer = make_scorer(entry, cache, suite.batch_size)
            say(f"[cell] {entry.name} × {bname}: computing")
            cell = compute_cell(entry.name, bname, key, bench, scorer, keep_going)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(path, json.dumps(cell.to_dict(), indent=1, default=_json_default) + "\n")
            if suite.run_depth:
                write_run_files(out, entry.name, bname, cell, suite.run_depth)
            cells[(entry.name, bname)] = cell
            say(f"  {cell.status} in {cell.seconds:.1f} s" + (f": {cell.error}" if cell.error else ""))
    return SuiteRun(suite, out, benchmarks, missing, cells, time.perf_counter() - start)


def write_run(path: Path, rankings: Mapping[str, Sequence[tuple[str, float]]], tag: str,
              depth: int | None = None) -> Path:
    """A TREC run file (``qid Q0 docid rank score tag``): each query's ranking, best first, cut at `depth` (None:
    whole); ids with whitespace are refused (`fields.trec_id`: they would forge columns)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for qid in sorted(rankings):
            for rank, (did, score) in enumerate(rankings[qid][:depth], 1):
                f.write(f"{trec_id(qid)} Q0 {trec_id(did)} {rank} {score:.6f} {tag}\n")
    return path


def write_qrels(path: Path, qrels: Mapping[str, Mapping[str, int]]) -> Path:
    """A TREC qrels file (``qid 0 docid grade``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for qid in sorted(qrels):
            for did, rel in sorted(qrels[qid].items()):
                f.write(f"{trec_id(qid)}\t0\t{trec_id(did)}\t{rel}\n")
    return path


def write_run_files(out: Path, model: str, bname: str, cell: Cell, depth: int) -> None:
    """``runs/<model>/<benchmark>/<task>.run`` and ``qrels/<benchmark>/<task>.qrels`` for every ranking task."""
    for result in cell.results:
        if result.rankings is None:
            continue
        name = slug(result.task)
        write_run(out / "runs" / slug(model) / slug(bname) / f"{name}.run", result.rankings, slug(model), depth)
        if result.qrels is not None:
            write_qrels(out / "qrels" / slug(bname) / f"{name}.qrels", result.qrels)


def compute_cell(model: str, bname: str, key: str, bench: Any, scorer: Any, keep_going: bool = True) -> Cell:
    from sciembed.evaluation.execute import run_task, supports

    t0 = time.perf_counter()
    before = (getattr(scorer, "encoded", 0), getattr(scorer, "model_encoded", 0))
    cell = Cell(model, bname, key, "done", config=scorer.config())
    try:
        style = scorer.style()
        cell.config["text_style"] = {"sep": style.sep, "input_format": style.input_format}
        for task in bench.tasks(style):
            why = supports(task, scorer)
            if why:
                cell.skipped_tasks[task.name] = why
                continue
            cell.results.append(run_task(task, scorer))
        cell.summary = bench.summarize(cell.results) if cell.results else {}
    except BenchmarkError as exc:
        if not keep_going:
            raise
        cell.status, cell.error = "error", str(exc)
    except Exception as exc:  # one cell failing must not lose the others; the traceback goes in the cell
        if not keep_going:
            raise
        cell.status, cell.error = "error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}"
    cell.skipped_tasks.update(getattr(bench, "skipped", {}) or {})
    cell.seconds = time.perf_counter() - t0
    cell.encoded = {"texts_requested": getattr(scorer, "encoded", 0) - before[0],
                    "texts_run_through_model": getattr(scorer, "model_encoded", 0) - before[1]}
    return cell


def _json_default(value: Any) -> Any:
    import numpy as np

    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
