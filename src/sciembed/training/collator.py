"""Data collator that turns planned (paper, view) slots into texts just before tokenising.

The training dataset holds only the plan's integers; texts are cut here, per
batch, so memory does not grow with epochs × windows and every epoch's fresh
windows cost nothing up front.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sentence_transformers.sentence_transformer.data_collator import SentenceTransformerDataCollator

from sciembed.training.data import ViewTexts


@dataclass
class PlanCollator(SentenceTransformerDataCollator):
    texts: ViewTexts | None = field(default=None, repr=False)

    def __call__(self, features: list[dict[str, Any]]) -> dict[str, Any]:
        if self.texts is None:
            raise ValueError("PlanCollator needs `texts`")
        rows = []
        for f in features:
            row = {
                "anchor": self.texts(f["anchor_paper"], f["anchor_view"]),
                "positive": self.texts(f["positive_paper"], f["positive_view"]),
            }
            if "negative_paper" in f:  # a planned hard negative: MNRL's third column
                row["negative"] = self.texts(f["negative_paper"], f["negative_view"])
            rows.append(row)
        return super().__call__(rows)


@dataclass
class SummaryCollator(SentenceTransformerDataCollator):
    """SemCSE's planned slots (paper, anchor summary, positive kind and index) to (anchor, positive) texts."""

    texts: Any = field(default=None, repr=False)  # sciembed.training.recipes.semcse.SummaryTexts

    def __call__(self, features: list[dict[str, Any]]) -> dict[str, Any]:
        if self.texts is None:
            raise ValueError("SummaryCollator needs `texts`")
        rows = [
            {
                "anchor": self.texts.anchor(f["paper"], f["anchor"]),
                "positive": self.texts.positive(f["paper"], f["anchor"], f["kind"], f["positive"]),
            }
            for f in features
        ]
        return super().__call__(rows)
