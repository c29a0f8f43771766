"""The ``--llm-*`` options every command that calls an LLM shares, and the config they make.

A command takes them as one `LLMOptions` (`sciembed.cli.option_groups.llm_options` declares them)::

    @llm_options(timeout=60.0)
    def command(..., llm: LLMOptions = LLMOptions()):
        config = llm.config() if llm.requested() else None
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from sciembed.llm.config import DEFAULT_API_KEY_ENV, DEFAULT_RETRIES, DEFAULT_TIMEOUT_S, LLMConfig

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
    help="An OpenAI-compatible /v1/embeddings server (TEI, vLLM, OpenAI, …), e.g. http://127.0.0.1:8080/v1; "
         "--model names its model.")]
EmbeddingsApiKeyEnv = Annotated[str | None, typer.Option(
    "--embeddings-api-key-env", rich_help_panel=_EMBEDDINGS_PANEL,
    help=f"Environment variable holding the server's API key (default {DEFAULT_API_KEY_ENV}; the key is never "
         "stored).")]
EmbeddingsDimensions = Annotated[int | None, typer.Option(
    "--embeddings-dimensions", min=1, rich_help_panel=_EMBEDDINGS_PANEL,
    help="Ask for vectors of this size (models that can shorten theirs, e.g. text-embedding-3-*).")]


@dataclass(frozen=True)
class LLMOptions:
    """The ``--llm-*`` options of one command line."""

    base_url: str | None = None
    model: str | None = None
    api_key_env: str = DEFAULT_API_KEY_ENV
    cache: Path | None = None
    cache_only: bool = False
    concurrency: int = 4
    timeout: float = DEFAULT_TIMEOUT_S
    retries: int = DEFAULT_RETRIES

    def config(self) -> LLMConfig:
        """The `LLMConfig` these options describe."""
        return LLMConfig(base_url=self.base_url, model=self.model, api_key_env=self.api_key_env,
                         cache_path=self.cache, cache_only=self.cache_only, concurrency=self.concurrency,
                         timeout_s=self.timeout, max_retries=self.retries)

    def requested(self) -> bool:
        """Whether the user asked for an LLM at all (otherwise commands use their extractive fallback)."""
        return bool(self.base_url) or self.cache_only or (self.cache is not None and Path(self.cache).exists())


def llm_option_types(timeout: float = DEFAULT_TIMEOUT_S) -> dict[str, tuple[Any, Any]]:
    """Parameter -> (``Annotated`` type, default) of every ``--llm-*`` option; `timeout`: --llm-timeout's default,
    the others `LLMOptions`'."""
    defaults = LLMOptions(timeout=timeout)
    types = {"base_url": LLMBaseUrl, "model": LLMModel, "api_key_env": LLMApiKeyEnv, "cache": LLMCachePath,
             "cache_only": LLMCacheOnly, "concurrency": LLMConcurrency, "timeout": LLMTimeout, "retries": LLMRetries}
    return {f"llm_{name}": (kind, getattr(defaults, name)) for name, kind in types.items()}


def llm_options_of(**values: Any) -> LLMOptions:
    """The `LLMOptions` of the ``llm_*`` parameters `llm_option_types` names."""
    return LLMOptions(**{key.removeprefix("llm_"): value for key, value in values.items()})
