"""`sciembed bench SUITE.yaml`: models × benchmarks → one report (resumable)."""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

console = Console()


def bench_cmd(
    suite_file: Path = typer.Argument(..., help="Suite YAML: models, benchmarks, out (see configs/bench-*.yaml)."),
    out: str | None = typer.Option(None, help="Output directory (overrides the suite's `out`)."),
    cache: str | None = typer.Option(None, help="Shared embedding cache (overrides the suite's `cache`)."),
    baseline: str | None = typer.Option(None, help="Model the others are tested against (default: the first)."),
    force: bool = typer.Option(False, help="Recompute every cell instead of reusing finished ones."),
) -> None:
    """Run every model on every benchmark; finished (model, benchmark) cells are reused."""
    from sciembed.evaluation.bench import SuiteError, load_suite, run_suite, write_suite_report
    from sciembed.evaluation.bench.report import columns, value
    from sciembed.evaluation.issues import BenchmarkError

    start = time.perf_counter()
    try:
        suite = load_suite(suite_file, {"out": out, "cache": cache, "baseline": baseline})
        suite.baseline_name()
        run = run_suite(suite, force=force, say=lambda line: console.print(escape(line), highlight=False))
    except (SuiteError, BenchmarkError) as exc:
        Console(stderr=True, soft_wrap=True).print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from exc
    report = write_suite_report(run)
    cols = columns(run)
    table = Table(title="headline scores ×100")
    table.add_column("model")
    for b, k in cols:
        table.add_column(f"{b}\n{k}", justify="right")
    for m in suite.models:
        table.add_row(m.name, *["–" if (v := value(run, m.name, c)) is None else f"{v:.1f}" for c in cols])
    console.print(table)
    for name, why in run.missing.items():
        console.print(f"missing benchmark {escape(name)}: {escape(why)}", highlight=False)
    console.print(f"cells computed {run.computed}, reused {len(run.cells) - run.computed}; "
                  f"report: {escape(str(report))}; wall time {time.perf_counter() - start:.1f} s", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("bench")(bench_cmd)
