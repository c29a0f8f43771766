"""CoSAEmb's config: the shared `TrainConfig` plus the triplet data block, margins and pooling.

Defaults are the paper's: local/global negatives from cited papers, random inter-document negatives, margins
(inter, global, local) = (1, 2, 3) on squared Euclidean distances without normalisation, CLS pooling, batch 32,
2 epochs, 10% linear warmup to 2e-5 then linear decay.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from sciembed.training.config import ModelConfig, TrainConfig, TrainingConfig, _Strict

TripletKind = Literal["local", "global", "inter"]


class CosaembModelConfig(ModelConfig):
    pooling: Literal["cls", "mean"] = "cls"


class Margins(_Strict):
    """Margin per triplet kind (squared Euclidean units); the paper's grid also has (0.5, 1, 1.5), (2, 4, 6)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, serialize_by_alias=True)

    inter: float = Field(1.0, gt=0)
    global_: float = Field(2.0, gt=0, alias="global")
    local: float = Field(3.0, gt=0)

    def by_kind(self) -> tuple[float, float, float]:
        return self.inter, self.global_, self.local


class CosaembDataConfig(_Strict):
    kinds: tuple[TripletKind, ...] = Field(("local", "global", "inter"), min_length=1)
    negative: Literal["cited", "random", "two_hop"] = "cited"  # local and global triplets
    inter_negative: Literal["random", "two_hop"] = "random"
    order: Literal["anchor_positive", "positive_anchor", "random"] = "anchor_positive"
    merge_sections: bool = True  # one section text per class per paper (False: per physical section)
    title_sep: bool = True  # "[TTL] title [SEP] [INTR] …" (False: "[TTL] title [INTR] …")
    # inter-document triplets from the corpus's citations, or from SPECTER's released training data (the
    # paper's source): `specter` is the release folder (data.json, metadata.json, train.txt), read by
    # `sciembed.training.sources.specter`
    inter_source: Literal["corpus", "specter"] = "corpus"
    specter: str | None = None
    specter_split: Literal["train", "val", "test"] = "train"

    @model_validator(mode="after")
    def _specter_needs_a_folder(self) -> CosaembDataConfig:
        if self.inter_source == "specter" and not self.specter:
            raise ValueError("data.inter_source: specter needs data.specter (the SPECTER release folder)")
        if self.inter_source == "specter" and "inter" not in self.kinds:
            raise ValueError("data.inter_source: specter gives inter-document triplets; add 'inter' to data.kinds")
        return self

    @field_validator("kinds")
    @classmethod
    def _distinct(cls, kinds: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(kinds)) != len(kinds):
            raise ValueError(f"triplet kinds repeat: {list(kinds)}")
        return kinds


class CosaembTrainingConfig(TrainingConfig):
    batch_size: int = Field(32, ge=2)
    epochs: int = Field(2, gt=0)
    margins: Margins = Margins()
    normalize: bool = False  # L2-normalise embeddings before the distances (margins ≤ 4 only then make sense)


class CosaembConfig(TrainConfig):
    """CoSAEmb: local, global and inter-document triplets, graded triplet loss."""

    recipe: Literal["cosaemb"] = "cosaemb"
    model: CosaembModelConfig = CosaembModelConfig()
    training: CosaembTrainingConfig = CosaembTrainingConfig()
    data: CosaembDataConfig = CosaembDataConfig()
