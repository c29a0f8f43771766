"""The ``--llm-*`` options every command that calls an LLM shares, and the config they make.

Declare them as parameters with these ``Annotated`` types and build the config in one call::

    def command(..., llm_base_url: LLMBaseUrl = None, llm_model: LLMModel = None,
                llm_api_key_env: LLMApiKeyEnv = DEFAULT_API_KEY_ENV, llm_cache: LLMCachePath = None,
                llm_cache_only: LLMCacheOnly = False, llm_concurrency: LLMConcurrency = 4,
                llm_timeout: LLMTimeout = 60.0, llm_retries: LLMRetries = 5):
        config = llm_config(llm_base_url, llm_model, llm_api_key_env, llm_cache, llm_cache_only,
                            llm_concurrency, llm_timeout, llm_retries)
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sciembed.llm.config import (
    DEFAULT_API_KEY_ENV,
    LLMConfig,
)

_PANEL = "LLM endpoint"

LLMBaseUrl = Annotated[str | None, typer.Option(
    "--llm-base-url", envvar="SCIEMBED_LLM_BASE_URL", rich_help_panel=_PANEL,
    help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (vLLM, llama.cpp, Ollama, hosted).")]
LLMModel = Annotated[str | None, typer.Option(
    "--llm-model", envvar="SCIEMBED_LLM_MODEL", rich_help_panel=_PANEL,
    help="Model name sent to the endpoint; part of every cache key.")]
LLMApiKeyEnv = Annotated[str, typer.Option(
    "--llm-api-key-env", rich_help_panel=_PANEL,
    help="Name of the environment variable holding the API key (the key itself is never stored).")]
LLMCachePath = Annotated[Path | None, typer.Option(
    "--llm-cache", rich_help_panel=_PANEL, help="SQLite cache file of replies (copy it to replay elsewhere).")]
LLMCacheOnly = Annotated[bool, typer.Option(
    "--llm-cache-only", rich_help_panel=_PANEL, help="Answer from the cache only; fail on a miss, send nothing.")]
LLMConcurrency = Annotated[int, typer.Option(
    "--llm-concurrency", min=1, rich_help_panel=_PANEL, help="Requests in flight at once.")]
LLMTimeout = Annotated[float, typer.Option(
    "--llm-timeout", min=0.001, rich_help_panel=_PANEL,
    help="Seconds for a whole request, reply included, before it counts as timed out.")]
LLMRetries = Annotated[int, typer.Option(
    "--llm-retries", min=0, rich_help_panel=_PANEL, help="Retries on 429 / 5xx / timeouts, with exponential backoff.")]

_EMBEDDINGS_PANEL = "Embeddings endpoint (--backend openai)"
EmbeddingsBaseUrl = Annotated[str | None, typer.Option(
    "--embeddings-base-url", rich_help_panel=_EMBEDDINGS_PANEL,
    help="OpenAI-compatible /v1/embeddings server for --backend openai, e.g. http://127.0.0.1:8080/v1 "
         "(text-embeddings-inference, vLLM, infinity, OpenAI); --model is the served model's name.")]
EmbeddingsApiKeyEnv = Annotated[str | None, typer.Option(
    "--embeddings-api-key-env", rich_help_panel=_EMBEDDINGS_PANEL,
    help=f"Name of the environment variable holding the embeddings server's API key (default {DEFAULT_API_KEY_ENV};"
         " the key itself is never stored).")]
EmbeddingsDimensions = Annotated[int | None, typer.Option(
    "--embeddings-dimensions", min=1, rich_help_panel=_EMBEDDINGS_PANEL,
    help="Ask the server for vectors of this size (models that can shorten theirs, e.g. text-embedding-3-*).")]


def llm_config(base_url: str | None, model: str | None, api_key_env: str = DEFAULT_API_KEY_ENV,
               cache: Path | None = None, cache_only: bool = False, concurrency: int = 4,
               timeout: float = 60.0, retries: int = 5) -> LLMConfig:
    return LLMConfig(base_url=base_url, model=model, api_key_env=api_key_env, cache_path=cache,
                     cache_only=cache_only, concurrency=concurrency, timeout_s=timeout, max_retries=retries)


def llm_requested(base_url: str | None, cache: Path | None, cache_only: bool) -> bool:
    """Whether the user asked for an LLM at all (otherwise commands use their extractive fallback)."""
    return bool(base_url) or cache_only or (cache is not None and Path(cache).exists())
