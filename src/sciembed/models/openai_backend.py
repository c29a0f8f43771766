"""The ``openai`` encoder backend: vectors from an OpenAI-compatible ``/v1/embeddings`` server.

`OpenAIEmbeddingEncoder` is an `Encoder` like the local ones (`load_encoder(model, backend="openai",
base_url=...)`). Its fingerprint binds URL, model name, ``dimensions``, token budget, prefix and
normalisation; ``max_seq_length`` is the server's input limit (8,191 for OpenAI's models, else 512), texts
cut exactly with tiktoken or by the words / 0.7 estimate (× `ESTIMATE_MARGIN` for a hard limit); behind the
cache, vectors are committed every `cache_every` texts; only the API key's variable name is recorded.
See docs/models.md.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from sciembed.llm.config import (
    DEFAULT_API_KEY_ENV,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT_S,
    EMBEDDINGS_RETRIES_ENV,
    EMBEDDINGS_TIMEOUT_ENV,
    LLMConfig,
)
from sciembed.llm.embeddings import EmbeddingsClient
from sciembed.models.encoder import SPEC_KEY, check_metric, check_texts, spec_fields
from sciembed.models.fingerprint import combine

BACKEND = "openai"
DEFAULT_MAX_SEQ_LENGTH = 512
# OpenAI's embedding models: (input limit in cl100k_base tokens, native dimension). PRISM: 8,192 tokens, 1,536-d
OPENAI_MODELS = {"text-embedding-3-small": (8191, 1536), "text-embedding-3-large": (8191, 3072),
                 "text-embedding-ada-002": (8191, 1536)}
ESTIMATE_MARGIN = 0.95  # share of the estimated word budget sent to a hard-limit model without its tokenizer
WORDS_PER_TOKEN = 0.7  # sciembed.views.tokens.approx_tokens: tokens ≈ words / 0.7
PROBE_TEXT = "dimension probe"


def known_model(model: str) -> tuple[int, int] | None:
    """(token limit, native dimension) of an OpenAI embedding model (``openai/`` prefix allowed), else None."""
    return OPENAI_MODELS.get(model.strip().lower().removeprefix("openai/"))


def default_max_seq_length(model: str) -> int:
    """The token budget when none is given: an OpenAI model's own input limit (8,191), else 512."""
    known = known_model(model)
    return known[0] if known else DEFAULT_MAX_SEQ_LENGTH


def exact_tokenizer(model: str) -> Any | None:
    """tiktoken's encoding for an OpenAI model when tiktoken and its encoding file are available (offline it
    usually is not: the file is fetched on first use), else None: lengths are estimated."""
    if known_model(model) is None:
        return None
    try:
        import tiktoken

        return tiktoken.get_encoding("cl100k_base")
    except Exception:  # not installed, or the encoding file cannot be fetched
        return None


