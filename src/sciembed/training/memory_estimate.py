"""Peak memory of a training run, estimated from the recipe config and the base model's config.json.

Nothing is loaded but the architecture: the parameter count comes from the model built on
torch's ``meta`` device (no storage), the activations from the layer shapes. The estimate is

    weights + gradients + AdamW moments (+ the EMA target and predictor of JEPA)
    + activations of the texts that are on the device with gradients at once
    + backward work space: half a layer's tensors (gradients in flight), one layer with checkpointing (the
      recomputed layer); both factors set from the measured peaks of the small BERT, checked on MiniLM
    + on CUDA, the CUDA context and library work spaces (~1 GB, typical; not measured here)

Activation bytes per layer follow what autograd keeps for a BERT-style block (the accounting
of Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models",
derived here per tensor from hidden size h, intermediate size i, heads a, tokens s, texts b):
the inputs of the Q/K/V projections, Q, K, V, the attention context, the two LayerNorm inputs
(fp32 under autocast), the MLP input, GELU input and output (ModernBERT's gated MLP keeps
4·i per token), dropout masks (1 byte), and, where attention is materialised (CPU with attention
dropout, DeBERTa, eager kernels), softmax output, dropout mask and dropout output per head:
a·s² each. On CUDA, PyTorch's fused SDPA kernels keep no s² tensor. Gradient checkpointing
keeps each layer's input only (fp32 hidden states) and recomputes one layer in the backward pass.

Texts are assumed padded to ``model.max_seq_length``: an upper bound for batches of shorter
texts (SemCSE's summaries are far shorter). Validated against measured CPU peaks by
``benchmarks/train_memory_estimate.py`` (docs/scale.md); the CUDA/bf16 accounting is not
measured here (no GPU was available).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sciembed.errors import SciembedInputError
from sciembed.training.config import TrainConfig

FP32 = 4
MASK = 1  # a dropout mask is a bool tensor
CUDA_RUNTIME = 10**9  # the CUDA context and library work spaces outside torch's allocator (typical, not measured)
TARGETS = ("cuda", "cpu")

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


class MemoryLimitError(SciembedInputError, ValueError):
    """The estimated peak exceeds the device memory; the message gives the numbers and what to change."""


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


@dataclass(frozen=True)
class Component:
    name: str
    without: int  # bytes without gradient checkpointing
    with_: int  # bytes with it


@dataclass(frozen=True)
class MemoryEstimate:
    recipe: str
    target: str  # cuda | cpu
    precision: str  # fp32 | bf16 | fp16
    architecture: Architecture
    seq: int
    texts: int  # texts on the device with gradients at once
    texts_note: str
    checkpointing: bool  # what the config uses
    components: tuple[Component, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    def total(self, checkpointing: bool | None = None) -> int:
        on = self.checkpointing if checkpointing is None else checkpointing
        return sum(c.with_ if on else c.without for c in self.components)

    def to_dict(self) -> dict[str, Any]:
        return {
            "recipe": self.recipe, "target": self.target, "precision": self.precision, "seq": self.seq,
            "texts_on_device": self.texts, "texts_note": self.texts_note, "checkpointing": self.checkpointing,
            "architecture": vars(self.architecture),
            "components": {c.name: {"without_checkpointing": c.without, "with_checkpointing": c.with_}
                           for c in self.components},
            "total_without_checkpointing": self.total(False), "total_with_checkpointing": self.total(True),
            "total": self.total(), "notes": list(self.notes),
        }

    def report(self, limit: int | None = None, limit_label: str = ""):
        """A rich table: component, bytes without and with checkpointing; the configured column marked."""
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        a = self.architecture
        mark = lambda on: " (config)" if on == self.checkpointing else ""  # noqa: E731
        table = Table(title=f"Estimated peak {self.target.upper()} memory ({self.recipe}, {self.precision})")
        table.add_column("component")
        table.add_column(f"no checkpointing{mark(False)}", justify="right")
        table.add_column(f"checkpointing{mark(True)}", justify="right")
        for c in self.components:
            table.add_row(c.name, human_bytes(c.without), human_bytes(c.with_))
        table.add_row("total", human_bytes(self.total(False)), human_bytes(self.total(True)), style="bold")
        lines = [
            f"model: {a.model_type}, {a.parameters / 1e6:.1f}M parameters, hidden {a.hidden}, {a.layers} layers, "
            f"{a.heads} heads, intermediate {a.intermediate} (from {a.source})",
            f"{self.texts} texts × {self.seq} tokens with gradients at once ({self.texts_note})",
            *self.notes,
        ]
        if limit is not None:
            verdict = "fits" if self.total() <= limit else "DOES NOT FIT"
            lines.append(f"device memory: {human_bytes(limit)} ({limit_label}); the configured run "
                         f"({human_bytes(self.total())}) {verdict}")
        return Group(table, Text("\n".join(lines)))


def human_bytes(n: float) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e8 else f"{n / 1e6:.1f} MB"


# ----------------------------------------------------------------------------- architecture

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
            raise MemoryEstimateError(
                f"no memory estimate: cannot read the config.json of {source!r} ({str(exc).splitlines()[0][:160]}) "
                f"and it is not one of the known architectures ({', '.join(KNOWN_ARCHITECTURES)})"
            ) from None
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
    return Architecture(
        model_type=str(config.model_type), hidden=int(config.hidden_size), layers=int(config.num_hidden_layers),
        heads=int(config.num_attention_heads), intermediate=int(config.intermediate_size),
        vocab=int(config.vocab_size), max_positions=int(getattr(config, "max_position_embeddings", 0) or 0),
        parameters=int(parameters), hidden_dropout=float(hidden_dropout), attention_dropout=float(attention_dropout),
        source=source,
    )


# ----------------------------------------------------------------------------- activations

def _act_bytes(precision: str) -> int:
    return 2 if precision in ("bf16", "fp16") else FP32


def materialised_attention(arch: Architecture, target: str) -> bool:
    """Whether a·s² attention tensors are kept: DeBERTa always; on CPU when attention dropout is on (PyTorch's
    CPU flash kernel takes no dropout, so SDPA falls back to the math path); never with CUDA's fused kernels."""
    if arch.always_materialises_attention:
        return True
    return target == "cpu" and arch.attention_dropout > 0


