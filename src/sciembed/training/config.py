"""Training configs: pydantic models loaded from YAML, overridable from the command line.

Every recipe subclasses `TrainConfig` and adds its own ``data`` block. Unknown keys and wrong types are
errors, reported all at once with their dotted path, so a typo never silently falls back to a default.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sciembed.errors import SciembedInputError
from sciembed.ioutil.yaml_config import read_yaml_mapping


class ConfigError(SciembedInputError, ValueError):
    """A config file or override that cannot be used; the message says what and where."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class ProjectionConfig(_Strict):
    """Two-layer projection head after mean pooling (S2Full uses 4,096 for both)."""

    hidden: int = Field(4096, gt=0)
    out: int = Field(4096, gt=0)
    activation: Literal["gelu", "relu", "tanh"] = "gelu"


class ModelConfig(_Strict):
    """`max_seq_length` is the training token budget; the saved model reads `inference_max_seq_length` tokens
    (None: the base model's own, e.g. 256 for MiniLM), not the training budget by accident."""

    base: str | None = None  # hub id or local path; None = the offline MiniLM
    max_seq_length: int = Field(512, gt=0)
    inference_max_seq_length: int | None = Field(None, gt=0)
    projection: ProjectionConfig | None = None


class TrainingConfig(_Strict):
    """Optimisation. `batch_size` is the *global* batch, split over N processes, whose negatives are gathered,
    so 1 and N processes train the same model (docs/distributed.md). `mini_batch_size` only bounds the texts on
    the device at once (CachedMNRL); no gradient accumulation: it would not add negatives."""

    epochs: int = Field(1, gt=0)
    max_steps: int | None = Field(None, gt=0)  # cut the run short (smoke tests); the schedule follows it
    batch_size: int = Field(2048, ge=2)
    mini_batch_size: int = Field(64, gt=0)
    loss: Literal["cached_mnrl", "mnrl"] = "cached_mnrl"
    scale: float = Field(20.0, gt=0)  # inverse temperature of the softmax over cosine similarities
    # 0 trains nothing (AdamW's decoupled weight decay is scaled by the learning rate too): the null run
    # whose saved model must score exactly what its base scores
    learning_rate: float = Field(2e-5, ge=0)
    weight_decay: float = Field(0.01, ge=0)
    warmup_ratio: float = Field(0.1, ge=0, lt=1)
    lr_scheduler: Literal["linear", "cosine", "constant", "constant_with_warmup"] = "linear"
    max_grad_norm: float = Field(1.0, gt=0)
    precision: Literal["auto", "bf16", "fp16", "fp32"] = "auto"  # auto: bf16 on GPUs that have it
    log_every_steps: int = Field(10, gt=0)
    # time budget: training stops at the first step past it and saves the model as at the end of a run
    max_time_minutes: float | None = Field(None, gt=0)
    dataloader_workers: int = Field(0, ge=0)
    # DDP: gather every process's embeddings (with gradients) so in-batch negatives span the global batch
    gather_across_devices: bool = True
    # recompute activations in the backward pass: a fraction of the memory for ~30% more compute
    gradient_checkpointing: bool = False
    # glibc: freed activations leave the process at once (`ioutil.memory.return_freed_memory`). On costs CPU
    # time (demo window recipe, 6 steps: 74 s vs 58 s off, +28%) for a lower resident peak (1.22 vs 1.71 GB)
    return_freed_memory: bool = True


class CheckpointConfig(_Strict):
    every_steps: int = Field(500, gt=0)
    keep: int | None = Field(2, gt=0)  # newest checkpoints kept; None keeps all


