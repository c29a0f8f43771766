"""One hard negative per planned slot, drawn from its anchor's mined list without breaking the batch.

MNRL scores every anchor against every negative of the batch, so a negative is never a paper of the batch and
never linked to any anchor of it. The first such paper of the anchor's mined band (seeded order) is taken, else
a random safe paper (fallback), else, in a small densely linked split, a random paper outside the batch unlinked
to its own anchor (relaxed). Its view mirrors the positive's (TA for TA, a random body window for a window).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from sciembed.training.data import Ragged
from sciembed.training.plan import BatchPlan


def _random_paper(rng: np.random.Generator, n_papers: int, ok) -> int | None:
    """A random paper index passing `ok`, or None when none does (every index checked, in a seeded order)."""
    for j in rng.permutation(n_papers):
        if ok(int(j)):
            return int(j)
    return None


def attach_negatives(plan: BatchPlan, mined: Ragged, linked: list[set[int]], n_body: np.ndarray, seed: int
                     ) -> tuple[BatchPlan, dict[str, int]]:
    """The plan with ``negative_paper`` / ``negative_view`` columns, and how they were drawn."""
    size = plan.batch_size
    neg_paper = np.empty(plan.n_slots, dtype=np.int32)
    neg_view = np.empty(plan.n_slots, dtype=np.int32)
    counts = {"mined": 0, "fallback": 0, "relaxed": 0}
    for b in range(plan.n_batches):
        rows = slice(b * size, (b + 1) * size)
        neg_paper[rows], neg_view[rows] = _batch_negatives(plan.anchor_paper[rows], plan.positive_paper[rows],
                                                           plan.positive_view[rows], mined, linked, n_body,
                                                           np.random.default_rng([seed, 7919, b]), counts, b)
    return replace(plan, negative_paper=neg_paper, negative_view=neg_view), counts


def _batch_negatives(anchors: np.ndarray, positives: np.ndarray, positive_views: np.ndarray, mined: Ragged,
                     linked: list[set[int]], n_body: np.ndarray, rng: np.random.Generator, counts: dict[str, int],
                     batch: int) -> tuple[list[int], list[int]]:
    """Negative papers and views for the rows of one batch (the module docstring gives the preferences)."""
    anchor_set = {int(a) for a in anchors}
    used = anchor_set | {int(p) for p in positives}
    papers, views = [], []
    for anchor, positive_view in zip((int(a) for a in anchors), positive_views, strict=True):
        def safe(j: int) -> bool:
            return j not in used and linked[j].isdisjoint(anchor_set)

        def unlinked(j: int, anchor: int = anchor) -> bool:
            return j not in used and anchor not in linked[j]

        choice = next((int(j) for j in rng.permutation(mined[anchor]) if safe(int(j))), None)
        kind = "mined"
        if choice is None:
            choice, kind = _random_paper(rng, len(linked), safe), "fallback"
        if choice is None:  # a small, densely linked split: unlinked to this row's anchor is the must
            choice, kind = _random_paper(rng, len(linked), unlinked), "relaxed"
        if choice is None:
            raise ValueError(f"batch {batch}: every paper outside the batch is linked to anchor {anchor}")
        counts[kind] += 1
        used.add(choice)
        papers.append(choice)
        bodies = int(n_body[choice])
        views.append(0 if int(positive_view) == 0 or bodies == 0 else int(rng.integers(1, bodies + 1)))
    return papers, views
