"""`sciembed eval suite SUITE.yaml`: models × benchmarks → one report (resumable)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sciembed.cli.groups import eval_app
from sciembed.cli.options import CacheDir, Overwrite, SuiteOutDir

console = Console()


def bench_cmd(
    ctx: typer.Context,
    suite_file: Path = typer.Argument(..., help="Suite YAML: models, benchmarks, out (see configs/bench-*.yaml)."),
    out: SuiteOutDir = None,
    cache_dir: CacheDir = None,
    baseline: str | None = typer.Option(None, help="Model the others are tested against (default: the first)."),
    overwrite: Overwrite = False,
) -> None:
    """Run every model on every benchmark; finished (model, benchmark) cells are reused (--overwrite: recompute)."""
    from sciembed.evaluation.bench import load_suite, run_suite, write_suite_report

    start = time.perf_counter()
    suite = load_suite(suite_file, {"out": str(out) if out else None, "cache": str(cache_dir) if cache_dir else None,
                                    "baseline": baseline})
    suite.baseline_name()
    run = run_suite(suite, force=overwrite, say=lambda line: console.print(escape(line), highlight=False))
    print_suite_run(run, write_suite_report(run), console, time.perf_counter() - start)


def print_suite_run(run: Any, report: Path, console: Console, seconds: float | None = None) -> None:
    """The headline table (models × benchmark columns), what is missing, and where the report is."""
    from sciembed.evaluation.bench.report import columns, input_issues, value
    from sciembed.evaluation.metrics import metric_label

    cols = columns(run)
    table = Table(title="headline scores ×100 (each benchmark's primary metric, named under its column)")
    table.add_column("model")
    for b, k in cols:
        primary = getattr(run.benchmarks.get(b), "primary", None)
        table.add_column(f"{b}\n{k}" + (f"\n{metric_label(primary)}" if isinstance(primary, str) else ""),
                         justify="right")
    for m in run.suite.models:
        table.add_row(m.name, *["–" if (v := value(run, m.name, c)) is None else f"{v:.1f}" for c in cols])
    console.print(table)
    for name, why in run.missing.items():
        console.print(f"missing benchmark {escape(name)}: {escape(why)}", highlight=False)
    for (model, bname), cell in run.cells.items():
        for result in cell.results:
            for note in result.notes:
                console.print(f"[yellow]{escape(model)} × {escape(bname)}, {escape(result.task)}: {escape(note)}"
                              "[/yellow]", highlight=False, soft_wrap=True)
        if cell.status != "done":
            console.print(f"[red]{escape(model)} × {escape(bname)}: {escape(cell.error or 'error')}[/red]",
                          highlight=False, soft_wrap=True)
    for bname, bench in run.benchmarks.items():
        issues = input_issues(bench.describe())
        if issues:
            console.print(f"[yellow]{bname}: {sum(i['count'] for i in issues)} input problems[/yellow] "
                          "(all listed in the report):", highlight=False)
            for issue in issues[:10]:
                console.print(f"  [yellow]{escape(issue['message'])}[/yellow]", highlight=False, soft_wrap=True)
    wall = f"; wall time {seconds:.1f} s" if seconds is not None else ""
    console.print(f"cells computed {run.computed}, reused {len(run.cells) - run.computed}; "
                  f"report: {escape(str(report))}{wall}", highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    eval_app.command("suite")(bench_cmd)