class ValidationConfig(_Strict):
    """NDCG@10 on a held-out split during training; ``every_steps: 0`` turns it off."""

    every_steps: int = Field(0, ge=0)
    split: Literal["val", "test"] = "val"
    scenarios: tuple[Literal["body_ta", "ta_ta", "body_body"], ...] = Field(("body_ta", "ta_ta"), min_length=1)
    paper_log_seed: int = 0
    # as S2Full validates: each query paper is also one of its own relevant candidates (its body finds its
    # TA); false: `sciembed eval`'s protocol, the query paper never ranked (training/validation.py)
    self_retrieval: bool = True
    # a fixed-size seeded subsample, so a validation costs the same on any corpus: at most `max_queries` queries,
    # and their linked papers plus random others up to `max_candidates` candidates (null: the whole split)
    max_queries: int | None = Field(3000, gt=0)
    max_candidates: int | None = Field(30000, gt=0)
    sample_seed: int = 0
    # token budget of the validation body windows (0.7 × it words); null: the training budget, never the saved
    # model's inference budget (S2Full's ModernBERT windows are 716 words, not 5,734: issue 32, item 1)
    window_tokens: int | None = Field(None, gt=0)


class TrainConfig(_Strict):
    """What every recipe shares."""

    recipe: str
    seed: int = 0
    model: ModelConfig = ModelConfig()
    training: TrainingConfig = TrainingConfig()
    checkpoint: CheckpointConfig = CheckpointConfig()
    validation: ValidationConfig = ValidationConfig()


Strategy = Literal["both_random", "ta_ta", "anchor_random_pos_ta", "no_ta_ta"]
STRATEGIES: tuple[str, ...] = get_args(Strategy)


class PrefixConfig(_Strict):
    """Texts put before each view during training only; evaluation encodes without them. `special_tokens`: add
    the stripped prefixes ("[TA]", "[BODY]") to the tokenizer as new tokens instead of splitting them."""

    ta: str = "[TA] "
    body: str = "[BODY] "
    special_tokens: bool = False


class HardNegativesConfig(_Strict):
    """One mined hard negative per pair from ranks ``[skip, depth)`` (`sciembed.training.sources.hard_negatives`):
    ``bm25`` over full text, or ``model`` (title+abstract vectors of `model`; None = the run's base)."""

    miner: Literal["bm25", "model"] = "bm25"
    model: str | None = None
    skip: int = Field(5, ge=0)
    depth: int = Field(50, gt=0)
    query_words: int = Field(1500, gt=0)  # bm25: a query is the first words of the paper's full text

    @model_validator(mode="after")
    def _band(self):
        if self.depth <= self.skip:
            raise ValueError(f"depth {self.depth} must be above skip {self.skip}")
        if self.model is not None and self.miner != "model":
            raise ValueError("hard_negatives.model is for miner: model")
        return self


class WindowDataConfig(_Strict):
    strategy: Strategy = "both_random"
    self_align_share: float = Field(0.2, ge=0, lt=1)  # share of every batch that is same-paper pairs
    # inside: an epoch is n_pairs // batch_size steps, self-alignment takes its share of each batch (the paper);
    # on_top: every citation pair once per epoch, self-alignment slots added to that
    self_align: Literal["inside", "on_top"] = "inside"
    orientation: Literal["sorted", "random"] = "sorted"  # anchor = smaller paper id (paper A.2), or a coin flip
    window_words: int | None = Field(None, gt=0)  # None: 0.7 × model.max_seq_length
    prefixes: PrefixConfig | None = PrefixConfig()
    hard_negatives: HardNegativesConfig | None = None  # None: in-batch negatives only (the paper)

    @property
    def texts_per_pair(self) -> int:
        """Anchor and positive, + one mined hard negative when `hard_negatives` is set."""
        return 2 if self.hard_negatives is None else 3


class WindowModelConfig(ModelConfig):
    """The paper's head by default (a partial ``model:`` block keeps it)."""

    projection: ProjectionConfig | None = ProjectionConfig()


class WindowTrainingConfig(TrainingConfig):
    """The paper's 3 epochs, mini-batches of 128 and learning rate 5e-5 (a partial ``training:`` keeps them)."""

    epochs: int = Field(3, gt=0)
    mini_batch_size: int = Field(128, gt=0)
    learning_rate: float = Field(5e-5, ge=0)  # S2Full Table 3


