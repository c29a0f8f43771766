"""The options that load an encoder, shared by the commands that encode (`index build`, `encode`).

`-m/--model` itself is `options.ModelSpec` / `options.IndexModelSpec`, like every command's.
"""

from __future__ import annotations

import typer

BACKEND = typer.Option("torch", "--backend", help="torch | onnx | openai (an OpenAI-compatible /v1/embeddings "
                        "server: --embeddings-base-url; --model is its model name)")
INDEX_BACKEND = typer.Option(
    "auto", "--backend", help="auto | torch | onnx | openai (an OpenAI-compatible /v1/embeddings server: "
    "--embeddings-base-url; --model is its model name). auto: ONNX int8 on a CPU for MiniLM (measured 3.8x torch's "
    "speed within 0.7 NDCG points, benchmarks/results/encode.json), else torch.")
QUANTIZE = typer.Option(False, "--quantize", help="int8 dynamic quantization (ONNX backend).")
MAX_SEQ_LENGTH = typer.Option(None, "--max-seq-length", help="Token budget (model default).")
PREFIX = typer.Option("", "--prefix", help="Text prepended to every input.")
METRIC = typer.Option(None, "--metric", help="cosine | l2 (default: the model card's, else cosine)")
TARGET = typer.Option(None, "--target", min=1, help="Window words (default 0.7 × max_seq_length).")


MEASURED_ONNX_MODELS = frozenset({"minilm", "default", "all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"})


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