def layer_bytes(arch: Architecture, seq: int, texts: int, precision: str, target: str) -> int:
    """Bytes autograd keeps for one transformer layer over `texts` sequences of `seq` tokens."""
    e = _act_bytes(precision)
    mixed = e != FP32
    h, i, a = arch.hidden, arch.intermediate, arch.heads
    mask = MASK if arch.hidden_dropout > 0 else 0
    qkv_input = (1 if arch.fused_qkv or not mixed else 3) * e  # autocast casts the fp32 input once per projection
    rotary = 2 * e if arch.model_type == "modernbert" else 0  # rotated Q and K beside the projections
    attention = qkv_input + 3 * e + rotary + e + mask + FP32  # + Q, K, V, context, dropout mask, LayerNorm input
    mlp = e + mask + FP32  # MLP input, dropout mask, LayerNorm input
    per_token = h * (attention + mlp) + i * e * (4 if arch.glu else 2)
    scores = 0
    if materialised_attention(arch, target):
        keep = e + (MASK + e if arch.attention_dropout > 0 else 0)  # softmax output (+ dropout mask and output)
        scores = a * seq * seq * keep
    return texts * (seq * per_token + scores)


def encoder_activation_bytes(arch: Architecture, seq: int, texts: int, precision: str, target: str,
                             checkpointing: bool) -> tuple[int, int]:
    """(kept by autograd over the forward, backward work space) for one grad-enabled encoder pass."""
    layer = layer_bytes(arch, seq, texts, precision, target)
    h = arch.hidden
    embeddings = texts * seq * h * (FP32 + (MASK if arch.hidden_dropout > 0 else 0))
    output = texts * seq * h * FP32  # the last hidden states the pooling keeps
    mask = texts * seq * seq * FP32 * (2 if arch.model_type == "modernbert" else 1)  # 4-D attention mask(s)
    if checkpointing:
        kept = embeddings + arch.layers * texts * seq * h * FP32 + output + mask
        return kept, layer  # the recomputed layer (its gradients replace its tensors as they are freed)
    return embeddings + arch.layers * layer + output + mask, layer // 2  # gradients of the layer in flight