class WindowConfig(TrainConfig):
    """S2Full: citation pairs of TA and random body windows, plus same-paper self-alignment. Defaults are the
    paper's set-up (512 tokens, 4,096 × 4,096 head, batch 2,048) except the base model (the offline MiniLM)."""

    recipe: Literal["window"] = "window"
    model: WindowModelConfig = WindowModelConfig()
    training: WindowTrainingConfig = WindowTrainingConfig()
    data: WindowDataConfig = WindowDataConfig()


class StaticModelConfig(_Strict):
    """A static encoder: `base` distilled with model2vec, or already a static model. `max_seq_length` only sizes
    training windows (0.7 × it words); a static model reads whole texts."""

    base: str | None = None
    pca_dims: int | None = Field(256, gt=0)  # model2vec's PCA; None keeps the transformer's width
    max_seq_length: int = Field(512, gt=0)


class StaticTrainingConfig(TrainingConfig):
    """Big batches, a large learning rate (the embedding table is the only weight) and plain MNRL (cheap texts)."""

    epochs: int = Field(5, gt=0)
    batch_size: int = Field(256, ge=2)
    loss: Literal["cached_mnrl", "mnrl"] = "mnrl"
    learning_rate: float = Field(1e-2, ge=0)


class StaticConfig(TrainConfig):
    """The window recipe's data (citation pairs, self-alignment, hard negatives) on a static encoder."""

    recipe: Literal["static"] = "static"
    model: StaticModelConfig = StaticModelConfig()  # type: ignore[assignment]
    training: StaticTrainingConfig = StaticTrainingConfig()
    data: WindowDataConfig = WindowDataConfig(prefixes=None)


class SectionFilterConfig(_Strict):
    """SciJEPA's paper filters. `sections`: "raw" (the paper's) counts the source parse's sections where the
    reader recorded them (else the normalised ones, counted); "normalised" counts sciembed's sections."""

    min_abstract_chars: int = Field(50, ge=0)
    min_sections: int = Field(3, ge=0)
    max_sections: int = Field(80, gt=0)
    min_body_chars: int = Field(1000, ge=0)
    max_malformed_share: float = Field(0.3, ge=0, le=1)  # of section titles
    sections: Literal["raw", "normalised"] = "raw"


class SectionPairDataConfig(_Strict):
    """Section pairs (TA → method, method → conclusion) drawn with replacement up to `examples`."""

    examples: int = Field(5_000_000, gt=0)
    split: Literal["auto", "all", "train"] = "auto"  # auto: the train split of a built corpus, else all papers
    exclude: tuple[str, ...] = ()  # decontamination: id/DOI/arXiv/title files, corpus or BEIR folders
    filters: SectionFilterConfig = SectionFilterConfig()


class SectionTrainingConfig(TrainingConfig):
    """Section-pair recipes: `batch_size` is the micro-batch (InfoNCE's negatives); `gradient_accumulation`
    micro-batches make one optimizer step; warmup is `warmup_steps` steps."""

    batch_size: int = Field(512, ge=2)
    gradient_accumulation: int = Field(8, gt=0)
    learning_rate: float = Field(5e-6, ge=0)  # the encoder's
    warmup_ratio: float = Field(0.0, ge=0, lt=1)
    warmup_steps: int = Field(50, ge=0)
    lr_scheduler: Literal["linear", "cosine", "constant", "constant_with_warmup"] = "cosine"

    @model_validator(mode="after")
    def _no_cached_loss_settings(self):
        unused = sorted({"loss", "scale", "mini_batch_size", "warmup_ratio"} & self.model_fields_set)
        if unused:
            raise ValueError(
                f"{', '.join(unused)}: not used by the section-pair recipes (their loss is the recipe's own; "
                "warmup is training.warmup_steps)"
            )
        return self


class PredictorConfig(_Strict):
    """Residual predictor ẑ = h + g(h), g = LayerNorm → Linear(d, hidden) → GELU → Linear(hidden, d)."""

    hidden: int = Field(2048, gt=0)
    learning_rate: float = Field(1e-4, gt=0)


class EMAConfig(_Strict):
    """Target momentum: cosine schedule from `momentum_start` to `momentum_end` over the run."""

    momentum_start: float = Field(0.996, ge=0, le=1)
    momentum_end: float = Field(0.999, ge=0, le=1)


