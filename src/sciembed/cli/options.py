"""The options every `sciembed` command spells the same way, as ``Annotated`` types (the `llm/cli_options.py` way).

    def command(out: OutDir, model: ModelSpecs, batch_size: BatchSize = None, seed: Seed = 0, ...): ...

`-o/--out` is where a command writes, `-m/--model` a model spec (a directory,
a hub id, ``minilm``, ``bm25`` or a training run directory), `-c/--config` a
YAML config, `--cache-dir` the embedding cache, `--batch-size` the encoding
batch, `--seed` the seed of every random choice and `--overwrite` permission
to replace what `--out` already holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

OutDir = Annotated[Path, typer.Option("--out", "-o", help="Output directory.")]
OutFile = Annotated[Path, typer.Option("--out", "-o", help="Output file.")]
ModelSpecs = Annotated[list[str], typer.Option(
    "--model", "-m", help="Model: a directory, hub id, `minilm`, `bm25` or a training run directory; repeatable.")]
ModelSpec = Annotated[str, typer.Option(
    "--model", "-m", help="Model: a directory, hub id, `minilm` or a training run directory.")]
ConfigFile = Annotated[Path | None, typer.Option("--config", "-c", help="YAML config file.")]
CacheDir = Annotated[Path | None, typer.Option(
    "--cache-dir", help="Embedding cache directory: a re-run encodes only texts it has not seen.")]
BatchSize = Annotated[int | None, typer.Option(
    "--batch-size", min=1, help="Texts per encoding batch (default: from the free GPU memory on CUDA, 32 on CPU).")]
Seed = Annotated[int, typer.Option("--seed", help="Seed of every random choice (samples, splits, tie order).")]
Overwrite = Annotated[bool, typer.Option("--overwrite", help="Replace what --out already holds.")]


def comma_list(value: str) -> list[str]:
    """A comma-separated option value (``--views ta,section``) as its non-empty, stripped parts."""
    return [part.strip() for part in value.split(",") if part.strip()]
