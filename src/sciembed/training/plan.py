"""Paper-aware batch plans: no paper twice in a batch, a fixed self-alignment share in every batch.

With in-batch negatives, two views of one paper in a batch would be a false negative, and sentence-transformers'
``NO_DUPLICATES`` compares texts, not papers. The whole run is planned up front from the seed, epoch by epoch
(the epoch, ``self_align`` and ``orientation`` are described in docs/recipes/s2full.md): pairs in a fresh order,
a pair whose paper is already in the batch waits for the next one; ``round(share × batch_size)`` self-alignment
slots per batch cycle through the papers with a body; views are drawn per slot (`sciembed.training.pairs`); the
last, incomplete batch is dropped and pairs not reached are counted in ``dropped_pairs``. A resumed run walks
the same plan (`sciembed.training.sampler`); planning needs numpy only, so ``--dry-run`` loads no torch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sciembed.errors import SciembedInputError
from sciembed.training.pairs import draw_citation_views, draw_self_views


class PlanError(SciembedInputError, ValueError):
    """The split cannot fill even one batch under the requested constraints."""


SELF_ALIGN_MODES = ("inside", "on_top")
ORIENTATIONS = ("sorted", "random")


def steps_per_epoch(n_pairs: int, batch_size: int, n_self: int, self_align: str = "inside") -> int:
    """Batches in one epoch: ``n_pairs // batch_size`` (paper), or ``n_pairs // (batch_size − n_self)`` (on top)."""
    if self_align not in SELF_ALIGN_MODES:
        raise ValueError(f"unknown self_align {self_align!r}; expected one of {', '.join(SELF_ALIGN_MODES)}")
    return n_pairs // (batch_size if self_align == "inside" else batch_size - n_self)


def self_slots(batch_size: int, share: float) -> int:
    """Self-alignment slots per batch: ``share × batch_size`` rounded half up."""
    return int(share * batch_size + 0.5)


@dataclass(frozen=True)
class BatchPlan:
    """Slot-major arrays: slot ``i`` is row ``i % batch_size`` of batch ``i // batch_size``."""

    batch_size: int
    n_self: int
    anchor_paper: np.ndarray
    anchor_view: np.ndarray
    positive_paper: np.ndarray
    positive_view: np.ndarray
    is_self: np.ndarray
    epoch_batches: tuple[int, ...]
    dropped_pairs: tuple[int, ...]
    # hard negatives, one per slot (`sciembed.training.plan_negatives`); None: in-batch negatives only
    negative_paper: np.ndarray | None = None
    negative_view: np.ndarray | None = None

    @property
    def n_slots(self) -> int:
        return len(self.anchor_paper)

    @property
    def n_batches(self) -> int:
        return self.n_slots // self.batch_size

    def columns(self) -> dict[str, np.ndarray]:
        """The plan as dataset columns (anchor first: MNRL reads columns in order; the negative last)."""
        columns = {"anchor_paper": self.anchor_paper, "anchor_view": self.anchor_view,
                   "positive_paper": self.positive_paper, "positive_view": self.positive_view, "is_self": self.is_self}
        if self.negative_paper is not None and self.negative_view is not None:
            columns |= {"negative_paper": self.negative_paper, "negative_view": self.negative_view}
        return columns


