"""Where the LLM is and how to call it: endpoint settings and sampling parameters."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_RETRIES = 5
EMBEDDINGS_TIMEOUT_ENV = "SCIEMBED_EMBEDDINGS_TIMEOUT"  # read by every command at run time
EMBEDDINGS_RETRIES_ENV = "SCIEMBED_EMBEDDINGS_RETRIES"


class LLMConfig(BaseModel):
    """An OpenAI-compatible endpoint and the cache. The API key is never a field, only the *name* of the
    environment variable that holds it, so no config, cache or log can contain it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str | None = None  # e.g. http://127.0.0.1:8000/v1 (a trailing /v1 is optional)
    model: str | None = None
    api_key_env: str = DEFAULT_API_KEY_ENV
    cache_path: Path | None = None
    cache_only: bool = False
    concurrency: int = Field(4, gt=0)
    timeout_s: float = Field(DEFAULT_TIMEOUT_S, gt=0)  # the whole request (connect, send, every byte of the reply)
    max_reply_bytes: int = Field(8 << 20, gt=0)  # a longer reply is refused while it streams in
    # extra attempts after the first, on 429 / 5xx / timeouts / connection errors
    max_retries: int = Field(DEFAULT_RETRIES, ge=0)
    backoff_s: float = Field(1.0, ge=0)  # first wait; doubles each retry
    max_backoff_s: float = Field(30.0, ge=0)

    def api_key(self) -> str | None:
        return os.environ.get(self.api_key_env) or None

    def endpoint_url(self, endpoint: str) -> str:
        """The full URL of ``completions`` or ``chat/completions``."""
        base = (self.base_url or "").rstrip("/")
        if not base.endswith("/v1"):
            base += "/v1"
        return f"{base}/{endpoint}"


class Sampling(BaseModel):
    """Sampling parameters sent with every request, all part of the cache key; ``extra`` passes any other field
    through unchanged (top_p, stop, seed, response_format, ...)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float = Field(1.0, ge=0)
    max_tokens: int = Field(128, gt=0)
    extra: dict[str, Any] = Field(default_factory=dict)

    def body_fields(self, sample: int) -> dict[str, Any]:
        """The request fields; a ``seed`` in ``extra`` is offset by the sample index (samples differ reproducibly)."""
        fields = self.key_fields()
        if isinstance(fields.get("seed"), int):
            fields["seed"] += sample
        return fields

    def key_fields(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, **self.extra}
