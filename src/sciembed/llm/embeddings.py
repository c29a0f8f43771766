"""``/v1/embeddings`` on the same client as chat: batched, concurrent, retried, every reply checked.

A reply is used only when it holds one vector per input, every ``index`` once, one dimension throughout,
finite numbers and no all-zero vector; anything else is an `LLMResponseError` naming the URL and what was
wrong. Vectors are not cached here: `sciembed.models.openai_backend` puts this client behind the embedding
cache (docs/llm.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from sciembed.llm.client import LLMClient, reply_json, run_in_pool, token_count, token_progress
from sciembed.llm.config import LLMConfig
from sciembed.llm.errors import LLMError, LLMResponseError


class EmbeddingsClient(LLMClient):
    """Vectors for texts from one model of an OpenAI-compatible ``/v1/embeddings`` endpoint."""

    def __init__(self, config: LLMConfig, *, dimensions: int | None = None, progress: bool = True,
                 **kwargs: Any) -> None:
        if not config.base_url:
            raise LLMError("no embeddings endpoint given (--embeddings-base-url, e.g. http://127.0.0.1:8080/v1)")
        if config.cache_path is not None:
            raise LLMError("embeddings are cached by the embedding cache (--cache-dir), not an LLM cache file")
        if dimensions is not None and dimensions <= 0:
            raise ValueError(f"dimensions must be positive, got {dimensions}")
        super().__init__(config, progress=progress, **kwargs)
        self.dimensions = dimensions  # sent as the request's `dimensions` (models that can shorten vectors)

    @property
    def url(self) -> str:
        return self.config.endpoint_url("embeddings")

    def embed(self, texts: Sequence[str], *, batch_size: int = 32, dim: int | None = None,
              description: str = "embeddings", progress: bool = True) -> np.ndarray:
        """float32 (len(texts), dim) in input order. `dim`: the dimension every reply must have (None: the
        first reply's, or `dimensions` when set)."""
        texts = list(texts)
        if batch_size <= 0:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        expected = dim or self.dimensions
        batches = [list(range(s, min(s + batch_size, len(texts)))) for s in range(0, len(texts), batch_size)]
        results: list[np.ndarray | None] = [None] * len(batches)
        if not batches:
            return np.zeros((0, expected or 0), dtype=np.float32)
        if expected is None:  # the first batch fixes the dimension every other reply is checked against
            results[0] = self._one([texts[i] for i in batches[0]], None)
            expected = results[0].shape[1]
        todo = [b for b in range(len(batches)) if results[b] is None]
        with token_progress(description, len(texts), enabled=self.progress and progress) as advance:
            if results[0] is not None:
                advance(len(batches[0]), 0)

            def one(b: int, want: int = expected) -> None:
                results[b] = self._one([texts[i] for i in batches[b]], want)
                advance(len(batches[b]), 0)

            error = run_in_pool(one, todo, self.config.concurrency, "embed")
            if error is not None:
                raise error
        out = np.vstack([r for r in results if r is not None])
        self.stats.requests += len(batches)
        self.stats.called += len(batches)
        return out

    def _one(self, batch: list[str], dim: int | None) -> np.ndarray:
        body: dict[str, Any] = {"model": self.config.model, "input": batch, "encoding_format": "float"}
        if self.dimensions is not None:
            body["dimensions"] = self.dimensions
        url = self.url
        vectors, tokens = self._post(url, body, lambda raw, status: parse_embeddings(raw, status, url, len(batch), dim))
        with self.stats._lock:
            self.stats.prompt_tokens += tokens
        return vectors


def parse_embeddings(raw: bytes, status: int, url: str, count: int, dim: int | None) -> tuple[np.ndarray, int]:
    """The (count, dim) float32 vectors of a ``/v1/embeddings`` reply in input order, and its prompt tokens;
    `LLMResponseError` when the reply is not exactly that."""
    data, shown = reply_json(raw, status, url)
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise LLMResponseError(f"{url} answered without a data list of embeddings: {shown!r}")
    if len(items) != count:
        raise LLMResponseError(f"{url} answered {len(items)} embeddings for {count} inputs")
    rows: list[Any] = [None] * count
    first_len: int | None = None
    for position, item in enumerate(items):
        index = item.get("index", position) if isinstance(item, dict) else None
        vector = item.get("embedding") if isinstance(item, dict) else None
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count or rows[index] is not None:
            raise LLMResponseError(f"{url} answered embedding {position} with index {index!r}: every index "
                                   f"0..{count - 1} must appear once")
        if not isinstance(vector, list) or not vector:
            kind = "a base64 string (encoding_format float was asked)" if isinstance(vector, str) else \
                type(vector).__name__
            raise LLMResponseError(f"{url} answered embedding {index} as {kind}, not a list of numbers")
        if not all(type(x) in (int, float) and math.isfinite(x) for x in vector):
            raise LLMResponseError(f"{url} answered embedding {index} with a value that is not a finite number "
                                   "(NaN, infinity or text)")
        want = dim if dim is not None else first_len
        if want is not None and len(vector) != want:
            raise LLMResponseError(f"{url} answered a {len(vector)}-d embedding for input {index}; expected {want}-d "
                                   "(another model behind the same name? pass --embeddings-dimensions or a new "
                                   "--cache-dir)")
        rows[index], first_len = vector, len(vector)
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    tokens = token_count(usage.get("prompt_tokens")) or 0
    out = np.asarray(rows, dtype=np.float64)
    if not np.isfinite(out.astype(np.float32)).all():
        raise LLMResponseError(f"{url} answered values beyond float32's range")
    zero = np.flatnonzero(~out.any(axis=1))
    if len(zero):  # no direction: every cosine with it is 0 (or NaN); a server that failed quietly sends these
        raise LLMResponseError(f"{url} answered an all-zero embedding for input {int(zero[0])} ({len(zero)} of "
                               f"{count} in this batch): a vector with no direction cannot be searched; check the "
                               "server's logs")
    return out.astype(np.float32), tokens