def inference_bytes(arch: Architecture, seq: int, texts: int, precision: str, target: str) -> int:
    """Peak of a no-grad forward pass: about one layer's tensors alive at once."""
    return layer_bytes(arch, seq, texts, precision, target)


# ----------------------------------------------------------------------------- recipes

@dataclass(frozen=True)
class RecipeShape:
    texts: int  # with gradients at once
    note: str
    batch_key: str  # the setting that sets `texts`
    extra_trainable: int = 0  # parameters beyond the encoder (projection head, predictor)
    frozen_copy: bool = False  # JEPA's EMA target
    no_grad_texts: int = 0  # texts the frozen target encodes (JEPA)
    cache_bytes: int = 0  # CachedMNRL's embeddings and their gradients


def head_parameters(config: TrainConfig, dim: int) -> tuple[int, int]:
    """(parameters of the projection head, output dimension) of the window recipe's model."""
    head = getattr(config.model, "projection", None)
    if head is None:
        return 0, dim
    return dim * head.hidden + head.hidden + head.hidden * head.out + head.out, head.out


def recipe_shape(config: TrainConfig, arch: Architecture) -> RecipeShape:
    """How many texts each recipe puts on the device with gradients, and what else it holds."""
    t = config.training
    recipe = config.recipe
    head, out_dim = head_parameters(config, arch.hidden)
    if recipe == "window" and t.loss == "cached_mnrl":
        mini = min(t.mini_batch_size, t.batch_size)
        cache = config.data.texts_per_pair * t.batch_size * out_dim * FP32 * 2
        return RecipeShape(mini, f"CachedMNRL: one mini-batch of {mini} at a time", "training.mini_batch_size",
                           extra_trainable=head, cache_bytes=cache)
    if recipe == "window":
        columns = config.data.texts_per_pair
        what = "anchors, positives and hard negatives" if columns == 3 else "anchors and positives"
        return RecipeShape(columns * t.batch_size, f"MNRL: {what} of the batch of {t.batch_size}",
                           "training.batch_size", extra_trainable=head)
    if recipe == "jepa":
        hidden = config.predictor.hidden
        predictor = 2 * arch.hidden + arch.hidden * hidden + hidden + hidden * arch.hidden + arch.hidden
        return RecipeShape(t.batch_size, f"JEPA: the online encoder's context views of the micro-batch of "
                           f"{t.batch_size}; the EMA target encodes the targets without gradients",
                           "training.batch_size", extra_trainable=predictor, frozen_copy=True,
                           no_grad_texts=t.batch_size)
    if recipe == "infonce":
        return RecipeShape(2 * t.batch_size, f"InfoNCE: both views of the micro-batch of {t.batch_size}",
                           "training.batch_size")
    if recipe == "cosaemb":
        return RecipeShape(3 * t.batch_size, f"triplets: anchor, positive and negative of {t.batch_size}",
                           "training.batch_size")
    if recipe == "semcse":
        return RecipeShape(2 * t.batch_size, f"anchor and positive of {t.batch_size} papers", "training.batch_size")
    raise MemoryEstimateError(f"no memory model for recipe {recipe!r}")


# ----------------------------------------------------------------------------- the estimate

def resolve_target(target: str = "auto") -> str:
    if target == "auto":
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; expected auto, {', '.join(TARGETS)}")
    return target


