"""Data collators that turn the dataset's integers (planned slots, text ids) into texts just before tokenising.

Texts are cut per batch, so memory does not grow with epochs × windows and every epoch's fresh windows cost
nothing up front.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sentence_transformers.sentence_transformer.data_collator import SentenceTransformerDataCollator


@dataclass
class TextsCollator(SentenceTransformerDataCollator):
    """Maps each feature to its texts with `row`, which reads them from `texts`."""

    texts: Any = field(default=None, repr=False)

    def __call__(self, features: list[dict[str, Any]]) -> dict[str, Any]:
        if self.texts is None:
            raise ValueError(f"{type(self).__name__} needs `texts`")
        return super().__call__([self.row(f) for f in features])

    def row(self, f: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError


@dataclass
class PlanCollator(TextsCollator):
    """Planned (paper, view) slots through `sciembed.training.data.ViewTexts`."""

    def row(self, f: dict[str, Any]) -> dict[str, Any]:
        row = {"anchor": self.texts(f["anchor_paper"], f["anchor_view"]),
               "positive": self.texts(f["positive_paper"], f["positive_view"])}
        if "negative_paper" in f:  # a planned hard negative: MNRL's third column
            row["negative"] = self.texts(f["negative_paper"], f["negative_view"])
        return row


@dataclass
class SummaryCollator(TextsCollator):
    """SemCSE's planned slots (paper, anchor summary, positive kind and index) through `recipes.semcse.SummaryTexts`."""

    def row(self, f: dict[str, Any]) -> dict[str, Any]:
        return {"anchor": self.texts.anchor(f["paper"], f["anchor"]),
                "positive": self.texts.positive(f["paper"], f["anchor"], f["kind"], f["positive"])}


@dataclass
class TripletCollator(TextsCollator):
    """CoSAEmb's text ids (`texts` a list); the triplet kind stays as the `label` column the loss reads."""

    def row(self, f: dict[str, Any]) -> dict[str, Any]:
        t = self.texts
        return {"anchor": t[f["anchor"]], "positive": t[f["positive"]], "negative": t[f["negative"]],
                "label": f["label"]}


@dataclass
class SectionPairCollator(TextsCollator):
    """Section-pair examples (paper, task) through `sources.section_pairs.SectionPairTexts`."""

    def row(self, f: dict[str, Any]) -> dict[str, Any]:
        context, target = self.texts(f["paper"], f["task"])
        return {"anchor": context, "positive": target}
