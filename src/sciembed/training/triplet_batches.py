"""Collator and batch sampler for triplet rows stored as text ids (CoSAEmb's recipe)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from sentence_transformers.base.sampler import DefaultBatchSampler
from sentence_transformers.sentence_transformer.data_collator import SentenceTransformerDataCollator


@dataclass
class TripletCollator(SentenceTransformerDataCollator):
    """Text ids -> texts, per batch; the triplet kind stays as the `label` column the loss reads."""

    texts: list[str] | None = field(default=None, repr=False)

    def __call__(self, features: list[dict[str, Any]]) -> dict[str, Any]:
        if self.texts is None:
            raise ValueError("TripletCollator needs `texts`")
        t = self.texts
        rows = [{"anchor": t[f["anchor"]], "positive": t[f["positive"]], "negative": t[f["negative"]],
                 "label": f["label"]} for f in features]
        return super().__call__(rows)


class InOrderBatchSampler(DefaultBatchSampler):
    """The rows are already shuffled per epoch with the seed: walk them in order; the last batch may be short.

    Walking in order keeps a resumed run on exactly the same data (the trainer skips the batches seen).
    """

    def __init__(self, dataset, batch_size: int, drop_last: bool = False, **kwargs) -> None:
        super().__init__(dataset, batch_size=batch_size, drop_last=drop_last, **kwargs)
        self.n_rows = len(dataset)

    def __iter__(self) -> Iterator[list[int]]:
        n, size = self.n_rows, self.batch_size
        for start in range(0, n, size):
            yield list(range(start, min(start + size, n)))

    def __len__(self) -> int:
        return -(-self.n_rows // self.batch_size)
