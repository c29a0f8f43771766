"""The trainer's batch sampler: walks a `BatchPlan` batch by batch."""

from __future__ import annotations

from collections.abc import Iterator

from sentence_transformers.base.sampler import DefaultBatchSampler

from sciembed.training.plan import BatchPlan


class PlanBatchSampler(DefaultBatchSampler):
    """Walks a `BatchPlan` in order; the dataset's rows are the plan's slots.

    Shuffling already happened in the plan (seeded per epoch), so the trainer's
    generator and ``set_epoch`` are not needed; that keeps the order identical
    on resume and under accelerate's batch sharding (which does not forward
    ``set_epoch`` to custom samplers).
    """

    def __init__(self, plan: BatchPlan, dataset, batch_size: int, drop_last: bool = False, **kwargs) -> None:
        super().__init__(dataset, batch_size=batch_size, drop_last=drop_last, **kwargs)
        if batch_size != plan.batch_size:
            raise ValueError(f"trainer batch size {batch_size} differs from the plan's {plan.batch_size}")
        if len(dataset) != plan.n_slots:
            raise ValueError(f"dataset has {len(dataset)} rows; the plan has {plan.n_slots} slots")
        self.plan = plan

    def __iter__(self) -> Iterator[list[int]]:
        size = self.plan.batch_size
        for b in range(self.plan.n_batches):
            yield list(range(b * size, (b + 1) * size))

    def __len__(self) -> int:
        return self.plan.n_batches
