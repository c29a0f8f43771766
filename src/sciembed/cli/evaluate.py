"""`sciembed eval run` (models × scenarios on one benchmark) and `sciembed eval compare` (two runs, paired tests)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sciembed.cli.encoder_options import PANEL, EncoderOptions, encoder_options
from sciembed.cli.errors import fail, failing
from sciembed.cli.groups import eval_app
from sciembed.cli.options import BatchSize, CacheDir, EntryConfigFile, ModelSpecs, OutDir, Overwrite, Seed, comma_list
from sciembed.errors import SciembedInputError
from sciembed.evaluation.benchmarks.registry import BENCHMARKS, BenchmarkEntry

EVAL_HELP = (
    "Evaluate one or more models (and `bm25`) on one benchmark: a suite of one, run and reported exactly as "
    "`sciembed eval suite` runs it.\n\n"
    "PATH is the benchmark; --kind says what it is (default: citation, a built corpus). The kind's options come "
    "from -c ENTRY.yaml (a suite's benchmark entry) and --set KEY=VALUE (repeatable; lists comma-separated), "
    "and an option the kind does not read is an error. Kinds and their options: "
    + "; ".join(f"{k.name} ({', '.join(sorted(k.options)) or 'none'})" for k in BENCHMARKS.values())
    + ".\n\nWrites results.json, report.md, benchmarks/<name>.md, cells/ (reused by the next run) and TREC run "
    "files into --out."
)
COMPARE_HELP = (
    "Compare two evaluation runs metric by metric, with paired significance (B − A).\n\n"
    "RUN_A and RUN_B are directories written by `sciembed eval` or `sciembed eval suite` on the same benchmark."
)
RUN_SPEC_FIELDS = ("model", "max_seq_length", "metric")  # a suite model entry's own fields, not load options


def benchmark_entry(path: Path, kind: str | None, config: Path | None, sets: list[str]) -> BenchmarkEntry:
    """The suite entry the command line describes: ENTRY.yaml's options, then --set's, checked against the kind."""
    from sciembed.evaluation.benchmarks.registry import check_options
    from sciembed.evaluation.issues import BenchmarkError
    from sciembed.ioutil.yaml_config import read_yaml_mapping, validate_model
    from sciembed.training.config import parse_overrides

    options = read_yaml_mapping(config, BenchmarkError, "benchmark entry") if config else {}
    for key, value in parse_overrides(sets).items():
        field = BenchmarkEntry.model_fields.get(key)
        listed = field is not None and "list" in str(field.annotation) and isinstance(value, str)
        options[key] = comma_list(value) if listed else value
    kind = kind or options.get("kind") or "citation"
    entry = {"name": Path(path).name or kind, **options, "kind": kind, "path": str(path)}
    checked = validate_model(BenchmarkEntry, entry, str(config or "--set"), BenchmarkError)
    check_options(checked)
    return checked


@encoder_options()
def eval_command(
    path: Path = typer.Argument(..., help="The benchmark: a built corpus, a BEIR folder, a pools file, …"),
    model: ModelSpecs = ...,
    out: OutDir = ...,
    kind: str | None = typer.Option(None, "--kind", help="Benchmark kind (default citation); see --help above."),
    config: EntryConfigFile = None,
    sets: list[str] = typer.Option([], "--set", help="A kind's option, KEY=VALUE (repeatable): --set split=val."),
    cache_dir: CacheDir = None,
    batch_size: BatchSize = None,
    run_depth: int = typer.Option(100, min=0, help="TREC run files cut at this rank (0: none)."),
    overwrite: Overwrite = False,
    encoder: EncoderOptions = EncoderOptions(),
    device: str | None = typer.Option(None, rich_help_panel=PANEL, help="cpu, cuda, … (default: the fastest)."),
) -> None:
    from sciembed.cli.bench import print_suite_run
    from sciembed.evaluation.bench import Suite, run_suite, write_suite_report
    from sciembed.evaluation.bench.suite import SuiteError
    from sciembed.ioutil.atomic import check_writable
    from sciembed.ioutil.yaml_config import validate_model

    entry = benchmark_entry(path, kind, config, sets)
    spec = encoder.spec("minilm")
    given = {k: v for k, v in spec.model_dump(exclude_defaults=True).items() if k != "model"}
    if device is not None:
        given["device"] = device
    if given and all(m.lower() == "bm25" for m in model):
        fail(f"model option(s) {', '.join(sorted(given))} do not apply to bm25")
    options = {k: v for k, v in given.items() if k not in RUN_SPEC_FIELDS}
    dense = {"options": options, "distance": spec.metric}
    models = [{"name": m, "model": m, "max_seq_length": encoder.given["max_seq_length"],
               **(dense if m.lower() != "bm25" else {})} for m in model]
    suite = validate_model(Suite, {"out": str(out), "cache": str(cache_dir) if cache_dir else None,
                                   "batch_size": batch_size, "run_depth": run_depth, "models": models,
                                   "benchmarks": [entry.model_dump(exclude_unset=True)]}, "the command line",
                           SuiteError)
    check_writable(out)  # before any encoding: an unwritable --out fails now, not after all the work
    console = Console()
    run = run_suite(suite, force=overwrite, say=lambda line: console.print(escape(line), highlight=False),
                    keep_going=False)
    print_suite_run(run, write_suite_report(run), console)


def eval_table(cells) -> Table:
    """In-process cells (`sciembed demo`): each scenario's primary metric, ×100."""
    from sciembed.evaluation.keys import key_label, normalize_key
    from sciembed.evaluation.metrics import metric_label

    tasks = [r for r in cells[0].results if r.kind != "geometry"]
    table = Table(title=f"{metric_label(tasks[0].primary)} ×100" if tasks else "×100")
    table.add_column("Model")
    for r in tasks:
        table.add_column(f"{key_label(normalize_key(r.task))}\n(n={r.counts.get('queries', '–')})", justify="right")
    for cell in cells:
        table.add_row(cell.model, *[f"{cell.result(r.task).score:.1f}" for r in tasks])
    return table


