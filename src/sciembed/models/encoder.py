"""The `Encoder` interface every stage codes against, and its sentence-transformers implementation.

One class serves both backends (torch and ONNX) because sentence-transformers
runs both behind the same `encode`; what differs is recorded in the
fingerprint, so vectors from different backends never share a cache entry or
an index.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from sciembed.models.fingerprint import combine, module_fingerprint
from sciembed.models.progress import progress_bar

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from sciembed.models.card import ModelCard

METRICS = ("cosine", "l2")


@runtime_checkable
class Encoder(Protocol):
    """Texts in, float32 vectors out.

    `metric` says how vectors compare: "cosine" (L2-normalised, inner product)
    or "l2" (Euclidean, not normalised). `fingerprint` changes whenever the
    vectors could (weights, backend, quantization, max_seq_length, prefix,
    normalisation).
    """

    name: str
    fingerprint: str
    max_seq_length: int
    dim: int
    metric: str

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, show_progress: bool = True) -> np.ndarray: ...

    def count_tokens(self, text: str) -> int: ...


def check_metric(metric: str) -> str:
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}")
    return metric


def check_texts(texts: Sequence[str]) -> list[str]:
    """The texts as a list; one error naming every non-string position."""
    texts = list(texts)
    bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
    if bad:
        shown = ", ".join(f"[{i}] {type(texts[i]).__name__}" for i in bad[:5])
        raise TypeError(f"encode() needs strings; {len(bad)} of {len(texts)} inputs are not: {shown}")
    return texts


class SentenceTransformerEncoder:
    """A `SentenceTransformer` (torch or ONNX backend) behind the `Encoder` interface.

    `weights_id` identifies weights loaded from disk or the hub; when it is
    None (a model held in memory, e.g. during training) the weights are hashed
    at every `fingerprint` access, so a cache never outlives a weight update.
    """

    def __init__(
        self,
        model: SentenceTransformer,
        name: str,
        *,
        metric: str = "cosine",
        prefix: str = "",
        weights_id: str | None = None,
        source: str | None = None,
        quantization: str | None = None,
        card: ModelCard | None = None,
        pooling: str | None = None,
        ta_join: str = ". ",
        adapter: str | None = None,
        adapter_id: str | None = None,
        trust_remote_code: bool = False,
    ) -> None:
        self.model = model
        self.trust_remote_code = trust_remote_code
        self.card = card
        self.pooling = pooling  # None: the model's own pooling
        self.ta_join = ta_join  # what this model expects between title and abstract
        self.adapter = adapter
        self._adapter_id = adapter_id
        self.name = name
        self.metric = check_metric(metric)
        self.prefix = prefix
        self.source = source or name
        self.quantization = quantization
        self._weights_id = weights_id

    @property
    def backend(self) -> str:
        return str(getattr(self.model, "backend", "torch"))

    @property
    def max_seq_length(self) -> int:
        return int(self.model.max_seq_length)

    @max_seq_length.setter
    def max_seq_length(self, value: int) -> None:
        if value <= 0:
            raise ValueError(f"max_seq_length must be positive, got {value}")
        self.model.max_seq_length = value

    @property
    def dim(self) -> int:
        getter = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        return int(getter())

    @property
    def fingerprint(self) -> str:
        weights = self._weights_id or module_fingerprint(self.model)
        parts = {
            "weights": weights,
            "backend": self.backend,
            "quantization": self.quantization,
            "max_seq_length": self.max_seq_length,
            "prefix": self.prefix,
            "normalize": self.metric == "cosine",
        }
        if self.pooling is not None:  # only when set, so encoders without the option keep their fingerprints
            parts["pooling"] = self.pooling
        if self.adapter is not None:
            parts["adapter"] = self._adapter_id or self.adapter
        return combine(parts)

    def describe(self) -> dict[str, Any]:
        """Everything needed to load the same encoder again (stored next to indexes)."""
        return {
            "name": self.name,
            "source": self.source,
            "backend": self.backend,
            "quantize": self.quantization is not None,
            "quantization": self.quantization,
            "max_seq_length": self.max_seq_length,
            "prefix": self.prefix,
            "pooling": self.pooling,
            "ta_join": self.ta_join,
            "adapter": self.adapter,
            "metric": self.metric,
            "dim": self.dim,
            "fingerprint": self.fingerprint,
            "trust_remote_code": self.trust_remote_code,
        }

    def count_tokens(self, text: str) -> int:
        """Tokenizer-exact count of `text` alone (no prefix, no special tokens)."""
        return len(self.model.tokenizer.tokenize(text))

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, show_progress: bool = True) -> np.ndarray:
        """float32 matrix (len(texts), dim), rows in input order; L2-normalised when metric is cosine.

        Texts are batched longest-first across the whole input so that padding
        is minimal, then put back in input order.
        """
        texts = check_texts(texts)
        if batch_size <= 0:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        with progress_bar(f"encode {self.name}", len(texts), enabled=show_progress) as advance:
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                vectors = self.model.encode(
                    [texts[i] for i in rows],
                    batch_size=batch_size,
                    prompt=self.prefix or None,
                    normalize_embeddings=self.metric == "cosine",
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
                out[rows] = np.asarray(vectors, dtype=np.float32)
                advance(len(rows))
        return out


def wrap_sentence_transformer(
    model: SentenceTransformer, name: str, *, metric: str = "cosine", prefix: str = ""
) -> Encoder:
    """An in-memory model (e.g. one being trained) as an `Encoder`; its fingerprint follows its weights."""
    return SentenceTransformerEncoder(model, name, metric=metric, prefix=prefix)
