"""The options every `sciembed` command spells the same way, as ``Annotated`` types (the `llm/cli_options.py` way).

    def command(out: OutDir, model: ModelSpecs, batch_size: BatchSize = None, seed: Seed = 0, ...): ...

A command whose option needs its own help text uses a variant (`CorpusOutDir`, `TrainBatchSize`, …) with
its base's flags and kind of value, so no command spells one inline; `tests/cli/test_vocabulary.py` holds
every command to it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

OUT = ("--out", "-o")
MODEL = ("--model", "-m")
CONFIG = ("--config", "-c")

# -o/--out: a path the command writes
OutDir = Annotated[Path, typer.Option(*OUT, help="Output directory (created if missing).")]
OutFile = Annotated[Path, typer.Option(*OUT, help="Output file (its directory is created if missing).")]
CorpusOutDir = Annotated[Path, typer.Option(*OUT, help="Corpus directory to write (papers.parquet, manifest.json, …).")]
VectorsOutDir = Annotated[Path, typer.Option(
    *OUT, help="Vectors directory: shard-*.parquet, encode.json, manifest.json. Run the same command again to "
               "resume a killed run.")]
IndexOutDir = Annotated[Path, typer.Option(*OUT, help="Index directory to write.")]
StudyOutDir = Annotated[Path, typer.Option(
    *OUT, help="Study directory: every stage's output and the report (a re-run reuses what is done).")]
RunOutDir = Annotated[Path | None, typer.Option(
    *OUT, help="Run directory: checkpoints, curves, final model (required except with --dry-run).")]
FreshOutDir = Annotated[Path, typer.Option(*OUT, help="Output directory (replaced if it exists).")]
StatsOutDir = Annotated[Path | None, typer.Option(
    *OUT, help="Where to write stats.json and lengths.png (default: CORPUS).")]
SuiteOutDir = Annotated[Path | None, typer.Option(*OUT, help="Output directory (overrides the suite's `out`).")]
ResultsOutFile = Annotated[Path | None, typer.Option(*OUT, help="Write the results to this file instead of stdout.")]

# -m/--model: a model spec
ModelSpecs = Annotated[list[str], typer.Option(
    *MODEL, help="Model: a directory, hub id, `minilm`, `bm25` or a training run directory; repeatable.")]
ModelSpec = Annotated[str, typer.Option(
    *MODEL, help="Model: a directory, hub id, `minilm` (offline default) or a training run directory.")]
IndexModelSpec = Annotated[str, typer.Option(
    *MODEL, help="Model: a directory, hub id, `minilm` (offline default), a training run directory, or `bm25` "
                 "(a BM25 index).")]
BaseModelSpec = Annotated[str | None, typer.Option(
    *MODEL, help="Base encoder: a directory or hub id (default: the offline MiniLM).")]
ServedModelSpec = Annotated[str | None, typer.Option(
    *MODEL, help="Model to serve with (default: the one the index was built with); another one is refused.")]

# -c/--config: a YAML file
ConfigFile = Annotated[Path | None, typer.Option(*CONFIG, help="YAML config file.")]
FunnelConfigFile = Annotated[Path | None, typer.Option(
    *CONFIG, help="Funnel config YAML; the flags below override it.")]
RecipeConfigFile = Annotated[Path | None, typer.Option(
    *CONFIG, help="Recipe YAML (configs/<recipe>*.yaml); the flags below and --set override it.")]
StudyConfigFile = Annotated[Path | None, typer.Option(
    *CONFIG, help="Study YAML (arms, baselines, evaluation) or a window config.")]
EntryConfigFile = Annotated[Path | None, typer.Option(
    *CONFIG, help="Benchmark entry YAML (as in a suite): the kind's options; --set overrides it.")]
ServeConfigFile = Annotated[Path | None, typer.Option(
    *CONFIG, help="Serve config YAML (limits, threads, batching; keys as --set); --set overrides it.")]
IngestConfigFile = Annotated[Path | None, typer.Option(
    *CONFIG, help="Ingest config YAML (how PDFs are read; keys as --set); --set overrides it.")]
RealStudyConfigFile = Annotated[Path, typer.Option(
    *CONFIG, help="Real-study YAML: source TEI folder, splits, evaluation, arms.")]

# --set: one key of the command's config model (what -c FILE.yaml holds)
ConfigSets = Annotated[list[str], typer.Option(
    "--set", metavar="KEY=VALUE", help="Set a key of the config (repeatable; the value is read as YAML; the "
    "keys are listed above). It wins over -c and is validated the same way.")]

CacheDir = Annotated[Path | None, typer.Option(
    "--cache-dir", help="Embedding cache directory (and ONNX exports): a re-run encodes only texts it has not seen.")]

# --batch-size: always a positive int
BatchSize = Annotated[int | None, typer.Option(
    "--batch-size", min=1, help="Texts per encoding batch (default: from the free GPU memory on CUDA, 32 on CPU).")]
FixedBatchSize = Annotated[int, typer.Option(
    "--batch-size", min=1, help="Texts per encoding batch (sorted by length).")]
ServeBatchSize = Annotated[int, typer.Option(
    "--batch-size", min=1, help="Texts encoded together (micro-batch of concurrent queries).")]
TrainBatchSize = Annotated[int | None, typer.Option(
    "--batch-size", min=1, help="training.batch_size: examples per optimizer step (in-batch negatives).")]

# --seed: always an int
Seed = Annotated[int, typer.Option("--seed", help="Seed of every random choice (samples, splits, tie order).")]
SeedOverride = Annotated[int | None, typer.Option(
    "--seed", help="Seed of every random choice (default: the config's).")]
PaperLogSeed = Annotated[int, typer.Option("--seed", help="Paper-log seed: which body section is the evaluated one.")]
SamplingSeed = Annotated[int, typer.Option(
    "--seed", help="Sampling seed sent to the server, offset by the sample index so the samples of a prompt differ "
                   "reproducibly.")]

SegmentTokens = Annotated[int, typer.Option(
    "--segment-tokens", min=1, help="Tokens per PRISM segment (the segment view).")]

Progress = Annotated[bool, typer.Option("--progress/--no-progress", help="Show a progress bar.")]
TrustRemoteCode = Annotated[bool, typer.Option(
    "--trust-remote-code", help="Run Python code shipped in the model directory (only for models you trust; also "
    "$SCIEMBED_TRUST_REMOTE_CODE=1); never read back from an index.")]

Overwrite = Annotated[bool, typer.Option("--overwrite", help="Replace what --out already holds.")]


def comma_list(value: str) -> list[str]:
    """A comma-separated option value (``--views ta,section``) as its non-empty, stripped parts."""
    return [part.strip() for part in value.split(",") if part.strip()]

