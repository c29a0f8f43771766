"""The batch-composition table (the S2Full paper's view-type shares, anchor type first) over every slot of a plan."""

from __future__ import annotations

from typing import Any

import numpy as np

from sciembed.training.pairs import TA
from sciembed.training.plan import BatchPlan

PAIR_TYPES = ("ta-ta", "ta-body", "body-ta", "body-body")
KINDS = ("citation", "self")


def _type_codes(anchor_view: np.ndarray, positive_view: np.ndarray) -> np.ndarray:
    """0..3 in `PAIR_TYPES` order."""
    return 2 * (anchor_view != TA).astype(np.int64) + (positive_view != TA).astype(np.int64)


def composition(plan: BatchPlan) -> dict[str, Any]:
    """Counts and shares per pair kind and view-type pair, plus the plan's shape."""
    codes = _type_codes(plan.anchor_view, plan.positive_view)
    table: dict[str, Any] = {}
    for kind, mask in (("citation", ~plan.is_self), ("self", plan.is_self)):
        counts = np.bincount(codes[mask], minlength=4)
        total = int(counts.sum())
        pairs = list(zip(PAIR_TYPES, counts, strict=True))
        table[kind] = {"pairs": total, "counts": {t: int(c) for t, c in pairs},
                       "shares": {t: (float(c) / total if total else 0.0) for t, c in pairs}}
    self_per_batch = plan.is_self.reshape(-1, plan.batch_size).sum(axis=1) if plan.n_slots else np.zeros(0)
    return {
        "batch_size": plan.batch_size,
        "self_per_batch": plan.n_self,
        "self_share_min": float(self_per_batch.min() / plan.batch_size) if len(self_per_batch) else 0.0,
        "self_share_max": float(self_per_batch.max() / plan.batch_size) if len(self_per_batch) else 0.0,
        "batches": plan.n_batches,
        "batches_per_epoch": list(plan.epoch_batches),
        "dropped_pairs_per_epoch": list(plan.dropped_pairs),
        **table,
    }


def composition_table(comp: dict[str, Any]):
    """A rich Table of `composition` output (percent of each kind's pairs)."""
    from sciembed.training.schedule_report import rich_table

    rows = [(k, str(comp[k]["pairs"]), *(f"{100 * comp[k]['shares'][t]:.1f}%" for t in PAIR_TYPES)) for k in KINDS]
    title = f"Batch composition ({comp['batches']} batches of {comp['batch_size']})"
    return rich_table(title, ("pairs", "n", *PAIR_TYPES), rows)
