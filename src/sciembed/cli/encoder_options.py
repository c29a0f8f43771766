"""The options that load an encoder, shared by the commands that encode (`index build`, `encode`).

`-m/--model` itself is `options.ModelSpec` / `options.IndexModelSpec`, like every command's.
"""

from __future__ import annotations

import typer

BACKEND = typer.Option("torch", "--backend", help="torch | onnx | openai (an OpenAI-compatible /v1/embeddings "
                        "server: --embeddings-base-url; --model is its model name)")
QUANTIZE = typer.Option(False, "--quantize", help="int8 dynamic quantization (ONNX backend).")
MAX_SEQ_LENGTH = typer.Option(None, "--max-seq-length", help="Token budget (model default).")
PREFIX = typer.Option("", "--prefix", help="Text prepended to every input.")
METRIC = typer.Option(None, "--metric", help="cosine | l2 (default: the model card's, else cosine)")
TARGET = typer.Option(None, "--target", min=1, help="Window words (default 0.7 × max_seq_length).")
