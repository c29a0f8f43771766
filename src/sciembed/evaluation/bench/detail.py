"""What a benchmark kind adds to the suite report, and the markdown helpers every report section shares.

A kind whose paper reports more than each task's metrics (SemCSE's cross-model overall score, the
paper-to-paper methods × splits with paired tests) has a hook in `report.DETAILS`: it reads the
suite's cells of one benchmark and returns a `Detail`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciembed.evaluation.bench.runner import SuiteRun
from sciembed.evaluation.contract import TaskResult


@dataclass
class Detail:
    """One benchmark's kind-specific section: `summary` goes in report.md, `lines` in its detail page,
    `data` in results.json (``details.<benchmark>``), `figures` (written by the hook) are linked from both."""

    summary: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    figures: list[Path] = field(default_factory=list)


def fmt(v: float | None, digits: int = 1) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|",
            *["| " + " | ".join(r) + " |" for r in rows]]


def done_results(run: SuiteRun, bname: str) -> dict[str, list[TaskResult]]:
    """Model name -> its task results on `bname`, suite order, models whose cell finished only."""
    out: dict[str, list[TaskResult]] = {}
    for m in run.suite.models:
        cell = run.cells.get((m.name, bname))
        if cell is not None and cell.status == "done" and cell.results:
            out[m.name] = cell.results
    return out
