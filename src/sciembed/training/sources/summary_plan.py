"""SemCSE batch plans: batches of distinct papers, a summary anchor and a drawn positive per paper.

Each epoch shuffles the papers into batches (no paper twice: its other texts would be false negatives) and
drops the last, incomplete one (counted). The positive kind is drawn with the configured shares; a kind the
paper cannot give is redrawn among those it can, counted. A pure function of the seed (numpy only).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sciembed.training.plan import PlanError

SUMMARY, TITLE, SENTENCE, SAME = 0, 1, 2, 3
KIND_NAMES = ("summary", "title", "sentence", "same")


@dataclass(frozen=True)
class SummaryPlan:
    batch_size: int
    paper: np.ndarray
    anchor: np.ndarray  # summary index
    kind: np.ndarray  # SUMMARY | TITLE | SENTENCE | SAME
    positive: np.ndarray  # summary / sentence index (0 for title and same)
    epoch_batches: tuple[int, ...]
    dropped_papers: tuple[int, ...]  # per epoch: papers of the last, incomplete batch
    redrawn: dict[str, int] = field(default_factory=dict)  # "<kind> unavailable" -> count

    @property
    def n_slots(self) -> int:
        return len(self.paper)

    @property
    def n_batches(self) -> int:
        return self.n_slots // self.batch_size

    def columns(self) -> dict[str, np.ndarray]:
        return {"paper": self.paper, "anchor": self.anchor, "kind": self.kind, "positive": self.positive}

    def kind_shares(self) -> dict[str, float]:
        counts = np.bincount(self.kind, minlength=len(KIND_NAMES))
        return {name: float(c / max(1, self.n_slots)) for name, c in zip(KIND_NAMES, counts, strict=True)}

    def composition(self) -> dict[str, Any]:
        counts = np.bincount(self.kind, minlength=len(KIND_NAMES))
        return {"batch_size": self.batch_size, "batches": self.n_batches, "epoch_batches": list(self.epoch_batches),
                "dropped_papers_per_epoch": list(self.dropped_papers),
                "positives": {n: int(c) for n, c in zip(KIND_NAMES, counts, strict=True)},
                "positive_shares": {k: round(v, 4) for k, v in self.kind_shares().items()},
                "redrawn": dict(self.redrawn)}


def plan_summary_batches(n_summaries: np.ndarray, n_sentences: np.ndarray, has_title: np.ndarray,
                         shares: tuple[float, float, float, float], batch_size: int, epochs: int,
                         seed: int) -> SummaryPlan:
    n = len(n_summaries)
    if (n_summaries < 1).any():
        raise PlanError("every training paper needs at least one summary (anchors are summaries)")
    if n < batch_size:
        raise PlanError(f"{n} training papers cannot fill one batch of {batch_size} distinct papers; "
                        "lower training.batch_size")
    probs = np.asarray(shares, dtype=np.float64)
    can = np.stack([n_summaries >= 2, has_title, n_sentences >= 1, np.ones(n, dtype=bool)], axis=1)
    redrawn: dict[str, int] = {}
    papers, anchors, kinds, positives, epoch_batches, dropped = [], [], [], [], [], []
    for epoch in range(epochs):
        rng = np.random.default_rng([seed, epoch])
        order = rng.permutation(n)
        full = (n // batch_size) * batch_size
        epoch_papers = order[:full]
        epoch_batches.append(full // batch_size)
        dropped.append(n - full)
        anchor = np.floor(rng.random(full) * n_summaries[epoch_papers]).astype(np.int64)
        kind = rng.choice(len(probs), size=full, p=probs)
        ok = can[epoch_papers, kind]
        for slot in np.flatnonzero(~ok):
            name = f"{KIND_NAMES[kind[slot]]} unavailable"
            redrawn[name] = redrawn.get(name, 0) + 1
            allowed = probs * can[epoch_papers[slot]]
            if allowed.sum() == 0:  # only "same" (share 0) is left: the anchor text is the positive
                kind[slot] = SAME
            else:
                kind[slot] = rng.choice(len(probs), p=allowed / allowed.sum())
        positive = np.zeros(full, dtype=np.int64)
        is_summary = kind == SUMMARY
        # another summary: uniform over the paper's summaries except the anchor
        other = np.floor(rng.random(full) * np.maximum(n_summaries[epoch_papers] - 1, 1)).astype(np.int64)
        positive[is_summary] = (other + (other >= anchor))[is_summary]
        is_sentence = kind == SENTENCE
        sentence = np.floor(rng.random(full) * np.maximum(n_sentences[epoch_papers], 1)).astype(np.int64)
        positive[is_sentence] = sentence[is_sentence]
        papers.append(epoch_papers)
        anchors.append(anchor)
        kinds.append(kind)
        positives.append(positive)
    return SummaryPlan(batch_size, np.concatenate(papers), np.concatenate(anchors),
                       np.concatenate(kinds).astype(np.int64), np.concatenate(positives), tuple(epoch_batches),
                       tuple(dropped), redrawn)
