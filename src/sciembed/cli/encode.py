"""`sciembed encode`: a corpus's views → vector shards (Parquet), in one process or on a Ray cluster."""

from __future__ import annotations

from pathlib import Path

import typer

from sciembed.cli.encoder_options import EncoderOptions, Target, encoder_options
from sciembed.cli.errors import failing
from sciembed.cli.options import FixedBatchSize, ModelSpec, Progress, SegmentTokens, VectorsOutDir, comma_list


@encoder_options()
def encode_cmd(
    corpus: Path = typer.Argument(...,
                                  help="Corpus directory (papers.parquet), as written by `sciembed corpus ingest`."),
    out: VectorsOutDir = ...,
    views: str = typer.Option("ta", "--views",
                              help="Comma-separated view kinds: ta, window, section, ta+section, chunk, segment."),
    model: ModelSpec = "minilm",
    encoder: EncoderOptions = EncoderOptions(),
    target: Target = None,
    segment_tokens: SegmentTokens = 3000,
    batch_size: FixedBatchSize = 32,
    shard_papers: int = typer.Option(1000, "--shard-papers", min=1, help="Papers per shard (the unit of resuming)."),
    ray: str | None = typer.Option(None, "--ray", help="Encode on a Ray cluster: auto (the running one), local "
                                   "(start one here) or an address. Default: this process."),
    actors: int = typer.Option(0, "--actors", min=0, help="Encoder actors on Ray (0: one per GPU, else one per "
                               "--cpus-per-actor CPUs)."),
    cpus_per_actor: float = typer.Option(1.0, "--cpus-per-actor", min=0.1, help="CPUs (torch threads) per CPU actor."),
    progress: Progress = True,
) -> None:
    """Encode every view of every paper into resumable Parquet shards (paper id, view id, kind, vector)."""
    from rich.console import Console

    from sciembed.index.encode.run import encode_corpus

    load = encoder.spec(model).load_kwargs()
    with failing():
        result = encode_corpus(corpus, out, kinds=comma_list(views), load=load, target=target,
                               segment_tokens=segment_tokens, batch_size=batch_size, shard_papers=shard_papers, ray=ray,
                               actors=actors, cpus_per_actor=cpus_per_actor, show_progress=progress)
    kinds = ", ".join(f"{k} {n}" for k, n in result.views.items()) or "none"
    where = ("this process" if ray is None else
             f"Ray ({result.runner['actors']} {'GPU' if result.runner['gpu'] else 'CPU'} actors)")
    Console().print(f"encoded {result.papers} papers ({result.papers_with_views} with views): {kinds} views in "
                    f"{result.shards} shards ({result.resumed} already done) on {where} in {result.seconds:.1f} s "
                    f"-> {out}", highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the app."""
    app.command("encode")(encode_cmd)