def resolve_precision_for(precision: str, target: str) -> str:
    """The trainer's `resolve_precision` for a target that may not be this machine: auto = bf16 on CUDA
    (an A100/H100 has it), fp32 on CPU."""
    if precision != "auto":
        return precision
    if target == "cuda":
        import torch

        if torch.cuda.is_available() and not torch.cuda.is_bf16_supported():
            return "fp32"
        return "bf16"
    return "fp32"


def estimate(config: TrainConfig, target: str = "auto", arch: Architecture | None = None) -> MemoryEstimate:
    """Estimate the peak device memory of training `config` on `target` (auto: CUDA when visible, else CPU)."""
    target = resolve_target(target)
    arch = arch or read_architecture(config.model.base)
    precision = resolve_precision_for(config.training.precision, target)
    seq = min(config.model.max_seq_length, arch.max_positions or config.model.max_seq_length)
    shape = recipe_shape(config, arch)
    trainable = arch.parameters + shape.extra_trainable
    same = lambda name, n: Component(name, n, n)  # noqa: E731
    rows = [
        same("weights (fp32)", trainable * FP32),
        same("gradients (fp32)", trainable * FP32),
        same("AdamW moments (2 × fp32)", 2 * trainable * FP32),
    ]
    if shape.frozen_copy:
        rows.append(same("EMA target weights (fp32)", arch.parameters * FP32))
    kept_off, work_off = encoder_activation_bytes(arch, seq, shape.texts, precision, target, False)
    kept_on, work_on = encoder_activation_bytes(arch, seq, shape.texts, precision, target, True)
    rows.append(Component(f"activations ({shape.texts} × {seq} tokens)", kept_off, kept_on))
    rows.append(Component("backward work space", work_off, work_on))
    if shape.no_grad_texts:
        rows.append(same("target forward (no gradients)",
                         inference_bytes(arch, seq, shape.no_grad_texts, precision, target)))
    if shape.cache_bytes:
        rows.append(same("CachedMNRL embedding cache", shape.cache_bytes))
    if target == "cuda":
        rows.append(same("CUDA context, cuBLAS work space (typical)", CUDA_RUNTIME))
    notes = []
    if materialised_attention(arch, target):
        notes.append(f"attention scores kept per head (a·s² per text): {target} "
                     + ("DeBERTa's disentangled attention" if arch.always_materialises_attention
                        else "SDPA falls back to the math kernel with attention dropout"))
    notes.append("texts are counted at model.max_seq_length (a batch of shorter texts needs less)")
    return MemoryEstimate(config.recipe, target, precision, arch, seq, shape.texts, shape.note,
                          config.training.gradient_checkpointing, tuple(rows), tuple(notes))


def largest_fitting(config: TrainConfig, limit: int, target: str, arch: Architecture,
                    key: str, checkpointing: bool) -> int | None:
    """The largest value of `key` (``training.batch_size`` or ``training.mini_batch_size``) whose estimate fits
    `limit`; None if even the smallest does not."""
    field_name = key.removeprefix("training.")

    def fits(value: int) -> bool:
        changes: dict[str, Any] = {field_name: value, "gradient_checkpointing": checkpointing}
        if field_name == "batch_size" and config.recipe == "window":
            changes["mini_batch_size"] = min(value, config.training.mini_batch_size)
        trial = config.model_copy(update={"training": config.training.model_copy(update=changes)})
        return estimate(trial, target, arch).total() <= limit

    lowest = 2 if key == "training.batch_size" else 1
    current = _get(config, key)
    if not fits(lowest):
        return None
    lo, hi = lowest, current
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return lo


def _get(config: TrainConfig, key: str) -> int:
    node: Any = config
    for part in key.split("."):
        node = getattr(node, part)
    return int(node)