def compare_command(run_a: Path = typer.Argument(..., help="Run directory A (the baseline)."),
                    run_b: Path = typer.Argument(..., help="Run directory B."),
                    model_a: str | None = typer.Option(None, help="Model in A (default: its first)."),
                    model_b: str | None = typer.Option(None, help="Model in B (default: its first)."),
                    test: str = typer.Option("student", help="student (paired t-test) | fisher (randomization)."),
                    metric: list[str] | None = typer.Option(None, help="Metrics to compare (default: all)."),
                    max_p: float = typer.Option(0.05, help="Significance level."),
                    permutations: int = typer.Option(1000, help="Permutations of the Fisher test."),
                    seed: Seed = 42) -> None:
    from sciembed.evaluation import compare_runs
    from sciembed.evaluation.metrics import metric_label

    with failing(SciembedInputError, ValueError):
        result = compare_runs(run_a, run_b, model_a=model_a, model_b=model_b, test=test,
                              metrics=tuple(metric) if metric else None, max_p=max_p,
                              n_permutations=permutations, seed=seed)
    console = Console()
    title = f"{result.model_b} (B) vs {result.model_a} (A), ×100, {result.test} test, * p ≤ {max_p}"
    table = Table(title=title)
    for column in ("Scenario", "Metric", "A", "B", "Δ", "p", "n"):
        table.add_column(column, justify="left" if column in ("Scenario", "Metric") else "right")
    for label, r in result.rows:
        star = " *" if r.significant(max_p) else ""
        colour = "green" if r.delta > 0 and star else "red" if r.delta < 0 and star else "default"
        table.add_row(label, metric_label(r.metric), f"{100 * r.mean_a:.1f}", f"{100 * r.mean_b:.1f}",
                      f"[{colour}]{100 * r.delta:+.1f}{star}[/{colour}]", f"{r.p_value:.3g}", str(r.n))
    console.print(table)
    for label, (n_a, n_b, paired) in result.unpaired.items():
        console.print(f"[yellow]{label}[/yellow]: A scored {n_a} queries, B {n_b}; {paired} paired", highlight=False)
    if result.only_a or result.only_b:
        console.print(f"not compared: only in A {result.only_a or '-'}; only in B {result.only_b or '-'}")


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the app."""
    eval_app.command("run", help=EVAL_HELP)(eval_command)
    eval_app.command("compare", help=COMPARE_HELP)(compare_command)
