"""The `semcse` recipe's config (pydantic only, so the CLI can read it without torch)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from sciembed.training.config import ModelConfig, TrainConfig, _Strict

POSITIVE_KINDS = ("summary", "title", "sentence", "same")


class PositiveShares(_Strict):
    """How often each kind of positive is drawn for a summary anchor (they must sum to 1).
    ``same`` (positive = the anchor text itself, dropout noise only) is the "same input" ablation."""

    summary: float = Field(0.50, ge=0, le=1)
    title: float = Field(0.15, ge=0, le=1)
    sentence: float = Field(0.35, ge=0, le=1)
    same: float = Field(0.0, ge=0, le=1)

    @model_validator(mode="after")
    def _sums_to_one(self) -> PositiveShares:
        total = self.summary + self.title + self.sentence + self.same
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"positive shares sum to {total:g}, not 1")
        return self

    def as_array(self) -> tuple[float, ...]:
        return tuple(getattr(self, k) for k in POSITIVE_KINDS)


class SemCSEDataConfig(_Strict):
    summaries: str | None = None  # JSONL {paper_id, text, source}; None: <corpus>/summaries.jsonl
    split: Literal["train", "val", "test"] | None = None  # None: every paper of the corpus
    positives: PositiveShares = PositiveShares()
    max_papers: int | None = Field(None, gt=0)  # data-size ablation (seeded sample)


class SemCSELossConfig(_Strict):
    kind: Literal["triplet", "infonce"] = "triplet"  # infonce: the cosine InfoNCE ablation
    margin: float = Field(1.0, gt=0)
    penalty_weight: float = Field(1 / 250, ge=0)
    penalty: Literal["squared_norm", "norm"] = "squared_norm"
    temperature: float = Field(0.07, gt=0)  # infonce only


class SemCSEValidationConfig(_Strict):
    """Mean rank on held-out papers (`training.semcse_validation`); the best evaluation's weights are kept and
    training stops after ``patience`` evaluations without improvement. ``every_steps: 0`` turns it off."""

    every_steps: int = Field(0, ge=0)
    papers: int = Field(900, gt=1)
    max_share: float = Field(0.1, gt=0, lt=1)  # never hold out more than this share of the papers
    patience: int = Field(15, gt=0)


class SemCSEModelConfig(ModelConfig):
    """The paper: SciDeBERTa, first-token (CLS) pooling, no normalisation. The offline default is
    MiniLM, whose own pooling is mean (sciembed's default here, so the base model is unchanged)."""

    max_seq_length: int = Field(256, gt=0)
    pooling: Literal["cls", "mean"] = "mean"


class SemCSEConfig(TrainConfig):
    """SemCSE: summaries of one abstract pulled together by a Euclidean triplet loss."""

    recipe: Literal["semcse"] = "semcse"
    model: SemCSEModelConfig = SemCSEModelConfig()
    data: SemCSEDataConfig = SemCSEDataConfig()
    loss: SemCSELossConfig = SemCSELossConfig()
    validation: SemCSEValidationConfig = SemCSEValidationConfig()  # type: ignore[assignment]