def check_fits(config: TrainConfig, est: MemoryEstimate, limit: int, limit_label: str) -> None:
    """Raise `MemoryLimitError` with the numbers and the settings that would make the run fit."""
    total = est.total()
    if total <= limit:
        return
    shape = recipe_shape(config, est.architecture)
    ways = []
    if not est.checkpointing:
        with_ckpt = est.total(True)
        ways.append(f"training.gradient_checkpointing=true ({human_bytes(with_ckpt)}"
                    + (", fits)" if with_ckpt <= limit else ", still too much)"))
    best = largest_fitting(config, limit, est.target, est.architecture, shape.batch_key, est.checkpointing)
    if best is not None and best < _get(config, shape.batch_key):
        ways.append(f"{shape.batch_key}={best} or lower")
    ways.append(f"a shorter model.max_seq_length (now {config.model.max_seq_length})")
    raise MemoryLimitError(
        f"estimated peak {est.target.upper()} memory {human_bytes(total)} exceeds {human_bytes(limit)} "
        f"({limit_label}): {est.texts} texts × {est.seq} tokens with gradients, {est.precision}, "
        f"gradient checkpointing {'on' if est.checkpointing else 'off'}. Set " + "; or ".join(ways)
        + " (--set KEY=VALUE), or pass --force to run anyway. `--dry-run` prints the full estimate."
    )


# ----------------------------------------------------------------------------- host and device sizes

def device_memory_of(target: str) -> tuple[int, str]:
    """(bytes, label) of the memory the run has: the visible CUDA device's total, else the host's RAM."""
    if target == "cuda":
        import torch

        if torch.cuda.is_available():
            props = torch.cuda.get_device_properties(torch.cuda.current_device())
            return int(props.total_memory), f"{props.name}, total memory of the visible CUDA device"
    return host_ram(), "the host's RAM (no CUDA device visible)"


def host_ram() -> int:
    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


@dataclass(frozen=True)
class HostEstimate:
    data: int  # resident bytes the planned data added (measured)
    staging: int  # weights read on the host before they move to the device
    workers: int  # dataloader workers: each may touch a copy of the data (copy-on-write)
    device_on_host: int  # the device estimate itself when training runs on the CPU

    @property
    def total(self) -> int:
        return self.data * (1 + self.workers) + self.staging + self.device_on_host

    def lines(self) -> list[str]:
        parts = [f"planned data {human_bytes(self.data)} (measured: resident size added by reading and planning)"]
        if self.workers:
            parts.append(f"up to {self.workers} dataloader worker copies of it (copy-on-write pages touched)")
        if self.staging:
            parts.append(f"weights staged on the host {human_bytes(self.staging)}")
        if self.device_on_host:
            parts.append(f"training on the CPU: the estimate above {human_bytes(self.device_on_host)}")
        return [f"host memory estimate: {human_bytes(self.total)} = " + " + ".join(parts)]


def host_estimate(config: TrainConfig, est: MemoryEstimate, data_bytes: int) -> HostEstimate:
    weights = est.architecture.parameters * FP32
    if est.target == "cpu":
        return HostEstimate(data_bytes, 0, config.training.dataloader_workers, est.total())
    return HostEstimate(data_bytes, weights * (2 if recipe_shape(config, est.architecture).frozen_copy else 1),
                        config.training.dataloader_workers, 0)


Say = Callable[[str], None]


def check_before_training(config: TrainConfig, limit: int | None, force: bool, say: Say | None,
                          target: str = "auto") -> MemoryEstimate | None:
    """The check `train` runs before it loads anything: estimate, compare with `limit` (None: the device's
    memory), raise `MemoryLimitError` unless `force`. Returns the estimate (None when it cannot be made)."""
    try:
        est = estimate(config, target)
    except MemoryEstimateError as exc:
        if say is not None:
            say(f"memory check skipped: {exc}")
        return None
    label = "--device-memory"
    if limit is None:
        limit, label = device_memory_of(est.target)
    if say is not None:
        say(f"estimated peak {est.target} memory {human_bytes(est.total())} of {human_bytes(limit)} ({label})")
    if force:
        return est
    check_fits(config, est, limit, label)
    return est