class OpenAIEmbeddingEncoder:
    """An embedding model behind an OpenAI-compatible endpoint, as an `Encoder`."""

    backend = BACKEND
    card = None
    pooling = None
    adapter = None
    quantization = None
    trust_remote_code = False
    ta_join = ". "
    cache_every = 1024  # texts: `CachedEncoder` commits vectors this often, so a failed run resumes

    def __init__(self, model: str, config: LLMConfig, *, dimensions: int | None = None,
                 max_seq_length: int | None = None, prefix: str = "", metric: str = "cosine",
                 batch_size: int = 32, progress: bool = True) -> None:
        if not model:
            raise ValueError("the openai backend needs the served model's name (--model)")
        self.name = self.source = model
        self.config = config.model_copy(update={"model": model})
        self.client = EmbeddingsClient(self.config, dimensions=dimensions, progress=progress)
        self.dimensions = dimensions
        self.prefix = prefix
        self.metric = check_metric(metric)
        self.batch_size = batch_size
        self._max_seq_length = max_seq_length or default_max_seq_length(model)
        self.tokenizer = exact_tokenizer(model)
        self.hard_limit = known_model(model) is not None
        self._dim = dimensions
        if self._max_seq_length <= 0:
            raise ValueError(f"max_seq_length must be positive, got {self._max_seq_length}")

    @property
    def url(self) -> str:
        return self.client.url

    @property
    def max_seq_length(self) -> int:
        return self._max_seq_length

    @max_seq_length.setter
    def max_seq_length(self, value: int) -> None:
        if value <= 0:
            raise ValueError(f"max_seq_length must be positive, got {value}")
        self._max_seq_length = value

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.client.embed([PROBE_TEXT], batch_size=1, progress=False).shape[1])
        return self._dim

    def known_dim(self, dim: int) -> None:
        """The dimension this fingerprint's vectors had before (from the cache): no probe request needed."""
        if self._dim is None:
            self._dim = dim

    @property
    def fingerprint(self) -> str:
        fields = {"backend": BACKEND, "url": self.url, "model": self.name, "dimensions": self.dimensions,
                  "max_seq_length": self.max_seq_length, "prefix": self.prefix, "normalize": self.metric == "cosine"}
        if self.hard_limit:  # an exact cut and the estimate's send different texts: never share vectors
            fields["cut"] = "tiktoken" if self.tokenizer is not None else f"estimate×{ESTIMATE_MARGIN}"
        return combine(fields)

    def describe(self) -> dict[str, Any]:
        """Everything needed to load the same encoder again (no API key: only its variable's name)."""
        return {"name": self.name, "source": self.source, "backend": BACKEND, "base_url": self.config.base_url,
                "api_key_env": self.config.api_key_env, "dimensions": self.dimensions, "quantize": False,
                "quantization": None, "max_seq_length": self.max_seq_length, "prefix": self.prefix,
                "pooling": None, "ta_join": self.ta_join, "adapter": None, "metric": self.metric,
                "dim": self.dim, "fingerprint": self.fingerprint, "trust_remote_code": False,
                "precision": "server", SPEC_KEY: spec_fields(self)}

    def count_tokens(self, text: str) -> int:
        """Exact tokens with the model's tokenizer, else estimated (words / 0.7)."""
        if self.tokenizer is not None:
            return len(self.tokenizer.encode(text, disallowed_special=()))
        return math.ceil(len(text.split()) / WORDS_PER_TOKEN)

    def word_budget(self) -> int:
        """Words sent without a tokenizer: `max_seq_length` × 0.7, × `ESTIMATE_MARGIN` for a hard-limit model."""
        margin = ESTIMATE_MARGIN if self.hard_limit else 1.0
        return max(1, int(self.max_seq_length * WORDS_PER_TOKEN * margin))

    def clip(self, text: str) -> str:
        """`text` with the prefix, cut to `max_seq_length` tokens (exactly with a tokenizer, else by the estimate)."""
        if self.tokenizer is not None:
            tokens = self.tokenizer.encode(self.prefix + text, disallowed_special=())
            sent = self.tokenizer.decode(tokens[:self.max_seq_length])
        else:
            words = text.split()
            budget = self.word_budget()
            sent = self.prefix + (text if len(words) <= budget else " ".join(words[:budget]))
        return sent if sent.strip() else " "  # servers refuse an empty input

    def encode(self, texts: Sequence[str], *, batch_size: int | None = None, show_progress: bool = True) -> np.ndarray:
        """float32 (len(texts), dim), rows in input order; L2-normalised when the metric is cosine."""
        texts = check_texts(texts)
        if batch_size is not None and batch_size <= 0:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self.client.embed([self.clip(t) for t in texts], batch_size=batch_size or self.batch_size,
                                    dim=self._dim, description=f"embed {self.name}", progress=show_progress)
        self._dim = self._dim or int(vectors.shape[1])
        if self.metric == "cosine":
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            vectors = vectors / np.where(norms > 0, norms, 1.0)
        return vectors.astype(np.float32, copy=False)

    def close(self) -> None:
        self.client.close()


def openai_encoder(model: str | None, *, base_url: str | None, api_key_env: str | None = None,
                   dimensions: int | None = None, max_seq_length: int | None = None, prefix: str = "",
                   metric: str | None = None, concurrency: int = 4, timeout_s: float | None = None,
                   max_retries: int | None = None) -> OpenAIEmbeddingEncoder:
    """The encoder for `model` at `base_url`, the key read from $`api_key_env` (default OPENAI_API_KEY).

    `timeout_s` (the whole request) and `max_retries` are run-time settings, not part of an index: when not
    given they come from $SCIEMBED_EMBEDDINGS_TIMEOUT / $SCIEMBED_EMBEDDINGS_RETRIES, else 60 s and 5.
    """
    if timeout_s is None:
        timeout_s = _env_number(EMBEDDINGS_TIMEOUT_ENV, DEFAULT_TIMEOUT_S, float)
    if max_retries is None:
        max_retries = _env_number(EMBEDDINGS_RETRIES_ENV, DEFAULT_RETRIES, int)
    config = LLMConfig(base_url=base_url, model=model, api_key_env=api_key_env or DEFAULT_API_KEY_ENV,
                       concurrency=concurrency, timeout_s=timeout_s, max_retries=max_retries)
    return OpenAIEmbeddingEncoder(model or "", config, dimensions=dimensions, max_seq_length=max_seq_length,
                                  prefix=prefix, metric=metric or "cosine")


def _env_number(name: str, default: float, kind: type) -> Any:
    """The number in $`name`, else `default`; a value that is no positive number is a clear error."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value) or value < 0 or (kind is float and value == 0):
        raise ValueError(f"${name}={raw!r}: expected a {'positive number' if kind is float else 'count >= 0'}")
    return value