def _assemble_epoch(pairs: np.ndarray, self_pool: np.ndarray, n_cite: int, n_self: int, rng: np.random.Generator,
                    max_batches: int, orientation: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Greedy batches for one epoch: citation (anchor, positive) rows ``(batches × n_cite, 2)``, self
    papers ``(batches × n_self,)``, pairs not reached.

    The queue is the shuffled pair array walked by a cursor, behind a short list of pairs that waited
    (a paper already in the batch) and go first into the next batch, in their order; the self pool
    likewise. Arrays, not a deque of tuples: a million pairs cost 16 MB, not ~150 MB of Python objects.
    """
    order = rng.permutation(len(pairs))
    flip = rng.random(len(pairs)) < 0.5  # drawn in both orientations, so the order is the same
    if orientation == "sorted":
        flip = pairs[:, 0] > pairs[:, 1]
    oriented = np.where(flip[:, None], pairs[:, ::-1], pairs)[order]
    anchors, positives = oriented[:, 0], oriented[:, 1]
    cites = np.empty((max_batches * n_cite, 2), dtype=np.int64)
    selfs = np.empty(max_batches * n_self, dtype=np.int64)
    front: list[tuple[int, int]] = []  # pairs that waited, first in line
    cursor = 0
    pool = np.empty(0, dtype=np.int64)  # the current pass over the self pool
    pool_cursor = 0
    pool_front: list[int] = []  # self papers skipped (already in the batch), first in line
    done = 0
    while True:
        if done >= max_batches:
            return cites[: done * n_cite], selfs[: done * n_self], len(front) + len(anchors) - cursor
        used: set[int] = set()
        batch: list[tuple[int, int]] = []
        waiting: list[tuple[int, int]] = []
        queued = iter(front)
        while len(batch) < n_cite:
            pair = next(queued, None)
            if pair is None:
                if cursor >= len(anchors):
                    break
                pair = (int(anchors[cursor]), int(positives[cursor]))
                cursor += 1
            a, p = pair
            if a in used or p in used:
                waiting.append(pair)
                continue
            used.update(pair)
            batch.append(pair)
        waiting.extend(queued)  # the rest of the front keeps its place
        if len(batch) < n_cite:
            return cites[: done * n_cite], selfs[: done * n_self], len(batch) + len(waiting)
        front = waiting
        chosen: list[int] = []
        skipped: list[int] = []
        budget = len(self_pool) + n_self
        while len(chosen) < n_self:
            if pool_front:
                paper = pool_front.pop(0)
            else:
                if pool_cursor >= len(pool):
                    pool, pool_cursor = rng.permutation(self_pool), 0
                paper = int(pool[pool_cursor])
                pool_cursor += 1
            budget -= 1
            if paper in used:
                skipped.append(paper)
                if budget < 0:
                    raise PlanError(f"cannot fill {n_self} self-alignment slots: fewer than {n_self} papers with a "
                                    f"body are left outside a batch of {n_cite} citation pairs; lower "
                                    "training.batch_size")
                continue
            used.add(paper)
            chosen.append(paper)
        pool_front = skipped + pool_front
        cites[done * n_cite:(done + 1) * n_cite] = batch
        selfs[done * n_self:(done + 1) * n_self] = chosen
        done += 1


def plan_batches(pairs: np.ndarray, n_body: np.ndarray, *, strategy: str, batch_size: int, self_share: float,
                 epochs: int, seed: int, self_align: str = "inside", orientation: str = "sorted") -> BatchPlan:
    """Plan every batch of every epoch. `pairs` is ``(n, 2)`` paper indices (index order = id order);
    `n_body[i]` is paper i's number of body views (0 for TA-only papers, which never self-align)."""
    if orientation not in ORIENTATIONS:
        raise ValueError(f"unknown orientation {orientation!r}; expected one of {', '.join(ORIENTATIONS)}")
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    n_body = np.asarray(n_body, dtype=np.int64)
    n_self = self_slots(batch_size, self_share)
    n_cite = batch_size - n_self
    if n_cite < 1:
        raise PlanError(f"batch_size {batch_size} with self_align_share {self_share} leaves no citation slot")
    self_pool = np.flatnonzero(n_body > 0)
    if n_self and len(self_pool) == 0:
        raise PlanError("self-alignment needs papers with a body; every paper of the split is TA-only")
    needed = 2 * n_cite + n_self
    if needed > len(n_body):
        raise PlanError(f"a batch of {batch_size} ({n_cite} citation pairs + {n_self} self-alignment pairs) needs "
                        f"{needed} distinct papers; the split has {len(n_body)}; lower training.batch_size")
    max_batches = steps_per_epoch(len(pairs), batch_size, n_self, self_align)
    if max_batches == 0:
        raise PlanError(f"{len(pairs)} citation pairs make no full batch of {batch_size} (an epoch is n_pairs // "
                        "batch_size steps with self_align 'inside'); lower training.batch_size")
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("ap", "av", "pp", "pv", "self")}
    epoch_batches: list[int] = []
    dropped: list[int] = []
    for epoch in range(epochs):
        rng = np.random.default_rng([seed, epoch])
        cites, selfs, lost = _assemble_epoch(pairs, self_pool, n_cite, n_self, rng, max_batches, orientation)
        n_batches = len(cites) // n_cite
        if n_batches == 0:
            raise PlanError(f"epoch {epoch}: {len(pairs)} citation pairs cannot fill one batch of {n_cite} citation "
                            "pairs without repeating a paper; lower training.batch_size")
        cite_arr = cites.reshape(n_batches, n_cite, 2)
        self_arr = selfs.reshape(n_batches, n_self)
        cav, cpv = draw_citation_views(strategy, n_body[cite_arr[..., 0]].ravel(), n_body[cite_arr[..., 1]].ravel(),
                                       rng)
        sv1, sv2 = draw_self_views(n_body[self_arr].ravel(), rng)
        parts["ap"].append(np.concatenate([cite_arr[..., 0], self_arr], axis=1).ravel())
        parts["pp"].append(np.concatenate([cite_arr[..., 1], self_arr], axis=1).ravel())
        parts["av"].append(np.concatenate([cav.reshape(n_batches, n_cite), sv1.reshape(n_batches, n_self)], 1).ravel())
        parts["pv"].append(np.concatenate([cpv.reshape(n_batches, n_cite), sv2.reshape(n_batches, n_self)], 1).ravel())
        is_self = np.zeros((n_batches, batch_size), dtype=bool)
        is_self[:, n_cite:] = True
        parts["self"].append(is_self.ravel())
        epoch_batches.append(n_batches)
        dropped.append(lost)
    ap, av, pp, pv = (np.concatenate(parts[k]).astype(np.int32) for k in ("ap", "av", "pp", "pv"))
    return BatchPlan(batch_size, n_self, ap, av, pp, pv, np.concatenate(parts["self"]), tuple(epoch_batches),
                     tuple(dropped))
