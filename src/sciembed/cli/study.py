"""`sciembed study s2full` (the four S2Full strategies against ta_ta, base, SPECTER2, BM25) and `sciembed study
real` (every recipe trained and evaluated on real papers)."""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from sciembed.cli.errors import failing
from sciembed.cli.options import RealStudyConfigFile, StudyConfigFile, StudyOutDir
from sciembed.errors import SciembedInputError
from sciembed.ioutil.yaml_config import packaged_config

study_app = typer.Typer(help="Paper experiments in one command (resumable).", no_args_is_help=True)


@study_app.command("s2full")
def s2full_cmd(
    corpus: Path = typer.Argument(..., help="Built corpus directory (train and test splits)."),
    config: StudyConfigFile = None,
    out: StudyOutDir = ...,
    sets: list[str] = typer.Option([], "--set", help="Override a window-config key in every arm: "
                                                     "--set training.max_steps=30"),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Progress bars while encoding."),
) -> None:
    """Train both_random, ta_ta, anchor_random_pos_ta and no_ta_ta with the same data, steps and seed; evaluate
    them with the base encoder, SPECTER2 (if installed) and BM25 on every scenario and body mode; write study.md."""
    from rich.table import Table

    from sciembed.experiments.study import load_study, run_study
    from sciembed.training.config import parse_overrides

    console = Console()
    start = time.perf_counter()
    with failing(SciembedInputError):
        plan = load_study(config, parse_overrides(sets))
        result = run_study(plan, corpus, out, log=lambda line: console.print(escape(line), highlight=False),
                           show_progress=progress)
    table = Table(title="NDCG@10 ×100 (windowed | full body)")
    table.add_column("Model")
    for label in ("TA→TA", "Body→TA", "Body→Body"):
        table.add_column(label, justify="right")
    rows: dict[str, dict] = {}
    for row in result.table:
        rows.setdefault(row["model"], {})[row["body_mode"]] = row
    for name, modes in rows.items():
        w, f = modes.get("windowed", {}), modes.get("full", {})
        table.add_row(name, _pct(w.get("ta_ta_ndcg@10")),
                      *[f"{_pct(w.get(k))} | {_pct(f.get(k))}" for k in ("body_ta_ndcg@10", "body_body_ndcg@10")])
    console.print(table)
    console.print(f"trained: {', '.join(result.trained) or 'none'}; reused: {', '.join(result.reused) or 'none'}; "
                  f"not evaluated: {', '.join(result.skipped) or 'none'}", highlight=False)
    console.print(f"report: {escape(str(result.report))}  (wall time {time.perf_counter() - start:.0f} s)",
                  highlight=False, soft_wrap=True)


@study_app.command("real")
def real_cmd(
    config: RealStudyConfigFile = packaged_config("study-real.yaml"),
    out: StudyOutDir = ...,
    arms: list[str] = typer.Option([], "--arm", help="Only these arms (repeatable); default: every arm."),
    results: Path | None = typer.Option(None, "--results", help=(
        "Also copy the suite's whole results.json here (with per-query scores; benchmarks/real_acl_summary.py "
        "writes the committed summary).")),
) -> None:
    """Real papers end to end: ingest the TEI, build, train every arm, evaluate base, BM25 and every arm through
    `eval suite` (paired t-tests against the base, each paper's ablation against its arm); resumable; writes
    <out>/suite.yaml and the suite's report under <out>/eval."""
    from sciembed.cli.bench import print_suite_run
    from sciembed.experiments.real_study import load_real_study, run_real_study

    console = Console()
    start = time.perf_counter()
    with failing(SciembedInputError):
        study = load_real_study(config)
        run = run_real_study(study, out, say=lambda line: console.print(escape(line), highlight=False),
                             only=tuple(arms))
    if results is not None:
        results.parent.mkdir(parents=True, exist_ok=True)
        results.write_text((run.out / "results.json").read_text())
    print_suite_run(run, run.out / "report.md", console, time.perf_counter() - start)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def register(app: typer.Typer) -> None:
    app.add_typer(study_app, name="study")