class SIGRegConfig(_Strict):
    """λ · SIGReg on the online context embeddings; λ = 0 is plain JEPA."""

    weight: float = Field(0.0025, ge=0)  # λ
    slices: int = Field(512, gt=0)
    knots: int = Field(17, ge=2)
    t_max: float = Field(3.0, gt=0)
    # Epps–Pulley trapezoid weights: "lejepa" (LeJEPA's code, endpoints Δt / interior 2Δt: the paper's λ as
    # printed) or "plain" (the textbook rule, half the statistic: λ 0.0025 here = 0.005 there), an ablation
    trapezoid: Literal["lejepa", "plain"] = "lejepa"


class JepaConfig(TrainConfig):
    """SciJEPA: online encoder + residual predictor predict the EMA target's embedding of the next view."""

    recipe: Literal["jepa"] = "jepa"
    training: SectionTrainingConfig = SectionTrainingConfig()
    data: SectionPairDataConfig = SectionPairDataConfig()
    predictor: PredictorConfig = PredictorConfig()
    ema: EMAConfig = EMAConfig()
    sigreg: SIGRegConfig = SIGRegConfig()


class InfoNCELossConfig(_Strict):
    temperature_start: float = Field(0.05, gt=0)
    temperature_end: float = Field(0.1, gt=0)
    # "same_view": SciJEPA's Eq. 7 as printed (the other pairs' *context* views are the negatives), the default;
    # "cross_view": the usual InfoNCE (other pairs' targets), the documented ablation (issue 32, item 8)
    denominator: Literal["cross_view", "same_view"] = "same_view"


class InfoNCEConfig(TrainConfig):
    """SciJEPA's contrastive baseline on the same section pairs: InfoNCE with micro-batch negatives."""

    recipe: Literal["infonce"] = "infonce"
    training: SectionTrainingConfig = SectionTrainingConfig()
    data: SectionPairDataConfig = SectionPairDataConfig()
    infonce: InfoNCELossConfig = InfoNCELossConfig()


C = TypeVar("C", bound=TrainConfig)


def set_dotted(data: dict[str, Any], key: str, value: Any) -> None:
    """Set ``a.b.c`` in a nested dict, creating levels (unknown keys are left for validation to name)."""
    *parents, last = key.split(".")
    for part in parents:
        if not isinstance(data.get(part), dict):
            data[part] = {}
        data = data[part]
    data[last] = value


def parse_overrides(items: Iterable[str]) -> dict[str, Any]:
    """``key=value`` strings; values are parsed as YAML scalars (``64``, ``null``, ``[a, b]``)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"override {item!r}: expected key=value, e.g. training.batch_size=256")
        try:
            out[key.strip()] = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError as exc:
            raise ConfigError(f"override {item!r}: value is not valid YAML ({exc})") from exc
    return out


def _format_errors(source: str, exc: ValidationError) -> str:
    problems = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        if err["type"] == "extra_forbidden":
            problems.append(f"{where}: unknown key")
        else:
            problems.append(f"{where}: {err['msg']} (got {err.get('input')!r})")
    n = len(problems)
    return f"{source}: {n} problem{'s' if n != 1 else ''} in config: " + "; ".join(problems)


def validate_config(cls: type[C], data: dict[str, Any], source: str = "config") -> C:
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_format_errors(source, exc)) from None


def load_config(cls: type[C], path: str | Path | None = None, overrides: dict[str, Any] | None = None) -> C:
    """Read YAML (or start from defaults), apply dotted overrides, validate once."""
    data = {} if path is None else read_yaml_mapping(path, ConfigError, what="config file")
    for key, value in (overrides or {}).items():
        set_dotted(data, key, value)
    source = ("defaults" if path is None else str(path)) + (" + overrides" if overrides else "")
    return validate_config(cls, data, source)


def config_diff(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    """Dotted keys whose values differ between two config dumps."""
    diffs: list[str] = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            diffs.extend(config_diff(a, b, f"{prefix}{key}."))
        elif a != b:
            diffs.append(f"{prefix}{key}: {a!r} -> {b!r}")
    return diffs
