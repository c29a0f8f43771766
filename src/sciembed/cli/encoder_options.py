"""The encoder options of every command that loads an encoder (`index build`, `encode`, `index serve`, `eval run`),
and the one `EncoderSpec` they make (`encoder_spec`).

`-m/--model` itself is `options.ModelSpec` / `options.IndexModelSpec`, like every command's. An embeddings
server's timeout and retries are run-time settings, not the spec's: $SCIEMBED_EMBEDDINGS_TIMEOUT and
$SCIEMBED_EMBEDDINGS_RETRIES.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, TypeVar

import typer

from sciembed.cli.errors import fail
from sciembed.cli.option_groups import option_group
from sciembed.llm.cli_options import EmbeddingsApiKeyEnv, EmbeddingsBaseUrl, EmbeddingsDimensions
from sciembed.models.spec import EncoderSpec

PANEL = "Encoder (the EncoderSpec the index manifest stores)"

Backend = Annotated[str, typer.Option(
    "--backend", rich_help_panel=PANEL, help="torch | onnx | openai (an OpenAI-compatible /v1/embeddings server: "
    "--embeddings-base-url; --model is its model name).")]
IndexBackend = Annotated[str, typer.Option(
    "--backend", rich_help_panel=PANEL, help="auto | torch | onnx | openai (an OpenAI-compatible /v1/embeddings "
    "server: --embeddings-base-url; --model is its model name). auto: ONNX int8 on a CPU for MiniLM (measured 3.8x "
    "torch's speed within 0.7 NDCG points, benchmarks/results/encode.json), else torch.")]
ServedBackend = Annotated[str | None, typer.Option(
    "--backend", rich_help_panel=PANEL, help="torch | onnx for query encoding (default: the index's); onnx must "
    "match the index.")]
Quantize = Annotated[bool, typer.Option("--quantize", rich_help_panel=PANEL,
                                        help="int8 dynamic quantization (ONNX backend).")]
MaxSeqLength = Annotated[int | None, typer.Option("--max-seq-length", min=1, rich_help_panel=PANEL,
                                                  help="Token budget (default: the model's).")]
Prefix = Annotated[str | None, typer.Option("--prefix", rich_help_panel=PANEL, help="Text prepended to every input.")]
Metric = Annotated[str | None, typer.Option("--metric", rich_help_panel=PANEL,
                                            help="cosine | l2 (default: the model card's, else cosine).")]
Pooling = Annotated[str | None, typer.Option("--pooling", rich_help_panel=PANEL,
                                             help="cls | mean instead of the model's own pooling.")]
TaJoin = Annotated[str | None, typer.Option("--ta-join", rich_help_panel=PANEL,
                                            help="Between title and abstract: '. ' or 'sep' (the tokenizer's "
                                                 "separator).")]
Adapter = Annotated[str | None, typer.Option("--adapter", rich_help_panel=PANEL,
                                             help="Adapter hub id or directory (torch backend; `adapters` extra).")]
Target = Annotated[int | None, typer.Option("--target", min=1, help="Window words (default 0.7 × max_seq_length).")]

F = TypeVar("F", bound=Callable[..., Any])
MEASURED_ONNX_MODELS = frozenset({"minilm", "default", "all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"})

__all__ = ["Adapter", "Backend", "EmbeddingsApiKeyEnv", "EmbeddingsBaseUrl", "EmbeddingsDimensions", "EncoderOptions",
           "IndexBackend", "MaxSeqLength", "Metric", "Pooling", "Prefix", "Quantize", "ServedBackend", "TaJoin",
           "Target", "encoder_options", "encoder_spec", "resolve_backend"]


@dataclass(frozen=True)
class EncoderOptions:
    """The encoder options of one command line: backend, quantize and the rest by the name `encoder_spec` takes
    (``max_seq_length``, ``prefix``, …, ``embeddings_base_url``; None: not given)."""

    backend: str | None = "torch"
    quantize: bool = False
    given: dict[str, Any] = field(default_factory=dict)

    def spec(self, model: str, base: EncoderSpec | None = None) -> EncoderSpec:
        """The `EncoderSpec` of `model` with these options (`encoder_spec`)."""
        return encoder_spec(model, self.backend, self.quantize, base=base, **self.given)


def _encoder_options_of(backend: str | None, quantize: bool, **given: Any) -> EncoderOptions:
    return EncoderOptions(backend, quantize, given)


def encoder_options(backend: Any = Backend, default: str | None = "torch", *,
                    endpoint: bool = True) -> Callable[[F], F]:
    """Decorator: the command's ``encoder: EncoderOptions`` parameter becomes --backend (the `backend` type, its
    `default`), --quantize, --max-seq-length, --prefix, --metric, --pooling, --ta-join, --adapter and, with
    `endpoint`, the --embeddings-* options."""
    options: dict[str, tuple[Any, Any]] = {
        "backend": (backend, default), "quantize": (Quantize, False), "max_seq_length": (MaxSeqLength, None),
        "prefix": (Prefix, None), "metric": (Metric, None), "pooling": (Pooling, None), "ta_join": (TaJoin, None),
        "adapter": (Adapter, None)}
    if endpoint:
        options |= {"embeddings_base_url": (EmbeddingsBaseUrl, None),
                    "embeddings_api_key_env": (EmbeddingsApiKeyEnv, None),
                    "embeddings_dimensions": (EmbeddingsDimensions, None)}
    return option_group("encoder", _encoder_options_of, options)


def resolve_backend(backend: str, quantize: bool, model: str) -> tuple[str, bool]:
    """(backend, quantize) for `--backend auto`: ONNX int8 where it was measured to keep quality (MiniLM on a
    CPU with the onnx extra installed), else torch; any other `backend` is kept as given."""
    if backend != "auto":
        return backend, quantize
    import importlib.util

    if model.strip().lower() not in MEASURED_ONNX_MODELS or importlib.util.find_spec("optimum") is None:
        return "torch", quantize
    import torch

    return ("torch", quantize) if torch.cuda.is_available() else ("onnx", True)


def encoder_spec(model: str, backend: str | None = "torch", quantize: bool = False, *, base: EncoderSpec | None = None,
                 **options: Any) -> EncoderSpec:
    """The one `EncoderSpec` of a command line: `base` (default: a fresh spec) with the options given (None: not
    given); `backend` auto resolved (`resolve_backend`); `embeddings_*` options named as the spec names them.
    A bad value is one `fail` line."""
    from pydantic import ValidationError

    backend, quantize = resolve_backend(backend, quantize, model) if backend else (backend, quantize)
    renamed = {key.removeprefix("embeddings_"): value for key, value in options.items()}
    try:
        return (base or EncoderSpec()).replace(model=model, backend=backend, quantize=quantize or None, **renamed)
    except ValidationError as err:
        problems = "; ".join(f"--{'-'.join(map(str, e['loc'])).replace('_', '-')}: {e['msg']}" for e in err.errors())
        fail(problems)
