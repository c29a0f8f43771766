"""`sciembed eval s2and-inputs`: the embeddings S2AND's own pipeline reads, and the command that runs it."""

from __future__ import annotations

from pathlib import Path

import typer

from sciembed.cli.errors import failing
from sciembed.cli.groups import eval_app
from sciembed.cli.options import CacheDir, ModelSpec

HELP = ("Write <ds>/<ds>_<suffix>.pkl for every S2AND dataset under DATA (SciRepEval's S2AND folder: "
        "aws s3 --no-sign-request sync s3://ai2-s2-research-public/scirepeval/test/s2and DATA), every paper of "
        "<ds>_papers.json embedded as title [SEP] abstract, and print the S2AND command SciRepEval runs on them. "
        "Its results folder, given to `eval run --kind scirepeval ROOT --set s2and_results=DIR`, is the S2AND "
        "number that enters the averages; without it the suite's S2AND is embedding-only and left out of them.")


def s2and_inputs_command(
    data: Path = typer.Argument(..., help="S2AND data folder (<ds>/<ds>_papers.json, _signatures.json, …)."),
    model: ModelSpec = "minilm",
    suffix: str = typer.Option(..., "--suffix", help="Embedding file name: <ds>_<suffix>.pkl (S2AND's "
                                                       "--emb_suffix _<suffix>.pkl)."),
    experiment: str = typer.Option("sciembed", "--experiment", help="S2AND's --experiment_name in the command."),
    cache_dir: CacheDir = None,
) -> None:
    from sciembed.evaluation.issues import BenchmarkError
    from sciembed.evaluation.scirepeval.s2and_official import official_command, write_official_inputs
    from sciembed.evaluation.scorers import DenseScorer
    from sciembed.models import ModelLoadError, load_encoder

    with failing(BenchmarkError, ModelLoadError):
        scorer = DenseScorer(load_encoder(model, cache_dir=cache_dir))
        sep = scorer.style().sep
        written = write_official_inputs(data, scorer.embed, suffix, sep=f" {sep} " if sep != "." else " ")
    for path in written:
        typer.echo(f"wrote {path}")
    typer.echo("then, in an S2AND checkout whose data/path_config.json main_data_dir is this folder:")
    typer.echo(f"  {official_command(data, experiment, suffix)}")
    typer.echo(f"and score with: --set s2and_results={Path(data) / 'experiments' / experiment}")


def register(app: typer.Typer) -> None:
    eval_app.command("s2and-inputs", help=HELP)(s2and_inputs_command)
