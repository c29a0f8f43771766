"""The trainer's batch samplers: they walk the dataset's rows in order.

The rows are shuffled up front from the seed (a plan, drawn examples, an epoch's triplets), so the trainer's
generator and ``set_epoch`` are not needed; that keeps the order identical on resume and under accelerate's
batch sharding (which does not forward ``set_epoch`` to custom samplers).
"""

from __future__ import annotations

from collections.abc import Iterator

from sentence_transformers.base.sampler import DefaultBatchSampler

from sciembed.training.plan import BatchPlan


class InOrderBatchSampler(DefaultBatchSampler):
    """Consecutive batches of the rows; the last one may be short, or is left out with `drop_last`."""

    def __init__(self, dataset, batch_size: int, drop_last: bool = False, **kwargs) -> None:
        super().__init__(dataset, batch_size=batch_size, drop_last=drop_last, **kwargs)
        self.n_rows = len(dataset)

    def __iter__(self) -> Iterator[list[int]]:
        n, size = self.n_rows, self.batch_size
        for start in range(0, n - size + 1 if self.drop_last else n, size):
            yield list(range(start, min(start + size, n)))

    def __len__(self) -> int:
        return self.n_rows // self.batch_size if self.drop_last else -(-self.n_rows // self.batch_size)


class PlanBatchSampler(InOrderBatchSampler):
    """Walks a `BatchPlan` in order; the dataset's rows are the plan's slots (whole batches)."""

    def __init__(self, plan: BatchPlan, dataset, batch_size: int, drop_last: bool = False, **kwargs) -> None:
        super().__init__(dataset, batch_size=batch_size, drop_last=drop_last, **kwargs)
        if batch_size != plan.batch_size:
            raise ValueError(f"trainer batch size {batch_size} differs from the plan's {plan.batch_size}")
        if len(dataset) != plan.n_slots:
            raise ValueError(f"dataset has {len(dataset)} rows; the plan has {plan.n_slots} slots")
        self.plan = plan
