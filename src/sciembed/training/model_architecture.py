"""The shape of a base model (hidden size, layers, heads, parameter count) read from its config.json; the
parameter count comes from the model built on torch's ``meta`` device (no storage)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from sciembed.errors import SciembedInputError

# Architecture numbers of the paper configs' bases, used only when their config.json cannot be read
# (no network, not in the local cache). Sources are stated per entry.
KNOWN_ARCHITECTURES: dict[str, dict[str, Any]] = {
    "allenai/scibert_scivocab_uncased": {
        "model_type": "bert", "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
        "intermediate_size": 3072, "vocab_size": 31090, "max_position_embeddings": 512,
        "source": "the model's config.json on the Hugging Face Hub (BERT-base shape, scivocab 31,090)",
    },
    "answerdotai/ModernBERT-base": {
        "model_type": "modernbert", "hidden_size": 768, "num_hidden_layers": 22, "num_attention_heads": 12,
        "intermediate_size": 1152, "vocab_size": 50368, "max_position_embeddings": 8192,
        "source": "the model's config.json on the Hugging Face Hub (GeGLU MLP: Wi is 768 × 2,304)",
    },
    "KISTI-AI/Scideberta-full": {
        "model_type": "deberta-v2", "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
        "intermediate_size": 3072, "vocab_size": 128100, "max_position_embeddings": 512,
        "relative_attention": True, "position_buckets": 256, "pos_att_type": ["p2c", "c2p"],
        "position_biased_input": False, "norm_rel_ebd": "layer_norm", "share_att_key": True,
        "source": "inferred, not read: public loaders use DebertaV2Model for it and its fine-tunes weigh ~740 MB "
                  "in fp32 (~185M parameters), the DeBERTa-v3-base shape",
    },
}


class MemoryEstimateError(SciembedInputError, ValueError):
    """The estimate cannot be made (no readable config.json and no known architecture)."""


@dataclass(frozen=True)
class Architecture:
    model_type: str
    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab: int
    max_positions: int
    parameters: int  # of the base transformer, exact (built on the meta device)
    hidden_dropout: float
    attention_dropout: float
    source: str  # where the numbers were read

    @property
    def glu(self) -> bool:
        """ModernBERT's gated MLP: its input projection is 2 × intermediate wide."""
        return self.model_type == "modernbert"

    @property
    def fused_qkv(self) -> bool:
        return self.model_type == "modernbert"

    @property
    def always_materialises_attention(self) -> bool:
        """DeBERTa's disentangled attention has no fused kernel: its a·s² scores are always kept."""
        return self.model_type.startswith("deberta")


def read_architecture(base: str | None) -> Architecture:
    """The base model's architecture from its config.json (local directory, the offline MiniLM, the hub
    cache or the hub); `KNOWN_ARCHITECTURES` when that cannot be read. Never loads weights."""
    from transformers import AutoConfig

    from sciembed.models.loading import ModelLoadError, resolve_model_source

    try:
        source = resolve_model_source(base)
    except ModelLoadError as exc:
        raise MemoryEstimateError(f"no memory estimate: {exc}") from None
    try:
        config = AutoConfig.from_pretrained(source)
        where = f"{source}/config.json" if os.path.isdir(source) else f"{source} config.json (hub)"
    except (OSError, ValueError) as exc:
        known = KNOWN_ARCHITECTURES.get(source)
        if known is None:
            raise MemoryEstimateError(f"no memory estimate: cannot read the config.json of {source!r} "
                                      f"({str(exc).splitlines()[0][:160]}) and it is not one of the known "
                                      f"architectures ({', '.join(KNOWN_ARCHITECTURES)})") from None
        numbers = {k: v for k, v in known.items() if k not in ("model_type", "source")}
        config = AutoConfig.for_model(known["model_type"], **numbers)
        where = f"sciembed's known-architectures table, config.json not readable here; {known['source']}"
    return architecture_of(config, where)


def architecture_of(config: Any, source: str) -> Architecture:
    """An `Architecture` from a transformers config object (parameters counted on the meta device)."""
    import torch
    from transformers import AutoModel

    with torch.device("meta"):
        model = AutoModel.from_config(config)
    parameters = sum(p.numel() for p in model.parameters())
    hidden_dropout = getattr(config, "hidden_dropout_prob", None)
    if hidden_dropout is None:
        hidden_dropout = max(float(getattr(config, "mlp_dropout", 0.0) or 0.0),
                             float(getattr(config, "embedding_dropout", 0.0) or 0.0))
    attention_dropout = getattr(config, "attention_probs_dropout_prob", None)
    if attention_dropout is None:
        attention_dropout = float(getattr(config, "attention_dropout", 0.0) or 0.0)
    return Architecture(model_type=str(config.model_type), hidden=int(config.hidden_size),
                        layers=int(config.num_hidden_layers), heads=int(config.num_attention_heads),
                        intermediate=int(config.intermediate_size), vocab=int(config.vocab_size),
                        max_positions=int(getattr(config, "max_position_embeddings", 0) or 0),
                        parameters=int(parameters), hidden_dropout=float(hidden_dropout),
                        attention_dropout=float(attention_dropout), source=source)
