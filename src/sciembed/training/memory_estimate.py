"""Peak memory of a training run, estimated from the recipe config and the base model's config.json.

Weights, gradients and AdamW moments (+ JEPA's EMA target and predictor), the activations of the texts on
the device with gradients at once (`activation_memory`), a backward work space (half a layer, one layer with
checkpointing: set from the small BERT's measured peaks, checked on MiniLM) and on CUDA ~1 GB of context
(typical, not measured). Texts are assumed padded to ``model.max_seq_length`` (an upper bound). The
accounting and its validation against measured CPU peaks are in docs/scale.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sciembed.training.activation_memory import FP32, encoder_activation_bytes, inference_bytes, materialised_attention
from sciembed.training.config import TrainConfig
from sciembed.training.model_architecture import Architecture, MemoryEstimateError, read_architecture

CUDA_RUNTIME = 10**9  # the CUDA context and library work spaces outside torch's allocator (typical, not measured)
TARGETS = ("cuda", "cpu")

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
        return {"recipe": self.recipe, "target": self.target, "precision": self.precision, "seq": self.seq,
                "texts_on_device": self.texts, "texts_note": self.texts_note, "checkpointing": self.checkpointing,
                "architecture": vars(self.architecture),
                "components": {c.name: {"without_checkpointing": c.without, "with_checkpointing": c.with_}
                               for c in self.components},
                "total_without_checkpointing": self.total(False), "total_with_checkpointing": self.total(True),
                "total": self.total(), "notes": list(self.notes)}

    def report(self, limit: int | None = None, limit_label: str = ""):
        """A rich table: component, bytes without and with checkpointing; the configured column marked."""
        from rich.console import Group
        from rich.text import Text

        from sciembed.training.schedule_report import rich_table

        a = self.architecture
        mark = lambda on: " (config)" if on == self.checkpointing else ""  # noqa: E731
        table = rich_table(f"Estimated peak {self.target.upper()} memory ({self.recipe}, {self.precision})",
                           ("component", f"no checkpointing{mark(False)}", f"checkpointing{mark(True)}"),
                           [(c.name, human_bytes(c.without), human_bytes(c.with_)) for c in self.components])
        table.add_row("total", human_bytes(self.total(False)), human_bytes(self.total(True)), style="bold")
        lines = [f"model: {a.model_type}, {a.parameters / 1e6:.1f}M parameters, hidden {a.hidden}, {a.layers} layers, "
                 f"{a.heads} heads, intermediate {a.intermediate} (from {a.source})",
                 f"{self.texts} texts × {self.seq} tokens with gradients at once ({self.texts_note})", *self.notes]
        if limit is not None:
            verdict = "fits" if self.total() <= limit else "DOES NOT FIT"
            lines.append(f"device memory: {human_bytes(limit)} ({limit_label}); the configured run "
                         f"({human_bytes(self.total())}) {verdict}")
        return Group(table, Text("\n".join(lines)))


def human_bytes(n: float) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e8 else f"{n / 1e6:.1f} MB"

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
    if precision != "auto" or target != "cuda":
        return "fp32" if precision == "auto" else precision
    import torch

    return "fp32" if torch.cuda.is_available() and not torch.cuda.is_bf16_supported() else "bf16"


def estimate(config: TrainConfig, target: str = "auto", arch: Architecture | None = None) -> MemoryEstimate:
    """Estimate the peak device memory of training `config` on `target` (auto: CUDA when visible, else CPU)."""
    target = resolve_target(target)
    arch = arch or read_architecture(config.model.base)
    precision = resolve_precision_for(config.training.precision, target)
    seq = min(config.model.max_seq_length, arch.max_positions or config.model.max_seq_length)
    shape = recipe_shape(config, arch)
    trainable = arch.parameters + shape.extra_trainable
    same = lambda name, n: Component(name, n, n)  # noqa: E731
    rows = [same("weights (fp32)", trainable * FP32), same("gradients (fp32)", trainable * FP32),
            same("AdamW moments (2 × fp32)", 2 * trainable * FP32)]
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
