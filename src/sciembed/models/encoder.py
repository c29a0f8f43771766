"""The `Encoder` interface every stage codes against, and its sentence-transformers implementation.

One class serves both backends (torch and ONNX) because sentence-transformers
runs both behind the same `encode`; what differs is recorded in the
fingerprint, so vectors from different backends never share a cache entry or
an index.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from sciembed.models.fingerprint import combine, module_fingerprint
from sciembed.models.progress import progress_bar

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from sciembed.models.card import ModelCard

METRICS = ("cosine", "l2")
PRECISIONS = ("auto", "fp32", "bf16", "fp16")
PRECISION_ENV = "SCIEMBED_ENCODE_PRECISION"  # the default precision of every encoder (auto: bf16/fp16 on CUDA)
CHARS_PER_TOKEN_BOUND = 8  # characters per token counted for the length order (see `length_order`)


@runtime_checkable
class Encoder(Protocol):
    """Texts in, float32 vectors out. `metric`: "cosine" (L2-normalised, inner product) or "l2" (Euclidean, raw);
    `fingerprint` changes whenever the vectors could (weights, backend, quantization, budget, prefix, ...)."""

    name: str
    fingerprint: str
    max_seq_length: int
    dim: int
    metric: str

    def encode(self, texts: Sequence[str], *, batch_size: int | None = None,
               show_progress: bool = True) -> np.ndarray: ...

    def count_tokens(self, text: str) -> int: ...


class EncoderWrapper:
    """The `Encoder` interface but `encode` forwarded to `self.encoder` (and any other attribute, e.g. describe())."""

    _own: tuple[str, ...] = ("encoder",)  # not set yet (e.g. while unpickling): no recursion
    encoder: Any
    name = property(lambda self: self.encoder.name)
    fingerprint = property(lambda self: self.encoder.fingerprint)
    max_seq_length = property(lambda self: self.encoder.max_seq_length)
    dim = property(lambda self: self.encoder.dim)
    metric = property(lambda self: self.encoder.metric)

    def __getattr__(self, item: str) -> Any:
        if item in self._own:
            raise AttributeError(item)
        return getattr(self.encoder, item)

    def count_tokens(self, text: str) -> int:
        return self.encoder.count_tokens(text)


def check_metric(metric: str) -> str:
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}")
    return metric


def check_precision(precision: str) -> str:
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; expected one of {', '.join(PRECISIONS)}")
    return precision


def check_texts(texts: Sequence[str]) -> list[str]:
    """The texts as a list; one error naming every non-string position."""
    texts = list(texts)
    bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
    if bad:
        shown = ", ".join(f"[{i}] {type(texts[i]).__name__}" for i in bad[:5])
        raise TypeError(f"encode() needs strings; {len(bad)} of {len(texts)} inputs are not: {shown}")
    return texts


# A static model (`StaticEmbedding`) has no token budget; benchmarks still cut its body windows from one:
# that of a 512-token model (358 words), the window BM25 reads (`contract.TextStyle.window_tokens`).
STATIC_BUDGET = 512
STATIC_BUDGET_ATTR = "sciembed_window_budget"


def is_static(model: Any) -> bool:
    """Whether a sentence-transformers model reads whole texts (an infinite `max_seq_length`)."""
    budget = getattr(model, "max_seq_length", None)
    return isinstance(budget, float) and math.isinf(budget)


class SentenceTransformerEncoder:
    """A `SentenceTransformer` (torch or ONNX backend) behind the `Encoder` interface. Without `weights_id` (a model
    held in memory, e.g. in training) the weights are hashed at every `fingerprint` access."""

    def __init__(self, model: SentenceTransformer, name: str, *, metric: str = "cosine", prefix: str = "",
                 weights_id: str | None = None, source: str | None = None, quantization: str | None = None,
                 card: ModelCard | None = None, pooling: str | None = None, ta_join: str = ". ",
                 adapter: str | None = None, adapter_id: str | None = None, trust_remote_code: bool = False,
                 precision: str | None = None) -> None:
        self.model = model
        self.precision = check_precision(precision or os.environ.get(PRECISION_ENV) or "auto")
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
        """The token budget. A static model reads whole texts; for it this is only the budget whose
        window benchmarks cut (`STATIC_BUDGET` unless set), so it is compared on the same words as BM25."""
        if is_static(self.model):
            return int(getattr(self.model, STATIC_BUDGET_ATTR, STATIC_BUDGET))
        return int(self.model.max_seq_length)

    @max_seq_length.setter
    def max_seq_length(self, value: int) -> None:
        if value <= 0:
            raise ValueError(f"max_seq_length must be positive, got {value}")
        if is_static(self.model):
            setattr(self.model, STATIC_BUDGET_ATTR, value)
        else:
            self.model.max_seq_length = value

    @property
    def dim(self) -> int:
        getter = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        return int(getter())

    @property
    def fingerprint(self) -> str:
        weights = self._weights_id or module_fingerprint(self.model)
        parts = {"weights": weights, "backend": self.backend, "quantization": self.quantization,
                 "max_seq_length": self.max_seq_length, "prefix": self.prefix, "normalize": self.metric == "cosine"}
        if self.pooling is not None:  # only when set, so encoders without the option keep their fingerprints
            parts["pooling"] = self.pooling
        if self.adapter is not None:
            parts["adapter"] = self._adapter_id or self.adapter
        return combine(parts)

    def describe(self) -> dict[str, Any]:
        """Everything needed to load the same encoder again (stored next to indexes)."""
        return {"name": self.name, "source": self.source, "backend": self.backend,
                "quantize": self.quantization is not None, "quantization": self.quantization,
                "max_seq_length": self.max_seq_length, "prefix": self.prefix, "pooling": self.pooling,
                "ta_join": self.ta_join, "adapter": self.adapter, "metric": self.metric, "dim": self.dim,
                "fingerprint": self.fingerprint, "trust_remote_code": self.trust_remote_code,
                "precision": self.resolved_precision(),
                SPEC_KEY: spec_fields(self)}  # what loads this encoder again (`EncoderSpec.from_described`)

    def count_tokens(self, text: str) -> int:
        """Tokenizer-exact count of `text` alone (no prefix, no special tokens)."""
        return self._token_counts([text])[0]

    def _token_counts(self, texts: list[str]) -> list[int]:
        tokenizer = self.model.tokenizer
        if is_static(self.model):  # a `tokenizers.Tokenizer`, not a transformers tokenizer
            return [len(e.ids) for e in tokenizer.encode_batch(texts, add_special_tokens=False)]
        return [len(ids) for ids in tokenizer(texts, add_special_tokens=False, truncation=False,
                                              verbose=False)["input_ids"]]

    def resolved_precision(self) -> str:
        """fp32 on CPU and for the ONNX backend; on CUDA ``auto`` is bf16 where the GPU has it, else fp16."""
        device = getattr(self.model, "device", None)
        if self.backend != "torch" or getattr(device, "type", "cpu") != "cuda":
            return "fp32"
        if self.precision != "auto":
            return self.precision
        import torch

        return "bf16" if torch.cuda.is_bf16_supported() else "fp16"

    def length_order(self, texts: list[str]) -> list[int]:
        """Row numbers longest-first by token count (at most the token budget), ties in input order.

        Only the first `CHARS_PER_TOKEN_BOUND` × budget characters are tokenised: a text that long reaches the
        budget anyway, so counting stays cheap on full-text papers."""
        budget = self.max_seq_length
        head = [t[: CHARS_PER_TOKEN_BOUND * budget] for t in texts]
        lengths = self._token_counts(head)
        return sorted(range(len(texts)), key=lambda i: -min(lengths[i], budget))

    def encode(self, texts: Sequence[str], *, batch_size: int | None = None, show_progress: bool = True) -> np.ndarray:
        """float32 matrix (len(texts), dim), rows in input order; L2-normalised when metric is cosine.

        Batched longest-first by token count (minimal padding). `batch_size` None: from the free GPU memory on
        CUDA (`auto_batch_size`), 32 on CPU. CUDA runs under bf16 (fp16) autocast unless precision is fp32."""
        texts = check_texts(texts)
        if batch_size is not None and batch_size <= 0:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        order = self.length_order(texts) if texts else []
        return self.encode_in_order(texts, order, batch_size, show_progress)

    def encode_in_order(self, texts: list[str], order: Sequence[int], batch_size: int | None,
                        show_progress: bool = False) -> np.ndarray:
        """Encode `texts` in batches of consecutive rows of `order`; rows come back in input order."""
        from sciembed.models.batch_size import auto_batch_size

        size = batch_size or auto_batch_size(self.model, self.max_seq_length)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        with progress_bar(f"encode {self.name}", len(texts), enabled=show_progress) as advance, self._autocast():
            for start in range(0, len(order), size):
                rows = list(order[start : start + size])
                vectors = self.model.encode([texts[i] for i in rows], batch_size=size, prompt=self.prefix or None,
                                            normalize_embeddings=self.metric == "cosine", convert_to_tensor=True,
                                            show_progress_bar=False)
                out[rows] = vectors.float().cpu().numpy()
                advance(len(rows))
        return out

    def _autocast(self):
        from contextlib import nullcontext

        precision = self.resolved_precision()
        if precision == "fp32":
            return nullcontext()
        import torch

        return torch.autocast("cuda", dtype=torch.bfloat16 if precision == "bf16" else torch.float16)


def wrap_sentence_transformer(model: SentenceTransformer, name: str, *, metric: str = "cosine",
                              prefix: str = "") -> Encoder:
    """An in-memory model (e.g. one being trained) as an `Encoder`; its fingerprint follows its weights."""
    return SentenceTransformerEncoder(model, name, metric=metric, prefix=prefix)


SPEC_KEY = "spec"  # where `describe()` keeps the fields of the encoder's `EncoderSpec` (`models/spec.py`)


def spec_fields(encoder: Any) -> dict[str, Any]:
    """The `EncoderSpec` fields that load `encoder` again: its resolved source (an absolute directory or a hub id),
    its adapter (a local directory made absolute) and every setting it was built with."""
    from pathlib import Path

    adapter = getattr(encoder, "adapter", None)
    if adapter is not None and Path(adapter).expanduser().is_dir():
        adapter = str(Path(adapter).expanduser().resolve())
    backend = str(getattr(encoder, "backend", "torch"))
    fields = {"model": str(getattr(encoder, "source", None) or encoder.name), "backend": backend, "adapter": adapter,
              "pooling": getattr(encoder, "pooling", None), "max_seq_length": encoder.max_seq_length,
              "prefix": getattr(encoder, "prefix", ""), "ta_join": getattr(encoder, "ta_join", None),
              "quantize": getattr(encoder, "quantization", None) or False, "metric": encoder.metric,
              "base_url": None, "api_key_env": None, "dimensions": None}
    if backend == "openai":
        fields.update(base_url=encoder.config.base_url, api_key_env=encoder.config.api_key_env,
                      dimensions=getattr(encoder, "dimensions", None))
    return fields
